/* siphash: SipHash (Aumasson & Bernstein, "SipHash: a fast short-input
 * PRF", 2012), written from the paper's description. The tables use the
 * SipHash-1-2 variant: one compression round per 8-byte word and two
 * finalization rounds, which keeps hash flooding out at a lower cost than the
 * paper's 2-4. siphash_rounds exposes any c-d variant so the implementation
 * can be checked against the paper's published SipHash-2-4 test vector. */
#include "siphash.h"

static inline uint64_t rotl64(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

static inline uint64_t load64le(const uint8_t *p) {
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
           ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) |
           ((uint64_t)p[7] << 56);
}

/* ASCII lowercase of one byte (the C locale's tolower). */
static inline uint8_t lowerByte(uint8_t c) { return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c; }

/* Loads a little-endian word, lowercasing each byte when nocase is set. */
static inline uint64_t loadWord(const uint8_t *p, int nocase) {
    if (!nocase) return load64le(p);
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = lowerByte(p[i]);
    return load64le(b);
}

#define SIPROUND(v0, v1, v2, v3) \
    do {                         \
        v0 += v1;                \
        v1 = rotl64(v1, 13);     \
        v1 ^= v0;                \
        v0 = rotl64(v0, 32);     \
        v2 += v3;                \
        v3 = rotl64(v3, 16);     \
        v3 ^= v2;                \
        v0 += v3;                \
        v3 = rotl64(v3, 21);     \
        v3 ^= v0;                \
        v2 += v1;                \
        v1 = rotl64(v1, 17);     \
        v1 ^= v2;                \
        v2 = rotl64(v2, 32);     \
    } while (0)

/* Inlined with constant round counts by the public wrappers, so the common
 * 1-2 path has no loop over rounds. */
/* Always inlined so each entry point gets its rounds and case folding as constants. */
static inline __attribute__((always_inline)) uint64_t sipGeneric(const uint8_t *in, size_t inlen, const uint8_t key[16], int crounds,
                                  int drounds, int nocase) {
    uint64_t k0 = load64le(key), k1 = load64le(key + 8);
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
    uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
    uint64_t v3 = k1 ^ 0x7465646279746573ULL;
    const uint8_t *end = in + (inlen - inlen % 8);

    for (; in != end; in += 8) {
        uint64_t m = loadWord(in, nocase);
        v3 ^= m;
        for (int i = 0; i < crounds; i++) SIPROUND(v0, v1, v2, v3);
        v0 ^= m;
    }

    /* Last block: the remaining 0-7 bytes, with the length's low byte on top. */
    uint64_t b = (uint64_t)inlen << 56;
    switch (inlen & 7) {
    case 7: b |= (uint64_t)(nocase ? lowerByte(in[6]) : in[6]) << 48; __attribute__((fallthrough));
    case 6: b |= (uint64_t)(nocase ? lowerByte(in[5]) : in[5]) << 40; __attribute__((fallthrough));
    case 5: b |= (uint64_t)(nocase ? lowerByte(in[4]) : in[4]) << 32; __attribute__((fallthrough));
    case 4: b |= (uint64_t)(nocase ? lowerByte(in[3]) : in[3]) << 24; __attribute__((fallthrough));
    case 3: b |= (uint64_t)(nocase ? lowerByte(in[2]) : in[2]) << 16; __attribute__((fallthrough));
    case 2: b |= (uint64_t)(nocase ? lowerByte(in[1]) : in[1]) << 8; __attribute__((fallthrough));
    case 1: b |= (uint64_t)(nocase ? lowerByte(in[0]) : in[0]); break;
    case 0: break;
    }
    v3 ^= b;
    for (int i = 0; i < crounds; i++) SIPROUND(v0, v1, v2, v3);
    v0 ^= b;

    v2 ^= 0xff;
    for (int i = 0; i < drounds; i++) SIPROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t key[16]) {
    return sipGeneric(in, inlen, key, 1, 2, 0);
}

uint64_t siphash_nocase(const uint8_t *in, size_t inlen, const uint8_t key[16]) {
    return sipGeneric(in, inlen, key, 1, 2, 1);
}

uint64_t siphash_rounds(const uint8_t *in, size_t inlen, const uint8_t key[16], int crounds, int drounds) {
    return sipGeneric(in, inlen, key, crounds, drounds, 0);
}
