/* notify: keyspace notifications (notify-keyspace-events). Only the key-change
 * hook calls notifyKeyspaceEvent; it publishes on __keyspace@<db>__:<key>
 * and __keyevent@<db>__:<event> when the class is enabled. */
#ifndef FEATURES_NOTIFY_H
#define FEATURES_NOTIFY_H

#include "data/object.h"

void notifyKeyspaceEvent(int class, const char *event, robj *key, int dbid);
/* "KEA"-style strings ↔ flags; -1 for an invalid string. */
int keyspaceEventsStringToFlags(const char *classes);
sds keyspaceEventsFlagsToString(int flags);

#endif
