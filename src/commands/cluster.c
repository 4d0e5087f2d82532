/* cluster: CLUSTER and its subcommands, ASKING, READONLY and READWRITE, with
 * Redis 7.0's replies and errors. Outside cluster mode each answers that
 * cluster support is disabled, as Redis does. The cluster's state and its
 * rules are cluster/'s; this file parses, checks and answers. */
#include "cluster/bus.h"
#include "cluster/cluster.h"
#include "cluster/failover.h"
#include "cluster/gossip.h"
#include "cluster/nodesconf.h"
#include "cluster/state.h"
#include "core/clock.h"
#include "core/randbytes.h"
#include "core/zmalloc.h"
#include "core/ae.h"
#include "repl/repl.h"
#include "server/cmdargs.h"
#include "server/db.h"
#include "server/reply.h"
#include "server/server.h"
#include "server/shared.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

/* A FORGET keeps the node from being re-added by gossip this long (s). */
#define BLACKLIST_TTL 60

static int clusterDisabled(client *c) {
    if (server.cluster_enabled) return 0;
    addReplyError(c, "This instance has cluster support disabled");
    return 1;
}

void askingCommand(client *c) {
    if (clusterDisabled(c)) return;
    c->flags |= CLIENT_ASKING;
    addReply(c, shared.ok);
}

void readonlyCommand(client *c) {
    if (clusterDisabled(c)) return;
    c->flags |= CLIENT_READONLY;
    addReply(c, shared.ok);
}

void readwriteCommand(client *c) {
    if (clusterDisabled(c)) return;
    c->flags &= ~CLIENT_READONLY;
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------- helpers */

static int getSlotOrReply(client *c, robj *o) {
    long long slot;
    if (getLongLongFromObject(o, &slot) != C_OK || slot < 0 || slot >= CLUSTER_SLOTS) {
        addReplyError(c, "Invalid or out of range slot");
        return -1;
    }
    return (int)slot;
}

static clusterNode *nodeOrReply(client *c, robj *name) {
    clusterNode *n = clusterLookupNode(objectPtr(name), sdslen(objectPtr(name)));
    if (!n) addReplyErrorFormat(c, "Unknown node %s", (char *)objectPtr(name));
    return n;
}

/* Marks [start, end] in seen; refuses a slot already (un)assigned or given twice. */
static int checkSlotAssignmentsOrReply(client *c, unsigned char *seen, int del, int start, int end) {
    for (int slot = start; slot <= end; slot++) {
        if (del && cluster->slots[slot] == NULL) {
            addReplyErrorFormat(c, "Slot %d is already unassigned", slot);
            return C_ERR;
        } else if (!del && cluster->slots[slot]) {
            addReplyErrorFormat(c, "Slot %d is already busy", slot);
            return C_ERR;
        }
        if (seen[slot]++ == 1) {
            addReplyErrorFormat(c, "Slot %d specified multiple times", slot);
            return C_ERR;
        }
    }
    return C_OK;
}

static void updateSlots(const unsigned char *seen, int del) {
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!seen[j]) continue;
        if (del) clusterDelSlot(j);
        else {
            cluster->importing_from[j] = NULL; /* assigned to us: no longer imported */
            clusterAddSlot(myself, j);
        }
    }
    clusterDoBeforeSleep(TODO_UPDATE_STATE | TODO_SAVE_CONFIG);
}

static long long nodeReplOffset(const clusterNode *n) { return n == myself ? replOffset() : n->repl_offset; }

/* --------------------------------------------------------------- INFO */

static void clusterInfo(client *c) {
    static const char *states[] = {"ok", "fail"};
    int assigned = 0, ok = 0, pfail = 0, fail = 0;
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        clusterNode *n = cluster->slots[j];
        if (!n) continue;
        assigned++;
        if (nodeFailed(n)) fail++;
        else if (nodeTimedOut(n)) pfail++;
        else ok++;
    }
    uint64_t myepoch = nodeIsReplica(myself) && myself->master ? myself->master->configEpoch : myself->configEpoch;
    sds info = sdscatprintf(sdsempty(),
                            "cluster_state:%s\r\ncluster_slots_assigned:%d\r\ncluster_slots_ok:%d\r\n"
                            "cluster_slots_pfail:%d\r\ncluster_slots_fail:%d\r\ncluster_known_nodes:%lu\r\n"
                            "cluster_size:%d\r\ncluster_current_epoch:%llu\r\ncluster_my_epoch:%llu\r\n",
                            states[cluster->state], assigned, ok, pfail, fail, dictSize(cluster->nodes),
                            cluster->size, (unsigned long long)cluster->currentEpoch, (unsigned long long)myepoch);
    long long sent = 0, received = 0;
    for (int t = 0; t < MSG_TYPE_COUNT; t++) {
        if (!cluster->stats_sent[t]) continue;
        sent += cluster->stats_sent[t];
        info = sdscatprintf(info, "cluster_stats_messages_%s_sent:%lld\r\n", clusterMessageTypeName(t),
                            cluster->stats_sent[t]);
    }
    info = sdscatprintf(info, "cluster_stats_messages_sent:%lld\r\n", sent);
    for (int t = 0; t < MSG_TYPE_COUNT; t++) {
        if (!cluster->stats_received[t]) continue;
        received += cluster->stats_received[t];
        info = sdscatprintf(info, "cluster_stats_messages_%s_received:%lld\r\n", clusterMessageTypeName(t),
                            cluster->stats_received[t]);
    }
    info = sdscatprintf(info, "cluster_stats_messages_received:%lld\r\n", received);
    info = sdscatprintf(info, "total_cluster_links_buffer_limit_exceeded:%lld\r\n",
                        cluster->stat_links_buffer_limit_exceeded);
    addReplyVerbatim(c, info, sdslen(info), "txt");
    sdsfree(info);
}

/* ------------------------------------------------------- SLOTS, SHARDS */

static void addNodeToSlotsReply(client *c, clusterNode *n) {
    addReplyArrayLen(c, 4);
    int type = server.cluster_preferred_endpoint_type;
    if (type == CLUSTER_ENDPOINT_IP) addReplyBulkCString(c, n->ip);
    else if (type == CLUSTER_ENDPOINT_HOSTNAME) addReplyBulkCString(c, sdslen(n->hostname) ? n->hostname : "?");
    else addReplyNull(c);
    addReplyLongLong(c, clusterNodePortFor(n, c));
    addReplyBulkCBuffer(c, n->name, CLUSTER_NAMELEN);
    int extra = 0;
    if (type != CLUSTER_ENDPOINT_IP) extra++;
    if (type != CLUSTER_ENDPOINT_HOSTNAME && sdslen(n->hostname)) extra++;
    addReplyMapLen(c, extra);
    if (type != CLUSTER_ENDPOINT_IP) {
        addReplyBulkCString(c, "ip");
        addReplyBulkCString(c, n->ip);
    }
    if (type != CLUSTER_ENDPOINT_HOSTNAME && sdslen(n->hostname)) {
        addReplyBulkCString(c, "hostname");
        addReplyBulkCBuffer(c, n->hostname, sdslen(n->hostname));
    }
}

/* A replica is listed once it works and has data (offset not 0), as 7.0.15. */
static int replicaAvailable(const clusterNode *r) { return !nodeFailed(r) && nodeReplOffset(r) != 0; }

static void addSlotRangeReply(client *c, clusterNode *n, int start, int end) {
    int nodes = 1;
    for (int j = 0; j < n->numreplicas; j++)
        if (replicaAvailable(n->replicas[j])) nodes++;
    addReplyArrayLen(c, 2 + nodes);
    addReplyLongLong(c, start);
    addReplyLongLong(c, end);
    addNodeToSlotsReply(c, n);
    for (int j = 0; j < n->numreplicas; j++)
        if (replicaAvailable(n->replicas[j])) addNodeToSlotsReply(c, n->replicas[j]);
}

static void clusterSlots(client *c) {
    void *len = addReplyDeferredLen(c);
    int ranges = 0, start = -1;
    for (int j = 0; j <= CLUSTER_SLOTS; j++) {
        clusterNode *n = j < CLUSTER_SLOTS ? cluster->slots[j] : NULL;
        if (start != -1 && (j == CLUSTER_SLOTS || n != cluster->slots[start])) {
            addSlotRangeReply(c, cluster->slots[start], start, j - 1);
            ranges++;
            start = -1;
        }
        if (n && start == -1) start = j;
    }
    setDeferredArrayLen(c, len, ranges);
}

static void addShardNodeReply(client *c, clusterNode *n) {
    void *len = addReplyDeferredLen(c);
    int fields = 0;
    addReplyBulkCString(c, "id");
    addReplyBulkCBuffer(c, n->name, CLUSTER_NAMELEN);
    fields++;
    /* With tls-cluster, port is the TLS one and pport the plain one. */
    int plain_port = server.tls_cluster ? n->pport : n->port, tls_port = server.tls_cluster ? n->port : 0;
    if (plain_port) {
        addReplyBulkCString(c, "port");
        addReplyLongLong(c, plain_port);
        fields++;
    }
    if (tls_port) {
        addReplyBulkCString(c, "tls-port");
        addReplyLongLong(c, tls_port);
        fields++;
    }
    addReplyBulkCString(c, "ip");
    addReplyBulkCString(c, n->ip);
    addReplyBulkCString(c, "endpoint");
    addReplyBulkCString(c, clusterNodePreferredEndpoint(n));
    fields += 2;
    if (sdslen(n->hostname)) {
        addReplyBulkCString(c, "hostname");
        addReplyBulkCBuffer(c, n->hostname, sdslen(n->hostname));
        fields++;
    }
    long long offset = nodeReplOffset(n);
    addReplyBulkCString(c, "role");
    addReplyBulkCString(c, nodeIsMaster(n) ? "master" : "replica");
    addReplyBulkCString(c, "replication-offset");
    addReplyLongLong(c, offset);
    addReplyBulkCString(c, "health");
    addReplyBulkCString(c, nodeFailed(n) ? "fail" : (nodeIsReplica(n) && offset == 0) ? "loading" : "online");
    fields += 3;
    setDeferredMapLen(c, len, fields);
}

static void clusterShards(client *c) {
    void *len = addReplyDeferredLen(c);
    int shards = 0;
    dictIterator it;
    dictInitIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (!nodeIsMaster(n)) continue;
        shards++;
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "slots");
        void *slen = addReplyDeferredLen(c);
        int items = 0, start, end;
        for (int from = 0; clusterNodeSlotRange(n, from, &start, &end); from = end + 1) {
            addReplyLongLong(c, start);
            addReplyLongLong(c, end);
            items += 2;
        }
        setDeferredArrayLen(c, slen, items);
        addReplyBulkCString(c, "nodes");
        addReplyArrayLen(c, 1 + n->numreplicas);
        addShardNodeReply(c, n);
        for (int j = 0; j < n->numreplicas; j++) addShardNodeReply(c, n->replicas[j]);
    }
    dictResetIterator(&it);
    setDeferredArrayLen(c, len, shards);
}

/* ----------------------------------------------------------------- LINKS */

static void addLinkReply(client *c, clusterLink *link) {
    addReplyMapLen(c, 6);
    addReplyBulkCString(c, "direction");
    addReplyBulkCString(c, link->inbound ? "from" : "to");
    addReplyBulkCString(c, "node");
    addReplyBulkCBuffer(c, link->node->name, CLUSTER_NAMELEN);
    addReplyBulkCString(c, "create-time");
    addReplyLongLong(c, link->ctime);
    int mask = link->fd != -1 ? aeGetFileEvents(server.el, link->fd) : 0;
    char events[3];
    int e = 0;
    if (mask & AE_READABLE) events[e++] = 'r';
    if (mask & AE_WRITABLE) events[e++] = 'w';
    events[e] = '\0';
    addReplyBulkCString(c, "events");
    addReplyBulkCString(c, events);
    addReplyBulkCString(c, "send-buffer-allocated");
    addReplyLongLong(c, (long long)(sdslen(link->sndbuf) ? sdsAllocSize(link->sndbuf) : 0));
    addReplyBulkCString(c, "send-buffer-used");
    addReplyLongLong(c, (long long)clusterLinkPending(link));
}

static void clusterLinks(client *c) {
    void *len = addReplyDeferredLen(c);
    int count = 0;
    dictIterator it;
    dictInitIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (n->link) {
            addLinkReply(c, n->link);
            count++;
        }
        if (n->inbound_link) {
            addLinkReply(c, n->inbound_link);
            count++;
        }
    }
    dictResetIterator(&it);
    setDeferredArrayLen(c, len, count);
}

/* ------------------------------------------------------------------ MEET */

/* 0 with errno EINVAL for an address we cannot use, EAGAIN when a
 * handshake with it is already under way. */
static int startHandshake(const char *ip, int port, int cport) {
    struct in6_addr a6;
    struct in_addr a4;
    char norm[NET_IP_STR_LEN];
    if (inet_pton(AF_INET, ip, &a4) == 1) inet_ntop(AF_INET, &a4, norm, sizeof(norm));
    else if (inet_pton(AF_INET6, ip, &a6) == 1) inet_ntop(AF_INET6, &a6, norm, sizeof(norm));
    else {
        errno = EINVAL;
        return 0;
    }
    if (port <= 0 || port > 65535 || cport <= 0 || cport > 65535) {
        errno = EINVAL;
        return 0;
    }
    dictIterator it;
    dictInitIterator(&it, cluster->nodes);
    dictEntry *de;
    int busy = 0;
    while ((de = dictNext(&it)) != NULL && !busy) {
        clusterNode *n = dictGetVal(de);
        busy = nodeInHandshake(n) && !strcasecmp(n->ip, norm) && n->port == port && n->cport == cport;
    }
    dictResetIterator(&it);
    if (busy) {
        errno = EAGAIN;
        return 0;
    }
    clusterNode *n = createClusterNode(NULL, NODE_HANDSHAKE | NODE_MEET);
    memcpy(n->ip, norm, sizeof(norm));
    n->port = port;
    n->cport = cport;
    clusterAddNode(n);
    return 1;
}

static void clusterMeet(client *c) {
    long long port, cport;
    if (getLongLongFromObject(c->argv[3], &port) != C_OK) {
        addReplyErrorFormat(c, "Invalid TCP base port specified: %s", (char *)objectPtr(c->argv[3]));
        return;
    }
    if (c->argc == 5) {
        if (getLongLongFromObject(c->argv[4], &cport) != C_OK) {
            addReplyErrorFormat(c, "Invalid TCP bus port specified: %s", (char *)objectPtr(c->argv[4]));
            return;
        }
    } else cport = port + 10000;
    if (port > 65535 || cport > 65535 || port < 0 || cport < 0 ||
        (!startHandshake(objectPtr(c->argv[2]), (int)port, (int)cport) && errno == EINVAL)) {
        addReplyErrorFormat(c, "Invalid node address specified: %s:%s", (char *)objectPtr(c->argv[2]),
                            (char *)objectPtr(c->argv[3]));
        return;
    }
    addReply(c, shared.ok);
}

/* ------------------------------------------------------------------ RESET */

static void clusterReset(int hard) {
    if (nodeIsReplica(myself)) {
        clusterSetNodeAsMaster(myself);
        replStopFollowing();
        emptyData(-1, NULL);
    }
    clusterCloseAllSlots();
    clusterResetManualFailover();
    for (int j = 0; j < CLUSTER_SLOTS; j++) clusterDelSlot(j);
    dictIterator it;
    dictInitSafeIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (n != myself) clusterDelNode(n);
    }
    dictResetIterator(&it);
    if (hard) {
        cluster->currentEpoch = 0;
        cluster->lastVoteEpoch = 0;
        myself->configEpoch = 0;
        serverLog(LL_WARNING, "configEpoch set to 0 via CLUSTER RESET HARD");
        char hex[CLUSTER_NAMELEN + 1];
        getRandomHex(hex, CLUSTER_NAMELEN);
        clusterRenameNode(myself, hex);
        serverLog(LL_NOTICE, "Node hard reset, now I'm %.40s", myself->name);
    }
    clusterDoBeforeSleep(TODO_SAVE_CONFIG | TODO_UPDATE_STATE | TODO_FSYNC_CONFIG);
}

/* ---------------------------------------------------------------- SETSLOT */

/* The node SETSLOT names, when it is a master; else NULL, answered
 * (unknown_fmt names it when it is unknown: MIGRATING/IMPORTING and NODE
 * say so differently). */
static clusterNode *setslotTargetOrReply(client *c, robj *name, const char *unknown_fmt) {
    clusterNode *n = clusterLookupNode(objectPtr(name), sdslen(objectPtr(name)));
    if (!n) {
        addReplyErrorFormat(c, unknown_fmt, (char *)objectPtr(name));
        return NULL;
    }
    if (nodeIsReplica(n)) {
        addReplyError(c, "Target node is not a master");
        return NULL;
    }
    return n;
}

static void clusterSetslot(client *c) {
    if (nodeIsReplica(myself)) {
        addReplyError(c, "Please use SETSLOT only with masters.");
        return;
    }
    int slot = getSlotOrReply(c, c->argv[2]);
    if (slot == -1) return;
    const char *action = objectPtr(c->argv[3]);
    clusterNode *n;
    if (!strcasecmp(action, "migrating") && c->argc == 5) {
        if (cluster->slots[slot] != myself) {
            addReplyErrorFormat(c, "I'm not the owner of hash slot %u", slot);
            return;
        }
        if (!(n = setslotTargetOrReply(c, c->argv[4], "I don't know about node %s"))) return;
        cluster->migrating_to[slot] = n;
    } else if (!strcasecmp(action, "importing") && c->argc == 5) {
        if (cluster->slots[slot] == myself) {
            addReplyErrorFormat(c, "I'm already the owner of hash slot %u", slot);
            return;
        }
        if (!(n = setslotTargetOrReply(c, c->argv[4], "I don't know about node %s"))) return;
        cluster->importing_from[slot] = n;
    } else if (!strcasecmp(action, "stable") && c->argc == 4) {
        cluster->importing_from[slot] = NULL;
        cluster->migrating_to[slot] = NULL;
    } else if (!strcasecmp(action, "node") && c->argc == 5) {
        if (!(n = setslotTargetOrReply(c, c->argv[4], "Unknown node %s"))) return;
        if (cluster->slots[slot] == myself && n != myself && dbSlotKeyCount((unsigned)slot)) {
            addReplyErrorFormat(c,
                                "Can't assign hashslot %d to a different node while I still hold keys for this hash slot.",
                                slot);
            return;
        }
        /* A migrating slot left with no keys here is stable once given away. */
        if (dbSlotKeyCount((unsigned)slot) == 0 && cluster->migrating_to[slot]) cluster->migrating_to[slot] = NULL;
        int was_mine = cluster->slots[slot] == myself;
        clusterDelSlot(slot);
        clusterAddSlot(n, slot);
        /* A master left with no slot follows the node that took its last one. */
        if (was_mine && n != myself && myself->numslots == 0 && server.cluster_allow_replica_migration) {
            serverLog(LL_WARNING, "Configuration change detected. Reconfiguring myself as a replica of %.40s", n->name);
            clusterSetMaster(n);
            clusterDoBeforeSleep(TODO_SAVE_CONFIG | TODO_UPDATE_STATE | TODO_FSYNC_CONFIG);
        }
        /* The end of an import: a new epoch so the cluster takes our claim, and everyone hears now. */
        if (n == myself && cluster->importing_from[slot]) {
            if (clusterBumpConfigEpochWithoutConsensus() == C_OK)
                serverLog(LL_WARNING, "configEpoch updated after importing slot %d", slot);
            cluster->importing_from[slot] = NULL;
            clusterBroadcastPong(0);
        }
    } else {
        addReplyError(c, "Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
        return;
    }
    clusterDoBeforeSleep(TODO_SAVE_CONFIG | TODO_UPDATE_STATE);
    addReply(c, shared.ok);
}

/* ------------------------------------------------------- the subcommands */

/* ADDSLOTS / DELSLOTS slot...: every argument parsed first, then each checked. */
static void slotsCommand(client *c, int del) {
    if (clusterDisabled(c)) return;
    unsigned char *seen = zcalloc(CLUSTER_SLOTS);
    for (int j = 2; j < c->argc; j++)
        if (getSlotOrReply(c, c->argv[j]) == -1) goto done;
    for (int j = 2; j < c->argc; j++) {
        int slot = getSlotOrReply(c, c->argv[j]);
        if (checkSlotAssignmentsOrReply(c, seen, del, slot, slot) == C_ERR) goto done;
    }
    updateSlots(seen, del);
    addReply(c, shared.ok);
done:
    zfree(seen);
}

void clusterAddslotsCommand(client *c) { slotsCommand(c, 0); }
void clusterDelslotsCommand(client *c) { slotsCommand(c, 1); }

static void slotsRangeCommand(client *c, int del) {
    if (clusterDisabled(c)) return;
    if (c->argc % 2 == 1) {
        addReplyErrorArity(c);
        return;
    }
    unsigned char *seen = zcalloc(CLUSTER_SLOTS);
    for (int j = 2; j < c->argc; j += 2) {
        int start = getSlotOrReply(c, c->argv[j]);
        if (start == -1) goto done;
        int end = getSlotOrReply(c, c->argv[j + 1]);
        if (end == -1) goto done;
        if (start > end) {
            addReplyErrorFormat(c, "start slot number %d is greater than end slot number %d", start, end);
            goto done;
        }
    }
    for (int j = 2; j < c->argc; j += 2) {
        int start = getSlotOrReply(c, c->argv[j]), end = getSlotOrReply(c, c->argv[j + 1]);
        if (checkSlotAssignmentsOrReply(c, seen, del, start, end) == C_ERR) goto done;
    }
    updateSlots(seen, del);
    addReply(c, shared.ok);
done:
    zfree(seen);
}

void clusterAddslotsrangeCommand(client *c) { slotsRangeCommand(c, 0); }
void clusterDelslotsrangeCommand(client *c) { slotsRangeCommand(c, 1); }

void clusterBumpepochCommand(client *c) {
    if (clusterDisabled(c)) return;
    int ok = clusterBumpConfigEpochWithoutConsensus() == C_OK;
    addReplySds(c, sdscatprintf(sdsempty(), "+%s %llu\r\n", ok ? "BUMPED" : "STILL",
                                (unsigned long long)myself->configEpoch));
}

void clusterCountFailureReportsCommand(client *c) {
    if (clusterDisabled(c)) return;
    clusterNode *n = nodeOrReply(c, c->argv[2]);
    if (n) addReplyLongLong(c, clusterNodeFailureReportsCount(n));
}

void clusterCountkeysinslotCommand(client *c) {
    if (clusterDisabled(c)) return;
    long long slot;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &slot, NULL) != C_OK) return;
    if (slot < 0 || slot >= CLUSTER_SLOTS) {
        addReplyError(c, "Invalid slot");
        return;
    }
    addReplyLongLong(c, (long long)dbSlotKeyCount((unsigned)slot));
}

void clusterGetkeysinslotCommand(client *c) {
    if (clusterDisabled(c)) return;
    long long slot, max;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &slot, NULL) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &max, NULL) != C_OK) return;
    if (max < 0 || slot < 0 || slot >= CLUSTER_SLOTS) {
        addReplyError(c, "Invalid slot or number of keys");
        return;
    }
    unsigned long count = dbSlotKeyCount((unsigned)slot);
    if ((unsigned long long)max < count) count = (unsigned long)max;
    sds *names = zmalloc(sizeof(sds) * (count ? count : 1));
    count = dbSlotKeyNames((unsigned)slot, names, count);
    addReplyArrayLen(c, (long)count);
    for (unsigned long j = 0; j < count; j++) addReplyBulkCBuffer(c, names[j], sdslen(names[j]));
    zfree(names);
}

void clusterFailoverCommand(client *c) {
    if (clusterDisabled(c)) return;
    int force = 0, takeover = 0;
    if (c->argc == 3) {
        if (!strcasecmp(objectPtr(c->argv[2]), "force")) force = 1;
        else if (!strcasecmp(objectPtr(c->argv[2]), "takeover")) takeover = force = 1;
        else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    } else if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (nodeIsMaster(myself)) {
        addReplyError(c, "You should send CLUSTER FAILOVER to a replica");
        return;
    }
    if (!myself->master) {
        addReplyError(c, "I'm a replica but my master is unknown to me");
        return;
    }
    if (!force && (nodeFailed(myself->master) || !myself->master->link)) {
        addReplyError(c, "Master is down or failed, please use CLUSTER FAILOVER FORCE");
        return;
    }
    clusterStartManualFailover(force, takeover);
    addReply(c, shared.ok);
}

void clusterFlushslotsCommand(client *c) {
    if (clusterDisabled(c)) return;
    if (dictSize(server.db[0].dict) != 0) {
        addReplyError(c, "DB must be empty to perform CLUSTER FLUSHSLOTS.");
        return;
    }
    clusterDelNodeSlots(myself);
    clusterDoBeforeSleep(TODO_UPDATE_STATE | TODO_SAVE_CONFIG);
    addReply(c, shared.ok);
}

void clusterForgetCommand(client *c) {
    if (clusterDisabled(c)) return;
    clusterNode *n = nodeOrReply(c, c->argv[2]);
    if (!n) return;
    if (n == myself) {
        addReplyError(c, "I tried hard but I can't forget myself...");
        return;
    }
    if (nodeIsReplica(myself) && myself->master == n) {
        addReplyError(c, "Can't forget my master!");
        return;
    }
    /* Gossip must not bring it back at once. */
    sds key = sdsnewlen(n->name, CLUSTER_NAMELEN);
    dictEntry *de = dictAddOrFind(cluster->blacklist, key);
    if (dictGetKey(de) != key) sdsfree(key);
    dictSetVal(cluster->blacklist, de, (void *)(intptr_t)(server.unixtime + BLACKLIST_TTL));
    clusterDelNode(n);
    clusterDoBeforeSleep(TODO_UPDATE_STATE | TODO_SAVE_CONFIG);
    addReply(c, shared.ok);
}

void clusterHelpCommand(client *c) {
    if (clusterDisabled(c)) return;
    static const char *help[] = {
        "ADDSLOTS <slot> [<slot> ...]",
        "    Assign slots to current node.",
        "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
        "    Assign slots which are between <start-slot> and <end-slot> to current node.",
        "BUMPEPOCH",
        "    Advance the cluster config epoch.",
        "COUNT-FAILURE-REPORTS <node-id>",
        "    Return number of failure reports for <node-id>.",
        "COUNTKEYSINSLOT <slot>",
        "    Return the number of keys in <slot>.",
        "DELSLOTS <slot> [<slot> ...]",
        "    Delete slots information from current node.",
        "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
        "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
        "FAILOVER [FORCE|TAKEOVER]",
        "    Promote current replica node to being a master.",
        "FORGET <node-id>",
        "    Remove a node from the cluster.",
        "GETKEYSINSLOT <slot> <count>",
        "    Return key names stored by current node in a slot.",
        "FLUSHSLOTS",
        "    Delete current node own slots information.",
        "INFO",
        "    Return information about the cluster.",
        "KEYSLOT <key>",
        "    Return the hash slot for <key>.",
        "MEET <ip> <port> [<bus-port>]",
        "    Connect nodes into a working cluster.",
        "MYID",
        "    Return the node id.",
        "NODES",
        "    Return cluster configuration seen by node. Output format:",
        "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
        "REPLICATE <node-id>",
        "    Configure current node as replica to <node-id>.",
        "RESET [HARD|SOFT]",
        "    Reset current node (default: soft).",
        "SET-CONFIG-EPOCH <epoch>",
        "    Set config epoch of current node.",
        "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
        "    Set slot state.",
        "REPLICAS <node-id>",
        "    Return <node-id> replicas.",
        "SAVECONFIG",
        "    Force saving cluster configuration on disk.",
        "SLOTS",
        "    Return information about slots range mappings. Each range is made of:",
        "    start, end, master and replicas IP addresses, ports and ids",
        "SHARDS",
        "    Return information about slot range mappings and the nodes associated with them.",
        "LINKS",
        "    Return information about all network links between this node and its peers.",
        "    Output format is an array where each array element is a map containing attributes of a link",
        NULL};
    addReplyHelp(c, help);
}

void clusterInfoCommand(client *c) {
    if (clusterDisabled(c)) return;
    clusterInfo(c);
}

void clusterKeyslotCommand(client *c) {
    if (clusterDisabled(c)) return;
    sds key = objectPtr(c->argv[2]);
    addReplyLongLong(c, keyHashSlot(key, sdslen(key)));
}

void clusterLinksCommand(client *c) {
    if (clusterDisabled(c)) return;
    clusterLinks(c);
}

void clusterMeetCommand(client *c) {
    if (clusterDisabled(c)) return;
    if (c->argc > 5) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    clusterMeet(c);
}

void clusterMyidCommand(client *c) {
    if (clusterDisabled(c)) return;
    addReplyBulkCBuffer(c, myself->name, CLUSTER_NAMELEN);
}

void clusterNodesCommand(client *c) {
    if (clusterDisabled(c)) return;
    sds nodes = clusterGenNodesDescription(0, clusterClientUsesPlainPort(c));
    addReplyVerbatim(c, nodes, sdslen(nodes), "txt");
    sdsfree(nodes);
}

void clusterReplicasCommand(client *c) {
    if (clusterDisabled(c)) return;
    clusterNode *n = nodeOrReply(c, c->argv[2]);
    if (!n) return;
    if (nodeIsReplica(n)) {
        addReplyError(c, "The specified node is not a master");
        return;
    }
    addReplyArrayLen(c, n->numreplicas);
    for (int j = 0; j < n->numreplicas; j++) {
        sds line = clusterGenNodeDescription(sdsempty(), n->replicas[j], clusterClientUsesPlainPort(c));
        addReplyBulkSds(c, line);
    }
}

void clusterSlavesCommand(client *c) { clusterReplicasCommand(c); }

void clusterReplicateCommand(client *c) {
    if (clusterDisabled(c)) return;
    clusterNode *n = nodeOrReply(c, c->argv[2]);
    if (!n) return;
    if (n == myself) {
        addReplyError(c, "Can't replicate myself");
        return;
    }
    if (nodeIsReplica(n)) {
        addReplyError(c, "I can only replicate a master, not a replica.");
        return;
    }
    if (nodeIsMaster(myself) && (myself->numslots != 0 || dictSize(server.db[0].dict) != 0)) {
        addReplyError(c, "To set a master the node must be empty and without assigned slots.");
        return;
    }
    clusterSetMaster(n);
    clusterDoBeforeSleep(TODO_UPDATE_STATE | TODO_SAVE_CONFIG);
    addReply(c, shared.ok);
}

void clusterResetCommand(client *c) {
    if (clusterDisabled(c)) return;
    int hard = 0;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3) {
        if (!strcasecmp(objectPtr(c->argv[2]), "hard")) hard = 1;
        else if (strcasecmp(objectPtr(c->argv[2]), "soft")) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (nodeIsMaster(myself) && dictSize(c->db->dict) != 0) {
        addReplyError(c, "CLUSTER RESET can't be called with master nodes containing keys");
        return;
    }
    clusterReset(hard);
    addReply(c, shared.ok);
}

void clusterSaveconfigCommand(client *c) {
    if (clusterDisabled(c)) return;
    if (clusterSaveConfig(1) == C_OK) addReply(c, shared.ok);
    else addReplyErrorFormat(c, "error saving the cluster node config: %s", strerror(errno));
}

void clusterSetConfigEpochCommand(client *c) {
    if (clusterDisabled(c)) return;
    long long epoch;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &epoch, NULL) != C_OK) return;
    if (epoch < 0) {
        addReplyErrorFormat(c, "Invalid config epoch specified: %lld", epoch);
    } else if (dictSize(cluster->nodes) > 1) {
        addReplyError(c, "The user can assign a config epoch only when the node does not know any other node.");
    } else if (myself->configEpoch != 0) {
        addReplyError(c, "Node config epoch is already non-zero");
    } else {
        myself->configEpoch = (uint64_t)epoch;
        serverLog(LL_WARNING, "configEpoch set to %llu via CLUSTER SET-CONFIG-EPOCH",
                  (unsigned long long)myself->configEpoch);
        if (cluster->currentEpoch < (uint64_t)epoch) cluster->currentEpoch = (uint64_t)epoch;
        clusterDoBeforeSleep(TODO_UPDATE_STATE | TODO_SAVE_CONFIG);
        addReply(c, shared.ok);
    }
}

void clusterSetslotCommand(client *c) {
    if (clusterDisabled(c)) return;
    clusterSetslot(c);
}

void clusterShardsCommand(client *c) {
    if (clusterDisabled(c)) return;
    clusterShards(c);
}

void clusterSlotsCommand(client *c) {
    if (clusterDisabled(c)) return;
    clusterSlots(c);
}
