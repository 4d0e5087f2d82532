/* internal: what the master side (master.c) and the replica side
 * (replica.c) of replication share — the replication ID and offset (a
 * replica takes its master's), and the stream a replica passes on to its
 * own replicas. Not for use outside repl/. */
#ifndef REPL_INTERNAL_H
#define REPL_INTERNAL_H

#include "server/server.h"
#include "persist/rdb.h"

#define REPL_ID_LEN CONFIG_RUN_ID_SIZE

typedef struct replIdentity {
    char replid[REPL_ID_LEN + 1];
    char replid2[REPL_ID_LEN + 1]; /* the ID we were replicating before the last switch */
    long long offset;              /* master_repl_offset: bytes of stream produced (or applied) */
    long long second_offset;       /* replid2 is valid up to this offset; -1 if none */
} replIdentity;
extern replIdentity replId;

/* ---- master.c */
void replChangeId(void);
void replClearId2(void);
/* Our ID becomes the secondary one, valid up to the current offset, and a new one is drawn. */
void replShiftId(void);
/* Bytes of stream (produced here, or received from our master) to the backlog and replicas. */
void replFeedStream(const char *buf, size_t len);
void replEnsureBacklog(void);
void replFreeBacklog(void);
/* Closes every replica link (they reconnect and resync). */
void replDisconnectReplicas(void);
/* Sends REPLCONF GETACK * to the replicas (WAIT asks them once per event loop turn). */
void replRequestAcks(void);
void replMasterCron(void);
/* The next command in the stream is preceded by a SELECT. */
void replForceSelect(void);
sds replMasterInfo(sds info);
void replMasterClientTeardown(client *c);
int replCountAcked(long long offset);

/* ---- replica.c */
void replicaInit(void);
void replicaStart(void);
void replicaCron(void);
sds replicaInfo(sds info); /* the replica-only INFO fields; info unchanged on a master */
void replicaRole(client *c);
void replicaClientTeardown(client *c);
int replicaLinkEstablished(void);
/* The db our master's stream has selected; -1 with no master known. */
int replicaStreamDb(void);
/* A snapshot loaded at start-up said where its data stands in a master's stream. */
void replicaLoadedReplInfo(const rdbReplInfo *rsi);
/* REPLCONF GETACK from our master: an ACK with the offset applied so far. */
void replicaAnswerGetack(void);

#endif
