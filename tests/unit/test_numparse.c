/* Unit tests for src/core/numparse.c. Expected strings for the float
 * formatters were taken from redis-server 7.0.15 (ZSCORE on a skiplist zset,
 * INCRBYFLOAT, HINCRBYFLOAT), so these tests pin the reply format. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/numparse.h"
#include "testhelp.h"

static int parsesTo(const char *s, long long want) {
    long long v = 12345;
    return string2ll(s, strlen(s), &v) == 1 && v == want;
}

static int rejectsLL(const char *s) {
    long long v = 12345;
    return string2ll(s, strlen(s), &v) == 0 && v == 12345;
}

static void testString2ll(void) {
    TEST("string2ll");
    CHECK(parsesTo("0", 0));
    CHECK(parsesTo("1", 1));
    CHECK(parsesTo("-1", -1));
    CHECK(parsesTo("99", 99));
    CHECK(parsesTo("-99", -99));
    CHECK(parsesTo("9223372036854775807", LLONG_MAX));
    CHECK(parsesTo("-9223372036854775808", LLONG_MIN));
    CHECK(parsesTo("1000000000000000000", 1000000000000000000LL));
    const char *bad[] = {"",     "-",   "-0",  "00",  "01",  "-01", " 1",  "1 ",
                         "+1",   "1a",  "a1",  "1.0", "1e3", "0x1", "--1", "9223372036854775808",
                         "-9223372036854775809", "18446744073709551616", "99999999999999999999",
                         "123456789012345678901"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) CHECK(rejectsLL(bad[i]));
    /* Only slen bytes are looked at: the input need not be terminated. */
    long long v;
    CHECK(string2ll("123xyz", 3, &v) && v == 123);
    CHECK(string2ll("1\0", 2, &v) == 0);
    CHECK(string2ll("5", 1, NULL) == 1);

    TEST("string2l");
    long l;
    CHECK(string2l("-42", 3, &l) && l == -42);
    CHECK(string2l("9223372036854775807", 19, &l) && l == LONG_MAX);
    CHECK(string2l("x", 1, &l) == 0);

    TEST("string2ull");
    unsigned long long u;
    CHECK(string2ull("0", &u) && u == 0);
    CHECK(string2ull("18446744073709551615", &u) && u == ULLONG_MAX);
    CHECK(string2ull("9223372036854775808", &u) && u == 9223372036854775808ULL);
    CHECK(string2ull("18446744073709551616", &u) == 0);
    CHECK(string2ull("-1", &u) == 0);
    CHECK(string2ull("", &u) == 0);
    CHECK(string2ull("12a", &u) == 0);
}

static void testLL2String(void) {
    TEST("ll2string");
    char buf[32];
    CHECK(ll2string(buf, sizeof(buf), 0) == 1 && strcmp(buf, "0") == 0);
    CHECK(ll2string(buf, sizeof(buf), -1) == 2 && strcmp(buf, "-1") == 0);
    CHECK(ll2string(buf, sizeof(buf), LLONG_MAX) == 19 && strcmp(buf, "9223372036854775807") == 0);
    CHECK(ll2string(buf, sizeof(buf), LLONG_MIN) == 20 && strcmp(buf, "-9223372036854775808") == 0);
    CHECK(ll2string(buf, sizeof(buf), 1234567890) == 10 && strcmp(buf, "1234567890") == 0);
    /* Too small a buffer: 0 and an empty string, never an overflow. */
    CHECK(ll2string(buf, 3, 123) == 0 && buf[0] == '\0');
    CHECK(ll2string(buf, 4, 123) == 3 && strcmp(buf, "123") == 0);
    CHECK(ll2string(buf, 3, -12) == 0);
    CHECK(ll2string(buf, 4, -12) == 3 && strcmp(buf, "-12") == 0);
    CHECK(ll2string(buf, 1, -1) == 0 && buf[0] == '\0');
    CHECK(ll2string(buf, MAX_LONG_LONG_CHARS, LLONG_MIN) == 20);

    TEST("ull2string");
    CHECK(ull2string(buf, sizeof(buf), ULLONG_MAX) == 20 && strcmp(buf, "18446744073709551615") == 0);
    CHECK(ull2string(buf, 20, ULLONG_MAX) == 0);
    CHECK(ull2string(buf, sizeof(buf), 7) == 1 && strcmp(buf, "7") == 0);

    TEST("round trip");
    long long samples[] = {0, 1, -1, 9, 10, -10, 99, 100, 65535, -65536, 4294967296LL,
                           LLONG_MAX, LLONG_MIN, LLONG_MAX - 1, LLONG_MIN + 1};
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        long long back;
        int n = ll2string(buf, sizeof(buf), samples[i]);
        CHECK(n > 0 && string2ll(buf, (size_t)n, &back) && back == samples[i]);
    }

    TEST("digits10");
    CHECK(digits10(0) == 1);
    CHECK(digits10(9) == 1);
    CHECK(digits10(10) == 2);
    CHECK(digits10(999999) == 6);
    CHECK(digits10(1000000) == 7);
    CHECK(digits10(UINT64_MAX) == 20);
}

static void testString2d(void) {
    TEST("string2d");
    double d;
    CHECK(string2d("1.5", 3, &d) && d == 1.5);
    CHECK(string2d("-1e3", 4, &d) && d == -1000);
    CHECK(string2d("+1", 2, &d) && d == 1);
    CHECK(string2d("0x10", 4, &d) && d == 16);
    CHECK(string2d("inf", 3, &d) && isinf(d) && d > 0);
    CHECK(string2d("-inf", 4, &d) && isinf(d) && d < 0);
    CHECK(string2d("infinity", 8, &d) && isinf(d));
    CHECK(string2d("-0.0", 4, &d) && d == 0 && signbit(d));
    CHECK(string2d("1e-310", 6, &d) && d > 0); /* denormal, still representable */
    const char *bad[] = {"", " 1", "1 ", "1e", "abc", "nan", "-nan", "1e400", "-1e400", "1e-400", ".", "1..2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        d = 42;
        CHECK(string2d(bad[i], strlen(bad[i]), &d) == 0 && d == 42);
    }
    CHECK(string2d("12x", 2, &d) && d == 12); /* length-counted */
    char longnum[300];
    memset(longnum, '1', sizeof(longnum) - 1);
    longnum[sizeof(longnum) - 1] = '\0';
    CHECK(string2d(longnum, strlen(longnum), &d) && d > 1e298);

    TEST("string2ld");
    long double ld;
    CHECK(string2ld("10.5", 4, &ld) && ld == 10.5L);
    CHECK(string2ld("-inf", 4, &ld) && isinf(ld));
    CHECK(string2ld("1e4000", 6, &ld) && ld > 1e3999L); /* fits a long double */
    const char *ldbad[] = {"", " 1", "1 ", "nan", "1e99999", "x", "1e-99999"};
    for (size_t i = 0; i < sizeof(ldbad) / sizeof(ldbad[0]); i++) {
        ld = 42;
        CHECK(string2ld(ldbad[i], strlen(ldbad[i]), &ld) == 0 && ld == 42);
    }
    char huge[MAX_LONG_DOUBLE_CHARS + 1];
    /* "1.000...": a valid number, refused only for its length. */
    memset(huge, '0', sizeof(huge));
    huge[0] = '1';
    huge[1] = '.';
    CHECK(string2ld(huge, MAX_LONG_DOUBLE_CHARS, &ld) == 0);
    CHECK(string2ld(huge, MAX_LONG_DOUBLE_CHARS - 1, &ld) == 1 && ld == 1.0L);
}

static void testD2String(void) {
    TEST("d2string");
    char buf[MAX_D2STRING_CHARS];
    struct {
        double v;
        const char *want;
    } cases[] = {
        {1.1, "1.1000000000000001"},
        {3, "3"},
        {1e100, "1e+100"},
        {-0.0, "-0"},
        {0.0, "0"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
        {0.1, "0.10000000000000001"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {1e-300, "1e-300"},
        {4503599627370496.0, "4503599627370496"},
        {1e15, "1000000000000000"},
        {12345600, "12345600"},
        {-12345.678, "-12345.678"},
        {-3, "-3"},
        {2.5, "2.5"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int n = d2string(buf, sizeof(buf), cases[i].v);
        CHECK_STREQ(buf, cases[i].want);
        CHECK(n == (int)strlen(cases[i].want));
    }
    CHECK(d2string(buf, sizeof(buf), NAN) == 3 && strcmp(buf, "nan") == 0);
    CHECK(d2string(buf, 3, 1.5) == 0 && buf[0] == '\0');
    CHECK(d2string(buf, 4, 1.5) == 3);
    CHECK(d2string(buf, 3, INFINITY) == 0);
}

/* Applies INCRBYFLOAT the way the server does: parse both, add as long double,
 * format human-friendly. */
static const char *incrbyfloat(char *buf, size_t len, const char *cur, const char *incr) {
    long double a, b;
    if (!string2ld(cur, strlen(cur), &a) || !string2ld(incr, strlen(incr), &b)) return "(parse error)";
    if (ld2string(buf, len, a + b, 1) == 0) return "(format error)";
    return buf;
}

static void testLD2String(void) {
    TEST("ld2string human");
    char buf[MAX_LONG_DOUBLE_CHARS];
    CHECK_STREQ(incrbyfloat(buf, sizeof(buf), "10.5", "0.1"), "10.6");
    CHECK_STREQ(incrbyfloat(buf, sizeof(buf), "10.6", "5.0e3"), "5010.60000000000000009");
    CHECK_STREQ(incrbyfloat(buf, sizeof(buf), "1", "3.0e3"), "3001");
    CHECK_STREQ(incrbyfloat(buf, sizeof(buf), "0", "-0"), "0");
    CHECK_STREQ(incrbyfloat(buf, sizeof(buf), "1", "0.0000000000000000001"), "1");
    CHECK_STREQ(incrbyfloat(buf, sizeof(buf), "-1", "0.5"), "-0.5");
    CHECK_STREQ(incrbyfloat(buf, sizeof(buf), "1.5", "1e-20"), "1.5");
    CHECK_STREQ(incrbyfloat(buf, sizeof(buf), "0", "16"), "16");
    incrbyfloat(buf, sizeof(buf), "0", "1e300");
    CHECK(strncmp(buf, "100000000000000000000899732407955919387052394427329074793826", 60) == 0);
    CHECK(strchr(buf, '.') == NULL);
    CHECK(ld2string(buf, sizeof(buf), INFINITY, 1) == 3 && strcmp(buf, "inf") == 0);
    CHECK(ld2string(buf, sizeof(buf), -INFINITY, 1) == 4 && strcmp(buf, "-inf") == 0);
    CHECK(ld2string(buf, sizeof(buf), -0.0L, 1) == 1 && strcmp(buf, "0") == 0);
    CHECK(ld2string(buf, sizeof(buf), 100.0L, 1) == 3 && strcmp(buf, "100") == 0);
    CHECK(ld2string(buf, 4, 1234.0L, 1) == 0 && buf[0] == '\0');

    TEST("ld2string auto");
    CHECK(ld2string(buf, sizeof(buf), 1.5L, 0) == 3 && strcmp(buf, "1.5") == 0);
    CHECK(ld2string(buf, sizeof(buf), 1e30L, 0) > 0 && strcmp(buf, "1e+30") == 0);
    CHECK(ld2string(buf, sizeof(buf), 0.1L, 0) > 0 && strcmp(buf, "0.1") == 0);
}

static void testDouble2ll(void) {
    TEST("double2ll");
    long long v = 7;
    CHECK(double2ll(3.0, &v) && v == 3);
    CHECK(double2ll(-3.0, &v) && v == -3);
    CHECK(double2ll(0.0, &v) && v == 0);
    v = 7;
    CHECK(double2ll(3.5, &v) == 0 && v == 7);
    CHECK(double2ll(1e300, &v) == 0);
    CHECK(double2ll(-1e300, &v) == 0);
    CHECK(double2ll(NAN, &v) == 0);
    CHECK(double2ll(INFINITY, &v) == 0);
    /* Redis's limit is +-LLONG_MAX/2, which as a double rounds to 2^62. */
    CHECK(double2ll(4611686018427387904.0, &v) && v == 4611686018427387904LL);
    CHECK(double2ll(9223372036854775808.0, &v) == 0);
    CHECK(double2ll(-4611686018427387904.0, &v) && v == -4611686018427387904LL);
    CHECK(double2ll(-4611686018427388928.0, &v) == 0);
}

int main(void) {
    testString2ll();
    testLL2String();
    testString2d();
    testD2String();
    testLD2String();
    testDouble2ll();
    return TEST_REPORT();
}
