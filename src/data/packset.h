/* packset: the hash-table encoding of a set (OBJECT ENCODING "hashtable").
 * Built on core/dict's plan -- power-of-two tables, the same growth and
 * shrink rules, incremental rehashing, the reverse-binary SCAN cursor, the
 * seeded hash -- but a bucket holds no chain of entries: one allocation, its
 * pack, holds every member of the bucket back to back, each as its length
 * and its bytes. A member costs its bytes plus a byte or two, and its share
 * of the bucket array: no entry, node or string header of its own (a dict
 * entry embedding a 13-byte member takes 32 bytes; here 14, packed with the
 * bucket's other members into one allocation).
 *
 * A set of pairs (packsetCreatePairs) is a hash's table: each member (a
 * field) is followed in its pack by its value, so a field costs its bytes,
 * its value's and two length bytes (a dict entry with an embedded field and
 * a separate value string take 48 bytes for a 7-byte field and value).
 *
 * Members move when their bucket's pack changes: bytes handed out (lookups,
 * iteration, random draws, scans) stay valid until the set is next changed. */
#ifndef DATA_PACKSET_H
#define DATA_PACKSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct packset packset;

packset *packsetCreate(void);
packset *packsetCreatePairs(void); /* each member with a value: a hash's fields */
void packsetRelease(packset *s);
unsigned long packsetSize(const packset *s);
/* Sizes the table for about n members (a no-op while rehashing or when already as large). */
void packsetExpand(packset *s, unsigned long n);
int packsetIsRehashing(const packset *s);

/* 1 when m was added (0: already a member). */
int packsetAdd(packset *s, const void *m, size_t len);
/* 1 when m was a member and is gone; shrinks the table when it gets sparse. */
int packsetRemove(packset *s, const void *m, size_t len);
int packsetContains(packset *s, const void *m, size_t len);
/* Sets of pairs (packsetAdd is for plain sets only). packsetSet: 1 when m
 * was added, 0 when its value was replaced; packsetRemove removes a pair.
 * packsetGet: 1 and the value when m is there. */
int packsetSet(packset *s, const void *m, size_t len, const void *v, size_t vlen);
int packsetGet(packset *s, const void *m, size_t len, const unsigned char **v, size_t *vlen);
/* One member of a non-empty set, drawn fairly: a member in a crowded bucket
 * is as likely as one alone in its bucket. */
void packsetRandom(packset *s, const unsigned char **m, size_t *len);
void packsetRandomPair(packset *s, const unsigned char **m, size_t *len, const unsigned char **v, size_t *vlen);

/* Walks every member in table order. Rehashing pauses until packsetIterDone,
 * and the set must not change in between. May live on the stack; the fields
 * are private. */
typedef struct packsetIter {
    packset *s;
    int table;
    unsigned long idx;      /* next bucket to open */
    const unsigned char *p; /* next member of the open pack */
    unsigned long left;     /* members left in it */
} packsetIter;
void packsetIterInit(packsetIter *it, packset *s);
int packsetIterNext(packsetIter *it, const unsigned char **m, size_t *len);
int packsetIterNextPair(packsetIter *it, const unsigned char **m, size_t *len, const unsigned char **v, size_t *vlen);
void packsetIterDone(packsetIter *it);
/* A copy of s (a plain set or a set of pairs), its table sized for its size. */
packset *packsetDup(packset *s);

/* One SCAN step (dict.h's dictScan guarantees): fn gets each member of the
 * buckets the cursor covers (with its value in a set of pairs, else v NULL);
 * returns the next cursor, 0 at the end. */
typedef void packsetScanFn(void *ctx, const unsigned char *m, size_t len, const unsigned char *v, size_t vlen);
unsigned long packsetScan(packset *s, unsigned long cursor, packsetScanFn *fn, void *ctx);

/* Hints only: asks for the buckets of the n members, then their packs, so
 * the cache misses of a pipelined batch overlap (at most DICT_PREFETCH_MAX). */
void packsetPrefetch(const packset *s, const char *const *m, const size_t *lens, int n);

/* Bytes the set takes: the table exactly, the packs from a sample of at
 * most `samples` members. */
size_t packsetMemUsage(const packset *s, long long samples);
/* DEBUG HTSTATS-KEY's text (a pack's members count as its chain). */
size_t packsetGetStats(char *buf, size_t bufsize, const packset *s);

#endif
