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

sds persistInfo(sds info) {
    return sdscatprintf(info,
                        "# Persistence\r\nloading:%d\r\nasync_loading:0\r\nrdb_changes_since_last_save:%lld\r\n"
                        "rdb_bgsave_in_progress:0\r\nrdb_last_save_time:%lld\r\nrdb_last_bgsave_status:ok\r\n"
                        "rdb_last_bgsave_time_sec:-1\r\nrdb_current_bgsave_time_sec:-1\r\nrdb_saves:0\r\n"
                        "aof_enabled:%d\r\naof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\n"
                        "aof_last_rewrite_time_sec:-1\r\naof_current_rewrite_time_sec:-1\r\n"
                        "aof_last_bgrewrite_status:ok\r\naof_rewrites:0\r\naof_last_write_status:ok\r\n",
                        server.loading, server.dirty, (long long)server.lastsave, server.aof_enabled);
}
