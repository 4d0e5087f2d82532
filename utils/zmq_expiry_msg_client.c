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
 * With --ack it speaks the acknowledged protocol of `zmq-expiry-ack yes`
 * instead: a DEALER socket, READY <window> to each endpoint, a fourth frame
 * with the message's sequence number, and ACK <seq> once the lines are
 * flushed. A message whose sequence number was printed already (the server
 * re-sends what was not acknowledged in time) is acknowledged, not printed.
 *
 * Usage: zmq_expiry_msg_client [-n COUNT] [--ack [-w WINDOW]] ENDPOINT...
 *   -n COUNT   exit after COUNT messages printed (default: run until killed)
 *   --ack      acknowledged delivery (the server has zmq-expiry-ack yes)
 *   -w WINDOW  with --ack: unacknowledged messages the server may send
 *              ahead, 1..1000000 (default 1000) */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define MAX_FRAMES 4     /* 3, and the sequence number with --ack */
#define DEFAULT_WINDOW 1000
#define MAX_WINDOW 1000000
#define IDLE_READY_MS 1000 /* with --ack, READY again after this long idle */
/* Lines wait in stdout's buffer (and their ACK with them) at most this long
 * for more messages when none is waiting. In a burst the queue runs empty
 * every few dozen messages (each time 0MQ's I/O thread has handed over what
 * one read of the socket brought); a write(2) and an ACK each time cost more
 * than the lines, and every ACK costs the server a read too. */
#define FLUSH_DELAY_MS 1

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

/* The line being built. Lines are formatted into this buffer, kept from one
 * message to the next, and handed to stdout with one fwrite: formatting
 * through stdio a byte at a time (putc takes the stream's lock each call)
 * cost more than everything else the consumer does. */
typedef struct lineBuf {
    char *p;
    size_t len, cap;
} lineBuf;

static void lineReserve(lineBuf *b, size_t more) {
    if (b->len + more <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    b->p = p;
    b->cap = cap;
}

static void linePut(lineBuf *b, const void *s, size_t n) {
    lineReserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void linePuts(lineBuf *b, const char *s) { linePut(b, s, strlen(s)); }

static void linePutc(lineBuf *b, char c) {
    lineReserve(b, 1);
    b->p[b->len++] = c;
}

static void linePutUnsigned(lineBuf *b, unsigned long v) {
    char tmp[24];
    char *p = tmp + sizeof(tmp);
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    linePut(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* The bytes written as they are inside a quoted string: printable ASCII but
 * the two that are escaped. */
static unsigned char plain_bytes[256];

static void initPlainBytes(void) {
    for (int c = 0x20; c < 0x7f; c++) plain_bytes[c] = c != '\\' && c != '"';
}

static int plainByte(unsigned char c) { return plain_bytes[c]; }

static void putQuoted(lineBuf *b, const unsigned char *s, size_t len) {
    /* At most 4 bytes out per byte in (\xHH), and the quotes. */
    lineReserve(b, 4 * len + 2);
    char *o = b->p + b->len;
    *o++ = '"';
    size_t i = 0;
    while (i < len) {
        size_t run = i;
        while (run < len && plainByte(s[run])) run++;
        memcpy(o, s + i, run - i); /* runs of plain bytes in one copy */
        o += run - i;
        if (run == len) break;
        unsigned char c = s[run];
        static const char hex[] = "0123456789abcdef";
        *o++ = '\\';
        switch (c) {
        case '\\': *o++ = '\\'; break;
        case '"': *o++ = '"'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        default:
            *o++ = 'x';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
        i = run + 1;
    }
    *o++ = '"';
    b->len = (size_t)(o - b->p);
}

/* Prints count strings (pairs=0) or count/2 "a"="b" pairs (pairs=1). */
static int putElements(lineBuf *out, reader *r, uint32_t count, int pairs) {
    for (uint32_t i = 0; i < count; i++) {
        const unsigned char *s;
        uint32_t len;
        if (readString(r, &s, &len) == -1) return -1;
        linePutc(out, !pairs || i % 2 == 0 ? ' ' : '=');
        putQuoted(out, s, len);
    }
    return 0;
}

/* Decodes the three frames of a message into a line in `line` (emptied
 * first); returns an error text or NULL. */
static const char *formatMessage(lineBuf *line, const frame *f) {
    line->len = 0;
    if (f[0].len != 4) return "header frame is not 4 bytes";
    uint16_t hdr[2];
    memcpy(hdr, f[0].p, sizeof(hdr));
    reader kr = {f[1].p, f[1].len};
    const unsigned char *key;
    uint32_t keylen;
    if (readString(&kr, &key, &keylen) == -1 || kr.left) return "bad key frame";
    static const char *names[] = {"string", "hash", "list", "set", "zset"};
    linePuts(line, "db=");
    linePutUnsigned(line, hdr[0]);
    if (hdr[1] < 5) {
        linePuts(line, " type=");
        linePuts(line, names[hdr[1]]);
    } else {
        linePuts(line, " type=unknown(");
        linePutUnsigned(line, hdr[1]);
        linePutc(line, ')');
    }
    linePuts(line, " key=");
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
            linePuts(line, " value=");
            putQuoted(line, v, vlen);
        }
        break;
    }
    case 1:
    case 4:
        bad = readU32(&r, &count) == -1 || count % 2;
        if (!bad) {
            linePuts(line, hdr[1] == 1 ? " fields=" : " members=");
            linePutUnsigned(line, count / 2);
            bad = putElements(line, &r, count, 1);
        }
        break;
    case 2:
    case 3:
        bad = readU32(&r, &count);
        if (!bad) {
            linePuts(line, hdr[1] == 2 ? " elements=" : " members=");
            linePutUnsigned(line, count);
            bad = putElements(line, &r, count, 0);
        }
        break;
    default: /* a type this client does not know: its size only */
        linePuts(line, " bytes=");
        linePutUnsigned(line, f[2].len);
        r.left = 0;
    }
    if (bad || r.left) return "bad value frame";
    linePutc(line, '\n');
    return NULL;
}

/* The sequence numbers printed last, so that a re-sent message is not
 * printed twice. Bounded: the newest 2^SEEN_BITS (1048576) are kept, which
 * is more than the largest window, and a re-send can only be of a message
 * the server still counts as unacknowledged, so within the window. A FIFO
 * ring says which one to forget; an open-addressing set (linear probing,
 * twice as many slots, so probes stay short) answers "printed already?". */
#ifndef SEEN_BITS
#define SEEN_BITS 20 /* overridable so a test can build a tiny one */
#endif
#define SEEN_MAX ((size_t)1 << SEEN_BITS)
#define SEEN_MASK (2 * SEEN_MAX - 1)

typedef struct seenSet {
    uint64_t *slot; /* seq + 1; 0 is a free slot */
    uint64_t *ring; /* the seqs, oldest at ring[head] once full */
    size_t head, count;
} seenSet;

/* Numbers that follow each other (what a server sends) get slots that
 * follow each other, in runs of 16, and the runs are spread by a
 * multiplicative hash: a burst touches a new cache line every eight
 * messages or so, not at every message (two random misses a message were a
 * sixth of an --ack consumer's time). */
#define SEEN_RUN_BITS (SEEN_BITS >= 4 ? 4 : SEEN_BITS)

static size_t seenHome(uint64_t seq) {
    size_t run = (size_t)(((seq >> SEEN_RUN_BITS) * 0x9e3779b97f4a7c15ull) >> (64 - (SEEN_BITS + 1 - SEEN_RUN_BITS)));
    return (run << SEEN_RUN_BITS) | (size_t)(seq & (((uint64_t)1 << SEEN_RUN_BITS) - 1));
}

/* The slot holding seq, or the free slot where it would go. */
static size_t seenSlot(const seenSet *s, uint64_t seq) {
    size_t i = seenHome(seq);
    while (s->slot[i] && s->slot[i] != seq + 1) i = (i + 1) & SEEN_MASK;
    return i;
}

static int seenHas(const seenSet *s, uint64_t seq) {
    return s->slot[seenSlot(s, seq)] != 0;
}

/* Frees slot i and moves back the entries after it that probed past it,
 * so that every lookup still finds its entry without tombstones. */
static void seenRemoveSlot(seenSet *s, size_t i) {
    s->slot[i] = 0;
    for (size_t j = (i + 1) & SEEN_MASK; s->slot[j]; j = (j + 1) & SEEN_MASK) {
        size_t home = seenHome(s->slot[j] - 1);
        if (((j - home) & SEEN_MASK) >= ((j - i) & SEEN_MASK)) {
            s->slot[i] = s->slot[j];
            s->slot[j] = 0;
            i = j;
        }
    }
}

static void seenAdd(seenSet *s, uint64_t seq) {
    if (s->count == SEEN_MAX) {
        seenRemoveSlot(s, seenSlot(s, s->ring[s->head]));
        s->ring[s->head] = seq;
        s->head = (s->head + 1) % SEEN_MAX;
    } else {
        s->ring[s->count++] = seq;
    }
    s->slot[seenSlot(s, seq)] = seq + 1;
}

/* Zeroed memory for the set's tables (24 MB), in huge pages where the
 * kernel gives them on request: touched at random, 4 KB pages cost a fault
 * each the first time (6000 of them) and a TLB miss at nearly every message. */
static void *tableAlloc(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without it, normal pages */
    return p;
}

typedef struct consumer {
    void *sock;
    int ack;        /* --ack: DEALER, four frames, READY and ACK */
    int endpoints;
    long window;
    int unacked;    /* messages handled since the last ACK */
    int dirty;      /* lines in stdout's buffer or an ACK owed: flushAndAck has work */
    long long dirty_since_ms;
    uint64_t last;  /* the sequence number of the last of them */
    seenSet seen;
    lineBuf line;
} consumer;

/* A DEALER deals what it sends round-robin over its connections (all made
 * by zmq_connect, connected or not yet), so one copy per endpoint reaches
 * each endpoint once. */
static void sendToEach(consumer *c, const char *text) {
    for (int i = 0; i < c->endpoints; i++)
        if (zmq_send(c->sock, text, strlen(text), 0) == -1)
            fprintf(stderr, "can't send %s: %s\n", text, zmq_strerror(errno));
}

static void sendReady(consumer *c) {
    char text[32];
    snprintf(text, sizeof(text), "READY %ld", c->window);
    sendToEach(c, text);
}

/* Flushes the lines printed so far, and only then acknowledges them. */
static void flushAndAck(consumer *c) {
    fflush(stdout);
    c->dirty = 0;
    if (!c->ack || !c->unacked) return;
    char text[32];
    snprintf(text, sizeof(text), "ACK %" PRIu64, c->last);
    sendToEach(c, text);
    c->unacked = 0;
}

static long long monotonicMs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void markDirty(consumer *c) {
    if (c->dirty) return;
    c->dirty = 1;
    c->dirty_since_ms = monotonicMs();
}

/* No message is waiting: flushes (and acknowledges) now, unless what is
 * buffered has waited less than FLUSH_DELAY_MS and a message comes within
 * the rest of that time. Returns 1 when the caller should wait for the next
 * message (everything is out), 0 when one is there. */
static int queueEmpty(consumer *c) {
    if (c->dirty) {
        long long left = FLUSH_DELAY_MS - (monotonicMs() - c->dirty_since_ms);
        zmq_pollitem_t item = {c->sock, 0, ZMQ_POLLIN, 0};
        if (left > 0 && zmq_poll(&item, 1, (long)left) > 0) return 0;
    }
    flushAndAck(c);
    return 1;
}

/* Handles one received message: prints its line, or skips a duplicate, or
 * reports it malformed. Returns 1 when a line was printed. */
static int handleMessage(consumer *c, const frame *f, int nframes) {
    uint64_t seq = 0;
    const char *err = NULL;
    if (nframes != (c->ack ? 4 : 3)) err = c->ack ? "expected 4 frames" : "expected 3 frames";
    else if (c->ack && f[3].len != sizeof(seq)) err = "sequence frame is not 8 bytes";
    if (err) {
        fprintf(stderr, "malformed message (%s)\n", err);
        return 0;
    }
    if (c->ack) memcpy(&seq, f[3].p, sizeof(seq));
    if (c->ack && seenHas(&c->seen, seq)) {
        c->unacked++; /* a re-send: acknowledged so the server drops it */
        c->last = seq;
        markDirty(c);
        return 0;
    }
    err = formatMessage(&c->line, f);
    if (err) fprintf(stderr, "malformed message (%s)\n", err);
    else fwrite(c->line.p, 1, c->line.len, stdout);
    if (!err) markDirty(c);
    if (err || !c->ack) return !err;
    seenAdd(&c->seen, seq);
    c->unacked++;
    c->last = seq;
    /* Half the window acknowledged at once, without waiting for the queue
     * to run empty: the server has room to send the other half meanwhile. */
    if (c->unacked >= (c->window + 1) / 2) flushAndAck(c);
    return 1;
}

static void usage(const char *prog) {
    fprintf(stderr, "Usage: %s [-n COUNT] [--ack [-w WINDOW]] ENDPOINT...\n", prog);
    fprintf(stderr, "Prints each 0MQ expiry message of the server, one line per message.\n");
    fprintf(stderr, "--ack: acknowledged delivery (zmq-expiry-ack yes); -w: its window, 1..%d (default %d).\n",
            MAX_WINDOW, DEFAULT_WINDOW);
    exit(2);
}

int main(int argc, char **argv) {
    static const struct option longopts[] = {{"ack", no_argument, NULL, 'a'}, {NULL, 0, NULL, 0}};
    consumer c = {.window = DEFAULT_WINDOW};
    long long limit = -1;
    int opt;
    while ((opt = getopt_long(argc, argv, "n:w:h", longopts, NULL)) != -1) {
        char *end;
        if (opt == 'n') limit = strtoll(optarg, NULL, 10);
        else if (opt == 'a') c.ack = 1;
        else if (opt == 'w') {
            c.window = strtol(optarg, &end, 10);
            if (*end || c.window < 1 || c.window > MAX_WINDOW) usage(argv[0]);
        } else usage(argv[0]);
    }
    if (optind >= argc) usage(argv[0]);
    c.endpoints = argc - optind;

    /* Into a file or a pipe, lines leave in large writes: stdio's default
     * buffer (a page) made a write(2) every 30 or so lines. They still leave
     * once no message is waiting (within FLUSH_DELAY_MS), and a terminal
     * keeps its line buffering. The buffer is ours: given NULL, glibc's
     * setvbuf ignores the size and keeps the page. */
    if (!isatty(STDOUT_FILENO)) {
        static char outbuf[1 << 20];
        setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
    }
    /* 0MQ's I/O thread allocates what it reads and this thread frees it:
     * glibc then gives the I/O thread's heap back to the kernel again and
     * again (madvise, and a TLB flush on every CPU each time). */
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    initPlainBytes();

    void *ctx = zmq_ctx_new();
    c.sock = zmq_socket(ctx, c.ack ? ZMQ_DEALER : ZMQ_PULL);
    for (int i = optind; i < argc; i++) {
        if (zmq_connect(c.sock, argv[i]) == -1) {
            fprintf(stderr, "can't connect to %s: %s\n", argv[i], zmq_strerror(errno));
            return 1;
        }
    }
    if (c.ack) {
        c.seen.slot = tableAlloc(2 * SEEN_MAX * sizeof(uint64_t));
        c.seen.ring = tableAlloc(SEEN_MAX * sizeof(uint64_t));
        if (!c.seen.slot || !c.seen.ring) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        /* An idle wait ends now and then to say READY again: a server that
         * restarted (0MQ reconnects by itself) learns the window that way,
         * and everything printed has been acknowledged by then. */
        int idle = IDLE_READY_MS;
        zmq_setsockopt(c.sock, ZMQ_RCVTIMEO, &idle, sizeof(idle));
        sendReady(&c);
    }

    for (long long n = 0; limit < 0 || n < limit;) {
        zmq_msg_t msgs[MAX_FRAMES];
        frame f[MAX_FRAMES];
        int nframes = 0, more = 1, flushed = 0;
        while (more) {
            zmq_msg_t m;
            zmq_msg_init(&m);
            /* Output is flushed (and acknowledged) only when no message is
             * waiting (after FLUSH_DELAY_MS at most) or half the window is
             * unacknowledged: a line per write(2) would cap the rate far
             * below what the server sends. */
            int flags = nframes == 0 && !flushed ? ZMQ_DONTWAIT : 0;
            if (zmq_msg_recv(&m, c.sock, flags) == -1) {
                if (errno == EAGAIN && !flushed) {
                    flushed = queueEmpty(&c); /* 1: wait now */
                    continue;
                }
                if (errno == EAGAIN) sendReady(&c); /* idle for IDLE_READY_MS */
                if (errno == EAGAIN || errno == EINTR) continue;
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
        /* Without --ack every message counts, malformed ones too, as always. */
        n += handleMessage(&c, f, nframes) || !c.ack;
        for (int i = 0; i < kept; i++) zmq_msg_close(&msgs[i]);
    }
    flushAndAck(&c);
    /* Give 0MQ time to deliver the last ACK before the socket goes. */
    int linger = 2000;
    if (c.ack) zmq_setsockopt(c.sock, ZMQ_LINGER, &linger, sizeof(linger));
    zmq_close(c.sock);
    zmq_ctx_term(ctx);
    if (c.seen.slot) munmap(c.seen.slot, 2 * SEEN_MAX * sizeof(uint64_t));
    if (c.seen.ring) munmap(c.seen.ring, SEEN_MAX * sizeof(uint64_t));
    free(c.line.p);
    return 0;
}
