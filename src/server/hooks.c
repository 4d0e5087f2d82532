/* hooks: the registration points of hooks.h. Subscribers are few and fixed
 * at start-up: each point is an array (grown as needed) walked in its order,
 * so running one costs a loop over a handful of pointers. */
#include "server/hooks.h"
#include "core/zmalloc.h"

#include <stdlib.h>

typedef struct hookList {
    hookFn *fns;
    int count;
} hookList;

static hookList points[HOOK_POINTS];

static const char *const point_names[HOOK_POINTS] = {
    "call observer", "cron task", "before-sleep task", "client teardown", "transaction end",
    "command prelude", "reset-stats", "shutdown check", "shutdown task", "keyspace subscriber",
};

static void wiringBug(const char *what, const subscription *s) {
    serverLog(LL_WARNING, "Wiring bug: %s %s: %s", point_names[s->point], s->name, what);
    abort();
}

/* Places mine[i] after placing, first, every unplaced entry that must run
 * before it (state: 0 unplaced, 1 being placed, 2 placed). Meeting an entry
 * being placed means a circle. */
static void placeEntry(const subscription **mine, int count, char *state, int i, hookList *l) {
    if (state[i] == 2) return;
    if (state[i] == 1) wiringBug("its order forms a circle", mine[i]);
    state[i] = 1;
    for (int j = 0; j < count; j++)
        if (mine[j]->before == mine[i]->fn) placeEntry(mine, count, state, j, l);
    state[i] = 2;
    l->fns[l->count++] = mine[i]->fn;
    if (mine[i]->point == HOOK_KEYSPACE) subscribeKeyspace((keyspaceSubscriberFn *)mine[i]->fn, mine[i]->interest);
}

/* The subscriptions of one point, in the order they must run: table order,
 * except that an entry whose `before` names another is placed just ahead of
 * it (with whatever must run before itself). */
static void orderPoint(hookPoint point, const subscription *subs, size_t n) {
    const subscription **mine = zmalloc(sizeof(*mine) * (n ? n : 1));
    int count = 0;
    for (size_t i = 0; i < n; i++)
        if (subs[i].point == point) mine[count++] = &subs[i];
    for (int i = 0; i < count; i++) {
        if (!mine[i]->before) continue;
        int found = 0;
        for (int j = 0; j < count; j++) found |= mine[j]->fn == mine[i]->before;
        if (!found) wiringBug("runs before a function that is not subscribed there", mine[i]);
    }
    hookList *l = &points[point];
    l->fns = zrealloc(l->fns, sizeof(hookFn) * (count ? count : 1));
    l->count = 0;
    char *state = zcalloc(count ? count : 1);
    for (int i = 0; i < count; i++) placeEntry(mine, count, state, i, l);
    zfree(state);
    zfree(mine);
}

void serverSubscribe(const subscription *subs, size_t n) {
    for (int p = 0; p < HOOK_POINTS; p++) orderPoint(p, subs, n);
}

const hookFn *hookSubscribers(hookPoint point, int *n) {
    *n = points[point].count;
    return points[point].fns;
}

/* Runs every subscriber of `point` as `type` with `args`. The list is read
 * once (subscribers never change it), so the loop keeps it in registers. */
#define RUN_POINT(point, type, ...)                                                 \
    do {                                                                            \
        hookFn *const fns_ = points[point].fns;                                     \
        const int n_ = points[point].count;                                         \
        for (int i_ = 0; i_ < n_; i_++) ((type)fns_[i_])(__VA_ARGS__);              \
    } while (0)

void runCallObservers(const callInfo *ci) { RUN_POINT(HOOK_CALL_OBSERVER, callObserverFn *, ci); }
void runCronTasks(void) { RUN_POINT(HOOK_CRON, void (*)(void), ); }
void runBeforeSleepTasks(void) { RUN_POINT(HOOK_BEFORE_SLEEP, void (*)(void), ); }
void runClientTeardown(client *c) { RUN_POINT(HOOK_CLIENT_TEARDOWN, void (*)(client *), c); }
void runTransactionEnd(client *c) { RUN_POINT(HOOK_TRANSACTION_END, void (*)(client *), c); }
void runCommandPrelude(client *c) { RUN_POINT(HOOK_COMMAND_PRELUDE, void (*)(client *), c); }
void serverResetCommandStats(struct redisCommand *cmd) { RUN_POINT(HOOK_RESET_STATS, void (*)(struct redisCommand *), cmd); }
void runShutdownTasks(void) { RUN_POINT(HOOK_SHUTDOWN_TASK, void (*)(void), ); }
int runShutdownChecks(int flags) {
    const hookList *l = &points[HOOK_SHUTDOWN_CHECK];
    for (int i = 0; i < l->count; i++)
        if (((int (*)(int))l->fns[i])(flags) != C_OK) return C_ERR;
    return C_OK;
}

/* ------------------------------------------------------ single-owner hooks */

static shutdownReplicaHooks shutdown_replicas;
void serverSetShutdownReplicaHooks(const shutdownReplicaHooks *hooks) { shutdown_replicas = *hooks; }
int shutdownReplicasInSync(void) { return shutdown_replicas.in_sync ? shutdown_replicas.in_sync() : 1; }
void shutdownRequestReplicaAcks(void) {
    if (shutdown_replicas.request_acks) shutdown_replicas.request_acks();
}
void shutdownReportReplicas(void) {
    if (shutdown_replicas.report) shutdown_replicas.report();
}

static void (*forced_exit_cleanup)(void);
void serverSetForcedExitCleanup(void (*fn)(void)) { forced_exit_cleanup = fn; }
void runForcedExitCleanup(void) {
    if (forced_exit_cleanup) forced_exit_cleanup();
}

const commandRouter *command_router;
void serverSetCommandRouter(const commandRouter *r) { command_router = r; }

static robj *(*write_gate)(void);
void serverSetWriteGate(robj *(*fn)(void)) { write_gate = fn; }

static void (*master_stream_sink)(client *master, const char *buf, size_t len);
void serverSetMasterStreamSink(void (*fn)(client *master, const char *buf, size_t len)) { master_stream_sink = fn; }
void masterStreamApplied(client *master, const char *buf, size_t len) {
    if (master_stream_sink) master_stream_sink(master, buf, len);
}
robj *writeGateError(void) { return write_gate ? write_gate() : NULL; }

static const scriptHooks *script_hooks;
void serverSetScriptHooks(const scriptHooks *hooks) { script_hooks = hooks; }
int scriptTimedout(void) { return script_hooks && script_hooks->timedout(); }
uint64_t commandFlags(client *c) {
    return script_hooks ? script_hooks->command_flags(c, c->cmd->flags) : c->cmd->flags;
}

int scriptBlocksCommand(client *c, robj **err) {
    if (!scriptTimedout() || script_hooks->allows_while_busy(c)) return 0;
    *err = script_hooks->busy_error();
    return 1;
}

const commandDispatcher *dispatcher;
void serverSetDispatcher(const commandDispatcher *d) { dispatcher = d; }

static const backgroundPacer *pacer;
void serverSetBackgroundPacer(const backgroundPacer *p) { pacer = p; }
int backgroundConsumerDraining(void) { return pacer && pacer->draining(); }
int backgroundConsumerHolding(void) { return pacer && pacer->holding(); }
void backgroundRunBegin(void) {
    if (pacer) pacer->run_begin();
}
void backgroundRunEnd(void) {
    if (pacer) pacer->run_end();
}
int backgroundClientsServed(void) {
    return server.stat_numcommands &&
           (long long)(aeTurnStartUs(server.el) - server.command_turn_us) < BACKGROUND_CLIENTS_WINDOW_US;
}
int backgroundConsumerFeeding(void) {
    /* The pause is for clients' latency: with none served lately it would only slow the push. */
    return pacer && pacer->feeding() && backgroundClientsServed();
}

static void (*latency_sampler)(const char *event, long long ms);
void serverSetLatencySampler(void (*fn)(const char *event, long long ms)) { latency_sampler = fn; }
void latencySample(const char *event, long long ms) {
    if (latency_sampler) latency_sampler(event, ms);
}
