/* cluster: start-up, the cron (every 100 ms, as Redis Cluster's timing
 * assumes), the work gathered for before sleeping, the router of commands
 * by hash slot (MOVED, ASK, TRYAGAIN, CROSSSLOT, CLUSTERDOWN) and INFO. */
#include "cluster/cluster.h"

#include "cluster/bus.h"
#include "cluster/failover.h"
#include "cluster/gossip.h"
#include "cluster/nodesconf.h"
#include "cluster/state.h"
#include "core/ae.h"
#include "core/clock.h"
#include "core/zmalloc.h"
#include "server/blocking.h"
#include "server/cmdinfo.h"
#include "server/command.h"
#include "server/db.h"
#include "server/hooks.h"
#include "repl/repl.h"
#include "server/reply.h"
#include "server/transaction.h"

#include <stdlib.h>
#include <string.h>

#define CRON_PERIOD_MS 100

static struct redisCommand *migrate_command;

static dictType nodesDictType = {.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare,
                                 .keyDestructor = dictSdsDestructor};
static dictType blacklistDictType = {.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare,
                                     .keyDestructor = dictSdsDestructor}; /* values: expiry times, not pointers */

static long long clusterCron(aeEventLoop *el, long long id, void *data);

/* ------------------------------------------------------------------ start */

/* The announced ports as 7.0 derives them: with tls-cluster, port is the TLS
 * port (cluster-announce-tls-port) and pport the plain one
 * (cluster-announce-port), which plain clients are sent to. */
static void setMyselfAddress(void) {
    myself->port = clusterDataPort();
    myself->pport = server.tls_cluster ? server.port : 0;
    if (server.tls_cluster && server.cluster_announce_tls_port) {
        myself->port = server.cluster_announce_tls_port;
        myself->pport = server.cluster_announce_port;
    } else if (server.cluster_announce_port) {
        myself->port = server.cluster_announce_port;
    }
    myself->cport = server.cluster_announce_bus_port ? server.cluster_announce_bus_port : clusterBusPort();
    if (server.cluster_announce_ip && *server.cluster_announce_ip) {
        size_t l = strlen(server.cluster_announce_ip);
        if (l >= sizeof(myself->ip)) l = sizeof(myself->ip) - 1;
        memcpy(myself->ip, server.cluster_announce_ip, l);
        myself->ip[l] = '\0';
    }
    const char *h = server.cluster_announce_hostname ? server.cluster_announce_hostname : "";
    if (strcmp(h, myself->hostname)) {
        sdsfree(myself->hostname);
        myself->hostname = sdsnew(h);
    }
}

/* cluster-replica-no-failover shows in myself's flags, which the bus sends
 * (the others list the node as "nofailover"). */
static void updateMyselfFlags(void) {
    int old = myself->flags;
    myself->flags &= ~NODE_NOFAILOVER;
    if (server.cluster_replica_no_failover) myself->flags |= NODE_NOFAILOVER;
    if (myself->flags != old) cluster->todo |= TODO_SAVE_CONFIG | TODO_UPDATE_STATE;
}

void clusterInitState(void) {
    cluster = zcalloc(sizeof(*cluster));
    cluster->state = CLUSTER_FAIL;
    cluster->size = 1;
    cluster->nodes = dictCreate(&nodesDictType);
    cluster->blacklist = dictCreate(&blacklistDictType);
    cluster->mf_master_offset = -1;
}

void clusterInit(void) {
    clusterInitState();
    migrate_command = lookupCommandByCString("migrate");
    /* The lock first: a second process must not even read a live node's file. */
    if (clusterLockConfig(server.cluster_configfile) == C_ERR) exit(1);
    if (clusterLoadConfig(server.cluster_configfile) == C_ERR) {
        myself = createClusterNode(NULL, NODE_MYSELF | NODE_MASTER);
        serverLog(LL_NOTICE, "No cluster configuration found, I'm %.40s", myself->name);
        clusterAddNode(myself);
        setMyselfAddress();
        clusterSaveConfigOrDie(1);
    }
    int port = clusterBusPort();
    if (port > 65535) {
        serverLog(LL_WARNING,
                  "Redis port number too high. Cluster communication port is 10,000 port numbers higher than your "
                  "Redis port. Your Redis port number must be 55535 or less.");
        exit(1);
    }
    if (clusterBusListen() == C_ERR) exit(1);
    setMyselfAddress();
    updateMyselfFlags();
    /* A replica in the file follows its master again. */
    if (nodeIsReplica(myself) && myself->master) clusterReplicateFrom(myself->master);
    aeCreateTimeEvent(server.el, CRON_PERIOD_MS, clusterCron, NULL);
}

void clusterVerifyDataAfterLoad(void) {
    /* A replica's keys are its master's slots: nothing to claim (as 7.0). An
     * importing state set here would outlive a failover and keep the node
     * a master of those slots after it restarts as an old master. */
    if (nodeIsReplica(myself)) {
        clusterUpdateState();
        return;
    }
    for (int j = 1; j < server.dbnum; j++) {
        if (dictSize(server.db[j].dict)) {
            serverLog(LL_WARNING, "You can't have keys in a DB different than DB 0 when in Cluster mode. Exiting.");
            exit(1);
        }
    }
    int claimed = 0;
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!dbSlotKeyCount((unsigned)j) || cluster->slots[j] == myself || cluster->importing_from[j]) continue;
        if (cluster->slots[j] == NULL) {
            serverLog(LL_NOTICE, "I have keys for unassigned slot %d. Taking responsibility for it.", j);
            clusterAddSlot(myself, j);
            claimed = 1;
        } else {
            serverLog(LL_NOTICE,
                      "I have keys for slot %d, but the slot is assigned to another node. Setting it to importing state.",
                      j);
            cluster->importing_from[j] = cluster->slots[j];
            claimed = 1;
        }
    }
    if (claimed) clusterSaveConfigOrDie(1);
    clusterUpdateState();
}

void clusterOnShutdown(void) {
    if (!cluster) return;
    clusterSaveConfig(1);
    clusterDropConfigSpare();
}

/* ------------------------------------------------------------------- cron */

static long long clusterCron(aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    static unsigned long iteration;
    long long now = mstime();
    iteration++;
    setMyselfAddress();
    long long handshake_timeout = server.cluster_node_timeout < 1000 ? 1000 : server.cluster_node_timeout;
    int update_state = 0;

    /* Links: handshakes that took too long go, nodes without a link get one. */
    cluster->stats_pfail_nodes = 0;
    dictIterator it;
    dictInitSafeIterator(&it, cluster->nodes);
    dictEntry *de;
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (n->flags & (NODE_MYSELF | NODE_NOADDR)) continue;
        if (n->flags & NODE_PFAIL) cluster->stats_pfail_nodes++;
        if (nodeInHandshake(n) && now - n->ctime > handshake_timeout) {
            clusterDelNode(n);
            continue;
        }
        if (n->link == NULL && clusterConnectNode(n) == C_ERR) {
            /* Unreachable even to connect: the wait for its answer starts now. */
            if (n->ping_sent == 0) n->ping_sent = mstime();
        }
    }
    dictResetIterator(&it);

    /* Once a second, a ping to the node among five random ones we heard from least recently. */
    if (iteration % 10 == 0) {
        clusterNode *min = NULL;
        long long min_pong = 0;
        for (int j = 0; j < 5 && dictSize(cluster->nodes); j++) {
            clusterNode *n = dictGetVal(dictGetFairRandomKey(cluster->nodes));
            if (!n->link || n->link->connecting || n->ping_sent != 0 || (n->flags & (NODE_MYSELF | NODE_HANDSHAKE)))
                continue;
            if (!min || n->pong_received < min_pong) {
                min = n;
                min_pong = n->pong_received;
            }
        }
        if (min) clusterSendPing(min->link, MSG_PING);
    }

    /* Timeouts: suspected nodes, dead links, and the counts replica migration needs. */
    int orphaned_masters = 0, max_replicas = 0, my_master_replicas = 0;
    dictInitSafeIterator(&it, cluster->nodes);
    while ((de = dictNext(&it)) != NULL) {
        clusterNode *n = dictGetVal(de);
        if (n->flags & (NODE_MYSELF | NODE_NOADDR | NODE_HANDSHAKE)) continue;
        if (nodeIsReplica(myself) && nodeIsMaster(n) && !nodeFailed(n)) {
            int ok = clusterCountNonFailingReplicas(n);
            if (ok == 0 && n->numslots > 0 && (n->flags & NODE_MIGRATE_TO)) {
                orphaned_masters++;
                if (!n->orphaned_time) n->orphaned_time = now;
            } else n->orphaned_time = 0;
            if (ok > max_replicas) max_replicas = ok;
            if (myself->master == n) my_master_replicas = ok;
        }
        long long ping_delay = now - n->ping_sent, data_delay = now - n->data_received;
        /* A link that got no answer for half a timeout is made again (it may be what failed). */
        if (n->link && !n->link->connecting && now - n->link->ctime > server.cluster_node_timeout && n->ping_sent &&
            ping_delay > server.cluster_node_timeout / 2 && data_delay > server.cluster_node_timeout / 2) {
            freeClusterLink(n->link);
        }
        if (n->link && !n->link->connecting && n->ping_sent == 0 &&
            now - n->pong_received > server.cluster_node_timeout / 2) {
            clusterSendPing(n->link, MSG_PING);
            continue;
        }
        /* A manual failover: its master keeps the replica informed. */
        if (cluster->mf_end && nodeIsMaster(myself) && cluster->mf_replica == n && n->link) {
            clusterSendPing(n->link, MSG_PING);
            continue;
        }
        if (n->ping_sent == 0) continue;
        long long delay = ping_delay < data_delay ? ping_delay : data_delay;
        if (delay > server.cluster_node_timeout && !(n->flags & (NODE_PFAIL | NODE_FAIL))) {
            serverLog(LL_DEBUG, "*** NODE %.40s possibly failing", n->name);
            n->flags |= NODE_PFAIL;
            update_state = 1;
        }
    }
    dictResetIterator(&it);

    /* A replica whose replication is off follows its master again. */
    if (nodeIsReplica(myself) && myself->master && !cluster->mf_end && !nodeFailed(myself->master) &&
        !replIsFollowing(myself->master->ip, myself->master->port))
        clusterReplicateFrom(myself->master);

    clusterFailoverCron(orphaned_masters, max_replicas, my_master_replicas);
    if (update_state || cluster->state == CLUSTER_FAIL) clusterUpdateState();
    clusterCheckLinkBuffers();
    return CRON_PERIOD_MS;
}

void clusterBeforeSleep(void) {
    if (!cluster) return;
    int todo = cluster->todo;
    cluster->todo = 0;
    if (todo & TODO_HANDLE_FAILOVER) {
        clusterHandleManualFailover();
        if (nodeIsReplica(myself)) clusterHandleReplicaFailover();
    }
    if (todo & TODO_UPDATE_STATE) clusterUpdateState();
    if (todo & TODO_SAVE_CONFIG) clusterSaveConfigOrDie((todo & TODO_FSYNC_CONFIG) != 0);
    /* What the steps above asked for waits for the next turn. */
}

/* ------------------------------------------------------------------ router */

static int sameKey(robj *a, robj *b) {
    return sdslen(objectPtr(a)) == sdslen(objectPtr(b)) && memcmp(objectPtr(a), objectPtr(b), sdslen(objectPtr(a))) == 0;
}

int clusterSlotServedElsewhere(int slot) {
    const clusterNode *owner = cluster->slots[slot];
    return owner && owner != myself && !cluster->importing_from[slot];
}

int clusterQueryIsLocal(client *c, struct redisCommand *cmd, robj **argv, int argc, int *slot_out, int *error) {
    *error = REDIR_NONE;
    /* The common case first: one key (argv[1]), in a slot served here and
     * stable, the cluster up. Everything else takes the whole way below. */
    if (cmd->firstkey == 1 && cmd->lastkey == 1 && argc > 1 && !(cmd->flags & (CMD_MOVABLE_KEYS | CMD_PUBSUB)) &&
        cmd != server.exec_command && cluster->state == CLUSTER_OK) {
        sds key = objectPtr(argv[1]);
        unsigned slot = keyHashSlot(key, sdslen(key));
        if (cluster->slots[slot] == myself && !cluster->migrating_to[slot] && !cluster->importing_from[slot]) {
            if (slot_out) *slot_out = (int)slot;
            return 1;
        }
    }
    multiCmd single = {argv, argc, cmd};
    multiCmd *cmds = &single;
    int ncmds = 1;
    if (cmd == server.exec_command) {
        if (!(c->flags & CLIENT_MULTI)) return 1;
        cmds = c->mstate.commands;
        ncmds = c->mstate.count;
    }
    clusterNode *n = NULL;
    robj *firstkey = NULL;
    int slot = 0, multiple_keys = 0, migrating = 0, importing = 0, missing = 0, existing = 0;
    /* SSUBSCRIBE, SUNSUBSCRIBE, SPUBLISH (the pub/sub commands with keys), as
     * the command itself, not queued in a MULTI: an open slot's channels
     * stay served by its owner until SETSLOT NODE moves them. */
    int pubsubshard = (cmd->flags & CMD_PUBSUB) != 0;
    for (int i = 0; i < ncmds; i++) {
        struct redisCommand *mcmd = cmds[i].cmd;
        keyReference *keys = NULL;
        int numkeys = getRoutingKeys(mcmd, cmds[i].argv, cmds[i].argc, &keys); /* shard channels too */
        for (int j = 0; j < numkeys; j++) {
            robj *key = cmds[i].argv[keys[j].pos];
            int thisslot = (int)keyHashSlot(objectPtr(key), sdslen(objectPtr(key)));
            if (!firstkey) {
                firstkey = key;
                slot = thisslot;
                n = cluster->slots[slot];
                if (!n) {
                    zfree(keys);
                    *error = REDIR_DOWN_UNBOUND;
                    return 0;
                }
                if (n == myself && cluster->migrating_to[slot]) migrating = 1;
                else if (cluster->importing_from[slot]) importing = 1;
                /* Whether a key is here depends on the time: the clock of now, not of the last command. */
                if (migrating || importing) updateCachedTime();
            } else if (!sameKey(firstkey, key)) {
                if (slot != thisslot) {
                    zfree(keys);
                    *error = REDIR_CROSS_SLOT;
                    return 0;
                }
                multiple_keys = 1;
            }
            if ((migrating || importing) && !pubsubshard) {
                /* An expired key counts as missing (and stays: the lookup deletes nothing). */
                if (lookupKeyReadWithFlags(&server.db[0], key,
                                           LOOKUP_NOTOUCH | LOOKUP_NOSTATS | LOOKUP_NONOTIFY | LOOKUP_NOEXPIRE))
                    existing++;
                else missing++;
            }
        }
        if (numkeys > 0) zfree(keys);
    }
    if (!n) return 1; /* no key: served anywhere */
    /* A script's command is a write as the script declares (shebang or function flags). */
    int is_write = (c->cmd && (commandFlags(c) & CMD_WRITE)) ||
                   (cmd == server.exec_command && (c->mstate.cmd_flags & CMD_WRITE)) || (cmd->flags & CMD_WRITE);
    if (cluster->state != CLUSTER_OK) {
        if (pubsubshard) {
            if (!server.cluster_allow_pubsubshard_when_down) {
                *error = REDIR_DOWN_STATE;
                return 0;
            }
        } else if (!server.cluster_allow_reads_when_down) {
            *error = REDIR_DOWN_STATE;
            return 0;
        } else if (is_write) {
            *error = REDIR_DOWN_RO_STATE;
            return 0;
        }
    }
    if (slot_out) *slot_out = slot;
    /* MIGRATE of an open slot runs here: it is how the keys move. */
    if ((migrating || importing) && cmd == migrate_command) return 1;
    if (migrating && missing) {
        *error = existing ? REDIR_UNSTABLE : REDIR_ASK;
        return 0;
    }
    if (importing && ((c->flags & CLIENT_ASKING) || (cmd->flags & CMD_ASKING))) {
        if (multiple_keys && missing) {
            *error = REDIR_UNSTABLE;
            return 0;
        }
        return 1;
    }
    /* READONLY clients (and sharded pub/sub) read from a replica of the slot's master. */
    if (((c->flags & CLIENT_READONLY) || pubsubshard) && !is_write && nodeIsReplica(myself) && myself->master == n)
        return 1;
    if (n != myself) {
        *error = REDIR_MOVED;
        return 0;
    }
    return 1;
}

void clusterReplyRedirect(client *c, int slot, int error) {
    switch (error) {
    case REDIR_CROSS_SLOT: addReplyError(c, "-CROSSSLOT Keys in request don't hash to the same slot"); break;
    case REDIR_UNSTABLE: addReplyError(c, "-TRYAGAIN Multiple keys request during rehashing of slot"); break;
    case REDIR_DOWN_STATE: addReplyError(c, "-CLUSTERDOWN The cluster is down"); break;
    case REDIR_DOWN_RO_STATE: addReplyError(c, "-CLUSTERDOWN The cluster is down and only accepts read commands"); break;
    case REDIR_DOWN_UNBOUND: addReplyError(c, "-CLUSTERDOWN Hash slot not served"); break;
    case REDIR_MOVED:
    case REDIR_ASK: {
        clusterNode *n = error == REDIR_ASK ? cluster->migrating_to[slot] : cluster->slots[slot];
        if (!n) {
            addReplyError(c, "-CLUSTERDOWN Hash slot not served");
            break;
        }
        addReplyErrorFormat(c, "-%s %d %s:%d", error == REDIR_ASK ? "ASK" : "MOVED", slot,
                            clusterNodePreferredEndpoint(n), clusterNodePortFor(n, c));
        break;
    }
    default: addReplyError(c, "-ERR Unknown cluster redirection"); break;
    }
}

int clusterRouteCommand(client *c) {
    if (!server.cluster_enabled || (c->flags & (CLIENT_MASTER | CLIENT_AOF))) return 0;
    /* Key specs, not-key ones included: SSUBSCRIBE and SPUBLISH go by their channel's slot. */
    if (!(c->cmd->flags & CMD_MOVABLE_KEYS) && !commandHasKeySpecs(c->cmd) && c->cmd != server.exec_command) return 0;
    int slot = 0, error;
    if (clusterQueryIsLocal(c, c->cmd, c->argv, c->argc, &slot, &error)) return 0;
    if (c->cmd == server.exec_command) discardTransaction(c);
    else flagTransaction(c);
    clusterReplyRedirect(c, slot, error);
    c->cmd->rejected_calls++;
    return 1;
}

/* ------------------------------------------------ keys: blocked clients, scripts, lost slots */

int clusterRedirectBlockedClient(client *c) {
    if (!cluster || !(c->flags & CLIENT_BLOCKED)) return 0;
    /* Down: even where reads are allowed, the write that would serve it may never come. */
    if (cluster->state != CLUSTER_OK) {
        clusterReplyRedirect(c, 0, REDIR_DOWN_STATE);
        return 1;
    }
    if (!c->bpop.keys || !dictSize(c->bpop.keys)) return 0;
    /* The router let the command block only with keys of one slot: the first says it. */
    dictIterator it;
    dictInitIterator(&it, c->bpop.keys);
    dictEntry *de = dictNext(&it);
    robj *key = dictGetKey(de);
    dictResetIterator(&it);
    int slot = (int)keyHashSlot(objectPtr(key), sdslen(objectPtr(key)));
    clusterNode *n = cluster->slots[slot];
    /* A READONLY client's read waits on a replica of the slot's master as well. */
    if ((c->flags & CLIENT_READONLY) && c->lastcmd && !(c->lastcmd->flags & CMD_WRITE) && nodeIsReplica(myself) &&
        myself->master == n)
        return 0;
    /* Served here, or coming here (the keys may yet arrive): it waits on. */
    if (n == myself || cluster->importing_from[slot]) return 0;
    clusterReplyRedirect(c, slot, n ? REDIR_MOVED : REDIR_DOWN_UNBOUND);
    return 1;
}

const char *clusterScriptKeyError(client *script_caller, client *c, int *slot_of_call) {
    if (!server.cluster_enabled || (script_caller->flags & (CLIENT_MASTER | CLIENT_AOF))) return NULL;
    /* The script's commands route as its caller's would (READONLY, ASKING). */
    c->flags &= ~(CLIENT_READONLY | CLIENT_ASKING);
    c->flags |= script_caller->flags & (CLIENT_READONLY | CLIENT_ASKING);
    int slot = -1, error;
    if (!clusterQueryIsLocal(c, c->cmd, c->argv, c->argc, &slot, &error)) {
        if (error == REDIR_DOWN_RO_STATE)
            return "Script attempted to execute a write command while the cluster is down and readonly";
        if (error == REDIR_DOWN_STATE) return "Script attempted to execute a command while the cluster is down";
        return "Script attempted to access a non local key in a cluster node";
    }
    /* Keys the script did not declare must stay in one slot, unless it said allow-cross-slot-keys. */
    if (slot != -1 && slot_of_call) {
        if (*slot_of_call == -1) *slot_of_call = slot;
        else if (*slot_of_call != slot) return "Script attempted to access keys that do not hash to the same slot";
    }
    return NULL;
}

/* Slots that left our shard this turn (state.c tells each one); their
 * channels and waiting clients are dealt with before we sleep. */
static unsigned char lost_slots[CLUSTER_SLOTS / 8];
static int slots_lost;
static void (*shardChannelsDrop)(const unsigned char *lost);

void clusterSetShardChannelsDrop(void (*fn)(const unsigned char *lost)) { shardChannelsDrop = fn; }

void clusterSlotLeavingShard(int slot, const clusterNode *owner) {
    /* Our shard: we serve it, or our master does (as Redis 7.0, its replicas drop the channels too). */
    if (!myself || clusterShardMaster(myself) != owner) return;
    lost_slots[slot >> 3] |= (unsigned char)(1 << (slot & 7));
    slots_lost = 1;
}

void clusterKeysBeforeSleep(void) {
    if (!slots_lost) return;
    slots_lost = 0;
    if (shardChannelsDrop) shardChannelsDrop(lost_slots);
    memset(lost_slots, 0, sizeof(lost_slots));
    blockingRedirectClients(); /* at once rather than at the next cron */
}

/* ------------------------------------------------------------------ INFO */

sds clusterInfoSection(sds info) {
    return sdscatprintf(info, "# Cluster\r\ncluster_enabled:%d\r\n", server.cluster_enabled ? 1 : 0);
}

size_t clusterLinksMemoryUsage(void) { return cluster ? clusterLinksMemory() : 0; }

/* As 7.0 counts them (INFO cluster_connections, maxclients): two per known
 * node, in and out, whatever is connected now. */
unsigned long clusterConnectionCount(void) { return cluster ? (dictSize(cluster->nodes) - 1) * 2 : 0; }

/* ------------------------------------------------------------- directives */

int clusterApplyAnnounced(const char **err) {
    (void)err;
    if (cluster && myself) {
        setMyselfAddress();
        cluster->todo |= TODO_SAVE_CONFIG;
    }
    return 1;
}

int clusterApplyNoFailover(const char **err) {
    (void)err;
    if (cluster && myself) updateMyselfFlags();
    return 1;
}

int clusterApplyAnnounceHostname(const char **err) {
    const char *h = server.cluster_announce_hostname;
    if (!h) return 1;
    if (strlen(h) >= 256) { /* as 7.0 (NET_HOST_STR_LEN) */
        *err = "Hostnames must be less than 256 characters";
        return 0;
    }
    for (const char *p = h; *p; p++) {
        char ch = *p;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
              ch == '.')) {
            *err = "Hostnames may only contain alphanumeric characters, hyphens or dots";
            return 0;
        }
    }
    if (cluster && myself) {
        setMyselfAddress();
        cluster->todo |= TODO_SAVE_CONFIG;
    }
    return 1;
}
