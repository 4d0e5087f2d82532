/* t_zset: the sorted-set value in both encodings (see t_zset.h). */
#include "data/t_zset.h"
#include "core/dict.h"
#include "core/panic.h"
#include "core/numparse.h"
#include "core/zmalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Orders the member entry at p against (s, len) as the skiplist does:
 * memcmp of the common part, then the shorter first. */
static int zzlCompareMember(unsigned char *p, const char *s, size_t len) {
    unsigned char buf[ZSET_MEMBER_BUF];
    uint32_t plen;
    unsigned char *ps = lpGetString(p, &plen, buf);
    size_t min = plen < len ? plen : len;
    int cmp = min ? memcmp(ps, s, min) : 0;
    if (cmp) return cmp;
    return (plen > len) - (plen < len);
}

/* The member entry holding ele (and its score), or NULL. */
static unsigned char *zzlFind(unsigned char *lp, const char *ele, size_t len, double *score) {
    unsigned char *p = lpFirst(lp);
    if (!p) return NULL;
    p = lpFind(lp, p, (const unsigned char *)ele, (uint32_t)len, 1);
    if (p && score) *score = zzlScoreAt(lpNext(lp, p));
    return p;
}

/* Inserts the pair before the member entry p, or appends when p is NULL. */
static unsigned char *zzlInsertAt(unsigned char *lp, unsigned char *p, const char *ele, size_t len,
                                  double score) {
    long long ll;
    char buf[MAX_D2STRING_CHARS];
    int isint = double2ll(score, &ll), blen = isint ? 0 : d2string(buf, sizeof(buf), score);
    if (!p) {
        lp = lpAppend(lp, (const unsigned char *)ele, (uint32_t)len);
        return isint ? lpAppendInteger(lp, ll) : lpAppend(lp, (unsigned char *)buf, (uint32_t)blen);
    }
    unsigned char *mp;
    lp = lpInsertString(lp, (const unsigned char *)ele, (uint32_t)len, p, LP_BEFORE, &mp);
    if (isint) return lpInsertInteger(lp, ll, mp, LP_AFTER, NULL);
    return lpInsertString(lp, (unsigned char *)buf, (uint32_t)blen, mp, LP_AFTER, NULL);
}

/* Inserts the pair at its place in the order. */
static unsigned char *zzlInsert(unsigned char *lp, const char *ele, size_t len, double score) {
    unsigned char *p = lpFirst(lp);
    while (p) {
        unsigned char *sp = lpNext(lp, p);
        double s = zzlScoreAt(sp);
        if (s > score || (s == score && zzlCompareMember(p, ele, len) > 0)) break;
        p = lpNext(lp, sp);
    }
    return zzlInsertAt(lp, p, ele, len, score);
}

/* ================================================== both encodings */

unsigned long zsetLength(robj *zobj) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return lpLength(objectPtr(zobj)) / 2;
    return ((zset *)objectPtr(zobj))->zsl->length;
}

/* Adds a member known to be absent (a copy of ele) to a skiplist zset. */
static void zsInsertNew(zset *zs, const sds ele, double score) {
    dictAddItem(zs->dict, zslInsert(zs->zsl, score, ele));
}

void zsetInsertNew(robj *zobj, const sds ele, double score) { zsInsertNew(objectPtr(zobj), ele, score); }

void zsetExpand(robj *zobj, unsigned long n) {
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) dictExpand(((zset *)objectPtr(zobj))->dict, n);
}

void zsetConvertToSkiplist(robj *zobj) {
    unsigned char *lp = objectPtrForWrite(zobj), *p = lpFirst(lp);
    zset *zs = zmalloc(sizeof(*zs));
    zs->dict = dictCreate(&zsetDictType);
    zs->zsl = zslCreate();
    unsigned long n = lpLength(lp) / 2;
    if (n) dictExpand(zs->dict, n);
    lpEntry m, s;
    while (lpNextPair(lp, &p, &m, &s)) {
        sds ele = m.sval ? sdsnewlen(m.sval, m.slen) : sdsfromlonglong(m.lval);
        /* A member twice: a payload RESTOREd without sanitize-dump-payload. */
        if (dictFind(zs->dict, ele)) serverPanic("Zset listpack corruption detected (dup elements)");
        zsInsertNew(zs, ele, lpEntryToDouble(&s));
        sdsfree(ele);
    }
    lpFree(lp);
    objectSetPtr(zobj, zs);
    zobj->encoding = OBJ_ENCODING_SKIPLIST;
}

void zsetConvertToListpackIfNeeded(robj *zobj, size_t maxelelen, size_t totelelen, const zsetLimits *lim) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return;
    zset *zs = objectPtr(zobj);
    if (zs->zsl->length > lim->max_entries || maxelelen > lim->max_value ||
        !lpSafeToAdd(NULL, totelelen))
        return;
    unsigned char *lp = lpNew(0);
    for (zskiplistNode *n = zs->zsl->header->level[0].forward; n; n = n->level[0].forward)
        lp = zzlInsertAt(lp, NULL, n->ele, sdslen(n->ele), n->score);
    dictRelease(zs->dict);
    zslFree(zs->zsl);
    zfree(zs);
    objectSetPtr(zobj, lp);
    zobj->encoding = OBJ_ENCODING_LISTPACK;
}

robj *zsetCreateFor(size_t firstlen, const zsetLimits *lim) {
    if (lim->max_entries == 0 || lim->max_value < firstlen)
        return createZsetObject();
    return createZsetListpackObject();
}

int zsetScore(robj *zobj, sds ele, double *score) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return zzlFind(objectPtr(zobj), ele, sdslen(ele), score) != NULL;
    dictEntry *de = dictFind(((zset *)objectPtr(zobj))->dict, ele);
    if (!de) return 0;
    *score = zsetDictNode(de)->score;
    return 1;
}

/* What ZADD does to a member already present with score cur: applies INCR,
 * NX, GT and LT to *score. Returns 0 (with ZADD_OUT_NAN) when the result is
 * not a number; otherwise 1, with ZADD_OUT_UPDATED when the score changes. */
static int zaddExisting(int in, double cur, double *score, int *out, double *newscore) {
    if (in & ZADD_IN_NX) {
        *out |= ZADD_OUT_NOP;
        return 1;
    }
    if (in & ZADD_IN_INCR) {
        *score += cur;
        if (isnan(*score)) {
            *out |= ZADD_OUT_NAN;
            return 0;
        }
    }
    if (((in & ZADD_IN_LT) && *score >= cur) || ((in & ZADD_IN_GT) && *score <= cur)) {
        *out |= ZADD_OUT_NOP;
        return 1;
    }
    if (newscore) *newscore = *score;
    if (*score != cur) *out |= ZADD_OUT_UPDATED;
    return 1;
}

int zsetAdd(robj *zobj, double score, sds ele, int in, int *out, double *newscore, const zsetLimits *lim) {
    *out = 0;
    if (isnan(score)) {
        *out = ZADD_OUT_NAN;
        return 0;
    }
    size_t len = sdslen(ele);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        double cur;
        unsigned char *p = zzlFind(objectPtrForWrite(zobj), ele, len, &cur);
        if (p) {
            if (!zaddExisting(in, cur, &score, out, newscore)) return 0;
            if (*out & ZADD_OUT_UPDATED) {
                objectSetPtr(zobj, lpDeleteRangeWithEntry(objectPtr(zobj), &p, 2));
                objectSetPtr(zobj, zzlInsert(objectPtr(zobj), ele, len, score));
            }
            return 1;
        }
        if (in & ZADD_IN_XX) {
            *out |= ZADD_OUT_NOP;
            return 1;
        }
        if (lpLength(objectPtr(zobj)) / 2 + 1 <= lim->max_entries &&
            len <= lim->max_value && lpSafeToAdd(objectPtr(zobj), len)) {
            objectSetPtr(zobj, zzlInsert(objectPtr(zobj), ele, len, score));
            if (newscore) *newscore = score;
            *out |= ZADD_OUT_ADDED;
            return 1;
        }
        zsetConvertToSkiplist(zobj); /* and add below */
    }
    zset *zs = objectPtr(zobj);
    dictEntry *de = dictFind(zs->dict, ele);
    if (de) {
        double cur = zsetDictNode(de)->score;
        if (!zaddExisting(in, cur, &score, out, newscore)) return 0;
        /* The node moves within the skiplist, the dict keeps holding it. */
        if (*out & ZADD_OUT_UPDATED) zslUpdateScore(zs->zsl, cur, ele, score);
        return 1;
    }
    if (in & ZADD_IN_XX) {
        *out |= ZADD_OUT_NOP;
        return 1;
    }
    zsInsertNew(zs, ele, score);
    if (newscore) *newscore = score;
    *out |= ZADD_OUT_ADDED;
    return 1;
}

int zsetDel(robj *zobj, sds ele) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = zzlFind(objectPtrForWrite(zobj), ele, sdslen(ele), NULL);
        if (!p) return 0;
        objectSetPtr(zobj, lpDeleteRangeWithEntry(objectPtr(zobj), &p, 2));
        return 1;
    }
    zset *zs = objectPtr(zobj);
    /* The dict held the node itself and has no destructor: once unlinked,
     * the node is the skiplist's to free. */
    dictEntry *de = dictUnlink(zs->dict, ele);
    if (!de) return 0;
    zslDelete(zs->zsl, zsetDictNode(de)->score, ele);
    return 1;
}

long zsetRank(robj *zobj, sds ele, int reverse) {
    unsigned long llen = zsetLength(zobj);
    long rank;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectPtr(zobj), *p = lpFirst(lp);
        rank = 0;
        while (p && !lpCompare(p, (unsigned char *)ele, (uint32_t)sdslen(ele))) {
            p = lpNext(lp, lpNext(lp, p));
            rank++;
        }
        if (!p) return -1;
    } else {
        zset *zs = objectPtr(zobj);
        dictEntry *de = dictFind(zs->dict, ele);
        if (!de) return -1;
        rank = (long)zslGetRank(zs->zsl, zsetDictNode(de)->score, ele) - 1;
    }
    return reverse ? (long)llen - 1 - rank : rank;
}

/* ---------------------------------------------------- cursor over a zset */

void zcurAtRank(zcursor *cur, robj *zobj, unsigned long rank, int reverse) {
    cur->reverse = reverse;
    cur->skiplist = zobj->encoding == OBJ_ENCODING_SKIPLIST;
    cur->lp = cur->p = NULL;
    cur->node = NULL;
    if (cur->skiplist) {
        zskiplist *zsl = ((zset *)objectPtr(zobj))->zsl;
        if (rank < zsl->length) cur->node = zslGetElementByRank(zsl, reverse ? zsl->length - rank : rank + 1);
    } else {
        cur->lp = objectPtr(zobj);
        if (rank < lpLength(cur->lp) / 2)
            cur->p = lpSeek(cur->lp, reverse ? -2 - 2 * (long)rank : 2 * (long)rank);
    }
}

/* ---------------------------------------------------- score / lex bounds */

int zboundsParse(zbounds *b, int lex, const char *min, size_t minlen, const char *max, size_t maxlen) {
    b->lex = lex;
    if (lex) return zslParseLexRange(min, minlen, max, maxlen, &b->lexr) == 0 ? 0 : -1;
    return zslParseRange(min, minlen, max, maxlen, &b->score) == 0 ? 0 : -1;
}

void zboundsFree(zbounds *b) {
    if (b->lex) zslFreeLexRange(&b->lexr);
}

/* 1 when cur's element is on the inner side of b's max bound (max = 1) or
 * of its min bound (max = 0). */
static int zcurWithinBound(const zcursor *cur, const zbounds *b, int max) {
    if (!b->lex) {
        double score = zcurScore(cur);
        return max ? zslValueLteMax(score, &b->score) : zslValueGteMin(score, &b->score);
    }
    unsigned char buf[ZSET_MEMBER_BUF];
    size_t len;
    const char *s = (const char *)zcurMember(cur, buf, &len);
    return max ? zslLexValueLteMax(s, len, &b->lexr) : zslLexValueGteMin(s, len, &b->lexr);
}

int zcurInsideFar(const zcursor *cur, const zbounds *b) {
    return zcurValid(cur) && zcurWithinBound(cur, b, !cur->reverse);
}

void zcurSeekBounds(zcursor *cur, robj *zobj, const zbounds *b, int reverse) {
    zcurAtRank(cur, zobj, 0, reverse);
    if (cur->skiplist) {
        zskiplist *zsl = ((zset *)objectPtr(zobj))->zsl;
        if (b->lex) cur->node = reverse ? zslLastInLexRange(zsl, &b->lexr) : zslFirstInLexRange(zsl, &b->lexr);
        else cur->node = reverse ? zslLastInRange(zsl, &b->score) : zslFirstInRange(zsl, &b->score);
        return;
    }
    while (zcurValid(cur) && !zcurWithinBound(cur, b, reverse)) zcurNext(cur);
    if (zcurValid(cur) && !zcurInsideFar(cur, b)) cur->p = NULL;
}

unsigned long zsetCountBounds(robj *zobj, const zbounds *b) {
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) {
        zskiplist *zsl = ((zset *)objectPtr(zobj))->zsl;
        return b->lex ? zslCountInLexRange(zsl, &b->lexr) : zslCountInRange(zsl, &b->score);
    }
    zcursor cur;
    unsigned long n = 0;
    zcurSeekBounds(&cur, zobj, b, 0);
    while (zcurInsideFar(&cur, b)) {
        n++;
        zcurNext(&cur);
    }
    return n;
}

static void removedFromSkiplist(sds ele, double score, void *dict) {
    (void)score;
    dictDelete(dict, ele);
}

unsigned long zsetDeleteBounds(robj *zobj, const zbounds *b) {
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) {
        zset *zs = objectPtr(zobj);
        if (b->lex) return zslDeleteRangeByLex(zs->zsl, &b->lexr, removedFromSkiplist, zs->dict);
        return zslDeleteRangeByScore(zs->zsl, &b->score, removedFromSkiplist, zs->dict);
    }
    zcursor cur;
    unsigned long n = 0;
    objectUnpack(zobj); /* the cursor points into the listpack it edits */
    zcurSeekBounds(&cur, zobj, b, 0);
    while (zcurInsideFar(&cur, b)) {
        cur.lp = lpDeleteRangeWithEntry(cur.lp, &cur.p, 2);
        n++;
    }
    objectSetPtr(zobj, cur.lp);
    return n;
}

unsigned long zsetDeleteRank(robj *zobj, long start, long end) {
    unsigned long n = (unsigned long)(end - start + 1);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        objectSetPtr(zobj, lpDeleteRange(objectPtrForWrite(zobj), 2 * start, 2 * n));
        return n;
    }
    zset *zs = objectPtr(zobj);
    return zslDeleteRangeByRank(zs->zsl, start + 1, end + 1, removedFromSkiplist, zs->dict);
}
void zsetVisitScoreRange(robj *zobj, const zrangespec *range, zsetVisitFn *visit, void *ctx) {
    zbounds b = {.lex = 0, .score = *range};
    zcursor cur;
    unsigned char buf[ZSET_MEMBER_BUF];
    size_t len;
    for (zcurSeekBounds(&cur, zobj, &b, 0); zcurInsideFar(&cur, &b); zcurNext(&cur)) {
        const unsigned char *ele = zcurMember(&cur, buf, &len);
        if (!visit(ele, len, zcurScore(&cur), ctx)) return;
    }
}

/* ---------------------------------------------------- random members */

/* A listpack pair handed on to a zsetVisitFn. */
typedef struct memberVisit {
    zsetVisitFn *visit;
    void *ctx;
} memberVisit;

static int visitLpMember(void *ctx, const lpEntry *m, const lpEntry *s) {
    memberVisit *mv = ctx;
    char buf[LONG_STR_SIZE];
    if (m->sval) return mv->visit(m->sval, m->slen, lpEntryToDouble(s), mv->ctx);
    int len = ll2string(buf, sizeof(buf), m->lval);
    return mv->visit((const unsigned char *)buf, (size_t)len, lpEntryToDouble(s), mv->ctx);
}

static int visitNode(const zskiplistNode *n, zsetVisitFn *visit, void *ctx) {
    return visit((const unsigned char *)n->ele, sdslen(n->ele), n->score, ctx);
}

void zsetRandomMembers(robj *zobj, unsigned long count, zsetVisitFn *visit, void *ctx) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        memberVisit mv = {visit, ctx};
        lpVisitRandomPairs(objectPtr(zobj), count, 1, visitLpMember, &mv, random);
        return;
    }
    dict *d = ((zset *)objectPtr(zobj))->dict;
    while (count--)
        if (!visitNode(zsetDictNode(dictGetFairRandomKey(d)), visit, ctx)) return;
}

/* ZRANDMEMBER: below this ratio of zset size to requested count, a partial
 * shuffle of every node beats drawing until enough distinct ones came up
 * (Redis's ZRANDMEMBER_SUB_STRATEGY_MUL). */
#define ZRANDMEMBER_SUB_STRATEGY_MUL 3

void zsetRandomMembersDistinct(robj *zobj, unsigned long count, zsetVisitFn *visit, void *ctx) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        memberVisit mv = {visit, ctx};
        lpVisitRandomPairsUnique(objectPtr(zobj), count, 1, visitLpMember, &mv, random);
        return;
    }
    zset *zs = objectPtr(zobj);
    unsigned long size = zs->zsl->length;
    if (count * ZRANDMEMBER_SUB_STRATEGY_MUL > size) {
        /* Many of them: a partial shuffle of all the nodes. */
        zskiplistNode **nodes = zmalloc(sizeof(*nodes) * size), *n = zs->zsl->header->level[0].forward;
        for (unsigned long i = 0; i < size; i++, n = n->level[0].forward) nodes[i] = n;
        for (unsigned long i = 0; i < count; i++) {
            unsigned long j = i + (unsigned long)random() % (size - i);
            zskiplistNode *t = nodes[i];
            nodes[i] = nodes[j];
            nodes[j] = t;
            if (!visitNode(nodes[i], visit, ctx)) break;
        }
        zfree(nodes);
        return;
    }
    /* Few of them: draw until count distinct ones were picked. */
    static dictType pickedNodesType = {.hashFunction = dictPtrHash}; /* the nodes picked so far */
    dict *picked = dictCreate(&pickedNodesType);
    while (dictSize(picked) < count) {
        zskiplistNode *n = zsetDictNode(dictGetFairRandomKey(zs->dict));
        if (dictAdd(picked, n, NULL) != DICT_OK) continue;
        if (!visitNode(n, visit, ctx)) break;
    }
    dictRelease(picked);
}
