/* replica: the replica side of replication (REPLICAOF host port). It connects
 * to the master, runs the handshake (PING, AUTH, REPLCONF listening-port and
 * capa, PSYNC), receives and loads the RDB of a full resync, then applies the
 * master's stream through a client flagged CLIENT_MASTER (never answered),
 * counting the offset per applied command so that a dropped link continues
 * with PSYNC where it stopped. The stream received is passed on, as applied,
 * to our own replicas and backlog (master.c). */
#include "repl/internal.h"
#include "repl/repl.h"
#include "server/cmdargs.h"
#include "server/lifecycle.h"
#include "core/anet.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "persist/libstore.h"
#include "persist/persist.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/hooks.h"
#include "server/config.h"
#include "server/db.h"
#include "server/reply.h"
#include "server/resp_parse.h"
#include "server/tls.h"
#include "server/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* Link states, named as ROLE shows them. */
enum { RS_CONNECT, RS_CONNECTING, RS_PSYNC_REPLY, RS_TRANSFER, RS_CONNECTED };

static struct {
    char *host;
    int port;
    int state;
    int fd;                 /* the link before it becomes the master client's */
    sds line;               /* a reply line being read */
    sds out;                /* handshake commands not written yet */
    int hs_expect[5];       /* the handshake replies awaited (HS_*), in order */
    int hs_count, hs_next;  /* how many; the next one (-1: PING's) */
    /* Transfer of the RDB. */
    int tmpfd;
    char tmpfile[64];
    long long size, read;   /* size -1: not known yet ("$EOF:" mark, or the header unread) */
    int usemark;
    char eofmark[40];
    char lastbytes[40];
    time_t lastio;
    char new_replid[REPL_ID_LEN + 1];
    long long new_offset;
    long long synced_from;  /* the +FULLRESYNC offset of the snapshot our data was loaded from, -1 */
    /* The master client and what survives it for PSYNC. */
    client *master;
    int cached;             /* cached_replid/offset say where to continue */
    char cached_replid[REPL_ID_LEN + 1];
    long long cached_offset;
    int cached_db;
    time_t down_since;
    int ever_up;
    time_t last_ack;
    int have_loaded_rsi;    /* the last RDB loaded said where it stands in a master's stream */
    rdbReplInfo loaded_rsi;
    /* A link just lost or timed out: reconnect before the loop sleeps, not a
     * cron tick later (as Redis: the backlog may be recycled meanwhile);
     * the line to log, or NULL. */
    const char *reconnect;
} rp = {.fd = -1, .tmpfd = -1, .synced_from = -1};

int replicaLinkEstablished(void) { return rp.state == RS_CONNECTED; }

long long replSyncedFrom(void) { return rp.synced_from; }

static void setLinkUp(int up) {
    server.repl_link_up = up;
    if (!up) rp.down_since = server.unixtime;
    else rp.ever_up = 1;
}

/* Ends the handshake or transfer in progress (not an established link). */
static void cancelHandshake(void) {
    if (rp.fd != -1) {
        aeDeleteFileEvent(server.el, rp.fd, AE_READABLE | AE_WRITABLE);
        connClose(rp.fd);
        rp.fd = -1;
    }
    if (rp.tmpfd != -1) {
        close(rp.tmpfd);
        unlink(rp.tmpfile);
        rp.tmpfd = -1;
    }
    sdsfree(rp.line);
    rp.line = NULL;
    sdsfree(rp.out);
    rp.out = NULL;
    if (rp.state != RS_CONNECTED) rp.state = RS_CONNECT;
}


/* The role changed (REPLICAOF host port / NO ONE): what hangs on it follows. */
static void roleChanged(void) {
    replUpdateStreamSubscription();
    setOomScoreAdj(OOM_CURRENT);
}

/* ---------------------------------------------------------- the handshake */

/* Replies the handshake waits for, in the order its commands were sent. As
 * Redis, everything after PING goes in one write and the replies are read
 * as they come, from the event loop: a master that stops answering (or a
 * SIGSTOPped one) never blocks this server. */
enum { HS_PING, HS_AUTH, HS_PORT, HS_IP, HS_CAPA };

/* lens may be NULL (C strings); AUTH passes them: a password may hold a NUL. */
static void queueCommandLen(int argc, const char **argv, const size_t *lens) {
    if (!rp.out) rp.out = sdsempty();
    rp.out = sdscatprintf(rp.out, "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) {
        size_t len = lens ? lens[j] : strlen(argv[j]);
        rp.out = sdscatprintf(rp.out, "$%zu\r\n", len);
        rp.out = sdscatlen(rp.out, argv[j], len);
        rp.out = sdscatlen(rp.out, "\r\n", 2);
    }
}

static void queueCommand(int argc, const char **argv) { queueCommandLen(argc, argv, NULL); }

/* Writes what is queued; a fresh socket takes these few bytes at once, and
 * what it does not take shows as a failed handshake (retried). */
static int flushCommands(int fd) {
    ssize_t n = connWrite(fd, rp.out, sdslen(rp.out));
    int ok = n == (ssize_t)sdslen(rp.out);
    sdsfree(rp.out);
    rp.out = NULL;
    return ok ? C_OK : C_ERR;
}

static void readPsyncReply(aeEventLoop *el, int fd, void *privdata, int mask);
static int readLine(int fd);

/* A failover handing us over to our replica (failover.c) ends with the link. */
/* A transfer that failed: as Redis, a new attempt starts at once. */
static void transferFailed(void) {
    cancelHandshake();
    rp.reconnect = "Reconnecting to MASTER %s:%d after failure";
}

static void handshakeFailed(void) {
    cancelHandshake();
    failoverPsyncAnswered(0);
}

static void sendPsync(int fd) {
    char offset[32] = "-1";
    const char *psync[] = {"PSYNC", "?", offset, "FAILOVER"};
    if (rp.cached) {
        psync[1] = rp.cached_replid;
        snprintf(offset, sizeof(offset), "%lld", rp.cached_offset + 1);
        serverLog(LL_NOTICE, "Trying a partial resynchronization (request %s:%s).", rp.cached_replid, offset);
    } else {
        serverLog(LL_NOTICE, "Partial resynchronization not possible (no cached master)");
    }
    queueCommand(failoverState() == FAILOVER_IN_PROGRESS ? 4 : 3, psync);
    if (flushCommands(fd) != C_OK) {
        handshakeFailed();
        return;
    }
    aeDeleteFileEvent(server.el, fd, AE_READABLE);
    if (aeCreateFileEvent(server.el, fd, AE_READABLE, readPsyncReply, NULL) == AE_ERR) handshakeFailed();
}

/* After PING: AUTH, REPLCONF listening-port, ip-address and capa, at once. */
static void sendHandshakeCommands(int fd) {
    rp.hs_count = rp.hs_next = 0;
    if (server.masterauth) {
        const char *auth[3] = {"AUTH"};
        size_t lens[3] = {4};
        int argc = 1;
        if (server.masteruser) {
            auth[argc] = server.masteruser;
            lens[argc++] = strlen(server.masteruser);
        }
        auth[argc] = server.masterauth;
        lens[argc++] = sdslen(server.masterauth);
        queueCommandLen(argc, auth, lens);
        rp.hs_expect[rp.hs_count++] = HS_AUTH;
    }
    /* Behind NAT or port forwarding the master (and Sentinel, reading its
     * INFO) must reach us at the announced address, not the one it sees. */
    char port[16];
    /* Over TLS, as Redis: the TLS port, which is where our link's peers speak TLS. */
    int ours = server.tls_replication && server.tls_port ? server.tls_port : server.port;
    snprintf(port, sizeof(port), "%d", server.repl_announce_port ? server.repl_announce_port : ours);
    const char *lp[] = {"REPLCONF", "listening-port", port};
    queueCommand(3, lp);
    rp.hs_expect[rp.hs_count++] = HS_PORT;
    if (server.repl_announce_ip && server.repl_announce_ip[0]) {
        const char *ip[] = {"REPLCONF", "ip-address", server.repl_announce_ip};
        queueCommand(3, ip);
        rp.hs_expect[rp.hs_count++] = HS_IP;
    }
    /* And the capabilities modules registered (the expiry push's log): a Redis master ignores them. */
    const char *capa[5 + 2 * MAX_REPL_CAPABILITIES] = {"REPLCONF", "capa", "eof", "capa", "psync2"}; /* 1 KB */
    int n = 5;
    for (int i = 0; i < replCapabilityCount; i++) {
        capa[n++] = "capa";
        capa[n++] = replCapabilities[i]->name;
    }
    queueCommand(n, capa);
    rp.hs_expect[rp.hs_count++] = HS_CAPA;
    if (flushCommands(fd) != C_OK) handshakeFailed();
}

static void readHandshakeReply(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)privdata, (void)mask;
    for (;;) {
        int r = readLine(fd);
        if (r == 0) return;
        if (r < 0) {
            serverLog(LL_WARNING, "Failed to read response from the server: %s", strerror(errno));
            serverLog(LL_WARNING, "Master did not respond to command during SYNC handshake");
            handshakeFailed();
            return;
        }
        const char *reply = rp.line;
        int expect = rp.hs_next < 0 ? HS_PING : rp.hs_expect[rp.hs_next];
        if (expect == HS_PING) {
            if (reply[0] == '-' && strncmp(reply, "-NOAUTH", 7) && strncmp(reply, "-NOPERM", 7) &&
                strncmp(reply, "-ERR operation not permitted", 28)) {
                serverLog(LL_WARNING, "Error reply to PING from master: '%s'", reply);
                handshakeFailed();
                return;
            }
            serverLog(LL_NOTICE, "Master replied to PING, replication can continue...");
            sdsclear(rp.line);
            sendHandshakeCommands(fd);
            if (rp.fd == -1) return;
            continue;
        }
        if (expect == HS_AUTH && reply[0] == '-') {
            serverLog(LL_WARNING, "Unable to AUTH to MASTER: %s", reply);
            handshakeFailed();
            return;
        }
        if (reply[0] == '-')
            serverLog(LL_NOTICE, "(Non critical) Master does not understand REPLCONF %s: %s",
                      expect == HS_PORT ? "listening-port" : expect == HS_IP ? "ip-address" : "capa", reply);
        sdsclear(rp.line);
        if (++rp.hs_next == rp.hs_count) {
            sendPsync(fd);
            return;
        }
    }
}

static void sendPing(int fd);
static void tlsLinkReady(int fd, int ok, const char *err, void *privdata);

static void handshake(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)privdata, (void)mask;
    aeDeleteFileEvent(server.el, fd, AE_WRITABLE);
    int err = 0;
    socklen_t errlen = sizeof(err);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errlen) == -1 || err) {
        serverLog(LL_WARNING, "Error condition on socket for SYNC: %s", strerror(err ? err : errno));
        handshakeFailed();
        return;
    }
    serverLog(LL_NOTICE, "Non blocking connect for SYNC fired the event.");
    if (server.tls_replication) {
        tlsConnect(fd, tlsLinkReady, NULL); /* the TLS handshake first, in the loop */
        return;
    }
    sendPing(fd);
}

/* tls-replication: the link's TLS handshake ended. */
static void tlsLinkReady(int fd, int ok, const char *err, void *privdata) {
    (void)privdata;
    if (!ok) {
        serverLog(LL_WARNING, "Error condition on socket for SYNC: %s", err);
        handshakeFailed();
        return;
    }
    sendPing(fd);
}

/* The replication handshake's first command, on a connected link. */
static void sendPing(int fd) {
    rp.state = RS_PSYNC_REPLY; /* ROLE says "handshake" from here on */
    rp.lastio = server.unixtime;
    rp.line = sdsempty();
    rp.hs_next = -1; /* the PING's reply comes first */
    const char *ping[] = {"PING"};
    queueCommand(1, ping);
    if (flushCommands(fd) != C_OK ||
        aeCreateFileEvent(server.el, fd, AE_READABLE, readHandshakeReply, NULL) == AE_ERR)
        handshakeFailed();
}

/* how: the line logged, with the master's host and port. */
static void connectWithMaster(const char *how) {
    rp.reconnect = NULL;
    char err[ANET_ERR_LEN];
    const char *src = server.bind_source_addr && server.bind_source_addr[0] ? server.bind_source_addr : NULL;
    int fd = anetTcpNonBlockConnect(err, rp.host, rp.port, src);
    if (fd == -1) {
        serverLog(LL_WARNING, "Unable to connect to MASTER: %s", err);
        failoverPsyncAnswered(0);
        return;
    }
    if (aeCreateFileEvent(server.el, fd, AE_WRITABLE, handshake, NULL) == AE_ERR) {
        connClose(fd);
        return;
    }
    rp.fd = fd;
    rp.state = RS_CONNECTING;
    rp.lastio = server.unixtime;
    serverLog(LL_NOTICE, how, rp.host, rp.port);
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync started");
}

/* ------------------------------------------------------- the master client */

static void replicaSendAck(void) {
    if (!rp.master) return;
    char off[32];
    int n = ll2string(off, sizeof(off), replId.offset);
    sds s = sdscatprintf(sdsempty(), "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$%d\r\n%s\r\n", n, off);
    if (connWrite(rp.master->fd, s, sdslen(s)) == -1) { /* a dead link shows on the next read */
    }
    sdsfree(s);
}

/* The master's stream lands in the master client's query buffer and runs
 * there as any client's commands; after each command (each transaction) the
 * pipeline hands us its bytes (masterStreamApplied): the offset is what was
 * applied, and that is what our own replicas receive. */
void replMasterStreamApplied(client *c, const char *buf, size_t len) {
    if (c != rp.master) return; /* replaced by what it ran */
    replFeedStream(buf, len);
}

static void readFromMaster(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)mask;
    client *c = privdata;
    size_t qblen = sdslen(c->querybuf);
    c->querybuf = sdsMakeRoomFor(c->querybuf, PROTO_IOBUF_LEN);
    ssize_t n = connRead(fd, c->querybuf + qblen, PROTO_IOBUF_LEN);
    if (n == -1 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
        freeClient(c); /* its teardown logs the loss */
        return;
    }
    sdsincrlen(c->querybuf, n);
    c->lastinteraction = c->lastread = server.unixtime;
    c->net_input_bytes += n;
    server.stat_net_repl_input_bytes += n;
    processInputBuffer(c);
}

static void becomeConnected(int fd, int dbid) {
    client *c = createClient(fd);
    if (!c) {
        connClose(fd);
        rp.state = RS_CONNECT;
        return;
    }
    aeDeleteFileEvent(server.el, fd, AE_READABLE);
    aeCreateFileEvent(server.el, fd, AE_READABLE, readFromMaster, c);
    c->flags |= CLIENT_MASTER;
    c->authenticated = 1;
    selectDb(c, dbid);
    rp.fd = -1; /* the master client owns it now */
    rp.master = c;
    rp.state = RS_CONNECTED;
    rp.last_ack = 0;
    replEnsureBacklog();
    setLinkUp(1);
    replicaSendAck();
}

/* ---------------------------------------------------------- the transfer */

/* The master's snapshot is our data: its history is ours from here, and the
 * stream follows (rest: bytes of it already read). */
static void loadedSnapshot(sds rest) {
    memcpy(replId.replid, rp.new_replid, sizeof(replId.replid));
    replId.offset = rp.new_offset;
    rp.synced_from = rp.new_offset;
    replClearId2();
    replFreeBacklog(); /* a new history: the old one cannot be continued from us */
    rp.cached = 0;
    sdsfree(rp.line);
    rp.line = NULL;
    /* The stream goes on in the db the master's snapshot names (a master
     * that is itself a replica emits no SELECT of its own). */
    int dbid = rp.have_loaded_rsi ? rp.loaded_rsi.stream_db : 0;
    becomeConnected(rp.fd, dbid >= 0 && dbid < server.dbnum ? dbid : 0);
    if (rest && sdslen(rest) && rp.master) {
        rp.master->querybuf = sdscatsds(rp.master->querybuf, rest);
        processInputBuffer(rp.master);
    }
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Finished with success");
    superviseNotify("STATUS=MASTER <-> REPLICA sync: Finished with success. Ready to accept connections in read-write mode.\n");
}

/* ------------------------------------------------------ loading the snapshot */

/* A load serves clients between pieces of it, every
 * loading-process-events-interval-bytes (as Redis): they get -LOADING and
 * INFO, or, with an async load, the old data. */
static struct {
    int async;                   /* swapdb with the same history: the old data stays served meanwhile */
    dbBackup *old;               /* swapdb: the data before the load, back if it fails */
    librarySet *old_functions; /* ... and the libraries */
    time_t last_newline;
} ld;

static void loadProgress(void) {
    updateCachedTime();
    /* The master hears from us while we load, as from Redis: a newline a
     * second counts as a sign of life and is otherwise ignored. */
    if (rp.fd != -1 && server.unixtime != ld.last_newline) {
        ld.last_newline = server.unixtime;
        if (connWrite(rp.fd, "\n", 1) == -1) { /* a broken link shows in the load's next read */
        }
    }
    if (!ld.async) {
        processEventsWhileBlocked();
        return;
    }
    /* The old data and libraries in place while clients are served; the
     * load goes on into the new ones afterwards. */
    dbBackupSwap(ld.old);
    ld.old_functions = librariesSetAside(ld.old_functions);
    server.loading = 0;
    processEventsWhileBlocked();
    server.loading = 1;
    ld.old_functions = librariesSetAside(ld.old_functions);
    dbBackupSwap(ld.old);
}

/* The data before a load (or a failed load's half): with replica-lazy-flush
 * the keys go to the lazy free thread, as Redis 7.0's. */
static void flushOldData(void) {
    dbAnnounceReplaced(NULL);
    if (server.repl_slave_lazy_flush) emptyDataAsync(-1);
    else emptyData(-1, NULL);
    librariesFlushAll();
}

/* Before a load: the old data set aside (swapdb) or dropped. */
static void loadBegin(int swapdb, int async) {
    ld.async = async;
    ld.last_newline = 0;
    if (!async && rp.cached) serverLog(LL_NOTICE, "Discarding previously cached master state.");
    if (swapdb) {
        ld.old = dbBackupAll();
        ld.old_functions = librariesSetAside(NULL);
    } else {
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Flushing old data");
        flushOldData();
    }
    /* Our old history ends here (an async load keeps it until it succeeds). */
    if (!async) rp.cached = 0;
    server.async_loading = async;
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Loading DB in memory");
    rp.have_loaded_rsi = 0;
}

/* After it: the old data back (a failed swapdb load) or freed. */
static void loadEnd(int ok) {
    server.async_loading = 0;
    ld.async = 0;
    if (!ld.old) {
        if (!ok) flushOldData();
        return;
    }
    if (ok) {
        dbAnnounceReplaced(ld.old);
        dbBackupDiscard(ld.old);
        librariesFreeSet(ld.old_functions);
    } else {
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Discarding the half-loaded data and restoring the old one");
        dbBackupRestore(ld.old);
        librariesFreeSet(librariesSetAside(ld.old_functions));
    }
    ld.old = NULL;
    ld.old_functions = NULL;
}

static void transferDone(void) {
    aeDeleteFileEvent(server.el, rp.fd, AE_READABLE);
    if (rp.usemark) {
        rp.read -= sizeof(rp.eofmark);
        if (ftruncate(rp.tmpfd, rp.read) == -1) serverLog(LL_WARNING, "Error truncating the RDB: %s", strerror(errno));
    }
    fsync(rp.tmpfd);
    close(rp.tmpfd);
    rp.tmpfd = -1;
    /* Our replicas follow another history now: they resync with us. */
    replDisconnectReplicas();
    if (rename(rp.tmpfile, server.dbfilename) == -1) {
        serverLog(LL_WARNING, "Failed trying to rename the temp DB into %s in MASTER <-> REPLICA synchronization: %s",
                  server.dbfilename, strerror(errno));
        transferFailed();
        return;
    }
    loadBegin(0, 0);
    int missing;
    int ok = rdbLoadServing(server.dbfilename, loadProgress, &missing) == C_OK;
    loadEnd(ok);
    if (!ok) {
        serverLog(LL_WARNING, "Failed trying to load the MASTER synchronization DB from disk");
        transferFailed();
    }
    if (persistDeleteSyncFiles()) {
        serverLog(LL_NOTICE, "Removing the RDB file obtained from the master. This replica has persistence disabled");
        unlink(server.dbfilename);
    }
    if (ok) loadedSnapshot(NULL);
}

/* Reads until buf holds len bytes (the rest of an EOF mark), waiting at most repl-timeout. */
static int readAtLeast(int fd, sds *buf, size_t len) {
    while (sdslen(*buf) < len) {
        char tmp[64];
        ssize_t n = connRead(fd, tmp, len - sdslen(*buf) < sizeof(tmp) ? len - sdslen(*buf) : sizeof(tmp));
        if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            int ready = poll(&pfd, 1, server.repl_timeout * 1000);
            if (ready == 0 || (ready == -1 && errno != EINTR)) return 0;
            continue;
        }
        if (n <= 0) return 0;
        *buf = sdscatlen(*buf, tmp, n);
    }
    return 1;
}

/* repl-diskless-load: the snapshot is loaded as it arrives, no file. With
 * swapdb the old data is set aside and comes back if the load fails; with
 * on-empty-db (nothing to lose) it is loaded straight into the dbs. */
static int disklessLoadApplies(void) {
    return server.repl_diskless_load == REPL_DISKLESS_LOAD_SWAPDB ||
           (server.repl_diskless_load == REPL_DISKLESS_LOAD_EMPTY_DB && dbTotalServerKeySize() == 0);
}

static void loadFromSocket(int fd) {
    aeDeleteFileEvent(server.el, fd, AE_READABLE);
    close(rp.tmpfd);
    unlink(rp.tmpfile);
    rp.tmpfd = -1;
    int swapdb = server.repl_diskless_load == REPL_DISKLESS_LOAD_SWAPDB;
    /* The same history as the data we hold (a full resync after a link lost
     * too long): as Redis, the old data stays served while the new loads,
     * and our replicas stay attached until the new one is in place. */
    int async = swapdb && !memcmp(replId.replid, rp.new_replid, REPL_ID_LEN);
    if (!async) replDisconnectReplicas();
    loadBegin(swapdb, async);
    sds left = NULL;
    int ok = rdbLoadFromSocket(fd, rp.usemark ? -1 : rp.size, server.repl_timeout * 1000, loadProgress, &left) == C_OK;
    if (ok && rp.usemark) {
        ok = readAtLeast(fd, &left, sizeof(rp.eofmark)) && !memcmp(left, rp.eofmark, sizeof(rp.eofmark));
        if (ok) sdsrange(left, sizeof(rp.eofmark), -1);
    }
    loadEnd(ok);
    if (!ok) {
        serverLog(LL_WARNING, "Failed trying to load the MASTER synchronization DB from socket, check server logs.");
        sdsfree(left);
        transferFailed();
        return;
    }
    if (async) replDisconnectReplicas();
    loadedSnapshot(left);
    sdsfree(left);
}

/* Reads one line into rp.line; 1 when it is complete (without CRLF). */
static int readLine(int fd) {
    char ch;
    for (;;) {
        ssize_t n = connRead(fd, &ch, 1);
        if (n == -1 && (errno == EAGAIN || errno == EINTR)) return 0;
        if (n == 0) errno = 0; /* closed: no error to tell (Redis says "Success") */
        if (n <= 0) return -1;
        rp.lastio = server.unixtime;
        if (ch == '\n') break;
        rp.line = sdscatlen(rp.line, &ch, 1);
    }
    if (sdslen(rp.line) && rp.line[sdslen(rp.line) - 1] == '\r') sdsrange(rp.line, 0, -2);
    return 1;
}

static void readSyncBulkPayload(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)privdata, (void)mask;
    if (rp.size == -1 && !rp.usemark) {
        int r = readLine(fd);
        if (r == 0) return;
        if (r < 0) {
            serverLog(LL_WARNING, "I/O error reading bulk count from MASTER");
            transferFailed();
            return;
        }
        if (sdslen(rp.line) == 0) return; /* a keepalive newline while the master saves */
        if (rp.line[0] != '$') {
            serverLog(LL_WARNING, "Bad protocol from MASTER, the first byte is not '$': %s", rp.line);
            transferFailed();
            return;
        }
        if (!strncmp(rp.line + 1, "EOF:", 4) && sdslen(rp.line) >= 5 + sizeof(rp.eofmark)) {
            rp.usemark = 1;
            memcpy(rp.eofmark, rp.line + 5, sizeof(rp.eofmark));
            memset(rp.lastbytes, 0, sizeof(rp.lastbytes));
            serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to %s",
                      disklessLoadApplies() ? "parser" : "disk");
        } else {
            rp.size = strtoll(rp.line + 1, NULL, 10);
            serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: receiving %lld bytes from master to %s", rp.size,
                      disklessLoadApplies() ? "parser" : "disk");
        }
        sdsclear(rp.line);
        if (disklessLoadApplies()) loadFromSocket(fd);
        return;
    }
    char buf[PROTO_IOBUF_LEN];
    size_t want = sizeof(buf);
    if (!rp.usemark && (long long)want > rp.size - rp.read) want = rp.size - rp.read;
    ssize_t n = want ? connRead(fd, buf, want) : 0;
    if (n == -1 && (errno == EAGAIN || errno == EINTR)) return;
    if (want && n <= 0) {
        serverLog(LL_WARNING, "I/O error trying to sync with MASTER: %s", n ? strerror(errno) : "connection lost");
        transferFailed();
        return;
    }
    server.stat_net_repl_input_bytes += n;
    rp.lastio = server.unixtime;
    if (write(rp.tmpfd, buf, n) != n) {
        serverLog(LL_WARNING, "Write error or short write writing to the DB dump file needed for MASTER <-> REPLICA synchronization: %s", strerror(errno));
        transferFailed();
        return;
    }
    rp.read += n;
    if (rp.usemark) {
        /* The last 40 bytes seen so far, to spot the mark. */
        if ((size_t)n >= sizeof(rp.lastbytes)) {
            memcpy(rp.lastbytes, buf + n - sizeof(rp.lastbytes), sizeof(rp.lastbytes));
        } else {
            memmove(rp.lastbytes, rp.lastbytes + n, sizeof(rp.lastbytes) - n);
            memcpy(rp.lastbytes + sizeof(rp.lastbytes) - n, buf, n);
        }
        if (rp.read >= (long long)sizeof(rp.eofmark) && !memcmp(rp.lastbytes, rp.eofmark, sizeof(rp.eofmark)))
            transferDone();
    } else if (rp.read == rp.size) {
        transferDone();
    }
}

static void continueWith(const char *newid) {
    aeDeleteFileEvent(server.el, rp.fd, AE_READABLE);
    serverLog(LL_NOTICE, "Successful partial resynchronization with master.");
    if (newid && strlen(newid) == REPL_ID_LEN && strcmp(newid, rp.cached_replid)) {
        /* The master switched history: ours is the secondary one now. */
        serverLog(LL_WARNING, "Master replication ID changed to %s", newid);
        memcpy(replId.replid2, rp.cached_replid, sizeof(replId.replid2));
        replId.second_offset = rp.cached_offset + 1;
        memcpy(replId.replid, newid, sizeof(replId.replid));
        rp.synced_from = -1; /* the stream no longer follows that snapshot's master */
        replDisconnectReplicas();
    } else {
        memcpy(replId.replid, rp.cached_replid, sizeof(replId.replid));
    }
    replId.offset = rp.cached_offset;
    rp.cached = 0;
    sdsfree(rp.line);
    rp.line = NULL;
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
    superviseNotify("STATUS=MASTER <-> REPLICA sync: Partial Resynchronization accepted. Ready to accept connections in read-write mode.\n");
    becomeConnected(rp.fd, rp.cached_db);
}

static void readPsyncReply(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)privdata, (void)mask;
    int r = readLine(fd);
    if (r == 0) return;
    if (r < 0) {
        serverLog(LL_WARNING, "Master closed the connection during PSYNC");
        handshakeFailed();
        return;
    }
    if (sdslen(rp.line) == 0) return; /* keepalive */
    if (!strncmp(rp.line, "+FULLRESYNC", 11)) {
        char id[REPL_ID_LEN + 1] = "";
        long long off = 0;
        if (sscanf(rp.line, "+FULLRESYNC %40s %lld", id, &off) != 2 || strlen(id) != REPL_ID_LEN) {
            serverLog(LL_WARNING, "Master replied with wrong +FULLRESYNC syntax.");
            handshakeFailed();
            return;
        }
        memcpy(rp.new_replid, id, sizeof(rp.new_replid));
        rp.new_offset = off;
        serverLog(LL_NOTICE, "Full resync from master: %s:%lld", id, off);
        /* What we continued from stays known until the new data replaces
         * ours (loadBegin): a transfer that fails leaves a partial resync
         * with the old master possible (as Redis 7.0). */
        snprintf(rp.tmpfile, sizeof(rp.tmpfile), "temp-%d.%ld.rdb", (int)getpid(), (long)server.unixtime);
        rp.tmpfd = open(rp.tmpfile, O_CREAT | O_WRONLY | O_EXCL | O_TRUNC, 0644);
        if (rp.tmpfd == -1) {
            serverLog(LL_WARNING, "Opening the temp file needed for MASTER <-> REPLICA synchronization: %s",
                      strerror(errno));
            handshakeFailed();
            return;
        }
        failoverPsyncAnswered(1);
        rp.size = -1;
        rp.read = 0;
        rp.usemark = 0;
        sdsclear(rp.line);
        rp.state = RS_TRANSFER;
        aeDeleteFileEvent(server.el, fd, AE_READABLE);
        aeCreateFileEvent(server.el, fd, AE_READABLE, readSyncBulkPayload, NULL);
        return;
    }
    if (!strncmp(rp.line, "+CONTINUE", 9)) {
        const char *id = sdslen(rp.line) > 10 ? rp.line + 10 : NULL;
        continueWith(id);
        failoverPsyncAnswered(1);
        return;
    }
    serverLog(LL_WARNING, "Unexpected reply to PSYNC from master: %s", rp.line);
    handshakeFailed();
}

/* ------------------------------------------------------------ link changes */

void replicaClientTeardown(client *c) {
    if (c != rp.master) return;
    serverLog(LL_WARNING, "Connection with master lost.");
    serverLog(LL_NOTICE, "Caching the disconnected master state.");
    rp.reconnect = "Reconnecting to MASTER %s:%d";
    /* Keep where we are, to continue with PSYNC. */
    rp.cached = 1;
    memcpy(rp.cached_replid, replId.replid, sizeof(rp.cached_replid));
    rp.cached_offset = replId.offset;
    rp.cached_db = c->db->id;
    rp.master = NULL;
    rp.state = RS_CONNECT;
    setLinkUp(0);
}

/* Clients blocked on keys would be served by another master's stream now:
 * they get an error and are closed, as Redis does (a CLIENT PAUSE's held
 * commands are not served yet and stay). */
static void disconnectBlockedClients(void) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (!(c->flags & CLIENT_BLOCKED) || c->bpop.btype == BLOCKED_POSTPONE) continue;
        addReplyError(c, "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
                         "replica?)");
        unblockClient(c, 0);
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    }
}

void replicaSetMaster(const char *host, int port) {
    int was_master = !server.masterhost_set;
    if (rp.master) freeClient(rp.master);
    cancelHandshake();
    zfree(rp.host);
    rp.host = zstrdup(host);
    rp.port = port;
    server.masterhost_set = 1;
    roleChanged();
    setLinkUp(0);
    rp.down_since = 0;
    disconnectBlockedClients();
    /* Our replicas stay (as with Redis 7.0): if the new master continues our
     * history they continue with us; a new history (a full resync, another
     * replication ID) disconnects them then. */
    if (was_master) {
        /* The new master may continue our own history (a demoted master). */
        serverLog(LL_NOTICE, "Before turning into a replica, using my own master parameters to synthesize a cached "
                  "master: I may be able to synchronize with the new master with just a partial transfer.");
        rp.cached = 1;
        memcpy(rp.cached_replid, replId.replid, sizeof(rp.cached_replid));
        rp.cached_offset = replId.offset;
        rp.cached_db = 0;
    }
    rp.state = RS_CONNECT;
    connectWithMaster("Connecting to MASTER %s:%d");
}

void replicaUnsetMaster(void) {
    if (rp.master) freeClient(rp.master);
    rp.reconnect = NULL;
    cancelHandshake();
    zfree(rp.host);
    rp.host = NULL;
    rp.cached = 0;
    rp.synced_from = -1;
    server.masterhost_set = 0;
    roleChanged();
    setLinkUp(0);
    /* Our history goes on under a new ID; replicas of the old one may continue it. */
    replShiftId();
    replDisconnectReplicas();
    replForceSelect();
}

/* ------------------------------------------------- what the cluster asks */

void replFollow(const char *host, int port) {
    if (server.masterhost_set && rp.host && !strcmp(rp.host, host) && rp.port == port) return;
    replicaSetMaster(host, port);
}

void replStopFollowing(void) {
    if (server.masterhost_set) replicaUnsetMaster();
}

int replIsFollowing(const char *host, int port) {
    return server.masterhost_set && rp.host && !strcmp(rp.host, host) && rp.port == port;
}

/* A replica's: what its master client applied, or the cached master's; 0
 * with neither (before the first sync, and once a full sync's load dropped
 * the old history), which Redis Cluster reads as "still loading". */
long long replOffset(void) {
    if (!server.masterhost_set) return replId.offset;
    return rp.master ? replId.offset : rp.cached ? rp.cached_offset : 0;
}

long long replMasterDataAgeMs(void) {
    if (rp.state == RS_CONNECTED && rp.master) return (long long)(server.unixtime - rp.master->lastinteraction) * 1000;
    if (rp.down_since) return (long long)(server.unixtime - rp.down_since) * 1000;
    return 0;
}

/* REPLICAOF / SLAVEOF host port | NO ONE */
void replicaofCommand(client *c) {
    if (server.cluster_enabled) {
        addReplyError(c, "REPLICAOF not allowed in cluster mode.");
        return;
    }
    if (failoverState() != FAILOVER_NONE) {
        addReplyError(c, "REPLICAOF not allowed while failing over.");
        return;
    }
    if (!strcasecmp(objectPtr(c->argv[1]), "no") && !strcasecmp(objectPtr(c->argv[2]), "one")) {
        if (server.masterhost_set) {
            replicaUnsetMaster();
            sds ci = catClientInfoString(sdsempty(), c);
            serverLog(LL_NOTICE, "MASTER MODE enabled (user request from '%s')", ci);
            sdsfree(ci);
        }
        addReply(c, shared.ok);
        return;
    }
    if (c->flags & CLIENT_SLAVE) {
        addReplyError(c, "Command is not valid when client is a replica.");
        return;
    }
    long port;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], 0, 65535, &port, "Invalid master port") != C_OK) return;
    if (server.masterhost_set && !strcasecmp(rp.host, objectPtr(c->argv[1])) && rp.port == port) {
        serverLog(LL_NOTICE, "REPLICAOF would result into synchronization with the master we are already connected "
                             "with. No operation performed.");
        addReplyStatus(c, "OK Already connected to specified master");
        return;
    }
    replicaSetMaster(objectPtr(c->argv[1]), (int)port);
    sds ci = catClientInfoString(sdsempty(), c);
    serverLog(LL_NOTICE, "REPLICAOF %s:%d enabled (user request from '%s')", rp.host, rp.port, ci);
    sdsfree(ci);
    addReply(c, shared.ok);
}

/* ------------------------------------------------------------- cron, INFO */

void replicaCron(void) {
    if (!server.masterhost_set) return;
    static time_t last_attempt;
    if (rp.state == RS_CONNECT) {
        if (server.unixtime != last_attempt) {
            last_attempt = server.unixtime;
            connectWithMaster("Connecting to MASTER %s:%d");
        }
        return;
    }
    if (rp.state != RS_CONNECTED) {
        if (server.unixtime - rp.lastio > server.repl_timeout) {
            if (rp.state == RS_TRANSFER)
                serverLog(LL_WARNING, "Timeout receiving bulk data from MASTER... If the problem persists try to set "
                                      "the 'repl-timeout' parameter in redis.conf to a larger value.");
            else
                serverLog(LL_WARNING, "Timeout connecting to the MASTER...");
            handshakeFailed();
            rp.reconnect = "Reconnecting to MASTER %s:%d after failure";
        }
        return;
    }
    if (server.unixtime - rp.master->lastread > server.repl_timeout) {
        serverLog(LL_WARNING, "MASTER timeout: no data nor PING received...");
        freeClient(rp.master);
        return;
    }
    if (server.unixtime != rp.last_ack) {
        rp.last_ack = server.unixtime;
        replicaSendAck();
    }
}

void replicaAnswerGetack(void) { replicaSendAck(); }

sds replicaInfo(sds info) {
    if (!server.masterhost_set) return info;
    long long off = rp.master ? replId.offset : rp.cached ? rp.cached_offset : 1;
    /* Read: also what waits in the master client's buffer (a pause holds it). */
    long long read_off = off + (rp.master ? (long long)(sdslen(rp.master->querybuf) - rp.master->repl_unfed) : 0);
    info = sdscatprintf(info,
                        "master_host:%s\r\nmaster_port:%d\r\nmaster_link_status:%s\r\nmaster_last_io_seconds_ago:%d\r\n"
                        "master_sync_in_progress:%d\r\nslave_read_repl_offset:%lld\r\nslave_repl_offset:%lld\r\n",
                        rp.host, rp.port, rp.state == RS_CONNECTED ? "up" : "down",
                        rp.master ? (int)(server.unixtime - rp.master->lastread) : -1, rp.state == RS_TRANSFER,
                        read_off, off);
    if (rp.state == RS_TRANSFER) {
        long long size = rp.size < 0 ? 0 : rp.size;
        info = sdscatprintf(info,
                            "master_sync_total_bytes:%lld\r\nmaster_sync_read_bytes:%lld\r\nmaster_sync_left_bytes:%lld\r\n"
                            "master_sync_perc:%.2f\r\nmaster_sync_last_io_seconds_ago:%d\r\n",
                            size, rp.read, size - rp.read, size ? (double)rp.read / size * 100 : 0.0,
                            (int)(server.unixtime - rp.lastio));
    }
    if (rp.state != RS_CONNECTED)
        info = sdscatprintf(info, "master_link_down_since_seconds:%lld\r\n",
                            rp.down_since ? (long long)(server.unixtime - rp.down_since) : -1LL);
    return sdscatprintf(info, "slave_priority:%d\r\nslave_read_only:%d\r\nreplica_announced:%d\r\n",
                        server.repl_slave_priority, server.repl_slave_ro, server.repl_replica_announced);
}

void replicaRole(client *c) {
    static const char *states[] = {"connect", "connecting", "handshake", "sync", "connected"};
    addReplyArrayLen(c, 5);
    addReplyBulkCString(c, "slave");
    addReplyBulkCString(c, rp.host);
    addReplyLongLong(c, rp.port);
    addReplyBulkCString(c, states[rp.state]);
    addReplyLongLong(c, rp.master ? replId.offset : -1);
}

/* ------------------------------------------------------- replicaof directive */

int replSetReplicaofDirective(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    if (argc == 0 || (argc == 1 && !argv[0][0])) return 1; /* the empty default */
    if (argc != 2) {
        *err = "wrong number of arguments";
        return 0;
    }
    if (!strcasecmp(argv[0], "no") && !strcasecmp(argv[1], "one")) {
        zfree(rp.host);
        rp.host = NULL;
        server.masterhost_set = 0;
        roleChanged();
        return 1;
    }
    char *end;
    long port = strtol(argv[1], &end, 10);
    if (*end || port < 0 || port > 65535) {
        *err = "Invalid master port";
        return 0;
    }
    zfree(rp.host);
    rp.host = zstrdup(argv[0]);
    rp.port = (int)port;
    server.masterhost_set = 1;
    roleChanged();
    return 1;
}

sds replGetReplicaofDirective(void) {
    if (!server.masterhost_set) return sdsempty();
    return sdscatprintf(sdsempty(), "%s %d", rp.host, rp.port);
}

void replicaBeforeSleep(void) {
    if (rp.reconnect && server.masterhost_set && rp.state == RS_CONNECT) connectWithMaster(rp.reconnect);
    rp.reconnect = NULL;
}


int replicaStreamDb(void) { return rp.master ? rp.master->db->id : rp.cached ? rp.cached_db : -1; }

void replLoadedRdbInfo(const rdbReplInfo *rsi) {
    rp.loaded_rsi = *rsi;
    rp.have_loaded_rsi = 1;
}

void replicaStart(void) {
    if (!server.masterhost_set) {
        if (rp.have_loaded_rsi) {
            /* A master restarted from its own snapshot: its history goes on
             * under a new ID, the old one kept as secondary up to the saved
             * offset, with a backlog from there — its replicas continue with
             * a partial resync (as Redis 7.0). */
            memcpy(replId.replid, rp.loaded_rsi.replid, sizeof(replId.replid));
            replId.offset = rp.loaded_rsi.offset;
            replShiftId();
            replEnsureBacklog();
            rp.have_loaded_rsi = 0;
        }
        return;
    }
    if (rp.have_loaded_rsi) {
        /* Our data is the master's stream up to this offset: continue from there. */
        memcpy(replId.replid, rp.loaded_rsi.replid, sizeof(replId.replid));
        replId.offset = rp.loaded_rsi.offset;
        rp.cached = 1;
        memcpy(rp.cached_replid, replId.replid, sizeof(rp.cached_replid));
        rp.cached_offset = replId.offset;
        rp.cached_db = rp.loaded_rsi.stream_db >= 0 && rp.loaded_rsi.stream_db < server.dbnum ? rp.loaded_rsi.stream_db : 0;
        serverLog(LL_NOTICE, "Before turning into a replica, using my own master parameters to synthesize a cached "
                             "master: I may be able to synchronize with the new master with just a partial transfer.");
    }
    /* Whatever was loaded from disk is our history so far, from offset 0. */
    rp.state = RS_CONNECT;
    setLinkUp(0);
    rp.down_since = 0;
}
