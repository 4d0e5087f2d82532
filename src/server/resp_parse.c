/* resp_parse: RESP2 request parsing (see resp_parse.h). */
#include "server/resp_parse.h"
#include "core/numparse.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Where a line ends, as Redis finds it with strchr: a NUL byte before the
 * terminator hides it, so the request waits for more data (until it is too big). */
static const char *findLineEnd(const char *start, size_t avail, char terminator) {
    const char *end = memchr(start, terminator, avail);
    if (end && memchr(start, '\0', end - start)) return NULL;
    return end;
}

static int fail(char err[RESP_ERR_LEN], const char *msg) {
    snprintf(err, RESP_ERR_LEN, "%s", msg);
    return RESP_PARSE_ERR;
}

/* The usual header, "<c><digits>\r" and one more byte, digits without a
 * leading zero and at most 17 of them: its number and length, as headerLine
 * and string2ll would find them, without searching the buffer twice. 0 for
 * anything else, which then takes the general way. */
static inline int plainHeader(const char *buf, size_t avail, long long *value, size_t *consumed) {
    size_t i = 1;
    unsigned long long v = 0;
    unsigned digit;
    while (i < avail && i <= 18 && (digit = (unsigned)(buf[i] - '0')) <= 9) {
        v = v * 10 + digit;
        i++;
    }
    if (i == 1 || i > 18 || i + 1 >= avail || buf[i] != '\r' || (buf[1] == '0' && i > 2)) return 0;
    *value = (long long)v;
    *consumed = i + 2;
    return 1;
}

/* A "<c><number>\r\n" header: RESP_PARSE_MORE until its "\r\n" arrived. */
static int headerLine(const char *buf, size_t avail, const char **numstart, size_t *numlen, size_t *consumed,
                      const char *toobig, char err[RESP_ERR_LEN]) {
    const char *cr = findLineEnd(buf, avail, '\r');
    if (cr == NULL) return avail > PROTO_INLINE_MAX_SIZE ? fail(err, toobig) : RESP_PARSE_MORE;
    if (cr + 1 >= buf + avail) return RESP_PARSE_MORE; /* wait for the \n */
    *numstart = buf + 1;
    *numlen = cr - (buf + 1);
    *consumed = (cr - buf) + 2;
    return RESP_PARSE_OK;
}

int respParseMultibulkHeader(const char *buf, size_t avail, int authenticated, long long *count, size_t *consumed,
                             char err[RESP_ERR_LEN]) {
    const char *num;
    size_t numlen;
    long long ll;
    if (!plainHeader(buf, avail, &ll, consumed)) {
        int rc = headerLine(buf, avail, &num, &numlen, consumed, "too big mbulk count string", err);
        if (rc != RESP_PARSE_OK) return rc;
        if (!string2ll(num, numlen, &ll)) return fail(err, "invalid multibulk length");
    }
    if (ll > INT_MAX) return fail(err, "invalid multibulk length");
    if (ll > RESP_UNAUTH_MAX_MULTIBULK && !authenticated) return fail(err, "unauthenticated multibulk length");
    *count = ll;
    return RESP_PARSE_OK;
}

int respParseBulkHeader(const char *buf, size_t avail, int authenticated, long long maxlen, long long *len,
                        size_t *consumed, char err[RESP_ERR_LEN]) {
    const char *num;
    size_t numlen;
    long long ll;
    if (buf[0] != '$' || !plainHeader(buf, avail, &ll, consumed)) {
        int rc = headerLine(buf, avail, &num, &numlen, consumed, "too big bulk count string", err);
        if (rc != RESP_PARSE_OK) return rc;
        if (buf[0] != '$') {
            snprintf(err, RESP_ERR_LEN, "expected '$', got '%c'", buf[0]);
            return RESP_PARSE_ERR;
        }
        if (!string2ll(num, numlen, &ll) || ll < 0) return fail(err, "invalid bulk length");
    }
    if (maxlen >= 0 && ll > maxlen) return fail(err, "invalid bulk length");
    if (ll > RESP_UNAUTH_MAX_BULK && !authenticated) return fail(err, "unauthenticated bulk length");
    *len = ll;
    return RESP_PARSE_OK;
}

int respParseInline(const char *buf, size_t avail, sds **argv, int *argc, size_t *consumed, char err[RESP_ERR_LEN]) {
    const char *newline = findLineEnd(buf, avail, '\n');
    if (newline == NULL) return avail > PROTO_INLINE_MAX_SIZE ? fail(err, "too big inline request") : RESP_PARSE_MORE;
    size_t linelen = newline - buf;
    if (linelen && buf[linelen - 1] == '\r') linelen--;
    sds line = sdsnewlen(buf, linelen);
    *argv = sdssplitargs(line, argc);
    sdsfree(line);
    if (*argv == NULL) return fail(err, "unbalanced quotes in request");
    *consumed = (newline - buf) + 1;
    return RESP_PARSE_OK;
}

/* The number of a header line the parsers accepted (digits up to its '\r'),
 * then its "\r\n": the position after it, or NULL when the byte after the
 * '\r' is not '\n'. */
static inline const char *canonicalCount(const char *p, unsigned long long *n) {
    /* Most counts and lengths have one or two digits. */
    unsigned long long v = (unsigned)(p[0] - '0');
    if (p[1] == '\r') {
        p += 1;
    } else if (p[2] == '\r') {
        v = v * 10 + (unsigned)(p[1] - '0');
        p += 2;
    } else {
        unsigned digit;
        v = 0;
        while ((digit = (unsigned)(*p - '0')) <= 9) {
            v = v * 10 + digit;
            p++;
        }
    }
    *n = v;
    return p[1] == '\n' ? p + 2 : NULL;
}

int respRequestIsCanonical(const char *buf, size_t len) {
    const char *p = buf + 1, *end = buf + len; /* after the '*' */
    unsigned long long argc, arglen;
    if (!(p = canonicalCount(p, &argc))) return 0;
    while (argc--) {
        if (!(p = canonicalCount(p + 1, &arglen))) return 0; /* after the '$' */
        p += arglen;
        if (p[0] != '\r' || p[1] != '\n') return 0;
        p += 2;
    }
    return p == end;
}

/* "<c><digits>\r\n" at p, all before end (as plainHeader reads it): the
 * position after it, else NULL. */
static const char *peekHeader(const char *p, const char *end, char c, unsigned long long *n) {
    long long v;
    size_t used;
    if (p >= end || *p != c || !plainHeader(p, (size_t)(end - p), &v, &used) || p[used - 1] != '\n') return NULL;
    *n = (unsigned long long)v;
    return p + used;
}

size_t respPeekRequest(const char *buf, size_t avail, respArg *args, int max, int *argc) {
    const char *p = buf, *end = buf + avail;
    unsigned long long n, len;
    if (!(p = peekHeader(p, end, '*', &n)) || n == 0 || n > RESP_PEEK_MAX_ARGS) return 0;
    for (unsigned long long i = 0; i < n; i++) {
        if (!(p = peekHeader(p, end, '$', &len))) return 0;
        if ((unsigned long long)(end - p) < len + 2) return 0;
        if (i < (unsigned long long)max) {
            args[i].ptr = p;
            args[i].len = (size_t)len;
        }
        p += len + 2;
    }
    *argc = (int)n;
    return (size_t)(p - buf);
}
