/* zsets: the sorted-set commands (ZADD ... ZSCAN). The value itself (both
 * encodings, when one becomes the other, the cursor every range command
 * walks) is data/t_zset.h; this file parses arguments, runs Redis's
 * algorithms on top of it and replies, so replies, encodings and listpack
 * bytes match the reference. A listpack becomes a skiplist when it would
 * exceed zset-max-listpack-entries members or hold a member longer than
 * zset-max-listpack-value; results built from scratch (ZUNIONSTORE and
 * friends) are turned back into a listpack when small enough. */
#include "server/cmdargs.h"
#include "commands/scan.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "data/t_zset.h"
#include "data/value.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ZSET_MIN 0
#define ZSET_MAX 1

/* ================================================== argument helpers */

static int getScoreFromObjectOrReply(client *c, robj *o, double *score, const char *msg) {
    if (getDoubleFromObject(o, score) != 0) {
        addReplyError(c, msg ? msg : "value is not a valid float");
        return C_ERR;
    }
    return C_OK;
}

/* Parses a score (lex = 0) or lex (lex = 1) interval into b, replying the
 * Redis error on failure. A parsed lex interval is freed with zboundsFree. */
static int parseBoundsOrReply(client *c, robj *min, robj *max, int lex, zbounds *b) {
    char bmin[LONG_STR_SIZE], bmax[LONG_STR_SIZE];
    size_t lmin, lmax;
    const char *smin = stringObjectView(min, bmin, &lmin), *smax = stringObjectView(max, bmax, &lmax);
    if (zboundsParse(b, lex, smin, lmin, smax, lmax) == 0) return C_OK;
    addReplyError(c, lex ? "min or max not valid string range item" : "min or max is not a float");
    return C_ERR;
}

/* Turns a ZRANGE-style index pair into 0-based inclusive bounds within llen;
 * returns 0 when the range is empty. */
static int sanitizeRankRange(long *start, long *end, long llen) {
    if (*start < 0) *start += llen;
    if (*end < 0) *end += llen;
    if (*start < 0) *start = 0;
    if (*start > *end || *start >= llen) return 0;
    if (*end >= llen) *end = llen - 1;
    return 1;
}

/* One (member, score) of a reply: nested [member, score] pairs in RESP3,
 * flat in RESP2. */
static void addReplyMemberScore(client *c, const void *ele, size_t len, double score, int withscores) {
    if (withscores && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyBulkCBuffer(c, ele, len);
    if (withscores) addReplyDouble(c, score);
}

static void addReplyMembersLen(client *c, long n, int withscores) {
    addReplyArrayLen(c, withscores && c->resp == 2 ? n * 2 : n);
}

/* Where a visit's members go as a reply. */
typedef struct rangeReply {
    client *c;
    int withscores;
} rangeReply;

/* Every member of zobj by rank, as a reply (its length already sent). */
static void addReplyMembersByRank(client *c, robj *zobj, int withscores) {
    zcursor cur;
    unsigned char buf[ZSET_MEMBER_BUF];
    size_t len;
    for (zcurAtRank(&cur, zobj, 0, 0); zcurValid(&cur); zcurNext(&cur)) {
        const unsigned char *m = zcurMember(&cur, buf, &len);
        addReplyMemberScore(c, m, len, zcurScore(&cur), withscores);
    }
}

/* ================================================== ZADD ZINCRBY ZREM */

static void zaddGenericCommand(client *c, int flags) {
    robj *key = c->argv[1];
    int scoreidx = 2, ch = 0;
    for (; scoreidx < c->argc; scoreidx++) {
        const char *opt = objectPtr(c->argv[scoreidx]);
        if (!strcasecmp(opt, "nx")) flags |= ZADD_IN_NX;
        else if (!strcasecmp(opt, "xx")) flags |= ZADD_IN_XX;
        else if (!strcasecmp(opt, "ch")) ch = 1;
        else if (!strcasecmp(opt, "incr")) flags |= ZADD_IN_INCR;
        else if (!strcasecmp(opt, "gt")) flags |= ZADD_IN_GT;
        else if (!strcasecmp(opt, "lt")) flags |= ZADD_IN_LT;
        else break;
    }
    int incr = flags & ZADD_IN_INCR, nx = flags & ZADD_IN_NX, xx = flags & ZADD_IN_XX;
    int gt = flags & ZADD_IN_GT, lt = flags & ZADD_IN_LT;
    int elements = c->argc - scoreidx;
    if (elements % 2 || !elements) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    elements /= 2;
    if (nx && xx) {
        addReplyError(c, "XX and NX options at the same time are not compatible");
        return;
    }
    if ((gt && nx) || (lt && nx) || (gt && lt)) {
        addReplyError(c, "GT, LT, and/or NX options at the same time are not compatible");
        return;
    }
    if (incr && elements > 1) {
        addReplyError(c, "INCR option supports a single increment-element pair");
        return;
    }

    /* Parse every score first: a bad one must leave the key untouched. */
    double *scores = zmalloc(sizeof(double) * elements), newscore = 0;
    long long added = 0, updated = 0, processed = 0;
    for (int j = 0; j < elements; j++)
        if (getScoreFromObjectOrReply(c, c->argv[scoreidx + j * 2], &scores[j], NULL) != C_OK) goto cleanup;

    robj *zobj = lookupKeyWrite(c->db, key);
    if (replyIfWrongType(c, zobj, OBJ_ZSET)) goto cleanup;
    if (!zobj) {
        if (xx) goto reply; /* XX never creates the key */
        zobj = zsetCreateFor(sdslen(objectPtr(c->argv[scoreidx + 1])), &server.zset_limits);
        zobj = dbAdd(c->db, key, zobj);
    }
    for (int j = 0; j < elements; j++) {
        int out;
        if (!zsetAdd(zobj, scores[j], objectPtr(c->argv[scoreidx + j * 2 + 1]), flags, &out, &newscore, &server.zset_limits)) {
            addReplyError(c, "resulting score is not a number (NaN)");
            goto cleanup;
        }
        if (out & ZADD_OUT_ADDED) added++;
        if (out & ZADD_OUT_UPDATED) updated++;
        if (!(out & ZADD_OUT_NOP)) processed++;
    }

reply:
    if (incr) {
        if (processed) addReplyDouble(c, newscore);
        else addReplyNull(c);
    } else {
        addReplyLongLong(c, ch ? added + updated : added);
    }
cleanup:
    zfree(scores);
    if (added || updated) {
        /* Redis counts one change per member. */
        keyChanged(c->db, key, NOTIFY_ZSET, incr ? "zincr" : "zadd", added + updated);
    }
}

void zaddCommand(client *c) { zaddGenericCommand(c, ZADD_IN_NONE); }
void zincrbyCommand(client *c) { zaddGenericCommand(c, ZADD_IN_INCR); }

void zremCommand(client *c) { removeMembersCommand(c, OBJ_ZSET, zsetDel, zsetLength, NOTIFY_ZSET, "zrem"); }

/* ================================================== ZREMRANGEBY* */

#define ZRANGE_AUTO 0
#define ZRANGE_RANK 1
#define ZRANGE_SCORE 2
#define ZRANGE_LEX 3

static void zremrangeGenericCommand(client *c, int rangetype) {
    static const char *events[] = {NULL, "zremrangebyrank", "zremrangebyscore", "zremrangebylex"};
    robj *key = c->argv[1];
    long long start = 0, end = 0;
    zbounds b = {0};
    if (rangetype == ZRANGE_RANK) {
        if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
            getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
            return;
    } else if (parseBoundsOrReply(c, c->argv[2], c->argv[3], rangetype == ZRANGE_LEX, &b) != C_OK) {
        return;
    }

    robj *zobj = lookupKeyWriteOrReply(c, key, shared.czero);
    if (!zobj || replyIfWrongType(c, zobj, OBJ_ZSET)) goto cleanup;
    unsigned long deleted;
    if (rangetype == ZRANGE_RANK) {
        long s = (long)start, e = (long)end;
        if (!sanitizeRankRange(&s, &e, (long)zsetLength(zobj))) {
            addReply(c, shared.czero);
            goto cleanup;
        }
        deleted = zsetDeleteRank(zobj, s, e);
    } else {
        deleted = zsetDeleteBounds(zobj, &b);
    }
    if (deleted) {
        /* Redis counts removed members only, not the key's removal. */
        keyChanged(c->db, key, NOTIFY_ZSET, events[rangetype], (long long)deleted);
        if (zsetLength(zobj) == 0) {
            dbDelete(c->db, key);
            keyChanged(c->db, key, NOTIFY_GENERIC, "del", 0);
        }
    }
    addReplyLongLong(c, (long long)deleted);
cleanup:
    zboundsFree(&b);
}

void zremrangebyrankCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_RANK); }
void zremrangebyscoreCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_SCORE); }
void zremrangebylexCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_LEX); }

/* ================================================== read commands */

void zcardCommand(client *c) {
    robj *zobj = lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOENTRIES); /* a count: no entry read */
    if (!zobj) addReply(c, shared.czero);
    if (!zobj || replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    addReplyLongLong(c, (long long)zsetLength(zobj));
}

/* The score of ele in zobj (which may be NULL), or a nil. */
static void addReplyScoreOrNull(client *c, robj *zobj, sds ele) {
    double score;
    if (zobj && zsetScore(zobj, ele, &score)) addReplyDouble(c, score);
    else addReplyNull(c);
}

void zscoreCommand(client *c) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null);
    if (zobj && !replyIfWrongType(c, zobj, OBJ_ZSET)) addReplyScoreOrNull(c, zobj, objectPtr(c->argv[2]));
}

void zmscoreCommand(client *c) {
    robj *zobj = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) addReplyScoreOrNull(c, zobj, objectPtr(c->argv[j]));
}

static void zrankGenericCommand(client *c, int reverse) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null);
    if (!zobj || replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    long rank = zsetRank(zobj, objectPtr(c->argv[2]), reverse);
    if (rank >= 0) addReplyLongLong(c, rank);
    else addReplyNull(c);
}

void zrankCommand(client *c) { zrankGenericCommand(c, 0); }
void zrevrankCommand(client *c) { zrankGenericCommand(c, 1); }

static void zcountGenericCommand(client *c, int lex) {
    zbounds b;
    if (parseBoundsOrReply(c, c->argv[2], c->argv[3], lex, &b) != C_OK) return;
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (zobj && !replyIfWrongType(c, zobj, OBJ_ZSET)) addReplyLongLong(c, (long long)zsetCountBounds(zobj, &b));
    zboundsFree(&b);
}

void zcountCommand(client *c) { zcountGenericCommand(c, 0); }
void zlexcountCommand(client *c) { zcountGenericCommand(c, 1); }

/* ================================================== ZRANGE family */

/* Where a range goes: the client's reply, or a new zset for ZRANGESTORE. */
typedef struct rangeSink {
    client *c;
    robj *dstkey; /* NULL: reply to the client */
    robj *dstobj;
    int withscores;
    void *lenptr;
    long count;
} rangeSink;

static void sinkBegin(rangeSink *s) {
    s->count = 0;
    if (s->dstkey) s->dstobj = createZsetListpackObject(); /* grows into a skiplist as needed */
    else s->lenptr = addReplyDeferredLen(s->c);
}

static void sinkEmit(rangeSink *s, const zcursor *cur) {
    unsigned char buf[ZSET_MEMBER_BUF];
    size_t len;
    const unsigned char *ele = zcurMember(cur, buf, &len);
    double score = zcurScore(cur);
    s->count++;
    if (s->dstkey) {
        sds m = sdsnewlen(ele, len);
        int out;
        zsetAdd(s->dstobj, score, m, ZADD_IN_NONE, &out, NULL, &server.zset_limits);
        sdsfree(m);
    } else {
        addReplyMemberScore(s->c, ele, len, score, s->withscores);
    }
}

static void sinkEnd(rangeSink *s) {
    if (s->dstkey) {
        storeResultOrDelete(s->c, s->dstkey, s->dstobj, NOTIFY_ZSET, "zrangestore", 1);
        decrRefCount(s->dstobj);
    } else {
        setDeferredArrayLen(s->c, s->lenptr, s->withscores && s->c->resp == 2 ? s->count * 2 : s->count);
    }
}

#define DIR_AUTO 0
#define DIR_FORWARD 1
#define DIR_REVERSE 2

/* ZRANGE and every older range command: argv[argc_start] is the source key,
 * followed by min and max and the options; dstkey is set for ZRANGESTORE.
 * rangetype/direction are fixed by the older commands, AUTO for ZRANGE. */
static void zrangeGenericCommand(client *c, int argc_start, robj *dstkey, int rangetype, int direction) {
    robj *key = c->argv[argc_start];
    int minidx = argc_start + 1, maxidx = argc_start + 2, withscores = 0;
    long long offset = 0, limit = -1;
    for (int j = argc_start + 3; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        int left = c->argc - j - 1;
        if (!dstkey && !strcasecmp(opt, "withscores")) {
            withscores = 1;
        } else if (!strcasecmp(opt, "limit") && left >= 2) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &offset, NULL) != C_OK ||
                getLongLongFromObjectOrReply(c, c->argv[j + 2], &limit, NULL) != C_OK)
                return;
            j += 2;
        } else if (direction == DIR_AUTO && !strcasecmp(opt, "rev")) {
            direction = DIR_REVERSE;
        } else if (rangetype == ZRANGE_AUTO && !strcasecmp(opt, "bylex")) {
            rangetype = ZRANGE_LEX;
        } else if (rangetype == ZRANGE_AUTO && !strcasecmp(opt, "byscore")) {
            rangetype = ZRANGE_SCORE;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    int reverse = direction == DIR_REVERSE;
    if (rangetype == ZRANGE_AUTO) rangetype = ZRANGE_RANK;
    if (limit != -1 && rangetype == ZRANGE_RANK) {
        addReplyError(c, "syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        return;
    }
    if (withscores && rangetype == ZRANGE_LEX) {
        addReplyError(c, "syntax error, WITHSCORES not supported in combination with BYLEX");
        return;
    }
    /* Reversed score and lex ranges are given as max, min. */
    if (reverse && rangetype != ZRANGE_RANK) {
        int tmp = minidx;
        minidx = maxidx;
        maxidx = tmp;
    }

    long long start = 0, end = 0;
    zbounds b = {0};
    if (rangetype == ZRANGE_RANK) {
        if (getLongLongFromObjectOrReply(c, c->argv[minidx], &start, NULL) != C_OK ||
            getLongLongFromObjectOrReply(c, c->argv[maxidx], &end, NULL) != C_OK)
            return;
    } else if (parseBoundsOrReply(c, c->argv[minidx], c->argv[maxidx], rangetype == ZRANGE_LEX, &b) != C_OK) {
        return;
    }

    rangeSink sink = {.c = c, .dstkey = dstkey, .withscores = withscores};
    robj *zobj = lookupKeyRead(c->db, key);
    if (!zobj) {
        if (dstkey) {
            sinkBegin(&sink);
            sinkEnd(&sink);
        } else {
            addReply(c, shared.emptyarray);
        }
        goto cleanup;
    }
    if (replyIfWrongType(c, zobj, OBJ_ZSET)) goto cleanup;

    zcursor cur;
    sinkBegin(&sink);
    if (rangetype == ZRANGE_RANK) {
        long s = (long)start, e = (long)end;
        if (sanitizeRankRange(&s, &e, (long)zsetLength(zobj))) {
            zcurAtRank(&cur, zobj, (unsigned long)s, reverse);
            for (long n = e - s + 1; n > 0; n--) {
                sinkEmit(&sink, &cur);
                zcurNext(&cur);
            }
        }
    } else if (offset >= 0 && (offset == 0 || (unsigned long long)offset < zsetLength(zobj))) {
        /* A negative offset skips everything, as in Redis; a negative limit means no limit. */
        zcurSeekBounds(&cur, zobj, &b, reverse);
        for (; offset > 0 && zcurValid(&cur); offset--) zcurNext(&cur);
        for (; limit != 0 && zcurInsideFar(&cur, &b); limit--) {
            sinkEmit(&sink, &cur);
            zcurNext(&cur);
        }
    }
    sinkEnd(&sink);
cleanup:
    zboundsFree(&b);
}

void zrangeCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_AUTO, DIR_AUTO); }
void zrangestoreCommand(client *c) { zrangeGenericCommand(c, 2, c->argv[1], ZRANGE_AUTO, DIR_AUTO); }
void zrevrangeCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_RANK, DIR_REVERSE); }
void zrangebyscoreCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_SCORE, DIR_FORWARD); }
void zrevrangebyscoreCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_SCORE, DIR_REVERSE); }
void zrangebylexCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_LEX, DIR_FORWARD); }
void zrevrangebylexCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_LEX, DIR_REVERSE); }

/* ================================================== pops */

/* Rewrites the command as ZPOPMIN/ZPOPMAX key [count] (count -1: none), the
 * form Redis propagates for every pop variant since its result is known. */
static void rewriteAsZpop(client *c, int where, robj *key, long count) {
    robj *cmd = where == ZSET_MAX ? shared.zpopmax : shared.zpopmin;
    if (count == -1) {
        rewriteClientCommandVector(c, 2, cmd, key);
        return;
    }
    robj *countobj = createStringObjectFromLongLong(count);
    rewriteClientCommandVector(c, 3, cmd, key, countobj);
    decrRefCount(countobj);
}

/* Pops up to count (-1: one, flat reply) elements from the first existing key
 * of keyv. emitkey puts the key name first (BZPOP*, *MPOP); nested gives
 * [member, score] pairs. Returns the key popped from (and in *popped how many
 * went), or NULL. */
static robj *zpopGeneric(client *c, robj **keyv, int keyc, int where, int emitkey, long count, int nested,
                         int nil_when_empty, long *popped) {
    robj *key = NULL, *zobj = NULL;
    for (int i = 0; i < keyc && !zobj; i++) {
        key = keyv[i];
        zobj = lookupKeyWrite(c->db, key);
        if (replyIfWrongType(c, zobj, OBJ_ZSET)) return NULL;
    }
    if (!zobj) {
        if (nil_when_empty) addReplyNullArray(c);
        else addReply(c, shared.emptyarray);
        return NULL;
    }
    if (count == 0) {
        addReply(c, shared.emptyarray);
        return NULL;
    }
    if (count == -1) count = 1;
    long llen = (long)zsetLength(zobj), n = count > llen ? llen : count;
    if (popped) *popped = n;
    if (emitkey) {
        addReplyArrayLen(c, nested ? 2 : n * 2 + 1);
        addReplyBulk(c, key);
        if (nested) addReplyArrayLen(c, n);
    } else {
        addReplyArrayLen(c, nested ? n : n * 2);
    }
    for (long i = 0; i < n; i++) {
        zcursor cur;
        unsigned char buf[ZSET_MEMBER_BUF];
        size_t len;
        zcurAtRank(&cur, zobj, 0, where == ZSET_MAX);
        const unsigned char *m = zcurMember(&cur, buf, &len);
        double score = zcurScore(&cur);
        sds ele = sdsnewlen(m, len);
        zsetDel(zobj, ele);
        if (nested) addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, ele, sdslen(ele));
        addReplyDouble(c, score);
        sdsfree(ele);
    }
    /* Redis counts popped members only, not the key's removal. */
    keyChanged(c->db, key, NOTIFY_ZSET, where == ZSET_MAX ? "zpopmax" : "zpopmin", n);
    if (zsetLength(zobj) == 0) {
        dbDelete(c->db, key);
        keyChanged(c->db, key, NOTIFY_GENERIC, "del", 0);
    }
    return key;
}

static void zpopMinMaxCommand(client *c, int where) {
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    long count = -1;
    if (c->argc == 3 && getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    zpopGeneric(c, &c->argv[1], 1, where, 0, count, c->resp > 2 && count != -1, 0, NULL);
}

void zpopminCommand(client *c) { zpopMinMaxCommand(c, ZSET_MIN); }
void zpopmaxCommand(client *c) { zpopMinMaxCommand(c, ZSET_MAX); }

/* The blocking pops: served at once when a key has elements, otherwise the
 * client blocks and the framework runs the command again when a key gets
 * data (blocking.h), so this one function also serves the woken client —
 * from the key that became ready, as Redis does, not the first with data. */
static void blockingZpopGeneric(client *c, robj **keys, int numkeys, int where, int timeout_idx, long count,
                                int nested) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[timeout_idx], &timeout, UNIT_SECONDS) != C_OK) return;
    robj *ready = blockingReadyKey(c), **candidates = ready ? &ready : keys;
    for (int j = 0; j < (ready ? 1 : numkeys); j++) {
        robj *key = candidates[j], *o = lookupKeyWrite(c->db, key);
        if (!o) continue;
        if (replyIfWrongType(c, o, OBJ_ZSET)) return;
        if (zsetLength(o) == 0) continue;
        long popped;
        zpopGeneric(c, &key, 1, where, 1, count, nested, 1, &popped);
        /* BZMPOP (the nested one) replays with the count it popped, as ZMPOP;
         * BZPOPMIN/MAX as a plain ZPOPMIN/MAX. */
        rewriteAsZpop(c, where, key, nested ? popped : -1);
        return;
    }
    if (c->flags & CLIENT_DENY_BLOCKING) {
        addReplyNullArray(c); /* inside MULTI or a script: answer as a timeout */
        return;
    }
    blockForKeys(c, BLOCKED_ZSET, keys, numkeys, timeout);
}

void bzpopminCommand(client *c) { blockingZpopGeneric(c, &c->argv[1], c->argc - 2, ZSET_MIN, c->argc - 1, -1, 0); }
void bzpopmaxCommand(client *c) { blockingZpopGeneric(c, &c->argv[1], c->argc - 2, ZSET_MAX, c->argc - 1, -1, 0); }

/* ZMPOP numkeys key... MIN|MAX [COUNT n] and BZMPOP timeout numkeys ... */
static void zmpopGenericCommand(client *c, int numkeys_idx, int blocking) {
    long numkeys, count = -1;
    int where;
    if (getRangeLongFromObjectOrReply(c, c->argv[numkeys_idx], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    if (numkeys > c->argc - numkeys_idx - 2) { /* no room for MIN|MAX */
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int where_idx = numkeys_idx + (int)numkeys + 1;
    const char *wherearg = objectPtr(c->argv[where_idx]);
    if (!strcasecmp(wherearg, "min")) where = ZSET_MIN;
    else if (!strcasecmp(wherearg, "max")) where = ZSET_MAX;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (parseMpopCountOrReply(c, where_idx + 1, &count) != C_OK) return;
    robj **keys = c->argv + numkeys_idx + 1;
    if (blocking) {
        blockingZpopGeneric(c, keys, (int)numkeys, where, 1, count, 1);
        return;
    }
    long popped;
    robj *key = zpopGeneric(c, keys, (int)numkeys, where, 1, count, 1, 1, &popped);
    if (key) rewriteAsZpop(c, where, key, popped); /* 7.0 replays the count popped, not the one asked */
}

void zmpopCommand(client *c) { zmpopGenericCommand(c, 1, 0); }
void bzmpopCommand(client *c) { zmpopGenericCommand(c, 2, 1); }

/* ================================================== ZUNION ZINTER ZDIFF */

/* An input of the set algebra: a sorted set, a plain set (every member
 * scoring 1) or a missing key (empty). */
typedef struct zsetopsrc {
    robj *subject;
    double weight;
} zsetopsrc;

static unsigned long srcLength(const zsetopsrc *s) { return s->subject ? valueLength(s->subject) : 0; }

static int srcCompareByLength(const void *a, const void *b) {
    unsigned long la = srcLength(a), lb = srcLength(b);
    return (la > lb) - (la < lb);
}

typedef struct srcIter {
    valueIter vi;
    char buf[LONG_STR_SIZE];
} srcIter;

static void srcIterInit(srcIter *it, robj *o) { valueIterInit(&it->vi, o); }

/* The next member's bytes (valid until the next call) and score (1 in a
 * plain set); 0 at the end. */
static int srcIterNext(srcIter *it, const unsigned char **ele, size_t *len, double *score) {
    valueItem item;
    if (!valueIterNext(&it->vi, &item)) return 0;
    *ele = (const unsigned char *)valueElemBytes(&item.ele, it->buf, len);
    *score = it->vi.o->type == OBJ_ZSET ? item.score : 1.0;
    return 1;
}

static void srcIterRelease(srcIter *it) { valueIterDone(&it->vi); }

static int srcFind(const zsetopsrc *s, sds ele, double *score) {
    robj *o = s->subject;
    if (!o) return 0;
    if (o->type == OBJ_ZSET) return zsetScore(o, ele, score);
    *score = 1.0;
    valueElem m = valueElemFromSds(ele);
    return setHas(o, &m);
}

#define SET_OP_UNION 0
#define SET_OP_INTER 1
#define SET_OP_DIFF 2

#define AGGR_SUM 0
#define AGGR_MIN 1
#define AGGR_MAX 2

static void aggregateScore(double *target, double val, int aggregate) {
    if (aggregate == AGGR_SUM) {
        *target += val;
        if (isnan(*target)) *target = 0.0; /* inf + -inf counts as 0 */
    } else if (aggregate == AGGR_MIN) {
        if (val < *target) *target = val;
    } else if (val > *target) {
        *target = val;
    }
}

/* Weighted score of an input element; inf * 0 counts as 0. */
static double weighted(const zsetopsrc *s, double score) {
    double v = s->weight * score;
    return isnan(v) ? 0.0 : v;
}

typedef struct setopResult {
    robj *zobj; /* a skiplist zset */
    size_t maxelelen, totelelen; /* to decide whether the result fits a listpack */
} setopResult;

/* Adds ele (absent so far) to the result and frees it: the zset keeps a copy. */
static void resultAdd(setopResult *r, sds ele, double score) {
    size_t len = sdslen(ele);
    r->totelelen += len;
    if (len > r->maxelelen) r->maxelelen = len;
    zsetInsertNew(r->zobj, ele, score);
    sdsfree(ele);
}

/* Intersection (or, with cardonly, just its size up to limit) into r. The
 * inputs are sorted by size, so src[0] is the smallest. */
static unsigned long zinterInto(zsetopsrc *src, long setnum, int aggregate, int cardonly, long limit,
                                setopResult *r) {
    unsigned long card = 0;
    if (srcLength(&src[0]) == 0) return 0;
    srcIter it;
    const unsigned char *ele;
    size_t len;
    double score0;
    srcIterInit(&it, src[0].subject);
    while (srcIterNext(&it, &ele, &len, &score0)) {
        sds m = sdsnewlen(ele, len);
        double score = weighted(&src[0], score0), value;
        long j;
        for (j = 1; j < setnum; j++) {
            /* The same key twice: no lookup into the set being iterated. */
            if (src[j].subject == src[0].subject) value = score0;
            else if (!srcFind(&src[j], m, &value)) break;
            aggregateScore(&score, src[j].weight * value, aggregate);
        }
        if (j < setnum || cardonly) {
            sdsfree(m);
            if (j == setnum && ++card == (unsigned long)limit) break;
        } else {
            resultAdd(r, m, score);
        }
    }
    srcIterRelease(&it);
    return card;
}

static void zunionInto(zsetopsrc *src, long setnum, int aggregate, setopResult *r) {
    /* member → aggregated score; resultAdd then copies each key into the result and frees it. */
    static dictType accType = {.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare};
    dict *acc = dictCreate(&accType);
    unsigned long largest = srcLength(&src[setnum - 1]); /* the union is at least this big */
    if (largest) dictExpand(acc, largest);
    for (long i = 0; i < setnum; i++) {
        if (srcLength(&src[i]) == 0) continue;
        srcIter it;
        const unsigned char *ele;
        size_t len;
        double score;
        srcIterInit(&it, src[i].subject);
        while (srcIterNext(&it, &ele, &len, &score)) {
            sds m = sdsnewlen(ele, len);
            dictEntry *existing, *de = dictAddRaw(acc, m, &existing);
            if (de) {
                dictSetDoubleVal(de, weighted(&src[i], score));
            } else {
                sdsfree(m);
                aggregateScore(dictGetDoubleValPtr(existing), weighted(&src[i], score), aggregate);
            }
        }
        srcIterRelease(&it);
    }
    if (dictSize(acc)) zsetExpand(r->zobj, dictSize(acc));
    dictIterator di;
    dictEntry *de;
    dictInitIterator(&di, acc);
    while ((de = dictNext(&di))) resultAdd(r, dictGetKey(de), dictGetDoubleVal(de));
    dictResetIterator(&di);
    dictRelease(acc);
}

/* Members of src[0] found in no other input, with their src[0] scores. */
static void zdiffInto(zsetopsrc *src, long setnum, setopResult *r) {
    if (srcLength(&src[0]) == 0) return;
    for (long j = 1; j < setnum; j++)
        if (src[j].subject == src[0].subject) return; /* X - X is empty */
    srcIter it;
    const unsigned char *ele;
    size_t len;
    double score, value;
    srcIterInit(&it, src[0].subject);
    while (srcIterNext(&it, &ele, &len, &score)) {
        sds m = sdsnewlen(ele, len);
        long j;
        for (j = 1; j < setnum; j++)
            if (srcFind(&src[j], m, &value)) break;
        if (j < setnum) sdsfree(m);
        else resultAdd(r, m, score);
    }
    srcIterRelease(&it);
}

/* Computes a parsed set operation and replies (or stores at dstkey). */
static void zsetopCompute(client *c, robj *dstkey, zsetopsrc *src, long setnum, int op, int cardonly,
                          int aggregate, int withscores, long limit) {
    /* Smallest inputs first: fewer lookups, and the same summing order as
     * Redis (the weights travel with their inputs). */
    if (op != SET_OP_DIFF) qsort(src, setnum, sizeof(zsetopsrc), srcCompareByLength);

    robj *dstobj = createZsetObject();
    setopResult r = {dstobj, 0, 0};
    unsigned long card = 0;
    if (op == SET_OP_INTER) card = zinterInto(src, setnum, aggregate, cardonly, limit, &r);
    else if (op == SET_OP_UNION) zunionInto(src, setnum, aggregate, &r);
    else zdiffInto(src, setnum, &r);

    if (dstkey) {
        static const char *events[] = {"zunionstore", "zinterstore", "zdiffstore"};
        zsetConvertToListpackIfNeeded(dstobj, r.maxelelen, r.totelelen, &server.zset_limits);
        storeResultOrDelete(c, dstkey, dstobj, NOTIFY_ZSET, events[op], 1);
    } else if (cardonly) {
        addReplyLongLong(c, (long long)card);
    } else {
        addReplyMembersLen(c, (long)zsetLength(dstobj), withscores);
        addReplyMembersByRank(c, dstobj, withscores);
    }
    decrRefCount(dstobj);
}

/* ZUNION/ZINTER/ZDIFF[STORE] and ZINTERCARD: argv[numkeys_idx] is numkeys,
 * the keys follow, then WEIGHTS/AGGREGATE/WITHSCORES/LIMIT as each allows. */
static void zsetopGenericCommand(client *c, robj *dstkey, int numkeys_idx, int op, int cardonly) {
    long long setnum_ll;
    if (getLongLongFromObjectOrReply(c, c->argv[numkeys_idx], &setnum_ll, NULL) != C_OK) return;
    if (setnum_ll < 1) {
        addReplyErrorFormat(c, "at least 1 input key is needed for '%s' command", c->cmd->fullname);
        return;
    }
    if (setnum_ll > c->argc - (numkeys_idx + 1)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    long setnum = (long)setnum_ll;
    zsetopsrc *src = zcalloc(sizeof(zsetopsrc) * setnum);
    int j = numkeys_idx + 1, aggregate = AGGR_SUM, withscores = 0;
    long limit = 0; /* ZINTERCARD: 0 = no limit */
    for (long i = 0; i < setnum; i++, j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j]);
        if (o && o->type != OBJ_ZSET && o->type != OBJ_SET) {
            zfree(src);
            addReplyErrorObject(c, shared.wrongtypeerr);
            return;
        }
        src[i].subject = o;
        src[i].weight = 1.0;
    }
    while (j < c->argc) {
        const char *opt = objectPtr(c->argv[j]);
        int remaining = c->argc - j;
        if (op != SET_OP_DIFF && !cardonly && remaining >= setnum + 1 && !strcasecmp(opt, "weights")) {
            j++;
            for (long i = 0; i < setnum; i++, j++) {
                if (getScoreFromObjectOrReply(c, c->argv[j], &src[i].weight, "weight value is not a float") !=
                    C_OK)
                    goto cleanup;
            }
        } else if (op != SET_OP_DIFF && !cardonly && remaining >= 2 && !strcasecmp(opt, "aggregate")) {
            const char *agg = objectPtr(c->argv[j + 1]);
            if (!strcasecmp(agg, "sum")) aggregate = AGGR_SUM;
            else if (!strcasecmp(agg, "min")) aggregate = AGGR_MIN;
            else if (!strcasecmp(agg, "max")) aggregate = AGGR_MAX;
            else {
                addReplyErrorObject(c, shared.syntaxerr);
                goto cleanup;
            }
            j += 2;
        } else if (!dstkey && !cardonly && !strcasecmp(opt, "withscores")) {
            withscores = 1;
            j++;
        } else if (cardonly && remaining >= 2 && !strcasecmp(opt, "limit")) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[j + 1], &limit, "LIMIT can't be negative") != C_OK)
                goto cleanup;
            j += 2;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            goto cleanup;
        }
    }

    zsetopCompute(c, dstkey, src, setnum, op, cardonly, aggregate, withscores, limit);
cleanup:
    zfree(src);
}

void zunionstoreCommand(client *c) { zsetopGenericCommand(c, c->argv[1], 2, SET_OP_UNION, 0); }
void zinterstoreCommand(client *c) { zsetopGenericCommand(c, c->argv[1], 2, SET_OP_INTER, 0); }
void zdiffstoreCommand(client *c) { zsetopGenericCommand(c, c->argv[1], 2, SET_OP_DIFF, 0); }
void zunionCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_UNION, 0); }
void zinterCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_INTER, 0); }
void zdiffCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_DIFF, 0); }
void zintercardCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_INTER, 1); }

/* ================================================== ZRANDMEMBER */

/* One drawn member as ZRANDMEMBER replies it; stops a reply to a client
 * that is being closed (its output buffer went over the limit). */
static int addReplyDrawn(const unsigned char *ele, size_t len, double score, void *ctx) {
    rangeReply *r = ctx;
    addReplyMemberScore(r->c, ele, len, score, r->withscores);
    return !(r->c->flags & CLIENT_CLOSE_ASAP);
}

void zrandmemberCommand(client *c) {
    robj *zobj;
    if (c->argc >= 3) {
        long l;
        int withscores;
        if (parseRandomCountOrReply(c, "withscores", &l, &withscores) != C_OK) return;
        if (!(zobj = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray)) || replyIfWrongType(c, zobj, OBJ_ZSET))
            return;
        unsigned long size = zsetLength(zobj), count = l < 0 ? (unsigned long)-l : (unsigned long)l;
        if (count == 0) {
            addReply(c, shared.emptyarray);
            return;
        }
        rangeReply r = {c, withscores};
        if (l < 0 || count == 1) { /* repeats allowed */
            addReplyMembersLen(c, (long)count, withscores);
            zsetRandomMembers(zobj, count, addReplyDrawn, &r);
        } else if (count >= size) {
            addReplyMembersLen(c, (long)size, withscores);
            addReplyMembersByRank(c, zobj, withscores);
        } else {
            addReplyMembersLen(c, (long)count, withscores);
            zsetRandomMembersDistinct(zobj, count, addReplyDrawn, &r);
        }
        return;
    }
    if (!(zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null)) || replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    rangeReply r = {c, 0};
    zsetRandomMembers(zobj, 1, addReplyDrawn, &r);
}

/* ================================================== ZSCAN */

void zscanCommand(client *c) {
    unsigned long cursor;
    robj *o;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    if (!(o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyscan)) || replyIfWrongType(c, o, OBJ_ZSET)) return;
    scanGenericCommand(c, o, cursor);
}
