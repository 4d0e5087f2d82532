/* pause: CLIENT PAUSE. While a pause lasts, processCommand postpones the
 * commands it covers (every command, or those that may write) and expiry and
 * eviction leave the dataset as it is; when it ends, the held clients run
 * again in the order they were held. */
#ifndef SERVER_PAUSE_H
#define SERVER_PAUSE_H

#include "server/server.h"

#define PAUSE_WRITE 1
#define PAUSE_ALL 2

/* Who paused: each holds its own pause, and ending one leaves the others. */
#define PAUSE_BY_CLIENT_COMMAND 0 /* CLIENT PAUSE */
#define PAUSE_DURING_SHUTDOWN 1   /* writes wait while a shutdown waits for replicas */
#define PAUSE_DURING_FAILOVER 2   /* writes wait until FAILOVER switches roles or ends */
#define PAUSE_PURPOSES 3

/* Starts or renews a pause until end_ms (absolute). As in Redis 7.0.15 a
 * renewal never lessens it: ALL stays ALL until the end, and the end only
 * ever moves later. */
void pauseClients(int type, long long end_ms);
void unpauseClients(void);
/* The same for another purpose than CLIENT PAUSE. */
void pauseClientsFor(int purpose, int type, long long end_ms);
void unpauseClientsFor(int purpose);
/* c's command (already looked up) must wait for the pause to end. */
int pauseHoldsCommand(client *c);

#endif
