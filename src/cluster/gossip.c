/* gossip: building and handling the cluster bus's messages (gossip.h). The
 * layout is written and read field by field at fixed offsets, big-endian, so
 * that nothing depends on how this compiler packs a struct; every length a
 * message claims is checked against its type before a field past the header
 * is read. */
#include "cluster/gossip.h"

#include "cluster/bus.h"
#include "cluster/failover.h"
#include "cluster/nodesconf.h"
#include "core/anet.h"
#include "core/clock.h"
#include "core/zmalloc.h"
#include "repl/repl.h"
#include "server/db.h"

#include <arpa/inet.h>
#include <string.h>

/* Header offsets (../ARCHITECTURE.md points at the cluster bus format). */
#define H_SIG 0
#define H_TOTLEN 4
#define H_VER 8
#define H_PORT 10
#define H_TYPE 12
#define H_COUNT 14
#define H_CURRENT_EPOCH 16
#define H_CONFIG_EPOCH 24
#define H_OFFSET 32
#define H_SENDER 40
#define H_MYSLOTS 80
#define H_SLAVEOF 2128
#define H_MYIP 2168
#define H_EXTENSIONS 2214
#define H_PPORT 2246
#define H_CPORT 2248
#define H_FLAGS 2250
#define H_STATE 2252
#define H_MFLAGS 2253
#define IP_FIELD_LEN 46

/* Gossip entry offsets. */
#define G_NAME 0
#define G_PING_SENT 40
#define G_PONG_RECEIVED 44
#define G_IP 48
#define G_PORT 94
#define G_CPORT 96
#define G_FLAGS 98
#define G_PPORT 100

#define EXT_HOSTNAME 0
#define EXT_HEADER_LEN 8

#define PROTO_VER 1

static clusterPublishDelivery *publishDelivery;
void clusterSetPublishDelivery(clusterPublishDelivery *fn) { publishDelivery = fn; }

static const char *typeNames[MSG_TYPE_COUNT] = {"ping", "pong", "meet", "fail", "publish", "auth-req",
                                                "auth-ack", "update", "mfstart", "module", "publishshard"};
const char *clusterMessageTypeName(int type) {
    return type >= 0 && type < MSG_TYPE_COUNT ? typeNames[type] : "unknown";
}

/* -------------------------------------------------------------- byte order */

static void put16(unsigned char *p, uint16_t v) {
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}
static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (24 - 8 * i));
}
static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (56 - 8 * i));
}
static uint16_t get16(const unsigned char *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static uint32_t get32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static uint64_t get64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

static int allZero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

/* A NUL-padded text field copied out, always terminated. */
static void getText(char *dst, size_t dstlen, const unsigned char *p, size_t n) {
    size_t len = 0;
    while (len < n && p[len]) len++;
    if (len >= dstlen) len = dstlen - 1;
    memcpy(dst, p, len);
    dst[len] = '\0';
}

/* ------------------------------------------------------------------ build */

/* The header of every message, in a buffer of len bytes (len >= the header). */
static unsigned char *buildMessage(int type, size_t len) {
    unsigned char *m = zcalloc(len);
    clusterNode *master = clusterShardMaster(myself);
    memcpy(m + H_SIG, "RCmb", 4);
    put32(m + H_TOTLEN, (uint32_t)len);
    put16(m + H_VER, PROTO_VER);
    put16(m + H_PORT, (uint16_t)myself->port); /* the announced ports (cluster.c keeps them) */
    put16(m + H_TYPE, (uint16_t)type);
    put64(m + H_CURRENT_EPOCH, cluster->currentEpoch);
    put64(m + H_CONFIG_EPOCH, master->configEpoch);
    put64(m + H_OFFSET, (uint64_t)replOffset());
    memcpy(m + H_SENDER, myself->name, CLUSTER_NAMELEN);
    memcpy(m + H_MYSLOTS, master->slots, sizeof(master->slots));
    if (nodeIsReplica(myself) && myself->master) memcpy(m + H_SLAVEOF, myself->master->name, CLUSTER_NAMELEN);
    if (server.cluster_announce_ip && *server.cluster_announce_ip) {
        size_t l = strlen(server.cluster_announce_ip);
        memcpy(m + H_MYIP, server.cluster_announce_ip, l < IP_FIELD_LEN - 1 ? l : IP_FIELD_LEN - 1);
    }
    put16(m + H_PPORT, (uint16_t)myself->pport);
    put16(m + H_CPORT, (uint16_t)myself->cport);
    put16(m + H_FLAGS, (uint16_t)myself->flags);
    m[H_STATE] = (unsigned char)cluster->state;
    if (nodeIsMaster(myself) && cluster->mf_end) m[H_MFLAGS] |= MSGFLAG_PAUSED;
    return m;
}

static void sendMessage(clusterLink *link, unsigned char *m, size_t len) {
    clusterSendRaw(link, m, len);
    int type = get16(m + H_TYPE);
    if (type < MSG_TYPE_COUNT) cluster->stats_sent[type]++;
}

/* To every node with a link, not in a handshake. */
/* A node a broadcast reaches: another one we have a link to, past its
 * handshake, and (shard not NULL) in the shard of that master. */
static int broadcastReaches(clusterNode *n, clusterNode *shard) {
    return n != myself && n->link && !nodeInHandshake(n) && (!shard || clusterShardMaster(n) == shard);
}

static void sendToNodes(unsigned char *m, size_t len, clusterNode *shard) {
    dictIterator it;
    dictInitIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (broadcastReaches(n, shard)) sendMessage(n->link, m, len);
    }
    dictResetIterator(&it);
}

static void broadcastMessage(unsigned char *m, size_t len) { sendToNodes(m, len, NULL); }

static void writeGossipEntry(unsigned char *g, clusterNode *n) {
    memcpy(g + G_NAME, n->name, CLUSTER_NAMELEN);
    put32(g + G_PING_SENT, (uint32_t)(n->ping_sent / 1000));
    put32(g + G_PONG_RECEIVED, (uint32_t)(n->pong_received / 1000));
    size_t l = strlen(n->ip);
    memcpy(g + G_IP, n->ip, l < IP_FIELD_LEN ? l : IP_FIELD_LEN);
    put16(g + G_PORT, (uint16_t)n->port);
    put16(g + G_CPORT, (uint16_t)n->cport);
    put16(g + G_FLAGS, (uint16_t)n->flags);
    put16(g + G_PPORT, (uint16_t)n->pport);
}

static size_t hostnameExtLen(void) {
    const char *h = server.cluster_announce_hostname;
    if (!h || !*h) return 0;
    return EXT_HEADER_LEN + ((strlen(h) + 1 + 7) & ~(size_t)7);
}

/* PING, PONG or MEET: our view, a few other nodes (a tenth of those we know,
 * at least 3) and every node we suspect, so failure reports spread. */
void clusterSendPing(clusterLink *link, int type) {
    int known = (int)dictSize(cluster->nodes);
    int freshnodes = known - 2;
    int wanted = known / 10;
    if (wanted < 3) wanted = 3;
    if (wanted > freshnodes) wanted = freshnodes;
    if (wanted < 0) wanted = 0;
    int pfail_wanted = (int)cluster->stats_pfail_nodes;
    if (link->node && type == MSG_PING) link->node->ping_sent = mstime();

    clusterNode **chosen = zmalloc(sizeof(clusterNode *) * (size_t)(wanted + pfail_wanted + 1));
    int count = 0;
    for (int tries = wanted * 3; tries > 0 && count < wanted; tries--) {
        dictEntry *de = dictGetFairRandomKey(cluster->nodes);
        clusterNode *n = dictGetVal(de);
        if (n == myself || (n->flags & NODE_PFAIL)) continue; /* the suspected ones come below */
        if ((n->flags & (NODE_HANDSHAKE | NODE_NOADDR)) || (n->link == NULL && n->numslots == 0)) continue;
        int dup = 0;
        for (int j = 0; j < count && !dup; j++) dup = chosen[j] == n;
        if (!dup) chosen[count++] = n;
    }
    if (pfail_wanted) {
        dictIterator it;
        dictInitIterator(&it, cluster->nodes);
        dictEntry *de;
        while ((de = dictNext(&it)) != NULL && pfail_wanted > 0) {
            clusterNode *n = dictGetVal(de);
            if ((n->flags & (NODE_HANDSHAKE | NODE_NOADDR)) || !(n->flags & NODE_PFAIL)) continue;
            chosen[count++] = n;
            pfail_wanted--;
        }
        dictResetIterator(&it);
    }
    size_t extlen = hostnameExtLen();
    size_t len = MSG_HEADER_LEN + (size_t)count * GOSSIP_ENTRY_LEN + extlen;
    unsigned char *m = buildMessage(type, len);
    put16(m + H_COUNT, (uint16_t)count);
    for (int j = 0; j < count; j++) writeGossipEntry(m + MSG_HEADER_LEN + (size_t)j * GOSSIP_ENTRY_LEN, chosen[j]);
    if (extlen) {
        unsigned char *e = m + MSG_HEADER_LEN + (size_t)count * GOSSIP_ENTRY_LEN;
        put32(e, (uint32_t)extlen);
        put16(e + 4, EXT_HOSTNAME);
        memcpy(e + EXT_HEADER_LEN, server.cluster_announce_hostname, strlen(server.cluster_announce_hostname));
        put16(m + H_EXTENSIONS, 1);
        m[H_MFLAGS] |= MSGFLAG_EXT_DATA;
    }
    sendMessage(link, m, len);
    zfree(m);
    zfree(chosen);
}

void clusterBroadcastPong(int only_my_shard) {
    clusterNode *shard = only_my_shard ? clusterShardMaster(myself) : NULL;
    dictIterator it;
    dictInitIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (broadcastReaches(n, shard)) clusterSendPing(n->link, MSG_PONG);
    }
    dictResetIterator(&it);
}

void clusterSendFail(const char *nodename) {
    size_t len = MSG_HEADER_LEN + CLUSTER_NAMELEN;
    unsigned char *m = buildMessage(MSG_FAIL, len);
    memcpy(m + MSG_HEADER_LEN, nodename, CLUSTER_NAMELEN);
    broadcastMessage(m, len);
    zfree(m);
}

void clusterSendUpdate(clusterLink *link, clusterNode *node) {
    if (!link) return;
    size_t len = MSG_HEADER_LEN + 8 + CLUSTER_NAMELEN + CLUSTER_SLOTS / 8;
    unsigned char *m = buildMessage(MSG_UPDATE, len);
    put64(m + MSG_HEADER_LEN, node->configEpoch);
    memcpy(m + MSG_HEADER_LEN + 8, node->name, CLUSTER_NAMELEN);
    /* Not the slots it stopped claiming. */
    for (int i = 0; i < CLUSTER_SLOTS / 8; i++)
        m[MSG_HEADER_LEN + 8 + CLUSTER_NAMELEN + i] = node->slots[i] & (unsigned char)~cluster->owner_not_claiming[i];
    sendMessage(link, m, len);
    zfree(m);
}

void clusterSendFailoverAuthRequest(void) {
    unsigned char *m = buildMessage(MSG_AUTH_REQUEST, MSG_HEADER_LEN);
    /* A manual failover asks for votes though the master is up. */
    if (cluster->mf_end) m[H_MFLAGS] |= MSGFLAG_FORCEACK;
    broadcastMessage(m, MSG_HEADER_LEN);
    zfree(m);
}

void clusterSendFailoverAuth(clusterNode *node) {
    if (!node->link) return;
    unsigned char *m = buildMessage(MSG_AUTH_ACK, MSG_HEADER_LEN);
    sendMessage(node->link, m, MSG_HEADER_LEN);
    zfree(m);
}

void clusterSendMFStart(clusterNode *node) {
    if (!node->link) return;
    unsigned char *m = buildMessage(MSG_MFSTART, MSG_HEADER_LEN);
    sendMessage(node->link, m, MSG_HEADER_LEN);
    zfree(m);
}

void clusterPropagatePublish(const char *channel, size_t chlen, const char *message, size_t msglen, int sharded) {
    size_t len = MSG_HEADER_LEN + 8 + chlen + msglen;
    unsigned char *m = buildMessage(sharded ? MSG_PUBLISHSHARD : MSG_PUBLISH, len);
    put32(m + MSG_HEADER_LEN, (uint32_t)chlen);
    put32(m + MSG_HEADER_LEN + 4, (uint32_t)msglen);
    memcpy(m + MSG_HEADER_LEN + 8, channel, chlen);
    memcpy(m + MSG_HEADER_LEN + 8 + chlen, message, msglen);
    sendToNodes(m, len, sharded ? clusterShardMaster(myself) : NULL);
    zfree(m);
}

/* ---------------------------------------------------------------- failures */

/* A suspected node becomes FAIL when a majority of masters report it. */
static void markNodeAsFailingIfNeeded(clusterNode *node) {
    int quorum = cluster->size / 2 + 1;
    if (!nodeTimedOut(node) || nodeFailed(node)) return;
    int failures = clusterNodeFailureReportsCount(node);
    if (nodeIsMaster(myself)) failures++;
    if (failures < quorum) return;
    serverLog(LL_NOTICE, "Marking node %.40s as failing (quorum reached).", node->name);
    node->flags &= ~NODE_PFAIL;
    node->flags |= NODE_FAIL;
    node->fail_time = mstime();
    /* Masters tell everyone, so the FAIL reaches nodes that could not see it. */
    if (nodeIsMaster(myself)) clusterSendFail(node->name);
    cluster->todo |= TODO_UPDATE_STATE | TODO_SAVE_CONFIG;
}

/* A FAIL node reachable again: a replica or a master with no slots is
 * cleared at once; a master with slots only after a while with nobody
 * having taken them over. */
static void clearNodeFailureIfNeeded(clusterNode *node) {
    long long now = mstime();
    if (nodeIsReplica(node) || node->numslots == 0) {
        serverLog(LL_NOTICE, "Clear FAIL state for node %.40s:%s is reachable again.", node->name,
                  nodeIsReplica(node) ? "replica" : "master without slots");
        node->flags &= ~NODE_FAIL;
        cluster->todo |= TODO_UPDATE_STATE | TODO_SAVE_CONFIG;
    }
    if (nodeIsMaster(node) && node->numslots > 0 && now - node->fail_time > server.cluster_node_timeout * 2) {
        serverLog(LL_NOTICE,
                  "Clear FAIL state for node %.40s: is reachable again and nobody is serving its slots after some time.",
                  node->name);
        node->flags &= ~NODE_FAIL;
        cluster->todo |= TODO_UPDATE_STATE | TODO_SAVE_CONFIG;
    }
}

/* ------------------------------------------------------------- addresses */

/* The address a message's sender has: what it announced, or the connection's peer. */
static void senderIp(char *ip, clusterLink *link, const unsigned char *m) {
    if (!allZero(m + H_MYIP, IP_FIELD_LEN)) {
        getText(ip, NET_IP_STR_LEN, m + H_MYIP, IP_FIELD_LEN);
        return;
    }
    if (anetFdToString(link->fd, ip, NET_IP_STR_LEN, 1) == -1) ip[0] = '\0';
    else {
        /* anetFdToString writes ip:port; keep the ip */
        char *colon = strrchr(ip, ':');
        if (colon) *colon = '\0';
        if (ip[0] == '[') {
            memmove(ip, ip + 1, strlen(ip));
            char *close = strchr(ip, ']');
            if (close) *close = '\0';
        }
    }
}

/* A known node's address changed (it said so on its own link): 1 when updated. */
static int nodeUpdateAddressIfNeeded(clusterNode *node, clusterLink *link, const unsigned char *m) {
    if (link == node->link) return 0; /* our own link reached it: the address is right */
    char ip[NET_IP_STR_LEN];
    senderIp(ip, link, m);
    int port = get16(m + H_PORT), cport = get16(m + H_CPORT), pport = get16(m + H_PPORT);
    if (node->port == port && node->cport == cport && node->pport == pport && !strcmp(ip, node->ip)) return 0;
    memcpy(node->ip, ip, sizeof(ip));
    node->port = port;
    node->pport = pport;
    node->cport = cport;
    if (node->link) freeClusterLink(node->link);
    node->flags &= ~NODE_NOADDR;
    serverLog(LL_NOTICE, "Address updated for node %.40s (%s), now %s:%d", node->name, node->hostname, node->ip,
              node->port);
    /* A replica of ours whose master moved follows it. */
    if (nodeIsReplica(myself) && myself->master == node) clusterReplicateFrom(node);
    return 1;
}

/* We learn our own IP from how others reach us, unless it is announced. */
static void learnOwnIp(clusterLink *link, int type) {
    if (server.cluster_announce_ip && *server.cluster_announce_ip) return;
    if (type != MSG_MEET && myself->ip[0]) return;
    char ip[NET_IP_STR_LEN];
    if (anetFdToString(link->fd, ip, sizeof(ip), 0) == -1) return;
    char *colon = strrchr(ip, ':');
    if (colon) *colon = '\0';
    if (ip[0] == '[') {
        memmove(ip, ip + 1, strlen(ip));
        char *close = strchr(ip, ']');
        if (close) *close = '\0';
    }
    if (strcmp(ip, myself->ip)) {
        memcpy(myself->ip, ip, sizeof(ip));
        serverLog(LL_WARNING, "IP address for this node updated to %s", myself->ip);
        cluster->todo |= TODO_SAVE_CONFIG;
    }
}

/* ------------------------------------------------------------------ gossip */

static int blacklisted(const char *name) {
    sds key = sdsnewlen(name, CLUSTER_NAMELEN);
    dictEntry *de = dictFind(cluster->blacklist, key);
    int listed = 0;
    if (de) {
        long long until = (long long)(intptr_t)dictGetVal(de);
        if (until > server.unixtime) listed = 1;
        else dictDelete(cluster->blacklist, key);
    }
    sdsfree(key);
    return listed;
}

static void processGossipSection(const unsigned char *m, int count, clusterNode *sender) {
    long long now = mstime();
    for (int j = 0; j < count; j++) {
        const unsigned char *g = m + MSG_HEADER_LEN + (size_t)j * GOSSIP_ENTRY_LEN;
        int flags = get16(g + G_FLAGS);
        if (verifyClusterNodeId((const char *)g + G_NAME, CLUSTER_NAMELEN) != C_OK) continue;
        clusterNode *node = clusterLookupNode((const char *)g + G_NAME, CLUSTER_NAMELEN);
        char ip[NET_IP_STR_LEN];
        getText(ip, sizeof(ip), g + G_IP, IP_FIELD_LEN);
        int port = get16(g + G_PORT), cport = get16(g + G_CPORT), pport = get16(g + G_PPORT);
        if (node) {
            /* Failure reports count from masters only. */
            if (sender && nodeIsMaster(sender) && node != myself) {
                if (flags & (NODE_FAIL | NODE_PFAIL)) {
                    if (clusterNodeAddFailureReport(node, sender))
                        serverLog(LL_VERBOSE, "Node %.40s reported node %.40s as not reachable.", sender->name,
                                  node->name);
                    markNodeAsFailingIfNeeded(node);
                } else if (clusterNodeDelFailureReport(node, sender)) {
                    serverLog(LL_VERBOSE, "Node %.40s reported node %.40s is back online.", sender->name, node->name);
                }
            }
            /* A fresher PONG time from someone who can reach it: no need to ping it so soon. */
            if (!(flags & (NODE_FAIL | NODE_PFAIL)) && node->ping_sent == 0 && node->nreports == 0) {
                long long pongtime = (long long)get32(g + G_PONG_RECEIVED) * 1000;
                if (pongtime <= now + 500 && pongtime > node->pong_received) node->pong_received = pongtime;
            }
            /* Unreachable here, reachable elsewhere at another address: use it. */
            if ((node->flags & (NODE_FAIL | NODE_PFAIL)) && !(flags & (NODE_NOADDR | NODE_FAIL | NODE_PFAIL)) &&
                node != myself &&
                (strcasecmp(node->ip, ip) || node->port != port || node->cport != cport)) {
                if (node->link) freeClusterLink(node->link);
                memcpy(node->ip, ip, sizeof(ip));
                node->port = port;
                node->pport = pport;
                node->cport = cport;
                node->flags &= ~NODE_NOADDR;
            }
        } else if (sender && !(flags & NODE_NOADDR) && !blacklisted((const char *)g + G_NAME)) {
            /* A node a known member knows: added under its name; our cron connects to it. */
            clusterNode *n = createClusterNode((const char *)g + G_NAME, flags & ~(NODE_MYSELF | NODE_PFAIL | NODE_FAIL));
            memcpy(n->ip, ip, sizeof(ip));
            n->port = port;
            n->pport = pport;
            n->cport = cport;
            clusterAddNode(n);
        }
    }
}

/* Extensions: each a 4-byte length (a multiple of 8, header included) and
 * a type. Sets *hostname (not terminated in the message: copied bounded). */
static int checkExtensions(const unsigned char *p, size_t avail, int count, size_t *used) {
    size_t off = 0;
    for (int j = 0; j < count; j++) {
        if (avail - off < EXT_HEADER_LEN) return 0;
        uint32_t l = get32(p + off);
        if (l < EXT_HEADER_LEN || l % 8 || l > avail - off) return 0;
        off += l;
    }
    *used = off;
    return 1;
}

static void processExtensions(clusterNode *sender, const unsigned char *p, int count) {
    sds hostname = NULL;
    size_t off = 0;
    for (int j = 0; j < count; j++) {
        uint32_t l = get32(p + off);
        uint16_t type = get16(p + off + 4);
        if (type == EXT_HOSTNAME) {
            const unsigned char *d = p + off + EXT_HEADER_LEN;
            size_t max = l - EXT_HEADER_LEN, n = 0;
            while (n < max && d[n]) n++;
            hostname = sdsnewlen(d, n);
        }
        off += l; /* types we do not know are skipped by their length */
    }
    if (!hostname) hostname = sdsempty();
    if (sdscmp(hostname, sender->hostname)) {
        sdsfree(sender->hostname);
        sender->hostname = hostname;
        cluster->todo |= TODO_SAVE_CONFIG;
    } else sdsfree(hostname);
}

/* ------------------------------------------------------------ slot config */

void clusterUpdateSlotsConfigWith(clusterNode *sender, uint64_t sender_config_epoch, const unsigned char *slots) {
    if (sender == myself) {
        serverLog(LL_NOTICE, "Discarding UPDATE message about myself.");
        return;
    }
    clusterNode *curmaster = nodeIsMaster(myself) ? myself : myself->master;
    clusterNode *newmaster = NULL;
    int dirty[CLUSTER_SLOTS];
    int ndirty = 0;
    /* Whether sender is simply our shard's new master: every slot it
     * claims was our master's. */
    int sender_slots = 0, migrated_our_slots = 0;
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        unsigned char bit = (unsigned char)(1 << (j & 7));
        if (!((slots[j >> 3] >> (j & 7)) & 1)) {
            /* Still bound to sender, which stopped claiming it: kept (no FAIL
             * state meanwhile), but marked. */
            if (cluster->slots[j] == sender) cluster->owner_not_claiming[j >> 3] |= bit;
            continue;
        }
        sender_slots++;
        if (cluster->slots[j] == sender) {
            cluster->owner_not_claiming[j >> 3] &= (unsigned char)~bit;
            continue;
        }
        /* A slot we import is ours to settle (SETSLOT NODE), not gossip's. */
        if (cluster->importing_from[j]) continue;
        if (!clusterSlotUnclaimed(j) && cluster->slots[j]->configEpoch >= sender_config_epoch) continue;
        if (cluster->slots[j] == myself && dbSlotKeyCount((unsigned)j)) dirty[ndirty++] = j;
        if (cluster->slots[j] == curmaster) {
            newmaster = sender;
            migrated_our_slots++;
        }
        clusterDelSlot(j);
        clusterAddSlot(sender, j);
        cluster->owner_not_claiming[j >> 3] &= (unsigned char)~bit;
        cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE | TODO_FSYNC_CONFIG;
    }
    if (curmaster && newmaster && curmaster->numslots == 0 &&
        (server.cluster_allow_replica_migration || sender_slots == migrated_our_slots)) {
        /* Our master (or we) lost every slot to sender: we follow it (with
         * replica migration off, only when it is just our shard's new master). */
        serverLog(LL_NOTICE, "Configuration change detected. Reconfiguring myself as a replica of %.40s", sender->name);
        clusterSetMaster(sender);
        cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE | TODO_FSYNC_CONFIG;
    } else if (myself->master && myself->master->master && myself->master->master != myself) {
        /* Our master became a replica: follow its master (not ourselves, which
         * a CLUSTER FAILOVER TAKEOVER can leave: that is the admin's to repair). */
        serverLog(LL_NOTICE, "I'm a sub-replica! Reconfiguring myself as a replica of grandmaster %.40s",
                  myself->master->master->name);
        clusterSetMaster(myself->master->master);
        cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE | TODO_FSYNC_CONFIG;
    } else {
        /* Slots we lost with keys in them: the keys go (their slot is served elsewhere). */
        for (int j = 0; j < ndirty; j++) dbDeleteSlotKeys((unsigned)dirty[j]);
    }
}

/* ------------------------------------------------------------------ input */

/* The length a message of this type must have; 0 when it cannot be told
 * from the fixed part alone (checked by the caller). */
static int validLength(const unsigned char *m, uint32_t len, int type, size_t *ext_off) {
    uint64_t expected;
    switch (type) {
    case MSG_PING:
    case MSG_PONG:
    case MSG_MEET: {
        uint64_t count = get16(m + H_COUNT);
        expected = MSG_HEADER_LEN + count * GOSSIP_ENTRY_LEN;
        if (expected > len) return 0;
        *ext_off = (size_t)expected;
        size_t used = 0;
        int exts = get16(m + H_EXTENSIONS);
        if (exts && !checkExtensions(m + expected, len - expected, exts, &used)) return 0;
        expected += used;
        break;
    }
    case MSG_FAIL: expected = MSG_HEADER_LEN + CLUSTER_NAMELEN; break;
    case MSG_PUBLISH:
    case MSG_PUBLISHSHARD:
        if (len < MSG_HEADER_LEN + 8) return 0;
        expected = MSG_HEADER_LEN + 8 + (uint64_t)get32(m + MSG_HEADER_LEN) + get32(m + MSG_HEADER_LEN + 4);
        break;
    case MSG_AUTH_REQUEST:
    case MSG_AUTH_ACK:
    case MSG_MFSTART: expected = MSG_HEADER_LEN; break;
    case MSG_UPDATE: expected = MSG_HEADER_LEN + 8 + CLUSTER_NAMELEN + CLUSTER_SLOTS / 8; break;
    case MSG_MODULE:
        if (len < MSG_HEADER_LEN + 13) return 0;
        expected = MSG_HEADER_LEN + 13 + (uint64_t)get32(m + MSG_HEADER_LEN + 8);
        break;
    default: return 1; /* a type we do not know: ignored whole */
    }
    return expected == len;
}

int clusterProcessMessage(clusterLink *link, const unsigned char *m, uint32_t len) {
    int type = get16(m + H_TYPE);
    if (type < MSG_TYPE_COUNT) cluster->stats_received[type]++;
    if (get16(m + H_VER) != PROTO_VER) return 1; /* a version we do not speak: ignored */
    size_t ext_off = 0;
    if (!validLength(m, len, type, &ext_off)) {
        serverLog(LL_WARNING, "Received invalid %s packet of length %u", clusterMessageTypeName(type), len);
        return 1;
    }
    if (type >= MSG_TYPE_COUNT) return 1;
    if (type == server.cluster_drop_packet_filter) {
        serverLog(LL_WARNING, "Dropping packet that matches debug drop filter");
        return 1;
    }

    long long now = mstime();
    uint16_t flags = get16(m + H_FLAGS);
    uint64_t sender_current_epoch = get64(m + H_CURRENT_EPOCH), sender_config_epoch = get64(m + H_CONFIG_EPOCH);
    const char *sender_name = (const char *)m + H_SENDER;
    clusterNode *sender = clusterLookupNode(sender_name, CLUSTER_NAMELEN);
    /* An inbound link learns whose it is from the first message of a known node. */
    if (sender && link->inbound && !link->node && !nodeInHandshake(sender)) {
        if (sender->inbound_link && sender->inbound_link != link) freeClusterLink(sender->inbound_link);
        sender->inbound_link = link;
        link->node = sender;
    }
    if (sender && !nodeInHandshake(sender)) {
        if (sender_current_epoch > cluster->currentEpoch) cluster->currentEpoch = sender_current_epoch;
        if (sender_config_epoch > sender->configEpoch) {
            sender->configEpoch = sender_config_epoch;
            cluster->todo |= TODO_SAVE_CONFIG | TODO_FSYNC_CONFIG;
        }
        sender->repl_offset = (long long)get64(m + H_OFFSET);
        sender->repl_offset_time = now;
        /* A replica in a manual failover waits for its paused master's offset. */
        if (cluster->mf_end && nodeIsReplica(myself) && myself->master == sender && (m[H_MFLAGS] & MSGFLAG_PAUSED) &&
            cluster->mf_master_offset == -1) {
            cluster->mf_master_offset = sender->repl_offset;
            cluster->todo |= TODO_HANDLE_FAILOVER;
            serverLog(LL_NOTICE, "Received replication offset for paused master manual failover: %lld",
                      cluster->mf_master_offset);
        }
    }
    if (sender) sender->data_received = now;

    if (type == MSG_PING || type == MSG_PONG || type == MSG_MEET) {
        if (type == MSG_PING || type == MSG_MEET) {
            learnOwnIp(link, type);
            /* A MEET from a node we do not know starts our handshake with it. */
            if (!sender && type == MSG_MEET) {
                clusterNode *n = createClusterNode(NULL, NODE_HANDSHAKE);
                senderIp(n->ip, link, m);
                n->port = get16(m + H_PORT);
                n->pport = get16(m + H_PPORT);
                n->cport = get16(m + H_CPORT);
                clusterAddNode(n);
                cluster->todo |= TODO_SAVE_CONFIG;
                processGossipSection(m, get16(m + H_COUNT), NULL);
            }
            clusterSendPing(link, MSG_PONG);
        }

        if (link->node && !link->inbound) {
            if (nodeInHandshake(link->node)) {
                /* Our PING/MEET's answer: the node now has its real name. */
                if (sender) {
                    serverLog(LL_VERBOSE, "Handshake: we already know node %.40s (%s), updating the address if needed.",
                              sender->name, sender->hostname);
                    if (nodeUpdateAddressIfNeeded(sender, link, m)) cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE;
                    clusterDelNode(link->node); /* frees this link */
                    return 0;
                }
                clusterRenameNode(link->node, sender_name);
                serverLog(LL_DEBUG, "Handshake with node %.40s completed.", link->node->name);
                link->node->flags &= ~NODE_HANDSHAKE;
                link->node->flags |= flags & (NODE_MASTER | NODE_SLAVE);
                cluster->todo |= TODO_SAVE_CONFIG;
            } else if (memcmp(link->node->name, sender_name, CLUSTER_NAMELEN)) {
                /* Another node answers at this address: the one we knew there is gone from it. */
                serverLog(LL_VERBOSE, "PONG contains mismatching sender ID. About node %.40s added %d ms ago, having flags %d",
                          link->node->name, (int)(now - link->node->ctime), link->node->flags);
                link->node->flags |= NODE_NOADDR;
                link->node->ip[0] = '\0';
                link->node->port = 0;
                link->node->pport = 0;
                link->node->cport = 0;
                freeClusterLink(link);
                cluster->todo |= TODO_SAVE_CONFIG;
                return 0;
            }
        }
        if (sender) {
            sender->flags = (sender->flags & ~NODE_NOFAILOVER) | (flags & NODE_NOFAILOVER);
            if (type == MSG_PING && !nodeInHandshake(sender) && nodeUpdateAddressIfNeeded(sender, link, m))
                cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE;
        }
        /* The answer to our ping: it is alive. */
        if (!link->inbound && link->node && type == MSG_PONG) {
            link->node->pong_received = now;
            link->node->ping_sent = 0;
            if (nodeTimedOut(link->node)) {
                link->node->flags &= ~NODE_PFAIL;
                cluster->todo |= TODO_UPDATE_STATE | TODO_SAVE_CONFIG;
            } else if (nodeFailed(link->node)) {
                clearNodeFailureIfNeeded(link->node);
            }
        }
        if (!sender) return 1;
        if (nodeInHandshake(sender)) return 1;

        /* Its role. */
        if (allZero(m + H_SLAVEOF, CLUSTER_NAMELEN)) {
            clusterSetNodeAsMaster(sender);
        } else {
            clusterNode *master = clusterLookupNode((const char *)m + H_SLAVEOF, CLUSTER_NAMELEN);
            if (nodeIsMaster(sender)) {
                /* A master turned replica: its slots are its new master's. */
                clusterDelNodeSlots(sender);
                sender->flags &= ~(NODE_MASTER | NODE_MIGRATE_TO);
                sender->flags |= NODE_SLAVE;
                cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE;
            }
            if (master && sender->master != master) {
                if (sender->master) clusterNodeRemoveReplica(sender->master, sender);
                clusterNodeAddReplica(master, sender);
                sender->master = master;
                cluster->todo |= TODO_SAVE_CONFIG;
            }
        }

        /* Its slots (a replica's header carries its master's). */
        clusterNode *sender_master = nodeIsMaster(sender) ? sender : sender->master;
        const unsigned char *claimed = m + H_MYSLOTS;
        int dirty = sender_master && memcmp(sender_master->slots, claimed, CLUSTER_SLOTS / 8);
        if (nodeIsMaster(sender) && dirty) clusterUpdateSlotsConfigWith(sender, sender_config_epoch, claimed);
        /* It claims slots we know a newer owner of: tell it (one UPDATE is enough). */
        if (dirty) {
            for (int j = 0; j < CLUSTER_SLOTS; j++) {
                if (!((claimed[j >> 3] >> (j & 7)) & 1)) continue;
                clusterNode *owner = cluster->slots[j];
                if (owner == sender || clusterSlotUnclaimed(j)) continue;
                if (owner->configEpoch > sender_config_epoch) {
                    serverLog(LL_VERBOSE,
                              "Node %.40s has old slots configuration, sending an UPDATE message about %.40s",
                              sender->name, owner->name);
                    clusterSendUpdate(sender->link, owner);
                    break;
                }
            }
        }
        if (nodeIsMaster(myself) && nodeIsMaster(sender) && sender_config_epoch == myself->configEpoch)
            clusterHandleConfigEpochCollision(sender);
        processGossipSection(m, get16(m + H_COUNT), sender);
        processExtensions(sender, m + ext_off, get16(m + H_EXTENSIONS));
        return 1;
    }

    switch (type) {
    case MSG_FAIL: {
        if (!sender) return 1;
        clusterNode *failing = clusterLookupNode((const char *)m + MSG_HEADER_LEN, CLUSTER_NAMELEN);
        if (failing && !(failing->flags & (NODE_FAIL | NODE_MYSELF))) {
            serverLog(LL_NOTICE, "FAIL message received from %.40s about %.40s", sender->name, failing->name);
            failing->flags |= NODE_FAIL;
            failing->fail_time = now;
            failing->flags &= ~NODE_PFAIL;
            cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE;
        }
        break;
    }
    case MSG_PUBLISH:
    case MSG_PUBLISHSHARD: {
        if (!sender || !publishDelivery) return 1;
        uint32_t chlen = get32(m + MSG_HEADER_LEN), msglen = get32(m + MSG_HEADER_LEN + 4);
        const char *data = (const char *)m + MSG_HEADER_LEN + 8;
        publishDelivery(data, chlen, data + chlen, msglen, type == MSG_PUBLISHSHARD);
        break;
    }
    case MSG_AUTH_REQUEST:
        if (sender) clusterHandleAuthRequest(sender, sender_current_epoch, sender_config_epoch, m + H_MYSLOTS, m[H_MFLAGS]);
        break;
    case MSG_AUTH_ACK:
        if (sender) clusterHandleAuthAck(sender, sender_current_epoch);
        break;
    case MSG_MFSTART:
        if (sender && sender->master == myself) clusterHandleMFStart(sender);
        break;
    case MSG_UPDATE: {
        if (!sender) return 1;
        uint64_t reported = get64(m + MSG_HEADER_LEN);
        clusterNode *n = clusterLookupNode((const char *)m + MSG_HEADER_LEN + 8, CLUSTER_NAMELEN);
        if (!n || n->configEpoch >= reported) return 1;
        if (nodeIsReplica(n)) clusterSetNodeAsMaster(n);
        n->configEpoch = reported;
        clusterUpdateSlotsConfigWith(n, reported, m + MSG_HEADER_LEN + 8 + CLUSTER_NAMELEN);
        break;
    }
    default: break; /* MODULE: no modules here */
    }
    return 1;
}

/* ------------------------------------------------------------------- links */

void clusterLinkConnected(clusterLink *link) {
    clusterNode *node = link->node;
    long long old_ping_sent = node->ping_sent;
    clusterSendPing(link, (node->flags & NODE_MEET) ? MSG_MEET : MSG_PING);
    /* A reconnect does not restart the wait for an answer to an older ping. */
    if (old_ping_sent) node->ping_sent = old_ping_sent;
    node->flags &= ~NODE_MEET;
    serverLog(LL_DEBUG, "Connecting with Node %.40s at %s:%d", node->name, node->ip, node->cport);
}

