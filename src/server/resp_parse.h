/* resp_parse: the RESP2 request grammar (multibulk headers and inline lines)
 * as pure functions over a byte buffer, with Redis's exact protocol error
 * texts. networking.c drives them with each client's state; the unit tests
 * drive them directly. */
#ifndef SERVER_RESP_PARSE_H
#define SERVER_RESP_PARSE_H

#include <stddef.h>
#include "core/sds.h"

#define PROTO_INLINE_MAX_SIZE (1024 * 64)   /* longest inline request / header line */
#define RESP_UNAUTH_MAX_MULTIBULK 10        /* before AUTH, as Redis limits it */
#define RESP_UNAUTH_MAX_BULK 16384
#define RESP_ERR_LEN 64

#define RESP_PARSE_MORE 0  /* not enough bytes yet */
#define RESP_PARSE_OK 1
#define RESP_PARSE_ERR -1  /* err holds the text after "Protocol error: " */

/* The "*<count>\r\n" header starting at buf. On OK: *count (<= 0 means an empty
 * request) and *consumed bytes. */
int respParseMultibulkHeader(const char *buf, size_t avail, int authenticated, long long *count, size_t *consumed,
                             char err[RESP_ERR_LEN]);
/* The "$<len>\r\n" header of one argument. maxlen is proto-max-bulk-len (< 0: none). */
int respParseBulkHeader(const char *buf, size_t avail, int authenticated, long long maxlen, long long *len,
                        size_t *consumed, char err[RESP_ERR_LEN]);
/* One inline request line: its arguments (free with sdsfreesplitres) and the
 * bytes consumed, newline included. An empty line gives argc 0. */
int respParseInline(const char *buf, size_t avail, sds **argv, int *argc, size_t *consumed, char err[RESP_ERR_LEN]);
/* Whether buf[0..len), one whole multibulk request these parsers accepted
 * (nothing else may be passed: it is not parsed again), is byte for byte the
 * form Redis would frame for its arguments. The parsers skip the byte after
 * each header's '\r' and the two after each argument unread (as Redis's
 * do), so a client may have sent anything there. */
int respRequestIsCanonical(const char *buf, size_t len);

/* A look ahead, for hints only (prefetching): when a whole multibulk request
 * with plain headers ("*<n>\r\n", "$<len>\r\n", n ≤ RESP_PEEK_MAX_ARGS) is
 * in buf, its length, its argument count and where its first `max`
 * arguments are; else 0. The parsers proper decide what the bytes mean. */
#define RESP_PEEK_MAX_ARGS 256
typedef struct respArg {
    const char *ptr;
    size_t len;
} respArg;
size_t respPeekRequest(const char *buf, size_t avail, respArg *args, int max, int *argc);

#endif
