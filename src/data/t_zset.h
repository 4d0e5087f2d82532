/* t_zset: the sorted-set value in Redis 7.0's two encodings, shared by the
 * zset commands, GEO (whose keys are sorted sets) and the generic value layer
 * (data/value.h), so no other file walks zset encodings by hand: the
 * commands reach a zset only through what is declared here (the encodings'
 * headers come along for the inline cursor steps and the range types, not
 * to be called from above data/).
 *
 *  - listpack: member, score, member, score ... ordered by score then member
 *    bytes. A score that is an exact integer within +-2^62 is stored as a
 *    listpack integer, any other as the text d2string prints; that is why a
 *    -0 score reads back as 0 from a listpack but stays -0 in a skiplist,
 *    as in Redis.
 *  - skiplist: data/skiplist.h for order and ranks, plus a dict (zsetDictType)
 *    that holds the skiplist's nodes themselves, keyed by the member inside
 *    each node (item mode): what it hands out is the node (zsetDictNode).
 *
 * data/ cannot read the server config, so the listpack limits
 * (zset-max-listpack-entries / -value) are passed in as a zsetLimits. */
#ifndef DATA_T_ZSET_H
#define DATA_T_ZSET_H

#include <stddef.h>

#include "core/dict.h"
#include "data/listpack.h"
#include "data/object.h"
#include "data/skiplist.h"

/* The member's node behind what a skiplist zset's dict hands out (dictFind,
 * dictNext, random picks, scans: in item mode each is the node itself). */
static inline zskiplistNode *zsetDictNode(const dictEntry *de) { return (zskiplistNode *)de; }

typedef struct zsetLimits {
    size_t max_entries, max_value;
} zsetLimits;

/* zsetAdd's input flags (ZADD options) and output flags. */
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

/* A new empty zset for a key whose first member is firstlen bytes long. */
robj *zsetCreateFor(size_t firstlen, const zsetLimits *lim);
unsigned long zsetLength(robj *zobj);
void zsetConvertToSkiplist(robj *zobj);
/* Turns a freshly built skiplist result back into a listpack when its size
 * and longest member (maxelelen) fit the listpack limits. */
void zsetConvertToListpackIfNeeded(robj *zobj, size_t maxelelen, size_t totelelen, const zsetLimits *lim);
/* Adds a member known to be absent to a skiplist zset (a copy of ele). */
void zsetInsertNew(robj *zobj, const sds ele, double score);
/* Sizes a skiplist zset's table for n members (nothing for a listpack). */
void zsetExpand(robj *zobj, unsigned long n);

/* 1 and the score when zobj holds ele. */
int zsetScore(robj *zobj, sds ele, double *score);
/* Adds or updates ele (which stays the caller's) following the ZADD_IN_ flags;
 * *out receives ZADD_OUT_ flags and *newscore the resulting score when the
 * member was added or considered for update. Returns 0 only for NaN. */
int zsetAdd(robj *zobj, double score, sds ele, int in, int *out, double *newscore, const zsetLimits *lim);
/* Removes ele; 1 if it was there. */
int zsetDel(robj *zobj, sds ele);
/* 0-based rank of ele (from the highest when reverse), -1 when absent. */
long zsetRank(robj *zobj, sds ele, int reverse);

/* A position in a zset walking up (or down when reverse) in either encoding.
 * Valid until the zset is modified. */
typedef struct zcursor {
    unsigned char *lp, *p; /* listpack: the zset and the current member entry */
    zskiplistNode *node;   /* skiplist: the current node */
    int skiplist, reverse;
} zcursor;

/* Places cur on the element of 0-based rank `rank` counted in its direction. */
void zcurAtRank(zcursor *cur, robj *zobj, unsigned long rank, int reverse);

/* The cursor's steps are inline: every range reply and iteration runs them
 * once per element. */
static inline int zcurValid(const zcursor *cur) { return cur->skiplist ? cur->node != NULL : cur->p != NULL; }

static inline double zzlScoreAt(unsigned char *sptr) {
    lpEntry e;
    lpGetEntry(sptr, &e);
    return lpEntryToDouble(&e);
}

static inline double zcurScore(const zcursor *cur) {
    return cur->skiplist ? cur->node->score : zzlScoreAt(lpNext(cur->lp, cur->p));
}

/* Room for a member stored as an integer, printed (zcurMember's buf). */
#define ZSET_MEMBER_BUF LP_INTBUF_SIZE

/* The member's bytes; integers stored in a listpack are printed into buf. */
static inline const unsigned char *zcurMember(const zcursor *cur, unsigned char buf[ZSET_MEMBER_BUF], size_t *len) {
    if (cur->skiplist) {
        *len = sdslen(cur->node->ele);
        return (const unsigned char *)cur->node->ele;
    }
    uint32_t l;
    const unsigned char *s = lpGetString(cur->p, &l, buf);
    *len = l;
    return s;
}

static inline void zcurNext(zcursor *cur) {
    if (cur->skiplist) {
        cur->node = cur->reverse ? cur->node->backward : cur->node->level[0].forward;
    } else if (cur->reverse) {
        unsigned char *prev_score = lpPrev(cur->lp, cur->p);
        cur->p = prev_score ? lpPrev(cur->lp, prev_score) : NULL;
    } else {
        cur->p = lpNext(cur->lp, lpNext(cur->lp, cur->p));
    }
}

/* A score or a lex interval, so range code is written once for both. */
typedef struct zbounds {
    int lex;
    zrangespec score;
    zlexrangespec lexr;
} zbounds;

/* Parses a score (lex = 0) or lex (lex = 1) interval, as ZRANGEBYSCORE and
 * ZRANGEBYLEX take them, into b; 0 on success, -1 when the text is not an
 * interval. A parsed b is released with zboundsFree. */
int zboundsParse(zbounds *b, int lex, const char *min, size_t minlen, const char *max, size_t maxlen);
void zboundsFree(zbounds *b);
/* 1 while a cursor that entered the range has not yet left it at the far end. */
int zcurInsideFar(const zcursor *cur, const zbounds *b);
/* Places cur on the first element inside b in its direction (the lowest, or
 * the highest when reverse); the cursor is invalid when none is. */
void zcurSeekBounds(zcursor *cur, robj *zobj, const zbounds *b, int reverse);
unsigned long zsetCountBounds(robj *zobj, const zbounds *b);
unsigned long zsetDeleteBounds(robj *zobj, const zbounds *b);
/* Removes the 0-based ranks start..end (inclusive, already within bounds). */
unsigned long zsetDeleteRank(robj *zobj, long start, long end);

/* Called for each member in a score range, lowest first; returning 0 stops
 * the walk. ele is only valid during the call. */
typedef int zsetVisitFn(const unsigned char *ele, size_t len, double score, void *ctx);
void zsetVisitScoreRange(robj *zobj, const zrangespec *range, zsetVisitFn *visit, void *ctx);

/* ZRANDMEMBER's draws, handed to visit one member at a time (returning 0
 * stops). zsetRandomMembers: count independent uniform draws, repeats
 * allowed. zsetRandomMembersDistinct: count distinct members, 0 < count <
 * the length, by Redis's strategies (a listpack in one selection-sampling
 * walk; most of a skiplist by a partial shuffle of its nodes; few of many
 * by drawing until enough distinct ones came up). */
void zsetRandomMembers(robj *zobj, unsigned long count, zsetVisitFn *visit, void *ctx);
void zsetRandomMembersDistinct(robj *zobj, unsigned long count, zsetVisitFn *visit, void *ctx);

#endif
