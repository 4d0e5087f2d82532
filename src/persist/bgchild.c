/* bgchild: forking the background savers and hearing back from them (see
 * bgchild.h). Each child gets a pipe; before exiting it writes the bytes of
 * its private dirty pages — the memory it had to copy because the parent
 * wrote to pages they shared — and the parent reads them after waitpid. */
#include "persist/bgchild.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "server/client.h"
#include "server/config.h"

#define MAX_CHILDREN 4

static struct {
    pid_t pid;
    int fd; /* read end in the parent */
} children[MAX_CHILDREN] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
static int report_fd = -1; /* write end, in a child */
static long long latest_fork_usec, total_forks;

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

pid_t bgchildFork(void) {
    int p[2];
    if (pipe(p) == -1) p[0] = p[1] = -1;
    monotime start = getMonotonicUs();
    pid_t pid = fork();
    if (pid == 0) {
        server.in_fork_child = 1;
        setOomScoreAdj(OOM_BGCHILD);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        closeListeningSockets(0);
        if (p[0] != -1) close(p[0]);
        report_fd = p[1];
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
    for (int i = 0; i < MAX_CHILDREN; i++) {
        if (children[i].pid != -1) continue;
        children[i].pid = pid;
        children[i].fd = p[0];
        return pid;
    }
    if (p[0] != -1) close(p[0]); /* more children than slots: no report from this one */
    return pid;
}

void bgchildReportCow(void) {
    if (report_fd == -1) return;
    size_t bytes = privateDirtyBytes();
    if (write(report_fd, &bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes)) {
        /* The parent then reads 0: nothing else to do in a child about to exit. */
    }
    close(report_fd);
    report_fd = -1;
}

size_t bgchildCollectCow(pid_t pid) {
    for (int i = 0; i < MAX_CHILDREN; i++) {
        if (children[i].pid != pid) continue;
        size_t bytes = 0;
        if (children[i].fd != -1) {
            /* The child has exited: what it wrote is there, or EOF. */
            fcntl(children[i].fd, F_SETFL, O_NONBLOCK);
            if (read(children[i].fd, &bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes)) bytes = 0;
            close(children[i].fd);
        }
        children[i].pid = -1;
        children[i].fd = -1;
        return bytes;
    }
    return 0;
}

long long bgchildLatestForkUsec(void) { return latest_fork_usec; }
long long bgchildTotalForks(void) { return total_forks; }
