/* master: the master side of replication, as Redis 7.0 does it. It reads the
 * command stream (server/propagate.h) in its wire form and hands it to the
 * circular backlog and to every replica. A replica attaching with SYNC or
 * PSYNC gets a full resync — +FULLRESYNC, an RDB written by a forked child
 * (to disk: a BGSAVE as the user's, persist.c; diskless: our own child
 * writing to a pipe), then the stream it missed meanwhile — or,
 * when its replication ID and offset are still covered by the backlog, a
 * partial one (+CONTINUE and the backlog from its offset). */
#include "repl/internal.h"
#include "repl/repl.h"
#include "server/cmdargs.h"
#include "core/anet.h"
#include "core/numparse.h"
#include "core/randbytes.h"
#include "core/zmalloc.h"
#include "persist/bgchild.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "persist/rdb.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/config.h"
#include "server/hooks.h"
#include "server/propagate.h"
#include "server/reply.h"
#include "server/replbuf.h"
#include "server/tls.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

replIdentity replId;

enum { R_WAIT_BGSAVE_START, R_WAIT_BGSAVE_END, R_SEND_BULK, R_ONLINE };
/* A diskless transfer's pipe: streaming the RDB (the child ends it with the EOF mark), all sent. */
enum { PIPE_STREAMING, PIPE_SENT };

/* What a connection that said REPLCONF or SYNC/PSYNC is to us (client->repl). */
typedef struct replicaLink {
    client *c;
    int state;
    int attached;       /* in the replicas list (SYNC/PSYNC accepted) */
    int pre_psync;      /* attached with SYNC: no +FULLRESYNC, no ACKs expected */
    int diskless;       /* its RDB comes from the child's pipe, through its output buffer */
    int wait_ack;       /* online, but the stream waits for its first ACK (it loads an EOF-marked RDB) */
    int early_ack;      /* it ACKed (so loaded) its diskless RDB before the transfer was seen to end */
    int capa_eof, capa_psync2;
    uint64_t capa_mask; /* ours: the registered capabilities it announced (bit i: replCapabilities[i]) */
    int rdb_exclude;    /* RDB_EXCLUDE_*: REPLCONF rdb-filter-only (redis-cli --functions-rdb) */
    int rdb_only;       /* REPLCONF rdb-only 1 (redis-cli --rdb): the snapshot, no stream */
    int listening_port;
    char announced_ip[NET_IP_STR_LEN];
    size_t chunk_sent;  /* a diskless transfer: bytes of the current pipe chunk written to it */
    time_t last_io;     /* ... and when it last took some (repl-timeout) */
    int rdbfd;
    off_t rdboff, rdbsize;
    sds preamble;       /* "$<size>\r\n" ahead of the file */
    long long initial_offset;
    long long ack_off;
    time_t ack_time;
} replicaLink;

static struct {
    list *replicas;
    list *waiting;          /* clients blocked in WAIT */
    int seldb;              /* the db the stream last selected; -1 forces a SELECT */
    pid_t child;            /* a diskless transfer's child (a disk snapshot is persist.c's BGSAVE) */
    int diskless;           /* a diskless transfer is under way (its child may have exited) */
    int pipefd;
    /* A diskless transfer goes straight to the replicas' sockets, chunk by
     * chunk, never through their output buffers (as Redis 7.0): the next
     * chunk is read once every replica took this one, so a slow replica
     * slows the child instead of piling the RDB up in memory. */
    char chunk[PROTO_IOBUF_LEN * 4];
    size_t chunk_len;
    int pipe_stage;         /* PIPE_* */
    int rdb_for_sync;       /* dbfilename was written for a full sync (rdb-del-sync-files) */
    int child_ok;           /* the diskless child's exit: -1 not yet, 0 failed, 1 ok */
    int child_ending;       /* its pipe reached its end: it is exiting, collected before sleep */
    char eofmark[REPL_ID_LEN + 1];
    time_t wait_since;      /* a replica waits for a diskless transfer since */
    time_t no_replicas_since;
    long long last_ping_cron;
    time_t last_second;
    int get_ack_pending;
} m = {.seldb = -1, .child = -1, .pipefd = -1, .child_ok = -1};

/* The replicas in order: for (replicaLink *r = firstReplica(&li); r; r =
 * nextReplica(&li)). The loop may drop the current replica (its node goes,
 * the walk goes on), as with listNext. */
static replicaLink *nextReplica(listIter *li) {
    listNode *ln = listNext(li);
    return ln ? listNodeValue(ln) : NULL;
}

static replicaLink *firstReplica(listIter *li) {
    listRewind(m.replicas, li);
    return nextReplica(li);
}

static void refreshGoodReplicas(void);
static void resumePipe(void);
static void pipeLostReplica(void);

/* ----------------------------------------------------------- the identity */

void replChangeId(void) { getRandomHex(replId.replid, REPL_ID_LEN); }

void replClearId2(void) {
    memset(replId.replid2, '0', REPL_ID_LEN);
    replId.replid2[REPL_ID_LEN] = '\0';
    replId.second_offset = -1;
}

void replShiftId(void) {
    memcpy(replId.replid2, replId.replid, sizeof(replId.replid));
    /* A replica that applied up to our offset asks for the byte after it. */
    replId.second_offset = replId.offset + 1;
    replChangeId();
}

/* ------------------------------------------------------------- the backlog */

void replEnsureBacklog(void) {
    if (replBufActive()) return;
    /* Nothing is in it yet: the first byte to come is the next offset. */
    replBufCreate(replId.offset + 1);
    replUpdateStreamSubscription();
}

/* Every replica lets go of the buffer first: those still attached are on
 * their way out (a new history), and none may point into freed blocks. */
static void detachReplicasFromBuffer(void) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) replBufUnrefClient(r->c);
}

void replFreeBacklog(void) {
    detachReplicasFromBuffer();
    replBufRelease();
    replUpdateStreamSubscription();
}

/* CONFIG SET repl-backlog-size: at least 16kB (as Redis, which writes the
 * floor back into the config). The buffer is trimmed to the new size bit by
 * bit (here, then as the stream flows and by the cron). */
#define BACKLOG_MIN_SIZE 16384
int replApplyBacklogSize(const char **err) {
    (void)err;
    if (server.repl_backlog_size < BACKLOG_MIN_SIZE) server.repl_backlog_size = BACKLOG_MIN_SIZE;
    replBufTrim(REPLBUF_TRIM_BLOCKS_PER_CALL);
    return 1;
}

/* Whether a replica takes the stream into the shared buffer: from the
 * moment its snapshot is started (the stream after it is what it misses). */
static int feedsFromBuffer(replicaLink *r) {
    return r->state != R_WAIT_BGSAVE_START && !r->rdb_only && !(r->c->flags & CLIENT_CLOSE_ASAP);
}

/* ----------------------------------------------------------- the stream */

static void feedStream(const char *buf, size_t len);

/* Commands going out as their clients sent them, in the selected db, gathered
 * here and fed as one: the feed's per-call work (the buffer, the replicas'
 * scheduling, the trim) is paid once for a pipeline's writes instead of per
 * command. Never more than a reply chunk, so the buffer's blocks are cut as
 * the same bytes fed one by one would cut them; handed on before anything
 * looks at the stream (propagateSetStagedFlush). */
static char staged[PROTO_REPLY_CHUNK_BYTES];
static size_t staged_len;

void replFlushStaged(void) {
    if (!staged_len) return;
    size_t len = staged_len;
    staged_len = 0;
    feedStream(staged, len);
}

static void stageSent(const char *sent, size_t len) {
    if (staged_len + len > sizeof(staged)) {
        replFlushStaged();
        if (len > sizeof(staged)) {
            feedStream(sent, len);
            return;
        }
    }
    memcpy(staged + staged_len, sent, len);
    staged_len += len;
    propagateMarkStaged();
}

void replFeedStream(const char *buf, size_t len) {
    replFlushStaged();
    feedStream(buf, len);
}

static void feedStream(const char *buf, size_t len) {
    long long first = replId.offset + 1;
    replId.offset += len;
    if (!replBufActive()) return;
    listNode *start;
    size_t pos;
    int added = replBufAppend(buf, len, first, &start, &pos);
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (!feedsFromBuffer(r)) continue;
        client *c = r->c;
        /* The first bytes it takes: it holds the buffer from here. */
        if (!c->ref_repl_buf_node) replBufRefClient(c, start, pos);
        /* Held until its RDB is loaded, but counted against
         * client-output-buffer-limit replica all the same (as Redis). */
        if (!(c->flags & (CLIENT_REPL_HOLD | CLIENT_PENDING_WRITE))) clientScheduleWrite(c);
        if (added) checkClientOutputBufferLimits(c);
    }
    /* At every feed, as Redis 7.0: the tail's growth alone may let the
     * first block go. */
    replBufTrim(REPLBUF_TRIM_BLOCKS_PER_CALL);
}

void replStreamSubscriber(int dbid, robj **argv, int argc) {
    /* A replica passes on its master's stream as received (replica.c). */
    if (server.masterhost_set || !replBufActive()) return;
    /* A command going out as its client sent it, in the selected db: its bytes as they are. */
    size_t sentlen;
    const char *sent = dbid == m.seldb ? propagateSentForm(argv, &sentlen) : NULL;
    if (sent) {
        stageSent(sent, sentlen);
        return;
    }
    /* One buffer reused for every command: growing a fresh one append by
     * append cost more than the rest of the feed. */
    static sds out;
    out = catReplayableCommand(out ? out : sdsempty(), &m.seldb, dbid, argv, argc);
    replFeedStream(out, sdslen(out));
    if (sdsalloc(out) > 65536) {
        sdsfree(out);
        out = NULL;
    } else {
        sdsclear(out);
    }
}

/* The stream subscriber is on only while there is somewhere to write: a
 * master with a backlog (a replica passes its master's bytes on itself).
 * Otherwise each write would pay for framing a stream nobody reads. */
void replUpdateStreamSubscription(void) {
    if (!server.masterhost_set && replBufActive()) propagateSubscribe(replStreamSubscriber);
    else propagateUnsubscribe(replStreamSubscriber);
}

void replForceSelect(void) { m.seldb = -1; }

static void feedPing(void) {
    robj *ping = createStringObject("PING", 4);
    replStreamSubscriber(m.seldb, &ping, 1);
    decrRefCount(ping);
}

/* ------------------------------------------------------------- replicas */

static replicaLink *linkOf(client *c) {
    if (!c->repl) {
        replicaLink *r = zcalloc(sizeof(*r));
        r->c = c;
        r->rdbfd = -1;
        c->repl = r;
    }
    return c->repl;
}

/* Replicas in a state (R_*), or all of them with -1. */
static int countReplicas(int state) {
    if (state == -1) return (int)listLength(m.replicas);
    int n = 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) n += r->state == state;
    return n;
}

/* The last replica waiting for a snapshot on disk went: with no save
 * points, nobody needs the file and the BGSAVE child is killed (as Redis). */
static void dropUselessSnapshot(void) {
    if (server.saveparamslen || !persistSaveChildActive() || countReplicas(R_WAIT_BGSAVE_END)) return;
    serverLog(LL_NOTICE, "Background saving for SYNC is not needed anymore, killing the child.");
    persistKillSaveChild();
}

/* The address a replica is known by: the one it announced, else its connection's. */
static void replicaAddr(replicaLink *r, char *ip, size_t len) {
    if (r->announced_ip[0]) {
        snprintf(ip, len, "%s", r->announced_ip);
        return;
    }
    snprintf(ip, len, "%s", r->c->addr);
    char *colon = strrchr(ip, ':');
    if (colon) *colon = '\0';
}

/* How logs name a replica, as Redis: its address and announced port. The
 * address is the socket's peer as it is now: a link already reset has none,
 * and Redis then names the client by its id. */
static void replicaName(replicaLink *r, char *buf, size_t len) {
    char ip[NET_ADDR_STR_LEN];
    if (r->announced_ip[0]) {
        snprintf(ip, sizeof(ip), "%s", r->announced_ip);
    } else if (anetFdToString(r->c->fd, ip, sizeof(ip), 1) == ANET_ERR) {
        snprintf(buf, len, "client id #%llu", (unsigned long long)r->c->id);
        return;
    } else {
        char *colon = strrchr(ip, ':');
        if (colon) *colon = '\0';
    }
    if (!r->listening_port) snprintf(buf, len, "%s:<unknown-replica-port>", ip);
    else if (strchr(ip, ':')) snprintf(buf, len, "[%s]:%d", ip, r->listening_port);
    else snprintf(buf, len, "%s:%d", ip, r->listening_port);
}

static void freeLink(replicaLink *r) {
    if (r->attached) {
        listNode *ln = listSearchKey(m.replicas, r);
        if (ln) listDelNode(m.replicas, ln);
        if (listLength(m.replicas) == 0) m.no_replicas_since = server.unixtime;
        r->attached = 0;
        if (r->state == R_WAIT_BGSAVE_END && !r->diskless) dropUselessSnapshot();
        refreshGoodReplicas();
        if (r->state == R_SEND_BULK && r->diskless) pipeLostReplica();
    }
    if (r->rdbfd != -1) close(r->rdbfd);
    sdsfree(r->preamble);
    r->c->repl = NULL;
    zfree(r);
}

void replClientTeardown(client *c) {
    if (c->flags & CLIENT_MASTER) {
        replicaClientTeardown(c);
        return;
    }
    if (!c->repl) return;
    if ((c->flags & CLIENT_SLAVE) && !(c->flags & CLIENT_MONITOR)) {
        /* As Redis, for every replica that went (timed out, killed, its link cut). */
        char name[NET_ADDR_STR_LEN + 32];
        replicaName(c->repl, name, sizeof(name));
        serverLog(LL_WARNING, "Connection with replica %s lost.", name);
    }
    freeLink(c->repl);
}

/* Writes straight to the socket, ahead of anything queued: the replies that
 * frame the RDB transfer (Redis does the same). */
static int writeDirect(client *c, const char *s, size_t len) {
    return connWrite(c->fd, s, len) == (ssize_t)len ? C_OK : C_ERR;
}

static void sendFullResync(replicaLink *r) {
    r->state = R_WAIT_BGSAVE_END;
    /* What a snapshot does not carry (the expiry push's log) follows it. */
    for (int i = 0; i < replCapabilityCount; i++)
        if ((r->capa_mask & (1ULL << i)) && replCapabilities[i]->full_sync)
            replCapabilities[i]->full_sync(r->initial_offset);
    if (r->pre_psync) return;
    char buf[128];
    int n = snprintf(buf, sizeof(buf), "+FULLRESYNC %s %lld\r\n", replId.replid, r->initial_offset);
    if (writeDirect(r->c, buf, n) != C_OK) freeClientAsync(r->c);
}

/* The filter of the next snapshot: the first waiting replica's. Replicas
 * asking for another one wait for the snapshot after (as Redis). */
static int nextSnapshotExclude(void) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state == R_WAIT_BGSAVE_START) return r->rdb_exclude;
    }
    return 0;
}

/* Diskless when configured (or a filtered snapshot is asked for, which is
 * never written to disk) and every waiting replica reads an EOF-marked transfer. */
static int waitingReplicasTakeDiskless(void) {
    int exclude = nextSnapshotExclude();
    if (!server.repl_diskless_sync && !exclude) return 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state == R_WAIT_BGSAVE_START && r->rdb_exclude == exclude && !r->capa_eof) return 0;
    }
    return 1;
}

/* repl-diskless-sync-max-replicas: that many waiting start the transfer
 * without waiting out the delay. */
static int enoughReplicasWaiting(void) {
    return server.repl_diskless_sync_max_replicas > 0 &&
           countReplicas(R_WAIT_BGSAVE_START) >= server.repl_diskless_sync_max_replicas;
}

static void readRdbPipe(aeEventLoop *el, int fd, void *privdata, int mask);
static void startWaitingSync(void);

/* One child at a time, as Redis: a snapshot for replicas waits while a
 * BGSAVE's or an AOF rewrite's child runs (the cron starts it after). */
static int otherChildActive(void) { return persistSaveChildActive() || aofRewriteInProgress(); }

static void startBgsaveForReplication(void) {
    if (otherChildActive()) return;
    m.wait_since = 0;
    int exclude = nextSnapshotExclude();
    int diskless = waitingReplicasTakeDiskless();
    int fds[2] = {-1, -1};
    if (diskless && pipe(fds) == -1) diskless = 0;
    /* The child ends the snapshot with the mark: a child killed half-way
     * sends none, and its replicas fail the load instead of taking half. */
    if (diskless) getRandomHex(m.eofmark, REPL_ID_LEN);
    serverLog(LL_NOTICE, "Starting BGSAVE for SYNC with target: %s", diskless ? "replicas sockets" : "disk");
    pid_t pid = 0;
    if (!diskless) {
        /* To disk it is a BGSAVE like the user's (Redis 7.0): dump.rdb,
         * lastsave, the write count; persist.c tells us when it is done. */
        if (persistBackgroundSave() != C_OK) pid = -1;
        else m.rdb_for_sync = 1;
    } else if ((pid = bgchildFork(BGCHILD_RDB)) == 0) {
        close(fds[0]);
        int ok = rdbSaveToFd(fds[1], m.eofmark, REPL_ID_LEN, exclude) == C_OK;
        if (ok) bgchildReportCow(); /* INFO rdb_last_cow_size, as a BGSAVE's (Redis 7.0) */
        _exit(ok ? 0 : 1);
    } else {
        close(fds[1]);
        if (pid == -1) {
            serverLog(LL_WARNING, "Can't save in background: fork: %s", strerror(errno));
            close(fds[0]);
        } else {
            anetNonBlock(NULL, fds[0]);
            m.pipefd = fds[0];
            aeCreateFileEvent(server.el, m.pipefd, AE_READABLE, readRdbPipe, NULL);
        }
    }
    /* (persist.c logged a disk snapshot's fork or its failure) */
    if (pid == -1) serverLog(LL_WARNING, "BGSAVE for replication failed");
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state != R_WAIT_BGSAVE_START || r->rdb_exclude != exclude) continue;
        if (pid == -1) {
            addReplyError(r->c, "BGSAVE failed, replication can't continue");
            r->c->flags |= CLIENT_CLOSE_AFTER_REPLY;
            continue;
        }
        r->initial_offset = replId.offset;
        sendFullResync(r);
        if (diskless) {
            r->diskless = 1;
            r->early_ack = 0;
            r->state = R_SEND_BULK;
            r->chunk_sent = 0;
            r->last_io = server.unixtime;
            char pre[64];
            int n = snprintf(pre, sizeof(pre), "$EOF:%s\r\n", m.eofmark);
            if (writeDirect(r->c, pre, n) != C_OK) freeClientAsync(r->c);
        }
    }
    /* What follows the snapshot starts with a SELECT. */
    if (pid != -1) m.seldb = -1;
    if (!diskless || pid == -1) return;
    serverLog(LL_NOTICE, "Background RDB transfer started by pid %d", (int)pid);
    m.child = pid;
    m.diskless = 1;
    m.pipe_stage = PIPE_STREAMING;
    m.chunk_len = 0;
    m.child_ok = -1;
}

static int takesPipe(replicaLink *r) {
    return r->state == R_SEND_BULK && r->diskless && !(r->c->flags & CLIENT_CLOSE_ASAP);
}

static void finishDisklessTransfer(void);

/* Writes what the replica has not taken of the current chunk; 0 once it took it all. */
static int chunkLeft(replicaLink *r) {
    if (r->chunk_sent < m.chunk_len) {
        ssize_t n = connWrite(r->c->fd, m.chunk + r->chunk_sent, m.chunk_len - r->chunk_sent);
        if (n == -1 && errno != EAGAIN && errno != EINTR) {
            serverLog(LL_WARNING, "Diskless rdb transfer, write error sending DB to replica: %s", strerror(errno));
            freeClientAsync(r->c);
            return 0;
        }
        if (n > 0) {
            r->chunk_sent += n;
            r->last_io = server.unixtime;
            server.stat_net_repl_output_bytes += n;
        }
    }
    return r->chunk_sent < m.chunk_len;
}

static void sendChunk(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)mask;
    client *c = privdata;
    if (c->repl && chunkLeft(c->repl)) return;
    aeDeleteFileEvent(server.el, fd, AE_WRITABLE);
    resumePipe();
}

/* Hands the chunk to every replica of the transfer; those whose socket is
 * full get the rest when writable, and the pipe waits for them. */
static void spreadChunk(void) {
    int waiting = 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (!takesPipe(r)) continue;
        r->chunk_sent = 0;
        if (!chunkLeft(r)) continue;
        if (aeCreateFileEvent(server.el, r->c->fd, AE_WRITABLE, sendChunk, r->c) == AE_ERR) freeClientAsync(r->c);
        else waiting = 1;
    }
    if (waiting && m.pipefd != -1) aeDeleteFileEvent(server.el, m.pipefd, AE_READABLE);
    if (!waiting) resumePipe();
}

static void readRdbPipe(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)fd, (void)privdata, (void)mask;
    ssize_t n = read(m.pipefd, m.chunk, sizeof(m.chunk));
    if (n == -1 && (errno == EAGAIN || errno == EINTR)) return;
    if (n > 0) {
        m.chunk_len = n;
        spreadChunk();
        return;
    }
    /* The child closed its end: all it wrote (the mark too, if it
     * finished) went out; the transfer ends once it is collected. */
    int up = 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) up += takesPipe(r);
    serverLog(LL_WARNING, "Diskless rdb transfer, done reading from pipe, %d replicas still up.", up);
    aeDeleteFileEvent(server.el, m.pipefd, AE_READABLE);
    close(m.pipefd);
    m.pipefd = -1;
    m.pipe_stage = PIPE_SENT;
    /* Its replicas go online when it is collected: before the loop sleeps
     * rather than at the next cron, so the stream held for them meanwhile
     * is not a tenth of a second's worth. */
    m.child_ending = 1;
    finishDisklessTransfer();
}

/* A replica of the diskless transfer went: the pipe may have waited for it,
 * and with none left the child's work is for nobody. */
static void pipeLostReplica(void) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li))
        if (takesPipe(r)) {
            resumePipe();
            return;
        }
    if (m.child != -1 && m.pipefd != -1) {
        serverLog(LL_WARNING, "Diskless rdb transfer, last replica dropped, killing fork child.");
        kill(m.child, SIGUSR1);
        aeDeleteFileEvent(server.el, m.pipefd, AE_READABLE);
        close(m.pipefd);
        m.pipefd = -1;
    }
}

/* Every replica took the chunk: the next one, or the end of the transfer. */
static void resumePipe(void) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (takesPipe(r) && r->chunk_sent < m.chunk_len) return;
    }
    if (m.pipe_stage == PIPE_STREAMING && m.pipefd != -1 &&
        aeCreateFileEvent(server.el, m.pipefd, AE_READABLE, readRdbPipe, NULL) == AE_ERR)
        serverLog(LL_WARNING, "Can't watch the diskless transfer's pipe");
}

static void attachReplica(client *c, replicaLink *r) {
    c->flags |= CLIENT_SLAVE;
    r->attached = 1;
    r->ack_time = server.unixtime;
    listAddNodeTail(m.replicas, r);
}

static int tryPartialResync(client *c, replicaLink *r) {
    const char *id = objectPtr(c->argv[1]);
    long long off;
    if (getLongLongFromObject(c->argv[2], &off) != C_OK) return C_ERR;
    char name[NET_ADDR_STR_LEN + 32];
    replicaName(r, name, sizeof(name));
    /* Why not, in Redis's words: a replica that comes back after a cut
     * tells from these whether its history or our backlog was the cause. */
    if (strcasecmp(id, replId.replid) && (strcasecmp(id, replId.replid2) || off > replId.second_offset)) {
        if (!strcmp(id, "?")) {
            serverLog(LL_NOTICE, "Full resync requested by replica %s", name);
            return C_ERR;
        }
        server.stat_sync_partial_err++;
        if (strcasecmp(id, replId.replid) && strcasecmp(id, replId.replid2))
            serverLog(LL_NOTICE, "Partial resynchronization not accepted: Replication ID mismatch (Replica asked "
                      "for '%s', my replication IDs are '%s' and '%s')", id, replId.replid, replId.replid2);
        else
            serverLog(LL_NOTICE, "Partial resynchronization not accepted: Requested offset for second ID was %lld, "
                      "but I can reply up to %lld", off, replId.second_offset);
        return C_ERR;
    }
    long long first = replBufFirstOffset();
    if (!replBufActive() || off < first || off > first + replBufHistlen()) {
        server.stat_sync_partial_err++;
        serverLog(LL_NOTICE, "Unable to partial resync with replica %s for lack of backlog (Replica request was: "
                  "%lld).", name, off);
        if (off > replId.offset)
            serverLog(LL_WARNING, "Warning: replica %s tried to PSYNC with an offset that is greater than the master "
                      "replication offset.", name);
        return C_ERR;
    }
    attachReplica(c, r);
    r->state = R_ONLINE;
    refreshGoodReplicas();
    char buf[128];
    int n = r->capa_psync2 ? snprintf(buf, sizeof(buf), "+CONTINUE %s\r\n", replId.replid)
                           : snprintf(buf, sizeof(buf), "+CONTINUE\r\n");
    if (writeDirect(c, buf, n) != C_OK) {
        freeClientAsync(c);
        return C_OK;
    }
    /* It streams the backlog from its offset on: a reference into the
     * shared buffer, nothing copied. */
    replBufRefClientAt(c, off);
    clientScheduleWrite(c);
    server.stat_sync_partial_ok++;
    serverLog(LL_NOTICE, "Partial resynchronization request from %s accepted. Sending %lld bytes of backlog starting "
              "from offset %lld.", name, first + (long long)replBufHistlen() - off, off);
    return C_OK;
}

/* A BGSAVE to disk runs (the user's, or one for replicas): r shares it when
 * a replica waits for it already — the stream since its fork is kept for
 * that one — and r can read all it was made for (as Redis 7.0: the same
 * filter, at least its capabilities). Else r waits for the next. */
static void attachToRunningBgsave(replicaLink *r) {
    listIter li;
    replicaLink *o;
    for (o = firstReplica(&li); o; o = nextReplica(&li)) {
        /* One taking no stream has none to share with one that does. */
        if (o != r && o->state == R_WAIT_BGSAVE_END && !o->diskless && (!o->rdb_only || r->rdb_only)) break;
    }
    if (!o || (o->capa_eof && !r->capa_eof) || (o->capa_psync2 && !r->capa_psync2) || o->rdb_exclude != r->rdb_exclude) {
        serverLog(LL_NOTICE, "Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC");
        return;
    }
    r->initial_offset = o->initial_offset;
    if (!r->rdb_only) replBufCopyRef(r->c, o->c);
    sendFullResync(r);
    serverLog(LL_NOTICE, "Waiting for end of BGSAVE for SYNC");
}

/* SYNC, and PSYNC <replid> <offset> [FAILOVER]. */
void syncCommand(client *c) {
    if (c->flags & CLIENT_SLAVE) return;
    if (c->argc > 3 && !strcasecmp(objectPtr(c->argv[3]), "failover")) {
        /* Our master hands its role over (failover.c on its side): we
         * become a master whose history continues the one it asks for. */
        if (strcasecmp(objectPtr(c->argv[1]), replId.replid)) {
            addReplyError(c, "PSYNC FAILOVER replid must match my replid.");
            return;
        }
        replicaUnsetMaster();
        sds ci = catClientInfoString(sdsempty(), c);
        serverLog(LL_NOTICE, "MASTER MODE enabled (failover request from '%s')", ci);
        sdsfree(ci);
    }
    if (failoverState() != FAILOVER_NONE) {
        addReplyError(c, "-NOMASTERLINK Can't SYNC while failing over");
        return;
    }
    if (server.masterhost_set && !replicaLinkEstablished()) {
        addReplyError(c, "-NOMASTERLINK Can't SYNC while not connected with my master");
        return;
    }
    if (clientHasPendingReplies(c)) {
        addReplyError(c, "SYNC and PSYNC are invalid with pending output");
        return;
    }
    replicaLink *r = linkOf(c);
    char name[NET_ADDR_STR_LEN + 32];
    replicaName(r, name, sizeof(name));
    serverLog(LL_NOTICE, "Replica %s asks for synchronization", name);
    int first = listLength(m.replicas) == 0;
    if (!strcasecmp(objectPtr(c->argv[0]), "psync")) {
        long long offset;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &offset, NULL) != C_OK) {
            serverLog(LL_WARNING, "Replica %s asks for synchronization but with a wrong offset", name);
            return;
        }
        if (tryPartialResync(c, r) == C_OK) return;
    } else {
        r->pre_psync = 1;
    }
    server.stat_sync_full++;
    attachReplica(c, r);
    r->state = R_WAIT_BGSAVE_START;
    c->flags |= CLIENT_REPL_HOLD;
    if (first && !replBufActive()) {
        /* A new history starts with the first replica (as Redis): with no
         * backlog no PSYNC could continue the old one (tryPartialResync said why). */
        if (!server.masterhost_set) {
            replChangeId();
            replClearId2();
        }
        replEnsureBacklog();
        serverLog(LL_NOTICE, "Replication backlog created, my new replication IDs are '%s' and '%s'", replId.replid,
                  replId.replid2);
    }
    if (persistSaveChildActive()) {
        attachToRunningBgsave(r);
        return;
    }
    if (m.child != -1 || m.diskless) {
        serverLog(LL_NOTICE, "Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC");
        return;
    }
    if (server.repl_diskless_sync && server.repl_diskless_sync_delay && waitingReplicasTakeDiskless() &&
        !enoughReplicasWaiting()) {
        /* Others may come within the delay and share the transfer (the cron starts it). */
        if (!m.wait_since) m.wait_since = server.unixtime;
        serverLog(LL_NOTICE, "Delay next BGSAVE for diskless SYNC");
        return;
    }
    if (otherChildActive()) {
        serverLog(LL_NOTICE, "No BGSAVE in progress, but another BG operation is active. BGSAVE for replication delayed");
        return;
    }
    startBgsaveForReplication();
}

static void replicaOnline(replicaLink *r) {
    r->state = R_ONLINE;
    r->ack_time = server.unixtime;
    refreshGoodReplicas();
    if (r->wait_ack) return;
    r->c->flags &= ~CLIENT_REPL_HOLD;
    if (clientHasPendingReplies(r->c)) clientScheduleWrite(r->c);
    char name[NET_ADDR_STR_LEN + 32];
    replicaName(r, name, sizeof(name));
    serverLog(LL_NOTICE, "Synchronization with replica %s succeeded", name);
}

static void sendBulkToReplica(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)mask;
    client *c = privdata; /* the event loop keeps one clientData per fd: the client's */
    replicaLink *r = c->repl;
    if (r->preamble) {
        ssize_t n = connWrite(fd, r->preamble, sdslen(r->preamble));
        if (n == -1) {
            if (errno != EAGAIN) freeClient(r->c);
            return;
        }
        sdsrange(r->preamble, n, -1);
        if (sdslen(r->preamble)) return;
        sdsfree(r->preamble);
        r->preamble = NULL;
    }
    char buf[PROTO_IOBUF_LEN];
    ssize_t nr = pread(r->rdbfd, buf, sizeof(buf), r->rdboff);
    if (nr <= 0 && r->rdboff < r->rdbsize) {
        serverLog(LL_WARNING, "Read error sending DB to replica: %s", nr ? strerror(errno) : "unexpected end of file");
        freeClient(r->c);
        return;
    }
    ssize_t nw = nr > 0 ? connWrite(fd, buf, nr) : 0;
    if (nw == -1) {
        if (errno != EAGAIN) freeClient(r->c);
        return;
    }
    r->rdboff += nw;
    server.stat_net_repl_output_bytes += nw;
    if (r->rdboff < r->rdbsize) return;
    close(r->rdbfd);
    r->rdbfd = -1;
    aeDeleteFileEvent(server.el, fd, AE_WRITABLE);
    replicaOnline(r);
}

/* The BGSAVE to disk ended (persist.c): its replicas get the file, or are
 * dropped (a failed or killed child). */
static void diskSnapshotDone(int ok) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state != R_WAIT_BGSAVE_END || r->diskless) continue;
        struct stat st;
        if (!ok || (r->rdbfd = open(server.dbfilename, O_RDONLY)) == -1 || fstat(r->rdbfd, &st) == -1) {
            serverLog(LL_WARNING, "SYNC failed. BGSAVE child returned an error");
            freeClientAsync(r->c);
            continue;
        }
        r->rdbsize = st.st_size;
        r->rdboff = 0;
        r->preamble = sdscatprintf(sdsempty(), "$%lld\r\n", (long long)st.st_size);
        r->state = R_SEND_BULK;
        aeDeleteFileEvent(server.el, r->c->fd, AE_WRITABLE);
        if (aeCreateFileEvent(server.el, r->c->fd, AE_WRITABLE, sendBulkToReplica, r->c) == AE_ERR)
            freeClientAsync(r->c);
    }
    /* Those that came meanwhile need their own; not after a kill (a
     * FLUSHALL, a shutdown): the cron starts it if still wanted. */
    if (ok) startWaitingSync();
}

/* Replicas that came while the snapshot was made for others need their own. */
static void startWaitingSync(void) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state == R_WAIT_BGSAVE_START && !(r->c->flags & (CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP))) {
            startBgsaveForReplication();
            break;
        }
    }
}

/* Once the child exited and the whole RDB and its mark were sent. */
static void finishDisklessTransfer(void) {
    if (!m.diskless || m.child_ok == -1 || (m.child_ok && m.pipe_stage != PIPE_SENT)) return;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state != R_SEND_BULK || !r->diskless) continue;
        if (!m.child_ok) {
            freeClientAsync(r->c);
            continue;
        }
        /* Bytes after the mark would be read as part of the RDB: as Redis,
         * the stream follows the ACK the replica sends once loaded. */
        char name[NET_ADDR_STR_LEN + 32];
        replicaName(r, name, sizeof(name));
        serverLog(LL_NOTICE, "Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF ACK "
                  "from slave to enable streaming", name);
        r->wait_ack = !r->early_ack;
        replicaOnline(r);
    }
    if (m.pipefd != -1) { /* a failed child: what is left in the pipe is not needed */
        aeDeleteFileEvent(server.el, m.pipefd, AE_READABLE);
        close(m.pipefd);
        m.pipefd = -1;
    }
    m.diskless = 0;
    m.child_ok = -1;
    m.pipe_stage = PIPE_STREAMING;
    startWaitingSync();
}

/* The child is collected as soon as it exits, killed or not. A diskless
 * transfer that ends well goes on until the pipe is read to the end (and
 * counts as running until then, as in Redis, whose child waits for the
 * parent); one whose child failed or was killed ends now, its replicas
 * dropped. */
static void checkChild(void) {
    if (m.child == -1) {
        m.child_ending = 0;
        return;
    }
    int status;
    pid_t pid = waitpid(m.child, &status, WNOHANG);
    if (pid == 0) return;
    int ok = pid == m.child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    bgchildCollect(m.child);
    m.child = -1;
    m.child_ending = 0;
    if (ok) serverLog(LL_NOTICE, "Background RDB transfer terminated with success");
    else if (pid == -1 || !WIFSIGNALED(status)) serverLog(LL_WARNING, "Background transfer error");
    else serverLog(LL_WARNING, "Background transfer terminated by signal %d", WTERMSIG(status));
    /* The pipe may still hold the end of the RDB: the transfer ends when all of it is sent. */
    m.child_ok = ok;
    finishDisklessTransfer();
}

void replDisconnectReplicas(void) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        freeClientAsync(r->c);
    }
}

int replCountAcked(long long offset) {
    int n = 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state == R_ONLINE && r->ack_off >= offset) n++;
    }
    return n;
}

void replRequestAcks(void) {
    if (!replBufActive() || server.masterhost_set) return;
    robj *argv[3] = {createStringObject("REPLCONF", 8), createStringObject("GETACK", 6), createStringObject("*", 1)};
    replStreamSubscriber(m.seldb, argv, 3);
    for (int j = 0; j < 3; j++) decrRefCount(argv[j]);
}

/* Replicas acknowledging within min-replicas-max-lag, for min-replicas-to-write.
 * Counted when one comes online, acknowledges or goes, and each second (as
 * Redis): a write right after a replica attached is accepted. */
static void refreshGoodReplicas(void) {
    int good = 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state == R_ONLINE && !(r->c->flags & CLIENT_CLOSE_ASAP) &&
            server.unixtime - r->ack_time <= server.repl_min_slaves_max_lag)
            good++;
    }
    server.repl_good_slaves_count = good;
}

/* rdb-del-sync-files: once no replica waits for a snapshot or takes one,
 * the file written for them goes (a server persisting nothing keeps no
 * copy of its data on disk), as Redis 7.0. */
static void removeSyncRdbIfUnneeded(void) {
    if (!server.rdb_del_sync_files) m.rdb_for_sync = 0; /* a later CONFIG SET yes starts clean */
    if (!m.rdb_for_sync || !persistDeleteSyncFiles()) return;
    if (countReplicas(R_WAIT_BGSAVE_START) || countReplicas(R_WAIT_BGSAVE_END) || countReplicas(R_SEND_BULK)) return;
    struct stat st;
    if (lstat(server.dbfilename, &st) == -1) return;
    m.rdb_for_sync = 0;
    serverLog(LL_NOTICE, "Removing the RDB file used to feed replicas in a persistence-less instance");
    unlink(server.dbfilename);
}

/* Once a second: keepalives, pings, timeouts, the backlog's life and min-replicas. */
void replMasterCron(void) {
    checkChild();
    /* Replicas that waited for another child (or for ours, busy for others):
     * their snapshot starts as soon as no child runs. */
    if (m.child == -1 && !m.diskless && !m.wait_since) startWaitingSync();
    if (server.unixtime == m.last_second) return;
    m.last_second = server.unixtime;
    if (m.wait_since && m.child == -1 && !m.diskless && server.unixtime - m.wait_since >= server.repl_diskless_sync_delay) {
        m.wait_since = 0;
        startBgsaveForReplication();
    }
    long long ticks = ++m.last_ping_cron;
    /* Not while a failover waits for a replica to reach our offset: the PING would move it. */
    if (!server.masterhost_set && listLength(m.replicas) && ticks % server.repl_ping_replica_period == 0 &&
        failoverState() == FAILOVER_NONE)
        feedPing();
    listIter li;
    char name[NET_ADDR_STR_LEN + 32];
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state == R_SEND_BULK && r->diskless && !(r->c->flags & CLIENT_CLOSE_ASAP) &&
            server.unixtime - r->last_io > server.repl_timeout) {
            replicaName(r, name, sizeof(name));
            serverLog(LL_WARNING, "Disconnecting timedout replica (full sync): %s", name);
            freeClientAsync(r->c);
            continue;
        }
        if (r->state == R_WAIT_BGSAVE_START || r->state == R_WAIT_BGSAVE_END) {
            /* A newline keeps the replica's read timeout from firing while it waits. */
            if (connWrite(r->c->fd, "\n", 1) == -1) { /* a dead link shows on the next read */
            }
            continue;
        }
        if (r->state != R_ONLINE || r->pre_psync) continue;
        /* ACKs, or the newlines a replica sends while it loads our snapshot;
         * not what we write (a cut link takes writes until its buffers fill). */
        time_t heard = r->ack_time > r->c->lastread ? r->ack_time : r->c->lastread;
        if (server.unixtime - heard > server.repl_timeout) {
            replicaName(r, name, sizeof(name));
            serverLog(LL_WARNING, "Disconnecting timedout replica (streaming sync): %s", name);
            freeClientAsync(r->c);
        }
    }
    refreshGoodReplicas();
    removeSyncRdbIfUnneeded();
    if (!server.masterhost_set && replBufActive() && !listLength(m.replicas) && server.repl_backlog_ttl &&
        server.unixtime - m.no_replicas_since > server.repl_backlog_ttl) {
        /* A replica coming back later cannot continue a history nobody kept. */
        replChangeId();
        replClearId2();
        replFreeBacklog();
        serverLog(LL_NOTICE, "Replication backlog freed after %d seconds without connected replicas.",
                  server.repl_backlog_ttl);
    }
}

static void serveWaits(void);

/* ------------------------------------------------------------- REPLCONF */

void replconfCommand(client *c) {
    if ((c->argc % 2) == 0) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    for (int j = 1; j < c->argc; j += 2) {
        const char *opt = objectPtr(c->argv[j]);
        robj *val = c->argv[j + 1];
        if (!strcasecmp(opt, "listening-port")) {
            long long port;
            if (getLongLongFromObjectOrReply(c, val, &port, NULL) != C_OK) return;
            linkOf(c)->listening_port = (int)port;
        } else if (!strcasecmp(opt, "ip-address")) {
            sds ip = objectPtr(val);
            if (sdslen(ip) >= NET_IP_STR_LEN) {
                addReplyErrorFormat(c, "REPLCONF ip-address provided by replica instance is too long: %zd bytes",
                                    sdslen(ip));
                return;
            }
            memcpy(linkOf(c)->announced_ip, ip, sdslen(ip) + 1);
        } else if (!strcasecmp(opt, "capa")) {
            if (!strcasecmp(objectPtr(val), "eof")) linkOf(c)->capa_eof = 1;
            else if (!strcasecmp(objectPtr(val), "psync2")) linkOf(c)->capa_psync2 = 1;
            else
                for (int i = 0; i < replCapabilityCount; i++)
                    if (!strcasecmp(objectPtr(val), replCapabilities[i]->name)) {
                        linkOf(c)->capa_mask |= 1ULL << i;
                        if (replCapabilities[i]->announced) replCapabilities[i]->announced();
                    }
        } else if (!strcasecmp(opt, "ack")) {
            /* Sent by a replica; never answered. */
            long long off;
            if (!(c->flags & CLIENT_SLAVE) || !c->repl) return;
            if (getLongLongFromObject(val, &off) != C_OK) return;
            replicaLink *r = c->repl;
            if (off > r->ack_off) r->ack_off = off;
            r->ack_time = server.unixtime;
            refreshGoodReplicas();
            if (r->state == R_SEND_BULK && r->diskless) {
                /* Loaded before the child was seen to exit (that waits for
                 * a check): look now, as Redis does, and remember the ACK
                 * so that the stream need not wait for the next one. */
                r->early_ack = 1;
                checkChild();
            }
            if (r->wait_ack) {
                r->wait_ack = 0;
                replicaOnline(r);
            }
            if (listLength(m.waiting)) serveWaits();
            return;
        } else if (!strcasecmp(opt, "getack")) {
            if (c->flags & CLIENT_MASTER) replicaAnswerGetack();
            return;
        } else if (!strcasecmp(opt, "rdb-filter-only")) {
            /* What the snapshot includes: "" nothing, "functions" the libraries. */
            int count;
            sds *filters = sdssplitargs(objectPtr(val), &count);
            if (!filters) {
                addReplyError(c, "Missing rdb-filter-only values");
                return;
            }
            int exclude = RDB_EXCLUDE_DATA | RDB_EXCLUDE_FUNCTIONS;
            for (int k = 0; k < count; k++) {
                if (!strcasecmp(filters[k], "functions")) {
                    exclude &= ~RDB_EXCLUDE_FUNCTIONS;
                } else {
                    addReplyErrorFormat(c, "Unsupported rdb-filter-only option: %s", filters[k]);
                    sdsfreesplitres(filters, count);
                    return;
                }
            }
            sdsfreesplitres(filters, count);
            linkOf(c)->rdb_exclude = exclude;
        } else if (!strcasecmp(opt, "rdb-only")) {
            /* A snapshot-only reader (redis-cli --rdb): it takes no stream,
             * so it holds nothing of the replication buffer. */
            long rdb_only;
            if (getRangeLongFromObjectOrReply(c, val, 0, 1, &rdb_only, NULL) != C_OK) return;
            linkOf(c)->rdb_only = (int)rdb_only;
        } else {
            addReplyErrorFormat(c, "Unrecognized REPLCONF option: %s", opt);
            return;
        }
    }
    addReply(c, shared.ok);
}

/* -------------------------------------------------------------------- WAIT */

/* The offset a blocked WAIT waits for rides in its blocking state. */
static long long waitOffset(client *c) { return (long long)(intptr_t)c->bpop.privdata; }

static void waitUnblocked(client *c, int reply) {
    listNode *ln = listSearchKey(m.waiting, c);
    if (ln) listDelNode(m.waiting, ln);
    if (reply) addReplyLongLong(c, replCountAcked(waitOffset(c)));
    c->bpop.privdata = NULL;
}

/* WAIT numreplicas timeout: how many replicas acknowledged every write made
 * so far, once enough did or the timeout ends. */
void waitCommand(client *c) {
    if (server.masterhost_set) {
        addReplyError(c, "WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a "
                         "replica is configured to be writable (which is not the default) writes to replicas are "
                         "just local and are not propagated.");
        return;
    }
    long long numreplicas, timeout;
    if (getLongLongFromObjectOrReply(c, c->argv[1], &numreplicas, NULL) != C_OK) return;
    if (getTimeoutFromObjectOrReply(c, c->argv[2], &timeout, UNIT_MILLISECONDS) != C_OK) return;
    long long acked = replCountAcked(replId.offset);
    if (acked >= numreplicas || (c->flags & CLIENT_DENY_BLOCKING)) {
        addReplyLongLong(c, acked);
        return;
    }
    blockForKeys(c, BLOCKED_WAIT, NULL, 0, timeout);
    c->bpop.privdata = (void *)(intptr_t)replId.offset;
    c->bpop.unblockfn = waitUnblocked;
    listAddNodeTail(m.waiting, c);
    m.get_ack_pending = 1;
}

/* After an ACK: the WAITs now satisfied answer. */
static void serveWaits(void) {
    listIter li;
    listNode *ln;
    listRewind(m.waiting, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        long long numreplicas = 0;
        getLongLongFromObject(c->argv[1], &numreplicas);
        if (replCountAcked(waitOffset(c)) >= numreplicas) unblockClient(c, 1);
    }
}

/* Before sleeping: WAITs blocked in this turn ask the replicas for an ACK,
 * once; then the replica side's reconnect and a failover's next step. */
void replBeforeSleep(void) {
    if (m.child_ending) checkChild();
    if (m.get_ack_pending) {
        m.get_ack_pending = 0;
        replRequestAcks();
    }
    replicaBeforeSleep();
    failoverBeforeSleep();
}

/* ---------------------------------------------------------------- INFO, ROLE */

unsigned long replReplicaCount(void) { return listLength(m.replicas); }

#define OUTPUT_ROOM_UNLIMITED (64LL * 1024 * 1024)

long long replReplicaOutputRoom(void) {
    const clientBufferLimitsConfig *l = &server.client_obuf_limits[CLIENT_TYPE_REPLICA];
    unsigned long long limit = l->hard_limit_bytes;
    if (l->soft_limit_bytes && (!limit || l->soft_limit_bytes < limit)) limit = l->soft_limit_bytes;
    long long room = limit ? (long long)(limit / 2) : OUTPUT_ROOM_UNLIMITED, most = 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (!feedsFromBuffer(r) || !r->c->ref_repl_buf_node) continue;
        long long pending = (long long)replBufClientMemory(r->c);
        if (pending > most) most = pending;
    }
    return room > most ? room - most : 0;
}

int replFindReplica(const char *host, int port, int *online, long long *ack_off) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        char ip[NET_ADDR_STR_LEN];
        replicaAddr(r, ip, sizeof(ip));
        if (strcasecmp(ip, host) || r->listening_port != port) continue;
        if (online) *online = r->state == R_ONLINE;
        if (ack_off) *ack_off = r->ack_off;
        return 1;
    }
    return 0;
}

int replCaughtUpReplica(char *ip, size_t iplen, int *port) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state != R_ONLINE || r->ack_off != replId.offset) continue;
        replicaAddr(r, ip, iplen);
        *port = r->listening_port;
        return 1;
    }
    return 0;
}

sds replMasterInfo(sds info) {
    static const char *states[] = {"wait_bgsave", "wait_bgsave", "send_bulk", "online"};
    info = sdscatprintf(info, "connected_slaves:%lu\r\n", listLength(m.replicas));
    int i = 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        char ip[NET_ADDR_STR_LEN];
        replicaAddr(r, ip, sizeof(ip));
        /* A diskless transfer is still the snapshot's making to Redis: wait_bgsave. */
        const char *state = r->state == R_SEND_BULK && r->diskless ? "wait_bgsave" : states[r->state];
        info = sdscatprintf(info, "slave%d:ip=%s,port=%d,state=%s,offset=%lld,lag=%lld\r\n", i++, ip,
                            r->listening_port, state, r->ack_off,
                            (long long)(server.unixtime - r->ack_time));
    }
    return sdscatprintf(info,
                        "master_failover_state:%s\r\nmaster_replid:%s\r\nmaster_replid2:%s\r\n"
                        "master_repl_offset:%lld\r\nsecond_repl_offset:%lld\r\nrepl_backlog_active:%d\r\n"
                        "repl_backlog_size:%lld\r\nrepl_backlog_first_byte_offset:%lld\r\nrepl_backlog_histlen:%lld\r\n",
                        failoverStateName(), replId.replid, replId.replid2, replId.offset, replId.second_offset,
                        replBufActive(), server.repl_backlog_size, replBufFirstOffset(), replBufHistlen());
}

sds replInfo(sds info) {
    info = sdscatprintf(info, "# Replication\r\nrole:%s\r\n", server.masterhost_set ? "slave" : "master");
    info = replicaInfo(info);
    return replMasterInfo(info);
}

static int snapshotChildActive(void) { return m.child != -1 || m.diskless; }

static void killSnapshotChild(void) {
    if (m.child == -1) return;
    kill(m.child, SIGUSR1); /* collected by the cron, which drops the replicas waiting for it */
}

const replSnapshotHooks replSnapshotOfMaster = {
    .child_active = snapshotChildActive,
    .bgsave_done = diskSnapshotDone,
    .kill_child = killSnapshotChild,
};

const replCapability **replCapabilities; /* grown by one per registration */
int replCapabilityCount;

void replAddReplicaCapability(const replCapability *capa) {
    if (replCapabilityCount == MAX_REPL_CAPABILITIES) {
        serverLog(LL_WARNING, "Too many replica capabilities registered");
        abort();
    }
    replCapabilities = zrealloc(replCapabilities, sizeof(*replCapabilities) * (replCapabilityCount + 1));
    replCapabilities[replCapabilityCount++] = capa;
}

int replOnShutdown(int flags) {
    (void)flags;
    if (m.child == -1) return C_OK;
    serverLog(LL_WARNING, "There is a child saving an .rdb. Killing it!");
    bgchildKill(m.child);
    m.child = -1;
    return C_OK;
}

long long replStatSyncFull(void) { return server.stat_sync_full; }
long long replStatSyncPartialOk(void) { return server.stat_sync_partial_ok; }
long long replStatSyncPartialErr(void) { return server.stat_sync_partial_err; }

void roleCommand(client *c) {
    if (server.masterhost_set) {
        replicaRole(c);
        return;
    }
    addReplyArrayLen(c, 3);
    addReplyBulkCString(c, "master");
    addReplyLongLong(c, replId.offset);
    void *len = addReplyDeferredLen(c);
    long n = 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->state != R_ONLINE) continue;
        char ip[NET_ADDR_STR_LEN];
        replicaAddr(r, ip, sizeof(ip));
        addReplyArrayLen(c, 3);
        addReplyBulkCString(c, ip);
        addReplyBulkLongLong(c, r->listening_port);
        addReplyBulkLongLong(c, r->ack_off);
        n++;
    }
    setDeferredArrayLen(c, len, n);
}

/* ----------------------------------------------------------------- shutdown */

/* Whether a shutdown may go on: every replica acknowledged our whole stream. */
static int replicasInSync(void) {
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        if (r->ack_off != replId.offset) return 0;
    }
    return 1;
}

/* The shutdown stops waiting: the replicas that would lose data, and the count. */
static void reportReplicasAtShutdown(void) {
    static const char *states[] = {"wait_bgsave", "wait_bgsave", "send_bulk", "online"};
    int replicas = 0, lagging = 0;
    listIter li;
    for (replicaLink *r = firstReplica(&li); r; r = nextReplica(&li)) {
        replicas++;
        if (r->ack_off == replId.offset) continue;
        lagging++;
        char name[NET_ADDR_STR_LEN + 32];
        replicaName(r, name, sizeof(name));
        long lag = r->state == R_ONLINE ? (long)(time(NULL) - r->ack_time) : 0;
        serverLog(LL_WARNING, "Lagging replica %s reported offset %lld behind master, lag=%ld, state=%s.", name,
                  replId.offset - r->ack_off, lag, states[r->state]);
    }
    if (replicas > 0)
        serverLog(LL_NOTICE, "%d of %d replicas are in sync when shutting down.", replicas - lagging, replicas);
}

const shutdownReplicaHooks replShutdownHooks = {replicasInSync, replRequestAcks, reportReplicasAtShutdown};

/* ------------------------------------------------------------------ wiring */

/* What a snapshot records of our place in the stream (as Redis's rdbPopulateSaveInfo). */
int replFillRdbInfo(rdbReplInfo *rsi) {
    /* An in-process save (FLUSHALL's, SAVE) records the offset of every write
     * before it; a forked child has nothing staged (bgchildFork handed it on). */
    replFlushStaged();
    if (!server.masterhost_set) {
        if (!replBufActive()) return 0;
        rsi->stream_db = m.seldb == -1 ? 0 : m.seldb;
    } else if ((rsi->stream_db = replicaStreamDb()) < 0) {
        return 0;
    }
    memcpy(rsi->replid, replId.replid, sizeof(rsi->replid));
    rsi->offset = replId.offset;
    return 1;
}

void replCron(void) {
    /* What the hot paths left to trim (a replica gone that held a long
     * history, a smaller repl-backlog-size) goes between commands. */
    replBufTrim(REPLBUF_TRIM_BLOCKS_PER_CALL * 16);
    replMasterCron();
    replicaCron();
}

void replInit(void) {
    m.replicas = listCreate();
    m.waiting = listCreate();
    replChangeId();
    replClearId2();
    m.no_replicas_since = time(NULL);
    replUpdateStreamSubscription();
}

void replStart(void) { replicaStart(); }
