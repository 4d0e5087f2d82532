/* keyhook: the key-change fan-out (see keyhook.h). Subscribers are few and
 * fixed at start-up (hooks.c hands them over in their order): a write pays a
 * loop over a handful of interest masks, and only the subscribers that want
 * its class are called. */
#include "server/keyhook.h"
#include "core/zmalloc.h"

typedef struct keyspaceSubscriber {
    keyspaceSubscriberFn *fn;
    int interest;
} keyspaceSubscriber;

static keyspaceSubscriber *subscribers; /* grown by one per subscription */
static int nsubscribers;
static int anyInterest; /* the union of the masks */

void subscribeKeyspace(keyspaceSubscriberFn *fn, int interest) {
    subscribers = zrealloc(subscribers, sizeof(*subscribers) * (nsubscribers + 1));
    subscribers[nsubscribers++] = (keyspaceSubscriber){fn, 0};
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
    keyspaceEvent ev = {db, key, class, event, NULL, NULL};
    fanOut(&ev);
}

void keyRemoving(redisDb *db, robj *key, robj *val, int class, const char *event) {
    if (!(anyInterest & classBit(class))) return;
    keyspaceEvent ev = {db, key, class, event, NULL, val};
    fanOut(&ev);
}

void keyspaceReplaced(redisDb *db, redisDb *other) {
    keyspaceEvent ev = {db, NULL, NOTIFY_GENERIC, "flushdb", other, NULL};
    fanOut(&ev);
}

void keyspaceSwapped(redisDb *db1, redisDb *db2) {
    keyspaceEvent ev1 = {db1, NULL, NOTIFY_GENERIC, "swapdb", db2, NULL};
    keyspaceEvent ev2 = {db2, NULL, NOTIFY_GENERIC, "swapdb", db1, NULL};
    fanOut(&ev1);
    fanOut(&ev2);
}
