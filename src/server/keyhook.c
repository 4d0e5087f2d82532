/* keyhook: the key-change fan-out (see keyhook.h). Subscribers are few and
 * fixed at start-up: a write pays a loop over a handful of interest masks,
 * and only the subscribers that want its class are called. */
#include "server/keyhook.h"

#include <stdlib.h>

#define MAX_KEYSPACE_SUBSCRIBERS 8

static struct {
    keyspaceSubscriberFn *fn;
    int interest;
} subscribers[MAX_KEYSPACE_SUBSCRIBERS];
static int nsubscribers;
static int anyInterest; /* the union of the masks */

void subscribeKeyspace(keyspaceSubscriberFn *fn, int interest) {
    if (nsubscribers == MAX_KEYSPACE_SUBSCRIBERS) {
        serverLog(LL_WARNING, "Too many keyspace subscribers");
        abort();
    }
    subscribers[nsubscribers++].fn = fn;
    keyspaceSetInterest(fn, interest);
}

void keyspaceSetInterest(keyspaceSubscriberFn *fn, int interest) {
    anyInterest = 0;
    for (int i = 0; i < nsubscribers; i++) {
        if (subscribers[i].fn == fn) subscribers[i].interest = interest;
        anyInterest |= subscribers[i].interest;
    }
}

static inline int classBit(int class) { return class ? class : KEYSPACE_UNCLASSED; }

static void fanOut(const keyspaceEvent *ev) {
    int class = classBit(ev->class);
    for (int i = 0; i < nsubscribers; i++)
        if (subscribers[i].interest & class) subscribers[i].fn(ev);
}

void keyChanged(redisDb *db, robj *key, int class, const char *event, long long count) {
    server.dirty += count;
    if (!(anyInterest & classBit(class))) return;
    keyspaceEvent ev = {db, key, class, event, NULL};
    fanOut(&ev);
}

void keyspaceReplaced(redisDb *db, redisDb *other) {
    keyspaceEvent ev = {db, NULL, NOTIFY_GENERIC, "flushdb", other};
    fanOut(&ev);
}

void keyspaceSwapped(redisDb *db1, redisDb *db2) {
    keyspaceEvent ev1 = {db1, NULL, NOTIFY_GENERIC, "swapdb", db2};
    keyspaceEvent ev2 = {db2, NULL, NOTIFY_GENERIC, "swapdb", db1};
    fanOut(&ev1);
    fanOut(&ev2);
}
