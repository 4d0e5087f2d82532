/* info: the INFO command's text, section by section, with Redis's field names. */
#ifndef FEATURES_INFO_H
#define FEATURES_INFO_H

#include "core/sds.h"

#include <stddef.h>

/* names: section names, "default", "all" or "everything" (any case); none
 * means "default". Sections come in Redis's order, each once. */
sds genInfoString(int argc, const char **names);
/* Where used_memory goes: INFO memory, MEMORY STATS and MEMORY DOCTOR all
 * read this one account. */
typedef struct memoryOverhead {
    size_t used, peak, startup, rss;
    size_t clients_normal, aof_buffer, lua_caches, functions_caches;
    /* The shared replication buffer, split as Redis 7.0 splits it: up to
     * repl-backlog-size it is the backlog's, the rest the replicas'. */
    size_t repl_backlog, clients_slaves, not_counted_for_evict;
    size_t scripts;               /* cached EVAL scripts */
    size_t lua_vm, functions_vm, functions, libraries;
    size_t clients;               /* connected clients */
    size_t overhead_total, dataset, keys;
    size_t allocated, active, resident; /* the allocator's view (= used/rss without jemalloc) */
    int ndbs;                     /* dbs with keys, described in db[] */
    struct { int id; size_t main, expires; } *db;
} memoryOverhead;
void memoryOverheadCollect(memoryOverhead *mh);
void memoryOverheadRelease(memoryOverhead *mh);
/* Samples the instantaneous rates (ops/sec, kbps); called from serverCron. */
void infoCron(void);
/* INFO stats migrate_cached_sockets: MIGRATE (commands/, above) registers
 * how many target connections it keeps open; 0 without it. */
void infoSetMigrateSocketsProbe(int (*probe)(void));

#endif
