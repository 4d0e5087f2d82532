/* main: start-up. The one place that knows every module: it wires the
 * modules above server/ (commands, features, persist) into the registration
 * points server/ offers, so that dependencies point one way
 * (core <- data <- server <- {commands, features, persist, repl} <- main). */
#include "server/client.h"
#include "server/config.h"
#include "server/crash.h"
#include "server/evict.h"
#include "server/hooks.h"
#include "server/keyhook.h"
#include "server/propagate.h"
#include "server/server.h"
#include "server/prefetch.h"
#include "core/proctitle.h"
#include "core/zmalloc.h"
#include "acl/acl.h"
#include "commands/table.h"
#include "features/expiry_push.h"
#include "features/expiry_spool.h"
#include "features/info.h"
#include "features/ldb.h"
#include "features/latency.h"
#include "features/monitor.h"
#include "features/multi.h"
#include "features/notify.h"
#include "features/pubsub.h"
#include "features/scripting.h"
#include "features/slowlog.h"
#include "features/tracking.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "repl/repl.h"

#include <locale.h>
#include <stdlib.h>

static const scriptHooks scriptingHooks = {
    .timedout = scriptIsTimedout,
    .allows_while_busy = scriptAllowsWhileBusy,
    .busy_error = scriptBusyError,
    .command_flags = scriptingCommandFlags,
};

static const backgroundPacer expiryPushPacer = {
    .draining = expiryPushDraining,
    .feeding = expiryPushFeeding,
};

/* The crash report's INFO OUTPUT: every section, as Redis 7.0 writes it. */
static sds crashInfo(void) {
    const char *all[] = {"all"};
    return genInfoString(1, all);
}

/* Before the config is read: the directives other modules own, and every
 * subscription (order matters where noted). */
static void wireModules(void) {
    configSetApplyHook("appendonly", aofApplyConfig);
    configSetApplyHook("aof-disable-auto-gc", aofApplyAutoGc);
    configSetApplyHook("zmq-expiry-endpoint", expiryPushApplyHook);
    configSetApplyHook("zmq-expiry-hwm", expiryPushApplyHook);
    configSetApplyHook("zmq-expiry-backlog", expiryPushApplyHook);
    configSetSpecialHandlers("latency-tracking-info-percentiles", latencySetInfoPercentiles,
                             latencyGetInfoPercentiles);

    /* A key leaving by expiry is pushed before the event is published. */
    subscribeKeyspace(expiryPushKeyspaceSubscriber, NOTIFY_EXPIRED);
    subscribeKeyspace(multiKeyspaceSubscriber, 0);                   /* until a key is WATCHed */
    subscribeKeyspace(notifyKeyspaceSubscriber, 0);                  /* until notify-keyspace-events is set */
    subscribeKeyspace(trackingKeyspaceSubscriber, 0);                /* until tracking is first used */
    configSetApplyHook("notify-keyspace-events", notifyApplyConfig);

    /* As Redis: the slow log, then command stats, then MONITOR. */
    serverAddCallObserver(slowlogCallObserver);
    serverAddCallObserver(latencyCallObserver);
    serverAddCallObserver(monitorCallObserver);
    serverAddCallObserver(trackingCallObserver);
    serverAddCallObserver(spoolMasterRecordObserver); /* a replica's copy of the push's log */
    serverAddCommandPrelude(trackingCommandPrelude);
    serverAddResetStats(latencyForgetCommandHistogram);
    serverSetLatencySampler(latencyAddSampleIfNeeded);

    serverAddCronTask(infoCron);
    serverAddCronTask(spoolCron); /* the spool is written before the AOF, in the cron as before sleeping */
    serverAddCronTask(persistCron);
    serverAddCronTask(ldbCron);
    serverAddCronTask(trackingCron);
    serverAddCronTask(expiryPushCron);
    serverAddBeforeSleepTask(trackingBeforeSleep);
    serverAddBeforeSleepTask(spoolBeforeSleep); /* an expired key's message before its DEL reaches the AOF */
    serverAddBeforeSleepTask(persistBeforeSleep);

    serverAddClientTeardown(pubsubClientTeardown);
    serverAddClientTeardown(trackingClientTeardown);
    serverAddTransactionEnd(unwatchAllKeys);

    crashSetInfoGenerator(crashInfo);
    serverSetWriteGate(persistWriteGate);
    evictSetAofBufferProbe(aofBufferMemory); /* not counted for maxmemory, as Redis 7.0 */
    serverSetScriptHooks(&scriptingHooks);
    serverSetBackgroundPacer(&expiryPushPacer);
    replInit();

    /* Snapshots and the AOF are saved before the push hands over its backlog. */
    serverAddShutdownCheck(replOnShutdown); /* before the final save: no child may rename over it */
    serverAddShutdownCheck(spoolOnShutdown); /* the push's spool before the final AOF flush, as every turn */
    serverAddShutdownCheck(persistOnShutdown);
    serverAddShutdownTask(flushReplicaOutputBuffers); /* best effort: the replicas may still get the last writes */
    serverAddShutdownTask(expiryPushShutdown);
    serverAddShutdownTask(ldbKillForkedSessions);
    serverSetForcedExitCleanup(persistForcedExitCleanup);
}

int main(int argc, char **argv) {
    procTitleInit(argc, argv); /* before anything keeps a pointer into argv */
    setlocale(LC_COLLATE, "");
    zmalloc_set_oom_handler(oomHandler);
    setRandomSeedAndRunId();
    updateCachedTime();
    server.executable = argv[0];
    server.exec_argv = argv;
    wireModules();
    initServerConfig();
    populateCommandTable(commandTable, commandTableSize);
    markMayReplicateCommands();
    prefetchMarkMemberCommands();
    aclInit();
    if (loadServerConfigFromArgs(argc, argv) != C_OK) exit(1);
    aclLoadUsersAtStartup();
    if (server.daemonize) daemonize();
    logServerStarting(argc, argv[0]);
    configApplyThreadSettings();
    initServer();
    showStartupBanner();
    if (server.set_proc_title) serverSetProcTitle(NULL);
    pubsubInit();
    slowlogInit();
    scriptingInit();
    expiryPushInit();
    createPidFile();
    serverLog(LL_NOTICE, "Server initialized");
    if (persistLoadAtStartup() != C_OK) exit(1);
    replStart();
    serverLog(LL_NOTICE, "Ready to accept connections");
    aeMain(server.el);
    return 0;
}
