/* lists: the list commands — LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE
 * LINDEX LSET LINSERT LREM LTRIM LPOS LMOVE RPOPLPUSH LMPOP and the blocking
 * BLPOP BRPOP BRPOPLPUSH BLMOVE BLMPOP.
 *
 * Lists are encoded as in Redis 7.2 (data/value.h): a listpack while small,
 * a quicklist beyond, so every write that adds converts up before it adds
 * and every write that removes may convert down after (LIST_GROW/SHRINK
 * below). Files and payloads still carry 7.0's list type. Blocking
 * commands are written as "serve if possible, else block": the blocking
 * framework runs the command again when one of its keys receives data. A
 * blocking command that is served replicates as its non-blocking form, so
 * it rewrites its argv the way Redis does (BLPOP k1 k2 0 → LPOP k2). */
#include "server/cmdargs.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"
#include "core/zmalloc.h"
#include "data/value.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

/* The two ends of a list, as the commands name them (LEFT / RIGHT). */
#define LIST_HEAD 0
#define LIST_TAIL 1


/* ------------------------------------------------------------ argument parsing */

/* A long argument; the texts of Redis's getLongFromObjectOrReply. */
static int getLongArgOrReply(client *c, robj *arg, long *out) {
    return getRangeLongFromObjectOrReply(c, arg, LONG_MIN, LONG_MAX, out, NULL);
}

/* LEFT / RIGHT (any case). */
static int getListEndArgOrReply(client *c, robj *arg, int *where) {
    if (!strcasecmp(objectPtr(arg), "left")) {
        *where = LIST_HEAD;
    } else if (!strcasecmp(objectPtr(arg), "right")) {
        *where = LIST_TAIL;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    return C_OK;
}

/* ------------------------------------------------------------ list helpers */

static unsigned long listLen(robj *o) { return valueLength(o); }

/* Before argv[first..last] are added to o: a listpack that could not hold
 * them becomes a quicklist (integers count as their listpack size, small). */
static void listGrowForArgs(robj *o, robj **argv, int first, int last) {
    size_t bytes = 0, largest = 0;
    for (int j = first; j <= last; j++) {
        size_t len = sdsEncodedObject(argv[j]) ? sdslen(objectPtr(argv[j])) : 0;
        bytes += len;
        if (len > largest) largest = len;
    }
    vlistGrowFor(o, bytes, largest, (unsigned long)(last - first + 1), server.list_max_listpack_size,
                server.list_compress_depth);
}

/* After elements left o (still not empty): back to a listpack when it
 * shrank well below one node's limits. */
static void listShrunk(robj *o) { vlistTryCompact(o, server.list_max_listpack_size, 1); }

static void listPushArg(robj *o, robj *arg, int where) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = stringObjectView(arg, buf, &len);
    vlistPush(o, p, len, where == LIST_TAIL);
}

static void addReplyListElem(client *c, const valueElem *e) {
    if (e->sval) addReplyBulkCBuffer(c, e->sval, e->slen);
    else addReplyBulkLongLong(c, e->lval);
}

static int listElemEquals(const valueElem *e, robj *arg) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = stringObjectView(arg, buf, &len);
    return valueElemEquals(e, p, len);
}

/* One element taken off a list. `owned` is the buffer quicklistPop handed
 * over (NULL for an integer element, whose text is kept in num). */
typedef struct poppedElement {
    unsigned char *owned;
    const char *ptr;
    size_t len;
    char num[LONG_STR_SIZE];
} poppedElement;

static void listPopElement(robj *o, int where, poppedElement *e) {
    long long ll = 0;
    vlistPop(o, where == LIST_TAIL, &e->owned, &e->len, &ll);
    if (e->owned) {
        e->ptr = (const char *)e->owned;
    } else {
        e->len = ll2string(e->num, sizeof(e->num), ll);
        e->ptr = e->num;
    }
}

static void releasePopped(poppedElement *e) { zfree(e->owned); }

/* After `count` elements were popped from `where`: the pop event, and the
 * key's deletion when the list became empty. */
static void listElementsRemoved(client *c, robj *key, int where, robj *o, long count) {
    /* Redis counts list writes in elements, not the key's removal. */
    keyChanged(c->db, key, NOTIFY_LIST, where == LIST_HEAD ? "lpop" : "rpop", count);
    if (listLen(o) == 0) {
        dbDelete(c->db, key);
        keyChanged(c->db, key, NOTIFY_GENERIC, "del", 0);
    } else {
        listShrunk(o);
    }
}

/* Replies with the elements of [start, end] (Redis index rules), head to
 * tail, or tail to head when reverse. */
static void addListRangeReply(client *c, robj *o, long start, long end, int reverse) {
    long llen = (long)listLen(o);
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        addReply(c, shared.emptyarray);
        return;
    }
    if (end >= llen) end = llen - 1;
    long rangelen = end - start + 1;
    addReplyArrayLen(c, rangelen);
    valueIter it;
    valueItem item;
    valueIterInitAt(&it, o, reverse ? llen - 1 - end : start, reverse);
    while (rangelen-- > 0 && valueIterNext(&it, &item)) addReplyListElem(c, &item.ele);
    valueIterDone(&it);
}

/* Pops up to count elements and replies them as one array. */
static long popRangeAndReply(client *c, robj *key, robj *o, int where, long count) {
    long llen = (long)listLen(o);
    long n = count < llen ? count : llen;
    addReplyArrayLen(c, n);
    for (long j = 0; j < n; j++) {
        poppedElement e;
        listPopElement(o, where, &e);
        addReplyBulkCBuffer(c, e.ptr, e.len);
        releasePopped(&e);
    }
    listElementsRemoved(c, key, where, o, n);
    return n;
}

/* ------------------------------------------------------------ push */

static void pushGenericCommand(client *c, int where, int only_existing) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_LIST)) return;
    if (!o) {
        if (only_existing) {
            addReply(c, shared.czero);
            return;
        }
        o = createListListpackObject();
        o = dbAdd(c->db, c->argv[1], o);
    }
    listGrowForArgs(o, c->argv, 2, c->argc - 1);
    for (int j = 2; j < c->argc; j++) listPushArg(o, c->argv[j], where);
    addReplyLongLong(c, (long long)listLen(o));
    keyChanged(c->db, c->argv[1], NOTIFY_LIST, where == LIST_HEAD ? "lpush" : "rpush", c->argc - 2);
}

void lpushCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 0); }
void rpushCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 0); }
void lpushxCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 1); }
void rpushxCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 1); }

/* ------------------------------------------------------------ pop */

/* LPOP/RPOP key [count]: a bulk without count, an array with it. */
static void popGenericCommand(client *c, int where) {
    int hascount = c->argc == 3;
    long count = 0;
    if (c->argc > 3) {
        addReplyErrorArity(c);
        return;
    }
    if (hascount && getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;

    robj *o = lookupKeyWriteOrReply(c, c->argv[1], hascount ? shared.nullarray : shared.null);
    if (!o || replyIfWrongType(c, o, OBJ_LIST)) return;

    if (hascount && count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    if (!hascount) {
        poppedElement e;
        listPopElement(o, where, &e);
        addReplyBulkCBuffer(c, e.ptr, e.len);
        releasePopped(&e);
        listElementsRemoved(c, c->argv[1], where, o, 1);
    } else {
        popRangeAndReply(c, c->argv[1], o, where, count);
    }
}

void lpopCommand(client *c) { popGenericCommand(c, LIST_HEAD); }
void rpopCommand(client *c) { popGenericCommand(c, LIST_TAIL); }

/* ------------------------------------------------------------ read commands */

void llenCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOENTRIES); /* a count: no entry read */
    if (!o) addReply(c, shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_LIST)) return;
    addReplyLongLong(c, (long long)listLen(o));
}

void lrangeCommand(client *c) {
    long start, end;
    if (getLongArgOrReply(c, c->argv[2], &start) != C_OK || getLongArgOrReply(c, c->argv[3], &end) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (!o || replyIfWrongType(c, o, OBJ_LIST)) return;
    addListRangeReply(c, o, start, end, 0);
}

void lindexCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null);
    if (!o || replyIfWrongType(c, o, OBJ_LIST)) return;
    long index;
    if (getLongArgOrReply(c, c->argv[2], &index) != C_OK) return;
    valueElem e;
    if (vlistIndex(o, index, &e)) addReplyListElem(c, &e);
    else addReplyNull(c);
}

/* LPOS key element [RANK rank] [COUNT num] [MAXLEN len] */
void lposCommand(client *c) {
    long rank = 1, count = -1, maxlen = 0; /* count -1: no COUNT option */
    for (int j = 3; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        int moreargs = j + 1 < c->argc;
        if (!strcasecmp(opt, "RANK") && moreargs) {
            if (getLongArgOrReply(c, c->argv[++j], &rank) != C_OK) return;
            if (rank == 0) {
                addReplyError(c, "RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
                                 "or use negative to start from the end of the list");
                return;
            }
        } else if (!strcasecmp(opt, "COUNT") && moreargs) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[++j], &count, "COUNT can't be negative") != C_OK) return;
        } else if (!strcasecmp(opt, "MAXLEN") && moreargs) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[++j], &maxlen, "MAXLEN can't be negative") != C_OK) return;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }

    /* A negative rank searches from the tail. Redis negates it in wrapping
     * arithmetic, so RANK LONG_MIN stays negative: every match then counts
     * and COUNT never stops the search. The unsigned steps below reproduce
     * that without signed overflow. */
    int from_tail = rank < 0;
    if (from_tail) rank = (long)(0UL - (unsigned long)rank);

    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (!o) {
        if (count != -1) addReply(c, shared.emptyarray);
        else addReplyNull(c);
        return;
    }
    if (replyIfWrongType(c, o, OBJ_LIST)) return;

    void *lenptr = count != -1 ? addReplyDeferredLen(c) : NULL;
    long llen = (long)listLen(o);
    long index = 0, matches = 0, matchindex = -1, found = 0;
    valueIter it;
    valueItem item;
    valueIterInitAt(&it, o, 0, from_tail);
    while ((maxlen == 0 || index < maxlen) && valueIterNext(&it, &item)) {
        if (listElemEquals(&item.ele, c->argv[2])) {
            matches++;
            matchindex = from_tail ? llen - index - 1 : index;
            if (matches >= rank) {
                if (!lenptr) break;
                found++;
                addReplyLongLong(c, matchindex);
                long served = (long)((unsigned long)matches - (unsigned long)rank + 1UL);
                if (count && served >= count) break;
            }
        }
        index++;
        matchindex = -1; /* the loop may end without a match */
    }
    valueIterDone(&it);

    if (lenptr) setDeferredArrayLen(c, lenptr, found);
    else if (matchindex != -1) addReplyLongLong(c, matchindex);
    else addReplyNull(c);
}

/* ------------------------------------------------------------ in-place edits */

void lsetCommand(client *c) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.nokeyerr);
    if (!o || replyIfWrongType(c, o, OBJ_LIST)) return;
    long index;
    if (getLongArgOrReply(c, c->argv[2], &index) != C_OK) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = stringObjectView(c->argv[3], buf, &len);
    listGrowForArgs(o, c->argv, 3, 3);
    if (!vlistReplaceAt(o, index, p, len)) {
        addReplyErrorObject(c, shared.outofrangeerr);
        return;
    }
    listShrunk(o); /* a big element may have given way to a small one */
    addReply(c, shared.ok);
    keyChanged(c->db, c->argv[1], NOTIFY_LIST, "lset", 1);
}

/* LINSERT key BEFORE|AFTER pivot element: next to the first pivot from the head. */
void linsertCommand(client *c) {
    int after;
    if (!strcasecmp(objectPtr(c->argv[2]), "after")) {
        after = 1;
    } else if (!strcasecmp(objectPtr(c->argv[2]), "before")) {
        after = 0;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_LIST)) return;

    char pbuf[LONG_STR_SIZE], buf[LONG_STR_SIZE];
    size_t plen, len;
    const char *pivot = stringObjectView(c->argv[3], pbuf, &plen);
    const char *p = stringObjectView(c->argv[4], buf, &len);
    listGrowForArgs(o, c->argv, 4, 4);
    if (!vlistInsertAtPivot(o, pivot, plen, p, len, after)) {
        addReplyLongLong(c, -1);
        return;
    }
    keyChanged(c->db, c->argv[1], NOTIFY_LIST, "linsert", 1);
    addReplyLongLong(c, (long long)listLen(o));
}

/* LREM key count element: count > 0 from the head, < 0 from the tail, 0 all. */
void lremCommand(client *c) {
    long toremove;
    if (getLongArgOrReply(c, c->argv[2], &toremove) != C_OK) return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_LIST)) return;

    int from_tail = toremove < 0;
    /* Compared as unsigned so that LONG_MIN means "that many" too. */
    unsigned long limit = from_tail ? 0UL - (unsigned long)toremove : (unsigned long)toremove;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = stringObjectView(c->argv[3], buf, &len);
    unsigned long removed = vlistRemoveEqual(o, p, len, from_tail, limit);

    if (removed) keyChanged(c->db, c->argv[1], NOTIFY_LIST, "lrem", (long long)removed);
    if (listLen(o) == 0) {
        dbDelete(c->db, c->argv[1]);
        keyChanged(c->db, c->argv[1], NOTIFY_GENERIC, "del", 0);
    } else if (removed) {
        listShrunk(o);
    }
    addReplyLongLong(c, (long long)removed);
}

void ltrimCommand(client *c) {
    long start, end;
    if (getLongArgOrReply(c, c->argv[2], &start) != C_OK || getLongArgOrReply(c, c->argv[3], &end) != C_OK) return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.ok);
    if (!o || replyIfWrongType(c, o, OBJ_LIST)) return;

    long llen = (long)listLen(o);
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    long ltrim, rtrim;
    if (start > end || start >= llen) {
        ltrim = llen; /* empty range: everything goes */
        rtrim = 0;
    } else {
        if (end >= llen) end = llen - 1;
        ltrim = start;
        rtrim = llen - end - 1;
    }
    vlistDelRange(o, 0, ltrim);
    vlistDelRange(o, -rtrim, rtrim);

    /* Redis raises ltrim even when nothing was trimmed. */
    keyChanged(c->db, c->argv[1], NOTIFY_LIST, "ltrim", ltrim + rtrim);
    if (listLen(o) == 0) {
        dbDelete(c->db, c->argv[1]);
        keyChanged(c->db, c->argv[1], NOTIFY_GENERIC, "del", 0);
    } else {
        listShrunk(o);
    }
    addReply(c, shared.ok);
}

/* ------------------------------------------------------------ LMOVE family */

void blmoveCommand(client *c);
void brpoplpushCommand(client *c);

/* Moves one element from argv[1] to argv[2] and replies it (nil when the
 * source is missing). The destination's type is checked before anything
 * moves. Events as in Redis: the push on the destination, then the pop on
 * the source (and its del). A blocking form replicates as LMOVE/RPOPLPUSH. */
static void lmoveGenericCommand(client *c, int wherefrom, int whereto) {
    robj *src = lookupKeyWriteOrReply(c, c->argv[1], shared.null);
    if (!src || replyIfWrongType(c, src, OBJ_LIST)) return;
    robj *dst = lookupKeyWrite(c->db, c->argv[2]);
    if (replyIfWrongType(c, dst, OBJ_LIST)) return;

    poppedElement e;
    listPopElement(src, wherefrom, &e);
    if (!dst) {
        dst = createListListpackObject();
        dst = dbAdd(c->db, c->argv[2], dst);
    }
    vlistGrowFor(dst, e.len, e.len, 1, server.list_max_listpack_size, server.list_compress_depth);
    vlistPush(dst, e.ptr, e.len, whereto == LIST_TAIL);
    keyChanged(c->db, c->argv[2], NOTIFY_LIST, whereto == LIST_HEAD ? "lpush" : "rpush", 1);
    addReplyBulkCBuffer(c, e.ptr, e.len);
    releasePopped(&e);

    /* One write in all, as Redis counts: the push. */
    keyChanged(c->db, c->argv[1], NOTIFY_LIST, wherefrom == LIST_HEAD ? "lpop" : "rpop", 0);
    if (listLen(src) == 0) {
        dbDelete(c->db, c->argv[1]);
        keyChanged(c->db, c->argv[1], NOTIFY_GENERIC, "del", 0);
    } else if (src != dst) {
        listShrunk(src);
    }

    if (c->cmd && c->cmd->proc == blmoveCommand)
        rewriteClientCommandVector(c, 5, shared.lmove, c->argv[1], c->argv[2], c->argv[3], c->argv[4]);
    else if (c->cmd && c->cmd->proc == brpoplpushCommand)
        rewriteClientCommandVector(c, 3, shared.rpoplpush, c->argv[1], c->argv[2]);
}

void lmoveCommand(client *c) {
    int wherefrom, whereto;
    if (getListEndArgOrReply(c, c->argv[3], &wherefrom) != C_OK) return;
    if (getListEndArgOrReply(c, c->argv[4], &whereto) != C_OK) return;
    lmoveGenericCommand(c, wherefrom, whereto);
}

void rpoplpushCommand(client *c) { lmoveGenericCommand(c, LIST_TAIL, LIST_HEAD); }

/* Serve from the source when it has data, else block on it. In MULTI or a
 * script the empty case answers a nil bulk, as LMOVE would. */
static void blmoveGenericCommand(client *c, int wherefrom, int whereto, long long timeout) {
    robj *src = lookupKeyWrite(c->db, c->argv[1]);
    if (replyIfWrongType(c, src, OBJ_LIST)) return;
    if (src) {
        lmoveGenericCommand(c, wherefrom, whereto);
    } else if (c->flags & CLIENT_DENY_BLOCKING) {
        addReplyNull(c);
    } else {
        blockForKeys(c, BLOCKED_LIST, c->argv + 1, 1, timeout);
    }
}

void blmoveCommand(client *c) {
    int wherefrom, whereto;
    long long timeout;
    if (getListEndArgOrReply(c, c->argv[3], &wherefrom) != C_OK) return;
    if (getListEndArgOrReply(c, c->argv[4], &whereto) != C_OK) return;
    if (getTimeoutFromObjectOrReply(c, c->argv[5], &timeout, UNIT_SECONDS) != C_OK) return;
    blmoveGenericCommand(c, wherefrom, whereto, timeout);
}

void brpoplpushCommand(client *c) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[3], &timeout, UNIT_SECONDS) != C_OK) return;
    blmoveGenericCommand(c, LIST_TAIL, LIST_HEAD, timeout);
}

/* ------------------------------------------------------------ multi-key pops */

/* Pops from the first non-empty list among keys and replies: [key, element]
 * when count is -1 (BLPOP/BRPOP), [key, [elements...]] otherwise (LMPOP,
 * BLMPOP). Returns 0 when no key had data (nothing replied), 1 when it
 * replied (the pop, or WRONGTYPE for a non-list met first). The command is
 * then rewritten as the [LR]POP it amounts to, for replication. */
static int popFromFirstNonEmpty(client *c, robj **keys, int numkeys, int where, long count) {
    for (int j = 0; j < numkeys; j++) {
        robj *key = keys[j];
        robj *o = lookupKeyWrite(c->db, key);
        if (!o) continue;
        if (replyIfWrongType(c, o, OBJ_LIST)) return 1;
        robj *popcmd = where == LIST_HEAD ? shared.lpop : shared.rpop;
        addReplyArrayLen(c, 2);
        addReplyBulk(c, key);
        if (count == -1) {
            poppedElement e;
            listPopElement(o, where, &e);
            addReplyBulkCBuffer(c, e.ptr, e.len);
            releasePopped(&e);
            listElementsRemoved(c, key, where, o, 1);
            rewriteClientCommandVector(c, 2, popcmd, key);
        } else {
            robj *countobj = createStringObjectFromLongLong(popRangeAndReply(c, key, o, where, count));
            rewriteClientCommandVector(c, 3, popcmd, key, countobj);
            decrRefCount(countobj);
        }
        return 1;
    }
    return 0;
}

/* The blocking pops: serve now if a key has data, else block on all keys.
 * When re-run because a key got data, only that key is served, as Redis
 * serves a client from the key that became ready. */
static void blockingPopGenericCommand(client *c, robj **keys, int numkeys, int where, long count,
                                      long long timeout) {
    robj *ready = blockingReadyKey(c);
    if (ready ? popFromFirstNonEmpty(c, &ready, 1, where, count) : popFromFirstNonEmpty(c, keys, numkeys, where, count))
        return;
    if (c->flags & CLIENT_DENY_BLOCKING) {
        addReplyNullArray(c); /* what a timeout would answer */
        return;
    }
    blockForKeys(c, BLOCKED_LIST, keys, numkeys, timeout);
}

static void bpopCommand(client *c, int where) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[c->argc - 1], &timeout, UNIT_SECONDS) != C_OK) return;
    blockingPopGenericCommand(c, c->argv + 1, c->argc - 2, where, -1, timeout);
}

void blpopCommand(client *c) { bpopCommand(c, LIST_HEAD); }
void brpopCommand(client *c) { bpopCommand(c, LIST_TAIL); }

/* [B]LMPOP [timeout] numkeys key [key ...] LEFT|RIGHT [COUNT count];
 * numkeys is argv[numkeys_idx]. timeout < 0: the non-blocking LMPOP. */
static void lmpopGenericCommand(client *c, int numkeys_idx, long long timeout) {
    long numkeys, count = -1;
    int where;
    if (getRangeLongFromObjectOrReply(c, c->argv[numkeys_idx], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    if (numkeys >= c->argc - numkeys_idx - 1) { /* no room left for LEFT|RIGHT */
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int where_idx = numkeys_idx + (int)numkeys + 1;
    if (getListEndArgOrReply(c, c->argv[where_idx], &where) != C_OK) return;
    if (parseMpopCountOrReply(c, where_idx + 1, &count) != C_OK) return;

    robj **keys = c->argv + numkeys_idx + 1;
    if (timeout >= 0) {
        blockingPopGenericCommand(c, keys, (int)numkeys, where, count, timeout);
    } else if (!popFromFirstNonEmpty(c, keys, (int)numkeys, where, count)) {
        addReplyNullArray(c);
    }
}

void lmpopCommand(client *c) { lmpopGenericCommand(c, 1, -1); }

void blmpopCommand(client *c) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[1], &timeout, UNIT_SECONDS) != C_OK) return;
    lmpopGenericCommand(c, 2, timeout);
}
