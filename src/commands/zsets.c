/* zsets: the sorted-set commands (ZADD ... ZSCAN) over Redis 7.0's two
 * encodings, so replies, encodings and listpack bytes match the reference:
 *
 *  - listpack: member, score, member, score ... ordered by score then member
 *    bytes. A score that is an exact integer within +-2^62 is stored as a
 *    listpack integer, any other as the text d2string prints; that is why a
 *    -0 score reads back as 0 here but stays -0 in a skiplist, as in Redis.
 *  - skiplist: data/skiplist.h for order and ranks, plus a dict (zsetDictType)
 *    from member to a pointer at the score inside the member's node. The sds
 *    member is shared by both and owned by the skiplist.
 *
 * A listpack becomes a skiplist when it would exceed zset-max-listpack-entries
 * members or hold a member longer than zset-max-listpack-value; results built
 * from scratch (ZUNIONSTORE and friends) are turned back into a listpack when
 * small enough. Read paths go through one cursor type so each range command is
 * written once for both encodings. */
#include "commands/cmdargs.h"
#include "commands/scan.h"
#include "commands/zsets.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "data/intset.h"
#include "data/listpack.h"
#include "data/skiplist.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ZSET_MIN 0
#define ZSET_MAX 1

/* ================================================== listpack encoding */

static double zzlEntryScore(const lpEntry *e) { return lpEntryToDouble(e); }

static double zzlGetScore(unsigned char *sptr) {
    lpEntry e;
    lpGetEntry(sptr, &e);
    return zzlEntryScore(&e);
}

/* Orders the member entry at p against (s, len) as the skiplist does:
 * memcmp of the common part, then the shorter first. */
static int zzlCompareMember(unsigned char *p, const char *s, size_t len) {
    unsigned char buf[LP_INTBUF_SIZE];
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
    if (p && score) *score = zzlGetScore(lpNext(lp, p));
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
        double s = zzlGetScore(sp);
        if (s > score || (s == score && zzlCompareMember(p, ele, len) > 0)) break;
        p = lpNext(lp, sp);
    }
    return zzlInsertAt(lp, p, ele, len, score);
}

/* ================================================== both encodings */

static unsigned long zsetLength(robj *zobj) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return lpLength(zobj->ptr) / 2;
    return ((zset *)zobj->ptr)->zsl->length;
}

/* Adds a member known to be absent; the zset takes ownership of ele. */
static void zsetInsertNew(zset *zs, sds ele, double score) {
    zskiplistNode *node = zslInsert(zs->zsl, score, ele);
    dictAdd(zs->dict, ele, &node->score);
}

static void zsetConvertToSkiplist(robj *zobj) {
    unsigned char *lp = zobj->ptr, *p = lpFirst(lp);
    zset *zs = zmalloc(sizeof(*zs));
    zs->dict = dictCreate(&zsetDictType);
    zs->zsl = zslCreate();
    unsigned long n = lpLength(lp) / 2;
    if (n) dictExpand(zs->dict, n);
    lpEntry m, s;
    while (lpNextPair(lp, &p, &m, &s)) {
        sds ele = m.sval ? sdsnewlen(m.sval, m.slen) : sdsfromlonglong(m.lval);
        zsetInsertNew(zs, ele, zzlEntryScore(&s));
    }
    lpFree(lp);
    zobj->ptr = zs;
    zobj->encoding = OBJ_ENCODING_SKIPLIST;
}

/* Turns a freshly built skiplist result back into a listpack when its size
 * and longest member (maxelelen) fit the listpack limits. */
static void zsetConvertToListpackIfNeeded(robj *zobj, size_t maxelelen, size_t totelelen) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return;
    zset *zs = zobj->ptr;
    if (zs->zsl->length > server.zset_max_listpack_entries || maxelelen > server.zset_max_listpack_value ||
        !lpSafeToAdd(NULL, totelelen))
        return;
    unsigned char *lp = lpNew(0);
    for (zskiplistNode *n = zs->zsl->header->level[0].forward; n; n = n->level[0].forward)
        lp = zzlInsertAt(lp, NULL, n->ele, sdslen(n->ele), n->score);
    dictRelease(zs->dict);
    zslFree(zs->zsl);
    zfree(zs);
    zobj->ptr = lp;
    zobj->encoding = OBJ_ENCODING_LISTPACK;
}

/* A new empty zset for a key whose first member is firstlen bytes long. */
static robj *zsetCreateFor(size_t firstlen) {
    if (server.zset_max_listpack_entries == 0 || server.zset_max_listpack_value < firstlen)
        return createZsetObject();
    return createZsetListpackObject();
}

static int zsetScore(robj *zobj, sds ele, double *score) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return zzlFind(zobj->ptr, ele, sdslen(ele), score) != NULL;
    dictEntry *de = dictFind(((zset *)zobj->ptr)->dict, ele);
    if (!de) return 0;
    *score = *(double *)dictGetVal(de);
    return 1;
}

#define ZADD_IN_NONE 0
#define ZADD_IN_INCR (1 << 0)
#define ZADD_IN_NX (1 << 1)
#define ZADD_IN_XX (1 << 2)
#define ZADD_IN_GT (1 << 3)
#define ZADD_IN_LT (1 << 4)

#define ZADD_OUT_NOP (1 << 0)
#define ZADD_OUT_NAN (1 << 1)
#define ZADD_OUT_ADDED (1 << 2)
#define ZADD_OUT_UPDATED (1 << 3)

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

/* Adds or updates ele (which stays the caller's) following the ZADD_IN_ flags;
 * *out receives ZADD_OUT_ flags and *newscore the resulting score when the
 * member was added or considered for update. Returns 0 only for NaN. */
static int zsetAdd(robj *zobj, double score, sds ele, int in, int *out, double *newscore) {
    *out = 0;
    if (isnan(score)) {
        *out = ZADD_OUT_NAN;
        return 0;
    }
    size_t len = sdslen(ele);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        double cur;
        unsigned char *p = zzlFind(zobj->ptr, ele, len, &cur);
        if (p) {
            if (!zaddExisting(in, cur, &score, out, newscore)) return 0;
            if (*out & ZADD_OUT_UPDATED) {
                zobj->ptr = lpDeleteRangeWithEntry(zobj->ptr, &p, 2);
                zobj->ptr = zzlInsert(zobj->ptr, ele, len, score);
            }
            return 1;
        }
        if (in & ZADD_IN_XX) {
            *out |= ZADD_OUT_NOP;
            return 1;
        }
        if (lpLength(zobj->ptr) / 2 + 1 <= server.zset_max_listpack_entries &&
            len <= server.zset_max_listpack_value && lpSafeToAdd(zobj->ptr, len)) {
            zobj->ptr = zzlInsert(zobj->ptr, ele, len, score);
            if (newscore) *newscore = score;
            *out |= ZADD_OUT_ADDED;
            return 1;
        }
        zsetConvertToSkiplist(zobj); /* and add below */
    }
    zset *zs = zobj->ptr;
    dictEntry *de = dictFind(zs->dict, ele);
    if (de) {
        double cur = *(double *)dictGetVal(de);
        if (!zaddExisting(in, cur, &score, out, newscore)) return 0;
        if (*out & ZADD_OUT_UPDATED) {
            zskiplistNode *node = zslUpdateScore(zs->zsl, cur, ele, score);
            dictSetVal(zs->dict, de, &node->score);
        }
        return 1;
    }
    if (in & ZADD_IN_XX) {
        *out |= ZADD_OUT_NOP;
        return 1;
    }
    zsetInsertNew(zs, sdsdup(ele), score);
    if (newscore) *newscore = score;
    *out |= ZADD_OUT_ADDED;
    return 1;
}

/* Removes ele; 1 if it was there. */
static int zsetDel(robj *zobj, sds ele) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = zzlFind(zobj->ptr, ele, sdslen(ele), NULL);
        if (!p) return 0;
        zobj->ptr = lpDeleteRangeWithEntry(zobj->ptr, &p, 2);
        return 1;
    }
    zset *zs = zobj->ptr;
    dictEntry *de = dictUnlink(zs->dict, ele);
    if (!de) return 0;
    /* The dict key and the score live in the node: read them before the
     * skiplist frees it. */
    zslDelete(zs->zsl, *(double *)dictGetVal(de), ele, NULL);
    dictFreeUnlinkedEntry(zs->dict, de);
    return 1;
}

/* 0-based rank of ele (from the highest when reverse), -1 when absent. */
static long zsetRank(robj *zobj, sds ele, int reverse) {
    unsigned long llen = zsetLength(zobj);
    long rank;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = zobj->ptr, *p = lpFirst(lp);
        rank = 0;
        while (p && !lpCompare(p, (unsigned char *)ele, (uint32_t)sdslen(ele))) {
            p = lpNext(lp, lpNext(lp, p));
            rank++;
        }
        if (!p) return -1;
    } else {
        zset *zs = zobj->ptr;
        dictEntry *de = dictFind(zs->dict, ele);
        if (!de) return -1;
        rank = (long)zslGetRank(zs->zsl, *(double *)dictGetVal(de), ele) - 1;
    }
    return reverse ? (long)llen - 1 - rank : rank;
}

/* ---------------------------------------------------- cursor over a zset */

/* A position in a zset walking up (or down when reverse) in either encoding.
 * Valid until the zset is modified. */
typedef struct zcursor {
    unsigned char *lp, *p; /* listpack: the zset and the current member entry */
    zskiplistNode *node;   /* skiplist: the current node */
    int skiplist, reverse;
} zcursor;

/* Places cur on the element of 0-based rank `rank` counted in its direction. */
static void zcurAtRank(zcursor *cur, robj *zobj, unsigned long rank, int reverse) {
    cur->reverse = reverse;
    cur->skiplist = zobj->encoding == OBJ_ENCODING_SKIPLIST;
    cur->lp = cur->p = NULL;
    cur->node = NULL;
    if (cur->skiplist) {
        zskiplist *zsl = ((zset *)zobj->ptr)->zsl;
        if (rank < zsl->length) cur->node = zslGetElementByRank(zsl, reverse ? zsl->length - rank : rank + 1);
    } else {
        cur->lp = zobj->ptr;
        if (rank < lpLength(cur->lp) / 2)
            cur->p = lpSeek(cur->lp, reverse ? -2 - 2 * (long)rank : 2 * (long)rank);
    }
}

static int zcurValid(const zcursor *cur) { return cur->skiplist ? cur->node != NULL : cur->p != NULL; }

static double zcurScore(const zcursor *cur) {
    return cur->skiplist ? cur->node->score : zzlGetScore(lpNext(cur->lp, cur->p));
}

/* The member's bytes; integers stored in a listpack are printed into buf. */
static const unsigned char *zcurMember(const zcursor *cur, unsigned char buf[LP_INTBUF_SIZE], size_t *len) {
    if (cur->skiplist) {
        *len = sdslen(cur->node->ele);
        return (const unsigned char *)cur->node->ele;
    }
    uint32_t l;
    const unsigned char *s = lpGetString(cur->p, &l, buf);
    *len = l;
    return s;
}

static void zcurNext(zcursor *cur) {
    if (cur->skiplist) {
        cur->node = cur->reverse ? cur->node->backward : cur->node->level[0].forward;
    } else if (cur->reverse) {
        unsigned char *prev_score = lpPrev(cur->lp, cur->p);
        cur->p = prev_score ? lpPrev(cur->lp, prev_score) : NULL;
    } else {
        cur->p = lpNext(cur->lp, lpNext(cur->lp, cur->p));
    }
}

/* ---------------------------------------------------- score / lex bounds */

/* A score or a lex interval, so range code is written once for both. */
typedef struct zbounds {
    int lex;
    zrangespec score;
    zlexrangespec lexr;
} zbounds;

/* 1 when cur's element is on the inner side of b's max bound (max = 1) or
 * of its min bound (max = 0). */
static int zcurWithinBound(const zcursor *cur, const zbounds *b, int max) {
    if (!b->lex) {
        double score = zcurScore(cur);
        return max ? zslValueLteMax(score, &b->score) : zslValueGteMin(score, &b->score);
    }
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const char *s = (const char *)zcurMember(cur, buf, &len);
    return max ? zslLexValueLteMax(s, len, &b->lexr) : zslLexValueGteMin(s, len, &b->lexr);
}

/* 1 while a cursor that entered the range has not yet left it at the far end. */
static int zcurInsideFar(const zcursor *cur, const zbounds *b) {
    return zcurValid(cur) && zcurWithinBound(cur, b, !cur->reverse);
}

/* Places cur on the first element inside b in its direction (the lowest, or
 * the highest when reverse); the cursor is invalid when none is. */
static void zcurSeekBounds(zcursor *cur, robj *zobj, const zbounds *b, int reverse) {
    zcurAtRank(cur, zobj, 0, reverse);
    if (cur->skiplist) {
        zskiplist *zsl = ((zset *)zobj->ptr)->zsl;
        if (b->lex) cur->node = reverse ? zslLastInLexRange(zsl, &b->lexr) : zslFirstInLexRange(zsl, &b->lexr);
        else cur->node = reverse ? zslLastInRange(zsl, &b->score) : zslFirstInRange(zsl, &b->score);
        return;
    }
    while (zcurValid(cur) && !zcurWithinBound(cur, b, reverse)) zcurNext(cur);
    if (zcurValid(cur) && !zcurInsideFar(cur, b)) cur->p = NULL;
}

static unsigned long zsetCountBounds(robj *zobj, const zbounds *b) {
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) {
        zskiplist *zsl = ((zset *)zobj->ptr)->zsl;
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

static unsigned long zsetDeleteBounds(robj *zobj, const zbounds *b) {
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) {
        zset *zs = zobj->ptr;
        if (b->lex) return zslDeleteRangeByLex(zs->zsl, &b->lexr, removedFromSkiplist, zs->dict);
        return zslDeleteRangeByScore(zs->zsl, &b->score, removedFromSkiplist, zs->dict);
    }
    zcursor cur;
    unsigned long n = 0;
    zcurSeekBounds(&cur, zobj, b, 0);
    while (zcurInsideFar(&cur, b)) {
        cur.lp = lpDeleteRangeWithEntry(cur.lp, &cur.p, 2);
        n++;
    }
    zobj->ptr = cur.lp;
    return n;
}

/* Removes the 0-based ranks start..end (inclusive, already within bounds). */
static unsigned long zsetDeleteRank(robj *zobj, long start, long end) {
    unsigned long n = (unsigned long)(end - start + 1);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        zobj->ptr = lpDeleteRange(zobj->ptr, 2 * start, 2 * n);
        return n;
    }
    zset *zs = zobj->ptr;
    return zslDeleteRangeByRank(zs->zsl, start + 1, end + 1, removedFromSkiplist, zs->dict);
}

/* ================================================== argument helpers */

static int getScoreFromObjectOrReply(client *c, robj *o, double *score, const char *msg) {
    if (getDoubleFromObject(o, score) != 0) {
        addReplyError(c, msg ? msg : "value is not a valid float");
        return C_ERR;
    }
    return C_OK;
}

/* Parses a score (lex = 0) or lex (lex = 1) interval into b, replying the
 * Redis error on failure. A parsed lex interval is freed with zboundsFree. */
static int parseBoundsOrReply(client *c, robj *min, robj *max, int lex, zbounds *b) {
    char bmin[LONG_STR_SIZE], bmax[LONG_STR_SIZE];
    size_t lmin, lmax;
    const char *smin = stringObjectView(min, bmin, &lmin), *smax = stringObjectView(max, bmax, &lmax);
    b->lex = lex;
    if (lex) {
        if (zslParseLexRange(smin, lmin, smax, lmax, &b->lexr) == 0) return C_OK;
        addReplyError(c, "min or max not valid string range item");
    } else {
        if (zslParseRange(smin, lmin, smax, lmax, &b->score) == 0) return C_OK;
        addReplyError(c, "min or max is not a float");
    }
    return C_ERR;
}

static void zboundsFree(zbounds *b) {
    if (b->lex) zslFreeLexRange(&b->lexr);
}

/* Turns a ZRANGE-style index pair into 0-based inclusive bounds within llen;
 * returns 0 when the range is empty. */
static int sanitizeRankRange(long *start, long *end, long llen) {
    if (*start < 0) *start += llen;
    if (*end < 0) *end += llen;
    if (*start < 0) *start = 0;
    if (*start > *end || *start >= llen) return 0;
    if (*end >= llen) *end = llen - 1;
    return 1;
}

/* Stores a computed zset at dstkey and replies its size; an empty result
 * deletes dstkey instead, as Redis does. The store counts `count` writes. */
static void storeResult(client *c, robj *dstkey, robj *dstobj, const char *event, long long count) {
    unsigned long n = zsetLength(dstobj);
    if (n) {
        setKey(c->db, dstkey, dstobj, 0);
        addReplyLongLong(c, (long long)n);
        keyChanged(c->db, dstkey, NOTIFY_ZSET, event, count);
    } else {
        addReply(c, shared.czero);
        if (dbDelete(c->db, dstkey)) keyChanged(c->db, dstkey, NOTIFY_GENERIC, "del", 1);
    }
}

/* One (member, score) of a reply: nested [member, score] pairs in RESP3,
 * flat in RESP2. */
static void addReplyMemberScore(client *c, const void *ele, size_t len, double score, int withscores) {
    if (withscores && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyBulkCBuffer(c, ele, len);
    if (withscores) addReplyDouble(c, score);
}

static void addReplyMembersLen(client *c, long n, int withscores) {
    addReplyArrayLen(c, withscores && c->resp == 2 ? n * 2 : n);
}

/* ================================================== ZADD ZINCRBY ZREM */

static void zaddGenericCommand(client *c, int flags) {
    robj *key = c->argv[1];
    int scoreidx = 2, ch = 0;
    for (; scoreidx < c->argc; scoreidx++) {
        const char *opt = c->argv[scoreidx]->ptr;
        if (!strcasecmp(opt, "nx")) flags |= ZADD_IN_NX;
        else if (!strcasecmp(opt, "xx")) flags |= ZADD_IN_XX;
        else if (!strcasecmp(opt, "ch")) ch = 1;
        else if (!strcasecmp(opt, "incr")) flags |= ZADD_IN_INCR;
        else if (!strcasecmp(opt, "gt")) flags |= ZADD_IN_GT;
        else if (!strcasecmp(opt, "lt")) flags |= ZADD_IN_LT;
        else break;
    }
    int incr = flags & ZADD_IN_INCR, nx = flags & ZADD_IN_NX, xx = flags & ZADD_IN_XX;
    int gt = flags & ZADD_IN_GT, lt = flags & ZADD_IN_LT;
    int elements = c->argc - scoreidx;
    if (elements % 2 || !elements) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    elements /= 2;
    if (nx && xx) {
        addReplyError(c, "XX and NX options at the same time are not compatible");
        return;
    }
    if ((gt && nx) || (lt && nx) || (gt && lt)) {
        addReplyError(c, "GT, LT, and/or NX options at the same time are not compatible");
        return;
    }
    if (incr && elements > 1) {
        addReplyError(c, "INCR option supports a single increment-element pair");
        return;
    }

    /* Parse every score first: a bad one must leave the key untouched. */
    double *scores = zmalloc(sizeof(double) * elements), newscore = 0;
    long long added = 0, updated = 0, processed = 0;
    for (int j = 0; j < elements; j++)
        if (getScoreFromObjectOrReply(c, c->argv[scoreidx + j * 2], &scores[j], NULL) != C_OK) goto cleanup;

    robj *zobj = lookupKeyWrite(c->db, key);
    if (replyIfWrongType(c, zobj, OBJ_ZSET)) goto cleanup;
    if (!zobj) {
        if (xx) goto reply; /* XX never creates the key */
        zobj = zsetCreateFor(sdslen(c->argv[scoreidx + 1]->ptr));
        dbAdd(c->db, key, zobj);
    }
    for (int j = 0; j < elements; j++) {
        int out;
        if (!zsetAdd(zobj, scores[j], c->argv[scoreidx + j * 2 + 1]->ptr, flags, &out, &newscore)) {
            addReplyError(c, "resulting score is not a number (NaN)");
            goto cleanup;
        }
        if (out & ZADD_OUT_ADDED) added++;
        if (out & ZADD_OUT_UPDATED) updated++;
        if (!(out & ZADD_OUT_NOP)) processed++;
    }

reply:
    if (incr) {
        if (processed) addReplyDouble(c, newscore);
        else addReplyNull(c);
    } else {
        addReplyLongLong(c, ch ? added + updated : added);
    }
cleanup:
    zfree(scores);
    if (added || updated) {
        /* Redis counts one change per member. */
        keyChanged(c->db, key, NOTIFY_ZSET, incr ? "zincr" : "zadd", added + updated);
    }
}

void zaddCommand(client *c) { zaddGenericCommand(c, ZADD_IN_NONE); }
void zincrbyCommand(client *c) { zaddGenericCommand(c, ZADD_IN_INCR); }

void zremCommand(client *c) { removeMembersCommand(c, OBJ_ZSET, zsetDel, zsetLength, NOTIFY_ZSET, "zrem"); }

/* ================================================== ZREMRANGEBY* */

#define ZRANGE_AUTO 0
#define ZRANGE_RANK 1
#define ZRANGE_SCORE 2
#define ZRANGE_LEX 3

static void zremrangeGenericCommand(client *c, int rangetype) {
    static const char *events[] = {NULL, "zremrangebyrank", "zremrangebyscore", "zremrangebylex"};
    robj *key = c->argv[1];
    long long start = 0, end = 0;
    zbounds b = {0};
    if (rangetype == ZRANGE_RANK) {
        if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
            getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
            return;
    } else if (parseBoundsOrReply(c, c->argv[2], c->argv[3], rangetype == ZRANGE_LEX, &b) != C_OK) {
        return;
    }

    robj *zobj = lookupKeyWriteOrReply(c, key, shared.czero);
    if (!zobj || replyIfWrongType(c, zobj, OBJ_ZSET)) goto cleanup;
    unsigned long deleted;
    if (rangetype == ZRANGE_RANK) {
        long s = (long)start, e = (long)end;
        if (!sanitizeRankRange(&s, &e, (long)zsetLength(zobj))) {
            addReply(c, shared.czero);
            goto cleanup;
        }
        deleted = zsetDeleteRank(zobj, s, e);
    } else {
        deleted = zsetDeleteBounds(zobj, &b);
    }
    if (deleted) {
        /* Redis counts removed members only, not the key's removal. */
        keyChanged(c->db, key, NOTIFY_ZSET, events[rangetype], (long long)deleted);
        if (zsetLength(zobj) == 0) {
            dbDelete(c->db, key);
            keyChanged(c->db, key, NOTIFY_GENERIC, "del", 0);
        }
    }
    addReplyLongLong(c, (long long)deleted);
cleanup:
    zboundsFree(&b);
}

void zremrangebyrankCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_RANK); }
void zremrangebyscoreCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_SCORE); }
void zremrangebylexCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_LEX); }

/* ================================================== read commands */

void zcardCommand(client *c) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (!zobj || replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    addReplyLongLong(c, (long long)zsetLength(zobj));
}

/* The score of ele in zobj (which may be NULL), or a nil. */
static void addReplyScoreOrNull(client *c, robj *zobj, sds ele) {
    double score;
    if (zobj && zsetScore(zobj, ele, &score)) addReplyDouble(c, score);
    else addReplyNull(c);
}

void zscoreCommand(client *c) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null);
    if (zobj && !replyIfWrongType(c, zobj, OBJ_ZSET)) addReplyScoreOrNull(c, zobj, c->argv[2]->ptr);
}

void zmscoreCommand(client *c) {
    robj *zobj = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) addReplyScoreOrNull(c, zobj, c->argv[j]->ptr);
}

static void zrankGenericCommand(client *c, int reverse) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null);
    if (!zobj || replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    long rank = zsetRank(zobj, c->argv[2]->ptr, reverse);
    if (rank >= 0) addReplyLongLong(c, rank);
    else addReplyNull(c);
}

void zrankCommand(client *c) { zrankGenericCommand(c, 0); }
void zrevrankCommand(client *c) { zrankGenericCommand(c, 1); }

static void zcountGenericCommand(client *c, int lex) {
    zbounds b;
    if (parseBoundsOrReply(c, c->argv[2], c->argv[3], lex, &b) != C_OK) return;
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (zobj && !replyIfWrongType(c, zobj, OBJ_ZSET)) addReplyLongLong(c, (long long)zsetCountBounds(zobj, &b));
    zboundsFree(&b);
}

void zcountCommand(client *c) { zcountGenericCommand(c, 0); }
void zlexcountCommand(client *c) { zcountGenericCommand(c, 1); }

/* ================================================== ZRANGE family */

/* Where a range goes: the client's reply, or a new zset for ZRANGESTORE. */
typedef struct rangeSink {
    client *c;
    robj *dstkey; /* NULL: reply to the client */
    robj *dstobj;
    int withscores;
    void *lenptr;
    long count;
} rangeSink;

static void sinkBegin(rangeSink *s) {
    s->count = 0;
    if (s->dstkey) s->dstobj = createZsetListpackObject(); /* grows into a skiplist as needed */
    else s->lenptr = addReplyDeferredLen(s->c);
}

static void sinkEmit(rangeSink *s, const zcursor *cur) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *ele = zcurMember(cur, buf, &len);
    double score = zcurScore(cur);
    s->count++;
    if (s->dstkey) {
        sds m = sdsnewlen(ele, len);
        int out;
        zsetAdd(s->dstobj, score, m, ZADD_IN_NONE, &out, NULL);
        sdsfree(m);
    } else {
        addReplyMemberScore(s->c, ele, len, score, s->withscores);
    }
}

static void sinkEnd(rangeSink *s) {
    if (s->dstkey) {
        storeResult(s->c, s->dstkey, s->dstobj, "zrangestore", 1);
        decrRefCount(s->dstobj);
    } else {
        setDeferredArrayLen(s->c, s->lenptr, s->withscores && s->c->resp == 2 ? s->count * 2 : s->count);
    }
}

#define DIR_AUTO 0
#define DIR_FORWARD 1
#define DIR_REVERSE 2

/* ZRANGE and every older range command: argv[argc_start] is the source key,
 * followed by min and max and the options; dstkey is set for ZRANGESTORE.
 * rangetype/direction are fixed by the older commands, AUTO for ZRANGE. */
static void zrangeGenericCommand(client *c, int argc_start, robj *dstkey, int rangetype, int direction) {
    robj *key = c->argv[argc_start];
    int minidx = argc_start + 1, maxidx = argc_start + 2, withscores = 0;
    long long offset = 0, limit = -1;
    for (int j = argc_start + 3; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        int left = c->argc - j - 1;
        if (!dstkey && !strcasecmp(opt, "withscores")) {
            withscores = 1;
        } else if (!strcasecmp(opt, "limit") && left >= 2) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &offset, NULL) != C_OK ||
                getLongLongFromObjectOrReply(c, c->argv[j + 2], &limit, NULL) != C_OK)
                return;
            j += 2;
        } else if (direction == DIR_AUTO && !strcasecmp(opt, "rev")) {
            direction = DIR_REVERSE;
        } else if (rangetype == ZRANGE_AUTO && !strcasecmp(opt, "bylex")) {
            rangetype = ZRANGE_LEX;
        } else if (rangetype == ZRANGE_AUTO && !strcasecmp(opt, "byscore")) {
            rangetype = ZRANGE_SCORE;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    int reverse = direction == DIR_REVERSE;
    if (rangetype == ZRANGE_AUTO) rangetype = ZRANGE_RANK;
    if (limit != -1 && rangetype == ZRANGE_RANK) {
        addReplyError(c, "syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        return;
    }
    if (withscores && rangetype == ZRANGE_LEX) {
        addReplyError(c, "syntax error, WITHSCORES not supported in combination with BYLEX");
        return;
    }
    /* Reversed score and lex ranges are given as max, min. */
    if (reverse && rangetype != ZRANGE_RANK) {
        int tmp = minidx;
        minidx = maxidx;
        maxidx = tmp;
    }

    long long start = 0, end = 0;
    zbounds b = {0};
    if (rangetype == ZRANGE_RANK) {
        if (getLongLongFromObjectOrReply(c, c->argv[minidx], &start, NULL) != C_OK ||
            getLongLongFromObjectOrReply(c, c->argv[maxidx], &end, NULL) != C_OK)
            return;
    } else if (parseBoundsOrReply(c, c->argv[minidx], c->argv[maxidx], rangetype == ZRANGE_LEX, &b) != C_OK) {
        return;
    }

    rangeSink sink = {.c = c, .dstkey = dstkey, .withscores = withscores};
    robj *zobj = lookupKeyRead(c->db, key);
    if (!zobj) {
        if (dstkey) {
            sinkBegin(&sink);
            sinkEnd(&sink);
        } else {
            addReply(c, shared.emptyarray);
        }
        goto cleanup;
    }
    if (replyIfWrongType(c, zobj, OBJ_ZSET)) goto cleanup;

    zcursor cur;
    sinkBegin(&sink);
    if (rangetype == ZRANGE_RANK) {
        long s = (long)start, e = (long)end;
        if (sanitizeRankRange(&s, &e, (long)zsetLength(zobj))) {
            zcurAtRank(&cur, zobj, (unsigned long)s, reverse);
            for (long n = e - s + 1; n > 0; n--) {
                sinkEmit(&sink, &cur);
                zcurNext(&cur);
            }
        }
    } else if (offset >= 0 && (offset == 0 || (unsigned long long)offset < zsetLength(zobj))) {
        /* A negative offset skips everything, as in Redis; a negative limit means no limit. */
        zcurSeekBounds(&cur, zobj, &b, reverse);
        for (; offset > 0 && zcurValid(&cur); offset--) zcurNext(&cur);
        for (; limit != 0 && zcurInsideFar(&cur, &b); limit--) {
            sinkEmit(&sink, &cur);
            zcurNext(&cur);
        }
    }
    sinkEnd(&sink);
cleanup:
    zboundsFree(&b);
}

void zrangeCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_AUTO, DIR_AUTO); }
void zrangestoreCommand(client *c) { zrangeGenericCommand(c, 2, c->argv[1], ZRANGE_AUTO, DIR_AUTO); }
void zrevrangeCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_RANK, DIR_REVERSE); }
void zrangebyscoreCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_SCORE, DIR_FORWARD); }
void zrevrangebyscoreCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_SCORE, DIR_REVERSE); }
void zrangebylexCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_LEX, DIR_FORWARD); }
void zrevrangebylexCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_LEX, DIR_REVERSE); }

/* ================================================== pops */

/* Rewrites the command as ZPOPMIN/ZPOPMAX key [count] (count -1: none), the
 * form Redis propagates for every pop variant since its result is known. */
static void rewriteAsZpop(client *c, int where, robj *key, long count) {
    robj *cmd = where == ZSET_MAX ? shared.zpopmax : shared.zpopmin;
    if (count == -1) {
        rewriteClientCommandVector(c, 2, cmd, key);
        return;
    }
    robj *countobj = createStringObjectFromLongLong(count);
    rewriteClientCommandVector(c, 3, cmd, key, countobj);
    decrRefCount(countobj);
}

/* Pops up to count (-1: one, flat reply) elements from the first existing key
 * of keyv. emitkey puts the key name first (BZPOP*, *MPOP); nested gives
 * [member, score] pairs. Returns the key popped from, or NULL. */
static robj *zpopGeneric(client *c, robj **keyv, int keyc, int where, int emitkey, long count, int nested,
                         int nil_when_empty) {
    robj *key = NULL, *zobj = NULL;
    for (int i = 0; i < keyc && !zobj; i++) {
        key = keyv[i];
        zobj = lookupKeyWrite(c->db, key);
        if (replyIfWrongType(c, zobj, OBJ_ZSET)) return NULL;
    }
    if (!zobj) {
        if (nil_when_empty) addReplyNullArray(c);
        else addReply(c, shared.emptyarray);
        return NULL;
    }
    if (count == 0) {
        addReply(c, shared.emptyarray);
        return NULL;
    }
    if (count == -1) count = 1;
    long llen = (long)zsetLength(zobj), n = count > llen ? llen : count;
    if (emitkey) {
        addReplyArrayLen(c, nested ? 2 : n * 2 + 1);
        addReplyBulk(c, key);
        if (nested) addReplyArrayLen(c, n);
    } else {
        addReplyArrayLen(c, nested ? n : n * 2);
    }
    for (long i = 0; i < n; i++) {
        zcursor cur;
        unsigned char buf[LP_INTBUF_SIZE];
        size_t len;
        zcurAtRank(&cur, zobj, 0, where == ZSET_MAX);
        const unsigned char *m = zcurMember(&cur, buf, &len);
        double score = zcurScore(&cur);
        sds ele = sdsnewlen(m, len);
        zsetDel(zobj, ele);
        if (nested) addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, ele, sdslen(ele));
        addReplyDouble(c, score);
        sdsfree(ele);
    }
    /* Redis counts popped members only, not the key's removal. */
    keyChanged(c->db, key, NOTIFY_ZSET, where == ZSET_MAX ? "zpopmax" : "zpopmin", n);
    if (zsetLength(zobj) == 0) {
        dbDelete(c->db, key);
        keyChanged(c->db, key, NOTIFY_GENERIC, "del", 0);
    }
    return key;
}

static void zpopMinMaxCommand(client *c, int where) {
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    long count = -1;
    if (c->argc == 3 && getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    zpopGeneric(c, &c->argv[1], 1, where, 0, count, c->resp > 2 && count != -1, 0);
}

void zpopminCommand(client *c) { zpopMinMaxCommand(c, ZSET_MIN); }
void zpopmaxCommand(client *c) { zpopMinMaxCommand(c, ZSET_MAX); }

/* The blocking pops: served at once when a key has elements, otherwise the
 * client blocks and the framework runs the command again when a key gets
 * data (blocking.h), so this one function also serves the woken client —
 * from the key that became ready, as Redis does, not the first with data. */
static void blockingZpopGeneric(client *c, robj **keys, int numkeys, int where, int timeout_idx, long count,
                                int nested) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[timeout_idx], &timeout, UNIT_SECONDS) != C_OK) return;
    robj *ready = blockingReadyKey(c), **candidates = ready ? &ready : keys;
    for (int j = 0; j < (ready ? 1 : numkeys); j++) {
        robj *key = candidates[j], *o = lookupKeyWrite(c->db, key);
        if (!o) continue;
        if (replyIfWrongType(c, o, OBJ_ZSET)) return;
        if (zsetLength(o) == 0) continue;
        zpopGeneric(c, &key, 1, where, 1, count, nested, 1);
        rewriteAsZpop(c, where, key, count);
        return;
    }
    if (c->flags & CLIENT_DENY_BLOCKING) {
        addReplyNullArray(c); /* inside MULTI or a script: answer as a timeout */
        return;
    }
    blockForKeys(c, BLOCKED_ZSET, keys, numkeys, timeout);
}

void bzpopminCommand(client *c) { blockingZpopGeneric(c, &c->argv[1], c->argc - 2, ZSET_MIN, c->argc - 1, -1, 0); }
void bzpopmaxCommand(client *c) { blockingZpopGeneric(c, &c->argv[1], c->argc - 2, ZSET_MAX, c->argc - 1, -1, 0); }

/* ZMPOP numkeys key... MIN|MAX [COUNT n] and BZMPOP timeout numkeys ... */
static void zmpopGenericCommand(client *c, int numkeys_idx, int blocking) {
    long numkeys, count = -1;
    int where;
    if (getRangeLongFromObjectOrReply(c, c->argv[numkeys_idx], 1, LONG_MAX, &numkeys,
                                      "numkeys should be greater than 0") != C_OK)
        return;
    if (numkeys > c->argc - numkeys_idx - 2) { /* no room for MIN|MAX */
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int where_idx = numkeys_idx + (int)numkeys + 1;
    const char *wherearg = c->argv[where_idx]->ptr;
    if (!strcasecmp(wherearg, "min")) where = ZSET_MIN;
    else if (!strcasecmp(wherearg, "max")) where = ZSET_MAX;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (parseMpopCountOrReply(c, where_idx + 1, &count) != C_OK) return;
    robj **keys = c->argv + numkeys_idx + 1;
    if (blocking) {
        blockingZpopGeneric(c, keys, (int)numkeys, where, 1, count, 1);
        return;
    }
    robj *key = zpopGeneric(c, keys, (int)numkeys, where, 1, count, 1, 1);
    if (key) rewriteAsZpop(c, where, key, count);
}

void zmpopCommand(client *c) { zmpopGenericCommand(c, 1, 0); }
void bzmpopCommand(client *c) { zmpopGenericCommand(c, 2, 1); }

/* ================================================== ZUNION ZINTER ZDIFF */

/* An input of the set algebra: a sorted set, a plain set (every member
 * scoring 1) or a missing key (empty). */
typedef struct zsetopsrc {
    robj *subject;
    double weight;
} zsetopsrc;

static unsigned long srcLength(const zsetopsrc *s) {
    robj *o = s->subject;
    if (!o) return 0;
    if (o->type == OBJ_ZSET) return zsetLength(o);
    return o->encoding == OBJ_ENCODING_INTSET ? intsetLen(o->ptr) : dictSize((const dict *)o->ptr);
}

static int srcCompareByLength(const void *a, const void *b) {
    unsigned long la = srcLength(a), lb = srcLength(b);
    return (la > lb) - (la < lb);
}

typedef struct srcIter {
    robj *o;
    zcursor zc;       /* sorted sets */
    dictIterator di;  /* sets in a hash table */
    uint32_t pos;     /* intsets */
    unsigned char buf[LP_INTBUF_SIZE];
} srcIter;

static void srcIterInit(srcIter *it, robj *o) {
    it->o = o;
    if (o->type == OBJ_ZSET) zcurAtRank(&it->zc, o, 0, 0);
    else if (o->encoding == OBJ_ENCODING_HT) dictInitIterator(&it->di, o->ptr);
    else it->pos = 0;
}

/* The next member's bytes (valid until the next call) and score; 0 at the end. */
static int srcIterNext(srcIter *it, const unsigned char **ele, size_t *len, double *score) {
    robj *o = it->o;
    if (o->type == OBJ_ZSET) {
        if (!zcurValid(&it->zc)) return 0;
        *ele = zcurMember(&it->zc, it->buf, len);
        *score = zcurScore(&it->zc);
        zcurNext(&it->zc);
        return 1;
    }
    *score = 1.0;
    if (o->encoding == OBJ_ENCODING_HT) {
        dictEntry *de = dictNext(&it->di);
        if (!de) return 0;
        sds m = dictGetKey(de);
        *ele = (unsigned char *)m;
        *len = sdslen(m);
        return 1;
    }
    long long v;
    if (!intsetGet(o->ptr, it->pos++, &v)) return 0;
    *len = (size_t)ll2string((char *)it->buf, sizeof(it->buf), v);
    *ele = it->buf;
    return 1;
}

static void srcIterRelease(srcIter *it) {
    if (it->o->type == OBJ_SET && it->o->encoding == OBJ_ENCODING_HT) dictResetIterator(&it->di);
}

static int srcFind(const zsetopsrc *s, sds ele, double *score) {
    robj *o = s->subject;
    if (!o) return 0;
    if (o->type == OBJ_ZSET) return zsetScore(o, ele, score);
    *score = 1.0;
    if (o->encoding == OBJ_ENCODING_HT) return dictFind(o->ptr, ele) != NULL;
    long long v;
    return intsetParseMember(ele, sdslen(ele), &v) && intsetFind(o->ptr, v);
}

#define SET_OP_UNION 0
#define SET_OP_INTER 1
#define SET_OP_DIFF 2

#define AGGR_SUM 0
#define AGGR_MIN 1
#define AGGR_MAX 2

static void aggregateScore(double *target, double val, int aggregate) {
    if (aggregate == AGGR_SUM) {
        *target += val;
        if (isnan(*target)) *target = 0.0; /* inf + -inf counts as 0 */
    } else if (aggregate == AGGR_MIN) {
        if (val < *target) *target = val;
    } else if (val > *target) {
        *target = val;
    }
}

/* Weighted score of an input element; inf * 0 counts as 0. */
static double weighted(const zsetopsrc *s, double score) {
    double v = s->weight * score;
    return isnan(v) ? 0.0 : v;
}

typedef struct setopResult {
    zset *zs;
    size_t maxelelen, totelelen; /* to decide whether the result fits a listpack */
} setopResult;

static void resultAdd(setopResult *r, sds ele, double score) {
    size_t len = sdslen(ele);
    r->totelelen += len;
    if (len > r->maxelelen) r->maxelelen = len;
    zsetInsertNew(r->zs, ele, score);
}

/* Intersection (or, with cardonly, just its size up to limit) into r. The
 * inputs are sorted by size, so src[0] is the smallest. */
static unsigned long zinterInto(zsetopsrc *src, long setnum, int aggregate, int cardonly, long limit,
                                setopResult *r) {
    unsigned long card = 0;
    if (srcLength(&src[0]) == 0) return 0;
    srcIter it;
    const unsigned char *ele;
    size_t len;
    double score0;
    srcIterInit(&it, src[0].subject);
    while (srcIterNext(&it, &ele, &len, &score0)) {
        sds m = sdsnewlen(ele, len);
        double score = weighted(&src[0], score0), value;
        long j;
        for (j = 1; j < setnum; j++) {
            /* The same key twice: no lookup into the set being iterated. */
            if (src[j].subject == src[0].subject) value = score0;
            else if (!srcFind(&src[j], m, &value)) break;
            aggregateScore(&score, src[j].weight * value, aggregate);
        }
        if (j < setnum || cardonly) {
            sdsfree(m);
            if (j == setnum && ++card == (unsigned long)limit) break;
        } else {
            resultAdd(r, m, score);
        }
    }
    srcIterRelease(&it);
    return card;
}

static void zunionInto(zsetopsrc *src, long setnum, int aggregate, setopResult *r) {
    /* member → aggregated score; the sds keys move into the result after. */
    dict *acc = dictCreate(&zsetDictType);
    unsigned long largest = srcLength(&src[setnum - 1]); /* the union is at least this big */
    if (largest) dictExpand(acc, largest);
    for (long i = 0; i < setnum; i++) {
        if (srcLength(&src[i]) == 0) continue;
        srcIter it;
        const unsigned char *ele;
        size_t len;
        double score;
        srcIterInit(&it, src[i].subject);
        while (srcIterNext(&it, &ele, &len, &score)) {
            sds m = sdsnewlen(ele, len);
            dictEntry *existing, *de = dictAddRaw(acc, m, &existing);
            if (de) {
                dictSetDoubleVal(de, weighted(&src[i], score));
            } else {
                sdsfree(m);
                aggregateScore(dictGetDoubleValPtr(existing), weighted(&src[i], score), aggregate);
            }
        }
        srcIterRelease(&it);
    }
    if (dictSize(acc)) dictExpand(r->zs->dict, dictSize(acc));
    dictIterator di;
    dictEntry *de;
    dictInitIterator(&di, acc);
    while ((de = dictNext(&di))) resultAdd(r, dictGetKey(de), dictGetDoubleVal(de));
    dictResetIterator(&di);
    dictRelease(acc);
}

/* Members of src[0] found in no other input, with their src[0] scores. */
static void zdiffInto(zsetopsrc *src, long setnum, setopResult *r) {
    if (srcLength(&src[0]) == 0) return;
    for (long j = 1; j < setnum; j++)
        if (src[j].subject == src[0].subject) return; /* X - X is empty */
    srcIter it;
    const unsigned char *ele;
    size_t len;
    double score, value;
    srcIterInit(&it, src[0].subject);
    while (srcIterNext(&it, &ele, &len, &score)) {
        sds m = sdsnewlen(ele, len);
        long j;
        for (j = 1; j < setnum; j++)
            if (srcFind(&src[j], m, &value)) break;
        if (j < setnum) sdsfree(m);
        else resultAdd(r, m, score);
    }
    srcIterRelease(&it);
}

/* Computes a parsed set operation and replies (or stores at dstkey). */
static void zsetopCompute(client *c, robj *dstkey, zsetopsrc *src, long setnum, int op, int cardonly,
                          int aggregate, int withscores, long limit) {
    /* Smallest inputs first: fewer lookups, and the same summing order as
     * Redis (the weights travel with their inputs). */
    if (op != SET_OP_DIFF) qsort(src, setnum, sizeof(zsetopsrc), srcCompareByLength);

    robj *dstobj = createZsetObject();
    setopResult r = {dstobj->ptr, 0, 0};
    unsigned long card = 0;
    if (op == SET_OP_INTER) card = zinterInto(src, setnum, aggregate, cardonly, limit, &r);
    else if (op == SET_OP_UNION) zunionInto(src, setnum, aggregate, &r);
    else zdiffInto(src, setnum, &r);

    if (dstkey) {
        static const char *events[] = {"zunionstore", "zinterstore", "zdiffstore"};
        zsetConvertToListpackIfNeeded(dstobj, r.maxelelen, r.totelelen);
        storeResult(c, dstkey, dstobj, events[op], 1);
    } else if (cardonly) {
        addReplyLongLong(c, (long long)card);
    } else {
        addReplyMembersLen(c, (long)r.zs->zsl->length, withscores);
        for (zskiplistNode *n = r.zs->zsl->header->level[0].forward; n; n = n->level[0].forward)
            addReplyMemberScore(c, n->ele, sdslen(n->ele), n->score, withscores);
    }
    decrRefCount(dstobj);
}

/* ZUNION/ZINTER/ZDIFF[STORE] and ZINTERCARD: argv[numkeys_idx] is numkeys,
 * the keys follow, then WEIGHTS/AGGREGATE/WITHSCORES/LIMIT as each allows. */
static void zsetopGenericCommand(client *c, robj *dstkey, int numkeys_idx, int op, int cardonly) {
    long long setnum_ll;
    if (getLongLongFromObjectOrReply(c, c->argv[numkeys_idx], &setnum_ll, NULL) != C_OK) return;
    if (setnum_ll < 1) {
        addReplyErrorFormat(c, "at least 1 input key is needed for '%s' command", c->cmd->fullname);
        return;
    }
    if (setnum_ll > c->argc - (numkeys_idx + 1)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    long setnum = (long)setnum_ll;
    zsetopsrc *src = zcalloc(sizeof(zsetopsrc) * setnum);
    int j = numkeys_idx + 1, aggregate = AGGR_SUM, withscores = 0;
    long limit = 0; /* ZINTERCARD: 0 = no limit */
    for (long i = 0; i < setnum; i++, j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j]);
        if (o && o->type != OBJ_ZSET && o->type != OBJ_SET) {
            zfree(src);
            addReplyErrorObject(c, shared.wrongtypeerr);
            return;
        }
        src[i].subject = o;
        src[i].weight = 1.0;
    }
    while (j < c->argc) {
        const char *opt = c->argv[j]->ptr;
        int remaining = c->argc - j;
        if (op != SET_OP_DIFF && !cardonly && remaining >= setnum + 1 && !strcasecmp(opt, "weights")) {
            j++;
            for (long i = 0; i < setnum; i++, j++) {
                if (getScoreFromObjectOrReply(c, c->argv[j], &src[i].weight, "weight value is not a float") !=
                    C_OK)
                    goto cleanup;
            }
        } else if (op != SET_OP_DIFF && !cardonly && remaining >= 2 && !strcasecmp(opt, "aggregate")) {
            const char *agg = c->argv[j + 1]->ptr;
            if (!strcasecmp(agg, "sum")) aggregate = AGGR_SUM;
            else if (!strcasecmp(agg, "min")) aggregate = AGGR_MIN;
            else if (!strcasecmp(agg, "max")) aggregate = AGGR_MAX;
            else {
                addReplyErrorObject(c, shared.syntaxerr);
                goto cleanup;
            }
            j += 2;
        } else if (!dstkey && !cardonly && !strcasecmp(opt, "withscores")) {
            withscores = 1;
            j++;
        } else if (cardonly && remaining >= 2 && !strcasecmp(opt, "limit")) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[j + 1], &limit, "LIMIT can't be negative") != C_OK)
                goto cleanup;
            j += 2;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            goto cleanup;
        }
    }

    zsetopCompute(c, dstkey, src, setnum, op, cardonly, aggregate, withscores, limit);
cleanup:
    zfree(src);
}

void zunionstoreCommand(client *c) { zsetopGenericCommand(c, c->argv[1], 2, SET_OP_UNION, 0); }
void zinterstoreCommand(client *c) { zsetopGenericCommand(c, c->argv[1], 2, SET_OP_INTER, 0); }
void zdiffstoreCommand(client *c) { zsetopGenericCommand(c, c->argv[1], 2, SET_OP_DIFF, 0); }
void zunionCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_UNION, 0); }
void zinterCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_INTER, 0); }
void zdiffCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_DIFF, 0); }
void zintercardCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_INTER, 1); }

/* ================================================== ZRANDMEMBER */

/* Random members are sampled from a listpack in batches of this many. */
#define ZRANDMEMBER_BATCH 1000

static void addReplyListpackPair(client *c, const lpEntry *m, const lpEntry *s, int withscores) {
    if (withscores && c->resp > 2) addReplyArrayLen(c, 2);
    if (m->sval) addReplyBulkCBuffer(c, m->sval, m->slen);
    else addReplyBulkLongLong(c, m->lval);
    if (withscores) addReplyDouble(c, zzlEntryScore(s));
}

/* count members, repeats allowed (a negative COUNT). */
static void zrandmemberWithRepeats(client *c, robj *zobj, unsigned long count, int withscores) {
    addReplyMembersLen(c, (long)count, withscores);
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) {
        dict *d = ((zset *)zobj->ptr)->dict;
        while (count--) {
            dictEntry *de = dictGetFairRandomKey(d);
            sds m = dictGetKey(de);
            addReplyMemberScore(c, m, sdslen(m), *(double *)dictGetVal(de), withscores);
        }
        return;
    }
    unsigned char *lp = zobj->ptr;
    unsigned long pairs = lpLength(lp) / 2, batch = count < ZRANDMEMBER_BATCH ? count : ZRANDMEMBER_BATCH;
    unsigned long *idx = zmalloc(sizeof(*idx) * batch);
    lpEntry *keys = zmalloc(sizeof(lpEntry) * batch), *vals = zmalloc(sizeof(lpEntry) * batch);
    while (count) {
        unsigned long n = count < batch ? count : batch;
        for (unsigned long i = 0; i < n; i++) idx[i] = (unsigned long)random() % pairs;
        lpPairsAt(lp, idx, n, keys, vals);
        for (unsigned long i = 0; i < n; i++) addReplyListpackPair(c, &keys[i], &vals[i], withscores);
        count -= n;
    }
    zfree(idx);
    zfree(keys);
    zfree(vals);
}

/* count distinct members, count < size. */
static void zrandmemberDistinct(client *c, robj *zobj, unsigned long count, unsigned long size, int withscores) {
    addReplyMembersLen(c, (long)count, withscores);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        lpEntry *keys = zmalloc(sizeof(lpEntry) * count), *vals = zmalloc(sizeof(lpEntry) * count);
        unsigned long n = lpRandomPairsUnique(zobj->ptr, count, keys, vals, random);
        for (unsigned long i = 0; i < n; i++) addReplyListpackPair(c, &keys[i], &vals[i], withscores);
        zfree(keys);
        zfree(vals);
        return;
    }
    zset *zs = zobj->ptr;
    if (count * 3 > size) {
        /* Many of them: a partial shuffle of all the nodes. */
        zskiplistNode **nodes = zmalloc(sizeof(*nodes) * size), *n = zs->zsl->header->level[0].forward;
        for (unsigned long i = 0; i < size; i++, n = n->level[0].forward) nodes[i] = n;
        for (unsigned long i = 0; i < count; i++) {
            unsigned long j = i + (unsigned long)random() % (size - i);
            zskiplistNode *t = nodes[i];
            nodes[i] = nodes[j];
            nodes[j] = t;
            addReplyMemberScore(c, nodes[i]->ele, sdslen(nodes[i]->ele), nodes[i]->score, withscores);
        }
        zfree(nodes);
        return;
    }
    /* Few of them: draw until count distinct ones were picked. */
    dict *picked = dictCreate(&zsetDictType);
    while (dictSize(picked) < count) {
        dictEntry *de = dictGetFairRandomKey(zs->dict);
        if (dictAdd(picked, dictGetKey(de), dictGetVal(de)) != DICT_OK) continue;
        sds m = dictGetKey(de);
        addReplyMemberScore(c, m, sdslen(m), *(double *)dictGetVal(de), withscores);
    }
    dictRelease(picked);
}

void zrandmemberCommand(client *c) {
    robj *zobj;
    if (c->argc >= 3) {
        long l;
        int withscores;
        if (parseRandomCountOrReply(c, "withscores", &l, &withscores) != C_OK) return;
        if (!(zobj = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray)) || replyIfWrongType(c, zobj, OBJ_ZSET))
            return;
        unsigned long size = zsetLength(zobj), count = l < 0 ? (unsigned long)-l : (unsigned long)l;
        if (count == 0) {
            addReply(c, shared.emptyarray);
        } else if (l < 0 || count == 1) {
            zrandmemberWithRepeats(c, zobj, count, withscores);
        } else if (count >= size) {
            zcursor cur;
            addReplyMembersLen(c, (long)size, withscores);
            for (zcurAtRank(&cur, zobj, 0, 0); zcurValid(&cur); zcurNext(&cur)) {
                unsigned char buf[LP_INTBUF_SIZE];
                size_t len;
                const unsigned char *m = zcurMember(&cur, buf, &len);
                addReplyMemberScore(c, m, len, zcurScore(&cur), withscores);
            }
        } else {
            zrandmemberDistinct(c, zobj, count, size, withscores);
        }
        return;
    }
    if (!(zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null)) || replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) {
        sds m = dictGetKey(dictGetFairRandomKey(((zset *)zobj->ptr)->dict));
        addReplyBulkCBuffer(c, m, sdslen(m));
    } else {
        lpEntry m;
        lpPairAt(zobj->ptr, (unsigned long)random() % zsetLength(zobj), &m, NULL);
        addReplyListpackPair(c, &m, NULL, 0);
    }
}

/* ================================================== ZSCAN */

void zscanCommand(client *c) {
    unsigned long cursor;
    robj *o;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    if (!(o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyscan)) || replyIfWrongType(c, o, OBJ_ZSET)) return;
    scanGenericCommand(c, o, cursor);
}

/* ================================================== for other families */

/* GEO keys are sorted sets (commands/geo.c); these let it read and build
 * them in either encoding without a second copy of the zset code. */

int zsetMemberScore(robj *zobj, sds ele, double *score) { return zobj && zsetScore(zobj, ele, score); }

void zsetVisitScoreRange(robj *zobj, const zrangespec *range, zsetVisitFn *visit, void *ctx) {
    zbounds b = {.lex = 0, .score = *range};
    zcursor cur;
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    for (zcurSeekBounds(&cur, zobj, &b, 0); zcurInsideFar(&cur, &b); zcurNext(&cur)) {
        const unsigned char *ele = zcurMember(&cur, buf, &len);
        if (!visit(ele, len, zcurScore(&cur), ctx)) return;
    }
}

void zsetAddMember(robj *zobj, double score, sds ele) {
    int out;
    zsetAdd(zobj, score, ele, ZADD_IN_NONE, &out, NULL);
}

void zsetStoreResult(client *c, robj *dstkey, robj *dstobj, const char *event, long long count) {
    storeResult(c, dstkey, dstobj, event, count);
}
