/* fuzz_resp: libFuzzer target for the RESP request parser (server/resp_parse),
 * the first code that reads bytes from an untrusted client. It drives the
 * parser the way networking.c does — multibulk header, then one bulk header
 * and payload per argument, or an inline line — over the whole input, for an
 * authenticated and an unauthenticated client, and checks that no step claims
 * more bytes than it was given; each whole multibulk request also goes
 * through respRequestIsCanonical, as a replicated command does. The
 * look-ahead of prefetching (respPeekRequest) runs at every request start:
 * a request it reports whole must be one the parsers take whole, with the
 * same length, argument count and arguments. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/resp_parse.h"

static void parseAll(const char *buf, size_t len, int authenticated) {
    size_t pos = 0;
    char err[RESP_ERR_LEN];
    while (pos < len) {
        size_t consumed = 0;
        if (buf[pos] == '*') {
            long long count, i;
            size_t start = pos;
            respArg peeked[4];
            int peeked_argc = 0;
            size_t peeked_len = respPeekRequest(buf + pos, len - pos, peeked, 4, &peeked_argc);
            if (respParseMultibulkHeader(buf + pos, len - pos, authenticated, &count, &consumed, err) != RESP_PARSE_OK)
                return;
            if (consumed == 0 || consumed > len - pos) abort();
            pos += consumed;
            for (i = 0; i < count && pos < len; i++) {
                long long blen;
                consumed = 0;
                if (respParseBulkHeader(buf + pos, len - pos, authenticated, 512LL * 1024 * 1024, &blen, &consumed,
                                        err) != RESP_PARSE_OK)
                    return;
                if (consumed == 0 || consumed > len - pos || blen < 0) abort();
                pos += consumed;
                if ((unsigned long long)blen + 2 > len - pos) return; /* payload still to come */
                if (peeked_len && i < 4 && (peeked[i].ptr != buf + pos || peeked[i].len != (size_t)blen)) abort();
                pos += (size_t)blen + 2;
            }
            if (peeked_len && (i != count || count != peeked_argc || pos - start != peeked_len)) abort();
            /* A whole request as networking.c hands it to propagation. */
            if (count > 0 && i == count) (void)respRequestIsCanonical(buf + start, pos - start);
        } else {
            sds *argv = NULL;
            int argc = 0;
            int rc = respParseInline(buf + pos, len - pos, &argv, &argc, &consumed, err);
            if (rc != RESP_PARSE_OK) return;
            if (consumed == 0 || consumed > len - pos || argc < 0) abort();
            for (int i = 0; i < argc; i++) (void)sdslen(argv[i]);
            sdsfreesplitres(argv, argc);
            pos += consumed;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* A private copy without slack, so reading one byte too far is caught. */
    char *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    parseAll(buf, size, 1);
    parseAll(buf, size, 0);
    free(buf);
    return 0;
}
