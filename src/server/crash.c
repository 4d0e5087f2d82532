/* crash: the bug report (see crash.h).
 *
 * Everything is written with serverLog (as Redis does from its handlers:
 * the process is dying anyway) except the backtrace itself, which
 * backtrace_symbols_fd writes straight to the log's descriptor without
 * allocating. Once reported, the process dies of the same signal (so a core
 * is dumped when enabled); an assertion or a panic aborts. */
#include "server/crash.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

/* The log's descriptor for raw writes (stdout when there is no logfile). */
static int openLogFd(void) {
    if (server.logfile && server.logfile[0]) return open(server.logfile, O_APPEND | O_CREAT | O_WRONLY, 0644);
    return STDOUT_FILENO;
}

static void closeLogFd(int fd) {
    if (fd != STDOUT_FILENO && fd != -1) close(fd);
}

static void bugReportStart(void) {
    serverLog(LL_WARNING | LL_RAW, "\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n");
}

static void bugReportEnd(void) {
    serverLog(LL_WARNING | LL_RAW,
              "\n=== REDIS BUG REPORT END. Make sure to include from START to END. ===\n\n"
              "       Please report the crash with the log above to the maintainers of this server.\n\n");
}

void crashLogStackTrace(void *eip) {
    int fd = openLogFd();
    if (fd == -1) return;
    static const char head[] = "\n------ STACK TRACE ------\n";
    if (write(fd, head, sizeof(head) - 1) == -1) { /* a dying process has no one to tell */
    }
    if (eip) {
        static const char eiphead[] = "EIP:\n";
        if (write(fd, eiphead, sizeof(eiphead) - 1) == -1) {
        }
        backtrace_symbols_fd(&eip, 1, fd);
    }
    static const char bthead[] = "\nBacktrace:\n";
    if (write(fd, bthead, sizeof(bthead) - 1) == -1) {
    }
    void *trace[100];
    int n = backtrace(trace, 100);
    backtrace_symbols_fd(trace, n, fd);
    closeLogFd(fd);
}

static void *instructionOf(void *secret) {
#if defined(__linux__) && defined(__x86_64__)
    return secret ? (void *)((ucontext_t *)secret)->uc_mcontext.gregs[REG_RIP] : NULL;
#elif defined(__linux__) && defined(__aarch64__)
    return secret ? (void *)((ucontext_t *)secret)->uc_mcontext.pc : NULL;
#else
    (void)secret;
    return NULL;
#endif
}

static void logRegisters(void *secret) {
#if defined(__linux__) && defined(__x86_64__)
    if (!secret) return;
    greg_t *g = ((ucontext_t *)secret)->uc_mcontext.gregs;
    serverLog(LL_WARNING | LL_RAW, "\n------ REGISTERS ------\n");
    serverLog(LL_WARNING,
              "\nRAX:%016lx RBX:%016lx\nRCX:%016lx RDX:%016lx\nRDI:%016lx RSI:%016lx\nRBP:%016lx RSP:%016lx\n"
              "R8 :%016lx R9 :%016lx\nR10:%016lx R11:%016lx\nR12:%016lx R13:%016lx\nR14:%016lx R15:%016lx\n"
              "RIP:%016lx EFL:%016lx\nCSGSFS:%016lx",
              (unsigned long)g[REG_RAX], (unsigned long)g[REG_RBX], (unsigned long)g[REG_RCX],
              (unsigned long)g[REG_RDX], (unsigned long)g[REG_RDI], (unsigned long)g[REG_RSI],
              (unsigned long)g[REG_RBP], (unsigned long)g[REG_RSP], (unsigned long)g[REG_R8],
              (unsigned long)g[REG_R9], (unsigned long)g[REG_R10], (unsigned long)g[REG_R11],
              (unsigned long)g[REG_R12], (unsigned long)g[REG_R13], (unsigned long)g[REG_R14],
              (unsigned long)g[REG_R15], (unsigned long)g[REG_RIP], (unsigned long)g[REG_EFL],
              (unsigned long)g[REG_CSGSFS]);
#else
    (void)secret;
#endif
}

static void removeHandlers(void) {
    struct sigaction act;
    sigemptyset(&act.sa_mask);
    act.sa_flags = 0;
    act.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
        sigaction(fatal_signals[i], &act, NULL);
}

static void crashSignalHandler(int sig, siginfo_t *info, void *secret) {
    bugReportStart();
    serverLog(LL_WARNING, "Redis %s crashed by signal: %d, si_code: %d", REDIS_VERSION, sig, info ? info->si_code : 0);
    if (info && (sig == SIGSEGV || sig == SIGBUS)) serverLog(LL_WARNING, "Accessing address: %p", info->si_addr);
    if (info && info->si_code == SI_USER && info->si_pid != -1)
        serverLog(LL_WARNING, "Killed by PID: %ld, UID: %d", (long)info->si_pid, (int)info->si_uid);
    void *eip = instructionOf(secret);
    if (eip) serverLog(LL_WARNING, "Crashed running the instruction at: %p", eip);
    crashLogStackTrace(eip);
    logRegisters(secret);
    bugReportEnd();
    /* Die of the same signal, so a core is dumped when enabled. */
    removeHandlers();
    kill(getpid(), sig);
}

static void onAssert(const char *estr, const char *file, int line);
static void onPanic(const char *msg, const char *file, int line);

void crashSetupHandlers(void) {
    panicSetHandlers(onAssert, onPanic); /* reported whatever crash-log-enabled says */
    if (!server.crashlog_enabled) {
        removeHandlers();
        return;
    }
    struct sigaction act;
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_NODEFER | SA_RESETHAND | SA_SIGINFO;
    act.sa_sigaction = crashSignalHandler;
    for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
        sigaction(fatal_signals[i], &act, NULL);
}

int applyCrashLogEnabled(const char **err) {
    (void)err;
    if (server.el) crashSetupHandlers(); /* at start-up main installs them */
    return 1;
}

static void dieAfterReport(void) {
    removeHandlers(); /* the abort must not report a second time */
    bugReportEnd();
    if (server.use_exit_on_panic) exit(1);
    abort();
}

static _Noreturn void reportAssert(const char *estr, const char *file, int line) {
    serverLog(LL_WARNING, "=== ASSERTION FAILED ===");
    serverLog(LL_WARNING, "==> %s:%d '%s' is not true", file, line, estr);
    if (server.crashlog_enabled) crashLogStackTrace(NULL);
    dieAfterReport();
    __builtin_unreachable();
}

static void onAssert(const char *estr, const char *file, int line) {
    bugReportStart();
    reportAssert(estr, file, line);
}

void crashAssertWithClient(client *c, const char *estr, const char *file, int line) {
    bugReportStart();
    if (c) {
        serverLog(LL_WARNING, "=== ASSERTION FAILED CLIENT CONTEXT ===");
        serverLog(LL_WARNING, "client->flags = %d", c->flags);
        serverLog(LL_WARNING, "client->conn = fd=%d", c->fd);
        serverLog(LL_WARNING, "client->argc = %d", c->argc);
        for (int j = 0; j < c->argc; j++) {
            robj *a = c->argv[j];
            if (a->type == OBJ_STRING && sdsEncodedObject(a))
                serverLog(LL_WARNING, "client->argv[%d] = \"%s\" (refcount: %d)", j, (char *)a->ptr, a->refcount);
            else
                serverLog(LL_WARNING, "client->argv[%d] = (type %d, encoding %d)", j, a->type, a->encoding);
        }
    }
    reportAssert(estr, file, line);
}

static void onPanic(const char *msg, const char *file, int line) {
    bugReportStart();
    serverLog(LL_WARNING, "------------------------------------------------");
    serverLog(LL_WARNING, "!!! Software Failure. Press left mouse button to continue");
    serverLog(LL_WARNING, "Guru Meditation: %s #%s:%d", msg, file, line);
    if (server.crashlog_enabled) crashLogStackTrace(NULL);
    dieAfterReport();
    __builtin_unreachable();
}
