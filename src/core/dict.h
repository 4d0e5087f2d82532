/* dict: the hash table behind the keyspace, hashes, sets and most server
 * tables. Chained buckets in power-of-two tables, with two tables during an
 * incremental rehash so growing never stalls the event loop: every lookup or
 * update moves one bucket, and the server cron moves more in time slices.
 * Keys are hashed with seeded SipHash-1-2. Entries never move in memory once
 * added (rehash only relinks them), so other structures may keep pointers. */
#ifndef CORE_DICT_H
#define CORE_DICT_H

#include <stddef.h>
#include <stdint.h>

#define DICT_OK 0
#define DICT_ERR 1

#define DICT_HT_INITIAL_EXP 2
#define DICT_HT_INITIAL_SIZE (1UL << DICT_HT_INITIAL_EXP)
/* Largest entryMetaBytes a dictType may ask for. */
#define DICT_MAX_ENTRY_META_BYTES 56

typedef struct dict dict;
typedef struct dictEntry dictEntry; /* opaque: use the accessors below */

typedef struct dictType {
    uint64_t (*hashFunction)(const void *key);
    void *(*keyDup)(dict *d, const void *key);                       /* may be NULL */
    int (*keyCompare)(dict *d, const void *key1, const void *key2);  /* non-zero when equal; NULL -> pointer equality */
    void (*keyDestructor)(dict *d, void *key);                       /* may be NULL */
    void (*valDestructor)(dict *d, void *obj);                       /* may be NULL */
    int (*expandAllowed)(size_t moreMem, double usedRatio);          /* may be NULL */
    size_t entryMetaBytes; /* zeroed per-entry metadata, reachable with dictEntryMeta() */
    /* Keys are sds and are COPIED into the entry itself (one allocation).
     * dictGetKey returns the embedded sds; the caller keeps ownership of the key
     * it passed; keyDup/keyDestructor are unused. */
    int embedKey;
    /* Item mode: when set, the dict stores the caller's items themselves,
     * each holding its own key (returned by itemKey), with no entry allocated
     * for an item alone in its bucket. Every dictEntry* this dict hands out
     * (dictFind, dictNext, dictUnlink, sampling, scan callbacks) IS the item:
     * use it as such, never with dictGetKey/dictGetVal. Items are added with
     * dictAddItem, replaced with dictReplaceItem and destroyed by valDestructor;
     * they must be at least 2-byte aligned (bit 0 tags them in the buckets).
     * embedKey, entryMetaBytes and keyDup must be unset. */
    const void *(*itemKey)(const void *item);
} dictType;

/* Iterators may live on the stack: dictInitIterator / dictInitSafeIterator,
 * then dictResetIterator when done. Unsafe iterators assert (by fingerprint)
 * that the dict was not modified; safe ones pause rehashing and allow deleting
 * the entry just returned. The fields are private. */
typedef struct dictIterator {
    dict *d;
    long index;
    int table, safe;
    dictEntry *entry, *nextEntry;
    unsigned long long fingerprint;
} dictIterator;

typedef void(dictScanFunction)(void *privdata, const dictEntry *de);

/* Lifecycle and sizing. */
dict *dictCreate(dictType *type);
void dictRelease(dict *d);
/* Removes every entry; callback (may be NULL) is called every 65536 buckets
 * so a long emptying can keep serving events. */
void dictEmpty(dict *d, void(callback)(dict *));
int dictExpand(dict *d, unsigned long size);    /* aborts on allocation failure */
int dictTryExpand(dict *d, unsigned long size); /* DICT_ERR if size is absurd */
int dictResize(dict *d);                        /* shrink to fit (minimum 4 slots) */
int dictNeedsResize(const dict *d);             /* 1 when less than 10% full: call dictResize */
void dictSetResizeEnabled(int enable);          /* disabled while a child process exists */
int dictResizeEnabled(void);
/* Who frees a table of DICT_BIG_TABLE_BYTES or more that a finished rehash
 * left behind (zfree here by default). The allocator gives such a block's
 * pages back as it is freed (jemalloc, from 8 MB: 4 ms for 8 MB, 13 ms for
 * 128 MB on a VM), so the server hands it to its background thread instead. */
#define DICT_BIG_TABLE_BYTES (4UL << 20)
void dictSetBigTableFree(void (*free_fn)(void *table));
int dictRehash(dict *d, int n);                 /* n bucket moves; 1 if more rehashing remains */
int dictRehashMicroseconds(dict *d, long long us); /* rehash in small steps for about us; returns buckets stepped over */
int dictIsRehashing(const dict *d);
void dictPauseRehashing(dict *d);
void dictResumeRehashing(dict *d);

/* Updates. Keys not embedded are stored as passed (through keyDup if set). */
int dictAdd(dict *d, void *key, void *val);  /* DICT_OK, or DICT_ERR if the key exists */
/* Adds an entry with a NULL value and returns it, or returns NULL and sets
 * *existing (if not NULL) when the key is already there. */
dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing);
dictEntry *dictAddOrFind(dict *d, void *key);
int dictReplace(dict *d, void *key, void *val); /* 1 added, 0 replaced (old value destroyed after) */
int dictDelete(dict *d, const void *key);       /* DICT_OK or DICT_ERR (not found) */
/* Item mode: adds item (DICT_ERR when its key is there already); puts item,
 * which has old's key, where old is (DICT_ERR, nothing stored, when old is
 * not in the table); no destructor runs. */
int dictAddItem(dict *d, void *item);
int dictReplaceItem(dict *d, void *old, void *item);
/* Removes the entry from the table without freeing it, so the caller can use
 * it first; then dictFreeUnlinkedEntry (runs the destructors). */
dictEntry *dictUnlink(dict *d, const void *key);
/* Item mode: the same for an item known to be in the table, found by its
 * address along its key's chain (no other item's key is read). */
dictEntry *dictUnlinkItem(dict *d, void *item);
void dictFreeUnlinkedEntry(dict *d, dictEntry *he);

/* Lookups. */
dictEntry *dictFind(dict *d, const void *key);
/* Prefetching, hints only (nothing changes, nothing read can fail), for a
 * table keyed by sds (dictSdsHash), the keys given as bytes: the buckets of
 * all n keys are asked for first, then what the buckets lead to (the entry,
 * or in item mode the item), then with `values` what the first entries'
 * values point at (a hash field's value; an item is its own value); the
 * cache misses of all overlap instead of coming one after another. At most
 * DICT_PREFETCH_MAX keys are taken. */
#define DICT_PREFETCH_MAX 64
void dictPrefetchSdsKeys(const dict *d, const char *const *keys, const size_t *lens, int n, int values);
/* Only the bucket(s) of one key: for a caller that has other work to do
 * before the lookup, so the miss overlaps that work (nothing is read here). */
void dictPrefetchSdsKeyBucket(const dict *d, const char *key, size_t len);
void *dictFetchValue(dict *d, const void *key);
uint64_t dictGetHash(dict *d, const void *key);

/* Iteration and sampling. */
dictIterator *dictGetIterator(dict *d);
dictIterator *dictGetSafeIterator(dict *d);
void dictInitIterator(dictIterator *iter, dict *d);
void dictInitSafeIterator(dictIterator *iter, dict *d);
dictEntry *dictNext(dictIterator *iter);
void dictResetIterator(dictIterator *iter);   /* for iterators initialised in place */
void dictReleaseIterator(dictIterator *iter); /* for dictGet*Iterator */
dictEntry *dictGetRandomKey(dict *d);
dictEntry *dictGetFairRandomKey(dict *d);
unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count);
/* Reverse-binary cursor scan: start with 0, call again with the returned cursor
 * until it is 0. Every element present for the whole scan is reported at least
 * once, even across rehashing and resizes (some may be reported twice). */
unsigned long dictScan(dict *d, unsigned long v, dictScanFunction *fn, void *privdata);

/* Entry accessors. */
void *dictGetKey(const dictEntry *de);
void *dictGetVal(const dictEntry *de);
void dictSetVal(dict *d, dictEntry *de, void *val); /* no destructor call; runs no dup */
int64_t dictGetSignedIntegerVal(const dictEntry *de);
uint64_t dictGetUnsignedIntegerVal(const dictEntry *de);
double dictGetDoubleVal(const dictEntry *de);
double *dictGetDoubleValPtr(dictEntry *de);
void dictSetSignedIntegerVal(dictEntry *de, int64_t val);
void dictSetUnsignedIntegerVal(dictEntry *de, uint64_t val);
void dictSetDoubleVal(dictEntry *de, double val);
int64_t dictIncrSignedIntegerVal(dictEntry *de, int64_t by); /* returns the new value */
void *dictEntryMeta(dictEntry *de);
dictEntry *dictEntryNext(const dictEntry *de); /* next in the same bucket chain */

/* Dict accessors. */
unsigned long dictSize(const dict *d);
unsigned long dictSlots(const dict *d);
dictType *dictGetType(dict *d);
size_t dictMemUsage(const dict *d);
size_t dictEntryMemUsage(const dict *d, const dictEntry *de);
/* Human-readable table statistics (for DEBUG HTSTATS); returns bytes written. */
size_t dictGetStats(char *buf, size_t bufsize, dict *d);

/* For other tables built on dict's plan (data/packset.c: power-of-two
 * tables, two while rehashing, exp -1 for a table that is not there): the
 * same sizing rules, sampling PRNG, SCAN cursor and DEBUG HTSTATS text. */
signed char dictExpForSize(unsigned long size);             /* smallest 2^exp >= size, at least the initial */
int dictGrowDue(unsigned long used, unsigned long size);     /* a table of size holding used must grow */
int dictShrinkDue(unsigned long used, unsigned long slots);  /* ... may shrink (under 10% full, resizing on) */
uint64_t dictRandom(void);
/* One SCAN step from cursor v: visits the buckets (table, index) it covers
 * and returns the next cursor. */
typedef void dictScanVisitFn(void *ctx, int table, unsigned long idx);
unsigned long dictScanCursor(unsigned long v, const signed char exp[2], dictScanVisitFn *visit, void *ctx);
/* Sampling (dictGetSomeKeys' walk): visits buckets from a random point,
 * (table, index), until count elements were seen or 10 x count steps. visit
 * samples a bucket's elements, the k-th of them into the slot
 * dictSampleSlot(stored + k, count) gives (-1: not kept; past count the
 * slots are drawn, so the end of a long bucket is reachable too), and
 * returns how many it holds. Returns the elements stored, at most count. */
typedef unsigned long dictSampleVisitFn(void *ctx, int table, unsigned long idx, unsigned long stored);
unsigned int dictSampleWalk(const signed char exp[2], long rehashidx, unsigned int count, dictSampleVisitFn *visit,
                            void *ctx);
long dictSampleSlot(unsigned long seen, unsigned int count);
/* A bucket drawn uniformly (dictGetRandomKey's draw): its index, and in
 * *table which table; while rehashing, none of ht[0]'s already moved ones. */
unsigned long dictRandomBucket(const signed char exp[2], long rehashidx, int *table);
typedef unsigned long dictChainLenFn(const void *ctx, int table, unsigned long idx);
size_t dictFormatStats(char *buf, size_t bufsize, const signed char exp[2], const unsigned long used[2],
                       dictChainLenFn *chainLen, const void *ctx);

/* Hashing. The seed is set once at start-up, before any dict is filled. */
void dictSetHashFunctionSeed(const uint8_t seed[16]);
const uint8_t *dictGetHashFunctionSeed(void);
uint64_t dictGenHashFunction(const void *key, size_t len);
uint64_t dictGenCaseHashFunction(const unsigned char *buf, size_t len);

/* Ready-made dictType callbacks. */
uint64_t dictSdsHash(const void *key);
uint64_t dictSdsCaseHash(const void *key);
int dictSdsKeyCompare(dict *d, const void *a, const void *b);
int dictSdsKeyCaseCompare(dict *d, const void *a, const void *b);
void dictSdsDestructor(dict *d, void *val);
uint64_t dictCStrHash(const void *key);
uint64_t dictCStrCaseHash(const void *key);
int dictCStrKeyCompare(dict *d, const void *a, const void *b);
int dictCStrKeyCaseCompare(dict *d, const void *a, const void *b);
/* For tables keyed by the pointer itself, or by an integer stored as one
 * (keyCompare NULL): mixes all its bits into the low ones the buckets are
 * chosen by (aligned pointers have their low bits all zero). */
uint64_t dictPtrHash(const void *key);

#endif
