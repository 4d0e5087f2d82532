/* keyhook: the single key-change hook (see keyhook.h). Commands never call
 * the WATCH code or the notifier directly; they call keyChanged. */
#include "server/keyhook.h"
#include "features/multi.h"
#include "features/notify.h"

void keyEvent(redisDb *db, robj *key, int class, const char *event) {
    notifyKeyspaceEvent(class, event, key, db->id);
}

void keyChanged(redisDb *db, robj *key, int class, const char *event) {
    touchWatchedKey(db, key);
    server.dirty++;
    notifyKeyspaceEvent(class, event, key, db->id);
}

void keyChangedWithoutEvent(redisDb *db, robj *key) {
    touchWatchedKey(db, key);
    server.dirty++;
}

void keyExpired(redisDb *db, robj *key) {
    touchWatchedKey(db, key);
    notifyKeyspaceEvent(NOTIFY_EXPIRED, "expired", key, db->id);
}

void keyEvicted(redisDb *db, robj *key) {
    touchWatchedKey(db, key);
    notifyKeyspaceEvent(NOTIFY_EVICTED, "evicted", key, db->id);
}
