/* expire: the expiry path (see expire.h). Due keys are found by the ordered
 * index in each db (a heap of deadlines), not by sampling, so a key goes
 * within a millisecond or so of its deadline however many keys have TTLs. */
#include "server/expire.h"
#include "server/db.h"
#include "server/hooks.h"
#include "server/propagate.h"
#include "core/histogram.h"
#include "core/memprefetch.h"
#include "core/zmalloc.h"

#include <string.h>

static long long scheduled_when = -1; /* ms deadline the timer is armed for, -1 idle */
/* The last expireDueKeys stopped with keys due because the push holds
 * (hooks.h, backgroundPacer): expireResume() starts the timer again. */
static int held;
/* While held, the timer checks again after this long anyway: a consumer that
 * stops reading stops the hold (the push is no longer feeding it) without
 * any drain to end it. */
#define HOLD_RECHECK_US 5000

/* How late active expiry removed each key: now - deadline, in µs. Static,
 * so it costs no used_memory; 1 µs .. 1000 s of it are told apart. */
static latencyHistogram lateness;

const latencyHistogram *expireLateness(void) { return &lateness; }

void expireResetLateness(void) { memset(&lateness, 0, sizeof(lateness)); }

long long removeKeyWithEvent(redisDb *db, robj *key, robj *val, int class, const char *event, int how) {
    /* Subscribers (the expiry push) read the value, still in the db. */
    keyRemoving(db, key, val, class, event);
    propagateDeletion(db, key);
    long long before = (long long)zmalloc_used_memory();
    /* The clock only while the latency monitor is on, as Redis: on a machine
     * whose clock is no TSC (a VM's kvm-clock) two reads are ~120 ns, a sixth
     * of what expiring a key costs in a mass expiry. */
    monotime start = server.latency_monitor_threshold ? getMonotonicUs() : 0;
    dbDeleteEntry(db, key, (dictEntry *)val, how);
    /* The free alone, as Redis's expire-del and eviction-del events time it. */
    if (server.latency_monitor_threshold)
        latencySample(class == NOTIFY_EXPIRED ? "expire-del" : "eviction-del",
                      (long long)(getMonotonicUs() - start) / 1000);
    return before - (long long)zmalloc_used_memory();
}

/* key is in db, with the value val. A large value is freed off the loop
 * even with lazyfree-lazy-expire off (then uncounted in INFO, where Redis
 * frees it in place): a set or hash of 1M elements takes ~12 ms to free, a
 * sorted set ~45, and expiry's slices stay under a millisecond or two. */
static void removeExpiredKey(redisDb *db, robj *key, robj *val) {
    incrRefCount(key);
    removeKeyWithEvent(db, key, val, NOTIFY_EXPIRED, "expired",
                       server.lazyfree_lazy_expire ? DB_FREE_LAZILY : DB_FREE_OFF_LOOP);
    server.stat_expiredkeys++;
    decrRefCount(key);
}

void deleteExpiredKey(redisDb *db, robj *key) {
    dictEntry *de = dbFindEntry(db, objectPtr(key));
    if (de) removeExpiredKey(db, key, dbEntryValue(de));
}

static long long earliestDeadline(void) {
    long long best = -1;
    for (int j = 0; j < server.dbnum; j++) {
        ttlHeap *h = server.db[j].expires;
        if (ttlHeapLen(h) && (best == -1 || ttlHeapMinWhen(h) < best)) best = ttlHeapMinWhen(h);
    }
    return best;
}

/* A slice of expiry gives way to a request that waits after this long, and
 * to a reply that waits (a command ran in this turn) at once: checked every
 * 16 keys, so a slice removes 16 keys at least. Looking for a request is a
 * poll of the event loop, a system call (~1 µs on a VM, as much as removing
 * a key): while no client was served lately (BACKGROUND_CLIENTS_WINDOW_US)
 * it is made every IDLE_POLL_EVERY_US only, so a first request waits that
 * long at worst; the rest of the time at every check. */
#define YIELD_AFTER_US 10
#define IDLE_POLL_EVERY_US 50

/* A keyspace this small stays in the caches: looking ahead would only cost. */
#define LOOKAHEAD_MIN_KEYS 16384

/* Cache hints for the keys a mass expiry removes next. Removing a key of a
 * big keyspace waits on two misses, its object (for its name) and its hash
 * bucket (to unlink it), each ~0.2 µs in a VM, more than the rest of the
 * removal. The heap tells which key comes next: when the root goes, the
 * last item takes its place and stays there unless a child of the root is
 * earlier (ttlheap's sift-down). So, before the root is removed, the next
 * key's bucket is asked for (its object was asked for one key earlier, so
 * its name is at hand to hash), and the object of the key after it, which
 * with equal deadlines (keys due at the same moment) is the last item but
 * one. A wrong guess costs a wasted prefetch. */
static void lookAhead(redisDb *db) {
    ttlHeap *h = db->expires;
    size_t n = ttlHeapLen(h);
    if (n < LOOKAHEAD_MIN_KEYS) return;
    size_t next = n - 1;
    int64_t when = ttlHeapWhen(h, next);
    for (size_t c = 1; c <= 4; c++) {
        if (ttlHeapWhen(h, c) < when) {
            next = c;
            when = ttlHeapWhen(h, c);
        }
    }
    sds k = dbEntryKey(ttlHeapItem(h, next));
    dictPrefetchSdsKeyBucket(db->dict, k, sdslen(k));
    const char *after = ttlHeapItem(h, next == n - 1 ? n - 2 : n - 1);
    prefetchLine(after);
    prefetchLine(after + 64); /* the name may reach into the second line */
}

long long expireDueKeys(long long budget_us) {
    monotime start = getMonotonicUs();
    long long removed = 0;
    held = 0; /* a hold that ended without a drain (the consumer stopped reading) must not outlive it */
    backgroundRunBegin();
    /* The clock is read again with the budget, every 16 keys, not for each:
     * a key that fell due meanwhile waits those few µs for the next read,
     * and a key's lateness is taken against the latest read. */
    long long now_us = ustimeAt(start), now = now_us / 1000;
    long long poll_every = backgroundClientsServed() ? 0 : IDLE_POLL_EVERY_US;
    long long polled = 0; /* µs into the slice of the last poll */
    for (int j = 0; j < server.dbnum; j++) {
        redisDb *db = &server.db[j];
        while (ttlHeapLen(db->expires)) {
            if (ttlHeapMinWhen(db->expires) >= now) break;
            /* A consumer reads and 0MQ's queue is full: the key waits in the
             * dataset rather than in the push's backlog and spool. */
            if (backgroundConsumerHolding()) {
                held = 1;
                goto out;
            }
            histogramRecord(&lateness, now_us - ttlHeapMinWhen(db->expires) * 1000);
            dictEntry *de = ttlHeapMinItem(db->expires);
            sds k = dbEntryKey(de);
            robj *key = createStringObject(k, sdslen(k));
            lookAhead(db);
            /* Commands see a fixed clock; expiry runs between commands, on the real one. */
            server.mstime = now;
            removeExpiredKey(db, key, dbEntryValue(de)); /* the heap holds keys of the db only: no lookup to check */
            decrRefCount(key);
            removed++;
            if ((removed & 15) == 0) {
                monotime at = getMonotonicUs();
                long long spent = (long long)(at - start);
                if (spent > budget_us) goto out;
                /* A client waits (a reply is ready to go out once this turn
                 * ends, or a request came): it is served before the rest. */
                if (listLength(server.clients_pending_write)) goto out;
                if (spent > YIELD_AFTER_US && spent - polled >= poll_every) {
                    polled = spent;
                    if (aeEventsPending(server.el)) goto out;
                }
                now_us = ustimeAt(at);
                now = now_us / 1000;
            }
        }
    }
out:
    backgroundRunEnd(); /* within the slice's time: it may send the run's last messages */
    long long spent = (long long)(getMonotonicUs() - start);
    server.stat_expire_cycle_time_used += spent;
    latencySample("expire-cycle", spent / 1000);
    return removed;
}

/* µs until a key with this deadline (ms) is due: it is expired once the
 * clock is past its millisecond, at (when + 1) * 1000 µs, and the timer is
 * armed for that very µs (the loop waits in µs: ae's epoll_pwait2), not for
 * the next whole ms, which made keys half a millisecond later on average.
 * Far deadlines — up to LLONG_MAX — are re-checked every second rather than
 * computed in overflowing arithmetic. */
static long long usUntilDue(long long when) {
    long long now = ustime();
    if (when >= now / 1000 + 1000) return 1000000;
    long long due = (when + 1) * 1000;
    return due > now ? due - now : 0;
}

/* How long the timer sleeps for a deadline `wait` µs away. A VM's idle vCPU
 * may be woken milliseconds late by its host (a plain epoll sleeper on the
 * 2-core VM here overshot 2.5 ms sleeps by 0.3 ms at p99 alone, 2.6 ms at p99
 * and 10 ms at worst beside a client; with another process keeping a core
 * busy, 0.2 ms), so expire-early-wake-us makes it wake that much before and
 * keep the loop polling, serving clients as usual, until the key is due:
 * promptness at the floor for up to a core of CPU while deadlines are near. */
static long long timerSleepUs(long long wait) {
    long long early = server.expire_early_wake_us;
    return wait > early ? wait - early : 0;
}

/* Keys a writable replica's own clients gave a TTL: its master knows nothing
 * of them and sends no DEL, so the replica removes them itself (as Redis).
 * Key -> bitmap of the dbs (0..63) it got a TTL in. The dict owns its names
 * (embedded in the entries: the caller's sds is copied, not kept). A name
 * goes when the check below finds its key expired (and removes it) or
 * without a TTL in every db it was remembered for (deleted, overwritten,
 * PERSISTed, moved); all go with the whole dataset (FLUSHALL, a full sync's
 * load, SWAPDB, whose dbs no longer match the bitmaps) and when the server
 * is no replica any more (a master expires them as any key). */
static dict *replica_keys;
static unsigned long replica_cursor; /* where the check resumes in replica_keys */

void expireRememberReplicaKey(redisDb *db, robj *key) {
    if (db->id > 63) return;
    if (!replica_keys) replica_keys = dictCreate(&setDictType);
    dictEntry *de = dictFind(replica_keys, objectPtr(key));
    if (!de) de = dictAddRaw(replica_keys, objectPtr(key), NULL);
    dictSetUnsignedIntegerVal(de, dictGetUnsignedIntegerVal(de) | (1ULL << db->id));
}

void expireForgetReplicaKeys(void) {
    if (!replica_keys) return;
    dictRelease(replica_keys);
    replica_keys = NULL;
    replica_cursor = 0;
}

size_t expireReplicaKeyCount(void) { return replica_keys ? dictSize(replica_keys) : 0; }

typedef struct { sds *names; size_t n, cap; } nameBatch;

static void batchName(void *privdata, const dictEntry *de) {
    nameBatch *b = privdata;
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->names = zrealloc(b->names, b->cap * sizeof(sds));
    }
    b->names[b->n++] = sdsdup(dictGetKey(de));
}

/* One remembered name: its key goes where it expired; the name is forgotten
 * when no db holds it with a TTL any more. */
static void checkReplicaKey(sds name) {
    dictEntry *de = dictFind(replica_keys, name);
    if (!de) return;
    uint64_t dbs = dictGetUnsignedIntegerVal(de), left = 0;
    robj *key = createStringObject(name, sdslen(name));
    for (int j = 0; j < 64 && j < server.dbnum; j++) {
        if (!(dbs & (1ULL << j))) continue;
        redisDb *db = &server.db[j];
        long long when = getExpire(db, key);
        if (when < 0) continue;
        if (when < mstime()) {
            server.mstime = mstime();
            deleteExpiredKey(db, key);
        } else {
            left |= 1ULL << j;
        }
    }
    decrRefCount(key);
    if (!replica_keys) return; /* forgotten meanwhile */
    if (left) dictSetUnsignedIntegerVal(dictFind(replica_keys, name), left);
    else dictDelete(replica_keys, name);
}

/* Checks the remembered names, resuming where the last turn stopped, for
 * about a millisecond: a turn's cost does not grow with their number. The
 * names of a scan step are copied out first, since the check deletes. */
static void expireReplicaKeys(void) {
    if (!replica_keys || !dictSize(replica_keys)) return;
    monotime start = getMonotonicUs();
    nameBatch b = {0};
    do {
        b.n = 0;
        replica_cursor = dictScan(replica_keys, replica_cursor, batchName, &b);
        for (size_t j = 0; j < b.n; j++) {
            if (replica_keys) checkReplicaKey(b.names[j]);
            sdsfree(b.names[j]);
        }
    } while (replica_keys && replica_cursor && getMonotonicUs() - start < 1000);
    zfree(b.names);
}

static long long expireTimerProc(aeEventLoop *el, long long id, void *clientData) {
    (void)el, (void)id, (void)clientData;
    if (!server.masterhost_set) expireForgetReplicaKeys();
    else if (server.active_expire_enabled && !server.loading && !clientsArePaused()) expireReplicaKeys();
    if (!expiryAllowed()) {
        /* Unpausing (or the end of a load) re-arms the timer. */
        scheduled_when = -1;
        return 1000 / (server.hz ? server.hz : 10);
    }
    if (server.active_expire_enabled) {
        long long budget = backgroundWorkLeftUs();
        /* While the push's backlog drains, half the turn is left to it: a
         * mass expiry must not outrun a live consumer into the backlog's limit. */
        if (backgroundConsumerDraining()) budget /= 2;
        expireDueKeys(budget);
    }
    long long next = earliestDeadline();
    if (next == -1 || !server.active_expire_enabled) {
        scheduled_when = -1;
        return 1000 / (server.hz ? server.hz : 10); /* idle tick; re-armed by expireScheduleAt */
    }
    scheduled_when = next;
    long long due = usUntilDue(next), wait = timerSleepUs(due);
    /* Keys still due while the push feeds a consumer: pause first (the
     * pauses are not shortened by an early wake-up). */
    if (due == 0 && backgroundConsumerFeeding()) wait = BACKGROUND_PAUSE_US;
    if (due == 0 && held) wait = HOLD_RECHECK_US; /* or expireResume(), when the push has drained */
    aeRescheduleTimeEventUs(el, id, wait);
    return AE_RESCHEDULED;
}

void expireResume(void) {
    if (!held) return;
    held = 0;
    if (scheduled_when != -1) aeRescheduleTimeEventUs(server.el, server.expire_timer_id, 0);
}

void expireScheduleAt(long long when) {
    if (scheduled_when != -1 && scheduled_when <= when) return;
    scheduled_when = when;
    aeRescheduleTimeEventUs(server.el, server.expire_timer_id, timerSleepUs(usUntilDue(when)));
}

void expireInit(void) { server.expire_timer_id = aeCreateTimeEvent(server.el, 1, expireTimerProc, NULL); }
