/* expiry_spool: the 0MQ expiry push's log on disk (see expiry_spool.h; the
 * file format and the guarantees are in EXPIRY_0MQ.md, "The spool").
 *
 * Files: expiry-spool/<20-digit number>.seg under the server's dir, written
 * in order, one at a time, each up to SEGMENT_BYTES. A segment is a run of
 * records, each a 24-byte header (magic, type, body length, CRC-32C of the
 * header's first 16 bytes and the body; CRC-64 in the first format, which is
 * still read) and a body:
 *   MESSAGE     seq u64, expired_ms i64, key frame length u32, value frame
 *               length u32, then the three frames back to back;
 *   DONE_BELOW  seq u64: every message numbered below is done;
 *   DONE_ONE    seq u64: that message is done (done out of order, above the
 *               oldest waiting one: acknowledgements of several consumers).
 * Integers are in the machine's byte order: a spool is read back by the
 * server that wrote it.
 *
 * In memory the spool keeps the sequence numbers of the messages it holds
 * that are not done yet (`waiting`, a ring in sequence order, a done flag in
 * the top bit), so that a done message is found by binary search and the
 * oldest waiting one is the ring's front. A segment is removed once every
 * message in it is done. Records are gathered in a buffer and written before
 * the event loop sleeps (and before the AOF is written in the same turn);
 * after a failed write the buffer is kept and written again by the cron, and
 * meanwhile nothing new is appended (the caller keeps new messages in memory,
 * or drops and counts them). */
#include "features/expiry_spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/crc32c.h"
#include "core/crc64.h"
#include "core/fileutil.h"
#include "core/zmalloc.h"
#include "server/hooks.h"
#include "repl/repl.h"
#include "server/propagate.h"
#include "server/server.h"

#define SPOOL_DIRNAME "expiry-spool"
#define SEGMENT_BYTES (64LL * 1024 * 1024)
#define WRITE_BUFFER_FLUSH_BYTES (4 * 1024 * 1024) /* written at once past this, not at the turn's end */
#define ERROR_LOG_PERIOD_MS 10000
#define RETIRED_MAX 16

/* "EXS2" read as little-endian bytes: a CRC-32C in bytes 16-19. The first
 * format, "EXS1", had a CRC-64 in bytes 16-23; its segments are still read. */
#define REC_MAGIC 0x32535845u
#define REC_MAGIC_V1 0x31535845u
#define REC_MESSAGE 1
#define REC_DONE_BELOW 2
#define REC_DONE_ONE 3
#define REC_HEADER_BYTES 24
#define MSG_BODY_FIXED 24 /* seq, expired_ms, two lengths */
#define DONE_FLAG (1ULL << 63)

/* Reads segment files: one open file and a read-ahead buffer, ra_len bytes
 * of segment ra_id from ra_off. The replay of disk-only messages has one,
 * the full sync's tail (below) another. */
typedef struct segReader {
    int fd;
    unsigned long long fd_id;
    unsigned char *ra;
    unsigned long long ra_id;
    long long ra_off;
    size_t ra_len;
} segReader;

typedef struct segment {
    unsigned long long id;
    long long size;   /* bytes, the unwritten buffer included for the one written */
    uint64_t max_seq; /* of its messages (0: none) */
} segment;

static struct {
    int opened;
    sds dirpath; /* absolute: CONFIG SET dir later does not move the spool */
    segment *segs;
    int nsegs;
    int wfd;          /* segs[nsegs-1] open for appending, or -1 */
    long long flushed; /* bytes of that segment on disk */
    sds wbuf;
    unsigned long long next_id;
    unsigned long long bytes;
    /* waiting messages: ring of sequence numbers, in chunks (see ringAt) */
    uint64_t **ring_chunks;
    size_t ring_nchunks, ring_chunks_cap; /* chunks in use, pointers allocated */
    size_t ring_head, ring_len, ring_done; /* ring_head: the front's offset in chunk 0; ring_done:
                                            * flagged, not yet at the front */
    uint64_t *done_above; /* done since the last write, above the oldest waiting */
    size_t ndone_above, done_above_cap;
    uint64_t below_written; /* the last DONE_BELOW written */
    /* disk-only messages and where the next one is read */
    unsigned long long disk_only;
    int rseg; /* index in segs, or -1 */
    long long roff;
    segReader rd;
    unsigned char *rbuf;
    size_t rbuf_cap;
    uint64_t ro_seq; /* disk-only messages are the waiting ones numbered from here */
    /* sequence numbers */
    uint64_t next_seq, max_seq_seen;
    /* replication: records go into the stream once a replica of ours asked */
    int repl_wanted;
    unsigned long long repl_applied;
    /* errors, fsync */
    int write_errno;
    long long last_error_log_ms;
    char last_error[256];
    pthread_mutex_t lock;
    int fsync_pending, fsync_thread_started;
    /* Segments closed with their fsync left to the fsync thread (at ~100 MB/s
     * of spooling a 64 MB segment is closed more often than once a second). */
    int retired[RETIRED_MAX];
    int nretired;
    int dir_fsync_pending; /* a segment was created: the directory wants an fsync */
    /* statistics */
    unsigned long long written, replayed, not_written, damaged, recovered;
} sp = {.wfd = -1, .rseg = -1, .rd = {.fd = -1}, .lock = PTHREAD_MUTEX_INITIALIZER};

/* A full sync's tail (EXPIRY_0MQ.md, "Failover"): the snapshot does not
 * carry the log, so after it the waiting messages go to the replicas again,
 * read back from the segments a step at a time as the replicas' output
 * buffers drain (never all at once: a tail of GBs would pass
 * client-output-buffer-limit replica, or stall the loop). The cursor walks
 * the files in their order up to the end being written, so it carries the
 * records written meanwhile too (done marks included) and hands over to the
 * live stream where it catches up. */
static struct {
    int active;
    int begin_pending;    /* the stream has not had this tail's begin mark yet */
    long long sync_offset; /* the stream offset the snapshot was taken at (-1: none yet) */
    unsigned long long seg_id; /* the cursor: segment id and offset in it */
    long long off;
    segReader rd;
    unsigned char *buf;
    size_t buf_cap;
    long long timer; /* the step's timer, or -1 */
    unsigned long long records, bytes; /* sent of this tail, for its log line */
    long long started_ms;
    /* On a replica: the offset of the tail it takes (from a begin mark that
     * named its own full sync), -1 when it takes the live records. */
    long long taking;
} tail = {.sync_offset = -1, .rd = {.fd = -1}, .timer = -1, .taking = -1};

static int spoolWanted(void) { return server.zmq_spool_max_bytes > 0; }

expiryMsg *expiryMsgNew(uint64_t seq, long long expired_ms, int spooled, const unsigned char *frames,
                        size_t keyframe_len, size_t valframe_len) {
    size_t total = EXPIRY_HEADER_FRAME_LEN + keyframe_len + valframe_len;
    expiryMsg *m = zmalloc(sizeof(*m) + total);
    m->next = NULL;
    m->seq = seq;
    m->expired_ms = expired_ms;
    m->spooled = spooled;
    m->keyframe_len = keyframe_len;
    m->valframe_len = valframe_len;
    memcpy(m->data, frames, total);
    return m;
}

/* ------------------------------------------------------------ sequence */

/* The first number of a process is the clock's milliseconds times 2^20,
 * above any an earlier process could have reached (a million messages per
 * millisecond of its life); the spool's own highest number is above too. */
uint64_t spoolNextSeq(void) {
    if (!sp.next_seq) sp.next_seq = ((uint64_t)mstime() << 20) + 1;
    if (sp.next_seq <= sp.max_seq_seen) sp.next_seq = sp.max_seq_seen + 1;
    return sp.next_seq++;
}

/* -------------------------------------------------------- waiting ring */

/* The ring is a queue of RING_CHUNK-entry chunks (64 KB), not one array:
 * doubling an 8 MB array (1M messages waiting) stopped the server 16 ms
 * here, most of it first touches of the new pages, in the middle of an
 * expiry slice. A chunk is added as the back fills and freed once the front
 * has left it; only the small array of chunk pointers is ever moved. */
#define RING_CHUNK_SHIFT 13
#define RING_CHUNK ((size_t)1 << RING_CHUNK_SHIFT)

static uint64_t *ringAt(size_t i) {
    size_t p = sp.ring_head + i;
    return &sp.ring_chunks[p >> RING_CHUNK_SHIFT][p & (RING_CHUNK - 1)];
}

static void ringPush(uint64_t seq) {
    if (sp.ring_head + sp.ring_len == sp.ring_nchunks * RING_CHUNK) {
        if (sp.ring_nchunks == sp.ring_chunks_cap) {
            sp.ring_chunks_cap = sp.ring_chunks_cap ? sp.ring_chunks_cap * 2 : 4;
            sp.ring_chunks = zrealloc(sp.ring_chunks, sizeof(*sp.ring_chunks) * sp.ring_chunks_cap);
        }
        sp.ring_chunks[sp.ring_nchunks++] = zmalloc(sizeof(uint64_t) * RING_CHUNK);
    }
    /* In order but for messages appended late (kept in memory while the
     * spool could not be written, spooled at shutdown): moved to their place. */
    size_t i = sp.ring_len++;
    while (i && (*ringAt(i - 1) & ~DONE_FLAG) > seq) {
        *ringAt(i) = *ringAt(i - 1);
        i--;
    }
    *ringAt(i) = seq;
}

/* The oldest waiting number, or UINT64_MAX when none waits. */
static uint64_t ringFront(void) { return sp.ring_len ? *ringAt(0) & ~DONE_FLAG : UINT64_MAX; }

/* Position of seq in the ring, or -1. */
static long long ringFind(uint64_t seq) {
    size_t lo = 0, hi = sp.ring_len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v = *ringAt(mid) & ~DONE_FLAG;
        if (v == seq) return (long long)mid;
        if (v < seq) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

static int waiting(uint64_t seq) {
    long long at = ringFind(seq);
    return at != -1 && !(*ringAt((size_t)at) & DONE_FLAG);
}

/* Frees the chunks wholly before the front, and past the back but one. */
static void ringTrim(void) {
    size_t before = sp.ring_head >> RING_CHUNK_SHIFT;
    if (before) {
        for (size_t c = 0; c < before; c++) zfree(sp.ring_chunks[c]);
        memmove(sp.ring_chunks, sp.ring_chunks + before, sizeof(*sp.ring_chunks) * (sp.ring_nchunks - before));
        sp.ring_nchunks -= before;
        sp.ring_head &= RING_CHUNK - 1;
    }
    size_t used = (sp.ring_head + sp.ring_len + RING_CHUNK - 1) >> RING_CHUNK_SHIFT;
    while (sp.ring_nchunks > used + 1) zfree(sp.ring_chunks[--sp.ring_nchunks]);
}

static void ringPopDone(void) {
    while (sp.ring_len && (*ringAt(0) & DONE_FLAG)) {
        sp.ring_len--;
        sp.ring_done--;
        if (++sp.ring_head == RING_CHUNK) ringTrim();
    }
    if (!sp.ring_len) {
        sp.ring_head = 0; /* empty: start the one chunk kept over */
        ringTrim();
    }
}

static int ringMarkDone(uint64_t seq) {
    /* Delivered in order, the message done is the front: no search. */
    long long at = sp.ring_len && (*ringAt(0) & ~DONE_FLAG) == seq ? 0 : ringFind(seq);
    if (at == -1 || (*ringAt((size_t)at) & DONE_FLAG)) return 0;
    *ringAt((size_t)at) |= DONE_FLAG;
    sp.ring_done++;
    ringPopDone();
    return 1;
}

/* --------------------------------------------------------------- errors */

static void spoolError(const char *what, const char *path, int errnum) {
    snprintf(sp.last_error, sizeof(sp.last_error), "%s %s: %s", what, path ? path : "", strerror(errnum));
    long long now = mstime();
    if (now - sp.last_error_log_ms < ERROR_LOG_PERIOD_MS) return;
    sp.last_error_log_ms = now;
    serverLog(LL_WARNING,
              "0MQ expiry push: spool: %s; messages that do not fit in memory are dropped until it can be written "
              "(%llu so far)",
              sp.last_error, sp.not_written);
}

/* ------------------------------------------------------------ segments */

static sds segmentPath(unsigned long long id) { return sdscatprintf(sdsempty(), "%s/%020llu.seg", sp.dirpath, id); }

static int ensureDir(void) {
    if (mkdir(sp.dirpath, 0755) == -1 && errno != EEXIST) {
        spoolError("cannot create", sp.dirpath, errno);
        return -1;
    }
    return 0;
}

/* The lock is held only to take a duplicate of the fd: an fsync can take
 * tens of ms, and the event loop takes the lock to hand work to the thread. */
static void fsyncWriteFd(void) {
    pthread_mutex_lock(&sp.lock);
    int fd = sp.wfd != -1 ? dup(sp.wfd) : -1;
    sp.fsync_pending = 0;
    pthread_mutex_unlock(&sp.lock);
    if (fd == -1) return;
    /* spoolError's state belongs to the event loop: the thread only logs. */
    if (fdatasync(fd) == -1) serverLog(LL_WARNING, "0MQ expiry push: cannot fsync a spool segment: %s", strerror(errno));
    close(fd);
}

static int flushBuffer(void);

/* Closes the segment written (kept open when its buffer cannot be written).
 * fsynced first unless appendfsync is no; with everysec the fsync thread
 * does it, off the event loop, unless one it was given is still pending. */
static void closeWriteSegment(int sync_now) {
    if (sp.wfd == -1 || flushBuffer() == -1) return;
    pthread_mutex_lock(&sp.lock);
    if (server.aof_fsync != AOF_FSYNC_NO || sync_now) {
        if (!sync_now && server.aof_fsync == AOF_FSYNC_EVERYSEC && sp.nretired < RETIRED_MAX) {
            sp.retired[sp.nretired++] = sp.wfd;
            sp.wfd = -1;
        } else {
            fdatasync(sp.wfd);
        }
    }
    if (sp.wfd != -1) close(sp.wfd);
    sp.wfd = -1;
    sp.fsync_pending = 0;
    pthread_mutex_unlock(&sp.lock);
}

/* A new segment to append to; the one before is closed. */
static int startSegment(void) {
    closeWriteSegment(0);
    if (sp.wfd != -1) return -1; /* its buffer could not be written */
    if (ensureDir() == -1) return -1;
    sds path = segmentPath(sp.next_id);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd == -1) {
        spoolError("cannot create", path, errno);
        sdsfree(path);
        return -1;
    }
    /* The new name is made durable with the records (appendfsync always:
     * now; everysec: by the fsync thread, off the event loop). */
    if (server.aof_fsync == AOF_FSYNC_ALWAYS) {
        fsyncFileDir(path);
    } else if (server.aof_fsync == AOF_FSYNC_EVERYSEC) {
        pthread_mutex_lock(&sp.lock);
        sp.dir_fsync_pending = 1;
        pthread_mutex_unlock(&sp.lock);
    }
    sdsfree(path);
    sp.segs = zrealloc(sp.segs, sizeof(*sp.segs) * (sp.nsegs + 1));
    sp.segs[sp.nsegs++] = (segment){.id = sp.next_id++};
    sp.wfd = fd;
    sp.flushed = 0;
    if (!sp.wbuf) sp.wbuf = sdsempty();
    return 0;
}

static void closeReadFd(segReader *rd) {
    if (rd->fd != -1) close(rd->fd);
    rd->fd = -1;
    rd->ra_len = 0;
}

/* Removes the oldest segments while every message in them is done (the one
 * written included, once nothing waits at all). */
static void removeDoneSegments(void) {
    uint64_t front = ringFront();
    while (sp.nsegs) {
        segment *s = &sp.segs[0];
        int written_one = sp.nsegs == 1 && sp.wfd != -1;
        if (written_one ? (sp.ring_len || sdslen(sp.wbuf)) : (s->max_seq && s->max_seq >= front)) break;
        if (sp.rseg == 0) break; /* not read to its end yet */
        if (written_one) {
            pthread_mutex_lock(&sp.lock);
            close(sp.wfd);
            sp.wfd = -1;
            pthread_mutex_unlock(&sp.lock);
        }
        if (sp.rd.fd != -1 && sp.rd.fd_id == s->id) closeReadFd(&sp.rd);
        if (tail.rd.fd != -1 && tail.rd.fd_id == s->id) closeReadFd(&tail.rd);
        sds path = segmentPath(s->id);
        if (unlink(path) == -1 && errno != ENOENT) serverLog(LL_WARNING, "0MQ expiry push: cannot remove %s: %s", path, strerror(errno));
        sdsfree(path);
        sp.bytes -= (unsigned long long)s->size;
        memmove(sp.segs, sp.segs + 1, sizeof(*sp.segs) * (size_t)(--sp.nsegs));
        if (sp.rseg > 0) sp.rseg--;
    }
}

/* --------------------------------------------------------------- writing */

static void replicateRecord(const unsigned char *rec, size_t len);
static void stopReading(void);
static int recordIntact(const unsigned char *p, size_t left);

/* A record's header for a body of a then b. */
static void recordHeader(unsigned char h[REC_HEADER_BYTES], int type, const void *a, size_t alen, const void *b,
                         size_t blen) {
    uint32_t magic = REC_MAGIC, len = (uint32_t)(alen + blen);
    memset(h, 0, REC_HEADER_BYTES);
    memcpy(h, &magic, 4);
    h[4] = (unsigned char)type;
    memcpy(h + 8, &len, 4);
    uint32_t crc = crc32c(0, h, 16);
    crc = crc32c(crc, a, alen);
    if (blen) crc = crc32c(crc, b, blen);
    memcpy(h + 16, &crc, 4);
}

static int recordMagic(uint32_t magic) { return magic == REC_MAGIC || magic == REC_MAGIC_V1; }

static void putRecord(int type, const void *a, size_t alen, const void *b, size_t blen) {
    unsigned char h[REC_HEADER_BYTES];
    recordHeader(h, type, a, alen, b, blen);
    size_t at = sdslen(sp.wbuf);
    sp.wbuf = sdscatlen(sp.wbuf, h, sizeof(h));
    sp.wbuf = sdscatlen(sp.wbuf, a, alen);
    if (blen) sp.wbuf = sdscatlen(sp.wbuf, b, blen);
    long long n = (long long)(sizeof(h) + alen + blen);
    if (sp.repl_wanted && !server.masterhost_set) replicateRecord((unsigned char *)sp.wbuf + at, (size_t)n);
    sp.segs[sp.nsegs - 1].size += n;
    sp.bytes += (unsigned long long)n;
}

/* The done marks gathered since the last write, as records. */
static uint64_t doneBelowMark(void) { return sp.ring_len ? ringFront() : sp.max_seq_seen + 1; }

static void putDoneMarks(void) {
    /* Nothing waiting: the segments go (removeDoneSegments), no mark needed. */
    if (sp.wfd == -1 && (!sp.ring_len || sp.write_errno || startSegment() == -1)) {
        sp.ndone_above = 0;
        return;
    }
    uint64_t front = doneBelowMark();
    if (front != sp.below_written) {
        putRecord(REC_DONE_BELOW, &front, sizeof(front), NULL, 0);
        sp.below_written = front;
    }
    for (size_t i = 0; i < sp.ndone_above; i++)
        if (sp.done_above[i] > front) putRecord(REC_DONE_ONE, &sp.done_above[i], sizeof(uint64_t), NULL, 0);
    sp.ndone_above = 0;
}

/* Writes the buffer. On failure what was written of it is cut off again, the
 * buffer is kept for the cron to retry, and -1 returned. */
static int flushBuffer(void) {
    if (sp.wfd == -1 || !sp.wbuf || !sdslen(sp.wbuf)) return 0;
    size_t len = sdslen(sp.wbuf), done = 0;
    while (done < len) {
        ssize_t n = write(sp.wfd, sp.wbuf + done, len - done);
        if (n <= 0) {
            int err = n == -1 ? errno : ENOSPC;
            if (err == EINTR) continue;
            if (done && ftruncate(sp.wfd, sp.flushed) == -1) {
                /* The file keeps a partial record at its end; a restart reports and cuts it. */
            }
            sds path = segmentPath(sp.segs[sp.nsegs - 1].id);
            spoolError("cannot write", path, err);
            sdsfree(path);
            sp.write_errno = err;
            return -1;
        }
        done += (size_t)n;
    }
    sp.flushed += (long long)len;
    if (sp.write_errno) {
        serverLog(LL_WARNING, "0MQ expiry push: the spool can be written again");
        sp.write_errno = 0;
        sp.last_error[0] = '\0';
    }
    if (sdsalloc(sp.wbuf) > WRITE_BUFFER_FLUSH_BYTES * 2) {
        sdsfree(sp.wbuf);
        sp.wbuf = sdsempty();
    } else {
        sdsclear(sp.wbuf);
    }
    return 0;
}

int spoolAppend(uint64_t seq, long long expired_ms, const unsigned char *frames, size_t keyframe_len,
                size_t valframe_len, int room) {
    if (!sp.opened || !spoolWanted()) return SPOOL_NOT_WRITTEN;
    if (sp.write_errno) {
        sp.not_written++;
        return SPOOL_NOT_WRITTEN;
    }
    size_t frames_len = EXPIRY_HEADER_FRAME_LEN + keyframe_len + valframe_len;
    size_t rec = REC_HEADER_BYTES + MSG_BODY_FIXED + frames_len;
    if (sp.bytes + rec > (unsigned long long)server.zmq_spool_max_bytes) {
        snprintf(sp.last_error, sizeof(sp.last_error), "full (zmq-expiry-spool-max-bytes %lld)", server.zmq_spool_max_bytes);
        sp.not_written++;
        long long now = mstime();
        if (now - sp.last_error_log_ms >= ERROR_LOG_PERIOD_MS) {
            sp.last_error_log_ms = now;
            serverLog(LL_WARNING, "0MQ expiry push: spool %s; messages that do not fit in memory are dropped (%llu so far)",
                      sp.last_error, sp.not_written);
        }
        return SPOOL_NOT_WRITTEN;
    }
    if (sp.wfd == -1 || sp.segs[sp.nsegs - 1].size >= SEGMENT_BYTES) {
        if (startSegment() == -1) {
            sp.not_written++;
            return SPOOL_NOT_WRITTEN;
        }
    }
    long long at = sp.segs[sp.nsegs - 1].size;
    unsigned char body[MSG_BODY_FIXED];
    uint32_t kl = (uint32_t)keyframe_len, vl = (uint32_t)valframe_len;
    memcpy(body, &seq, 8);
    memcpy(body + 8, &expired_ms, 8);
    memcpy(body + 16, &kl, 4);
    memcpy(body + 20, &vl, 4);
    putRecord(REC_MESSAGE, body, sizeof(body), frames, frames_len);
    sp.segs[sp.nsegs - 1].max_seq = seq;
    if (seq > sp.max_seq_seen) sp.max_seq_seen = seq;
    ringPush(seq);
    sp.written++;
    int disk_only = !room || sp.disk_only;
    if (disk_only) {
        if (!sp.disk_only) {
            sp.rseg = sp.nsegs - 1;
            sp.roff = at;
            sp.ro_seq = seq;
        }
        sp.disk_only++;
    }
    if (sdslen(sp.wbuf) > WRITE_BUFFER_FLUSH_BYTES) flushBuffer();
    return disk_only ? SPOOL_DISK_ONLY : SPOOL_WITH_MEMORY;
}

int spoolKeep(const expiryMsg *m) {
    return m->spooled ||
           spoolAppend(m->seq, m->expired_ms, m->data, m->keyframe_len, m->valframe_len, 1) != SPOOL_NOT_WRITTEN;
}

void spoolDone(uint64_t seq) {
    if (!sp.ring_len || seq < ringFront()) return;
    int at_front = seq == ringFront();
    if (!ringMarkDone(seq)) return;
    /* Done while on disk only: a replica told by its master. */
    if (sp.disk_only && seq >= sp.ro_seq && !--sp.disk_only) stopReading();
    if (at_front) return;
    if (sp.ndone_above == sp.done_above_cap) {
        sp.done_above_cap = sp.done_above_cap ? sp.done_above_cap * 2 : 256;
        sp.done_above = zrealloc(sp.done_above, sizeof(*sp.done_above) * sp.done_above_cap);
    }
    sp.done_above[sp.ndone_above++] = seq;
}

/* --------------------------------------------------------------- reading */

static int openReadFd(segReader *rd, unsigned long long id) {
    if (rd->fd != -1 && rd->fd_id == id) return 0;
    closeReadFd(rd);
    sds path = segmentPath(id);
    rd->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (rd->fd == -1) spoolError("cannot open", path, errno);
    sdsfree(path);
    rd->fd_id = id;
    return rd->fd == -1 ? -1 : 0;
}

/* Reads from segment files go through a read-ahead buffer of this size. */
#define READ_AHEAD_BYTES (1024 * 1024)

/* n bytes at off of the file of segment si, through the read-ahead buffer:
 * one pread for many records. */
static int readFile(segReader *rd, int si, long long off, unsigned char *dst, size_t n, long long file_end) {
    if (openReadFd(rd, sp.segs[si].id) == -1) return -1;
    while (n) {
        if (rd->ra_id == sp.segs[si].id && off >= rd->ra_off && off < rd->ra_off + (long long)rd->ra_len) {
            size_t k = (size_t)(rd->ra_off + (long long)rd->ra_len - off);
            if (k > n) k = n;
            memcpy(dst, rd->ra + (off - rd->ra_off), k);
            dst += k, off += (long long)k, n -= k;
            continue;
        }
        if (!rd->ra) rd->ra = zmalloc(READ_AHEAD_BYTES);
        size_t want = READ_AHEAD_BYTES;
        if (off + (long long)want > file_end) want = (size_t)(file_end - off);
        if (n > want) { /* a record larger than the buffer: read directly */
            ssize_t r = pread(rd->fd, dst, n, off);
            return r == (ssize_t)n ? 0 : -1;
        }
        ssize_t r = pread(rd->fd, rd->ra, want, off);
        if (r <= 0) return -1;
        rd->ra_id = sp.segs[si].id;
        rd->ra_off = off;
        rd->ra_len = (size_t)r;
    }
    return 0;
}

/* n bytes of segment index si at off: from its file, or for the segment
 * being written past what is on disk, from the buffer. */
static int readAt(segReader *rd, int si, long long off, unsigned char *dst, size_t n) {
    int written_one = si == sp.nsegs - 1 && sp.wfd != -1;
    long long file_end = written_one ? sp.flushed : sp.segs[si].size;
    size_t from_file = off >= file_end ? 0 : n;
    if (from_file && off + (long long)n > file_end) from_file = (size_t)(file_end - off);
    if (from_file && readFile(rd, si, off, dst, from_file, file_end) == -1) return -1;
    if (from_file < n) {
        long long boff = off + (long long)from_file - sp.flushed;
        memcpy(dst + from_file, sp.wbuf + boff, n - from_file);
    }
    return 0;
}

static void stopReading(void) {
    sp.rseg = -1;
    sp.disk_only = 0;
    closeReadFd(&sp.rd);
}

unsigned long long spoolWaiting(void) { return sp.ring_len - sp.ring_done; }

/* A replica holds its master's log (and its own) until it is promoted. */
int spoolHasDiskOnly(void) { return sp.disk_only != 0 && !server.masterhost_set; }

void spoolRewind(void) {
    if (!sp.nsegs || sp.ring_len == sp.ring_done) return;
    sp.disk_only = sp.ring_len - sp.ring_done;
    sp.rseg = 0;
    sp.roff = 0;
    sp.ro_seq = 0;
}

int spoolReadNext(spoolMsg *m) {
    while (sp.disk_only && sp.rseg != -1) {
        if (sp.roff >= sp.segs[sp.rseg].size) {
            if (sp.rseg == sp.nsegs - 1) break;
            sp.rseg++;
            sp.roff = 0;
            continue;
        }
        unsigned char h[REC_HEADER_BYTES];
        uint32_t magic, len;
        if (sp.roff + REC_HEADER_BYTES > sp.segs[sp.rseg].size || readAt(&sp.rd, sp.rseg, sp.roff, h, sizeof(h)) == -1) goto unreadable;
        memcpy(&magic, h, 4);
        memcpy(&len, h + 8, 4);
        if (!recordMagic(magic) || sp.roff + REC_HEADER_BYTES + (long long)len > sp.segs[sp.rseg].size) goto unreadable;
        if (h[4] != REC_MESSAGE) {
            sp.roff += REC_HEADER_BYTES + len;
            continue;
        }
        if (sp.rbuf_cap < len) {
            zfree(sp.rbuf);
            sp.rbuf = zmalloc(len);
            sp.rbuf_cap = len;
        }
        if (readAt(&sp.rd, sp.rseg, sp.roff + REC_HEADER_BYTES, sp.rbuf, len) == -1) goto unreadable;
        sp.roff += REC_HEADER_BYTES + len;
        uint64_t seq;
        memcpy(&seq, sp.rbuf, 8);
        if (!waiting(seq)) continue;
        uint32_t kl, vl;
        m->seq = seq;
        memcpy(&m->expired_ms, sp.rbuf + 8, 8);
        memcpy(&kl, sp.rbuf + 16, 4);
        memcpy(&vl, sp.rbuf + 20, 4);
        m->keyframe_len = kl;
        m->valframe_len = vl;
        m->frames = sp.rbuf + MSG_BODY_FIXED;
        sp.disk_only--;
        sp.ro_seq = seq + 1;
        sp.replayed++;
        if (!sp.disk_only) stopReading();
        return 1;
    }
    stopReading();
    return 0;
unreadable: {
    /* Checked when the segment was opened, or written by this process: a
     * segment changed under us. What is left of it cannot be trusted. */
    sds path = segmentPath(sp.segs[sp.rseg].id);
    serverLog(LL_WARNING, "0MQ expiry push: spool file %s cannot be read at offset %lld; the rest of it is skipped", path,
              sp.roff);
    sdsfree(path);
    sp.damaged++;
    if (sp.rseg == sp.nsegs - 1) {
        stopReading();
        return 0;
    }
    sp.rseg++;
    sp.roff = 0;
    return spoolReadNext(m);
}
}

/* ------------------------------------------------------------ start-up */

static int recordIntact(const unsigned char *p, size_t left) {
    uint32_t magic, len;
    if (left < REC_HEADER_BYTES) return 0;
    memcpy(&magic, p, 4);
    memcpy(&len, p + 8, 4);
    if (!recordMagic(magic) || len > left - REC_HEADER_BYTES) return 0;
    if (magic == REC_MAGIC_V1) {
        uint64_t want;
        memcpy(&want, p + 16, 8);
        if (crc64(crc64(0, p, 16), p + REC_HEADER_BYTES, len) != want) return 0;
    } else {
        uint32_t want, pad;
        memcpy(&want, p + 16, 4);
        memcpy(&pad, p + 20, 4);
        if (pad || crc32c(crc32c(0, p, 16), p + REC_HEADER_BYTES, len) != want) return 0;
    }
    int type = p[4];
    if (type == REC_MESSAGE) {
        uint32_t kl, vl;
        if (len < MSG_BODY_FIXED) return 0;
        memcpy(&kl, p + REC_HEADER_BYTES + 16, 4);
        memcpy(&vl, p + REC_HEADER_BYTES + 20, 4);
        return (size_t)len == MSG_BODY_FIXED + EXPIRY_HEADER_FRAME_LEN + (size_t)kl + (size_t)vl;
    }
    return (type == REC_DONE_BELOW || type == REC_DONE_ONE) && len == 8;
}

size_t spoolScanRecords(const unsigned char *p, size_t size, const char *path, spoolRecordFn *fn, void *ctx) {
    size_t off = 0, good_end = 0;
    while (off < size) {
        if (!recordIntact(p + off, size - off)) {
            size_t next = off + 1;
            while (next < size && !recordIntact(p + next, size - next)) next++;
            sp.damaged++;
            if (next == size) {
                serverLog(LL_WARNING,
                          "0MQ expiry push: spool file %s ends with a damaged or cut-off record at offset %zu (%zu bytes): "
                          "cut off",
                          path, off, size - off);
            } else {
                serverLog(LL_WARNING,
                          "0MQ expiry push: spool file %s is damaged at offset %zu: %zu bytes skipped, the records after "
                          "them are kept",
                          path, off, next - off);
            }
            off = next;
            continue;
        }
        uint32_t len;
        memcpy(&len, p + off + 8, 4);
        fn(p[off + 4], p + off + REC_HEADER_BYTES, len, ctx);
        off += REC_HEADER_BYTES + len;
        good_end = off;
    }
    return good_end;
}

/* A record found at start-up, applied to the spool's state. */
static void scanRecord(int type, const unsigned char *body, size_t len, void *ctx) {
    segment *seg = ctx;
    (void)len; /* recordIntact checked it: every body holds a number first */
    uint64_t seq;
    memcpy(&seq, body, 8);
    if (type == REC_MESSAGE) {
        if (!waiting(seq)) ringPush(seq);
        if (seq > seg->max_seq) seg->max_seq = seq;
        if (seq > sp.max_seq_seen) sp.max_seq_seen = seq;
    } else if (type == REC_DONE_BELOW) {
        /* Of the messages before it: one spooled late (at a shutdown) with
         * an older number is after it in the file, and still waits. */
        while (sp.ring_len && ringFront() < seq) ringMarkDone(ringFront());
    } else {
        ringMarkDone(seq);
    }
}

/* Reads one segment's records (spoolScanRecords); a cut-off end is cut. */
static void scanSegment(const char *path, segment *seg) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat sb;
    if (fd == -1 || fstat(fd, &sb) == -1) {
        serverLog(LL_WARNING, "0MQ expiry push: cannot read spool file %s: %s", path, strerror(errno));
        if (fd != -1) close(fd);
        sp.damaged++;
        return;
    }
    size_t size = (size_t)sb.st_size;
    unsigned char *p = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (p == MAP_FAILED) {
        serverLog(LL_WARNING, "0MQ expiry push: cannot map spool file %s: %s", path, strerror(errno));
        close(fd);
        sp.damaged++;
        return;
    }
    size_t good_end = p ? spoolScanRecords(p, size, path, scanRecord, seg) : 0;
    if (p) munmap(p, size);
    if (good_end < size && ftruncate(fd, (off_t)good_end) == 0) size = good_end;
    close(fd);
    seg->size = (long long)size;
}

static int cmpId(const void *a, const void *b) {
    unsigned long long x = ((const segment *)a)->id, y = ((const segment *)b)->id;
    return x < y ? -1 : x > y;
}

void spoolOpen(void) {
    if (sp.opened) return;
    sp.opened = 1;
    char cwd[PATH_MAX];
    sp.dirpath = sdscatprintf(sdsempty(), "%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : ".", SPOOL_DIRNAME);
    DIR *d = opendir(sp.dirpath);
    if (!d) return; /* none yet: created with the first message */
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        unsigned long long id = strtoull(de->d_name, &end, 10);
        if (end == de->d_name || strcmp(end, ".seg")) continue;
        sp.segs = zrealloc(sp.segs, sizeof(*sp.segs) * (sp.nsegs + 1));
        sp.segs[sp.nsegs++] = (segment){.id = id};
    }
    closedir(d);
    qsort(sp.segs, (size_t)sp.nsegs, sizeof(*sp.segs), cmpId);
    for (int i = 0; i < sp.nsegs; i++) {
        sds path = segmentPath(sp.segs[i].id);
        scanSegment(path, &sp.segs[i]);
        sdsfree(path);
        sp.bytes += (unsigned long long)sp.segs[i].size;
        sp.next_id = sp.segs[i].id + 1;
    }
    /* What is left undone waits: the ring keeps those alone. */
    size_t kept = 0;
    for (size_t i = 0; i < sp.ring_len; i++)
        if (!(*ringAt(i) & DONE_FLAG)) *ringAt(kept++) = *ringAt(i);
    sp.ring_len = kept;
    sp.ring_done = 0;
    ringTrim();
    sp.below_written = doneBelowMark();
    sp.recovered = sp.ring_len;
    if (sp.ring_len) {
        sp.disk_only = sp.ring_len;
        sp.rseg = 0;
        sp.roff = 0;
        sp.ro_seq = 0;
        serverLog(LL_NOTICE, "0MQ expiry push: %llu messages wait in the spool (%s, %d segments, %llu bytes)",
                  sp.disk_only, sp.dirpath, sp.nsegs, sp.bytes);
    }
    removeDoneSegments();
}

/* ----------------------------------------------------------- replication */

/* Records go to replicas as the argument of a PING, which a Redis 7.0
 * replica runs without effect and ours recognize by its prefix: a record as
 * it is written (live), a record of a full sync's tail, and the tail's begin
 * mark (8 bytes: the offset of the snapshot it follows) and end mark. */
#define REPL_PREFIX "\0expiry-spool-record\0"
#define REPL_TAIL_PREFIX "\0expiry-spool-tail\0"
#define REPL_TAIL_BEGIN "\0expiry-spool-tail-begin\0"
#define REPL_TAIL_END "\0expiry-spool-tail-end\0"
#define PREFIX_LEN(prefix) (sizeof(prefix) - 1)
/* The stream's bytes around a record (SELECT aside): the PING's RESP framing. */
#define REPL_FRAMING_BYTES 48

static void replicatePing(const char *prefix, size_t prefix_len, const void *body, size_t len) {
    static robj *ping;
    if (!ping) ping = createStringObject("PING", 4);
    sds payload = sdsnewlen(prefix, prefix_len);
    payload = sdscatlen(payload, body, len);
    robj *arg = createObject(OBJ_STRING, payload);
    robj *argv[2] = {ping, arg};
    propagateToReplicas(0, argv, 2);
    decrRefCount(arg);
}

/* Where the log stands, as a tail record: what is done below its oldest
 * waiting message (a replica may hold older messages of its own). */
static void tailDoneBelow(void) {
    uint64_t mark = doneBelowMark();
    unsigned char rec[REC_HEADER_BYTES + 8];
    recordHeader(rec, REC_DONE_BELOW, &mark, sizeof(mark), NULL, 0);
    memcpy(rec + REC_HEADER_BYTES, &mark, sizeof(mark));
    replicatePing(REPL_TAIL_PREFIX, PREFIX_LEN(REPL_TAIL_PREFIX), rec, sizeof(rec));
}

/* The begin mark goes out before any record that follows the snapshot (a
 * replica must know it takes the tail before a live record reaches it). */
static void tailBegin(void) {
    tail.begin_pending = 0;
    int64_t off = tail.sync_offset;
    replicatePing(REPL_TAIL_BEGIN, PREFIX_LEN(REPL_TAIL_BEGIN), &off, sizeof(off));
    tailDoneBelow();
}

static void replicateRecord(const unsigned char *rec, size_t len) {
    if (tail.begin_pending) tailBegin();
    replicatePing(REPL_PREFIX, PREFIX_LEN(REPL_PREFIX), rec, len);
}

void spoolReplicasWantLog(void) { sp.repl_wanted = 1; }

static void tailEnd(void) {
    tail.active = 0;
    tail.begin_pending = 0;
    closeReadFd(&tail.rd);
    zfree(tail.buf);
    tail.buf = NULL;
    tail.buf_cap = 0;
}

/* The first segment numbered id or above, or -1. */
static int segmentFrom(unsigned long long id) {
    for (int i = 0; i < sp.nsegs; i++)
        if (sp.segs[i].id >= id) return i;
    return -1;
}

/* The cursor's record at (si, tail.off) into tail.buf: its length, 0 when it
 * cannot be read (then the rest of the segment is skipped: it was checked
 * when opened or written by us, so it changed under us). */
static size_t tailReadRecord(int si) {
    long long size = sp.segs[si].size;
    unsigned char h[REC_HEADER_BYTES];
    uint32_t magic, len;
    if (tail.off + REC_HEADER_BYTES > size || readAt(&tail.rd, si, tail.off, h, sizeof(h)) == -1) return 0;
    memcpy(&magic, h, 4);
    memcpy(&len, h + 8, 4);
    size_t n = REC_HEADER_BYTES + (size_t)len;
    if (!recordMagic(magic) || tail.off + (long long)n > size) return 0;
    if (tail.buf_cap < n) {
        zfree(tail.buf);
        tail.buf_cap = n > 4096 ? n : 4096;
        tail.buf = zmalloc(tail.buf_cap);
    }
    memcpy(tail.buf, h, sizeof(h));
    if (readAt(&tail.rd, si, tail.off + REC_HEADER_BYTES, tail.buf + REC_HEADER_BYTES, len) == -1) return 0;
    return n;
}

/* Sends the next records of the tail while the replicas' output buffers
 * have room, within the turn's budget for background work: the messages
 * still waiting and every done mark, in the files' order. Where the cursor
 * meets the end being written, the tail ends (what is written after goes
 * out live). */
static void tailStep(void) {
    if (!tail.active) return;
    if (server.masterhost_set) { /* this server follows a master now: its replicas resync */
        tailEnd();
        return;
    }
    if (tail.begin_pending) tailBegin();
    long long room = replReplicaOutputRoom();
    monotime deadline = getMonotonicUs() + (monotime)backgroundWorkLeftUs();
    for (int n = 1; room > 0; n++) {
        if (!(n % 64) && getMonotonicUs() >= deadline) return;
        int si = segmentFrom(tail.seg_id);
        if (si == -1) break;
        if (sp.segs[si].id != tail.seg_id) { /* removed, every message in it done */
            tail.seg_id = sp.segs[si].id;
            tail.off = 0;
        }
        if (tail.off >= sp.segs[si].size) {
            if (si == sp.nsegs - 1) break;
            tail.seg_id = sp.segs[si + 1].id;
            tail.off = 0;
            continue;
        }
        size_t len = tailReadRecord(si);
        if (!len) {
            sds path = segmentPath(sp.segs[si].id);
            serverLog(LL_WARNING, "0MQ expiry push: spool file %s cannot be read at offset %lld for a replica's full "
                      "sync; the rest of it is skipped", path, tail.off);
            sdsfree(path);
            tail.off = sp.segs[si].size;
            continue;
        }
        tail.off += (long long)len;
        uint64_t seq;
        memcpy(&seq, tail.buf + REC_HEADER_BYTES, 8);
        if (tail.buf[4] == REC_MESSAGE && !waiting(seq)) continue;
        replicatePing(REPL_TAIL_PREFIX, PREFIX_LEN(REPL_TAIL_PREFIX), tail.buf, len);
        room -= (long long)(len + REPL_FRAMING_BYTES);
        tail.records++;
        tail.bytes += len;
    }
    if (room <= 0) return;
    tailDoneBelow();
    replicatePing(REPL_TAIL_END, PREFIX_LEN(REPL_TAIL_END), NULL, 0);
    serverLog(LL_NOTICE, "0MQ expiry push: the log went to the replicas after their snapshot (%llu records, %llu bytes, "
              "%lld ms)", tail.records, tail.bytes, mstime() - tail.started_ms);
    tailEnd();
}

/* The tail goes on between turns while the replicas drain (their writable
 * events run the before-sleep step too). */
static long long tailTimer(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    tailStep();
    if (tail.active) return 1;
    tail.timer = -1;
    return AE_NOMORE;
}

void spoolRepublish(long long offset) {
    sp.repl_wanted = 1;
    if (!sp.opened || server.masterhost_set || sp.ring_len == sp.ring_done) return;
    /* A replica sharing that snapshot shares its stream, the tail in it. */
    if (offset == tail.sync_offset) return;
    /* The replicas of an earlier snapshot get their mark first; the tail
     * starts again from the oldest segment for them and the new ones. */
    if (tail.begin_pending) tailBegin();
    tail.sync_offset = offset;
    tail.begin_pending = 1;
    tail.active = 1;
    tail.seg_id = 0;
    tail.off = 0;
    tail.records = tail.bytes = 0;
    tail.started_ms = mstime();
    serverLog(LL_NOTICE, "0MQ expiry push: %llu waiting messages go to the replicas after their snapshot, as their "
              "output buffers drain", spoolWaiting());
    if (tail.timer == -1) tail.timer = aeCreateTimeEvent(server.el, 0, tailTimer, NULL);
}

/* A replica: a record from its master goes into its own spool, to be pushed
 * if it is promoted (a message already held is not taken twice). */
static void applyRecord(const unsigned char *p, size_t len) {
    if (!recordIntact(p, len)) return;
    uint32_t n;
    memcpy(&n, p + 8, 4);
    if (REC_HEADER_BYTES + (size_t)n != len) return;
    const unsigned char *body = p + REC_HEADER_BYTES;
    uint64_t seq;
    memcpy(&seq, body, 8);
    sp.repl_applied++;
    if (p[4] == REC_MESSAGE) {
        if (waiting(seq)) return;
        long long expired_ms;
        uint32_t kl, vl;
        memcpy(&expired_ms, body + 8, 8);
        memcpy(&kl, body + 16, 4);
        memcpy(&vl, body + 20, 4);
        /* With the spool off the message is not held: counted, as a full spool counts it. */
        if (spoolAppend(seq, expired_ms, body + MSG_BODY_FIXED, kl, vl, 0) == SPOOL_NOT_WRITTEN && !spoolWanted())
            sp.not_written++;
    } else if (p[4] == REC_DONE_BELOW) {
        while (sp.ring_len && ringFront() < seq) spoolDone(ringFront());
    } else {
        spoolDone(seq);
    }
}

/* A replica of ours takes either its master's live records or, after a
 * full sync whose tail its master announced, the tail's records (the live
 * ones come again in the tail, in the files' order), until the tail ends. */
static int takingTail(void) { return tail.taking != -1 && tail.taking == replSyncedFrom(); }

static int hasPrefix(const unsigned char *p, size_t len, const char *prefix, size_t prefix_len) {
    return len >= prefix_len && !memcmp(p, prefix, prefix_len);
}

void spoolMasterRecordObserver(const callInfo *ci) {
    if (ci->argc != 2 || !(ci->c->flags & CLIENT_MASTER) || strcmp(ci->cmd->fullname, "ping")) return;
    robj *arg = ci->argv[1];
    if (arg->type != OBJ_STRING || !sdsEncodedObject(arg)) return;
    const unsigned char *p = (const unsigned char *)objectPtr(arg);
    size_t len = sdslen(objectPtr(arg));
    if (hasPrefix(p, len, REPL_PREFIX, PREFIX_LEN(REPL_PREFIX))) {
        if (!takingTail()) applyRecord(p + PREFIX_LEN(REPL_PREFIX), len - PREFIX_LEN(REPL_PREFIX));
    } else if (hasPrefix(p, len, REPL_TAIL_PREFIX, PREFIX_LEN(REPL_TAIL_PREFIX))) {
        if (takingTail()) applyRecord(p + PREFIX_LEN(REPL_TAIL_PREFIX), len - PREFIX_LEN(REPL_TAIL_PREFIX));
    } else if (hasPrefix(p, len, REPL_TAIL_BEGIN, PREFIX_LEN(REPL_TAIL_BEGIN)) &&
               len == PREFIX_LEN(REPL_TAIL_BEGIN) + 8) {
        int64_t off;
        memcpy(&off, p + PREFIX_LEN(REPL_TAIL_BEGIN), 8);
        if (off == replSyncedFrom()) tail.taking = off; /* the tail of our own snapshot */
    } else if (hasPrefix(p, len, REPL_TAIL_END, PREFIX_LEN(REPL_TAIL_END))) {
        if (takingTail()) tail.taking = -1;
    }
}

/* ------------------------------------------------------------- periodic */

static void *fsyncThreadMain(void *arg) {
    (void)arg;
    for (;;) {
        sleep(1);
        int pending, dir, retired[RETIRED_MAX], nretired;
        pthread_mutex_lock(&sp.lock);
        pending = sp.fsync_pending;
        nretired = sp.nretired;
        memcpy(retired, sp.retired, sizeof(int) * (size_t)nretired);
        sp.nretired = 0;
        dir = sp.dir_fsync_pending;
        sp.dir_fsync_pending = 0;
        pthread_mutex_unlock(&sp.lock);
        if (dir) fsyncDir(sp.dirpath);
        for (int i = 0; i < nretired; i++) {
            fdatasync(retired[i]);
            close(retired[i]);
        }
        if (pending) fsyncWriteFd();
    }
    return NULL;
}

void spoolBeforeSleep(void) {
    if (!sp.opened) return;
    if (tail.active) tailStep();
    if (sp.ndone_above || doneBelowMark() != sp.below_written) putDoneMarks();
    if (!sp.wbuf || !sdslen(sp.wbuf) || sp.write_errno) return;
    if (flushBuffer() == -1) return;
    if (server.aof_fsync == AOF_FSYNC_ALWAYS) {
        fsyncWriteFd();
    } else if (server.aof_fsync == AOF_FSYNC_EVERYSEC) {
        pthread_mutex_lock(&sp.lock);
        sp.fsync_pending = 1;
        pthread_mutex_unlock(&sp.lock);
        if (!sp.fsync_thread_started) {
            pthread_t t;
            if (pthread_create(&t, NULL, fsyncThreadMain, NULL) == 0) {
                pthread_detach(t);
                sp.fsync_thread_started = 1;
            }
        }
    }
}

void spoolCron(void) {
    if (!sp.opened) return;
    if (sp.write_errno) flushBuffer();
    spoolBeforeSleep();
    removeDoneSegments();
}

int spoolOnShutdown(int flags) {
    (void)flags;
    spoolBeforeSleep();
    return C_OK;
}

void spoolClose(void) {
    if (!sp.opened) return;
    putDoneMarks();
    closeWriteSegment(1);
    closeReadFd(&sp.rd);
    pthread_mutex_lock(&sp.lock);
    for (int i = 0; i < sp.nretired; i++) {
        fdatasync(sp.retired[i]);
        close(sp.retired[i]);
    }
    sp.nretired = 0;
    pthread_mutex_unlock(&sp.lock);
}

sds spoolInfo(sds s) {
    return sdscatprintf(s,
                        "expiry_push_spool_max_bytes:%lld\r\nexpiry_push_spool_bytes:%llu\r\n"
                        "expiry_push_spool_segments:%d\r\nexpiry_push_spool_messages:%llu\r\n"
                        "expiry_push_spool_disk_only_messages:%llu\r\nexpiry_push_spool_written:%llu\r\n"
                        "expiry_push_spool_replayed:%llu\r\nexpiry_push_spool_not_written:%llu\r\n"
                        "expiry_push_spool_recovered:%llu\r\nexpiry_push_spool_damaged:%llu\r\n"
                        "expiry_push_spool_last_error:%s\r\n",
                        server.zmq_spool_max_bytes, sp.bytes, sp.nsegs,
                        spoolWaiting(), sp.disk_only, sp.written, sp.replayed,
                        sp.not_written, sp.recovered, sp.damaged, sp.last_error[0] ? sp.last_error : "none");
}
