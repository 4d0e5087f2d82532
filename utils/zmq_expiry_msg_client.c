/* zmq_expiry_msg_client: a consumer of the server's 0MQ expiry push, for
 * people who want no perl (utils/zmq_expiry_msg_client.pl prints the same
 * lines). It connects a PULL socket to each endpoint given and prints every
 * message as one line; the line format is described in EXPIRY_0MQ.md:
 *
 *   db=0 type=string key="k" value="v"
 *   db=0 type=hash key="h" fields=2 "f1"="v1" "f2"="v2"
 *   db=0 type=list key="l" elements=2 "a" "b"
 *   db=0 type=set key="s" members=2 "a" "b"
 *   db=0 type=zset key="z" members=2 "a"="1" "b"="2.5"
 *
 * Strings are quoted; '\\' and '"' are escaped, \n \r \t too, and any other
 * byte outside printable ASCII is written as \xHH, so binary data stays on
 * one line. Messages that break the protocol are reported on stderr.
 *
 * Usage: zmq_expiry_msg_client [-n COUNT] ENDPOINT...
 *   -n COUNT  exit after COUNT messages (default: run until killed) */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#define MAX_FRAMES 3

typedef struct frame {
    const unsigned char *p;
    size_t len;
} frame;

/* A cursor over the value frame: every read checks the bytes are there. */
typedef struct reader {
    const unsigned char *p;
    size_t left;
} reader;

static int readU32(reader *r, uint32_t *v) {
    if (r->left < sizeof(*v)) return -1;
    memcpy(v, r->p, sizeof(*v));
    r->p += sizeof(*v);
    r->left -= sizeof(*v);
    return 0;
}

/* A length-prefixed string; *s points into the frame. */
static int readString(reader *r, const unsigned char **s, uint32_t *len) {
    if (readU32(r, len) == -1 || r->left < *len) return -1;
    *s = r->p;
    r->p += *len;
    r->left -= *len;
    return 0;
}

static void putQuoted(FILE *out, const unsigned char *s, size_t len) {
    putc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = s[i];
        switch (c) {
        case '\\': fputs("\\\\", out); break;
        case '"': fputs("\\\"", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (c >= 0x20 && c < 0x7f) putc(c, out);
            else fprintf(out, "\\x%02x", c);
        }
    }
    putc('"', out);
}

/* Prints count strings (pairs=0) or count/2 "a"="b" pairs (pairs=1). */
static int putElements(FILE *out, reader *r, uint32_t count, int pairs) {
    for (uint32_t i = 0; i < count; i++) {
        const unsigned char *s;
        uint32_t len;
        if (readString(r, &s, &len) == -1) return -1;
        if (!pairs || i % 2 == 0) putc(' ', out);
        else putc('=', out);
        putQuoted(out, s, len);
    }
    return 0;
}

/* Decodes one message into a line in `line`; returns an error text or NULL. */
static const char *formatMessage(FILE *line, const frame *f, int nframes) {
    if (nframes != 3) return "expected 3 frames";
    if (f[0].len != 4) return "header frame is not 4 bytes";
    uint16_t hdr[2];
    memcpy(hdr, f[0].p, sizeof(hdr));
    reader kr = {f[1].p, f[1].len};
    const unsigned char *key;
    uint32_t keylen;
    if (readString(&kr, &key, &keylen) == -1 || kr.left) return "bad key frame";
    static const char *names[] = {"string", "hash", "list", "set", "zset"};
    if (hdr[1] < 5) fprintf(line, "db=%u type=%s key=", hdr[0], names[hdr[1]]);
    else fprintf(line, "db=%u type=unknown(%u) key=", hdr[0], hdr[1]);
    putQuoted(line, key, keylen);

    reader r = {f[2].p, f[2].len};
    uint32_t count;
    int bad = 0;
    switch (hdr[1]) {
    case 0: {
        const unsigned char *v;
        uint32_t vlen;
        bad = readString(&r, &v, &vlen);
        if (!bad) {
            fputs(" value=", line);
            putQuoted(line, v, vlen);
        }
        break;
    }
    case 1:
    case 4:
        bad = readU32(&r, &count) == -1 || count % 2;
        if (!bad) {
            fprintf(line, " %s=%u", hdr[1] == 1 ? "fields" : "members", count / 2);
            bad = putElements(line, &r, count, 1);
        }
        break;
    case 2:
    case 3:
        bad = readU32(&r, &count);
        if (!bad) {
            fprintf(line, " %s=%u", hdr[1] == 2 ? "elements" : "members", count);
            bad = putElements(line, &r, count, 0);
        }
        break;
    default: /* a type this client does not know: its size only */
        fprintf(line, " bytes=%zu", f[2].len);
        r.left = 0;
    }
    if (bad || r.left) return "bad value frame";
    return NULL;
}

static void usage(const char *prog) {
    fprintf(stderr, "Usage: %s [-n COUNT] ENDPOINT...\n", prog);
    fprintf(stderr, "Prints each 0MQ expiry message of the server, one line per message.\n");
    exit(2);
}

int main(int argc, char **argv) {
    long long limit = -1;
    int opt;
    while ((opt = getopt(argc, argv, "n:h")) != -1) {
        if (opt == 'n') limit = strtoll(optarg, NULL, 10);
        else usage(argv[0]);
    }
    if (optind >= argc) usage(argv[0]);

    void *ctx = zmq_ctx_new();
    void *sock = zmq_socket(ctx, ZMQ_PULL);
    for (int i = optind; i < argc; i++) {
        if (zmq_connect(sock, argv[i]) == -1) {
            fprintf(stderr, "can't connect to %s: %s\n", argv[i], zmq_strerror(errno));
            return 1;
        }
    }

    char *text = NULL;
    size_t textlen = 0;
    for (long long n = 0; limit < 0 || n < limit; n++) {
        zmq_msg_t msgs[MAX_FRAMES];
        frame f[MAX_FRAMES];
        int nframes = 0, more = 1, flushed = 0;
        while (more) {
            zmq_msg_t m;
            zmq_msg_init(&m);
            /* Output is flushed only when no message is waiting: a line per
             * write(2) would cap the rate far below what the server sends. */
            int flags = nframes == 0 && !flushed ? ZMQ_DONTWAIT : 0;
            if (zmq_msg_recv(&m, sock, flags) == -1) {
                if (errno == EAGAIN) {
                    fflush(stdout);
                    flushed = 1; /* now wait */
                    continue;
                }
                if (errno == EINTR) continue;
                fprintf(stderr, "receive failed: %s\n", zmq_strerror(errno));
                return 1;
            }
            more = zmq_msg_more(&m);
            if (nframes < MAX_FRAMES) msgs[nframes] = m;
            else zmq_msg_close(&m);
            nframes++;
        }
        int kept = nframes < MAX_FRAMES ? nframes : MAX_FRAMES;
        for (int i = 0; i < kept; i++) f[i] = (frame){zmq_msg_data(&msgs[i]), zmq_msg_size(&msgs[i])};
        FILE *line = open_memstream(&text, &textlen);
        const char *err = formatMessage(line, f, nframes);
        fclose(line);
        if (err) fprintf(stderr, "malformed message (%s)\n", err);
        else printf("%s\n", text);
        free(text);
        text = NULL;
        for (int i = 0; i < kept; i++) zmq_msg_close(&msgs[i]);
    }
    fflush(stdout);
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return 0;
}
