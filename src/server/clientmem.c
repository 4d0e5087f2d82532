/* clientmem: per-client memory accounting and client eviction (see
 * clientmem.h). Usage is recounted where it changes (networking.c after a
 * read, a command or a write; reply.c when the output list grows) and by the
 * cron; each recount moves the difference into a per-type total. Evictable
 * clients also sit in buckets by the power of two of their usage, so the
 * biggest are found without a search: eviction empties the top bucket
 * first, as Redis 7.0 does. */
#include "server/clientmem.h"
#include "server/client.h"
#include "core/zmalloc.h"

#include <stdint.h>

/* Buckets: usage below 32 KB in the first, 8 GB and above in the last. */
#define BUCKET_MIN_LOG 15
#define BUCKET_MAX_LOG 33
#define BUCKETS (BUCKET_MAX_LOG - BUCKET_MIN_LOG + 1)
/* A too small limit would leave no way to talk to the server at all. */
#define MIN_EVICTION_LIMIT (128 * 1024)
/* Client types as getClientType() gives them: the master link is one more. */
#define MEM_TYPES (CLIENT_TYPE_COUNT + 1)

/* A dict's own share, counted the way Redis does: a three-word entry per
 * element and a pointer per slot. The strings are shared, not the client's. */
#define DICT_ENTRY_COST (3 * sizeof(void *))
/* A WATCHed key: its list node and its record (key, db, a flag). */
#define WATCHED_KEY_COST (sizeof(listNode) + 3 * sizeof(void *))

static list *buckets[BUCKETS]; /* NULL while client eviction is off */
static size_t typeMemory[MEM_TYPES];

static size_t dictOverhead(dict *d) {
    return d ? dictSize(d) * DICT_ENTRY_COST + dictSlots(d) * sizeof(dictEntry *) : 0;
}

size_t multiStateMemOverhead(client *c) {
    return c->mstate.argv_len_sums + listLength(c->watched_keys) * WATCHED_KEY_COST +
           (size_t)c->mstate.alloc_count * sizeof(multiCmd);
}

size_t getClientMemoryUsage(client *c, size_t *obuf) {
    size_t out = getClientOutputBufferMemoryUsage(c);
    if (obuf) *obuf = out;
    size_t mem = out + sdsAllocSize(c->querybuf) + zmalloc_size(c) + c->buf_usable_size;
    /* Arguments by their length alone, as Redis: enough to spot the big ones. */
    mem += c->argv_len_sum + sizeof(robj *) * (size_t)c->argc;
    mem += multiStateMemOverhead(c);
    mem += listLength(c->pubsub_patterns) * sizeof(listNode);
    mem += dictOverhead(c->pubsub_channels) + dictOverhead(c->pubsubshard_channels);
    mem += dictOverhead(c->tracking_prefixes);
    return mem;
}

static int evictionEnabled(void) { return buckets[0] != NULL; }

/* Normal and pub/sub connections may be evicted, unless CLIENT NO-EVICT
 * says otherwise; never the master link or replicas. */
static int clientEvictionAllowed(client *c) {
    if (server.maxmemory_clients == 0 || (c->flags & CLIENT_NO_EVICT) || c->fd == -1) return 0;
    int type = getClientType(c);
    return type == CLIENT_TYPE_NORMAL || type == CLIENT_TYPE_PUBSUB;
}

static int bucketFor(size_t mem) {
    int bits = mem ? 64 - __builtin_clzll((unsigned long long)mem) : 0;
    if (bits > BUCKET_MAX_LOG) bits = BUCKET_MAX_LOG;
    if (bits < BUCKET_MIN_LOG) bits = BUCKET_MIN_LOG;
    return bits - BUCKET_MIN_LOG;
}

static void leaveBucket(client *c) {
    if (!c->mem_bucket_node) return;
    listDelNode(buckets[c->mem_bucket], c->mem_bucket_node);
    c->mem_bucket_node = NULL;
    c->mem_bucket = -1;
}

static void placeInBucket(client *c) {
    if (!evictionEnabled() || !clientEvictionAllowed(c)) {
        leaveBucket(c);
        return;
    }
    int b = bucketFor(c->mem_usage);
    if (c->mem_bucket_node && c->mem_bucket == b) return;
    leaveBucket(c);
    listAddNodeTail(buckets[b], c);
    c->mem_bucket = b;
    c->mem_bucket_node = listLast(buckets[b]);
}

void removeClientMemUsage(client *c) {
    typeMemory[c->mem_type] -= c->mem_usage;
    c->mem_usage = 0;
    leaveBucket(c);
}

void updateClientMemUsage(client *c) {
    if (evictionEnabled()) refreshClientMemUsage(c);
}

void refreshClientMemUsage(client *c) {
    if (c->fd == -1) return; /* fake clients (scripts, AOF) are no connection */
    /* One on its way out no longer counts: it cannot push others out. */
    if (c->flags & CLIENT_CLOSE_ASAP) {
        removeClientMemUsage(c);
        return;
    }
    size_t mem = getClientMemoryUsage(c, NULL);
    int type = getClientType(c);
    typeMemory[c->mem_type] -= c->mem_usage;
    typeMemory[type] += mem;
    c->mem_type = type;
    c->mem_usage = mem;
    placeInBucket(c);
}

static size_t clientEvictionLimit(void) {
    size_t limit;
    if (server.maxmemory_clients < 0 && server.maxmemory > 0) {
        double bytes = (double)server.maxmemory * (double)-server.maxmemory_clients / 100;
        limit = bytes < (double)SIZE_MAX ? (size_t)bytes : SIZE_MAX;
    } else if (server.maxmemory_clients > 0) {
        limit = (size_t)server.maxmemory_clients;
    } else {
        return 0; /* off, or a percentage of no maxmemory */
    }
    return limit < MIN_EVICTION_LIMIT ? MIN_EVICTION_LIMIT : limit;
}

int evictClients(client *current) {
    if (!evictionEnabled()) return 0;
    size_t limit = clientEvictionLimit();
    if (limit == 0) return 0;
    int evicted_current = 0;
    int b = BUCKETS - 1;
    while (typeMemory[CLIENT_TYPE_NORMAL] + typeMemory[CLIENT_TYPE_PUBSUB] >= limit) {
        while (b >= 0 && listLength(buckets[b]) == 0) b--;
        if (b < 0) {
            serverLog(LL_WARNING, "Over client maxmemory after evicting all evictable clients");
            break;
        }
        client *c = listNodeValue(listFirst(buckets[b]));
        sds ci = catClientInfoString(sdsempty(), c);
        serverLog(LL_NOTICE, "Evicting client: %s", ci);
        sdsfree(ci);
        server.stat_evictedclients++;
        if (c == current) {
            freeClientAsync(c); /* its caller still holds it; this takes it out of the totals */
            evicted_current = 1;
        } else {
            freeClient(c);
        }
    }
    return evicted_current;
}

int applyMaxmemoryClients(const char **err) {
    (void)err;
    if (server.maxmemory_clients != 0 && !evictionEnabled())
        for (int b = 0; b < BUCKETS; b++) buckets[b] = listCreate();
    listIter li;
    listNode *ln;
    if (!server.clients) return 1; /* read from redis.conf: no client yet */
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (server.maxmemory_clients == 0) leaveBucket(c);
        else refreshClientMemUsage(c);
    }
    if (server.maxmemory_clients == 0 && evictionEnabled()) {
        for (int b = 0; b < BUCKETS; b++) {
            listRelease(buckets[b]);
            buckets[b] = NULL;
        }
    }
    return 1;
}
