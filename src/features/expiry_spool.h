/* expiry_spool: the 0MQ expiry push's log on disk (EXPIRY_0MQ.md, "The
 * spool"). Messages that wait — refused by 0MQ in plain mode, not yet
 * acknowledged in ack mode — are appended to segment files under the
 * server's dir, so that an expired key's value outlives a consumer's absence
 * past the memory backlog, a restart and a crash. The push modules keep the
 * oldest waiting messages in memory as well; what does not fit stays on disk
 * only and is read back, in sequence order, as memory frees. Every message
 * has a sequence number, increasing across restarts. */
#ifndef FEATURES_EXPIRY_SPOOL_H
#define FEATURES_EXPIRY_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "core/sds.h"
#include "server/hooks.h"

/* A message's first frame: db and wire type, two 16-bit numbers (the layout
 * the push modules and the spool share). */
#define EXPIRY_HEADER_FRAME_LEN 4

/* A message waiting in memory (plain mode's backlog, ack mode's queues):
 * its three frames back to back. */
typedef struct expiryMsg {
    struct expiryMsg *next;
    uint64_t seq;
    long long expired_ms;
    int spooled; /* the spool holds it too */
    size_t keyframe_len, valframe_len;
    unsigned char data[]; /* header frame, key frame, value frame */
} expiryMsg;
/* A copy of the frames, zmalloc'ed (zfree it); next is NULL. */
expiryMsg *expiryMsgNew(uint64_t seq, long long expired_ms, int spooled, const unsigned char *frames,
                        size_t keyframe_len, size_t valframe_len);
static inline size_t expiryMsgBytes(const expiryMsg *m) {
    return EXPIRY_HEADER_FRAME_LEN + m->keyframe_len + m->valframe_len;
}

/* The next sequence number: above every one in the spool or given before. */
uint64_t spoolNextSeq(void);

/* What spoolAppend did with a message. */
#define SPOOL_NOT_WRITTEN 0 /* spool off, full or failing: the caller keeps it in memory or drops it */
#define SPOOL_WITH_MEMORY 1 /* on disk, and the caller keeps its copy in memory */
#define SPOOL_DISK_ONLY 2   /* on disk only: spoolReadNext gives it back later */
/* A message (its three frames back to back). room: the caller's memory has
 * room for it; once one message went to disk only, every later one does too
 * until spoolReadNext has caught up, so that the order is kept. */
int spoolAppend(uint64_t seq, long long expired_ms, const unsigned char *frames, size_t keyframe_len,
                size_t valframe_len, int room);
/* At shutdown: m, held in memory, is in the spool for the next start — it
 * was already, or is appended now (late, out of the file's order: its
 * number keeps its place). 0 when the spool cannot take it. */
int spoolKeep(const expiryMsg *m);
/* A message is delivered (plain mode: 0MQ took it) or acknowledged: it will
 * not be replayed. A number the spool does not hold is ignored. */
void spoolDone(uint64_t seq);

/* Messages in the spool not delivered or acknowledged yet. */
unsigned long long spoolWaiting(void);
/* Messages wait on disk that are not in memory. */
int spoolHasDiskOnly(void);
typedef struct spoolMsg {
    uint64_t seq;
    long long expired_ms;
    size_t keyframe_len, valframe_len;
    const unsigned char *frames; /* valid until the next call */
} spoolMsg;
/* The next disk-only message, oldest first: 1, or 0 when none is left. */
int spoolReadNext(spoolMsg *m);

/* Memory let go of every waiting message (endpoints removed): they are all
 * disk-only again, read back from the oldest. */
void spoolRewind(void);

/* The start-up scan of one segment's bytes: fn gets each intact record (its
 * type, its body: at least the 8 bytes of a number, checked against its
 * CRC); a damaged stretch is reported with path and offset and skipped to
 * the next intact record. Returns where the last intact record ends (a
 * cut-off tail after it is cut). The fuzz target drives it too. */
typedef void spoolRecordFn(int type, const unsigned char *body, size_t len, void *ctx);
size_t spoolScanRecords(const unsigned char *p, size_t size, const char *path, spoolRecordFn *fn, void *ctx);

/* At start-up (before the data is loaded): reads the segments left by the
 * last run, reporting damaged records with file and offset, and queues what
 * was neither delivered nor acknowledged for replay. */
void spoolOpen(void);
/* Writes the records of this turn; fsyncs with appendfsync always. Runs
 * before the AOF is written, so a key's expiry DEL never reaches the AOF
 * before its message reaches the spool. */
void spoolBeforeSleep(void);
/* Once a second's fsync (appendfsync everysec), retry after a write error,
 * removal of segments whose messages are all done. */
void spoolCron(void);
/* A shutdown check (refuses nothing): the turn's records are written before
 * the final AOF flush and save. */
int spoolOnShutdown(int flags);
/* At shutdown: everything written and fsynced. */
void spoolClose(void);
/* Replication (EXPIRY_0MQ.md, "Failover"). A replica of ours announced that
 * it holds the log (REPLCONF capa expiry-log): from now on every record
 * written also goes into the replication stream. */
void spoolReplicasWantLog(void);
/* Such a replica starts a full sync from a snapshot taken at that stream
 * offset: every waiting message goes into the stream again after it, a step
 * at a time as the replicas' output buffers drain (replicas take a message
 * they hold only once). */
void spoolRepublish(long long offset);
/* A call observer: on a replica, the records its master sends are applied
 * to its own spool, held there until it is promoted. */
void spoolMasterRecordObserver(const callInfo *ci);

/* The spool's INFO fields. */
sds spoolInfo(sds s);

#endif
