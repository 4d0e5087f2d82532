/* expire: removing keys whose TTL ended. One function removes a key by
 * expiry (push, notification, propagation, free); a timer armed at the
 * earliest deadline removes due keys in deadline order within a time budget. */
#ifndef SERVER_EXPIRE_H
#define SERVER_EXPIRE_H

#include "server/server.h"

/* The one way a key leaves by expiry. */
void deleteExpiredKey(redisDb *db, robj *key);
/* The one way a key leaves by eviction (maxmemory): raises `evicted`, DEL to
 * the AOF, frees it, counts evicted_keys. Returns the bytes freed. */
long long deleteEvictedKey(redisDb *db, robj *key);
/* A deadline was set: make sure the timer fires no later than `when` (ms). */
void expireScheduleAt(long long when);
/* Starts the expiry timer; called once at start-up. */
void expireInit(void);
/* Removes due keys for at most budget_us; returns how many. */
long long expireDueKeys(long long budget_us);

#endif
