/* state: the cluster's nodes, slots and epochs (state.h), and the rules that
 * keep them consistent — who serves a slot, who replicates whom, when this
 * node may serve (clusterUpdateState), how config epochs stay unique. */
#include "cluster/state.h"

#include "cluster/bus.h"
#include "cluster/cluster.h"
#include "cluster/nodesconf.h"
#include "core/clock.h"
#include "core/randbytes.h"
#include "core/zmalloc.h"
#include "server/tls.h"

#include <stdlib.h>
#include <string.h>

clusterState *cluster;
clusterNode *myself;

/* A failure report older than this many node timeouts no longer counts. */
#define FAIL_REPORT_VALIDITY_MULT 2
/* A master that was cut off waits this long (node timeout, within bounds)
 * after a majority is reachable again before it serves: time for the others
 * to have told it about a failover it missed. */
#define MIN_REJOIN_DELAY 500
#define MAX_REJOIN_DELAY 5000
/* A master that starts waits this long before it serves, for the same reason. */
#define WRITABLE_DELAY 2000

/* ------------------------------------------------------------------- nodes */

clusterNode *createClusterNode(const char *name, int flags) {
    clusterNode *n = zcalloc(sizeof(*n));
    if (name) memcpy(n->name, name, CLUSTER_NAMELEN);
    else {
        char hex[CLUSTER_NAMELEN + 1];
        getRandomHex(hex, CLUSTER_NAMELEN);
        memcpy(n->name, hex, CLUSTER_NAMELEN);
    }
    n->ctime = mstime();
    n->flags = flags;
    n->hostname = sdsempty();
    n->repl_offset = 0;
    return n;
}

int verifyClusterNodeId(const char *name, size_t len) {
    if (len != CLUSTER_NAMELEN) return C_ERR;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return C_ERR;
    }
    return C_OK;
}

clusterNode *clusterLookupNode(const char *name, size_t len) {
    if (verifyClusterNodeId(name, len) != C_OK) return NULL;
    sds key = sdsnewlen(name, len);
    clusterNode *n = dictFetchValue(cluster->nodes, key);
    sdsfree(key);
    return n;
}

void clusterAddNode(clusterNode *n) {
    if (dictAdd(cluster->nodes, sdsnewlen(n->name, CLUSTER_NAMELEN), n) != DICT_OK) abort();
}

int clusterNodeRemoveReplica(clusterNode *master, clusterNode *replica) {
    for (int j = 0; j < master->numreplicas; j++) {
        if (master->replicas[j] != replica) continue;
        memmove(master->replicas + j, master->replicas + j + 1, sizeof(clusterNode *) * (size_t)(master->numreplicas - j - 1));
        master->numreplicas--;
        if (master->numreplicas == 0) master->flags &= ~NODE_MIGRATE_TO;
        return C_OK;
    }
    return C_ERR;
}

int clusterNodeAddReplica(clusterNode *master, clusterNode *replica) {
    for (int j = 0; j < master->numreplicas; j++)
        if (master->replicas[j] == replica) return C_ERR;
    master->replicas = zrealloc(master->replicas, sizeof(clusterNode *) * (size_t)(master->numreplicas + 1));
    master->replicas[master->numreplicas++] = replica;
    master->flags |= NODE_MIGRATE_TO;
    return C_OK;
}

int clusterCountNonFailingReplicas(const clusterNode *n) {
    int ok = 0;
    for (int j = 0; j < n->numreplicas; j++)
        if (!nodeFailed(n->replicas[j])) ok++;
    return ok;
}

clusterNode *clusterShardMaster(clusterNode *n) { return nodeIsReplica(n) && n->master ? n->master : n; }

void clusterSetNodeAsMaster(clusterNode *n) {
    if (nodeIsMaster(n)) return;
    if (n->master) {
        clusterNodeRemoveReplica(n->master, n);
        if (n != myself) n->flags |= NODE_MIGRATE_TO;
    }
    n->flags &= ~NODE_SLAVE;
    n->flags |= NODE_MASTER;
    n->master = NULL;
    cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE;
}

void freeClusterNode(clusterNode *n) {
    /* Its replicas no longer know their master; it leaves its own master's list. */
    for (int j = 0; j < n->numreplicas; j++) n->replicas[j]->master = NULL;
    if (nodeIsReplica(n) && n->master) clusterNodeRemoveReplica(n->master, n);
    sds key = sdsnewlen(n->name, CLUSTER_NAMELEN);
    dictEntry *de = dictFind(cluster->nodes, key);
    if (de && dictGetVal(de) == n) dictDelete(cluster->nodes, key);
    sdsfree(key);
    if (n->link) freeClusterLink(n->link);
    if (n->inbound_link) freeClusterLink(n->inbound_link);
    sdsfree(n->hostname);
    zfree(n->reports);
    zfree(n->replicas);
    zfree(n);
}

void clusterDelNode(clusterNode *n) {
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (cluster->importing_from[j] == n) cluster->importing_from[j] = NULL;
        if (cluster->migrating_to[j] == n) cluster->migrating_to[j] = NULL;
        if (cluster->slots[j] == n) clusterDelSlot(j);
    }
    /* What it reported about others no longer counts. */
    dictIterator it;
    dictInitSafeIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *other = dictGetVal(de);
        if (other != n) clusterNodeDelFailureReport(other, n);
    }
    dictResetIterator(&it);
    freeClusterNode(n);
}

/* A node met in a handshake under a random name gets the one it says. */
void clusterRenameNode(clusterNode *n, const char *newname) {
    serverLog(LL_DEBUG, "Renaming node %.40s into %.40s", n->name, newname);
    sds key = sdsnewlen(n->name, CLUSTER_NAMELEN);
    dictDelete(cluster->nodes, key);
    sdsfree(key);
    memcpy(n->name, newname, CLUSTER_NAMELEN);
    clusterAddNode(n);
}

int nodeIsMaster(const clusterNode *n) { return (n->flags & NODE_MASTER) != 0; }
int nodeIsReplica(const clusterNode *n) { return (n->flags & NODE_SLAVE) != 0; }
int nodeTimedOut(const clusterNode *n) { return (n->flags & NODE_PFAIL) != 0; }
int nodeFailed(const clusterNode *n) { return (n->flags & NODE_FAIL) != 0; }
int nodeInHandshake(const clusterNode *n) { return (n->flags & NODE_HANDSHAKE) != 0; }

/* --------------------------------------------------------- failure reports */

int clusterNodeAddFailureReport(clusterNode *n, clusterNode *sender) {
    for (int j = 0; j < n->nreports; j++) {
        if (n->reports[j].node == sender) {
            n->reports[j].time = mstime();
            return 0;
        }
    }
    n->reports = zrealloc(n->reports, sizeof(failReport) * (size_t)(n->nreports + 1));
    n->reports[n->nreports].node = sender;
    n->reports[n->nreports].time = mstime();
    n->nreports++;
    return 1;
}

void clusterNodeCleanupFailureReports(clusterNode *n) {
    long long maxtime = server.cluster_node_timeout * FAIL_REPORT_VALIDITY_MULT, now = mstime();
    int kept = 0;
    for (int j = 0; j < n->nreports; j++)
        if (now - n->reports[j].time <= maxtime) n->reports[kept++] = n->reports[j];
    n->nreports = kept;
}

int clusterNodeDelFailureReport(clusterNode *n, clusterNode *sender) {
    for (int j = 0; j < n->nreports; j++) {
        if (n->reports[j].node != sender) continue;
        memmove(n->reports + j, n->reports + j + 1, sizeof(failReport) * (size_t)(n->nreports - j - 1));
        n->nreports--;
        clusterNodeCleanupFailureReports(n);
        return 1;
    }
    clusterNodeCleanupFailureReports(n);
    return 0;
}

int clusterNodeFailureReportsCount(clusterNode *n) {
    clusterNodeCleanupFailureReports(n);
    return n->nreports;
}

/* ------------------------------------------------------------------- slots */

int clusterNodeHasSlot(const clusterNode *n, int slot) { return (n->slots[slot >> 3] >> (slot & 7)) & 1; }

int clusterAddSlot(clusterNode *n, int slot) {
    if (cluster->slots[slot]) return C_ERR;
    n->slots[slot >> 3] |= (unsigned char)(1 << (slot & 7));
    n->numslots++;
    /* A master that gets its first slot and has replicas is one replicas may migrate to. */
    if (n->numslots == 1 && n->numreplicas) n->flags |= NODE_MIGRATE_TO;
    cluster->slots[slot] = n;
    return C_OK;
}

int clusterNodeSlotRange(const clusterNode *n, int from, int *start, int *end) {
    int j = from;
    while (j < CLUSTER_SLOTS && !clusterNodeHasSlot(n, j)) j++;
    if (j == CLUSTER_SLOTS) return 0;
    *start = j;
    while (j < CLUSTER_SLOTS && clusterNodeHasSlot(n, j)) j++;
    *end = j - 1;
    return 1;
}

int clusterSlotUnclaimed(int slot) {
    return cluster->slots[slot] == NULL || ((cluster->owner_not_claiming[slot >> 3] >> (slot & 7)) & 1);
}

int clusterDelSlot(int slot) {
    clusterNode *n = cluster->slots[slot];
    if (!n) return C_ERR;
    clusterSlotLeavingShard(slot, n); /* its shard channels and waiting clients (cluster.c) */
    n->slots[slot >> 3] &= (unsigned char)~(1 << (slot & 7));
    n->numslots--;
    cluster->slots[slot] = NULL;
    return C_OK;
}

int clusterDelNodeSlots(clusterNode *n) {
    int deleted = 0;
    for (int j = 0; j < CLUSTER_SLOTS; j++)
        if (clusterNodeHasSlot(n, j)) {
            clusterDelSlot(j);
            deleted++;
        }
    return deleted;
}

void clusterCloseAllSlots(void) {
    memset(cluster->migrating_to, 0, sizeof(cluster->migrating_to));
    memset(cluster->importing_from, 0, sizeof(cluster->importing_from));
}

/* ------------------------------------------------------------------ epochs */

uint64_t clusterGetMaxEpoch(void) {
    uint64_t max = 0;
    dictIterator it;
    dictInitIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (n->configEpoch > max) max = n->configEpoch;
    }
    dictResetIterator(&it);
    return max > cluster->currentEpoch ? max : cluster->currentEpoch;
}

/* A new config epoch for this node, bigger than any seen, without asking the
 * others (a resharding's SETSLOT NODE on the importing side, a TAKEOVER):
 * only when ours is zero or not already the largest. */
int clusterBumpConfigEpochWithoutConsensus(void) {
    uint64_t max = clusterGetMaxEpoch();
    if (myself->configEpoch == 0 || myself->configEpoch != max) {
        cluster->currentEpoch++;
        myself->configEpoch = cluster->currentEpoch;
        cluster->todo |= TODO_SAVE_CONFIG | TODO_FSYNC_CONFIG;
        serverLog(LL_NOTICE, "New configEpoch set to %llu", (unsigned long long)myself->configEpoch);
        return C_OK;
    }
    return C_ERR;
}

/* Two masters with the same config epoch: the one with the smaller name
 * keeps it, the other takes a new one, so every master's epoch ends unique. */
void clusterHandleConfigEpochCollision(clusterNode *sender) {
    if (sender->configEpoch != myself->configEpoch || !nodeIsMaster(sender) || !nodeIsMaster(myself)) return;
    if (memcmp(sender->name, myself->name, CLUSTER_NAMELEN) <= 0) return;
    cluster->currentEpoch++;
    myself->configEpoch = cluster->currentEpoch;
    clusterSaveConfigOrDie(1);
    serverLog(LL_VERBOSE, "WARNING: configEpoch collision with node %.40s (%s). configEpoch set to %llu",
              sender->name, sender->hostname, (unsigned long long)cluster->currentEpoch);
}

/* ------------------------------------------------------------------- state */

void clusterUpdateState(void) {
    static long long first_call_time;
    long long now = mstime();
    if (first_call_time == 0) first_call_time = now;
    /* A master that just started waits before it serves (WRITABLE_DELAY). */
    if (nodeIsMaster(myself) && cluster->state == CLUSTER_FAIL && now - first_call_time < WRITABLE_DELAY) return;

    int new_state = CLUSTER_OK;
    if (server.cluster_require_full_coverage) {
        for (int j = 0; j < CLUSTER_SLOTS; j++)
            if (!cluster->slots[j] || (cluster->slots[j]->flags & NODE_FAIL)) {
                new_state = CLUSTER_FAIL;
                break;
            }
    }
    /* The masters that serve slots, and those of them we can reach. */
    int reachable = 0;
    cluster->size = 0;
    dictIterator it;
    dictInitIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (nodeIsMaster(n) && n->numslots) {
            cluster->size++;
            if (!(n->flags & (NODE_FAIL | NODE_PFAIL))) reachable++;
        }
    }
    dictResetIterator(&it);
    int quorum = cluster->size / 2 + 1;
    if (reachable < quorum) {
        new_state = CLUSTER_FAIL;
        cluster->among_minority_time = now;
    }
    if (new_state == cluster->state) return;
    long long rejoin_delay = server.cluster_node_timeout;
    if (rejoin_delay > MAX_REJOIN_DELAY) rejoin_delay = MAX_REJOIN_DELAY;
    if (rejoin_delay < MIN_REJOIN_DELAY) rejoin_delay = MIN_REJOIN_DELAY;
    if (new_state == CLUSTER_OK && nodeIsMaster(myself) && now - cluster->among_minority_time < rejoin_delay) return;
    serverLog(LL_WARNING, "Cluster state changed: %s", new_state == CLUSTER_OK ? "ok" : "fail");
    cluster->state = new_state;
}

/* -------------------------------------------------------------------- text */

static const struct {
    int flag;
    const char *word;
} flagWords[] = {{NODE_MYSELF, "myself"}, {NODE_MASTER, "master"},       {NODE_SLAVE, "slave"},
                 {NODE_PFAIL, "fail?"},   {NODE_FAIL, "fail"},           {NODE_HANDSHAKE, "handshake"},
                 {NODE_NOADDR, "noaddr"}, {NODE_NOFAILOVER, "nofailover"}};

sds clusterNodeFlagsString(sds s, int flags) {
    size_t before = sdslen(s);
    for (size_t j = 0; j < sizeof(flagWords) / sizeof(flagWords[0]); j++) {
        if (!(flags & flagWords[j].flag)) continue;
        if (sdslen(s) != before) s = sdscatlen(s, ",", 1);
        s = sdscat(s, flagWords[j].word);
    }
    if (sdslen(s) == before) s = sdscat(s, "noflags");
    return s;
}

const char *clusterNodePreferredEndpoint(const clusterNode *n) {
    switch (server.cluster_preferred_endpoint_type) {
    case CLUSTER_ENDPOINT_HOSTNAME: return sdslen(n->hostname) ? n->hostname : "?";
    case CLUSTER_ENDPOINT_UNKNOWN: return "";
    default: return n->ip;
    }
}

int clusterClientUsesPlainPort(const client *c) { return server.tls_cluster && c && !connIsTls(c->fd); }

int clusterNodePortFor(const clusterNode *n, const client *c) {
    return clusterClientUsesPlainPort(c) && n->pport ? n->pport : n->port;
}

sds clusterGenNodeDescription(sds s, clusterNode *n, int use_pport) {
    s = sdscatlen(s, n->name, CLUSTER_NAMELEN);
    s = sdscatprintf(s, " %s:%d@%d", n->ip, use_pport && n->pport ? n->pport : n->port, n->cport);
    if (sdslen(n->hostname)) s = sdscatprintf(s, ",%s", n->hostname);
    s = sdscatlen(s, " ", 1);
    s = clusterNodeFlagsString(s, n->flags);
    if (n->master) s = sdscatprintf(s, " %.40s ", n->master->name);
    else s = sdscat(s, " - ");
    int connected = (n->link && !n->link->connecting) || (n->flags & NODE_MYSELF);
    /* A replica shows its master's config epoch (the one its messages carry). */
    uint64_t epoch = nodeIsReplica(n) && n->master ? n->master->configEpoch : n->configEpoch;
    s = sdscatprintf(s, "%lld %lld %llu %s", n->ping_sent, n->pong_received, (unsigned long long)epoch,
                     connected ? "connected" : "disconnected");
    /* A replica shows no slots (its master's are in the master's line). */
    if (!nodeIsReplica(n)) {
        int start, end;
        for (int from = 0; clusterNodeSlotRange(n, from, &start, &end); from = end + 1) {
            if (start == end) s = sdscatprintf(s, " %d", start);
            else s = sdscatprintf(s, " %d-%d", start, end);
        }
    }
    /* Open slots are shown on myself only. */
    if (n->flags & NODE_MYSELF) {
        for (int j = 0; j < CLUSTER_SLOTS; j++) {
            if (cluster->migrating_to[j]) s = sdscatprintf(s, " [%d->-%.40s]", j, cluster->migrating_to[j]->name);
            else if (cluster->importing_from[j])
                s = sdscatprintf(s, " [%d-<-%.40s]", j, cluster->importing_from[j]->name);
        }
    }
    return s;
}

/* Every node, one line each; filter leaves out nodes still in a handshake. */
sds clusterGenNodesDescription(int filter, int use_pport) {
    sds s = sdsempty();
    dictIterator it;
    dictInitIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if ((n->flags & filter)) continue;
        s = clusterGenNodeDescription(s, n, use_pport);
        s = sdscatlen(s, "\n", 1);
    }
    dictResetIterator(&it);
    return s;
}

/* ---------------------------------------------------------- before sleep */

void clusterDoBeforeSleep(int flags) { cluster->todo |= flags; }
