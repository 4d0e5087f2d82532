/* expiry_ack: acknowledged delivery of the 0MQ expiry push (see expiry_ack.h;
 * the protocol is in EXPIRY_0MQ.md).
 *
 * The endpoints are bound by a ROUTER socket and each consumer connects a
 * DEALER. A consumer says how many unacknowledged messages it can hold
 * (READY <window>) and acknowledges what it has stored (ACK <seq>: every
 * message that reached it, up to and including that one). The server numbers
 * every message, keeps it until it is acknowledged, and never gives a consumer
 * more than its window: so nothing sits in 0MQ's queues that the server does
 * not hold as well, and a consumer that crashes loses nothing. Its messages
 * are re-sent, before newer ones, when a send to it fails (its connection is
 * gone) or after zmq-expiry-ack-timeout ms without a word from it while it
 * holds some:
 * delivery is at least once, and the sequence number lets a consumer drop
 * what it has already stored.
 *
 * Messages wait in `unsent`, in sequence order, and move to the consumer's
 * `inflight` queue (in the order sent, which TCP keeps) when sent; an ACK
 * frees the front of that queue up to the acknowledged message. Consumers
 * are few: an array searched by routing id. */
#include "features/expiry_ack.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ae.h"
#include "core/clock.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "features/zmqlib.h"
#include "server/server.h"

#define MAX_WINDOW 1000000
#define ROUTING_ID_MAX 255 /* 0MQ's bound on a routing id */

typedef struct msgQueue {
    expiryMsg *head, *tail;
    unsigned long long len;
} msgQueue;

typedef struct consumer {
    unsigned char id[ROUTING_ID_MAX];
    size_t idlen;
    unsigned long window;
    msgQueue inflight;
    long long heard_ms; /* last READY or ACK, or when it was given its first held message */
    int full;           /* 0MQ refused a send to it: skipped until the next dispatch round */
} consumer;

static struct {
    void *sock;
    msgQueue unsent;
    consumer **cons;
    int ncons, next_turn;
    uint64_t last_seq; /* 0 until the first message */
    uint64_t last_acked;
    unsigned long long held, held_bytes, sent, sent_bytes, acked, resent;
} ack;

static void queuePush(msgQueue *q, expiryMsg *m) {
    m->next = NULL;
    if (q->tail) q->tail->next = m;
    else q->head = m;
    q->tail = m;
    q->len++;
}

static expiryMsg *queuePop(msgQueue *q) {
    expiryMsg *m = q->head;
    q->head = m->next;
    if (!q->head) q->tail = NULL;
    q->len--;
    return m;
}

static void freeHeld(expiryMsg *m) {
    ack.held--;
    ack.held_bytes -= expiryMsgBytes(m);
    zfree(m);
}

/* ------------------------------------------------------------- consumers */

static consumer *findConsumer(const unsigned char *id, size_t idlen) {
    for (int i = 0; i < ack.ncons; i++)
        if (ack.cons[i]->idlen == idlen && !memcmp(ack.cons[i]->id, id, idlen)) return ack.cons[i];
    return NULL;
}

static int cmpSeq(const void *a, const void *b) {
    uint64_t x = (*(expiryMsg *const *)a)->seq, y = (*(expiryMsg *const *)b)->seq;
    return x < y ? -1 : x > y;
}

/* c's messages go back to `unsent`, merged in sequence order (its queue is in
 * the order sent, which a re-send may have mixed), to be sent again. */
static void takeBack(consumer *c) {
    unsigned long long n = c->inflight.len;
    if (!n) return;
    expiryMsg **v = zmalloc(sizeof(*v) * n);
    for (unsigned long long i = 0; i < n; i++) v[i] = queuePop(&c->inflight);
    qsort(v, n, sizeof(*v), cmpSeq);
    msgQueue merged = {0};
    expiryMsg *u = ack.unsent.head;
    unsigned long long i = 0;
    while (u || i < n) {
        expiryMsg *m;
        if (u && (i == n || u->seq < v[i]->seq)) {
            m = u;
            u = u->next;
        } else {
            m = v[i++];
        }
        queuePush(&merged, m);
    }
    ack.unsent = merged;
    zfree(v);
}

static void dropConsumer(int at, const char *why) {
    consumer *c = ack.cons[at];
    if (c->inflight.len)
        serverLog(LL_NOTICE, "0MQ expiry push: a consumer %s; its %llu unacknowledged messages will be sent again", why,
                  c->inflight.len);
    ack.resent += c->inflight.len;
    takeBack(c);
    zfree(c);
    ack.cons[at] = ack.cons[--ack.ncons];
}

/* ---------------------------------------------------------------- sending */

/* 1 sent, 0 refused for now (its pipe is full), -1 the consumer is gone. */
static int sendTo(consumer *c, const expiryMsg *m) {
    if (zmqlib.send(ack.sock, c->id, c->idlen, ZMQ_SNDMORE | ZMQ_DONTWAIT) == -1) return errno == EAGAIN ? 0 : -1;
    uint64_t seq = m->seq;
    const unsigned char *key = m->data + EXPIRY_HEADER_FRAME_LEN, *val = key + m->keyframe_len;
    /* After the routing frame 0MQ takes the rest; a failure means the peer's
     * pipe died mid-message and 0MQ dropped what it had of it. */
    if (zmqlib.send(ack.sock, m->data, EXPIRY_HEADER_FRAME_LEN, ZMQ_SNDMORE | ZMQ_DONTWAIT) == -1 ||
        zmqlib.send(ack.sock, key, m->keyframe_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) == -1 ||
        zmqlib.send(ack.sock, val, m->valframe_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) == -1 ||
        zmqlib.send(ack.sock, &seq, sizeof(seq), ZMQ_DONTWAIT) == -1)
        return -1;
    ack.sent++;
    ack.sent_bytes += expiryMsgBytes(m) + sizeof(seq);
    return 1;
}

/* The next consumer with room in its window, in turn; NULL when none. */
static consumer *nextWithRoom(void) {
    for (int i = 0; i < ack.ncons; i++) {
        int at = (ack.next_turn + i) % ack.ncons;
        consumer *c = ack.cons[at];
        if (!c->full && c->inflight.len < c->window) {
            ack.next_turn = at + 1;
            return c;
        }
    }
    return NULL;
}

static expiryMsg *newHeld(uint64_t seq, long long expired_ms, int spooled, const unsigned char *frames,
                       size_t keyframe_len, size_t valframe_len) {
    expiryMsg *m = expiryMsgNew(seq, expired_ms, spooled, frames, keyframe_len, valframe_len);
    ack.held++;
    ack.held_bytes += expiryMsgBytes(m);
    return m;
}

/* Messages waiting in the spool alone come into memory while there is room
 * (one at least, when nothing is held). They are the newest held: the order
 * of `unsent` stays. */
static void refillUnsent(void) {
    spoolMsg sm;
    while (spoolHasDiskOnly() && (!ack.held || ack.held_bytes < (unsigned long long)server.zmq_backlog)) {
        if (!spoolReadNext(&sm)) break;
        queuePush(&ack.unsent, newHeld(sm.seq, sm.expired_ms, 1, sm.frames, sm.keyframe_len, sm.valframe_len));
    }
}

static void dispatch(void) {
    if (!ack.sock) return;
    for (int i = 0; i < ack.ncons; i++) ack.cons[i]->full = 0;
    for (;;) {
        if (!ack.unsent.head) refillUnsent();
        if (!ack.unsent.head) return;
        consumer *c = nextWithRoom();
        if (!c) return;
        int rc = sendTo(c, ack.unsent.head);
        if (rc == 1) {
            if (!c->inflight.len) c->heard_ms = mstime(); /* its time to answer starts now */
            queuePush(&c->inflight, queuePop(&ack.unsent));
        } else if (rc == 0) {
            c->full = 1; /* the cron tries again */
        } else {
            for (int at = 0; at < ack.ncons; at++) {
                if (ack.cons[at] != c) continue;
                dropConsumer(at, "has gone");
                break;
            }
        }
    }
}

/* ------------------------------------------------------- consumers' words */

/* ACK <seq>: c's queue is freed up to and including that message (an
 * unknown number, e.g. of a message sent again elsewhere since, is ignored). */
static void acknowledge(consumer *c, uint64_t seq) {
    expiryMsg *m = c->inflight.head;
    while (m && m->seq != seq) m = m->next;
    if (!m) return;
    for (;;) {
        expiryMsg *done = queuePop(&c->inflight);
        ack.acked++;
        if (done->seq > ack.last_acked) ack.last_acked = done->seq;
        spoolDone(done->seq);
        int last = done == m;
        freeHeld(done);
        if (last) break;
    }
}

static void handleWord(const unsigned char *id, size_t idlen, const char *word) {
    long long n;
    consumer *c = findConsumer(id, idlen);
    if (!strncmp(word, "READY ", 6) && string2ll(word + 6, strlen(word + 6), &n) && n >= 1 && n <= MAX_WINDOW) {
        if (!c) {
            c = zcalloc(sizeof(*c));
            memcpy(c->id, id, idlen);
            c->idlen = idlen;
            ack.cons = zrealloc(ack.cons, sizeof(*ack.cons) * (ack.ncons + 1));
            ack.cons[ack.ncons++] = c;
        }
        /* Said again (consumers repeat it while idle, so that a server that
         * restarted learns of them): a new window, nothing more. A consumer
         * that restarted or reconnected has a new connection, so a new
         * routing id: its old one's messages come back by the timeout. */
        c->window = (unsigned long)n;
        c->heard_ms = mstime();
    } else if (c && !strncmp(word, "ACK ", 4)) {
        unsigned long long seq;
        char *end;
        errno = 0;
        seq = strtoull(word + 4, &end, 10);
        if (errno || end == word + 4 || *end) return;
        c->heard_ms = mstime();
        acknowledge(c, seq);
    }
}

static int moreFrames(void) {
    int more = 0;
    size_t len = sizeof(more);
    return zmqlib.getsockopt(ack.sock, ZMQ_RCVMORE, &more, &len) == 0 && more;
}

/* Reads every message waiting: a routing id, then one frame of words (more
 * frames are read and ignored). */
static void readConsumers(void) {
    unsigned char id[ROUTING_ID_MAX];
    char word[64];
    for (;;) {
        int idlen = zmqlib.recv(ack.sock, id, sizeof(id), ZMQ_DONTWAIT);
        if (idlen == -1) return;
        int len = -1;
        while (moreFrames()) {
            char skip[8];
            int n = len == -1 ? zmqlib.recv(ack.sock, word, sizeof(word) - 1, 0) : zmqlib.recv(ack.sock, skip, sizeof(skip), 0);
            if (len == -1) len = n;
        }
        if (len < 0 || idlen > ROUTING_ID_MAX) continue;
        if (len > (int)sizeof(word) - 1) continue; /* truncated: no word of ours is that long */
        word[len] = '\0';
        handleWord(id, (size_t)idlen, word);
    }
}

/* At most this many rounds of reading and sending in one go; then a timer
 * comes back for the rest (consumers acknowledging as fast as the server
 * sends would keep it here otherwise). */
#define SERVICE_ROUNDS 256
/* While messages wait for room in the consumers' windows, every this many
 * new ones the consumers' ACKs are read (see expiryAckOffer). */
#define READ_EVERY 64

static long long service_timer = -1;
static unsigned offers_since_read; /* new messages that found no room since the last serviceSocket */
static void serviceSocket(void);

static long long serviceTimer(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    service_timer = -1;
    serviceSocket();
    return AE_NOMORE;
}

/* Sends what consumers have room for and reads what they said, until 0MQ
 * has nothing left to read. The socket's fd is edge-triggered and any 0MQ
 * call (a send among them) may consume its edge: only a ZMQ_EVENTS check
 * that finds nothing to read re-arms it, so every path that calls 0MQ ends
 * here. */
static void serviceSocket(void) {
    if (!ack.sock) return;
    offers_since_read = 0;
    for (int round = 0; round < SERVICE_ROUNDS; round++) {
        dispatch();
        int events = 0;
        size_t len = sizeof(events);
        if (zmqlib.getsockopt(ack.sock, ZMQ_EVENTS, &events, &len) == -1 || !(events & ZMQ_POLLIN)) return;
        readConsumers();
    }
    if (service_timer == -1) service_timer = aeCreateTimeEvent(server.el, 0, serviceTimer, NULL);
}

/* ------------------------------------------------------------- interface */

void expiryAckSetSocket(void *sock) {
    if (!sock) {
        while (ack.ncons) dropConsumer(0, "is forgotten with the socket"); /* a new socket knows none of them */
        if (service_timer != -1) aeDeleteTimeEvent(server.el, service_timer);
        service_timer = -1;
    }
    ack.sock = sock;
}

int expiryAckOffer(const unsigned char *frames, size_t keyframe_len, size_t valframe_len) {
    size_t total = EXPIRY_HEADER_FRAME_LEN + keyframe_len + valframe_len;
    int room = ack.held_bytes + total <= (unsigned long long)server.zmq_backlog;
    uint64_t seq = spoolNextSeq();
    long long now = server.mstime; /* the time it expired at; a clock read a message was 2% of a mass expiry */
    /* Written ahead: a message is in the spool before anyone can have it. */
    int where = spoolAppend(seq, now, frames, keyframe_len, valframe_len, room);
    if (where == SPOOL_NOT_WRITTEN && !room) return -1;
    ack.last_seq = seq;
    if (where != SPOOL_DISK_ONLY) queuePush(&ack.unsent, newHeld(seq, now, where == SPOOL_WITH_MEMORY, frames, keyframe_len, valframe_len));
    /* Sent now if there is room; what consumers said meanwhile is read once
     * this turn of the event loop is over, not after every message of a
     * mass expiry (a ZMQ_EVENTS check costs as much as a send) - but every
     * READ_EVERY messages that found no room: in a mass expiry the turn
     * ends only after a slice of expiry, and consumers that acknowledged
     * their window in the first few µs of it waited idle for the rest. */
    dispatch();
    if (ack.unsent.head && ++offers_since_read >= READ_EVERY) serviceSocket();
    else if (ack.sock && service_timer == -1) service_timer = aeCreateTimeEvent(server.el, 0, serviceTimer, NULL);
    return 0;
}

void expiryAckSocketEvent(void) { serviceSocket(); }

void expiryAckCron(void) {
    if (!ack.sock) return;
    long long now = mstime();
    for (int i = 0; i < ack.ncons;) {
        consumer *c = ack.cons[i];
        if (c->inflight.len && now - c->heard_ms > server.zmq_ack_timeout) dropConsumer(i, "did not acknowledge in time");
        else i++;
    }
    serviceSocket();
}

/* Every held message leaves memory; with keep, those the spool does not hold
 * yet are appended to it (spoolKeep). Returns those the spool does not hold. */
static unsigned long long releaseHeld(int keep) {
    unsigned long long lost = 0;
    for (int i = 0; i < ack.ncons; i++) takeBack(ack.cons[i]);
    while (ack.unsent.head) {
        expiryMsg *m = queuePop(&ack.unsent);
        if (keep ? !spoolKeep(m) : !m->spooled) lost++;
        freeHeld(m);
    }
    return lost;
}

unsigned long long expiryAckDiscard(void) { return releaseHeld(0); }
unsigned long long expiryAckKeepForRestart(void) { return releaseHeld(1); }

unsigned long long expiryAckHeldMessages(void) { return ack.held; }
unsigned long long expiryAckHeldBytes(void) { return ack.held_bytes; }
unsigned long long expiryAckSentMessages(void) { return ack.sent; }
unsigned long long expiryAckSentBytes(void) { return ack.sent_bytes; }

sds expiryAckInfo(sds s) {
    long long oldest = -1;
    if (ack.unsent.head) oldest = ack.unsent.head->expired_ms;
    for (int i = 0; i < ack.ncons; i++)
        for (expiryMsg *m = ack.cons[i]->inflight.head; m; m = m->next)
            if (oldest == -1 || m->expired_ms < oldest) oldest = m->expired_ms;
    return sdscatprintf(s,
                        "expiry_push_consumers:%d\r\nexpiry_push_last_seq:%llu\r\nexpiry_push_last_acked_seq:%llu\r\n"
                        "expiry_push_unacked_messages:%llu\r\nexpiry_push_unsent_messages:%llu\r\n"
                        "expiry_push_oldest_unacked_age_ms:%lld\r\nexpiry_push_acked:%llu\r\nexpiry_push_resent:%llu\r\n",
                        ack.ncons, (unsigned long long)ack.last_seq,
                        (unsigned long long)ack.last_acked, ack.held, ack.unsent.len,
                        oldest == -1 ? 0 : mstime() - oldest, ack.acked, ack.resent);
}
