/* internal: what the master side (master.c) and the replica side
 * (replica.c) of replication share — the replication ID and offset (a
 * replica takes its master's), and the stream a replica passes on to its
 * own replicas. Not for use outside repl/. */
#ifndef REPL_INTERNAL_H
#define REPL_INTERNAL_H

#include "repl/repl.h"
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
/* The capabilities registered (replAddReplicaCapability), in order; a link's
 * capa bits index this. */
#define MAX_REPL_CAPABILITIES 64 /* a link's capa_mask holds their bits */
extern const replCapability **replCapabilities;
extern int replCapabilityCount;
void replChangeId(void);
void replClearId2(void);
/* Our ID becomes the secondary one, valid up to the current offset, and a new one is drawn. */
void replShiftId(void);
/* Bytes of stream (produced here, or received from our master) to the backlog and replicas. */
void replFeedStream(const char *buf, size_t len);
void replEnsureBacklog(void);
void replFreeBacklog(void);
/* After the backlog or the master/replica role changed. */
void replUpdateStreamSubscription(void);
/* Closes every replica link (they reconnect and resync). */
void replDisconnectReplicas(void);
/* Sends REPLCONF GETACK * to the replicas (WAIT asks them once per event loop turn). */
void replRequestAcks(void);
void replMasterCron(void);
/* The next command in the stream is preceded by a SELECT. */
void replForceSelect(void);
sds replMasterInfo(sds info);
int replCountAcked(long long offset);

/* The replica at host:port (its announced address); 1 if found, with its state and acknowledged offset. */
int replFindReplica(const char *host, int port, int *online, long long *ack_off);
/* Some online replica acknowledged our whole stream: its address. */
int replCaughtUpReplica(char *ip, size_t iplen, int *port);

/* ---- failover.c */
enum { FAILOVER_NONE, FAILOVER_WAIT_FOR_SYNC, FAILOVER_IN_PROGRESS };
/* Before each sleep (repl's own before-sleep step): moves a failover on. */
void failoverBeforeSleep(void);
int failoverState(void);
const char *failoverStateName(void); /* INFO master_failover_state */
/* Gives the master role back (when the switch had begun) and ends the pause. */
void failoverAbort(const char *why);
/* Our PSYNC ... FAILOVER to the target was accepted (or refused, or the link failed). */
void failoverPsyncAnswered(int accepted);

/* ---- replica.c */
/* REPLICAOF host port / NO ONE, for the failover. */
void replicaSetMaster(const char *host, int port);
void replicaUnsetMaster(void);
/* Before each sleep (repl's own before-sleep step): a reconnect asked for this turn. */
void replicaBeforeSleep(void);
void replicaStart(void);
void replicaCron(void);
sds replicaInfo(sds info); /* the replica-only INFO fields; info unchanged on a master */
void replicaRole(client *c);
void replicaClientTeardown(client *c);
int replicaLinkEstablished(void);
/* The db our master's stream has selected; -1 with no master known. */
int replicaStreamDb(void);
/* REPLCONF GETACK from our master: an ACK with the offset applied so far. */
void replicaAnswerGetack(void);

#endif
