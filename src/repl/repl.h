/* repl: replication as Redis 7.0 does it. The master side subscribes to the
 * command stream (server/propagate.h) and feeds replicas and the backlog;
 * the replica side connects to a master, loads its RDB and applies its
 * stream. main.c calls replInit() at start-up. */
#ifndef REPL_REPL_H
#define REPL_REPL_H

#include "server/server.h"

/* Wires the stream subscription, cron, client teardown and the replicaof directive. */
void replInit(void);
/* After the config is read and the dataset loaded: starts the link when replicaof was set. */
void replStart(void);
/* INFO "# Replication". */
sds replInfo(sds info);
/* INFO stats: full resyncs served, partial resyncs accepted and refused. */
/* A child writes a diskless snapshot for replicas (INFO rdb_bgsave_in_progress
 * counts it, as Redis). A snapshot to disk is a BGSAVE (persist.c). */
int replSnapshotChildActive(void);
/* persist.c: its BGSAVE child ended (ok) or failed or was killed (0); the
 * replicas waiting for it get the file or are dropped. */
void replDiskSnapshotDone(int ok);
/* FLUSHALL: the diskless snapshot being made for replicas is of data now
 * gone; its child is killed and its replicas start over. */
void replKillSnapshotChild(void);
/* Shutdown check: a diskless snapshot child goes before the final save (as
 * Redis kills any RDB child). Always C_OK. */
int replOnShutdown(int flags);
long long replStatSyncFull(void);
/* Replicas attached (any state): INFO connected_clients leaves them out. */
unsigned long replReplicaCount(void);
long long replStatSyncPartialOk(void);
long long replStatSyncPartialErr(void);

#endif
