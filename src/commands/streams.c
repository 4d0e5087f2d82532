/* streams: the stream commands (XADD, XRANGE, XREAD, XINFO STREAM, ...).
 * The data structure is in data/stream.c; this file parses arguments,
 * replies as Redis 7.0 does, reports key changes and makes the replicated
 * form deterministic (XADD propagates the ID it generated and an exact
 * trim), consumer groups (XGROUP, XREADGROUP, XACK, XCLAIM, XAUTOCLAIM,
 * XPENDING, XINFO GROUPS/CONSUMERS) included. */
#include "server/cmdargs.h"
#include "server/readykeys.h"
#include "data/stream.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "server/propagate.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

#define STREAM_ID_ERR "Invalid stream ID specified as stream command argument"

/* ------------------------------------------------------------ IDs */

/* Parses "ms-seq" or "ms" (seq = missing_seq). Unless strict, "-" and "+"
 * are the smallest and greatest IDs. With seq_given, "ms-*" is accepted and
 * *seq_given tells whether the sequence was given. */
static int parseID(robj *o, streamID *id, uint64_t missing_seq, int strict, int *seq_given) {
    char buf[128];
    size_t len;
    const char *s = stringObjectView(o, buf, &len);
    if (seq_given) *seq_given = 1;
    if (len > sizeof(buf) - 1) goto invalid;
    memmove(buf, s, len);
    buf[len] = '\0';
    if (len == 1 && (buf[0] == '-' || buf[0] == '+')) {
        if (strict) goto invalid;
        id->ms = id->seq = buf[0] == '-' ? 0 : UINT64_MAX;
        return C_OK;
    }
    unsigned long long ms, seq;
    char *dash = strchr(buf, '-');
    if (dash) *dash = '\0';
    if (!string2ull(buf, &ms)) goto invalid;
    if (!dash) {
        seq = missing_seq;
    } else if (seq_given && dash[1] == '*' && dash[2] == '\0') {
        seq = 0;
        *seq_given = 0;
    } else if (!string2ull(dash + 1, &seq)) {
        goto invalid;
    }
    id->ms = ms;
    id->seq = seq;
    return C_OK;
invalid:
    return C_ERR;
}

static int parseIDOrReply(client *c, robj *o, streamID *id, uint64_t missing_seq, int strict, int *seq_given) {
    if (parseID(o, id, missing_seq, strict, seq_given) == C_OK) return C_OK;
    addReplyError(c, STREAM_ID_ERR);
    return C_ERR;
}

static void addReplyStreamID(client *c, const streamID *id) {
    char buf[STREAM_ID_STR_LEN];
    addReplyBulkCBuffer(c, buf, (size_t)streamFormatID(buf, id));
}

static robj *createStreamIDObject(const streamID *id) {
    char buf[STREAM_ID_STR_LEN];
    return createStringObject(buf, (size_t)streamFormatID(buf, id));
}

static void addReplyLpEntry(client *c, const lpEntry *e) {
    if (e->sval) addReplyBulkCBuffer(c, e->sval, e->slen);
    else addReplyBulkLongLong(c, e->lval);
}

/* One entry as [id, [field, value, ...]]. */
static void addReplyStreamEntry(client *c, streamIterator *it, const streamID *id, long numfields) {
    addReplyArrayLen(c, 2);
    addReplyStreamID(c, id);
    addReplyArrayLen(c, numfields * 2);
    for (long j = 0; j < numfields; j++) {
        lpEntry f, v;
        streamIteratorNextField(it, &f, &v);
        addReplyLpEntry(c, &f);
        addReplyLpEntry(c, &v);
    }
}

/* Replies with the entries in [start, end] (count 0: all); returns how many. */
static long addReplyStreamRange(client *c, stream *s, const streamID *start, const streamID *end, long long count,
                                int rev) {
    void *len = addReplyDeferredLen(c);
    streamIterator it;
    streamID id;
    long numfields, n = 0;
    streamIteratorStart(&it, s, start, end, rev);
    while ((!count || n < count) && streamIteratorNext(&it, &id, &numfields)) {
        addReplyStreamEntry(c, &it, &id, numfields);
        n++;
    }
    streamIteratorStop(&it);
    setDeferredArrayLen(c, len, n);
    return n;
}

/* ------------------------------------------------------------ trimming args */

typedef struct trimArgs {
    int strategy;
    int approx;
    uint64_t maxlen;
    streamID minid;
    int64_t limit;
    int nomkstream;
    int id_pos; /* XADD: where the ID is */
} trimArgs;

/* The options of XADD (xadd=1) and XTRIM. C_ERR after replying. */
static int parseTrimArgsOrReply(client *c, trimArgs *a, int xadd) {
    int limit_given = 0;
    int i;
    memset(a, 0, sizeof(*a));
    for (i = 2; i < c->argc; i++) {
        int moreargs = c->argc - 1 - i;
        const char *opt = objectPtr(c->argv[i]);
        int is_maxlen = !strcasecmp(opt, "maxlen"), is_minid = !strcasecmp(opt, "minid");
        if (xadd && !strcmp(opt, "*")) break;
        if ((is_maxlen || is_minid) && moreargs) {
            if (a->strategy != TRIM_STRATEGY_NONE) {
                addReplyError(c, "syntax error, MAXLEN and MINID options at the same time are not compatible");
                return C_ERR;
            }
            const char *next = objectPtr(c->argv[i + 1]);
            a->approx = 0;
            if (moreargs >= 2 && (!strcmp(next, "~") || !strcmp(next, "="))) {
                a->approx = next[0] == '~';
                i++;
            }
            if (is_maxlen) {
                long long maxlen;
                if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &maxlen, NULL) != C_OK) return C_ERR;
                if (maxlen < 0) {
                    addReplyError(c, "The MAXLEN argument must be >= 0.");
                    return C_ERR;
                }
                a->maxlen = (uint64_t)maxlen;
                a->strategy = TRIM_STRATEGY_MAXLEN;
            } else {
                if (parseIDOrReply(c, c->argv[i + 1], &a->minid, 0, 1, NULL) != C_OK) return C_ERR;
                a->strategy = TRIM_STRATEGY_MINID;
            }
            i++;
        } else if (!strcasecmp(opt, "limit") && moreargs) {
            long long limit;
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &limit, NULL) != C_OK) return C_ERR;
            if (limit < 0) {
                addReplyError(c, "The LIMIT argument must be >= 0.");
                return C_ERR;
            }
            a->limit = limit;
            limit_given = 1;
            i++;
        } else if (xadd && !strcasecmp(opt, "nomkstream")) {
            a->nomkstream = 1;
        } else if (xadd) {
            break;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    a->id_pos = i;
    if (a->limit && a->strategy == TRIM_STRATEGY_NONE) {
        addReplyError(c, "syntax error, LIMIT cannot be used without specifying a trimming strategy");
        return C_ERR;
    }
    if (limit_given) {
        if (!a->approx) {
            addReplyError(c, "syntax error, LIMIT cannot be used without the special ~ option");
            return C_ERR;
        }
    } else if (a->approx) {
        /* As Redis: bound the work of an approximate trim to 100 nodes. */
        a->limit = 100 * server.stream_node_max_entries;
        if (a->limit <= 0 || a->limit > 1000000) a->limit = 10000;
    }
    if (!xadd && a->strategy == TRIM_STRATEGY_NONE) {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    return C_OK;
}

/* The replicated form of a trim is exact, so replay removes the same
 * entries whatever the replaying server's node sizes: MAXLEN = <length>. */
static robj **appendExactTrim(robj **argv, int *argc, stream *s) {
    argv[(*argc)++] = createStringObject("MAXLEN", 6);
    argv[(*argc)++] = createStringObject("=", 1);
    argv[(*argc)++] = createStringObjectFromLongLong((long long)s->length);
    return argv;
}

/* ------------------------------------------------------------ XADD / XTRIM */

void xaddCommand(client *c) {
    trimArgs a;
    if (parseTrimArgsOrReply(c, &a, 1) != C_OK) return;
    int field_pos = a.id_pos + 1;
    if (c->argc - field_pos < 2 || (c->argc - field_pos) % 2) {
        addReplyErrorArity(c);
        return;
    }
    streamID given = {0, 0};
    int id_given = 0, seq_given = 1;
    robj *idarg = c->argv[a.id_pos];
    if (strcmp(objectPtr(idarg), "*") != 0) {
        if (parseIDOrReply(c, idarg, &given, 0, 1, &seq_given) != C_OK) return;
        id_given = 1;
    }
    /* Refused before the key is created, so no empty stream is left behind. */
    if (id_given && seq_given && given.ms == 0 && given.seq == 0) {
        addReplyError(c, "The ID specified in XADD must be greater than 0-0");
        return;
    }
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_STREAM)) return;
    if (!o) {
        if (a.nomkstream) {
            addReplyNull(c);
            return;
        }
        o = createStreamObject();
        o = dbAdd(c->db, c->argv[1], o);
    }
    stream *s = objectPtr(o);
    if (s->last_id.ms == UINT64_MAX && s->last_id.seq == UINT64_MAX) {
        addReplyError(c, "The stream has exhausted the last possible ID, unable to add more items");
        return;
    }
    streamID id;
    if (streamNextID(s, id_given ? &given : NULL, seq_given, commandTimeMs(), &id) != 0) {
        addReplyError(c, "The ID specified in XADD is equal or smaller than the target stream top item");
        return;
    }
    long numfields = (c->argc - field_pos) / 2;
    if (streamAppendItem(s, &id, c->argv + field_pos, numfields, server.stream_node_max_bytes,
                         server.stream_node_max_entries) != 0) {
        addReplyError(c, "Elements are too large to be stored");
        return;
    }
    addReplyStreamID(c, &id);
    keyChanged(c->db, c->argv[1], NOTIFY_STREAM, "xadd", 1);
    int64_t trimmed = streamTrim(s, a.strategy, a.maxlen, &a.minid, a.approx, a.limit);
    if (trimmed) keyChanged(c->db, c->argv[1], NOTIFY_STREAM, "xtrim", 1);
    signalKeyAsReady(c->db, c->argv[1], OBJ_STREAM);

    /* Replicated as XADD key [MAXLEN = <len>] <id> fields...: the generated ID
     * and an exact trim (only when something was trimmed) replay identically. */
    if (!id_given || !seq_given || a.strategy != TRIM_STRATEGY_NONE) {
        robj **argv = zmalloc(sizeof(robj *) * (size_t)(c->argc - field_pos + 6));
        int argc = 0;
        argv[argc++] = createStringObject("XADD", 4);
        argv[argc++] = c->argv[1];
        incrRefCount(c->argv[1]);
        if (trimmed) appendExactTrim(argv, &argc, s);
        argv[argc++] = createStreamIDObject(&id);
        for (int j = field_pos; j < c->argc; j++) {
            argv[argc++] = c->argv[j];
            incrRefCount(c->argv[j]);
        }
        struct redisCommand *cmd = c->cmd;
        replaceClientCommandVector(c, argc, argv);
        c->cmd = cmd;
    }
}

void xtrimCommand(client *c) {
    trimArgs a;
    if (parseTrimArgsOrReply(c, &a, 0) != C_OK) return;
    if (a.id_pos != c->argc) { /* cannot happen: every argument was consumed */
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_STREAM)) return;
    stream *s = objectPtr(o);
    int64_t trimmed = streamTrim(s, a.strategy, a.maxlen, &a.minid, a.approx, a.limit);
    addReplyLongLong(c, trimmed);
    if (!trimmed) return;
    keyChanged(c->db, c->argv[1], NOTIFY_STREAM, "xtrim", 1);
    robj **argv = zmalloc(sizeof(robj *) * 5);
    int argc = 0;
    argv[argc++] = createStringObject("XTRIM", 5);
    argv[argc++] = c->argv[1];
    incrRefCount(c->argv[1]);
    appendExactTrim(argv, &argc, s);
    struct redisCommand *cmd = c->cmd;
    replaceClientCommandVector(c, argc, argv);
    c->cmd = cmd;
}

/* ------------------------------------------------------------ XLEN / XRANGE / XDEL / XSETID */

void xlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_STREAM)) return;
    addReplyLongLong(c, (long long)((stream *)objectPtr(o))->length);
}

/* Options from argv[from] on, where only "COUNT n" may appear (any number
 * of times). A negative n becomes if_negative. */
static int parseTrailingCountOrReply(client *c, int from, long long *count, long long if_negative,
                                     int subcommand) {
    for (int j = from; j < c->argc; j++) {
        if (!strcasecmp(objectPtr(c->argv[j]), "count") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], count, NULL) != C_OK) return C_ERR;
            if (*count < 0) *count = if_negative;
            j++;
        } else {
            if (subcommand) addReplySubcommandSyntaxError(c);
            else addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

/* An XRANGE bound: "(id" excludes id; a missing sequence is missing_seq. */
static int parseRangeBoundOrReply(client *c, robj *o, streamID *id, uint64_t missing_seq, int *exclusive) {
    *exclusive = 0;
    if (sdsEncodedObject(o) && stringObjectLen(o) > 1 && ((char *)objectPtr(o))[0] == '(') {
        robj *rest = createStringObject((char *)objectPtr(o) + 1, stringObjectLen(o) - 1);
        int r = parseIDOrReply(c, rest, id, missing_seq, 1, NULL);
        decrRefCount(rest);
        *exclusive = 1;
        return r;
    }
    return parseIDOrReply(c, o, id, missing_seq, 0, NULL);
}

static void xrangeGeneric(client *c, int rev) {
    robj *startarg = rev ? c->argv[3] : c->argv[2], *endarg = rev ? c->argv[2] : c->argv[3];
    streamID start, end;
    int ex;
    long long count = -1;
    if (parseRangeBoundOrReply(c, startarg, &start, 0, &ex) != C_OK) return;
    if (ex && streamIncrID(&start) != 0) {
        addReplyError(c, "invalid start ID for the interval");
        return;
    }
    if (parseRangeBoundOrReply(c, endarg, &end, UINT64_MAX, &ex) != C_OK) return;
    if (ex && streamDecrID(&end) != 0) {
        addReplyError(c, "invalid end ID for the interval");
        return;
    }
    if (parseTrailingCountOrReply(c, 4, &count, 0, 0) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (!o || replyIfWrongType(c, o, OBJ_STREAM)) return;
    if (count == 0) { /* Redis 7.0 answers a null array here */
        addReplyNullArray(c);
        return;
    }
    addReplyStreamRange(c, objectPtr(o), &start, &end, count < 0 ? 0 : count, rev);
}

void xrangeCommand(client *c) { xrangeGeneric(c, 0); }
void xrevrangeCommand(client *c) { xrangeGeneric(c, 1); }

void xdelCommand(client *c) {
    int n = c->argc - 2;
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)n);
    for (int j = 0; j < n; j++) {
        if (parseIDOrReply(c, c->argv[j + 2], &ids[j], 0, 1, NULL) != C_OK) {
            zfree(ids);
            return;
        }
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_STREAM)) {
        zfree(ids);
        return;
    }
    long long deleted = 0;
    for (int j = 0; j < n; j++) deleted += streamDeleteItem(objectPtr(o), &ids[j]);
    zfree(ids);
    addReplyLongLong(c, deleted);
    if (deleted) {
        keyChanged(c->db, c->argv[1], NOTIFY_STREAM, "xdel", deleted); /* one change per entry, as Redis counts */
    }
}

void xsetidCommand(client *c) {
    streamID id, max_xdel = {0, 0};
    long long entries_added = -1;
    int max_xdel_given = 0;
    if (parseIDOrReply(c, c->argv[2], &id, 0, 1, NULL) != C_OK) return;
    for (int j = 3; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "entriesadded") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &entries_added, NULL) != C_OK) return;
            if (entries_added < 0) {
                addReplyError(c, "entries_added must be positive");
                return;
            }
            j++;
        } else if (!strcasecmp(opt, "maxdeletedid") && moreargs) {
            if (parseIDOrReply(c, c->argv[j + 1], &max_xdel, 0, 1, NULL) != C_OK) return;
            if (streamCompareID(&id, &max_xdel) < 0) {
                addReplyError(c, "The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                return;
            }
            max_xdel_given = 1;
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.nokeyerr);
    if (!o || replyIfWrongType(c, o, OBJ_STREAM)) return;
    stream *s = objectPtr(o);
    if (s->length > 0) {
        streamID top;
        streamLastValidID(s, &top);
        if (streamCompareID(&id, &top) < 0) {
            addReplyError(c, "The ID specified in XSETID is smaller than the target stream top item");
            return;
        }
        if (entries_added != -1 && s->length > (uint64_t)entries_added) {
            addReplyError(c, "The entries_added specified in XSETID is smaller than the target stream length");
            return;
        }
    }
    s->last_id = id;
    if (entries_added != -1) s->entries_added = (uint64_t)entries_added;
    if (max_xdel_given) s->max_deleted_entry_id = max_xdel;
    addReply(c, shared.ok);
    keyChanged(c->db, c->argv[1], NOTIFY_STREAM, "xsetid", 1);
}

/* ------------------------------------------------------------ group effects */

/* Consumer-group commands depend on the clock (delivery times, idle
 * filters), so, as in Redis, what is replicated is their effect: one
 * XCLAIM ... TIME RETRYCOUNT FORCE JUSTID LASTID per pending entry they
 * touched, XGROUP SETID for the group's position, XGROUP CREATECONSUMER for
 * a consumer XCLAIM / XAUTOCLAIM created. One XREADGROUP creates is not an
 * effect of its own (7.0.15): its XCLAIMs create it where they are replayed. Each effect is propagated as it happens; a command
 * whose effects say it all is then not propagated itself. */
static int effects_propagated; /* by the running command */

static void queueEffect(client *c, int argc, robj **argv) {
    keyChanged(c->db, NULL, 0, NULL, 1);
    alsoPropagate(c, argv, argc);
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
    zfree(argv);
    effects_propagated++;
}

/* A new argv of argc slots starting "name [sub] key group"; *next is the first free slot. */
static robj **effectArgv(int argc, const char *name, const char *sub, robj *key, robj *group, int *next) {
    robj **argv = zmalloc(sizeof(robj *) * (size_t)argc);
    int j = 0;
    argv[j++] = createStringObject(name, strlen(name));
    if (sub) argv[j++] = createStringObject(sub, strlen(sub));
    argv[j++] = key;
    argv[j++] = group;
    incrRefCount(key);
    incrRefCount(group);
    *next = j;
    return argv;
}

static void queueClaimEffect(client *c, robj *key, robj *group, streamCG *cg, const streamID *id, streamNACK *nack) {
    int j;
    robj **argv = effectArgv(14, "XCLAIM", NULL, key, group, &j);
    argv[j++] = createStringObject(nack->consumer->name, sdslen(nack->consumer->name));
    argv[j++] = createStringObject("0", 1);
    argv[j++] = createStreamIDObject(id);
    argv[j++] = createStringObject("TIME", 4);
    argv[j++] = createStringObjectFromLongLong(nack->delivery_time);
    argv[j++] = createStringObject("RETRYCOUNT", 10);
    argv[j++] = createStringObjectFromLongLong((long long)nack->delivery_count);
    argv[j++] = createStringObject("FORCE", 5);
    argv[j++] = createStringObject("JUSTID", 6);
    argv[j++] = createStringObject("LASTID", 6);
    argv[j++] = createStreamIDObject(&cg->last_id);
    queueEffect(c, j, argv);
}

static void queueSetidEffect(client *c, robj *key, robj *group, streamCG *cg) {
    int j;
    robj **argv = effectArgv(7, "XGROUP", "SETID", key, group, &j);
    argv[j++] = createStreamIDObject(&cg->last_id);
    argv[j++] = createStringObject("ENTRIESREAD", 11);
    argv[j++] = createStringObjectFromLongLong(cg->entries_read);
    queueEffect(c, j, argv);
}

/* XCLAIM / XAUTOCLAIM creating their consumer. */
static void queueCreateConsumerEffect(client *c, robj *key, robj *group, robj *consumer) {
    int j;
    robj **argv = effectArgv(5, "XGROUP", "CREATECONSUMER", key, group, &j);
    argv[j++] = consumer;
    incrRefCount(consumer);
    queueEffect(c, j, argv);
}

/* At the end of the command: with effects_only, the effects (if any) stand
 * for the command, which is not propagated itself. */
static void flushEffects(client *c, int effects_only) {
    if (effects_only && effects_propagated) preventCommandPropagation(c);
    effects_propagated = 0;
}

/* ------------------------------------------------------------ XREAD / XREADGROUP */

static const streamID NEW_ENTRIES_ID = {UINT64_MAX, UINT64_MAX}; /* ">" */

static int isNewEntriesID(const streamID *id) { return id->ms == UINT64_MAX && id->seq == UINT64_MAX; }

static void addReplyNoGroupForKey(client *c, robj *key, robj *group) {
    addReplyErrorFormat(c, "-NOGROUP No such consumer group '%s' for key name '%s'", (char *)objectPtr(group),
                        (char *)objectPtr(key));
}

/* Delivers entries after the group's last ID to consumer: each one goes to
 * the PEL (unless noack) and moves the group's position. */
static void addReplyDeliveringNew(client *c, robj *key, robj *group, stream *s, streamCG *cg,
                                  streamConsumer *consumer, robj *created, long long count, int noack) {
    void *len = addReplyDeferredLen(c);
    streamIterator it;
    streamID id, start = cg->last_id, end = {UINT64_MAX, UINT64_MAX};
    long numfields, n = 0;
    streamIncrID(&start);
    streamIteratorStart(&it, s, &start, &end, 0);
    while ((!count || n < count) && streamIteratorNext(&it, &id, &numfields)) {
        if (streamCompareID(&id, &cg->last_id) > 0) {
            if (cg->entries_read != SCG_INVALID_ENTRIES_READ && !streamRangeHasTombstones(s, &id, NULL))
                cg->entries_read++;
            else if (s->entries_added)
                cg->entries_read = streamEstimateDistanceFromFirstEverEntry(s, &id);
            cg->last_id = id;
        }
        if (!noack) queueClaimEffect(c, key, group, cg, &id, streamAssignPending(cg, consumer, &id, commandTimeMs()));
        addReplyStreamEntry(c, &it, &id, numfields);
        n++;
    }
    streamIteratorStop(&it);
    setDeferredArrayLen(c, len, n);
    /* Without NOACK the XCLAIMs carry the group's last ID (LASTID) and
     * create the consumer; with it, as 7.0.15: the consumer if new, then SETID. */
    if (n && noack) {
        if (created) queueCreateConsumerEffect(c, key, group, created);
        queueSetidEffect(c, key, group, cg);
    }
}

/* The consumer's own pending entries after `after`, delivered again; an
 * entry deleted from the stream meanwhile comes with a nil body. */
static void addReplyConsumerHistory(client *c, robj *key, robj *group, stream *s, streamCG *cg,
                                    streamConsumer *consumer, const streamID *after, long long count) {
    if (!consumer) {
        addReplyArrayLen(c, 0);
        return;
    }
    streamID start = *after;
    int found;
    long n = 0;
    streamIncrID(&start);
    size_t pos = streamIDMapSeek(&consumer->pel, &start, &found);
    void *len = addReplyDeferredLen(c);
    for (; pos < consumer->pel.len && (!count || n < count); pos++, n++) {
        streamID *id = &consumer->pel.ids[pos];
        streamNACK *nack = consumer->pel.vals[pos];
        streamIterator it;
        streamID got;
        long numfields;
        streamIteratorStart(&it, s, id, id, 0);
        if (streamIteratorNext(&it, &got, &numfields)) {
            addReplyStreamEntry(c, &it, &got, numfields);
            nack->delivery_time = commandTimeMs();
            nack->delivery_count++;
            queueClaimEffect(c, key, group, cg, id, nack);
        } else {
            addReplyArrayLen(c, 2);
            addReplyStreamID(c, id);
            addReplyNullArray(c);
        }
        streamIteratorStop(&it);
    }
    setDeferredArrayLen(c, len, n);
}

/* XREAD / XREADGROUP, parsed. The streams' keys are argv[streams_arg ..
 * streams_arg + nstreams - 1], their IDs the nstreams arguments after. */
typedef struct xreadRequest {
    int group; /* XREADGROUP */
    long long timeout, count;
    int block, noack, streams_arg, nstreams;
    robj *groupname, *consumername;
} xreadRequest;

/* Scripts are refused BLOCK before anything else is checked, as in Redis.
 * C_ERR after replying. */
static int parseXreadOptions(client *c, xreadRequest *rq) {
    const char *cmdname = rq->group ? "xreadgroup" : "xread";
    for (int i = 1; (c->flags & CLIENT_LUA) && i < c->argc && strcasecmp(objectPtr(c->argv[i]), "streams"); i++) {
        if (!strcasecmp(objectPtr(c->argv[i]), "block")) {
            addReplyErrorFormat(c, "%s command is not allowed with BLOCK option from scripts", cmdname);
            return C_ERR;
        }
    }
    for (int i = 1; i < c->argc; i++) {
        int moreargs = c->argc - 1 - i;
        const char *opt = objectPtr(c->argv[i]);
        if (!strcasecmp(opt, "block") && moreargs) {
            if (getTimeoutFromObjectOrReply(c, c->argv[++i], &rq->timeout, UNIT_MILLISECONDS) != C_OK) return C_ERR;
            rq->block = 1;
        } else if (!strcasecmp(opt, "count") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++i], &rq->count, NULL) != C_OK) return C_ERR;
            if (rq->count < 0) rq->count = 0;
        } else if (!strcasecmp(opt, "streams") && moreargs) {
            rq->streams_arg = i + 1;
            rq->nstreams = c->argc - rq->streams_arg;
            if (rq->nstreams % 2) {
                addReplyErrorFormat(c, "Unbalanced %s list of streams: for each stream key an ID or '%s' must be "
                                       "specified.", rq->group ? "XREADGROUP" : "XREAD", rq->group ? ">" : "$");
                return C_ERR;
            }
            rq->nstreams /= 2;
            break;
        } else if (!strcasecmp(opt, "group") && moreargs >= 2) {
            if (!rq->group) {
                addReplyError(c, "The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                return C_ERR;
            }
            rq->groupname = c->argv[i + 1];
            rq->consumername = c->argv[i + 2];
            i += 2;
        } else if (!strcasecmp(opt, "noack")) {
            if (!rq->group) {
                addReplyError(c, "The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                return C_ERR;
            }
            rq->noack = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    if (!rq->streams_arg) {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    if (rq->group && !rq->groupname) {
        addReplyError(c, "Missing GROUP option for XREADGROUP");
        return C_ERR;
    }
    return C_OK;
}

/* XREADGROUP's group on key (only the ready key's when woken: Redis looks at
 * that key alone). C_ERR after replying when the key is not a stream or has
 * no such group. */
static int lookupXreadGroup(client *c, xreadRequest *rq, robj *key, streamCG **group) {
    robj *o = lookupKeyRead(c->db, key);
    if (blockingIsReprocessing(c) && (!o || o->type != OBJ_STREAM)) {
        /* Woken because its stream was deleted or replaced. */
        addReplyError(c, "-UNBLOCKED the stream key no longer exists");
        return C_ERR;
    }
    if (replyIfWrongType(c, o, OBJ_STREAM)) return C_ERR;
    if (!o || !(*group = streamLookupCG(objectPtr(o), objectPtr(rq->groupname), stringObjectLen(rq->groupname)))) {
        if (blockingIsReprocessing(c))
            addReplyError(c, "-NOGROUP the consumer group this client was blocked on no longer exists");
        else
            addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with "
                                   "GROUP option", (char *)objectPtr(key), (char *)objectPtr(rq->groupname));
        return C_ERR;
    }
    return C_OK;
}

/* Each stream's ID (and with XREADGROUP its group): "$" is the stream's top
 * now (*has_dollar set), ">" the group's new entries. C_ERR after replying. */
static int resolveXreadIDs(client *c, xreadRequest *rq, robj *ready, streamID *ids, streamCG **groups,
                           int *has_dollar) {
    for (int i = 0; i < rq->nstreams; i++) {
        robj *key = c->argv[rq->streams_arg + i], *idarg = c->argv[rq->streams_arg + rq->nstreams + i];
        const char *idstr = objectPtr(idarg);
        if (rq->group && (!ready || equalStringObjects(ready, key)) &&
            lookupXreadGroup(c, rq, key, &groups[i]) != C_OK)
            return C_ERR;
        if (!strcmp(idstr, "$")) {
            if (rq->group) {
                addReplyError(c, "The $ ID is meaningless in the context of XREADGROUP: you want to read the "
                                 "history of this consumer by specifying a proper ID, or use the > ID to get new "
                                 "messages. The $ ID would just return an empty result set.");
                return C_ERR;
            }
            robj *o = lookupKeyRead(c->db, key);
            if (replyIfWrongType(c, o, OBJ_STREAM)) return C_ERR;
            /* New entries only: remember the current top, blocked or not. */
            if (o) ids[i] = ((stream *)objectPtr(o))->last_id;
            else ids[i].ms = ids[i].seq = 0;
            *has_dollar = 1;
        } else if (!strcmp(idstr, ">")) {
            if (!rq->group) {
                addReplyError(c, "The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
                                 "<consumer> option.");
                return C_ERR;
            }
            ids[i] = NEW_ENTRIES_ID;
        } else if (parseIDOrReply(c, idarg, &ids[i], 0, 1, NULL) != C_OK) {
            return C_ERR;
        }
    }
    return C_OK;
}

/* The reading consumer in group, created when it is first served: one that
 * blocks does not exist until data arrives for it (as in 7.0). *created
 * tells whether it was. */
static streamConsumer *servedConsumer(client *c, xreadRequest *rq, robj *key, streamCG *group, int *created) {
    size_t nlen = stringObjectLen(rq->consumername);
    streamConsumer *consumer = streamLookupConsumer(group, objectPtr(rq->consumername), nlen);
    *created = 0;
    if (!consumer) {
        consumer = streamCreateConsumer(group, objectPtr(rq->consumername), nlen, commandTimeMs());
        keyChanged(c->db, key, NOTIFY_STREAM, "xgroup-createconsumer", 1);
        *created = 1;
    }
    if (consumer) consumer->seen_time = commandTimeMs();
    return consumer;
}

/* Replies with what each stream has after its ID (only the ready key when
 * woken), skipping those with nothing. Returns how many were served, or -1
 * after an error reply. */
static long serveXreadStreams(client *c, xreadRequest *rq, robj *ready, streamID *ids, streamCG **groups) {
    void *len = NULL;
    long served = 0;
    for (int i = 0; i < rq->nstreams; i++) {
        robj *key = c->argv[rq->streams_arg + i];
        if (ready && !equalStringObjects(ready, key)) continue;
        robj *o = lookupKeyRead(c->db, key);
        if (!o) continue;
        if (replyIfWrongType(c, o, OBJ_STREAM)) return -1;
        stream *s = objectPtr(o);
        int history = rq->group && !isNewEntriesID(&ids[i]);
        if (!history) {
            streamID top;
            const streamID *after = rq->group ? &groups[i]->last_id : &ids[i];
            if (!s->length) continue;
            streamLastValidID(s, &top);
            if (streamCompareID(&top, after) <= 0) continue;
        }
        streamConsumer *consumer = NULL;
        int created = 0;
        if (rq->group) consumer = servedConsumer(c, rq, key, groups[i], &created);
        if (!len) len = addReplyDeferredLen(c);
        if (c->resp == 2) addReplyArrayLen(c, 2);
        addReplyBulk(c, key);
        if (history) {
            addReplyConsumerHistory(c, key, rq->groupname, s, groups[i], consumer, &ids[i], rq->count);
        } else if (rq->group) {
            addReplyDeliveringNew(c, key, rq->groupname, s, groups[i], consumer, created ? rq->consumername : NULL,
                                  rq->count, rq->noack);
        } else {
            streamID start = ids[i], end = {UINT64_MAX, UINT64_MAX};
            streamIncrID(&start);
            addReplyStreamRange(c, s, &start, &end, rq->count, 0);
        }
        served++;
    }
    if (served) {
        if (c->resp == 2) setDeferredArrayLen(c, len, served);
        else setDeferredMapLen(c, len, served);
    }
    return served;
}

/* Nothing to read: blocks on the streams until one gets data. The command
 * runs again then, so "$" must mean the top as it was now: the IDs are
 * written into the command. */
static void blockXread(client *c, xreadRequest *rq, streamID *ids, int has_dollar) {
    if (has_dollar) {
        robj **argv = zmalloc(sizeof(robj *) * (size_t)c->argc);
        for (int j = 0; j < c->argc; j++) {
            int i = j - rq->streams_arg - rq->nstreams;
            if (i >= 0 && !strcmp(objectPtr(c->argv[j]), "$")) {
                argv[j] = createStreamIDObject(&ids[i]);
            } else {
                argv[j] = c->argv[j];
                incrRefCount(argv[j]);
            }
        }
        struct redisCommand *cmd = c->cmd;
        replaceClientCommandVector(c, c->argc, argv);
        c->cmd = cmd;
    }
    /* The command stays as it is to run again: effects so far go out now. */
    flushEffects(c, 0);
    blockForKeys(c, BLOCKED_STREAM, c->argv + rq->streams_arg, rq->nstreams, rq->timeout);
    c->bpop.unblock_on_nokey = rq->group;
}

static void xreadGeneric(client *c, int xreadgroup) {
    xreadRequest rq = {.group = xreadgroup};
    if (parseXreadOptions(c, &rq) != C_OK) return;
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)rq.nstreams);
    streamCG **groups = xreadgroup ? zcalloc(sizeof(streamCG *) * (size_t)rq.nstreams) : NULL;
    int has_dollar = 0;
    /* Woken by a change to one key, Redis looks at that key only (its data,
     * its group, whether it is still a stream). */
    robj *ready = blockingReadyKey(c);
    if (resolveXreadIDs(c, &rq, ready, ids, groups, &has_dollar) == C_OK &&
        serveXreadStreams(c, &rq, ready, ids, groups) == 0) {
        /* The AOF loader replays only reads that were served: it never waits. */
        if (!rq.block || (c->flags & (CLIENT_DENY_BLOCKING | CLIENT_AOF))) addReplyNullArray(c);
        else blockXread(c, &rq, ids, has_dollar);
    }
    flushEffects(c, 1);
    /* XREADGROUP replays only as its effects: one that delivered nothing
     * (a consumer created, say) leaves nothing in the stream, as in 7.0.15. */
    if (xreadgroup) preventCommandPropagation(c);
    zfree(ids);
    zfree(groups);
}

void xreadCommand(client *c) { xreadGeneric(c, 0); }
void xreadgroupCommand(client *c) { xreadGeneric(c, 1); }

/* ------------------------------------------------------------ XGROUP / XACK / XPENDING */

/* The stream at argv[2] (XGROUP's key) and, when needed, its group argv[3]:
 * NULL after replying when either is missing. */
static stream *xgroupLookup(client *c, int need_group, streamCG **cg) {
    robj *o = lookupKeyWrite(c->db, c->argv[2]);
    if (replyIfWrongType(c, o, OBJ_STREAM)) return NULL;
    if (!o) {
        addReplyError(c, "The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use "
                         "the MKSTREAM option to create an empty stream automatically.");
        return NULL;
    }
    stream *s = objectPtr(o);
    *cg = streamLookupCG(s, objectPtr(c->argv[3]), stringObjectLen(c->argv[3]));
    if (need_group && !*cg) {
        addReplyNoGroupForKey(c, c->argv[2], c->argv[3]);
        return NULL;
    }
    return s;
}

/* [MKSTREAM] [ENTRIESREAD n] from argv[5] on. */
static int parseGroupOptionsOrReply(client *c, int allow_mkstream, int *mkstream, long long *entries_read) {
    for (int j = 5; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        if (allow_mkstream && !strcasecmp(opt, "mkstream")) {
            *mkstream = 1;
        } else if (!strcasecmp(opt, "entriesread") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], entries_read, NULL) != C_OK) return C_ERR;
            if (*entries_read < 0 && *entries_read != SCG_INVALID_ENTRIES_READ) {
                addReplyError(c, "value for ENTRIESREAD must be positive or -1");
                return C_ERR;
            }
        } else {
            addReplySubcommandSyntaxError(c);
            return C_ERR;
        }
    }
    return C_OK;
}

/* argv[4]: "$" (the stream's last ID) or an ID. */
/* XGROUP CREATE takes "$" or an ID; SETID also "-" and "+" (7.0). */
static int parseGroupIDOrReply(client *c, stream *s, streamID *id, int strict) {
    if (!strcmp(objectPtr(c->argv[4]), "$")) {
        if (s) *id = s->last_id;
        else id->ms = id->seq = 0;
        return C_OK;
    }
    return parseIDOrReply(c, c->argv[4], id, 0, strict, NULL);
}

void xgroupCreateCommand(client *c) {
    int mkstream = 0;
    long long entries_read = SCG_INVALID_ENTRIES_READ;
    if (parseGroupOptionsOrReply(c, 1, &mkstream, &entries_read) != C_OK) return;
    robj *o = lookupKeyWrite(c->db, c->argv[2]);
    if (replyIfWrongType(c, o, OBJ_STREAM)) return;
    streamCG *cg = NULL;
    stream *s = NULL;
    if (o || !mkstream) {
        if (!(s = xgroupLookup(c, 0, &cg))) return;
    }
    streamID id;
    if (parseGroupIDOrReply(c, s, &id, 1) != C_OK) return;
    if (!s) {
        o = createStreamObject();
        o = dbAdd(c->db, c->argv[2], o);
        s = objectPtr(o);
    }
    if (!streamCreateCG(s, objectPtr(c->argv[3]), stringObjectLen(c->argv[3]), &id, entries_read)) {
        addReplyError(c, "-BUSYGROUP Consumer Group name already exists");
        return;
    }
    addReply(c, shared.ok);
    keyChanged(c->db, c->argv[2], NOTIFY_STREAM, "xgroup-create", 1);
}

void xgroupSetidCommand(client *c) {
    int mkstream = 0;
    long long entries_read = SCG_INVALID_ENTRIES_READ;
    if (parseGroupOptionsOrReply(c, 0, &mkstream, &entries_read) != C_OK) return;
    streamCG *cg;
    stream *s = xgroupLookup(c, 1, &cg);
    streamID id;
    if (!s || parseGroupIDOrReply(c, s, &id, 0) != C_OK) return;
    cg->last_id = id;
    cg->entries_read = entries_read;
    addReply(c, shared.ok);
    keyChanged(c->db, c->argv[2], NOTIFY_STREAM, "xgroup-setid", 1);
}

void xgroupDestroyCommand(client *c) {
    streamCG *cg;
    stream *s = xgroupLookup(c, 0, &cg);
    if (!s) return;
    if (!cg) {
        addReply(c, shared.czero);
        return;
    }
    streamDestroyCG(s, objectPtr(c->argv[3]), stringObjectLen(c->argv[3]));
    addReply(c, shared.cone);
    keyChanged(c->db, c->argv[2], NOTIFY_STREAM, "xgroup-destroy", 1);
    /* Readers blocked on this group run again and get -NOGROUP. */
    signalKeyAsReady(c->db, c->argv[2], OBJ_STREAM);
}

void xgroupCreateconsumerCommand(client *c) {
    streamCG *cg;
    if (!xgroupLookup(c, 1, &cg)) return;
    if (!streamCreateConsumer(cg, objectPtr(c->argv[4]), stringObjectLen(c->argv[4]), commandTimeMs())) {
        addReply(c, shared.czero);
        return;
    }
    addReply(c, shared.cone);
    keyChanged(c->db, c->argv[2], NOTIFY_STREAM, "xgroup-createconsumer", 1);
}

void xgroupDelconsumerCommand(client *c) {
    streamCG *cg;
    if (!xgroupLookup(c, 1, &cg)) return;
    long long pending = streamDelConsumer(cg, objectPtr(c->argv[4]), stringObjectLen(c->argv[4]));
    addReplyLongLong(c, pending < 0 ? 0 : pending);
    if (pending >= 0) keyChanged(c->db, c->argv[2], NOTIFY_STREAM, "xgroup-delconsumer", 1);
}

void xgroupHelpCommand(client *c) {
    static const char *help[] = {
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
        NULL,
    };
    addReplyHelp(c, help);
}

void xackCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_STREAM)) return;
    streamCG *cg = o ? streamLookupCG(objectPtr(o), objectPtr(c->argv[2]), stringObjectLen(c->argv[2])) : NULL;
    int n = c->argc - 3;
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)n);
    for (int j = 0; j < n; j++) {
        if (parseIDOrReply(c, c->argv[j + 3], &ids[j], 0, 1, NULL) != C_OK) {
            zfree(ids);
            return;
        }
    }
    long long acked = 0;
    for (int j = 0; cg && j < n; j++) acked += streamAckEntry(cg, &ids[j]);
    zfree(ids);
    addReplyLongLong(c, acked);
    /* Redis raises no event for XACK, and WATCH does not see it: a count with no key. */
    keyChanged(c->db, NULL, 0, NULL, acked);
}

/* The consumer claims go to, created (with its event) on the first claim. */
static streamConsumer *claimingConsumer(client *c, streamCG *cg, streamConsumer **consumer) {
    if (*consumer) return *consumer;
    robj *name = c->argv[3];
    *consumer = streamLookupConsumer(cg, objectPtr(name), stringObjectLen(name));
    if (!*consumer) {
        *consumer = streamCreateConsumer(cg, objectPtr(name), stringObjectLen(name), commandTimeMs());
        keyChanged(c->db, c->argv[1], NOTIFY_STREAM, "xgroup-createconsumer", 1);
        queueCreateConsumerEffect(c, c->argv[1], c->argv[2], c->argv[3]);
    }
    (*consumer)->seen_time = commandTimeMs();
    return *consumer;
}

/* Moves a pending entry to consumer with a new delivery time; the count
 * is set (retrycount >= 0) or incremented unless justid. Then replies with
 * the entry (or just its ID). */
static void claimAndReply(client *c, stream *s, streamCG *cg, streamConsumer *consumer, const streamID *id,
                          streamNACK *nack, long long when, long long retrycount, int justid) {
    uint64_t count = nack->delivery_count;
    if (retrycount >= 0) count = (uint64_t)retrycount;
    else if (!justid) count++;
    nack = streamAssignPending(cg, consumer, id, when);
    nack->delivery_count = count;
    queueClaimEffect(c, c->argv[1], c->argv[2], cg, id, nack);
    if (justid) {
        addReplyStreamID(c, id);
        return;
    }
    streamIterator it;
    streamID got;
    long numfields;
    streamIteratorStart(&it, s, id, id, 0);
    if (streamIteratorNext(&it, &got, &numfields)) addReplyStreamEntry(c, &it, &got, numfields);
    else addReplyNull(c);
    streamIteratorStop(&it);
}

/* The stream at argv[1] and its group argv[2] for XCLAIM / XAUTOCLAIM;
 * *cg is NULL when either is missing (reported later, as Redis does). */
static stream *lookupClaimTarget(client *c, streamCG **cg, int *wrongtype) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    *cg = NULL;
    *wrongtype = replyIfWrongType(c, o, OBJ_STREAM);
    if (!o || *wrongtype) return NULL;
    *cg = streamLookupCG(objectPtr(o), objectPtr(c->argv[2]), stringObjectLen(c->argv[2]));
    return objectPtr(o);
}

static void addReplyNoKeyOrGroup(client *c) {
    addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", (char *)objectPtr(c->argv[1]),
                        (char *)objectPtr(c->argv[2]));
}

void xclaimCommand(client *c) {
    streamCG *cg;
    int wrongtype;
    stream *s = lookupClaimTarget(c, &cg, &wrongtype);
    if (wrongtype) return;
    if (!cg) {
        addReplyNoKeyOrGroup(c);
        return;
    }
    long long minidle, deliverytime = -1, retrycount = -1, now = commandTimeMs();
    int force = 0, justid = 0, j;
    streamID lastid = {0, 0}, id;
    int lastid_given = 0;
    if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle, "Invalid min-idle-time argument for XCLAIM") != C_OK)
        return;
    if (minidle < 0) minidle = 0;
    /* IDs run until the first argument that is not one. */
    int first_id = 5, last_id;
    for (j = first_id; j < c->argc; j++)
        if (parseID(c->argv[j], &id, 0, 1, NULL) != C_OK) break;
    last_id = j;
    for (; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "force")) {
            force = 1;
        } else if (!strcasecmp(opt, "justid")) {
            justid = 1;
        } else if (!strcasecmp(opt, "idle") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &deliverytime, "Invalid IDLE option argument for XCLAIM") !=
                C_OK)
                return;
            deliverytime = now - deliverytime;
        } else if (!strcasecmp(opt, "time") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &deliverytime, "Invalid TIME option argument for XCLAIM") !=
                C_OK)
                return;
        } else if (!strcasecmp(opt, "retrycount") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &retrycount,
                                             "Invalid RETRYCOUNT option argument for XCLAIM") != C_OK)
                return;
        } else if (!strcasecmp(opt, "lastid") && moreargs) {
            if (parseIDOrReply(c, c->argv[++j], &lastid, 0, 1, NULL) != C_OK) return;
            lastid_given = 1;
        } else {
            addReplyErrorFormat(c, "Unrecognized XCLAIM option '%s'", opt);
            return;
        }
    }
    if (deliverytime < 0 || deliverytime > now) deliverytime = now;
    if (lastid_given && streamCompareID(&lastid, &cg->last_id) > 0) {
        cg->last_id = lastid;
        queueSetidEffect(c, c->argv[1], c->argv[2], cg);
    }
    streamConsumer *consumer = NULL;
    void *len = addReplyDeferredLen(c);
    long n = 0;
    for (j = first_id; j < last_id; j++) {
        int found;
        parseID(c->argv[j], &id, 0, 1, NULL); /* checked above */
        size_t pos = streamIDMapSeek(&cg->pel, &id, &found);
        streamNACK *nack = found ? cg->pel.vals[pos] : NULL;
        if (!nack && force && streamEntryExists(s, &id)) {
            nack = streamAssignPending(cg, claimingConsumer(c, cg, &consumer), &id, deliverytime);
            nack->delivery_count = 0;
        }
        if (!nack) continue;
        if (minidle && now - nack->delivery_time < minidle) continue;
        if (!streamEntryExists(s, &id)) { /* deleted meanwhile: it can only leave the PEL */
            queueClaimEffect(c, c->argv[1], c->argv[2], cg, &id, nack);
            streamAckEntry(cg, &id);
            continue;
        }
        claimAndReply(c, s, cg, claimingConsumer(c, cg, &consumer), &id, nack, deliverytime, retrycount, justid);
        n++;
    }
    setDeferredArrayLen(c, len, n);
    flushEffects(c, 1);
}

void xautoclaimCommand(client *c) {
    streamCG *cg;
    int wrongtype;
    stream *s = lookupClaimTarget(c, &cg, &wrongtype);
    if (wrongtype) return;
    long long minidle;
    long count = 100;
    int justid = 0, ex;
    streamID start;
    if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle, "Invalid min-idle-time argument for XAUTOCLAIM") !=
        C_OK)
        return;
    if (minidle < 0) minidle = 0;
    if (parseRangeBoundOrReply(c, c->argv[5], &start, 0, &ex) != C_OK) return;
    if (ex && streamIncrID(&start) != 0) {
        addReplyError(c, "invalid start ID for the interval");
        return;
    }
    const long attempts_factor = 10;
    for (int j = 6; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "count") && moreargs) {
            /* Redis's bound: count * attempts_factor and count IDs stay in range. */
            long max_count = LONG_MAX / (sizeof(streamID) > (size_t)attempts_factor ? (long)sizeof(streamID) : attempts_factor);
            if (getRangeLongFromObjectOrReply(c, c->argv[++j], 1, max_count, &count,
                                              "COUNT must be > 0") != C_OK)
                return;
        } else if (!strcasecmp(opt, "justid")) {
            justid = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (!cg) {
        addReplyNoKeyOrGroup(c);
        return;
    }
    long long now = commandTimeMs();
    long attempts = count * attempts_factor;
    /* First pick (dropping entries gone from the stream), then claim: the
     * cursor goes before the claimed entries in the reply. */
    /* Sized by what can be examined, not by the client's COUNT (Redis allocates
     * COUNT IDs and answers "Insufficient memory" when that fails). */
    size_t most = (size_t)count < cg->pel.len ? (size_t)count : cg->pel.len;
    streamID *deleted = zmalloc(sizeof(streamID) * (most + 1)), *claimed = zmalloc(sizeof(streamID) * (most + 1));
    long ndeleted = 0, nclaimed = 0;
    int found;
    size_t pos = streamIDMapSeek(&cg->pel, &start, &found);
    while (attempts-- && count && pos < cg->pel.len) {
        streamID id = cg->pel.ids[pos];
        streamNACK *nack = cg->pel.vals[pos];
        if (!streamEntryExists(s, &id)) {
            queueClaimEffect(c, c->argv[1], c->argv[2], cg, &id, nack);
            streamAckEntry(cg, &id);
            deleted[ndeleted++] = id;
            count--;
            continue;
        }
        pos++;
        if (minidle && now - nack->delivery_time < minidle) continue;
        claimed[nclaimed++] = id;
        count--;
    }
    /* The cursor: the entry after the last one examined, 0-0 at the end. */
    streamID next = {0, 0};
    if (pos < cg->pel.len) next = cg->pel.ids[pos];
    addReplyArrayLen(c, 3);
    addReplyStreamID(c, &next);
    addReplyArrayLen(c, nclaimed);
    streamConsumer *consumer = NULL;
    for (long j = 0; j < nclaimed; j++) {
        streamNACK *nack = cg->pel.vals[streamIDMapSeek(&cg->pel, &claimed[j], &found)];
        claimAndReply(c, s, cg, claimingConsumer(c, cg, &consumer), &claimed[j], nack, now, -1, justid);
    }
    addReplyArrayLen(c, ndeleted);
    for (long j = 0; j < ndeleted; j++) addReplyStreamID(c, &deleted[j]);
    zfree(deleted);
    zfree(claimed);
    flushEffects(c, 1);
}

void xpendingCommand(client *c) {
    int summary = c->argc == 3;
    long long minidle = 0, count = 0;
    streamID start = {0, 0}, end = {UINT64_MAX, UINT64_MAX};
    robj *consumername = NULL;
    if (c->argc != 3 && (c->argc < 6 || c->argc > 9)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (!summary) {
        int at = 3, ex;
        if (!strcasecmp(objectPtr(c->argv[3]), "idle")) {
            if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle, NULL) != C_OK) return;
            if (c->argc < 8) {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
            at += 2;
        }
        if (getLongLongFromObjectOrReply(c, c->argv[at + 2], &count, NULL) != C_OK) return;
        if (count < 0) count = 0;
        if (parseRangeBoundOrReply(c, c->argv[at], &start, 0, &ex) != C_OK) return;
        if (ex && streamIncrID(&start) != 0) {
            addReplyError(c, "invalid start ID for the interval");
            return;
        }
        if (parseRangeBoundOrReply(c, c->argv[at + 1], &end, UINT64_MAX, &ex) != C_OK) return;
        if (ex && streamDecrID(&end) != 0) {
            addReplyError(c, "invalid end ID for the interval");
            return;
        }
        if (at + 3 < c->argc) consumername = c->argv[at + 3];
    }
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_STREAM)) return;
    streamCG *cg = o ? streamLookupCG(objectPtr(o), objectPtr(c->argv[2]), stringObjectLen(c->argv[2])) : NULL;
    if (!cg) {
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", (char *)objectPtr(c->argv[1]),
                            (char *)objectPtr(c->argv[2]));
        return;
    }
    if (summary) {
        addReplyArrayLen(c, 4);
        addReplyLongLong(c, (long long)cg->pel.len);
        if (!cg->pel.len) {
            addReplyNull(c);
            addReplyNull(c);
            addReplyNullArray(c);
            return;
        }
        addReplyStreamID(c, &cg->pel.ids[0]);
        addReplyStreamID(c, &cg->pel.ids[cg->pel.len - 1]);
        void *len = addReplyDeferredLen(c);
        long n = 0;
        for (size_t j = 0; j < cg->nconsumers; j++) {
            streamConsumer *sc = cg->consumers[j];
            if (!sc->pel.len) continue;
            addReplyArrayLen(c, 2);
            addReplyBulkCBuffer(c, sc->name, sdslen(sc->name));
            addReplyBulkLongLong(c, (long long)sc->pel.len);
            n++;
        }
        setDeferredArrayLen(c, len, n);
        return;
    }
    streamIDMap *pel = &cg->pel;
    if (consumername) {
        streamConsumer *sc = streamLookupConsumer(cg, objectPtr(consumername), stringObjectLen(consumername));
        if (!sc) {
            addReplyArrayLen(c, 0);
            return;
        }
        pel = &sc->pel;
    }
    int found;
    long n = 0;
    long long now = commandTimeMs();
    void *len = addReplyDeferredLen(c);
    for (size_t pos = streamIDMapSeek(pel, &start, &found); count && pos < pel->len; pos++) {
        if (streamCompareID(&pel->ids[pos], &end) > 0) break;
        streamNACK *nack = pel->vals[pos];
        long long idle = now - nack->delivery_time;
        if (minidle && idle < minidle) continue;
        addReplyArrayLen(c, 4);
        addReplyStreamID(c, &pel->ids[pos]);
        addReplyBulkCBuffer(c, nack->consumer->name, sdslen(nack->consumer->name));
        addReplyLongLong(c, idle < 0 ? 0 : idle);
        addReplyLongLong(c, (long long)nack->delivery_count);
        n++;
        count--;
    }
    setDeferredArrayLen(c, len, n);
}

/* ------------------------------------------------------------ XINFO STREAM */

/* The number of nodes Redis's radix tree would have for these node keys: a
 * compressed node per run without branching, a node per branching point,
 * and a leaf per key (XINFO reports it; we keep a sorted array instead). */
static long long radixNodesFor(unsigned char (*keys)[16], size_t lo, size_t hi, int depth) {
    if (depth == 16) return 1;
    if (hi - lo == 1) return 2; /* the rest of the key in one node, then the leaf */
    int common = depth;
    while (common < 16 && keys[lo][common] == keys[hi - 1][common]) common++;
    if (common > depth) return 1 + radixNodesFor(keys, lo, hi, common);
    long long n = 1; /* branching node */
    size_t start = lo;
    for (size_t j = lo + 1; j <= hi; j++) {
        if (j == hi || keys[j][depth] != keys[start][depth]) {
            n += radixNodesFor(keys, start, j, depth + 1);
            start = j;
        }
    }
    return n;
}

static long long radixTreeNodes(stream *s) {
    if (s->nnodes == 0) return 1;
    unsigned char (*keys)[16] = zmalloc(16 * s->nnodes);
    for (size_t j = 0; j < s->nnodes; j++) streamEncodeID(keys[j], &s->nodes[j].master);
    long long n = radixNodesFor(keys, 0, s->nnodes, 0);
    zfree(keys);
    return n;
}

static void addReplyEdgeEntry(client *c, stream *s, int last) {
    streamIterator it;
    streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX}, id;
    long numfields;
    streamIteratorStart(&it, s, &min, &max, last);
    if (streamIteratorNext(&it, &id, &numfields)) addReplyStreamEntry(c, &it, &id, numfields);
    else addReplyNull(c);
    streamIteratorStop(&it);
}

/* One "field: value" pair of an XINFO map. */
static void addReplyFieldLongLong(client *c, const char *field, long long v) {
    addReplyBulkCString(c, field);
    addReplyLongLong(c, v);
}

static void addReplyFieldID(client *c, const char *field, const streamID *id) {
    addReplyBulkCString(c, field);
    addReplyStreamID(c, id);
}

static void addReplyFieldName(client *c, sds name) {
    addReplyBulkCString(c, "name");
    addReplyBulkCBuffer(c, name, sdslen(name));
}

static void addReplyEntriesRead(client *c, long long entries_read) {
    if (entries_read == SCG_INVALID_ENTRIES_READ) addReplyNull(c);
    else addReplyLongLong(c, entries_read);
}

/* How many entries the group has yet to read, or nil when XDELs make it unknowable. */
static void addReplyGroupLag(client *c, stream *s, streamCG *cg) {
    long long read;
    if (!s->entries_added) {
        addReplyLongLong(c, 0);
    } else if (cg->entries_read != SCG_INVALID_ENTRIES_READ && !streamRangeHasTombstones(s, &cg->last_id, NULL)) {
        addReplyLongLong(c, (long long)s->entries_added - cg->entries_read);
    } else if ((read = streamEstimateDistanceFromFirstEverEntry(s, &cg->last_id)) != SCG_INVALID_ENTRIES_READ) {
        addReplyLongLong(c, (long long)s->entries_added - read);
    } else {
        addReplyNull(c);
    }
}

/* XINFO STREAM FULL's PEL listing: [id, (consumer,) delivery time, count]. */
static void addReplyPelFull(client *c, streamIDMap *pel, long long count, int with_consumer) {
    size_t n = count && (size_t)count < pel->len ? (size_t)count : pel->len;
    addReplyArrayLen(c, (long)n);
    for (size_t j = 0; j < n; j++) {
        streamNACK *nack = pel->vals[j];
        addReplyArrayLen(c, with_consumer ? 4 : 3);
        addReplyStreamID(c, &pel->ids[j]);
        if (with_consumer) addReplyBulkCBuffer(c, nack->consumer->name, sdslen(nack->consumer->name));
        addReplyLongLong(c, nack->delivery_time);
        addReplyLongLong(c, (long long)nack->delivery_count);
    }
}

void xinfoStreamCommand(client *c) {
    int full = 0;
    long long count = 10;
    if (c->argc > 3) {
        if (strcasecmp(objectPtr(c->argv[3]), "full") != 0) {
            addReplySubcommandSyntaxError(c);
            return;
        }
        full = 1;
        if (parseTrailingCountOrReply(c, 4, &count, 10, 1) != C_OK) return;
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[2], shared.nokeyerr);
    if (!o || replyIfWrongType(c, o, OBJ_STREAM)) return;
    stream *s = objectPtr(o);
    addReplyMapLen(c, full ? 9 : 10);
    addReplyFieldLongLong(c, "length", (long long)s->length);
    addReplyFieldLongLong(c, "radix-tree-keys", (long long)s->nnodes);
    addReplyFieldLongLong(c, "radix-tree-nodes", radixTreeNodes(s));
    addReplyFieldID(c, "last-generated-id", &s->last_id);
    addReplyFieldID(c, "max-deleted-entry-id", &s->max_deleted_entry_id);
    addReplyFieldLongLong(c, "entries-added", (long long)s->entries_added);
    addReplyFieldID(c, "recorded-first-entry-id", &s->first_id);
    if (!full) {
        addReplyFieldLongLong(c, "groups", (long long)s->ngroups);
        addReplyBulkCString(c, "first-entry");
        addReplyEdgeEntry(c, s, 0);
        addReplyBulkCString(c, "last-entry");
        addReplyEdgeEntry(c, s, 1);
        return;
    }
    streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX};
    addReplyBulkCString(c, "entries");
    addReplyStreamRange(c, s, &min, &max, count, 0);
    addReplyBulkCString(c, "groups");
    addReplyArrayLen(c, (long)s->ngroups);
    for (size_t g = 0; g < s->ngroups; g++) {
        streamCG *cg = s->groups[g];
        addReplyMapLen(c, 7);
        addReplyFieldName(c, cg->name);
        addReplyFieldID(c, "last-delivered-id", &cg->last_id);
        addReplyBulkCString(c, "entries-read");
        addReplyEntriesRead(c, cg->entries_read);
        addReplyBulkCString(c, "lag");
        addReplyGroupLag(c, s, cg);
        addReplyFieldLongLong(c, "pel-count", (long long)cg->pel.len);
        addReplyBulkCString(c, "pending");
        addReplyPelFull(c, &cg->pel, count, 1);
        addReplyBulkCString(c, "consumers");
        addReplyArrayLen(c, (long)cg->nconsumers);
        for (size_t j = 0; j < cg->nconsumers; j++) {
            streamConsumer *sc = cg->consumers[j];
            addReplyMapLen(c, 4);
            addReplyFieldName(c, sc->name);
            addReplyFieldLongLong(c, "seen-time", sc->seen_time);
            addReplyFieldLongLong(c, "pel-count", (long long)sc->pel.len);
            addReplyBulkCString(c, "pending");
            addReplyPelFull(c, &sc->pel, count, 0);
        }
    }
}

void xinfoGroupsCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[2], shared.nokeyerr);
    if (!o || replyIfWrongType(c, o, OBJ_STREAM)) return;
    stream *s = objectPtr(o);
    addReplyArrayLen(c, (long)s->ngroups);
    for (size_t g = 0; g < s->ngroups; g++) {
        streamCG *cg = s->groups[g];
        addReplyMapLen(c, 6);
        addReplyFieldName(c, cg->name);
        addReplyFieldLongLong(c, "consumers", (long long)cg->nconsumers);
        addReplyFieldLongLong(c, "pending", (long long)cg->pel.len);
        addReplyFieldID(c, "last-delivered-id", &cg->last_id);
        addReplyBulkCString(c, "entries-read");
        addReplyEntriesRead(c, cg->entries_read);
        addReplyBulkCString(c, "lag");
        addReplyGroupLag(c, s, cg);
    }
}

void xinfoConsumersCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[2], shared.nokeyerr);
    if (!o || replyIfWrongType(c, o, OBJ_STREAM)) return;
    streamCG *cg = streamLookupCG(objectPtr(o), objectPtr(c->argv[3]), stringObjectLen(c->argv[3]));
    if (!cg) {
        addReplyNoGroupForKey(c, c->argv[2], c->argv[3]);
        return;
    }
    long long now = commandTimeMs();
    addReplyArrayLen(c, (long)cg->nconsumers);
    for (size_t j = 0; j < cg->nconsumers; j++) {
        streamConsumer *sc = cg->consumers[j];
        long long idle = now - sc->seen_time;
        addReplyMapLen(c, 3);
        addReplyFieldName(c, sc->name);
        addReplyFieldLongLong(c, "pending", (long long)sc->pel.len);
        addReplyFieldLongLong(c, "idle", idle < 0 ? 0 : idle);
    }
}

void xinfoHelpCommand(client *c) {
    static const char *help[] = {
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        NULL,
    };
    addReplyHelp(c, help);
}
