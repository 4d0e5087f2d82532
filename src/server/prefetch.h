/* prefetch: the keys of a client's pipelined commands are brought into the
 * CPU's cache together, before the commands run (see prefetch.c). */
#ifndef SERVER_PREFETCH_H
#define SERVER_PREFETCH_H

#include "server/server.h"

/* Called before c's next command is parsed when that command starts a part
 * of the query buffer not looked at yet (c->qb_pos >= c->prefetched_to):
 * prefetches the keys of the whole commands there. */
void prefetchQueuedKeys(client *c);

/* At start-up, after the command table: which arguments of the hash, set and
 * sorted-set commands are members looked up in the key's value. */
void prefetchMarkMemberCommands(void);

#endif
