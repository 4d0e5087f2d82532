/* crc64: table-driven reflected CRC-64/Jones (see crc64.h). Eight bytes at
 * a time through eight tables ("slicing-by-8", as Redis's crcspeed does):
 * the expiry spool checksums every record it writes (~170 bytes per expired
 * key, every message in ack mode), where one lookup per byte was a fifth of
 * the server's CPU in a mass expiry. The tables are built once from the
 * polynomial; big-endian hosts take the byte-wise loop. */
#include "crc64.h"

#include <string.h>

#define POLY_REFLECTED 0x95AC9329AC4BC9B5ULL

static uint64_t table[8][256];
static int table_ready;

static void buildTable(void) {
    for (int i = 0; i < 256; i++) {
        uint64_t crc = (uint64_t)i;
        for (int j = 0; j < 8; j++) crc = (crc & 1) ? (crc >> 1) ^ POLY_REFLECTED : crc >> 1;
        table[0][i] = crc;
    }
    /* table[k][i]: the CRC of byte i followed by k zero bytes. */
    for (int k = 1; k < 8; k++)
        for (int i = 0; i < 256; i++) table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
    table_ready = 1;
}

uint64_t crc64(uint64_t crc, const void *p, size_t len) {
    if (!table_ready) buildTable();
    const unsigned char *s = p;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; len >= 8; s += 8, len -= 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        crc ^= v;
        crc = table[7][crc & 0xff] ^ table[6][(crc >> 8) & 0xff] ^ table[5][(crc >> 16) & 0xff] ^
              table[4][(crc >> 24) & 0xff] ^ table[3][(crc >> 32) & 0xff] ^ table[2][(crc >> 40) & 0xff] ^
              table[1][(crc >> 48) & 0xff] ^ table[0][crc >> 56];
    }
#endif
    for (; len; s++, len--) crc = table[0][(crc ^ *s) & 0xff] ^ (crc >> 8);
    return crc;
}
