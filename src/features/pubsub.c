/* pubsub: SUBSCRIBE/PSUBSCRIBE/PUBLISH and PUBSUB introspection.
 * Channels map to the list of subscribed clients; patterns map to theirs and
 * are matched with the project's one glob matcher on every PUBLISH. */
#include "features/pubsub.h"
#include "server/reply.h"
#include "server/client.h"
#include "core/glob.h"
#include "core/numparse.h"
#include "core/zmalloc.h"

#include <string.h>

static dict *channels; /* channel robj → list of clients */
static dict *patterns; /* pattern robj → list of clients */

static void listFree(dict *d, void *l) {
    (void)d;
    listRelease(l);
}
static dictType channelsDictType = {dictObjectHash, NULL, dictObjectKeyCompare, dictObjectDestructor, listFree, NULL, 0, 0};

void pubsubInit(void) {
    channels = dictCreate(&channelsDictType);
    patterns = dictCreate(&channelsDictType);
}

int clientSubscriptionsCount(client *c) {
    return (c->pubsub_channels ? (int)dictSize(c->pubsub_channels) : 0) + (int)listLength(c->pubsub_patterns);
}

unsigned long pubsubChannelCount(void) { return dictSize(channels); }
unsigned long pubsubPatternCount(void) { return dictSize(patterns); }

static void updatePubsubFlag(client *c) {
    if (clientSubscriptionsCount(c)) c->flags |= CLIENT_PUBSUB;
    else c->flags &= ~CLIENT_PUBSUB;
}

/* Subscription confirmations and messages are push frames in RESP3. */
static void replySubscription(client *c, robj *kind, robj *name, int count) {
    addReplyPushLen(c, 3);
    addReply(c, kind);
    if (name) addReplyBulk(c, name);
    else addReplyNull(c);
    addReplyLongLong(c, count);
}

static int subscribeChannel(client *c, robj *channel) {
    if (!c->pubsub_channels) c->pubsub_channels = dictCreate(&objectKeyDictType);
    int added = 0;
    if (dictAdd(c->pubsub_channels, channel, NULL) == DICT_OK) {
        incrRefCount(channel);
        list *clients = dictFetchValue(channels, channel);
        if (!clients) {
            clients = listCreate();
            dictAdd(channels, channel, clients);
            incrRefCount(channel);
        }
        listAddNodeTail(clients, c);
        added = 1;
    }
    updatePubsubFlag(c);
    replySubscription(c, shared.subscribebulk, channel, clientSubscriptionsCount(c));
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

static int unsubscribeChannel(client *c, robj *channel, int notify) {
    int removed = 0;
    incrRefCount(channel); /* it may be the very key we remove */
    if (c->pubsub_channels && dictFind(c->pubsub_channels, channel)) {
        removeFromServerMap(channels, channel, c);
        dictDelete(c->pubsub_channels, channel);
        removed = 1;
    }
    updatePubsubFlag(c);
    if (notify) replySubscription(c, shared.unsubscribebulk, channel, clientSubscriptionsCount(c));
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

int pubsubUnsubscribeAllChannels(client *c, int notify) {
    int count = 0;
    if (c->pubsub_channels && dictSize(c->pubsub_channels)) {
        dictIterator *di = dictGetSafeIterator(c->pubsub_channels);
        dictEntry *de;
        while ((de = dictNext(di))) count += unsubscribeChannel(c, dictGetKey(de), notify);
        dictReleaseIterator(di);
    }
    if (notify && count == 0) replySubscription(c, shared.unsubscribebulk, NULL, clientSubscriptionsCount(c));
    return count;
}

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
int pubsubPublishMessage(robj *channel, robj *message) {
    int receivers = 0;
    list *clients = dictFetchValue(channels, channel);
    if (clients) {
        sds body = sdscatlen(sdsempty(), "$7\r\nmessage\r\n", 13);
        body = catBulk(catBulk(body, channel), message);
        listIter li;
        listNode *ln;
        listRewind(clients, &li);
        while ((ln = listNext(&li))) {
            client *c = listNodeValue(ln);
            addReplyPushLen(c, 3);
            addReplyProto(c, body, sdslen(body));
            receivers++;
        }
        sdsfree(body);
    }
    if (dictSize(patterns)) {
        robj *chan = getDecodedObject(channel);
        sds tail = catBulk(catBulk(sdsempty(), chan), message);
        dictIterator *di = dictGetIterator(patterns);
        dictEntry *de;
        while ((de = dictNext(di))) {
            robj *pat = dictGetKey(de);
            if (!stringmatchlen(pat->ptr, sdslen(pat->ptr), chan->ptr, sdslen(chan->ptr), 0)) continue;
            sds body = catBulk(sdscatlen(sdsempty(), "$8\r\npmessage\r\n", 14), pat);
            body = sdscatsds(body, tail);
            listIter li;
            listNode *ln;
            listRewind(dictGetVal(de), &li);
            while ((ln = listNext(&li))) {
                client *c = listNodeValue(ln);
                addReplyPushLen(c, 4);
                addReplyProto(c, body, sdslen(body));
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
    for (int j = 1; j < c->argc; j++) subscribeChannel(c, c->argv[j]);
}

void unsubscribeCommand(client *c) {
    if (c->argc == 1) pubsubUnsubscribeAllChannels(c, 1);
    else
        for (int j = 1; j < c->argc; j++) unsubscribeChannel(c, c->argv[j], 1);
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
    addReplyLongLong(c, receivers);
}

void pubsubChannelsCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    robj *pat = c->argc == 3 ? c->argv[2] : NULL;
    void *replylen = addReplyDeferredLen(c);
    long n = 0;
    dictIterator *di = dictGetIterator(channels);
    dictEntry *de;
    while ((de = dictNext(di))) {
        robj *chan = dictGetKey(de);
        if (pat && !stringmatchlen(pat->ptr, sdslen(pat->ptr), chan->ptr, sdslen(chan->ptr), 0)) continue;
        addReplyBulk(c, chan);
        n++;
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, replylen, n);
}

/* A flat array of channel, count pairs in both protocols (Redis 7.0 does not make it a map). */
void pubsubNumsubCommand(client *c) {
    addReplyArrayLen(c, (c->argc - 2) * 2);
    for (int j = 2; j < c->argc; j++) {
        list *l = dictFetchValue(channels, c->argv[j]);
        addReplyBulk(c, c->argv[j]);
        addReplyLongLong(c, l ? (long long)listLength(l) : 0);
    }
}

void pubsubNumpatCommand(client *c) { addReplyLongLong(c, dictSize(patterns)); }

void pubsubShardchannelsCommand(client *c) {
    if (c->argc > 3) addReplySubcommandSyntaxError(c);
    else addReply(c, shared.emptyarray); /* no shard channels outside cluster mode */
}

void pubsubShardnumsubCommand(client *c) {
    addReplyArrayLen(c, (c->argc - 2) * 2);
    for (int j = 2; j < c->argc; j++) {
        addReplyBulk(c, c->argv[j]);
        addReplyLongLong(c, 0);
    }
}

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
