/* persist: the persistence hooks the server core calls (snapshots, their
 * schedule, shutdown saving, start-up loading); RDB format code is in rdb.c. */
#ifndef PERSIST_PERSIST_H
#define PERSIST_PERSIST_H

#include "data/object.h"

void persistCron(void);
void persistBeforeSleep(void);
/* The write gate: -MISCONF while stop-writes-on-bgsave-error is in effect
 * (a failed BGSAVE) or the AOF cannot be written or fsynced. */
robj *persistWriteGate(void);
int persistOnShutdown(int flags);
/* In the second SIGINT's handler (async-signal-safe): removes our temp RDB file. */
void persistForcedExitCleanup(void);
/* FLUSHALL with save points: the snapshot becomes the empty dataset at once
 * (a save in progress is abandoned) and the write count starts again from 0,
 * as in Redis. 1 when it saved. */
int persistAfterFlushall(void); /* save/flush as configured; C_ERR to refuse shutdown */
int persistLoadAtStartup(void);
/* DEBUG RELOAD: save, flush (data and functions) and load back; each step
 * optional (NOSAVE, NOFLUSH), MERGE lets the file's keys and libraries replace
 * those present. */
int persistDebugReload(int save, int flush, int merge);
/* Appends the "# Persistence" INFO section. */
sds persistInfo(sds info);
/* A BGSAVE child is writing a snapshot (an AOF rewrite then waits). */
int persistSaveChildActive(void);
/* BGSAVE: a forked child writes temp-<pid>.rdb and renames it to dbfilename;
 * the parent logs it, and once done resets the write count and updates
 * lastsave and the status. A disk-based full sync is this same save, as in
 * Redis 7.0 (repl/ is told when it ends). C_ERR when another child runs or
 * the fork fails. */
int persistBackgroundSave(void);
/* rdb-del-sync-files: the RDB files of full syncs are not kept when the
 * server persists nothing (no save points, no AOF), as Redis 7.0. */
int persistDeleteSyncFiles(void);
/* The BGSAVE child goes (a snapshot nobody needs any more); not a failure. */
void persistKillSaveChild(void);

/* Replication's snapshot child (repl/ registers; main.c wires it): one child
 * at a time counts it too, so persistence asks whether it runs; a BGSAVE
 * that replicas wait for (a disk-based full sync) tells it how it ended (1:
 * the file is there; 0: failed or killed, its replicas start over); FLUSHALL
 * kills it (the data it holds is gone). */
typedef struct replSnapshotHooks {
    int (*child_active)(void);
    void (*bgsave_done)(int ok);
    void (*kill_child)(void);
} replSnapshotHooks;
void persistSetReplSnapshotHooks(const replSnapshotHooks *hooks);
/* A full sync's snapshot child runs (0 with no replication registered). */
int persistReplChildActive(void);

#endif
