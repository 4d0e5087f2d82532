/* cluster: Redis Cluster mode (cluster-enabled yes) — what the rest of the
 * server sees of the cluster room. main.c wires these in; the CLUSTER
 * command (commands/cluster.c) uses state.h's and failover.h's operations. */
#ifndef CLUSTER_CLUSTER_H
#define CLUSTER_CLUSTER_H

#include "server/server.h"

/* After initServer (the event loop exists): the config file is locked and
 * read or made, and the bus listens. Exits, logged, when it cannot. */
void clusterInit(void);
/* clusterInit's first step alone: the empty in-memory state (no myself, no
 * file, no bus); for the bus message fuzz target too. */
void clusterInitState(void);
/* After the dataset is loaded: keys outside db 0 stop the server, as Redis;
 * slots that have keys here and no owner become ours. */
void clusterVerifyDataAfterLoad(void);
void clusterBeforeSleep(void);
/* Shutdown task: the config is written one last time. */
void clusterOnShutdown(void);

/* processCommand's router (dispatch's registration point): 1 when c's
 * command was answered with a redirection or an error instead of running. */
int clusterRouteCommand(client *c);
/* A client blocked on keys whose slot is no longer ours: redirected
 * (answered) and 1; the caller unblocks it. */
int clusterRedirectBlockedClient(client *c);

/* Why a script's command (c: the script's client, its cmd/argv set) may not
 * touch its keys here: the error the script sees, NULL when it may. The
 * script's keys must stay in one slot: *slot_of_call is that slot (-1 before
 * the first key; set from the first key touched); NULL when the script may
 * cross slots (allow-cross-slot-keys, or EVAL without a shebang). */
const char *clusterScriptKeyError(client *script_caller, client *c, int *slot_of_call);

/* A slot leaves its owner (state.c's clusterDelSlot tells each one): if the
 * owner is our shard, its shard channels are unsubscribed and blocked
 * clients redirected before the server sleeps (clusterKeysBeforeSleep,
 * subscribed from main.c). fn (features/pubsub) drops the channels of the
 * slots set in a bitmap of CLUSTER_SLOTS bits. */
struct clusterNode;
void clusterSlotLeavingShard(int slot, const struct clusterNode *owner);
void clusterKeysBeforeSleep(void);
void clusterSetShardChannelsDrop(void (*fn)(const unsigned char *lost));

/* Whether another node serves the slot, and this one is not importing it: a
 * key of it still here is a stale copy (CLUSTER DELSLOTS keeps keys). */
int clusterSlotServedElsewhere(int slot);

/* INFO "# Cluster", and the links' memory for INFO memory. */
sds clusterInfoSection(sds info);
size_t clusterLinksMemoryUsage(void);
unsigned long clusterConnectionCount(void); /* two per known node, as 7.0 counts them */

/* Apply hooks of directives (main.c's table). */
int clusterApplyAnnounceHostname(const char **err);
int clusterApplyNoFailover(const char **err); /* cluster-replica-no-failover: myself's NOFAILOVER flag */
int clusterApplyAnnounced(const char **err); /* announce-ip and the ports: myself changes at once */

/* Redirection error codes. */
#define REDIR_NONE 0
#define REDIR_CROSS_SLOT 1
#define REDIR_UNSTABLE 2
#define REDIR_ASK 3
#define REDIR_MOVED 4
#define REDIR_DOWN_STATE 5
#define REDIR_DOWN_UNBOUND 6
#define REDIR_DOWN_RO_STATE 7

/* The node that serves this command's keys (NULL: none may, *error says
 * why), as Redis's getNodeByQuery: whether it is this node is what matters
 * to callers, through clusterQueryIsLocal. */
int clusterQueryIsLocal(client *c, struct redisCommand *cmd, robj **argv, int argc, int *slot, int *error);
/* Answers c with the redirection or error of a refused query. */
void clusterReplyRedirect(client *c, int slot, int error);

#endif
