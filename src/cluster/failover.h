/* failover: how a cluster replaces a failed master — a replica's election
 * (its delay by rank, the votes it asks for, winning), a master's vote,
 * CLUSTER FAILOVER (manual, FORCE, TAKEOVER), replica migration to orphaned
 * masters, and following a master (replication through repl/). */
#ifndef CLUSTER_FAILOVER_H
#define CLUSTER_FAILOVER_H

#include "cluster/state.h"

/* Make this node a replica of n (closes our slots' open states, starts replication). */
void clusterSetMaster(clusterNode *n);
/* Replication follows n's current address (after it moved). */
void clusterReplicateFrom(clusterNode *n);

/* From the bus. */
void clusterHandleAuthRequest(clusterNode *sender, uint64_t req_epoch, uint64_t req_config_epoch,
                              const unsigned char *claimed, unsigned char mflags);
void clusterHandleAuthAck(clusterNode *sender, uint64_t sender_current_epoch);
void clusterHandleMFStart(clusterNode *replica);

/* From the cron (each 100 ms) and before sleeping. */
void clusterFailoverCron(int orphaned_masters, int max_replicas, int my_master_replicas);
void clusterHandleReplicaFailover(void);
void clusterHandleManualFailover(void);
void clusterResetManualFailover(void);
void clusterManualFailoverCheckTimeout(void);

/* CLUSTER FAILOVER [FORCE|TAKEOVER] on a replica: starts it (the command checks first). */
void clusterStartManualFailover(int force, int takeover);

#endif
