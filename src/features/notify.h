/* notify: keyspace notifications (notify-keyspace-events). Only the key-change
 * hook calls notifyKeyspaceEvent; it publishes on __keyspace@<db>__:<key>
 * and __keyevent@<db>__:<event> when the class is enabled. */
#ifndef FEATURES_NOTIFY_H
#define FEATURES_NOTIFY_H

#include "server/keyhook.h"

void notifyKeyspaceEvent(int class, const char *event, robj *key, int dbid);
/* Subscribed to the key-change hook: publishes events about one key. */
void notifyKeyspaceSubscriber(const keyspaceEvent *ev);
/* Config apply hook of notify-keyspace-events: the subscriber wants the classes it names. */
int notifyApplyConfig(const char **err);

#endif
