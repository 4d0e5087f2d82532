/* crc32c: CRC-32C (see crc32c.h). The instruction path is chosen once, at
 * the first call, by asking the CPU (__builtin_cpu_supports), so one binary
 * runs on CPUs with and without SSE4.2; the portable path reads eight bytes
 * at a time through eight tables (slicing-by-8, as core/crc64.c does). Both
 * give the same values: tests/unit/test_crc32c.c checks them against the
 * bitwise definition. */
#include "crc32c.h"

#include <string.h>

#define POLY_REFLECTED 0x82F63B78u

static uint32_t table[8][256];
static int table_ready;

static void buildTable(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t crc = i;
        for (int j = 0; j < 8; j++) crc = (crc & 1) ? (crc >> 1) ^ POLY_REFLECTED : crc >> 1;
        table[0][i] = crc;
    }
    for (int k = 1; k < 8; k++)
        for (int i = 0; i < 256; i++) table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
    table_ready = 1;
}

static uint32_t crcTables(uint32_t crc, const unsigned char *s, size_t len) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; len >= 8; s += 8, len -= 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        v ^= crc;
        crc = table[7][v & 0xff] ^ table[6][(v >> 8) & 0xff] ^ table[5][(v >> 16) & 0xff] ^
              table[4][(v >> 24) & 0xff] ^ table[3][(v >> 32) & 0xff] ^ table[2][(v >> 40) & 0xff] ^
              table[1][(v >> 48) & 0xff] ^ table[0][v >> 56];
    }
#endif
    for (; len; s++, len--) crc = table[0][(crc ^ *s) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define HAVE_CRC_INSN 1

__attribute__((target("sse4.2"))) static uint32_t crcInsn(uint32_t crc, const unsigned char *s, size_t len) {
    uint64_t c = crc;
    for (; len >= 8; s += 8, len -= 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        c = _mm_crc32_u64(c, v);
    }
    uint32_t c32 = (uint32_t)c;
    for (; len; s++, len--) c32 = _mm_crc32_u8(c32, *s);
    return c32;
}
#endif

typedef uint32_t crcFn(uint32_t crc, const unsigned char *s, size_t len);
static crcFn *impl;

static crcFn *choose(void) {
#ifdef HAVE_CRC_INSN
    if (__builtin_cpu_supports("sse4.2")) return crcInsn;
#endif
    buildTable();
    return crcTables;
}

uint32_t crc32cPortable(uint32_t crc, const void *p, size_t len) {
    if (!table_ready) buildTable();
    return ~crcTables(~crc, p, len);
}

uint32_t crc32c(uint32_t crc, const void *p, size_t len) {
    if (!impl) impl = choose();
    return ~impl(~crc, p, len);
}
