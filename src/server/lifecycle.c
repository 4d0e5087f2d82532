/* lifecycle: the server's life around the pipeline — start-up (listeners,
 * the event loop, pid file, daemonizing, the banner), the cron and what runs
 * before each sleep, serving clients from inside something long, signals and
 * the watchdog, and shutdown as Redis 7.0 does it. */
#include "server/lifecycle.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/clientmem.h"
#include "server/crash.h"
#include "server/db.h"
#include "server/expire.h"
#include "server/pause.h"
#include "server/hooks.h"
#include "server/propagate.h"
#include "server/reply.h"
#include "server/supervise.h"
#include "server/tls.h"
#include "core/anet.h"
#include "core/proctitle.h"
#include "core/randbytes.h"
#include "core/zmalloc.h"

#include <errno.h>
#include <execinfo.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

/* -------------------------------------------------------------------- cron */

static void shutdownCron(void);

/* A keyspace table that grew is moved to its new table bucket by bucket.
 * Commands move one bucket each and the cron 1 ms' worth per tick (1% of the
 * time, as Redis), so at 10M keys the old table (64 MB) would linger for
 * minutes; while no client is waiting the loop also moves slices of
 * IDLE_REHASH_SLICE_US, at most half the time, until every table is done. A
 * client that arrives waits for one slice at most. */
#define IDLE_REHASH_SLICE_US 250
static long long idle_rehash_timer = -1;

static int rehashingDbs(void) {
    for (int j = 0; j < server.dbnum; j++)
        if (dictIsRehashing(server.db[j].dict)) return 1;
    return 0;
}

static long long idleRehashProc(aeEventLoop *el, long long id, void *clientData) {
    (void)clientData;
    if (!dictResizeEnabled() || !rehashingDbs()) {
        idle_rehash_timer = -1;
        return AE_NOMORE;
    }
    if (!aeEventsPending(el)) {
        long long start = getMonotonicUs(), spent = 0;
        for (int j = 0; j < server.dbnum && spent < IDLE_REHASH_SLICE_US; j++) {
            dict *d = server.db[j].dict;
            if (dictIsRehashing(d)) dictRehashMicroseconds(d, IDLE_REHASH_SLICE_US - spent);
            spent = (long long)(getMonotonicUs() - start);
        }
    }
    aeRescheduleTimeEventUs(el, id, IDLE_REHASH_SLICE_US);
    return AE_RESCHEDULED;
}

static void databasesCron(void) {
    /* Shrink tables left sparse by deletions and move rehashing along a little;
     * not while a saving child shares the tables' pages (resizing is off
     * then): every entry moved would be a page copied (as Redis's cron). */
    if (!dictResizeEnabled()) return;
    for (int j = 0; j < server.dbnum; j++) {
        dict *d = server.db[j].dict;
        if (dictSlots(d) > 4 && dictSize(d) * 10 < dictSlots(d)) dictResize(d);
        if (dictIsRehashing(d)) dictRehashMicroseconds(d, 1000);
    }
    if (idle_rehash_timer == -1 && rehashingDbs())
        idle_rehash_timer = aeCreateTimeEventUs(server.el, IDLE_REHASH_SLICE_US, idleRehashProc, NULL);
}

static void watchdogSchedule(int period_ms);

static long long serverCron(aeEventLoop *el, long long id, void *clientData) {
    (void)el, (void)id, (void)clientData;
    propagateFlushStaged(); /* the cron's checks of replicas and backlog see every write */
    updateCachedTime();
    server.lruclock = (unsigned int)(server.mstime / 1000);
    objectSetLruClock(server.lruclock);
    if (server.pause_cron) return 1000 / server.hz;
    size_t used = zmalloc_used_memory();
    if (used > (size_t)server.stat_peak_memory) server.stat_peak_memory = used;
    shutdownCron();
    if (server.watchdog_period) watchdogSchedule(server.watchdog_period);
    clientsCron();
    tlsCron();
    blockingRedirectClients(); /* cluster mode: a blocked client whose slot moved hears where */
    databasesCron();
    runCronTasks();
    freeClientsInAsyncFreeQueue();
    server.cronloops++;
    return 1000 / server.hz;
}

static void beforeSleep(aeEventLoop *el) {
    (void)el;
    tlsProcessPending(); /* first: its commands' writes reach the AOF before their replies leave, as all others */
    handleClientsBlockedOnKeys();
    processUnblockedClients();
    dbPackPending(); /* the turn's commands are done: nothing holds their keys' objects */
    propagateFlushStaged(); /* before the AOF and the replicas are written */
    runBeforeSleepTasks();
    handleClientsWithPendingWrites();
    /* After the writes, which may have shrunk output buffers. */
    evictClients(NULL);
    freeClientsInAsyncFreeQueue();
}

void processEventsWhileBlocked(void) {
    /* A few rounds while they find work, as Redis: a round also takes the
     * sockets it served off epoll's ready list, so the next call serves
     * clients in the order their requests came. */
    updateCachedTime();
    for (int round = 0; round < 4; round++) {
        int n = aeProcessFileEventsNoWait(server.el);
        tlsProcessPending(); /* a TLS client's request a read left in its session */
        propagateFlushStaged();
        handleClientsWithPendingWrites();
        if (n <= 0) break;
    }
    /* SIGTERM during a load: the cron that would act on it does not run
     * until the load ends, so the shutdown happens here (without saving the
     * half-loaded data), as Redis does. Connections closed meanwhile go. */
    if (server.loading || server.async_loading) {
        freeClientsInAsyncFreeQueue();
        if (server.shutdown_asap) {
            if (prepareForShutdown(SHUTDOWN_NOSAVE) == C_OK) exit(0);
            serverLog(LL_WARNING, "SIGTERM received but errors trying to shut down the server, check the logs for more "
                                  "information");
            server.shutdown_asap = 0;
            server.last_sig_received = 0;
        }
    }
}

/* ---------------------------------------------------------------- shutdown */

static list *shutdown_waiters; /* clients blocked in SHUTDOWN, until it exits or fails */

static int shutdownInitiated(void) { return server.shutdown_mstime != 0; }

/* Also when CLIENT UNBLOCK ends the wait: then, as in Redis, without a reply. */
static void shutdownWaiterUnblocked(client *c, int reply) {
    (void)reply;
    listNode *ln = listSearchKey(shutdown_waiters, c);
    if (ln) listDelNode(shutdown_waiters, ln);
}

void blockClientOnShutdown(client *c) {
    if (!shutdown_waiters) shutdown_waiters = listCreate();
    blockForKeys(c, BLOCKED_SHUTDOWN, NULL, 0, 0);
    c->bpop.unblockfn = shutdownWaiterUnblocked;
    listAddNodeTail(shutdown_waiters, c);
}

/* The shutdown failed or was aborted: its clients hear it and the server goes on. */
static void cancelShutdown(void) {
    server.shutdown_asap = 0;
    server.shutdown_flags = SHUTDOWN_NOFLAGS;
    server.shutdown_mstime = 0;
    server.last_sig_received = 0;
    while (shutdown_waiters && listLength(shutdown_waiters)) {
        client *c = listNodeValue(listFirst(shutdown_waiters));
        addReplyError(c, "Errors trying to SHUTDOWN. Check logs.");
        unblockClient(c, 1); /* the command ends here */
    }
    unpauseClientsFor(PAUSE_DURING_SHUTDOWN);
}

int abortShutdown(void) {
    if (shutdownInitiated()) cancelShutdown();
    else if (server.shutdown_asap) server.shutdown_asap = 0; /* a signal asked; the cron had not begun */
    else return C_ERR;
    serverLog(LL_NOTICE, "Shutdown manually aborted.");
    return C_OK;
}

/* The last step: persistence as the flags say, then the server stops
 * listening. C_OK: exit(); C_ERR: it failed, was cancelled, and was logged. */
static int finishShutdown(void) {
    shutdownReportReplicas();
    if (runShutdownChecks(server.shutdown_flags) != C_OK) {
        serverLog(LL_WARNING, "Errors trying to shut down the server. Check the logs for more information.");
        cancelShutdown();
        return C_ERR;
    }
    if (server.pidfile) {
        serverLog(LL_NOTICE, "Removing the pid file.");
        unlink(server.pidfile);
    }
    closeListeningSockets(1);
    runShutdownTasks();
    serverLog(LL_WARNING, "Redis is now ready to exit, bye bye...");
    return C_OK;
}

int prepareForShutdown(int flags) {
    if (shutdownInitiated()) return C_ERR; /* one is waiting for replicas: this caller waits with it */
    /* Half-loaded data must not overwrite the file it came from. */
    if (server.loading) flags = (flags & ~SHUTDOWN_SAVE) | SHUTDOWN_NOSAVE;
    server.shutdown_flags = flags;
    serverLog(LL_WARNING, "User requested shutdown...");
    superviseNotify("STOPPING=1\n");
    if (!(flags & SHUTDOWN_NOW) && server.shutdown_timeout != 0 && !shutdownReplicasInSync()) {
        /* Writes wait, so that the replicas can reach an offset that stays put. */
        server.shutdown_mstime = server.mstime + server.shutdown_timeout * 1000LL;
        if (!clientsArePaused()) shutdownRequestReplicaAcks();
        pauseClientsFor(PAUSE_DURING_SHUTDOWN, PAUSE_WRITE, LLONG_MAX);
        serverLog(LL_NOTICE, "Waiting for replicas before shutting down.");
        return C_ERR;
    }
    return finishShutdown();
}

/* From the cron: a signal's shutdown begins here (not in the handler), and a
 * shutdown waiting for replicas ends once they caught up or the time is up. */
static void shutdownCron(void) {
    if (server.shutdown_asap && !shutdownInitiated()) {
        int flags = SHUTDOWN_NOFLAGS;
        if (server.last_sig_received == SIGINT && server.shutdown_on_sigint) flags = server.shutdown_on_sigint;
        else if (server.last_sig_received == SIGTERM && server.shutdown_on_sigterm) flags = server.shutdown_on_sigterm;
        if (prepareForShutdown(flags) == C_OK) exit(0);
    } else if (shutdownInitiated()) {
        if (server.mstime >= server.shutdown_mstime || shutdownReplicasInSync()) {
            if (finishShutdown() == C_OK) exit(0);
        }
    }
}


static void sigShutdownHandler(int sig) {
    const char *msg = sig == SIGINT    ? "Received SIGINT scheduling shutdown..."
                      : sig == SIGTERM ? "Received SIGTERM scheduling shutdown..."
                                       : "Received shutdown signal, scheduling shutdown...";
    /* A second Ctrl+C: exit now, without saving or waiting for replicas. */
    if (server.shutdown_asap && sig == SIGINT) {
        serverLogFromHandler(LL_WARNING, "You insist... exiting now.");
        runForcedExitCleanup();
        _exit(1); /* not a clean shutdown */
    } else if (server.loading) {
        msg = "Received shutdown signal during loading, scheduling shutdown.";
    }
    serverLogFromHandler(LL_WARNING, msg);
    server.shutdown_asap = 1;
    server.last_sig_received = sig;
}

/* watchdog-period (ms): the cron re-arms a one-shot timer every run, so
 * SIGALRM fires only when the event loop was held up longer than the period
 * (a slow command, a load), and its stack trace goes to the log. As in Redis
 * the handler is installed without SA_RESTART: the system call it interrupts
 * fails with EINTR, which our blocking reads retry. */
static void writeFromHandler(const char *msg) {
    int fd = server.logfile && server.logfile[0] ? open(server.logfile, O_APPEND | O_CREAT | O_WRONLY, 0644)
                                                 : STDOUT_FILENO;
    if (fd == -1) return;
    char line[256];
    int n = snprintf(line, sizeof(line), "%d:signal-handler (%lld) %s\n", (int)getpid(), (long long)time(NULL), msg);
    if (n > 0 && write(fd, line, (size_t)n) == -1) { /* nothing to do from a handler */
    }
    if (fd != STDOUT_FILENO) close(fd);
}

static void sigWatchdogHandler(int sig) {
    (void)sig;
    writeFromHandler("--- WATCHDOG TIMER EXPIRED ---");
    crashLogStackTrace(NULL);
    writeFromHandler("--------");
}

static void watchdogSchedule(int period_ms) {
    struct itimerval it = {.it_value = {.tv_sec = period_ms / 1000, .tv_usec = (period_ms % 1000) * 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
}

int applyWatchdogPeriod(const char **err) {
    (void)err;
    struct sigaction act;
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_NODEFER;
    act.sa_handler = server.watchdog_period ? sigWatchdogHandler : SIG_IGN;
    sigaction(SIGALRM, &act, NULL);
    watchdogSchedule(server.watchdog_period); /* 0 stops it */
    return 1;
}

static void setupSignalHandlers(void) {
    struct sigaction act;
    sigemptyset(&act.sa_mask);
    act.sa_flags = 0;
    act.sa_handler = sigShutdownHandler;
    sigaction(SIGTERM, &act, NULL);
    sigaction(SIGINT, &act, NULL);
    crashSetupHandlers();
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
}

/* ----------------------------------------------------------------- start-up */

void oomHandler(size_t size) {
    serverLog(LL_WARNING, "Out Of Memory allocating %zu bytes!", size);
    abort();
}

/* Listens on every bind address. "-addr" is optional (skipped when it cannot
 * be bound, as ::* on a host without IPv6); an empty bind list listens on no
 * TCP address at all, as Redis 7.0. */
/* The listeners of one port (the plain one or the TLS one) into fds. */
static int listenToPort(int port, int *fds, int *count, const char *kind) {
    char err[ANET_ERR_LEN];
    *count = 0;
    if (port == 0) return C_OK;
    for (int j = 0; j < server.bindaddr_count; j++) {
        const char *addr = server.bindaddr[j];
        int optional = *addr == '-';
        if (optional) addr++;
        int fd = anetTcpServer(err, port, addr, server.tcp_backlog);
        if (fd == ANET_ERR) {
            if (optional) {
                serverLog(LL_VERBOSE, "Could not bind %s:%d: %s (skipped)", addr, port, err);
                continue;
            }
            serverLog(LL_WARNING, "Warning: Could not create server TCP listening socket %s:%d: %s", addr, port, err);
            /* The test harness looks for this line to retry on another port. */
            serverLog(LL_WARNING, "Failed listening on port %d (%s), aborting.", port, kind);
            for (int k = 0; k < *count; k++) close(fds[k]);
            *count = 0;
            return C_ERR;
        }
        anetNonBlock(NULL, fd);
        fds[(*count)++] = fd;
    }
    if (*count == 0 && server.bindaddr_count) {
        serverLog(LL_WARNING, "Failed listening on port %d (%s), aborting.", port, kind);
        return C_ERR;
    }
    return C_OK;
}

static void watchListeners(int *fds, int count, aeFileProc *accept) {
    for (int j = 0; j < count; j++) aeCreateFileEvent(server.el, fds[j], AE_READABLE, accept, NULL);
}

static void closeListeners(int *fds, int *count) {
    for (int j = 0; j < *count; j++) {
        aeDeleteFileEvent(server.el, fds[j], AE_READABLE);
        close(fds[j]);
    }
    *count = 0;
}

/* Closes the listeners of both ports and listens again as bind, port and
 * tls-port now say. When that fails CONFIG SET puts the old values back and
 * calls it once more. */
static int relisten(void) {
    if (!server.el) return C_OK; /* read at start-up: initServer listens */
    closeListeners(server.ipfd, &server.ipfd_count);
    closeListeners(server.tlsfd, &server.tlsfd_count);
    if (listenToPort(server.port, server.ipfd, &server.ipfd_count, "TCP") == C_ERR) return C_ERR;
    if (listenToPort(server.tls_port, server.tlsfd, &server.tlsfd_count, "TLS") == C_ERR) {
        closeListeners(server.ipfd, &server.ipfd_count);
        return C_ERR;
    }
    watchListeners(server.ipfd, server.ipfd_count, acceptTcpHandler);
    watchListeners(server.tlsfd, server.tlsfd_count, acceptTlsHandler);
    return C_OK;
}

int applyBind(const char **err) {
    if (relisten() == C_OK) return 1;
    *err = "Failed to bind to specified addresses.";
    return 0;
}

int applyTlsPort(const char **err) {
    /* A TLS port needs the contexts: made now if this is TLS's first use
     * (else the last ones serve, as Redis). */
    if (server.el && server.tls_port && !tlsConfigured() && tlsInit() == C_ERR) {
        *err = "Unable to update TLS configuration. Check server logs.";
        return 0;
    }
    if (relisten() == C_OK) return 1;
    *err = "Unable to listen on this port";
    return 0;
}

int applyPort(const char **err) {
    if (relisten() == C_OK) return 1;
    *err = "Unable to listen on this port";
    return 0;
}

/* One template variable's value, or NULL for a name Redis does not know. */
static sds procTitleVariable(const char *name, size_t len, const char *title) {
#define IS(lit) (len == sizeof(lit) - 1 && !memcmp(name, lit, len))
    if (IS("title")) return sdsnew(title);
    if (IS("listen-addr")) {
        int port = server.port ? server.port : server.tls_port; /* TLS only: its port, as Redis */
        if (port) return sdscatprintf(sdsempty(), "%s:%d", server.bindaddr_count ? server.bindaddr[0] : "*", port);
        return sdscatprintf(sdsempty(), "unixsocket:%s", server.unixsocket ? server.unixsocket : "");
    }
    if (IS("server-mode")) return sdsnew(server.cluster_enabled ? "[cluster]" : "");
    if (IS("config-file")) return sdsnew(server.configfile ? server.configfile : "");
    if (IS("port")) return sdscatprintf(sdsempty(), "%d", server.port);
    if (IS("tls-port")) return sdscatprintf(sdsempty(), "%d", server.tls_port);
    if (IS("unixsocket")) return sdsnew(server.unixsocket ? server.unixsocket : "");
    return NULL;
#undef IS
}

/* {name} is a variable, "{{" a brace; anything else is copied. NULL when a
 * brace is left open or a name is unknown. The result is trimmed of spaces. */
static sds expandProcTitle(const char *tmpl, const char *title) {
    sds res = sdsempty();
    const char *p = tmpl;
    while (*p) {
        const char *open = strchr(p, '{');
        if (!open) {
            res = sdscat(res, p);
            break;
        }
        res = sdscatlen(res, p, open - p);
        if (open[1] == '{') {
            res = sdscat(res, "{");
            p = open + 2;
            continue;
        }
        const char *close = open[1] ? strchr(open + 1, '}') : NULL;
        sds value = close ? procTitleVariable(open + 1, close - open - 1, title) : NULL;
        if (!value) {
            sdsfree(res);
            return NULL;
        }
        res = sdscatsds(res, value);
        sdsfree(value);
        p = close + 1;
    }
    return sdstrim(res, " ");
}

int serverSetProcTitle(const char *title) {
    if (!title) title = server.exec_argv[0];
    sds t = expandProcTitle(server.proc_title_template, title);
    if (!t) return C_ERR;
    procTitleSet(t);
    sdsfree(t);
    return C_OK;
}

int applyProcTitleTemplate(const char **err) {
    sds t = expandProcTitle(server.proc_title_template, "");
    int ok = t && sdslen(t) > 0;
    sdsfree(t);
    if (!ok) {
        *err = "template format is invalid or contains unknown variables";
        return 0;
    }
    /* At start-up main.c sets the title once the listeners are up. */
    if (server.el && server.set_proc_title) serverSetProcTitle(NULL);
    return 1;
}

void createPidFile(int background) {
    if (!server.pidfile && !background) return;
    if (!server.pidfile) server.pidfile = zstrdup("/var/run/redis.pid"); /* a daemon always has one, as Redis */
    FILE *fp = fopen(server.pidfile, "w");
    if (fp) {
        fprintf(fp, "%d\n", (int)getpid());
        fclose(fp);
    } else {
        serverLog(LL_WARNING, "Failed to write PID file: %s", strerror(errno));
    }
}

void daemonize(void) {
    if (fork() != 0) exit(0);
    setsid();
    int fd = open("/dev/null", O_RDWR, 0);
    if (fd != -1) {
        dup2(fd, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        if (fd > STDERR_FILENO) close(fd);
    }
}

void initServer(void) {
    server.pid = getpid();
    setupSignalHandlers();
    serverOpenSyslog(); /* here, as Redis: the start-up lines before it go out under the default ident */
    server.clients = listCreate();
    server.clients_to_close = listCreate();
    server.clients_pending_write = listCreate();
    server.monitors = listCreate();
    server.sofd = -1;
    createSharedObjects();
    initSharedIntegers();
    struct rlimit limit;
    rlim_t want = (rlim_t)server.maxclients + 128;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < want) {
        limit.rlim_cur = want < limit.rlim_max ? want : limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
        getrlimit(RLIMIT_NOFILE, &limit);
        if (limit.rlim_cur < want) {
            unsigned int newmax = limit.rlim_cur > 128 ? (unsigned int)limit.rlim_cur - 128 : 1;
            serverLog(LL_WARNING, "You requested maxclients of %u requiring at least %llu max file descriptors. Redis can't set maximum open files to %llu, maxclients is now %u.",
                      server.maxclients, (unsigned long long)want, (unsigned long long)want, newmax);
            server.maxclients = newmax;
        }
    }
    server.el = aeCreateEventLoop(server.maxclients + 128 + 96);
    if (!server.el) {
        serverLog(LL_WARNING, "Failed creating the event loop. Error message: '%s'", strerror(errno));
        exit(1);
    }
    initDatabases();
    if (tlsInit() == C_ERR) exit(1);
    if (listenToPort(server.port, server.ipfd, &server.ipfd_count, "TCP") == C_ERR) exit(1);
    if (listenToPort(server.tls_port, server.tlsfd, &server.tlsfd_count, "TLS") == C_ERR) exit(1);
    if (server.unixsocket) {
        char err[ANET_ERR_LEN];
        server.sofd = anetUnixServer(err, server.unixsocket, server.unixsocketperm, server.tcp_backlog);
        if (server.sofd == ANET_ERR) {
            serverLog(LL_WARNING, "Failed opening Unix socket: %s", err);
            exit(1);
        }
        anetNonBlock(NULL, server.sofd);
    }
    if (server.ipfd_count == 0 && server.tlsfd_count == 0 && server.sofd < 0) {
        serverLog(LL_WARNING, "Configured to not listen anywhere, exiting.");
        exit(1);
    }
    watchListeners(server.ipfd, server.ipfd_count, acceptTcpHandler);
    watchListeners(server.tlsfd, server.tlsfd_count, acceptTlsHandler);
    if (server.sofd >= 0) aeCreateFileEvent(server.el, server.sofd, AE_READABLE, acceptUnixHandler, NULL);
    static dictType errorsDictType = {.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare,
                                      .keyDestructor = dictSdsDestructor};
    server.errors = dictCreate(&errorsDictType);
    blockingInit();
    aeCreateTimeEvent(server.el, 1, serverCron, NULL);
    expireInit();
    aeSetBeforeSleepProc(server.el, beforeSleep);
    updateCachedTime();
    server.stat_starttime = server.unixtime;
    server.lastsave = server.unixtime;
    server.initial_memory_usage = zmalloc_used_memory();
}

/* Redis's start-up banner: the logo (with the PID, which test harnesses
 * wait for) when asked for or on a terminal, else one line. */
void logServerStarting(int argc, const char *argv0) {
    serverLog(LL_WARNING, "oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo");
    serverLog(LL_WARNING, "Redis version=" REDIS_VERSION ", bits=64, commit=00000000, modified=0, pid=%d, just started",
              (int)getpid());
    if (argc == 1)
        serverLog(LL_WARNING, "Warning: no config file specified, using the default config. In order to specify a "
                              "config file use %s /path/to/redis.conf", argv0);
    else
        serverLog(LL_WARNING, "Configuration loaded");
}

/* The first line of a file under /proc or /sys, or "" when there is none. */
static void readFirstLine(const char *path, char *buf, size_t size) {
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp) return;
    if (!fgets(buf, (int)size, fp)) buf[0] = '\0';
    fclose(fp);
}

void checkKernelMemorySettings(void) {
    char buf[1024];
    readFirstLine("/proc/sys/vm/overcommit_memory", buf, sizeof(buf));
    if (buf[0] && strtol(buf, NULL, 10) != 1)
        serverLog(LL_WARNING,
                  "WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail "
                  "under low memory condition. Being disabled, it can can also cause failures without low memory "
                  "condition, see https://github.com/jemalloc/jemalloc/issues/1328. To fix this issue add "
                  "'vm.overcommit_memory = 1' to /etc/sysctl.conf and then reboot or run the command "
                  "'sysctl vm.overcommit_memory=1' for this to take effect.");
    readFirstLine("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf));
    if (!strstr(buf, "[always]")) return;
    /* Huge pages make every page a fork's child copies 2 MB and add latency
     * to faults: turned off for this process (and the children it forks). */
#ifdef PR_SET_THP_DISABLE
    if (server.disable_thp && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0) return;
#endif
    serverLog(LL_WARNING,
              "WARNING You have Transparent Huge Pages (THP) support enabled in your kernel. This will create latency "
              "and memory usage issues with Redis. To fix this issue run the command 'echo madvise > "
              "/sys/kernel/mm/transparent_hugepage/enabled' as root, and add it to your /etc/rc.local in order to "
              "retain the setting after a reboot. Redis must be restarted after THP is disabled (set to 'madvise' or "
              "'never').");
}

void showStartupBanner(void) {
    int logo = server.always_show_logo || ((server.logfile == NULL || server.logfile[0] == '\0') && isatty(STDOUT_FILENO));
    if (!logo) {
        serverLog(LL_NOTICE, "Running mode=standalone, port=%d.", server.port);
        return;
    }
    serverLog(LL_NOTICE | LL_RAW,
              "                _._                                                  \n"
              "           _.-``__ ''-._                                             \n"
              "      _.-``    `.  `_.  ''-._           Redis " REDIS_VERSION " (00000000/0) 64 bit\n"
              "  .-`` .-```.  ```\\/    _.,_ ''-._                                  \n"
              " (    '      ,       .-`  | `,    )     Running in standalone mode\n"
              " |`-._`-...-` __...-.``-._|'` _.-'|     Port: %d\n"
              " |    `-._   `._    /     _.-'    |     PID: %ld\n"
              "  `-._    `-._  `-./  _.-'    _.-'                                   \n",
              server.port, (long)getpid());
    /* In two parts: one log line holds at most 1024 bytes. */
    serverLog(LL_NOTICE | LL_RAW, "%s",
              " |`-._`-._    `-.__.-'    _.-'_.-'|                                  \n"
              " |    `-._`-._        _.-'_.-'    |           https://redis.io       \n"
              "  `-._    `-._`-.__.-'_.-'    _.-'                                   \n"
              " |`-._`-._    `-.__.-'    _.-'_.-'|                                  \n"
              " |    `-._`-._        _.-'_.-'    |                                  \n"
              "  `-._    `-._`-.__.-'_.-'    _.-'                                   \n"
              "      `-._    `-.__.-'    _.-'                                       \n"
              "          `-._        _.-'                                           \n"
              "              `-.__.-'                                               \n\n");
}

void setRandomSeedAndRunId(void) {
    uint8_t seed[16];
    srand((unsigned)ustime() ^ getpid()); /* before getRandomHex, which may fall back on it */
    if (!getRandomBytes(seed, sizeof(seed))) {
        long long t = ustime() ^ getpid();
        for (int i = 0; i < 16; i++) seed[i] = (uint8_t)(t >> ((i % 8) * 8)) ^ (uint8_t)i;
    }
    dictSetHashFunctionSeed(seed);
    getRandomHex(server.runid, CONFIG_RUN_ID_SIZE);
}
