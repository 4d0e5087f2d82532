/* gossip: the messages of the cluster bus — built in the layout every Redis
 * 7.0 node speaks (header, gossip entries, extensions; big-endian; see
 * bus.h for the framing) and acted upon: handshakes, what nodes say about
 * each other, failure reports, FAIL, UPDATE, PUBLISH, and the votes and
 * pauses of failovers (failover.c decides; these carry). */
#ifndef CLUSTER_GOSSIP_H
#define CLUSTER_GOSSIP_H

#include "cluster/state.h"

#define MSG_HEADER_LEN 2256
#define MSG_MIN_LEN MSG_HEADER_LEN
#define GOSSIP_ENTRY_LEN 104

/* mflags byte 0 */
#define MSGFLAG_PAUSED 1
#define MSGFLAG_FORCEACK 2
#define MSGFLAG_EXT_DATA 4

/* A whole message arrived on link (len checked against the framing). 0 when
 * the link was freed while handling it. */
int clusterProcessMessage(clusterLink *link, const unsigned char *msg, uint32_t len);
/* An outbound link is up: its first message (MEET when we were asked to meet). */
void clusterLinkConnected(clusterLink *link);

void clusterSendPing(clusterLink *link, int type);
/* To every node we have a link to (not in a handshake). */
void clusterBroadcastPong(int only_my_shard);
void clusterSendFail(const char *nodename);
void clusterSendUpdate(clusterLink *link, clusterNode *node);
void clusterSendFailoverAuthRequest(void);
void clusterSendFailoverAuth(clusterNode *node);
void clusterSendMFStart(clusterNode *node);
/* PUBLISH / SPUBLISH carried to the other nodes (sharded: only our shard). */
void clusterPropagatePublish(const char *channel, size_t chlen, const char *message, size_t msglen, int sharded);

/* A message's type by name (CLUSTER INFO's counters). */
const char *clusterMessageTypeName(int type);

/* The local delivery of a PUBLISH that came over the bus (pub/sub registers it). */
typedef void clusterPublishDelivery(const char *channel, size_t chlen, const char *message, size_t msglen, int sharded);
void clusterSetPublishDelivery(clusterPublishDelivery *fn);

/* Apply a master's claim of slots at epoch (from its PING/PONG or an UPDATE). */
void clusterUpdateSlotsConfigWith(clusterNode *sender, uint64_t sender_config_epoch, const unsigned char *slots);

#endif
