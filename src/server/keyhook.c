/* keyhook: the key-change fan-out (see keyhook.h). Subscribers are few and
 * fixed at start-up: a write pays a loop over a handful of pointers, and
 * each subscriber returns at once when it has nothing to do (no WATCHers,
 * notifications off). */
#include "server/keyhook.h"

#include <stdlib.h>

#define MAX_KEYSPACE_SUBSCRIBERS 8

/* Two lists: every subscriber gets changes; those that asked for them also
 * get the pure events, so a GET of a missing key visits only those. */
static keyspaceSubscriberFn *subscribers[MAX_KEYSPACE_SUBSCRIBERS], *pure_subscribers[MAX_KEYSPACE_SUBSCRIBERS];
static int nsubscribers, npure_subscribers;

void subscribeKeyspace(keyspaceSubscriberFn *fn, int pure_events) {
    if (nsubscribers == MAX_KEYSPACE_SUBSCRIBERS) {
        serverLog(LL_WARNING, "Too many keyspace subscribers");
        abort();
    }
    subscribers[nsubscribers++] = fn;
    if (pure_events) pure_subscribers[npure_subscribers++] = fn;
}

static void fanOut(const keyspaceEvent *ev) {
    if (ev->class & KEYSPACE_PURE_EVENTS) {
        for (int i = 0; i < npure_subscribers; i++) pure_subscribers[i](ev);
        return;
    }
    for (int i = 0; i < nsubscribers; i++) subscribers[i](ev);
}

void keyChanged(redisDb *db, robj *key, int class, const char *event, long long count) {
    server.dirty += count;
    keyspaceEvent ev = {db, key, class, event, NULL};
    fanOut(&ev);
}

void keyspaceSwapped(redisDb *db1, redisDb *db2) {
    keyspaceEvent ev1 = {db1, NULL, NOTIFY_GENERIC, "swapdb", db2};
    keyspaceEvent ev2 = {db2, NULL, NOTIFY_GENERIC, "swapdb", db1};
    fanOut(&ev1);
    fanOut(&ev2);
}
