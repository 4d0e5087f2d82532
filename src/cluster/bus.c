/* bus: listeners, links and framing of the cluster bus (bus.h). A link's
 * input is kept only as it arrives: the length a message claims is checked
 * against the signature and a bound first, and the buffer grows with the
 * bytes actually read, never by the claim. With tls-cluster yes every link
 * is TLS (server/tls.h's connection calls): an inbound one exists once its
 * handshake succeeded; an outbound one stays "connecting" through it. */
#include "cluster/bus.h"

#include "cluster/gossip.h"
#include "core/ae.h"
#include "core/anet.h"
#include "core/clock.h"
#include "core/zmalloc.h"
#include "server/tls.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_LISTENERS 16
#define READ_CHUNK 16384
/* No bus message is this long: a PUBLISH is bounded by the bulk length the
 * sender accepted from its client; beyond this the link is broken. */
#define MAX_MESSAGE_LEN (1024LL * 1024 * 1024)

static int listen_fds[MAX_LISTENERS];
static int listen_count;

/* Every live link, for CLUSTER LINKS, the memory figure and the buffer check. */
static clusterLink **links;
static int nlinks;

int clusterDataPort(void) { return server.tls_cluster ? server.tls_port : server.port; }
int clusterBusPort(void) { return server.cluster_port ? server.cluster_port : clusterDataPort() + 10000; }

static void acceptHandler(aeEventLoop *el, int fd, void *data, int mask);

int clusterBusListen(void) {
    int port = clusterBusPort();
    char err[ANET_ERR_LEN];
    for (int j = 0; j < server.bindaddr_count && listen_count < MAX_LISTENERS; j++) {
        const char *addr = server.bindaddr[j];
        int optional = *addr == '-';
        if (optional) addr++;
        int fd = anetTcpServer(err, port, addr, server.tcp_backlog);
        if (fd == ANET_ERR) {
            if (optional) continue;
            serverLog(LL_WARNING, "Warning: Could not create server TCP listening socket %s:%d: %s", addr, port, err);
            serverLog(LL_WARNING, "Failed listening on port %d (TCP), aborting.", port);
            return C_ERR;
        }
        anetNonBlock(NULL, fd);
        listen_fds[listen_count++] = fd;
    }
    if (listen_count == 0) {
        serverLog(LL_WARNING, "Failed listening on port %d (TCP), aborting.", port);
        return C_ERR;
    }
    for (int j = 0; j < listen_count; j++)
        if (aeCreateFileEvent(server.el, listen_fds[j], AE_READABLE, acceptHandler, NULL) == AE_ERR) return C_ERR;
    return C_OK;
}

void clusterBusClose(void) {
    for (int j = 0; j < listen_count; j++) {
        aeDeleteFileEvent(server.el, listen_fds[j], AE_READABLE);
        close(listen_fds[j]);
    }
    listen_count = 0;
}

/* ------------------------------------------------------------------- links */

clusterLink *createClusterLink(clusterNode *node) {
    clusterLink *link = zcalloc(sizeof(*link));
    link->fd = -1;
    link->ctime = mstime();
    link->node = node;
    link->sndbuf = sdsempty();
    links = zrealloc(links, sizeof(*links) * (size_t)(nlinks + 1));
    links[nlinks++] = link;
    return link;
}

void freeClusterLink(clusterLink *link) {
    if (link->fd != -1) {
        aeDeleteFileEvent(server.el, link->fd, AE_READABLE | AE_WRITABLE);
        connClose(link->fd); /* a handshake still running ends with it */
    }
    sdsfree(link->sndbuf);
    zfree(link->rcvbuf);
    if (link->node) {
        if (link->node->link == link) link->node->link = NULL;
        else if (link->node->inbound_link == link) link->node->inbound_link = NULL;
    }
    for (int j = 0; j < nlinks; j++)
        if (links[j] == link) {
            links[j] = links[--nlinks];
            break;
        }
    zfree(link);
}

size_t clusterLinkPending(const clusterLink *link) { return sdslen(link->sndbuf) - link->sndpos; }

size_t clusterLinksMemory(void) {
    size_t total = 0;
    for (int j = 0; j < nlinks; j++)
        total += sizeof(clusterLink) + sdsAllocSize(links[j]->sndbuf) + links[j]->rcvcap;
    return total;
}

void clusterCheckLinkBuffers(void) {
    if (!server.cluster_link_sendbuf_limit) return;
    for (int j = nlinks - 1; j >= 0; j--) {
        clusterLink *link = links[j];
        if ((long long)clusterLinkPending(link) <= server.cluster_link_sendbuf_limit) continue;
        serverLog(LL_WARNING,
                  "Freeing cluster link(%s node %.40s, used memory: %zu) due to exceeding send buffer memory limit.",
                  link->inbound ? "from" : "to", link->node ? link->node->name : "", sdsAllocSize(link->sndbuf));
        cluster->stat_links_buffer_limit_exceeded++;
        freeClusterLink(link);
    }
}

static void writeHandler(aeEventLoop *el, int fd, void *data, int mask);

static void linkWantsWrite(clusterLink *link) {
    if (link->fd != -1 && !link->connecting && !(aeGetFileEvents(server.el, link->fd) & AE_WRITABLE))
        aeCreateFileEvent(server.el, link->fd, AE_WRITABLE, writeHandler, link);
}

void clusterSendRaw(clusterLink *link, const void *buf, size_t len) {
    /* What is written is dropped from the front once it is more than half. */
    if (link->sndpos && link->sndpos * 2 > sdslen(link->sndbuf)) {
        sdsrange(link->sndbuf, (ssize_t)link->sndpos, -1);
        link->sndpos = 0;
    }
    link->sndbuf = sdscatlen(link->sndbuf, buf, len);
    linkWantsWrite(link);
}

static void writeHandler(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)mask;
    clusterLink *link = data;
    while (clusterLinkPending(link)) {
        ssize_t n = connWrite(fd, link->sndbuf + link->sndpos, clusterLinkPending(link));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        if (n <= 0) {
            serverLog(LL_DEBUG, "I/O error writing to node link: %s", n == 0 ? "connection closed" : connError(fd));
            freeClusterLink(link); /* an outbound one is made again by the cron */
            return;
        }
        link->sndpos += (size_t)n;
    }
    sdsclear(link->sndbuf);
    link->sndpos = 0;
    aeDeleteFileEvent(server.el, fd, AE_WRITABLE);
}

/* ------------------------------------------------------------------ input */

static void readHandler(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)mask;
    clusterLink *link = data;
    for (;;) {
        if (link->rcvcap - link->rcvlen < READ_CHUNK) {
            size_t cap = link->rcvcap ? link->rcvcap * 2 : READ_CHUNK * 2;
            link->rcvbuf = zrealloc(link->rcvbuf, cap);
            link->rcvcap = cap;
        }
        ssize_t n = connRead(fd, link->rcvbuf + link->rcvlen, link->rcvcap - link->rcvlen);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (n <= 0) {
            serverLog(LL_DEBUG, "I/O error reading from node link: %s", n == 0 ? "connection closed" : connError(fd));
            freeClusterLink(link); /* an outbound one is made again by the cron */
            return;
        }
        link->rcvlen += (size_t)n;
        /* Whole messages are handed on as they complete. */
        size_t pos = 0;
        while (link->rcvlen - pos >= 8) {
            const unsigned char *m = link->rcvbuf + pos;
            uint32_t totlen = ((uint32_t)m[4] << 24) | ((uint32_t)m[5] << 16) | ((uint32_t)m[6] << 8) | m[7];
            if (memcmp(m, "RCmb", 4) || totlen < MSG_MIN_LEN || totlen > MAX_MESSAGE_LEN) {
                serverLog(LL_WARNING, "Bad message length or signature received on the Cluster bus.");
                freeClusterLink(link); /* an outbound one is made again by the cron */
                return;
            }
            if (link->rcvlen - pos < totlen) break;
            if (!clusterProcessMessage(link, m, totlen)) return; /* the link was freed */
            pos += totlen;
        }
        if (pos) {
            memmove(link->rcvbuf, link->rcvbuf + pos, link->rcvlen - pos);
            link->rcvlen -= pos;
        }
        /* A big buffer left over from a big message shrinks back. */
        if (link->rcvlen == 0 && link->rcvcap > READ_CHUNK * 16) {
            zfree(link->rcvbuf);
            link->rcvbuf = NULL;
            link->rcvcap = 0;
        }
        /* A TLS record holds at most 16 kB: what it left decrypted is served
         * by tlsProcessPending before the loop sleeps. */
        if ((size_t)n < READ_CHUNK) break;
    }
}

/* An accepted connection (its TLS handshake done) becomes a link, whose
 * node is known once its first message names it. */
static void inboundLinkReady(int fd, const char *ip) {
    (void)ip;
    clusterLink *link = createClusterLink(NULL);
    link->fd = fd;
    link->inbound = 1;
    aeCreateFileEvent(server.el, fd, AE_READABLE, readHandler, link);
}

static void acceptHandler(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)data;
    (void)mask;
    for (int max = 1000; max > 0; max--) {
        char ip[NET_IP_STR_LEN], err[ANET_ERR_LEN];
        int port;
        int cfd = anetTcpAccept(err, fd, ip, sizeof(ip), &port);
        if (cfd == ANET_ERR) {
            if (errno != EWOULDBLOCK && errno != EAGAIN)
                serverLog(LL_VERBOSE, "Error accepting cluster node: %s", err);
            return;
        }
        anetNonBlock(NULL, cfd);
        anetEnableTcpNoDelay(NULL, cfd);
        serverLog(LL_VERBOSE, "Accepting cluster node connection from %s:%d", ip, port);
        if (server.tls_cluster) tlsAcceptNode(cfd, ip, inboundLinkReady);
        else inboundLinkReady(cfd, ip);
    }
}

/* ---------------------------------------------------------------- connect */

/* The link is up (connected, and its TLS handshake done): ping first. */
static void outboundLinkReady(clusterLink *link) {
    link->connecting = 0;
    aeCreateFileEvent(server.el, link->fd, AE_READABLE, readHandler, link);
    clusterLinkConnected(link);
    linkWantsWrite(link);
}

static void outboundLinkFailed(clusterLink *link, const char *err) {
    clusterNode *node = link->node;
    serverLog(LL_VERBOSE, "Connection with Node %.40s at %s:%d failed: %s", node->name, node->ip, node->cport, err);
    /* As if the ping had gone: the wait for an answer (failure detection) starts. */
    if (node->ping_sent == 0) node->ping_sent = mstime();
    freeClusterLink(link);
}

static void tlsLinkReady(int fd, int ok, const char *err, void *privdata) {
    (void)fd;
    if (ok) outboundLinkReady(privdata);
    else outboundLinkFailed(privdata, err);
}

static void connectHandler(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el;
    (void)mask;
    clusterLink *link = data;
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1) soerr = errno;
    aeDeleteFileEvent(server.el, fd, AE_WRITABLE);
    if (soerr) outboundLinkFailed(link, strerror(soerr));
    else if (server.tls_cluster) tlsConnect(fd, tlsLinkReady, link); /* the handshake, in the loop */
    else outboundLinkReady(link);
}

int clusterConnectNode(clusterNode *node) {
    char err[ANET_ERR_LEN];
    int fd = anetTcpNonBlockConnect(err, node->ip, node->cport, server.bind_source_addr);
    if (fd == ANET_ERR) {
        serverLog(LL_VERBOSE, "Unable to connect to Cluster Node [%s]:%d -> %s", node->ip, node->cport, err);
        return C_ERR;
    }
    anetEnableTcpNoDelay(NULL, fd);
    clusterLink *link = createClusterLink(node);
    link->fd = fd;
    link->connecting = 1;
    node->link = link;
    aeCreateFileEvent(server.el, fd, AE_WRITABLE, connectHandler, link);
    return C_OK;
}
