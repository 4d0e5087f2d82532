/* main: start-up. The one place that knows every room: it wires the rooms
 * above server/ into the registration points below them, so that
 * dependencies point one way (ARCHITECTURE.md):
 * core <- data <- server <- acl <- persist <- repl <- features <- commands <- main. */
#include "server/blocking.h"
#include "server/client.h"
#include "server/config.h"
#include "server/crash.h"
#include "server/dispatch.h"
#include "server/evict.h"
#include "server/hooks.h"
#include "server/lazyfree.h"
#include "server/lifecycle.h"
#include "server/prefetch.h"
#include "server/propagate.h"
#include "server/supervise.h"
#include "server/tls.h"
#include "core/dict.h"
#include "core/proctitle.h"
#include "core/zmalloc.h"
#include "acl/acl.h"
#include "commands/migrate.h"
#include "commands/table.h"
#include "features/expiry_push.h"
#include "features/expiry_spool.h"
#include "features/functions.h"
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
#include "persist/rdb.h"
#include "repl/repl.h"
#include "cluster/cluster.h"
#include "cluster/gossip.h"

#include <locale.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ wiring
 * Every subscription of the rooms above server/ to its registration points
 * (server/hooks.h), in one table. Within a point, subscribers run in the
 * table's order; where the order matters it is stated as data (.before) and
 * checked at start-up, with the reason beside it. */
static const subscription subscriptions[] = {
    /* Key changes (keyChanged), each with the classes it wants at first. */
    {ON_KEYSPACE(expiryPushKeyspaceSubscriber), .interest = NOTIFY_EXPIRED,
     .before = RUNS_BEFORE(notifyKeyspaceSubscriber)}, /* a key is pushed before its event is published */
    {ON_KEYSPACE(multiKeyspaceSubscriber)},              /* from the first WATCHed key */
    {ON_KEYSPACE(notifyKeyspaceSubscriber)},             /* from notify-keyspace-events */
    {ON_KEYSPACE(trackingKeyspaceSubscriber)},           /* from the first CLIENT TRACKING */

    /* After every call: as Redis, the slow log, then command stats, then MONITOR. */
    {ON_CALL(slowlogCallObserver), .before = RUNS_BEFORE(latencyCallObserver)},
    {ON_CALL(latencyCallObserver), .before = RUNS_BEFORE(monitorCallObserver)},
    {ON_CALL(monitorCallObserver)},
    {ON_CALL(trackingCallObserver)},
    {ON_CALL(spoolMasterRecordObserver)}, /* a replica's copy of the push's log */
    {ON_COMMAND_PRELUDE(trackingCommandPrelude)},
    {ON_RESET_STATS(latencyForgetCommandHistogram)},

    /* The cron. The spool is written before the AOF here as before sleeping. */
    {ON_CRON(infoCron)},
    {ON_CRON(spoolCron), .before = RUNS_BEFORE(persistCron)},
    {ON_CRON(persistCron)},
    {ON_CRON(ldbCron)},
    {ON_CRON(trackingCron)},
    {ON_CRON(expiryPushCron)},
    {ON_CRON(replCron)},

    /* Before sleeping: an expired key's message reaches the spool before its DEL reaches the AOF. */
    {ON_BEFORE_SLEEP(trackingBeforeSleep)},
    {ON_BEFORE_SLEEP(spoolBeforeSleep), .before = RUNS_BEFORE(persistBeforeSleep)},
    {ON_BEFORE_SLEEP(persistBeforeSleep)},
    {ON_BEFORE_SLEEP(replBeforeSleep)},
    {ON_BEFORE_SLEEP(clusterBeforeSleep)}, /* the config written, the state updated (cluster mode) */
    {ON_BEFORE_SLEEP(clusterKeysBeforeSleep)}, /* a slot that left our shard: its channels and waiting clients */

    {ON_CLIENT_TEARDOWN(blockingClientTeardown), .before = RUNS_BEFORE(pubsubClientTeardown)}, /* leaves its keys first */
    {ON_CLIENT_TEARDOWN(pubsubClientTeardown)},
    {ON_CLIENT_TEARDOWN(trackingClientTeardown)},
    {ON_CLIENT_TEARDOWN(replClientTeardown)},
    {ON_TRANSACTION_END(unwatchAllKeys)},

    /* Shutdown: the checks (all before any task) save snapshots and the AOF
     * before the push hands over what it holds. */
    {ON_SHUTDOWN_CHECK(replOnShutdown), .before = RUNS_BEFORE(persistOnShutdown)}, /* no child may rename over the final save */
    {ON_SHUTDOWN_CHECK(spoolOnShutdown), .before = RUNS_BEFORE(persistOnShutdown)}, /* the spool before the final AOF flush, as every turn */
    {ON_SHUTDOWN_CHECK(persistOnShutdown)},
    {ON_SHUTDOWN_TASK(flushReplicaOutputBuffers)}, /* best effort: the replicas may still get the last writes */
    {ON_SHUTDOWN_TASK(expiryPushShutdown)},
    {ON_SHUTDOWN_TASK(ldbKillForkedSessions)},
    {ON_SHUTDOWN_TASK(clusterOnShutdown)},
};

/* Directives whose change another room, or a layer of server/ above config,
 * applies (config.h). */
static const struct {
    const char *directive;
    int (*apply)(const char **err);
} applyHooks[] = {
    {"bind", applyBind}, /* the listeners open again (lifecycle.c) */
    {"port", applyPort},
    {"tls-port", applyTlsPort},
    /* TLS: every setting a context is made of makes them again (server/tls.c) */
    {"tls-cert-file", tlsApplyConfig},
    {"tls-key-file", tlsApplyConfig},
    {"tls-key-file-pass", tlsApplyConfig},
    {"tls-client-cert-file", tlsApplyConfig},
    {"tls-client-key-file", tlsApplyConfig},
    {"tls-client-key-file-pass", tlsApplyConfig},
    {"tls-dh-params-file", tlsApplyConfig},
    {"tls-ca-cert-file", tlsApplyConfig},
    {"tls-ca-cert-dir", tlsApplyConfig},
    {"tls-protocols", tlsApplyConfig},
    {"tls-ciphers", tlsApplyConfig},
    {"tls-ciphersuites", tlsApplyConfig},
    {"tls-prefer-server-ciphers", tlsApplyConfig},
    {"tls-session-caching", tlsApplyConfig},
    {"tls-session-cache-size", tlsApplyConfig},
    {"tls-session-cache-timeout", tlsApplyConfig},
    {"tls-replication", tlsApplyConfig},
    {"tls-cluster", tlsApplyConfig},
    {"proc-title-template", applyProcTitleTemplate},
    {"watchdog-period", applyWatchdogPeriod},
    {"crash-log-enabled", applyCrashLogEnabled},
    {"appendonly", aofApplyConfig},
    {"aof-disable-auto-gc", aofApplyAutoGc},
    {"zmq-expiry-endpoint", expiryPushApplyHook},
    {"zmq-expiry-hwm", expiryPushApplyHook},
    {"zmq-expiry-backlog", expiryPushApplyHook},
    {"zmq-expiry-ack", expiryPushApplyAckMode},
    {"notify-keyspace-events", notifyApplyConfig},
    {"repl-backlog-size", replApplyBacklogSize},
    {"cluster-announce-hostname", clusterApplyAnnounceHostname},
    {"cluster-announce-ip", clusterApplyAnnounced},
    {"cluster-announce-port", clusterApplyAnnounced},
    {"cluster-announce-bus-port", clusterApplyAnnounced},
    {"cluster-announce-tls-port", clusterApplyAnnounced},
    {"cluster-replica-no-failover", clusterApplyNoFailover},
};

static const scriptHooks scriptingHooks = {
    .timedout = scriptIsTimedout,
    .allows_while_busy = scriptAllowsWhileBusy,
    .busy_error = scriptBusyError,
    .command_flags = scriptingCommandFlags,
};

static const backgroundPacer expiryPushPacer = {
    .draining = expiryPushDraining,
    .feeding = expiryPushFeeding,
    .holding = expiryPushHolding,
    .run_begin = expiryPushRunBegin,
    .run_end = expiryPushRunEnd,
};

static const commandRouter clusterRouter = {
    .route = clusterRouteCommand,
    .redirect_blocked = clusterRedirectBlockedClient,
    .bus_connections = clusterConnectionCount,
};

static const replCapability expiryLogCapability = {
    .name = "expiry-log", /* the replica holds the push's log (EXPIRY_0MQ.md, "Failover") */
    .announced = spoolReplicasWantLog,
    .full_sync = spoolRepublish,
};

/* The crash report's INFO OUTPUT: every section, as Redis 7.0 writes it. */
static sds crashInfo(void) {
    const char *all[] = {"all"};
    return genInfoString(1, all);
}

/* Before the config is read: the subscriptions, the directives other rooms
 * apply, and the points with a single owner (who provides what). */
static void wireModules(void) {
    serverSubscribe(subscriptions, sizeof(subscriptions) / sizeof(subscriptions[0]));
    for (size_t i = 0; i < sizeof(applyHooks) / sizeof(applyHooks[0]); i++)
        configSetApplyHook(applyHooks[i].directive, applyHooks[i].apply);
    configSetSpecialHandlers("latency-tracking-info-percentiles", latencySetInfoPercentiles,
                             latencyGetInfoPercentiles);
    configSetSpecialHandlers("replicaof", replSetReplicaofDirective, replGetReplicaofDirective);

    /* server/'s own layers: the input path and blocking reach the pipeline above them */
    serverSetDispatcher(&dispatchPipeline);

    /* server/'s single-owner points */
    dictSetBigTableFree(lazyfreeBlock); /* a big table a rehash left: its pages go back off the loop */
    crashSetInfoGenerator(crashInfo);
    serverSetWriteGate(persistWriteGate);
    evictSetAofBufferProbe(aofBufferMemory); /* not counted for maxmemory, as Redis 7.0 */
    serverSetScriptHooks(&scriptingHooks);
    serverSetBackgroundPacer(&expiryPushPacer);
    serverSetLatencySampler(latencyAddSampleIfNeeded);
    serverSetMasterStreamSink(replMasterStreamApplied);
    serverSetShutdownReplicaHooks(&replShutdownHooks);
    serverSetForcedExitCleanup(persistForcedExitCleanup);
    propagateSetReplicaFeed(replStreamSubscriber);
    propagateSetStagedFlush(replFlushStaged);

    /* persist/'s, repl/'s and features/' points */
    rdbSetReplInfoHooks(replFillRdbInfo, replLoadedRdbInfo);
    persistSetReplSnapshotHooks(&replSnapshotOfMaster);
    persistSetLibraryStore(&functionsLibraryStore);
    replAddReplicaCapability(&expiryLogCapability);
    infoSetMigrateSocketsProbe(migrateCachedSockets);
    clusterSetPublishDelivery(pubsubClusterDeliver);        /* a PUBLISH from the bus, to our subscribers */
    clusterSetShardChannelsDrop(pubsubShardUnsubscribeSlots); /* a slot left our shard: its channels go */
    replInit();
}

int main(int argc, char **argv) {
    procTitleInit(argc, argv); /* before anything keeps a pointer into argv */
    setlocale(LC_COLLATE, "");
    zmalloc_set_oom_handler(oomHandler);
    zmalloc_no_eager_purge();
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
    int supervised = superviseStart();
    int background = server.daemonize && !supervised; /* a supervised server stays in the foreground, as Redis */
    if (background) daemonize();
    logServerStarting(argc, argv[0]);
    configApplyThreadSettings();
    initServer();
    if (server.cluster_enabled) {
        serverSetCommandRouter(&clusterRouter); /* only then: a standalone server pays nothing per command */
        clusterInit();
    }
    showStartupBanner();
    if (server.set_proc_title) serverSetProcTitle(NULL);
    pubsubInit();
    slowlogInit();
    scriptingInit();
    expiryPushInit();
    createPidFile(background);
    serverLog(LL_WARNING, "Server initialized");
    checkKernelMemorySettings();
    if (persistLoadAtStartup() != C_OK) exit(1);
    if (server.cluster_enabled) clusterVerifyDataAfterLoad();
    replStart();
    serverLog(LL_NOTICE, "Ready to accept connections");
    superviseReady();
    aeMain(server.el);
    return 0;
}
