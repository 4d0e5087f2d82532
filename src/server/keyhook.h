/* keyhook: every change to the keyspace is reported once, through
 * keyChanged(). It owns the write count (server.dirty, read by save points
 * and by call() to decide what to propagate) and fans the change out to its
 * subscribers: WATCH, keyspace notifications, the expiry push, and
 * client tracking. Commands never call those modules, nor touch the count. */
#ifndef SERVER_KEYHOOK_H
#define SERVER_KEYHOOK_H

#include "server/server.h"
#include "server/keyevents.h"

/* What subscribers receive. */
typedef struct keyspaceEvent {
    redisDb *db;        /* NULL: a change outside the keyspace (FUNCTION LOAD) */
    robj *key;          /* NULL: the whole db ("flushdb", "swapdb"), raised before it happens */
    int class;          /* NOTIFY_* */
    const char *event;  /* "set", "lpush", "expired", ...; NULL: counted, nothing to raise */
    redisDb *other;     /* "swapdb": the db whose data db's is exchanged with */
    robj *val;          /* a key about to be removed (expired, evicted): its value, still in db; else NULL */
} keyspaceEvent;
typedef void keyspaceSubscriberFn(const keyspaceEvent *ev);
/* Subscribers run in the order main.c's table gives them (hooks.h's
 * HOOK_KEYSPACE; subscribeKeyspace is how hooks.c hands each over). Each has an interest: a mask of the event classes it wants now, which its
 * module keeps current with keyspaceSetInterest (no WATCHed key: 0). An event
 * reaches only the subscribers whose mask has its class, and when none wants
 * it a write pays one test. Changes raised with class 0 count as
 * KEYSPACE_UNCLASSED. The pure events "keymiss" and "new" change nothing:
 * KEYSPACE_CHANGES leaves them out. */
#define KEYSPACE_PURE_EVENTS (NOTIFY_KEY_MISS | NOTIFY_NEW)
#define KEYSPACE_UNCLASSED (1 << 30)
#define KEYSPACE_CHANGES (~KEYSPACE_PURE_EVENTS)
void subscribeKeyspace(keyspaceSubscriberFn *fn, int interest);
void keyspaceSetInterest(keyspaceSubscriberFn *fn, int interest);

/* The one entry point. `count` is how many writes the change is worth to
 * save points and propagation (Redis counts SADD of 3 members as 3): 0 for
 * what is raised but not a write — "expired", "evicted", and the pure events
 * "keymiss" and "new", which WATCH ignores. */
void keyChanged(redisDb *db, robj *key, int class, const char *event, long long count);
/* The same for a key about to be removed (expiry, eviction: not a write),
 * with its value: a subscriber reading it (the expiry push) need not look
 * the key up again. */
void keyRemoving(redisDb *db, robj *key, robj *val, int class, const char *event);
/* SWAPDB: raised for both dbs before their data is exchanged. */
void keyspaceSwapped(redisDb *db1, redisDb *db2);
/* db's data is replaced outside any command (a full sync, DEBUG RELOAD): a
 * flush to WATCH and tracking; other, when not NULL, holds the data on the
 * other side of the replacement. Raised while db still holds its old data. */
void keyspaceReplaced(redisDb *db, redisDb *other);

#endif
