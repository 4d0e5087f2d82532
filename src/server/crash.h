/* crash: the bug report the server writes to its log when it dies of a
 * signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT), a failed assertion or a
 * panic, laid out as Redis 7.0 lays it out (report markers, the signal's
 * details, the instruction that crashed, a backtrace(3) stack trace, the
 * registers, then INFO, the client list, the running client and the debug
 * settings), so the tools and tests that read Redis's logs find their way. */
#ifndef SERVER_CRASH_H
#define SERVER_CRASH_H

#include "core/panic.h"
#include "server/server.h"

/* Installs (or, crash-log-enabled no, removes) the fatal signal handlers. */
void crashSetupHandlers(void);
int applyCrashLogEnabled(const char **err);
/* The stack trace section (also the watchdog's): eip is the instruction the
 * signal interrupted, NULL when unknown. Async-signal-safe enough for a handler. */
void crashLogStackTrace(void *eip);

/* The INFO text ("all") the report includes after the stack trace: INFO is
 * features/'s, main registers its generator. The caller frees the result. */
void crashSetInfoGenerator(sds (*gen)(void));

/* serverAssert and serverPanic are core/panic.h's; crashSetupHandlers makes
 * them write this report. serverAssertWithClient adds the context of the
 * client whose command ran (its flags and argv) first. */
_Noreturn void crashAssertWithClient(client *c, const char *estr, const char *file, int line);
#define serverAssertWithClient(c, e) ((e) ? (void)0 : crashAssertWithClient(c, #e, __FILE__, __LINE__))

#endif
