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
/* A child writes a snapshot for replicas (INFO rdb_bgsave_in_progress counts it, as Redis). */
int replSnapshotChildActive(void);
/* FLUSHALL: the snapshot being made for replicas is of data now gone; its
 * child is killed and its replicas start over. */
void replKillSnapshotChild(void);
/* Shutdown check: a replication snapshot child goes before the final save
 * (as Redis kills any RDB child), its files with it. Always C_OK. */
int replOnShutdown(int flags);
long long replStatSyncFull(void);
/* Replicas attached (any state): INFO connected_clients leaves them out. */
unsigned long replReplicaCount(void);
long long replStatSyncPartialOk(void);
long long replStatSyncPartialErr(void);

#endif
