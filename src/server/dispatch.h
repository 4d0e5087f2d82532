/* dispatch: the command pipeline (dispatch.c): processCommand's checks, then
 * call(). */
#ifndef SERVER_DISPATCH_H
#define SERVER_DISPATCH_H

#include "server/hooks.h"
#include "server/server.h"

/* Executing commands (the CALL_* flags are server.h's). */
void call(client *c, int flags);
/* A command a script asked for was refused before it ran (unknown, arity, ACL,
 * OOM...): its error counts as that command's (INFO errorstats, its
 * rejected_calls), not as a failure of the script's own command. */
void callRejected(struct redisCommand *cmd, const char *err, size_t len);
int processCommand(client *c);
/* min-replicas-to-write is set and fewer replicas acknowledge in time: writes are refused (-NOREPLICAS). */
int tooFewGoodReplicas(void);
/* A read-only replica refuses writes from anyone but its master (-READONLY). */
int replicaRefusesWritesFrom(client *c);
/* A replica cut off from its master with replica-serve-stale-data no serves
 * only the commands flagged stale (-MASTERDOWN; a script's "stale replica"). */
int replicaIsStaleAndStrict(void);
/* At start-up, after populateCommandTable: the commands that may replicate
 * without being writes (CLIENT PAUSE WRITE holds them too). */
void markMayReplicateCommands(void);
/* processCommand and call, for serverSetDispatcher (hooks.h). */
extern const commandDispatcher dispatchPipeline;

#endif
