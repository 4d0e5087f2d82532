/* Unit tests for src/core/crc32c.c: the standard check value, and the path
 * the CPU takes (the crc32 instruction or the tables) against the bitwise
 * definition for every length and alignment around its 8-byte steps, and
 * for running CRCs continued across calls, as the spool continues them. */
#include <stdint.h>
#include <string.h>

#include "core/crc32c.h"
#include "testhelp.h"

static uint32_t bitwise(uint32_t crc, const unsigned char *s, size_t len) {
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= s[i];
        for (int j = 0; j < 8; j++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
}

int main(void) {
    TEST("crc32c check value");
    CHECK(crc32c(0, "123456789", 9) == 0xe3069283u);
    CHECK(crc32c(0, "", 0) == 0);
    CHECK(crc32cPortable(0, "123456789", 9) == 0xe3069283u);

    TEST("crc32c matches the bitwise definition at every length and alignment");
    unsigned char buf[300];
    testFillBytes(buf, sizeof(buf));
    int ok = 1;
    for (size_t off = 0; off < 8; off++)
        for (size_t len = 0; len + off <= 200; len++)
            if (crc32c(0, buf + off, len) != bitwise(0, buf + off, len) ||
                crc32cPortable(0, buf + off, len) != bitwise(0, buf + off, len))
                ok = 0;
    CHECK(ok);

    TEST("crc32c continued across calls");
    ok = 1;
    for (size_t cut = 0; cut <= 100; cut++) {
        uint32_t whole = crc32c(0, buf, 100);
        if (crc32c(crc32c(0, buf, cut), buf + cut, 100 - cut) != whole ||
            crc32cPortable(crc32cPortable(0, buf, cut), buf + cut, 100 - cut) != whole)
            ok = 0;
    }
    CHECK(ok);
    return TEST_REPORT();
}
