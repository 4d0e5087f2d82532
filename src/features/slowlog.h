/* slowlog: commands slower than slowlog-log-slower-than µs, newest first. */
#ifndef FEATURES_SLOWLOG_H
#define FEATURES_SLOWLOG_H

#include "server/server.h"

void slowlogInit(void);
void slowlogPushEntryIfNeeded(client *c, robj **argv, int argc, long long duration);

#endif
