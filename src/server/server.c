/* server: start-up, the cron, the command pipeline (processCommand → call),
 * logging, signals and shutdown. The one `server` struct lives here. The
 * modules above server/ act through the hooks (hooks.h) main.c wires. */
#include "server/server.h"
#include "server/access.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/clientmem.h"
#include "server/config.h"
#include "server/crash.h"
#include "server/db.h"
#include "server/evict.h"
#include "server/expire.h"
#include "server/pause.h"
#include "server/hooks.h"
#include "server/propagate.h"
#include "server/resp_parse.h"
#include "server/reply.h"
#include "server/transaction.h"
#include "core/anet.h"
#include "core/panic.h"
#include "core/proctitle.h"
#include "core/randbytes.h"
#include "core/clock.h"
#include "core/zmalloc.h"

#include <errno.h>
#include <execinfo.h>
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
#include <unistd.h>

struct redisServer server;

/* ----------------------------------------------------------------- logging */

void serverLog(int level, const char *fmt, ...) {
    if ((level & 0xff) < server.verbosity) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    int tostdout = server.logfile == NULL || server.logfile[0] == '\0';
    FILE *fp = tostdout ? stdout : fopen(server.logfile, "a");
    if (!fp) return;
    if (level & LL_RAW) {
        fprintf(fp, "%s", msg);
    } else {
        const char *marks = ".-*#";
        struct timeval tv;
        gettimeofday(&tv, NULL);
        struct tm tm;
        localtime_r(&tv.tv_sec, &tm);
        char buf[64];
        int off = strftime(buf, sizeof(buf), "%d %b %Y %H:%M:%S.", &tm);
        snprintf(buf + off, sizeof(buf) - off, "%03d", (int)tv.tv_usec / 1000);
        /* As Redis: a forked child (or the server before it is set up), a
         * replica or a master wrote the line. */
        char role = server.pid != getpid() ? 'C' : server.masterhost_set ? 'S' : 'M';
        fprintf(fp, "%d:%c %s %c %s\n", (int)getpid(), role, buf, marks[level & 0x3], msg);
    }
    fflush(fp);
    if (!tostdout) fclose(fp);
}

/* ------------------------------------------------------------------ clocks */

static void setCachedTime(long long us) {
    server.ustime = us;
    server.mstime = us / 1000;
    server.unixtime = server.mstime / 1000;
}

void updateCachedTime(void) { setCachedTime(ustime()); }

/* Scripts see one time for their whole run, as in Redis. */
long long commandTimeMs(void) { return server.mstime; }

/* -------------------------------------------------------------------- cron */

static void shutdownCron(void);

static void databasesCron(void) {
    /* Shrink tables left sparse by deletions and move rehashing along a little. */
    for (int j = 0; j < server.dbnum; j++) {
        dict *d = server.db[j].dict;
        if (dictSlots(d) > 4 && dictSize(d) * 10 < dictSlots(d)) dictResize(d);
        if (dictIsRehashing(d)) dictRehashMilliseconds(d, 1);
    }
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
    databasesCron();
    runCronTasks();
    freeClientsInAsyncFreeQueue();
    server.cronloops++;
    return 1000 / server.hz;
}

#define BACKGROUND_WORK_US 1000
#define BACKGROUND_WORK_MIN_US 50

long long backgroundWorkLeftUs(void) {
    long long left = BACKGROUND_WORK_US - (long long)(getMonotonicUs() - aeTurnStartUs(server.el));
    return left < BACKGROUND_WORK_MIN_US ? BACKGROUND_WORK_MIN_US : left;
}

static void beforeSleep(aeEventLoop *el) {
    (void)el;
    handleClientsBlockedOnKeys();
    processUnblockedClients();
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

/* ------------------------------------------------------------- the pipeline */

static int isAllowedInPubsubContext(struct redisCommand *cmd) {
    static const char *allowed[] = {"ping", "subscribe", "ssubscribe", "unsubscribe", "sunsubscribe",
                                    "psubscribe", "punsubscribe", "quit", "reset", NULL};
    const char *name = cmd->parent ? cmd->parent->name : cmd->name;
    for (int i = 0; allowed[i]; i++)
        if (!strcasecmp(name, allowed[i])) return 1;
    return 0;
}

static int isTransactionControl(struct redisCommand *cmd) {
    const char *n = cmd->fullname;
    return !strcmp(n, "exec") || !strcmp(n, "discard") || !strcmp(n, "multi") || !strcmp(n, "watch") ||
           !strcmp(n, "quit") || !strcmp(n, "reset");
}

/* The commands that still run inside MULTI when memory is over maxmemory. */
static int endsTransaction(struct redisCommand *cmd) {
    return isTransactionControl(cmd) && strcmp(cmd->fullname, "multi") && strcmp(cmd->fullname, "watch");
}

/* A refused EXEC ends the transaction it would have run, as in Redis:
 * "-EXECABORT Transaction discarded because of: <the refusal>". */
static int rejectExec(client *c, const char *err, size_t len) {
    if (!c->cmd || c->cmd != server.exec_command) return 0;
    discardTransaction(c);
    if (len && err[0] == '-') err++, len--;
    addReplyErrorFormat(c, "-EXECABORT Transaction discarded because of: %.*s", (int)len, err);
    return 1;
}

static void rejectCommand(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rejectCommand(client *c, const char *fmt, ...) {
    flagTransaction(c);
    if (c->cmd) c->cmd->rejected_calls++;
    va_list ap;
    va_start(ap, fmt);
    sds s = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    if (rejectExec(c, s, sdslen(s))) sdsfree(s);
    else addReplyErrorSds(c, s);
}

static void rejectCommandObject(client *c, robj *err) {
    flagTransaction(c);
    if (c->cmd) c->cmd->rejected_calls++;
    sds e = err->ptr; /* "-CODE message\r\n" */
    if (!rejectExec(c, e, sdslen(e) - 2)) addReplyErrorObject(c, err);
}

/* Commands that may cause replication without being writes (PUBLISH, EVAL,
 * ...). Redis 7.0 hides this flag from COMMAND output, so the table generated
 * from that output lacks it: it is restored here. SCRIPT LOAD and SCRIPT
 * FLUSH are not among them in 7.0.15: a MONITOR connection may run them and
 * CLIENT PAUSE WRITE does not hold them. */
void markMayReplicateCommands(void) {
    static const char *names[] = {"publish", "spublish", "eval", "evalsha", "fcall", "pfcount", NULL};
    for (int i = 0; names[i]; i++) {
        struct redisCommand *cmd = lookupCommandByCString(names[i]);
        if (cmd) cmd->flags |= CMD_MAY_REPLICATE;
    }
}

int commandIsContainer(robj *name);

/* The ACL check of a command about to run or be queued, with Redis's NOPERM texts. */
static int rejectByAccessControl(client *c) {
    int pos;
    int denied = accessCheck(c, c->cmd, c->argv, c->argc, &pos);
    if (denied == ACCESS_OK) return 0;
    accessLogDenial(c, denied, (c->flags & CLIENT_MULTI) ? ACCESS_CTX_MULTI : ACCESS_CTX_TOPLEVEL, c->cmd, c->argv, pos);
    if (denied == ACCESS_DENIED_CMD)
        rejectCommand(c, "-NOPERM this user has no permissions to run the '%s' command", c->cmd->fullname);
    else if (denied == ACCESS_DENIED_KEY)
        rejectCommand(c, "-NOPERM this user has no permissions to access one of the keys used as arguments");
    else
        rejectCommand(c, "-NOPERM this user has no permissions to access one of the channels used as arguments");
    return 1;
}

int tooFewGoodReplicas(void) {
    return !server.masterhost_set && server.repl_min_slaves_to_write && server.repl_min_slaves_max_lag &&
           server.repl_good_slaves_count < server.repl_min_slaves_to_write;
}

/* The master's stream and the AOF replay are obeyed (Redis's mustObeyClient):
 * an AOF loaded by a read-only replica replays its scripts' writes too. */
int replicaRefusesWritesFrom(client *c) {
    return server.masterhost_set && server.repl_slave_ro && !(c->flags & (CLIENT_MASTER | CLIENT_AOF));
}

int replicaIsStaleAndStrict(void) {
    return server.masterhost_set && !server.repl_link_up && !server.repl_serve_stale_data;
}

/* What EXEC would run, as a whole: some queued command has flag (execHas)
 * or lacks it (execLacks). Both 0 for any other command. */
static int execHas(client *c, uint64_t flag) {
    return c->cmd == server.exec_command && (c->mstate.cmd_flags & flag);
}
static int execLacks(client *c, uint64_t flag) {
    return c->cmd == server.exec_command && (c->mstate.cmd_inv_flags & flag);
}

/* Looks the command up; 1 after replying when there is none by that name
 * (with Redis's wording for a container's unknown subcommand) or when its
 * arity does not match. */
static int rejectUnknownCommand(client *c) {
    c->cmd = c->lastcmd = c->realcmd = lookupCommand(c->argv, c->argc);
    if (c->cmd) {
        if (commandCheckArity(c->cmd, c->argc)) return 0;
        rejectCommand(c, "wrong number of arguments for '%s' command", c->cmd->fullname);
        return 1;
    }
    if (commandIsContainer(c->argv[0])) {
        sds cmd = sdsnew(c->argv[0]->ptr);
        sdstoupper(cmd);
        rejectCommand(c, "unknown subcommand '%.128s'. Try %s HELP.", (char *)c->argv[1]->ptr, cmd);
        sdsfree(cmd);
        return 1;
    }
    sds args = sdsempty();
    for (int i = 1; i < c->argc && sdslen(args) < 128; i++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *p = stringObjectView(c->argv[i], buf, &len);
        int room = 128 - (int)sdslen(args);
        args = sdscatprintf(args, "'%.*s' ", (int)len < room ? (int)len : room, p);
    }
    rejectCommand(c, "unknown command '%.128s', with args beginning with: %s", (char *)c->argv[0]->ptr, args);
    sdsfree(args);
    return 1;
}

/* Who may run what now: authentication, a busy script, MULTI's own limits,
 * the ACL. 1 after replying with the refusal. */
static int rejectByClientState(client *c, uint64_t flags) {
    if (accessAuthRequired(c) && !(flags & CMD_NO_AUTH)) {
        rejectCommandObject(c, shared.noautherr);
        return 1;
    }
    robj *err;
    /* While loading, a command that may not run then gets -LOADING (checked
     * later), not -BUSY, even when a script from the AOF runs long (as Redis). */
    int denied_by_loading = server.loading && !(flags & CMD_LOADING);
    if (!denied_by_loading && scriptBlocksCommand(c, &err)) {
        rejectCommandObject(c, err);
        return 1;
    }
    if ((c->flags & CLIENT_MULTI) && (flags & CMD_NO_MULTI)) {
        rejectCommand(c, "Command not allowed inside a transaction");
        return 1;
    }
    return rejectByAccessControl(c);
}

/* Client memory first (the last command may have grown some output buffer),
 * then keys; a client that is itself evicted runs nothing. maxmemory: evict
 * first (not while a busy script holds the loop), then refuse commands that
 * may add data if not enough could be freed. EXEC counts as such when it
 * holds one; inside MULTI nothing but the commands ending the transaction is
 * accepted while out of memory, as in Redis. 1 when refused. */
static int rejectByMemory(client *c, uint64_t flags) {
    if (evictClients(c)) return 1;
    if (server.maxmemory && !scriptTimedout() && performEvictions() == EVICT_FAIL) {
        int denyoom = (flags & CMD_DENYOOM) || execHas(c, CMD_DENYOOM);
        if ((c->flags & CLIENT_MULTI) && !endsTransaction(c->cmd)) denyoom = 1;
        if (denyoom) {
            rejectCommandObject(c, shared.oomerr);
            return 1;
        }
    }
    return 0;
}

/* What the server's state forbids, in Redis's order: writes after a failed
 * save, too few replicas, a read-only replica, RESP2 pub/sub mode, a stale
 * replica, loading, a replica touching keys. 1 after replying. */
static int rejectByServerState(client *c, uint64_t flags) {
    robj *err;
    int writes = (flags & CMD_WRITE) || execHas(c, CMD_WRITE);
    /* As Redis 7.0: PING too, so that a health check sees the failing disk. */
    if (((flags & CMD_WRITE) || c->cmd == server.ping_command) && (err = writeGateError())) {
        if (!(c->flags & CLIENT_MASTER)) {
            rejectCommandObject(c, err);
            return 1;
        }
        /* Our master's stream cannot be refused: a replica that cannot
         * persist it stops, unless told to go on (replica-ignore-disk-write-errors). */
        if (!server.repl_ignore_disk_write_error && c->cmd != server.ping_command)
            serverPanic("Replica was unable to write command to disk.");
        static long long last_log_ms;
        if (server.mstime > last_log_ms + 10000) {
            last_log_ms = server.mstime;
            serverLog(LL_WARNING, "Replica is applying a command even though it is unable to write to disk.");
        }
    }
    /* Replication's refusals (the state is repl/'s, kept in `server`). */
    if (writes && tooFewGoodReplicas()) {
        rejectCommand(c, "-NOREPLICAS Not enough good replicas to write.");
        return 1;
    }
    if (writes && replicaRefusesWritesFrom(c)) {
        rejectCommand(c, "-READONLY You can't write against a read only replica.");
        return 1;
    }
    if ((c->flags & CLIENT_PUBSUB) && c->resp == 2 && !isAllowedInPubsubContext(c->cmd)) {
        rejectCommand(c,
                      "Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                      "allowed in this context",
                      c->cmd->fullname);
        return 1;
    }
    /* An EXEC is refused too when a command it would run is (the replica may
     * have gone stale after the command was queued). */
    int denystale = !(flags & CMD_STALE) || execLacks(c, CMD_STALE);
    if (denystale && replicaIsStaleAndStrict()) {
        rejectCommand(c, "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
        return 1;
    }
    int denyloading = !(flags & CMD_LOADING) || execLacks(c, CMD_LOADING);
    int denyasync = (flags & CMD_NO_ASYNC_LOADING) || execHas(c, CMD_NO_ASYNC_LOADING);
    if ((server.loading && denyloading) || (server.async_loading && denyasync)) {
        rejectCommandObject(c, shared.loadingerr);
        return 1;
    }
    /* A replica (and a MONITOR connection, replica-like) may not touch keys. */
    int reads = (flags & CMD_READONLY) || execHas(c, CMD_READONLY);
    if ((c->flags & (CLIENT_MONITOR | CLIENT_SLAVE)) && (reads || (flags & (CMD_WRITE | CMD_MAY_REPLICATE)))) {
        rejectCommand(c, "Replica can't interact with the keyspace");
        return 1;
    }
    return 0;
}

/* An admitted command: held by a CLIENT PAUSE (checked after every refusal,
 * before queueing: in a transaction a write waits for the end of a CLIENT
 * PAUSE WRITE to be QUEUED, as in Redis 7.0), queued in MULTI, or run. */
static void runAdmittedCommand(client *c) {
    if (pauseHoldsCommand(c)) {
        blockPostponeClient(c);
        return;
    }
    if ((c->flags & CLIENT_MULTI) && !isTransactionControl(c->cmd)) {
        queueMultiCommand(c);
        addReply(c, shared.queued);
        return;
    }
    server.current_client = c;
    call(c, CALL_FULL);
    server.current_client = NULL;
    /* Its user was deleted while it ran (ACL DELUSER of itself): the reply goes, then the connection. */
    if (c->flags & CLIENT_CLOSE_AFTER_COMMAND) {
        c->flags &= ~CLIENT_CLOSE_AFTER_COMMAND;
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    }
    /* Not while a script is busy (this command came in between its steps):
     * clients blocked on its keys are served once it is over. */
    if (listLength(server.ready_keys) && !server.in_script) handleClientsBlockedOnKeys();
}

/* Returns C_OK when the client can go on with its next command. */
int processCommand(client *c) {
    if (rejectUnknownCommand(c)) return C_OK;
    uint64_t flags = commandFlags(c); /* a script's as it declares them */
    if (rejectByClientState(c, flags) || rejectByMemory(c, flags)) return C_OK;
    runCommandPrelude(c);
    if (rejectByServerState(c, flags)) return C_OK;
    runAdmittedCommand(c);
    return C_OK;
}

/* Runs c->cmd. Afterwards, as Redis 7.0 does: SLOWLOG and command stats
 * (unless the command blocked: they are done when it is served), then the
 * MONITOR feed (once, when the command ran the first time, so a blocking
 * command shows when it blocks), both with the argv as the client sent it
 * (secrets redacted) and in the database the command left selected — the
 * after-call observers main.c registers, in that order. Then the command
 * goes to the command stream, as its argv stands, if it changed data. */
/* Error replies already charged to a command: a command fails when error
 * replies were added since. Commands an EXEC or a script runs move it on,
 * so their errors are theirs alone, as in Redis 7.0. */
static long long errors_charged;

void callRejected(struct redisCommand *cmd, const char *err, size_t len) {
    if (cmd) cmd->rejected_calls++;
    countErrorReply(err, len);
    errors_charged = server.stat_total_error_replies;
}

/* The command c runs is the one it sent, its RESP bytes still whole in its
 * query buffer and in the form Redis would frame them: they go out as they
 * are (framing argv again costs replicas and the AOF more than the command). */
static int propagateClientCommandAsSent(client *c) {
    if (c->raw_start < 0 || c->argv != c->raw_argv || c->original_argv) return 0;
    const char *sent = c->querybuf + c->raw_start;
    size_t len = c->qb_pos - (size_t)c->raw_start;
    if (!respRequestIsCanonical(sent, len)) return 0;
    propagateCommandAsSent(c->db->id, c->argv, c->argc, sent, len);
    return 1;
}

static int call_depth; /* calls under way: an EXEC's or a script's commands are nested */

void call(client *c, int flags) {
    struct redisCommand *real_cmd = c->cmd;
    /* A command that does not write may look at the stream (INFO, WAIT, ROLE,
     * SYNC, BGSAVE...): it sees every write before it. */
    if (!(c->cmd->flags & CMD_WRITE)) propagateFlushStaged();
    long long dirty = server.dirty;
    errors_charged = server.stat_total_error_replies;
    int was_blocked = c->flags & CLIENT_BLOCKED;
    int prev_executing = c->flags & CLIENT_EXECUTING;
    int reprocessing = blockingIsReprocessing(c);
    c->flags &= ~(CLIENT_PREVENT_PROP | CLIENT_FORCE_REPL);
    c->flags |= CLIENT_EXECUTING;
    dbForgetLastLookup();
    monotime start = getMonotonicUs();
    /* The time a command's keys expire against, read as it starts; the
     * commands an EXEC or a script runs see their caller's (as in Redis 7.0). */
    if (call_depth++ == 0) setCachedTime(ustimeAt(start));
    /* A command that writes more than once (effects, expired keys it met)
     * replays as one unit, MULTI/EXEC around it, as in Redis 7.0. */
    int streamed = propagateActive();
    if (streamed) propagateTransactionStart(c->db->id);
    c->cmd->proc(c);
    long long duration = (long long)(getMonotonicUs() - start);
    call_depth--;
    if (!prev_executing) c->flags &= ~CLIENT_EXECUTING;
    dirty = server.dirty - dirty;
    if (dirty < 0) dirty = 0;
    if (server.stat_total_error_replies > errors_charged) real_cmd->failed_calls++;
    errors_charged = server.stat_total_error_replies;
    callInfo ci = {
        .c = c,
        .cmd = real_cmd,
        .argv = c->original_argv ? c->original_argv : c->argv,
        .argc = c->original_argv ? c->original_argc : c->argc,
        .duration_us = duration,
        .call_flags = flags,
        .blocked = (c->flags & CLIENT_BLOCKED) && !was_blocked,
        .reprocessing = reprocessing,
    };
    if (!ci.blocked && (flags & CALL_STATS)) {
        real_cmd->microseconds += duration;
        real_cmd->calls++;
    }
    runCallObservers(&ci);
    /* A subscriber may have come during the command (CONFIG SET appendonly
     * yes in a transaction): its writes from then on still go out. */
    if (streamed || propagateActive()) {
        if ((flags & CALL_PROPAGATE) && dirty && !(c->flags & (CLIENT_AOF | CLIENT_PREVENT_PROP)) &&
            !(c->cmd->flags & CMD_PROPAGATES_EFFECTS)) {
            if (!propagateClientCommandAsSent(c)) propagateCommand(c->db->id, c->argv, c->argc);
        }
        else if ((flags & CALL_PROPAGATE) && (c->flags & CLIENT_FORCE_REPL) && !(c->flags & CLIENT_AOF))
            propagateCommandToReplicas(c->db->id, c->argv, c->argc);
        if (streamed) propagateTransactionEnd(c->db->id);
    }
    c->flags &= ~(CLIENT_PREVENT_PROP | CLIENT_FORCE_REPL);
    c->lastcmd = c->cmd;
    c->commands_processed++;
    server.stat_numcommands++;
    server.command_turn_us = aeTurnStartUs(server.el);
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

/* Appends s to buf (at *len, capacity cap) without any libc formatting. */
static void handlerAppend(char *buf, size_t *len, size_t cap, const char *s) {
    while (*s && *len < cap) buf[(*len)++] = *s++;
}

static void handlerAppendNumber(char *buf, size_t *len, size_t cap, long long v) {
    char digits[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0 && *len < cap) buf[(*len)++] = '-';
    while (n > 0 && *len < cap) buf[(*len)++] = digits[--n];
}

/* Redis's "pid:signal-handler (unixtime) message" line, written with
 * async-signal-safe calls only. */
void serverLogFromHandler(int level, const char *msg) {
    if ((level & 0xff) < server.verbosity) return;
    int tostdout = server.logfile == NULL || server.logfile[0] == '\0';
    int fd = tostdout ? STDOUT_FILENO : open(server.logfile, O_APPEND | O_CREAT | O_WRONLY, 0644);
    if (fd == -1) return;
    char buf[512];
    size_t len = 0;
    handlerAppendNumber(buf, &len, sizeof(buf) - 1, (long long)getpid());
    handlerAppend(buf, &len, sizeof(buf) - 1, ":signal-handler (");
    handlerAppendNumber(buf, &len, sizeof(buf) - 1, (long long)time(NULL));
    handlerAppend(buf, &len, sizeof(buf) - 1, ") ");
    handlerAppend(buf, &len, sizeof(buf) - 1, msg);
    buf[len++] = '\n';
    if (write(fd, buf, len) == -1) { /* nothing to do about it in a handler */
    }
    if (!tostdout) close(fd);
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
static int listenToPort(void) {
    char err[ANET_ERR_LEN];
    server.ipfd_count = 0;
    if (server.port == 0) return C_OK;
    for (int j = 0; j < server.bindaddr_count; j++) {
        const char *addr = server.bindaddr[j];
        int optional = *addr == '-';
        if (optional) addr++;
        int fd = anetTcpServer(err, server.port, addr, server.tcp_backlog);
        if (fd == ANET_ERR) {
            if (optional) {
                serverLog(LL_VERBOSE, "Could not bind %s:%d: %s (skipped)", addr, server.port, err);
                continue;
            }
            serverLog(LL_WARNING, "Warning: Could not create server TCP listening socket %s:%d: %s", addr, server.port, err);
            /* The test harness looks for this line to retry on another port. */
            serverLog(LL_WARNING, "Failed listening on port %d (TCP), aborting.", server.port);
            for (int k = 0; k < server.ipfd_count; k++) close(server.ipfd[k]);
            server.ipfd_count = 0;
            return C_ERR;
        }
        anetNonBlock(NULL, fd);
        server.ipfd[server.ipfd_count++] = fd;
    }
    if (server.ipfd_count == 0 && server.bindaddr_count) {
        serverLog(LL_WARNING, "Failed listening on port %d (TCP), aborting.", server.port);
        return C_ERR;
    }
    return C_OK;
}

static void watchListeners(void) {
    for (int j = 0; j < server.ipfd_count; j++)
        aeCreateFileEvent(server.el, server.ipfd[j], AE_READABLE, acceptTcpHandler, NULL);
}

/* Closes the TCP listeners and listens again as bind and port now say. When
 * that fails CONFIG SET puts the old values back and calls it once more. */
static int relisten(void) {
    if (!server.el) return C_OK; /* read at start-up: initServer listens */
    for (int j = 0; j < server.ipfd_count; j++) {
        aeDeleteFileEvent(server.el, server.ipfd[j], AE_READABLE);
        close(server.ipfd[j]);
    }
    server.ipfd_count = 0;
    if (listenToPort() == C_ERR) return C_ERR;
    watchListeners();
    return C_OK;
}

int applyBind(const char **err) {
    if (relisten() == C_OK) return 1;
    *err = "Failed to bind to specified addresses.";
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
        if (server.port)
            return sdscatprintf(sdsempty(), "%s:%d", server.bindaddr_count ? server.bindaddr[0] : "*", server.port);
        return sdscatprintf(sdsempty(), "unixsocket:%s", server.unixsocket ? server.unixsocket : "");
    }
    if (IS("server-mode")) return sdsempty();
    if (IS("config-file")) return sdsnew(server.configfile ? server.configfile : "");
    if (IS("port")) return sdscatprintf(sdsempty(), "%d", server.port);
    if (IS("tls-port")) return sdsnew("0");
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

void createPidFile(void) {
    if (!server.pidfile) return;
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
    if (listenToPort() == C_ERR) exit(1);
    if (server.unixsocket) {
        char err[ANET_ERR_LEN];
        server.sofd = anetUnixServer(err, server.unixsocket, server.unixsocketperm, server.tcp_backlog);
        if (server.sofd == ANET_ERR) {
            serverLog(LL_WARNING, "Failed opening Unix socket: %s", err);
            exit(1);
        }
        anetNonBlock(NULL, server.sofd);
    }
    if (server.ipfd_count == 0 && server.sofd < 0) {
        serverLog(LL_WARNING, "Configured to not listen anywhere, exiting.");
        exit(1);
    }
    watchListeners();
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
