/* repl: replication as Redis 7.0 does it. The master side subscribes to the
 * command stream (server/propagate.h) and feeds replicas and the backlog;
 * the replica side connects to a master, loads its RDB and applies its
 * stream. main.c calls replInit() at start-up. */
#ifndef REPL_REPL_H
#define REPL_REPL_H

#include "persist/persist.h"
#include "persist/rdb.h"
#include "server/hooks.h"
#include "server/server.h"

/* The replication state (IDs, lists); before the config is read. */
void replInit(void);
/* After the config is read and the dataset loaded: starts the link when replicaof was set. */
void replStart(void);
/* What main.c wires (its table says where each runs):
 * the cron (backlog trim, replicas' timeouts, our link to a master) and the
 * before-sleep step (a child's end, WAIT's GETACK, a reconnect, a failover);
 * a replica's or our master's client freed; */
void replCron(void);
void replBeforeSleep(void);
void replClientTeardown(client *c);
/* the command stream (propagate.h): commands to replicas and the backlog, and
 * the staged bytes handed on; the master's stream applied here (hooks.h); */
void replStreamSubscriber(int dbid, robj **argv, int argc);
void replFlushStaged(void);
void replMasterStreamApplied(client *master, const char *buf, size_t len);
/* our place in the stream as an RDB file records it, and what a loaded file
 * recorded (rdb.h); */
int replFillRdbInfo(rdbReplInfo *rsi);
void replLoadedRdbInfo(const rdbReplInfo *rsi);
/* the directives: CONFIG SET repl-backlog-size, and replicaof as a special
 * directive (config.h); the shutdown's wait for replicas (hooks.h). */
int replApplyBacklogSize(const char **err);
int replSetReplicaofDirective(sds *argv, int argc, int from_file, const char **err);
sds replGetReplicaofDirective(void);
extern const shutdownReplicaHooks replShutdownHooks;
/* INFO "# Replication". */
sds replInfo(sds info);
/* INFO stats: full resyncs served, partial resyncs accepted and refused. */
/* What persistence asks of replication's snapshot child (persist.h): a
 * diskless snapshot's child counts as a running child (INFO
 * rdb_bgsave_in_progress too, as Redis); a BGSAVE that replicas wait for
 * hands them the file when it ends, or drops them; FLUSHALL kills the
 * diskless child (its replicas start over). main.c registers it. */
extern const replSnapshotHooks replSnapshotOfMaster;
/* A capability a replica of ours announces in its handshake (REPLCONF capa
 * <name>; a Redis master ignores names it does not know) and the module
 * above that serves it: on the master, announced() when a replica says it has
 * it, full_sync(offset) when such a replica starts a full sync whose
 * snapshot is taken at that stream offset (the one +FULLRESYNC names; several
 * replicas sharing a snapshot give the same). Up to 64 (a link keeps them as
 * bits). */
typedef struct replCapability {
    const char *name;
    void (*announced)(void);
    void (*full_sync)(long long offset);
} replCapability;
void replAddReplicaCapability(const replCapability *capa);
/* Bytes the stream may take now without bringing any replica near its
 * client-output-buffer-limit: half the lowest replica limit set (hard or
 * soft; 64 MB when neither is) less the most any replica fed from the
 * stream has still to send (one held until its snapshot is loaded counts
 * too). For a module feeding a large amount at its own pace. */
long long replReplicaOutputRoom(void);
/* On a replica: the offset its master's +FULLRESYNC named for the full sync
 * the current stream follows (its data's snapshot); -1 before any, once
 * promoted, and once a partial resync took another master's history. */
long long replSyncedFrom(void);
/* Shutdown check: a diskless snapshot child goes before the final save (as
 * Redis kills any RDB child). Always C_OK. */
int replOnShutdown(int flags);
/* What Redis Cluster asks of replication (cluster/): follow a master at
 * host:port (nothing when already), stop following, whether we follow that
 * one; our offset (a master's produced, a replica's applied: 0 while it has
 * no master's history, a full sync's load included) and how long
 * ago (ms) our master last spoke, or since the link went down. */
void replFollow(const char *host, int port);
void replStopFollowing(void);
int replIsFollowing(const char *host, int port);
long long replOffset(void);
long long replMasterDataAgeMs(void);
long long replStatSyncFull(void);
/* Replicas attached (any state): INFO connected_clients leaves them out. */
unsigned long replReplicaCount(void);
long long replStatSyncPartialOk(void);
long long replStatSyncPartialErr(void);

#endif
