/* testhelp: the tiny unit-test harness shared by tests/unit/test_*.c.
 * TEST(name) starts a test; the CHECKs that follow it are its assertions.
 * CHECK(cond) counts one assertion and, on failure, prints file:line and the
 * condition instead of stopping, so one run shows every broken case. A test
 * passes when none of its checks failed (checks made before the first TEST
 * form a test of their own).
 * TEST_REPORT() prints the number of checks on one line and then the one
 * closing line "N passed, M failed" that counts tests — the line
 * tests/run_unit.sh and CI read — and yields the exit status. */
#ifndef TESTHELP_H
#define TESTHELP_H

#include <stdint.h>
#include <stdio.h>

static int test_passed, test_failed;   /* tests */
static int check_passed, check_failed; /* assertions */
static int test_open, test_open_failed;
static const char *test_current = "";

/* Closes the test in progress, if any, counting it passed or failed. */
static inline void testEnd(void) {
    if (test_open) {
        if (test_open_failed)
            test_failed++;
        else
            test_passed++;
    }
    test_open = test_open_failed = 0;
}

static inline void testBegin(const char *name) {
    testEnd();
    test_current = name;
    test_open = 1;
}

static inline void testCount(int ok) {
    test_open = 1;
    if (ok) {
        check_passed++;
    } else {
        check_failed++;
        test_open_failed = 1;
    }
}

#define TEST(name) testBegin(name)

/* A deterministic generator (xorshift64), so that a failing run repeats:
 * a test file that wants its own sequence seeds it at the start of main. */
static uint64_t test_rng_state = 88172645463325252ULL;

static inline void testSeed(uint64_t seed) { test_rng_state = seed; }

static inline uint64_t testNextRandom(void) {
    test_rng_state ^= test_rng_state << 13;
    test_rng_state ^= test_rng_state >> 7;
    test_rng_state ^= test_rng_state << 17;
    return test_rng_state;
}

#define CHECK(cond)                                                                     \
    do {                                                                                \
        int ok_ = (cond) ? 1 : 0;                                                       \
        testCount(ok_);                                                                 \
        if (!ok_)                                                                       \
            fprintf(stderr, "FAIL %s:%d [%s]: %s\n", __FILE__, __LINE__, test_current, \
                    #cond);                                                             \
    } while (0)

/* Like CHECK for C strings, printing both sides on failure. */
#define CHECK_STREQ(got, want)                                                             \
    do {                                                                                   \
        const char *got_ = (got), *want_ = (want);                                         \
        int ok_ = got_ && want_ && strcmp(got_, want_) == 0;                               \
        testCount(ok_);                                                                    \
        if (!ok_)                                                                          \
            fprintf(stderr, "FAIL %s:%d [%s]: %s == \"%s\" (got \"%s\")\n", __FILE__,      \
                    __LINE__, test_current, #got, want_ ? want_ : "(null)",                \
                    got_ ? got_ : "(null)");                                               \
    } while (0)

#define TEST_REPORT()                                                                   \
    (testEnd(), printf("checks: %d passed, %d failed\n", check_passed, check_failed),  \
     printf("%d passed, %d failed\n", test_passed, test_failed), fflush(stdout),       \
     test_failed ? 1 : 0)

/* Fills buf with the same pseudo-random bytes on every run (a linear
 * congruential generator), for tests that check a function on arbitrary data. */
static inline void testFillBytes(unsigned char *buf, size_t len) {
    uint32_t x = 12345;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245 + 12345;
        buf[i] = (unsigned char)(x >> 16);
    }
}

#endif
