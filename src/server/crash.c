/* crash: the bug report (see crash.h).
 *
 * Everything is written with serverLog or straight to the log's descriptor
 * (as Redis does from its handlers: the process is dying anyway); the
 * backtrace itself is written by backtrace_symbols_fd without allocating.
 * After the stack trace come, as in Redis 7.0, the server's state: INFO, the
 * client list, the client whose command was running and the settings that
 * matter to a bug report; INFO is features/'s, so main registers it
 * (crashSetInfoGenerator). Those sections allocate and walk server state
 * that may be what broke: a second crash while writing them is not reported
 * again (the signal handlers reset themselves, and the sections are written
 * once per process), so the process still dies. Once reported, the process
 * dies of the same signal (so a core is dumped when enabled); an assertion
 * or a panic aborts. */
#include "server/crash.h"
#include "server/client.h"
#include "server/config.h"
#include "server/db.h"

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

/* ------------------------------------------------ the server's state */

static sds (*gen_info)(void); /* INFO "all", from features/ */

void crashSetInfoGenerator(sds (*gen)(void)) { gen_info = gen; }

/* Text of any length, as it is (serverLog would cut it at 1 KB). */
static void logRaw(const char *s, size_t len) {
    int fd = openLogFd();
    if (fd == -1) return;
    while (len) {
        ssize_t n = write(fd, s, len);
        if (n <= 0) break;
        s += n;
        len -= (size_t)n;
    }
    closeLogFd(fd);
}

static void logRawSds(sds s) {
    logRaw(s, sdslen(s));
    sdsfree(s);
}

static void logServerInfo(void) {
    logRawSds(sdsnew("\n------ INFO OUTPUT ------\n"));
    if (gen_info) logRawSds(gen_info());
    logRawSds(sdsnew("\n------ CLIENT LIST OUTPUT ------\n"));
    logRawSds(getAllClientsInfoString(-1));
}

/* The client whose command was running: its CLIENT LIST line, its
 * arguments (128 bytes of each at most), and the value of its first
 * argument when that names a key (type, encoding and refcount only, as Redis
 * 7.0: the value itself may be what is corrupt). */
static void logCurrentClient(client *cc) {
    if (!cc) return;
    sds s = sdsnew("\n------ CURRENT CLIENT INFO ------\n");
    s = catClientInfoString(s, cc);
    s = sdscat(s, "\n");
    for (int j = 0; j < cc->argc; j++) {
        robj *a = getDecodedObject(cc->argv[j]);
        size_t len = sdslen(objectPtr(a)) < 128 ? sdslen(objectPtr(a)) : 128;
        s = sdscatprintf(s, "argv[%d]: '", j);
        s = sdscatrepr(s, objectPtr(a), len);
        s = sdscat(s, "'\n");
        decrRefCount(a);
    }
    logRawSds(s);
    if (cc->argc > 1 && cc->db) {
        robj *key = getDecodedObject(cc->argv[1]);
        dictEntry *de = dbFindEntry(cc->db, objectPtr(key));
        if (de) {
            robj *val = dbEntryValue(de);
            serverLog(LL_WARNING, "key '%s' found in DB containing the following object:", (char *)objectPtr(key));
            serverLog(LL_WARNING, "Object type: %u", (unsigned)val->type);
            serverLog(LL_WARNING, "Object encoding: %u", (unsigned)val->encoding);
            serverLog(LL_WARNING, "Object refcount: %u", objectRefs(val));
        }
        decrRefCount(key);
    }
}

static void logConfigDebugInfo(void) {
    logRawSds(sdsnew("\n------ CONFIG DEBUG OUTPUT ------\n"));
    logRawSds(configDebugInfo());
}

/* Redis 7.0's sections after the stack trace, in its order (no modules:
 * their section stays empty; no memory test). Written once: if writing
 * them crashes or asserts, the report of that goes without them. */
static void logServerState(void) {
    static int written;
    if (written) return;
    written = 1;
    logServerInfo();
    logCurrentClient(server.current_client);
    logRawSds(sdsnew("\n------ MODULES INFO OUTPUT ------\n"));
    logConfigDebugInfo();
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
    logServerState();
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

/* The end of an assertion or panic report: the stack trace and the
 * server's state (unless crash-log-enabled is off), then exit or abort. */
static void reportStateAndDie(void) {
    if (server.crashlog_enabled) {
        crashLogStackTrace(NULL);
        logServerState();
    }
    removeHandlers(); /* the abort must not report a second time */
    bugReportEnd();
    if (server.use_exit_on_panic) exit(1);
    abort();
}

static _Noreturn void reportAssert(const char *estr, const char *file, int line) {
    serverLog(LL_WARNING, "=== ASSERTION FAILED ===");
    serverLog(LL_WARNING, "==> %s:%d '%s' is not true", file, line, estr);
    reportStateAndDie();
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
                serverLog(LL_WARNING, "client->argv[%d] = \"%s\" (refcount: %u)", j, (char *)objectPtr(a), objectRefs(a));
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
    reportStateAndDie();
    __builtin_unreachable();
}
