/* keyhook: the one function every write reports a key change through.
 * It invalidates WATCHers, counts the change for save points and raises the
 * keyspace notification; later consumers (client tracking) attach here. */
#ifndef SERVER_KEYHOOK_H
#define SERVER_KEYHOOK_H

#include "server/server.h"

/* Event classes (notify-keyspace-events letters). */
#define NOTIFY_KEYSPACE (1 << 0)  /* K */
#define NOTIFY_KEYEVENT (1 << 1)  /* E */
#define NOTIFY_GENERIC (1 << 2)   /* g */
#define NOTIFY_STRING (1 << 3)    /* $ */
#define NOTIFY_LIST (1 << 4)      /* l */
#define NOTIFY_SET (1 << 5)       /* s */
#define NOTIFY_HASH (1 << 6)      /* h */
#define NOTIFY_ZSET (1 << 7)      /* z */
#define NOTIFY_EXPIRED (1 << 8)   /* x */
#define NOTIFY_EVICTED (1 << 9)   /* e */
#define NOTIFY_STREAM (1 << 10)   /* t */
#define NOTIFY_KEY_MISS (1 << 11) /* m */
#define NOTIFY_LOADED (1 << 12)   /* module only */
#define NOTIFY_MODULE (1 << 13)   /* d */
#define NOTIFY_NEW (1 << 14)      /* n */
#define NOTIFY_ALL (NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET | \
                    NOTIFY_EXPIRED | NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE) /* A */

/* A key's value changed (or the key was created/removed): `class` is one of the
 * NOTIFY_ type classes and `event` the event name ("set", "lpush", "del", ...).
 * Counts one change for save points. */
void keyChanged(redisDb *db, robj *key, int class, const char *event);
/* A value's bytes changed without a logical change (PFCOUNT storing its
 * cached cardinality): WATCHers see it and it counts as a write (so it is
 * propagated), but no event is raised. */
void keyChangedWithoutEvent(redisDb *db, robj *key);
/* A key left by expiry: WATCHers see a change and `expired` is raised, but it
 * is not counted as a write for save points (as in Redis). */
void keyExpired(redisDb *db, robj *key);
/* Same, but only the notification: for events that are not modifications
 * (keymiss, new) or where the change was already signalled. */
void keyEvent(redisDb *db, robj *key, int class, const char *event);
/* A key left by eviction (maxmemory): as keyExpired, raising `evicted`. */
void keyEvicted(redisDb *db, robj *key);

#endif
