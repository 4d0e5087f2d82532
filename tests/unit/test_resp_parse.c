/* test_resp_parse: the RESP2 request parser — multibulk and bulk headers,
 * inline lines, partial input, every protocol error text and the limits. */
#include "testhelp.h"

#include <stdlib.h>
#include <string.h>

#include "core/numparse.h"
#include "core/zmalloc.h"
#include "server/resp_parse.h"

static int mb(const char *s, int auth, long long *count, size_t *consumed, char *err) {
    return respParseMultibulkHeader(s, strlen(s), auth, count, consumed, err);
}

static int bulk(const char *s, int auth, long long max, long long *len, size_t *consumed, char *err) {
    return respParseBulkHeader(s, strlen(s), auth, max, len, consumed, err);
}

/* A whole C string looked at by respPeekRequest, three arguments kept. */
static size_t peek(const char *req, respArg *args, int *argc) { return respPeekRequest(req, strlen(req), args, 3, argc); }

/* The header grammar written the plain way (the first '\r', no NUL before
 * it, one more byte after it, string2ll on what is between), for comparing
 * the parsers' faster way with. bulk: a "$" header, else a "*" one. */
static int modelHeader(const char *buf, size_t avail, int bulk, int auth, long long maxlen, long long *v,
                       size_t *consumed, char *err) {
    const char *cr = memchr(buf, '\r', avail);
    if (cr && memchr(buf, '\0', (size_t)(cr - buf))) cr = NULL;
    if (!cr) {
        if (avail <= PROTO_INLINE_MAX_SIZE) return RESP_PARSE_MORE;
        strcpy(err, bulk ? "too big bulk count string" : "too big mbulk count string");
        return RESP_PARSE_ERR;
    }
    if (cr + 1 >= buf + avail) return RESP_PARSE_MORE;
    *consumed = (size_t)(cr - buf) + 2;
    long long ll;
    int ok = string2ll(buf + 1, (size_t)(cr - buf - 1), &ll);
    if (!bulk) {
        if (!ok || ll > 2147483647LL) return strcpy(err, "invalid multibulk length"), RESP_PARSE_ERR;
        if (ll > RESP_UNAUTH_MAX_MULTIBULK && !auth) return strcpy(err, "unauthenticated multibulk length"), RESP_PARSE_ERR;
    } else {
        if (buf[0] != '$') return snprintf(err, RESP_ERR_LEN, "expected '$', got '%c'", buf[0]), RESP_PARSE_ERR;
        if (!ok || ll < 0 || (maxlen >= 0 && ll > maxlen)) return strcpy(err, "invalid bulk length"), RESP_PARSE_ERR;
        if (ll > RESP_UNAUTH_MAX_BULK && !auth) return strcpy(err, "unauthenticated bulk length"), RESP_PARSE_ERR;
    }
    *v = ll;
    return RESP_PARSE_OK;
}

/* Every header of up to 7 bytes over an alphabet of the bytes that matter
 * (and the same with 20 digits in the middle), both parsers against the model. */
static long compareHeadersWithModel(void) {
    static const char alphabet[] = {'$', '*', '0', '1', '9', '-', '\r', '\n', 'x', '\0'};
    enum { A = sizeof(alphabet), MAXLEN = 7 };
    long mismatches = 0;
    char buf[MAXLEN + 32];
    for (int len = 1; len <= MAXLEN; len++) {
        long total = 1;
        for (int i = 1; i < len; i++) total *= A;
        for (long n = 0; n < total * 3; n++) {
            long k = n / 3;
            buf[0] = "$*x"[n % 3];
            for (int i = 1; i < len; i++, k /= A) buf[i] = alphabet[k % A];
            for (int kind = 0; kind < 2; kind++) {
                for (int auth = 0; auth < 2; auth++) {
                    long long v1 = -7, v2 = -7;
                    size_t c1 = 0, c2 = 0;
                    char e1[RESP_ERR_LEN] = "", e2[RESP_ERR_LEN] = "";
                    int r1 = kind ? respParseBulkHeader(buf, (size_t)len, auth, 512, &v1, &c1, e1)
                                  : respParseMultibulkHeader(buf, (size_t)len, auth, &v1, &c1, e1);
                    int r2 = modelHeader(buf, (size_t)len, kind, auth, 512, &v2, &c2, e2);
                    if (r1 != r2 || (r1 == RESP_PARSE_OK && (v1 != v2 || c1 != c2)) ||
                        (r1 == RESP_PARSE_ERR && strcmp(e1, e2) != 0))
                        mismatches++;
                }
            }
        }
    }
    return mismatches;
}

int main(void) {
    char err[RESP_ERR_LEN];
    long long n;
    size_t used;

    TEST("multibulk headers");
    CHECK(mb("*3\r\n$3\r\nSET\r\n", 1, &n, &used, err) == RESP_PARSE_OK && n == 3 && used == 4);
    CHECK(mb("*0\r\n", 1, &n, &used, err) == RESP_PARSE_OK && n == 0);
    CHECK(mb("*-1\r\n", 1, &n, &used, err) == RESP_PARSE_OK && n == -1);
    CHECK(mb("*3", 1, &n, &used, err) == RESP_PARSE_MORE);
    CHECK(mb("*3\r", 1, &n, &used, err) == RESP_PARSE_MORE);
    CHECK(mb("*x\r\n", 1, &n, &used, err) == RESP_PARSE_ERR);
    CHECK_STREQ(err, "invalid multibulk length");
    CHECK(mb("*2147483648\r\n", 1, &n, &used, err) == RESP_PARSE_ERR);
    CHECK(mb("*2147483647\r\n", 1, &n, &used, err) == RESP_PARSE_OK && n == 2147483647);
    CHECK(mb("* 3\r\n", 1, &n, &used, err) == RESP_PARSE_ERR);
    CHECK(mb("*11\r\n", 0, &n, &used, err) == RESP_PARSE_ERR);
    CHECK_STREQ(err, "unauthenticated multibulk length");
    CHECK(mb("*10\r\n", 0, &n, &used, err) == RESP_PARSE_OK);
    /* A NUL before the terminator hides it, as strchr does in Redis. */
    CHECK(respParseMultibulkHeader("*3\0\r\n", 5, 1, &n, &used, err) == RESP_PARSE_MORE);

    TEST("header lines longer than the inline limit");
    size_t big = PROTO_INLINE_MAX_SIZE + 10;
    char *huge = zmalloc(big + 1);
    memset(huge, '1', big);
    huge[0] = '*';
    huge[big] = '\0';
    CHECK(mb(huge, 1, &n, &used, err) == RESP_PARSE_ERR);
    CHECK_STREQ(err, "too big mbulk count string");
    huge[0] = '$';
    CHECK(bulk(huge, 1, -1, &n, &used, err) == RESP_PARSE_ERR);
    CHECK_STREQ(err, "too big bulk count string");
    memset(huge, 'a', big);
    sds *argv;
    int argc;
    CHECK(respParseInline(huge, big, &argv, &argc, &used, err) == RESP_PARSE_ERR);
    CHECK_STREQ(err, "too big inline request");
    CHECK(respParseInline(huge, 100, &argv, &argc, &used, err) == RESP_PARSE_MORE);
    zfree(huge);

    TEST("bulk headers");
    CHECK(bulk("$5\r\nhello\r\n", 1, 512, &n, &used, err) == RESP_PARSE_OK && n == 5 && used == 4);
    CHECK(bulk("$0\r\n", 1, 512, &n, &used, err) == RESP_PARSE_OK && n == 0);
    CHECK(bulk("$5", 1, 512, &n, &used, err) == RESP_PARSE_MORE);
    CHECK(bulk("$-1\r\n", 1, 512, &n, &used, err) == RESP_PARSE_ERR);
    CHECK_STREQ(err, "invalid bulk length");
    CHECK(bulk("$513\r\n", 1, 512, &n, &used, err) == RESP_PARSE_ERR);
    CHECK(bulk("$513\r\n", 1, -1, &n, &used, err) == RESP_PARSE_OK && n == 513);
    CHECK(bulk("x5\r\n", 1, 512, &n, &used, err) == RESP_PARSE_ERR);
    CHECK_STREQ(err, "expected '$', got 'x'");
    CHECK(bulk("$16385\r\n", 0, -1, &n, &used, err) == RESP_PARSE_ERR);
    CHECK_STREQ(err, "unauthenticated bulk length");
    CHECK(bulk("$16384\r\n", 0, -1, &n, &used, err) == RESP_PARSE_OK);

    TEST("inline lines");
    const char *line = "SET k \"a b\\x41\" 'c\\'d'\r\nGET k\r\n";
    CHECK(respParseInline(line, strlen(line), &argv, &argc, &used, err) == RESP_PARSE_OK);
    CHECK(argc == 4 && used == strlen("SET k \"a b\\x41\" 'c\\'d'\r\n"));
    if (argc == 4) {
        CHECK_STREQ(argv[0], "SET");
        CHECK_STREQ(argv[2], "a bA");
        CHECK_STREQ(argv[3], "c'd");
    }
    sdsfreesplitres(argv, argc);
    CHECK(respParseInline("PING\n", 5, &argv, &argc, &used, err) == RESP_PARSE_OK && argc == 1 && used == 5);
    sdsfreesplitres(argv, argc);
    CHECK(respParseInline("\r\n", 2, &argv, &argc, &used, err) == RESP_PARSE_OK && argc == 0 && used == 2);
    sdsfreesplitres(argv, argc);
    CHECK(respParseInline("GET k", 5, &argv, &argc, &used, err) == RESP_PARSE_MORE);
    CHECK(respParseInline("SET \"k v\r\n", 10, &argv, &argc, &used, err) == RESP_PARSE_ERR);
    CHECK_STREQ(err, "unbalanced quotes in request");
    CHECK(respParseInline("SET \"k\"v\r\n", 10, &argv, &argc, &used, err) == RESP_PARSE_ERR);

    /* A request as sent is copied to replicas only when it is its canonical form. */
    const char *set = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\n";
    CHECK(respRequestIsCanonical(set, strlen(set)));
    CHECK(respRequestIsCanonical("*1\r\n$0\r\n\r\n", 10));
    CHECK(!respRequestIsCanonical("*3\rX$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\n", strlen(set)));
    CHECK(!respRequestIsCanonical("*3\r\n$3\r\nSETXY$1\r\nk\r\n$10\r\n0123456789\r\n", strlen(set)));
    CHECK(!respRequestIsCanonical("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r", strlen(set) - 1));
    CHECK(!respRequestIsCanonical("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\n\n", strlen(set)));

    TEST("peeking at whole requests");
    respArg args[3];
    const char *two = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123456789\r\n*2\r\n$3\r\nGET\r\n$2\r\nkk\r\n";
    size_t first = strlen(set);
    CHECK(respPeekRequest(two, strlen(two), args, 3, &argc) == first && argc == 3);
    CHECK(args[0].len == 3 && memcmp(args[0].ptr, "SET", 3) == 0);
    CHECK(args[1].len == 1 && args[1].ptr == two + 17 && args[2].len == 10);
    CHECK(respPeekRequest(two + first, strlen(two) - first, args, 1, &argc) == strlen(two) - first && argc == 2);
    CHECK(args[0].len == 3 && memcmp(args[0].ptr, "GET", 3) == 0);
    /* Every cut short of the whole request is "not there". */
    int cuts_ok = 1;
    for (size_t cut = 0; cut < first; cut++) cuts_ok &= respPeekRequest(set, cut, args, 3, &argc) == 0;
    CHECK(cuts_ok);
    CHECK(peek("*0\r\n", args, &argc) == 0);
    CHECK(peek("*1\r\n$-1\r\n", args, &argc) == 0);
    CHECK(peek("*1\r\n$99999999999999999999\r\n", args, &argc) == 0);
    CHECK(peek("*1\r\n$18446744073709551615\r\nx\r\n", args, &argc) == 0);
    CHECK(peek("*1\r\n$1\rXk\r\n", args, &argc) == 0);
    CHECK(peek("*257\r\n", args, &argc) == 0);
    CHECK(peek("GET k\r\n", args, &argc) == 0);
    CHECK(peek("*1\r\n$0\r\n\r\n", args, &argc) == 10 && argc == 1 && args[0].len == 0);

    TEST("headers: the fast way and the general way agree on every short header");
    CHECK(compareHeadersWithModel() == 0);
    long long v;
    CHECK(mb("*99999999999999999\r\n", 1, &v, &used, err) == RESP_PARSE_ERR); /* 17 digits, past INT_MAX */
    CHECK(bulk("$99999999999999999\r\n", 1, -1, &v, &used, err) == RESP_PARSE_OK && v == 99999999999999999LL);
    CHECK(bulk("$999999999999999999\r\n", 1, -1, &v, &used, err) == RESP_PARSE_OK && v == 999999999999999999LL);
    CHECK(bulk("$9223372036854775807\r\n", 1, -1, &v, &used, err) == RESP_PARSE_OK && v == 9223372036854775807LL);
    CHECK(bulk("$9223372036854775808\r\n", 1, -1, &v, &used, err) == RESP_PARSE_ERR);

    CHECK(zmalloc_used_memory() == 0);
    return TEST_REPORT();
}
