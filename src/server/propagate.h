/* propagate: what reaches the AOF (and, later, replicas). Commands that
 * changed data are fed here after they run; expiry feeds DEL; MULTI/EXEC and
 * scripts are wrapped so they replay as one unit. */
#ifndef SERVER_PROPAGATE_H
#define SERVER_PROPAGATE_H

#include "server/server.h"

void propagateCommand(int dbid, robj **argv, int argc);
void propagateDeletion(redisDb *db, robj *key);
void propagateTransactionStart(int dbid);
void propagateTransactionEnd(int dbid);
/* Install the AOF writer; NULL while appendonly is off. */
void propagateSetSink(void (*sink)(int dbid, robj **argv, int argc));

#endif
