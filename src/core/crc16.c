/* crc16: CRC-16/XMODEM, table-driven (the table is built from the polynomial
 * once, at first use), and the cluster key slot. */
#include "core/crc16.h"

#include <string.h>

static uint16_t table[256];
static int table_ready;

static void buildTable(void) {
    for (unsigned i = 0; i < 256; i++) {
        uint16_t crc = (uint16_t)(i << 8);
        for (int bit = 0; bit < 8; bit++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
        table[i] = crc;
    }
    table_ready = 1;
}

uint16_t crc16(const char *buf, size_t len) {
    if (!table_ready) buildTable();
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++) crc = (uint16_t)((crc << 8) ^ table[((crc >> 8) ^ (unsigned char)buf[i]) & 0xff]);
    return crc;
}

unsigned int keyHashSlot(const char *key, size_t len) {
    const char *open = memchr(key, '{', len);
    if (open) {
        size_t rest = len - (size_t)(open - key) - 1;
        const char *close = memchr(open + 1, '}', rest);
        if (close && close > open + 1) return crc16(open + 1, (size_t)(close - open - 1)) & (CLUSTER_SLOTS - 1);
    }
    return crc16(key, len) & (CLUSTER_SLOTS - 1);
}
