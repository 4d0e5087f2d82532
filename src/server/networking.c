/* networking: client connections. Accepting, reading and parsing RESP2
 * requests (multibulk and inline, pipelined), handing complete commands to
 * processCommand, writing replies back, enforcing the protocol and buffer
 * limits, and freeing clients. */
#include "server/access.h"
#include "server/client.h"
#include "server/clientmem.h"
#include "server/reply.h"
#include "server/replbuf.h"
#include "server/prefetch.h"
#include "server/resp_parse.h"
#include "core/anet.h"
#include "core/zmalloc.h"
#include "server/hooks.h"
#include "server/transaction.h"
#include "server/tls.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_ACCEPTS_PER_CALL 1000
#define NET_MAX_WRITES_PER_EVENT (1024 * 64)

static void readQueryFromClient(aeEventLoop *el, int fd, void *privdata, int mask);
static void sendReplyToClient(aeEventLoop *el, int fd, void *privdata, int mask);

static dictType clientIdDictType = {dictPtrHash, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL}; /* id (as a pointer) → client */

client *createClient(int fd) {
    client *c = zcalloc(sizeof(client));
    if (fd != -1) {
        anetNonBlock(NULL, fd);
        anetEnableTcpNoDelay(NULL, fd);
        if (server.tcpkeepalive) anetKeepAlive(NULL, fd, server.tcpkeepalive);
        if (aeCreateFileEvent(server.el, fd, AE_READABLE, readQueryFromClient, c) == AE_ERR) {
            close(fd);
            zfree(c);
            return NULL;
        }
    }
    c->id = ++server.next_client_id;
    c->fd = fd;
    c->db = &server.db[0];
    c->querybuf = sdsempty();
    c->reqtype = 0;
    c->bulklen = -1;
    c->raw_start = -1;
    c->reply = listCreate();
    c->ctime = c->lastinteraction = c->lastread = server.unixtime;
    /* Fake clients (fd -1) have no user: they may run anything. */
    if (fd != -1) accessSetDefaultUser(c);
    else c->authenticated = 1;
    c->resp = 2;
    c->buf = zmalloc(PROTO_REPLY_CHUNK_BYTES);
    c->buf_usable_size = zmalloc_size(c->buf);
    c->buf_peak = c->buf_usable_size;
    c->buf_peak_last_reset_time = server.mstime;
    c->watched_keys = listCreate();
    c->pubsub_channels = NULL;
    c->pubsubshard_channels = NULL;
    c->pubsub_patterns = listCreate();
    c->mem_bucket = -1;
    if (!server.clients_by_id) server.clients_by_id = dictCreate(&clientIdDictType);
    if (fd != -1) {
        listAddNodeTail(server.clients, c);
        c->client_list_node = listLast(server.clients);
        dictAdd(server.clients_by_id, (void *)(uintptr_t)c->id, c);
        anetFdToString(fd, c->addr, sizeof(c->addr), 1);
        anetFdToString(fd, c->laddr, sizeof(c->laddr), 0);
        refreshClientMemUsage(c);
    }
    return c;
}

client *lookupClientByID(uint64_t id) {
    if (!server.clients_by_id) return NULL;
    return dictFetchValue(server.clients_by_id, (void *)(uintptr_t)id);
}

/* Admission, before a client exists (and before a TLS handshake starts, as
 * 7.0): past maxclients, counting the cluster bus's connections, the
 * connection is refused (0), with Redis's error on a plain one; a TLS one
 * just drops, as nothing can be written before its handshake. */
static int admitConnection(int fd, int tls) {
    unsigned long bus = command_router && command_router->bus_connections ? command_router->bus_connections() : 0;
    if (listLength(server.clients) + bus < server.maxclients) return 1;
    const char *err = server.cluster_enabled ? "-ERR max number of clients + cluster connections reached\r\n"
                                             : "-ERR max number of clients reached\r\n";
    if (!tls && connWrite(fd, err, strlen(err)) == -1) { /* best effort */
    }
    server.stat_rejected_conn++;
    connClose(fd);
    return 0;
}

/* A connection admitted (and its TLS handshake done) becomes a client. */
static void acceptCommonHandler(int fd, int flags, const char *ip) {
    client *c = createClient(fd);
    if (!c) {
        serverLog(LL_WARNING, "Error registering fd event for the new client: %s (fd=%d)", strerror(errno), fd);
        connClose(fd);
        return;
    }
    c->flags |= flags;
    if (flags & CLIENT_UNIX_SOCKET) {
        /* The peer of a unix socket has no name: Redis shows the socket path. */
        snprintf(c->addr, sizeof(c->addr), "%s:0", server.unixsocket);
        snprintf(c->laddr, sizeof(c->laddr), "%s:0", server.unixsocket);
    }
    server.stat_numconnections++;
    /* Protected mode: with a default user without password only loopback may
     * talk to us, whatever the bind list (as Redis 7.0). */
    if (server.protected_mode == PROTECTED_MODE_YES && !accessAuthRequired(c) && ip && !(flags & CLIENT_UNIX_SOCKET) &&
        strncmp(ip, "127.", 4) && strcmp(ip, "::1")) {
        const char *err =
            "-DENIED Redis is running in protected mode because protected mode is enabled and no password is "
            "set for the default user. In this mode connections are only accepted from the loopback interface. "
            "If you want to connect from external computers to Redis you may adopt one of the following "
            "solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from "
            "the loopback interface by connecting to Redis from the same host the server is running, however "
            "MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make "
            "this change permanent. 2) Alternatively you can just disable the protected mode by editing the "
            "Redis configuration file, and setting the protected mode option to 'no', and then restarting the "
            "server. 3) If you started the server manually just for testing, restart it with the "
            "'--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: "
            "You only need to do one of the above things in order for the server to start accepting "
            "connections from the outside.\r\n";
        if (connWrite(fd, err, strlen(err)) == -1) { /* best effort */
        }
        freeClient(c);
    }
}

/* A TLS client is a client once its handshake succeeded. */
static void tlsAccepted(int fd, const char *ip) { acceptCommonHandler(fd, 0, ip); }

/* The connections waiting on a TCP listener; a TLS port's handshake first. */
static void acceptTcpConnections(int fd, int tls) {
    char ip[NET_IP_STR_LEN];
    int port;
    for (int i = 0; i < MAX_ACCEPTS_PER_CALL; i++) {
        int cfd = anetTcpAccept(NULL, fd, ip, sizeof(ip), &port);
        if (cfd == ANET_ERR) return;
        serverLog(LL_VERBOSE, "Accepted %s:%d", ip, port);
        if (!admitConnection(cfd, tls)) continue;
        if (tls) tlsAccept(cfd, ip, tlsAccepted);
        else acceptCommonHandler(cfd, 0, ip);
    }
}

void acceptTcpHandler(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)privdata, (void)mask;
    acceptTcpConnections(fd, 0);
}

void acceptTlsHandler(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)privdata, (void)mask;
    acceptTcpConnections(fd, 1);
}

void acceptUnixHandler(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)privdata, (void)mask;
    for (int i = 0; i < MAX_ACCEPTS_PER_CALL; i++) {
        int cfd = anetUnixAccept(NULL, fd);
        if (cfd == ANET_ERR) return;
        if (admitConnection(cfd, 0)) acceptCommonHandler(cfd, CLIENT_UNIX_SOCKET, NULL);
    }
}

void freeClientOriginalArgv(client *c) {
    if (!c->original_argv) return;
    for (int j = 0; j < c->original_argc; j++) decrRefCount(c->original_argv[j]);
    zfree(c->original_argv);
    c->original_argv = NULL;
    c->original_argc = 0;
}

void freeClientArgv(client *c) {
    freeClientOriginalArgv(c);
    for (int j = 0; j < c->argc; j++) decrRefCount(c->argv[j]);
    c->argc = 0;
    c->cmd = NULL;
    c->argv_len_sum = 0;
    c->argv_len = 0;
    zfree(c->argv);
    c->argv = NULL;
}

void resetClient(client *c) {
    /* CLIENT CACHING counts for the next command only (a whole transaction
     * being one); CLIENT subcommands, CACHING itself included, keep it. */
    struct redisCommand *prev = c->cmd;
    if ((c->tracking_flags & TRACKING_CACHING) && !(c->flags & CLIENT_MULTI) &&
        !(prev && prev->parent && !strcmp(prev->parent->name, "client")))
        c->tracking_flags &= ~TRACKING_CACHING;
    freeClientArgv(c);
    c->reqtype = 0;
    c->multibulklen = 0;
    c->bulklen = -1;
    /* ASKING counts for the next command only (a transaction being one). */
    if ((c->flags & CLIENT_ASKING) && !(c->flags & CLIENT_MULTI) && !(prev && !strcmp(prev->fullname, "asking")))
        c->flags &= ~CLIENT_ASKING;
    /* CLIENT REPLY SKIP: skip exactly the command after the one that set it. */
    if (!(c->flags & CLIENT_MULTI)) c->flags &= ~CLIENT_REPLY_SKIP;
    if (c->flags & CLIENT_REPLY_SKIP_NEXT) {
        c->flags |= CLIENT_REPLY_SKIP;
        c->flags &= ~CLIENT_REPLY_SKIP_NEXT;
    }
}

static void unlinkClient(client *c) {
    if (c->fd != -1) {
        if (c->client_list_node) {
            listDelNode(server.clients, c->client_list_node);
            c->client_list_node = NULL;
        }
        dictDelete(server.clients_by_id, (void *)(uintptr_t)c->id);
        aeDeleteFileEvent(server.el, c->fd, AE_READABLE | AE_WRITABLE);
        connClose(c->fd);
        c->fd = -1;
    }
    if (c->pending_write_node) {
        listDelNode(server.clients_pending_write, c->pending_write_node);
        c->pending_write_node = NULL;
        c->flags &= ~CLIENT_PENDING_WRITE;
    }
    if (c->unblocked_node) {
        listDelNode(server.unblocked_clients, c->unblocked_node);
        c->unblocked_node = NULL;
    }
}

static void freeReplyBlocks(client *c) {
    listIter li;
    listNode *ln;
    listRewind(c->reply, &li);
    while ((ln = listNext(&li))) zfree(listNodeValue(ln));
    listEmpty(c->reply);
    c->reply_bytes = 0;
}

sds clientTakeReply(client *c) {
    size_t skip = c->sentlen;
    sds s = sdsempty();
    if (c->bufpos > 0) {
        s = sdscatlen(s, c->buf + skip, c->bufpos - skip);
        skip = 0;
    }
    listIter li;
    listNode *ln;
    listRewind(c->reply, &li);
    while ((ln = listNext(&li))) {
        clientReplyBlock *b = listNodeValue(ln);
        if (!b || b->used == 0) continue;
        s = sdscatlen(s, b->buf + skip, b->used - skip);
        skip = 0;
    }
    freeReplyBlocks(c);
    c->bufpos = 0;
    c->sentlen = 0;
    return s;
}

void freeClient(client *c) {
    if (server.current_client == c && (c->flags & CLIENT_EXECUTING)) {
        /* Freed while its own command runs (CLIENT KILL of self): defer. */
        freeClientAsync(c);
        return;
    }
    removeClientMemUsage(c);
    discardTransaction(c);
    runClientTeardown(c); /* blocking's first: a blocked client leaves its keys */
    if (c->pubsub_channels) dictRelease(c->pubsub_channels);
    if (c->pubsubshard_channels) dictRelease(c->pubsubshard_channels);
    listRelease(c->pubsub_patterns);
    if (c->flags & CLIENT_MONITOR) {
        listNode *ln = listSearchKey(server.monitors, c);
        if (ln) listDelNode(server.monitors, ln);
    }
    unlinkClient(c);
    if (c->flags & CLIENT_CLOSE_ASAP) {
        listNode *ln = listSearchKey(server.clients_to_close, c);
        if (ln) listDelNode(server.clients_to_close, ln);
    }
    freeClientArgv(c);
    freeReplyBlocks(c);
    replBufUnrefClient(c);
    listRelease(c->reply);
    listRelease(c->watched_keys);
    sdsfree(c->querybuf);
    if (c->name) decrRefCount(c->name);
    sdsfree(c->lib_name);
    sdsfree(c->lib_ver);
    zfree(c->buf);
    if (server.current_client == c) server.current_client = NULL;
    zfree(c);
}

void freeClientAsync(client *c) {
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    c->flags |= CLIENT_CLOSE_ASAP;
    listAddNodeTail(server.clients_to_close, c);
    removeClientMemUsage(c);
}

void freeClientsInAsyncFreeQueue(void) {
    while (listLength(server.clients_to_close)) {
        listNode *ln = listFirst(server.clients_to_close);
        client *c = listNodeValue(ln);
        if (c->flags & CLIENT_EXECUTING) return;
        c->flags &= ~CLIENT_CLOSE_ASAP;
        listDelNode(server.clients_to_close, ln);
        freeClient(c);
    }
}

/* ----------------------------------------------------------------- writing */

int clientHasPendingReplies(client *c) {
    return c->bufpos || listLength(c->reply) ||
           (c->ref_repl_buf_node && !(c->flags & CLIENT_REPL_HOLD) && replBufClientPending(c));
}

void clientScheduleWrite(client *c) {
    if (c->fd == -1 || (c->flags & (CLIENT_PENDING_WRITE | CLIENT_CLOSE_ASAP))) return;
    c->flags |= CLIENT_PENDING_WRITE;
    listAddNodeTail(server.clients_pending_write, c);
    c->pending_write_node = listLast(server.clients_pending_write);
}

int prepareClientToWriteSlow(client *c) {
    if (c->flags & (CLIENT_LUA | CLIENT_AOF)) return c->flags & CLIENT_AOF ? C_ERR : C_OK;
    if (c->flags & CLIENT_CLOSE_ASAP) return C_ERR;
    if ((c->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) && !(c->tracking_flags & TRACKING_PUSHING)) return C_ERR;
    if (c->flags & CLIENT_MASTER) return C_ERR; /* the master's stream is applied, never answered */
    if (c->flags & CLIENT_REPLICA_CMD) {
        /* A replica's link carries our stream: a reply in it would corrupt
         * the replica's data. As Redis, the replica is dropped instead. */
        sds ci = catClientInfoString(sdsempty(), c);
        serverLog(LL_WARNING, "Replica generated a reply to command '%s', disconnecting it: %s",
                  c->lastcmd ? c->lastcmd->fullname : "<unknown>", ci);
        sdsfree(ci);
        freeClientAsync(c);
        return C_ERR;
    }
    if (c->fd == -1) return C_ERR;
    if (!(c->flags & CLIENT_PENDING_WRITE)) {
        c->flags |= CLIENT_PENDING_WRITE;
        listAddNodeTail(server.clients_pending_write, c);
        c->pending_write_node = listLast(server.clients_pending_write);
    }
    return C_OK;
}

/* Writes as much as the socket takes. Returns C_ERR when the client was freed. */
static int writeToClient(client *c, int handler_installed) {
    ssize_t totwritten = 0;
    server.stat_total_writes_processed++;
    while (clientHasPendingReplies(c)) {
        if (!c->bufpos && !listLength(c->reply)) {
            /* A replica: its stream, straight from the shared buffer. */
            ssize_t n = replBufWriteClient(c);
            if (n < 0) {
                freeClientAsync(c);
                return C_ERR;
            }
            if (n == 0) break;
            totwritten += n;
            c->net_output_bytes += n;
            continue;
        }
        struct iovec iov[16];
        int iovcnt = 0;
        size_t iovbytes = 0;
        size_t skip = c->sentlen;
        if (c->bufpos > 0) {
            iov[iovcnt].iov_base = c->buf + skip;
            iov[iovcnt].iov_len = c->bufpos - skip;
            iovbytes += iov[iovcnt].iov_len;
            iovcnt++;
            skip = 0;
        }
        listIter li;
        listNode *ln;
        listRewind(c->reply, &li);
        while ((ln = listNext(&li)) && iovcnt < 16) {
            clientReplyBlock *b = listNodeValue(ln);
            if (b == NULL) break; /* a deferred length not filled yet */
            if (b->used == 0) continue;
            iov[iovcnt].iov_base = b->buf + skip;
            iov[iovcnt].iov_len = b->used - skip;
            iovbytes += iov[iovcnt].iov_len;
            iovcnt++;
            skip = 0;
        }
        if (iovcnt == 0) break;
        ssize_t n = connWritev(c->fd, iov, iovcnt);
        if (n <= 0) {
            if (n == -1 && errno == EAGAIN) break;
            if (n == -1 && errno == EINTR) continue;
            freeClientAsync(c);
            return C_ERR;
        }
        totwritten += n;
        c->net_output_bytes += n;
        /* Advance over what was written. */
        size_t left = n;
        if (c->bufpos > 0) {
            size_t inbuf = c->bufpos - c->sentlen;
            if (left >= inbuf) {
                left -= inbuf;
                c->bufpos = 0;
                c->sentlen = 0;
            } else {
                c->sentlen += left;
                left = 0;
            }
        }
        while (left > 0 || (listLength(c->reply) && listNodeValue(listFirst(c->reply)) &&
                            ((clientReplyBlock *)listNodeValue(listFirst(c->reply)))->used == 0)) {
            listNode *first = listFirst(c->reply);
            clientReplyBlock *b = listNodeValue(first);
            size_t inblock = b->used - c->sentlen;
            if (left >= inblock) {
                left -= inblock;
                c->reply_bytes -= b->size;
                zfree(b);
                listDelNode(c->reply, first);
                c->sentlen = 0;
            } else {
                c->sentlen += left;
                left = 0;
            }
        }
        if ((size_t)n < iovbytes) break; /* the socket is full */
        if (totwritten > NET_MAX_WRITES_PER_EVENT && server.maxmemory == 0) break;
    }
    if (getClientType(c) == CLIENT_TYPE_REPLICA) server.stat_net_repl_output_bytes += totwritten;
    else server.stat_net_output_bytes += totwritten;
    if (totwritten > 0 && !(c->flags & CLIENT_MONITOR)) c->lastinteraction = server.unixtime;
    updateClientMemUsage(c);
    if (!clientHasPendingReplies(c)) {
        c->sentlen = 0;
        if (handler_installed) aeDeleteFileEvent(server.el, c->fd, AE_WRITABLE);
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY) {
            freeClientAsync(c);
            return C_ERR;
        }
    } else if (!handler_installed && !(aeGetFileEvents(server.el, c->fd) & AE_WRITABLE)) {
        /* appendfsync always: a reply never leaves before its command's fsync. */
        int barrier = server.aof_enabled && server.aof_fsync == AOF_FSYNC_ALWAYS ? AE_BARRIER : 0;
        aeCreateFileEvent(server.el, c->fd, AE_WRITABLE | barrier, sendReplyToClient, c);
    }
    return C_OK;
}

static void sendReplyToClient(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)fd, (void)mask;
    writeToClient(privdata, 1);
}

int handleClientsWithPendingWrites(void) {
    int processed = 0;
    while (listLength(server.clients_pending_write)) {
        listNode *ln = listFirst(server.clients_pending_write);
        client *c = listNodeValue(ln);
        c->flags &= ~CLIENT_PENDING_WRITE;
        listDelNode(server.clients_pending_write, ln);
        c->pending_write_node = NULL;
        if (c->flags & CLIENT_CLOSE_ASAP) continue;
        processed++;
        if (aeGetFileEvents(server.el, c->fd) & AE_WRITABLE) continue; /* the handler will do it */
        writeToClient(c, 0);
    }
    return processed;
}

void flushReplicaOutputBuffers(void) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if ((c->flags & CLIENT_SLAVE) && !(c->flags & (CLIENT_MONITOR | CLIENT_CLOSE_ASAP)) && c->fd != -1 &&
            clientHasPendingReplies(c))
            writeToClient(c, 0);
    }
}

/* ------------------------------------------------------- output buffer limits */

/* The blocks' bytes and, as Redis counts it, each block's list node and
 * header; for a replica, its part of the shared replication buffer. */
unsigned long getClientOutputBufferMemoryUsage(client *c) {
    return c->reply_bytes + replBufClientMemory(c) +
           listLength(c->reply) * (sizeof(listNode) + sizeof(clientReplyBlock));
}

int getClientType(client *c) {
    if (c->flags & CLIENT_MASTER) return 3; /* "master": CLIENT LIST/KILL only, no buffer limits */
    if ((c->flags & CLIENT_SLAVE) && !(c->flags & CLIENT_MONITOR)) return CLIENT_TYPE_REPLICA;
    if ((c->flags & CLIENT_PUBSUB) && !(c->flags & CLIENT_MONITOR)) return CLIENT_TYPE_PUBSUB;
    return CLIENT_TYPE_NORMAL;
}

int getClientTypeByName(const char *name) {
    if (!strcasecmp(name, "normal")) return CLIENT_TYPE_NORMAL;
    if (!strcasecmp(name, "slave") || !strcasecmp(name, "replica")) return CLIENT_TYPE_REPLICA;
    if (!strcasecmp(name, "pubsub")) return CLIENT_TYPE_PUBSUB;
    if (!strcasecmp(name, "master")) return 3;
    return -1;
}

const char *getClientTypeName(int class) {
    switch (class) {
    case CLIENT_TYPE_NORMAL: return "normal";
    case CLIENT_TYPE_REPLICA: return "slave";
    case CLIENT_TYPE_PUBSUB: return "pubsub";
    default: return NULL;
    }
}

static int outputBufferLimitReached(client *c) {
    unsigned long used = getClientOutputBufferMemoryUsage(c);
    /* A client that has not authenticated gets no more than what fits the
     * static buffer plus 1 KB (CVE-2025-21605): otherwise it could pipeline
     * commands, never read the -NOAUTH replies and grow its buffer unbounded. */
    if (used > 1024 && accessAuthRequired(c)) return 1;
    int class = getClientType(c);
    if (class >= CLIENT_TYPE_COUNT) class = CLIENT_TYPE_NORMAL; /* the master, as Redis */
    clientBufferLimitsConfig *lim = &server.client_obuf_limits[class];
    /* A replica's hard limit below repl-backlog-size would drop it right
     * after a partial resync the backlog allowed: the backlog's size counts
     * instead (as Redis 7.0; its part of the buffer is the backlog's anyway). */
    unsigned long long hard = lim->hard_limit_bytes;
    if (class == CLIENT_TYPE_REPLICA && hard && hard < (unsigned long long)server.repl_backlog_size)
        hard = (unsigned long long)server.repl_backlog_size;
    if (hard && used >= hard) return 1;
    if (lim->soft_limit_bytes && used >= lim->soft_limit_bytes) {
        if (c->obuf_soft_limit_reached_time == 0) {
            c->obuf_soft_limit_reached_time = server.unixtime;
            return 0;
        }
        return server.unixtime - c->obuf_soft_limit_reached_time > lim->soft_limit_seconds;
    }
    c->obuf_soft_limit_reached_time = 0;
    return 0;
}

void checkClientOutputBufferLimits(client *c) {
    if (c->fd == -1 || (c->flags & CLIENT_CLOSE_ASAP)) return;
    if (outputBufferLimitReached(c)) {
        sds info = catClientInfoString(sdsempty(), c);
        serverLog(LL_WARNING, "Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", info);
        sdsfree(info);
        server.stat_client_outbuf_limit_disconnections++;
        freeClientAsync(c);
    }
}

/* ------------------------------------------------------------------ parsing */

static void setProtocolError(client *c, const char *errstr) {
    sds err = sdscatprintf(sdsempty(), "Protocol error: %s", errstr);
    addReplyErrorSds(c, err);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    serverLog(LL_VERBOSE, "Protocol error (%s) from client: id=%llu addr=%s", errstr,
              (unsigned long long)c->id, c->addr);
}

static int processInlineBuffer(client *c) {
    char err[RESP_ERR_LEN];
    sds *argv;
    int argc;
    size_t consumed;
    int rc = respParseInline(c->querybuf + c->qb_pos, sdslen(c->querybuf) - c->qb_pos, &argv, &argc, &consumed, err);
    if (rc != RESP_PARSE_OK) {
        if (rc == RESP_PARSE_ERR) setProtocolError(c, err);
        return C_ERR;
    }
    c->qb_pos += consumed;
    c->raw_start = -1;
    if (argc) {
        c->argv = zmalloc(sizeof(robj *) * argc);
        c->argv_len = argc;
    }
    for (int j = 0; j < argc; j++) {
        c->argv[c->argc++] = createObject(OBJ_STRING, argv[j]);
        c->argv_len_sum += sdslen(argv[j]);
    }
    zfree(argv);
    return C_OK;
}

static int processMultibulkBuffer(client *c) {
    char err[RESP_ERR_LEN];
    long long ll;
    size_t consumed;
    if (c->multibulklen == 0) {
        int rc = respParseMultibulkHeader(c->querybuf + c->qb_pos, sdslen(c->querybuf) - c->qb_pos, !accessAuthRequired(c),
                                          &ll, &consumed, err);
        if (rc != RESP_PARSE_OK) {
            if (rc == RESP_PARSE_ERR) setProtocolError(c, err);
            return C_ERR;
        }
        c->raw_start = (long)c->qb_pos;
        c->qb_pos += consumed;
        if (ll <= 0) return C_OK;
        c->multibulklen = ll;
        if (c->argv) zfree(c->argv);
        c->argv_len = c->multibulklen < 1024 ? c->multibulklen : 1024;
        c->argv = zmalloc(sizeof(robj *) * c->argv_len);
        c->raw_argv = c->argv;
        c->argv_len_sum = 0;
    }
    while (c->multibulklen) {
        if (c->bulklen == -1) {
            int rc = respParseBulkHeader(c->querybuf + c->qb_pos, sdslen(c->querybuf) - c->qb_pos, !accessAuthRequired(c),
                                         (c->flags & CLIENT_LUA) ? -1 : server.proto_max_bulk_len, &ll, &consumed, err);
            if (rc == RESP_PARSE_ERR) {
                setProtocolError(c, err);
                return C_ERR;
            }
            if (rc == RESP_PARSE_MORE) break;
            c->qb_pos += consumed;
            if (ll >= PROTO_MBULK_BIG_ARG && !(c->flags & CLIENT_MASTER)) {
                /* A big argument: make room for it in one go so the read lands in place. */
                if (sdslen(c->querybuf) - c->qb_pos <= (size_t)ll + 2) {
                    sdsrange(c->querybuf, c->qb_pos, -1);
                    c->qb_pos = 0;
                    c->prefetched_to = 0;
                    c->raw_start = -1;
                    c->querybuf = sdsMakeRoomForNonGreedy(c->querybuf, ll + 2 - sdslen(c->querybuf));
                }
            }
            c->bulklen = ll;
        }
        if (sdslen(c->querybuf) - c->qb_pos < (size_t)(c->bulklen + 2)) break;
        if (c->argc >= c->argv_len) {
            c->argv_len = c->argv_len * 2 < c->multibulklen + c->argc ? c->argv_len * 2 : c->multibulklen + c->argc;
            if (c->argv_len <= c->argc) c->argv_len = c->argc + 1;
            c->argv = zrealloc(c->argv, sizeof(robj *) * c->argv_len);
            c->raw_argv = c->argv;
        }
        if (c->qb_pos == 0 && c->bulklen >= PROTO_MBULK_BIG_ARG && sdslen(c->querybuf) == (size_t)(c->bulklen + 2) &&
            !(c->flags & CLIENT_MASTER)) {
            /* The buffer holds exactly this argument: hand it over without copying. */
            sdsincrlen(c->querybuf, -2);
            c->raw_start = -1;
            c->argv[c->argc++] = createObject(OBJ_STRING, c->querybuf);
            c->argv_len_sum += c->bulklen;
            /* Another big argument is likely to follow: room for one like it
             * (cron gives it back when the client goes quiet). */
            c->querybuf = sdsMakeRoomForNonGreedy(sdsempty(), (size_t)c->bulklen + 2);
            c->prefetched_to = 0;
        } else {
            c->argv[c->argc++] = createStringObject(c->querybuf + c->qb_pos, c->bulklen);
            c->argv_len_sum += c->bulklen;
            c->qb_pos += c->bulklen + 2;
        }
        c->bulklen = -1;
        c->multibulklen--;
    }
    return c->multibulklen == 0 ? C_OK : C_ERR;
}

void feedMasterStreamIfDone(client *c) {
    /* A transaction of the master's stream counts once its EXEC ran (as
     * Redis): a link lost inside it discards it, and it comes again. A
     * command a pause holds counts when it runs (processUnblockedClients). */
    if (!(c->flags & CLIENT_MASTER) || (c->flags & (CLIENT_MULTI | CLIENT_BLOCKED))) return;
    masterStreamApplied(c, c->querybuf + c->repl_unfed, c->qb_pos - c->repl_unfed);
    c->repl_unfed = c->qb_pos;
}

void processInputBuffer(client *c) {
    while (c->qb_pos < sdslen(c->querybuf)) {
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP)) break;
        if (c->flags & CLIENT_EXECUTING) break; /* its own script is still running */
        if (c->qb_pos >= c->prefetched_to) prefetchQueuedKeys(c);
        if (!c->reqtype) c->reqtype = c->querybuf[c->qb_pos] == '*' ? PROTO_REQ_MULTIBULK : PROTO_REQ_INLINE;
        if (c->reqtype == PROTO_REQ_INLINE) {
            if (processInlineBuffer(c) != C_OK) break;
        } else {
            if (processMultibulkBuffer(c) != C_OK) break;
        }
        if (c->argc == 0) {
            resetClient(c);
            continue;
        }
        /* A replica sends ACKs and nothing that is answered (see prepareClientToWriteSlow). */
        if (c->flags & CLIENT_SLAVE) c->flags |= CLIENT_REPLICA_CMD;
        int done = dispatchProcess(c) == C_OK;
        c->flags &= ~CLIENT_REPLICA_CMD;
        if (done && !(c->flags & CLIENT_BLOCKED)) resetClient(c);
        feedMasterStreamIfDone(c);
        /* Its reply and what the command kept (MULTI queue, WATCHes, subscriptions). */
        updateClientMemUsage(c);
        if (c->flags & CLIENT_CLOSE_ASAP) break;
    }
    /* The master's bytes of an open transaction stay until its EXEC. */
    size_t done = (c->flags & CLIENT_MASTER) ? c->repl_unfed : c->qb_pos;
    if (done) {
        c->raw_start = -1; /* a command begun here moves, its start cut off */
        sdsrange(c->querybuf, done, -1);
        c->qb_pos -= done;
        c->prefetched_to = c->prefetched_to > done ? c->prefetched_to - done : 0;
        c->repl_unfed = 0;
    }
    /* A big argument still arriving sits in the query buffer: it counts now. */
    updateClientMemUsage(c);
}

static void readQueryFromClient(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)mask;
    client *c = privdata;
    size_t readlen = PROTO_IOBUF_LEN;
    int big_arg = 0;
    server.stat_total_reads_processed++;
    if (c->reqtype == PROTO_REQ_MULTIBULK && c->multibulklen && c->bulklen != -1 &&
        c->bulklen >= PROTO_MBULK_BIG_ARG) {
        ssize_t remaining = (ssize_t)(c->bulklen + 2) - (ssize_t)(sdslen(c->querybuf) - c->qb_pos);
        if (remaining > 0) {
            readlen = remaining;
            big_arg = 1;
        }
    }
    size_t qblen = sdslen(c->querybuf);
    if (c->querybuf_peak < qblen + readlen) c->querybuf_peak = qblen + readlen;
    /* Exactly what is needed for one big argument, and for a first buffer
     * (which greedy growth would put past the cron's resize threshold). */
    if (!(c->flags & CLIENT_MASTER) && (big_arg || sdsalloc(c->querybuf) < PROTO_IOBUF_LEN)) {
        c->querybuf = sdsMakeRoomForNonGreedy(c->querybuf, readlen);
    } else {
        c->querybuf = sdsMakeRoomFor(c->querybuf, readlen);
        /* Our master's stream: all the buffer takes, in one read (as Redis
         * 7.0). 16 kB a turn of the loop is slower than a busy master writes,
         * and a replica that fell behind would stay behind. */
        if (c->flags & CLIENT_MASTER) readlen = sdsavail(c->querybuf);
    }
    ssize_t nread = connRead(fd, c->querybuf + qblen, readlen);
    if (nread == -1) {
        if (errno == EAGAIN || errno == EINTR) return;
        serverLog(LL_VERBOSE, "Reading from client: %s", connError(fd));
        freeClient(c);
        return;
    }
    if (nread == 0) {
        serverLog(LL_VERBOSE, "Client closed connection id=%llu addr=%s", (unsigned long long)c->id, c->addr);
        freeClient(c);
        return;
    }
    sdsincrlen(c->querybuf, nread);
    c->lastinteraction = c->lastread = server.unixtime;
    c->net_input_bytes += nread;
    server.stat_net_input_bytes += nread;
    if (sdslen(c->querybuf) > server.client_max_querybuf_len) {
        sds ci = catClientInfoString(sdsempty(), c);
        serverLog(LL_WARNING, "Closing client that reached max query buffer length: %s", ci);
        sdsfree(ci);
        server.stat_client_qbuf_limit_disconnections++;
        freeClient(c);
        return;
    }
    processInputBuffer(c);
}

/* ------------------------------------------------------------ argv rewriting */

/* Before the first rewrite of a command's argv, keep the vector as sent. */
static void retainOriginalCommandVector(client *c) {
    if (c->original_argv) return;
    c->original_argc = c->argc;
    c->original_argv = zmalloc(sizeof(robj *) * c->argc);
    for (int j = 0; j < c->argc; j++) {
        c->original_argv[j] = c->argv[j];
        incrRefCount(c->argv[j]);
    }
}

void redactClientCommandArgument(client *c, int argc) {
    retainOriginalCommandVector(c);
    if (argc >= c->original_argc || c->original_argv[argc] == shared.redacted) return;
    decrRefCount(c->original_argv[argc]);
    c->original_argv[argc] = shared.redacted;
}

void replaceClientCommandVector(client *c, int argc, robj **argv) {
    retainOriginalCommandVector(c);
    robj **original = c->original_argv;
    int original_argc = c->original_argc;
    c->original_argv = NULL; /* freeClientArgv must not free it */
    freeClientArgv(c);
    c->original_argv = original;
    c->original_argc = original_argc;
    c->argv = argv;
    c->argc = argc;
    c->argv_len = argc;
}

void rewriteClientCommandVector(client *c, int argc, ...) {
    va_list ap;
    robj **argv = zmalloc(sizeof(robj *) * argc);
    va_start(ap, argc);
    for (int j = 0; j < argc; j++) {
        argv[j] = va_arg(ap, robj *);
        incrRefCount(argv[j]);
    }
    va_end(ap);
    struct redisCommand *cmd = c->cmd;
    replaceClientCommandVector(c, argc, argv);
    c->cmd = cmd;
}

/* ------------------------------------------------------------ CLIENT LIST etc. */

static sds catClientFlags(sds s, client *c) {
    /* Letters in Redis's order. */
    char flags[16], *p = flags;
    if (c->flags & CLIENT_MONITOR) *p++ = 'O';
    else if (c->flags & CLIENT_SLAVE) *p++ = 'S';
    if (c->flags & CLIENT_MASTER) *p++ = 'M';
    if (c->flags & CLIENT_PUBSUB) *p++ = 'P';
    if (c->flags & CLIENT_MULTI) *p++ = 'x';
    if (c->flags & CLIENT_BLOCKED) *p++ = 'b';
    if (c->tracking_flags & TRACKING_ON) *p++ = 't';
    if (c->tracking_flags & TRACKING_BROKEN_REDIR) *p++ = 'R';
    if (c->tracking_flags & TRACKING_BCAST) *p++ = 'B';
    if (c->flags & CLIENT_DIRTY_CAS) *p++ = 'd';
    if (c->flags & CLIENT_CLOSE_AFTER_REPLY) *p++ = 'c';
    if (c->flags & CLIENT_CLOSE_ASAP) *p++ = 'A';
    if (c->flags & CLIENT_UNIX_SOCKET) *p++ = 'U';
    if (c->flags & CLIENT_NO_EVICT) *p++ = 'e';
    if (p == flags) *p++ = 'N';
    *p = '\0';
    return sdscat(s, flags);
}

sds catClientInfoString(sds s, client *c) {
    char events[3], *p = events;
    if (c->fd != -1) {
        int mask = aeGetFileEvents(server.el, c->fd);
        if (mask & AE_READABLE) *p++ = 'r';
        if (mask & AE_WRITABLE) *p++ = 'w';
    }
    *p = '\0';
    size_t obufmem;
    size_t total_mem = getClientMemoryUsage(c, &obufmem);
    s = sdscatprintf(s, "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=",
                     (unsigned long long)c->id, c->addr, c->laddr, c->fd, c->name ? (char *)objectPtr(c->name) : "",
                     (long long)(server.unixtime - c->ctime), (long long)(server.unixtime - c->lastinteraction));
    s = catClientFlags(s, c);
    s = sdscatprintf(s,
                     " db=%d sub=%d psub=%d ssub=%d multi=%d qbuf=%zu qbuf-free=%zu argv-mem=%zu multi-mem=%zu "
                     "rbs=%zu rbp=%zu obl=%d oll=%lu omem=%zu tot-mem=%zu events=%s cmd=%s user=%s "
                     "redir=%lld resp=%d",
                     c->db->id, c->pubsub_channels ? (int)dictSize(c->pubsub_channels) : 0,
                     (int)listLength(c->pubsub_patterns),
                     c->pubsubshard_channels ? (int)dictSize(c->pubsubshard_channels) : 0, (c->flags & CLIENT_MULTI) ? c->mstate.count : -1,
                     sdslen(c->querybuf), sdsavail(c->querybuf), c->argv_len_sum, c->mstate.argv_len_sums, c->buf_usable_size,
                     c->buf_peak, c->bufpos, listLength(c->reply) + replBufClientBlocks(c), obufmem, total_mem, events,
                     c->lastcmd ? c->lastcmd->fullname : "NULL", accessUserName(c),
                     (c->tracking_flags & TRACKING_ON) ? (long long)c->tracking_redirection : -1LL, c->resp);
    return s;
}

sds getAllClientsInfoString(int type) {
    sds s = sdsempty();
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (type != -1 && getClientType(c) != type) continue;
        s = catClientInfoString(s, c);
        s = sdscatlen(s, "\n", 1);
    }
    return s;
}

/* Idle timeout and query buffer housekeeping, a slice of clients per cron run. */
/* Query buffers wasting more than 4 KB shrink as in Redis 7.0: entirely
 * once the client is idle for more than 2 s, or, above 32 KB, down to the
 * peak seen since the last cron (never below what is buffered or the bulk
 * being read), so one big request does not pin its buffer for good. */
static void resizeQueryBuffer(client *c) {
    size_t size = sdsalloc(c->querybuf);
    if (sdsavail(c->querybuf) > 1024 * 4) {
        if (server.unixtime - c->lastinteraction > 2) {
            c->querybuf = sdsRemoveFreeSpace(c->querybuf);
        } else if (size > PROTO_RESIZE_THRESHOLD && size / 2 > c->querybuf_peak) {
            size_t resize = sdslen(c->querybuf);
            if (resize < c->querybuf_peak) resize = c->querybuf_peak;
            if (c->bulklen != -1 && resize < (size_t)c->bulklen) resize = (size_t)c->bulklen;
            c->querybuf = sdsResize(c->querybuf, resize);
        }
    }
    c->querybuf_peak = sdslen(c->querybuf);
    if (c->bulklen != -1 && (size_t)c->bulklen > c->querybuf_peak) c->querybuf_peak = (size_t)c->bulklen;
}

/* The reply buffer follows what the client needs, as in Redis 7.0: twice
 * as big (up to 16 KB) when its recent peak filled it, half as big (down
 * to 1 KB) when the peak used less than half. The peak is forgotten every
 * reply_buffer_peak_reset_time, so an idle client's buffer shrinks. */
static void resizeReplyBuffer(client *c) {
    if (!server.reply_buffer_resizing_enabled) return;
    size_t size = 0;
    if (c->buf_usable_size / 2 >= PROTO_REPLY_MIN_BYTES && c->buf_peak < c->buf_usable_size / 2) {
        size = c->buf_peak + 1 > PROTO_REPLY_MIN_BYTES ? c->buf_peak + 1 : PROTO_REPLY_MIN_BYTES;
        server.stat_reply_buffer_shrinks++;
    } else if (c->buf_usable_size * 2 < PROTO_REPLY_CHUNK_BYTES * 2 && c->buf_peak == c->buf_usable_size) {
        size = c->buf_usable_size * 2 < PROTO_REPLY_CHUNK_BYTES ? c->buf_usable_size * 2 : PROTO_REPLY_CHUNK_BYTES;
        server.stat_reply_buffer_expands++;
    }
    if (server.reply_buffer_peak_reset_time >= 0 &&
        server.mstime - c->buf_peak_last_reset_time >= server.reply_buffer_peak_reset_time) {
        c->buf_peak = (size_t)c->bufpos;
        c->buf_peak_last_reset_time = server.mstime;
    }
    if (!size) return;
    char *old = c->buf;
    c->buf = zmalloc(size);
    c->buf_usable_size = zmalloc_size(c->buf);
    memcpy(c->buf, old, c->bufpos);
    zfree(old);
}

void clientsCron(void) {
    int numclients = listLength(server.clients);
    int iterations = numclients / server.hz;
    if (iterations < 5) iterations = numclients < 5 ? numclients : 5;
    while (listLength(server.clients) && iterations--) {
        listNode *head = listFirst(server.clients);
        client *c = listNodeValue(head);
        listMoveNodeToTail(server.clients, head);
        c->client_list_node = listLast(server.clients);
        if (server.maxidletime &&
            !(c->flags & (CLIENT_MONITOR | CLIENT_BLOCKED | CLIENT_PUBSUB | CLIENT_SLAVE | CLIENT_MASTER)) &&
            server.unixtime - c->lastinteraction > server.maxidletime) {
            serverLog(LL_VERBOSE, "Closing idle client");
            freeClient(c);
            continue;
        }
        if (!(c->flags & CLIENT_BLOCKED)) resizeQueryBuffer(c);
        resizeReplyBuffer(c);
        refreshClientMemUsage(c);
        /* A soft limit runs out with the clock too, not only when more output comes. */
        checkClientOutputBufferLimits(c);
    }
}

int commandEnabledFor(client *c, int setting) {
    if (setting == PROTECTED_ACTION_ALLOWED_YES) return 1;
    return setting == PROTECTED_ACTION_ALLOWED_LOCAL && ((c->flags & CLIENT_UNIX_SOCKET) || !strncmp(c->addr, "127.0.0.1:", 10) ||
                            !strncmp(c->addr, "::1:", 4));
}

void closeListeningSockets(int unlink_unix_socket) {
    for (int j = 0; j < server.ipfd_count; j++) close(server.ipfd[j]);
    server.ipfd_count = 0;
    if (server.sofd != -1) close(server.sofd);
    server.sofd = -1;
    if (unlink_unix_socket && server.unixsocket) unlink(server.unixsocket);
}
