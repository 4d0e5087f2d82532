/* keys: commands on keys regardless of type — DEL UNLINK EXISTS TYPE KEYS
 * RANDOMKEY RENAME RENAMENX COPY MOVE TOUCH OBJECT DBSIZE SELECT SWAPDB
 * FLUSHDB FLUSHALL — and the TTL commands EXPIRE* TTL PTTL EXPIRETIME PERSIST. */
#include "server/client.h"
#include "server/lru.h"
#include "server/cmdargs.h"
#include "server/db.h"
#include "server/evict.h"
#include "server/expire.h"
#include "server/keyhook.h"
#include "server/propagate.h"
#include "server/reply.h"
#include "core/glob.h"
#include "core/zmalloc.h"
#include "data/value.h"
#include "persist/persist.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ DEL / EXISTS */

static void delGenericCommand(client *c, int lazy) {
    long long deleted = 0;
    for (int j = 1; j < c->argc; j++) {
        expireIfNeeded(c->db, c->argv[j]);
        if (lazy ? dbAsyncDelete(c->db, c->argv[j]) : dbSyncDelete(c->db, c->argv[j])) {
            keyChanged(c->db, c->argv[j], NOTIFY_GENERIC, "del", 1);
            deleted++;
        }
    }
    addReplyLongLong(c, deleted);
}

void delCommand(client *c) { delGenericCommand(c, server.lazyfree_lazy_user_del); }
void unlinkCommand(client *c) { delGenericCommand(c, 1); }

void existsCommand(client *c) {
    long long count = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyReadWithFlags(c->db, c->argv[j], LOOKUP_NOTOUCH | LOOKUP_NOENTRIES)) count++;
    addReplyLongLong(c, count);
}

void touchCommand(client *c) {
    long long count = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyReadWithFlags(c->db, c->argv[j], LOOKUP_NOENTRIES)) count++;
    addReplyLongLong(c, count);
}

void typeCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOTOUCH | LOOKUP_NOENTRIES);
    addReplyStatus(c, o ? strType(o->type) : "none");
}

void keysCommand(client *c) {
    sds pattern = objectPtr(c->argv[1]);
    int plen = sdslen(pattern), allkeys = pattern[0] == '*' && plen == 1;
    void *replylen = addReplyDeferredLen(c);
    long numkeys = 0;
    dictIterator *di = dictGetSafeIterator(c->db->dict);
    dictEntry *de;
    robj keyobj = {.type = OBJ_STRING, .encoding = OBJ_ENCODING_RAW, .refcount = OBJ_SHARED_REFCOUNT};
    while ((de = dictNext(di))) {
        sds key = dbEntryKey(de);
        if (!allkeys && !stringmatchlen(pattern, plen, key, sdslen(key), 0)) continue;
        objectSetPtr(&keyobj, key);
        if (dbEntryExpire(c->db, de) != -1 && keyIsExpired(c->db, &keyobj)) continue;
        addReplyBulkCBuffer(c, key, sdslen(key));
        numkeys++;
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, replylen, numkeys);
}

void randomkeyCommand(client *c) {
    robj *key = dbRandomKey(c->db);
    if (!key) {
        addReplyNull(c);
        return;
    }
    addReplyBulk(c, key);
    decrRefCount(key);
}

void dbsizeCommand(client *c) { addReplyLongLong(c, dictSize(c->db->dict)); }

/* --------------------------------------------------------- SELECT / SWAPDB */

/* An int, as Redis reads db indexes: msg NULL gives the generic parse and
 * range errors, a msg replaces both. */
static int getDbIndexOrReply(client *c, robj *o, int *id, const char *msg) {
    long v;
    if (getRangeLongFromObjectOrReply(c, o, INT_MIN, INT_MAX, &v, msg) != C_OK) return C_ERR;
    *id = (int)v;
    return C_OK;
}

void selectCommand(client *c) {
    int id;
    if (getDbIndexOrReply(c, c->argv[1], &id, NULL) != C_OK) return;
    if (server.cluster_enabled && id != 0) { /* a cluster has db 0 only */
        addReplyError(c, "SELECT is not allowed in cluster mode");
        return;
    }
    if (selectDb(c, id) == C_ERR) {
        addReplyError(c, "DB index is out of range");
        return;
    }
    addReply(c, shared.ok);
}

void swapdbCommand(client *c) {
    int id1, id2;
    if (server.cluster_enabled) {
        addReplyError(c, "SWAPDB is not allowed in cluster mode");
        return;
    }
    if (getDbIndexOrReply(c, c->argv[1], &id1, "invalid first DB index") != C_OK) return;
    if (getDbIndexOrReply(c, c->argv[2], &id2, "invalid second DB index") != C_OK) return;
    if (dbSwapDatabases(id1, id2) == C_ERR) {
        addReplyError(c, "DB index is out of range");
        return;
    }
    keyChanged(c->db, NULL, 0, NULL, 1); /* SWAPDB counts as one write, even of a db with itself */
    addReply(c, shared.ok);
}

/* -------------------------------------------------------- FLUSHDB/FLUSHALL */

/* SYNC, ASYNC, or lazyfree-lazy-user-flush's choice when neither is given:
 * 1 async, 0 sync, -1 after a syntax error reply. */
static int getFlushTypeOrReply(client *c) {
    if (c->argc == 1) return server.lazyfree_lazy_user_flush;
    if (c->argc == 2 && !strcasecmp(objectPtr(c->argv[1]), "sync")) return 0;
    if (c->argc == 2 && !strcasecmp(objectPtr(c->argv[1]), "async")) return 1;
    addReplyErrorObject(c, shared.syntaxerr);
    return -1;
}

/* Raised before the keys go, so WATCH sees which existed. */
static void flushDb(redisDb *db, long long count, int async) {
    keyChanged(db, NULL, NOTIFY_GENERIC, "flushdb", count);
    if (async) emptyDataAsync(db->id);
    else emptyData(db->id, NULL);
}

void flushdbCommand(client *c) {
    int async = getFlushTypeOrReply(c);
    if (async < 0) return;
    flushDb(c->db, 1, async);
    addReply(c, shared.ok);
}

void flushallCommand(client *c) {
    int async = getFlushTypeOrReply(c);
    if (async < 0) return;
    for (int j = 0; j < server.dbnum; j++) flushDb(&server.db[j], j == 0, async); /* one write in all */
    expireForgetReplicaKeys();
    /* Saving zeroes the write count: the FLUSHALL goes out on its own. */
    if (persistAfterFlushall()) {
        alsoPropagate(c, c->argv, c->argc);
        preventCommandPropagation(c);
    }
    addReply(c, shared.ok);
}

/* ------------------------------------------------------------------ RENAME */

static void renameGenericCommand(client *c, int nx) {
    robj *src = c->argv[1], *dst = c->argv[2];
    int samekey = equalStringObjects(src, dst);
    robj *o = lookupKeyWriteWithFlags(c->db, src, LOOKUP_NOENTRIES); /* the payload moves as it is */
    if (!o) {
        addReplyErrorObject(c, shared.nokeyerr);
        return;
    }
    if (samekey) {
        addReply(c, nx ? shared.czero : shared.ok);
        return;
    }
    incrRefCount(o);
    long long expire = getExpire(c->db, src);
    if (lookupKeyWriteWithFlags(c->db, dst, LOOKUP_NOENTRIES)) {
        if (nx) {
            decrRefCount(o);
            addReply(c, shared.czero);
            return;
        }
        dbDelete(c->db, dst);
    }
    /* The source goes first so that ours is the value's last reference and
     * its payload moves into the new key's object instead of being copied. */
    dbDelete(c->db, src);
    o = dbAdd(c->db, dst, o);
    if (expire != -1) setExpire(c->db, dst, expire);
    keyChanged(c->db, src, NOTIFY_GENERIC, "rename_from", 1);
    keyChanged(c->db, dst, NOTIFY_GENERIC, "rename_to", 1);
    addReply(c, nx ? shared.cone : shared.ok);
}

void renameCommand(client *c) { renameGenericCommand(c, 0); }
void renamenxCommand(client *c) { renameGenericCommand(c, 1); }

/* -------------------------------------------------------------- MOVE / COPY */

void moveCommand(client *c) {
    int dbid;
    if (server.cluster_enabled) {
        addReplyError(c, "MOVE is not allowed in cluster mode");
        return;
    }
    if (getDbIndexOrReply(c, c->argv[2], &dbid, NULL) != C_OK) return;
    if (dbid < 0 || dbid >= server.dbnum) {
        addReplyError(c, "DB index is out of range");
        return;
    }
    redisDb *src = c->db, *dst = &server.db[dbid];
    if (src == dst) {
        addReplyErrorObject(c, shared.sameobjecterr);
        return;
    }
    robj *o = lookupKeyWriteWithFlags(src, c->argv[1], LOOKUP_NOENTRIES); /* the payload moves as it is */
    if (!o) {
        addReply(c, shared.czero);
        return;
    }
    long long expire = getExpire(src, c->argv[1]);
    if (lookupKeyWriteWithFlags(dst, c->argv[1], LOOKUP_NOENTRIES)) {
        addReply(c, shared.czero);
        return;
    }
    incrRefCount(o);
    dbDelete(src, c->argv[1]); /* first: the payload then moves, as in RENAME */
    o = dbAdd(dst, c->argv[1], o);
    if (expire != -1) setExpire(dst, c->argv[1], expire);
    keyChanged(src, c->argv[1], NOTIFY_GENERIC, "move_from", 1);
    keyChanged(dst, c->argv[1], NOTIFY_GENERIC, "move_to", 1);
    addReply(c, shared.cone);
}

void copyCommand(client *c) {
    redisDb *src = c->db, *dst = c->db;
    int replace = 0, dbid = src->id;
    for (int j = 3; j < c->argc; j++) {
        if (!strcasecmp(objectPtr(c->argv[j]), "replace")) {
            replace = 1;
        } else if (!strcasecmp(objectPtr(c->argv[j]), "db") && j + 1 < c->argc) {
            if (getDbIndexOrReply(c, c->argv[j + 1], &dbid, NULL) != C_OK) return;
            if (dbid < 0 || dbid >= server.dbnum) {
                addReplyError(c, "DB index is out of range");
                return;
            }
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    /* As Redis: every option first, then cluster mode's one db. */
    if (server.cluster_enabled && (src->id != 0 || dbid != 0)) {
        addReplyError(c, "Copying to another database is not allowed in cluster mode");
        return;
    }
    dst = &server.db[dbid];
    robj *key = c->argv[1], *newkey = c->argv[2];
    if (src == dst && equalStringObjects(key, newkey)) {
        addReplyErrorObject(c, shared.sameobjecterr);
        return;
    }
    robj *o = lookupKeyReadWithFlags(src, key, LOOKUP_NOENTRIES); /* copied byte for byte, marks included */
    if (!o) {
        addReply(c, shared.czero);
        return;
    }
    long long expire = getExpire(src, key);
    if (lookupKeyWriteWithFlags(dst, newkey, LOOKUP_NOENTRIES)) {
        if (!replace) {
            addReply(c, shared.czero);
            return;
        }
        dbDelete(dst, newkey);
    }
    robj *copy = valueDup(o);
    copy = dbAdd(dst, newkey, copy);
    if (expire != -1) setExpire(dst, newkey, expire);
    keyChanged(dst, newkey, NOTIFY_GENERIC, "copy_to", 1);
    addReply(c, shared.cone);
}

/* ------------------------------------------------------------------ OBJECT */

static robj *objectLookupOrReply(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[2], LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOENTRIES);
    if (!o) addReplyNull(c);
    return o;
}

void objectEncodingCommand(client *c) {
    robj *o = objectLookupOrReply(c);
    if (o) addReplyBulkCString(c, strEncoding(o->encoding));
}

void objectRefcountCommand(client *c) {
    robj *o = objectLookupOrReply(c);
    if (o) addReplyLongLong(c, objectRefcountView(o));
}

void objectIdletimeCommand(client *c) {
    robj *o = objectLookupOrReply(c);
    if (!o) return;
    if (maxmemoryPolicyIsLfu()) {
        addReplyError(c, "An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
        return;
    }
    addReplyLongLong(c, (long long)objectIdleSeconds(o));
}

void objectFreqCommand(client *c) {
    robj *o = objectLookupOrReply(c);
    if (!o) return;
    if (!maxmemoryPolicyIsLfu()) {
        addReplyError(c, "An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
        return;
    }
    addReplyLongLong(c, (long long)objectLfuCounter(o));
}

void objectHelpCommand(client *c) {
    const char *help[] = {
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        NULL};
    addReplyHelp(c, help);
}

/* ----------------------------------------------------------------- EXPIRE* */

#define EXPIRE_NX (1 << 0)
#define EXPIRE_XX (1 << 1)
#define EXPIRE_GT (1 << 2)
#define EXPIRE_LT (1 << 3)

static int parseExtendedExpireArgumentsOrReply(client *c, int *flags) {
    int nx = 0, xx = 0, gt = 0, lt = 0;
    for (int j = 3; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "nx")) nx = 1, *flags |= EXPIRE_NX;
        else if (!strcasecmp(opt, "xx")) xx = 1, *flags |= EXPIRE_XX;
        else if (!strcasecmp(opt, "gt")) gt = 1, *flags |= EXPIRE_GT;
        else if (!strcasecmp(opt, "lt")) lt = 1, *flags |= EXPIRE_LT;
        else {
            addReplyErrorFormat(c, "Unsupported option %s", opt);
            return C_ERR;
        }
    }
    if (nx && (xx || gt || lt)) {
        addReplyError(c, "NX and XX, GT or LT options at the same time are not compatible");
        return C_ERR;
    }
    if (gt && lt) {
        addReplyError(c, "GT and LT options at the same time are not compatible");
        return C_ERR;
    }
    return C_OK;
}

/* basetime: 0 for absolute forms, now for relative; unit: 1 (ms) or 1000 (s). */
static void expireGenericCommand(client *c, long long basetime, int unit) {
    robj *key = c->argv[1];
    long long when;
    int flags = 0;
    if (parseExtendedExpireArgumentsOrReply(c, &flags) != C_OK) return;
    if (getLongLongFromObject(c->argv[2], &when) != 0) {
        addReplyError(c, "value is not an integer or out of range");
        return;
    }
    if (unit == 1000) {
        if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) {
            addReplyErrorExpireTime(c);
            return;
        }
        when *= 1000;
    }
    if (when > LLONG_MAX - basetime) {
        addReplyErrorExpireTime(c);
        return;
    }
    when += basetime;
    if (!lookupKeyWriteWithFlags(c->db, key, LOOKUP_NOENTRIES)) {
        addReply(c, shared.czero);
        return;
    }
    if (flags) {
        long long current = getExpire(c->db, key);
        if ((flags & EXPIRE_NX) && current != -1) goto noop;
        if ((flags & EXPIRE_XX) && current == -1) goto noop;
        /* A key without a TTL counts as an infinite TTL. */
        if ((flags & EXPIRE_GT) && (current == -1 || when <= current)) goto noop;
        if ((flags & EXPIRE_LT) && current != -1 && when >= current) goto noop;
    }
    if (checkAlreadyExpired(when)) {
        /* A deletion, not an expiry (nothing is pushed), and replayed as one:
         * a deadline in the past would be loaded and expire (EXPIRY_0MQ.md). */
        dbDelete(c->db, key);
        keyChanged(c->db, key, NOTIFY_GENERIC, "del", 1);
        rewriteClientCommandVector(c, 2, shared.del, key);
    } else {
        setExpire(c->db, key, when);
        keyChanged(c->db, key, NOTIFY_GENERIC, "expire", 1);
        if (basetime || unit != 1) propagateAsPexpireat(c, key, when);
    }
    addReply(c, shared.cone);
    return;
noop:
    addReply(c, shared.czero);
}

void expireCommand(client *c) { expireGenericCommand(c, commandTimeMs(), 1000); }
void expireatCommand(client *c) { expireGenericCommand(c, 0, 1000); }
void pexpireCommand(client *c) { expireGenericCommand(c, commandTimeMs(), 1); }
void pexpireatCommand(client *c) { expireGenericCommand(c, 0, 1); }

/* output_ms: milliseconds or seconds; relative: TTL instead of absolute time. */
static void ttlGenericCommand(client *c, int output_ms, int relative) {
    if (!lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOTOUCH | LOOKUP_NOENTRIES)) {
        addReplyLongLong(c, -2);
        return;
    }
    long long expire = getExpire(c->db, c->argv[1]);
    if (expire == -1) {
        addReplyLongLong(c, -1);
        return;
    }
    long long v = expire;
    if (relative) {
        v = expire - commandTimeMs();
        if (v < 0) v = 0;
    }
    addReplyLongLong(c, output_ms ? v : (v + (relative ? 500 : 0)) / 1000);
}

void ttlCommand(client *c) { ttlGenericCommand(c, 0, 1); }
void pttlCommand(client *c) { ttlGenericCommand(c, 1, 1); }
void expiretimeCommand(client *c) { ttlGenericCommand(c, 0, 0); }
void pexpiretimeCommand(client *c) { ttlGenericCommand(c, 1, 0); }

void persistCommand(client *c) {
    if (!lookupKeyWriteWithFlags(c->db, c->argv[1], LOOKUP_NOENTRIES)) {
        addReply(c, shared.czero);
        return;
    }
    if (removeExpire(c->db, c->argv[1])) {
        keyChanged(c->db, c->argv[1], NOTIFY_GENERIC, "persist", 1);
        addReply(c, shared.cone);
    } else {
        addReply(c, shared.czero);
    }
}
