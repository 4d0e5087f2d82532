/* expire: removing keys whose TTL ended. One function removes a key by
 * expiry (the key-change hook raises `expired`, which the expiry push and
 * notifications subscribe to; DEL is propagated; the key is freed); a timer
 * armed at the earliest deadline removes due keys in deadline order within a
 * time budget. */
#ifndef SERVER_EXPIRE_H
#define SERVER_EXPIRE_H

#include "server/server.h"

/* The one way a key leaves by expiry. */
void deleteExpiredKey(redisDb *db, robj *key);
/* Expiry and eviction (evict.c) remove a key alike: `event` is raised
 * through keyChanged (not counted as a write, as in Redis), DEL is
 * propagated, then the key is freed. Returns the bytes the free gave back,
 * which eviction counts against its target (memory the notification or the
 * AOF buffer takes is not the key's, nor a value left to the lazyfree
 * thread). val is key's entry in db (its keyspace object); `how` is how it
 * is freed (DB_FREE_*: lazily under lazyfree-lazy-expire / -eviction). The
 * delete's own time is a latency sample, "expire-del" or "eviction-del". */
long long removeKeyWithEvent(redisDb *db, robj *key, robj *val, int class, const char *event, int how);
/* A deadline was set: make sure the timer fires no later than `when` (ms). */
void expireScheduleAt(long long when);
/* A writable replica's own client gave key a TTL: the replica removes it when due. */
void expireRememberReplicaKey(redisDb *db, robj *key);
/* Drops every remembered name: the whole dataset went, or a new one came. */
void expireForgetReplicaKeys(void);
/* How many names are remembered (INFO's slave_expires_tracked_keys). */
size_t expireReplicaKeyCount(void);
/* The push that held expiry (hooks.h, backgroundPacer's holding) drained
 * its backlog: due keys are removed again from the next timer run. */
void expireResume(void);
/* Starts the expiry timer; called once at start-up. */
void expireInit(void);
/* Removes due keys for at most budget_us; returns how many. */
long long expireDueKeys(long long budget_us);
/* How late expireDueKeys removed keys (now - deadline, µs; INFO's
 * expired_lateness_*), and CONFIG RESETSTAT's reset of it. */
const struct latencyHistogram *expireLateness(void);
void expireResetLateness(void);

#endif
