/* state: what a cluster node knows — the nodes, who serves each of the 16384
 * slots, the epochs — and the operations that keep it consistent. The bus
 * (bus.c, gossip.c) changes it from what peers say, the CLUSTER command from
 * what an operator says; nodesconf.c keeps it on disk. Internal to cluster/. */
#ifndef CLUSTER_STATE_H
#define CLUSTER_STATE_H

#include <stdint.h>

#include "core/crc16.h"
#include "core/dict.h"
#include "core/sds.h"
#include "server/server.h"

#define CLUSTER_NAMELEN 40

/* Node flags: the values are the bus's (header and gossip `flags`). */
#define NODE_MASTER 1
#define NODE_SLAVE 2
#define NODE_PFAIL 4
#define NODE_FAIL 8
#define NODE_MYSELF 16
#define NODE_HANDSHAKE 32
#define NODE_NOADDR 64
#define NODE_MEET 128
#define NODE_MIGRATE_TO 256
#define NODE_NOFAILOVER 512

#define CLUSTER_OK 0
#define CLUSTER_FAIL 1

/* A connection on the bus. Outbound links are ours to a node (node->link);
 * inbound ones are accepted, and learn their node from its first message. */
typedef struct clusterLink {
    int fd;
    int inbound;
    int connecting; /* an outbound connect(2) not finished yet */
    long long ctime;
    struct clusterNode *node;
    sds sndbuf;
    size_t sndpos; /* bytes of sndbuf already written */
    unsigned char *rcvbuf;
    size_t rcvlen, rcvcap;
} clusterLink;

typedef struct failReport {
    struct clusterNode *node; /* the master that says it is failing */
    long long time;           /* when it last said so */
} failReport;

typedef struct clusterNode {
    char name[CLUSTER_NAMELEN];
    int flags;
    long long ctime;
    uint64_t configEpoch;
    unsigned char slots[CLUSTER_SLOTS / 8];
    int numslots;
    struct clusterNode **replicas;
    int numreplicas;
    struct clusterNode *master; /* for a replica; NULL when unknown or a master */
    long long ping_sent;        /* 0: no ping pending */
    long long pong_received;
    long long data_received;
    long long fail_time;
    long long voted_time;       /* last vote we gave to one of its replicas */
    long long repl_offset_time;
    long long orphaned_time;
    long long repl_offset;
    char ip[NET_IP_STR_LEN];
    sds hostname; /* cluster-announce-hostname as it said; empty when none */
    int port, pport, cport;
    clusterLink *link;         /* ours to it */
    clusterLink *inbound_link; /* its to us */
    failReport *reports;
    int nreports;
} clusterNode;

/* Bus message types (the header's `type`). */
#define MSG_PING 0
#define MSG_PONG 1
#define MSG_MEET 2
#define MSG_FAIL 3
#define MSG_PUBLISH 4
#define MSG_AUTH_REQUEST 5
#define MSG_AUTH_ACK 6
#define MSG_UPDATE 7
#define MSG_MFSTART 8
#define MSG_MODULE 9
#define MSG_PUBLISHSHARD 10
#define MSG_TYPE_COUNT 11

/* Work gathered during a turn and done once before sleeping. */
#define TODO_UPDATE_STATE 1
#define TODO_SAVE_CONFIG 2
#define TODO_FSYNC_CONFIG 4
#define TODO_HANDLE_FAILOVER 8

typedef struct clusterState {
    uint64_t currentEpoch;
    uint64_t lastVoteEpoch;
    int state; /* CLUSTER_OK or CLUSTER_FAIL */
    int size;  /* masters serving at least one slot */
    dict *nodes;     /* name (40 bytes, sds) -> clusterNode */
    dict *blacklist; /* name -> when a FORGET stops re-adding it (ms) */
    clusterNode *slots[CLUSTER_SLOTS];
    clusterNode *migrating_to[CLUSTER_SLOTS];
    clusterNode *importing_from[CLUSTER_SLOTS];
    /* Slots still bound to an owner whose messages no longer claim them
     * (7.0 keeps the binding, to avoid a FAIL state, but neither counts it
     * against a newer claim nor repeats it in an UPDATE). */
    unsigned char owner_not_claiming[CLUSTER_SLOTS / 8];
    /* Our election, as a replica of a failed master. */
    long long failover_auth_time;
    int failover_auth_count;
    int failover_auth_sent;
    int failover_auth_rank;
    uint64_t failover_auth_epoch;
    int cant_failover_reason;
    /* Manual failover (CLUSTER FAILOVER), on either side. */
    long long mf_end;           /* 0: none under way */
    clusterNode *mf_replica;    /* on the master: who asked */
    long long mf_master_offset; /* on the replica: the master's offset once it paused; -1 before */
    int mf_can_start;
    int todo;
    long long stats_sent[MSG_TYPE_COUNT];
    long long stats_received[MSG_TYPE_COUNT];
    long long stats_pfail_nodes;
    long long stat_links_buffer_limit_exceeded;
    long long state_changed_at; /* when the state last went to FAIL, or was rejoined */
    long long among_minority_time;
} clusterState;

extern clusterState *cluster;
extern clusterNode *myself; /* this node, in cluster->nodes too */

/* Nodes. */
clusterNode *createClusterNode(const char *name, int flags); /* NULL name: a random one */
void freeClusterNode(clusterNode *n);
void clusterAddNode(clusterNode *n);
void clusterDelNode(clusterNode *n); /* also drops its slots, reports and links */
clusterNode *clusterLookupNode(const char *name, size_t len);
void clusterRenameNode(clusterNode *n, const char *newname);
int verifyClusterNodeId(const char *name, size_t len);
int nodeIsMaster(const clusterNode *n);
int nodeIsReplica(const clusterNode *n);
int nodeTimedOut(const clusterNode *n);
int nodeFailed(const clusterNode *n);
int nodeInHandshake(const clusterNode *n);
int clusterNodeAddReplica(clusterNode *master, clusterNode *replica);
int clusterNodeRemoveReplica(clusterNode *master, clusterNode *replica);
void clusterSetNodeAsMaster(clusterNode *n);
int clusterCountNonFailingReplicas(const clusterNode *n);
/* The master of n's shard: n, or its master when n is a replica that knows it. */
clusterNode *clusterShardMaster(clusterNode *n);
/* Failure reports about n from master `sender`. */
int clusterNodeAddFailureReport(clusterNode *n, clusterNode *sender);
int clusterNodeDelFailureReport(clusterNode *n, clusterNode *sender);
int clusterNodeFailureReportsCount(clusterNode *n); /* stale ones dropped first */
void clusterNodeCleanupFailureReports(clusterNode *n);

/* Slots. */
int clusterNodeHasSlot(const clusterNode *n, int slot);
int clusterAddSlot(clusterNode *n, int slot);   /* C_ERR when the slot has an owner */
int clusterDelSlot(int slot);                   /* C_ERR when it had none */
int clusterDelNodeSlots(clusterNode *n);        /* slots removed */
/* No owner, or one that stopped claiming it (owner_not_claiming). */
int clusterSlotUnclaimed(int slot);
void clusterCloseAllSlots(void);                /* no importing or migrating slot left */

/* Epochs. */
uint64_t clusterGetMaxEpoch(void);
int clusterBumpConfigEpochWithoutConsensus(void); /* C_OK when it changed */
void clusterHandleConfigEpochCollision(clusterNode *sender);

/* The node's state: OK or FAIL, and size; TODO_UPDATE_STATE asks for it. */
void clusterUpdateState(void);
void clusterDoBeforeSleep(int flags);

/* Text. */
/* One CLUSTER NODES line, no newline; use_pport: nodes' plain ports (a plain
 * client of a tls-cluster), where they have one. */
sds clusterGenNodeDescription(sds s, clusterNode *n, int use_pport);
/* Every node's line; nodes with a flag of `filter` are left out. */
sds clusterGenNodesDescription(int filter, int use_pport);
/* Whether c is sent to nodes' plain ports: a plain client while the cluster
 * speaks TLS (tls-cluster yes), as 7.0. */
int clusterClientUsesPlainPort(const client *c);
/* The port c is sent to for n (MOVED, ASK, CLUSTER SLOTS and NODES). */
int clusterNodePortFor(const clusterNode *n, const client *c);
sds clusterNodeFlagsString(sds s, int flags);
/* The next run of slots n serves at or after `from`: 1 with [*start, *end], 0 when none is left. */
int clusterNodeSlotRange(const clusterNode *n, int from, int *start, int *end);

/* Where clients of n's slots are sent (MOVED, SLOTS, SHARDS): the ip, the
 * hostname, or "?" as cluster-preferred-endpoint-type says. */
const char *clusterNodePreferredEndpoint(const clusterNode *n);

#endif
