/* propagate: the command stream — what was executed, in replayable form.
 * call() feeds each command that changed data (as its argv stands when it
 * returns); expiry and eviction feed DEL; MULTI/EXEC and scripts are wrapped
 * so they replay as one unit. Subscribers (the AOF; replication) read
 * the stream. A command whose replay must differ from what the client sent
 * (relative TTLs, SPOP, INCRBYFLOAT, generated stream IDs) rewrites its own
 * argv (client.h) or uses alsoPropagate(); nothing is re-parsed here. */
#ifndef SERVER_PROPAGATE_H
#define SERVER_PROPAGATE_H

#include "server/server.h"

typedef void commandStreamFn(int dbid, robj **argv, int argc);
/* A subscriber reads every command from now on (the AOF while appendonly is on). */
void propagateSubscribe(commandStreamFn *fn);
void propagateUnsubscribe(commandStreamFn *fn);

/* Where the writes fed from now on go: the replication stream (the replica
 * feed below), every other subscriber (the AOF), both or neither — a
 * script's redis.set_repl(). MULTI/EXEC frames and expired keys' DELs go to
 * both. Returns the targets set before. */
#define PROPAGATE_NONE 0
#define PROPAGATE_AOF (1 << 0)
#define PROPAGATE_REPL (1 << 1)
#define PROPAGATE_ALL (PROPAGATE_AOF | PROPAGATE_REPL)
int propagateSetTargets(int targets);

/* call(), just before propagateTransactionEnd: the command c ran changed
 * data (unless it prevented its propagation); its unit's last write. */
void propagateCommand(int dbid, robj **argv, int argc);
/* The same when argv is exactly what the client sent and wire holds its RESP
 * bytes as sent: a subscriber framing this argv copies them instead. */
void propagateCommandAsSent(int dbid, robj **argv, int argc, const char *wire, size_t wirelen);
/* The same for a command that goes to replicas alone, not the AOF (PUBLISH,
 * which marks its call with forceReplicaPropagation). */
void propagateCommandToReplicas(int dbid, robj **argv, int argc);
void forceReplicaPropagation(client *c);
/* During a command: argv (borrowed) is part of its replay, ahead of the
 * command's own argv. Nothing goes out while the AOF is loaded. */
void alsoPropagate(client *c, robj **argv, int argc);
/* The command's own argv is not replayed (its alsoPropagate calls say it all). */
void preventCommandPropagation(client *c);
void propagateDeletion(redisDb *db, robj *key);
void propagateTransactionStart(int dbid);
void propagateTransactionEnd(int dbid);
/* Whether anything reads the stream or a unit is open: with neither, call()
 * skips the three calls above (one test per command instead). */
int propagateActive(void);
/* A subscriber's wire form: the command in RESP, preceded by SELECT when dbid
 * is not *selected (then updated), as Redis writes its AOF and replication stream. */
sds catReplayableCommand(sds buf, int *selected, int dbid, robj **argv, int argc);
/* The RESP bytes argv was sent as, when it goes out as sent
 * (propagateCommandAsSent) and is not a held copy; else NULL. */
const char *propagateSentForm(robj **argv, size_t *len);
/* A subscriber may hold what it was fed for a moment (the replica feed
 * gathers a pipeline's writes into one feed): it says so with
 * propagateMarkStaged() and registers how to hand it on. The server hands it
 * on before anything can look at the stream: before a command that does not
 * write, a fork, the cron, and the writes to replicas and the AOF before the
 * event loop sleeps. */
void propagateSetStagedFlush(void (*flush)(void));
extern int propagate_staged;
static inline void propagateMarkStaged(void) { propagate_staged = 1; }
void propagateFlushStagedNow(void);
static inline void propagateFlushStaged(void) {
    if (propagate_staged) propagateFlushStagedNow();
}
/* The replication stream alone, not the AOF (DEBUG REPLICATE): repl/ registers its feed. */
void propagateSetReplicaFeed(commandStreamFn *fn);
void propagateToReplicas(int dbid, robj **argv, int argc);

#endif
