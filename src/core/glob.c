/* glob: glob-style matching with Redis 7.0's exact semantics (see glob.h).
 *
 * Behaviours kept on purpose because clients can observe them:
 *  - the empty string matches only the empty pattern ("*" does not match "");
 *  - an unterminated "[set" is treated as if it were closed at the end;
 *  - inside [...], "\x" escapes one character and compares it case-sensitively;
 *    ranges may be reversed ([z-a]) and compare bytes as signed chars;
 *  - ASCII-only case folding.
 * Two guards bound the work: once the text after a '*' failed to match at
 * every position, earlier '*'s cannot help either, so the whole match stops
 * (this makes "*a*a*a*b" linear-ish instead of exponential); and '*' nesting
 * deeper than 1000 levels is refused as no match, bounding the C stack. */
#include "glob.h"

#include <string.h>

#define GLOB_MAX_NESTING 1000

/* C-locale tolower that is also defined for the negative values of signed chars. */
static inline int asciiLower(int c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

static inline int charsEqual(char a, char b, int nocase) {
    return nocase ? asciiLower(a) == asciiLower(b) : a == b;
}

/* Matches one [...] class against c. *pp / *plen point just after the '['
 * and are left on the closing ']' (or the last byte if there is none). */
static int matchClass(const char **pp, int *plen, char c, int nocase) {
    const char *p = *pp;
    int len = *plen;
    int negate = len > 0 && p[0] == '^';
    int match = 0;
    if (negate) {
        p++;
        len--;
    }
    for (;;) {
        if (len == 0) {
            /* Unterminated class: step back so the caller's advance ends the pattern. */
            p--;
            len++;
            break;
        } else if (p[0] == '\\' && len >= 2) {
            p++;
            len--;
            if (p[0] == c) match = 1;
        } else if (p[0] == ']') {
            break;
        } else if (len >= 3 && p[1] == '-') {
            int lo = p[0], hi = p[2], ch = c;
            if (lo > hi) {
                int t = lo;
                lo = hi;
                hi = t;
            }
            if (nocase) {
                lo = asciiLower(lo);
                hi = asciiLower(hi);
                ch = asciiLower(ch);
            }
            p += 2;
            len -= 2;
            if (ch >= lo && ch <= hi) match = 1;
        } else if (charsEqual(p[0], c, nocase)) {
            match = 1;
        }
        p++;
        len--;
    }
    *pp = p;
    *plen = len;
    return negate ? !match : match;
}

static int matchImpl(const char *p, int plen, const char *s, int slen, int nocase,
                     int *giveUp, int nesting) {
    if (nesting > GLOB_MAX_NESTING) return 0;

    while (plen && slen) {
        switch (p[0]) {
        case '*':
            while (plen > 1 && p[1] == '*') {
                p++;
                plen--;
            }
            if (plen == 1) return 1; /* a trailing '*' matches whatever is left */
            while (slen) {
                if (matchImpl(p + 1, plen - 1, s, slen, nocase, giveUp, nesting + 1)) return 1;
                if (*giveUp) return 0;
                s++;
                slen--;
            }
            /* The rest of the pattern matched nowhere in the rest of the
             * string: letting an earlier '*' eat more cannot change that. */
            *giveUp = 1;
            return 0;
        case '?':
            s++;
            slen--;
            break;
        case '[':
            p++;
            plen--;
            if (!matchClass(&p, &plen, s[0], nocase)) return 0;
            s++;
            slen--;
            break;
        case '\\':
            if (plen >= 2) {
                p++;
                plen--;
            }
            /* the escaped character is matched literally */
            __attribute__((fallthrough));
        default:
            if (!charsEqual(p[0], s[0], nocase)) return 0;
            s++;
            slen--;
            break;
        }
        p++;
        plen--;
        if (slen == 0) {
            /* Trailing stars match the empty rest of the string. */
            while (plen && p[0] == '*') {
                p++;
                plen--;
            }
            break;
        }
    }
    return plen == 0 && slen == 0;
}

int stringmatchlen(const char *pattern, int patternLen, const char *string, int stringLen, int nocase) {
    int giveUp = 0;
    return matchImpl(pattern, patternLen, string, stringLen, nocase, &giveUp, 0);
}

int stringmatch(const char *pattern, const char *string, int nocase) {
    return stringmatchlen(pattern, (int)strlen(pattern), string, (int)strlen(string), nocase);
}
