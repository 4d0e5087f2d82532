/* hooks: the registration points server/ offers the modules above it
 * (commands, features, persist, later repl). server/ never includes their
 * headers; where it must let them act, they subscribe here at start-up and
 * main.c does the wiring. The key-change fan-out (keyhook.h) and the command
 * stream (propagate.h) are registration points of the same kind, kept with
 * the code they belong to. */
#ifndef SERVER_HOOKS_H
#define SERVER_HOOKS_H

#include "server/server.h"

/* ------------------------------------------------------- after-call observers */

/* What call() knows once a command returned. argv is the vector as the client
 * sent it (secrets redacted); blocked: the command blocked during this call
 * (its stats come when it is served); reprocessing: a blocked command running
 * again once served. */
typedef struct callInfo {
    client *c;
    struct redisCommand *cmd;
    robj **argv;
    int argc;
    long long duration_us;
    int call_flags; /* CALL_* */
    int blocked, reprocessing;
} callInfo;
typedef void callObserverFn(const callInfo *ci);
/* Observers (slowlog, latency, MONITOR) run after every call, in registration order. */
void serverAddCallObserver(callObserverFn *fn);

/* ------------------------------------------------------------ periodic work */

/* Runs from the server cron (hz times a second), after the server's own work. */
void serverAddCronTask(void (*fn)(void));
/* Runs before the event loop sleeps, after blocked clients were served and
 * before replies are written (the AOF is written before clients hear OK). */
void serverAddBeforeSleepTask(void (*fn)(void));

/* ----------------------------------------------------------------- clients */

/* Runs when a client is freed (and on RESET), before its state is released. */
void serverAddClientTeardown(void (*fn)(client *c));
/* Runs for every command that passed the checks, before it is run or
 * queued (client-side caching keeps its table within its limit there). */
void serverAddCommandPrelude(void (*fn)(client *c));
/* Runs when a client's transaction ends (EXEC, DISCARD, an aborted EXEC). */
void serverAddTransactionEnd(void (*fn)(client *c));

/* ------------------------------------------------------------- the pipeline */

/* The master's stream (replica side): after each command the master client
 * ran outside a transaction (or each whole transaction), the bytes it came in,
 * so that repl counts its offset and feeds our own replicas. */
void serverSetMasterStreamSink(void (*fn)(client *master, const char *buf, size_t len));
void masterStreamApplied(client *master, const char *buf, size_t len);

/* A module that may refuse writes (persist: stop-writes-on-bgsave-error)
 * returns the error to refuse them with, or NULL. */
void serverSetWriteGate(robj *(*fn)(void));

/* What the pipeline asks the script runner. Unset means no script ever runs. */
typedef struct scriptHooks {
    int (*timedout)(void);              /* past busy-reply-threshold: others get -BUSY */
    int (*allows_while_busy)(client *c); /* commands still served meanwhile */
    robj *(*busy_error)(void);          /* the -BUSY text naming SCRIPT/FUNCTION KILL */
    /* EVAL/FCALL of code declaring flags: the command's flags as it declares them. */
    uint64_t (*command_flags)(client *c, uint64_t flags);
} scriptHooks;
void serverSetScriptHooks(const scriptHooks *hooks);
int scriptTimedout(void);
/* c's command's flags, as the script or function it runs declares them. */
uint64_t commandFlags(client *c);

/* Pacing of background work feeding a consumer (the 0MQ expiry push): expiry
 * gives way while `draining`, and pauses between slices while `feeding` and
 * clients are being served (backgroundConsumerFeeding() says both). */
typedef struct backgroundPacer {
    int (*draining)(void);
    int (*feeding)(void);
} backgroundPacer;
void serverSetBackgroundPacer(const backgroundPacer *p);
int backgroundConsumerDraining(void);
int backgroundConsumerFeeding(void);

/* Something other than a command took `ms` milliseconds ("expire-cycle"):
 * the latency monitor subscribes. */
void serverSetLatencySampler(void (*fn)(const char *event, long long ms));
void latencySample(const char *event, long long ms);

/* CONFIG RESETSTAT: modules drop the statistics they keep per command. */
void serverAddResetStats(void (*fn)(struct redisCommand *cmd));
void serverResetCommandStats(struct redisCommand *cmd);

/* ---------------------------------------------------------------- shutdown */

/* Runs first on shutdown; C_ERR refuses it (unless forced). */
void serverAddShutdownCheck(int (*fn)(int flags));
/* Runs last, once the server stopped listening. */
void serverAddShutdownTask(void (*fn)(void));
/* Replication's part in a shutdown (repl/ sets it): whether every replica
 * acknowledged the whole stream; asking them to; and, once the wait is over,
 * logging each lagging replica and how many are in sync. */
typedef struct shutdownReplicaHooks {
    int (*in_sync)(void);
    void (*request_acks)(void);
    void (*report)(void);
} shutdownReplicaHooks;
void serverSetShutdownReplicaHooks(const shutdownReplicaHooks *hooks);
int shutdownReplicasInSync(void);
void shutdownRequestReplicaAcks(void);
void shutdownReportReplicas(void);
/* A second SIGINT exits from the signal handler at once: fn removes what must
 * not stay behind (persist: the temp RDB file being written). It runs in the
 * handler, so it must be async-signal-safe. */
void serverSetForcedExitCleanup(void (*fn)(void));
void runForcedExitCleanup(void);

/* The server's own side of the hooks (server.c, networking.c, ...). */
void runCallObservers(const callInfo *ci);
void runCronTasks(void);
void runBeforeSleepTasks(void);
void runClientTeardown(client *c);
void runTransactionEnd(client *c);
void runCommandPrelude(client *c);
robj *writeGateError(void);
int runShutdownChecks(int flags);
void runShutdownTasks(void);
/* The busy script's checks for processCommand. */
int scriptBlocksCommand(client *c, robj **err);

#endif
