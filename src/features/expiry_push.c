/* expiry_push: the 0MQ expiry push (protocol and guarantees in EXPIRY_0MQ.md).
 *
 * Every key removed by expiry is handed to expiryPushKey() with its value.
 * If the value's type is enabled (zmq-expiry-types) it is serialized into one
 * three-frame message and sent on a PUSH socket bound to every configured
 * endpoint. The original patch this feature comes from sent blocking, so the
 * whole server stalled when the consumer went away; here nothing ever blocks:
 *
 * - frames go out with ZMQ_DONTWAIT. 0MQ queues a multipart message to a peer
 *   only as a whole, and refusing the first frame (EAGAIN) means nothing was
 *   queued, so a refused message can be kept and retried intact;
 * - a refused message goes to a FIFO backlog in memory, bounded by
 *   zmq-expiry-backlog bytes. While the backlog is not empty every new
 *   message goes behind it, so consumers see messages in expiry order;
 * - the backlog drains from the event loop: the socket's ZMQ_FD is watched
 *   while there is a backlog. That fd is edge-triggered (it signals "state may
 *   have changed", and any 0MQ call can consume the signal), so ZMQ_EVENTS is
 *   re-checked whenever the fd fires and after every drain that stops;
 * - when the backlog is full the new message is dropped and counted.
 *
 * Configuration is applied atomically: new endpoints are bound before old ones
 * are unbound, and any failure undoes what was done, so a bad CONFIG SET
 * leaves the old bindings working. Before the event loop exists (while the
 * config file is read, before a possible daemonizing fork that a 0MQ context
 * would not survive) endpoints are only test-bound, so a bad one is still a
 * start-up error; expiryPushInit() binds them for real. */
#include "features/expiry_push.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "core/ae.h"
#include "core/clock.h"
#include "core/crc16.h"
#include "core/dict.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "data/value.h"
#include "features/expiry_ack.h"
#include "features/expiry_spool.h"
#include "features/zmqlib.h"
#include "server/db.h"
#include "server/expire.h"
#include "server/hooks.h"
#include "server/server.h"

/* Type numbers on the wire (frame 1). 0 and 1 are the original protocol's,
 * 2..4 our extension. */
#define WIRE_STRING 0
#define WIRE_HASH 1
#define WIRE_LIST 2
#define WIRE_SET 3
#define WIRE_ZSET 4

/* The serialization buffer is kept between messages unless it grew past this. */
#define SCRATCH_KEEP_BYTES (1024 * 1024)
/* After we unbind an endpoint, 0MQ closes its listener asynchronously; binding
 * the same address again within this window retries for a moment. */
#define REBIND_WINDOW_MS 2000
#define REBIND_RETRY_MS 200
#define DROP_LOG_PERIOD_MS 10000
/* expiryPushFeeding(): messages went to 0MQ within this long. */
#define FEEDING_WINDOW_US 5000
/* The drain reads the clock for its budget every this many messages. */
#define DRAIN_CLOCK_EVERY 16
/* expiryPushHolding(): a backlog up to this size is 0MQ's queue running full
 * under a consumer that reads; a larger one (a consumer back after an
 * absence, the spool's replay) drains beside expiry instead, so keys do not
 * wait past their deadline for all of it. */
#define HOLD_MAX_BACKLOG 1024

typedef struct boundEndpoint {
    sds configured; /* as written in the config */
    sds resolved;   /* ZMQ_LAST_ENDPOINT: wildcard ports resolved, used to unbind */
} boundEndpoint;

static struct {
    int live;         /* expiryPushInit ran: the event loop exists, bind for real */
    int ack_at_start; /* zmq-expiry-ack as the push started: the mode cannot change while running */
    void *ctx, *sock; /* NULL while no endpoint is configured */
    int fd;           /* the socket's ZMQ_FD, -1 without a socket */
    int watching;     /* fd registered in the event loop */
    long long drain_timer; /* pending resume timer, -1 if none */
    boundEndpoint *eps;
    int neps;
    long long last_unbind_ms;
    /* backlog */
    expiryMsg *head, *tail;
    unsigned long long backlog_msgs, backlog_bytes;
    long long last_drop_log_ms; /* drops are logged at most every DROP_LOG_PERIOD_MS */
    int drops_unlogged;         /* drops since that line, for the cron to report */
    /* counters */
    unsigned long long sent_msgs, sent_bytes, dropped;
    monotime fed_turn; /* start of the loop turn in which 0MQ last took a message */
    char last_error[256];
    /* serialization buffer */
    unsigned char *buf;
    size_t len, cap;
} push = {.fd = -1, .drain_timer = -1};

static char err_buf[512];

static void setLastError(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void setLastError(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(push.last_error, sizeof(push.last_error), fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------ serialization */

static void bufReserve(size_t more) {
    if (push.len + more <= push.cap) return;
    size_t cap = push.cap ? push.cap : 256;
    while (cap < push.len + more) cap *= 2;
    push.buf = zrealloc(push.buf, cap);
    push.cap = cap;
}

static void bufPut(const void *p, size_t n) {
    bufReserve(n);
    if (n) memcpy(push.buf + push.len, p, n);
    push.len += n;
}

static void bufPutU32(uint32_t v) { bufPut(&v, sizeof(v)); }

/* uint32 length (host order) + bytes: how every string goes on the wire. */
static void bufPutString(const void *p, size_t n) {
    bufPutU32((uint32_t)n);
    bufPut(p, n);
}

static void bufPutLongLong(long long v) {
    char tmp[MAX_LONG_LONG_CHARS];
    int n = ll2string(tmp, sizeof(tmp), v);
    bufPutString(tmp, n);
}

static void bufPutDouble(double d) {
    char tmp[MAX_D2STRING_CHARS];
    int n = d2string(tmp, sizeof(tmp), d);
    bufPutString(tmp, n);
}

static void bufPutElem(const valueElem *e) {
    if (e->sval) bufPutString(e->sval, e->slen);
    else bufPutLongLong(e->lval);
}

/* Strings the value frame announces (pairs count twice), 0 when the type has none. */
static unsigned long long valueWireCount(robj *val) {
    unsigned long long n = valueLength(val);
    return val->type == OBJ_HASH || val->type == OBJ_ZSET ? 2 * n : n;
}

/* Writes the value frame; returns the wire type, or -1 for a type the
 * protocol has no number for. */
static int bufPutValue(robj *val) {
    objectAssertChecked(val); /* walked below: see object.h */
    int wire;
    switch (val->type) {
    case OBJ_STRING: {
        char tmp[LONG_STR_SIZE];
        size_t n;
        const char *s = stringObjectView(val, tmp, &n); /* int-encoded → decimal text */
        bufPutString(s, n);
        return WIRE_STRING;
    }
    case OBJ_HASH: wire = WIRE_HASH; break;
    case OBJ_LIST: wire = WIRE_LIST; break;
    case OBJ_SET: wire = WIRE_SET; break;
    case OBJ_ZSET: wire = WIRE_ZSET; break;
    default: return -1;
    }
    bufPutU32((uint32_t)valueWireCount(val));
    valueIter it;
    valueItem item;
    valueIterInit(&it, val);
    while (valueIterNext(&it, &item)) {
        bufPutElem(&item.ele);
        if (wire == WIRE_HASH) bufPutElem(&item.val);
        else if (wire == WIRE_ZSET) bufPutDouble(item.score);
    }
    valueIterDone(&it);
    return wire;
}

/* Appends the three frames to the scratch buffer, at push.len (behind the
 * batch's earlier messages). Returns 0 and sets the frame lengths, or -1
 * (with last_error, push.len as before) when the value cannot be expressed. */
static int serializeMessage(int dbid, robj *key, robj *val, size_t *keyframe_len, size_t *valframe_len) {
    char tmp[LONG_STR_SIZE];
    size_t klen;
    const char *k = stringObjectView(key, tmp, &klen);
    size_t vlen = val->type == OBJ_STRING ? stringObjectLen(val) : 0;
    if (klen > UINT32_MAX || vlen > UINT32_MAX || valueWireCount(val) > UINT32_MAX) {
        setLastError("value too large for the protocol's 32-bit lengths: message dropped");
        return -1;
    }
    size_t start = push.len;
    uint16_t header[2] = {(uint16_t)dbid, 0};
    bufPut(header, sizeof(header));
    bufPutString(k, klen);
    int type = bufPutValue(val);
    if (type < 0) {
        push.len = start;
        return -1;
    }
    header[1] = (uint16_t)type;
    memcpy(push.buf + start, header, sizeof(header));
    *keyframe_len = 4 + klen;
    *valframe_len = push.len - start - EXPIRY_HEADER_FRAME_LEN - *keyframe_len;
    return 0;
}

/* -------------------------------------------------------------------- sending */

#define SEND_OK 0
#define SEND_AGAIN 1 /* 0MQ took nothing: keep the message and retry later */
#define SEND_FAILED 2

/* Sends one message without blocking. The first frame refused with EAGAIN
 * means nothing was queued. A later frame can only be refused (EFAULT, or
 * EAGAIN) when the peer's pipe died mid-message: 0MQ then rolls the partial
 * message back, so the whole message is retried. */
static int sendFrames(const unsigned char *data, size_t keyframe_len, size_t valframe_len) {
    if (zmqlib.send(push.sock, data, EXPIRY_HEADER_FRAME_LEN, ZMQ_SNDMORE | ZMQ_DONTWAIT) == -1) {
        if (errno == EAGAIN) return SEND_AGAIN;
        goto failed;
    }
    if (zmqlib.send(push.sock, data + EXPIRY_HEADER_FRAME_LEN, keyframe_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) == -1 ||
        zmqlib.send(push.sock, data + EXPIRY_HEADER_FRAME_LEN + keyframe_len, valframe_len, ZMQ_DONTWAIT) == -1) {
        if (errno == EAGAIN || errno == EFAULT) return SEND_AGAIN;
        goto failed;
    }
    push.sent_msgs++;
    push.fed_turn = aeTurnStartUs(server.el);
    push.sent_bytes += EXPIRY_HEADER_FRAME_LEN + keyframe_len + valframe_len;
    return SEND_OK;
failed:
    setLastError("zmq_send: %s", zmqlib.strerror(errno));
    return SEND_FAILED;
}

/* The drop warning, at most once a period; drops it had to leave out are
 * reported with their running total by the cron once the period is over. */
static void logDrops(void) {
    if (mstime() - push.last_drop_log_ms < DROP_LOG_PERIOD_MS) {
        push.drops_unlogged = 1;
        return;
    }
    push.last_drop_log_ms = mstime();
    push.drops_unlogged = 0;
    serverLog(LL_WARNING, "0MQ expiry push: backlog full (%llu messages, %llu bytes), %llu messages dropped so far",
              push.backlog_msgs, push.backlog_bytes, push.dropped);
}

static void dropMessage(void) {
    push.dropped++;
    setLastError("backlog full (zmq-expiry-backlog %lld bytes): messages dropped", server.zmq_backlog);
    logDrops();
}


static void freeHead(void) {
    expiryMsg *m = push.head;
    push.head = m->next;
    if (!push.head) push.tail = NULL;
    push.backlog_msgs--;
    push.backlog_bytes -= expiryMsgBytes(m);
    zfree(m);
}

static void socketEvent(aeEventLoop *el, int fd, void *data, int mask);
static long long drainTimer(aeEventLoop *el, long long id, void *data);

static void watchSocket(void) {
    if (push.watching || push.fd == -1) return;
    if (aeCreateFileEvent(server.el, push.fd, AE_READABLE, socketEvent, NULL) == AE_OK) {
        push.watching = 1;
    } else {
        /* Cannot happen with the loop's fd headroom; drainBacklog polls with a timer then. */
        serverLog(LL_WARNING, "0MQ expiry push: cannot watch ZMQ_FD %d: %s", push.fd, strerror(errno));
    }
}

static void unwatchSocket(void) {
    if (push.watching) aeDeleteFileEvent(server.el, push.fd, AE_READABLE);
    push.watching = 0;
    if (push.drain_timer != -1) aeDeleteTimeEvent(server.el, push.drain_timer);
    push.drain_timer = -1;
}

static int socketWritable(void) {
    int events = 0;
    size_t len = sizeof(events);
    if (zmqlib.getsockopt(push.sock, ZMQ_EVENTS, &events, &len) == -1) return 0;
    return (events & ZMQ_POLLOUT) != 0;
}

static void appendToBacklog(uint64_t seq, long long expired_ms, int spooled, const unsigned char *frames,
                            size_t keyframe_len, size_t valframe_len);

/* Messages waiting in the spool alone come into memory as the backlog frees:
 * at least one, then while the backlog has room. */
static void refillBacklog(void) {
    spoolMsg sm;
    while (spoolHasDiskOnly() && (!push.head || push.backlog_bytes < (unsigned long long)server.zmq_backlog)) {
        if (!spoolReadNext(&sm)) break;
        appendToBacklog(sm.seq, sm.expired_ms, 1, sm.frames, sm.keyframe_len, sm.valframe_len);
    }
}

static int backlogWaiting(void) { return push.head || spoolHasDiskOnly(); }

/* Sends from the head of the backlog (refilled from the spool's disk-only
 * messages when it empties) while 0MQ takes messages, within the turn's
 * budget for background work (backgroundWorkLeftUs). Leaves either an empty
 * backlog (fd unwatched), a socket that was not writable at the last
 * ZMQ_EVENTS check (the fd will fire), or a resume timer (after a pause,
 * BACKGROUND_PAUSE_US, while clients are being served). */
static void drainBacklog(void) {
    monotime start = getMonotonicUs();
    long long budget = backgroundWorkLeftUs();
    for (unsigned n = 0;; n++) {
        if (!push.head) refillBacklog();
        if (!push.head) break;
        if (n % DRAIN_CLOCK_EVERY == DRAIN_CLOCK_EVERY - 1 && (long long)(getMonotonicUs() - start) > budget) {
            if (push.drain_timer == -1)
                push.drain_timer = aeCreateTimeEventUs(server.el, backgroundConsumerFeeding() ? BACKGROUND_PAUSE_US : 0,
                                                       drainTimer, NULL);
            return;
        }
        expiryMsg *m = push.head;
        int rc = sendFrames(m->data, m->keyframe_len, m->valframe_len);
        if (rc == SEND_OK) {
            spoolDone(m->seq); /* delivered: 0MQ took it */
            freeHead();
        } else if (rc == SEND_FAILED) {
            spoolDone(m->seq);
            freeHead();
            push.dropped++;
        } else if (!socketWritable()) {
            /* The fd signals when that changes (without it, a timer polls). */
            if (!push.watching && push.drain_timer == -1)
                push.drain_timer = aeCreateTimeEvent(server.el, 10, drainTimer, NULL);
            return;
        }
    }
    unwatchSocket();
    expireResume(); /* if it held the keys due meanwhile */
}

static void socketEvent(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el, (void)fd, (void)data, (void)mask;
    if (server.zmq_ack) {
        expiryAckSocketEvent();
        return;
    }
    /* Reading ZMQ_EVENTS is what re-arms the fd, even with nothing to drain. */
    if (!backlogWaiting()) {
        drainBacklog();
    } else if (socketWritable() && push.drain_timer == -1) {
        /* The drain runs from the timer, where it shares the turn with expiry
         * and pauses like it while a consumer is being fed. */
        long long delay = backgroundConsumerFeeding() ? BACKGROUND_PAUSE_US : 0;
        push.drain_timer = aeCreateTimeEventUs(server.el, delay, drainTimer, NULL);
    }
}

static long long drainTimer(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    push.drain_timer = -1;
    drainBacklog();
    return AE_NOMORE;
}

/* Plain mode: the spool has messages to hand over and nothing drains them
 * (at start-up, after a promotion): the drain starts. */
static void resumeSpoolDrain(void) {
    if (!push.sock || server.zmq_ack || push.head || push.drain_timer != -1 || !spoolHasDiskOnly()) return;
    watchSocket();
    drainBacklog();
}

void expiryPushCron(void) {
    if (push.drops_unlogged) logDrops();
    if (server.zmq_ack) {
        expiryAckCron();
    } else {
        /* A replica just promoted held its master's log until now. */
        resumeSpoolDrain();
    }
}

static void appendToBacklog(uint64_t seq, long long expired_ms, int spooled, const unsigned char *frames,
                            size_t keyframe_len, size_t valframe_len) {
    expiryMsg *m = expiryMsgNew(seq, expired_ms, spooled, frames, keyframe_len, valframe_len);
    if (push.tail) push.tail->next = m;
    else push.head = m;
    push.tail = m;
    push.backlog_msgs++;
    push.backlog_bytes += expiryMsgBytes(m);
}

/* A message that cannot go to 0MQ now waits: in the spool (and in memory
 * while the backlog has room), or in memory alone, or it is dropped. */
static void enqueueMessage(const unsigned char *frames, size_t keyframe_len, size_t valframe_len) {
    size_t total = EXPIRY_HEADER_FRAME_LEN + keyframe_len + valframe_len;
    int room = server.zmq_backlog >= 0 && push.backlog_bytes + total <= (unsigned long long)server.zmq_backlog;
    uint64_t seq = spoolNextSeq();
    long long now = server.mstime; /* the time it expired at, as ack mode keeps it */
    int where = spoolAppend(seq, now, frames, keyframe_len, valframe_len, room);
    if (where == SPOOL_DISK_ONLY) return;
    if (!room) {
        dropMessage();
        return;
    }
    appendToBacklog(seq, now, where == SPOOL_WITH_MEMORY, frames, keyframe_len, valframe_len);
}

int expiryPushFeeding(void) {
    return push.sent_msgs && (long long)(aeTurnStartUs(server.el) - push.fed_turn) < FEEDING_WINDOW_US;
}

int expiryPushDraining(void) { return backlogWaiting() && push.drain_timer != -1; }

/* A mass expiry outruns a consumer that reads: sent straight to 0MQ until
 * its queue (zmq-expiry-hwm) is full, the refused message goes to the
 * backlog and the spool, and then expiry stops until the drain has sent it,
 * so the rest leave the dataset as 0MQ takes them. Without the hold every
 * key of the burst went through the backlog and the spool (a copy, a record
 * and its CRC each, half the server's work in a mass expiry): a key due is
 * in the dataset, which is where the delivery guarantees want it anyway. */
int expiryPushHolding(void) {
    return push.head && !server.zmq_ack && push.backlog_msgs <= HOLD_MAX_BACKLOG && !spoolHasDiskOnly() &&
           expiryPushFeeding();
}

/* Plain mode: the message goes to 0MQ, or behind the backlog, keeping the order. */
static void deliverMessage(const unsigned char *frames, size_t keyframe_len, size_t valframe_len) {
    if (backlogWaiting()) {
        /* Behind the backlog, to keep the order; the fd or timer drains it. */
        enqueueMessage(frames, keyframe_len, valframe_len);
        return;
    }
    int rc = sendFrames(frames, keyframe_len, valframe_len);
    if (rc == SEND_FAILED) push.dropped++;
    if (rc == SEND_AGAIN) {
        enqueueMessage(frames, keyframe_len, valframe_len);
        if (backlogWaiting()) {
            watchSocket();
            /* The refused send may have consumed the fd's signal: one more
             * try ends on a ZMQ_EVENTS check that re-arms it. */
            drainBacklog();
        }
    }
}

/* Batches. In a mass expiry 0MQ's I/O thread is woken by the first message
 * after it ran out and then sends what it finds queued: handed over one at a
 * time between key removals, the messages left in 2 KB sendto(2)s, 70k
 * system calls per million on that thread alone, on cores the consumer
 * needs too. An expiry slice therefore serializes its messages here, one
 * after the other in the scratch buffer, and hands them over BATCH_MSGS at a
 * time (and at the slice's end), so the I/O thread finds a batch's worth
 * queued. A message waits in this batch for at most the time it takes to
 * remove BATCH_MSGS keys, in memory as it would wait in 0MQ's queue (plain
 * mode promises no more); ack mode numbers and holds each message at once
 * and does not batch. Outside a slice (a key found expired by a command)
 * the message goes at once. */
#define BATCH_MSGS 64
#define BATCH_BYTES (64 * 1024) /* or sooner, when the messages are large */

static struct {
    int open; /* within an expiry slice */
    unsigned n;
    struct {
        size_t off, keyframe_len, valframe_len;
    } msgs[BATCH_MSGS];
} batch;

static void flushBatch(void) {
    for (unsigned i = 0; i < batch.n; i++)
        deliverMessage(push.buf + batch.msgs[i].off, batch.msgs[i].keyframe_len, batch.msgs[i].valframe_len);
    batch.n = 0;
    push.len = 0;
    if (push.cap > SCRATCH_KEEP_BYTES) {
        zfree(push.buf);
        push.buf = NULL;
        push.cap = 0;
    }
}

void expiryPushRunBegin(void) { batch.open = 1; }

void expiryPushRunEnd(void) {
    batch.open = 0;
    flushBatch();
}

void expiryPushKey(int dbid, robj *key, robj *val) {
    /* A forked child (a debugging session) expires keys in its own copy of
     * the data, which dies with it: the server pushes them when it expires them. */
    if (!push.sock || server.in_fork_child || !(server.zmq_types & (1 << val->type))) return;
    size_t off = push.len, keyframe_len, valframe_len;
    if (serializeMessage(dbid, key, val, &keyframe_len, &valframe_len) == -1) {
        push.dropped++;
        return;
    }
    if (server.zmq_ack) {
        /* Numbered and held until a consumer acknowledges it. */
        if (expiryAckOffer(push.buf + off, keyframe_len, valframe_len) == -1) dropMessage();
        flushBatch(); /* empty: resets the scratch buffer */
        return;
    }
    batch.msgs[batch.n].off = off;
    batch.msgs[batch.n].keyframe_len = keyframe_len;
    batch.msgs[batch.n].valframe_len = valframe_len;
    batch.n++;
    if (!batch.open || batch.n == BATCH_MSGS || push.len >= BATCH_BYTES) flushBatch();
}

/* ------------------------------------------------------------ configuration */

/* The backlog leaves memory; what the spool holds of it waits there for
 * endpoints to come back, the rest is dropped. */
static void discardBacklog(const char *why) {
    unsigned long long n = expiryAckDiscard();
    while (push.head) {
        if (!push.head->spooled) n++;
        freeHead();
    }
    spoolRewind();
    if (!n) return;
    push.dropped += n;
    setLastError("%llu backlog messages discarded: %s", n, why);
    serverLog(LL_WARNING, "0MQ expiry push: %s", push.last_error);
}

/* PUSH, or in ack mode ROUTER: a send to a consumer that is gone fails
 * (ROUTER_MANDATORY) instead of vanishing, and no high-water mark applies
 * (the windows consumers ask for bound what 0MQ holds). */
static void *newPushSocket(void *ctx) {
    void *s = zmqlib.socket(ctx, server.zmq_ack ? ZMQ_ROUTER : ZMQ_PUSH);
    if (!s) return NULL;
    int linger = 0, hwm = server.zmq_ack ? 0 : (int)server.zmq_hwm, mandatory = 1;
    zmqlib.setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
    zmqlib.setsockopt(s, ZMQ_SNDHWM, &hwm, sizeof(hwm));
    if (server.zmq_ack) zmqlib.setsockopt(s, ZMQ_ROUTER_MANDATORY, &mandatory, sizeof(mandatory));
    return s;
}

static int checkEndpointList(const char **err) {
    for (int i = 0; i < server.zmq_endpoints_count; i++) {
        const char *e = server.zmq_endpoints[i];
        if (!strncmp(e, "inproc://", 9)) {
            snprintf(err_buf, sizeof(err_buf),
                     "'%s': inproc endpoints are only reachable inside the server; use tcp:// or ipc://", e);
            *err = err_buf;
            return C_ERR;
        }
        for (int j = 0; j < i; j++) {
            if (!strcmp(e, server.zmq_endpoints[j])) {
                snprintf(err_buf, sizeof(err_buf), "endpoint '%s' is listed twice", e);
                *err = err_buf;
                return C_ERR;
            }
        }
    }
    return C_OK;
}

static void bindError(const char *endpoint, int errnum, const char **err) {
    int syntax = errnum == EINVAL || errnum == EPROTONOSUPPORT;
    snprintf(err_buf, sizeof(err_buf), "can't bind 0MQ expiry endpoint '%s': %s%s", endpoint, zmqlib.strerror(errnum),
             syntax ? " (endpoints look like tcp://127.0.0.1:5555, tcp://*:5555 or ipc:///path/to/socket)" : "");
    *err = err_buf;
}

/* Binds, retrying for a moment when the address is one we released just now. */
static int bindEndpoint(void *sock, const char *endpoint) {
    long long deadline = mstime() + REBIND_RETRY_MS;
    for (;;) {
        if (zmqlib.bind(sock, endpoint) == 0) return 0;
        if (errno != EADDRINUSE || mstime() - push.last_unbind_ms > REBIND_WINDOW_MS || mstime() > deadline)
            return -1;
        usleep(2000);
    }
}

/* Before the event loop exists: bind every endpoint on a throw-away socket and
 * release them, so that an unusable endpoint fails the start-up. */
static int testBindEndpoints(const char **err) {
    if (checkEndpointList(err) != C_OK) return C_ERR;
    if (server.zmq_endpoints_count == 0) return C_OK;
    if (!zmqLibLoad(err)) return C_ERR;
    void *ctx = zmqlib.ctx_new();
    void *s = ctx ? newPushSocket(ctx) : NULL;
    int rc = C_OK;
    if (!s) {
        bindError(server.zmq_endpoints[0], errno, err);
        rc = C_ERR;
    }
    for (int i = 0; rc == C_OK && i < server.zmq_endpoints_count; i++) {
        if (zmqlib.bind(s, server.zmq_endpoints[i]) == -1) {
            bindError(server.zmq_endpoints[i], errno, err);
            rc = C_ERR;
        }
    }
    if (s) zmqlib.close(s);
    if (ctx) zmqlib.ctx_term(ctx); /* returns once the listeners are closed */
    return rc;
}

/* The bound endpoint an endpoint of the new list designates: the same text,
 * or the address a wildcard endpoint resolved to (tcp://host:* bound as
 * tcp://host:40123 is kept when the list names tcp://host:40123). */
static int findBound(const char *endpoint) {
    for (int i = 0; i < push.neps; i++)
        if (!strcmp(push.eps[i].configured, endpoint) || !strcmp(push.eps[i].resolved, endpoint)) return i;
    return -1;
}

static void closeSocket(void) {
    unwatchSocket();
    expiryAckSetSocket(NULL);
    for (int i = 0; i < push.neps; i++) {
        sdsfree(push.eps[i].configured);
        sdsfree(push.eps[i].resolved);
    }
    zfree(push.eps);
    push.eps = NULL;
    push.neps = 0;
    if (push.sock) zmqlib.close(push.sock);
    if (push.ctx) zmqlib.ctx_term(push.ctx);
    push.sock = push.ctx = NULL;
    push.fd = -1;
    push.last_unbind_ms = mstime();
}

static int createSocket(const char **err) {
    if (!zmqLibLoad(err)) return C_ERR;
    push.ctx = zmqlib.ctx_new();
    push.sock = push.ctx ? newPushSocket(push.ctx) : NULL;
    size_t len = sizeof(push.fd);
    if (!push.sock || zmqlib.getsockopt(push.sock, ZMQ_FD, &push.fd, &len) == -1) {
        snprintf(err_buf, sizeof(err_buf), "can't create the 0MQ push socket: %s", zmqlib.strerror(errno));
        *err = err_buf;
        closeSocket();
        return C_ERR;
    }
    if (server.zmq_ack) {
        /* Consumers speak at any time: the fd is watched as long as the socket lives. */
        expiryAckSetSocket(push.sock);
        watchSocket();
    }
    return C_OK;
}

/* Makes the bound set equal to server.zmq_endpoints, all or nothing. */
static int rebindEndpoints(const char **err) {
    if (checkEndpointList(err) != C_OK) return C_ERR;
    int want = server.zmq_endpoints_count;
    if (want == 0) {
        if (push.sock) {
            discardBacklog("every endpoint was removed");
            closeSocket();
        }
        return C_OK;
    }
    int created = 0;
    if (!push.sock) {
        if (createSocket(err) != C_OK) return C_ERR;
        created = 1;
    }
    boundEndpoint *next = zcalloc(sizeof(boundEndpoint) * want);
    int failed = -1;
    for (int i = 0; i < want; i++) {
        const char *e = server.zmq_endpoints[i];
        int at = findBound(e);
        if (at != -1) {
            int twice = 0;
            for (int j = 0; j < i && !twice; j++) twice = !strcmp(next[j].resolved, push.eps[at].resolved);
            if (twice) {
                snprintf(err_buf, sizeof(err_buf), "endpoint '%s' is listed twice", push.eps[at].resolved);
                *err = err_buf;
                failed = i;
                break;
            }
            next[i].configured = sdsnew(e);
            next[i].resolved = sdsdup(push.eps[at].resolved);
            continue;
        }
        if (bindEndpoint(push.sock, e) == -1) {
            bindError(e, errno, err);
            failed = i;
            break;
        }
        char resolved[1024];
        size_t len = sizeof(resolved);
        if (zmqlib.getsockopt(push.sock, ZMQ_LAST_ENDPOINT, resolved, &len) == -1) snprintf(resolved, sizeof(resolved), "%s", e);
        next[i].configured = sdsnew(e);
        next[i].resolved = sdsnew(resolved);
    }
    if (failed != -1) {
        /* Undo the bindings made above; the old ones were not touched. */
        for (int i = 0; i < failed; i++) {
            if (findBound(next[i].configured) == -1) {
                zmqlib.unbind(push.sock, next[i].resolved);
                push.last_unbind_ms = mstime();
            }
            sdsfree(next[i].configured);
            sdsfree(next[i].resolved);
        }
        zfree(next);
        if (created) closeSocket();
        return C_ERR;
    }
    for (int i = 0; i < push.neps; i++) {
        int kept = 0;
        for (int j = 0; j < want && !kept; j++) kept = !strcmp(push.eps[i].resolved, next[j].resolved);
        if (!kept) {
            zmqlib.unbind(push.sock, push.eps[i].resolved);
            push.last_unbind_ms = mstime();
        }
        sdsfree(push.eps[i].configured);
        sdsfree(push.eps[i].resolved);
    }
    zfree(push.eps);
    push.eps = next;
    push.neps = want;
    return C_OK;
}

int expiryPushApplyConfig(const char **err) {
    if (!push.live) return testBindEndpoints(err);
    if (rebindEndpoints(err) != C_OK) return C_ERR;
    if (push.sock && !server.zmq_ack) {
        /* 0MQ gives each connection the HWM set when it was made: a change
         * applies to consumers that connect afterwards. */
        int hwm = (int)server.zmq_hwm;
        zmqlib.setsockopt(push.sock, ZMQ_SNDHWM, &hwm, sizeof(hwm));
    }
    return C_OK;
}

void expiryPushInit(void) {
    push.live = 1;
    push.ack_at_start = server.zmq_ack;
    spoolOpen();
    const char *err = NULL;
    if (rebindEndpoints(&err) != C_OK) {
        serverLog(LL_WARNING, "Fatal: 0MQ expiry push: %s", err);
        exit(1);
    }
    for (int i = 0; i < push.neps; i++)
        serverLog(LL_NOTICE, "0MQ expiry push bound to %s", push.eps[i].resolved);
    resumeSpoolDrain(); /* what the spool kept from the last run goes first */
}

void expiryPushShutdown(void) {
    if (push.sock) {
        if (!server.zmq_ack && backlogWaiting()) drainBacklog(); /* ack mode keeps its own queues */
        unsigned long long lost = 0;
        for (expiryMsg *m = push.head; m; m = m->next)
            if (!spoolKeep(m)) lost++;
        while (push.head) freeHead();
        unsigned long long unacked_lost = expiryAckKeepForRestart();
        if (spoolWaiting())
            serverLog(LL_NOTICE, "0MQ expiry push: %llu messages kept in the spool for the next start", spoolWaiting());
        if (lost) serverLog(LL_WARNING, "0MQ expiry push: %llu backlog messages not delivered at shutdown", lost);
        if (unacked_lost)
            serverLog(LL_WARNING, "0MQ expiry push: %llu unacknowledged messages lost at shutdown", unacked_lost);
        /* Messages 0MQ already accepted get a moment to reach connected consumers. */
        int linger = 1000;
        zmqlib.setsockopt(push.sock, ZMQ_LINGER, &linger, sizeof(linger));
        closeSocket();
    }
    spoolClose();
    push.live = 0;
}

/* ---------------------------------------------------------------------- INFO */

sds expiryPushInfo(sds s) {
    /* Keys expire on masters only (expiryAllowed()): a replica pushes nothing
     * until it is promoted. */
    s = sdscatprintf(s, "# Expiry_push\r\nexpiry_push_enabled:%d\r\nexpiry_push_role:%s\r\nexpiry_push_endpoints:",
                     push.sock != NULL, server.masterhost_set ? "replica" : "master");
    for (int i = 0; i < push.neps; i++) s = sdscatprintf(s, "%s%s", i ? "," : "", push.eps[i].configured);
    s = sdscat(s, "\r\nexpiry_push_bound_endpoints:");
    for (int i = 0; i < push.neps; i++) s = sdscatprintf(s, "%s%s", i ? "," : "", push.eps[i].resolved);
    /* In ack mode the backlog is every message held: sent or not, it waits for its acknowledgement. */
    s = sdscatprintf(s,
                     "\r\nexpiry_push_ack:%d\r\nexpiry_push_messages_sent:%llu\r\nexpiry_push_bytes_sent:%llu\r\n"
                     "expiry_push_backlog_messages:%llu\r\nexpiry_push_backlog_bytes:%llu\r\n"
                     "expiry_push_dropped:%llu\r\nexpiry_push_last_error:%s\r\n",
                     server.zmq_ack, push.sent_msgs + expiryAckSentMessages(), push.sent_bytes + expiryAckSentBytes(),
                     push.backlog_msgs + expiryAckHeldMessages(), push.backlog_bytes + expiryAckHeldBytes(),
                     push.dropped, push.last_error[0] ? push.last_error : "none");
    if (server.zmq_ack) s = expiryAckInfo(s);
    return spoolInfo(s);
}

void expiryPushKeyspaceSubscriber(const keyspaceEvent *ev) {
    /* Raised only when expiryAllowed(): on a master. */
    /* Expiry raises it with the value (keyRemoving), still in the db. */
    if (ev->class != NOTIFY_EXPIRED || !ev->key || !ev->val) return;
    /* In a cluster a master pushes the keys of its own slots: a stale copy
     * left in a slot another master serves expires here unpushed. */
    if (server.cluster_enabled) {
        char tmp[LONG_STR_SIZE];
        size_t klen;
        const char *k = stringObjectView(ev->key, tmp, &klen);
        if (clusterSlotServedElsewhere((int)keyHashSlot(k, klen))) return;
    }
    expiryPushKey(ev->db->id, ev->key, ev->val);
}

int expiryPushApplyHook(const char **err) { return expiryPushApplyConfig(err) == C_OK; }

/* zmq-expiry-ack: read at start-up only (the sockets' pattern and what is
 * held differ between the modes). CONFIG SET of the value in use is accepted,
 * as CONFIG SET of every directive CONFIG GET lists must be (Redis's own
 * introspection test sets them all); another value is refused. */
int expiryPushApplyAckMode(const char **err) {
    if (!push.live || server.zmq_ack == push.ack_at_start) return 1;
    *err = "zmq-expiry-ack takes effect at start-up only (restart the server with it)";
    return 0;
}
