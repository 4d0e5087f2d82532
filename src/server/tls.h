/* tls: TLS connections as Redis 7.0 has them (tls.c), and the connection
 * calls every socket of the server goes through.
 *
 * A connection is its file descriptor, as for a plain socket; a TLS one has
 * a session attached to that fd (tlsAccept / tlsConnect), which connRead,
 * connWrite, connWritev and connClose find inline: a plain socket pays one
 * compare (no session table at all until TLS is used) and a direct system
 * call, no indirect call. Users: client connections (networking), the
 * replication link on both sides (repl/), and the cluster bus's links with
 * tls-cluster yes (tlsAcceptNode in, tlsConnect out).
 *
 * Handshakes run in the event loop without blocking it: the fd belongs to
 * tls.c until the handshake ends, then the caller's callback gets it. */
#ifndef SERVER_TLS_H
#define SERVER_TLS_H

#include "server/server.h"
#include "core/anet.h"

#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

typedef struct tlsConn tlsConn;
/* The session of each fd (NULL: plain), tlsConnSlots entries long. */
extern tlsConn **tlsConnTable;
extern int tlsConnSlots;

static inline tlsConn *tlsConnOf(int fd) { return (unsigned)fd < (unsigned)tlsConnSlots ? tlsConnTable[fd] : NULL; }
static inline int connIsTls(int fd) { return tlsConnOf(fd) != NULL; }

ssize_t tlsRead(tlsConn *t, void *buf, size_t len);
ssize_t tlsWrite(tlsConn *t, const void *buf, size_t len);
ssize_t tlsWritev(tlsConn *t, const struct iovec *iov, int iovcnt);
void tlsClose(tlsConn *t);

/* As recv(2)/write(2)/writev(2)/close(2): -1 with errno EAGAIN when the
 * session must wait for the socket, -1 with another errno on an error
 * (connError says what), 0 at the end of the stream. */
static inline ssize_t connRead(int fd, void *buf, size_t len) {
    tlsConn *t = tlsConnOf(fd);
    return t ? tlsRead(t, buf, len) : anetRecv(fd, buf, len);
}
static inline ssize_t connWrite(int fd, const void *buf, size_t len) {
    tlsConn *t = tlsConnOf(fd);
    return t ? tlsWrite(t, buf, len) : write(fd, buf, len);
}
static inline ssize_t connWritev(int fd, const struct iovec *iov, int iovcnt) {
    tlsConn *t = tlsConnOf(fd);
    return t ? tlsWritev(t, iov, iovcnt) : anetWriteIov(fd, iov, iovcnt);
}
static inline int connClose(int fd) {
    tlsConn *t = tlsConnOf(fd);
    if (t) tlsClose(t);
    return close(fd);
}
/* The last error of connRead/connWrite on fd: OpenSSL's text for a TLS
 * session, strerror(errno) otherwise. */
const char *connError(int fd);

/* After the config is read, and when tls-port is first set later: sets up TLS
 * when tls-port, tls-replication or tls-cluster asks for it (loads OpenSSL,
 * builds the contexts). C_ERR, with Redis's log lines, when the
 * certificates or settings are not usable. */
int tlsInit(void);
/* Config apply hook of every tls-* directive that makes the contexts
 * (certificates, keys, CAs, protocols, ciphers, session cache, DH params):
 * builds new contexts from the current values; new connections use them,
 * established ones keep theirs. Refuses (and the old values come back) with
 * Redis's error when they are not usable; while nothing uses TLS, accepts
 * anything, as Redis (checked by the next change while TLS is in use; a
 * port opened again meanwhile serves the contexts made last). */
int tlsApplyConfig(const char **err);

/* Whether the contexts exist (tlsInit, or a CONFIG SET that needed them). */
int tlsConfigured(void);

/* An accepted fd on the TLS port: the server side of a handshake. done runs
 * once it succeeded, with ip as given; on failure the fd is closed (Redis's
 * "Error accepting a client connection" line) and done never runs. */
typedef void tlsAcceptDone(int fd, const char *ip);
void tlsAccept(int fd, const char *ip, tlsAcceptDone *done);
/* The same for a cluster bus peer (tls-cluster): a certificate is required
 * whatever tls-auth-clients says, and a failure is Redis's verbose "Error
 * accepting cluster node connection" line, as 7.0. */
void tlsAcceptNode(int fd, const char *ip, tlsAcceptDone *done);
/* A connected fd (a replica's link to its master, a cluster bus link): the client side of a
 * handshake, with the client certificate (tls-client-cert-file, else
 * tls-cert-file). done(fd, ok, privdata): ok 0 with connError(fd)'s text in
 * err when it failed (the fd is then plain again, still open). */
typedef void tlsConnectDone(int fd, int ok, const char *err, void *privdata);
void tlsConnect(int fd, tlsConnectDone *done, void *privdata);

/* The client side of a handshake that waits (up to timeout_ms) for its end:
 * for a command that talks to another server synchronously (MIGRATE with
 * tls-cluster, as Redis 7.0). C_ERR: the fd is plain again, still open. */
int tlsConnectBlocking(int fd, long long timeout_ms);

/* Before the loop sleeps (first): sessions holding decrypted bytes the
 * last read left behind get their readable handler run, as the socket will
 * not say it is readable for them. */
void tlsProcessPending(void);
/* The cron: handshakes older than `timeout` seconds (when set) are closed,
 * as Redis closes idle clients. */
void tlsCron(void);

#endif
