/* listpack: the compact sequence of strings and integers that backs small
 * hashes, sorted sets and list nodes. The bytes are exactly Redis 7.0's
 * listpack, so a blob can be written to or read from an RDB file verbatim:
 *
 *   <total-bytes uint32 LE> <num-elements uint16 LE> <entry>... <0xFF>
 *   entry = <encoding+data> <backlen: length of encoding+data, 1..5 bytes>
 *
 * num-elements 65535 means "unknown, walk to count". A listpack is one
 * allocation; every function that changes it may move it and returns the new
 * pointer. Entry pointers ("p") point at an entry's first byte and stay valid
 * only until the next change. Strings that parse as an integer (strict
 * string2ll rules) are always stored in the smallest integer encoding. */
#ifndef DATA_LISTPACK_H
#define DATA_LISTPACK_H

#include <stddef.h>
#include <stdint.h>

#define LP_HDR_SIZE 6
#define LP_EOF 0xFF
#define LP_COUNT_UNKNOWN 65535
/* Like Redis, refuse to grow a listpack past 1 GB (see lpSafeToAdd). */
#define LP_MAX_SAFE_SIZE (1UL << 30)
/* Room for the decimal form of any entry integer (lpGetString). */
#define LP_INTBUF_SIZE 21

/* Where lpInsertString / lpInsertInteger put the new element relative to p. */
#define LP_BEFORE 0
#define LP_AFTER 1
#define LP_REPLACE 2

/* One entry's value, read without allocating: a string (sval, slen) when
 * sval != NULL, otherwise the integer lval. sval points into the listpack. */
typedef struct lpEntry {
    unsigned char *sval;
    uint32_t slen;
    long long lval;
} lpEntry;

/* Create / free. capacity preallocates room for later growth (0 is fine). */
unsigned char *lpNew(size_t capacity);
void lpFree(unsigned char *lp);
unsigned char *lpShrinkToFit(unsigned char *lp);

/* Sizes. lpLength walks (and refreshes the header) when the count is 65535. */
size_t lpBytes(const unsigned char *lp);
unsigned long lpLength(unsigned char *lp);
/* Bytes one element would take (encoding + data + backlen). */
size_t lpEntrySizeString(const unsigned char *s, uint32_t slen);
size_t lpEntrySizeInteger(long long v);
/* 1 if adding `add` bytes keeps lp (NULL = empty) within LP_MAX_SAFE_SIZE. */
int lpSafeToAdd(const unsigned char *lp, size_t add);

/* Adding. `where` is LP_BEFORE/LP_AFTER/LP_REPLACE relative to entry p; with
 * LP_BEFORE, p may also be the terminator (append). If newp is not NULL it is
 * set to the inserted (or replacing) entry. s may point into lp itself. */
unsigned char *lpInsertString(unsigned char *lp, const unsigned char *s, uint32_t slen,
                              unsigned char *p, int where, unsigned char **newp);
unsigned char *lpInsertInteger(unsigned char *lp, long long v, unsigned char *p, int where,
                               unsigned char **newp);
unsigned char *lpAppend(unsigned char *lp, const unsigned char *s, uint32_t slen);
unsigned char *lpPrepend(unsigned char *lp, const unsigned char *s, uint32_t slen);
unsigned char *lpAppendInteger(unsigned char *lp, long long v);
unsigned char *lpPrependInteger(unsigned char *lp, long long v);
/* Replace the entry at *p; *p is updated to the new entry. */
unsigned char *lpReplace(unsigned char *lp, unsigned char **p, const unsigned char *s,
                         uint32_t slen);
unsigned char *lpReplaceInteger(unsigned char *lp, unsigned char **p, long long v);

/* Deleting. After lpDelete, *newp (if given) is the entry that followed p, or
 * NULL if p was the last. lpDeleteRangeWithEntry removes up to num entries
 * starting at *p and leaves *p at the following entry (NULL at the end).
 * lpDeleteRange takes a start index (negative counts from the end). */
unsigned char *lpDelete(unsigned char *lp, unsigned char *p, unsigned char **newp);
unsigned char *lpDeleteRangeWithEntry(unsigned char *lp, unsigned char **p, unsigned long num);
unsigned char *lpDeleteRange(unsigned char *lp, long index, unsigned long num);
/* Appends all of src's entries to dst, frees src, returns the new dst. */
unsigned char *lpMerge(unsigned char *dst, unsigned char *src);

/* Walking. All return NULL when there is no such entry. lpSeek's index may be
 * negative: -1 is the last entry. lpPrev of the terminator is the last entry. */
unsigned char *lpFirst(unsigned char *lp);
unsigned char *lpLast(unsigned char *lp);
unsigned char *lpNext(unsigned char *lp, unsigned char *p);
unsigned char *lpPrev(unsigned char *lp, unsigned char *p);
unsigned char *lpSeek(unsigned char *lp, long index);

/* Reading. lpGetValue returns the string (setting *slen) or NULL for an
 * integer entry (setting *lval). lpGetString always yields bytes, writing
 * integers as decimal into buf. lpGetEntry fills an lpEntry. */
unsigned char *lpGetValue(unsigned char *p, uint32_t *slen, long long *lval);
unsigned char *lpGetString(unsigned char *p, uint32_t *slen, unsigned char buf[LP_INTBUF_SIZE]);
void lpGetEntry(unsigned char *p, lpEntry *e);
/* A sorted-set score entry as a double: scores are kept as the text d2string
 * made, or as an integer when that text was one. */
double lpEntryToDouble(const lpEntry *e);
/* 1 if the entry at p equals the string s (integers compare by value). */
int lpCompare(unsigned char *p, const unsigned char *s, uint32_t slen);
/* Compares the entry at p with s, then every (skip+1)-th entry after it;
 * returns the first equal entry or NULL. skip=1 searches hash fields. */
unsigned char *lpFind(unsigned char *lp, unsigned char *p, const unsigned char *s,
                      uint32_t slen, unsigned int skip);

/* Field/value pairs (hash field+value, zset member+score).
 * Iterate: p = lpFirst(lp); while (lpNextPair(lp, &p, &k, &v)) { ... } */
int lpNextPair(unsigned char *lp, unsigned char **p, lpEntry *key, lpEntry *val);
/* Pair number idx (0-based); val may be NULL. idx must be < pairs. */
void lpPairAt(unsigned char *lp, unsigned long idx, lpEntry *key, lpEntry *val);
/* Pairs at idx[0..count-1] (any order, repeats allowed) in one walk;
 * keys[i]/vals[i] receive pair idx[i]. vals may be NULL. */
void lpPairsAt(unsigned char *lp, const unsigned long *idx, unsigned long count,
               lpEntry *keys, lpEntry *vals);
/* Up to count distinct random pairs, in listpack order, chosen with rnd
 * (e.g. random). Returns how many were picked (min(count, pairs)). */
unsigned long lpRandomPairsUnique(unsigned char *lp, unsigned long count, lpEntry *keys,
                                  lpEntry *vals, long (*rnd)(void));
/* The same two draws handed to a visitor, for replies of any size: fn
 * gets each pair (val NULL unless withvals) and returns 0 to stop.
 * lpVisitRandomPairs: count independent uniform draws (repeats allowed), in
 * the order drawn, decoded in bounded batches. lpVisitRandomPairsUnique:
 * min(count, pairs) distinct pairs in listpack order; returns how many. */
typedef int lpPairFn(void *ctx, const lpEntry *key, const lpEntry *val);
void lpVisitRandomPairs(unsigned char *lp, unsigned long count, int withvals, lpPairFn *fn, void *ctx,
                        long (*rnd)(void));
unsigned long lpVisitRandomPairsUnique(unsigned char *lp, unsigned long count, int withvals, lpPairFn *fn,
                                       void *ctx, long (*rnd)(void));

/* Untrusted blobs (RESTORE, RDB load). Shallow (deep=0) checks the header
 * and terminator; deep walks every entry with bounds checks, checks each
 * backlen and the element count, and calls cb (if given) on every entry
 * with the header's count; cb returning 0 fails the validation.
 * Returns 1 if valid. */
typedef int (*lpValidateEntryFn)(unsigned char *p, unsigned int header_count, void *userdata);
int lpValidateIntegrity(unsigned char *lp, size_t size, int deep, lpValidateEntryFn cb,
                        void *userdata);
/* One step of a checked walk through a listpack that passed the shallow
 * check only: *pp is an entry (or the terminator) of lp; 1 when it is well
 * formed and inside lp, with *pp moved to the next entry (NULL past the
 * last); 0 when it is bad. lpValidateFirstEntry checks the first entry. */
int lpValidateNextEntry(unsigned char *lp, unsigned char **pp);
/* The checked step backwards: *pp (an entry or the terminator) moves to the
 * entry its preceding backlen points at, which must be well formed (NULL
 * before the first); 0 when the backlen or that entry is bad. */
int lpValidatePrevEntry(unsigned char *lp, unsigned char **pp);
int lpValidateFirstEntry(unsigned char *lp);

#endif
