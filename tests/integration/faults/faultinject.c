/* faultinject: an LD_PRELOAD library that makes fork(), fsync() and
 * fdatasync() fail on demand, for the fault tests (tests/integration/faults). It is
 * compiled by the tests themselves and never linked into the server, so the
 * same faults can be put under Debian's redis-server to compare.
 *
 * Control: FAULT_DIR names a directory; while the file FAULT_DIR/fork holds
 * an errno name (ENOMEM, EAGAIN), fork() fails with it; while FAULT_DIR/fsync
 * holds "EIO SUBSTRING", fsync() and fdatasync() of a file whose path holds
 * SUBSTRING fail with EIO (no SUBSTRING: every file). A call reads the file
 * each time, so a test switches a fault on and off while the server runs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static const struct {
    const char *name;
    int value;
} errno_names[] = {{"ENOMEM", ENOMEM}, {"EAGAIN", EAGAIN}, {"EIO", EIO}, {"ENOSPC", ENOSPC}, {NULL, 0}};

/* The errno the fault file `what` asks for (0: none), and in pattern what
 * follows the errno's name. */
static int faultFor(const char *what, char *pattern, size_t patlen) {
    const char *dir = getenv("FAULT_DIR");
    if (!dir) return 0;
    char path[4096], text[512];
    snprintf(path, sizeof(path), "%s/%s", dir, what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1) return 0;
    ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = '\0';
    text[strcspn(text, "\n")] = '\0';
    char *rest = strchr(text, ' ');
    if (rest) *rest++ = '\0';
    if (pattern) snprintf(pattern, patlen, "%s", rest ? rest : "");
    for (int i = 0; errno_names[i].name; i++)
        if (strcmp(text, errno_names[i].name) == 0) return errno_names[i].value;
    return 0;
}

pid_t fork(void) {
    static pid_t (*real)(void);
    int err = faultFor("fork", NULL, 0);
    if (err) {
        errno = err;
        return -1;
    }
    if (!real) real = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
    return real();
}

/* The fsync fault applies to fd: its errno, or 0. */
static int fsyncFault(int fd) {
    char pattern[256], link[64], target[4096];
    int err = faultFor("fsync", pattern, sizeof(pattern));
    if (!err || !pattern[0]) return err;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n <= 0) return 0;
    target[n] = '\0';
    return strstr(target, pattern) ? err : 0;
}

/* fsync or fdatasync (name): the fault, or the real call (found once, in *real). */
static int syncOrFault(int fd, const char *name, int (**real)(int)) {
    int err = fsyncFault(fd);
    if (err) {
        errno = err;
        return -1;
    }
    if (!*real) *real = (int (*)(int))dlsym(RTLD_NEXT, name);
    return (*real)(fd);
}

int fsync(int fd) {
    static int (*real)(int);
    return syncOrFault(fd, "fsync", &real);
}

int fdatasync(int fd) {
    static int (*real)(int);
    return syncOrFault(fd, "fdatasync", &real);
}
