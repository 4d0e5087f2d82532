/* numparse: number parsing and formatting with Redis 7.0's exact rules
 * (interface in numparse.h). Strictness matters for compatibility: clients
 * rely on "value is not an integer or out of range" for " 1", "+1", "01" and
 * "-0", and on byte-identical float replies. */
#include "numparse.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zmalloc.h"

uint32_t digits10(uint64_t v) {
    uint32_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

int ull2string(char *dst, size_t dstlen, unsigned long long v) {
    if (v < 10 && dstlen >= 2) { /* lengths and counts in replies and the command stream are mostly this */
        dst[0] = (char)('0' + v);
        dst[1] = '\0';
        return 1;
    }
    uint32_t len = digits10(v);
    if (len >= dstlen) {
        if (dstlen > 0) dst[0] = '\0';
        return 0;
    }
    dst[len] = '\0';
    for (uint32_t i = len; i > 0; i--) {
        dst[i - 1] = (char)('0' + v % 10);
        v /= 10;
    }
    return (int)len;
}

int ll2string(char *dst, size_t dstlen, long long v) {
    if (v >= 0) return ull2string(dst, dstlen, (unsigned long long)v);
    /* Negate in unsigned arithmetic so LLONG_MIN does not overflow. */
    unsigned long long mag = 0ULL - (unsigned long long)v;
    if (dstlen < 2) {
        if (dstlen > 0) dst[0] = '\0';
        return 0;
    }
    int len = ull2string(dst + 1, dstlen - 1, mag);
    if (len == 0) {
        dst[0] = '\0';
        return 0;
    }
    dst[0] = '-';
    return len + 1;
}

int string2ll(const char *s, size_t slen, long long *value) {
    const char *p = s;
    size_t plen = 0;
    int negative = 0;
    unsigned long long v;

    /* 20 digits plus a sign is the longest possible valid input. */
    if (slen == 0 || slen >= MAX_LONG_LONG_CHARS) return 0;
    if (slen == 1 && p[0] == '0') {
        if (value) *value = 0;
        return 1;
    }
    if (p[0] == '-') {
        negative = 1;
        p++;
        plen++;
        if (plen == slen) return 0;
    }
    /* The first digit must be 1-9: this rejects "00", "01" and "-0". */
    if (p[0] >= '1' && p[0] <= '9') {
        v = (unsigned long long)(p[0] - '0');
        p++;
        plen++;
    } else {
        return 0;
    }
    while (plen < slen && p[0] >= '0' && p[0] <= '9') {
        if (v > ULLONG_MAX / 10) return 0;
        v *= 10;
        unsigned long long digit = (unsigned long long)(p[0] - '0');
        if (v > ULLONG_MAX - digit) return 0;
        v += digit;
        p++;
        plen++;
    }
    if (plen < slen) return 0; /* trailing garbage */

    if (negative) {
        if (v > (unsigned long long)LLONG_MAX + 1) return 0;
        if (value) *value = (long long)(0ULL - v);
    } else {
        if (v > (unsigned long long)LLONG_MAX) return 0;
        if (value) *value = (long long)v;
    }
    return 1;
}

int string2l(const char *s, size_t slen, long *lval) {
    long long llval;
    if (!string2ll(s, slen, &llval)) return 0;
    if (llval < LONG_MIN || llval > LONG_MAX) return 0;
    if (lval) *lval = (long)llval;
    return 1;
}

int string2ull(const char *s, unsigned long long *value) {
    long long ll;
    if (string2ll(s, strlen(s), &ll)) {
        if (ll < 0) return 0;
        *value = (unsigned long long)ll;
        return 1;
    }
    /* Values above LLONG_MAX: Redis falls back to strtoull, with its leniency. */
    errno = 0;
    char *endptr = NULL;
    unsigned long long v = strtoull(s, &endptr, 10);
    if (errno == EINVAL || errno == ERANGE || !(*s != '\0' && *endptr == '\0')) return 0;
    *value = v;
    return 1;
}

int string2ld(const char *s, size_t slen, long double *dp) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    if (slen == 0 || slen >= sizeof(buf)) return 0;
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    errno = 0;
    char *eptr;
    long double value = strtold(buf, &eptr);
    /* A NUL inside the bytes ends strtold early: not a number. */
    if (isspace((unsigned char)buf[0]) || (size_t)(eptr - buf) != slen ||
        (errno == ERANGE &&
         (value == HUGE_VALL || value == -HUGE_VALL || fpclassify(value) == FP_ZERO)) ||
        errno == EINVAL || isnan(value))
        return 0;
    if (dp) *dp = value;
    return 1;
}

int string2d(const char *s, size_t slen, double *dp) {
    /* strtod needs a terminated string and the input is a length-counted one. */
    char small[128];
    char *buf = slen < sizeof(small) ? small : zmalloc(slen + 1);
    if (slen) memcpy(buf, s, slen);
    buf[slen] = '\0';
    errno = 0;
    char *eptr;
    double value = strtod(buf, &eptr);
    int ok = !(slen == 0 || isspace((unsigned char)buf[0]) || (size_t)(eptr - buf) != slen ||
               (errno == ERANGE &&
                (value == HUGE_VAL || value == -HUGE_VAL || fpclassify(value) == FP_ZERO)) ||
               isnan(value));
    if (buf != small) zfree(buf);
    if (ok && dp) *dp = value;
    return ok;
}

/* Copies a fixed string into buf, returning its length or 0 if it does not fit. */
static int copyLiteral(char *buf, size_t len, const char *lit) {
    size_t l = strlen(lit);
    if (l + 1 > len) {
        if (len > 0) buf[0] = '\0';
        return 0;
    }
    memcpy(buf, lit, l + 1);
    return (int)l;
}

/* snprintf that reports truncation as 0 (with an empty buffer). */
static int checkedLength(char *buf, size_t len, int n) {
    if (n < 0 || (size_t)n + 1 > len) {
        if (len > 0) buf[0] = '\0';
        return 0;
    }
    return n;
}

int d2string(char *buf, size_t len, double value) {
    if (isnan(value)) return copyLiteral(buf, len, "nan");
    if (isinf(value)) return copyLiteral(buf, len, value < 0 ? "-inf" : "inf");
    if (value == 0) return copyLiteral(buf, len, signbit(value) ? "-0" : "0");
    /* Integers exactly representable print through the faster integer path;
     * the output is the same as "%.17g" would give. */
    if (value > -4503599627370495.0 && value < 4503599627370496.0 &&
        value == (double)(long long)value)
        return ll2string(buf, len, (long long)value);
    return checkedLength(buf, len, snprintf(buf, len, "%.17g", value));
}

int ld2string(char *buf, size_t len, long double value, int humanfriendly) {
    if (isinf(value)) return copyLiteral(buf, len, value < 0 ? "-inf" : "inf");
    if (!humanfriendly) return checkedLength(buf, len, snprintf(buf, len, "%.17Lg", value));

    /* 17 fractional digits of a long double round most short decimals back
     * to what the user typed; the zeros after them are noise. */
    int l = checkedLength(buf, len, snprintf(buf, len, "%.17Lf", value));
    if (l == 0) return 0;
    if (strchr(buf, '.') != NULL) {
        while (buf[l - 1] == '0') l--;
        if (buf[l - 1] == '.') l--;
    }
    if (l == 2 && buf[0] == '-' && buf[1] == '0') {
        buf[0] = '0';
        l = 1;
    }
    buf[l] = '\0';
    return l;
}

int double2ll(double d, long long *out) {
    /* Inside +-2^62 a double converts to long long without overflow, and the
     * round trip tells whether it had a fractional part. */
    if (d < (double)(-LLONG_MAX / 2) || d > (double)(LLONG_MAX / 2)) return 0;
    long long ll = (long long)d;
    if ((double)ll != d) return 0;
    if (out) *out = ll;
    return 1;
}
