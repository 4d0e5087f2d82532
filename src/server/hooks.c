/* hooks: the registration points of hooks.h. Subscribers are few and fixed
 * at start-up, so each point is a small array walked in registration order;
 * running one costs a loop over a handful of pointers. */
#include "server/hooks.h"

#include <stdlib.h>

#define MAX_SUBSCRIBERS 8

/* One list of subscribers; registering more than fit is a wiring bug. */
#define HOOK_LIST(name, type)                                                              \
    static type name[MAX_SUBSCRIBERS];                                                      \
    static int name##_count;                                                               \
    static void name##Add(type fn) {                                                       \
        if (name##_count == MAX_SUBSCRIBERS) {                                             \
            serverLog(LL_WARNING, "Too many subscribers to " #name);                       \
            abort();                                                                       \
        }                                                                                  \
        name[name##_count++] = fn;                                                         \
    }

typedef void (*voidFn)(void);
typedef void (*clientFn)(client *c);
typedef void (*cmdFn)(struct redisCommand *cmd);
typedef int (*shutdownFn)(int flags);

HOOK_LIST(call_observers, callObserverFn *)
HOOK_LIST(cron_tasks, voidFn)
HOOK_LIST(before_sleep_tasks, voidFn)
HOOK_LIST(client_teardown, clientFn)
HOOK_LIST(transaction_end, clientFn)
HOOK_LIST(command_prelude, clientFn)
HOOK_LIST(reset_stats, cmdFn)
HOOK_LIST(shutdown_checks, shutdownFn)
HOOK_LIST(shutdown_tasks, voidFn)

void serverAddCallObserver(callObserverFn *fn) { call_observersAdd(fn); }
void serverAddCronTask(void (*fn)(void)) { cron_tasksAdd(fn); }
void serverAddBeforeSleepTask(void (*fn)(void)) { before_sleep_tasksAdd(fn); }
void serverAddClientTeardown(void (*fn)(client *c)) { client_teardownAdd(fn); }
void serverAddTransactionEnd(void (*fn)(client *c)) { transaction_endAdd(fn); }
void serverAddCommandPrelude(void (*fn)(client *c)) { command_preludeAdd(fn); }
void serverAddResetStats(void (*fn)(struct redisCommand *cmd)) { reset_statsAdd(fn); }
void serverAddShutdownCheck(int (*fn)(int flags)) { shutdown_checksAdd(fn); }
void serverAddShutdownTask(void (*fn)(void)) { shutdown_tasksAdd(fn); }

void runCallObservers(const callInfo *ci) {
    for (int i = 0; i < call_observers_count; i++) call_observers[i](ci);
}
void runCronTasks(void) {
    for (int i = 0; i < cron_tasks_count; i++) cron_tasks[i]();
}
void runBeforeSleepTasks(void) {
    for (int i = 0; i < before_sleep_tasks_count; i++) before_sleep_tasks[i]();
}
void runClientTeardown(client *c) {
    for (int i = 0; i < client_teardown_count; i++) client_teardown[i](c);
}
void runTransactionEnd(client *c) {
    for (int i = 0; i < transaction_end_count; i++) transaction_end[i](c);
}
void runCommandPrelude(client *c) {
    for (int i = 0; i < command_prelude_count; i++) command_prelude[i](c);
}
void serverResetCommandStats(struct redisCommand *cmd) {
    for (int i = 0; i < reset_stats_count; i++) reset_stats[i](cmd);
}
int runShutdownChecks(int flags) {
    for (int i = 0; i < shutdown_checks_count; i++)
        if (shutdown_checks[i](flags) != C_OK) return C_ERR;
    return C_OK;
}
void runShutdownTasks(void) {
    for (int i = 0; i < shutdown_tasks_count; i++) shutdown_tasks[i]();
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

static const backgroundPacer *pacer;
void serverSetBackgroundPacer(const backgroundPacer *p) { pacer = p; }
int backgroundConsumerDraining(void) { return pacer && pacer->draining(); }
int backgroundConsumerFeeding(void) {
    /* The pause is for clients' latency: with none served lately it would only slow the push. */
    return pacer && pacer->feeding() && server.stat_numcommands &&
           (long long)(aeTurnStartUs(server.el) - server.command_turn_us) < BACKGROUND_CLIENTS_WINDOW_US;
}

static void (*latency_sampler)(const char *event, long long ms);
void serverSetLatencySampler(void (*fn)(const char *event, long long ms)) { latency_sampler = fn; }
void latencySample(const char *event, long long ms) {
    if (latency_sampler) latency_sampler(event, ms);
}
