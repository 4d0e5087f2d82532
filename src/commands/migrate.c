/* migrate: MIGRATE, moving keys to another server.
 *
 *   MIGRATE host port key|"" dbid timeout [COPY] [REPLACE]
 *           [AUTH password | AUTH2 username password] [KEYS key ...]
 *
 * As in Redis the transfer is synchronous: the server blocks on a socket to
 * the target, each wait bounded by `timeout` ms, sends [AUTH] [SELECT] and one
 * RESTORE per key with its DUMP payload and remaining TTL, and reads the
 * replies. Keys the target accepted are deleted here (unless COPY), and the
 * command is propagated as DEL of exactly those keys. Connections are kept
 * per host:port for a few seconds, remembering the database they selected,
 * so a run of MIGRATEs to one target connects once; a cached connection that
 * turns out dead is reopened once, transparently. */
#include "commands/migrate.h"
#include "server/tls.h"
#include "server/cmdargs.h"
#include "persist/rdb.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"
#include "core/clock.h"
#include "core/zmalloc.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* --------------------------------------------------- cached target sockets */

#define MIGRATE_CACHE_SLOTS 64
#define MIGRATE_CACHE_TTL 10 /* seconds an idle connection is kept */
#define MIGRATE_CHUNK (64 * 1024)
#define MIGRATE_REPLY_MAX 1024 /* longest reply line kept (the rest is read and dropped) */

typedef struct migrateConn {
    sds name; /* "host:port" as given; NULL for a free slot */
    int fd;
    long long last_dbid; /* the database the target has selected; -1 unknown */
    time_t last_use;
    char rbuf[4096]; /* bytes read from the target and not consumed yet */
    size_t rpos, rlen;
} migrateConn;

static migrateConn cache[MIGRATE_CACHE_SLOTS];
static long long cache_timer_id = -1;

static void closeConn(migrateConn *mc) {
    if (!mc->name) return;
    connClose(mc->fd);
    sdsfree(mc->name);
    mc->name = NULL;
}

int migrateCachedSockets(void) {
    int open = 0;
    for (int i = 0; i < MIGRATE_CACHE_SLOTS; i++) open += cache[i].name != NULL;
    return open;
}

static long long cacheTimerProc(aeEventLoop *el, long long id, void *clientData) {
    (void)el, (void)id, (void)clientData;
    for (int i = 0; i < MIGRATE_CACHE_SLOTS; i++)
        if (cache[i].name && server.unixtime - cache[i].last_use > MIGRATE_CACHE_TTL) closeConn(&cache[i]);
    if (migrateCachedSockets()) return 1000;
    cache_timer_id = -1;
    return AE_NOMORE;
}

/* Waits until fd is ready for `events` or the ms deadline passes. 1 ready,
 * 0 timed out (errno ETIMEDOUT), -1 error. */
static int waitFd(int fd, short events, long long deadline) {
    for (;;) {
        long long left = deadline - mstime();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return 0;
        }
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
        if (n > 0) return 1;
        if (n < 0 && errno != EINTR) return -1;
    }
}

/* Starts a non-blocking connect and waits up to timeout ms for it. Like Redis,
 * only a name that does not resolve or an address refused on the spot fails
 * here; a connection still pending or failed later shows as a write error. */
static int connectTarget(const char *host, int port, long long timeout) {
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    struct addrinfo hints, *res;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, portstr, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd == -1) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd == -1) return -1;
    waitFd(fd, POLLOUT, mstime() + timeout);
    int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    /* tls-cluster: the target's port speaks TLS, as Redis 7.0's MIGRATE assumes. */
    if (server.tls_cluster && tlsConnectBlocking(fd, timeout) == C_ERR) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The cached connection to host:port, or a new one (replying the error and
 * returning NULL when it cannot be made). */
static migrateConn *getConn(client *c, robj *host, robj *port, long long timeout) {
    sds name = sdscatlen(sdsdup(objectPtr(host)), ":", 1);
    name = sdscatsds(name, objectPtr(port));
    migrateConn *free_slot = NULL;
    for (int i = 0; i < MIGRATE_CACHE_SLOTS; i++) {
        if (cache[i].name && !sdscmp(cache[i].name, name)) {
            sdsfree(name);
            cache[i].last_use = server.unixtime;
            return &cache[i];
        }
        if (!cache[i].name && !free_slot) free_slot = &cache[i];
    }
    if (!free_slot) {
        free_slot = &cache[random() % MIGRATE_CACHE_SLOTS]; /* full: drop one at random */
        closeConn(free_slot);
    }
    int fd = connectTarget(objectPtr(host), atoi(objectPtr(port)), timeout);
    if (fd == -1) {
        sdsfree(name);
        addReplyError(c, "-IOERR error or timeout connecting to the client");
        return NULL;
    }
    free_slot->name = name;
    free_slot->fd = fd;
    free_slot->last_dbid = -1;
    free_slot->last_use = server.unixtime;
    free_slot->rpos = free_slot->rlen = 0;
    if (cache_timer_id == -1) cache_timer_id = aeCreateTimeEvent(server.el, 1000, cacheTimerProc, NULL);
    return free_slot;
}

/* Writes all of buf, each wait bounded by timeout ms. C_ERR on error/timeout. */
static int writeAll(migrateConn *mc, const char *buf, size_t len, long long timeout) {
    while (len) {
        size_t chunk = len > MIGRATE_CHUNK ? MIGRATE_CHUNK : len;
        long long deadline = mstime() + timeout;
        while (chunk) {
            ssize_t n = connIsTls(mc->fd) ? connWrite(mc->fd, buf, chunk) : send(mc->fd, buf, chunk, MSG_NOSIGNAL);
            if (n > 0) {
                buf += n, len -= (size_t)n, chunk -= (size_t)n;
                continue;
            }
            if (n == -1 && errno != EAGAIN && errno != EINTR) return C_ERR;
            if (waitFd(mc->fd, POLLOUT, deadline) != 1) return C_ERR;
        }
    }
    return C_OK;
}

/* Reads one reply line (without CRLF, cut to MIGRATE_REPLY_MAX - 1 bytes)
 * into line. C_ERR on error, timeout, end of stream or an empty line. */
static int readLine(migrateConn *mc, char *line, long long timeout) {
    long long deadline = mstime() + timeout;
    size_t len = 0;
    for (;;) {
        while (mc->rpos < mc->rlen) {
            char ch = mc->rbuf[mc->rpos++];
            if (ch == '\n') {
                if (len && line[len - 1] == '\r') len--;
                line[len] = '\0';
                return len ? C_OK : C_ERR;
            }
            if (len < MIGRATE_REPLY_MAX - 1) line[len++] = ch;
        }
        ssize_t n = connRead(mc->fd, mc->rbuf, sizeof(mc->rbuf));
        if (n > 0) {
            mc->rpos = 0;
            mc->rlen = (size_t)n;
            continue;
        }
        if (n == 0) {
            errno = ECONNRESET; /* closed by the target: worth reconnecting */
            return C_ERR;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN || waitFd(mc->fd, POLLIN, deadline) != 1) return C_ERR;
    }
}

/* ----------------------------------------------------------------- command */

static sds catBulk(sds s, const char *p, size_t len) {
    s = sdscatprintf(s, "$%zu\r\n", len);
    s = sdscatlen(s, p, len);
    return sdscatlen(s, "\r\n", 2);
}

static sds catBulkObject(sds s, robj *o) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = stringObjectView(o, buf, &len);
    return catBulk(s, p, len);
}

static sds catBulkLongLong(sds s, long long v) {
    char buf[LONG_STR_SIZE];
    int len = snprintf(buf, sizeof(buf), "%lld", v);
    return catBulk(s, buf, (size_t)len);
}

typedef struct migrateArgs {
    int copy, replace;
    robj *username, *password; /* NULL when not given */
    int first_key, num_keys;
    long long dbid, timeout;
} migrateArgs;

/* Parses the options and numbers, redacting secrets as soon as they are seen
 * (so MONITOR and SLOWLOG never show them, even for a refused command). */
static int parseMigrateArgs(client *c, migrateArgs *a) {
    memset(a, 0, sizeof(*a));
    a->first_key = 3;
    a->num_keys = 1;
    for (int j = 6; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        int more = c->argc - 1 - j;
        if (!strcasecmp(opt, "copy")) {
            a->copy = 1;
        } else if (!strcasecmp(opt, "replace")) {
            a->replace = 1;
        } else if (!strcasecmp(opt, "auth") && more >= 1) {
            a->password = c->argv[++j];
            redactClientCommandArgument(c, j);
        } else if (!strcasecmp(opt, "auth2") && more >= 2) {
            a->username = c->argv[++j];
            redactClientCommandArgument(c, j);
            a->password = c->argv[++j];
            redactClientCommandArgument(c, j);
        } else if (!strcasecmp(opt, "keys")) {
            if (sdslen(objectPtr(c->argv[3])) != 0) {
                addReplyError(c, "When using MIGRATE KEYS option, the key argument must be set to the empty string");
                return C_ERR;
            }
            a->first_key = j + 1;
            a->num_keys = c->argc - j - 1;
            break;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    if (getLongLongFromObjectOrReply(c, c->argv[5], &a->timeout, NULL) != C_OK ||
        getLongLongFromObjectOrReply(c, c->argv[4], &a->dbid, NULL) != C_OK)
        return C_ERR;
    if (a->timeout <= 0) a->timeout = 1000;
    return C_OK;
}

/* One attempt over mc. Returns C_ERR on a socket error the caller may retry
 * (nothing was acknowledged), with *writing telling which way it failed.
 * Otherwise the client has its reply. */
static int migrateOnce(client *c, migrateConn *mc, migrateArgs *a, robj **keys, robj **vals, int n,
                       int may_retry, int *writing) {
    sds cmd = sdsempty();
    if (a->password) {
        cmd = sdscat(cmd, a->username ? "*3\r\n" : "*2\r\n");
        cmd = catBulk(cmd, "AUTH", 4);
        if (a->username) cmd = catBulkObject(cmd, a->username);
        cmd = catBulkObject(cmd, a->password);
    }
    int select = mc->last_dbid != a->dbid;
    if (select) {
        cmd = sdscat(cmd, "*2\r\n");
        cmd = catBulk(cmd, "SELECT", 6);
        cmd = catBulkLongLong(cmd, a->dbid);
    }
    /* Keys that expired since they were looked up are skipped. */
    robj **sent_keys = zmalloc(sizeof(robj *) * n);
    int sent = 0;
    for (int j = 0; j < n; j++) {
        long long ttl = 0, when = getExpire(c->db, keys[j]);
        if (when != -1) {
            ttl = when - commandTimeMs();
            if (ttl < 0) continue;
            if (ttl < 1) ttl = 1;
        }
        sent_keys[sent++] = keys[j];
        cmd = sdscat(cmd, a->replace ? "*5\r\n" : "*4\r\n");
        /* In a cluster the target imports the slot: RESTORE-ASKING may write it there. */
        if (server.cluster_enabled) cmd = catBulk(cmd, "RESTORE-ASKING", 14);
        else cmd = catBulk(cmd, "RESTORE", 7);
        cmd = catBulkObject(cmd, keys[j]);
        cmd = catBulkLongLong(cmd, ttl);
        sds payload = rdbDumpPayload(vals[j]);
        cmd = catBulk(cmd, payload, sdslen(payload));
        sdsfree(payload);
        if (a->replace) cmd = catBulk(cmd, "REPLACE", 7);
    }
    errno = 0;
    int rc = writeAll(mc, cmd, sdslen(cmd), a->timeout);
    sdsfree(cmd);
    *writing = rc != C_OK;
    char auth_reply[MIGRATE_REPLY_MAX], select_reply[MIGRATE_REPLY_MAX], reply[MIGRATE_REPLY_MAX];
    if (rc != C_OK || (a->password && readLine(mc, auth_reply, a->timeout) != C_OK) ||
        (select && readLine(mc, select_reply, a->timeout) != C_OK)) {
        zfree(sent_keys);
        return C_ERR;
    }

    /* Each key the target acknowledged goes here (unless COPY) and joins the DEL propagated for it. */
    robj **delv = a->copy ? NULL : zmalloc(sizeof(robj *) * (sent + 1));
    int deleted = 0, target_error = 0, socket_error = 0, j;
    for (j = 0; j < sent; j++) {
        if (readLine(mc, reply, a->timeout) != C_OK) {
            socket_error = 1;
            break;
        }
        const char *err = a->password && auth_reply[0] == '-' ? auth_reply
                          : select && select_reply[0] == '-' ? select_reply
                          : reply[0] == '-'                  ? reply
                                                             : NULL;
        if (err) {
            if (!target_error) {
                /* The target's selected db is uncertain after an error. */
                mc->last_dbid = -1;
                addReplyErrorFormat(c, "Target instance replied with error: %s", err + 1);
                target_error = 1;
            }
        } else if (!a->copy) {
            robj *key = sent_keys[j];
            dbDelete(c->db, key);
            keyChanged(c->db, key, NOTIFY_GENERIC, "del", 1);
            incrRefCount(key);
            delv[++deleted] = key;
        }
    }
    /* A dead cached connection fails on the first reply: let the caller reconnect once. */
    zfree(sent_keys);
    if (!target_error && socket_error && j == 0 && may_retry && errno != ETIMEDOUT) {
        zfree(delv);
        return C_ERR;
    }
    if (socket_error) closeConn(mc);
    if (deleted) {
        delv[0] = createStringObject("DEL", 3);
        struct redisCommand *cmd = c->cmd; /* replacing the argv forgets the command */
        replaceClientCommandVector(c, deleted + 1, delv);
        c->cmd = cmd;
    } else {
        zfree(delv);
    }
    if (target_error) return C_OK;
    if (socket_error) {
        addReplyErrorSds(c, sdsnew("-IOERR error or timeout reading to target instance"));
        return C_OK;
    }
    mc->last_dbid = a->dbid;
    addReply(c, shared.ok);
    return C_OK;
}

void migrateCommand(client *c) {
    migrateArgs a;
    if (parseMigrateArgs(c, &a) != C_OK) return;

    /* Only keys present now are sent; none at all is not an error but NOKEY. */
    robj **keys = zmalloc(sizeof(robj *) * a.num_keys), **vals = zmalloc(sizeof(robj *) * a.num_keys);
    int n = 0;
    for (int j = 0; j < a.num_keys; j++) {
        robj *key = c->argv[a.first_key + j];
        if ((vals[n] = lookupKeyRead(c->db, key)) != NULL) keys[n++] = key;
    }
    if (n == 0) {
        addReplyStatus(c, "NOKEY");
    } else {
        /* Keys stay referenced while the argv may be replaced by the DEL. */
        for (int j = 0; j < n; j++) incrRefCount(keys[j]);
        robj *host = c->argv[1], *port = c->argv[2];
        incrRefCount(host);
        incrRefCount(port);
        int writing = 0;
        for (int attempt = 0; attempt < 2; attempt++) {
            migrateConn *mc = getConn(c, host, port, a.timeout);
            if (!mc) break;
            if (migrateOnce(c, mc, &a, keys, vals, n, attempt == 0, &writing) == C_OK) break;
            int saved_errno = errno;
            closeConn(mc);
            /* Reconnect once, unless the target was merely slow. */
            if (attempt == 1 || saved_errno == ETIMEDOUT) {
                addReplyErrorFormat(c, "-IOERR error or timeout %s to target instance", writing ? "writing" : "reading");
                break;
            }
        }
        decrRefCount(host);
        decrRefCount(port);
        for (int j = 0; j < n; j++) decrRefCount(keys[j]);
    }
    zfree(keys);
    zfree(vals);
}
