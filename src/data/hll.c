/* hll: the HyperLogLog value — a string laid out exactly as Redis 7.0 lays
 * it out, so the bytes a GET, DUMP or RDB file carries are the same as the
 * reference's for the same inserts and values travel between the two
 * servers unchanged:
 *
 *   "HYLL" | encoding (0 dense, 1 sparse) | 3 unused bytes | cached
 *   cardinality (8 bytes, little endian; bit 7 of the last byte set means
 *   "stale") | registers
 *
 * There are 16384 registers (the low 14 bits of an element's 64-bit
 * MurmurHash64A pick one); each keeps the longest run of trailing zeros
 * (+1) seen in the remaining 50 bits. Dense: 6-bit registers packed from
 * the least significant bit of each byte (12288 bytes). Sparse: a run-length
 * code, used while small because most registers of a small set are zero:
 *   00xxxxxx           ZERO   xxxxxx+1 zero registers (1..64)
 *   01xxxxxx yyyyyyyy  XZERO  14-bit length+1 zero registers (1..16384)
 *   1vvvvvxx           VAL    xx+1 registers (1..4) holding vvvvv+1 (1..32)
 * A sparse value turns dense for good when a register needs more than 32 or
 * the string would grow beyond hll-sparse-max-bytes. Every step that
 * decides bytes (how a run is split, which neighbouring VALs are merged,
 * when promotion happens) follows Redis so the encodings stay identical.
 *
 * The representation lives here, apart from the PF* commands, so it can be
 * unit-tested and fuzzed on its own: values come from clients (SET, RESTORE)
 * and every function that walks one must survive any bytes. */
#include "data/hll.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/zmalloc.h"

#define HLL_RANK_BITS (64 - HLL_INDEX_BITS) /* hash bits left to count zeros in */
#define HLL_HEADER_SIZE 16
#define HLL_DENSE_SIZE (HLL_HEADER_SIZE + (HLL_REGISTERS * HLL_REGISTER_BITS + 7) / 8)
#define HLL_ENCODING_OFFSET 4
#define HLL_CARD_OFFSET 8
#define HLL_CACHE_STALE_BIT 0x80 /* in the cardinality's last byte */
#define HLL_HASH_SEED 0xadc83b19ULL

#define SPARSE_VAL_MAX_VALUE 32
#define SPARSE_VAL_MAX_RUN 4
#define SPARSE_ZERO_MAX_RUN 64
#define SPARSE_XZERO_MAX_RUN HLL_REGISTERS
/* How many opcodes, starting just before a change, are examined for
 * adjacent VALs to merge. Bounded (as in Redis) so an add stays O(1) past
 * the lookup; it also decides the bytes, so it must not change. */
#define SPARSE_MERGE_WINDOW 5

/* ------------------------------------------------------------- hashing */

/* MurmurHash64A (Austin Appleby's public-domain 64-bit hash), reading
 * little-endian words whatever the host so values hash as on Redis. */
static uint64_t murmurHash64A(const unsigned char *data, size_t len, uint64_t seed) {
    const uint64_t mul = 0xc6a4a7935bd1e995ULL;
    const int shift = 47;
    uint64_t h = seed ^ (len * mul);
    size_t blocks = len / 8;

    for (size_t b = 0; b < blocks; b++) {
        const unsigned char *w = data + b * 8;
        uint64_t k = 0;
        for (int i = 7; i >= 0; i--) k = (k << 8) | w[i];
        k *= mul;
        k ^= k >> shift;
        k *= mul;
        h ^= k;
        h *= mul;
    }
    const unsigned char *tail = data + blocks * 8;
    size_t rest = len & 7;
    if (rest) {
        for (size_t i = rest; i > 0; i--) h ^= (uint64_t)tail[i - 1] << (8 * (i - 1));
        h *= mul;
    }
    h ^= h >> shift;
    h *= mul;
    h ^= h >> shift;
    return h;
}

/* The register an element lands in and the value it proposes for it. The
 * bit set above the 50 hash bits caps the value at 51 even for a hash
 * whose bits are all zero. */
static uint8_t hllElementRank(const unsigned char *ele, size_t len, long *index) {
    uint64_t hash = murmurHash64A(ele, len, HLL_HASH_SEED);
    *index = (long)(hash & (HLL_REGISTERS - 1));
    hash >>= HLL_INDEX_BITS;
    hash |= 1ULL << HLL_RANK_BITS;
    return (uint8_t)(__builtin_ctzll(hash) + 1);
}

/* ------------------------------------------------------------- the header */

static uint8_t *hllBytes(robj *o) { return (uint8_t *)objectPtr(o); }
int hllEncoding(robj *o) { return hllBytes(o)[HLL_ENCODING_OFFSET]; }

void hllInvalidateCache(robj *o) { hllBytes(o)[HLL_CARD_OFFSET + 7] |= HLL_CACHE_STALE_BIT; }

int hllCacheIsValid(robj *o) { return (hllBytes(o)[HLL_CARD_OFFSET + 7] & HLL_CACHE_STALE_BIT) == 0; }

uint64_t hllCachedCard(robj *o) {
    uint64_t card = 0;
    for (int i = 7; i >= 0; i--) card = (card << 8) | hllBytes(o)[HLL_CARD_OFFSET + i];
    return card;
}

void hllSetCachedCard(robj *o, uint64_t card) {
    for (int i = 0; i < 8; i++) hllBytes(o)[HLL_CARD_OFFSET + i] = (uint8_t)(card >> (8 * i));
}

robj *hllCreate(void) {
    sds s = sdsnewlen(NULL, HLL_HEADER_SIZE + 2);
    memcpy(s, "HYLL", 4);
    s[HLL_ENCODING_OFFSET] = HLL_SPARSE;
    s[HLL_HEADER_SIZE] = (char)(0x40 | ((SPARSE_XZERO_MAX_RUN - 1) >> 8));
    s[HLL_HEADER_SIZE + 1] = (char)((SPARSE_XZERO_MAX_RUN - 1) & 0xff);
    return createObject(OBJ_STRING, s);
}

int hllLooksValid(robj *o) {
    if (o->type != OBJ_STRING || !sdsEncodedObject(o)) return 0;
    size_t len = sdslen(objectPtr(o));
    if (len < HLL_HEADER_SIZE || memcmp(objectPtr(o), "HYLL", 4) != 0) return 0;
    int encoding = hllEncoding(o);
    if (encoding != HLL_DENSE && encoding != HLL_SPARSE) return 0;
    return encoding != HLL_DENSE || len == HLL_DENSE_SIZE;
}

/* ------------------------------------------------------ dense registers */

/* Register i starts at bit i*6: low bits in byte i*6/8, any high bits in the
 * next byte. The last register ends exactly on a byte boundary, so the next
 * byte is touched only when the register really crosses into it. */
static uint8_t denseGetRegister(const uint8_t *regs, long i) {
    size_t bit = (size_t)i * HLL_REGISTER_BITS;
    size_t byte = bit / 8;
    unsigned shift = bit % 8;
    unsigned v = regs[byte] >> shift;
    if (shift > 8 - HLL_REGISTER_BITS) v |= (unsigned)regs[byte + 1] << (8 - shift);
    return (uint8_t)(v & HLL_REGISTER_MAX);
}

static void denseSetRegister(uint8_t *regs, long i, uint8_t val) {
    size_t bit = (size_t)i * HLL_REGISTER_BITS;
    size_t byte = bit / 8;
    unsigned shift = bit % 8;
    regs[byte] = (uint8_t)((regs[byte] & ~(HLL_REGISTER_MAX << shift)) | (val << shift));
    if (shift > 8 - HLL_REGISTER_BITS) {
        unsigned highShift = 8 - shift;
        regs[byte + 1] = (uint8_t)((regs[byte + 1] & ~(HLL_REGISTER_MAX >> highShift)) | (val >> highShift));
    }
}

/* 1 when the register grew. */
static int denseRaiseRegister(uint8_t *regs, long i, uint8_t val) {
    if (denseGetRegister(regs, i) >= val) return 0;
    denseSetRegister(regs, i, val);
    return 1;
}

/* ------------------------------------------------------ sparse opcodes */

typedef struct sparseOp {
    int isVal;  /* VAL (else a run of zeros) */
    int size;   /* bytes: 2 for XZERO, else 1 */
    long run;   /* registers covered */
    uint8_t value;
} sparseOp;

/* Decodes the opcode at p. An XZERO cut off by the end of a damaged value
 * reads its second byte as 0, the string's terminator, as Redis does: the
 * same bytes then decode (and update) the same way on both servers. */
static void sparseDecode(const uint8_t *p, const uint8_t *end, sparseOp *op) {
    if (*p & 0x80) {
        *op = (sparseOp){1, 1, (*p & 0x3) + 1, (uint8_t)(((*p >> 2) & 0x1f) + 1)};
    } else if (*p & 0x40) {
        uint8_t low = p + 1 < end ? p[1] : 0;
        *op = (sparseOp){0, 2, (((long)(*p & 0x3f) << 8) | low) + 1, 0};
    } else {
        *op = (sparseOp){0, 1, (*p & 0x3f) + 1, 0};
    }
}

static int sparseEmitVal(uint8_t *out, uint8_t value, long run) {
    out[0] = (uint8_t)(0x80 | ((value - 1) << 2) | (run - 1));
    return 1;
}

static int sparseEmitZeros(uint8_t *out, long run) {
    if (run <= SPARSE_ZERO_MAX_RUN) {
        out[0] = (uint8_t)(run - 1);
        return 1;
    }
    out[0] = (uint8_t)(0x40 | ((run - 1) >> 8));
    out[1] = (uint8_t)((run - 1) & 0xff);
    return 2;
}

/* Walks a sparse body, calling visit(first register, op, arg) for each
 * opcode. Returns 0 when the body is damaged: a run going past the last
 * register, or runs not covering exactly all of them. */
typedef void sparseVisitor(long first, const sparseOp *op, void *arg);

static int sparseWalk(robj *o, sparseVisitor *visit, void *arg) {
    const uint8_t *p = hllBytes(o) + HLL_HEADER_SIZE, *end = hllBytes(o) + sdslen(objectPtr(o));
    long first = 0;
    sparseOp op;
    while (p < end) {
        sparseDecode(p, end, &op);
        if (first + op.run > HLL_REGISTERS) return 0;
        visit(first, &op, arg);
        first += op.run;
        p += op.size;
    }
    return first == HLL_REGISTERS;
}

static void sparseVisitToDense(long first, const sparseOp *op, void *arg) {
    if (!op->isVal) return;
    for (long i = first; i < first + op->run; i++) denseSetRegister(arg, i, op->value);
}

/* Rewrites a sparse HLL as dense, keeping the header (so the cached
 * cardinality survives). 0 when the sparse body is damaged. */
int hllToDense(robj *o) {
    if (hllEncoding(o) == HLL_DENSE) return 1;
    sds dense = sdsnewlen(NULL, HLL_DENSE_SIZE);
    memcpy(dense, objectPtr(o), HLL_HEADER_SIZE);
    dense[HLL_ENCODING_OFFSET] = HLL_DENSE;
    if (!sparseWalk(o, sparseVisitToDense, dense + HLL_HEADER_SIZE)) {
        sdsfree(dense);
        return 0;
    }
    sdsfree(objectPtr(o));
    objectSetPtr(o, dense);
    return 1;
}

/* Adjacent VALs of equal value fit in one opcode while their runs add up
 * to at most 4. Only a few opcodes from `p` on are looked at: a change
 * can only have made its neighbours mergeable. */
static void sparseMergeNeighbours(robj *o, uint8_t *p) {
    uint8_t *end = hllBytes(o) + sdslen(objectPtr(o));
    sparseOp op, next;
    for (int budget = SPARSE_MERGE_WINDOW; p < end && budget > 0; budget--) {
        sparseDecode(p, end, &op);
        if (op.isVal && p + 1 < end && (p[1] & 0x80)) {
            sparseDecode(p + 1, end, &next);
            if (next.value == op.value && op.run + next.run <= SPARSE_VAL_MAX_RUN) {
                sparseEmitVal(p, op.value, op.run + next.run);
                memmove(p + 1, p + 2, (size_t)(end - (p + 2)));
                sdsincrlen(objectPtr(o), -1);
                end--;
                continue; /* the merged opcode may merge again with the next */
            }
        }
        p += op.size;
    }
}

/* Raises register `index` of a sparse HLL to `val`: the opcode covering it
 * is split into (part before, VAL of one, part after). Turns the value
 * dense when val does not fit a VAL or the string would outgrow
 * hll-sparse-max-bytes. 1 when a register grew, 0 when not, -1 when the
 * body is damaged. */
static int sparseRaiseRegister(robj *o, long index, uint8_t val, size_t sparse_max) {
    if (val > SPARSE_VAL_MAX_VALUE) goto promote;

    /* The split never adds more than three bytes (an XZERO becoming
     * XZERO, VAL, XZERO); make room first so pointers stay valid. */
    objectSetPtr(o, sdsMakeRoomFor(objectPtr(o), 3));
    uint8_t *start = hllBytes(o) + HLL_HEADER_SIZE, *end = hllBytes(o) + sdslen(objectPtr(o));
    uint8_t *p = start, *prev = NULL;
    long first = 0;
    sparseOp op;
    for (;;) {
        if (p >= end) return -1; /* the runs end before the register */
        sparseDecode(p, end, &op);
        if (index < first + op.run) break;
        first += op.run;
        prev = p;
        p += op.size;
    }
    if (op.isVal && op.value >= val) return 0;

    uint8_t seq[5];
    int seqlen = 0;
    long before = index - first, after = first + op.run - 1 - index;
    if (before) seqlen += op.isVal ? sparseEmitVal(seq, op.value, before) : sparseEmitZeros(seq, before);
    seqlen += sparseEmitVal(seq + seqlen, val, 1);
    if (after) {
        seqlen += op.isVal ? sparseEmitVal(seq + seqlen, op.value, after) : sparseEmitZeros(seq + seqlen, after);
    }
    int growth = seqlen - op.size;
    if (growth > 0 && sdslen(objectPtr(o)) + (size_t)growth > sparse_max) goto promote;

    if (p + op.size < end) memmove(p + seqlen, p + op.size, (size_t)(end - (p + op.size)));
    memcpy(p, seq, (size_t)seqlen);
    sdsincrlen(objectPtr(o), growth);
    sparseMergeNeighbours(o, prev ? prev : start);
    return 1;

promote:
    if (!hllToDense(o)) return -1;
    return denseRaiseRegister(hllBytes(o) + HLL_HEADER_SIZE, index, val);
}

int hllRaiseRegister(robj *o, long index, uint8_t val, size_t sparse_max) {
    if (hllEncoding(o) == HLL_DENSE) return denseRaiseRegister(hllBytes(o) + HLL_HEADER_SIZE, index, val);
    return sparseRaiseRegister(o, index, val, sparse_max);
}

int hllAdd(robj *o, const unsigned char *ele, size_t len, size_t sparse_max) {
    long index;
    uint8_t rank = hllElementRank(ele, len, &index);
    return hllRaiseRegister(o, index, rank, sparse_max);
}

/* ------------------------------------------------------------ counting */

/* The estimator works from the histogram of register values only
 * (Ertl, "New cardinality estimation algorithms for HyperLogLog
 * sketches", 2017): no bias tables, good from 0 to billions. */
typedef struct hllHistogram {
    int count[HLL_REGISTER_MAX + 1];
} hllHistogram;

static double hllSigma(double x) {
    if (x == 1.0) return INFINITY;
    double y = 1.0, z = x, previous;
    do {
        x *= x;
        previous = z;
        z += x * y;
        y += y;
    } while (previous != z);
    return z;
}

static double hllTau(double x) {
    if (x == 0.0 || x == 1.0) return 0.0;
    double y = 1.0, z = 1.0 - x, previous;
    do {
        x = sqrt(x);
        previous = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
    } while (previous != z);
    return z / 3.0;
}

static uint64_t hllEstimate(const hllHistogram *h) {
    const double m = HLL_REGISTERS;
    double z = m * hllTau((m - h->count[HLL_RANK_BITS + 1]) / m);
    for (int k = HLL_RANK_BITS; k >= 1; k--) {
        z += h->count[k];
        z *= 0.5;
    }
    z += m * hllSigma(h->count[0] / m);
    const double alphaInfinity = 0.5 / log(2.0);
    return (uint64_t)llround(alphaInfinity * m * m / z);
}

static void sparseVisitHistogram(long first, const sparseOp *op, void *arg) {
    (void)first;
    ((hllHistogram *)arg)->count[op->value] += (int)op->run;
}

/* 0 when the value is damaged. */
static int hllHistogramOf(robj *o, hllHistogram *h) {
    memset(h, 0, sizeof(*h));
    if (hllEncoding(o) == HLL_SPARSE) return sparseWalk(o, sparseVisitHistogram, h);
    const uint8_t *regs = hllBytes(o) + HLL_HEADER_SIZE;
    for (long i = 0; i < HLL_REGISTERS; i++) h->count[denseGetRegister(regs, i)]++;
    return 1;
}

/* ------------------------------------------------------------- merging */


static void sparseVisitMax(long first, const sparseOp *op, void *arg) {
    if (!op->isVal) return;
    uint8_t *reg = ((hllMaxRegisters *)arg)->reg;
    for (long i = first; i < first + op->run; i++)
        if (reg[i] < op->value) reg[i] = op->value;
}

int hllMergeInto(hllMaxRegisters *max, robj *o) {
    if (hllEncoding(o) == HLL_SPARSE) return sparseWalk(o, sparseVisitMax, max);
    const uint8_t *regs = hllBytes(o) + HLL_HEADER_SIZE;
    for (long i = 0; i < HLL_REGISTERS; i++) {
        uint8_t v = denseGetRegister(regs, i);
        if (max->reg[i] < v) max->reg[i] = v;
    }
    return 1;
}

int hllCount(robj *o, uint64_t *card) {
    hllHistogram h;
    if (!hllHistogramOf(o, &h)) return 0;
    *card = hllEstimate(&h);
    return 1;
}

uint64_t hllCountRegisters(const hllMaxRegisters *max) {
    hllHistogram h;
    memset(&h, 0, sizeof(h));
    for (long i = 0; i < HLL_REGISTERS; i++) h.count[max->reg[i]]++;
    return hllEstimate(&h);
}

uint8_t hllDenseRegister(robj *o, long index) { return denseGetRegister(hllBytes(o) + HLL_HEADER_SIZE, index); }

sds hllSparseDescribe(robj *o) {
    const uint8_t *p = hllBytes(o) + HLL_HEADER_SIZE, *end = hllBytes(o) + sdslen(objectPtr(o));
    sds out = sdsempty();
    sparseOp op;
    while (p < end) {
        sparseDecode(p, end, &op);
        if (sdslen(out)) out = sdscatlen(out, " ", 1);
        if (op.isVal)
            out = sdscatprintf(out, "v:%d,%ld", op.value, op.run);
        else
            out = sdscatprintf(out, "%s:%ld", op.size == 2 ? "Z" : "z", op.run);
        p += op.size;
    }
    return out;
}

/* ------------------------------------------------------------ self test */

long hllSelftestPacking(void) {
    uint8_t *regs = zcalloc(HLL_DENSE_SIZE - HLL_HEADER_SIZE);
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    long bad = -1;
    for (int pass = 0; pass < 2 && bad < 0; pass++) {
        uint64_t x = seed + (uint64_t)pass;
        for (long i = 0; i < HLL_REGISTERS; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            denseSetRegister(regs, i, (uint8_t)((x >> 33) & HLL_REGISTER_MAX));
        }
        x = seed + (uint64_t)pass;
        for (long i = 0; i < HLL_REGISTERS && bad < 0; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            if (denseGetRegister(regs, i) != ((x >> 33) & HLL_REGISTER_MAX)) bad = i;
        }
    }
    zfree(regs);
    return bad;
}

long hllSelftestEstimate(size_t sparse_max) {
    robj *sparse = hllCreate(), *dense = hllCreate();
    long failedAt = 0;
    hllToDense(dense);
    const double tolerance = 5 * 1.04 / sqrt(HLL_REGISTERS);
    unsigned char ele[8];
    for (long n = 1; n <= 100000 && !failedAt; n++) {
        for (int b = 0; b < 8; b++) ele[b] = (unsigned char)((uint64_t)n >> (8 * b));
        hllAdd(sparse, ele, sizeof(ele), sparse_max);
        hllAdd(dense, ele, sizeof(ele), sparse_max);
        if (n % 1000 != 0 && n > 100) continue;
        hllHistogram hs, hd;
        if (!hllHistogramOf(sparse, &hs) || !hllHistogramOf(dense, &hd)) {
            failedAt = n;
            break;
        }
        uint64_t es = hllEstimate(&hs), ed = hllEstimate(&hd);
        double error = fabs((double)ed - (double)n) / (double)n;
        double allowed = n < 1000 ? 0.1 + 2.0 / (double)n : tolerance; /* small counts: a unit or two off */
        if (es != ed || error > allowed) failedAt = n;
    }
    decrRefCount(sparse);
    decrRefCount(dense);
    return failedAt;
}

/* PFSELFTEST */
