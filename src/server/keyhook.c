/* keyhook: the key-change fan-out (see keyhook.h). Subscribers are few and
 * fixed at start-up: a write pays a loop over a handful of pointers, and
 * each subscriber returns at once when it has nothing to do (no WATCHers,
 * notifications off). */
#include "server/keyhook.h"

#include <stdlib.h>

#define MAX_KEYSPACE_SUBSCRIBERS 8

static struct {
    keyspaceSubscriberFn *fn;
    int pure_events;
} subscribers[MAX_KEYSPACE_SUBSCRIBERS];
static int nsubscribers;

void subscribeKeyspace(keyspaceSubscriberFn *fn, int pure_events) {
    if (nsubscribers == MAX_KEYSPACE_SUBSCRIBERS) {
        serverLog(LL_WARNING, "Too many keyspace subscribers");
        abort();
    }
    subscribers[nsubscribers].fn = fn;
    subscribers[nsubscribers].pure_events = pure_events;
    nsubscribers++;
}

static void fanOut(const keyspaceEvent *ev) {
    int pure = (ev->class & KEYSPACE_PURE_EVENTS) != 0;
    for (int i = 0; i < nsubscribers; i++)
        if (!pure || subscribers[i].pure_events) subscribers[i].fn(ev);
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
