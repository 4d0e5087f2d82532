/* crc64: table-driven reflected CRC-64/Jones (see crc64.h). The table is
 * built once from the polynomial; eight table lookups per byte are not needed
 * for our sizes (RDB writes are disk-bound). */
#include "crc64.h"

#define POLY_REFLECTED 0x95AC9329AC4BC9B5ULL

static uint64_t table[256];
static int table_ready;

static void buildTable(void) {
    for (int i = 0; i < 256; i++) {
        uint64_t crc = (uint64_t)i;
        for (int j = 0; j < 8; j++) crc = (crc & 1) ? (crc >> 1) ^ POLY_REFLECTED : crc >> 1;
        table[i] = crc;
    }
    table_ready = 1;
}

uint64_t crc64(uint64_t crc, const void *p, size_t len) {
    if (!table_ready) buildTable();
    const unsigned char *s = p;
    for (size_t i = 0; i < len; i++) crc = table[(crc ^ s[i]) & 0xff] ^ (crc >> 8);
    return crc;
}
