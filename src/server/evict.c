/* evict: the maxmemory policies (see evict.h).
 *
 * LRU and LFU are approximated as Redis does: each round samples
 * maxmemory-samples keys per database and keeps the best candidates seen so
 * far in a small pool, ranked by idle seconds (robj->lru against the LRU
 * clock) or by how cold the logarithmic LFU counter kept in the same bits is.
 * The victim is the best pool entry still present. The volatile policies
 * draw from the keys with a TTL, i.e. the expiry heap of each database;
 * volatile-ttl needs no sampling at all: a heap's minimum is the smallest TTL,
 * so the key that would expire first goes first. The random policies pick
 * one key per round, visiting the databases in turn. The access record
 * the policies read (robj->lru, kept up to date by every lookup) is lru.c's. */
#include "server/evict.h"
#include "server/lru.h"
#include "server/replbuf.h"
#include "server/db.h"
#include "server/expire.h"
#include "server/lazyfree.h"
#include "server/keyevents.h"
#include "core/zmalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------- the candidate pool */

#define POOL_SIZE 16
#define MAX_SAMPLES 64 /* maxmemory-samples' upper bound in the config table */

typedef struct poolEntry {
    unsigned long long score; /* higher evicts first: idle seconds, or 255 - LFU counter */
    sds key;                  /* a buffer kept for reuse, also past pool_len (NULL until first used) */
    int dbid;
} poolEntry;

/* pool[0, pool_len) is sorted by ascending score: the best victim is last.
 * Key buffers are recycled, not freed, so sampling does not allocate. */
static poolEntry pool[POOL_SIZE];
static int pool_len;

static void poolInsert(int dbid, sds key, unsigned long long score) {
    size_t keylen = sdslen(key);
    for (int i = 0; i < pool_len; i++) /* sampled again (an access since would change the score) */
        if (pool[i].score == score && pool[i].dbid == dbid && sdslen(pool[i].key) == keylen &&
            !memcmp(pool[i].key, key, keylen))
            return;
    int pos = 0;
    while (pos < pool_len && pool[pos].score <= score) pos++;
    sds buf;
    if (pool_len == POOL_SIZE) {
        if (pos == 0) return; /* colder than nothing already kept */
        /* Make room by dropping the weakest candidate (the first). */
        buf = pool[0].key;
        memmove(pool, pool + 1, sizeof(poolEntry) * (pos - 1));
        pos--;
    } else {
        buf = pool[pool_len].key;
        memmove(pool + pos + 1, pool + pos, sizeof(poolEntry) * (pool_len - pos));
        pool_len++;
    }
    pool[pos].score = score;
    pool[pos].key = buf ? sdscpylen(buf, key, keylen) : sdsnewlen(key, keylen);
    pool[pos].dbid = dbid;
}

static unsigned long long evictionScore(robj *val, int lfu) {
    return lfu ? 255 - objectLfuCounter(val) : objectIdleSeconds(val);
}

/* Adds maxmemory-samples keys of db (any key, or only volatile ones) to the
 * pool. Reading a value's lru bits here does not count as an access. */
static void poolPopulate(redisDb *db, int allkeys, int lfu) {
    dictEntry *sample[MAX_SAMPLES];
    unsigned int want = server.maxmemory_samples > MAX_SAMPLES ? MAX_SAMPLES : (unsigned int)server.maxmemory_samples;
    unsigned int n;
    if (allkeys) {
        n = dictGetSomeKeys(db->dict, sample, want);
    } else {
        /* Every heap slot is one volatile key: uniform random slots are a uniform sample. */
        size_t len = ttlHeapLen(db->expires);
        n = len < want ? (unsigned int)len : want;
        for (unsigned int i = 0; i < n; i++)
            sample[i] = ttlHeapItem(db->expires, len == n ? i : (size_t)random() % len);
    }
    for (unsigned int i = 0; i < n; i++)
        poolInsert(db->id, dbEntryKey(sample[i]), evictionScore(dbEntryValue(sample[i]), lfu));
}

/* The best pooled candidate that still exists (and, for volatile policies,
 * still has a TTL), after sampling every database once more. NULL when the
 * policy has no key left to pick from. */
static robj *pickFromPool(int allkeys, int lfu, int *dbid) {
    for (;;) {
        unsigned long total = 0;
        for (int j = 0; j < server.dbnum; j++) {
            redisDb *db = &server.db[j];
            unsigned long keys = allkeys ? dictSize(db->dict) : ttlHeapLen(db->expires);
            if (keys == 0) continue;
            poolPopulate(db, allkeys, lfu);
            total += keys;
        }
        if (total == 0) return NULL;
        while (pool_len) {
            poolEntry *e = &pool[--pool_len]; /* its buffer stays for reuse */
            redisDb *db = &server.db[e->dbid];
            dictEntry *de = dbFindEntry(db, e->key);
            if (de && (allkeys || dbEntryExpire(db, de) != -1)) {
                *dbid = e->dbid;
                return createStringObject(e->key, sdslen(e->key));
            }
        }
        /* Every candidate had gone (deleted since it was pooled): sample again. */
    }
}

/* volatile-ttl: the key with the earliest deadline in any database. */
static robj *pickEarliestDeadline(int *dbid) {
    redisDb *best = NULL;
    for (int j = 0; j < server.dbnum; j++) {
        redisDb *db = &server.db[j];
        if (ttlHeapLen(db->expires) && (!best || ttlHeapMinWhen(db->expires) < ttlHeapMinWhen(best->expires)))
            best = db;
    }
    if (!best) return NULL;
    sds k = objectKey(ttlHeapMinItem(best->expires));
    *dbid = best->id;
    return createStringObject(k, sdslen(k));
}

static robj *pickRandom(int allkeys, int *dbid) {
    static int next_db;
    for (int i = 0; i < server.dbnum; i++) {
        next_db = (next_db + 1) % server.dbnum;
        redisDb *db = &server.db[next_db];
        dictEntry *de = NULL;
        if (allkeys && dictSize(db->dict)) de = dictGetRandomKey(db->dict);
        else if (!allkeys && ttlHeapLen(db->expires))
            de = ttlHeapItem(db->expires, (size_t)random() % ttlHeapLen(db->expires));
        if (!de) continue;
        sds k = dbEntryKey(de);
        *dbid = next_db;
        return createStringObject(k, sdslen(k));
    }
    return NULL;
}

static robj *pickVictim(int *dbid) {
    switch (server.maxmemory_policy) {
    case MAXMEMORY_VOLATILE_LRU: return pickFromPool(0, 0, dbid);
    case MAXMEMORY_VOLATILE_LFU: return pickFromPool(0, 1, dbid);
    case MAXMEMORY_ALLKEYS_LRU: return pickFromPool(1, 0, dbid);
    case MAXMEMORY_ALLKEYS_LFU: return pickFromPool(1, 1, dbid);
    case MAXMEMORY_VOLATILE_TTL: return pickEarliestDeadline(dbid);
    case MAXMEMORY_VOLATILE_RANDOM: return pickRandom(0, dbid);
    case MAXMEMORY_ALLKEYS_RANDOM: return pickRandom(1, dbid);
    default: return NULL;
    }
}

/* ------------------------------------------------------------ the eviction */

/* The one way a key leaves by eviction: as expiry, raising `evicted`. */
static long long deleteEvictedKey(redisDb *db, robj *key) {
    dictEntry *de = dbFindEntry(db, objectPtr(key));
    if (!de) return 0;
    incrRefCount(key);
    long long freed = removeKeyWithEvent(db, key, dbEntryValue(de), NOTIFY_EVICTED, "evicted",
                                        server.lazyfree_lazy_eviction ? DB_FREE_LAZILY : DB_FREE_NOW);
    server.stat_evictedkeys++;
    decrRefCount(key);
    return freed;
}

/* How long one call may evict, from maxmemory-eviction-tenacity: 0..10 go up
 * linearly to 500us (10 is the default), then 15% more per step, and 100
 * means no limit. */
static unsigned long long evictionTimeLimitUs(void) {
    int tenacity = server.maxmemory_eviction_tenacity;
    if (tenacity <= 10) return 50ULL * (unsigned long long)(tenacity < 0 ? 0 : tenacity);
    if (tenacity < 100) return (unsigned long long)(500.0 * pow(1.15, tenacity - 10));
    return ~0ULL;
}

static long long eviction_timer_id = -1;

/* Goes on evicting between commands until the overshoot is worked off. */
static long long evictionTimerProc(aeEventLoop *el, long long id, void *clientData) {
    (void)el, (void)id, (void)clientData;
    if (performEvictions() == EVICT_RUNNING) return 0;
    eviction_timer_id = -1;
    return AE_NOMORE;
}


static void startEvictionTimer(void) {
    if (eviction_timer_id == -1 && server.el)
        eviction_timer_id = aeCreateTimeEvent(server.el, 0, evictionTimerProc, NULL);
}

int performEvictions(void) {
    /* The expiry policy holds for eviction too: nothing is evicted while
     * loading, on a replica (it mirrors its master), or during CLIENT PAUSE
     * (writes wait for its end anyway). */
    if (!server.maxmemory || !expiryAllowed()) return EVICT_OK;
    size_t used = evictCountedMemory();
    if (used <= server.maxmemory) return EVICT_OK;
    if (server.maxmemory_policy == MAXMEMORY_NO_EVICTION) return EVICT_FAIL;
    /* The target is fixed up front and only what the frees return counts, so
     * memory the evictions themselves take (notifications, AOF) cannot make
     * one call chase its own tail through the whole dataset. */
    long long tofree = (long long)(used - server.maxmemory), freed = 0, evicted = 0;
    unsigned long long limit = evictionTimeLimitUs();
    monotime start = getMonotonicUs();
    while (freed < tofree) {
        int dbid;
        robj *key = pickVictim(&dbid);
        if (!key) {
            /* Nothing left to evict: values the lazyfree thread is freeing
             * may still bring memory under the limit; wait for them briefly. */
            if (lazyfreePendingObjects()) {
                usleep(limit > 500000 ? 500000 : (useconds_t)limit);
                if (evictCountedMemory() <= server.maxmemory) return EVICT_OK;
            }
            return EVICT_FAIL;
        }
        freed += deleteEvictedKey(&server.db[dbid], key);
        decrRefCount(key);
        evicted++;
        /* Lazily evicted values free their memory in the background, where
         * `freed` cannot see it: the real figure tells when to stop, as Redis. */
        if (server.lazyfree_lazy_eviction && (evicted & 15) == 0 && evictCountedMemory() <= server.maxmemory) break;
        if ((evicted & 15) == 0 && getMonotonicUs() - start > limit) {
            startEvictionTimer();
            return EVICT_RUNNING;
        }
    }
    return EVICT_OK;
}

int applyMaxmemoryPolicy(const char **err) {
    (void)err;
    int p = server.maxmemory_policy;
    int lru_lfu = p == MAXMEMORY_VOLATILE_LRU || p == MAXMEMORY_VOLATILE_LFU || p == MAXMEMORY_ALLKEYS_LRU ||
                  p == MAXMEMORY_ALLKEYS_LFU;
    objectReportSharedIntegers(!(server.maxmemory && lru_lfu));
    return 1;
}

int applyMaxmemory(const char **err) {
    applyMaxmemoryPolicy(err);
    if (!server.maxmemory || !server.el) return 1;
    size_t used = zmalloc_used_memory();
    if (server.maxmemory < used)
        serverLog(LL_WARNING,
                  "WARNING: the new maxmemory value set via CONFIG SET (%llu) is smaller than the current memory "
                  "usage (%zu). This will result in key eviction and/or the inability to accept new write commands "
                  "depending on the maxmemory-policy.",
                  server.maxmemory, used);
    startEvictionTimer();
    return 1;
}
