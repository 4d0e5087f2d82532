/* monitor: streams every executed command to MONITOR clients. */
#ifndef FEATURES_MONITOR_H
#define FEATURES_MONITOR_H

#include "server/hooks.h"

void monitorFeed(client *c, int dictid, robj **argv, int argc);
/* After-call observer: feeds a command once, when it first runs (so a
 * blocking command shows when it blocks), in the db it left selected; never
 * what the AOF loader or an admin command runs. */
void monitorCallObserver(const callInfo *ci);

#endif
