/* keyevents: the classes of key events (the notify-keyspace-events letters)
 * that keyChanged() takes and its subscribers filter on, and the letters'
 * string form the config table reads and shows. */
#ifndef SERVER_KEYEVENTS_H
#define SERVER_KEYEVENTS_H

#include "core/sds.h"

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

/* "KEA"-style strings <-> flags; -1 for an invalid string. */
int keyspaceEventsStringToFlags(const char *classes);
sds keyspaceEventsFlagsToString(int flags);

#endif
