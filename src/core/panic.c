/* panic: serverAssert / serverPanic (see panic.h). The handlers are expected
 * not to return; if one does, the process aborts all the same. */
#include "core/panic.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static assertHandler assert_handler;
static panicHandler panic_handler;

void panicSetHandlers(assertHandler on_assert, panicHandler on_panic) {
    assert_handler = on_assert;
    panic_handler = on_panic;
}

void _serverAssert(const char *expr, const char *file, int line) {
    if (assert_handler) assert_handler(expr, file, line);
    fprintf(stderr, "=== ASSERTION FAILED ===\n==> %s:%d '%s' is not true\n", file, line, expr);
    abort();
}

void _serverPanic(const char *file, int line, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (panic_handler) panic_handler(msg, file, line);
    fprintf(stderr, "Guru Meditation: %s #%s:%d\n", msg, file, line);
    abort();
}
