/* Unit tests for core/randbytes: hex ids of any length, bytes that differ
 * from call to call. */
#include <stdint.h>
#include <string.h>

#include "core/randbytes.h"
#include "testhelp.h"

static int allLowerHex(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
    return 1;
}

int main(void) {
    TEST("hex ids: n digits and a NUL, odd lengths and lengths past one 32-byte draw");
    size_t lens[] = {0, 1, 2, 39, 40, 63, 64, 65, 130};
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        char buf[140];
        memset(buf, 'x', sizeof(buf));
        CHECK(getRandomHex(buf, lens[k]) == 1); /* the kernel's */
        CHECK(allLowerHex(buf, lens[k]));
        CHECK(buf[lens[k]] == '\0');
        CHECK(buf[lens[k] + 1] == 'x');
    }

    TEST("two ids differ, and every digit shows up");
    char a[41], b[41];
    getRandomHex(a, 40);
    getRandomHex(b, 40);
    CHECK(strcmp(a, b) != 0);
    int seen[16] = {0};
    for (int round = 0; round < 50; round++) {
        char id[41];
        getRandomHex(id, 40);
        for (int i = 0; i < 40; i++) seen[id[i] <= '9' ? id[i] - '0' : id[i] - 'a' + 10] = 1;
    }
    int digits = 0;
    for (int i = 0; i < 16; i++) digits += seen[i];
    CHECK(digits == 16);

    TEST("bytes: the whole buffer is filled");
    unsigned char x[4096], y[4096];
    memset(x, 0, sizeof(x));
    memset(y, 0, sizeof(y));
    CHECK(getRandomBytes(x, sizeof(x)) == 1);
    CHECK(getRandomBytes(y, sizeof(y)) == 1);
    CHECK(memcmp(x, y, sizeof(x)) != 0);
    size_t zeros = 0;
    for (size_t i = 0; i < sizeof(x); i++) zeros += x[i] == 0;
    CHECK(zeros < 64); /* ~16 expected; an unfilled tail would be thousands */
    CHECK(getRandomBytes(x, 0) == 1);
    return TEST_REPORT();
}
