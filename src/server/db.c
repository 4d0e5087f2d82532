/* db: the keyspace (see db.h). Each database is a dict in item mode: it
 * stores the value objects themselves, each holding its key and 4 bytes for
 * the slot of the key's deadline in the expiry heap (0 = no TTL, else
 * slot + 1; see objectWithKey), so a key costs one allocation (plus the
 * payload of non-embstr values, except a small listpack, which is packed
 * into the object between commands) and TTL reads stay O(1). Storing a
 * value therefore builds a new object: dbAdd/dbOverwrite/setKey return the
 * one that is in the db. */
#include "server/db.h"
#include "server/lru.h"
#include "server/readykeys.h"
#include "server/maxmem.h"
#include "server/expire.h"
#include "server/keyhook.h"
#include "server/lazyfree.h"
#include "server/propagate.h"
#include "server/slotkeys.h"
#include "core/zmalloc.h"

#include <stdlib.h>
#include <string.h>

static const void *keyOfObject(const void *o) { return objectKey(o); }

dictType keyspaceDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .valDestructor = dictObjectDestructor,
    .expandAllowed = evictExpandAllowed,
    .itemKey = keyOfObject,
};

/* The object the last lookup found. A write looks its key up, then replaces
 * the value: dbOverwrite takes the object from here (after comparing the key)
 * instead of searching again. Objects never move while in the table, so this
 * is forgotten only when a key leaves, its object is replaced, a db is
 * emptied or swapped, and before every command (dbForgetLastLookup). */
static struct {
    dict *d;
    robj *obj;
} lastFound;

void dbForgetLastLookup(void) { lastFound.obj = NULL; }

robj *dbPeekValue(redisDb *db, const char *key, size_t len) {
    sds k = sdsnewlen(key, len);
    robj *o = (robj *)dictFind(db->dict, k);
    sdsfree(k);
    return o;
}

static robj *findForOverwrite(redisDb *db, robj *key) {
    robj *o = lastFound.obj;
    if (o && lastFound.d == db->dict && dictSdsKeyCompare(NULL, objectKey(o), objectPtr(key))) return o;
    return (robj *)dictFind(db->dict, objectPtr(key));
}

/* The keyspace's "entries" are its objects (dict item mode). A volatile
 * key's slot in its db's ttlheap is in its object's header, plus 1, up to
 * OBJ_KEYSPACE_SLOT_FAR - 1 (33M volatile keys in one db); the slots past
 * that are kept in far_slots, the header saying OBJ_KEYSPACE_SLOT_FAR. An
 * entry there for an object freed with its whole heap (FLUSHALL) stays until
 * a new object at that address goes far: only the header is ever trusted. */
static dictType farSlotsType = {.hashFunction = dictPtrHash};
static dict *far_slots; /* object → its slot */

static inline int hasExpireSlot(const dictEntry *de) { return objectExpireSlot((const robj *)de) != 0; }

/* The slot + 1, or 0 without a TTL. */
static size_t expireSlotOf(const dictEntry *de) {
    uint32_t slot = objectExpireSlot((const robj *)de);
    if (slot != OBJ_KEYSPACE_SLOT_FAR) return slot;
    return (size_t)(uintptr_t)dictFetchValue(far_slots, de) + 1;
}

static void heapSetPos(void *item, long pos) {
    robj *o = item;
    int far = pos + 1 >= (long)OBJ_KEYSPACE_SLOT_FAR;
    if (objectExpireSlot(o) == OBJ_KEYSPACE_SLOT_FAR && !far) dictDelete(far_slots, o);
    if (!far) {
        objectSetExpireSlot(o, (uint32_t)(pos + 1));
        return;
    }
    if (!far_slots) far_slots = dictCreate(&farSlotsType);
    dictSetVal(far_slots, dictAddOrFind(far_slots, o), (void *)(uintptr_t)pos);
    objectSetExpireSlot(o, OBJ_KEYSPACE_SLOT_FAR);
}

void initDatabases(void) {
    server.db = zcalloc(sizeof(redisDb) * server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        server.db[j].dict = dictCreate(&keyspaceDictType);
        server.db[j].expires = ttlHeapCreate(heapSetPos);
        server.db[j].blocking_keys = dictCreate(&objectKeyDictType);
        server.db[j].ready_keys = dictCreate(&objectKeyDictType);
        server.db[j].watched_keys = dictCreate(&objectKeyDictType);
        server.db[j].id = j;
    }
    if (server.cluster_enabled) server.db[0].slots = slotKeysCreate();
}

dictEntry *dbFindEntry(redisDb *db, const sds key) { return dictFind(db->dict, key); }
robj *dbEntryValue(dictEntry *de) { return (robj *)de; }
sds dbEntryKey(const dictEntry *de) { return objectKey((const robj *)de); }

long long dbEntryExpire(redisDb *db, dictEntry *de) {
    size_t slot = expireSlotOf(de);
    return slot ? ttlHeapWhen(db->expires, slot - 1) : -1;
}

/* ------------------------------------------------------------------ expiry */

long long getExpire(redisDb *db, robj *key) {
    dictEntry *de = dictFind(db->dict, objectPtr(key));
    return de ? dbEntryExpire(db, de) : -1;
}

void setExpire(redisDb *db, robj *key, long long when) {
    dictEntry *de = dictFind(db->dict, objectPtr(key));
    if (!de) return;
    size_t slot = expireSlotOf(de);
    if (slot) ttlHeapUpdate(db->expires, slot - 1, when);
    else ttlHeapInsert(db->expires, de, when);
    expireScheduleAt(when);
    if (server.masterhost_set && !server.repl_slave_ro && server.current_client &&
        !(server.current_client->flags & CLIENT_MASTER))
        expireRememberReplicaKey(db, key);
}

static int removeEntryExpire(redisDb *db, dictEntry *de) {
    size_t slot = expireSlotOf(de);
    if (!slot) return 0;
    ttlHeapRemove(db->expires, slot - 1); /* which sets the slot to none */
    return 1;
}

int removeExpire(redisDb *db, robj *key) {
    dictEntry *de = dictFind(db->dict, objectPtr(key));
    return de ? removeEntryExpire(db, de) : 0;
}

/* Mean time to live of the volatile keys in ms: exact up to 1024 keys, else
 * from 1024 heap slots spread evenly (every slot is one key). */
long long dbAverageTtl(redisDb *db) {
    size_t len = ttlHeapLen(db->expires);
    if (len == 0) return 0;
    size_t samples = len < 1024 ? len : 1024;
    long long now = commandTimeMs();
    double sum = 0;
    for (size_t i = 0; i < samples; i++) {
        long long ttl = ttlHeapWhen(db->expires, i * len / samples) - now;
        sum += ttl > 0 ? (double)ttl : 0;
    }
    return (long long)(sum / samples);
}

int checkAlreadyExpired(long long when) { return when <= commandTimeMs() && !server.loading; }

int keyIsExpired(redisDb *db, robj *key) {
    if (server.loading) return 0;
    long long when = getExpire(db, key);
    if (when < 0) return 0;
    return commandTimeMs() > when;
}

int expiryAllowed(void) {
    /* A replica waits for the master's DEL; CLIENT PAUSE keeps the dataset
     * still until it ends; a load keeps every key it finds. */
    return !server.masterhost_set && !clientsArePaused() && !server.loading;
}

int expireIfNeeded(redisDb *db, robj *key) { return expireIfNeededForWrite(db, key, 0); }

int expireIfNeededForWrite(redisDb *db, robj *key, int write) {
    if (!keyIsExpired(db, key)) return 0;
    /* The master's own commands see what the master saw: the key is there until its DEL. */
    if (server.masterhost_set && server.current_client && (server.current_client->flags & CLIENT_MASTER)) return 0;
    /* A write on a writable replica replaces the expired key: it goes first (as Redis). */
    if (expiryAllowed() || (write && server.masterhost_set && !server.repl_slave_ro && !server.loading))
        deleteExpiredKey(db, key);
    return 1; /* else reported missing, removed later */
}

/* ----------------------------------------------------------------- packing */

/* A key holding a small listpack is stored packed (data/object.h: header,
 * key and listpack in one allocation). A write lookup unpacks it in place
 * (the object keeps its address for the rest of the command) and notes it
 * here, marked in its header (OBJ_KEYSPACE_PACK_DUE) so it is noted once;
 * once the turn's commands are done, dbPackPending packs every object noted
 * again. An object that leaves its db first is forgotten (forgetPackDue);
 * a db emptied, set aside or swapped drops them all (dropPackDue), keeping
 * their keys unpacked until their next write.
 *
 * The objects noted are a set of pointers with open addressing (linear
 * probing, tombstones for the forgotten), emptied and kept between turns:
 * a write's cost is a multiply and a probe, no allocation. */
#define PACK_DUE_GONE ((robj *)1)
static struct {
    robj **objs;   /* NULL: free; PACK_DUE_GONE: forgotten */
    int32_t *dbs;  /* each object's db id */
    size_t cap;    /* a power of two */
    size_t filled; /* objects and tombstones */
} pack_due;

static size_t packDueSlot(const robj *o) {
    return (size_t)(((uintptr_t)o >> 4) * 0x9E3779B97F4A7C15ULL >> 32) & (pack_due.cap - 1);
}

static void packDuePut(robj *o, int32_t db) {
    size_t i = packDueSlot(o);
    while (pack_due.objs[i] && pack_due.objs[i] != PACK_DUE_GONE) i = (i + 1) & (pack_due.cap - 1);
    if (!pack_due.objs[i]) pack_due.filled++;
    pack_due.objs[i] = o;
    pack_due.dbs[i] = db;
}

static void packDueResize(size_t cap) {
    robj **objs = pack_due.objs;
    int32_t *dbs = pack_due.dbs;
    size_t old = pack_due.cap;
    pack_due.objs = zcalloc(cap * sizeof(robj *));
    pack_due.dbs = zmalloc(cap * sizeof(int32_t));
    pack_due.cap = cap;
    pack_due.filled = 0;
    for (size_t i = 0; i < old; i++)
        if (objs[i] && objs[i] != PACK_DUE_GONE) packDuePut(objs[i], dbs[i]);
    zfree(objs);
    zfree(dbs);
}

static void packLater(redisDb *db, robj *o) {
    if (o->encoding != OBJ_ENCODING_LISTPACK || (o->refcount & OBJ_KEYSPACE_PACK_DUE)) return;
    if ((pack_due.filled + 1) * 4 > pack_due.cap * 3) packDueResize(pack_due.cap ? pack_due.cap * 2 : 64);
    o->refcount |= OBJ_KEYSPACE_PACK_DUE;
    packDuePut(o, db->id);
}

static void forgetPackDue(robj *o) {
    if (!(o->refcount & OBJ_KEYSPACE_PACK_DUE)) return;
    o->refcount &= ~OBJ_KEYSPACE_PACK_DUE;
    size_t i = packDueSlot(o);
    while (pack_due.objs[i] != o) i = (i + 1) & (pack_due.cap - 1); /* it is there: its bit says so */
    pack_due.objs[i] = PACK_DUE_GONE;
}

/* Empties the set, handing each object noted to fn (NULL: only unmarked). */
static void packDueEach(void (*fn)(robj *o, int32_t db)) {
    if (!pack_due.filled) return;
    for (size_t i = 0; i < pack_due.cap; i++) {
        robj *o = pack_due.objs[i];
        if (!o || o == PACK_DUE_GONE) continue;
        o->refcount &= ~OBJ_KEYSPACE_PACK_DUE;
        if (fn) fn(o, pack_due.dbs[i]);
    }
    pack_due.filled = 0;
    if (pack_due.cap > 4096) { /* after a burst (a long script, a big EXEC): not scanned every turn from now on */
        zfree(pack_due.objs);
        zfree(pack_due.dbs);
        pack_due.objs = NULL;
        pack_due.dbs = NULL;
        pack_due.cap = 0;
        return;
    }
    memset(pack_due.objs, 0, pack_due.cap * sizeof(robj *));
}

static void dropPackDue(void) { packDueEach(NULL); }

/* Puts o, a new object with old's key and value, in old's place in the db
 * (the TTL slot and the slot index follow) and frees old. */
static void replaceObject(redisDb *db, robj *old, robj *o) {
    if (dictReplaceItem(db->dict, old, o) != DICT_OK) abort(); /* old is in db */
    forgetPackDue(old);
    size_t slot = expireSlotOf((dictEntry *)old);
    if (slot) {
        heapSetPos(o, (long)slot - 1);
        ttlHeapSetItem(db->expires, slot - 1, o);
        heapSetPos(old, -1);
    }
    if (db->slots) slotKeysReplace(db->slots, old, o);
    dbForgetLastLookup();
    decrRefCount(old);
}

static void packNow(robj *old, int32_t db) {
    robj *o = objectPack(old);
    if (o && o != old) replaceObject(&server.db[db], old, o);
}

void dbPackPending(void) { packDueEach(packNow); }

/* ------------------------------------------------------------------ lookup */

robj *lookupKey(redisDb *db, robj *key, int flags) {
    dictEntry *de = dictFind(db->dict, objectPtr(key));
    if (!de) return NULL;
    if (hasExpireSlot(de) && expireIfNeededForWrite(db, key, flags & LOOKUP_WRITE)) return NULL;
    robj *val = dbEntryValue(de);
    /* A write that reads no entries (EXPIRE, PERSIST, RENAME's and MOVE's
     * source, whose payload is copied) leaves a packed value as it is. */
    if ((flags & (LOOKUP_WRITE | LOOKUP_NOENTRIES)) == LOOKUP_WRITE && val->encoding == OBJ_ENCODING_LISTPACK) {
        objectUnpack(val); /* before the command takes any pointer into it */
        packLater(db, val);
    }
    if (!(flags & LOOKUP_NOENTRIES)) objectAssertChecked(val); /* see object.h: only a RESTORE without sanitizing makes one fail */
    if (!(flags & LOOKUP_NOTOUCH) && !server.in_script) objectTouch(val);
    lastFound.d = db->dict;
    lastFound.obj = val;
    return val;
}

robj *lookupKeyReadWithFlags(redisDb *db, robj *key, int flags) {
    robj *val = lookupKey(db, key, flags);
    if (!(flags & LOOKUP_NOSTATS)) {
        if (val) server.stat_keyspace_hits++;
        else server.stat_keyspace_misses++;
    }
    if (!val && !(flags & LOOKUP_NONOTIFY)) keyChanged(db, key, NOTIFY_KEY_MISS, "keymiss", 0);
    return val;
}

robj *lookupKeyRead(redisDb *db, robj *key) { return lookupKeyReadWithFlags(db, key, LOOKUP_NONE); }

robj *lookupKeyWriteWithFlags(redisDb *db, robj *key, int flags) {
    return lookupKey(db, key, flags | LOOKUP_WRITE);
}

robj *lookupKeyWrite(redisDb *db, robj *key) { return lookupKeyWriteWithFlags(db, key, LOOKUP_NONE); }

/* ------------------------------------------------------------------- write */

static robj *addObject(redisDb *db, robj *key, robj *o) {
    if (dictAddItem(db->dict, o) != DICT_OK) abort(); /* callers check existence first */
    if (db->slots) slotKeysAdd(db->slots, o);
    objectInitAccess(o);
    if (o->type == OBJ_LIST || o->type == OBJ_ZSET || o->type == OBJ_STREAM) signalKeyAsReady(db, key, o->type);
    /* The 'n' class: a key was created (before the command's own event). Not while loading. */
    if (!server.loading) keyChanged(db, key, NOTIFY_NEW, "new", 0);
    return o;
}

robj *dbAdd(redisDb *db, robj *key, robj *val) {
    robj *o = addObject(db, key, objectWithKey(objectPtr(key), sdslen(objectPtr(key)), val));
    packLater(db, o); /* the command goes on filling it */
    return o;
}

robj *dbAddPacked(redisDb *db, robj *key, robj *val) {
    return addObject(db, key, objectWithKeyPacked(objectPtr(key), sdslen(objectPtr(key)), val));
}

robj *dbOverwrite(redisDb *db, robj *key, robj *val) {
    robj *old = findForOverwrite(db, key);
    if (!old) abort();
    if (val == old) { /* storing what is there: only the caller's reference goes */
        decrRefCount(val);
        return old;
    }
    /* An overwritten stream is a deleted one to its XREADGROUP waiters (SET on it, say). */
    if (old->type == OBJ_STREAM) signalKeyAsReady(db, key, OBJ_STREAM);
    /* The access history belongs to the key under LFU; else the value's counts. */
    int lfu = maxmemoryPolicyIsLfu();
    unsigned lru = val->lru;
    /* lazyfree-lazy-server-del: a large old value leaves in a shell of its
     * own for the lazyfree thread; the keyspace object keeps nothing of it. */
    if (server.lazyfree_lazy_server_del && old->type != OBJ_STRING && !objectIsPacked(old) && objectPtr(old) &&
        objectRefs(old) == 1 &&
        lazyfreeFreeEffort(old) > LAZYFREE_THRESHOLD) {
        robj *shell = createObject(old->type, objectPtr(old));
        shell->encoding = old->encoding;
        objectSetPtr(old, NULL);
        lazyfreeObject(shell);
    }
    if (objectReplaceValue(old, val)) { /* the common case: no allocation, nothing relinked */
        if (!lfu) old->lru = lru;
        packLater(db, old);
        return old;
    }
    robj *o = objectWithKey(objectPtr(key), sdslen(objectPtr(key)), val);
    if (lfu) o->lru = old->lru;
    replaceObject(db, old, o);
    packLater(db, o);
    return o;
}

robj *setKey(redisDb *db, robj *key, robj *val, int flags) {
    int exists;
    if (flags & SETKEY_ALREADY_EXIST) exists = 1;
    else if (flags & SETKEY_DOESNT_EXIST) exists = 0;
    else exists = lookupKeyWrite(db, key) != NULL;
    incrRefCount(val);
    if (!exists) return dbAdd(db, key, val);
    robj *o = dbOverwrite(db, key, val);
    if (!(flags & SETKEY_KEEPTTL)) removeEntryExpire(db, (dictEntry *)o);
    return o;
}

/* de, key's entry, was unlinked: its object (key and value in one) is freed
 * here, or by the lazyfree thread when `how` says and the value is large. */
static void deleteUnlinked(redisDb *db, robj *key, dictEntry *de, int how) {
    forgetPackDue((robj *)de);
    if (db->slots) slotKeysRemove(db->slots, (robj *)de);
    /* XREADGROUP waiters on a stream that goes are answered with an error. */
    if (dbEntryValue(de)->type == OBJ_STREAM) signalKeyAsReady(db, key, OBJ_STREAM);
    dbForgetLastLookup();
    removeEntryExpire(db, de);
    if (how == DB_FREE_LAZILY) lazyfreeObject((robj *)de);
    else if (how == DB_FREE_OFF_LOOP) lazyfreeObjectUncounted((robj *)de);
    else dictFreeUnlinkedEntry(db->dict, de);
}

static int dbGenericDelete(redisDb *db, robj *key, int how) {
    dictEntry *de = dictUnlink(db->dict, objectPtr(key));
    if (!de) return 0;
    deleteUnlinked(db, key, de, how);
    return 1;
}

void dbDeleteEntry(redisDb *db, robj *key, dictEntry *de, int how) {
    if (dictUnlinkItem(db->dict, de) != de) abort(); /* de is in db */
    deleteUnlinked(db, key, de, how);
}

int dbSyncDelete(redisDb *db, robj *key) { return dbGenericDelete(db, key, DB_FREE_NOW); }
int dbAsyncDelete(redisDb *db, robj *key) { return dbGenericDelete(db, key, DB_FREE_LAZILY); }
/* Deletions the server makes on its own (RENAME's target, a STORE's
 * destination, a collection left empty): lazyfree-lazy-server-del decides. */
int dbDelete(redisDb *db, robj *key) {
    return dbGenericDelete(db, key, server.lazyfree_lazy_server_del ? DB_FREE_LAZILY : DB_FREE_NOW);
}

int dbExists(redisDb *db, robj *key) { return dictFind(db->dict, objectPtr(key)) != NULL; }

robj *dbUnshareStringValue(redisDb *db, robj *key, robj *o) {
    if (objectRefs(o) != 1 || o->encoding != OBJ_ENCODING_RAW) {
        robj *decoded = getDecodedObject(o);
        o = createRawStringObject(objectPtr(decoded), sdslen(objectPtr(decoded)));
        decrRefCount(decoded);
        o = dbOverwrite(db, key, o);
    }
    return o;
}

robj *dbRandomKey(redisDb *db) {
    int maxtries = 100;
    for (;;) {
        dictEntry *de = dictGetFairRandomKey(db->dict);
        if (de == NULL) return NULL;
        sds key = dbEntryKey(de);
        robj *keyobj = createStringObject(key, sdslen(key));
        if (hasExpireSlot(de)) {
            /* Every key being expired would loop forever; give up after a while. */
            if (--maxtries == 0 && ttlHeapLen(db->expires) == dictSize(db->dict)) return keyobj;
            if (expireIfNeeded(db, keyobj)) {
                decrRefCount(keyobj);
                continue;
            }
        }
        return keyobj;
    }
}

long long emptyDataAsync(int dbnum) {
    long long removed = 0;
    dbForgetLastLookup();
    dropPackDue();
    int start = dbnum == -1 ? 0 : dbnum, end = dbnum == -1 ? server.dbnum - 1 : dbnum;
    for (int j = start; j <= end; j++) {
        redisDb *db = &server.db[j];
        signalBlockedStreamsInDb(db);
        removed += dictSize(db->dict);
        /* The thread gets the old tables whole; the db starts afresh. */
        if (db->slots) slotKeysClear(db->slots); /* before the thread may free the objects */
        lazyfreeKeyspace(db->dict, db->expires);
        db->dict = dictCreate(&keyspaceDictType);
        db->expires = ttlHeapCreate(heapSetPos);
        db->avg_ttl = 0;
    }
    if (dbnum == -1) expireForgetReplicaKeys();
    return removed;
}

long long emptyData(int dbnum, void (*callback)(dict *)) {
    long long removed = 0;
    dbForgetLastLookup();
    dropPackDue();
    int start = dbnum == -1 ? 0 : dbnum, end = dbnum == -1 ? server.dbnum - 1 : dbnum;
    for (int j = start; j <= end; j++) {
        redisDb *db = &server.db[j];
        signalBlockedStreamsInDb(db); /* while its streams are still there to be seen */
        removed += dictSize(db->dict);
        ttlHeapClear(db->expires);
        if (db->slots) slotKeysClear(db->slots);
        dictEmpty(db->dict, callback);
        db->avg_ttl = 0;
    }
    if (dbnum == -1) expireForgetReplicaKeys();
    return removed;
}

/* The datasets a replica sets aside while it loads its master's snapshot
 * from the socket (repl-diskless-load swapdb): back if the load fails. */
struct dbBackup {
    dict **dicts;
    ttlHeap **expires;
    slotKeys *slots; /* db 0's, in cluster mode */
};

dbBackup *dbBackupAll(void) {
    dropPackDue();
    dbBackup *b = zmalloc(sizeof(*b));
    b->dicts = zmalloc(sizeof(dict *) * server.dbnum);
    b->expires = zmalloc(sizeof(ttlHeap *) * server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        b->dicts[j] = server.db[j].dict;
        b->expires[j] = server.db[j].expires;
        server.db[j].dict = dictCreate(&keyspaceDictType);
        server.db[j].expires = ttlHeapCreate(heapSetPos);
        server.db[j].avg_ttl = 0;
    }
    b->slots = server.db[0].slots;
    if (b->slots) server.db[0].slots = slotKeysCreate();
    return b;
}

void dbBackupRestore(dbBackup *b) {
    dbForgetLastLookup();
    dropPackDue();
    if (b->slots) {
        slotKeysRelease(server.db[0].slots);
        server.db[0].slots = b->slots;
    }
    for (int j = 0; j < server.dbnum; j++) {
        lazyfreeKeyspace(server.db[j].dict, server.db[j].expires);
        server.db[j].dict = b->dicts[j];
        server.db[j].expires = b->expires[j];
    }
    zfree(b->dicts);
    zfree(b->expires);
    zfree(b);
}

void dbBackupSwap(dbBackup *b) {
    dbForgetLastLookup();
    dropPackDue();
    for (int j = 0; j < server.dbnum; j++) {
        dict *d = server.db[j].dict;
        ttlHeap *e = server.db[j].expires;
        server.db[j].dict = b->dicts[j];
        server.db[j].expires = b->expires[j];
        server.db[j].avg_ttl = 0;
        b->dicts[j] = d;
        b->expires[j] = e;
    }
    slotKeys *sk = server.db[0].slots;
    server.db[0].slots = b->slots;
    b->slots = sk;
}

void dbBackupDiscard(dbBackup *b) {
    slotKeysRelease(b->slots); /* before the thread may free the objects */
    for (int j = 0; j < server.dbnum; j++) lazyfreeKeyspace(b->dicts[j], b->expires[j]);
    zfree(b->dicts);
    zfree(b->expires);
    zfree(b);
}

void dbAnnounceReplaced(dbBackup *other) {
    for (int j = 0; j < server.dbnum; j++) {
        redisDb side = {0};
        if (other) {
            side.dict = other->dicts[j];
            side.expires = other->expires[j];
            side.id = j;
        }
        keyspaceReplaced(&server.db[j], other ? &side : NULL);
    }
}

long long dbTotalServerKeySize(void) {
    long long total = 0;
    for (int j = 0; j < server.dbnum; j++) total += dictSize(server.db[j].dict);
    return total;
}

int selectDb(client *c, int id) {
    if (id < 0 || id >= server.dbnum) return C_ERR;
    c->db = &server.db[id];
    return C_OK;
}

int dbSwapDatabases(int id1, int id2) {
    if (id1 < 0 || id1 >= server.dbnum || id2 < 0 || id2 >= server.dbnum) return C_ERR;
    if (id1 == id2) return C_OK;
    redisDb a = server.db[id1], *db1 = &server.db[id1], *db2 = &server.db[id2];
    keyspaceSwapped(db1, db2);
    dbForgetLastLookup();
    dropPackDue(); /* their db ids name the old places */
    /* A stream that leaves fails its XREADGROUP waiters, unless a stream
     * with their group arrives under the same name. */
    signalBlockedStreamsInDb(db1);
    signalBlockedStreamsInDb(db2);
    /* Only the data moves; blocked and watching clients stay with their db number. */
    db1->dict = db2->dict;
    db1->expires = db2->expires;
    db1->avg_ttl = db2->avg_ttl;
    db1->slots = db2->slots;
    db2->slots = a.slots;
    db2->dict = a.dict;
    db2->expires = a.expires;
    db2->avg_ttl = a.avg_ttl;
    signalBlockedKeysInDb(db1);
    signalBlockedKeysInDb(db2);
    expireForgetReplicaKeys(); /* their db bitmaps name the old places */
    return C_OK;
}

/* ------------------------------------------------------- keys by slot */

unsigned long dbSlotKeyCount(unsigned slot) {
    return server.db[0].slots ? slotKeysCount(server.db[0].slots, slot) : 0;
}

unsigned long dbSlotKeyNames(unsigned slot, sds *out, unsigned long max) {
    if (!server.db[0].slots || max == 0) return 0;
    robj **objs = zmalloc(sizeof(robj *) * max);
    unsigned long n = slotKeysGet(server.db[0].slots, slot, objs, max);
    for (unsigned long j = 0; j < n; j++) out[j] = objectKey(objs[j]);
    zfree(objs);
    return n;
}

/* Each key goes as a DEL would take it (replicas and the AOF get the DEL,
 * WATCH and tracking see it), with no keyspace event and no expiry push:
 * the key did not expire, it moved or was dropped, as Redis 7.0 does. */
unsigned long dbDeleteSlotKeys(unsigned slot) {
    redisDb *db = &server.db[0];
    unsigned long deleted = 0;
    while (db->slots && slotKeysCount(db->slots, slot)) {
        robj *o;
        slotKeysGet(db->slots, slot, &o, 1);
        sds name = objectKey(o);
        robj *key = createStringObject(name, sdslen(name));
        keyChanged(db, key, 0, NULL, 1);
        propagateDeletion(db, key);
        dbDelete(db, key);
        decrRefCount(key);
        deleted++;
    }
    return deleted;
}

/* ------------------------------------------------- blocked keys made ready */

/* Every blocked-on key of db that holds a value (of type only_type, or any
 * when -1) is ready. The walk does no lookup in the table it walks: a lookup
 * steps a rehash, which an iterator over that table must never see. */
static void signalPresentBlockedKeys(redisDb *db, int only_type) {
    dictIterator *di = dictGetIterator(db->blocking_keys);
    dictEntry *de;
    while ((de = dictNext(di))) {
        robj *key = dictGetKey(de);
        dictEntry *ke = dbFindEntry(db, objectPtr(key));
        if (ke && (only_type == -1 || dbEntryValue(ke)->type == only_type)) markKeyReady(db, key);
    }
    dictReleaseIterator(di);
}

void signalBlockedKeysInDb(redisDb *db) {
    /* Present, expired or not: a key that turns out expired is deleted
     * when the clients are served, after the command (SWAPDB) that made
     * it ready went to the command stream, as in Redis. */
    if (dictSize(db->blocking_keys)) signalPresentBlockedKeys(db, -1);
}

void signalBlockedStreamsInDb(redisDb *db) {
    if (dictSize(db->blocking_keys) && server.blocked_clients_by_type[BLOCKED_STREAM])
        signalPresentBlockedKeys(db, OBJ_STREAM);
}

