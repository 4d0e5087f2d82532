/* dict: chained hash table with incremental rehashing (interface in dict.h).
 *
 * Two tables: ht[0] normally, plus ht[1] while rehashing, during which
 * buckets of ht[0] below rehashidx are already empty. Tables have power-of-two
 * sizes so a bucket is hash & mask, and so the reverse-binary scan cursor
 * stays valid across resizes.
 *
 * Entry layout (one allocation, never moved after insertion):
 *   next | value union | metadata (entryMetaBytes, padded to 8) | key area
 * where the key area holds either the key pointer or, for embedKey types, one
 * byte giving the sds header size followed by an embedded sds (sdsEmbed).
 * Accessors only get the entry, not the dict, so every entry describes its
 * own layout in the low 4 bits of its `next` field (entries are at least 16
 * bytes, so the allocator aligns them to 16): bit 0 = embedded key,
 * bits 1-3 = metadata size in 8-byte words.
 *
 * Item mode (dictType.itemKey set): the table holds the caller's items, which
 * carry their own key, so a key costs no entry at all when it is alone in its
 * bucket. A "link" (bucket head, or the next field of a node) is then NULL,
 * an item tagged with bit 0 (the last of its chain), or a node: a plain
 * 16-byte entry whose value is an item and whose next is an untagged link.
 * Only keys sharing a bucket with a later one cost a node (at full load about
 * a third of them). The internal walks go through link*(): for other dicts a
 * link is simply an entry. */
#include "dict.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "memprefetch.h"
#include "sds.h"
#include "siphash.h"
#include "zmalloc.h"

struct dictEntry {
    dictEntry *next; /* tagged: see the header comment */
    union {
        void *val;
        uint64_t u64;
        int64_t s64;
        double d;
    } v;
    unsigned char rest[];
};

struct dict {
    dictType *type;
    dictEntry **table[2];
    unsigned long used[2];
    signed char sizeExp[2]; /* -1: no table */
    long rehashidx;         /* -1: not rehashing */
    int pauserehash;        /* >0: rehashing paused (safe iterators, scans) */
    uintptr_t entryTag;     /* layout tag stored in every entry of this dict */
    unsigned long nodes;    /* item mode: nodes allocated (keys sharing a bucket) */
    size_t metaPad;         /* entryMetaBytes rounded up to 8 */
};

#define TAG_EMBEDDED ((uintptr_t)1)
#define ITEM_TAG ((uintptr_t)1) /* item mode: this link is an item, not a node */
#define TAG_META_SHIFT 1
#define TAG_MASK ((uintptr_t)15)

#define HT_SIZE(exp) ((exp) == -1 ? 0UL : 1UL << (exp))
#define HT_MASK(exp) ((exp) == -1 ? 0UL : HT_SIZE(exp) - 1)

/* Below this fill a table may grow only if resizing is enabled; past the
 * force ratio it grows anyway, so a long-lived child cannot make chains grow
 * without bound. */
static int dict_can_resize = 1;
static const unsigned long dict_force_resize_ratio = 5;

static uint8_t dict_hash_seed[16];

/* ---------------------------------------------------------------- hashing */

void dictSetHashFunctionSeed(const uint8_t seed[16]) { memcpy(dict_hash_seed, seed, sizeof(dict_hash_seed)); }

const uint8_t *dictGetHashFunctionSeed(void) { return dict_hash_seed; }

uint64_t dictGenHashFunction(const void *key, size_t len) { return siphash(key, len, dict_hash_seed); }

uint64_t dictGenCaseHashFunction(const unsigned char *buf, size_t len) {
    return siphash_nocase(buf, len, dict_hash_seed);
}

/* Small PRNG for sampling (splitmix64); quality needs are modest and it must
 * not touch libc's rand() state that scripts or commands may rely on. */
uint64_t dictRandom(void) {
    static uint64_t state;
    if (state == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        state = ((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)&ts;
    }
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- entries */

static inline uintptr_t entryTag(const dictEntry *de) { return (uintptr_t)de->next & TAG_MASK; }

static inline dictEntry *entryNext(const dictEntry *de) {
    return (dictEntry *)((uintptr_t)de->next & ~TAG_MASK);
}

static inline void entrySetNext(dictEntry *de, dictEntry *next) {
    de->next = (dictEntry *)((uintptr_t)next | entryTag(de));
}

static inline unsigned char *entryKeyArea(const dictEntry *de) {
    size_t metaPad = ((entryTag(de) >> TAG_META_SHIFT) & 7) * 8;
    return (unsigned char *)de->rest + metaPad;
}

void *dictGetKey(const dictEntry *de) {
    unsigned char *area = entryKeyArea(de);
    if (entryTag(de) & TAG_EMBEDDED) return area + 1 + area[0];
    void *key;
    memcpy(&key, area, sizeof(key));
    return key;
}

dictEntry *dictEntryNext(const dictEntry *de) { return entryNext(de); }
void *dictEntryMeta(dictEntry *de) { return de->rest; }
void *dictGetVal(const dictEntry *de) { return de->v.val; }
void dictSetVal(dict *d, dictEntry *de, void *val) {
    (void)d;
    de->v.val = val;
}
int64_t dictGetSignedIntegerVal(const dictEntry *de) { return de->v.s64; }
uint64_t dictGetUnsignedIntegerVal(const dictEntry *de) { return de->v.u64; }
double dictGetDoubleVal(const dictEntry *de) { return de->v.d; }
double *dictGetDoubleValPtr(dictEntry *de) { return &de->v.d; }
void dictSetSignedIntegerVal(dictEntry *de, int64_t val) { de->v.s64 = val; }
void dictSetUnsignedIntegerVal(dictEntry *de, uint64_t val) { de->v.u64 = val; }
void dictSetDoubleVal(dictEntry *de, double val) { de->v.d = val; }
int64_t dictIncrSignedIntegerVal(dictEntry *de, int64_t by) {
    de->v.u64 += (uint64_t)by; /* wraps instead of overflowing, like Redis */
    return de->v.s64;
}

/* ---------------------------------------------------------------- links */

static inline int itemMode(const dict *d) { return d->type->itemKey != NULL; }
static inline int linkIsItem(const dictEntry *l) { return ((uintptr_t)l & ITEM_TAG) != 0; }
static inline dictEntry *itemLink(void *item) { return (dictEntry *)((uintptr_t)item | ITEM_TAG); }

static inline dictEntry *linkNext(const dict *d, const dictEntry *l) {
    if (!itemMode(d)) return entryNext(l);
    return linkIsItem(l) ? NULL : l->next;
}

static inline void linkSetNext(const dict *d, dictEntry *l, dictEntry *next) {
    if (itemMode(d)) l->next = next;
    else entrySetNext(l, next);
}

/* What the API hands out for a link: the entry, or in item mode the item. */
static inline dictEntry *linkApi(const dict *d, const dictEntry *l) {
    if (!itemMode(d)) return (dictEntry *)l;
    return linkIsItem(l) ? (dictEntry *)((uintptr_t)l & ~ITEM_TAG) : l->v.val;
}

static inline const void *linkKey(const dict *d, const dictEntry *l) {
    if (!itemMode(d)) return dictGetKey(l);
    return d->type->itemKey(linkApi(d, l));
}

/* Puts a link at the head of a bucket. In item mode an item alone in its
 * bucket is stored bare and one joining others gets a node, so a link may be
 * turned from one form to the other here. */
static void bucketPush(dict *d, dictEntry **bucket, dictEntry *l) {
    if (!itemMode(d)) {
        entrySetNext(l, *bucket);
        *bucket = l;
        return;
    }
    if (*bucket == NULL) {
        if (!linkIsItem(l)) {
            dictEntry *node = l;
            l = itemLink(node->v.val);
            zfree(node);
            d->nodes--;
        }
        *bucket = l;
        return;
    }
    if (linkIsItem(l)) {
        dictEntry *node = zmalloc(sizeof(dictEntry));
        d->nodes++;
        node->v.val = linkApi(d, l);
        l = node;
    }
    l->next = *bucket;
    *bucket = l;
}

/* Frees a link taken out of the table: the entry or node, and with
 * destroy the value (item mode: the item) through the destructors. */
static void linkFree(dict *d, dictEntry *l, int destroy);

static inline int keysEqual(dict *d, const void *key, const void *stored) {
    if (key == stored) return 1;
    return d->type->keyCompare ? d->type->keyCompare(d, key, stored) : 0;
}

static inline uint64_t hashKey(dict *d, const void *key) { return d->type->hashFunction(key); }

/* Allocates an entry holding key (copied in when the type embeds keys). */
static dictEntry *entryCreate(dict *d, void *key) {
    size_t keyBytes;
    size_t keylen = 0;
    if (d->type->embedKey) {
        keylen = sdslen((sds)key);
        keyBytes = 1 + sdsEmbeddedSize(keylen);
    } else {
        keyBytes = sizeof(void *);
    }
    dictEntry *de = zmalloc(sizeof(dictEntry) + d->metaPad + keyBytes);
    assert(((uintptr_t)de & TAG_MASK) == 0);
    de->next = (dictEntry *)d->entryTag;
    de->v.u64 = 0;
    if (d->metaPad) memset(de->rest, 0, d->metaPad);
    unsigned char *area = de->rest + d->metaPad;
    if (d->type->embedKey) {
        size_t hdrlen = sdsEmbeddedSize(keylen) - keylen - 1;
        area[0] = (unsigned char)hdrlen;
        sdsEmbed(area + 1, key, keylen);
    } else {
        if (d->type->keyDup) key = d->type->keyDup(d, key);
        memcpy(area, &key, sizeof(key));
    }
    return de;
}

/* Runs the destructors and frees the entry (already unlinked). */
static void entryFree(dict *d, dictEntry *de) {
    if (!(entryTag(de) & TAG_EMBEDDED) && d->type->keyDestructor)
        d->type->keyDestructor(d, dictGetKey(de));
    if (d->type->valDestructor) d->type->valDestructor(d, de->v.val);
    zfree(de);
}

static void linkFree(dict *d, dictEntry *l, int destroy) {
    if (!itemMode(d)) {
        if (destroy) entryFree(d, l);
        return;
    }
    void *item = linkApi(d, l);
    if (!linkIsItem(l)) {
        zfree(l);
        d->nodes--;
    }
    if (destroy && d->type->valDestructor) d->type->valDestructor(d, item);
}

/* ---------------------------------------------------------------- tables */

static void tableReset(dict *d, int t) {
    d->table[t] = NULL;
    d->used[t] = 0;
    d->sizeExp[t] = -1;
}

dict *dictCreate(dictType *type) {
    assert(type->entryMetaBytes <= DICT_MAX_ENTRY_META_BYTES);
    assert(!type->itemKey || (!type->embedKey && !type->entryMetaBytes && !type->keyDup));
    dict *d = zmalloc(sizeof(*d));
    d->type = type;
    tableReset(d, 0);
    tableReset(d, 1);
    d->rehashidx = -1;
    d->pauserehash = 0;
    d->nodes = 0;
    d->metaPad = (type->entryMetaBytes + 7) & ~(size_t)7;
    d->entryTag = ((uintptr_t)(d->metaPad / 8) << TAG_META_SHIFT) | (type->embedKey ? TAG_EMBEDDED : 0);
    return d;
}

int dictIsRehashing(const dict *d) { return d->rehashidx != -1; }
void dictPauseRehashing(dict *d) { d->pauserehash++; }
void dictResumeRehashing(dict *d) {
    d->pauserehash--;
    assert(d->pauserehash >= 0);
}
void dictSetResizeEnabled(int enable) { dict_can_resize = enable; }
int dictResizeEnabled(void) { return dict_can_resize; }

static void (*big_table_free)(void *table) = zfree;

void dictSetBigTableFree(void (*free_fn)(void *table)) { big_table_free = free_fn ? free_fn : zfree; }

unsigned long dictSize(const dict *d) { return d->used[0] + d->used[1]; }
unsigned long dictSlots(const dict *d) { return HT_SIZE(d->sizeExp[0]) + HT_SIZE(d->sizeExp[1]); }
dictType *dictGetType(dict *d) { return d->type; }

signed char dictExpForSize(unsigned long size) {
    signed char e = DICT_HT_INITIAL_EXP;
    if (size >= (1UL << (sizeof(long) * 8 - 1))) return (signed char)(sizeof(long) * 8 - 1);
    while ((1UL << e) < size) e++;
    return e;
}

static int expandTo(dict *d, unsigned long size) {
    /* Growing while rehashing, or below the element count, is meaningless. */
    if (dictIsRehashing(d) || d->used[0] > size) return DICT_ERR;
    signed char exp = dictExpForSize(size);
    unsigned long newsize = 1UL << exp;
    if (newsize < size || newsize * sizeof(dictEntry *) / sizeof(dictEntry *) != newsize) return DICT_ERR;
    if (exp == d->sizeExp[0]) return DICT_ERR;

    dictEntry **table = zcalloc(newsize * sizeof(dictEntry *));
    if (d->table[0] == NULL) {
        /* First allocation: nothing to rehash. */
        d->table[0] = table;
        d->sizeExp[0] = exp;
        d->used[0] = 0;
        return DICT_OK;
    }
    d->table[1] = table;
    d->sizeExp[1] = exp;
    d->used[1] = 0;
    d->rehashidx = 0;
    return DICT_OK;
}

int dictExpand(dict *d, unsigned long size) { return expandTo(d, size); }

int dictTryExpand(dict *d, unsigned long size) {
    /* zmalloc aborts instead of failing, so refuse sizes no machine could hold. */
    if (size > (1UL << 40)) return DICT_ERR;
    return expandTo(d, size);
}

static int expandAllowed(dict *d) {
    if (d->type->expandAllowed == NULL) return 1;
    unsigned long next = 1UL << dictExpForSize(d->used[0] + 1);
    return d->type->expandAllowed(next * sizeof(dictEntry *),
                                  (double)d->used[0] / (double)HT_SIZE(d->sizeExp[0]));
}

int dictGrowDue(unsigned long used, unsigned long size) {
    return used >= size && (dict_can_resize || used / size > dict_force_resize_ratio);
}

static int sparse(unsigned long used, unsigned long slots) {
    return slots > DICT_HT_INITIAL_SIZE && used * 100 / slots < 10;
}

int dictShrinkDue(unsigned long used, unsigned long slots) { return dict_can_resize && sparse(used, slots); }

static int expandIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return DICT_OK;
    if (d->sizeExp[0] == -1) return expandTo(d, DICT_HT_INITIAL_SIZE);
    if (dictGrowDue(d->used[0], HT_SIZE(d->sizeExp[0])) && expandAllowed(d)) return expandTo(d, d->used[0] + 1);
    return DICT_OK;
}

int dictResize(dict *d) {
    if (!dict_can_resize || dictIsRehashing(d)) return DICT_ERR;
    unsigned long minimal = d->used[0];
    if (minimal < DICT_HT_INITIAL_SIZE) minimal = DICT_HT_INITIAL_SIZE;
    return expandTo(d, minimal);
}

int dictNeedsResize(const dict *d) { return sparse(dictSize(d), dictSlots(d)); }

/* Buckets moved together: the items at their heads are prefetched first and
 * then their new buckets, so a batch's cache misses (at 10M keys every item
 * and every new bucket is one) overlap instead of queueing one by one. */
#define REHASH_BATCH 16
#define REHASH_MOVES (REHASH_BATCH * 4)

typedef struct {
    dictEntry *link;
    unsigned long idx; /* its bucket in the new table */
} rehashMove;

static void pushMoves(dict *d, const rehashMove *moves, int m) {
    for (int k = 0; k < m; k++) bucketPush(d, &d->table[1][moves[k].idx], moves[k].link);
}

int dictRehash(dict *d, int n) {
    /* Bound the empty buckets visited too, so a sparse table cannot stall us. */
    int emptyVisits = n * 10;
    if (!dictIsRehashing(d)) return 0;
    unsigned long size0 = HT_SIZE(d->sizeExp[0]), mask1 = HT_MASK(d->sizeExp[1]);

    while (n > 0 && d->used[0] != 0) {
        unsigned long full[REHASH_BATCH];
        int got = 0, tooSparse = 0;
        unsigned long i = (unsigned long)d->rehashidx;
        while (got < n && got < REHASH_BATCH && i < size0) {
            dictEntry *l = d->table[0][i++];
            if (l) {
                full[got++] = i - 1;
                /* A node is read to reach its item: fetch the node itself. */
                prefetchLine(itemMode(d) && !linkIsItem(l) ? (void *)l : (void *)linkApi(d, l));
            } else if (--emptyVisits == 0) {
                tooSparse = 1;
                break;
            }
        }
        /* used[0] != 0: a full bucket lies ahead, unless the empty ones ran out first. */
        assert(got || tooSparse);
        rehashMove moves[REHASH_MOVES];
        int m = 0;
        for (int b = 0; b < got; b++) {
            for (dictEntry *de = d->table[0][full[b]]; de;) {
                if (m == REHASH_MOVES) {
                    pushMoves(d, moves, m);
                    m = 0;
                }
                dictEntry *next = linkNext(d, de);
                unsigned long idx = hashKey(d, linkKey(d, de)) & mask1;
                prefetchLine(&d->table[1][idx]);
                moves[m].link = de;
                moves[m++].idx = idx;
                d->used[0]--;
                d->used[1]++;
                de = next;
            }
            d->table[0][full[b]] = NULL;
        }
        pushMoves(d, moves, m);
        d->rehashidx = (long)i;
        n -= got;
        if (tooSparse) break;
    }

    if (d->used[0] == 0) {
        if (HT_SIZE(d->sizeExp[0]) * sizeof(dictEntry *) >= DICT_BIG_TABLE_BYTES) big_table_free(d->table[0]);
        else zfree(d->table[0]);
        d->table[0] = d->table[1];
        d->used[0] = d->used[1];
        d->sizeExp[0] = d->sizeExp[1];
        tableReset(d, 1);
        d->rehashidx = -1;
        return 0;
    }
    return 1;
}

static long long monotonicUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Steps of 16 buckets, with the clock in µs: each bucket moved may be the
 * first write to a page of the new table, a page fault of 20-30 µs on a VM:
 * a 100-bucket step (Redis's) can take 3 ms. */
#define REHASH_STEP 16

int dictRehashMicroseconds(dict *d, long long us) {
    if (d->pauserehash > 0) return 0;
    long long start = monotonicUs();
    int rehashes = 0;
    while (dictRehash(d, REHASH_STEP)) {
        rehashes += REHASH_STEP;
        if (monotonicUs() - start >= us) break;
    }
    return rehashes;
}

/* One step of incremental rehashing, piggybacked on lookups and updates. */
static void rehashStep(dict *d) {
    if (d->pauserehash == 0) dictRehash(d, 1);
}

/* ---------------------------------------------------------------- updates */

/* Bucket index where key should be added, or -1 if it exists (then
 * *existing is set when not NULL). */
static long keyIndex(dict *d, const void *key, uint64_t hash, dictEntry **existing) {
    if (existing) *existing = NULL;
    if (expandIfNeeded(d) == DICT_ERR) return -1;
    unsigned long idx = 0;
    for (int t = 0; t <= 1; t++) {
        idx = hash & HT_MASK(d->sizeExp[t]);
        for (dictEntry *he = d->table[t][idx]; he; he = linkNext(d, he)) {
            if (keysEqual(d, key, linkKey(d, he))) {
                if (existing) *existing = linkApi(d, he);
                return -1;
            }
        }
        if (!dictIsRehashing(d)) break;
    }
    return (long)idx;
}

dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing) {
    assert(!itemMode(d));
    if (dictIsRehashing(d)) rehashStep(d);
    long idx = keyIndex(d, key, hashKey(d, key), existing);
    if (idx == -1) return NULL;
    /* New entries go to the table being filled, at the bucket head (recently
     * added keys are often accessed soon). */
    int t = dictIsRehashing(d) ? 1 : 0;
    dictEntry *de = entryCreate(d, key);
    entrySetNext(de, d->table[t][idx]);
    d->table[t][idx] = de;
    d->used[t]++;
    return de;
}

int dictAddItem(dict *d, void *item) {
    assert(itemMode(d) && !linkIsItem(item));
    if (dictIsRehashing(d)) rehashStep(d);
    const void *key = d->type->itemKey(item);
    long idx = keyIndex(d, key, hashKey(d, key), NULL);
    if (idx == -1) return DICT_ERR;
    int t = dictIsRehashing(d) ? 1 : 0;
    bucketPush(d, &d->table[t][idx], itemLink(item));
    d->used[t]++;
    return DICT_OK;
}

int dictAdd(dict *d, void *key, void *val) {
    dictEntry *de = dictAddRaw(d, key, NULL);
    if (!de) return DICT_ERR;
    de->v.val = val;
    return DICT_OK;
}

dictEntry *dictAddOrFind(dict *d, void *key) {
    dictEntry *existing;
    dictEntry *de = dictAddRaw(d, key, &existing);
    return de ? de : existing;
}

int dictReplace(dict *d, void *key, void *val) {
    dictEntry *existing;
    dictEntry *de = dictAddRaw(d, key, &existing);
    if (de) {
        de->v.val = val;
        return 1;
    }
    /* Set first, destroy after: val may be the same object as the old value
     * or reference it (refcounting). */
    void *old = existing->v.val;
    existing->v.val = val;
    if (d->type->valDestructor) d->type->valDestructor(d, old);
    return 0;
}

/* The bucket where key's entry is (in each table it may be in while rehashing). */
static int bucketsOf(const dict *d, uint64_t hash, dictEntry **out[2]) {
    int n = 0;
    for (int t = 0; t <= 1; t++) {
        if (d->sizeExp[t] == -1) break;
        unsigned long idx = hash & HT_MASK(d->sizeExp[t]);
        if (t == 0 && dictIsRehashing(d) && (long)idx < d->rehashidx) continue; /* moved on */
        out[n++] = &d->table[t][idx];
        if (!dictIsRehashing(d)) break;
    }
    return n;
}

void dictPrefetchSdsKeys(const dict *d, const char *const *keys, const size_t *lens, int n, int values) {
    /* Each key's buckets (two while rehashing), found once for the three passes. */
    dictEntry **buckets[2 * DICT_PREFETCH_MAX];
    int nb = 0;
    if (n > DICT_PREFETCH_MAX) n = DICT_PREFETCH_MAX;
    for (int i = 0; i < n; i++) {
        uint64_t hash = dictGenHashFunction(keys[i], lens[i]); /* what dictSdsHash gives for these bytes */
        int found = bucketsOf(d, hash, &buckets[nb]);
        for (int k = 0; k < found; k++) prefetchLine(buckets[nb + k]);
        nb += found;
    }
    for (int i = 0; i < nb; i++) {
        dictEntry *l = *buckets[i];
        if (!l) continue;
        const char *p = (const char *)((uintptr_t)l & ~ITEM_TAG);
        if (itemMode(d) && !linkIsItem(l)) p = l->v.val; /* a node: its item is what the lookup reads */
        prefetchLine(p);
        /* An item (a key's object) is read past its first line when its key is. */
        if (itemMode(d)) prefetchLine(p + 64);
    }
    if (!values || itemMode(d)) return; /* an item is its own value */
    for (int i = 0; i < nb; i++) {
        dictEntry *de = *buckets[i];
        /* The byte before: an sds value's header is read when it is freed. */
        if (de && de->v.val) prefetchLine((const char *)de->v.val - 1);
    }
}

void dictPrefetchSdsKeyBucket(const dict *d, const char *key, size_t len) {
    dictEntry **buckets[2];
    int n = bucketsOf(d, dictGenHashFunction(key, len), buckets);
    for (int i = 0; i < n; i++) prefetchLine(buckets[i]);
}

/* Finds key's entry; in item mode with item given, the item itself, by
 * address along its key's chain, so no other item's key is read. When found
 * and prevOut is not NULL, also reports where the entry is linked from
 * (previous entry in the chain, or NULL for the bucket head), so it can be
 * unlinked or replaced. */
static dictEntry *findLink(dict *d, const void *key, const void *item, dictEntry **prevOut, int *tableOut,
                           unsigned long *idxOut) {
    if (dictSize(d) == 0) return NULL;
    uint64_t h = hashKey(d, key);
    for (int t = 0; t <= 1; t++) {
        unsigned long idx = h & HT_MASK(d->sizeExp[t]);
        dictEntry *prev = NULL;
        for (dictEntry *he = d->table[t][idx]; he; prev = he, he = linkNext(d, he)) {
            if (item ? (const void *)linkApi(d, he) == item : keysEqual(d, key, linkKey(d, he))) {
                if (prevOut) {
                    *prevOut = prev;
                    *tableOut = t;
                    *idxOut = idx;
                }
                return he;
            }
        }
        if (!dictIsRehashing(d)) break;
    }
    return NULL;
}

/* findLink after one rehash step, as every lookup makes. */
static dictEntry *lookup(dict *d, const void *key, const void *item, dictEntry **prevOut, int *tableOut,
                         unsigned long *idxOut) {
    if (dictSize(d) && dictIsRehashing(d)) rehashStep(d);
    return findLink(d, key, item, prevOut, tableOut, idxOut);
}

static dictEntry *unlinkFound(dict *d, const void *key, const void *item) {
    dictEntry *prev;
    int t;
    unsigned long idx;
    dictEntry *he = lookup(d, key, item, &prev, &t, &idx);
    if (he == NULL) return NULL;
    if (prev)
        linkSetNext(d, prev, linkNext(d, he));
    else
        d->table[t][idx] = linkNext(d, he);
    d->used[t]--;
    if (itemMode(d)) {
        /* A node left last in its chain stays a node (turning it back into a
         * bare item could free what a safe iterator holds); rehash tidies it. */
        dictEntry *found = linkApi(d, he);
        linkFree(d, he, 0);
        return found;
    }
    entrySetNext(he, NULL);
    return he;
}

/* Finds key and removes its entry from the table, without freeing it. */
dictEntry *dictUnlink(dict *d, const void *key) { return unlinkFound(d, key, NULL); }

dictEntry *dictUnlinkItem(dict *d, void *item) {
    assert(itemMode(d));
    return unlinkFound(d, d->type->itemKey(item), item);
}

int dictReplaceItem(dict *d, void *old, void *item) {
    assert(itemMode(d) && !linkIsItem(item));
    /* Found by address along old's chain (no rehash step): no key but old's is read. */
    dictEntry *prev;
    int t;
    unsigned long idx;
    dictEntry *he = findLink(d, d->type->itemKey(old), old, &prev, &t, &idx);
    if (!he) return DICT_ERR;
    if (!linkIsItem(he))
        he->v.val = item;
    else if (prev)
        prev->next = itemLink(item);
    else
        d->table[t][idx] = itemLink(item);
    return DICT_OK;
}

int dictDelete(dict *d, const void *key) {
    dictEntry *de = dictUnlink(d, key);
    if (de == NULL) return DICT_ERR;
    dictFreeUnlinkedEntry(d, de);
    return DICT_OK;
}

void dictFreeUnlinkedEntry(dict *d, dictEntry *he) {
    if (!he) return;
    if (itemMode(d)) {
        if (d->type->valDestructor) d->type->valDestructor(d, he);
    } else {
        entryFree(d, he);
    }
}

static void clearTable(dict *d, int t, void(callback)(dict *)) {
    unsigned long size = HT_SIZE(d->sizeExp[t]);
    for (unsigned long i = 0; i < size && d->used[t] > 0; i++) {
        if (callback && (i & 65535) == 0) callback(d);
        dictEntry *he = d->table[t][i];
        while (he) {
            dictEntry *next = linkNext(d, he);
            linkFree(d, he, 1);
            d->used[t]--;
            he = next;
        }
    }
    zfree(d->table[t]);
    tableReset(d, t);
}

void dictEmpty(dict *d, void(callback)(dict *)) {
    clearTable(d, 0, callback);
    clearTable(d, 1, callback);
    d->rehashidx = -1;
    d->pauserehash = 0;
}

void dictRelease(dict *d) {
    clearTable(d, 0, NULL);
    clearTable(d, 1, NULL);
    zfree(d);
}

/* ---------------------------------------------------------------- lookups */

dictEntry *dictFind(dict *d, const void *key) {
    dictEntry *he = lookup(d, key, NULL, NULL, NULL, NULL);
    return he ? linkApi(d, he) : NULL;
}

void *dictFetchValue(dict *d, const void *key) {
    assert(!itemMode(d));
    dictEntry *he = dictFind(d, key);
    return he ? he->v.val : NULL;
}

uint64_t dictGetHash(dict *d, const void *key) { return hashKey(d, key); }

/* ---------------------------------------------------------------- iteration */

/* A digest of the dict's shape. An unsafe iterator checks it did not change,
 * which catches callers that modified the dict (or let it rehash) while
 * iterating without a safe iterator. */
static unsigned long long fingerprint(dict *d) {
    unsigned long long integers[6] = {
        (unsigned long long)(uintptr_t)d->table[0], (unsigned long long)d->sizeExp[0], d->used[0],
        (unsigned long long)(uintptr_t)d->table[1], (unsigned long long)d->sizeExp[1], d->used[1],
    };
    unsigned long long hash = 0;
    for (int j = 0; j < 6; j++) {
        /* Mix each field in with an integer hash step (Wang's 64-bit mix). */
        hash += integers[j];
        hash = (~hash) + (hash << 21);
        hash = hash ^ (hash >> 24);
        hash = (hash + (hash << 3)) + (hash << 8);
        hash = hash ^ (hash >> 14);
        hash = (hash + (hash << 2)) + (hash << 4);
        hash = hash ^ (hash >> 28);
        hash = hash + (hash << 31);
    }
    return hash;
}

void dictInitIterator(dictIterator *iter, dict *d) {
    iter->d = d;
    iter->table = 0;
    iter->index = -1;
    iter->safe = 0;
    iter->entry = NULL;
    iter->nextEntry = NULL;
    iter->fingerprint = 0;
}

void dictInitSafeIterator(dictIterator *iter, dict *d) {
    dictInitIterator(iter, d);
    iter->safe = 1;
}

dictIterator *dictGetIterator(dict *d) {
    dictIterator *iter = zmalloc(sizeof(*iter));
    dictInitIterator(iter, d);
    return iter;
}

dictIterator *dictGetSafeIterator(dict *d) {
    dictIterator *iter = dictGetIterator(d);
    iter->safe = 1;
    return iter;
}

dictEntry *dictNext(dictIterator *iter) {
    for (;;) {
        if (iter->entry == NULL) {
            if (iter->index == -1 && iter->table == 0) {
                /* First call: from here on the dict must not change under us. */
                if (iter->safe)
                    dictPauseRehashing(iter->d);
                else
                    iter->fingerprint = fingerprint(iter->d);
            }
            iter->index++;
            if (iter->index >= (long)HT_SIZE(iter->d->sizeExp[iter->table])) {
                if (dictIsRehashing(iter->d) && iter->table == 0) {
                    iter->table++;
                    iter->index = 0;
                } else {
                    break;
                }
            }
            iter->entry = iter->d->table[iter->table][iter->index];
        } else {
            iter->entry = iter->nextEntry;
        }
        if (iter->entry) {
            /* Saved now so the caller may delete the entry we return. */
            iter->nextEntry = linkNext(iter->d, iter->entry);
            return linkApi(iter->d, iter->entry);
        }
    }
    return NULL;
}

void dictResetIterator(dictIterator *iter) {
    if (!(iter->index == -1 && iter->table == 0)) {
        if (iter->safe)
            dictResumeRehashing(iter->d);
        else
            assert(iter->fingerprint == fingerprint(iter->d));
    }
    /* Make a second reset harmless. */
    iter->index = -1;
    iter->table = 0;
}

void dictReleaseIterator(dictIterator *iter) {
    dictResetIterator(iter);
    zfree(iter);
}

/* ---------------------------------------------------------------- sampling */

unsigned long dictRandomBucket(const signed char exp[2], long rehashidx, int *table) {
    *table = 0;
    if (exp[1] == -1) return (unsigned long)dictRandom() & HT_MASK(exp[0]);
    /* Buckets of ht[0] below rehashidx are known empty: skip them. */
    unsigned long s0 = HT_SIZE(exp[0]);
    unsigned long h = (unsigned long)rehashidx +
                      (unsigned long)(dictRandom() % (s0 + HT_SIZE(exp[1]) - (unsigned long)rehashidx));
    if (h < s0) return h;
    *table = 1;
    return h - s0;
}

dictEntry *dictGetRandomKey(dict *d) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) rehashStep(d);
    dictEntry *he;
    signed char exp[2] = {d->sizeExp[0], dictIsRehashing(d) ? d->sizeExp[1] : -1};
    do {
        int t;
        unsigned long idx = dictRandomBucket(exp, d->rehashidx, &t);
        he = d->table[t][idx];
    } while (he == NULL);
    /* Pick uniformly within the chain. */
    unsigned long chainlen = 0;
    for (dictEntry *e = he; e; e = linkNext(d, e)) chainlen++;
    unsigned long pick = (unsigned long)(dictRandom() % chainlen);
    while (pick--) he = linkNext(d, he);
    return linkApi(d, he);
}

long dictSampleSlot(unsigned long seen, unsigned int count) {
    if (seen < count) return (long)seen;
    unsigned long r = (unsigned long)(dictRandom() % ((uint64_t)seen + 1));
    return r < count ? (long)r : -1;
}

unsigned int dictSampleWalk(const signed char exp[2], long rehashidx, unsigned int count, dictSampleVisitFn *visit,
                            void *ctx) {
    unsigned long maxsteps = (unsigned long)count * 10;
    int tables = exp[1] != -1 ? 2 : 1;
    unsigned long maxmask = HT_MASK(exp[0]);
    if (tables > 1 && maxmask < HT_MASK(exp[1])) maxmask = HT_MASK(exp[1]);

    /* Walk consecutive buckets from a random point, jumping elsewhere after
     * a run of empty ones. */
    unsigned long i = dictRandom() & maxmask;
    unsigned long emptylen = 0, stored = 0;
    while (stored < count && maxsteps--) {
        for (int t = 0; t < tables; t++) {
            if (tables == 2 && t == 0 && i < (unsigned long)rehashidx) {
                /* Already-migrated part of ht[0]: empty. If ht[1] is smaller
                 * and i is past its end, both are empty here: jump ahead. */
                if (i >= HT_SIZE(exp[1]))
                    i = (unsigned long)rehashidx;
                else
                    continue;
            }
            if (i >= HT_SIZE(exp[t])) continue;
            unsigned long n = visit(ctx, t, i, stored);
            if (n == 0) {
                emptylen++;
                if (emptylen >= 5 && emptylen > count) {
                    i = dictRandom() & maxmask;
                    emptylen = 0;
                }
            } else {
                emptylen = 0;
                stored += n;
                if (stored >= count) return count;
            }
        }
        i = (i + 1) & maxmask;
    }
    return (unsigned int)stored;
}

typedef struct sampleCtx {
    dict *d;
    dictEntry **des;
    unsigned int count;
} sampleCtx;

static unsigned long sampleChain(void *ctx, int t, unsigned long idx, unsigned long stored) {
    sampleCtx *sc = ctx;
    unsigned long n = 0;
    for (dictEntry *he = sc->d->table[t][idx]; he; he = linkNext(sc->d, he), n++) {
        long slot = dictSampleSlot(stored + n, sc->count);
        if (slot >= 0) sc->des[slot] = linkApi(sc->d, he);
    }
    return n;
}

unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count) {
    if (dictSize(d) < count) count = (unsigned int)dictSize(d);
    if (count == 0) return 0;
    /* Rehashing work proportional to what we are asked for. */
    for (unsigned int j = 0; j < count && dictIsRehashing(d); j++) rehashStep(d);
    sampleCtx sc = {d, des, count};
    signed char exp[2] = {d->sizeExp[0], dictIsRehashing(d) ? d->sizeExp[1] : -1};
    return dictSampleWalk(exp, d->rehashidx, count, sampleChain, &sc);
}

#define GETFAIR_NUM_ENTRIES 15

dictEntry *dictGetFairRandomKey(dict *d) {
    /* dictGetRandomKey favours entries in short chains; sampling a batch of
     * neighbouring buckets and picking one of them evens that out. */
    dictEntry *entries[GETFAIR_NUM_ENTRIES];
    unsigned int count = dictGetSomeKeys(d, entries, GETFAIR_NUM_ENTRIES);
    if (count == 0) return dictGetRandomKey(d);
    return entries[dictRandom() % count];
}

/* ---------------------------------------------------------------- scan */

/* Reverses the bit order of a 64-bit word by swapping ever larger halves. */
static unsigned long reverseBits(unsigned long v) {
    uint64_t x = v;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
    x = ((x >> 8) & 0x00ff00ff00ff00ffULL) | ((x & 0x00ff00ff00ff00ffULL) << 8);
    x = ((x >> 16) & 0x0000ffff0000ffffULL) | ((x & 0x0000ffff0000ffffULL) << 16);
    x = (x >> 32) | (x << 32);
    return (unsigned long)x;
}
_Static_assert(sizeof(unsigned long) == 8, "dictScan's cursor reversal assumes 64-bit long");

/* The cursor is incremented on its reversed bits: high bits first. Buckets
 * of a table of size 2^n visited at cursor v correspond, in a table of size
 * 2^m > 2^n, to the buckets sharing v's low n bits, which the reversed
 * increment visits consecutively; so neither growing nor shrinking between
 * calls makes the scan skip a bucket. */
unsigned long dictScanCursor(unsigned long v, const signed char exp[2], dictScanVisitFn *visit, void *ctx) {
    if (exp[1] == -1) {
        unsigned long m0 = HT_MASK(exp[0]);
        visit(ctx, 0, v & m0);
        v |= ~m0;
        return reverseBits(reverseBits(v) + 1);
    }
    int small = exp[0] > exp[1] ? 1 : 0, large = 1 - small;
    unsigned long m0 = HT_MASK(exp[small]);
    unsigned long m1 = HT_MASK(exp[large]);
    visit(ctx, small, v & m0);
    /* Then every bucket of the larger table that expands this one. */
    do {
        visit(ctx, large, v & m1);
        v |= ~m1;
        v = reverseBits(reverseBits(v) + 1);
    } while (v & (m0 ^ m1));
    return v;
}

typedef struct scanVisit {
    dict *d;
    dictScanFunction *fn;
    void *privdata;
} scanVisit;

static void scanBucket(void *ctx, int t, unsigned long idx) {
    scanVisit *sv = ctx;
    const dictEntry *de = sv->d->table[t][idx];
    while (de) {
        const dictEntry *next = linkNext(sv->d, de);
        sv->fn(sv->privdata, linkApi(sv->d, de));
        de = next;
    }
}

unsigned long dictScan(dict *d, unsigned long v, dictScanFunction *fn, void *privdata) {
    if (dictSize(d) == 0) return 0;
    /* The callback may look keys up; that must not move buckets under us. */
    dictPauseRehashing(d);
    scanVisit sv = {d, fn, privdata};
    signed char exp[2] = {d->sizeExp[0], dictIsRehashing(d) ? d->sizeExp[1] : -1};
    v = dictScanCursor(v, exp, scanBucket, &sv);
    dictResumeRehashing(d);
    return v;
}

/* ---------------------------------------------------------------- memory/stats */

/* Size of any one entry, as an estimate for all (exact when keys are not embedded). */
static size_t sampleEntrySize(const dict *d) {
    for (int t = 0; t <= 1; t++) {
        unsigned long size = HT_SIZE(d->sizeExp[t]);
        for (unsigned long i = 0; i < size; i++)
            if (d->table[t][i]) return zmalloc_size(d->table[t][i]);
    }
    return 0;
}

size_t dictMemUsage(const dict *d) {
    if (itemMode(d)) return sizeof(*d) + dictSlots(d) * sizeof(dictEntry *) + d->nodes * sizeof(dictEntry);
    size_t entry = dictSize(d) ? sampleEntrySize(d) : 0;
    return sizeof(*d) + dictSlots(d) * sizeof(dictEntry *) + dictSize(d) * entry;
}

size_t dictEntryMemUsage(const dict *d, const dictEntry *de) {
    if (itemMode(d)) return 0; /* the item is the caller's */
    return zmalloc_size((void *)de);
}

#define DICT_STATS_VECTLEN 50

static size_t tableStats(char *buf, size_t bufsize, int t, unsigned long size, unsigned long used,
                         dictChainLenFn *chainLen, const void *ctx) {
    const char *name = t == 0 ? "main hash table" : "rehashing target";
    if (used == 0)
        return (size_t)snprintf(buf, bufsize,
                                "Hash table %d stats (%s):\nNo stats available for empty dictionaries\n",
                                t, name);
    unsigned long clvector[DICT_STATS_VECTLEN] = {0};
    unsigned long slots = 0, maxchainlen = 0, totchainlen = 0;
    for (unsigned long i = 0; i < size; i++) {
        unsigned long chainlen = chainLen(ctx, t, i);
        if (chainlen == 0) {
            clvector[0]++;
            continue;
        }
        slots++;
        clvector[chainlen < DICT_STATS_VECTLEN ? chainlen : DICT_STATS_VECTLEN - 1]++;
        if (chainlen > maxchainlen) maxchainlen = chainlen;
        totchainlen += chainlen;
    }
    size_t l = 0;
    int n = snprintf(buf, bufsize,
                     "Hash table %d stats (%s):\n table size: %lu\n number of elements: %lu\n"
                     " different slots: %lu\n max chain length: %lu\n"
                     " avg chain length (counted): %.02f\n avg chain length (computed): %.02f\n"
                     " Chain length distribution:\n",
                     t, name, size, used, slots, maxchainlen, (double)totchainlen / (double)slots,
                     (double)used / (double)slots);
    if (n < 0 || (size_t)n >= bufsize) return bufsize ? bufsize - 1 : 0;
    l = (size_t)n;
    for (int i = 0; i < DICT_STATS_VECTLEN - 1; i++) {
        if (clvector[i] == 0) continue;
        n = snprintf(buf + l, bufsize - l, "   %d: %lu (%.02f%%)\n", i, clvector[i],
                     (double)clvector[i] / (double)size * 100);
        if (n < 0 || (size_t)n >= bufsize - l) return bufsize - 1;
        l += (size_t)n;
    }
    return l;
}

size_t dictFormatStats(char *buf, size_t bufsize, const signed char exp[2], const unsigned long used[2],
                       dictChainLenFn *chainLen, const void *ctx) {
    if (bufsize == 0) return 0;
    buf[0] = '\0';
    size_t l = tableStats(buf, bufsize, 0, HT_SIZE(exp[0]), used[0], chainLen, ctx);
    if (exp[1] != -1 && l + 1 < bufsize) l += tableStats(buf + l, bufsize - l, 1, HT_SIZE(exp[1]), used[1], chainLen, ctx);
    return l;
}

static unsigned long chainLength(const void *ctx, int t, unsigned long idx) {
    const dict *d = ctx;
    unsigned long n = 0;
    for (dictEntry *he = d->table[t][idx]; he; he = linkNext(d, he)) n++;
    return n;
}

size_t dictGetStats(char *buf, size_t bufsize, dict *d) {
    signed char exp[2] = {d->sizeExp[0], dictIsRehashing(d) ? d->sizeExp[1] : -1};
    return dictFormatStats(buf, bufsize, exp, d->used, chainLength, d);
}

/* ---------------------------------------------------------------- helper types */

uint64_t dictSdsHash(const void *key) { return dictGenHashFunction(key, sdslen((sds)key)); }

uint64_t dictSdsCaseHash(const void *key) {
    return dictGenCaseHashFunction((const unsigned char *)key, sdslen((sds)key));
}

int dictSdsKeyCompare(dict *d, const void *a, const void *b) {
    (void)d;
    size_t l1 = sdslen((sds)a), l2 = sdslen((sds)b);
    return l1 == l2 && memcmp(a, b, l1) == 0;
}

/* ASCII case-insensitive equality of n bytes (binary-safe, unlike strcasecmp). */
static int bytesEqualNocase(const unsigned char *a, const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = (unsigned char)(x + 32);
        if (y >= 'A' && y <= 'Z') y = (unsigned char)(y + 32);
        if (x != y) return 0;
    }
    return 1;
}

int dictSdsKeyCaseCompare(dict *d, const void *a, const void *b) {
    (void)d;
    size_t l1 = sdslen((sds)a), l2 = sdslen((sds)b);
    return l1 == l2 && bytesEqualNocase(a, b, l1);
}

void dictSdsDestructor(dict *d, void *val) {
    (void)d;
    sdsfree(val);
}

uint64_t dictCStrHash(const void *key) { return dictGenHashFunction(key, strlen(key)); }

uint64_t dictCStrCaseHash(const void *key) {
    return dictGenCaseHashFunction((const unsigned char *)key, strlen(key));
}

int dictCStrKeyCompare(dict *d, const void *a, const void *b) {
    (void)d;
    return strcmp(a, b) == 0;
}

int dictCStrKeyCaseCompare(dict *d, const void *a, const void *b) {
    (void)d;
    return strcasecmp(a, b) == 0;
}

uint64_t dictPtrHash(const void *key) {
    /* MurmurHash3's 64-bit finalizer: every input bit reaches every output bit. */
    uint64_t x = (uint64_t)(uintptr_t)key;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
