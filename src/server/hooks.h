/* hooks: the registration points server/ offers the rooms above it (acl,
 * persist, repl, features, commands). server/ never includes their headers;
 * where it must let them act, they are subscribed here at start-up, all of
 * them from main.c's one table. Two kinds: points with any number of
 * subscribers (serverSubscribe; the key-change fan-out of keyhook.h is one of
 * them) and points with one owner (serverSet*: the write gate, the script
 * runner, ...). The command stream (propagate.h) and the config directives'
 * apply hooks (config.h) are single-owner points kept with their code. */
#ifndef SERVER_HOOKS_H
#define SERVER_HOOKS_H

#include "server/keyhook.h"
#include "server/server.h"

/* ------------------------------------------------------------ subscriptions */

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

/* The points that take any number of subscribers, and each one's type. */
typedef enum hookPoint {
    HOOK_CALL_OBSERVER,   /* callObserverFn: after every call (slowlog, stats, MONITOR) */
    HOOK_CRON,            /* void (void): the server cron (hz a second), after the server's own work */
    HOOK_BEFORE_SLEEP,    /* void (void): before the loop sleeps, after blocked clients were
                           * served and before replies are written (the AOF before clients hear OK) */
    HOOK_CLIENT_TEARDOWN, /* void (client *): a client is freed, before its state goes */
    HOOK_TRANSACTION_END, /* void (client *): EXEC, DISCARD or an aborted EXEC ended a transaction */
    HOOK_COMMAND_PRELUDE, /* void (client *): a command passed the checks, before it runs or is queued */
    HOOK_RESET_STATS,     /* void (struct redisCommand *): CONFIG RESETSTAT, per command */
    HOOK_SHUTDOWN_CHECK,  /* int (int flags): first on shutdown; C_ERR refuses it (unless forced) */
    HOOK_SHUTDOWN_TASK,   /* void (void): last, once the server stopped listening */
    HOOK_KEYSPACE,        /* keyspaceSubscriberFn (keyhook.h), `interest` its first mask */
    HOOK_POINTS
} hookPoint;

/* Any subscriber, stored as this and called as its point's type. */
typedef void (*hookFn)(void);

/* One subscription. Subscribers of a point run in the order of the table
 * given to serverSubscribe, except where `before` names another subscriber
 * of the same point that this one must precede: it is placed just ahead of
 * that one. The order that matters is data, checked at start-up, not a
 * position in a list. */
typedef struct subscription {
    hookPoint point;
    hookFn fn;
    const char *name;
    hookFn before;   /* NULL, or a subscriber this one runs before */
    int interest;    /* HOOK_KEYSPACE: the event classes it wants at first */
} subscription;

/* Typed subscriptions: a function of the wrong type for its point does not
 * compile. Use as {ON_CRON(fn)} or {ON_CRON(fn), .before = RUNS_BEFORE(other)}. */
#define HOOK_TYPED_(p, type, f) .point = (p), .fn = (hookFn)(1 ? (f) : (type)0), .name = #f
#define ON_CALL(f) HOOK_TYPED_(HOOK_CALL_OBSERVER, callObserverFn *, f)
#define ON_CRON(f) HOOK_TYPED_(HOOK_CRON, void (*)(void), f)
#define ON_BEFORE_SLEEP(f) HOOK_TYPED_(HOOK_BEFORE_SLEEP, void (*)(void), f)
#define ON_CLIENT_TEARDOWN(f) HOOK_TYPED_(HOOK_CLIENT_TEARDOWN, void (*)(client *), f)
#define ON_TRANSACTION_END(f) HOOK_TYPED_(HOOK_TRANSACTION_END, void (*)(client *), f)
#define ON_COMMAND_PRELUDE(f) HOOK_TYPED_(HOOK_COMMAND_PRELUDE, void (*)(client *), f)
#define ON_RESET_STATS(f) HOOK_TYPED_(HOOK_RESET_STATS, void (*)(struct redisCommand *), f)
#define ON_SHUTDOWN_CHECK(f) HOOK_TYPED_(HOOK_SHUTDOWN_CHECK, int (*)(int), f)
#define ON_SHUTDOWN_TASK(f) HOOK_TYPED_(HOOK_SHUTDOWN_TASK, void (*)(void), f)
#define ON_KEYSPACE(f) HOOK_TYPED_(HOOK_KEYSPACE, keyspaceSubscriberFn *, f)
#define RUNS_BEFORE(f) ((hookFn)(f))

/* Takes every subscription at start-up (main.c's table). A `before` that
 * names no subscriber of its point, or orders that form a circle, is a
 * wiring bug: logged, and the server aborts. Lists grow as needed. A later
 * call (the unit tests make them) replaces each point's list, except that
 * HOOK_KEYSPACE subscribers are handed on to keyhook.h, which only adds. */
void serverSubscribe(const subscription *subs, size_t n);
/* The subscribers of a point in the order they run (for tests and DEBUG):
 * *n of them; the array stays valid until the next serverSubscribe. */
const hookFn *hookSubscribers(hookPoint point, int *n);

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

/* Cluster mode's command router (cluster/): 1 when it answered c's command
 * with a redirection or an error (MOVED, ASK, CROSSSLOT, CLUSTERDOWN...)
 * instead of letting it run here; processCommand asks after the ACL check,
 * as Redis 7.0. A blocked client whose keys' slot is no longer served here is
 * redirected the same way (1: answered; the caller unblocks it). */
typedef struct commandRouter {
    int (*route)(client *c);
    int (*redirect_blocked)(client *c);
    /* The bus's connections, which count against maxclients as in 7.0. */
    unsigned long (*bus_connections)(void);
} commandRouter;
void serverSetCommandRouter(const commandRouter *r);
extern const commandRouter *command_router;

/* The command pipeline (dispatch.c) as the layers below it reach it: the
 * input path hands each parsed command to process (processCommand), and
 * blocking runs a served client's command again with call. */
typedef struct commandDispatcher {
    int (*process)(client *c);
    void (*call)(client *c, int flags);
} commandDispatcher;
void serverSetDispatcher(const commandDispatcher *d);
extern const commandDispatcher *dispatcher;
static inline int dispatchProcess(client *c) { return dispatcher->process(c); }
static inline void dispatchCall(client *c, int flags) { dispatcher->call(c, flags); }

/* Pacing of background work feeding a consumer (the 0MQ expiry push): expiry
 * gives way while `draining`, pauses between slices while `feeding` and
 * clients are being served (backgroundConsumerFeeding() says both), and
 * stops while `holding`: a consumer is reading and 0MQ's queue is full, so a
 * key expired now would only be copied into the backlog and the spool; it
 * waits in the dataset instead until the push calls expireResume(). */
typedef struct backgroundPacer {
    int (*draining)(void);
    int (*feeding)(void);
    int (*holding)(void);
    /* A run of removals (one expiry slice) begins and ends: in between, the
     * consumer may gather what the removals give it and hand it on in
     * batches, the last one at the end; outside a run it hands on at once. */
    void (*run_begin)(void);
    void (*run_end)(void);
} backgroundPacer;
void serverSetBackgroundPacer(const backgroundPacer *p);
int backgroundConsumerDraining(void);
int backgroundConsumerFeeding(void);
/* A command ran within BACKGROUND_CLIENTS_WINDOW_US: clients are being served. */
int backgroundClientsServed(void);
int backgroundConsumerHolding(void);
void backgroundRunBegin(void);
void backgroundRunEnd(void);

/* Something other than a command took `ms` milliseconds ("expire-cycle"):
 * the latency monitor subscribes. */
void serverSetLatencySampler(void (*fn)(const char *event, long long ms));
void latencySample(const char *event, long long ms);

/* CONFIG RESETSTAT: the HOOK_RESET_STATS subscribers drop what they keep of cmd. */
void serverResetCommandStats(struct redisCommand *cmd);

/* ---------------------------------------------------------------- shutdown */

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
