/* supervise: the service-manager side of start-up and shutdown. systemd's
 * notification protocol is one datagram of "KEY=value\n" lines to the
 * AF_UNIX socket named by $NOTIFY_SOCKET (a leading '@' is the abstract
 * namespace), so the server speaks it directly instead of linking libsystemd.
 * The texts and the points where they are sent are Redis 7.0's (READY=1 once
 * the data is loaded, STATUS= lines on the way, STOPPING=1 when a shutdown
 * begins), checked against Debian's redis-server under a listener. */
#include "server/supervise.h"
#include "server/server.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* One datagram to $NOTIFY_SOCKET: >0 sent, 0 no socket named, <0 failed. */
static int notifySocketSend(const char *msg) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !path[0]) return 0;
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len >= sizeof(sa.sun_path) || (path[0] != '/' && path[0] != '@')) return -1;
    memcpy(sa.sun_path, path, len);
    if (path[0] == '@') sa.sun_path[0] = '\0'; /* abstract: the name is counted, not terminated */
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd == -1) return -1;
    ssize_t n = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
                       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
    close(fd);
    return n < 0 ? -1 : 1;
}

/* Redis's wording when the notification cannot go out. */
static int communicate(const char *msg) {
    int ret = notifySocketSend(msg);
    if (ret == 0) serverLog(LL_WARNING, "systemd supervision error: NOTIFY_SOCKET not found!");
    else if (ret < 0) serverLog(LL_WARNING, "systemd supervision error: sd_notify: %d", ret);
    return ret;
}

void superviseNotify(const char *msg) {
    if (server.supervised_mode == SUPERVISED_SYSTEMD) communicate(msg);
}

static int startUpstart(void) {
    if (!getenv("UPSTART_JOB")) {
        serverLog(LL_WARNING, "upstart supervision requested, but UPSTART_JOB not found!");
        return 0;
    }
    serverLog(LL_NOTICE, "supervised by upstart, will stop to signal readiness.");
    raise(SIGSTOP); /* upstart's `expect stop`: it resumes us with SIGCONT */
    unsetenv("UPSTART_JOB");
    return 1;
}

static int startSystemd(void) {
    if (communicate("STATUS=Redis is loading...\n") <= 0) return 0;
    serverLog(LL_NOTICE, "Supervised by systemd. Please make sure you set appropriate values for "
                         "TimeoutStartSec and TimeoutStopSec in your service unit.");
    return 1;
}

int superviseStart(void) {
    int mode = server.supervised;
    if (mode == SUPERVISED_AUTODETECT) {
        if (getenv("UPSTART_JOB")) {
            serverLog(LL_VERBOSE, "Upstart supervision detected.");
            mode = SUPERVISED_UPSTART;
        } else if (getenv("NOTIFY_SOCKET")) {
            serverLog(LL_VERBOSE, "Systemd supervision detected.");
            mode = SUPERVISED_SYSTEMD;
        }
    }
    int ok = 0;
    if (mode == SUPERVISED_UPSTART) ok = startUpstart();
    else if (mode == SUPERVISED_SYSTEMD) ok = startSystemd();
    server.supervised_mode = ok ? mode : SUPERVISED_NONE;
    return ok;
}

void superviseReady(void) {
    if (server.supervised_mode != SUPERVISED_SYSTEMD) return;
    if (server.masterhost_set)
        communicate("STATUS=Ready to accept connections in read-only mode. Waiting for MASTER <-> REPLICA sync\n");
    else
        communicate("STATUS=Ready to accept connections\n");
    communicate("READY=1\n");
}

const char *superviseModeName(void) {
    switch (server.supervised_mode) {
    case SUPERVISED_UPSTART: return "upstart";
    case SUPERVISED_SYSTEMD: return "systemd";
    default: return "no";
    }
}
