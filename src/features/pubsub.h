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

#endif
