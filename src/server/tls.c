/* tls: TLS on OpenSSL, as Redis 7.0 speaks it. Two contexts made from the
 * tls-* directives (the server's, for the TLS port; the client's, for our
 * link to a master), a session per TLS fd, and handshakes driven by the
 * event loop. OpenSSL is reached through tlslib.h (loaded with dlopen only
 * when TLS is configured).
 *
 * Why the session table is indexed by fd: every socket user of the server
 * already holds an fd (clients, both ends of the replication link), so
 * switching a call site to TLS is read -> connRead; the plain path stays a
 * direct system call behind one inline compare (tls.h).
 *
 * The log lines and errors are Redis's, read from Debian's redis-server
 * 7.0.15 (a failed handshake: "Error accepting a client connection: <OpenSSL's
 * error>", with " (conn: fd=N)" when it failed at once on accept). */
#include "server/tls.h"
#include "server/tlslib.h"
#include "core/ae.h"
#include "core/zmalloc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct tlsConn {
    SSL *ssl;
    int fd;
    int handshaking;  /* 1 until the handshake ended */
    int pending;      /* listed in pendingFds: SSL holds decrypted bytes */
    time_t started;   /* when the handshake began (the cron's timeout) */
    char ip[NET_IP_STR_LEN];
    tlsAcceptDone *accept_done;   /* server side */
    tlsConnectDone *connect_done; /* client side */
    int node;         /* accepted on the cluster bus: its own failure line */
    void *privdata;
    char err[256];    /* the last error's text (connError) */
};

tlsConn **tlsConnTable;
int tlsConnSlots;

static SSL_CTX *serverCtx, *clientCtx;
static char lastErr[256]; /* an error with no session to keep it in */
static int *pendingFds;
static int pendingCount, pendingCap;
static int handshakes; /* sessions still handshaking, for the cron */

/* OpenSSL's queue of errors as one line (the first reason), as Redis logs it. */
static void takeSslError(char *out, size_t len) {
    unsigned long e = tlslib.ERR_get_error();
    if (e) tlslib.ERR_error_string_n(e, out, len);
    else snprintf(out, len, "%s", errno ? strerror(errno) : "connection closed");
    tlslib.ERR_clear_error();
}

/* ------------------------------------------------------------- contexts */

/* tls-protocols as OpenSSL options, -1 when a word is not a protocol; none
 * given: TLSv1.2 and TLSv1.3, as Redis. */
#define PROTO_TLSV1 1
#define PROTO_TLSV1_1 2
#define PROTO_TLSV1_2 4
#define PROTO_TLSV1_3 8
static int parseProtocols(const char *s) {
    if (!s || !*s) return PROTO_TLSV1_2 | PROTO_TLSV1_3;
    int protos = 0, n;
    sds *words = sdssplitargs(s, &n);
    if (!words) return -1;
    for (int i = 0; i < n; i++) {
        if (!strcasecmp(words[i], "tlsv1")) protos |= PROTO_TLSV1;
        else if (!strcasecmp(words[i], "tlsv1.1")) protos |= PROTO_TLSV1_1;
        else if (!strcasecmp(words[i], "tlsv1.2")) protos |= PROTO_TLSV1_2;
        else if (!strcasecmp(words[i], "tlsv1.3")) protos |= PROTO_TLSV1_3;
        else protos = -1;
        if (protos == -1) break;
    }
    sdsfreesplitres(words, n);
    return protos;
}

static int passwordCallback(char *buf, int size, int rwflag, void *u) {
    (void)rwflag;
    const char *pass = u;
    int len = (int)strlen(pass);
    if (len > size) return -1;
    memcpy(buf, pass, len);
    return len;
}

static int set(const char *s) { return s && *s; }

/* One context from the settings: the server's (client = 0) or the client's.
 * NULL with Redis's log line when something is not usable. */
static SSL_CTX *makeContext(int client, int protos) {
    const char *cert = server.tls_cert_file, *key = server.tls_key_file, *pass = server.tls_key_file_pass;
    if (client && set(server.tls_client_cert_file)) {
        cert = server.tls_client_cert_file;
        key = server.tls_client_key_file;
        pass = server.tls_client_key_file_pass;
    }
    char err[256];
    SSL_CTX *ctx = tlslib.SSL_CTX_new(client ? tlslib.TLS_client_method() : tlslib.TLS_server_method());
    if (!ctx) {
        takeSslError(err, sizeof(err));
        serverLog(LL_WARNING, "Failed to create TLS context: %s", err);
        return NULL;
    }
    uint64_t opts = SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                    SSL_OP_SINGLE_DH_USE;
    if (!(protos & PROTO_TLSV1)) opts |= SSL_OP_NO_TLSv1;
    if (!(protos & PROTO_TLSV1_1)) opts |= SSL_OP_NO_TLSv1_1;
    if (!(protos & PROTO_TLSV1_2)) opts |= SSL_OP_NO_TLSv1_2;
    if (!(protos & PROTO_TLSV1_3)) opts |= SSL_OP_NO_TLSv1_3;
    if (!client && server.tls_prefer_server_ciphers) opts |= SSL_OP_CIPHER_SERVER_PREFERENCE;
    tlslib.SSL_CTX_set_options(ctx, opts);
    /* A reply's write may stop halfway and go on from another address. */
    tlslib.SSL_CTX_ctrl(ctx, SSL_CTRL_MODE, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, NULL);
    if (!client) {
        if (server.tls_session_caching) {
            tlslib.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_MODE, SSL_SESS_CACHE_SERVER, NULL);
            tlslib.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_SIZE, server.tls_session_cache_size, NULL);
            tlslib.SSL_CTX_set_timeout(ctx, server.tls_session_cache_timeout);
            tlslib.SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"redis", 5);
        } else {
            tlslib.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_MODE, SSL_SESS_CACHE_OFF, NULL);
        }
    }
    tlslib.SSL_CTX_set_default_passwd_cb(ctx, passwordCallback);
    tlslib.SSL_CTX_set_default_passwd_cb_userdata(ctx, (void *)(pass ? pass : ""));
    if (tlslib.SSL_CTX_use_certificate_chain_file(ctx, cert) <= 0) {
        takeSslError(err, sizeof(err));
        serverLog(LL_WARNING, "Failed to load certificate: %s: %s", cert, err);
        goto error;
    }
    if (tlslib.SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) <= 0) {
        takeSslError(err, sizeof(err));
        serverLog(LL_WARNING, "Failed to load private key: %s: %s", key, err);
        goto error;
    }
    if (tlslib.SSL_CTX_check_private_key(ctx) <= 0) {
        takeSslError(err, sizeof(err));
        serverLog(LL_WARNING, "Failed to verify private key: %s: %s", key, err);
        goto error;
    }
    const char *cafile = set(server.tls_ca_cert_file) ? server.tls_ca_cert_file : NULL;
    const char *cadir = set(server.tls_ca_cert_dir) ? server.tls_ca_cert_dir : NULL;
    if ((cafile || cadir) && tlslib.SSL_CTX_load_verify_locations(ctx, cafile, cadir) <= 0) {
        takeSslError(err, sizeof(err));
        serverLog(LL_WARNING, "Failed to configure CA certificate(s) file/directory: %s", err);
        goto error;
    }
    if (!client && set(server.tls_dh_params_file)) {
        BIO *bio = tlslib.BIO_new_file(server.tls_dh_params_file, "r");
        EVP_PKEY *dh = bio ? tlslib.PEM_read_bio_Parameters(bio, NULL) : NULL;
        if (bio) tlslib.BIO_free(bio);
        if (!dh) {
            takeSslError(err, sizeof(err));
            serverLog(LL_WARNING, "Failed to load %s: %s", server.tls_dh_params_file, err);
            goto error;
        }
        if (tlslib.SSL_CTX_set0_tmp_dh_pkey(ctx, dh) <= 0) {
            takeSslError(err, sizeof(err));
            serverLog(LL_WARNING, "Failed to load DH params file: %s: %s", server.tls_dh_params_file, err);
            tlslib.EVP_PKEY_free(dh);
            goto error;
        }
    }
    if (set(server.tls_ciphers) && !tlslib.SSL_CTX_set_cipher_list(ctx, server.tls_ciphers)) {
        serverLog(LL_WARNING, "Failed to configure ciphers: %s", server.tls_ciphers);
        goto error;
    }
    if (set(server.tls_ciphersuites) && !tlslib.SSL_CTX_set_ciphersuites(ctx, server.tls_ciphersuites)) {
        serverLog(LL_WARNING, "Failed to configure ciphersuites: %s", server.tls_ciphersuites);
        goto error;
    }
    /* The client verifies the master's certificate against the CAs. */
    if (client) tlslib.SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    tlslib.ERR_clear_error();
    return ctx;
error:
    tlslib.ERR_clear_error();
    tlslib.SSL_CTX_free(ctx);
    return NULL;
}

/* New contexts from the current settings, in place of the old ones (sessions
 * keep a reference to theirs). */
static int configure(void) {
    const char *why;
    if (!tlsLibLoad(&why)) {
        serverLog(LL_WARNING, "%s", why);
        return C_ERR;
    }
    if (!set(server.tls_cert_file)) {
        serverLog(LL_WARNING, "No tls-cert-file configured!");
        return C_ERR;
    }
    if (!set(server.tls_key_file)) {
        serverLog(LL_WARNING, "No tls-key-file configured!");
        return C_ERR;
    }
    if (!set(server.tls_ca_cert_file) && !set(server.tls_ca_cert_dir) &&
        (server.tls_auth_clients != TLS_CLIENT_AUTH_NO || server.tls_replication || server.tls_cluster)) {
        serverLog(LL_WARNING, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                              "tls-replication or tls-auth-clients are enabled!");
        return C_ERR;
    }
    int protos = parseProtocols(server.tls_protocols);
    if (protos == -1) {
        serverLog(LL_WARNING, "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' "
                              "and 'TLSv1.3'.");
        return C_ERR;
    }
    SSL_CTX *s = makeContext(0, protos);
    if (!s) return C_ERR;
    SSL_CTX *c = makeContext(1, protos);
    if (!c) {
        tlslib.SSL_CTX_free(s);
        return C_ERR;
    }
    if (serverCtx) tlslib.SSL_CTX_free(serverCtx);
    if (clientCtx) tlslib.SSL_CTX_free(clientCtx);
    serverCtx = s;
    clientCtx = c;
    return C_OK;
}

int tlsConfigured(void) { return serverCtx != NULL; }

static int wanted(void) { return server.tls_port || server.tls_replication || server.tls_cluster; }

int tlsInit(void) {
    if (!wanted()) return C_OK;
    if (configure() == C_ERR) {
        serverLog(LL_WARNING, "Failed to configure TLS. Check logs for more info.");
        return C_ERR;
    }
    return C_OK;
}

int tlsApplyConfig(const char **err) {
    if (!server.el) return 1; /* reading the config: tlsInit checks it all */
    if (!wanted()) return 1; /* nothing uses TLS: checked once something does, as Redis */
    if (configure() == C_ERR) {
        *err = "Unable to update TLS configuration. Check server logs.";
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------- sessions */

static tlsConn *attach(int fd, SSL_CTX *ctx) {
    if (fd >= tlsConnSlots) {
        int slots = tlsConnSlots ? tlsConnSlots : 1024;
        while (slots <= fd) slots *= 2;
        tlsConnTable = zrealloc(tlsConnTable, sizeof(tlsConn *) * slots);
        memset(tlsConnTable + tlsConnSlots, 0, sizeof(tlsConn *) * (slots - tlsConnSlots));
        tlsConnSlots = slots;
    }
    SSL *ssl = tlslib.SSL_new(ctx);
    if (!ssl) return NULL;
    tlslib.SSL_set_fd(ssl, fd);
    tlsConn *t = zcalloc(sizeof(*t));
    t->ssl = ssl;
    t->fd = fd;
    t->handshaking = 1;
    t->started = server.unixtime;
    handshakes++;
    tlsConnTable[fd] = t;
    return t;
}

static void detach(tlsConn *t) {
    if (t->handshaking) handshakes--;
    tlsConnTable[t->fd] = NULL;
    tlslib.SSL_free(t->ssl);
    zfree(t);
}

void tlsClose(tlsConn *t) {
    if (!t->handshaking) {
        tlslib.SSL_shutdown(t->ssl); /* close_notify, best effort: the socket is non-blocking */
        tlslib.ERR_clear_error();
    }
    detach(t);
}

const char *connError(int fd) {
    tlsConn *t = tlsConnOf(fd);
    return t ? t->err : (errno == EIO && lastErr[0] ? lastErr : strerror(errno));
}

static void markPending(tlsConn *t) {
    if (t->pending || tlslib.SSL_pending(t->ssl) <= 0) return;
    if (pendingCount == pendingCap) {
        pendingCap = pendingCap ? pendingCap * 2 : 16;
        pendingFds = zrealloc(pendingFds, sizeof(int) * pendingCap);
    }
    pendingFds[pendingCount++] = t->fd;
    t->pending = 1;
}

/* An SSL_read/SSL_write result as the system call's. */
static ssize_t result(tlsConn *t, int ret) {
    if (ret > 0) return ret;
    int e = tlslib.SSL_get_error(t->ssl, ret);
    switch (e) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_ZERO_RETURN: /* close_notify: the peer ended the session */
        return 0;
    case SSL_ERROR_SYSCALL:
        if (errno == 0 && !tlslib.ERR_peek_error()) return 0;
        /* fall through */
    default:
        takeSslError(t->err, sizeof(t->err));
        errno = EIO;
        return -1;
    }
}

ssize_t tlsRead(tlsConn *t, void *buf, size_t len) {
    if (t->handshaking) {
        errno = EAGAIN;
        return -1;
    }
    tlslib.ERR_clear_error();
    errno = 0;
    ssize_t n = result(t, tlslib.SSL_read(t->ssl, buf, len > INT_MAX ? INT_MAX : (int)len));
    if (n > 0) markPending(t);
    return n;
}

ssize_t tlsWrite(tlsConn *t, const void *buf, size_t len) {
    if (t->handshaking) {
        errno = EAGAIN;
        return -1;
    }
    if (len == 0) return 0;
    tlslib.ERR_clear_error();
    errno = 0;
    return result(t, tlslib.SSL_write(t->ssl, buf, len > INT_MAX ? INT_MAX : (int)len));
}

/* Each buffer whole, as far as the socket takes it. With partial writes on,
 * SSL_write takes at most one record (16 kB) a call: a buffer past that is
 * written in several, so that a short total means what it does for writev(2),
 * a full socket (writeToClient stops there until the fd is writable, and a
 * client's reply left behind would wait a turn while it still counts). */
ssize_t tlsWritev(tlsConn *t, const struct iovec *iov, int iovcnt) {
    ssize_t total = 0;
    for (int i = 0; i < iovcnt; i++) {
        size_t done = 0;
        while (done < iov[i].iov_len) {
            ssize_t n = tlsWrite(t, (const char *)iov[i].iov_base + done, iov[i].iov_len - done);
            if (n <= 0) return total ? total : n;
            total += n;
            done += (size_t)n;
        }
    }
    return total;
}

void tlsProcessPending(void) {
    /* A readable handler may read again and list the fd anew: take the list first. */
    for (int rounds = 0; pendingCount && rounds < 16; rounds++) {
        int count = pendingCount;
        int *fds = zmalloc(sizeof(int) * count);
        memcpy(fds, pendingFds, sizeof(int) * count);
        pendingCount = 0;
        for (int i = 0; i < count; i++) {
            tlsConn *t = tlsConnOf(fds[i]);
            if (!t || !t->pending) continue;
            t->pending = 0;
            aeFireReadable(server.el, fds[i]);
        }
        zfree(fds);
    }
}

/* ----------------------------------------------------------- handshakes */

static void handshakeHandler(aeEventLoop *el, int fd, void *privdata, int mask);

/* The failed server side: Redis's line, the fd closed. */
static void acceptFailed(tlsConn *t, int at_once) {
    int fd = t->fd;
    if (t->node) serverLog(LL_VERBOSE, "Error accepting cluster node connection: %s", t->err);
    else if (at_once) serverLog(LL_WARNING, "Error accepting a client connection: %s (conn: fd=%d)", t->err, fd);
    else serverLog(LL_WARNING, "Error accepting a client connection: %s", t->err);
    aeDeleteFileEvent(server.el, fd, AE_READABLE | AE_WRITABLE);
    detach(t);
    close(fd);
}

/* One step of a handshake. 1: finished (either way), 0: waiting. */
static int step(tlsConn *t, int at_once) {
    tlslib.ERR_clear_error();
    errno = 0;
    int ret = tlslib.SSL_do_handshake(t->ssl);
    int want = 0;
    if (ret != 1) {
        int e = tlslib.SSL_get_error(t->ssl, ret);
        if (e == SSL_ERROR_WANT_READ) want = AE_READABLE;
        else if (e == SSL_ERROR_WANT_WRITE) want = AE_WRITABLE;
        else {
            takeSslError(t->err, sizeof(t->err));
            if (t->accept_done) {
                acceptFailed(t, at_once);
            } else {
                int fd = t->fd;
                tlsConnectDone *done = t->connect_done;
                void *pd = t->privdata;
                snprintf(lastErr, sizeof(lastErr), "%s", t->err);
                aeDeleteFileEvent(server.el, fd, AE_READABLE | AE_WRITABLE);
                detach(t);
                done(fd, 0, lastErr, pd);
            }
            return 1;
        }
    }
    if (want) {
        int other = want == AE_READABLE ? AE_WRITABLE : AE_READABLE;
        if (aeGetFileEvents(server.el, t->fd) & other) aeDeleteFileEvent(server.el, t->fd, other);
        if (!(aeGetFileEvents(server.el, t->fd) & want) &&
            aeCreateFileEvent(server.el, t->fd, want, handshakeHandler, t) == AE_ERR) {
            snprintf(t->err, sizeof(t->err), "%s", strerror(errno));
            if (t->accept_done) {
                acceptFailed(t, at_once);
                return 1;
            }
        }
        return 0;
    }
    /* Done: the fd goes back to its owner with no handler of ours on it. */
    aeDeleteFileEvent(server.el, t->fd, AE_READABLE | AE_WRITABLE);
    t->handshaking = 0;
    handshakes--;
    if (t->accept_done) t->accept_done(t->fd, t->ip);
    else t->connect_done(t->fd, 1, NULL, t->privdata);
    return 1;
}

static void handshakeHandler(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)fd, (void)mask;
    step(privdata, 0);
}

/* The server side of a handshake, peers verified as mode says. */
static void acceptWith(int fd, const char *ip, tlsAcceptDone *done, int mode, int node) {
    tlsConn *t = serverCtx ? attach(fd, serverCtx) : NULL;
    if (!t) {
        if (node) serverLog(LL_VERBOSE, "Error accepting cluster node connection: TLS is not configured");
        else serverLog(LL_WARNING, "Error accepting a client connection: TLS is not configured (conn: fd=%d)", fd);
        close(fd);
        return;
    }
    anetNonBlock(NULL, fd);
    snprintf(t->ip, sizeof(t->ip), "%s", ip ? ip : "");
    t->accept_done = done;
    t->node = node;
    tlslib.SSL_set_verify(t->ssl, mode, NULL);
    tlslib.SSL_set_accept_state(t->ssl);
    step(t, 1);
}

void tlsAccept(int fd, const char *ip, tlsAcceptDone *done) {
    int mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    if (server.tls_auth_clients == TLS_CLIENT_AUTH_NO) mode = SSL_VERIFY_NONE;
    else if (server.tls_auth_clients == TLS_CLIENT_AUTH_OPTIONAL) mode = SSL_VERIFY_PEER;
    acceptWith(fd, ip, done, mode, 0);
}

void tlsAcceptNode(int fd, const char *ip, tlsAcceptDone *done) {
    acceptWith(fd, ip, done, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, 1);
}

void tlsConnect(int fd, tlsConnectDone *done, void *privdata) {
    if (!clientCtx && configure() == C_ERR) {
        snprintf(lastErr, sizeof(lastErr), "TLS is not configured");
        done(fd, 0, lastErr, privdata);
        return;
    }
    tlsConn *t = attach(fd, clientCtx);
    if (!t) {
        snprintf(lastErr, sizeof(lastErr), "Failed to create TLS session");
        done(fd, 0, lastErr, privdata);
        return;
    }
    t->connect_done = done;
    t->privdata = privdata;
    tlslib.SSL_set_connect_state(t->ssl);
    step(t, 1);
}

int tlsConnectBlocking(int fd, long long timeout_ms) {
    if (!clientCtx && configure() == C_ERR) return C_ERR;
    tlsConn *t = attach(fd, clientCtx);
    if (!t) return C_ERR;
    tlslib.SSL_set_connect_state(t->ssl);
    long long deadline = mstime() + timeout_ms;
    for (;;) {
        tlslib.ERR_clear_error();
        int ret = tlslib.SSL_do_handshake(t->ssl);
        if (ret == 1) {
            t->handshaking = 0;
            handshakes--;
            return C_OK;
        }
        int e = tlslib.SSL_get_error(t->ssl, ret);
        long long left = deadline - mstime();
        struct pollfd p = {.fd = fd, .events = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN};
        if ((e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) || left <= 0 ||
            (poll(&p, 1, (int)left) <= 0 && errno != EINTR)) {
            takeSslError(t->err, sizeof(t->err));
            serverLog(LL_VERBOSE, "TLS handshake with fd=%d failed: %s", fd, t->err);
            detach(t);
            return C_ERR;
        }
    }
}

void tlsCron(void) {
    if (!handshakes || !server.maxidletime) return;
    for (int fd = 0; fd < tlsConnSlots && handshakes; fd++) {
        tlsConn *t = tlsConnTable[fd];
        if (!t || !t->handshaking || server.unixtime - t->started <= server.maxidletime) continue;
        if (t->accept_done) {
            snprintf(t->err, sizeof(t->err), "handshake timed out");
            acceptFailed(t, 0);
        }
    }
}
