/* bgchild: forking the background savers and hearing back from them (see
 * bgchild.h). Each child gets a pipe. About once a second while it writes it
 * sends how many keys it wrote and the bytes of its private dirty pages — the
 * memory it had to copy because the parent wrote to pages they shared — and
 * once more when its work succeeded; the parent drains the pipes from its
 * cron and reads the last report after waitpid. */
#include "persist/bgchild.h"
#include "server/propagate.h"
#include "persist/rdb.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "server/client.h"
#include "server/config.h"
#include "server/db.h"

#define MAX_CHILDREN 4

/* One report through the pipe. */
typedef struct childReport {
    int final;           /* the last one, sent just before the child exits */
    size_t keys;         /* keys written so far */
    size_t cow;          /* private dirty bytes */
} childReport;

static struct {
    pid_t pid;
    bgchildKind kind;
    int fd;              /* read end in the parent */
    size_t keys_total;   /* keys in the dataset when it was forked */
    size_t keys, cow, cow_peak;
    long long cow_updated_ms; /* when the last report came; 0: none yet */
    int have_final;
    size_t final_cow;
} children[MAX_CHILDREN] = {{.pid = -1, .fd = -1}, {.pid = -1, .fd = -1}, {.pid = -1, .fd = -1}, {.pid = -1, .fd = -1}};
static int report_fd = -1; /* write end, in a child */
static long long last_report_ms; /* in a child */
static pid_t parent_pid;          /* in a child: the server that forked it */
static bgchildKind child_kind;    /* in a child: what it is for */
static size_t cow_peak, cow_sum, cow_reads; /* in a child: its readings, for the log */
static long long latest_fork_usec, total_forks;
static size_t last_cow[BGCHILD_OTHER]; /* INFO rdb_last_cow_size, aof_last_cow_size */

/* Sum of Private_Dirty over the process's mappings, from /proc. */
static size_t privateDirtyBytes(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) f = fopen("/proc/self/smaps", "r");
    if (!f) return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long v;
        if (sscanf(line, "Private_Dirty: %lu kB", &v) == 1) kb += v;
    }
    fclose(f);
    return kb * 1024;
}

pid_t bgchildFork(bgchildKind kind) {
    int p[2];
    if (pipe(p) == -1) p[0] = p[1] = -1;
    /* The child's snapshot and the stream offset it records agree. */
    propagateFlushStaged();
    monotime start = getMonotonicUs();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        server.in_fork_child = 1;
        dictSetResizeEnabled(0); /* nothing here grows or shrinks a table it shares */
        setOomScoreAdj(OOM_BGCHILD);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        closeListeningSockets(0);
        if (p[0] != -1) close(p[0]);
        report_fd = p[1];
        parent_pid = parent;
        child_kind = kind;
        return 0;
    }
    if (p[1] != -1) close(p[1]);
    if (pid == -1) {
        int saved = errno;
        if (p[0] != -1) close(p[0]);
        errno = saved;
        return -1;
    }
    latest_fork_usec = (long long)(getMonotonicUs() - start);
    total_forks++;
    /* While a saving child shares our pages, tables neither grow (but past
     * the forced ratio) nor shrink, nor does the cron move a rehash along:
     * each moved entry would copy its page (Redis's updateDictResizePolicy). */
    if (kind != BGCHILD_OTHER) dictSetResizeEnabled(0);
    size_t keys = 0;
    if (kind != BGCHILD_OTHER)
        for (int j = 0; j < server.dbnum; j++) keys += dictSize(server.db[j].dict);
    for (int i = 0; i < MAX_CHILDREN; i++) {
        if (children[i].pid != -1) continue;
        memset(&children[i], 0, sizeof(children[i]));
        children[i].pid = pid;
        children[i].kind = kind;
        children[i].fd = p[0];
        children[i].keys_total = keys;
        if (p[0] != -1) fcntl(p[0], F_SETFL, O_NONBLOCK);
        return pid;
    }
    if (p[0] != -1) close(p[0]); /* more children than slots: no report from this one */
    return pid;
}

static void sendReport(int final, size_t keys) {
    childReport rep = {final, keys, privateDirtyBytes()};
    if (rep.cow > cow_peak) cow_peak = rep.cow;
    cow_sum += rep.cow;
    cow_reads++;
    /* As Redis's children: every reading at verbose (when there is any), the last one at notice. */
    if (rep.cow || final)
        serverLog(final ? LL_NOTICE : LL_VERBOSE, "Fork CoW for %s: current %zu MB, peak %zu MB, average %zu MB",
                  child_kind == BGCHILD_AOF ? "AOF rewrite" : "RDB", rep.cow >> 20, cow_peak >> 20,
                  (cow_sum / cow_reads) >> 20);
    if (write(report_fd, &rep, sizeof(rep)) != (ssize_t)sizeof(rep) && getppid() != parent_pid) {
        /* The server is gone (killed: its end of the pipe closed, and we were
         * handed to another parent): nobody will use what we write, so stop,
         * as Redis's children do. A full slot table also closes the pipe;
         * then the parent is still ours and the work goes on without reports. */
        _exit(1);
    }
}

void bgchildReportProgress(size_t keys) {
    /* Checked every 1024 keys, sent about once a second (and at the first key), as Redis. */
    if (report_fd == -1 || (keys & 1023) != 0) return;
    long long now = mstime();
    if (now - last_report_ms < 1000) return;
    last_report_ms = now;
    sendReport(0, keys);
}

void bgchildReportCow(void) {
    if (report_fd == -1) return;
    sendReport(1, 0);
    close(report_fd);
    report_fd = -1;
}

/* Reads what child i sent so far (its pipe does not block). */
static void drain(int i) {
    if (children[i].fd == -1) return;
    childReport rep;
    while (read(children[i].fd, &rep, sizeof(rep)) == (ssize_t)sizeof(rep)) {
        if (rep.final) {
            children[i].have_final = 1;
            children[i].final_cow = rep.cow;
            continue;
        }
        children[i].keys = rep.keys;
        children[i].cow = rep.cow;
        if (rep.cow > children[i].cow_peak) children[i].cow_peak = rep.cow;
        children[i].cow_updated_ms = mstime();
    }
}

void bgchildPoll(void) {
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i].pid != -1) drain(i);
}

int bgchildCurrentInfo(bgchildInfo *info) {
    int best = -1;
    for (int i = 0; i < MAX_CHILDREN; i++) {
        if (children[i].pid == -1 || children[i].kind == BGCHILD_OTHER) continue;
        if (best == -1 || children[i].cow_updated_ms > children[best].cow_updated_ms) best = i;
    }
    memset(info, 0, sizeof(*info));
    if (best == -1) return 0;
    info->keys_total = children[best].keys_total;
    info->keys_processed = children[best].keys;
    info->cow = children[best].cow;
    info->cow_peak = children[best].cow_peak;
    info->cow_age_sec = children[best].cow_updated_ms ? (mstime() - children[best].cow_updated_ms) / 1000 : 0;
    return 1;
}

void bgchildCollect(pid_t pid) {
    for (int i = 0; i < MAX_CHILDREN; i++) {
        if (children[i].pid != pid) continue;
        /* The child has exited: all it wrote is there, then EOF. */
        drain(i);
        if (children[i].have_final && children[i].kind != BGCHILD_OTHER) {
            size_t peak = children[i].cow_peak;
            last_cow[children[i].kind] = children[i].final_cow > peak ? children[i].final_cow : peak;
        }
        if (children[i].fd != -1) close(children[i].fd);
        children[i].pid = -1;
        children[i].fd = -1;
        int saving = 0;
        for (int j = 0; j < MAX_CHILDREN; j++) saving |= children[j].pid != -1 && children[j].kind != BGCHILD_OTHER;
        if (!saving) dictSetResizeEnabled(1);
        return;
    }
}

size_t bgchildLastCow(bgchildKind kind) { return kind < BGCHILD_OTHER ? last_cow[kind] : 0; }

void bgchildKill(pid_t pid) {
    kill(pid, SIGUSR1);
    /* A signal handler of ours (the watchdog's alarm) may interrupt the wait. */
    while (waitpid(pid, NULL, 0) == -1 && errno == EINTR) {
    }
    bgchildCollect(pid);
    rdbRemoveTempFile(pid);
}

long long bgchildLatestForkUsec(void) { return latest_fork_usec; }
long long bgchildTotalForks(void) { return total_forks; }
