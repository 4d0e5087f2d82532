/* listpack: Redis 7.0's compact byte sequence of strings and integers (see
 * listpack.h for the layout). Written from the public format description;
 * every byte produced must match what Redis produces for the same operations
 * so RDB files stay interchangeable with redis-server 7.0.
 *
 * Entry encodings, by the first byte:
 *   0xxxxxxx            7-bit unsigned int, no data bytes
 *   10xxxxxx            string, length in 6 bits, then the bytes
 *   110xxxxx x          13-bit signed int (two's complement, high bits first)
 *   1110xxxx x          string, length in 12 bits (high bits first), then the bytes
 *   0xF0 len32          string, 32-bit LE length, then the bytes
 *   0xF1/F2/F3/F4       16/24/32/64-bit signed int, LE
 *   0xFF                terminator
 * Each entry is followed by its "backlen": the length of encoding+data written
 * 7 bits per byte so that it can be read from its last byte backwards; every
 * byte except the leftmost has the 0x80 continuation bit set. */
#include "data/listpack.h"

#include <stdlib.h>
#include <string.h>

#include "core/numparse.h"
#include "core/panic.h"
#include "core/zmalloc.h"

#define ENC_STR6 0x80
#define ENC_INT13 0xC0
#define ENC_STR12 0xE0
#define ENC_STR32 0xF0
#define ENC_INT16 0xF1
#define ENC_INT24 0xF2
#define ENC_INT32 0xF3
#define ENC_INT64 0xF4

#define MAX_BACKLEN_BYTES 5

/* A broken invariant means memory is already corrupt: stop loudly, with
 * the server's crash report (core/panic.h). */
static void lpPanic(const char *why) { serverPanic("listpack: %s", why); }

/* ---- little-endian fields (byte access: endian- and alignment-neutral) ---- */

static inline uint32_t get16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t get24(const unsigned char *p) { return get16(p) | (uint32_t)p[2] << 16; }
static inline uint32_t get32(const unsigned char *p) { return get24(p) | (uint32_t)p[3] << 24; }
static inline uint64_t get64(const unsigned char *p) {
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}
static inline void putLE(unsigned char *p, uint64_t v, int nbytes) {
    for (int i = 0; i < nbytes; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static inline size_t hdrBytes(const unsigned char *lp) { return get32(lp); }
static inline void setHdrBytes(unsigned char *lp, size_t n) { putLE(lp, n, 4); }
static inline unsigned hdrCount(const unsigned char *lp) { return get16(lp + 4); }
static inline void setHdrCount(unsigned char *lp, unsigned long n) {
    putLE(lp + 4, n < LP_COUNT_UNKNOWN ? n : LP_COUNT_UNKNOWN, 2);
}

/* Once the header says "unknown" it stays so until lpLength recounts,
 * exactly as Redis does (its blobs show the same header values). */
static void countAdd(unsigned char *lp, long delta) {
    unsigned c = hdrCount(lp);
    if (c != LP_COUNT_UNKNOWN) setHdrCount(lp, (unsigned long)((long)c + delta));
}

/* ---- entry geometry ---- */

static inline size_t backlenSize(size_t l) {
    /* Boundaries are Redis's (16383 itself takes 3 bytes); verified on blobs. */
    if (l <= 127) return 1;
    if (l < 16383) return 2;
    if (l < 2097151) return 3;
    if (l < 268435455) return 4;
    return 5;
}

static size_t writeBacklen(unsigned char *dst, size_t l) {
    size_t n = backlenSize(l);
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)((l >> (7 * (n - 1 - i))) & 127);
        dst[i] = i ? (unsigned char)(b | 128) : b;
    }
    return n;
}

/* Reads a backlen whose last byte is at q. */
static inline size_t readBacklen(const unsigned char *q) {
    size_t v = 0;
    for (unsigned shift = 0;; shift += 7, q--) {
        v |= (size_t)(*q & 127) << shift;
        if (!(*q & 128)) return v;
    }
}

/* Length of encoding+data of the (trusted) entry at p. */
static inline size_t elementLen(const unsigned char *p) {
    unsigned char b = p[0];
    if (b < 0x80) return 1;
    if (b < 0xC0) return 1 + (size_t)(b & 0x3F);
    if (b < 0xE0) return 2;
    if (b < 0xF0) return 2 + (((size_t)(b & 0x0F) << 8) | p[1]);
    switch (b) {
    case ENC_STR32: return 5 + (size_t)get32(p + 1);
    case ENC_INT16: return 3;
    case ENC_INT24: return 4;
    case ENC_INT32: return 5;
    case ENC_INT64: return 9;
    default: lpPanic("bad entry encoding"); return 0;
    }
}

static inline size_t entrySize(const unsigned char *p) {
    size_t l = elementLen(p);
    return l + backlenSize(l);
}

/* ---- encoding new elements ---- */

/* An element ready to be written: the integer encoding or the string header
 * in head, the string payload (not copied) in data, and its backlen. */
typedef struct newEntry {
    unsigned char head[9];
    size_t headlen;
    const unsigned char *data;
    size_t datalen;
    unsigned char back[MAX_BACKLEN_BYTES];
    size_t backlen;
} newEntry;

static void prepareInteger(newEntry *e, long long v) {
    uint64_t u = (uint64_t)v; /* two's complement bits; masks below keep the width */
    unsigned char *h = e->head;
    if (v >= 0 && v <= 127) {
        h[0] = (unsigned char)v;
        e->headlen = 1;
    } else if (v >= -4096 && v <= 4095) {
        h[0] = (unsigned char)(ENC_INT13 | ((u >> 8) & 0x1F));
        h[1] = (unsigned char)(u & 0xFF);
        e->headlen = 2;
    } else if (v >= -32768 && v <= 32767) {
        h[0] = ENC_INT16;
        putLE(h + 1, u, 2);
        e->headlen = 3;
    } else if (v >= -8388608 && v <= 8388607) {
        h[0] = ENC_INT24;
        putLE(h + 1, u, 3);
        e->headlen = 4;
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        h[0] = ENC_INT32;
        putLE(h + 1, u, 4);
        e->headlen = 5;
    } else {
        h[0] = ENC_INT64;
        putLE(h + 1, u, 8);
        e->headlen = 9;
    }
    e->data = NULL;
    e->datalen = 0;
    e->backlen = writeBacklen(e->back, e->headlen);
}

static void prepareString(newEntry *e, const unsigned char *s, uint32_t slen) {
    long long v;
    if (string2ll((const char *)s, slen, &v)) {
        prepareInteger(e, v);
        return;
    }
    unsigned char *h = e->head;
    if (slen < 64) {
        h[0] = (unsigned char)(ENC_STR6 | slen);
        e->headlen = 1;
    } else if (slen < 4096) {
        h[0] = (unsigned char)(ENC_STR12 | (slen >> 8));
        h[1] = (unsigned char)(slen & 0xFF);
        e->headlen = 2;
    } else {
        h[0] = ENC_STR32;
        putLE(h + 1, slen, 4);
        e->headlen = 5;
    }
    e->data = s;
    e->datalen = slen;
    e->backlen = writeBacklen(e->back, e->headlen + slen);
}

static inline size_t newEntrySize(const newEntry *e) { return e->headlen + e->datalen + e->backlen; }

static void writeEntry(unsigned char *dst, const newEntry *e) {
    memcpy(dst, e->head, e->headlen);
    dst += e->headlen;
    if (e->datalen) memcpy(dst, e->data, e->datalen);
    memcpy(dst + e->datalen, e->back, e->backlen);
}

/* The one place bytes move: replaces dellen bytes at offset off with entry e
 * (or nothing), resizing the allocation and the header's byte count. */
static unsigned char *splice(unsigned char *lp, size_t off, size_t dellen, const newEntry *e) {
    size_t old = hdrBytes(lp);
    size_t addlen = e ? newEntrySize(e) : 0;
    size_t newsize = old - dellen + addlen;
    size_t tail = old - off - dellen; /* everything after the gap, terminator included */
    if (newsize > UINT32_MAX) lpPanic("listpack larger than 4 GB");
    if (addlen > dellen) {
        lp = zrealloc(lp, newsize);
        memmove(lp + off + addlen, lp + off + dellen, tail);
    } else if (addlen < dellen) {
        memmove(lp + off + addlen, lp + off + dellen, tail);
        lp = zrealloc(lp, newsize);
    }
    if (e) writeEntry(lp + off, e);
    setHdrBytes(lp, newsize);
    return lp;
}

/* ---- create, sizes ---- */

unsigned char *lpNew(size_t capacity) {
    unsigned char *lp = zmalloc(capacity > LP_HDR_SIZE + 1 ? capacity : LP_HDR_SIZE + 1);
    setHdrBytes(lp, LP_HDR_SIZE + 1);
    setHdrCount(lp, 0);
    lp[LP_HDR_SIZE] = LP_EOF;
    return lp;
}

void lpFree(unsigned char *lp) { zfree(lp); }

unsigned char *lpShrinkToFit(unsigned char *lp) {
    size_t n = hdrBytes(lp);
    return zmalloc_size(lp) > n ? zrealloc(lp, n) : lp;
}

size_t lpBytes(const unsigned char *lp) { return hdrBytes(lp); }

static size_t untrustedEntrySize(const unsigned char *p, const unsigned char *end);

/* Walks the entries to count them (the header says "unknown"), every step
 * checked: a listpack RESTOREd without sanitize-dump-payload passed the
 * header and size check only, and an entry whose size runs past the end
 * must stop the server (as Redis's checked walk does), not send the walk
 * through foreign memory. Counting is rare: only 65535 entries or more, or a
 * loaded listpack, leave the header without the count. */
static unsigned long countEntries(const unsigned char *lp) {
    const unsigned char *end = lp + hdrBytes(lp) - 1; /* the terminator */
    unsigned long n = 0;
    for (const unsigned char *p = lp + LP_HDR_SIZE; p < end; n++) {
        size_t size = untrustedEntrySize(p, end);
        serverAssert(size != 0);
        p += size;
    }
    return n;
}

unsigned long lpLength(unsigned char *lp) {
    unsigned c = hdrCount(lp);
    if (c != LP_COUNT_UNKNOWN) return c;
    unsigned long n = countEntries(lp);
    if (n < LP_COUNT_UNKNOWN) setHdrCount(lp, n);
    return n;
}

size_t lpEntrySizeString(const unsigned char *s, uint32_t slen) {
    newEntry e;
    prepareString(&e, s, slen);
    return newEntrySize(&e);
}

size_t lpEntrySizeInteger(long long v) {
    newEntry e;
    prepareInteger(&e, v);
    return newEntrySize(&e);
}

int lpSafeToAdd(const unsigned char *lp, size_t add) {
    size_t len = lp ? hdrBytes(lp) : 0;
    return len + add <= LP_MAX_SAFE_SIZE;
}

/* ---- adding ---- */

static unsigned char *insertEntry(unsigned char *lp, const newEntry *e, unsigned char *p,
                                  int where, unsigned char **newp) {
    size_t off = (size_t)(p - lp), dellen = 0;
    if (where == LP_AFTER && *p != LP_EOF) off += entrySize(p);
    else if (where == LP_REPLACE) dellen = entrySize(p);
    lp = splice(lp, off, dellen, e);
    if (where != LP_REPLACE) countAdd(lp, 1);
    if (newp) *newp = lp + off;
    return lp;
}

unsigned char *lpInsertString(unsigned char *lp, const unsigned char *s, uint32_t slen,
                              unsigned char *p, int where, unsigned char **newp) {
    newEntry e;
    prepareString(&e, s, slen);
    /* A value read from this same listpack would move under us on realloc. */
    unsigned char *copy = NULL;
    uintptr_t a = (uintptr_t)s, lo = (uintptr_t)lp;
    if (e.data && a >= lo && a < lo + hdrBytes(lp)) e.data = copy = zmemdup(s, slen);
    lp = insertEntry(lp, &e, p, where, newp);
    zfree(copy);
    return lp;
}

unsigned char *lpInsertInteger(unsigned char *lp, long long v, unsigned char *p, int where,
                               unsigned char **newp) {
    newEntry e;
    prepareInteger(&e, v);
    return insertEntry(lp, &e, p, where, newp);
}

unsigned char *lpAppend(unsigned char *lp, const unsigned char *s, uint32_t slen) {
    return lpInsertString(lp, s, slen, lp + hdrBytes(lp) - 1, LP_BEFORE, NULL);
}

unsigned char *lpPrepend(unsigned char *lp, const unsigned char *s, uint32_t slen) {
    return lpInsertString(lp, s, slen, lp + LP_HDR_SIZE, LP_BEFORE, NULL);
}

unsigned char *lpAppendInteger(unsigned char *lp, long long v) {
    return lpInsertInteger(lp, v, lp + hdrBytes(lp) - 1, LP_BEFORE, NULL);
}

unsigned char *lpPrependInteger(unsigned char *lp, long long v) {
    return lpInsertInteger(lp, v, lp + LP_HDR_SIZE, LP_BEFORE, NULL);
}

unsigned char *lpReplace(unsigned char *lp, unsigned char **p, const unsigned char *s,
                         uint32_t slen) {
    return lpInsertString(lp, s, slen, *p, LP_REPLACE, p);
}

unsigned char *lpReplaceInteger(unsigned char *lp, unsigned char **p, long long v) {
    return lpInsertInteger(lp, v, *p, LP_REPLACE, p);
}

/* ---- deleting ---- */

unsigned char *lpDelete(unsigned char *lp, unsigned char *p, unsigned char **newp) {
    unsigned char *q = p;
    lp = lpDeleteRangeWithEntry(lp, &q, 1);
    if (newp) *newp = q;
    return lp;
}

unsigned char *lpDeleteRangeWithEntry(unsigned char *lp, unsigned char **p, unsigned long num) {
    size_t off = (size_t)(*p - lp);
    unsigned char *q = *p;
    unsigned long n = 0;
    while (n < num && *q != LP_EOF) {
        q += entrySize(q);
        n++;
    }
    lp = splice(lp, off, (size_t)(q - *p), NULL);
    countAdd(lp, -(long)n);
    *p = lp[off] == LP_EOF ? NULL : lp + off;
    return lp;
}

unsigned char *lpDeleteRange(unsigned char *lp, long index, unsigned long num) {
    unsigned char *p = lpSeek(lp, index);
    if (!p || num == 0) return lp;
    return lpDeleteRangeWithEntry(lp, &p, num);
}

unsigned char *lpMerge(unsigned char *dst, unsigned char *src) {
    unsigned long count = lpLength(dst) + lpLength(src);
    size_t dbytes = hdrBytes(dst), body = hdrBytes(src) - LP_HDR_SIZE - 1;
    size_t newsize = dbytes + body;
    if (newsize > UINT32_MAX) lpPanic("listpack larger than 4 GB");
    dst = zrealloc(dst, newsize);
    memcpy(dst + dbytes - 1, src + LP_HDR_SIZE, body);
    dst[newsize - 1] = LP_EOF;
    setHdrBytes(dst, newsize);
    setHdrCount(dst, count);
    zfree(src);
    return dst;
}

/* ---- walking ---- */

unsigned char *lpFirst(unsigned char *lp) {
    unsigned char *p = lp + LP_HDR_SIZE;
    return *p == LP_EOF ? NULL : p;
}

unsigned char *lpNext(unsigned char *lp, unsigned char *p) {
    (void)lp;
    if (*p == LP_EOF) return NULL;
    p += entrySize(p);
    return *p == LP_EOF ? NULL : p;
}

unsigned char *lpPrev(unsigned char *lp, unsigned char *p) {
    if (p == lp + LP_HDR_SIZE) return NULL;
    size_t l = readBacklen(p - 1);
    return p - backlenSize(l) - l;
}

unsigned char *lpLast(unsigned char *lp) { return lpPrev(lp, lp + hdrBytes(lp) - 1); }

unsigned char *lpSeek(unsigned char *lp, long index) {
    unsigned c = hdrCount(lp);
    unsigned long n = c != LP_COUNT_UNKNOWN ? c : countEntries(lp);
    if (index < 0) index += (long)n;
    if (index < 0 || (unsigned long)index >= n) return NULL;
    unsigned long i = (unsigned long)index;
    unsigned char *p;
    if (i <= n / 2) {
        p = lp + LP_HDR_SIZE;
        while (i--) p += entrySize(p);
    } else {
        p = lpLast(lp);
        for (unsigned long back = n - 1 - i; back; back--) p = lpPrev(lp, p);
    }
    return p;
}

/* ---- reading ---- */

unsigned char *lpGetValue(unsigned char *p, uint32_t *slen, long long *lval) {
    unsigned char b = p[0];
    uint64_t u;
    int bits;
    if (b < 0x80) {
        *lval = b;
        return NULL;
    }
    if (b < 0xC0) {
        *slen = b & 0x3F;
        return p + 1;
    }
    if (b < 0xE0) {
        u = ((uint64_t)(b & 0x1F) << 8) | p[1];
        bits = 13;
    } else if (b < 0xF0) {
        *slen = ((uint32_t)(b & 0x0F) << 8) | p[1];
        return p + 2;
    } else {
        switch (b) {
        case ENC_STR32: *slen = get32(p + 1); return p + 5;
        case ENC_INT16: u = get16(p + 1); bits = 16; break;
        case ENC_INT24: u = get24(p + 1); bits = 24; break;
        case ENC_INT32: u = get32(p + 1); bits = 32; break;
        case ENC_INT64: *lval = (long long)get64(p + 1); return NULL;
        default: lpPanic("reading a terminator or bad encoding"); return NULL;
        }
    }
    /* Sign-extend the narrow two's complement value. */
    *lval = (u >> (bits - 1)) & 1 ? (long long)u - (1LL << bits) : (long long)u;
    return NULL;
}

unsigned char *lpGetString(unsigned char *p, uint32_t *slen, unsigned char buf[LP_INTBUF_SIZE]) {
    long long v;
    unsigned char *s = lpGetValue(p, slen, &v);
    if (s) return s;
    *slen = (uint32_t)ll2string((char *)buf, LP_INTBUF_SIZE, v);
    return buf;
}

void lpGetEntry(unsigned char *p, lpEntry *e) {
    e->sval = lpGetValue(p, &e->slen, &e->lval);
}

/* Equality of entry p and s; *sint caches s's integer parse across calls
 * (-1 = not parsed yet, 0 = not an integer, 1 = integer in *sval). */
static int entryEquals(unsigned char *p, const unsigned char *s, uint32_t slen, int *sint,
                       long long *sval) {
    uint32_t len;
    long long v;
    unsigned char *str = lpGetValue(p, &len, &v);
    if (str) return len == slen && memcmp(str, s, slen) == 0;
    if (*sint < 0) *sint = string2ll((const char *)s, slen, sval);
    return *sint && *sval == v;
}

int lpCompare(unsigned char *p, const unsigned char *s, uint32_t slen) {
    int sint = -1;
    long long sval;
    return *p != LP_EOF && entryEquals(p, s, slen, &sint, &sval);
}

unsigned char *lpFind(unsigned char *lp, unsigned char *p, const unsigned char *s,
                      uint32_t slen, unsigned int skip) {
    (void)lp;
    int sint = -1;
    long long sval = 0;
    while (p && *p != LP_EOF) {
        if (entryEquals(p, s, slen, &sint, &sval)) return p;
        for (unsigned int i = 0; i <= skip; i++) {
            p += entrySize(p);
            if (*p == LP_EOF) return NULL;
        }
    }
    return NULL;
}

/* ---- pairs ---- */

int lpNextPair(unsigned char *lp, unsigned char **p, lpEntry *key, lpEntry *val) {
    if (!*p) return 0;
    unsigned char *v = lpNext(lp, *p);
    if (!v) return 0; /* a lone trailing element is not a pair */
    lpGetEntry(*p, key);
    lpGetEntry(v, val);
    *p = lpNext(lp, v);
    return 1;
}

void lpPairAt(unsigned char *lp, unsigned long idx, lpEntry *key, lpEntry *val) {
    unsigned char *p = lpSeek(lp, (long)(idx * 2));
    if (!p) lpPanic("pair index out of range");
    lpGetEntry(p, key);
    if (val) lpGetEntry(lpNext(lp, p), val);
}

typedef struct pairPick {
    unsigned long idx;   /* pair number */
    unsigned long order; /* slot in the caller's arrays */
} pairPick;

static int cmpPick(const void *a, const void *b) {
    unsigned long x = ((const pairPick *)a)->idx, y = ((const pairPick *)b)->idx;
    return x < y ? -1 : x > y;
}

void lpPairsAt(unsigned char *lp, const unsigned long *idx, unsigned long count,
               lpEntry *keys, lpEntry *vals) {
    if (count == 0) return;
    /* Sort the wanted indices so a single forward walk serves them all. */
    pairPick *picks = zmalloc(sizeof(*picks) * count);
    for (unsigned long i = 0; i < count; i++) picks[i] = (pairPick){idx[i], i};
    qsort(picks, count, sizeof(*picks), cmpPick);
    unsigned char *p = lpFirst(lp);
    unsigned long at = 0; /* pair number p points at */
    for (unsigned long i = 0; i < count; i++) {
        for (; at < picks[i].idx; at++) p = lpNext(lp, lpNext(lp, p));
        if (!p) lpPanic("pair index out of range");
        lpGetEntry(p, &keys[picks[i].order]);
        if (vals) lpGetEntry(lpNext(lp, p), &vals[picks[i].order]);
    }
    zfree(picks);
}

/* Pairs are drawn with repeats in batches of this many, so the index
 * buffers stay bounded whatever the count. */
#define LP_RANDOM_PAIRS_BATCH 1000

void lpVisitRandomPairs(unsigned char *lp, unsigned long count, int withvals, lpPairFn *fn, void *ctx,
                        long (*rnd)(void)) {
    unsigned long pairs = lpLength(lp) / 2, limit = count < LP_RANDOM_PAIRS_BATCH ? count : LP_RANDOM_PAIRS_BATCH;
    if (!pairs || !count) return;
    unsigned long *idx = zmalloc(sizeof(*idx) * limit);
    lpEntry *keys = zmalloc(sizeof(*keys) * limit), *vals = withvals ? zmalloc(sizeof(*vals) * limit) : NULL;
    int go = 1;
    while (go && count) {
        unsigned long batch = count < limit ? count : limit;
        count -= batch;
        for (unsigned long i = 0; i < batch; i++) idx[i] = (unsigned long)rnd() % pairs;
        lpPairsAt(lp, idx, batch, keys, vals);
        for (unsigned long i = 0; go && i < batch; i++) go = fn(ctx, &keys[i], vals ? &vals[i] : NULL);
    }
    zfree(idx);
    zfree(keys);
    zfree(vals);
}

unsigned long lpVisitRandomPairsUnique(unsigned char *lp, unsigned long count, int withvals, lpPairFn *fn,
                                       void *ctx, long (*rnd)(void)) {
    unsigned long remaining = lpLength(lp) / 2;
    if (count > remaining) count = remaining;
    /* Selection sampling: take each pair with probability needed/remaining,
     * which yields a uniform subset in a single walk. */
    unsigned long picked = 0;
    unsigned char *p = lpFirst(lp);
    lpEntry k, v;
    while (picked < count && lpNextPair(lp, &p, &k, &v)) {
        if ((unsigned long)rnd() % remaining < count - picked) {
            picked++;
            if (!fn(ctx, &k, withvals ? &v : NULL)) break;
        }
        remaining--;
    }
    return picked;
}

typedef struct pairArrays {
    lpEntry *keys, *vals;
    unsigned long n;
} pairArrays;

static int storePair(void *ctx, const lpEntry *key, const lpEntry *val) {
    pairArrays *a = ctx;
    a->keys[a->n] = *key;
    if (val) a->vals[a->n] = *val;
    a->n++;
    return 1;
}

unsigned long lpRandomPairsUnique(unsigned char *lp, unsigned long count, lpEntry *keys,
                                  lpEntry *vals, long (*rnd)(void)) {
    pairArrays a = {keys, vals, 0};
    return lpVisitRandomPairsUnique(lp, count, vals != NULL, storePair, &a, rnd);
}

/* ---- validation of untrusted blobs ---- */

/* Length of encoding+data of the entry at p, reading only the `avail` bytes
 * before the terminator. Returns 0 for a bad or truncated entry. */
static size_t untrustedElementLen(const unsigned char *p, size_t avail) {
    unsigned char b = p[0];
    size_t need; /* bytes that hold the encoding (and a string's length) */
    if (b < 0xC0) need = 1;             /* 7-bit int, 6-bit string */
    else if (b < 0xF0) need = 2;        /* 13-bit int, 12-bit string */
    else if (b == ENC_STR32) need = 5;
    else if (b <= ENC_INT64) need = 1;
    else return 0;                      /* terminator or unused encoding */
    if (need > avail) return 0;
    size_t l = elementLen(p);
    return l <= avail ? l : 0;
}

/* Checks the entry at p (before the terminator at end): its encoding, its
 * size and its backlen. Returns the entry's total size, 0 if it is bad. */
static size_t untrustedEntrySize(const unsigned char *p, const unsigned char *end) {
    size_t avail = (size_t)(end - p);
    size_t l = untrustedElementLen(p, avail);
    if (l == 0) return 0;
    unsigned char back[MAX_BACKLEN_BYTES];
    size_t bl = writeBacklen(back, l);
    if (l + bl > avail || memcmp(back, p + l, bl) != 0) return 0;
    return l + bl;
}

int lpValidateIntegrity(unsigned char *lp, size_t size, int deep, lpValidateEntryFn cb,
                        void *userdata) {
    if (size < LP_HDR_SIZE + 1 || hdrBytes(lp) != size || lp[size - 1] != LP_EOF) return 0;
    if (!deep) return 1;
    unsigned header_count = hdrCount(lp);
    const unsigned char *end = lp + size - 1; /* the terminator */
    unsigned char *p = lp + LP_HDR_SIZE;
    unsigned long n = 0;
    while (p < end) {
        size_t sz = untrustedEntrySize(p, end);
        if (sz == 0) return 0;
        if (cb && !cb(p, header_count, userdata)) return 0;
        p += sz;
        n++;
    }
    return header_count == LP_COUNT_UNKNOWN || header_count == n;
}

int lpValidateNextEntry(unsigned char *lp, unsigned char **pp) {
    unsigned char *p = *pp;
    const unsigned char *end = lp + hdrBytes(lp) - 1;
    if (!p || p < lp + LP_HDR_SIZE || p > end) return 0;
    if (p == end) {
        *pp = NULL;
        return 1;
    }
    size_t sz = untrustedEntrySize(p, end);
    if (sz == 0) return 0;
    *pp = p + sz;
    return 1;
}

int lpValidatePrevEntry(unsigned char *lp, unsigned char **pp) {
    unsigned char *p = *pp;
    const unsigned char *first = lp + LP_HDR_SIZE, *end = lp + hdrBytes(lp) - 1;
    if (!p || p < first || p > end) return 0;
    if (p == first) {
        *pp = NULL;
        return 1;
    }
    /* The backlen ends right before p: at most MAX_BACKLEN_BYTES, all after the header. */
    size_t l = 0;
    const unsigned char *q = p - 1;
    for (unsigned shift = 0;; shift += 7, q--) {
        if (q < first || shift >= 7 * MAX_BACKLEN_BYTES) return 0;
        l |= (size_t)(*q & 127) << shift;
        if (!(*q & 128)) break;
    }
    size_t size = l + backlenSize(l);
    if (size > (size_t)(p - first)) return 0;
    unsigned char *prev = p - size;
    if (untrustedEntrySize(prev, end) == 0) return 0;
    *pp = prev;
    return 1;
}

int lpValidateFirstEntry(unsigned char *lp) {
    unsigned char *p = lp + LP_HDR_SIZE;
    return lpValidateNextEntry(lp, &p);
}

double lpEntryToDouble(const lpEntry *e) {
    if (!e->sval) return (double)e->lval;
    char buf[MAX_D2STRING_CHARS];
    size_t n = e->slen < sizeof(buf) - 1 ? e->slen : sizeof(buf) - 1;
    memcpy(buf, e->sval, n);
    buf[n] = '\0';
    return strtod(buf, NULL);
}
