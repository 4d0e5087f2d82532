/* persist: persistence entry points. RDB and AOF are not written yet
 * (issue 8): nothing is saved or loaded, and the hooks are no-ops. */
#include "persist/persist.h"
#include "server/server.h"

void persistCron(void) {}
void persistBeforeSleep(void) {}
int persistDeniesWrites(void) { return 0; }
int persistOnShutdown(int flags) {
    (void)flags;
    return C_OK;
}
int persistLoadAtStartup(void) { return C_OK; }
