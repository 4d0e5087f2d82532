/* test_value: checks src/data/value (and t_zset) on every aggregate type in
 * every encoding: the same elements must come out of the iterator, SCAN,
 * a copy and a conversion whatever the encoding, with the lengths agreeing,
 * so the code above data/ can rely on the layer instead of the encodings. */
#include <stdlib.h>
#include <string.h>

#include "core/dict.h"
#include "core/sds.h"
#include "core/zmalloc.h"
#include "data/intset.h"
#include "data/listpack.h"
#include "data/quicklist.h"
#include "data/t_zset.h"
#include "data/value.h"
#include "testhelp.h"

#define N 50

static const zsetLimits small = {128, 64};
static const zsetLimits none = {0, 0};

/* An element's text, for comparisons that ignore how it is stored. */
static sds elemText(const valueElem *e) { return valueElemSds(e); }

static int elemIs(const valueElem *e, const char *want) {
    sds s = elemText(e);
    int ok = strcmp(s, want) == 0;
    sdsfree(s);
    return ok;
}

static const hashLimits hashLim = {128, 64};

static robj *makeHash(int table) {
    robj *o = createHashObject();
    for (int i = 0; i < N; i++) {
        char v[16];
        sds f = sdscatprintf(sdsempty(), "f%d", i);
        snprintf(v, sizeof(v), "%d", i * 10); /* integer values: stored as listpack ints */
        CHECK(hashSet(o, f, v, strlen(v), &hashLim) == 0);
        sdsfree(f);
    }
    if (table) hashConvertToTable(o);
    return o;
}

static robj *makeSet(int table) {
    robj *o = createIntsetObject();
    for (int i = 0; i < N; i++) objectSetPtr(o, intsetAdd(objectPtr(o), i * 3, NULL));
    if (table) setConvertToTable(o, 0);
    return o;
}

static const setLimits setLim = {512, 128, 64};

static valueElem textElem(const char *s) { return (valueElem){(const unsigned char *)s, strlen(s), 0}; }
static valueElem intElem(long long v) { return (valueElem){NULL, 0, v}; }

static robj *makeList(void) {
    robj *o = createQuicklistObject(4, 0); /* 4 per node: several nodes */
    for (int i = 0; i < N; i++) {
        char v[16];
        snprintf(v, sizeof(v), i % 2 ? "%d" : "item%d", i);
        quicklistPushTail(objectPtr(o), v, strlen(v));
    }
    return o;
}

static robj *makeZset(const zsetLimits *lim) {
    robj *o = zsetCreateFor(3, lim);
    for (int i = N - 1; i >= 0; i--) { /* reverse: insertion must order them */
        char m[16];
        snprintf(m, sizeof(m), "m%02d", i);
        sds ele = sdsnew(m);
        int out;
        zsetAdd(o, i + 0.5, ele, ZADD_IN_NONE, &out, NULL, lim);
        CHECK(out & ZADD_OUT_ADDED);
        sdsfree(ele);
    }
    return o;
}

/* Walks o and checks element i against expect(i). Returns the count. */
static unsigned long walk(robj *o, void (*expect)(long i, const valueItem *it)) {
    valueIter it;
    valueItem item;
    unsigned long n = 0;
    valueIterInit(&it, o);
    while (valueIterNext(&it, &item)) expect((long)n++, &item);
    valueIterDone(&it);
    return n;
}

static void expectList(long i, const valueItem *it) {
    char v[16];
    snprintf(v, sizeof(v), i % 2 ? "%ld" : "item%ld", i);
    CHECK(elemIs(&it->ele, v));
}

static void expectZset(long i, const valueItem *it) {
    char m[16];
    snprintf(m, sizeof(m), "m%02ld", i);
    CHECK(elemIs(&it->ele, m));
    CHECK(it->score == i + 0.5);
}

/* Hashes and sets in table encodings come in table order: check membership. */
static unsigned long hash_hits;
static void expectHashAny(long i, const valueItem *it) {
    (void)i;
    sds f = elemText(&it->ele), v = elemText(&it->val);
    CHECK(f[0] == 'f' && atol(f + 1) * 10 == atol(v));
    hash_hits++;
    sdsfree(f);
    sdsfree(v);
}

static void expectSetAny(long i, const valueItem *it) {
    (void)i;
    sds s = elemText(&it->ele);
    CHECK(atol(s) % 3 == 0 && atol(s) < 3 * N);
    sdsfree(s);
}

typedef struct scanCount {
    unsigned long eles, vals;
} scanCount;

static void countScan(void *ctx, const valueElem *ele, const valueElem *val) {
    scanCount *sc = ctx;
    (void)ele;
    sc->eles++;
    if (val) sc->vals++;
}

static scanCount scanAll(robj *o) {
    scanCount sc = {0, 0};
    unsigned long cursor = 0;
    do cursor = valueScan(o, cursor, countScan, &sc);
    while (cursor);
    return sc;
}

static void checkCommon(robj *o, int pairs) {
    scanCount sc = scanAll(o);
    CHECK(sc.eles == valueLength(o));
    CHECK(sc.vals == (pairs ? valueLength(o) : 0));
    robj *copy = valueDup(o);
    CHECK(copy->type == o->type && copy->encoding == o->encoding && valueLength(copy) == valueLength(o));
    decrRefCount(copy);
    CHECK(valueMemoryUsage(o, 5) > sizeof(robj));
}

static void testHash(void) {
    for (int table = 0; table <= 1; table++) {
        TEST(table ? "hash table" : "hash listpack");
        robj *o = makeHash(table);
        CHECK(o->encoding == (table ? OBJ_ENCODING_HT : OBJ_ENCODING_LISTPACK));
        CHECK(valueLength(o) == N);
        hash_hits = 0;
        CHECK(walk(o, expectHashAny) == N);
        CHECK(hash_hits == N);
        valueElem v;
        sds f = sdsnew("f7");
        CHECK(hashGetValue(o, f, &v) && elemIs(&v, "70"));
        sdsfree(f);
        f = sdsnew("nope");
        CHECK(!hashGetValue(o, f, &v));
        sdsfree(f);
        checkCommon(o, 1);
        CHECK(valueBlobCount(o) == (size_t)!table);
        decrRefCount(o);
    }
}

/* Collects what a random draw hands out: how many pairs, whether each
 * came with its value as the hash holds it, and the distinct fields. */
typedef struct drawn {
    robj *o;
    unsigned long n, stopAt;
    int withvalues, ok;
    unsigned char seen[N];
} drawn;

static int collectPair(void *ctx, const valueElem *field, const valueElem *value) {
    drawn *d = ctx;
    sds f = elemText(field);
    valueElem v;
    int i = atoi(f + 1);
    if (f[0] != 'f' || i < 0 || i >= N || !hashGetValue(d->o, f, &v)) {
        d->ok = 0;
    } else {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *held = valueElemBytes(&v, buf, &len);
        if (d->withvalues != (value != NULL) || (value && !valueElemEquals(value, held, len))) d->ok = 0;
        else d->seen[i]++;
    }
    sdsfree(f);
    return ++d->n != d->stopAt;
}

static drawn drawFrom(robj *o, unsigned long count, int distinct, int withvalues, unsigned long stopAt) {
    drawn d = {.o = o, .withvalues = withvalues, .ok = 1, .stopAt = stopAt};
    if (distinct) hashRandomFieldsDistinct(o, count, withvalues, collectPair, &d);
    else hashRandomFields(o, count, withvalues, collectPair, &d);
    return d;
}

/* How many elements a draw picked, -1 when one came twice. */
static int distinctCount(const unsigned char seen[N]) {
    int n = 0;
    for (int i = 0; i < N; i++) {
        if (seen[i] > 1) return -1;
        n += seen[i];
    }
    return n;
}

/* Edits, conversions at the limits and random draws, in both encodings. */
static void testHashEdits(void) {
    TEST("hash edits and conversions");
    robj *o = createHashObject();
    sds f = sdsnew("field"), g = sdsnew("other");
    valueElem v;
    CHECK(!hashExists(o, f) && hashStrlen(o, f) == 0 && !hashDelete(o, f));
    CHECK(hashSet(o, f, "12345", 5, &hashLim) == 0 && hashSet(o, f, "abc", 3, &hashLim) == 1);
    CHECK(hashGetValue(o, f, &v) && elemIs(&v, "abc") && hashStrlen(o, f) == 3);
    CHECK(hashSet(o, g, "-77", 3, &hashLim) == 0 && hashStrlen(o, g) == 3); /* an integer in the listpack */
    CHECK(o->encoding == OBJ_ENCODING_LISTPACK && valueLength(o) == 2);
    CHECK(hashDelete(o, f) && !hashExists(o, f) && hashExists(o, g) && valueLength(o) == 1);
    /* A value over lp_value converts, for good. */
    char big[100];
    memset(big, 'x', sizeof(big));
    CHECK(hashSet(o, f, big, sizeof(big), &hashLim) == 0 && o->encoding == OBJ_ENCODING_HT);
    CHECK(hashStrlen(o, f) == sizeof(big) && hashGetValue(o, g, &v) && elemIs(&v, "-77"));
    CHECK(hashSet(o, f, "s", 1, &hashLim) == 1 && hashStrlen(o, f) == 1);
    CHECK(hashDelete(o, f) && hashDelete(o, g) && valueLength(o) == 0 && o->encoding == OBJ_ENCODING_HT);
    decrRefCount(o);

    /* More fields than lp_entries. */
    const hashLimits two = {2, 64};
    o = createHashObject();
    for (int i = 0; i < 3; i++) {
        sds k = sdscatprintf(sdsempty(), "k%d", i);
        hashSet(o, k, "v", 1, &two);
        CHECK(o->encoding == (i < 2 ? OBJ_ENCODING_LISTPACK : OBJ_ENCODING_HT));
        sdsfree(k);
    }
    decrRefCount(o);

    /* hashGrowFor: before a batch that cannot fit, not halfway through it. */
    robj *args[4];
    for (int i = 0; i < 4; i++) args[i] = createStringObject("ab", 2);
    o = createHashObject();
    hashGrowFor(o, args, 4, &hashLim);
    CHECK(o->encoding == OBJ_ENCODING_LISTPACK);
    hashGrowFor(o, args, 4, &two); /* two pairs fit two entries */
    CHECK(o->encoding == OBJ_ENCODING_LISTPACK);
    decrRefCount(args[3]);
    args[3] = createStringObject(big, sizeof(big));
    hashGrowFor(o, args, 4, &hashLim);
    CHECK(o->encoding == OBJ_ENCODING_HT);
    decrRefCount(o);
    o = createHashObject();
    hashGrowFor(o, args, 4, &(hashLimits){1, 1000}); /* two pairs over one entry */
    CHECK(o->encoding == OBJ_ENCODING_HT);
    decrRefCount(o);
    for (int i = 0; i < 4; i++) decrRefCount(args[i]);
    sdsfree(f);
    sdsfree(g);

    for (int table = 0; table <= 1; table++) {
        TEST(table ? "hash random fields, table" : "hash random fields, listpack");
        o = makeHash(table);
        valueElem rf, rv;
        hashRandomField(o, &rf, &rv);
        sds t = elemText(&rf), tv = elemText(&rv);
        CHECK(hashGetValue(o, t, &v) && elemIs(&v, tv));
        sdsfree(t);
        sdsfree(tv);
        drawn d = drawFrom(o, 3000, 0, 1, 0); /* repeats, past a batch of 1000 */
        CHECK(d.ok && d.n == 3000);
        d = drawFrom(o, 10, 0, 0, 4); /* the visitor stops the draw */
        CHECK(d.ok && d.n == 4);
        /* Distinct: few of many, most of them, and every strategy stops. */
        unsigned long counts[] = {5, N - 1};
        for (int k = 0; k < 2; k++) {
            d = drawFrom(o, counts[k], 1, k, 0);
            CHECK(d.ok && d.n == counts[k] && distinctCount(d.seen) == (int)counts[k]);
            d = drawFrom(o, counts[k], 1, k, 2);
            CHECK(d.ok && d.n == 2);
        }
        decrRefCount(o);
    }
}

static void testSet(void) {
    for (int table = 0; table <= 1; table++) {
        TEST(table ? "set table" : "set intset");
        robj *o = makeSet(table);
        CHECK(valueLength(o) == N);
        CHECK(walk(o, expectSetAny) == N);
        checkCommon(o, 0);
        valueElem m = textElem("21"), other = textElem("22"), text = textElem("x"), num = intElem(21);
        CHECK(setHas(o, &m) && setHas(o, &num) && !setHas(o, &other) && !setHas(o, &text));
        if (!table) {
            valueBlob b;
            CHECK(valueBlobNext(o, NULL, &b) != NULL && b.len == intsetBlobLen(objectPtr(o)));
        }
        decrRefCount(o);
    }
}

/* Sets in Redis 7.2's encodings: the same members whatever the encoding,
 * and the conversions at the limits. */
static void testSetEncodings(void) {
    TEST("set listpack and conversions");
    valueElem one = intElem(1), x = textElem("x"), ten = textElem("10");
    robj *o = setCreate(&one, 1, &setLim);
    CHECK(o->encoding == OBJ_ENCODING_INTSET);
    CHECK(setAdd(o, &one, &setLim) == 1 && setAdd(o, &ten, &setLim) == 1 && setAdd(o, &ten, &setLim) == 0);
    CHECK(o->encoding == OBJ_ENCODING_INTSET);
    CHECK(setAdd(o, &x, &setLim) == 1 && o->encoding == OBJ_ENCODING_LISTPACK && valueLength(o) == 3);
    /* Integers and their text are the same member in a listpack. */
    valueElem ten_int = intElem(10), one_text = textElem("1"), nope = textElem("01");
    CHECK(setHas(o, &ten_int) && setHas(o, &one_text) && setHas(o, &x) && !setHas(o, &nope));
    CHECK(setAdd(o, &ten_int, &setLim) == 0);
    checkCommon(o, 0);
    CHECK(setRemove(o, &one_text) && !setRemove(o, &one_text) && valueLength(o) == 2);
    valueElem m;
    for (int i = 0; i < 20; i++) {
        setRandomMember(o, &m);
        CHECK(elemIs(&m, "10") || elemIs(&m, "x"));
    }
    /* Past set-max-listpack-entries: a table, members kept. */
    for (int i = 0; i < 126; i++) {
        char b[16];
        snprintf(b, sizeof(b), "m%d", i);
        valueElem e = textElem(b);
        CHECK(setAdd(o, &e, &setLim) == 1);
    }
    CHECK(o->encoding == OBJ_ENCODING_LISTPACK && valueLength(o) == 128);
    valueElem last = textElem("last");
    CHECK(setAdd(o, &last, &setLim) == 1 && o->encoding == OBJ_ENCODING_HT && valueLength(o) == 129);
    CHECK(setHas(o, &ten_int) && setHas(o, &x) && setHas(o, &last) && !setHas(o, &one));
    CHECK(setRemove(o, &ten_int) && !setHas(o, &ten));
    checkCommon(o, 0);
    decrRefCount(o);
    /* A long member, or a first member that is not an integer with a big hint. */
    o = setCreate(&one, 1, &setLim);
    char big[80];
    memset(big, 'b', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    valueElem bigm = textElem(big);
    CHECK(setAdd(o, &bigm, &setLim) == 1 && o->encoding == OBJ_ENCODING_HT && setHas(o, &bigm));
    decrRefCount(o);
    o = setCreate(&x, 129, &setLim);
    CHECK(o->encoding == OBJ_ENCODING_HT);
    decrRefCount(o);
}

/* Lists in Redis 7.2's encodings: every edit agrees on a listpack and on a
 * quicklist, and the conversions follow the fill. */
static void testListEdits(void) {
    for (int ql = 0; ql <= 1; ql++) {
        TEST(ql ? "list edits: quicklist" : "list edits: listpack");
        robj *o = ql ? createQuicklistObject(2, 0) : createListListpackObject();
        const char *items[] = {"a", "b", "1", "c", "b", "2"};
        for (int i = 0; i < 6; i++) vlistPush(o, items[i], strlen(items[i]), 1);
        CHECK(o->encoding == (ql ? OBJ_ENCODING_QUICKLIST : OBJ_ENCODING_LISTPACK) && valueLength(o) == 6);
        valueElem e;
        CHECK(vlistIndex(o, -1, &e) && elemIs(&e, "2") && vlistIndex(o, 2, &e) && elemIs(&e, "1"));
        CHECK(!vlistIndex(o, 6, &e) && !vlistIndex(o, -7, &e));
        CHECK(vlistReplaceAt(o, 0, "A", 1) && !vlistReplaceAt(o, 9, "z", 1));
        CHECK(vlistInsertAtPivot(o, "1", 1, "x", 1, 1) && !vlistInsertAtPivot(o, "nope", 4, "x", 1, 0));
        CHECK(vlistRemoveEqual(o, "b", 1, 1, 1) == 1); /* the last b */
        /* A b 1 x c b 2, less its last b. */
        const char *want[] = {"A", "b", "1", "x", "c", "2"};
        for (int i = 0; i < 6; i++) CHECK(vlistIndex(o, i, &e) && elemIs(&e, want[i]));
        CHECK(valueLength(o) == 6);
        vlistDelRange(o, 0, 1);
        vlistDelRange(o, -1, 1);
        vlistDelRange(o, 10, 3); /* past the end: nothing */
        CHECK(valueLength(o) == 4 && vlistIndex(o, 0, &e) && elemIs(&e, "b"));
        unsigned char *data;
        size_t sz;
        long long ll;
        CHECK(vlistPop(o, 1, &data, &sz, &ll) && sz == 1 && memcmp(data, "c", 1) == 0);
        zfree(data);
        CHECK(vlistPop(o, 0, &data, &sz, &ll) && sz == 1 && data[0] == 'b');
        zfree(data);
        CHECK(vlistPop(o, 0, &data, &sz, &ll) && data == NULL && ll == 1); /* stored as an integer */
        CHECK(vlistRemoveEqual(o, "x", 1, 0, 0) == 1 && valueLength(o) == 0);
        CHECK(!vlistPop(o, 0, &data, &sz, &ll));
        decrRefCount(o);
    }
    TEST("list conversions");
    robj *o = createListListpackObject();
    vlistGrowFor(o, 3, 1, 3, 4, 0);
    CHECK(o->encoding == OBJ_ENCODING_LISTPACK);
    for (int i = 0; i < 4; i++) vlistPush(o, "e", 1, 1);
    vlistGrowFor(o, 1, 1, 1, 4, 0); /* a fifth element breaks fill 4 */
    CHECK(o->encoding == OBJ_ENCODING_QUICKLIST && valueLength(o) == 4);
    vlistPush(o, "f", 1, 1);
    unsigned char *data;
    size_t sz;
    long long ll;
    CHECK(vlistPop(o, 1, &data, &sz, &ll));
    zfree(data);
    vlistTryCompact(o, 4, 1); /* 4 elements: more than half of 4 */
    CHECK(o->encoding == OBJ_ENCODING_QUICKLIST);
    vlistDelRange(o, 0, 2);
    vlistTryCompact(o, 4, 1);
    CHECK(o->encoding == OBJ_ENCODING_LISTPACK && valueLength(o) == 2);
    robj *copy = valueDup(o);
    CHECK(copy->encoding == OBJ_ENCODING_LISTPACK && valueLength(copy) == 2);
    decrRefCount(copy);
    valueBlob b;
    CHECK(valueBlobCount(o) == 1 && valueBlobNext(o, NULL, &b) && b.container == QUICKLIST_NODE_CONTAINER_PACKED);
    decrRefCount(o);
    /* Byte fills: one element over 8 KB cannot stay in a listpack. */
    o = createListListpackObject();
    vlistGrowFor(o, 9000, 9000, 1, -2, 0);
    CHECK(o->encoding == OBJ_ENCODING_QUICKLIST && valueLength(o) == 0);
    decrRefCount(o);
}

static void testList(void) {
    TEST("list");
    robj *o = makeList();
    CHECK(valueLength(o) == N);
    CHECK(walk(o, expectList) == N);
    /* From index 10 backwards from the tail: N-11, N-12, ... */
    valueIter it;
    valueItem item;
    valueIterInitAt(&it, o, 10, 1);
    CHECK(valueIterNext(&it, &item));
    char v[16];
    snprintf(v, sizeof(v), (N - 11) % 2 ? "%d" : "item%d", N - 11);
    CHECK(elemIs(&item.ele, v));
    valueIterDone(&it);
    valueIterInitAt(&it, o, N, 0); /* past the end: nothing */
    CHECK(!valueIterNext(&it, &item));
    valueIterDone(&it);
    size_t nodes = 0, bytes = 0;
    valueBlob b;
    for (const void *pos = NULL; (pos = valueBlobNext(o, pos, &b));) {
        nodes++;
        bytes += b.len;
        CHECK(b.container == QUICKLIST_NODE_CONTAINER_PACKED);
    }
    CHECK(nodes == valueBlobCount(o) && nodes == (N + 3) / 4 && bytes > 0);
    robj *copy = valueDup(o);
    CHECK(walk(copy, expectList) == N);
    decrRefCount(copy);
    vlistPush(o, "head", 4, 0);
    vlistPush(o, "tail", 4, 1);
    valueIterInit(&it, o);
    CHECK(valueIterNext(&it, &item) && elemIs(&item.ele, "head"));
    valueIterDone(&it);
    valueIterInitAt(&it, o, 0, 1);
    CHECK(valueIterNext(&it, &item) && elemIs(&item.ele, "tail") && valueLength(o) == N + 2);
    valueIterDone(&it);
    decrRefCount(o);
}

static int visited;
static int visitCount(const unsigned char *ele, size_t len, double score, void *ctx) {
    (void)ele;
    (void)len;
    (void)ctx;
    CHECK(score >= 10 && score <= 20);
    return ++visited < 5; /* stop after five */
}

static void testZset(void) {
    for (int sl = 0; sl <= 1; sl++) {
        TEST(sl ? "zset skiplist" : "zset listpack");
        robj *o = makeZset(sl ? &none : &small);
        CHECK(o->encoding == (sl ? OBJ_ENCODING_SKIPLIST : OBJ_ENCODING_LISTPACK));
        CHECK(valueLength(o) == N && zsetLength(o) == N);
        CHECK(walk(o, expectZset) == N);
        /* Reverse from rank 0: the highest first. */
        valueIter it;
        valueItem item;
        valueIterInitAt(&it, o, 0, 1);
        CHECK(valueIterNext(&it, &item) && item.score == N - 1 + 0.5);
        valueIterDone(&it);
        double score;
        sds m = sdsnew("m07");
        CHECK(zsetScore(o, m, &score) && score == 7.5);
        CHECK(zsetRank(o, m, 0) == 7 && zsetRank(o, m, 1) == N - 8);
        CHECK(zsetDel(o, m) && !zsetScore(o, m, &score) && valueLength(o) == N - 1);
        sdsfree(m);
        visited = 0;
        zrangespec r = {10, 20, 0, 0};
        zsetVisitScoreRange(o, &r, visitCount, NULL);
        CHECK(visited == 5);
        checkCommon(o, 1);
        decrRefCount(o);
    }
    TEST("zset conversions");
    robj *o = makeZset(&none);
    zsetConvertToListpackIfNeeded(o, 3, 3 * N, &small);
    CHECK(o->encoding == OBJ_ENCODING_LISTPACK && walk(o, expectZset) == N);
    zsetConvertToSkiplist(o);
    CHECK(o->encoding == OBJ_ENCODING_SKIPLIST && walk(o, expectZset) == N);
    decrRefCount(o);
    /* Growing past the entry limit converts for good. */
    zsetLimits tiny = {10, 64};
    o = makeZset(&tiny);
    CHECK(o->encoding == OBJ_ENCODING_SKIPLIST && walk(o, expectZset) == N);
    decrRefCount(o);
}

/* What a zset draw handed out: how many, each a member with its score,
 * and how often each member came. */
typedef struct zdrawn {
    robj *o;
    unsigned long n, stopAt;
    int ok;
    unsigned char seen[N];
} zdrawn;

static int collectMember(const unsigned char *ele, size_t len, double score, void *ctx) {
    zdrawn *d = ctx;
    sds m = sdsnewlen(ele, len);
    double held;
    int i = atoi(m + 1);
    if (m[0] != 'm' || i < 0 || i >= N || !zsetScore(d->o, m, &held) || held != score) d->ok = 0;
    else d->seen[i]++;
    sdsfree(m);
    return ++d->n != d->stopAt;
}

/* Random members, range parsing and building a result, in both encodings. */
static void testZsetLayer(void) {
    for (int sl = 0; sl <= 1; sl++) {
        TEST(sl ? "zset random members, skiplist" : "zset random members, listpack");
        robj *o = makeZset(sl ? &none : &small);
        zdrawn d = {.o = o, .ok = 1};
        zsetRandomMembers(o, 2500, collectMember, &d); /* repeats, past a batch */
        CHECK(d.ok && d.n == 2500);
        unsigned long counts[] = {4, N - 2};
        for (int k = 0; k < 2; k++) {
            d = (zdrawn){.o = o, .ok = 1};
            zsetRandomMembersDistinct(o, counts[k], collectMember, &d);
            CHECK(d.ok && d.n == counts[k] && distinctCount(d.seen) == (int)counts[k]);
            d = (zdrawn){.o = o, .ok = 1, .stopAt = 3};
            zsetRandomMembersDistinct(o, counts[k], collectMember, &d);
            CHECK(d.ok && d.n == 3);
        }
        d = (zdrawn){.o = o, .ok = 1, .stopAt = 1};
        zsetRandomMembers(o, 100, collectMember, &d);
        CHECK(d.ok && d.n == 1);
        decrRefCount(o);
    }

    TEST("zset bounds parsing");
    zbounds b;
    CHECK(zboundsParse(&b, 0, "(1", 2, "+inf", 4) == 0 && !b.lex && b.score.min == 1 && b.score.minex);
    zboundsFree(&b);
    CHECK(zboundsParse(&b, 0, "x", 1, "2", 1) == -1);
    CHECK(zboundsParse(&b, 1, "[a", 2, "(m05", 4) == 0 && b.lex);
    robj *o = makeZset(&small);
    CHECK(zsetCountBounds(o, &b) == 5); /* the members are m00..m49: m00..m04 */
    zboundsFree(&b);
    CHECK(zboundsParse(&b, 1, "a", 1, "+", 1) == -1); /* lex bounds start with [ ( - or + */
    decrRefCount(o);

    TEST("zset built from scratch");
    o = createZsetObject();
    zsetExpand(o, N);
    for (int i = 0; i < N; i++) {
        sds m = sdscatprintf(sdsempty(), "m%02d", i);
        zsetInsertNew(o, m, i + 0.5);
        sdsfree(m);
    }
    CHECK(zsetLength(o) == N && walk(o, expectZset) == N);
    zsetConvertToListpackIfNeeded(o, 3, 3 * N, &small);
    CHECK(o->encoding == OBJ_ENCODING_LISTPACK && walk(o, expectZset) == N);
    zsetExpand(o, 10); /* nothing for a listpack */
    CHECK(zsetLength(o) == N);
    decrRefCount(o);
}

static void testStrings(void) {
    TEST("strings");
    robj *s = createStringObject("hello", 5);
    CHECK(valueLength(s) == 0 && valueBlobCount(s) == 0);
    robj *copy = valueDup(s);
    CHECK(copy != s && equalStringObjects(copy, s));
    decrRefCount(copy);
    decrRefCount(s);
}


/* Keyspace objects holding a small listpack are packed between commands
 * (data/object.h): the key and the elements must read the same packed, after
 * an edit unpacks the object in place (its address kept) and once packed again. */
static void testPacked(void) {
    TEST("packed keyspace objects");
    robj *o = objectWithKey("key:1", 5, makeHash(0));
    robj *p = objectPack(o);
    CHECK(p && p != o && objectIsPacked(p) && !objectIsPacked(o));
    decrRefCount(o);
    o = p;
    CHECK(sdslen(objectKey(o)) == 5 && memcmp(objectKey(o), "key:1", 5) == 0);
    CHECK(valueLength(o) == N && walk(o, expectHashAny) == N);
    robj *copy = valueDup(o);
    CHECK(!copy->haskey && walk(copy, expectHashAny) == N);
    decrRefCount(copy);
    CHECK(objectPack(o) == NULL); /* packed already */
    /* An edit unpacks in place: the same object, its key and elements intact. */
    sds f = sdsnew("f1");
    CHECK(hashSet(o, f, "10", 2, &hashLim) == 1);
    CHECK(!objectIsPacked(o) && memcmp(objectKey(o), "key:1", 5) == 0 && walk(o, expectHashAny) == N);
    /* Same size: packed again where it is. */
    CHECK(objectPack(o) == o && objectIsPacked(o) && walk(o, expectHashAny) == N);
    /* Grown: packed again (in a new block when it outgrew its own); past the
     * limit: stays as it is. */
    sds big = sdsnew("bigfield");
    CHECK(hashSet(o, big, "0123456789012345678901234567890123456789", 40, &hashLim) == 0);
    p = objectPack(o); /* a new block unless this one had the room */
    CHECK(p && objectIsPacked(p) && valueLength(p) == N + 1);
    if (p != o) decrRefCount(o);
    o = p;
    for (int i = 0; i < 10; i++) {
        sds g = sdscatprintf(sdsempty(), "more%d", i);
        hashSet(o, g, "0123456789012345678901234567890123456789", 40, &hashLim);
        sdsfree(g);
    }
    CHECK(objectPack(o) == NULL && valueLength(o) == N + 11);
    incrRefCount(o); /* held elsewhere: not packed either */
    decrRefCount(o);
    decrRefCount(o);
    sdsfree(f);
    sdsfree(big);
    /* Lists, sets and sorted sets: edited packed through each layer's calls. */
    robj *l = createListListpackObject();
    vlistPush(l, "a", 1, 1);
    l = objectWithKeyPacked("l", 1, l);
    CHECK(objectIsPacked(l) && valueLength(l) == 1);
    vlistPush(l, "b", 1, 1);
    CHECK(!objectIsPacked(l) && valueLength(l) == 2 && memcmp(objectKey(l), "l", 1) == 0);
    decrRefCount(l);
    robj *st = setCreate(&(valueElem){(const unsigned char *)"m", 1, 0}, 1, &setLim);
    valueElem m = textElem("m");
    setAdd(st, &m, &setLim);
    st = objectWithKeyPacked("s", 1, st);
    CHECK(objectIsPacked(st) && setHas(st, &m) && setRemove(st, &m) == 1 && !objectIsPacked(st));
    decrRefCount(st);
    robj *z = objectWithKeyPacked("z", 1, createZsetListpackObject());
    int out;
    sds ele = sdsnew("x");
    CHECK(objectIsPacked(z) && zsetAdd(z, 1.0, ele, 0, &out, NULL, &small) && !objectIsPacked(z));
    CHECK(zsetLength(z) == 1);
    sdsfree(ele);
    decrRefCount(z);
}

int main(void) {
    testHash();
    testHashEdits();
    testSet();
    testSetEncodings();
    testList();
    testListEdits();
    testZset();
    testZsetLayer();
    testStrings();
    testPacked();
    return TEST_REPORT();
}
