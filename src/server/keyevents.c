/* keyevents: the notify-keyspace-events letters (see keyevents.h). They are
 * config syntax for the key event classes, so they live with the classes in
 * server/, where the config table can read them. */
#include "server/keyevents.h"

int keyspaceEventsStringToFlags(const char *classes) {
    int flags = 0;
    for (const char *p = classes; *p; p++) {
        switch (*p) {
        case 'A': flags |= NOTIFY_ALL; break;
        case 'g': flags |= NOTIFY_GENERIC; break;
        case '$': flags |= NOTIFY_STRING; break;
        case 'l': flags |= NOTIFY_LIST; break;
        case 's': flags |= NOTIFY_SET; break;
        case 'h': flags |= NOTIFY_HASH; break;
        case 'z': flags |= NOTIFY_ZSET; break;
        case 'x': flags |= NOTIFY_EXPIRED; break;
        case 'e': flags |= NOTIFY_EVICTED; break;
        case 'K': flags |= NOTIFY_KEYSPACE; break;
        case 'E': flags |= NOTIFY_KEYEVENT; break;
        case 't': flags |= NOTIFY_STREAM; break;
        case 'm': flags |= NOTIFY_KEY_MISS; break;
        case 'd': flags |= NOTIFY_MODULE; break;
        case 'n': flags |= NOTIFY_NEW; break;
        default: return -1;
        }
    }
    return flags;
}

/* The normalised form CONFIG GET shows, in Redis's letter order. */
sds keyspaceEventsFlagsToString(int flags) {
    sds res = sdsempty();
    if ((flags & NOTIFY_ALL) == NOTIFY_ALL) {
        res = sdscatlen(res, "A", 1);
    } else {
        if (flags & NOTIFY_GENERIC) res = sdscatlen(res, "g", 1);
        if (flags & NOTIFY_STRING) res = sdscatlen(res, "$", 1);
        if (flags & NOTIFY_LIST) res = sdscatlen(res, "l", 1);
        if (flags & NOTIFY_SET) res = sdscatlen(res, "s", 1);
        if (flags & NOTIFY_HASH) res = sdscatlen(res, "h", 1);
        if (flags & NOTIFY_ZSET) res = sdscatlen(res, "z", 1);
        if (flags & NOTIFY_EXPIRED) res = sdscatlen(res, "x", 1);
        if (flags & NOTIFY_EVICTED) res = sdscatlen(res, "e", 1);
        if (flags & NOTIFY_STREAM) res = sdscatlen(res, "t", 1);
        if (flags & NOTIFY_MODULE) res = sdscatlen(res, "d", 1);
        /* As 7.0: 'n' is only shown when the classes are not all set. */
        if (flags & NOTIFY_NEW) res = sdscatlen(res, "n", 1);
    }
    if (flags & NOTIFY_KEYSPACE) res = sdscatlen(res, "K", 1);
    if (flags & NOTIFY_KEYEVENT) res = sdscatlen(res, "E", 1);
    if (flags & NOTIFY_KEY_MISS) res = sdscatlen(res, "m", 1);
    return res;
}
