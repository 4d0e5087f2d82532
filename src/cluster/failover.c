/* failover: elections, votes, manual failover and replica migration
 * (failover.h), as Redis Cluster's specification describes them: a replica of
 * a FAIL master waits 500-1000 ms plus a second per replica ahead of it in
 * replication offset, then asks the masters for their vote in a new epoch;
 * a master votes once per epoch and once per failed master within two node
 * timeouts; a majority of the masters that serve slots makes the replica
 * the master, with the epoch of its election as its config epoch. */
#include "cluster/failover.h"

#include "cluster/gossip.h"
#include "cluster/nodesconf.h"
#include "core/clock.h"
#include "repl/repl.h"
#include "server/pause.h"

#include <stdlib.h>
#include <string.h>

#define MF_TIMEOUT 5000           /* a manual failover gives up after this (ms) */
#define MF_PAUSE_MULT 2           /* its master pauses writes this many times as long */
#define REPLICA_MIGRATION_DELAY 5000

enum {
    CANT_FAILOVER_NONE,
    CANT_FAILOVER_DATA_AGE,
    CANT_FAILOVER_WAITING_DELAY,
    CANT_FAILOVER_EXPIRED,
    CANT_FAILOVER_WAITING_VOTES,
};
#define CANT_FAILOVER_RELOG_PERIOD 10 /* seconds */

/* --------------------------------------------------------------- following */

void clusterReplicateFrom(clusterNode *n) {
    if (n->ip[0] && n->port) replFollow(n->ip, n->port);
}

void clusterSetMaster(clusterNode *n) {
    if (n == myself) return;
    if (nodeIsMaster(myself)) {
        myself->flags &= ~(NODE_MASTER | NODE_MIGRATE_TO);
        myself->flags |= NODE_SLAVE;
        clusterCloseAllSlots();
    } else if (myself->master) {
        clusterNodeRemoveReplica(myself->master, myself);
    }
    myself->master = n;
    clusterNodeAddReplica(n, myself);
    clusterReplicateFrom(n);
    clusterResetManualFailover();
}

/* ----------------------------------------------------------------- voting */

void clusterHandleAuthRequest(clusterNode *node, uint64_t req_epoch, uint64_t req_config_epoch,
                              const unsigned char *claimed, unsigned char mflags) {
    clusterNode *master = node->master;
    long long now = mstime();
    int force_ack = mflags & MSGFLAG_FORCEACK;
    /* Only masters that serve slots vote. */
    if (nodeIsReplica(myself) || myself->numslots == 0) return;
    if (req_epoch < cluster->currentEpoch) {
        serverLog(LL_WARNING, "Failover auth denied to %.40s (%s): reqEpoch (%llu) < curEpoch(%llu)", node->name,
                  node->hostname, (unsigned long long)req_epoch, (unsigned long long)cluster->currentEpoch);
        return;
    }
    if (cluster->lastVoteEpoch == cluster->currentEpoch) {
        serverLog(LL_WARNING, "Failover auth denied to %.40s (%s): already voted for epoch %llu", node->name,
                  node->hostname, (unsigned long long)cluster->currentEpoch);
        return;
    }
    if (nodeIsMaster(node) || master == NULL || (!nodeFailed(master) && !force_ack)) {
        const char *why = nodeIsMaster(node) ? "it is a master node"
                          : master == NULL   ? "I don't know its master"
                                             : "its master is up";
        serverLog(LL_WARNING, "Failover auth denied to %.40s (%s): %s", node->name, node->hostname, why);
        return;
    }
    if (now - master->voted_time < server.cluster_node_timeout * 2) {
        serverLog(LL_WARNING,
                  "Failover auth denied to %.40s %s: can't vote about this master before %lld milliseconds",
                  node->name, node->hostname, server.cluster_node_timeout * 2 - (now - master->voted_time));
        return;
    }
    /* Every slot it claims must have no owner of a newer config than its master's. */
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!((claimed[j >> 3] >> (j & 7)) & 1)) continue;
        if (clusterSlotUnclaimed(j) || cluster->slots[j]->configEpoch <= req_config_epoch) continue;
        serverLog(LL_WARNING, "Failover auth denied to %.40s (%s): slot %d epoch (%llu) > reqEpoch (%llu)",
                  node->name, node->hostname, j, (unsigned long long)cluster->slots[j]->configEpoch,
                  (unsigned long long)req_config_epoch);
        return;
    }
    cluster->lastVoteEpoch = cluster->currentEpoch;
    master->voted_time = now;
    cluster->todo |= TODO_SAVE_CONFIG | TODO_FSYNC_CONFIG;
    clusterSendFailoverAuth(node);
    serverLog(LL_NOTICE, "Failover auth granted to %.40s (%s) for epoch %llu", node->name, node->hostname,
              (unsigned long long)cluster->currentEpoch);
}

void clusterHandleAuthAck(clusterNode *sender, uint64_t sender_current_epoch) {
    if (nodeIsMaster(sender) && sender->numslots > 0 && sender_current_epoch >= cluster->failover_auth_epoch) {
        cluster->failover_auth_count++;
        cluster->todo |= TODO_HANDLE_FAILOVER;
    }
}

/* -------------------------------------------------------------- elections */

/* Replicas of our master ahead of us in replication: each adds a second. */
static int replicaRank(void) {
    clusterNode *master = myself->master;
    if (!master) return 0;
    long long myoffset = replOffset();
    int rank = 0;
    for (int j = 0; j < master->numreplicas; j++) {
        clusterNode *r = master->replicas[j];
        if (r != myself && !(r->flags & NODE_NOFAILOVER) && r->repl_offset > myoffset) rank++;
    }
    return rank;
}

/* Why a replica is not failing over now (logged when it changes, or every so often). */
static void clusterLogCantFailover(int reason) {
    static int last_reason;
    static time_t last_log;
    if (reason == last_reason && server.unixtime - last_log < CANT_FAILOVER_RELOG_PERIOD) return;
    /* Not while the master is only just failed: the reason may change soon. */
    if (myself->master && nodeFailed(myself->master) && mstime() - myself->master->fail_time < 5000 &&
        reason != CANT_FAILOVER_DATA_AGE)
        return;
    last_reason = reason;
    last_log = server.unixtime;
    const char *msg;
    switch (reason) {
    case CANT_FAILOVER_DATA_AGE: msg = "Disconnected from master for longer than allowed. Please check the 'cluster-replica-validity-factor' configuration option."; break;
    case CANT_FAILOVER_WAITING_DELAY: msg = "Waiting the delay before I can start a new failover."; break;
    case CANT_FAILOVER_EXPIRED: msg = "Failover attempt expired."; break;
    case CANT_FAILOVER_WAITING_VOTES: msg = "Waiting for votes, but majority still not reached."; break;
    default: return;
    }
    serverLog(LL_NOTICE, "Currently unable to failover: %s", msg);
}

/* We won (or take over): our master's slots are ours, and everyone hears it at once. */
static void replaceMyMaster(void) {
    clusterNode *old = myself->master;
    if (nodeIsMaster(myself) || !old) return;
    clusterSetNodeAsMaster(myself);
    replStopFollowing();
    for (int j = 0; j < CLUSTER_SLOTS; j++)
        if (clusterNodeHasSlot(old, j)) {
            clusterDelSlot(j);
            clusterAddSlot(myself, j);
        }
    clusterUpdateState();
    clusterSaveConfigOrDie(1);
    clusterBroadcastPong(0);
    clusterResetManualFailover();
}

void clusterHandleReplicaFailover(void) {
    long long now = mstime();
    int quorum = cluster->size / 2 + 1;
    int manual = cluster->mf_end != 0 && cluster->mf_can_start;
    long long auth_timeout = server.cluster_node_timeout * 2;
    if (auth_timeout < 2000) auth_timeout = 2000;
    long long auth_retry_time = auth_timeout * 2;
    cluster->todo &= ~TODO_HANDLE_FAILOVER;

    clusterNode *master = myself->master;
    if (nodeIsMaster(myself) || !master || (!nodeFailed(master) && !manual) ||
        (server.cluster_replica_no_failover && !manual) || master->numslots == 0) {
        cluster->cant_failover_reason = CANT_FAILOVER_NONE;
        return;
    }
    /* How stale our data may be. */
    long long data_age = replMasterDataAgeMs();
    if (data_age > server.cluster_node_timeout) data_age -= server.cluster_node_timeout;
    if (server.cluster_replica_validity_factor &&
        data_age > (long long)server.repl_ping_replica_period * 1000 +
                       server.cluster_node_timeout * server.cluster_replica_validity_factor) {
        if (!manual) {
            clusterLogCantFailover(CANT_FAILOVER_DATA_AGE);
            return;
        }
    }
    if (now - cluster->failover_auth_time > auth_retry_time) {
        cluster->failover_auth_time = now + 500 + random() % 500;
        cluster->failover_auth_count = 0;
        cluster->failover_auth_sent = 0;
        cluster->failover_auth_rank = replicaRank();
        cluster->failover_auth_time += cluster->failover_auth_rank * 1000;
        if (cluster->mf_end) {
            cluster->failover_auth_time = now;
            cluster->failover_auth_rank = 0;
            cluster->todo |= TODO_HANDLE_FAILOVER;
        }
        serverLog(LL_NOTICE, "Start of election delayed for %lld milliseconds (rank #%d, offset %lld).",
                  cluster->failover_auth_time - now, cluster->failover_auth_rank, replOffset());
        /* The other replicas learn our offset, to rank themselves. */
        clusterBroadcastPong(1);
        return;
    }
    if (!cluster->failover_auth_sent && !cluster->mf_end) {
        int newrank = replicaRank();
        if (newrank > cluster->failover_auth_rank) {
            long long added = (long long)(newrank - cluster->failover_auth_rank) * 1000;
            cluster->failover_auth_time += added;
            cluster->failover_auth_rank = newrank;
            serverLog(LL_NOTICE, "Replica rank updated to #%d, added %lld milliseconds of delay.", newrank, added);
        }
    }
    if (now < cluster->failover_auth_time) {
        clusterLogCantFailover(CANT_FAILOVER_WAITING_DELAY);
        return;
    }
    if (now - cluster->failover_auth_time > auth_timeout) {
        clusterLogCantFailover(CANT_FAILOVER_EXPIRED);
        return;
    }
    if (!cluster->failover_auth_sent) {
        cluster->currentEpoch++;
        cluster->failover_auth_epoch = cluster->currentEpoch;
        serverLog(LL_NOTICE, "Starting a failover election for epoch %llu.", (unsigned long long)cluster->currentEpoch);
        clusterSendFailoverAuthRequest();
        cluster->failover_auth_sent = 1;
        cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE | TODO_FSYNC_CONFIG;
        return;
    }
    if (cluster->failover_auth_count >= quorum) {
        serverLog(LL_NOTICE, "Failover election won: I'm the new master.");
        if (myself->configEpoch < cluster->failover_auth_epoch) {
            myself->configEpoch = cluster->failover_auth_epoch;
            serverLog(LL_NOTICE, "configEpoch set to %llu after successful failover",
                      (unsigned long long)myself->configEpoch);
        }
        replaceMyMaster();
    } else {
        clusterLogCantFailover(CANT_FAILOVER_WAITING_VOTES);
    }
}

/* --------------------------------------------------------- manual failover */

void clusterResetManualFailover(void) {
    if (cluster->mf_end && nodeIsMaster(myself)) unpauseClientsFor(PAUSE_DURING_FAILOVER);
    cluster->mf_end = 0;
    cluster->mf_can_start = 0;
    cluster->mf_replica = NULL;
    cluster->mf_master_offset = -1;
}

void clusterManualFailoverCheckTimeout(void) {
    if (cluster->mf_end && cluster->mf_end < mstime()) {
        serverLog(LL_WARNING, "Manual failover timed out.");
        clusterResetManualFailover();
    }
}

/* On the replica: once our offset reaches the paused master's, we may go. */
void clusterHandleManualFailover(void) {
    if (cluster->mf_end == 0 || cluster->mf_can_start || cluster->mf_master_offset == -1) return;
    if (cluster->mf_master_offset == replOffset()) {
        cluster->mf_can_start = 1;
        serverLog(LL_NOTICE, "All master replication stream processed, manual failover can start.");
        cluster->todo |= TODO_HANDLE_FAILOVER;
    }
}

/* On the master: a replica of ours asks; writes pause so it can catch up. */
void clusterHandleMFStart(clusterNode *replica) {
    long long now = mstime();
    clusterResetManualFailover();
    cluster->mf_end = now + MF_TIMEOUT;
    cluster->mf_replica = replica;
    pauseClientsFor(PAUSE_DURING_FAILOVER, PAUSE_WRITE, now + MF_TIMEOUT * MF_PAUSE_MULT);
    serverLog(LL_NOTICE, "Manual failover requested by replica %.40s.", replica->name);
    /* The replica learns our offset from this ping (it carries the PAUSED flag). */
    if (replica->link) clusterSendPing(replica->link, MSG_PING);
}

void clusterStartManualFailover(int force, int takeover) {
    clusterResetManualFailover();
    cluster->mf_end = mstime() + MF_TIMEOUT;
    if (takeover) {
        /* No votes: a new epoch of our own, and the slots are ours. */
        serverLog(LL_NOTICE, "Taking over the master (user request).");
        clusterBumpConfigEpochWithoutConsensus();
        replaceMyMaster();
    } else if (force) {
        serverLog(LL_NOTICE, "Forced failover user request accepted.");
        cluster->mf_can_start = 1;
    } else {
        serverLog(LL_NOTICE, "Manual failover user request accepted.");
        clusterSendMFStart(myself->master);
    }
}

/* -------------------------------------------------------- replica migration */

/* A master left without working replicas gets one from the master with the
 * most: the replica with the smallest name among them moves, after a delay,
 * if its master keeps more than cluster-migration-barrier. */
static void handleReplicaMigration(int max_replicas) {
    if (cluster->state != CLUSTER_OK) return;
    clusterNode *mymaster = myself->master;
    if (!mymaster) return;
    int okreplicas = clusterCountNonFailingReplicas(mymaster);
    if (okreplicas <= server.cluster_migration_barrier) return;
    clusterNode *candidate = myself, *target = NULL;
    dictIterator it;
    dictInitIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (nodeIsReplica(n) || nodeFailed(n)) continue;
        if (!(n->flags & NODE_MIGRATE_TO)) continue;
        /* An orphan's orphaned_time is the cron's (it counts the orphans first). */
        int ok = clusterCountNonFailingReplicas(n);
        if (ok == 0 && !target && n->numslots) target = n;
        /* Among the replicas of masters with the most, the smallest name moves. */
        if (ok == max_replicas) {
            for (int j = 0; j < n->numreplicas; j++)
                if (memcmp(n->replicas[j]->name, candidate->name, CLUSTER_NAMELEN) < 0) candidate = n->replicas[j];
        }
    }
    dictResetIterator(&it);
    if (target && candidate == myself && mstime() - target->orphaned_time > REPLICA_MIGRATION_DELAY) {
        serverLog(LL_NOTICE, "Migrating to orphaned master %.40s", target->name);
        clusterSetMaster(target);
    }
}

void clusterFailoverCron(int orphaned_masters, int max_replicas, int my_master_replicas) {
    clusterManualFailoverCheckTimeout();
    if (!nodeIsReplica(myself)) return;
    clusterHandleManualFailover();
    clusterHandleReplicaFailover();
    if (orphaned_masters && max_replicas >= 2 && my_master_replicas == max_replicas &&
        server.cluster_allow_replica_migration)
        handleReplicaMigration(max_replicas);
}
