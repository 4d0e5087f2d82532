/* dispatch: the command pipeline — processCommand's checks in Redis's order
 * (unknown command, arity, auth and ACL, MULTI queueing, pub/sub context, a
 * busy script, OOM, replica and persistence write gates, pause), then call():
 * the proc, its stats and observers, and its propagation. */
#include "server/dispatch.h"
#include "server/command.h"
#include "server/access.h"
#include "server/blocking.h"
#include "server/clientmem.h"
#include "server/db.h"
#include "server/evict.h"
#include "server/pause.h"
#include "server/propagate.h"
#include "server/resp_parse.h"
#include "server/reply.h"
#include "server/transaction.h"
#include "core/panic.h"

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
    sds e = objectPtr(err); /* "-CODE message\r\n" */
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
        sds cmd = sdsnew(objectPtr(c->argv[0]));
        sdstoupper(cmd);
        rejectCommand(c, "unknown subcommand '%.128s'. Try %s HELP.", (char *)objectPtr(c->argv[1]), cmd);
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
    rejectCommand(c, "unknown command '%.128s', with args beginning with: %s", (char *)objectPtr(c->argv[0]), args);
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
    if (rejectByClientState(c, flags)) return C_OK;
    if (command_router && command_router->route(c)) return C_OK;
    if (rejectByMemory(c, flags)) return C_OK;
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

const commandDispatcher dispatchPipeline = {.process = processCommand, .call = call};
