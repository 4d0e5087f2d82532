/* pubsub: channels and patterns, PUBLISH fan-out, and the subscribed-client state. */
#ifndef FEATURES_PUBSUB_H
#define FEATURES_PUBSUB_H

#include "server/server.h"

void pubsubInit(void);
int pubsubPublishMessage(robj *channel, robj *message); /* returns receivers */
int pubsubUnsubscribeAllChannels(client *c, int notify);
int pubsubUnsubscribeAllPatterns(client *c, int notify);
int pubsubUnsubscribeAllShardChannels(client *c, int notify);
int clientSubscriptionsCount(client *c);
/* Client teardown hook: drops every subscription the client holds. */
void pubsubClientTeardown(client *c);
unsigned long pubsubChannelCount(void);
unsigned long pubsubPatternCount(void);
unsigned long pubsubShardChannelCount(void);
/* Cluster mode: a PUBLISH (sharded: SPUBLISH) that came over the bus, to our
 * subscribers (cluster/gossip.h's delivery point). */
void pubsubClusterDeliver(const char *channel, size_t chlen, const char *message, size_t msglen, int sharded);
/* Cluster mode: the shard channels of the slots set in `lost` (a bitmap of
 * CLUSTER_SLOTS bits) are unsubscribed, each subscriber told, as Redis 7.0
 * does when a slot leaves our shard. */
void pubsubShardUnsubscribeSlots(const unsigned char *lost);

#endif
