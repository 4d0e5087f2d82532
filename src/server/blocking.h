/* blocking: clients waiting on keys (BLPOP, BZPOPMIN, BLMOVE, ...).
 * A blocked client keeps its command; when one of its keys receives data the
 * command is simply executed again, so every blocking command is written
 * once, as its non-blocking form plus a call to blockForKeys. */
#ifndef SERVER_BLOCKING_H
#define SERVER_BLOCKING_H

#include "server/server.h"

#define UNIT_SECONDS 0
#define UNIT_MILLISECONDS 1

void blockingInit(void);
/* Block c on keys until one is ready or the absolute ms timeout (0 = never).
 * With no keys (WAIT) only the timeout, CLIENT UNBLOCK or a disconnection end it.
 * XREADGROUP then sets c->bpop.unblock_on_nokey: its command also runs again
 * (to fail) when a key is deleted or stops being a stream. */
void blockForKeys(client *c, int btype, robj **keys, int numkeys, long long timeout);
/* CLIENT PAUSE: c's command (still in its argv) waits, unanswered, until
 * unblockPostponedClients; then it is processed again, clients in the order
 * they were held. */
void blockPostponeClient(client *c);
void unblockPostponedClients(void);
/* Blocked clients with a deadline (INFO clients_in_timeout_table). */
unsigned long blockedClientsWithTimeout(void);
/* Remove c from the blocking structures; with reply_timeout, answer as a timeout. */
void unblockClient(client *c, int reply_timeout);
/* A client freed (HOOK_CLIENT_TEARDOWN, first of all): unblocked if it was. */
void blockingClientTeardown(client *c);
/* CLIENT UNBLOCK: 1 if c was blocked on keys and is now unblocked. */
int unblockClientByRequest(client *c, int with_error);
void handleClientsBlockedOnKeys(void);
/* Cluster mode (the command router's redirect_blocked): each client blocked
 * on keys whose slot is no longer served here is answered with its
 * redirection and unblocked. From the server cron, and from the cluster when
 * its slots change. */
void blockingRedirectClients(void);
void processUnblockedClients(void);
/* Parses a timeout (seconds as a float, or ms): absolute ms into *timeout, 0 = forever. */
int getTimeoutFromObjectOrReply(client *c, robj *object, long long *timeout, int unit);
/* True while a blocked command is being re-executed because its key is ready. */
int blockingIsReprocessing(client *c);
/* While c is re-executed: the key whose new data woke it, else NULL. Redis
 * serves a client blocked on several keys from the key that became ready. */
robj *blockingReadyKey(client *c);

#endif
