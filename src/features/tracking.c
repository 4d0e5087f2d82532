/* tracking: client-side caching (CLIENT TRACKING), as Redis 7.0 has it.
 *
 * A client that caches values locally needs to hear when a value it holds may
 * have changed. In the default mode the server remembers which clients read
 * which keys (the tracking table: key -> client ids), and the first change of
 * such a key sends each of them one invalidation and forgets the key; in BCAST
 * mode nothing is remembered per client: every change of a key under one of
 * the client's prefixes is sent, gathered once per event-loop iteration.
 * Invalidations are RESP3 push messages (>2 invalidate [keys]), or, for a
 * client redirecting to another connection, messages on that connection:
 * RESP3 pushes, or __redis__:invalidate Pub/Sub messages for a RESP2
 * subscriber. The keys a command read are taken from its key positions
 * after the call, for read-only commands (scripts: their declared keys, once
 * they called a read-only command), as Redis does. */
#include "features/tracking.h"
#include "server/cmdinfo.h"
#include "server/client.h"
#include "server/reply.h"
#include "server/server.h"
#include "core/dict.h"
#include "core/zmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Keys the clients in a BCAST prefix hear about this iteration, and who
 * changed each last (NOLOOP clients skip their own changes). */
typedef struct bcastState {
    dict *keys;    /* sds key -> client * (NULL: no client, e.g. expiry) */
    dict *clients; /* client * -> NULL */
} bcastState;

static void idsDestructor(dict *d, void *val) {
    (void)d;
    dictRelease(val);
}
static void bcastStateDestructor(dict *d, void *val) {
    (void)d;
    bcastState *bs = val;
    dictRelease(bs->keys);
    dictRelease(bs->clients);
    zfree(bs);
}

static dictType idSetDictType = {dictPtrHash, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL};
static dictType trackingTableDictType = {dictSdsHash, NULL, dictSdsKeyCompare, NULL, idsDestructor, NULL, 0, 1, NULL};
static dictType sdsSetDictType = {dictSdsHash, NULL, dictSdsKeyCompare, NULL, NULL, NULL, 0, 1, NULL};
static dictType prefixTableDictType = {dictSdsHash, NULL, dictSdsKeyCompare, NULL, bcastStateDestructor, NULL, 0, 1, NULL};

static dict *TrackingTable;  /* sds key -> dict of client ids (default mode) */
static dict *PrefixTable;    /* sds prefix -> bcastState (BCAST mode) */
static unsigned long long TrackingTableTotalItems; /* client ids over all keys */
static unsigned long long TrackingClients;
static robj *TrackingChannelName;
/* Invalidations for the client whose command is running wait until its reply
 * is complete, so they never land inside a multi-element reply. A NULL entry
 * stands for a flush. */
static list *PendingKeys;
static int FlushPending; /* a flush happened: tell every tracking client once */

static void trackingInit(void) {
    if (TrackingTable) return;
    keyspaceSetInterest(trackingKeyspaceSubscriber, KEYSPACE_CHANGES);
    TrackingTable = dictCreate(&trackingTableDictType);
    PrefixTable = dictCreate(&prefixTableDictType);
    TrackingChannelName = createStringObject("__redis__:invalidate", 20);
    PendingKeys = listCreate();
}

/* ---------------------------------------------------------------- sending */

/* Sends `payload` (raw protocol: an array of keys, or a null for a flush) as
 * an invalidation to c, or to the client it redirects to. */
static void sendTrackingMessage(client *c, const char *payload, size_t len) {
    int old = c->tracking_flags;
    c->tracking_flags |= TRACKING_PUSHING;
    int using_redirection = 0;
    if (c->tracking_redirection) {
        client *redir = lookupClientByID(c->tracking_redirection);
        if (!redir) {
            c->tracking_flags |= TRACKING_BROKEN_REDIR;
            /* The client must learn that its invalidations go nowhere. */
            if (c->resp > 2) {
                addReplyPushLen(c, 2);
                addReplyBulkCBuffer(c, "tracking-redir-broken", 21);
                addReplyLongLong(c, (long long)c->tracking_redirection);
            }
            if (!(old & TRACKING_PUSHING)) c->tracking_flags &= ~TRACKING_PUSHING;
            return;
        }
        if (!(old & TRACKING_PUSHING)) c->tracking_flags &= ~TRACKING_PUSHING;
        c = redir;
        using_redirection = 1;
        old = c->tracking_flags;
        c->tracking_flags |= TRACKING_PUSHING;
    }
    if (c->resp > 2) {
        addReplyPushLen(c, 2);
        addReplyBulkCBuffer(c, "invalidate", 10);
    } else if (using_redirection && (c->flags & CLIENT_PUBSUB)) {
        /* Only to the redirect client, not to every subscriber, and with the
         * keys as an array: not what PUBLISH sends. */
        addReplyPushLen(c, 3);
        addReply(c, shared.messagebulk);
        addReplyBulk(c, TrackingChannelName);
    } else {
        /* RESP2 has no way to push on the client's own connection. */
        if (!(old & TRACKING_PUSHING)) c->tracking_flags &= ~TRACKING_PUSHING;
        return;
    }
    addReplyProto(c, payload, len);
    if (!(old & TRACKING_PUSHING)) c->tracking_flags &= ~TRACKING_PUSHING;
}

static sds catBulk(sds s, const char *p, size_t len) {
    s = sdscatprintf(s, "$%zu\r\n", len);
    s = sdscatlen(s, p, len);
    return sdscatlen(s, "\r\n", 2);
}

static void sendKeyInvalidation(client *c, sds key) {
    sds proto = catBulk(sdsnew("*1\r\n"), key, sdslen(key));
    sendTrackingMessage(c, proto, sdslen(proto));
    sdsfree(proto);
}

/* The null is the tracking client's own protocol's, even when a redirect
 * client of another protocol receives it, as in Redis. */
static void sendFlushInvalidation(client *c) {
    if (c->resp > 2) sendTrackingMessage(c, "_\r\n", 3);
    else sendTrackingMessage(c, "$-1\r\n", 5);
}

/* -------------------------------------------------------- enabling / CLIENT */

static void enableBcastTrackingForPrefix(client *c, const char *prefix, size_t len) {
    sds p = sdsnewlen(prefix, len);
    bcastState *bs = dictFetchValue(PrefixTable, p);
    if (!bs) {
        bs = zmalloc(sizeof(*bs));
        bs->keys = dictCreate(&sdsSetDictType);
        bs->clients = dictCreate(&idSetDictType);
        dictAdd(PrefixTable, p, bs);
    }
    if (dictAdd(bs->clients, c, NULL) == DICT_OK) {
        if (!c->tracking_prefixes) c->tracking_prefixes = dictCreate(&sdsSetDictType);
        dictAdd(c->tracking_prefixes, p, NULL);
    }
    sdsfree(p);
}

static void enableTracking(client *c, uint64_t redirect_to, int options, robj **prefix, size_t numprefix) {
    trackingInit();
    if (!(c->tracking_flags & TRACKING_ON)) TrackingClients++;
    c->tracking_flags |= TRACKING_ON;
    c->tracking_flags &= ~(TRACKING_BROKEN_REDIR | TRACKING_BCAST | TRACKING_OPTIN | TRACKING_OPTOUT | TRACKING_NOLOOP);
    c->tracking_redirection = redirect_to;
    if (options & TRACKING_BCAST) {
        c->tracking_flags |= TRACKING_BCAST;
        if (numprefix == 0) enableBcastTrackingForPrefix(c, "", 0);
        for (size_t j = 0; j < numprefix; j++)
            enableBcastTrackingForPrefix(c, objectPtr(prefix[j]), sdslen(objectPtr(prefix[j])));
    }
    c->tracking_flags |= options & (TRACKING_OPTIN | TRACKING_OPTOUT | TRACKING_NOLOOP);
}

static void disableTracking(client *c) {
    if (c->tracking_prefixes) {
        dictIterator di;
        dictInitIterator(&di, c->tracking_prefixes);
        dictEntry *de;
        while ((de = dictNext(&di))) {
            sds p = dictGetKey(de);
            bcastState *bs = dictFetchValue(PrefixTable, p);
            if (!bs) continue;
            dictDelete(bs->clients, c);
            /* Remove the client from pending BCAST keys it changed, so no
             * dangling pointer is compared later. */
            dictIterator ki;
            dictInitIterator(&ki, bs->keys);
            dictEntry *ke;
            while ((ke = dictNext(&ki)))
                if (dictGetVal(ke) == c) dictSetVal(bs->keys, ke, NULL);
            dictResetIterator(&ki);
            if (dictSize(bs->clients) == 0) dictDelete(PrefixTable, p);
        }
        dictResetIterator(&di);
        dictRelease(c->tracking_prefixes);
        c->tracking_prefixes = NULL;
    }
    if (c->tracking_flags & TRACKING_ON) {
        TrackingClients--;
        c->tracking_flags &= TRACKING_PUSHING;
    }
}

static int stringCheckPrefix(const char *s1, size_t l1, const char *s2, size_t l2) {
    size_t min = l1 < l2 ? l1 : l2;
    return memcmp(s1, s2, min) == 0;
}

static int checkPrefixCollisionsOrReply(client *c, robj **prefixes, size_t numprefix) {
    for (size_t i = 0; i < numprefix; i++) {
        sds pi = objectPtr(prefixes[i]);
        if (c->tracking_prefixes) {
            dictIterator di;
            dictInitIterator(&di, c->tracking_prefixes);
            dictEntry *de;
            while ((de = dictNext(&di))) {
                sds existing = dictGetKey(de);
                if (stringCheckPrefix(existing, sdslen(existing), pi, sdslen(pi))) {
                    addReplyErrorFormat(c,
                                        "Prefix '%s' overlaps with an existing prefix '%s'. "
                                        "Prefixes for a single client must not overlap.",
                                        pi, existing);
                    dictResetIterator(&di);
                    return 0;
                }
            }
            dictResetIterator(&di);
        }
        for (size_t j = i + 1; j < numprefix; j++) {
            sds pj = objectPtr(prefixes[j]);
            if (stringCheckPrefix(pi, sdslen(pi), pj, sdslen(pj))) {
                addReplyErrorFormat(c,
                                    "Prefix '%s' overlaps with another provided prefix '%s'. "
                                    "Prefixes for a single client must not overlap.",
                                    pi, pj);
                return 0;
            }
        }
    }
    return 1;
}

/* CLIENT TRACKING (on|off) [REDIRECT <id>] [BCAST] [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP] */
void clientTrackingCommand(client *c) {
    long long redir = 0;
    int options = 0;
    robj **prefix = NULL;
    size_t numprefix = 0;
    for (int j = 3; j < c->argc; j++) {
        int moreargs = (c->argc - 1) - j;
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "redirect") && moreargs) {
            j++;
            if (redir != 0) {
                addReplyError(c, "A client can only redirect to a single other client");
                zfree(prefix);
                return;
            }
            if (getLongLongFromObject(c->argv[j], &redir) != 0) {
                addReplyError(c, "value is not an integer or out of range");
                zfree(prefix);
                return;
            }
            /* The redirect client must exist now, though it may leave later. */
            if (lookupClientByID((uint64_t)redir) == NULL) {
                addReplyError(c, "The client ID you want redirect to does not exist");
                zfree(prefix);
                return;
            }
        } else if (!strcasecmp(opt, "bcast")) {
            options |= TRACKING_BCAST;
        } else if (!strcasecmp(opt, "optin")) {
            options |= TRACKING_OPTIN;
        } else if (!strcasecmp(opt, "optout")) {
            options |= TRACKING_OPTOUT;
        } else if (!strcasecmp(opt, "noloop")) {
            options |= TRACKING_NOLOOP;
        } else if (!strcasecmp(opt, "prefix") && moreargs) {
            j++;
            prefix = zrealloc(prefix, sizeof(robj *) * (numprefix + 1));
            prefix[numprefix++] = c->argv[j];
        } else {
            zfree(prefix);
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    const char *mode = objectPtr(c->argv[2]);
    if (!strcasecmp(mode, "on")) {
        const char *err = NULL;
        if (!(options & TRACKING_BCAST) && numprefix) err = "PREFIX option requires BCAST mode to be enabled";
        else if ((c->tracking_flags & TRACKING_ON) &&
                 !!(c->tracking_flags & TRACKING_BCAST) != !!(options & TRACKING_BCAST))
            err = "You can't switch BCAST mode on/off before disabling tracking for this client, and then "
                  "re-enabling it with a different mode.";
        else if ((options & TRACKING_BCAST) && (options & (TRACKING_OPTIN | TRACKING_OPTOUT)))
            err = "OPTIN and OPTOUT are not compatible with BCAST";
        else if ((options & TRACKING_OPTIN) && (options & TRACKING_OPTOUT))
            err = "You can't specify both OPTIN mode and OPTOUT mode";
        else if (((options & TRACKING_OPTIN) && (c->tracking_flags & TRACKING_OPTOUT)) ||
                 ((options & TRACKING_OPTOUT) && (c->tracking_flags & TRACKING_OPTIN)))
            err = "You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
                  "re-enabling it with a different mode.";
        if (err) {
            addReplyError(c, err);
            zfree(prefix);
            return;
        }
        if ((options & TRACKING_BCAST) && !checkPrefixCollisionsOrReply(c, prefix, numprefix)) {
            zfree(prefix);
            return;
        }
        enableTracking(c, (uint64_t)redir, options, prefix, numprefix);
    } else if (!strcasecmp(mode, "off")) {
        disableTracking(c);
    } else {
        zfree(prefix);
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    zfree(prefix);
    addReply(c, shared.ok);
}

void clientCachingCommand(client *c) {
    if (!(c->tracking_flags & TRACKING_ON)) {
        addReplyError(c, "CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
                         "OPTOUT mode enabled");
        return;
    }
    const char *opt = objectPtr(c->argv[2]);
    if (!strcasecmp(opt, "yes")) {
        if (!(c->tracking_flags & TRACKING_OPTIN)) {
            addReplyError(c, "CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
            return;
        }
    } else if (!strcasecmp(opt, "no")) {
        if (!(c->tracking_flags & TRACKING_OPTOUT)) {
            addReplyError(c, "CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
            return;
        }
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    c->tracking_flags |= TRACKING_CACHING;
    addReply(c, shared.ok);
}

void clientGetredirCommand(client *c) {
    addReplyLongLong(c, (c->tracking_flags & TRACKING_ON) ? (long long)c->tracking_redirection : -1);
}

static int sdsCompare(const void *a, const void *b) { return sdscmp(*(sds const *)a, *(sds const *)b); }

/* The keys of a dict whose keys are sds, sorted as Redis's radix trees list them. */
static sds *sortedKeys(dict *d, unsigned long *count) {
    unsigned long n = 0;
    sds *keys = zmalloc(sizeof(sds) * (dictSize(d) + 1));
    dictIterator di;
    dictInitIterator(&di, d);
    dictEntry *de;
    while ((de = dictNext(&di))) keys[n++] = dictGetKey(de);
    dictResetIterator(&di);
    qsort(keys, n, sizeof(sds), sdsCompare);
    *count = n;
    return keys;
}

void clientTrackinginfoCommand(client *c) {
    int f = c->tracking_flags;
    addReplyMapLen(c, 3);
    addReplyBulkCString(c, "flags");
    const char *flags[8];
    int n = 0;
    flags[n++] = (f & TRACKING_ON) ? "on" : "off";
    if (f & TRACKING_BCAST) flags[n++] = "bcast";
    if (f & TRACKING_OPTIN) {
        flags[n++] = "optin";
        if (f & TRACKING_CACHING) flags[n++] = "caching-yes";
    }
    if (f & TRACKING_OPTOUT) {
        flags[n++] = "optout";
        if (f & TRACKING_CACHING) flags[n++] = "caching-no";
    }
    if (f & TRACKING_NOLOOP) flags[n++] = "noloop";
    if (f & TRACKING_BROKEN_REDIR) flags[n++] = "broken_redirect";
    addReplySetLen(c, n);
    for (int i = 0; i < n; i++) addReplyBulkCString(c, flags[i]);
    addReplyBulkCString(c, "redirect");
    addReplyLongLong(c, (f & TRACKING_ON) ? (long long)c->tracking_redirection : -1);
    addReplyBulkCString(c, "prefixes");
    if (c->tracking_prefixes) {
        unsigned long count;
        sds *keys = sortedKeys(c->tracking_prefixes, &count);
        addReplyArrayLen(c, (long)count);
        for (unsigned long i = 0; i < count; i++) addReplyBulkCBuffer(c, keys[i], sdslen(keys[i]));
        zfree(keys);
    } else {
        addReplyArrayLen(c, 0);
    }
}

/* ------------------------------------------------------- remembering reads */

static int isReadOnlyScriptCommand(struct redisCommand *cmd) {
    return !strcmp(cmd->fullname, "eval_ro") || !strcmp(cmd->fullname, "evalsha_ro") ||
           !strcmp(cmd->fullname, "fcall_ro");
}

/* Remembers the keys of the command `tracking` runs (for a script: the keys
 * it declared) as read by `tracking`. */
static void trackingRememberKeys(client *tracking) {
    int f = tracking->tracking_flags;
    int optin = f & TRACKING_OPTIN, optout = f & TRACKING_OPTOUT, caching = f & TRACKING_CACHING;
    if ((optin && !caching) || (optout && caching)) return;
    struct redisCommand *cmd = tracking->cmd;
    if (!cmd || (cmd->flags & CMD_PUBSUB)) return;
    keyReference *keys;
    int numkeys = getKeysWithFlags(cmd, tracking->argv, tracking->argc, &keys);
    uint64_t id = tracking->id;
    for (int j = 0; j < numkeys; j++) {
        sds key = objectPtr(tracking->argv[keys[j].pos]);
        dictEntry *de = dictFind(TrackingTable, key);
        dict *ids;
        if (de) {
            ids = dictGetVal(de);
        } else {
            ids = dictCreate(&idSetDictType);
            dictAdd(TrackingTable, key, ids);
        }
        if (dictAdd(ids, (void *)(uintptr_t)id, NULL) == DICT_OK) TrackingTableTotalItems++;
    }
    zfree(keys);
}

static void sendPendingInvalidations(void) {
    client *c = server.current_client;
    listNode *ln;
    while ((ln = listFirst(PendingKeys))) {
        robj *key = listNodeValue(ln);
        /* The client may have turned tracking off meanwhile (flushes go
         * regardless, as in Redis). */
        if (c) {
            if (key) sendKeyInvalidation(c, objectPtr(key));
            else sendFlushInvalidation(c);
        }
        if (key) decrRefCount(key);
        listDelNode(PendingKeys, ln);
    }
}

static void sendFlushInvalidations(void) {
    if (!FlushPending) return;
    FlushPending = 0;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (!(c->tracking_flags & TRACKING_ON)) continue;
        if (c == server.current_client) listAddNodeTail(PendingKeys, NULL);
        else sendFlushInvalidation(c);
    }
}

void trackingCallObserver(const callInfo *ci) {
    client *c = ci->c;
    if (!TrackingTable) return;
    /* A script's reads are tracked for its caller, by the keys it declared. */
    client *caller = (c->flags & CLIENT_LUA) ? server.current_client : c;
    if ((ci->cmd->flags & CMD_READONLY) && !isReadOnlyScriptCommand(ci->cmd) && caller &&
        (caller->tracking_flags & TRACKING_ON) && !(caller->tracking_flags & TRACKING_BCAST))
        trackingRememberKeys(caller);
    /* Once the outermost command returned, its reply is complete. */
    if (c == server.current_client && !(c->flags & CLIENT_EXECUTING)) {
        sendFlushInvalidations();
        sendPendingInvalidations();
    }
}

/* -------------------------------------------------------------- invalidating */

static void rememberKeyToBroadcast(client *c, sds key) {
    dictIterator di;
    dictInitIterator(&di, PrefixTable);
    dictEntry *de;
    while ((de = dictNext(&di))) {
        sds prefix = dictGetKey(de);
        size_t plen = sdslen(prefix);
        if (plen > sdslen(key) || memcmp(prefix, key, plen) != 0) continue;
        bcastState *bs = dictGetVal(de);
        /* Who changed the key last: a NOLOOP client skips its own changes. */
        dictEntry *ke = dictAddOrFind(bs->keys, key);
        dictSetVal(bs->keys, ke, c);
    }
    dictResetIterator(&di);
}

/* c: the client whose command changed the key (NULL: expiry, eviction, the
 * table's own limit). */
static void trackingInvalidateKey(client *c, sds key, int bcast) {
    if (bcast && dictSize(PrefixTable)) rememberKeyToBroadcast(c, key);
    dictEntry *de = dictFind(TrackingTable, key);
    if (!de) return;
    dict *ids = dictGetVal(de);
    dictIterator di;
    dictInitIterator(&di, ids);
    dictEntry *ie;
    while ((ie = dictNext(&di))) {
        client *target = lookupClientByID((uint64_t)(uintptr_t)dictGetKey(ie));
        /* A client that switched to BCAST does not hear of keys it read before. */
        if (!target || !(target->tracking_flags & TRACKING_ON) || (target->tracking_flags & TRACKING_BCAST)) continue;
        if ((target->tracking_flags & TRACKING_NOLOOP) && target == server.current_client) continue;
        if (target == server.current_client && (target->flags & CLIENT_EXECUTING))
            listAddNodeTail(PendingKeys, createStringObject(key, sdslen(key)));
        else
            sendKeyInvalidation(target, key);
    }
    dictResetIterator(&di);
    TrackingTableTotalItems -= dictSize(ids);
    dictDelete(TrackingTable, key);
}

void trackingKeyspaceSubscriber(const keyspaceEvent *ev) {
    if (!TrackingTable || !ev->db) return;
    if (!ev->key) {
        /* FLUSHDB and FLUSHALL: every tracking client hears it once, and the
         * table is emptied (Redis forgets all keys, whatever the db). */
        if (ev->event && !strcmp(ev->event, "flushdb")) {
            if (TrackingClients) FlushPending = 1;
            dictEmpty(TrackingTable, NULL);
            TrackingTableTotalItems = 0;
            if (!server.current_client) sendFlushInvalidations();
        }
        return;
    }
    /* Pure events change nothing. */
    if (ev->event && (!strcmp(ev->event, "keymiss") || !strcmp(ev->event, "new"))) return;
    int byserver = ev->event && (!strcmp(ev->event, "expired") || !strcmp(ev->event, "evicted"));
    trackingInvalidateKey(byserver ? NULL : server.current_client, objectPtr(ev->key), 1);
}

/* Over tracking-table-max-keys: invalidate random keys until under it, with
 * more effort each time the previous run did not get there. */
static void trackingLimitUsedSlots(void) {
    static unsigned int timeout_counter = 0;
    if (!TrackingTable || server.tracking_table_max_keys == 0) return;
    size_t max_keys = (size_t)server.tracking_table_max_keys;
    if (dictSize(TrackingTable) <= max_keys) {
        timeout_counter = 0;
        return;
    }
    int effort = 100 * (timeout_counter + 1);
    while (effort-- > 0) {
        dictEntry *de = dictGetRandomKey(TrackingTable);
        if (!de) break;
        sds key = sdsdup(dictGetKey(de));
        trackingInvalidateKey(NULL, key, 0);
        sdsfree(key);
        if (dictSize(TrackingTable) <= max_keys) {
            timeout_counter = 0;
            return;
        }
    }
    timeout_counter++;
}

void trackingCommandPrelude(client *c) {
    (void)c;
    if (TrackingClients) trackingLimitUsedSlots();
}

void trackingCron(void) {
    if (TrackingClients) trackingLimitUsedSlots();
}

/* The array of keys in bs->keys for c: NULL when c is NOLOOP and changed all
 * of them itself. Sorted, as Redis's radix tree lists them. */
static sds buildBroadcastReply(client *c, dict *keys) {
    unsigned long count, n = 0;
    sds *sorted = sortedKeys(keys, &count);
    sds body = sdsempty();
    for (unsigned long i = 0; i < count; i++) {
        if (c && dictFetchValue(keys, sorted[i]) == c) continue;
        body = catBulk(body, sorted[i], sdslen(sorted[i]));
        n++;
    }
    zfree(sorted);
    if (c && n == 0) {
        sdsfree(body);
        return NULL;
    }
    sds proto = sdscatprintf(sdsempty(), "*%lu\r\n", n);
    proto = sdscatsds(proto, body);
    sdsfree(body);
    return proto;
}

void trackingBeforeSleep(void) {
    if (!TrackingTable) return;
    /* Whatever a command left pending (its client may be gone by now). */
    sendFlushInvalidations();
    if (!server.current_client) {
        while (listLength(PendingKeys)) {
            listNode *ln = listFirst(PendingKeys);
            if (listNodeValue(ln)) decrRefCount(listNodeValue(ln));
            listDelNode(PendingKeys, ln);
        }
    }
    if (!dictSize(PrefixTable)) return;
    dictIterator di;
    dictInitIterator(&di, PrefixTable);
    dictEntry *de;
    while ((de = dictNext(&di))) {
        bcastState *bs = dictGetVal(de);
        if (!dictSize(bs->keys)) continue;
        sds proto = buildBroadcastReply(NULL, bs->keys);
        dictIterator ci;
        dictInitIterator(&ci, bs->clients);
        dictEntry *ce;
        while ((ce = dictNext(&ci))) {
            client *c = dictGetKey(ce);
            if (c->tracking_flags & TRACKING_NOLOOP) {
                sds adhoc = buildBroadcastReply(c, bs->keys);
                if (adhoc) {
                    sendTrackingMessage(c, adhoc, sdslen(adhoc));
                    sdsfree(adhoc);
                }
            } else {
                sendTrackingMessage(c, proto, sdslen(proto));
            }
        }
        dictResetIterator(&ci);
        sdsfree(proto);
        dictEmpty(bs->keys, NULL);
    }
    dictResetIterator(&di);
}

void trackingDisable(client *c) { disableTracking(c); }

void trackingClientTeardown(client *c) {
    disableTracking(c);
    if (!PendingKeys || server.current_client != c) return;
    /* Its pending invalidations have nobody to go to. */
    while (listLength(PendingKeys)) {
        listNode *ln = listFirst(PendingKeys);
        if (listNodeValue(ln)) decrRefCount(listNodeValue(ln));
        listDelNode(PendingKeys, ln);
    }
}

/* -------------------------------------------------------------------- INFO */

unsigned long long trackingClientsCount(void) { return TrackingClients; }
unsigned long long trackingGetTotalKeys(void) { return TrackingTable ? dictSize(TrackingTable) : 0; }
unsigned long long trackingGetTotalItems(void) { return TrackingTableTotalItems; }
unsigned long long trackingGetTotalPrefixes(void) { return PrefixTable ? dictSize(PrefixTable) : 0; }
