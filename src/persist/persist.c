/* persist: snapshots and their schedule — SAVE, BGSAVE (forked child, the
 * parent keeps serving with copy-on-write), save points checked by the cron,
 * saving on shutdown, loading at start-up, and the INFO persistence section.
 * The AOF is not written yet. */
#include "persist/persist.h"
#include "persist/aof.h"
#include "persist/bgchild.h"
#include "persist/rdb.h"
#include "persist/libstore.h"
#include "server/client.h"
#include "server/lifecycle.h"
#include "server/db.h"
#include "server/reply.h"
#include "server/supervise.h"
#include "core/clock.h"
#include "core/zmalloc.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t child_pid = -1;
static time_t child_start;
static int lastbgsave_ok = 1;
static long long dirty_before_bgsave;
static time_t lastbgsave_try;
static long long rdb_saves;
static long long last_bgsave_time_sec = -1;
static int bgsave_scheduled;

static void snapshotDone(int ok, time_t when) {
    if (ok) {
        server.lastsave = when;
        rdb_saves++;
    }
    lastbgsave_ok = ok;
}

/* A failed SAVE is not a failed BGSAVE: as in Redis it leaves
 * rdb_last_bgsave_status (and so -MISCONF) as it was. */
static int saveForeground(void) {
    if (rdbSave(server.dbfilename, 0) != C_OK) return C_ERR;
    server.dirty = 0;
    snapshotDone(1, time(NULL));
    return C_OK;
}

int persistSaveChildActive(void) { return child_pid != -1; }

static const replSnapshotHooks *repl_snapshot;
void persistSetReplSnapshotHooks(const replSnapshotHooks *hooks) { repl_snapshot = hooks; }
int persistReplChildActive(void) { return repl_snapshot && repl_snapshot->child_active(); }
static void replBgsaveDone(int ok) {
    if (repl_snapshot) repl_snapshot->bgsave_done(ok);
}

int persistDeleteSyncFiles(void) { return server.rdb_del_sync_files && !server.saveparamslen && !server.aof_enabled; }

/* A snapshot child: BGSAVE's, or a full resync's (repl/). */
static int snapshotChildRunning(void) { return child_pid != -1 || persistReplChildActive(); }

/* One child at a time, as Redis: an AOF rewrite's counts as well. */
static int anyChildRunning(void) { return snapshotChildRunning() || aofRewriteInProgress(); }

int persistBackgroundSave(void) {
    if (anyChildRunning()) return C_ERR;
    lastbgsave_try = time(NULL);
    dirty_before_bgsave = server.dirty;
    pid_t pid = bgchildFork(BGCHILD_RDB);
    if (pid == 0) {
        /* The child: write the snapshot of memory as it was at fork time. */
        int ok = rdbSave(server.dbfilename, 0) == C_OK;
        if (ok) bgchildReportCow();
        _exit(ok ? 0 : 1);
    }
    if (pid == -1) {
        serverLog(LL_WARNING, "Can't save in background: fork: %s", strerror(errno));
        lastbgsave_ok = 0;
        return C_ERR;
    }
    serverLog(LL_NOTICE, "Background saving started by pid %d", (int)pid);
    child_pid = pid;
    child_start = time(NULL);
    return C_OK;
}

static void checkChildDone(void) {
    if (child_pid == -1) return;
    int status;
    pid_t pid = waitpid(child_pid, &status, WNOHANG);
    if (pid == 0) return;
    int ok = pid == child_pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    bgchildCollect(child_pid);
    if (ok) {
        serverLog(LL_NOTICE, "Background saving terminated with success");
        server.dirty -= dirty_before_bgsave;
        if (server.dirty < 0) server.dirty = 0;
        snapshotDone(1, lastbgsave_try);
    } else if (pid == child_pid && WIFSIGNALED(status)) {
        serverLog(LL_WARNING, "Background saving terminated by signal %d", WTERMSIG(status));
        rdbRemoveTempFile(child_pid);
        /* SIGUSR1 is how to stop a save without it counting as failed (no
         * MISCONF), as Redis. */
        if (WTERMSIG(status) != SIGUSR1) snapshotDone(0, 0);
    } else {
        serverLog(LL_WARNING, "Background saving error");
        snapshotDone(0, 0);
    }
    last_bgsave_time_sec = time(NULL) - child_start;
    child_pid = -1;
    /* Replicas waiting for this snapshot get the file (or are dropped). */
    replBgsaveDone(ok);
}

void persistCron(void) {
    bgchildPoll();
    aofCron();
    checkChildDone();
    if (anyChildRunning()) return;
    if (bgsave_scheduled) {
        bgsave_scheduled = 0;
        persistBackgroundSave();
        return;
    }
    time_t now = time(NULL);
    for (int j = 0; j < server.saveparamslen; j++) {
        struct saveparam *sp = &server.saveparams[j];
        /* After a failed save, wait a little before trying again. */
        if (server.dirty >= sp->changes && now - server.lastsave > sp->seconds &&
            (lastbgsave_ok || now - lastbgsave_try > 5)) {
            serverLog(LL_NOTICE, "%d changes in %d seconds. Saving...", sp->changes, (int)sp->seconds);
            persistBackgroundSave();
            break;
        }
    }
}

void persistBeforeSleep(void) { aofFlush(); }

/* The refusal for an AOF that cannot be written, made again when the reason changes. */
static robj *aofWriteError(int err) {
    static robj *reply;
    static int reply_errno;
    if (!reply || reply_errno != err) {
        if (reply) decrRefCount(reply);
        reply = createObject(OBJ_STRING, sdscatprintf(sdsempty(), "-MISCONF Errors writing to the AOF file: %s\r\n", strerror(err)));
        reply_errno = err;
    }
    return reply;
}

robj *persistWriteGate(void) {
    if (server.stop_writes_on_bgsave_err && server.saveparamslen > 0 && !lastbgsave_ok) return shared.bgsaveerr;
    int err = aofWriteErrno();
    return err ? aofWriteError(err) : NULL;
}

/* A BGSAVE that no longer matters (FLUSHALL, shutdown): its child goes, and
 * the temp file it was writing with it; not a failed save (no MISCONF). */
static void killSaveChild(void) {
    if (child_pid == -1) return;
    bgchildKill(child_pid);
    child_pid = -1;
    replBgsaveDone(0); /* its replicas sync again, as Redis's after a killed child */
}

void persistKillSaveChild(void) { killSaveChild(); }

int persistAfterFlushall(void) {
    /* As Redis: a snapshot being written holds the data just dropped,
     * whether a BGSAVE's or a full resync's (whose replicas sync again). */
    killSaveChild();
    if (repl_snapshot) repl_snapshot->kill_child();
    if (server.saveparamslen == 0) return 0;
    saveForeground();
    return 1;
}

/* Redis 7.0's order: the BGSAVE child goes, the AOF is made durable (unless
 * its first rewrite is still being written: nothing on disk holds the data
 * yet), then the final snapshot. C_ERR refuses the shutdown (FORCE exits
 * anyway); nothing is stopped for good, the server can go on. */
int persistOnShutdown(int flags) {
    int force = flags & SHUTDOWN_FORCE;
    if (child_pid != -1) { /* (a full resync's snapshot child went first: replOnShutdown) */
        serverLog(LL_WARNING, "There is a child saving an .rdb. Killing it!");
        killSaveChild();
    }
    if (aofPrepareShutdown(force) != C_OK) return C_ERR;
    if ((server.saveparamslen > 0 && !(flags & SHUTDOWN_NOSAVE)) || (flags & SHUTDOWN_SAVE)) {
        serverLog(LL_NOTICE, "Saving the final RDB snapshot before exiting.");
        superviseNotify("STATUS=Saving the final RDB snapshot\n");
        if (saveForeground() != C_OK) {
            if (!force) {
                serverLog(LL_WARNING, "Error trying to save the DB, can't exit.");
                superviseNotify("STATUS=Error trying to save the DB, can't exit.\n");
                return C_ERR;
            }
            serverLog(LL_WARNING, "Error trying to save the DB. Exit anyway.");
        }
    }
    return C_OK;
}

/* A second SIGINT exits from its handler: the snapshot it interrupts must not stay behind. */
void persistForcedExitCleanup(void) { rdbRemoveTempFile(getpid()); }

int persistLoadAtStartup(void) {
    if (server.aof_enabled) return aofLoadAtStartup();
    if (aofLoadAtStartup() != C_OK) return C_ERR; /* installs the propagation sink */
    int missing;
    long long start = mstime();
    int rc = rdbLoadServing(server.dbfilename, processEventsWhileBlocked, &missing);
    if (rc == C_OK) {
        serverLog(LL_NOTICE, "DB loaded from disk: %.3f seconds", (double)(mstime() - start) / 1000);
        return C_OK;
    }
    return missing ? C_OK : C_ERR;
}

/* DEBUG RELOAD: save, empty, load back — a round trip through the RDB code.
 * Functions are emptied too (FLUSHALL keeps them; this does not). */
int persistDebugReload(int save, int flush, int merge) {
    if (save && saveForeground() != C_OK) return C_ERR;
    if (flush) {
        dbAnnounceReplaced(NULL);
        emptyData(-1, NULL);
        librariesFlushAll();
    }
    int missing;
    return rdbLoad(server.dbfilename, merge ? RDB_LOAD_MERGE : 0, &missing);
}

sds persistInfo(sds info) {
    bgchildInfo child;
    bgchildCurrentInfo(&child);
    info = sdscatprintf(info,
                        "# Persistence\r\nloading:%d\r\nasync_loading:%d\r\ncurrent_cow_peak:%zu\r\ncurrent_cow_size:%zu\r\n"
                        "current_cow_size_age:%lld\r\ncurrent_fork_perc:%.2f\r\ncurrent_save_keys_processed:%zu\r\n"
                        "current_save_keys_total:%zu\r\nrdb_changes_since_last_save:%lld\r\n"
                        "rdb_bgsave_in_progress:%d\r\nrdb_last_save_time:%lld\r\nrdb_last_bgsave_status:%s\r\n"
                        "rdb_last_bgsave_time_sec:%lld\r\nrdb_current_bgsave_time_sec:%lld\r\nrdb_saves:%lld\r\n"
                        "rdb_last_cow_size:%zu\r\nrdb_last_load_keys_expired:%lld\r\nrdb_last_load_keys_loaded:%lld\r\n",
                        server.loading, server.async_loading, child.cow_peak, child.cow, child.cow_age_sec,
                        child.keys_total ? 100.0 * child.keys_processed / child.keys_total : 0.0, child.keys_processed,
                        child.keys_total, server.dirty, child_pid != -1 || persistReplChildActive(),
                        (long long)server.lastsave,
                        lastbgsave_ok ? "ok" : "err", last_bgsave_time_sec,
                        child_pid != -1 ? (long long)(time(NULL) - child_start) : -1LL, rdb_saves,
                        bgchildLastCow(BGCHILD_RDB), rdbLastLoadKeysExpired(), rdbLastLoadKeysLoaded());
    info = aofInfo(info);
    info = sdscatprintf(info, "aof_last_cow_size:%zu\r\nmodule_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n",
                        bgchildLastCow(BGCHILD_AOF));
    return rdbLoadingInfo(info);
}

/* ---------------------------------------------------------------- commands */

void saveCommand(client *c) {
    if (snapshotChildRunning()) {
        addReplyError(c, "Background save already in progress");
        return;
    }
    if (saveForeground() == C_OK) addReply(c, shared.ok);
    else addReplyErrorObject(c, shared.err);
}

void bgsaveCommand(client *c) {
    int schedule = 0;
    if (c->argc > 1) {
        if (c->argc == 2 && !strcasecmp(objectPtr(c->argv[1]), "schedule")) {
            schedule = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (snapshotChildRunning()) {
        addReplyError(c, "Background save already in progress");
        return;
    }
    if (server.in_exec || aofRewriteInProgress()) {
        if (schedule || server.in_exec) {
            bgsave_scheduled = 1;
            addReplyStatus(c, "Background saving scheduled");
        } else {
            addReplyError(c, "Another child process is active (AOF?): can't BGSAVE right now. "
                             "Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.");
        }
        return;
    }
    if (persistBackgroundSave() == C_OK) addReplyStatus(c, "Background saving started");
    else addReplyErrorObject(c, shared.err);
}

void lastsaveCommand(client *c) { addReplyLongLong(c, (long long)server.lastsave); }
