/* packset: a set's hash table with each bucket's members in one allocation
 * (interface and rationale in packset.h).
 *
 * A bucket is 0 (empty) or a tagged pointer to its pack. Packs are at least
 * 8-byte aligned, so the low 3 bits give the member count when it is 1..7;
 * 0 there means the pack starts with the count as a varint (a bucket rarely
 * holds 8: only while a fork keeps the table from growing). Then the
 * members, each a varint length (7 bits a byte, low first, high bit = more
 * follows) and the bytes; in a set of pairs (a hash's table) each member is
 * followed by its value, coded the same way. An entry is a member with its
 * value if it has one. New entries go at the end of their pack.
 *
 * The table mechanics follow core/dict.c step for step (one rehash step per
 * lookup or update, 10 empty buckets visited at most per step, growth at one
 * member per bucket, shrinking under 10%, fair random draws by sampling
 * neighbouring buckets), so SCAN, SRANDMEMBER and DEBUG HTSTATS-KEY behave
 * as they do for Redis's dict-encoded sets. */
#include "data/packset.h"

#include <assert.h>
#include <string.h>

#include "core/dict.h"
#include "core/memprefetch.h"
#include "core/zmalloc.h"

struct packset {
    uintptr_t *table[2];
    unsigned long used[2];
    signed char sizeExp[2]; /* -1: no table */
    long rehashidx;         /* -1: not rehashing */
    int pauserehash;        /* >0: iterators or a scan are walking the buckets */
    int pairs;              /* each member carries a value (packsetCreatePairs) */
};

#define COUNT_MASK ((uintptr_t)7)
#define HT_SIZE(exp) ((exp) == -1 ? 0UL : 1UL << (exp))
#define HT_MASK(exp) ((exp) == -1 ? 0UL : HT_SIZE(exp) - 1)

/* ---------------------------------------------------------------- packs */

static inline size_t varintSize(size_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline unsigned char *varintPut(unsigned char *p, size_t v) {
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static inline const unsigned char *varintGet(const unsigned char *p, size_t *v) {
    if (*p < 0x80) {
        *v = *p;
        return p + 1;
    }
    size_t x = 0;
    unsigned shift = 0;
    unsigned char b;
    do {
        b = *p++;
        x |= (size_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    *v = x;
    return p;
}

static inline unsigned char *packPtr(uintptr_t l) { return (unsigned char *)(l & ~COUNT_MASK); }

/* Member count of a non-empty bucket; *first: its first member. */
static inline unsigned long packOpen(uintptr_t l, const unsigned char **first) {
    unsigned long n = l & COUNT_MASK;
    if (n) {
        *first = packPtr(l);
        return n;
    }
    size_t count;
    *first = varintGet(packPtr(l), &count);
    return count;
}

static inline size_t countHeaderSize(unsigned long count) { return count <= COUNT_MASK ? 0 : varintSize(count); }

/* Where the member at e ends (the next one starts); *m, *len: its bytes. */
static inline const unsigned char *memberAt(const unsigned char *e, const unsigned char **m, size_t *len) {
    *m = varintGet(e, len);
    return *m + *len;
}

/* Where the entry at e ends; *m, *len: its member (the value, in a set of
 * pairs, is what follows the member, up to that end). */
static inline const unsigned char *entryAt(const unsigned char *e, int pairs, const unsigned char **m, size_t *len) {
    e = memberAt(e, m, len);
    if (pairs) {
        const unsigned char *v;
        size_t vlen;
        e = memberAt(e, &v, &vlen);
    }
    return e;
}

static const unsigned char *packEnd(const unsigned char *e, unsigned long n, int pairs) {
    const unsigned char *m;
    size_t len;
    while (n--) e = entryAt(e, pairs, &m, &len);
    return e;
}

/* The entry whose member is (m, len) in a non-empty bucket, or NULL. */
static const unsigned char *packFind(uintptr_t l, int pairs, const void *m, size_t len) {
    const unsigned char *e;
    unsigned long n = packOpen(l, &e);
    while (n--) {
        const unsigned char *bytes;
        size_t blen;
        const unsigned char *next = entryAt(e, pairs, &bytes, &blen);
        if (blen == len && memcmp(bytes, m, len) == 0) return e;
        e = next;
    }
    return NULL;
}

/* The bytes a pack of `used` bytes takes: at least 2, so that the tagged
 * pointer of a one-member pack (its start + 1) points into it. The pack of
 * the empty string alone is 1 byte, and a pointer one past an allocation's
 * end does not hold it for a leak checker (LeakSanitizer reported such sets
 * as leaked). Both sizes are the allocator's smallest class: no cost. */
static inline size_t packAlloc(size_t used) { return used < 2 ? 2 : used; }

/* Makes room for n more entries taking bytes at the end of the bucket's
 * pack (creating it), and returns where to write them. */
static unsigned char *packGrow(uintptr_t *bucket, int pairs, size_t bytes, unsigned long n) {
    uintptr_t l = *bucket;
    unsigned char *old = NULL;
    const unsigned char *first = NULL;
    unsigned long count = 0;
    size_t hdr = 0, body = 0;
    if (l) {
        count = packOpen(l, &first);
        old = packPtr(l);
        hdr = (size_t)(first - old);
        body = (size_t)(packEnd(first, count, pairs) - first);
    }
    count += n;
    size_t newHdr = countHeaderSize(count);
    unsigned char *p = zrealloc_sized(old, old ? packAlloc(hdr + body) : 0, packAlloc(newHdr + body + bytes));
    assert(((uintptr_t)p & COUNT_MASK) == 0);
    if (newHdr != hdr) memmove(p + newHdr, p + hdr, body);
    if (newHdr) varintPut(p, count);
    *bucket = (uintptr_t)p | (newHdr ? 0 : count);
    return p + newHdr + body;
}

static unsigned char *packPutMember(unsigned char *dst, const void *m, size_t len) {
    dst = varintPut(dst, len);
    memcpy(dst, m, len);
    return dst + len;
}

/* Appends the entry (m, v) at the end of the bucket's pack (v only in a set of pairs). */
static void packPutEntry(uintptr_t *bucket, int pairs, const void *m, size_t len, const void *v, size_t vlen) {
    size_t bytes = varintSize(len) + len + (pairs ? varintSize(vlen) + vlen : 0);
    unsigned char *dst = packPutMember(packGrow(bucket, pairs, bytes, 1), m, len);
    if (pairs) packPutMember(dst, v, vlen);
}

/* The field and the value of the entry at e, in a set of pairs. */
static inline void pairAt(const unsigned char *e, const unsigned char **m, size_t *len, const unsigned char **v,
                          size_t *vlen) {
    memberAt(memberAt(e, m, len), v, vlen);
}

/* Takes the entry at e out of the bucket's pack (freeing it when empty). */
static void packDelete(uintptr_t *bucket, int pairs, const unsigned char *e) {
    const unsigned char *first;
    unsigned long count = packOpen(*bucket, &first);
    unsigned char *p = packPtr(*bucket);
    const unsigned char *m;
    size_t len;
    const unsigned char *next = entryAt(e, pairs, &m, &len);
    if (count == 1) {
        zfree_sized(p, packAlloc((size_t)(next - p)));
        *bucket = 0;
        return;
    }
    const unsigned char *end = packEnd(first, count, pairs);
    size_t hdr = (size_t)(first - p), before = (size_t)(e - first), after = (size_t)(end - next);
    memmove((unsigned char *)e, next, after);
    count--;
    size_t newHdr = countHeaderSize(count);
    if (newHdr != hdr) memmove(p + newHdr, p + hdr, before + after);
    if (newHdr) varintPut(p, count);
    p = zrealloc_sized(p, packAlloc((size_t)(end - p)), packAlloc(newHdr + before + after));
    assert(((uintptr_t)p & COUNT_MASK) == 0);
    *bucket = (uintptr_t)p | (newHdr ? 0 : count);
}

static inline uint64_t hashOf(const void *m, size_t len) { return dictGenHashFunction(m, len); }

/* ---------------------------------------------------------------- tables */

static void tableReset(packset *s, int t) {
    s->table[t] = NULL;
    s->used[t] = 0;
    s->sizeExp[t] = -1;
}

packset *packsetCreate(void) {
    packset *s = zmalloc(sizeof(*s));
    tableReset(s, 0);
    tableReset(s, 1);
    s->rehashidx = -1;
    s->pauserehash = 0;
    s->pairs = 0;
    return s;
}

packset *packsetCreatePairs(void) {
    packset *s = packsetCreate();
    s->pairs = 1;
    return s;
}

static void tableFree(packset *s, int t) {
    unsigned long size = HT_SIZE(s->sizeExp[t]);
    for (unsigned long i = 0; i < size && s->used[t]; i++) {
        uintptr_t l = s->table[t][i];
        if (!l) continue;
        const unsigned char *first;
        s->used[t] -= packOpen(l, &first);
        zfree(packPtr(l));
    }
    zfree(s->table[t]);
    tableReset(s, t);
}

void packsetRelease(packset *s) {
    tableFree(s, 0);
    tableFree(s, 1);
    zfree(s);
}

unsigned long packsetSize(const packset *s) { return s->used[0] + s->used[1]; }
int packsetIsRehashing(const packset *s) { return s->rehashidx != -1; }

static void expandTo(packset *s, unsigned long size) {
    if (packsetIsRehashing(s) || s->used[0] > size) return;
    signed char exp = dictExpForSize(size);
    if (exp == s->sizeExp[0]) return;
    uintptr_t *table = zcalloc(sizeof(uintptr_t) << exp);
    int t = s->table[0] ? 1 : 0; /* the first table needs no rehashing */
    s->table[t] = table;
    s->sizeExp[t] = exp;
    s->used[t] = 0;
    if (t == 1) s->rehashidx = 0;
}

void packsetExpand(packset *s, unsigned long n) {
    if (n <= (1UL << 40)) expandTo(s, n); /* beyond: no machine holds it; grow as members come */
}

/* Moves bucket i of the old table to the new one. */
static void rehashBucket(packset *s, unsigned long i) {
    uintptr_t l = s->table[0][i];
    const unsigned char *first;
    unsigned long n = packOpen(l, &first);
    unsigned long mask = HT_MASK(s->sizeExp[1]);
    s->table[0][i] = 0;
    s->used[0] -= n;
    s->used[1] += n;
    /* Growing, a new bucket takes members from one old bucket only: when they
     * all go to the same (empty) one, the pack moves as it is. */
    unsigned long idx[16] = {0};
    const unsigned char *e = first, *m;
    size_t len;
    int same = 1;
    for (unsigned long j = 0; j < n && j < 16; j++) {
        e = entryAt(e, s->pairs, &m, &len);
        idx[j] = hashOf(m, len) & mask;
        if (idx[j] != idx[0]) same = 0;
    }
    if (same && n <= 16 && s->table[1][idx[0]] == 0) {
        s->table[1][idx[0]] = l;
        return;
    }
    e = first;
    for (unsigned long j = 0; j < n; j++) {
        const unsigned char *start = e;
        e = entryAt(e, s->pairs, &m, &len);
        unsigned long to = j < 16 ? idx[j] : hashOf(m, len) & mask;
        memcpy(packGrow(&s->table[1][to], s->pairs, (size_t)(e - start), 1), start, (size_t)(e - start));
    }
    zfree_sized(packPtr(l), packAlloc((size_t)(e - packPtr(l))));
}

/* n bucket moves (at most 10n empty buckets visited); 1 if more remain. */
static int rehash(packset *s, int n) {
    int emptyVisits = n * 10;
    if (!packsetIsRehashing(s)) return 0;
    while (n-- && s->used[0] != 0) {
        while (s->table[0][s->rehashidx] == 0) {
            s->rehashidx++;
            if (--emptyVisits == 0) return 1;
        }
        rehashBucket(s, (unsigned long)s->rehashidx);
        s->rehashidx++;
    }
    if (s->used[0] == 0) {
        zfree(s->table[0]);
        s->table[0] = s->table[1];
        s->used[0] = s->used[1];
        s->sizeExp[0] = s->sizeExp[1];
        tableReset(s, 1);
        s->rehashidx = -1;
        return 0;
    }
    return 1;
}

static void rehashStep(packset *s) {
    if (packsetIsRehashing(s) && s->pauserehash == 0) rehash(s, 1);
}

/* ---------------------------------------------------------------- members */

/* The bucket holding (m, len), with *entry the member in it; NULL if absent. */
static uintptr_t *findMember(packset *s, const void *m, size_t len, uint64_t hash, const unsigned char **entry) {
    for (int t = 0; t <= 1 && s->sizeExp[t] != -1; t++) {
        uintptr_t *b = &s->table[t][hash & HT_MASK(s->sizeExp[t])];
        if (*b && (*entry = packFind(*b, s->pairs, m, len))) return b;
        if (!packsetIsRehashing(s)) break;
    }
    return NULL;
}

/* Before an add: a rehash step, and the table grown when it is due. */
static void prepareAdd(packset *s) {
    rehashStep(s);
    if (!packsetIsRehashing(s)) {
        if (s->sizeExp[0] == -1) expandTo(s, DICT_HT_INITIAL_SIZE);
        else if (dictGrowDue(s->used[0], HT_SIZE(s->sizeExp[0]))) expandTo(s, s->used[0] + 1);
    }
}

/* Appends the entry (m, v) to the bucket for hash in the table being filled. */
static void putEntry(packset *s, uint64_t hash, const void *m, size_t len, const void *v, size_t vlen) {
    int t = packsetIsRehashing(s) ? 1 : 0; /* new entries go to the table being filled */
    packPutEntry(&s->table[t][hash & HT_MASK(s->sizeExp[t])], s->pairs, m, len, v, vlen);
    s->used[t]++;
}

int packsetAdd(packset *s, const void *m, size_t len) {
    assert(!s->pairs);
    prepareAdd(s);
    uint64_t hash = hashOf(m, len);
    const unsigned char *e;
    if (findMember(s, m, len, hash, &e)) return 0;
    putEntry(s, hash, m, len, NULL, 0);
    return 1;
}

/* Which table a bucket pointer is in. */
static inline int tableOf(const packset *s, const uintptr_t *b) {
    return b >= s->table[0] && b < s->table[0] + HT_SIZE(s->sizeExp[0]) ? 0 : 1;
}

int packsetSet(packset *s, const void *m, size_t len, const void *v, size_t vlen) {
    assert(s->pairs);
    prepareAdd(s);
    uint64_t hash = hashOf(m, len);
    const unsigned char *e;
    uintptr_t *b = findMember(s, m, len, hash, &e);
    if (!b) {
        putEntry(s, hash, m, len, v, vlen);
        return 1;
    }
    const unsigned char *bytes, *old;
    size_t blen, oldlen;
    pairAt(e, &bytes, &blen, &old, &oldlen);
    if (oldlen == vlen) { /* HINCRBY's usual case: the same length, in place */
        memcpy((unsigned char *)old, v, vlen);
        return 0;
    }
    /* Another length: the entry leaves its pack and comes back at its end. */
    packDelete(b, 1, e);
    packPutEntry(b, 1, m, len, v, vlen);
    return 0;
}

int packsetGet(packset *s, const void *m, size_t len, const unsigned char **v, size_t *vlen) {
    assert(s->pairs);
    if (packsetSize(s) == 0) return 0;
    rehashStep(s);
    const unsigned char *e, *bytes;
    size_t blen;
    if (!findMember(s, m, len, hashOf(m, len), &e)) return 0;
    pairAt(e, &bytes, &blen, v, vlen);
    return 1;
}

int packsetRemove(packset *s, const void *m, size_t len) {
    if (packsetSize(s) == 0) return 0;
    rehashStep(s);
    const unsigned char *e;
    uintptr_t *b = findMember(s, m, len, hashOf(m, len), &e);
    if (!b) return 0;
    s->used[tableOf(s, b)]--;
    packDelete(b, s->pairs, e);
    unsigned long slots = HT_SIZE(s->sizeExp[0]) + HT_SIZE(s->sizeExp[1]);
    if (!packsetIsRehashing(s) && dictShrinkDue(packsetSize(s), slots))
        expandTo(s, s->used[0]); /* dictExpForSize keeps it at the initial size at least */
    return 1;
}

int packsetContains(packset *s, const void *m, size_t len) {
    if (packsetSize(s) == 0) return 0;
    rehashStep(s);
    const unsigned char *e;
    return findMember(s, m, len, hashOf(m, len), &e) != NULL;
}

/* ---------------------------------------------------------------- random */

#define FAIR_SAMPLES 15

typedef struct sampleCtx {
    const packset *s;
    const unsigned char **out;
    unsigned int count;
} sampleCtx;

static unsigned long samplePack(void *ctx, int t, unsigned long idx, unsigned long stored) {
    sampleCtx *sc = ctx;
    uintptr_t l = sc->s->table[t][idx];
    if (!l) return 0;
    const unsigned char *e, *m;
    size_t len;
    unsigned long n = packOpen(l, &e);
    for (unsigned long k = 0; k < n; k++, e = entryAt(e, sc->s->pairs, &m, &len)) {
        long slot = dictSampleSlot(stored + k, sc->count);
        if (slot >= 0) sc->out[slot] = e;
    }
    return n;
}

/* Up to count members from neighbouring buckets (dict.c's dictGetSomeKeys). */
static unsigned int sampleMembers(packset *s, const unsigned char **out, unsigned int count) {
    if (packsetSize(s) < count) count = (unsigned int)packsetSize(s);
    for (unsigned int j = 0; j < count && packsetIsRehashing(s); j++) rehashStep(s);
    sampleCtx sc = {s, out, count};
    signed char exp[2] = {s->sizeExp[0], packsetIsRehashing(s) ? s->sizeExp[1] : -1};
    return dictSampleWalk(exp, s->rehashidx, count, samplePack, &sc);
}

/* A fair random entry of a non-empty set. */
static const unsigned char *randomEntry(packset *s) {
    const unsigned char *picks[FAIR_SAMPLES];
    unsigned int n = sampleMembers(s, picks, FAIR_SAMPLES);
    const unsigned char *e;
    if (n) {
        e = picks[dictRandom() % n];
    } else {
        /* A sparse stretch ate the steps: a random bucket, a random member of it. */
        signed char exp[2] = {s->sizeExp[0], packsetIsRehashing(s) ? s->sizeExp[1] : -1};
        uintptr_t l;
        do {
            int t;
            unsigned long idx = dictRandomBucket(exp, s->rehashidx, &t);
            l = s->table[t][idx];
        } while (!l);
        unsigned long count = packOpen(l, &e);
        const unsigned char *m;
        size_t len;
        for (unsigned long pick = (unsigned long)(dictRandom() % count); pick--;) e = entryAt(e, s->pairs, &m, &len);
    }
    return e;
}

void packsetRandom(packset *s, const unsigned char **m, size_t *len) { memberAt(randomEntry(s), m, len); }

void packsetRandomPair(packset *s, const unsigned char **m, size_t *len, const unsigned char **v, size_t *vlen) {
    assert(s->pairs);
    pairAt(randomEntry(s), m, len, v, vlen);
}

/* ---------------------------------------------------------------- iteration, scan */

void packsetIterInit(packsetIter *it, packset *s) {
    it->s = s;
    it->table = 0;
    it->idx = 0;
    it->p = NULL;
    it->left = 0;
    s->pauserehash++;
}

int packsetIterNextPair(packsetIter *it, const unsigned char **m, size_t *len, const unsigned char **v, size_t *vlen) {
    packset *s = it->s;
    while (it->left == 0) {
        if (it->idx >= HT_SIZE(s->sizeExp[it->table])) {
            if (it->table == 1 || !packsetIsRehashing(s)) return 0;
            it->table = 1;
            it->idx = 0;
            continue;
        }
        uintptr_t l = s->table[it->table][it->idx++];
        if (l) it->left = packOpen(l, &it->p);
    }
    it->left--;
    it->p = memberAt(it->p, m, len);
    if (s->pairs) it->p = memberAt(it->p, v, vlen);
    return 1;
}

int packsetIterNext(packsetIter *it, const unsigned char **m, size_t *len) {
    const unsigned char *v;
    size_t vlen;
    return packsetIterNextPair(it, m, len, &v, &vlen);
}

void packsetIterDone(packsetIter *it) {
    if (!it->s) return;
    it->s->pauserehash--;
    it->s = NULL;
}

packset *packsetDup(packset *s) {
    packset *copy = s->pairs ? packsetCreatePairs() : packsetCreate();
    packsetExpand(copy, packsetSize(s));
    packsetIter it;
    const unsigned char *m, *v;
    size_t len, vlen;
    packsetIterInit(&it, s);
    while (packsetIterNextPair(&it, &m, &len, &v, &vlen)) {
        if (s->pairs) packsetSet(copy, m, len, v, vlen);
        else packsetAdd(copy, m, len);
    }
    packsetIterDone(&it);
    return copy;
}

typedef struct scanVisit {
    packset *s;
    packsetScanFn *fn;
    void *ctx;
} scanVisit;

static void scanBucket(void *ctx, int t, unsigned long idx) {
    scanVisit *sv = ctx;
    uintptr_t l = sv->s->table[t][idx];
    if (!l) return;
    const unsigned char *e, *m, *v = NULL;
    size_t len, vlen = 0;
    for (unsigned long n = packOpen(l, &e); n--;) {
        e = memberAt(e, &m, &len);
        if (sv->s->pairs) e = memberAt(e, &v, &vlen);
        sv->fn(sv->ctx, m, len, v, vlen);
    }
}

unsigned long packsetScan(packset *s, unsigned long cursor, packsetScanFn *fn, void *ctx) {
    if (packsetSize(s) == 0) return 0;
    s->pauserehash++; /* the callback may look members up */
    scanVisit sv = {s, fn, ctx};
    signed char exp[2] = {s->sizeExp[0], packsetIsRehashing(s) ? s->sizeExp[1] : -1};
    cursor = dictScanCursor(cursor, exp, scanBucket, &sv);
    s->pauserehash--;
    return cursor;
}

/* ---------------------------------------------------------------- prefetch, memory, stats */

void packsetPrefetch(const packset *s, const char *const *m, const size_t *lens, int n) {
    const uintptr_t *buckets[2 * DICT_PREFETCH_MAX];
    int nb = 0;
    if (n > DICT_PREFETCH_MAX) n = DICT_PREFETCH_MAX;
    for (int i = 0; i < n; i++) {
        uint64_t hash = hashOf(m[i], lens[i]);
        for (int t = 0; t <= 1 && s->sizeExp[t] != -1; t++) {
            unsigned long idx = hash & HT_MASK(s->sizeExp[t]);
            if (t == 1 || !packsetIsRehashing(s) || (long)idx >= s->rehashidx) {
                buckets[nb] = &s->table[t][idx];
                prefetchLine(buckets[nb++]);
            }
            if (!packsetIsRehashing(s)) break;
        }
    }
    for (int i = 0; i < nb; i++)
        if (*buckets[i]) prefetchLine(packPtr(*buckets[i]));
}

size_t packsetMemUsage(const packset *s, long long samples) {
    size_t size = sizeof(*s) + (HT_SIZE(s->sizeExp[0]) + HT_SIZE(s->sizeExp[1])) * sizeof(uintptr_t);
    size_t packBytes = 0;
    unsigned long seen = 0;
    for (int t = 0; t <= 1; t++) {
        unsigned long slots = HT_SIZE(s->sizeExp[t]);
        for (unsigned long i = 0; i < slots && (long long)seen < samples; i++) {
            uintptr_t l = s->table[t][i];
            if (!l) continue;
            const unsigned char *first;
            seen += packOpen(l, &first);
            packBytes += zmalloc_size(packPtr(l));
        }
    }
    if (seen) size += (size_t)((double)packBytes / (double)seen * (double)packsetSize(s));
    return size;
}

static unsigned long packCount(const void *ctx, int t, unsigned long idx) {
    uintptr_t l = ((const packset *)ctx)->table[t][idx];
    const unsigned char *first;
    return l ? packOpen(l, &first) : 0;
}

size_t packsetGetStats(char *buf, size_t bufsize, const packset *s) {
    signed char exp[2] = {s->sizeExp[0], packsetIsRehashing(s) ? s->sizeExp[1] : -1};
    return dictFormatStats(buf, bufsize, exp, s->used, packCount, s);
}
