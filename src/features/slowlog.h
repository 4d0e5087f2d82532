/* slowlog: commands slower than slowlog-log-slower-than µs, newest first. */
#ifndef FEATURES_SLOWLOG_H
#define FEATURES_SLOWLOG_H

#include "server/hooks.h"

void slowlogInit(void);
void slowlogPushEntryIfNeeded(client *c, robj **argv, int argc, long long duration);
/* After-call observer: logs the call unless it blocked or skips the slow log. */
void slowlogCallObserver(const callInfo *ci);

#endif
