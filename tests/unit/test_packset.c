/* Unit tests for src/data/packset.c: a random workload checked against a
 * plain array model through growth, rehashing and shrinking; members of
 * every length class (empty, one-byte and multi-byte varint lengths);
 * crowded buckets (resizing off, the count kept in the pack); iteration,
 * SCAN coverage across resizes, fair random draws, and the stats text; sets
 * of pairs (a hash's table) the same way, values of every length class
 * replaced in place and by other lengths; in ASan builds, that
 * LeakSanitizer sees a lone empty member held. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dict.h"
#include "core/zmalloc.h"
#include "data/packset.h"
#include "testhelp.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#define N 5000
static char *members[N];
static size_t lens[N];
static unsigned char present[N];

/* Member i: mostly short, some empty, some past 127 and 16383 bytes. */
static void makeMembers(void) {
    for (int i = 0; i < N; i++) {
        size_t len;
        if (i == 0) len = 0;
        else if (i % 997 == 0) len = 20000 + (size_t)i;
        else if (i % 50 == 0) len = 128 + (size_t)(i % 300);
        else len = (size_t)snprintf(NULL, 0, "member:%d", i);
        members[i] = malloc(len + 1);
        for (size_t j = 0; j < len; j++) members[i][j] = (char)('a' + (i + j) % 26);
        if (len) snprintf(members[i], len + 1 < 16 ? len + 1 : 16, "member:%d", i); /* unique */
        if (len >= 16) members[i][15] = '.';
        lens[i] = len;
    }
}

static int indexOf(const unsigned char *m, size_t len) {
    for (int i = 0; i < N; i++)
        if (lens[i] == len && memcmp(members[i], m, len) == 0) return i;
    return -1;
}

/* Iteration yields exactly the members the model holds, each once. */
static int iterationMatchesModel(packset *s) {
    static unsigned char seen[N];
    memset(seen, 0, sizeof(seen));
    packsetIter it;
    const unsigned char *m;
    size_t len;
    unsigned long n = 0;
    int ok = 1;
    packsetIterInit(&it, s);
    while (packsetIterNext(&it, &m, &len)) {
        int i = indexOf(m, len);
        if (i < 0 || !present[i] || seen[i]) ok = 0;
        if (i >= 0) seen[i] = 1;
        n++;
    }
    packsetIterDone(&it);
    return ok && n == packsetSize(s);
}

static void testModel(void) {
    TEST("random workload against a model");
    packset *s = packsetCreate();
    memset(present, 0, sizeof(present));
    unsigned long count = 0;
    int mismatches = 0, sawRehash = 0;
    for (int step = 0; step < 200000; step++) {
        int i = (int)(testNextRandom() % N);
        /* Grow for the first half, then shrink back to a few members. */
        int add = step < 100000 ? testNextRandom() % 4 != 0 : testNextRandom() % 8 == 0;
        if (add) {
            int r = packsetAdd(s, members[i], lens[i]);
            if (r != !present[i]) mismatches++;
            if (r) count++;
            present[i] = 1;
        } else {
            int r = packsetRemove(s, members[i], lens[i]);
            if (r != present[i]) mismatches++;
            if (r) count--;
            present[i] = 0;
        }
        if (packsetIsRehashing(s)) sawRehash = 1;
        if (packsetContains(s, members[i], lens[i]) != present[i]) mismatches++;
        if (step % 20000 == 0) CHECK(iterationMatchesModel(s));
    }
    CHECK(mismatches == 0);
    CHECK(sawRehash);
    CHECK(packsetSize(s) == count);
    for (int i = 0; i < N; i++)
        if (packsetContains(s, members[i], lens[i]) != present[i]) mismatches++;
    CHECK(mismatches == 0);
    CHECK(iterationMatchesModel(s));
    /* Emptied, the table shrinks with it (the last old table goes at the
     * next update, as dict's does). */
    for (int i = 0; i < N; i++)
        if (present[i]) {
            packsetRemove(s, members[i], lens[i]);
            present[i] = 0;
        }
    CHECK(packsetSize(s) == 0);
    packsetAdd(s, "x", 1);
    packsetRemove(s, "x", 1);
    CHECK(packsetMemUsage(s, 10) <= 200);
    packsetRelease(s);
}

static void testCrowded(void) {
    TEST("crowded buckets while resizing is off");
    packset *s = packsetCreate();
    memset(present, 0, sizeof(present));
    dictSetResizeEnabled(0);
    for (int i = 1; i <= 180; i++) present[i] = (unsigned char)packsetAdd(s, members[i], lens[i]);
    char buf[4096];
    packsetGetStats(buf, sizeof(buf), s);
    unsigned long maxchain = 0;
    const char *p = strstr(buf, "max chain length: ");
    if (p) maxchain = strtoul(p + 18, NULL, 10);
    CHECK(maxchain >= 8); /* some pack keeps its count in a header */
    CHECK(strstr(buf, "number of elements: ") != NULL);
    int mismatches = 0;
    for (int i = 0; i < 200; i++)
        if (packsetContains(s, members[i], lens[i]) != present[i]) mismatches++;
    CHECK(mismatches == 0);
    CHECK(iterationMatchesModel(s));
    /* Remove from the crowded packs down past the header threshold. */
    for (int i = 1; i <= 175; i++) {
        packsetRemove(s, members[i], lens[i]);
        present[i] = 0;
    }
    CHECK(packsetSize(s) == 5);
    CHECK(iterationMatchesModel(s));
    dictSetResizeEnabled(1);
    packsetRelease(s);
}

static void testRandomFair(void) {
    TEST("random draws reach every member, evenly");
    packset *s = packsetCreate();
    dictSetResizeEnabled(0); /* crowded: 60 members in few buckets */
    for (int i = 1; i <= 60; i++) packsetAdd(s, members[i], lens[i]);
    dictSetResizeEnabled(1);
    static unsigned hits[N];
    memset(hits, 0, sizeof(hits));
    int bad = 0;
    for (int d = 0; d < 60000; d++) {
        const unsigned char *m;
        size_t len;
        packsetRandom(s, &m, &len);
        int i = indexOf(m, len);
        if (i < 1 || i > 60) bad++;
        else hits[i]++;
    }
    CHECK(bad == 0);
    unsigned lo = ~0u, hi = 0;
    for (int i = 1; i <= 60; i++) {
        if (hits[i] < lo) lo = hits[i];
        if (hits[i] > hi) hi = hits[i];
    }
    CHECK(lo > 500 && hi < 1500); /* 1000 expected each */
    packsetRelease(s);
}

typedef struct scanSeen {
    unsigned char seen[N];
} scanSeen;

static void onScan(void *ctx, const unsigned char *m, size_t len, const unsigned char *v, size_t vlen) {
    (void)v;
    (void)vlen;
    int i = indexOf(m, len);
    if (i >= 0) ((scanSeen *)ctx)->seen[i] = 1;
}

static void testScan(void) {
    TEST("scan reports every member present throughout, across resizes");
    packset *s = packsetCreate();
    for (int i = 0; i < 1000; i++) packsetAdd(s, members[i], lens[i]);
    static scanSeen sc;
    memset(&sc, 0, sizeof(sc));
    unsigned long cursor = 0;
    int steps = 0;
    do {
        cursor = packsetScan(s, cursor, onScan, &sc);
        /* Grow it mid-scan, then shrink it: members 0..99 stay throughout. */
        if (steps == 20)
            for (int i = 1000; i < 4000; i++) packsetAdd(s, members[i], lens[i]);
        if (steps == 200)
            for (int i = 100; i < 4000; i++) packsetRemove(s, members[i], lens[i]);
        steps++;
    } while (cursor != 0 && steps < 100000);
    int missed = 0;
    for (int i = 0; i < 100; i++) missed += !sc.seen[i];
    CHECK(missed == 0);
    CHECK(cursor == 0);
    CHECK(packsetSize(s) == 100);
    packsetRelease(s);
}

static void testExpandAndMemory(void) {
    TEST("presizing and memory use");
    packset *s = packsetCreate();
    packsetExpand(s, 3000);
    CHECK(!packsetIsRehashing(s));
    for (int i = 0; i < 3000; i++) packsetAdd(s, members[i], lens[i]);
    CHECK(!packsetIsRehashing(s)); /* 4096 buckets from the start: no growth */
    size_t usage = packsetMemUsage(s, 3000);
    size_t bytes = 0;
    for (int i = 0; i < 3000; i++) bytes += lens[i];
    CHECK(usage > bytes + 4096 * 8);
    CHECK(usage < bytes + 4096 * 8 + 3000 * 16);
    packsetRelease(s);
}

/* Sets of pairs: member i's value is members[valueOf[i]] (-1: absent). */
static int valueOf[N];

static int pairsMatchModel(packset *s) {
    static unsigned char seen[N];
    memset(seen, 0, sizeof(seen));
    packsetIter it;
    const unsigned char *m, *v;
    size_t len, vlen;
    unsigned long n = 0;
    int ok = 1;
    packsetIterInit(&it, s);
    while (packsetIterNextPair(&it, &m, &len, &v, &vlen)) {
        int i = indexOf(m, len);
        if (i < 0 || valueOf[i] < 0 || seen[i]) ok = 0;
        else if (vlen != lens[valueOf[i]] || memcmp(v, members[valueOf[i]], vlen) != 0) ok = 0;
        if (i >= 0) seen[i] = 1;
        n++;
    }
    packsetIterDone(&it);
    return ok && n == packsetSize(s);
}

static int valueMatches(packset *s, int i) {
    const unsigned char *v;
    size_t vlen;
    int found = packsetGet(s, members[i], lens[i], &v, &vlen);
    if (valueOf[i] < 0) return !found;
    return found && vlen == lens[valueOf[i]] && memcmp(v, members[valueOf[i]], vlen) == 0;
}

static void testPairsModel(int resizing) {
    TEST(resizing ? "pairs: random sets, replacements and removals against a model"
                  : "pairs: crowded buckets while resizing is off");
    packset *s = packsetCreatePairs();
    for (int i = 0; i < N; i++) valueOf[i] = -1;
    dictSetResizeEnabled(resizing);
    int mismatches = 0, sawRehash = 0, members_ = resizing ? N : 300;
    for (int step = 0; step < (resizing ? 200000 : 20000); step++) {
        int i = (int)(testNextRandom() % (unsigned)members_);
        int add = step < (resizing ? 100000 : 10000) ? testNextRandom() % 4 != 0 : testNextRandom() % 8 == 0;
        if (add) {
            /* Often a value of the same length (in place), else any. */
            int j = (int)(testNextRandom() % N);
            if (valueOf[i] >= 0 && testNextRandom() % 2) j = valueOf[i] + 1 < N ? valueOf[i] + 1 : valueOf[i];
            int r = packsetSet(s, members[i], lens[i], members[j], lens[j]);
            if (r != (valueOf[i] < 0)) mismatches++;
            valueOf[i] = j;
        } else {
            int r = packsetRemove(s, members[i], lens[i]);
            if (r != (valueOf[i] >= 0)) mismatches++;
            valueOf[i] = -1;
        }
        if (packsetIsRehashing(s)) sawRehash = 1;
        if (!valueMatches(s, i)) mismatches++;
        if (step % 5000 == 0) CHECK(pairsMatchModel(s));
    }
    CHECK(mismatches == 0);
    if (resizing) CHECK(sawRehash);
    for (int i = 0; i < N; i++) mismatches += !valueMatches(s, i);
    CHECK(mismatches == 0);
    CHECK(pairsMatchModel(s));
    /* A random pair is a member with its own value. */
    int bad = 0;
    for (int d = 0; d < 2000 && packsetSize(s); d++) {
        const unsigned char *m, *v;
        size_t len, vlen;
        packsetRandomPair(s, &m, &len, &v, &vlen);
        int i = indexOf(m, len);
        if (i < 0 || valueOf[i] < 0 || vlen != lens[valueOf[i]] || memcmp(v, members[valueOf[i]], vlen)) bad++;
    }
    CHECK(bad == 0);
    dictSetResizeEnabled(1);
    packsetRelease(s);
}

typedef struct pairScan {
    packset *s;
    int bad, seen;
} pairScan;

static void onPairScan(void *ctx, const unsigned char *m, size_t len, const unsigned char *v, size_t vlen) {
    pairScan *ps = ctx;
    int i = indexOf(m, len);
    ps->seen++;
    if (i < 0 || !v || valueOf[i] < 0 || vlen != lens[valueOf[i]] || memcmp(v, members[valueOf[i]], vlen)) ps->bad++;
}

static void testPairsScan(void) {
    TEST("pairs: scan hands out each field with its value");
    packset *s = packsetCreatePairs();
    for (int i = 0; i < 2000; i++) {
        valueOf[i] = N - 1 - i;
        packsetSet(s, members[i], lens[i], members[valueOf[i]], lens[valueOf[i]]);
    }
    pairScan ps = {s, 0, 0};
    unsigned long cursor = 0;
    do cursor = packsetScan(s, cursor, onPairScan, &ps);
    while (cursor != 0);
    CHECK(ps.bad == 0);
    CHECK(ps.seen >= 2000);
    packsetRelease(s);
}

static void testDup(void) {
    TEST("dup: a copy holds the same members, and values, and is its own");
    packset *plain = packsetCreate(), *pairs = packsetCreatePairs();
    for (int i = 0; i < N; i += 2) {
        packsetAdd(plain, members[i], lens[i]);
        packsetSet(pairs, members[i], lens[i], members[N - 1 - i], lens[N - 1 - i]);
    }
    packset *plainCopy = packsetDup(plain), *pairsCopy = packsetDup(pairs);
    packsetRelease(plain);
    packsetRelease(pairs);
    CHECK(packsetSize(plainCopy) == N / 2 && packsetSize(pairsCopy) == N / 2);
    long bad = 0;
    for (int i = 0; i < N; i++) {
        const unsigned char *v;
        size_t vlen;
        int in = i % 2 == 0;
        if (packsetContains(plainCopy, members[i], lens[i]) != in) bad++;
        if (packsetGet(pairsCopy, members[i], lens[i], &v, &vlen) != in) bad++;
        else if (in && (vlen != lens[N - 1 - i] || memcmp(v, members[N - 1 - i], vlen) != 0)) bad++;
    }
    CHECK(bad == 0);
    packsetRelease(plainCopy);
    packsetRelease(pairsCopy);
}

/* A set held from a global only, its one member the empty string: a bucket
 * whose pack is the member's length byte alone, pointed to by its start + 1
 * (the count tag). A leak check must see it held (it reported it leaked
 * while that pointer was one past the pack's end). */
static void testLoneEmptyMemberHeld(void) {
#ifdef __SANITIZE_ADDRESS__
    static packset *held;
    TEST("a lone empty member is reachable for LeakSanitizer");
    held = packsetCreate();
    CHECK(packsetAdd(held, "", 0) == 1);
    CHECK(__lsan_do_recoverable_leak_check() == 0);
    packsetRelease(held);
    held = NULL;
#endif
}

int main(void) {
    testSeed(0x9e3779b97f4a7c15ULL);
    makeMembers();
    testModel();
    testCrowded();
    testRandomFair();
    testScan();
    testExpandAndMemory();
    testPairsModel(1);
    testPairsModel(0);
    testPairsScan();
    testDup();
    testLoneEmptyMemberHeld();
    for (int i = 0; i < N; i++) free(members[i]);
    return TEST_REPORT();
}
