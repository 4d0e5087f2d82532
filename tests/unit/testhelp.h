/* testhelp: the tiny unit-test harness shared by tests/unit/test_*.c.
 * CHECK(cond) counts one check and, on failure, prints file:line and the
 * condition instead of stopping, so one run shows every broken case.
 * TEST_REPORT() prints the one closing line "N passed, M failed" that
 * tests/run_unit.sh and CI read, and yields the exit status. */
#ifndef TESTHELP_H
#define TESTHELP_H

#include <stdio.h>

static int test_passed, test_failed;
static const char *test_current = "";

/* Names the group of checks that follow, so failures say where they came from. */
#define TEST(name) (test_current = (name))

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (cond) {                                                                     \
            test_passed++;                                                              \
        } else {                                                                        \
            test_failed++;                                                              \
            fprintf(stderr, "FAIL %s:%d [%s]: %s\n", __FILE__, __LINE__, test_current, \
                    #cond);                                                             \
        }                                                                               \
    } while (0)

/* Like CHECK for C strings, printing both sides on failure. */
#define CHECK_STREQ(got, want)                                                             \
    do {                                                                                   \
        const char *got_ = (got), *want_ = (want);                                         \
        if (got_ && want_ && strcmp(got_, want_) == 0) {                                   \
            test_passed++;                                                                 \
        } else {                                                                           \
            test_failed++;                                                                 \
            fprintf(stderr, "FAIL %s:%d [%s]: %s == \"%s\" (got \"%s\")\n", __FILE__,      \
                    __LINE__, test_current, #got, want_ ? want_ : "(null)",                \
                    got_ ? got_ : "(null)");                                               \
        }                                                                                  \
    } while (0)

#define TEST_REPORT()                                                   \
    (printf("%d passed, %d failed\n", test_passed, test_failed),       \
     fflush(stdout), test_failed ? 1 : 0)

#endif
