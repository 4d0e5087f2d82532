/* notify: keyspace notifications (see notify.h). */
#include "features/notify.h"
#include "features/pubsub.h"
#include "server/keyhook.h"
#include "server/server.h"
#include "core/numparse.h"

#include <string.h>

void notifyKeyspaceEvent(int class, const char *event, robj *key, int dbid) {
    int flags = server.notify_keyspace_events;
    /* Cheap exit first: with notifications off this is all a write pays. */
    if (!(flags & class)) return;
    if (!(flags & (NOTIFY_KEYSPACE | NOTIFY_KEYEVENT))) return;
    char dbbuf[24];
    int dblen = ll2string(dbbuf, sizeof(dbbuf), dbid);
    robj *eventobj = createStringObject(event, strlen(event));
    if (flags & NOTIFY_KEYSPACE) {
        robj *keyobj = getDecodedObject(key);
        sds chan = sdsnewlen("__keyspace@", 11);
        chan = sdscatlen(chan, dbbuf, dblen);
        chan = sdscatlen(chan, "__:", 3);
        chan = sdscatsds(chan, objectPtr(keyobj));
        robj *chanobj = createObject(OBJ_STRING, chan);
        pubsubPublishMessage(chanobj, eventobj);
        decrRefCount(chanobj);
        decrRefCount(keyobj);
    }
    if (flags & NOTIFY_KEYEVENT) {
        sds chan = sdsnewlen("__keyevent@", 11);
        chan = sdscatlen(chan, dbbuf, dblen);
        chan = sdscatlen(chan, "__:", 3);
        chan = sdscat(chan, event);
        robj *chanobj = createObject(OBJ_STRING, chan);
        robj *keyobj = getDecodedObject(key);
        pubsubPublishMessage(chanobj, keyobj);
        decrRefCount(keyobj);
        decrRefCount(chanobj);
    }
    decrRefCount(eventobj);
}

int notifyApplyConfig(const char **err) {
    (void)err;
    keyspaceSetInterest(notifyKeyspaceSubscriber, server.notify_keyspace_events);
    return 1;
}

void notifyKeyspaceSubscriber(const keyspaceEvent *ev) {
    if (ev->key && ev->event && ev->db) notifyKeyspaceEvent(ev->class, ev->event, ev->key, ev->db->id);
}
