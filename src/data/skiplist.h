/* skiplist: the ordered half of a sorted set (the other half is a hash table
 * of these nodes keyed by their element, owned by the zset code).
 *
 * Elements are sds strings, each stored inside its node, ordered by score,
 * then by the bytes of the element (memcmp, shorter first on a common
 * prefix). Each node keeps, per level, the number of level-0 steps its
 * forward pointer skips ("span"), so the rank of a node and the node at a
 * rank are found in O(log n) — that is what ZRANK, ZRANGE by index and
 * ZREMRANGEBYRANK need. Level-0 nodes also point backward so reverse ranges
 * walk without searching.
 *
 * The range specs and their parsers live here too: they are pure data logic,
 * shared by the skiplist and the small (listpack) zset encoding, which is why
 * the membership tests take a plain value (double, or bytes + length). */
#ifndef DATA_SKIPLIST_H
#define DATA_SKIPLIST_H

#include <stddef.h>

#include "core/sds.h"

#define ZSKIPLIST_MAXLEVEL 32 /* enough for 4^32 elements */
#define ZSKIPLIST_P 0.25      /* chance that a node also appears on the next level */

typedef struct zskiplistNode {
    sds ele; /* in the node's own allocation, after level[] (NULL in the header) */
    double score;
    struct zskiplistNode *backward; /* previous node on level 0; NULL for the first */
    struct zskiplistLevel {
        struct zskiplistNode *forward;
        unsigned long span; /* level-0 nodes between this node and forward */
    } level[];
} zskiplistNode;

typedef struct zskiplist {
    zskiplistNode *header; /* sentinel with ZSKIPLIST_MAXLEVEL levels, no element */
    zskiplistNode *tail;   /* last node, NULL when empty */
    unsigned long length;
    int level; /* levels in use (at least 1) */
} zskiplist;

/* A score interval: [min,max] with either end open when its ex flag is set. */
typedef struct {
    double min, max;
    int minex, maxex;
} zrangespec;

/* A lex interval. min/max are owned sds, or the markers ZSL_LEX_MIN ("-",
 * below everything) and ZSL_LEX_MAX ("+", above everything), which are
 * recognised by address only: never read, sdslen or free them. */
typedef struct {
    sds min, max;
    int minex, maxex;
} zlexrangespec;

extern char zslLexMinMarker[1], zslLexMaxMarker[1];
#define ZSL_LEX_MIN ((sds)zslLexMinMarker)
#define ZSL_LEX_MAX ((sds)zslLexMaxMarker)

/* Called by the range deletions for each removed element, before its node is
 * freed, so the caller can drop it from its hash table too. */
typedef void zslRemovedFn(sds ele, double score, void *ctx);

zskiplist *zslCreate(void);
void zslFree(zskiplist *zsl); /* frees every node, elements with them */

/* Random level in 1..ZSKIPLIST_MAXLEVEL with P(level > k) = ZSKIPLIST_P^k. */
int zslRandomLevel(void);

/* Adds a copy of ele (which must not already be present): node->ele, which
 * lives as long as the node. */
zskiplistNode *zslInsert(zskiplist *zsl, double score, const sds ele);
/* Removes and frees the node with this score and element (its ele with it).
 * Returns 1 if found, 0 if not. */
int zslDelete(zskiplist *zsl, double score, sds ele);
/* Changes the score of an element that is present with curscore. The node is
 * kept in place when the order does not change, otherwise moved; either way
 * it is the same node (node->ele and &node->score stay valid), returned. */
zskiplistNode *zslUpdateScore(zskiplist *zsl, double curscore, sds ele, double newscore);

/* 1-based rank of (score, ele), 0 when absent (as Redis's zslGetRank). */
unsigned long zslGetRank(zskiplist *zsl, double score, sds ele);
/* Node at a 1-based rank, NULL when out of range. */
zskiplistNode *zslGetElementByRank(zskiplist *zsl, unsigned long rank);

/* Score ranges. */
int zslValueGteMin(double value, const zrangespec *spec);
int zslValueLteMax(double value, const zrangespec *spec);
/* Quick rejection: 0 when the range is empty or lies wholly outside
 * [first, last]; 1 does not promise an element inside (use zslFirstInRange). */
int zslIsInRange(zskiplist *zsl, const zrangespec *range);
zskiplistNode *zslFirstInRange(zskiplist *zsl, const zrangespec *range);
zskiplistNode *zslLastInRange(zskiplist *zsl, const zrangespec *range);
unsigned long zslCountInRange(zskiplist *zsl, const zrangespec *range);

/* Lex ranges (meaningful when all scores are equal, as ZRANGEBYLEX assumes). */
int zslLexValueGteMin(const char *s, size_t len, const zlexrangespec *spec);
int zslLexValueLteMax(const char *s, size_t len, const zlexrangespec *spec);
int zslLexRangeIsEmpty(const zlexrangespec *spec); /* min above max: nothing can match */
int zslIsInLexRange(zskiplist *zsl, const zlexrangespec *range); /* quick rejection, as above */
zskiplistNode *zslFirstInLexRange(zskiplist *zsl, const zlexrangespec *range);
zskiplistNode *zslLastInLexRange(zskiplist *zsl, const zlexrangespec *range);
unsigned long zslCountInLexRange(zskiplist *zsl, const zlexrangespec *range);

/* Range deletions; each returns the number of elements removed and calls
 * removed (when not NULL) for each one. Ranks are 1-based and inclusive. */
unsigned long zslDeleteRangeByScore(zskiplist *zsl, const zrangespec *range,
                                    zslRemovedFn *removed, void *ctx);
unsigned long zslDeleteRangeByLex(zskiplist *zsl, const zlexrangespec *range,
                                  zslRemovedFn *removed, void *ctx);
unsigned long zslDeleteRangeByRank(zskiplist *zsl, unsigned long start, unsigned long end,
                                   zslRemovedFn *removed, void *ctx);

/* Parsing of client arguments. All return 0 on success and -1 on a malformed
 * argument (the caller replies "ERR min or max is not a float" or
 * "ERR min or max not valid string range item").
 *
 * Score bound: "(" prefix makes it exclusive; the number is read with strtod
 * as Redis does (so " 1", "0x10", "inf", "-inf" and even "" are accepted,
 * "1 " and "nan" are not). */
int zslParseScoreBound(const char *s, size_t len, double *value, int *exclusive);
int zslParseRange(const char *min, size_t minlen, const char *max, size_t maxlen,
                  zrangespec *spec);
/* Lex bound: "-" / "+" (alone) are the markers, "[x" inclusive, "(x" exclusive.
 * On success *bound is a new sds or a marker. */
int zslParseLexBound(const char *s, size_t len, sds *bound, int *exclusive);
/* On success spec owns its bounds: release them with zslFreeLexRange. On
 * error nothing is left allocated. */
int zslParseLexRange(const char *min, size_t minlen, const char *max, size_t maxlen,
                     zlexrangespec *spec);
void zslFreeLexRange(zlexrangespec *spec);

#endif
