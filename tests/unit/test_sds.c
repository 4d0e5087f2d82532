/* Unit tests for src/core/sds.c: creation, growth across header types,
 * formatting, quoting, splitting, the config/inline tokenizer and embedding. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/sds.h"
#include "core/zmalloc.h"
#include "testhelp.h"

/* True when s holds exactly the len bytes of want, NUL-terminated. */
static int sdsIs(sds s, const char *want, size_t len) {
    return sdslen(s) == len && memcmp(s, want, len) == 0 && s[len] == '\0';
}
#define SDS_IS(s, lit) sdsIs((s), (lit), sizeof(lit) - 1)

static void testCreate(void) {
    TEST("create");
    sds s = sdsnew("foo");
    CHECK(SDS_IS(s, "foo"));
    CHECK(sdsalloc(s) >= 3);
    CHECK(sdsAllocSize(s) == zmalloc_size(sdsAllocPtr(s)));
    sdsfree(s);

    s = sdsnewlen("fo\0o", 4);
    CHECK(sdsIs(s, "fo\0o", 4));
    sds d = sdsdup(s);
    CHECK(d != s && sdsIs(d, "fo\0o", 4));
    sdsfree(d);
    sdsfree(s);

    s = sdsnewlen(NULL, 5);
    CHECK(sdsIs(s, "\0\0\0\0\0", 5));
    sdsfree(s);

    s = sdsempty();
    CHECK(sdslen(s) == 0 && s[0] == '\0');
    sdsfree(s);
    s = sdsnew(NULL);
    CHECK(sdslen(s) == 0);
    sdsfree(s);
    sdsfree(NULL);
}

static void testCatAndGrowth(void) {
    TEST("cat/growth");
    sds s = sdsnew("fo");
    s = sdscat(s, "bar");
    CHECK(SDS_IS(s, "fobar"));
    s = sdscpy(s, "a");
    CHECK(SDS_IS(s, "a"));
    s = sdscpy(s, "xyzxxxxxxxxxxyyyyyyyyyykkkkkkkkkk");
    CHECK(SDS_IS(s, "xyzxxxxxxxxxxyyyyyyyyyykkkkkkkkkk"));
    sds t = sdsnew("++");
    s = sdscatsds(s, t);
    CHECK(sdslen(s) == 35 && s[33] == '+');
    sdsfree(t);
    sdsfree(s);

    /* Grow through every header type and check the content is kept. */
    s = sdsempty();
    size_t total = 0;
    char chunk[1000];
    for (int i = 0; i < (int)sizeof(chunk); i++) chunk[i] = (char)('a' + i % 26);
    while (total < 300000) {
        s = sdscatlen(s, chunk, sizeof(chunk));
        total += sizeof(chunk);
    }
    CHECK(sdslen(s) == total);
    int ok = 1;
    for (size_t i = 0; i < total; i++)
        if (s[i] != (char)('a' + (i % 1000) % 26)) ok = 0;
    CHECK(ok);
    CHECK(s[total] == '\0');
    CHECK(sdsAllocSize(s) >= total + 1);
    sdsfree(s);

    /* Greedy growth doubles below 1MB; non-greedy gives exactly what was asked
     * (plus allocator rounding). */
    s = sdsnew("0123456789");
    s = sdsMakeRoomFor(s, 100);
    CHECK(sdsavail(s) >= 100 && sdsalloc(s) >= 220);
    sdsfree(s);
    s = sdsnew("0123456789");
    s = sdsMakeRoomForNonGreedy(s, 1000);
    CHECK(sdsavail(s) >= 1000 && sdsalloc(s) < 1100);
    CHECK(SDS_IS(s, "0123456789"));
    sdsfree(s);
    s = sdsRemoveFreeSpace(sdsnewlen(NULL, 2 * 1024 * 1024));
    CHECK(sdsavail(s) == 0);
    s = sdsMakeRoomFor(s, 1);
    CHECK(sdsalloc(s) >= 3 * 1024 * 1024 + 1 && sdsalloc(s) < 4 * 1024 * 1024);
    sdsfree(s);

    /* Writing into reserved space then committing with sdsincrlen. */
    s = sdsnew("ab");
    s = sdsMakeRoomFor(s, 10);
    memcpy(s + 2, "cde", 3);
    sdsincrlen(s, 3);
    CHECK(SDS_IS(s, "abcde"));
    sdsincrlen(s, -2);
    CHECK(SDS_IS(s, "abc"));
    sdssetlen(s, 1);
    CHECK(sdslen(s) == 1);
    sdsclear(s);
    CHECK(SDS_IS(s, ""));
    sdsfree(s);
}

static void testResize(void) {
    TEST("resize");
    sds s = sdsnew("hello");
    s = sdsMakeRoomFor(s, 500);
    CHECK(sdsalloc(s) >= 505);
    s = sdsRemoveFreeSpace(s);
    CHECK(sdsalloc(s) == 5 && SDS_IS(s, "hello"));
    CHECK(sdsavail(s) == 0);
    s = sdsResize(s, 100000);
    CHECK(sdsalloc(s) == 100000 && SDS_IS(s, "hello"));
    s = sdsResize(s, 3);
    CHECK(sdsalloc(s) == 3 && SDS_IS(s, "hel"));
    s = sdsResize(s, 70000);
    s = sdscat(s, "lo");
    CHECK(SDS_IS(s, "hello"));
    s = sdsRemoveFreeSpace(s);
    CHECK(sdsAllocSize(s) <= 16 && SDS_IS(s, "hello"));
    sdsfree(s);
}

static void testPrintf(void) {
    TEST("printf");
    sds s = sdscatprintf(sdsempty(), "%d", 123);
    CHECK(SDS_IS(s, "123"));
    s = sdscatprintf(s, "-%s-%lld", "x", -9223372036854775807LL - 1);
    CHECK(SDS_IS(s, "123-x--9223372036854775808"));
    sdsfree(s);
    s = sdscatprintf(sdsempty(), "a%cb", 0);
    CHECK(sdsIs(s, "a\0b", 3));
    sdsfree(s);
    char big[5000];
    memset(big, 'q', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    s = sdscatprintf(sdsnew("<"), "%s>", big);
    CHECK(sdslen(s) == 5001 && s[0] == '<' && s[4999] == 'q' && s[5000] == '>');
    sdsfree(s);

    s = sdsfromlonglong(LLONG_MIN);
    CHECK(SDS_IS(s, "-9223372036854775808"));
    sdsfree(s);
    s = sdsfromlonglong(0);
    CHECK(SDS_IS(s, "0"));
    sdsfree(s);
}

static void testRepr(void) {
    TEST("repr");
    sds s = sdscatrepr(sdsempty(), "\a\n\0foo\r\"\\\t\b\x7f\xff Z", 15);
    CHECK(SDS_IS(s, "\"\\a\\n\\x00foo\\r\\\"\\\\\\t\\b\\x7f\\xff Z\""));
    sdsfree(s);
    s = sdscatrepr(sdsnew("x"), "", 0);
    CHECK(SDS_IS(s, "x\"\""));
    sdsfree(s);
}

static void testRangeTrimCmp(void) {
    TEST("range");
    sds s = sdsnew("ciao");
    sdsrange(s, 1, 1);
    CHECK(SDS_IS(s, "i"));
    sdsfree(s);
    struct {
        ssize_t start, end;
        const char *want;
    } cases[] = {
        {1, -1, "iao"}, {-2, -1, "ao"}, {2, 1, ""}, {1, 100, "iao"},
        {100, 100, ""}, {0, 0, "c"}, {-100, -100, "c"}, {-100, 100, "ciao"},
        {4, 6, ""},     {3, 3, "o"}, {-1, -2, ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        s = sdsnew("ciao");
        sdsrange(s, cases[i].start, cases[i].end);
        CHECK(sdsIs(s, cases[i].want, strlen(cases[i].want)));
        sdsfree(s);
    }
    s = sdsempty();
    sdsrange(s, 0, 10);
    CHECK(SDS_IS(s, ""));
    sdsfree(s);

    TEST("trim");
    s = sdsnew("AA...AA.a.aa.aHelloWorld     :::");
    s = sdstrim(s, "Aa. :");
    CHECK(SDS_IS(s, "HelloWorld"));
    sdsfree(s);
    s = sdsnew("xxxx");
    s = sdstrim(s, "x");
    CHECK(SDS_IS(s, ""));
    sdsfree(s);
    s = sdsnew(" x ");
    s = sdstrim(s, " ");
    CHECK(SDS_IS(s, "x"));
    sdsfree(s);

    TEST("cmp");
    sds a = sdsnew("foo"), b = sdsnew("foa");
    CHECK(sdscmp(a, b) > 0 && sdscmp(b, a) < 0);
    sdsfree(b);
    b = sdsnew("foo");
    CHECK(sdscmp(a, b) == 0);
    sdsfree(b);
    b = sdsnew("fo");
    CHECK(sdscmp(a, b) > 0 && sdscmp(b, a) < 0);
    sdsfree(b);
    b = sdsnewlen("foo\0", 4);
    CHECK(sdscmp(a, b) < 0);
    sdsfree(a);
    sdsfree(b);

    TEST("case/map");
    s = sdsnew("HeLLo WoRLD 1");
    sdstolower(s);
    CHECK(SDS_IS(s, "hello world 1"));
    sdstoupper(s);
    CHECK(SDS_IS(s, "HELLO WORLD 1"));
    s = sdsmapchars(s, "LO ", "01_", 3);
    CHECK(SDS_IS(s, "HE001_W1R0D_1"));
    sdsfree(s);
}

static void testSplit(void) {
    TEST("splitlen");
    int n;
    sds *t = sdssplitlen("a,b,,c", 6, ",", 1, &n);
    CHECK(n == 4);
    if (n == 4) {
        CHECK(SDS_IS(t[0], "a"));
        CHECK(SDS_IS(t[1], "b"));
        CHECK(SDS_IS(t[2], ""));
        CHECK(SDS_IS(t[3], "c"));
    }
    sdsfreesplitres(t, n);
    t = sdssplitlen("foo--bar--", 10, "--", 2, &n);
    CHECK(n == 3);
    if (n == 3) CHECK(SDS_IS(t[0], "foo") && SDS_IS(t[1], "bar") && SDS_IS(t[2], ""));
    sdsfreesplitres(t, n);
    t = sdssplitlen("abc", 3, ",", 1, &n);
    CHECK(n == 1 && SDS_IS(t[0], "abc"));
    sdsfreesplitres(t, n);
    t = sdssplitlen("", 0, ",", 1, &n);
    CHECK(t == NULL && n == 0);
    t = sdssplitlen("abc", 3, "", 0, &n);
    CHECK(t == NULL && n == 0);
    /* Many tokens, to exercise the array growth. */
    char many[2000];
    for (int i = 0; i < 1000; i++) {
        many[2 * i] = 'x';
        many[2 * i + 1] = ' ';
    }
    t = sdssplitlen(many, 2000, " ", 1, &n);
    CHECK(n == 1001 && SDS_IS(t[999], "x") && SDS_IS(t[1000], ""));
    sdsfreesplitres(t, n);
}

/* Checks that line tokenizes to exactly the expected tokens. */
static int splitargsIs(const char *line, int want, const char **tokens, const size_t *lens) {
    int argc;
    sds *argv = sdssplitargs(line, &argc);
    if (argv == NULL) return 0;
    int ok = argc == want;
    for (int i = 0; ok && i < argc; i++) ok = sdsIs(argv[i], tokens[i], lens[i]);
    sdsfreesplitres(argv, argc);
    return ok;
}

static void testSplitArgs(void) {
    TEST("splitargs");
    {
        const char *tok[] = {"set", "key", "hello world"};
        size_t len[] = {3, 3, 11};
        CHECK(splitargsIs("  set key \"hello world\"  ", 3, tok, len));
    }
    {
        const char *tok[] = {"a\n\r\t\b\a\\\"z", "A\x01", "it's", "x\\ny"};
        size_t len[] = {9, 2, 4, 4};
        CHECK(splitargsIs("\"a\\n\\r\\t\\b\\a\\\\\\\"\\z\" \"\\x41\\x01\" 'it\\'s' 'x\\ny'", 4, tok, len));
    }
    {
        /* \x needs two hex digits, otherwise the x is taken literally. */
        const char *tok[] = {"xg1", "\xff"};
        size_t len[] = {3, 1};
        CHECK(splitargsIs("\"\\xg1\" \"\\xFF\"", 2, tok, len));
    }
    {
        const char *tok[] = {"\0", "foobar", ""};
        size_t len[] = {1, 6, 0};
        CHECK(splitargsIs("\"\\x00\" foo\"bar\" \"\"", 3, tok, len));
    }
    {
        const char *tok[] = {"a", "b"};
        size_t len[] = {1, 1};
        CHECK(splitargsIs("a\tb\r\n", 2, tok, len));
    }
    int argc = -1;
    sds *argv = sdssplitargs("", &argc);
    CHECK(argv != NULL && argc == 0);
    sdsfreesplitres(argv, argc);
    argv = sdssplitargs("   \t ", &argc);
    CHECK(argv != NULL && argc == 0);
    sdsfreesplitres(argv, argc);

    const char *bad[] = {"\"foo", "'foo", "\"foo\"bar", "'foo'bar", "a \"b\"c", "\"\\",
                         "'\\'"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        argc = -1;
        argv = sdssplitargs(bad[i], &argc);
        CHECK(argv == NULL && argc == 0);
    }
}

static void testEmbed(void) {
    TEST("embed");
    size_t lens[] = {0, 1, 31, 32, 255, 256, 65535, 65536, 100000};
    size_t hdrs[] = {1, 1, 1, 3, 3, 5, 5, 9, 9};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        size_t len = lens[i];
        CHECK(sdsEmbeddedSize(len) == hdrs[i] + len + 1);
        char *src = malloc(len + 1);
        for (size_t j = 0; j < len; j++) src[j] = (char)('A' + j % 50);
        unsigned char *buf = malloc(sdsEmbeddedSize(len) + 2);
        buf[sdsEmbeddedSize(len)] = 0xAB; /* guard byte: nothing written past the size */
        sds s = sdsEmbed(buf, src, len);
        CHECK((unsigned char *)s == buf + hdrs[i]);
        CHECK(sdsIs(s, src, len));
        CHECK(buf[sdsEmbeddedSize(len)] == 0xAB);
        CHECK(sdsavail(s) == 0);
        sds copy = sdsdup(s);
        CHECK(sdscmp(copy, s) == 0);
        sdsfree(copy);
        free(buf);
        free(src);
    }
    char buf[8];
    sds s = sdsEmbed(buf, NULL, 3);
    CHECK(sdsIs(s, "\0\0\0", 3));
}

int main(void) {
    testCreate();
    testCatAndGrowth();
    testResize();
    testPrintf();
    testRepr();
    testRangeTrimCmp();
    testSplit();
    testSplitArgs();
    testEmbed();
    return TEST_REPORT();
}
