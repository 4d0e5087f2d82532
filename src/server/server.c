/* server: the one `server` struct holding server-wide state, and what every
 * file of every room needs of the server itself: logging (also from a signal
 * handler), the cached clocks, and the per-turn budget of background work.
 * The pipeline is dispatch.c's, start-up, the cron and shutdown lifecycle.c's. */
#include "server/server.h"

#include <errno.h>
#include <execinfo.h>
#include <sys/time.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

struct redisServer server;

/* ----------------------------------------------------------------- logging */

void serverLog(int level, const char *fmt, ...) {
    if ((level & 0xff) < server.verbosity) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    int tostdout = server.logfile == NULL || server.logfile[0] == '\0';
    FILE *fp = tostdout ? stdout : fopen(server.logfile, "a");
    if (!fp) return;
    if (level & LL_RAW) {
        fprintf(fp, "%s", msg);
    } else {
        const char *marks = ".-*#";
        struct timeval tv;
        gettimeofday(&tv, NULL);
        struct tm tm;
        localtime_r(&tv.tv_sec, &tm);
        char buf[64];
        int off = strftime(buf, sizeof(buf), "%d %b %Y %H:%M:%S.", &tm);
        snprintf(buf + off, sizeof(buf) - off, "%03d", (int)tv.tv_usec / 1000);
        /* As Redis: a forked child (or the server before it is set up), a
         * replica or a master wrote the line. */
        char role = server.pid != getpid() ? 'C' : server.masterhost_set ? 'S' : 'M';
        fprintf(fp, "%d:%c %s %c %s\n", (int)getpid(), role, buf, marks[level & 0x3], msg);
    }
    fflush(fp);
    if (!tostdout) fclose(fp);
    if (server.syslog_enabled) {
        /* Redis's map of its levels (debug, verbose, notice, warning). */
        static const int prio[] = {LOG_DEBUG, LOG_INFO, LOG_NOTICE, LOG_WARNING};
        syslog(prio[level & 0x3], "%s", msg);
    }
}

void serverOpenSyslog(void) {
    if (server.syslog_enabled) openlog(server.syslog_ident, LOG_PID | LOG_NDELAY | LOG_NOWAIT, server.syslog_facility);
}

/* ------------------------------------------------------------------ clocks */

void updateCachedTime(void) { setCachedTime(ustime()); }

/* Scripts see one time for their whole run, as in Redis. */
long long commandTimeMs(void) { return server.mstime; }


#define BACKGROUND_WORK_US 1000
#define BACKGROUND_WORK_MIN_US 50

long long backgroundWorkLeftUs(void) {
    long long left = BACKGROUND_WORK_US - (long long)(getMonotonicUs() - aeTurnStartUs(server.el));
    return left < BACKGROUND_WORK_MIN_US ? BACKGROUND_WORK_MIN_US : left;
}

/* Appends s to buf (at *len, capacity cap) without any libc formatting. */
static void handlerAppend(char *buf, size_t *len, size_t cap, const char *s) {
    while (*s && *len < cap) buf[(*len)++] = *s++;
}

static void handlerAppendNumber(char *buf, size_t *len, size_t cap, long long v) {
    char digits[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0 && *len < cap) buf[(*len)++] = '-';
    while (n > 0 && *len < cap) buf[(*len)++] = digits[--n];
}

/* Redis's "pid:signal-handler (unixtime) message" line, written with
 * async-signal-safe calls only. */
void serverLogFromHandler(int level, const char *msg) {
    if ((level & 0xff) < server.verbosity) return;
    int tostdout = server.logfile == NULL || server.logfile[0] == '\0';
    int fd = tostdout ? STDOUT_FILENO : open(server.logfile, O_APPEND | O_CREAT | O_WRONLY, 0644);
    if (fd == -1) return;
    char buf[512];
    size_t len = 0;
    handlerAppendNumber(buf, &len, sizeof(buf) - 1, (long long)getpid());
    handlerAppend(buf, &len, sizeof(buf) - 1, ":signal-handler (");
    handlerAppendNumber(buf, &len, sizeof(buf) - 1, (long long)time(NULL));
    handlerAppend(buf, &len, sizeof(buf) - 1, ") ");
    handlerAppend(buf, &len, sizeof(buf) - 1, msg);
    buf[len++] = '\n';
    if (write(fd, buf, len) == -1) { /* nothing to do about it in a handler */
    }
    if (!tostdout) close(fd);
}
