/* intset: Redis 7.0's sorted integer array (layout in intset.h), written
 * from the format description. All fields are little-endian and read byte
 * by byte, so blobs are portable and need no alignment. */
#include "data/intset.h"

#include <string.h>

#include "core/numparse.h"
#include "core/zmalloc.h"

#define HDR_SIZE 8
#define ENC16 2
#define ENC32 4
#define ENC64 8

/* The struct only names the header; members follow it in the same block. */
struct intset {
    unsigned char encoding[4];
    unsigned char length[4];
    unsigned char contents[];
};

static inline uint32_t getU32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void putLE(unsigned char *p, uint64_t v, unsigned nbytes) {
    for (unsigned i = 0; i < nbytes; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t encodingOf(const intset *is) { return getU32(is->encoding); }
static inline uint32_t lengthOf(const intset *is) { return getU32(is->length); }
static inline void setLength(intset *is, uint32_t n) { putLE(is->length, n, 4); }

/* Smallest width that holds v. */
static uint32_t encodingFor(long long v) {
    if (v < INT32_MIN || v > INT32_MAX) return ENC64;
    if (v < INT16_MIN || v > INT16_MAX) return ENC32;
    return ENC16;
}

/* Member at pos stored with width enc (sign-extended from enc bytes). */
static long long readAt(const unsigned char *contents, uint32_t enc, uint32_t pos) {
    const unsigned char *p = contents + (size_t)pos * enc;
    uint64_t u = 0;
    for (uint32_t i = 0; i < enc; i++) u |= (uint64_t)p[i] << (8 * i);
    if (enc < 8 && (u >> (8 * enc - 1)) & 1) u |= ~(uint64_t)0 << (8 * enc);
    return (long long)u;
}

static inline long long memberAt(const intset *is, uint32_t pos) {
    return readAt(is->contents, encodingOf(is), pos);
}

static inline void writeAt(intset *is, uint32_t pos, long long v) {
    uint32_t enc = encodingOf(is);
    putLE(is->contents + (size_t)pos * enc, (uint64_t)v, enc);
}

/* Binary search: 1 and *pos = index if found, else 0 and *pos = insertion point. */
static int search(const intset *is, long long v, uint32_t *pos) {
    uint32_t lo = 0, hi = lengthOf(is);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        long long m = memberAt(is, mid);
        if (m == v) {
            *pos = mid;
            return 1;
        }
        if (m < v) lo = mid + 1;
        else hi = mid;
    }
    *pos = lo;
    return 0;
}

static intset *resize(intset *is, uint32_t len) {
    return zrealloc(is, HDR_SIZE + (size_t)len * encodingOf(is));
}

intset *intsetNew(void) {
    intset *is = zmalloc(HDR_SIZE);
    putLE(is->encoding, ENC16, 4);
    setLength(is, 0);
    return is;
}

void intsetFree(intset *is) { zfree(is); }

/* Widens every member to enc and adds v, which lies outside the current
 * range (it did not fit), so it goes first if negative, else last. */
static intset *upgradeAndAdd(intset *is, uint32_t enc, long long v) {
    uint32_t oldenc = encodingOf(is), len = lengthOf(is);
    int prepend = v < 0;
    putLE(is->encoding, enc, 4);
    is = resize(is, len + 1);
    /* Back to front, so wider slots never overwrite members not yet moved. */
    for (uint32_t i = len; i-- > 0;) writeAt(is, i + (uint32_t)prepend, readAt(is->contents, oldenc, i));
    writeAt(is, prepend ? 0 : len, v);
    setLength(is, len + 1);
    return is;
}

intset *intsetAdd(intset *is, long long value, int *added) {
    uint32_t enc = encodingFor(value), pos;
    if (added) *added = 1;
    if (enc > encodingOf(is)) return upgradeAndAdd(is, enc, value);
    if (search(is, value, &pos)) {
        if (added) *added = 0;
        return is;
    }
    uint32_t len = lengthOf(is);
    is = resize(is, len + 1);
    enc = encodingOf(is);
    memmove(is->contents + (size_t)(pos + 1) * enc, is->contents + (size_t)pos * enc,
            (size_t)(len - pos) * enc);
    writeAt(is, pos, value);
    setLength(is, len + 1);
    return is;
}

intset *intsetRemove(intset *is, long long value, int *removed) {
    uint32_t pos;
    if (removed) *removed = 0;
    if (encodingFor(value) > encodingOf(is) || !search(is, value, &pos)) return is;
    uint32_t len = lengthOf(is), enc = encodingOf(is);
    memmove(is->contents + (size_t)pos * enc, is->contents + (size_t)(pos + 1) * enc,
            (size_t)(len - pos - 1) * enc);
    setLength(is, len - 1);
    if (removed) *removed = 1;
    return resize(is, len - 1);
}

int intsetFind(const intset *is, long long value) {
    uint32_t pos;
    return encodingFor(value) <= encodingOf(is) && search(is, value, &pos);
}

uint32_t intsetLen(const intset *is) { return lengthOf(is); }

size_t intsetBlobLen(const intset *is) {
    return HDR_SIZE + (size_t)lengthOf(is) * encodingOf(is);
}

int intsetGet(const intset *is, uint32_t pos, long long *value) {
    if (pos >= lengthOf(is)) return 0;
    *value = memberAt(is, pos);
    return 1;
}

long long intsetRandom(const intset *is, unsigned long r) {
    return memberAt(is, (uint32_t)(r % lengthOf(is)));
}

long long intsetMin(const intset *is) { return memberAt(is, 0); }

long long intsetMax(const intset *is) { return memberAt(is, lengthOf(is) - 1); }

int intsetParseMember(const char *s, size_t len, long long *value) {
    return string2ll(s, len, value);
}

int intsetValidateIntegrity(const unsigned char *blob, size_t size, int deep) {
    if (size < HDR_SIZE) return 0;
    const intset *is = (const intset *)blob;
    uint32_t enc = encodingOf(is), len = lengthOf(is);
    if (enc != ENC16 && enc != ENC32 && enc != ENC64) return 0;
    if (HDR_SIZE + (uint64_t)len * enc != size) return 0;
    if (len == 0) return 0;
    if (!deep) return 1;
    long long prev = readAt(is->contents, enc, 0);
    for (uint32_t i = 1; i < len; i++) {
        long long cur = readAt(is->contents, enc, i);
        if (cur <= prev) return 0;
        prev = cur;
    }
    return 1;
}
