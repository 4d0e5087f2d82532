/* sets: the set commands (SADD ... SSCAN) over Redis 7.2's three encodings,
 * kept by data/value.h: an intset while every member is a canonical 64-bit
 * integer, a listpack while the set is small (set-max-listpack-entries /
 * -value), a hash table beyond. Files and payloads still carry 7.0's set
 * types (persist/). The algorithms (which set drives an intersection, which
 * DIFF strategy, how random members are drawn) are Redis's, so results come
 * back in the same order and encodings match. */
#include "server/cmdargs.h"
#include "commands/scan.h"
#include "core/zmalloc.h"
#include "data/value.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"

#include <limits.h>
#include <stdlib.h>
#include <strings.h>

/* SRANDMEMBER: below this ratio of set size to requested count, copy the set
 * and remove random members rather than draw until enough distinct ones. */
#define SRANDMEMBER_SUB_STRATEGY_MUL 3
/* SPOP count: when fewer than count/5 members would remain, build the
 * remainder as a new set and hand the old one to the client instead. */
#define SPOP_MOVE_STRATEGY_MUL 5

/* ------------------------------------------------------------ the set type */

/* A member as the set stores it: bytes, or an integer from an intset or a
 * listpack (valueElem). The encoding work is data/value.h's. */
typedef valueElem setMember;

static void addReplySetMember(client *c, const setMember *m) {
    if (m->sval) addReplyBulkCBuffer(c, m->sval, m->slen);
    else addReplyBulkLongLong(c, m->lval);
}

/* The empty set that will hold `first` and about sizeHint members. */
static robj *setTypeCreate(sds first, size_t sizeHint) {
    setMember m = valueElemFromSds(first);
    return setCreate(&m, sizeHint, &server.set_limits);
}

static int setTypeAddMember(robj *o, const setMember *m) { return setAdd(o, m, &server.set_limits); }

static int setTypeAdd(robj *o, sds value) {
    setMember m = valueElemFromSds(value);
    return setTypeAddMember(o, &m);
}

static int setTypeRemove(robj *o, sds value) {
    setMember m = valueElemFromSds(value);
    return setRemove(o, &m);
}

/* Walks the members: ascending for an intset, insertion order for a
 * listpack, table order for a dict. */
typedef struct setIterator {
    valueIter vi;
    valueItem item;
} setIterator;

static void setIterInit(setIterator *it, robj *o) { valueIterInit(&it->vi, o); }

static int setIterNext(setIterator *it, setMember *m) {
    if (!valueIterNext(&it->vi, &it->item)) return 0;
    *m = it->item.ele;
    return 1;
}

static void setIterDone(setIterator *it) { valueIterDone(&it->vi); }

static void addReplySetMembers(client *c, robj *o) {
    setIterator it;
    setMember m;
    setIterInit(&it, o);
    while (setIterNext(&it, &m)) addReplySetMember(c, &m);
    setIterDone(&it);
}

/* ------------------------------------------------------------ single-set commands */

void saddCommand(client *c) {
    robj *set = lookupKeyWrite(c->db, c->argv[1]);
    if (replyIfWrongType(c, set, OBJ_SET)) return;
    if (!set) {
        set = setTypeCreate(objectPtr(c->argv[2]), (size_t)(c->argc - 2));
        set = dbAdd(c->db, c->argv[1], set);
    }
    long long added = 0;
    for (int j = 2; j < c->argc; j++) added += setTypeAdd(set, objectPtr(c->argv[j]));
    if (added) {
        keyChanged(c->db, c->argv[1], NOTIFY_SET, "sadd", added); /* Redis counts one change per member */
    }
    addReplyLongLong(c, added);
}

void sremCommand(client *c) {
    removeMembersCommand(c, OBJ_SET, setTypeRemove, valueLength, NOTIFY_SET, "srem");
}

void smoveCommand(client *c) {
    robj *src = lookupKeyWrite(c->db, c->argv[1]);
    robj *dst = lookupKeyWrite(c->db, c->argv[2]);
    sds ele = objectPtr(c->argv[3]);
    if (!src) {
        addReply(c, shared.czero);
        return;
    }
    if (replyIfWrongType(c, src, OBJ_SET) || replyIfWrongType(c, dst, OBJ_SET)) return;
    if (src == dst) {
        setMember m = valueElemFromSds(ele);
        addReply(c, setHas(src, &m) ? shared.cone : shared.czero);
        return;
    }
    if (!setTypeRemove(src, ele)) {
        addReply(c, shared.czero);
        return;
    }
    keyChanged(c->db, c->argv[1], NOTIFY_SET, "srem", 1);
    if (valueLength(src) == 0) {
        dbDelete(c->db, c->argv[1]);
        keyChanged(c->db, c->argv[1], NOTIFY_GENERIC, "del", 0); /* Redis does not count the deletion */
    }
    if (!dst) {
        dst = setTypeCreate(ele, 1);
        dst = dbAdd(c->db, c->argv[2], dst);
    }
    if (setTypeAdd(dst, ele)) keyChanged(c->db, c->argv[2], NOTIFY_SET, "sadd", 1);
    addReply(c, shared.cone);
}

void sismemberCommand(client *c) {
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (!set || replyIfWrongType(c, set, OBJ_SET)) return;
    setMember m = valueElemFromSds(objectPtr(c->argv[2]));
    addReply(c, setHas(set, &m) ? shared.cone : shared.czero);
}

void smismemberCommand(client *c) {
    robj *set = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, set, OBJ_SET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        setMember m = valueElemFromSds(objectPtr(c->argv[j]));
        addReply(c, set && setHas(set, &m) ? shared.cone : shared.czero);
    }
}

void scardCommand(client *c) {
    robj *set = lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOENTRIES); /* a count: no entry read */
    if (!set) addReply(c, shared.czero);
    if (!set || replyIfWrongType(c, set, OBJ_SET)) return;
    addReplyLongLong(c, (long long)valueLength(set));
}

void sscanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.emptyscan);
    if (!set || replyIfWrongType(c, set, OBJ_SET)) return;
    scanGenericCommand(c, set, cursor);
}

/* ------------------------------------------------------------ set algebra */

static int compareSetsBySize(const void *a, const void *b) {
    unsigned long x = valueLength(*(robj *const *)a), y = valueLength(*(robj *const *)b);
    return x > y ? 1 : (x < y ? -1 : 0);
}

/* Largest first; missing sets (NULL) count as empty. */
static int compareSetsBySizeDesc(const void *a, const void *b) {
    robj *o1 = *(robj *const *)a, *o2 = *(robj *const *)b;
    unsigned long x = o1 ? valueLength(o1) : 0, y = o2 ? valueLength(o2) : 0;
    return x < y ? 1 : (x > y ? -1 : 0);
}

/* The sets at keys[0..n-1] (NULL for missing keys) in sets[]; -1 after
 * replying WRONGTYPE (every key is checked), else the number missing. */
static int lookupSetsOrReply(client *c, robj **keys, unsigned long n, robj **sets) {
    int missing = 0;
    for (unsigned long j = 0; j < n; j++) {
        sets[j] = lookupKeyRead(c->db, keys[j]);
        if (!sets[j]) missing++;
        else if (replyIfWrongType(c, sets[j], OBJ_SET)) return -1;
    }
    return missing;
}

/* STORE variants: result (non-empty) replaces dstkey; an empty result deletes it. */
static void storeSetResult(client *c, robj *dstkey, robj *result, const char *event) {
    unsigned long size = result ? valueLength(result) : 0;
    if (size > 0) {
        setKey(c->db, dstkey, result, 0);
        addReplyLongLong(c, (long long)size);
        keyChanged(c->db, dstkey, NOTIFY_SET, event, 1);
    } else {
        addReply(c, shared.czero);
        if (dbDelete(c->db, dstkey)) keyChanged(c->db, dstkey, NOTIFY_GENERIC, "del", 1);
    }
    if (result) decrRefCount(result);
}

/* SINTER, SMEMBERS, SINTERSTORE (dstkey set) and SINTERCARD (cardinality_only,
 * stopping at limit when not 0). */
static void sinterGeneric(client *c, robj **keys, unsigned long n, robj *dstkey, int cardinality_only,
                          unsigned long limit) {
    robj **sets = zmalloc(sizeof(robj *) * n);
    int missing = lookupSetsOrReply(c, keys, n, sets);
    if (missing < 0) {
        zfree(sets);
        return;
    }
    if (missing > 0) { /* intersecting with an empty set */
        zfree(sets);
        if (dstkey) storeSetResult(c, dstkey, NULL, "sinterstore");
        else if (cardinality_only) addReplyLongLong(c, 0);
        else addReplySetLen(c, 0);
        return;
    }
    /* Drive the intersection from the smallest set. */
    qsort(sets, n, sizeof(robj *), compareSetsBySize);

    robj *dstset = dstkey ? createIntsetObject() : NULL;
    void *replylen = !dstkey && !cardinality_only ? addReplyDeferredLen(c) : NULL;
    unsigned long cardinality = 0;
    setIterator it;
    setMember m;
    setIterInit(&it, sets[0]);
    while (setIterNext(&it, &m)) {
        unsigned long j;
        for (j = 1; j < n; j++) {
            if (sets[j] == sets[0]) continue;
            if (!setHas(sets[j], &m)) break;
        }
        if (j < n) continue;
        if (cardinality_only) {
            cardinality++;
            if (limit && cardinality >= limit) break;
        } else if (dstset) {
            setTypeAddMember(dstset, &m);
        } else {
            addReplySetMember(c, &m);
            cardinality++;
        }
    }
    setIterDone(&it);

    if (cardinality_only) addReplyLongLong(c, (long long)cardinality);
    else if (dstset) storeSetResult(c, dstkey, dstset, "sinterstore");
    else setDeferredSetLen(c, replylen, (long)cardinality);
    zfree(sets);
}

void sinterCommand(client *c) { sinterGeneric(c, c->argv + 1, c->argc - 1, NULL, 0, 0); }
void smembersCommand(client *c) { sinterGeneric(c, c->argv + 1, 1, NULL, 0, 0); }
void sinterstoreCommand(client *c) { sinterGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], 0, 0); }

void sintercardCommand(client *c) {
    long numkeys, limit = 0;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    if (numkeys > c->argc - 2) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return;
    }
    for (int j = 2 + (int)numkeys; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        if (!strcasecmp(objectPtr(c->argv[j]), "limit") && moreargs) {
            j++;
            if (getPositiveLongFromObjectOrReply(c, c->argv[j], &limit, "LIMIT can't be negative") != C_OK)
                return;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    sinterGeneric(c, c->argv + 2, (unsigned long)numkeys, NULL, 1, (unsigned long)limit);
}

#define SET_OP_UNION 0
#define SET_OP_DIFF 1

/* SUNION/SDIFF and their STORE forms (dstkey set). The result is built as a
 * set of its own (intset while it can be) and then sent or stored. */
static void sunionDiffGeneric(client *c, robj **keys, int n, robj *dstkey, int op) {
    robj **sets = zmalloc(sizeof(robj *) * n);
    if (lookupSetsOrReply(c, keys, (unsigned long)n, sets) < 0) {
        zfree(sets);
        return;
    }
    int sameset = 0;
    for (int j = 1; j < n; j++)
        if (sets[0] && sets[j] == sets[0]) sameset = 1;

    /* DIFF: algorithm 1 tests each member of the first set against the
     * others (N*M lookups); algorithm 2 adds the first set and removes all
     * the others (total size). Algorithm 1 wins ties and gets a 2x bonus,
     * its constant being smaller and its work often cut short. */
    int diff_algo = 1;
    if (op == SET_OP_DIFF && sets[0] && !sameset) {
        long long algo_one_work = 0, algo_two_work = 0;
        for (int j = 0; j < n; j++) {
            if (!sets[j]) continue;
            algo_one_work += valueLength(sets[0]);
            algo_two_work += valueLength(sets[j]);
        }
        algo_one_work /= 2;
        diff_algo = algo_one_work <= algo_two_work ? 1 : 2;
        /* Subtracting the biggest sets first finds shared members sooner. */
        if (diff_algo == 1 && n > 1) qsort(sets + 1, n - 1, sizeof(robj *), compareSetsBySizeDesc);
    }

    robj *result = createIntsetObject();
    setIterator it;
    setMember m;
    if (op == SET_OP_UNION) {
        for (int j = 0; j < n; j++) {
            if (!sets[j]) continue;
            setIterInit(&it, sets[j]);
            while (setIterNext(&it, &m)) setTypeAddMember(result, &m);
            setIterDone(&it);
        }
    } else if (sameset || !sets[0]) {
        /* A set minus itself, or nothing minus anything: empty. */
    } else if (diff_algo == 1) {
        setIterInit(&it, sets[0]);
        while (setIterNext(&it, &m)) {
            int j;
            for (j = 1; j < n; j++) {
                if (!sets[j]) continue;
                if (setHas(sets[j], &m)) break;
            }
            if (j == n) setTypeAddMember(result, &m);
        }
        setIterDone(&it);
    } else {
        for (int j = 0; j < n; j++) {
            if (!sets[j]) continue;
            setIterInit(&it, sets[j]);
            while (setIterNext(&it, &m)) {
                if (j == 0) setTypeAddMember(result, &m);
                else setRemove(result, &m);
            }
            setIterDone(&it);
            if (valueLength(result) == 0) break; /* nothing left to remove from */
        }
    }
    zfree(sets);

    if (dstkey) {
        storeSetResult(c, dstkey, result, op == SET_OP_UNION ? "sunionstore" : "sdiffstore");
    } else {
        addReplySetLen(c, (long)valueLength(result));
        addReplySetMembers(c, result);
        decrRefCount(result);
    }
}

void sunionCommand(client *c) { sunionDiffGeneric(c, c->argv + 1, c->argc - 1, NULL, SET_OP_UNION); }
void sdiffCommand(client *c) { sunionDiffGeneric(c, c->argv + 1, c->argc - 1, NULL, SET_OP_DIFF); }
void sunionstoreCommand(client *c) { sunionDiffGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_UNION); }
void sdiffstoreCommand(client *c) { sunionDiffGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_DIFF); }

/* ------------------------------------------------------------ random members */

/* SPOP and SRANDMEMBER: with a count, serve it with withCount; otherwise
 * the set to draw one member from, or NULL after replying (syntax error,
 * WRONGTYPE, or nil for a missing key). */
static robj *setForSingleDrawOrReply(client *c, void (*withCount)(client *c), int write) {
    if (c->argc == 3) {
        withCount(c);
        return NULL;
    }
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return NULL;
    }
    robj *set = write ? lookupKeyWrite(c->db, c->argv[1]) : lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, set, OBJ_SET)) return NULL;
    if (!set) addReplyNull(c);
    return set;
}

/* Removes one random member, sends it, and returns it as a string object
 * (SPOP is replayed as SREM of the members it popped). */
static robj *popRandomMemberAndReply(client *c, robj *set) {
    setMember m;
    setRandomMember(set, &m);
    sds ele = valueElemSds(&m);
    addReplyBulkCBuffer(c, ele, sdslen(ele));
    setTypeRemove(set, ele);
    return createObject(OBJ_STRING, ele);
}

/* Replace SPOP's argv with SREM key <members> for propagation; takes the members. */
static void rewriteAsSrem(client *c, robj **members, unsigned long n) {
    robj **argv = zmalloc(sizeof(robj *) * (n + 2));
    argv[0] = createStringObject("SREM", 4);
    argv[1] = c->argv[1];
    incrRefCount(argv[1]);
    for (unsigned long j = 0; j < n; j++) argv[j + 2] = members[j];
    struct redisCommand *cmd = c->cmd;
    replaceClientCommandVector(c, (int)n + 2, argv);
    c->cmd = cmd;
}

/* SPOP key count. */
static void spopWithCountCommand(client *c) {
    long l;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &l, NULL) != C_OK) return;
    unsigned long count = (unsigned long)l;
    robj *set = lookupKeyWriteOrReply(c, c->argv[1], shared.emptyarray);
    if (!set || replyIfWrongType(c, set, OBJ_SET)) return;
    if (count == 0) {
        addReplySetLen(c, 0);
        return;
    }
    unsigned long size = valueLength(set);
    /* One change per member, as Redis counts. */
    keyChanged(c->db, c->argv[1], NOTIFY_SET, "spop", (long long)(count >= size ? size : count));

    if (count >= size) {
        /* Everything: reply as SUNION would, then drop the key. */
        sunionDiffGeneric(c, c->argv + 1, 1, NULL, SET_OP_UNION);
        dbDelete(c->db, c->argv[1]);
        keyChanged(c->db, c->argv[1], NOTIFY_GENERIC, "del", 0);
        rewriteClientCommandVector(c, 2, shared.del, c->argv[1]);
        return;
    }

    addReplySetLen(c, (long)count);
    unsigned long remaining = size - count;
    setMember m;
    robj **popped = zmalloc(sizeof(robj *) * count);
    if (remaining * SPOP_MOVE_STRATEGY_MUL > count) {
        /* Few: pop random members one by one. */
        for (unsigned long j = 0; j < count; j++) popped[j] = popRandomMemberAndReply(c, set);
        rewriteAsSrem(c, popped, count);
        zfree(popped);
        return;
    }
    /* Most: move the few members that stay into a new set, reply with what
     * is left in the old one, and store the new one in its place. */
    robj *kept = NULL;
    size_t keep = remaining;
    while (remaining--) {
        setRandomMember(set, &m);
        if (!kept) kept = setCreate(&m, keep, &server.set_limits);
        setTypeAddMember(kept, &m);
        setRemove(set, &m); /* m is read before its bytes go */
    }
    addReplySetMembers(c, set);
    setIterator it;
    unsigned long n = 0;
    setIterInit(&it, set);
    while (setIterNext(&it, &m) && n < count) popped[n++] = valueElemObject(&m);
    setIterDone(&it);
    dbOverwrite(c->db, c->argv[1], kept);
    rewriteAsSrem(c, popped, n);
    zfree(popped);
}

void spopCommand(client *c) {
    robj *set = setForSingleDrawOrReply(c, spopWithCountCommand, 1);
    if (!set) return;
    robj *member = popRandomMemberAndReply(c, set);
    keyChanged(c->db, c->argv[1], NOTIFY_SET, "spop", 1);
    if (valueLength(set) == 0) {
        dbDelete(c->db, c->argv[1]);
        keyChanged(c->db, c->argv[1], NOTIFY_GENERIC, "del", 0); /* Redis counts the pop only */
    }
    rewriteAsSrem(c, &member, 1);
}

/* SRANDMEMBER key count. */
static void srandmemberWithCountCommand(client *c) {
    long l;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, &l, NULL) != C_OK) return;
    int uniq = l >= 0;
    unsigned long count = uniq ? (unsigned long)l : (unsigned long)-l;
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (!set || replyIfWrongType(c, set, OBJ_SET)) return;
    if (count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    unsigned long size = valueLength(set);
    setMember m;

    if (!uniq || count == 1) {
        /* Independent draws, repeats allowed, in random order. */
        addReplyArrayLen(c, (long)count);
        while (count--) {
            setRandomMember(set, &m);
            addReplySetMember(c, &m);
            if (c->flags & CLIENT_CLOSE_ASAP) break;
        }
        return;
    }
    if (count >= size) {
        addReplyArrayLen(c, (long)size);
        addReplySetMembers(c, set);
        return;
    }

    /* The picks are a set of their own (a table: no conversions on the way). */
    robj *picked = createSetObject();
    if (count * SRANDMEMBER_SUB_STRATEGY_MUL > size) {
        /* Most of the set: copy it, then drop random members. */
        setIterator it;
        setExpand(picked, size);
        setIterInit(&it, set);
        while (setIterNext(&it, &m)) setTypeAddMember(picked, &m);
        setIterDone(&it);
        for (; size > count; size--) {
            setRandomMember(picked, &m);
            setRemove(picked, &m);
        }
    } else {
        /* Few of many: draw until count distinct members came up. */
        unsigned long added = 0;
        setExpand(picked, count);
        while (added < count) {
            setRandomMember(set, &m);
            added += (unsigned long)setTypeAddMember(picked, &m);
        }
    }
    addReplyArrayLen(c, (long)count);
    addReplySetMembers(c, picked);
    decrRefCount(picked);
}

void srandmemberCommand(client *c) {
    robj *set = setForSingleDrawOrReply(c, srandmemberWithCountCommand, 0);
    if (!set) return;
    setMember m;
    setRandomMember(set, &m);
    addReplySetMember(c, &m);
}
