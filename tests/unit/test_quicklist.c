/* test_quicklist: checks src/data/quicklist against an array of strings.
 * For several fill settings (and with a tiny plain-node threshold so large
 * elements get plain nodes) random pushes, pops, inserts, replacements,
 * range deletions and deletions during iteration are mirrored in the array;
 * after each step the structure is verified (links, counts, sizes, valid
 * listpacks, fill respected) and contents are compared by index lookups and
 * by iteration from both ends and from random indexes. The same runs with a
 * compress depth (and repetitive elements LZF can shrink) check that nodes
 * near the ends stay raw, nodes beyond get compressed, and compressed nodes
 * decompress to valid listpacks holding the same elements. */
#include <lzf.h>
#include <stdlib.h>
#include <string.h>

#include "core/numparse.h"
#include "core/zmalloc.h"
#include "data/listpack.h"
#include "data/quicklist.h"
#include "testhelp.h"

typedef struct {
    char *p;
    size_t len;
} str;

typedef struct {
    str *v;
    size_t n, cap;
} model;

static void modelInsertAt(model *m, size_t pos, const char *p, size_t len) {
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->v = realloc(m->v, m->cap * sizeof(str));
    }
    memmove(&m->v[pos + 1], &m->v[pos], (m->n - pos) * sizeof(str));
    m->v[pos].p = malloc(len ? len : 1);
    memcpy(m->v[pos].p, p, len);
    m->v[pos].len = len;
    m->n++;
}

static void modelRemoveAt(model *m, size_t pos) {
    free(m->v[pos].p);
    memmove(&m->v[pos], &m->v[pos + 1], (m->n - pos - 1) * sizeof(str));
    m->n--;
}

static void modelClear(model *m) {
    while (m->n) modelRemoveAt(m, m->n - 1);
    free(m->v);
    m->v = NULL;
    m->cap = 0;
}

/* Random element: integers (in and out of range), short and empty strings,
 * and now and then a long one (large enough to be plain when the threshold
 * is low, or to overflow a size-limited node alone). */
static int repetitive; /* elements LZF can compress: for the compression runs */

static size_t randomValue(char *buf, size_t max_long) {
    int k = rand() % 20;
    if (k < 6) return (size_t)snprintf(buf, 32, "%d", rand() % 2000 - 1000);
    if (k < 7) return (size_t)snprintf(buf, 32, "%lld", (long long)rand() * 4000000LL);
    if (k < 8) return (size_t)snprintf(buf, 32, "0%d", rand() % 100); /* not an integer */
    if (k < 9) return 0;
    size_t len = (k < 18) ? (size_t)(1 + rand() % 20) : (size_t)(rand() % (int)max_long);
    int period = repetitive ? 1 + rand() % 4 : 0;
    for (size_t i = 0; i < len; i++) buf[i] = (char)('a' + (period ? (int)(i % (size_t)period) : rand() % 26));
    return len;
}

static int entryEquals(const quicklistEntry *e, const str *s) {
    if (e->value) return e->sz == s->len && memcmp(e->value, s->p, s->len) == 0;
    char num[MAX_LONG_LONG_CHARS];
    int n = ll2string(num, sizeof(num), e->longval);
    return (size_t)n == s->len && memcmp(num, s->p, s->len) == 0;
}

static int fillRespected(int fill, const quicklistNode *n) {
    static const size_t limits[] = {4096, 8192, 16384, 32768, 65536};
    if (n->count <= 1) return 1;
    if (fill >= 0) return n->sz <= 8192 && n->count <= (unsigned)fill;
    return n->sz <= limits[-fill - 1];
}

/* A compressed node's bytes, decompressed by LZF itself (malloc'd), or NULL
 * when they do not decompress to exactly n->sz bytes. The blob is a size_t
 * length followed by the LZF data. */
static unsigned char *inflate(const quicklistNode *n) {
    size_t csz;
    memcpy(&csz, n->entry, sizeof(csz));
    unsigned char *raw = malloc(n->sz);
    if (lzf_decompress(n->entry + sizeof(csz), (unsigned)csz, raw, (unsigned)n->sz) != n->sz || csz >= n->sz) {
        free(raw);
        return NULL;
    }
    return raw;
}

static long compressed_seen; /* compressed nodes met by structureOk */

static int structureOk(quicklist *ql) {
    unsigned long count = 0, len = 0;
    quicklistNode *prev = NULL;
    for (quicklistNode *n = ql->head; n; n = n->next) {
        if (n->prev != prev || n->count == 0) return 0;
        unsigned char *bytes = n->entry, *inflated = NULL;
        if (n->encoding == QUICKLIST_NODE_ENCODING_LZF) {
            /* Never within the depth at either end. */
            if (len < ql->compress || ql->len - len <= ql->compress) return 0;
            if (!(bytes = inflated = inflate(n))) return 0;
            compressed_seen++;
        } else if (n->encoding != QUICKLIST_NODE_ENCODING_RAW) {
            return 0;
        }
        int ok = 1;
        if (n->container == QUICKLIST_NODE_CONTAINER_PLAIN) {
            ok = n->count == 1;
        } else {
            ok = n->container == QUICKLIST_NODE_CONTAINER_PACKED && lpBytes(bytes) == n->sz &&
                 lpLength(bytes) == n->count && lpValidateIntegrity(bytes, n->sz, 1, NULL, NULL) &&
                 fillRespected(ql->fill, n);
        }
        free(inflated);
        if (!ok) return 0;
        count += n->count;
        len++;
        prev = n;
    }
    return ql->tail == prev && ql->count == count && ql->len == len;
}

/* Compares contents by index lookups (from both signs) and full iterations. */
static int contentsOk(quicklist *ql, const model *m) {
    if (quicklistCount(ql) != m->n) return 0;
    quicklistEntry e;
    for (size_t i = 0; i < m->n; i++) {
        if (!quicklistIndex(ql, (long)i, &e) || !entryEquals(&e, &m->v[i])) return 0;
        if (!quicklistIndex(ql, (long)i - (long)m->n, &e) || !entryEquals(&e, &m->v[i]))
            return 0;
    }
    if (quicklistIndex(ql, (long)m->n, &e) || quicklistIndex(ql, -(long)m->n - 1, &e)) return 0;
    quicklistIter *it = quicklistGetIterator(ql, QUICKLIST_ITER_FROM_HEAD);
    size_t i = 0;
    while (quicklistNext(it, &e))
        if (i >= m->n || !entryEquals(&e, &m->v[i++])) i = m->n + 1;
    quicklistReleaseIterator(it);
    if (i != m->n) return 0;
    it = quicklistGetIterator(ql, QUICKLIST_ITER_FROM_TAIL);
    i = m->n;
    int ok = 1;
    while (quicklistNext(it, &e))
        if (i == 0 || !entryEquals(&e, &m->v[--i])) ok = 0;
    quicklistReleaseIterator(it);
    return ok && i == 0;
}

/* Iterates from a random index in a random direction, deleting elements
 * chosen by a coin (as LREM does), and mirrors it in the model. */
static int iterateAndDelete(quicklist *ql, model *m) {
    if (m->n == 0) return quicklistGetIteratorAtIdx(ql, QUICKLIST_ITER_FROM_HEAD, 0) == NULL;
    long start = rand() % (long)m->n;
    int backward = rand() % 2;
    int every = 1 + rand() % 3;
    long idx = rand() % 2 ? start : start - (long)m->n; /* negative form too */
    quicklistIter *it = quicklistGetIteratorAtIdx(
        ql, backward ? QUICKLIST_ITER_FROM_TAIL : QUICKLIST_ITER_FROM_HEAD, idx);
    if (!it) return 0;
    quicklistEntry e;
    long pos = start;
    int ok = 1, k = 0;
    while (quicklistNext(it, &e)) {
        if (pos < 0 || pos >= (long)m->n || !entryEquals(&e, &m->v[pos])) {
            ok = 0;
            break;
        }
        if (++k % every == 0 && rand() % 2) {
            quicklistDelEntry(it, &e);
            modelRemoveAt(m, (size_t)pos);
            if (!backward) pos--; /* the next element slid into pos */
        }
        pos += backward ? -1 : 1;
    }
    quicklistReleaseIterator(it);
    if (ok && (backward ? pos != -1 : pos != (long)m->n)) ok = 0;
    return ok;
}

static int dupEquals(quicklist *ql, const model *m) {
    quicklist *copy = quicklistDup(ql);
    int ok = structureOk(copy) && contentsOk(copy, m) && copy->len == ql->len;
    quicklistRelease(copy);
    return ok;
}

static void randomRun(int fill, size_t threshold, size_t max_long, int steps, int compress) {
    quicklistSetPackedThreshold(threshold);
    quicklist *ql = quicklistCreate(fill, compress);
    repetitive = compress > 0;
    model m = {0};
    char *buf = malloc(max_long + 32);
    int structure_ok = 1, contents_ok = 1, pop_ok = 1, iter_ok = 1, dup_ok = 1, insert_ok = 1;
    for (int step = 0; step < steps; step++) {
        int op = rand() % 100;
        size_t len = randomValue(buf, max_long);
        if (op < 20) {
            quicklistPushTail(ql, buf, len);
            modelInsertAt(&m, m.n, buf, len);
        } else if (op < 35) {
            quicklistPushHead(ql, buf, len);
            modelInsertAt(&m, 0, buf, len);
        } else if (op < 45) {
            int head = rand() % 2;
            unsigned char *data = NULL;
            size_t sz = 0;
            long long v = 0;
            int got = quicklistPop(ql, head ? QUICKLIST_HEAD : QUICKLIST_TAIL, &data, &sz, &v);
            if (got != (m.n > 0)) pop_ok = 0;
            if (got) {
                size_t pos = head ? 0 : m.n - 1;
                quicklistEntry e = {.value = data, .sz = sz, .longval = v};
                if (!entryEquals(&e, &m.v[pos])) pop_ok = 0;
                modelRemoveAt(&m, pos);
                zfree(data);
            }
        } else if (op < 65) {
            if (m.n) {
                size_t pos = (size_t)rand() % m.n;
                int after = rand() % 2;
                quicklistEntry e;
                if (!quicklistIndex(ql, (long)pos, &e)) insert_ok = 0;
                if (after)
                    quicklistInsertAfter(ql, &e, buf, len);
                else
                    quicklistInsertBefore(ql, &e, buf, len);
                modelInsertAt(&m, pos + (size_t)after, buf, len);
            }
        } else if (op < 75) {
            long idx = m.n ? rand() % (long)m.n : 0;
            if (rand() % 2) idx -= (long)m.n;
            int ok = quicklistReplaceAtIndex(ql, idx, buf, len);
            if (ok != (m.n > 0)) insert_ok = 0;
            if (m.n) {
                size_t pos = idx < 0 ? (size_t)(idx + (long)m.n) : (size_t)idx;
                modelRemoveAt(&m, pos);
                modelInsertAt(&m, pos, buf, len);
            }
        } else if (op < 80) {
            long start = rand() % ((long)m.n + 2) - (rand() % 2 ? (long)m.n : 0);
            long count = rand() % 40;
            long abs = start < 0 ? start + (long)m.n : start;
            int expect = count > 0 && abs >= 0 && abs < (long)m.n;
            if (quicklistDelRange(ql, start, count) != expect) insert_ok = 0;
            for (long k = 0; expect && k < count && abs < (long)m.n; k++)
                modelRemoveAt(&m, (size_t)abs);
        } else if (op < 88) {
            if (!iterateAndDelete(ql, &m)) iter_ok = 0;
        } else if (op < 90) {
            quicklistRotate(ql);
            if (m.n > 1) {
                str last = m.v[m.n - 1];
                memmove(&m.v[1], &m.v[0], (m.n - 1) * sizeof(str));
                m.v[0] = last;
            }
        } else if (op < 91) {
            if (!dupEquals(ql, &m)) dup_ok = 0;
        }
        if (!structureOk(ql)) structure_ok = 0;
        if (step % 10 == 0 && !contentsOk(ql, &m)) contents_ok = 0;
    }
    CHECK(structure_ok);
    CHECK(contents_ok && contentsOk(ql, &m));
    CHECK(pop_ok);
    CHECK(iter_ok);
    CHECK(dup_ok);
    CHECK(insert_ok);
    /* Drain completely from alternating ends. */
    int drain_ok = 1;
    while (m.n) {
        int head = rand() % 2;
        unsigned char *data = NULL;
        size_t sz = 0;
        long long v = 0;
        if (!quicklistPop(ql, head ? QUICKLIST_HEAD : QUICKLIST_TAIL, &data, &sz, &v)) {
            drain_ok = 0;
            break;
        }
        quicklistEntry e = {.value = data, .sz = sz, .longval = v};
        if (!entryEquals(&e, &m.v[head ? 0 : m.n - 1])) drain_ok = 0;
        modelRemoveAt(&m, head ? 0 : m.n - 1);
        zfree(data);
    }
    CHECK(drain_ok && ql->count == 0 && ql->len == 0 && !ql->head && !ql->tail);
    quicklistRelease(ql);
    modelClear(&m);
    free(buf);
    quicklistSetPackedThreshold(0);
}

static void testFills(void) {
    static const int fills[] = {-5, -2, -1, 0, 1, 2, 3, 7, 128, 40000};
    char name[64];
    for (size_t i = 0; i < sizeof(fills) / sizeof(fills[0]); i++) {
        snprintf(name, sizeof(name), "random ops, fill %d", fills[i]);
        TEST(name);
        randomRun(fills[i], 0, 3000, 1500, 0);
        snprintf(name, sizeof(name), "random ops, fill %d, plain nodes", fills[i]);
        TEST(name);
        randomRun(fills[i], 100, 400, 1500, 0);
    }
    static const int compressed_fills[] = {-1, 1, 4, 16};
    for (int depth = 1; depth <= 3; depth++) {
        for (size_t i = 0; i < sizeof(compressed_fills) / sizeof(compressed_fills[0]); i++) {
            snprintf(name, sizeof(name), "random ops, fill %d, compress depth %d", compressed_fills[i], depth);
            TEST(name);
            compressed_seen = 0;
            randomRun(compressed_fills[i], 0, 3000, 6000, depth);
            /* (the random deletions keep lists too short for 7 nodes of 16) */
            CHECK(compressed_seen > 0 || depth == 3);
            snprintf(name, sizeof(name), "random ops, fill %d, compress depth %d, plain nodes", compressed_fills[i],
                     depth);
            TEST(name);
            compressed_seen = 0;
            randomRun(compressed_fills[i], 100, 400, 1500, depth);
            CHECK(compressed_seen > 0);
        }
    }
}

/* Depth 1 over many compressible nodes: all but the two ends compressed, the
 * memory shrinking accordingly; reading a middle node leaves it raw only
 * until the next call; a node too small or incompressible stays raw. */
static void testCompression(void) {
    TEST("compression depth and reads");
    quicklist *ql = quicklistCreate(16, 1);
    quicklist *plain = quicklistCreate(16, 0);
    char buf[64];
    for (int i = 0; i < 1600; i++) {
        int n = snprintf(buf, sizeof(buf), "element-number-%06d-of-the-list", i);
        quicklistPushTail(ql, buf, (size_t)n);
        quicklistPushTail(plain, buf, (size_t)n);
    }
    CHECK(ql->len == 100 && structureOk(ql));
    CHECK(quicklistCompressedNodes(ql) == 98);
    CHECK(ql->head->encoding == QUICKLIST_NODE_ENCODING_RAW && ql->tail->encoding == QUICKLIST_NODE_ENCODING_RAW);
    size_t stored = 0, raw = 0;
    for (quicklistNode *n = ql->head, *p = plain->head; n; n = n->next, p = p->next) {
        stored += quicklistNodeStoredBytes(n);
        raw += quicklistNodeStoredBytes(p);
        CHECK(n->sz == p->sz);
    }
    CHECK(stored < raw / 2);
    quicklistEntry e;
    CHECK(quicklistIndex(ql, 800, &e) && e.sz == 33 && memcmp(e.value, "element-number-000800-of-the-list", 33) == 0);
    CHECK(quicklistCompressedNodes(ql) == 97); /* the node read */
    CHECK(quicklistIndex(ql, 0, &e));
    CHECK(quicklistCompressedNodes(ql) == 98);
    /* A blob walk (RDB) sees raw listpacks and leaves one node raw at most. */
    quicklistNode *n = ql->head->next;
    const unsigned char *data = quicklistNodeData(ql, n);
    CHECK(lpValidateIntegrity((unsigned char *)data, n->sz, 1, NULL, NULL) && lpLength((unsigned char *)data) == 16);
    CHECK(quicklistCompressedNodes(ql) == 97);
    CHECK(quicklistNodeData(ql, n->next) != NULL && quicklistCompressedNodes(ql) == 97);
    /* A copy keeps the compressed nodes compressed. */
    quicklist *copy = quicklistDup(ql);
    CHECK(quicklistCompressedNodes(copy) >= 97 && structureOk(copy));
    quicklistRelease(copy);
    /* Shrinking to the ends decompresses what is left. */
    CHECK(quicklistDelRange(ql, 16, 1600 - 32));
    CHECK(ql->len == 2 && quicklistCompressedNodes(ql) == 0 && structureOk(ql));
    quicklistRelease(ql);
    quicklistRelease(plain);

    /* Incompressible or tiny nodes stay raw. */
    ql = quicklistCreate(1, 1);
    for (int i = 0; i < 10; i++) {
        for (int k = 0; k < 60; k++) buf[k] = (char)(' ' + (rand() % 90));
        quicklistPushTail(ql, buf, 60);
        quicklistPushTail(ql, "x", 1);
    }
    CHECK(ql->len == 20 && quicklistCompressedNodes(ql) == 0 && structureOk(ql));
    quicklistRelease(ql);
}

static void testBigElements(void) {
    TEST("big elements");
    size_t big = 100000;
    char *b = malloc(big);
    memset(b, 'x', big);
    /* Above the size limit but below the plain threshold: a packed node alone. */
    quicklist *ql = quicklistCreate(-2, 0);
    quicklistPushTail(ql, "a", 1);
    quicklistPushTail(ql, b, big);
    quicklistPushTail(ql, "c", 1);
    CHECK(ql->len == 3 && ql->head->next->count == 1 &&
          ql->head->next->container == QUICKLIST_NODE_CONTAINER_PACKED);
    CHECK(structureOk(ql));
    /* With the threshold lowered, the same element gets a plain node; the
     * packed node around the insertion point is split. */
    quicklistSetPackedThreshold(1000);
    for (int i = 0; i < 50; i++) quicklistPushTail(ql, "e", 1);
    quicklistEntry e;
    CHECK(quicklistIndex(ql, 20, &e));
    quicklistInsertAfter(ql, &e, b, big);
    CHECK(quicklistIndex(ql, 21, &e) && e.node->container == QUICKLIST_NODE_CONTAINER_PLAIN &&
          e.sz == big && e.value && memcmp(e.value, b, big) == 0);
    CHECK(quicklistCompare(&e, (unsigned char *)b, big));
    CHECK(!quicklistCompare(&e, (unsigned char *)b, big - 1));
    CHECK(structureOk(ql) && ql->count == 54);
    /* Replace a plain element with a small one and back. */
    CHECK(quicklistReplaceAtIndex(ql, 21, "small", 5));
    CHECK(quicklistIndex(ql, 21, &e) && e.node->container == QUICKLIST_NODE_CONTAINER_PACKED &&
          e.sz == 5);
    CHECK(quicklistReplaceAtIndex(ql, 21, b, big));
    CHECK(quicklistIndex(ql, 21, &e) && e.node->container == QUICKLIST_NODE_CONTAINER_PLAIN);
    CHECK(structureOk(ql) && ql->count == 54);
    /* Popping a plain element hands over its buffer. */
    quicklistDelRange(ql, 22, 1000);
    unsigned char *data;
    size_t sz;
    long long v;
    CHECK(quicklistPop(ql, QUICKLIST_TAIL, &data, &sz, &v) && sz == big && memcmp(data, b, big) == 0);
    zfree(data);
    CHECK(structureOk(ql) && ql->count == 21);
    quicklistRelease(ql);

    /* A count-based fill still stops a node at 8 KB. */
    ql = quicklistCreate(1000, 0);
    for (int i = 0; i < 10; i++) quicklistPushTail(ql, b, 3000);
    CHECK(structureOk(ql) && ql->len >= 4);
    quicklistRelease(ql);
    quicklistSetPackedThreshold(0);
    free(b);
}

static void testSettingsAndBlobs(void) {
    TEST("settings and RDB-style blobs");
    quicklist *ql = quicklistCreate(-100, -3);
    CHECK(ql->fill == -5 && ql->compress == 0);
    quicklistSetFill(ql, 1 << 20);
    CHECK(ql->fill == QUICKLIST_FILL_MAX);
    quicklistSetCompressDepth(ql, 2);
    CHECK(ql->compress == 2);
    CHECK(quicklistSetPackedThreshold(5ULL << 30) == -1);
    CHECK(quicklistGetPackedThreshold() == QUICKLIST_DEFAULT_PACKED_THRESHOLD);
    CHECK(quicklistSetPackedThreshold(10) == 0 && quicklistGetPackedThreshold() == 10);
    CHECK(quicklistSetPackedThreshold(0) == 0 &&
          quicklistGetPackedThreshold() == QUICKLIST_DEFAULT_PACKED_THRESHOLD);

    /* Nodes rebuilt from their blobs, as RDB load does. */
    unsigned char *lp = lpAppend(lpAppendInteger(lpNew(0), 42), (const unsigned char *)"hi", 2);
    quicklistAppendListpack(ql, lp);
    quicklistAppendPlainNode(ql, zmemdup("plain!", 6), 6);
    quicklistPushTail(ql, "z", 1);
    CHECK(ql->count == 4 && ql->len == 3 && structureOk(ql));
    quicklistEntry e;
    CHECK(quicklistIndex(ql, 0, &e) && !e.value && e.longval == 42);
    CHECK(quicklistCompare(&e, (const unsigned char *)"42", 2));
    CHECK(!quicklistCompare(&e, (const unsigned char *)"042", 3));
    CHECK(quicklistIndex(ql, 2, &e) && e.sz == 6 && memcmp(e.value, "plain!", 6) == 0);
    /* Rotating a plain tail moves the node; an integer tail keeps its value. */
    quicklistRotate(ql);
    quicklistRotate(ql);
    CHECK(quicklistIndex(ql, 0, &e) && e.sz == 6 && memcmp(e.value, "plain!", 6) == 0);
    CHECK(quicklistIndex(ql, 1, &e) && e.sz == 1 && e.value[0] == 'z');
    CHECK(structureOk(ql));
    quicklistRelease(ql);

    ql = quicklistCreate(-2, 0);
    quicklistPushTail(ql, "-7", 2);
    quicklistPushTail(ql, "x", 1);
    quicklistRotate(ql);
    quicklistRotate(ql);
    CHECK(quicklistIndex(ql, 0, &e) && !e.value && e.longval == -7);
    CHECK(!quicklistReplaceAtIndex(ql, 5, "q", 1) && !quicklistDelRange(ql, 2, 1));
    CHECK(!quicklistDelRange(ql, 0, 0) && !quicklistDelRange(ql, -3, 1));
    CHECK(quicklistDelRange(ql, -1, 5) && ql->count == 1);
    quicklistRelease(ql);
}

int main(void) {
    srand(4242);
    testSettingsAndBlobs();
    testBigElements();
    testFills();
    testCompression();
    size_t leaked = zmalloc_used_memory();
    TEST("no leaks");
    CHECK(leaked == 0);
    if (leaked) fprintf(stderr, "zmalloc_used_memory() = %zu\n", leaked);
    return TEST_REPORT();
}
