/* Unit tests for src/core/dict.c and src/core/siphash.c: a random workload
 * checked against a plain array model across many rehashes and resizes,
 * embedded keys with metadata, iterators, scan coverage under resizing,
 * sampling, and the hash function itself against the SipHash paper. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dict.h"
#include "core/sds.h"
#include "core/siphash.h"
#include "core/zmalloc.h"
#include "testhelp.h"

static sds keyFor(long i) { return sdscatprintf(sdsempty(), "key:%ld", i); }

/* Values are heap longs so the destructor can be checked. */
static long valuesFreed;
static void freeLongVal(dict *d, void *val) {
    (void)d;
    valuesFreed++;
    zfree(val);
}
static long *newLong(long v) {
    long *p = zmalloc(sizeof(long));
    *p = v;
    return p;
}

static dictType sdsLongType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = freeLongVal,
};

static void testSiphash(void) {
    TEST("siphash");
    uint8_t key[16], msg[64];
    for (int i = 0; i < 16; i++) key[i] = (uint8_t)i;
    for (int i = 0; i < 64; i++) msg[i] = (uint8_t)i;
    /* Test vectors of the SipHash paper / reference code (SipHash-2-4). */
    CHECK(siphash_rounds(msg, 0, key, 2, 4) == 0x726fdb47dd0e0e31ULL);
    CHECK(siphash_rounds(msg, 15, key, 2, 4) == 0xa129ca6149be45e5ULL);
    CHECK(siphash_rounds(msg, 1, key, 2, 4) == 0x74f839c593dc67fdULL);
    CHECK(siphash_rounds(msg, 8, key, 2, 4) == 0x93f5f5799a932462ULL);
    /* The 1-2 variant is the same function with fewer rounds. */
    for (size_t len = 0; len < 40; len++) CHECK(siphash(msg, len, key) == siphash_rounds(msg, len, key, 1, 2));
    CHECK(siphash(msg, 15, key) != siphash_rounds(msg, 15, key, 2, 4));
    CHECK(siphash_nocase((const uint8_t *)"HeLLo WoRLD 123!", 16, key) ==
          siphash((const uint8_t *)"hello world 123!", 16, key));
    CHECK(siphash_nocase((const uint8_t *)"ABCDEFGHIJK", 11, key) != siphash((const uint8_t *)"ABCDEFGHIJK", 11, key));

    TEST("hash seed");
    uint8_t seed[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    uint8_t zero[16] = {0};
    dictSetHashFunctionSeed(zero);
    uint64_t h0 = dictGenHashFunction("foo", 3);
    dictSetHashFunctionSeed(seed);
    CHECK(memcmp(dictGetHashFunctionSeed(), seed, 16) == 0);
    CHECK(dictGenHashFunction("foo", 3) != h0);
    CHECK(dictGenHashFunction("foo", 3) == siphash((const uint8_t *)"foo", 3, seed));
    CHECK(dictGenCaseHashFunction((const unsigned char *)"FoO", 3) == dictGenHashFunction("foo", 3));
    sds s = sdsnew("Bar");
    CHECK(dictSdsHash(s) == dictGenHashFunction("Bar", 3));
    CHECK(dictSdsCaseHash(s) == dictGenHashFunction("bar", 3));
    CHECK(dictCStrHash("Bar") == dictSdsHash(s));
    CHECK(dictCStrCaseHash("BAR") == dictSdsCaseHash(s));
    sdsfree(s);
}

/* Random adds, replaces, deletes and finds against an array model. */
/* One key through dictPrefetchSdsKeys, values included. */
static void prefetchKey(dict *d, sds key) {
    const char *k = key;
    size_t len = sdslen(key);
    dictPrefetchSdsKeys(d, &k, &len, 1, 1);
}

static void testModel(void) {
    TEST("model");
    enum { N = 5000, OPS = 200000 };
    static long model[N]; /* -1 absent, else value */
    for (int i = 0; i < N; i++) model[i] = -1;
    dict *d = dictCreate(&sdsLongType);
    long present = 0, mismatches = 0;
    valuesFreed = 0;
    long expectFreed = 0;
    for (long op = 0; op < OPS; op++) {
        long i = (long)(testNextRandom() % N);
        sds key = keyFor(i);
        /* Bias towards growth in the first half, shrinkage in the second, so
         * the table grows and shrinks several times. */
        int phase = (op / 25000) % 2;
        unsigned r = (unsigned)(testNextRandom() % 100);
        /* Prefetching is a hint in every state of the table (growing,
         * rehashing, shrinking): nothing changes. */
        prefetchKey(d, key);
        if (r < (phase ? 30u : 60u)) {
            long v = (long)(testNextRandom() % 1000000);
            int added = dictReplace(d, key, newLong(v));
            if (added != (model[i] == -1)) mismatches++;
            if (added) {
                present++;
                key = NULL; /* now owned by the dict */
            } else {
                expectFreed++;
            }
            model[i] = v;
        } else if (r < 95u) {
            int rc = dictDelete(d, key);
            if ((rc == DICT_OK) != (model[i] != -1)) mismatches++;
            if (rc == DICT_OK) {
                present--;
                expectFreed++;
            }
            model[i] = -1;
        } else {
            long *v = dictFetchValue(d, key);
            if ((v == NULL) != (model[i] == -1) || (v && *v != model[i])) mismatches++;
        }
        sdsfree(key);
        if (op % 997 == 0 && dictNeedsResize(d)) dictResize(d);
        if (op % 5003 == 0) dictRehashMicroseconds(d, 1000);
        if ((unsigned long)present != dictSize(d)) mismatches++;
    }
    CHECK(mismatches == 0);
    CHECK(valuesFreed == expectFreed);
    /* Every model entry agrees. */
    long bad = 0;
    for (long i = 0; i < N; i++) {
        sds key = keyFor(i);
        long *v = dictFetchValue(d, key);
        if ((v == NULL) != (model[i] == -1) || (v && *v != model[i])) bad++;
        sdsfree(key);
    }
    CHECK(bad == 0);
    CHECK(dictSize(d) == (unsigned long)present);
    CHECK(dictMemUsage(d) >= dictSlots(d) * sizeof(void *));
    char stats[4096];
    CHECK(dictGetStats(stats, sizeof(stats), d) > 0 && strstr(stats, "table size") != NULL);
    dictRelease(d);
    CHECK(valuesFreed == expectFreed + present);
}

static void testBasics(void) {
    TEST("basics");
    dict *d = dictCreate(&sdsLongType);
    CHECK(dictSize(d) == 0 && dictSlots(d) == 0);
    CHECK(dictFind(d, "x") == NULL); /* empty dict: no hashing at all */
    CHECK(dictGetRandomKey(d) == NULL);
    CHECK(dictGetType(d) == &sdsLongType);
    sds k = sdsnew("a");
    CHECK(dictAdd(d, k, newLong(1)) == DICT_OK);
    sds k2 = sdsnew("a");
    long *two = newLong(2);
    CHECK(dictAdd(d, k2, two) == DICT_ERR);
    zfree(two);
    /* DICT_ERR leaves the value with us. */
    dictEntry *existing = NULL;
    CHECK(dictAddRaw(d, k2, &existing) == NULL && existing != NULL && dictGetKey(existing) == k);
    CHECK(dictAddOrFind(d, k2) == existing);
    CHECK(dictSlots(d) == DICT_HT_INITIAL_SIZE);

    dictEntry *de = dictAddOrFind(d, sdsnew("b"));
    CHECK(de != NULL && dictGetVal(de) == NULL);
    dictSetVal(d, de, newLong(5));
    sds kb = sdsnew("b");
    CHECK(*(long *)dictFetchValue(d, kb) == 5);

    TEST("unlink");
    dictEntry *u = dictUnlink(d, kb);
    CHECK(u != NULL && dictSize(d) == 1 && dictFind(d, kb) == NULL);
    CHECK(*(long *)dictGetVal(u) == 5);
    valuesFreed = 0;
    dictFreeUnlinkedEntry(d, u);
    dictFreeUnlinkedEntry(d, NULL);
    CHECK(valuesFreed == 1);
    CHECK(dictUnlink(d, kb) == NULL);
    CHECK(dictDelete(d, kb) == DICT_ERR);
    sdsfree(kb);

    TEST("empty");
    for (int i = 0; i < 1000; i++) dictAdd(d, keyFor(i), newLong(i));
    CHECK(dictSize(d) == 1001);
    valuesFreed = 0;
    dictEmpty(d, NULL);
    CHECK(dictSize(d) == 0 && dictSlots(d) == 0 && valuesFreed == 1001);
    CHECK(dictFind(d, k2) == NULL);
    CHECK(dictAdd(d, sdsdup(k2), newLong(9)) == DICT_OK && dictSize(d) == 1);
    sdsfree(k2);
    dictRelease(d);
}

/* dictReplace must set the new value before destroying the old one. */
static dict *replaceDict;
static sds replaceKey;
static int replaceOrderOk;
static void checkReplaceOrder(dict *d, void *val) {
    (void)d;
    replaceOrderOk = dictFetchValue(replaceDict, replaceKey) != val;
    zfree(val);
}

static void testReplace(void) {
    TEST("replace");
    dictType t = sdsLongType;
    t.valDestructor = checkReplaceOrder;
    t.keyDestructor = NULL; /* keys are ours */
    replaceDict = dictCreate(&t);
    replaceKey = sdsnew("k");
    CHECK(dictReplace(replaceDict, replaceKey, newLong(1)) == 1);
    replaceOrderOk = 0;
    CHECK(dictReplace(replaceDict, replaceKey, newLong(2)) == 0);
    CHECK(replaceOrderOk);
    CHECK(*(long *)dictFetchValue(replaceDict, replaceKey) == 2);
    dictRelease(replaceDict);
    sdsfree(replaceKey);
}

static void testNumericValues(void) {
    TEST("numeric values");
    dictType t = {.hashFunction = dictCStrHash, .keyCompare = dictCStrKeyCompare};
    dict *d = dictCreate(&t);
    dictEntry *de = dictAddRaw(d, "n", NULL);
    CHECK(dictGetSignedIntegerVal(de) == 0);
    dictSetSignedIntegerVal(de, -5);
    CHECK(dictGetSignedIntegerVal(de) == -5);
    CHECK(dictIncrSignedIntegerVal(de, 7) == 2);
    dictSetUnsignedIntegerVal(de, UINT64_MAX);
    CHECK(dictGetUnsignedIntegerVal(de) == UINT64_MAX);
    dictSetDoubleVal(de, 1.5);
    CHECK(dictGetDoubleVal(de) == 1.5);
    *dictGetDoubleValPtr(de) += 1;
    CHECK(dictGetDoubleVal(de) == 2.5);
    /* A C-string key is found by content, not by pointer. */
    char other[] = "n";
    CHECK(dictFind(d, other) == de);
    dictRelease(d);

    TEST("case-insensitive cstr (command table)");
    dictType ct = {.hashFunction = dictCStrCaseHash, .keyCompare = dictCStrKeyCaseCompare};
    d = dictCreate(&ct);
    dictAdd(d, "get", (void *)1);
    dictAdd(d, "set", (void *)2);
    CHECK(dictFetchValue(d, "GET") == (void *)1);
    CHECK(dictFetchValue(d, "sEt") == (void *)2);
    CHECK(dictAdd(d, "GET", (void *)3) == DICT_ERR);
    dictRelease(d);

    TEST("sds nocase");
    dictType st = {.hashFunction = dictSdsCaseHash, .keyCompare = dictSdsKeyCaseCompare,
                   .keyDestructor = dictSdsDestructor};
    d = dictCreate(&st);
    dictAdd(d, sdsnew("MaxMemory"), (void *)7);
    sds q = sdsnew("maxmemory");
    CHECK(dictFetchValue(d, q) == (void *)7);
    sdsfree(q);
    q = sdsnew("maxmemor");
    CHECK(dictFetchValue(d, q) == NULL);
    sdsfree(q);
    dictRelease(d);
}

/* Embedded keys with metadata. */
typedef struct {
    uint32_t a;
    uint64_t b;
} meta12; /* 12+ bytes of metadata: padded by the dict */

static void testEmbedded(void) {
    TEST("embedded keys");
    dictType t = {.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare,
                  .entryMetaBytes = sizeof(meta12), .embedKey = 1};
    dict *d = dictCreate(&t);
    enum { N = 20000 };
    static dictEntry *entries[N];
    long bad = 0;
    size_t special[] = {0, 1, 31, 32, 255, 256, 70000};
    for (long i = 0; i < N; i++) {
        sds key;
        if (i < (long)(sizeof(special) / sizeof(special[0]))) {
            key = sdsnewlen(NULL, special[i]);
            memset(key, 'a' + (int)i, special[i]);
        } else {
            key = keyFor(i);
        }
        dictEntry *de = dictAddRaw(d, key, NULL);
        if (de == NULL) {
            bad++;
            sdsfree(key);
            continue;
        }
        meta12 *m = dictEntryMeta(de);
        static const meta12 zeroMeta;
        if (memcmp(m, &zeroMeta, sizeof(zeroMeta)) != 0) bad++;
        m->a = (uint32_t)i;
        m->b = (uint64_t)i * 3;
        dictSetSignedIntegerVal(de, i);
        sds stored = dictGetKey(de);
        if (stored == key || sdscmp(stored, key) != 0) bad++;
        if ((void *)stored < (void *)de || (char *)stored > (char *)de + dictEntryMemUsage(d, de)) bad++;
        entries[i] = de;
        sdsfree(key); /* the caller keeps ownership; the dict has its own copy */
    }
    CHECK(bad == 0);
    CHECK(dictSize(d) == N);
    /* Let any pending rehash finish, then check entries did not move. */
    while (dictRehash(d, 1000)) {
    }
    bad = 0;
    for (long i = 0; i < N; i++) {
        sds key = sdsdup(dictGetKey(entries[i]));
        dictEntry *de = dictFind(d, key);
        meta12 *m = de ? dictEntryMeta(de) : NULL;
        if (de != entries[i] || m->a != (uint32_t)i || m->b != (uint64_t)i * 3 ||
            dictGetSignedIntegerVal(de) != i)
            bad++;
        sdsfree(key);
    }
    CHECK(bad == 0);
    sds k70000 = sdsdup(dictGetKey(entries[6]));
    CHECK(sdslen(k70000) == 70000);
    CHECK(dictEntryMemUsage(d, entries[6]) > 70000);
    CHECK(dictDelete(d, k70000) == DICT_OK);
    CHECK(dictFind(d, k70000) == NULL);
    sdsfree(k70000);
    /* Delete half, shrink, and check the rest again. */
    for (long i = 7; i < N; i += 2) {
        sds key = keyFor(i);
        if (dictDelete(d, key) != DICT_OK) bad++;
        sdsfree(key);
    }
    for (int round = 0; round < 3; round++) {
        if (dictNeedsResize(d)) dictResize(d);
        while (dictRehash(d, 1000)) {
        }
    }
    for (long i = 8; i < N; i += 2) {
        sds key = keyFor(i);
        if (dictFind(d, key) != entries[i]) bad++;
        sdsfree(key);
    }
    CHECK(bad == 0);
    dictRelease(d);

    TEST("metadata without embedding");
    dictType t2 = {.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare,
                   .keyDestructor = dictSdsDestructor, .entryMetaBytes = DICT_MAX_ENTRY_META_BYTES};
    d = dictCreate(&t2);
    bad = 0;
    for (long i = 0; i < 1000; i++) {
        sds key = keyFor(i);
        dictEntry *de = dictAddRaw(d, key, NULL);
        unsigned char *m = dictEntryMeta(de);
        for (int j = 0; j < DICT_MAX_ENTRY_META_BYTES; j++) {
            if (m[j] != 0) bad++;
            m[j] = 0xEE;
        }
        if (dictGetKey(de) != key) bad++; /* not embedded: the very pointer we gave */
    }
    for (long i = 0; i < 1000; i++) {
        sds key = keyFor(i);
        dictEntry *de = dictFind(d, key);
        if (!de || sdscmp(dictGetKey(de), key) != 0) bad++;
        sdsfree(key);
    }
    CHECK(bad == 0);
    dictRelease(d);
}

static void testIterators(void) {
    TEST("iterator");
    dict *d = dictCreate(&sdsLongType);
    enum { N = 3000 };
    for (long i = 0; i < N; i++) dictAdd(d, keyFor(i), newLong(i));
    /* Start from a rehashing state so both tables are walked. */
    dictExpand(d, 100000);
    CHECK(dictIsRehashing(d));
    static char seen[N];
    memset(seen, 0, sizeof(seen));
    long count = 0, dups = 0;
    dictIterator *it = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(it)) != NULL) {
        long v = *(long *)dictGetVal(de);
        if (seen[v]) dups++;
        seen[v] = 1;
        count++;
    }
    dictReleaseIterator(it);
    CHECK(count == N && dups == 0);

    TEST("safe iterator with delete");
    memset(seen, 0, sizeof(seen));
    count = dups = 0;
    dictIterator sit;
    dictInitSafeIterator(&sit, d);
    while ((de = dictNext(&sit)) != NULL) {
        long v = *(long *)dictGetVal(de);
        if (seen[v]) dups++;
        seen[v] = 1;
        count++;
        /* Lookups during safe iteration must not rehash. */
        sds probe = keyFor(v);
        if (dictFind(d, probe) != de) dups++;
        if (v % 2 == 0) dictDelete(d, probe);
        sdsfree(probe);
    }
    dictResetIterator(&sit);
    CHECK(count == N && dups == 0);
    CHECK(dictSize(d) == N / 2);
    /* Rehashing resumes afterwards. */
    dictRehashMicroseconds(d, 1000000);
    CHECK(!dictIsRehashing(d));

    TEST("stack iterator");
    dictIterator sti;
    dictInitIterator(&sti, d);
    count = 0;
    while ((de = dictNext(&sti)) != NULL) count++;
    dictResetIterator(&sti);
    dictResetIterator(&sti); /* harmless twice */
    CHECK(count == N / 2);
    dictRelease(d);
}

struct scanState {
    char *seen;
    long calls;
};

static void scanCallback(void *privdata, const dictEntry *de) {
    struct scanState *st = privdata;
    st->seen[*(long *)dictGetVal(de)] = 1;
    st->calls++;
}

static void testScan(void) {
    TEST("scan full coverage");
    enum { STABLE = 2000, EXTRA = 60000 };
    static char seen[STABLE + EXTRA];
    for (int variant = 0; variant < 3; variant++) {
        dict *d = dictCreate(&sdsLongType);
        for (long i = 0; i < STABLE; i++) dictAdd(d, keyFor(i), newLong(i));
        memset(seen, 0, sizeof(seen));
        struct scanState st = {seen, 0};
        unsigned long cursor = 0;
        long step = 0, extraAdded = STABLE;
        do {
            cursor = dictScan(d, cursor, scanCallback, &st);
            step++;
            if (variant == 0) {
                /* Grow during the scan (many expansions and rehashes). */
                for (int j = 0; j < 50 && extraAdded < STABLE + EXTRA; j++, extraAdded++)
                    dictAdd(d, keyFor(extraAdded), newLong(extraAdded));
            } else if (variant == 1) {
                /* Grow first, then shrink while scanning. */
                if (step == 3)
                    for (; extraAdded < STABLE + EXTRA; extraAdded++) dictAdd(d, keyFor(extraAdded), newLong(extraAdded));
                if (step > 10 && extraAdded > STABLE) {
                    for (int j = 0; j < 500 && extraAdded > STABLE; j++) {
                        sds k = keyFor(--extraAdded);
                        dictDelete(d, k);
                        sdsfree(k);
                    }
                    if (dictNeedsResize(d)) dictResize(d);
                }
            } else {
                /* Mixed: random adds/deletes of extra keys plus rehash slices. */
                long k = STABLE + (long)(testNextRandom() % EXTRA);
                sds key = keyFor(k);
                if (testNextRandom() % 2) {
                    if (dictReplace(d, key, newLong(k)) == 0) sdsfree(key); /* key kept only when added */
                } else {
                    dictDelete(d, key);
                    sdsfree(key);
                }
                if (step % 7 == 0) dictRehash(d, 3);
                if (step % 50 == 0 && dictNeedsResize(d)) dictResize(d);
            }
        } while (cursor != 0);
        long missing = 0;
        for (long i = 0; i < STABLE; i++)
            if (!seen[i]) missing++;
        CHECK(missing == 0);
        CHECK(st.calls >= STABLE);
        dictRelease(d);
    }

    TEST("scan empty");
    dict *d = dictCreate(&sdsLongType);
    struct scanState st = {seen, 0};
    CHECK(dictScan(d, 0, scanCallback, &st) == 0 && st.calls == 0);
    dictRelease(d);
}

static void testRandom(void) {
    TEST("random keys");
    dict *d = dictCreate(&sdsLongType);
    for (long i = 0; i < 3; i++) dictAdd(d, keyFor(i), newLong(i));
    int hits[3] = {0, 0, 0};
    for (int i = 0; i < 3000; i++) hits[*(long *)dictGetVal(dictGetRandomKey(d))]++;
    CHECK(hits[0] > 500 && hits[1] > 500 && hits[2] > 500);
    int fair[3] = {0, 0, 0};
    for (int i = 0; i < 3000; i++) fair[*(long *)dictGetVal(dictGetFairRandomKey(d))]++;
    CHECK(fair[0] > 500 && fair[1] > 500 && fair[2] > 500);

    for (long i = 3; i < 10000; i++) dictAdd(d, keyFor(i), newLong(i));
    dictExpand(d, 1 << 16); /* sample while rehashing as well */
    long bad = 0;
    dictEntry *sample[20];
    for (int round = 0; round < 200; round++) {
        dictEntry *de = dictGetRandomKey(d);
        sds k = keyFor(*(long *)dictGetVal(de));
        if (dictFind(d, k) != de) bad++;
        sdsfree(k);
        unsigned int n = dictGetSomeKeys(d, sample, 20);
        if (n == 0 || n > 20) bad++;
        for (unsigned j = 0; j < n; j++) {
            k = keyFor(*(long *)dictGetVal(sample[j]));
            if (dictFind(d, k) != sample[j]) bad++;
            sdsfree(k);
        }
    }
    CHECK(bad == 0);
    dictEntry *few[5];
    dict *small = dictCreate(&sdsLongType);
    dictAdd(small, keyFor(1), newLong(1));
    CHECK(dictGetSomeKeys(small, few, 5) == 1);
    dictRelease(small);
    dictRelease(d);
}

static void testResizePolicy(void) {
    TEST("resize disabled");
    dict *d = dictCreate(&sdsLongType);
    for (long i = 0; i < 16; i++) dictAdd(d, keyFor(i), newLong(i));
    while (dictRehash(d, 100)) {
    }
    unsigned long slots = dictSlots(d);
    CHECK(slots == 16);
    dictSetResizeEnabled(0);
    /* Up to 5 elements per slot the table keeps its size... */
    long i = 16;
    for (; i <= 16 * 5; i++) dictAdd(d, keyFor(i), newLong(i));
    CHECK(dictSlots(d) == slots);
    CHECK(dictResize(d) == DICT_ERR);
    /* ...beyond that growth is forced. */
    for (; i < 16 * 6 + 2; i++) dictAdd(d, keyFor(i), newLong(i));
    CHECK(dictSlots(d) > slots);
    dictSetResizeEnabled(1);

    TEST("shrink");
    while (dictRehash(d, 100)) {
    }
    for (long j = 0; j < i - 3; j++) {
        sds k = keyFor(j);
        dictDelete(d, k);
        sdsfree(k);
    }
    CHECK(dictNeedsResize(d));
    CHECK(dictResize(d) == DICT_OK);
    while (dictRehash(d, 100)) {
    }
    CHECK(dictSlots(d) == DICT_HT_INITIAL_SIZE && dictSize(d) == 3);
    CHECK(!dictNeedsResize(d));
    CHECK(dictExpand(d, 2) == DICT_ERR); /* below the element count / same size */
    CHECK(dictTryExpand(d, 1000) == DICT_OK);
    CHECK(dictTryExpand(d, ~0UL) == DICT_ERR);
    dictRelease(d);
}

/* expandAllowed can veto growth (used by the server near maxmemory). */
static int denyExpand(size_t moreMem, double usedRatio) {
    (void)moreMem;
    return usedRatio > 3; /* only allow when very full */
}

static void testExpandAllowed(void) {
    TEST("expandAllowed");
    dictType t = sdsLongType;
    t.expandAllowed = denyExpand;
    dict *d = dictCreate(&t);
    for (long i = 0; i < 4; i++) dictAdd(d, keyFor(i), newLong(i));
    CHECK(dictSlots(d) == 4);
    for (long i = 4; i < 13; i++) dictAdd(d, keyFor(i), newLong(i));
    CHECK(dictSlots(d) == 4); /* 12/4 == 3: still denied */
    dictAdd(d, keyFor(13), newLong(13));
    dictAdd(d, keyFor(14), newLong(14));
    CHECK(dictSlots(d) > 4);
    dictRelease(d);
}

/* Item mode: the items carry their keys; the dict must behave as a set of
 * them through adds, deletes, swaps, rehashes and resizes, and hand out the
 * items themselves everywhere. */
typedef struct testItem {
    long id, val;
    sds key;
} testItem;
static long itemsFreed;
static const void *testItemKey(const void *item) { return ((const testItem *)item)->key; }
static void freeTestItem(dict *d, void *item) {
    (void)d;
    itemsFreed++;
    sdsfree(((testItem *)item)->key);
    zfree(item);
}
/* Key comparisons made: dictUnlinkItem must make none. */
static long itemKeyCompares;
static int countingSdsKeyCompare(dict *d, const void *a, const void *b) {
    itemKeyCompares++;
    return dictSdsKeyCompare(d, a, b);
}
static dictType itemType = {
    .hashFunction = dictSdsHash,
    .keyCompare = countingSdsKeyCompare,
    .valDestructor = freeTestItem,
    .itemKey = testItemKey,
};
static testItem *newItem(long id, long val) {
    testItem *it = zmalloc(sizeof(*it));
    it->id = id;
    it->val = val;
    it->key = keyFor(id);
    return it;
}

static void itemScanCallback(void *privdata, const dictEntry *de) {
    struct scanState *st = privdata;
    const testItem *it = (const testItem *)de;
    if (it->id >= 0 && it->id < 62000) st->seen[it->id] = 1;
    st->calls++;
}

static void testItems(void) {
    TEST("item mode model");
    enum { N = 5000, OPS = 200000 };
    static testItem *model[N];
    memset(model, 0, sizeof(model));
    dict *d = dictCreate(&itemType);
    sds nokey = keyFor(1);
    prefetchKey(d, nokey); /* no table yet */
    sdsfree(nokey);
    CHECK(dictSize(d) == 0 && dictSlots(d) == 0);
    long present = 0, mismatches = 0, expectFreed = 0;
    itemsFreed = 0;
    for (long op = 0; op < OPS; op++) {
        long i = (long)(testNextRandom() % N);
        sds key = keyFor(i);
        int phase = (op / 25000) % 2;
        unsigned r = (unsigned)(testNextRandom() % 100);
        prefetchKey(d, key); /* as in the model test; here buckets hold items or nodes */
        if (r < (phase ? 30u : 60u)) {
            testItem *it = newItem(i, (long)(testNextRandom() % 1000000));
            if (model[i]) {
                /* Replace: the old item comes back and is ours to free. */
                if (dictAddItem(d, it) != DICT_ERR) mismatches++;
                if (dictReplaceItem(d, model[i], it) != DICT_OK) mismatches++;
                freeTestItem(d, model[i]);
                expectFreed++;
            } else {
                if (dictAddItem(d, it) != DICT_OK) mismatches++;
                present++;
            }
            model[i] = it;
        } else if (r < 95u) {
            dictEntry *de;
            if (model[i] && (op & 1)) {
                /* By address: the item itself, and no key compared on its chain. */
                long compares = itemKeyCompares;
                de = dictUnlinkItem(d, model[i]);
                if (itemKeyCompares != compares) mismatches++;
            } else {
                de = dictUnlink(d, key);
            }
            if ((void *)de != (void *)model[i]) mismatches++;
            if (de) {
                dictFreeUnlinkedEntry(d, de);
                present--;
                expectFreed++;
            }
            model[i] = NULL;
        } else {
            if ((void *)dictFind(d, key) != (void *)model[i]) mismatches++;
        }
        sdsfree(key);
        if (op % 997 == 0 && dictNeedsResize(d)) dictResize(d);
        if (op % 5003 == 0) dictRehashMicroseconds(d, 1000);
        if ((unsigned long)present != dictSize(d)) mismatches++;
    }
    CHECK(mismatches == 0);
    CHECK(itemsFreed == expectFreed);
    long bad = 0;
    for (long i = 0; i < N; i++) {
        sds key = keyFor(i);
        if ((void *)dictFind(d, key) != (void *)model[i]) bad++;
        sdsfree(key);
    }
    CHECK(bad == 0);
    testItem *stray = newItem(N + 1, 0), *stray2 = newItem(N + 1, 1);
    CHECK(dictReplaceItem(d, stray, stray2) == DICT_ERR && dictFind(d, stray->key) == NULL);
    freeTestItem(d, stray);
    freeTestItem(d, stray2);
    itemsFreed -= 2;
    /* A safe iterator sees every item once and may delete what it returns. */
    dictIterator *di = dictGetSafeIterator(d);
    dictEntry *de;
    long seen = 0, deleted = 0;
    while ((de = dictNext(di)) != NULL) {
        testItem *it = (testItem *)de;
        if (model[it->id] != it) bad++;
        seen++;
        if (it->id % 3 == 0) {
            model[it->id] = NULL;
            dictDelete(d, it->key);
            deleted++;
        }
    }
    dictReleaseIterator(di);
    CHECK(bad == 0 && seen == present);
    present -= deleted;
    CHECK(dictSize(d) == (unsigned long)present);
    char stats[4096];
    CHECK(dictGetStats(stats, sizeof(stats), d) > 0 && strstr(stats, "table size") != NULL);
    CHECK(dictMemUsage(d) >= dictSlots(d) * sizeof(void *));
    /* Samples are items of the dict. */
    dictEntry *sample[20];
    for (int round = 0; round < 100 && present; round++) {
        testItem *it = (testItem *)dictGetFairRandomKey(d);
        if (!it || model[it->id] != it) bad++;
        unsigned n = dictGetSomeKeys(d, sample, 20);
        for (unsigned j = 0; j < n; j++)
            if (model[((testItem *)sample[j])->id] != (testItem *)sample[j]) bad++;
    }
    CHECK(bad == 0);
    itemsFreed = 0;
    dictRelease(d);
    CHECK(itemsFreed == present);

    TEST("item mode scan coverage while growing and shrinking");
    enum { STABLE = 2000, EXTRA = 60000 };
    static char seenv[STABLE + EXTRA];
    for (int variant = 0; variant < 2; variant++) {
        d = dictCreate(&itemType);
        for (long i = 0; i < STABLE; i++) dictAddItem(d, newItem(i, i));
        memset(seenv, 0, sizeof(seenv));
        struct scanState st = {seenv, 0};
        unsigned long cursor = 0;
        long step = 0, extra = STABLE;
        do {
            cursor = dictScan(d, cursor, itemScanCallback, &st);
            step++;
            if (variant == 0) {
                for (int j = 0; j < 50 && extra < STABLE + EXTRA; j++, extra++) dictAddItem(d, newItem(extra, extra));
            } else {
                if (step == 3)
                    for (; extra < STABLE + EXTRA; extra++) dictAddItem(d, newItem(extra, extra));
                if (step > 10 && extra > STABLE) {
                    for (int j = 0; j < 500 && extra > STABLE; j++) {
                        sds k = keyFor(--extra);
                        dictDelete(d, k);
                        sdsfree(k);
                    }
                    if (dictNeedsResize(d)) dictResize(d);
                }
            }
        } while (cursor != 0);
        long missing = 0;
        for (long i = 0; i < STABLE; i++)
            if (!seenv[i]) missing++;
        CHECK(missing == 0);
        dictEmpty(d, NULL);
        CHECK(dictSize(d) == 0);
        dictRelease(d);
    }
}

static void testPtrHash(void) {
    TEST("pointer keys spread over the buckets");
    /* 1024 pointers 16 bytes apart, as an allocator hands them out: the low
     * 10 bits of their hashes (a 1024-bucket table) take ~647 distinct values
     * when random; a plain multiply keeps the zero low bits (64 values). */
    static unsigned char seen[1024];
    int distinct = 0;
    for (uintptr_t i = 0; i < 1024; i++) {
        unsigned idx = (unsigned)(dictPtrHash((void *)(0x7f0000100000 + 16 * i)) & 1023);
        if (!seen[idx]++) distinct++;
    }
    CHECK(distinct > 550);
    static dictType ptrType = {.hashFunction = dictPtrHash};
    dict *d = dictCreate(&ptrType);
    int keys[100];
    for (int i = 0; i < 100; i++) CHECK(dictAdd(d, &keys[i], NULL) == DICT_OK);
    CHECK(dictAdd(d, &keys[7], NULL) == DICT_ERR);
    CHECK(dictFind(d, &keys[42]) != NULL && dictGetKey(dictFind(d, &keys[42])) == &keys[42]);
    CHECK(dictFind(d, (char *)&keys[42] + 1) == NULL);
    dictRelease(d);
}

int main(void) {
    testSiphash();
    testPtrHash();
    testBasics();
    testReplace();
    testNumericValues();
    testModel();
    testEmbedded();
    testIterators();
    testScan();
    testRandom();
    testItems();
    testResizePolicy();
    testExpandAllowed();
    return TEST_REPORT();
}
