/* pubsub: SUBSCRIBE/PSUBSCRIBE/PUBLISH, the sharded SSUBSCRIBE/SPUBLISH, and
 * PUBSUB introspection. Channels map to the list of subscribed clients;
 * patterns map to theirs and are matched with the project's one glob matcher
 * on every PUBLISH. Shard channels are a second, separate channel namespace
 * (without cluster, every shard channel lives here), with their own
 * subscription count and "smessage" messages. */
#include "features/pubsub.h"
#include "server/reply.h"
#include "server/client.h"
#include "server/propagate.h"
#include "cluster/gossip.h"
#include "core/crc16.h"
#include "core/glob.h"
#include "core/numparse.h"
#include "core/zmalloc.h"

#include <string.h>

static dict *channels;       /* channel robj → list of clients */
static dict *shard_channels; /* shard channel robj → list of clients */
static dict *patterns;       /* pattern robj → list of clients */

/* What differs between plain and shard channels. */
typedef struct channelKind {
    dict **server;                  /* channel → clients */
    dict **(*slot)(client *c);      /* where the client's own set lives (NULL until used) */
    robj **subscribed, **unsubscribed; /* reply kinds */
    const char *message;            /* message kind, as a RESP bulk */
    int (*count)(client *c);        /* the count subscription replies show */
} channelKind;

static void listFree(dict *d, void *l) {
    (void)d;
    listRelease(l);
}
static dictType channelsDictType = {dictObjectHash, NULL, dictObjectKeyCompare, dictObjectDestructor, listFree, NULL, 0, 0, NULL};

void pubsubInit(void) {
    channels = dictCreate(&channelsDictType);
    shard_channels = dictCreate(&channelsDictType);
    patterns = dictCreate(&channelsDictType);
}

int clientSubscriptionsCount(client *c) {
    return (c->pubsub_channels ? (int)dictSize(c->pubsub_channels) : 0) + (int)listLength(c->pubsub_patterns);
}

static int clientShardSubscriptionsCount(client *c) {
    return c->pubsubshard_channels ? (int)dictSize(c->pubsubshard_channels) : 0;
}

unsigned long pubsubChannelCount(void) { return dictSize(channels); }
unsigned long pubsubPatternCount(void) { return dictSize(patterns); }
unsigned long pubsubShardChannelCount(void) { return dictSize(shard_channels); }

static dict **plainSlot(client *c) { return &c->pubsub_channels; }
static dict **shardSlot(client *c) { return &c->pubsubshard_channels; }

static const channelKind plainKind = {&channels, plainSlot, &shared.subscribebulk,
                                      &shared.unsubscribebulk, "$7\r\nmessage\r\n", clientSubscriptionsCount};
static const channelKind shardKind = {&shard_channels, shardSlot, &shared.ssubscribebulk,
                                      &shared.sunsubscribebulk, "$8\r\nsmessage\r\n", clientShardSubscriptionsCount};

/* In the subscribed state (RESP2 restrictions, PING's reply) while any kind of subscription is held. */
static void updatePubsubFlag(client *c) {
    if (clientSubscriptionsCount(c) || clientShardSubscriptionsCount(c)) c->flags |= CLIENT_PUBSUB;
    else c->flags &= ~CLIENT_PUBSUB;
}

/* A push (confirmation or message) reaches a client even under CLIENT REPLY
 * OFF/SKIP, as in Redis 7.0: it is not the reply to a command. */
static int beginPush(client *c) {
    int was = c->tracking_flags & TRACKING_PUSHING;
    c->tracking_flags |= TRACKING_PUSHING;
    return was;
}

static void endPush(client *c, int was) {
    if (!was) c->tracking_flags &= ~TRACKING_PUSHING;
}

/* Subscription confirmations and messages are push frames in RESP3. */
static void replySubscription(client *c, robj *kind, robj *name, int count) {
    int was = beginPush(c);
    addReplyPushLen(c, 3);
    addReply(c, kind);
    if (name) addReplyBulk(c, name);
    else addReplyNull(c);
    addReplyLongLong(c, count);
    endPush(c, was);
}

/* One message (its frames after the aggregate header, encoded once). */
static void pushMessage(client *c, int frames, sds body) {
    int was = beginPush(c);
    addReplyPushLen(c, frames);
    addReplyProto(c, body, sdslen(body));
    endPush(c, was);
}

static int subscribeChannel(client *c, robj *channel, const channelKind *k) {
    dict **mine = k->slot(c);
    if (!*mine) *mine = dictCreate(&objectKeyDictType);
    int added = 0;
    if (dictAdd(*mine, channel, NULL) == DICT_OK) {
        incrRefCount(channel);
        list *clients = dictFetchValue(*k->server, channel);
        if (!clients) {
            clients = listCreate();
            dictAdd(*k->server, channel, clients);
            incrRefCount(channel);
        }
        listAddNodeTail(clients, c);
        added = 1;
    }
    updatePubsubFlag(c);
    replySubscription(c, *k->subscribed, channel, k->count(c));
    return added;
}

static void removeFromServerMap(dict *map, robj *name, client *c) {
    dictEntry *de = dictFind(map, name);
    if (!de) return;
    list *clients = dictGetVal(de);
    listNode *ln = listSearchKey(clients, c);
    if (ln) listDelNode(clients, ln);
    if (listLength(clients) == 0) dictDelete(map, name);
}

static int unsubscribeChannel(client *c, robj *channel, int notify, const channelKind *k) {
    int removed = 0;
    incrRefCount(channel); /* it may be the very key we remove */
    dict *mine = *k->slot(c);
    if (mine && dictFind(mine, channel)) {
        removeFromServerMap(*k->server, channel, c);
        dictDelete(mine, channel);
        removed = 1;
    }
    updatePubsubFlag(c);
    if (notify) replySubscription(c, *k->unsubscribed, channel, k->count(c));
    decrRefCount(channel);
    return removed;
}

static int subscribePattern(client *c, robj *pattern) {
    int added = 0;
    listIter li;
    listNode *ln;
    listRewind(c->pubsub_patterns, &li);
    while ((ln = listNext(&li)))
        if (equalStringObjects(listNodeValue(ln), pattern)) break;
    if (!ln) {
        listAddNodeTail(c->pubsub_patterns, pattern);
        incrRefCount(pattern);
        list *clients = dictFetchValue(patterns, pattern);
        if (!clients) {
            clients = listCreate();
            dictAdd(patterns, pattern, clients);
            incrRefCount(pattern);
        }
        listAddNodeTail(clients, c);
        added = 1;
    }
    updatePubsubFlag(c);
    replySubscription(c, shared.psubscribebulk, pattern, clientSubscriptionsCount(c));
    return added;
}

static int unsubscribePattern(client *c, robj *pattern, int notify) {
    int removed = 0;
    incrRefCount(pattern);
    listIter li;
    listNode *ln;
    listRewind(c->pubsub_patterns, &li);
    while ((ln = listNext(&li))) {
        robj *p = listNodeValue(ln);
        if (equalStringObjects(p, pattern)) {
            listDelNode(c->pubsub_patterns, ln);
            removeFromServerMap(patterns, pattern, c);
            decrRefCount(p);
            removed = 1;
            break;
        }
    }
    updatePubsubFlag(c);
    if (notify) replySubscription(c, shared.punsubscribebulk, pattern, clientSubscriptionsCount(c));
    decrRefCount(pattern);
    return removed;
}

static int unsubscribeAllOfKind(client *c, int notify, const channelKind *k) {
    int count = 0;
    dict *mine = *k->slot(c);
    if (mine && dictSize(mine)) {
        dictIterator *di = dictGetSafeIterator(mine);
        dictEntry *de;
        while ((de = dictNext(di))) count += unsubscribeChannel(c, dictGetKey(de), notify, k);
        dictReleaseIterator(di);
    }
    if (notify && count == 0) replySubscription(c, *k->unsubscribed, NULL, k->count(c));
    return count;
}

int pubsubUnsubscribeAllChannels(client *c, int notify) { return unsubscribeAllOfKind(c, notify, &plainKind); }
int pubsubUnsubscribeAllShardChannels(client *c, int notify) { return unsubscribeAllOfKind(c, notify, &shardKind); }

int pubsubUnsubscribeAllPatterns(client *c, int notify) {
    int count = 0;
    while (listLength(c->pubsub_patterns)) count += unsubscribePattern(c, listNodeValue(listFirst(c->pubsub_patterns)), notify);
    if (notify && count == 0) replySubscription(c, shared.punsubscribebulk, NULL, clientSubscriptionsCount(c));
    return count;
}

/* Appends "$<len>\r\n<bytes>\r\n" of a string object to s. */
static sds catBulk(sds s, robj *o) {
    char buf[LONG_STR_SIZE], hdr[32];
    size_t len;
    const char *p = stringObjectView(o, buf, &len);
    hdr[0] = '$';
    int n = ll2string(hdr + 1, sizeof(hdr) - 1, (long long)len);
    s = sdscatlen(s, hdr, n + 1);
    s = sdscatlen(s, "\r\n", 2);
    s = sdscatlen(s, p, len);
    return sdscatlen(s, "\r\n", 2);
}

/* Each message is encoded once and copied to every receiver: only the
 * aggregate header differs between RESP2 (*) and RESP3 pushes (>). */
static int publishToChannel(robj *channel, robj *message, const channelKind *k) {
    int receivers = 0;
    list *clients = dictFetchValue(*k->server, channel);
    if (clients) {
        sds body = sdscat(sdsempty(), k->message);
        body = catBulk(catBulk(body, channel), message);
        listIter li;
        listNode *ln;
        listRewind(clients, &li);
        while ((ln = listNext(&li))) {
            pushMessage(listNodeValue(ln), 3, body);
            receivers++;
        }
        sdsfree(body);
    }
    return receivers;
}

int pubsubPublishMessage(robj *channel, robj *message) {
    int receivers = publishToChannel(channel, message, &plainKind);
    if (dictSize(patterns)) {
        robj *chan = getDecodedObject(channel);
        sds tail = catBulk(catBulk(sdsempty(), chan), message);
        dictIterator *di = dictGetIterator(patterns);
        dictEntry *de;
        while ((de = dictNext(di))) {
            robj *pat = dictGetKey(de);
            if (!stringmatchlen(objectPtr(pat), sdslen(objectPtr(pat)), objectPtr(chan), sdslen(objectPtr(chan)), 0)) continue;
            sds body = catBulk(sdscatlen(sdsempty(), "$8\r\npmessage\r\n", 14), pat);
            body = sdscatsds(body, tail);
            listIter li;
            listNode *ln;
            listRewind(dictGetVal(de), &li);
            while ((ln = listNext(&li))) {
                pushMessage(listNodeValue(ln), 4, body);
                receivers++;
            }
            sdsfree(body);
        }
        dictReleaseIterator(di);
        sdsfree(tail);
        decrRefCount(chan);
    }
    return receivers;
}

/* ---------------------------------------------------------------- commands */

static int denySubscribeInContext(client *c) {
    if (c->flags & CLIENT_DENY_BLOCKING && !(c->flags & CLIENT_MULTI)) {
        addReplyErrorFormat(c, "%s isn't allowed for a DENY BLOCKING client", c->cmd->fullname);
        return 1;
    }
    return 0;
}

void subscribeCommand(client *c) {
    if (denySubscribeInContext(c)) return;
    for (int j = 1; j < c->argc; j++) subscribeChannel(c, c->argv[j], &plainKind);
}

void unsubscribeCommand(client *c) {
    if (c->argc == 1) pubsubUnsubscribeAllChannels(c, 1);
    else
        for (int j = 1; j < c->argc; j++) unsubscribeChannel(c, c->argv[j], 1, &plainKind);
}

/* Unlike SUBSCRIBE, refused inside MULTI too (as 7.0 does). */
void ssubscribeCommand(client *c) {
    if (c->flags & (CLIENT_DENY_BLOCKING | CLIENT_MULTI)) {
        addReplyErrorFormat(c, "%s isn't allowed for a DENY BLOCKING client", "SSUBSCRIBE");
        return;
    }
    for (int j = 1; j < c->argc; j++) subscribeChannel(c, c->argv[j], &shardKind);
}

void sunsubscribeCommand(client *c) {
    if (c->argc == 1) pubsubUnsubscribeAllShardChannels(c, 1);
    else
        for (int j = 1; j < c->argc; j++) unsubscribeChannel(c, c->argv[j], 1, &shardKind);
}

/* PUBLISH and SPUBLISH reach the replicas' subscribers through the
 * replication stream (not the AOF), as in Redis 7.0 outside cluster mode. In
 * cluster mode the bus carries them instead: PUBLISH to every node, SPUBLISH
 * to the nodes of our shard (a replica hears it from the bus, not twice). */
static void propagatePublish(client *c, int sharded) {
    if (!server.cluster_enabled) {
        forceReplicaPropagation(c);
        return;
    }
    robj *ch = getDecodedObject(c->argv[1]), *msg = getDecodedObject(c->argv[2]);
    clusterPropagatePublish(objectPtr(ch), sdslen(objectPtr(ch)), objectPtr(msg), sdslen(objectPtr(msg)), sharded);
    decrRefCount(ch);
    decrRefCount(msg);
}

void pubsubClusterDeliver(const char *channel, size_t chlen, const char *message, size_t msglen, int sharded) {
    robj *ch = createStringObject(channel, chlen), *msg = createStringObject(message, msglen);
    if (sharded) publishToChannel(ch, msg, &shardKind);
    else pubsubPublishMessage(ch, msg);
    decrRefCount(ch);
    decrRefCount(msg);
}

/* One pass over the shard channels, however many slots went: each
 * subscriber of a channel of a lost slot hears its "sunsubscribe". */
void pubsubShardUnsubscribeSlots(const unsigned char *lost) {
    if (!dictSize(shard_channels)) return;
    dictIterator *di = dictGetSafeIterator(shard_channels);
    dictEntry *de;
    while ((de = dictNext(di))) {
        robj *ch = dictGetKey(de);
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *name = stringObjectView(ch, buf, &len);
        unsigned slot = keyHashSlot(name, len);
        if (!(lost[slot >> 3] & (1 << (slot & 7)))) continue;
        incrRefCount(ch); /* the entry goes with its last subscriber */
        list *clients = dictGetVal(de);
        while (dictFind(shard_channels, ch) && listLength(clients))
            unsubscribeChannel(listNodeValue(listFirst(clients)), ch, 1, &shardKind);
        decrRefCount(ch);
    }
    dictReleaseIterator(di);
}

void spublishCommand(client *c) {
    addReplyLongLong(c, publishToChannel(c->argv[1], c->argv[2], &shardKind));
    propagatePublish(c, 1);
}

void psubscribeCommand(client *c) {
    if (denySubscribeInContext(c)) return;
    for (int j = 1; j < c->argc; j++) subscribePattern(c, c->argv[j]);
}

void punsubscribeCommand(client *c) {
    if (c->argc == 1) pubsubUnsubscribeAllPatterns(c, 1);
    else
        for (int j = 1; j < c->argc; j++) unsubscribePattern(c, c->argv[j], 1);
}

void publishCommand(client *c) {
    int receivers = pubsubPublishMessage(c->argv[1], c->argv[2]);
    addReplyLongLong(c, receivers); /* local receivers only, in cluster mode too (as 7.0) */
    propagatePublish(c, 0);
}

/* PUBSUB CHANNELS / SHARDCHANNELS [pattern] */
static void replyChannels(client *c, dict *map) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    robj *pat = c->argc == 3 ? c->argv[2] : NULL;
    void *replylen = addReplyDeferredLen(c);
    long n = 0;
    dictIterator *di = dictGetIterator(map);
    dictEntry *de;
    while ((de = dictNext(di))) {
        robj *chan = dictGetKey(de);
        if (pat && !stringmatchlen(objectPtr(pat), sdslen(objectPtr(pat)), objectPtr(chan), sdslen(objectPtr(chan)), 0)) continue;
        addReplyBulk(c, chan);
        n++;
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, replylen, n);
}

void pubsubChannelsCommand(client *c) { replyChannels(c, channels); }
void pubsubShardchannelsCommand(client *c) { replyChannels(c, shard_channels); }

/* PUBSUB NUMSUB / SHARDNUMSUB: a flat array of channel, count pairs in both
 * protocols (Redis 7.0 does not make it a map). */
static void replySubscriberCounts(client *c, dict *map) {
    addReplyArrayLen(c, (c->argc - 2) * 2);
    for (int j = 2; j < c->argc; j++) {
        list *l = dictFetchValue(map, c->argv[j]);
        addReplyBulk(c, c->argv[j]);
        addReplyLongLong(c, l ? (long long)listLength(l) : 0);
    }
}

void pubsubNumsubCommand(client *c) { replySubscriberCounts(c, channels); }
void pubsubShardnumsubCommand(client *c) { replySubscriberCounts(c, shard_channels); }

void pubsubNumpatCommand(client *c) { addReplyLongLong(c, dictSize(patterns)); }

void pubsubHelpCommand(client *c) {
    const char *help[] = {
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        NULL};
    addReplyHelp(c, help);
}

void pubsubClientTeardown(client *c) {
    pubsubUnsubscribeAllChannels(c, 0);
    pubsubUnsubscribeAllShardChannels(c, 0);
    pubsubUnsubscribeAllPatterns(c, 0);
}
