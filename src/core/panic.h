/* panic: how code below server/ stops on a broken invariant, in Redis's
 * words. serverAssert(cond) and serverPanic(fmt, ...) call the handlers
 * server/ registers at start-up (they write the crash report: "=== ASSERTION
 * FAILED ===" or "Guru Meditation", then exit or abort as use-exit-on-panic
 * says). Without a handler (unit tests) the message goes to stderr and the
 * process aborts. Used where data read from outside (a RESTORE payload that
 * sanitize-dump-payload let through) turns out inconsistent when touched:
 * stopping there is what Redis does, and never a wild read. */
#ifndef CORE_PANIC_H
#define CORE_PANIC_H

typedef void (*assertHandler)(const char *expr, const char *file, int line);
typedef void (*panicHandler)(const char *msg, const char *file, int line);
void panicSetHandlers(assertHandler on_assert, panicHandler on_panic);

_Noreturn void _serverAssert(const char *expr, const char *file, int line);
_Noreturn void _serverPanic(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define serverAssert(cond) ((cond) ? (void)0 : _serverAssert(#cond, __FILE__, __LINE__))
#define serverPanic(...) _serverPanic(__FILE__, __LINE__, __VA_ARGS__)

#endif
