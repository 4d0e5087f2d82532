/* skiplist: ordered index of a sorted set with O(log n) rank queries
 * (see skiplist.h for the ordering and the span invariant).
 *
 * Span convention: for a link whose forward node is not NULL, span is the
 * rank difference between the two nodes; for a NULL link it is the number of
 * nodes after the link's owner, which keeps insertions arithmetic uniform.
 * The header is rank 0. */
#include "data/skiplist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/memprefetch.h"
#include "core/zmalloc.h"

char zslLexMinMarker[1], zslLexMaxMarker[1];

/* The element lives in the node, after its levels: one allocation instead
 * of two, and a search that compares elements on a tied score reads the
 * node's own bytes instead of following a pointer to another cache miss. */
static zskiplistNode *createNode(int level, double score, const sds ele) {
    size_t links = sizeof(zskiplistNode) + (size_t)level * sizeof(struct zskiplistLevel);
    zskiplistNode *n = zmalloc(links + (ele ? sdsEmbeddedSize(sdslen(ele)) : 0));
    n->score = score;
    n->ele = ele ? sdsEmbed((char *)n + links, ele, sdslen(ele)) : NULL;
    n->backward = NULL;
    for (int i = 0; i < level; i++) {
        n->level[i].forward = NULL;
        n->level[i].span = 0;
    }
    return n;
}

zskiplist *zslCreate(void) {
    zskiplist *zsl = zmalloc(sizeof(*zsl));
    zsl->level = 1;
    zsl->length = 0;
    zsl->header = createNode(ZSKIPLIST_MAXLEVEL, 0, NULL);
    zsl->tail = NULL;
    return zsl;
}

void zslFree(zskiplist *zsl) {
    zskiplistNode *x = zsl->header->level[0].forward;
    while (x) {
        zskiplistNode *next = x->level[0].forward;
        zfree(x);
        x = next;
    }
    zfree(zsl->header);
    zfree(zsl);
}

int zslRandomLevel(void) {
    /* random() gives 31 bits; 16 of them are plenty for a 1/4 coin. */
    const long threshold = (long)(ZSKIPLIST_P * 0x10000);
    int level = 1;
    while (level < ZSKIPLIST_MAXLEVEL && (random() & 0xFFFF) < threshold) level++;
    return level;
}

/* Byte order of elements: memcmp of the common prefix, then the shorter first. */
static int bytesCompare(const char *a, size_t alen, const char *b, size_t blen) {
    size_t min = alen < blen ? alen : blen;
    int cmp = min ? memcmp(a, b, min) : 0;
    if (cmp) return cmp;
    return alen < blen ? -1 : (alen > blen ? 1 : 0);
}

/* Does node n come strictly before the key (score, ele)? */
static int nodeBefore(const zskiplistNode *n, double score, sds ele) {
    return n->score < score || (n->score == score && sdscmp(n->ele, ele) < 0);
}

/* One search for the predecessors of (score, ele): at node x on level
 * `level`, having passed `traversed` nodes. */
typedef struct {
    zskiplistNode *x, **update;
    unsigned long traversed, *rank;
    double score;
    int level;
} zslSearch;

/* The link the search compares next, and the one it takes if it drops a
 * level after it: in a big list each is a cache miss, and the second one's
 * address is already known, so both loads start now. */
static inline zskiplistNode *searchNext(zslSearch *s) {
    zskiplistNode *f = s->x->level[s->level].forward;
    if (f) prefetchLine(f);
    if (s->level > 0) prefetchLine(s->x->level[s->level - 1].forward);
    return f;
}

/* One step: forward to f when it comes before the key, else down a level. */
static inline void searchStep(zslSearch *s, zskiplistNode *f, sds ele) {
    if (f && nodeBefore(f, s->score, ele)) {
        s->traversed += s->x->level[s->level].span;
        s->x = f;
    } else {
        s->update[s->level] = s->x;
        if (s->rank) s->rank[s->level] = s->traversed;
        s->level--;
    }
}

/* Fills update[i] with the last node on level i that comes before (score, ele)
 * and, when rank is not NULL, rank[i] with that node's rank. */
static void findPredecessors(zskiplist *zsl, double score, sds ele,
                             zskiplistNode **update, unsigned long *rank) {
    zslSearch s = {zsl->header, update, 0, rank, score, zsl->level - 1};
    while (s.level >= 0) searchStep(&s, searchNext(&s), ele);
}

/* findPredecessors for (score_a, ele) and (score_b, ele) at once: the two
 * searches step in turn, each step's loads issued before either compares, so
 * their cache misses overlap instead of following each other. */
static void findBothPredecessors(zskiplist *zsl, sds ele, double score_a, zskiplistNode **update_a,
                                 unsigned long *rank_a, double score_b, zskiplistNode **update_b,
                                 unsigned long *rank_b) {
    zslSearch a = {zsl->header, update_a, 0, rank_a, score_a, zsl->level - 1};
    zslSearch b = {zsl->header, update_b, 0, rank_b, score_b, zsl->level - 1};
    while (a.level >= 0 && b.level >= 0) {
        zskiplistNode *fa = searchNext(&a), *fb = searchNext(&b);
        searchStep(&a, fa, ele);
        searchStep(&b, fb, ele);
    }
    while (a.level >= 0) searchStep(&a, searchNext(&a), ele);
    while (b.level >= 0) searchStep(&b, searchNext(&b), ele);
}

/* Links an already allocated node (of level `level`) after its predecessors
 * update[] (with their ranks). */
static void linkNodeAt(zskiplist *zsl, zskiplistNode *x, int level, zskiplistNode **update,
                       unsigned long *rank) {
    if (level > zsl->level) {
        for (int i = zsl->level; i < level; i++) {
            rank[i] = 0;
            update[i] = zsl->header;
            update[i]->level[i].span = zsl->length;
        }
        zsl->level = level;
    }
    for (int i = 0; i < level; i++) {
        x->level[i].forward = update[i]->level[i].forward;
        update[i]->level[i].forward = x;
        /* update[i] was rank[i] and x lands at rank[0] + 1. */
        x->level[i].span = update[i]->level[i].span - (rank[0] - rank[i]);
        update[i]->level[i].span = (rank[0] - rank[i]) + 1;
    }
    /* Links above x's height now jump over one more node. */
    for (int i = level; i < zsl->level; i++) update[i]->level[i].span++;

    x->backward = (update[0] == zsl->header) ? NULL : update[0];
    if (x->level[0].forward)
        x->level[0].forward->backward = x;
    else
        zsl->tail = x;
    zsl->length++;
}

/* Links an already allocated node (of level `level`) at its sorted place. */
static void linkNode(zskiplist *zsl, zskiplistNode *x, int level) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    unsigned long rank[ZSKIPLIST_MAXLEVEL];
    findPredecessors(zsl, x->score, x->ele, update, rank);
    linkNodeAt(zsl, x, level, update, rank);
}

zskiplistNode *zslInsert(zskiplist *zsl, double score, const sds ele) {
    int level = zslRandomLevel();
    zskiplistNode *x = createNode(level, score, ele);
    linkNode(zsl, x, level);
    return x;
}

/* Unlinks x given its predecessors on every level; does not free it. */
static void unlinkNode(zskiplist *zsl, zskiplistNode *x, zskiplistNode **update) {
    for (int i = 0; i < zsl->level; i++) {
        if (update[i]->level[i].forward == x) {
            update[i]->level[i].span += x->level[i].span - 1;
            update[i]->level[i].forward = x->level[i].forward;
        } else {
            update[i]->level[i].span -= 1;
        }
    }
    if (x->level[0].forward)
        x->level[0].forward->backward = x->backward;
    else
        zsl->tail = x->backward;
    while (zsl->level > 1 && zsl->header->level[zsl->level - 1].forward == NULL) zsl->level--;
    zsl->length--;
}

/* Number of levels a node was created with: the levels whose predecessor
 * links point at it. Only needed when a node is relinked. */
static int nodeHeight(zskiplist *zsl, zskiplistNode *x, zskiplistNode **update) {
    int h = 0;
    while (h < zsl->level && update[h]->level[h].forward == x) h++;
    return h;
}

int zslDelete(zskiplist *zsl, double score, sds ele) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    findPredecessors(zsl, score, ele, update, NULL);
    zskiplistNode *x = update[0]->level[0].forward;
    if (!x || x->score != score || sdscmp(x->ele, ele) != 0) return 0;
    unlinkNode(zsl, x, update);
    zfree(x);
    return 1;
}

zskiplistNode *zslUpdateScore(zskiplist *zsl, double curscore, sds ele, double newscore) {
    /* Where the element is and where it goes, found together. */
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *dest[ZSKIPLIST_MAXLEVEL];
    unsigned long rank[ZSKIPLIST_MAXLEVEL], dest_rank[ZSKIPLIST_MAXLEVEL];
    findBothPredecessors(zsl, ele, curscore, update, rank, newscore, dest, dest_rank);
    zskiplistNode *x = update[0]->level[0].forward;
    /* The caller guarantees presence; a miss is a caller bug. */
    if (!x || x->score != curscore || sdscmp(x->ele, ele) != 0) abort();

    /* In place when x stays strictly between its neighbours. */
    zskiplistNode *prev = x->backward, *next = x->level[0].forward;
    if ((!prev || nodeBefore(prev, newscore, x->ele)) &&
        (!next || !nodeBefore(next, newscore, x->ele))) {
        x->score = newscore;
        return x;
    }
    /* Otherwise move the node itself: same allocation, same sds. dest was
     * found with x still in the list: where it is x itself, x's own
     * predecessor takes its place, and the ranks past x drop by one. */
    unsigned long x_rank = rank[0] + 1;
    for (int i = 0; i < zsl->level; i++) {
        if (dest[i] == x) {
            dest[i] = update[i];
            dest_rank[i] = rank[i];
        } else if (dest_rank[i] > x_rank) {
            dest_rank[i]--;
        }
    }
    int height = nodeHeight(zsl, x, update);
    unlinkNode(zsl, x, update);
    x->score = newscore;
    linkNodeAt(zsl, x, height, dest, dest_rank);
    return x;
}

unsigned long zslGetRank(zskiplist *zsl, double score, sds ele) {
    zskiplistNode *x = zsl->header;
    unsigned long rank = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward &&
               (nodeBefore(x->level[i].forward, score, ele) ||
                (x->level[i].forward->score == score && sdscmp(x->level[i].forward->ele, ele) == 0))) {
            rank += x->level[i].span;
            x = x->level[i].forward;
        }
        if (x->ele && x->score == score && sdscmp(x->ele, ele) == 0) return rank;
    }
    return 0;
}

zskiplistNode *zslGetElementByRank(zskiplist *zsl, unsigned long rank) {
    if (rank == 0 || rank > zsl->length) return NULL;
    zskiplistNode *x = zsl->header;
    unsigned long traversed = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && traversed + x->level[i].span <= rank) {
            traversed += x->level[i].span;
            x = x->level[i].forward;
        }
        if (traversed == rank) return x;
    }
    return NULL;
}

/* ---- score ranges ---- */

int zslValueGteMin(double value, const zrangespec *spec) {
    return spec->minex ? (value > spec->min) : (value >= spec->min);
}

int zslValueLteMax(double value, const zrangespec *spec) {
    return spec->maxex ? (value < spec->max) : (value <= spec->max);
}

int zslIsInRange(zskiplist *zsl, const zrangespec *range) {
    if (range->min > range->max || (range->min == range->max && (range->minex || range->maxex)))
        return 0;
    if (!zsl->tail || !zslValueGteMin(zsl->tail->score, range)) return 0;
    zskiplistNode *first = zsl->header->level[0].forward;
    return zslValueLteMax(first->score, range);
}

zskiplistNode *zslFirstInRange(zskiplist *zsl, const zrangespec *range) {
    if (!zslIsInRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && !zslValueGteMin(x->level[i].forward->score, range))
            x = x->level[i].forward;
    /* The tail is >= min (checked above), so a next node exists. */
    x = x->level[0].forward;
    return zslValueLteMax(x->score, range) ? x : NULL;
}

zskiplistNode *zslLastInRange(zskiplist *zsl, const zrangespec *range) {
    if (!zslIsInRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && zslValueLteMax(x->level[i].forward->score, range))
            x = x->level[i].forward;
    /* The first node is <= max (checked above), so x is not the header. */
    return zslValueGteMin(x->score, range) ? x : NULL;
}

/* Elements from first to last inclusive, by their ranks. */
static unsigned long countBetween(zskiplist *zsl, zskiplistNode *first, zskiplistNode *last) {
    if (!first || !last) return 0;
    unsigned long a = zslGetRank(zsl, first->score, first->ele);
    unsigned long b = zslGetRank(zsl, last->score, last->ele);
    return b >= a ? b - a + 1 : 0;
}

unsigned long zslCountInRange(zskiplist *zsl, const zrangespec *range) {
    return countBetween(zsl, zslFirstInRange(zsl, range), zslLastInRange(zsl, range));
}

/* ---- lex ranges ---- */

/* Compares a value with a bound that may be one of the markers. */
static int lexCompareWithBound(const char *s, size_t len, sds bound) {
    if (bound == ZSL_LEX_MIN) return 1;
    if (bound == ZSL_LEX_MAX) return -1;
    return bytesCompare(s, len, bound, sdslen(bound));
}

int zslLexValueGteMin(const char *s, size_t len, const zlexrangespec *spec) {
    int cmp = lexCompareWithBound(s, len, spec->min);
    return spec->minex ? cmp > 0 : cmp >= 0;
}

int zslLexValueLteMax(const char *s, size_t len, const zlexrangespec *spec) {
    int cmp = lexCompareWithBound(s, len, spec->max);
    return spec->maxex ? cmp < 0 : cmp <= 0;
}

int zslLexRangeIsEmpty(const zlexrangespec *spec) {
    int cmp;
    if (spec->min == spec->max)
        cmp = 0; /* same marker */
    else if (spec->min == ZSL_LEX_MIN || spec->max == ZSL_LEX_MAX)
        cmp = -1;
    else if (spec->min == ZSL_LEX_MAX || spec->max == ZSL_LEX_MIN)
        cmp = 1;
    else
        cmp = sdscmp(spec->min, spec->max);
    return cmp > 0 || (cmp == 0 && (spec->minex || spec->maxex));
}

static int nodeLexGteMin(const zskiplistNode *n, const zlexrangespec *range) {
    return zslLexValueGteMin(n->ele, sdslen(n->ele), range);
}

static int nodeLexLteMax(const zskiplistNode *n, const zlexrangespec *range) {
    return zslLexValueLteMax(n->ele, sdslen(n->ele), range);
}

int zslIsInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (zslLexRangeIsEmpty(range)) return 0;
    if (!zsl->tail || !nodeLexGteMin(zsl->tail, range)) return 0;
    return nodeLexLteMax(zsl->header->level[0].forward, range);
}

zskiplistNode *zslFirstInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (!zslIsInLexRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && !nodeLexGteMin(x->level[i].forward, range))
            x = x->level[i].forward;
    x = x->level[0].forward;
    return x && nodeLexLteMax(x, range) ? x : NULL;
}

zskiplistNode *zslLastInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (!zslIsInLexRange(zsl, range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && nodeLexLteMax(x->level[i].forward, range))
            x = x->level[i].forward;
    return x != zsl->header && nodeLexGteMin(x, range) ? x : NULL;
}

unsigned long zslCountInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    return countBetween(zsl, zslFirstInLexRange(zsl, range), zslLastInLexRange(zsl, range));
}

/* ---- range deletions ---- */

/* Removes nodes from update[0]'s successor on while keep_going says so.
 * Deleted nodes always sit right after update[i] on each level they have,
 * so update[] stays correct through the whole run. */
typedef int rangeTestFn(const zskiplistNode *n, const void *range);

static unsigned long deleteRun(zskiplist *zsl, zskiplistNode **update, rangeTestFn *keep_going,
                               const void *range, unsigned long limit,
                               zslRemovedFn *removed, void *ctx) {
    unsigned long count = 0;
    zskiplistNode *x = update[0]->level[0].forward;
    while (x && count < limit && (!keep_going || keep_going(x, range))) {
        zskiplistNode *next = x->level[0].forward;
        unlinkNode(zsl, x, update);
        if (removed) removed(x->ele, x->score, ctx);
        zfree(x);
        count++;
        x = next;
    }
    return count;
}

static int scoreLteMaxTest(const zskiplistNode *n, const void *range) {
    return zslValueLteMax(n->score, range);
}

static int lexLteMaxTest(const zskiplistNode *n, const void *range) {
    return nodeLexLteMax(n, range);
}

unsigned long zslDeleteRangeByScore(zskiplist *zsl, const zrangespec *range,
                                    zslRemovedFn *removed, void *ctx) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && !zslValueGteMin(x->level[i].forward->score, range))
            x = x->level[i].forward;
        update[i] = x;
    }
    return deleteRun(zsl, update, scoreLteMaxTest, range, (unsigned long)-1, removed, ctx);
}

unsigned long zslDeleteRangeByLex(zskiplist *zsl, const zlexrangespec *range,
                                  zslRemovedFn *removed, void *ctx) {
    if (zslLexRangeIsEmpty(range)) return 0;
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && !nodeLexGteMin(x->level[i].forward, range))
            x = x->level[i].forward;
        update[i] = x;
    }
    return deleteRun(zsl, update, lexLteMaxTest, range, (unsigned long)-1, removed, ctx);
}

unsigned long zslDeleteRangeByRank(zskiplist *zsl, unsigned long start, unsigned long end,
                                   zslRemovedFn *removed, void *ctx) {
    if (start == 0) start = 1;
    if (end > zsl->length) end = zsl->length;
    if (start > end) return 0;
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zsl->header;
    unsigned long traversed = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && traversed + x->level[i].span < start) {
            traversed += x->level[i].span;
            x = x->level[i].forward;
        }
        update[i] = x;
    }
    return deleteRun(zsl, update, NULL, NULL, end - start + 1, removed, ctx);
}

/* ---- parsing of client arguments ---- */

int zslParseScoreBound(const char *s, size_t len, double *value, int *exclusive) {
    int ex = 0;
    if (len > 0 && s[0] == '(') {
        ex = 1;
        s++;
        len--;
    }
    /* strtod needs a terminated string; client arguments are short. */
    char stackbuf[128];
    char *buf = len < sizeof(stackbuf) ? stackbuf : zmalloc(len + 1);
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    double v = strtod(buf, &end);
    /* Like Redis, parsing stops at an embedded NUL and that counts as the end. */
    int ok = *end == '\0' && !isnan(v);
    if (buf != stackbuf) zfree(buf);
    if (!ok) return -1;
    *value = v;
    *exclusive = ex;
    return 0;
}

int zslParseRange(const char *min, size_t minlen, const char *max, size_t maxlen,
                  zrangespec *spec) {
    zrangespec r;
    if (zslParseScoreBound(min, minlen, &r.min, &r.minex) != 0) return -1;
    if (zslParseScoreBound(max, maxlen, &r.max, &r.maxex) != 0) return -1;
    *spec = r;
    return 0;
}

int zslParseLexBound(const char *s, size_t len, sds *bound, int *exclusive) {
    if (len == 0) return -1;
    switch (s[0]) {
    case '+':
        if (len != 1) return -1;
        *bound = ZSL_LEX_MAX;
        *exclusive = 1;
        return 0;
    case '-':
        if (len != 1) return -1;
        *bound = ZSL_LEX_MIN;
        *exclusive = 1;
        return 0;
    case '(':
    case '[':
        *bound = sdsnewlen(s + 1, len - 1);
        *exclusive = s[0] == '(';
        return 0;
    default:
        return -1;
    }
}

static void freeLexBound(sds bound) {
    if (bound != ZSL_LEX_MIN && bound != ZSL_LEX_MAX) sdsfree(bound);
}

int zslParseLexRange(const char *min, size_t minlen, const char *max, size_t maxlen,
                     zlexrangespec *spec) {
    zlexrangespec r;
    if (zslParseLexBound(min, minlen, &r.min, &r.minex) != 0) return -1;
    if (zslParseLexBound(max, maxlen, &r.max, &r.maxex) != 0) {
        freeLexBound(r.min);
        return -1;
    }
    *spec = r;
    return 0;
}

void zslFreeLexRange(zlexrangespec *spec) {
    freeLexBound(spec->min);
    freeLexBound(spec->max);
    spec->min = spec->max = NULL;
}
