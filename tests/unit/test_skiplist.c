/* test_skiplist: checks src/data/skiplist against a plain sorted array.
 * Random inserts, deletes and score updates are mirrored in the array; after
 * each step the skiplist's structure (order, spans, backward links, tail,
 * length) is verified, and ranks and range queries are compared with what a
 * linear scan of the array says. Range parsing is checked on the cases the
 * reference server accepts and rejects. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sds.h"
#include "core/zmalloc.h"
#include "data/skiplist.h"
#include "testhelp.h"

#define MAXELE 6

typedef struct {
    double score;
    size_t len;
    char ele[MAXELE];
} item;

typedef struct {
    item *v;
    size_t n, cap;
} model;

static int bytesCmp(const char *a, size_t al, const char *b, size_t bl) {
    size_t m = al < bl ? al : bl;
    int c = m ? memcmp(a, b, m) : 0;
    if (c) return c;
    return al < bl ? -1 : al > bl;
}

static int itemCmp(const item *a, const item *b) {
    if (a->score < b->score) return -1;
    if (a->score > b->score) return 1;
    return bytesCmp(a->ele, a->len, b->ele, b->len);
}

static long modelFindEle(const model *m, const char *ele, size_t len) {
    for (size_t i = 0; i < m->n; i++)
        if (bytesCmp(m->v[i].ele, m->v[i].len, ele, len) == 0) return (long)i;
    return -1;
}

static void modelInsert(model *m, item it) {
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->v = realloc(m->v, m->cap * sizeof(item));
    }
    size_t pos = 0;
    while (pos < m->n && itemCmp(&m->v[pos], &it) < 0) pos++;
    memmove(&m->v[pos + 1], &m->v[pos], (m->n - pos) * sizeof(item));
    m->v[pos] = it;
    m->n++;
}

static void modelRemoveAt(model *m, size_t pos) {
    memmove(&m->v[pos], &m->v[pos + 1], (m->n - pos - 1) * sizeof(item));
    m->n--;
}

/* Elements are drawn from a tiny binary alphabet so equal scores, shared
 * prefixes, empty strings and NUL/0xff bytes all occur often. */
static item randomItem(void) {
    static const char alphabet[] = {'a', 'b', '\0', (char)0xff};
    static const double scores[] = {-INFINITY, -1.5, 0, 0, 1, 2, 2, 3.25, INFINITY};
    item it;
    it.len = (size_t)(rand() % (MAXELE - 1));
    for (size_t i = 0; i < it.len; i++) it.ele[i] = alphabet[rand() % 4];
    it.score = scores[rand() % (int)(sizeof(scores) / sizeof(scores[0]))];
    return it;
}

/* Walks every level and checks the invariants, and that level 0 equals the model. */
static int structureOk(zskiplist *zsl, const model *m) {
    if (zsl->length != m->n) return 0;
    if (zsl->level < 1 || zsl->level > ZSKIPLIST_MAXLEVEL) return 0;
    /* Level 0: contents, backward links, tail. */
    zskiplistNode *x = zsl->header->level[0].forward, *prev = NULL;
    size_t i = 0;
    while (x) {
        if (i >= m->n) return 0;
        if (x->score != m->v[i].score && !(isinf(x->score) && x->score == m->v[i].score)) return 0;
        if (bytesCmp(x->ele, sdslen(x->ele), m->v[i].ele, m->v[i].len) != 0) return 0;
        if (x->backward != prev) return 0;
        if (x->level[0].span != 1 && x->level[0].forward) return 0;
        prev = x;
        x = x->level[0].forward;
        i++;
    }
    if (i != m->n || zsl->tail != prev) return 0;
    /* Upper levels: each forward link's span equals the rank difference. */
    for (int lvl = 0; lvl < zsl->level; lvl++) {
        zskiplistNode *n = zsl->header;
        unsigned long rank = 0;
        while (n->level[lvl].forward) {
            zskiplistNode *f = n->level[lvl].forward;
            unsigned long frank = zslGetRank(zsl, f->score, f->ele);
            if (frank != rank + n->level[lvl].span) return 0;
            rank = frank;
            n = f;
        }
    }
    /* The top level in use is not empty (unless the list is). */
    if (zsl->level > 1 && zsl->header->level[zsl->level - 1].forward == NULL) return 0;
    return 1;
}

static sds itemSds(const item *it) { return sdsnewlen(it->ele, it->len); }

/* Collects what range deletions report. */
typedef struct {
    size_t count;
    int in_order;
    item last;
} removedLog;

static void onRemoved(sds ele, double score, void *ctx) {
    removedLog *log = ctx;
    item it;
    it.score = score;
    it.len = sdslen(ele);
    memcpy(it.ele, ele, it.len);
    if (log->count && itemCmp(&log->last, &it) >= 0) log->in_order = 0;
    log->last = it;
    log->count++;
}

static zrangespec randomScoreRange(void) {
    static const double bounds[] = {-INFINITY, -2, -1.5, 0, 0.5, 1, 2, 3.25, 4, INFINITY};
    int nb = (int)(sizeof(bounds) / sizeof(bounds[0]));
    zrangespec r;
    r.min = bounds[rand() % nb];
    r.max = bounds[rand() % nb];
    r.minex = rand() % 2;
    r.maxex = rand() % 2;
    return r;
}

static int inScoreRange(double s, const zrangespec *r) {
    return (r->minex ? s > r->min : s >= r->min) && (r->maxex ? s < r->max : s <= r->max);
}

static void checkScoreRange(zskiplist *zsl, const model *m, const zrangespec *r, int *ok) {
    long first = -1, last = -1;
    for (size_t i = 0; i < m->n; i++)
        if (inScoreRange(m->v[i].score, r)) {
            if (first < 0) first = (long)i;
            last = (long)i;
        }
    zskiplistNode *f = zslFirstInRange(zsl, r), *l = zslLastInRange(zsl, r);
    if (first < 0) {
        if (f || l || zslCountInRange(zsl, r) != 0) *ok = 0;
        return;
    }
    if (!f || !l || !zslIsInRange(zsl, r)) {
        *ok = 0;
        return;
    }
    if (zslGetRank(zsl, f->score, f->ele) != (unsigned long)first + 1) *ok = 0;
    if (zslGetRank(zsl, l->score, l->ele) != (unsigned long)last + 1) *ok = 0;
    if (zslCountInRange(zsl, r) != (unsigned long)(last - first + 1)) *ok = 0;
}

static void testRandomOps(void) {
    TEST("random ops vs sorted array");
    zskiplist *zsl = zslCreate();
    model m = {0};
    int structure_ok = 1, ops_ok = 1, rank_ok = 1, range_ok = 1, delrange_ok = 1;
    for (int step = 0; step < 20000; step++) {
        int op = rand() % 100;
        item it = randomItem();
        long pos = modelFindEle(&m, it.ele, it.len);
        if (op < 45) {
            if (pos < 0) {
                sds e = itemSds(&it);
                zskiplistNode *n = zslInsert(zsl, it.score, e);
                if (!n || n->score != it.score || n->ele == e || sdscmp(n->ele, e) != 0) ops_ok = 0;
                /* The copy lives in the node's own allocation. */
                if (n && (n->ele < (char *)n || n->ele + sdslen(n->ele) >= (char *)n + zmalloc_size(n))) ops_ok = 0;
                sdsfree(e);
                modelInsert(&m, it);
            }
        } else if (op < 70) {
            /* Delete: either an existing element (with its score) or a miss. */
            sds key = itemSds(&it);
            if (pos >= 0 && rand() % 4) {
                if (zslDelete(zsl, m.v[pos].score, key) != 1) ops_ok = 0;
                modelRemoveAt(&m, (size_t)pos);
            } else if (pos < 0 || m.v[pos].score != it.score) {
                if (zslDelete(zsl, it.score, key) != 0) ops_ok = 0;
            }
            sdsfree(key);
        } else if (op < 88) {
            if (pos >= 0) {
                sds key = itemSds(&it);
                double old = m.v[pos].score;
                double nw = rand() % 3 ? it.score : old + (rand() % 3 - 1) * 1e-9;
                if (isinf(old)) nw = it.score;
                zskiplistNode *n = zslUpdateScore(zsl, old, key, nw);
                if (!n || n->score != nw || sdscmp(n->ele, key) != 0) ops_ok = 0;
                sdsfree(key);
                item moved = m.v[pos];
                moved.score = nw;
                modelRemoveAt(&m, (size_t)pos);
                modelInsert(&m, moved);
            }
        } else if (op < 97) {
            zrangespec r = randomScoreRange();
            checkScoreRange(zsl, &m, &r, &range_ok);
        } else if (op < 98) {
            zrangespec r = randomScoreRange();
            removedLog log = {.count = 0, .in_order = 1};
            size_t expect = 0;
            for (size_t i = 0; i < m.n;)
                if (inScoreRange(m.v[i].score, &r)) {
                    modelRemoveAt(&m, i);
                    expect++;
                } else {
                    i++;
                }
            if (zslDeleteRangeByScore(zsl, &r, onRemoved, &log) != expect) delrange_ok = 0;
            if (log.count != expect || !log.in_order) delrange_ok = 0;
        } else if (op < 99) {
            unsigned long start = (unsigned long)(rand() % (int)(m.n + 3));
            unsigned long end = start + (unsigned long)(rand() % 6);
            unsigned long s = start ? start : 1, e = end > m.n ? m.n : end;
            size_t expect = s <= e ? e - s + 1 : 0;
            for (size_t k = 0; k < expect; k++) modelRemoveAt(&m, s - 1);
            removedLog log = {.count = 0, .in_order = 1};
            if (zslDeleteRangeByRank(zsl, start, end, onRemoved, &log) != expect) delrange_ok = 0;
            if (log.count != expect || !log.in_order) delrange_ok = 0;
        }
        if (step % 7 == 0 || op >= 97) {
            if (!structureOk(zsl, &m)) structure_ok = 0;
            /* Every rank both ways, plus one past the end. */
            for (size_t i = 0; i < m.n; i++) {
                zskiplistNode *n = zslGetElementByRank(zsl, i + 1);
                if (!n || bytesCmp(n->ele, sdslen(n->ele), m.v[i].ele, m.v[i].len) != 0) {
                    rank_ok = 0;
                    continue;
                }
                if (zslGetRank(zsl, m.v[i].score, n->ele) != i + 1) rank_ok = 0;
            }
            if (zslGetElementByRank(zsl, m.n + 1) || zslGetElementByRank(zsl, 0)) rank_ok = 0;
        }
    }
    CHECK(structure_ok);
    CHECK(ops_ok);
    CHECK(rank_ok);
    CHECK(range_ok);
    CHECK(delrange_ok);
    CHECK(structureOk(zsl, &m));
    zslFree(zsl);
    free(m.v);
}

/* Lex tests use one score for all elements, as ZRANGEBYLEX assumes. */
static sds randomLexBound(item *as_item, int *is_marker) {
    int k = rand() % 10;
    *is_marker = 0;
    if (k == 0) {
        *is_marker = -1;
        return ZSL_LEX_MIN;
    }
    if (k == 1) {
        *is_marker = 1;
        return ZSL_LEX_MAX;
    }
    *as_item = randomItem();
    return itemSds(as_item);
}

static int lexInRange(const item *it, const zlexrangespec *r, int min_marker, int max_marker,
                      const item *minit, const item *maxit) {
    int ge, le;
    if (min_marker == -1)
        ge = 1;
    else if (min_marker == 1)
        ge = 0;
    else {
        int c = bytesCmp(it->ele, it->len, minit->ele, minit->len);
        ge = r->minex ? c > 0 : c >= 0;
    }
    if (max_marker == 1)
        le = 1;
    else if (max_marker == -1)
        le = 0;
    else {
        int c = bytesCmp(it->ele, it->len, maxit->ele, maxit->len);
        le = r->maxex ? c < 0 : c <= 0;
    }
    return ge && le;
}

static void testLex(void) {
    TEST("lex ranges");
    zskiplist *zsl = zslCreate();
    model m = {0};
    int range_ok = 1, del_ok = 1;
    for (int step = 0; step < 3000; step++) {
        item it = randomItem();
        it.score = 7;
        long pos = modelFindEle(&m, it.ele, it.len);
        int op = rand() % 10;
        if (op < 5) {
            if (pos < 0) {
                sds e = itemSds(&it);
                zslInsert(zsl, it.score, e);
                sdsfree(e);
                modelInsert(&m, it);
            }
        } else if (op < 7) {
            if (pos >= 0) {
                sds key = itemSds(&it);
                zslDelete(zsl, 7, key);
                sdsfree(key);
                modelRemoveAt(&m, (size_t)pos);
            }
        } else {
            zlexrangespec r;
            item minit, maxit;
            int minm, maxm;
            r.min = randomLexBound(&minit, &minm);
            r.max = randomLexBound(&maxit, &maxm);
            r.minex = rand() % 2;
            r.maxex = rand() % 2;
            long first = -1, last = -1;
            for (size_t i = 0; i < m.n; i++)
                if (lexInRange(&m.v[i], &r, minm, maxm, &minit, &maxit)) {
                    if (first < 0) first = (long)i;
                    last = (long)i;
                }
            /* The model's matches must be one contiguous run. */
            for (long i = first; first >= 0 && i <= last; i++)
                if (!lexInRange(&m.v[i], &r, minm, maxm, &minit, &maxit)) range_ok = 0;
            /* Membership tests on raw values agree with the model. */
            for (size_t i = 0; i < m.n; i++) {
                int want = lexInRange(&m.v[i], &r, minm, maxm, &minit, &maxit);
                int got = zslLexValueGteMin(m.v[i].ele, m.v[i].len, &r) &&
                          zslLexValueLteMax(m.v[i].ele, m.v[i].len, &r);
                if (want != got) range_ok = 0;
            }
            if (op == 9 && rand() % 3 == 0) {
                size_t expect = first < 0 ? 0 : (size_t)(last - first + 1);
                removedLog log = {.count = 0, .in_order = 1};
                if (zslDeleteRangeByLex(zsl, &r, onRemoved, &log) != expect) del_ok = 0;
                if (log.count != expect || !log.in_order) del_ok = 0;
                for (size_t k = 0; k < expect; k++) modelRemoveAt(&m, (size_t)first);
                if (!structureOk(zsl, &m)) del_ok = 0;
            } else {
                zskiplistNode *f = zslFirstInLexRange(zsl, &r), *l = zslLastInLexRange(zsl, &r);
                if (first < 0) {
                    if (f || l || zslCountInLexRange(zsl, &r)) range_ok = 0;
                } else if (!f || !l) {
                    range_ok = 0;
                } else {
                    if (zslGetRank(zsl, 7, f->ele) != (unsigned long)first + 1) range_ok = 0;
                    if (zslGetRank(zsl, 7, l->ele) != (unsigned long)last + 1) range_ok = 0;
                    if (zslCountInLexRange(zsl, &r) != (unsigned long)(last - first + 1))
                        range_ok = 0;
                }
            }
            zslFreeLexRange(&r);
        }
    }
    CHECK(range_ok);
    CHECK(del_ok);
    CHECK(structureOk(zsl, &m));
    zslFree(zsl);
    free(m.v);
}

static void testUpdateInPlace(void) {
    TEST("update keeps the node when order is unchanged");
    zskiplist *zsl = zslCreate();
    sds a = sdsnew("a"), key = sdsnew("b"), c = sdsnew("c");
    zslInsert(zsl, 1, a);
    zskiplistNode *b = zslInsert(zsl, 2, key);
    zslInsert(zsl, 3, c);
    sdsfree(a);
    sdsfree(c);
    CHECK(zslUpdateScore(zsl, 2, key, 2.5) == b);
    CHECK(zslUpdateScore(zsl, 2.5, key, 1) == b); /* ties break by element: a < b */
    CHECK(zslGetRank(zsl, 1, key) == 2);
    zskiplistNode *moved = zslUpdateScore(zsl, 1, key, 10);
    CHECK(moved->score == 10 && zsl->tail == moved);
    CHECK(zslGetRank(zsl, 10, key) == 3);
    CHECK(zslGetRank(zsl, 1, key) == 0);
    sdsfree(key);
    zslFree(zsl);
}

static void testLongElements(void) {
    TEST("elements of every sds header width live in their node");
    zskiplist *zsl = zslCreate();
    size_t lens[] = {0, 31, 32, 255, 256, 70000};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        sds e = sdsnewlen(NULL, lens[i]);
        memset(e, 'a' + (int)i, lens[i]);
        zskiplistNode *n = zslInsert(zsl, (double)i, e);
        CHECK(sdslen(n->ele) == lens[i] && memcmp(n->ele, e, lens[i]) == 0 && n->ele[lens[i]] == '\0');
        CHECK(n->ele > (char *)n && n->ele + lens[i] < (char *)n + zmalloc_size(n));
        CHECK(zslGetRank(zsl, (double)i, e) == i + 1);
        sdsfree(e);
    }
    sds e = sdsnewlen(NULL, 256);
    memset(e, 'a' + 4, 256);
    CHECK(zslDelete(zsl, 4, e) == 1 && zsl->length == 5);
    sdsfree(e);
    zslFree(zsl);
}

static void testParse(void) {
    TEST("score range parsing");
    zrangespec r;
#define P(a, b) zslParseRange(a, strlen(a), b, strlen(b), &r)
    CHECK(P("1", "2") == 0 && r.min == 1 && r.max == 2 && !r.minex && !r.maxex);
    CHECK(P("(1.5", "(2") == 0 && r.min == 1.5 && r.max == 2 && r.minex && r.maxex);
    CHECK(P("-inf", "+inf") == 0 && isinf(r.min) && r.min < 0 && isinf(r.max) && r.max > 0);
    CHECK(P("-Infinity", "inf") == 0);
    CHECK(P("", "1") == 0 && r.min == 0); /* strtod on "" yields 0 with nothing left */
    CHECK(P("(", "1") == 0 && r.min == 0 && r.minex);
    CHECK(P(" 1", "2") == 0 && r.min == 1);
    CHECK(P("0x10", "2") == 0 && r.min == 16);
    CHECK(P("1 ", "2") == -1);
    CHECK(P("nan", "2") == -1);
    CHECK(P("1", "(nan") == -1);
    CHECK(P("abc", "2") == -1);
    CHECK(P("[1", "2") == -1);
    CHECK(zslParseRange("1\0x", 3, "2", 1, &r) == 0 && r.min == 1);
    /* Long arguments take the heap path. */
    char lng[300];
    memset(lng, '0', sizeof(lng) - 2);
    lng[sizeof(lng) - 2] = '7';
    lng[sizeof(lng) - 1] = '\0';
    CHECK(P(lng, "8") == 0 && r.min == 7);
#undef P

    TEST("lex range parsing");
    zlexrangespec l;
#define L(a, b) zslParseLexRange(a, strlen(a), b, strlen(b), &l)
    CHECK(L("-", "+") == 0 && l.min == ZSL_LEX_MIN && l.max == ZSL_LEX_MAX);
    zslFreeLexRange(&l);
    CHECK(L("[a", "(b") == 0 && !l.minex && l.maxex && strcmp(l.min, "a") == 0 &&
          strcmp(l.max, "b") == 0);
    CHECK(zslLexValueGteMin("a", 1, &l) && zslLexValueLteMax("a", 1, &l));
    CHECK(!zslLexValueLteMax("b", 1, &l) && zslLexValueLteMax("az", 2, &l));
    zslFreeLexRange(&l);
    CHECK(L("[", "(") == 0 && sdslen(l.min) == 0 && sdslen(l.max) == 0);
    CHECK(zslLexRangeIsEmpty(&l));
    zslFreeLexRange(&l);
    CHECK(L("+", "-") == 0 && zslLexRangeIsEmpty(&l));
    zslFreeLexRange(&l);
    CHECK(L("-", "-") == 0 && zslLexRangeIsEmpty(&l));
    zslFreeLexRange(&l);
    CHECK(L("[b", "[a") == 0 && zslLexRangeIsEmpty(&l));
    zslFreeLexRange(&l);
    CHECK(L("[a", "[a") == 0 && !zslLexRangeIsEmpty(&l));
    zslFreeLexRange(&l);
    CHECK(L("a", "+") == -1);
    CHECK(L("+x", "+") == -1);
    CHECK(L("-", "") == -1);
    CHECK(L("[a", "b") == -1); /* the min already parsed must not leak (ASan checks) */
#undef L
}

int main(void) {
    srand(12345);
    srandom(12345);
    testParse();
    testUpdateInPlace();
    testLongElements();
    testRandomOps();
    testLex();
    size_t leaked = zmalloc_used_memory();
    TEST("no leaks");
    CHECK(leaked == 0);
    if (leaked) fprintf(stderr, "zmalloc_used_memory() = %zu\n", leaked);
    return TEST_REPORT();
}
