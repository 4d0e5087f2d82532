/* monitor: streams every executed command to MONITOR clients. */
#ifndef FEATURES_MONITOR_H
#define FEATURES_MONITOR_H

#include "server/server.h"

void monitorFeed(client *c, int dictid, robj **argv, int argc);

#endif
