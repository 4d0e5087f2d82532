/* Unit tests for src/core/crc64.c: the check value Redis documents, and the
 * eight-bytes-at-a-time loop against the definition (one bit at a time) for
 * every length and alignment around its 8-byte steps, and for running CRCs
 * continued across calls, as the RDB writer and the spool continue them. */
#include <stdint.h>
#include <string.h>

#include "core/crc64.h"
#include "testhelp.h"

static uint64_t bitwise(uint64_t crc, const unsigned char *s, size_t len) {
    for (size_t i = 0; i < len; i++) {
        crc ^= s[i];
        for (int j = 0; j < 8; j++) crc = (crc & 1) ? (crc >> 1) ^ 0x95AC9329AC4BC9B5ULL : crc >> 1;
    }
    return crc;
}

int main(void) {
    TEST("crc64 check value");
    CHECK(crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9caULL);
    CHECK(crc64(0, "", 0) == 0);

    TEST("crc64 matches the bitwise definition at every length and alignment");
    unsigned char buf[300];
    testFillBytes(buf, sizeof(buf));
    int ok = 1;
    for (size_t off = 0; off < 8; off++)
        for (size_t len = 0; len + off <= 200; len++)
            if (crc64(0, buf + off, len) != bitwise(0, buf + off, len)) ok = 0;
    CHECK(ok);

    TEST("crc64 continued across calls");
    ok = 1;
    for (size_t cut = 0; cut <= 100; cut++) {
        uint64_t whole = crc64(0, buf, 100);
        if (crc64(crc64(0, buf, cut), buf + cut, 100 - cut) != whole) ok = 0;
    }
    CHECK(ok);
    return TEST_REPORT();
}
