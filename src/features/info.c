/* info: INFO (see info.h). Field names, order and section selection follow
 * Redis 7.0 so tools that parse INFO (redis-cli, monitoring agents, client
 * libraries) work. Values we have no counterpart for (replication, defrag,
 * tracking) are the ones Redis shows when the feature is idle. */
#include "features/info.h"
#include "features/expiry_push.h"
#include "features/functions.h"
#include "features/latency.h"
#include "features/pubsub.h"
#include "features/scripting.h"
#include "features/tracking.h"
#include "server/client.h"
#include "server/supervise.h"
#include "server/clientmem.h"
#include "server/db.h"
#include "server/evict.h"
#include "server/expire.h"
#include "server/lazyfree.h"
#include "server/blocking.h"
#include "server/reply.h"
#include "server/replbuf.h"
#include "server/config.h"
#include "server/server.h"
#include "persist/aof.h"
#include "persist/bgchild.h"
#include "persist/persist.h"
#include "repl/repl.h"
#include "cluster/cluster.h"
#include "core/clock.h"
#include "core/histogram.h"
#include "core/zmalloc.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

/* ------------------------------------------------------ instantaneous rates */

/* Like Redis: every 100 ms the growth of a counter since the previous sample
 * becomes a per-second rate; the last 16 rates are averaged. */
#define METRIC_SAMPLES 16
enum { METRIC_COMMANDS, METRIC_NET_INPUT, METRIC_NET_OUTPUT, METRIC_NET_REPL_INPUT, METRIC_NET_REPL_OUTPUT, METRIC_COUNT };

static struct {
    long long last_ms, last_value;
    long long samples[METRIC_SAMPLES];
    int idx;
} metrics[METRIC_COUNT];

static void trackMetric(int metric, long long value, long long now_ms) {
    long long elapsed = now_ms - metrics[metric].last_ms;
    long long rate = elapsed > 0 ? (value - metrics[metric].last_value) * 1000 / elapsed : 0;
    metrics[metric].samples[metrics[metric].idx] = rate;
    metrics[metric].idx = (metrics[metric].idx + 1) % METRIC_SAMPLES;
    metrics[metric].last_ms = now_ms;
    metrics[metric].last_value = value;
}

static long long metricRate(int metric) {
    long long sum = 0;
    for (int j = 0; j < METRIC_SAMPLES; j++) sum += metrics[metric].samples[j];
    return sum / METRIC_SAMPLES;
}

static int (*migrate_sockets)(void);
void infoSetMigrateSocketsProbe(int (*probe)(void)) { migrate_sockets = probe; }

void infoCron(void) {
    static long long last_run;
    long long now = server.mstime;
    if (now - last_run < 100) return;
    last_run = now;
    trackMetric(METRIC_COMMANDS, server.stat_numcommands, now);
    trackMetric(METRIC_NET_INPUT, server.stat_net_input_bytes, now);
    trackMetric(METRIC_NET_OUTPUT, server.stat_net_output_bytes, now);
    trackMetric(METRIC_NET_REPL_INPUT, server.stat_net_repl_input_bytes, now);
    trackMetric(METRIC_NET_REPL_OUTPUT, server.stat_net_repl_output_bytes, now);
}

/* ------------------------------------------------------------------ helpers */

static sds bytesToHuman(sds s, unsigned long long n) {
    double d = (double)n;
    if (n < 1024) return sdscatprintf(s, "%lluB", n);
    if (n < 1024ULL * 1024) return sdscatprintf(s, "%.2fK", d / 1024);
    if (n < 1024ULL * 1024 * 1024) return sdscatprintf(s, "%.2fM", d / (1024 * 1024));
    if (n < 1024ULL * 1024 * 1024 * 1024) return sdscatprintf(s, "%.2fG", d / (1024.0 * 1024 * 1024));
    return sdscatprintf(s, "%.2fT", d / (1024.0 * 1024 * 1024 * 1024));
}

static sds humanField(sds info, const char *name, unsigned long long v) {
    info = sdscatprintf(info, "%s:%llu\r\n%s_human:", name, v, name);
    info = bytesToHuman(info, v);
    return sdscat(info, "\r\n");
}

/* ----------------------------------------------------------------- sections */

static sds serverSection(sds info) {
    static struct utsname name;
    static int have_name;
    if (!have_name) have_name = uname(&name) == 0;
    long long uptime = server.unixtime - server.stat_starttime;
    info = sdscatprintf(info,
                        "# Server\r\nredis_version:" REDIS_VERSION "\r\nredis_git_sha1:00000000\r\nredis_git_dirty:0\r\n"
                        "redis_build_id:0\r\nredis_mode:standalone\r\nos:%s %s %s\r\narch_bits:64\r\n"
                        "monotonic_clock:POSIX clock_gettime\r\nmultiplexing_api:epoll\r\n"
                        "atomicvar_api:c11-builtin\r\ngcc_version:%d.%d.%d\r\nprocess_id:%d\r\n"
                        "process_supervised:%s\r\nrun_id:%s\r\ntcp_port:%d\r\nserver_time_usec:%lld\r\n"
                        "uptime_in_seconds:%lld\r\nuptime_in_days:%lld\r\nhz:%d\r\nconfigured_hz:%d\r\n"
                        "lru_clock:%u\r\nexecutable:%s\r\nconfig_file:%s\r\nio_threads_active:0\r\n",
                        have_name ? name.sysname : "", have_name ? name.release : "", have_name ? name.machine : "",
                        __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__, (int)getpid(), superviseModeName(), server.runid, server.port,
                        server.ustime, uptime, uptime / 86400, server.hz, server.hz, server.lruclock,
                        server.executable ? server.executable : "", server.configfile ? server.configfile : "");
    /* Only while a shutdown waits for lagging replicas. */
    if (server.shutdown_mstime)
        info = sdscatprintf(info, "shutdown_in_milliseconds:%lld\r\n", server.shutdown_mstime - server.mstime);
    return info;
}

/* Biggest input and output buffers, and all the memory clients hold (their
 * part of used_memory_overhead). */
static void clientsStats(size_t *maxin, size_t *maxout, size_t *mem) {
    *maxin = *maxout = *mem = 0;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->querybuf_peak > *maxin) *maxin = c->querybuf_peak;
        if (c->reply_bytes > *maxout) *maxout = c->reply_bytes;
        /* Replicas' output is the shared replication buffer, counted apart. */
        if (getClientType(c) != CLIENT_TYPE_REPLICA) *mem += getClientMemoryUsage(c, NULL);
    }
}

static sds clientsSection(sds info) {
    size_t maxin, maxout, mem;
    clientsStats(&maxin, &maxout, &mem);
    return sdscatprintf(info,
                        "# Clients\r\nconnected_clients:%lu\r\ncluster_connections:%lu\r\nmaxclients:%u\r\n"
                        "client_recent_max_input_buffer:%zu\r\nclient_recent_max_output_buffer:%zu\r\n"
                        "blocked_clients:%u\r\ntracking_clients:%llu\r\nclients_in_timeout_table:%u\r\n",
                        listLength(server.clients) - replReplicaCount(), clusterConnectionCount(), server.maxclients, maxin, maxout,
                        server.blocked_clients,
                        trackingClientsCount(),
                        (unsigned)blockedClientsWithTimeout());
}

void memoryOverheadCollect(memoryOverhead *mh) {
    memset(mh, 0, sizeof(*mh));
    mh->used = zmalloc_used_memory();
    mh->rss = zmalloc_get_rss();
    if (mh->used > (size_t)server.stat_peak_memory) server.stat_peak_memory = mh->used;
    mh->peak = server.stat_peak_memory;
    mh->startup = server.initial_memory_usage;
    size_t maxin, maxout;
    clientsStats(&maxin, &maxout, &mh->clients_normal);
    mh->clients = listLength(server.clients);
    mh->aof_buffer = aofBufferMemory();
    scriptingCacheStats(&mh->scripts, &mh->lua_caches);
    mh->lua_vm = scriptingVmMemory();
    functionsMemory fm;
    functionsGetMemory(&fm);
    mh->functions_vm = fm.vm_bytes;
    mh->functions_caches = fm.registry_bytes;
    mh->functions = fm.functions;
    mh->libraries = fm.libraries;
    size_t replbuf = replBufMemory();
    if (replReplicaCount() && (long long)replbuf > server.repl_backlog_size) {
        mh->clients_slaves = replbuf - (size_t)server.repl_backlog_size;
        mh->repl_backlog = (size_t)server.repl_backlog_size;
    } else {
        mh->repl_backlog = replbuf;
    }
    mh->repl_backlog += replBufIndexMemory();
    mh->not_counted_for_evict = evictNotCountedMemory();
    mh->overhead_total = mh->startup + mh->repl_backlog + mh->clients_slaves + mh->clients_normal + mh->aof_buffer +
                         mh->lua_caches + mh->functions_caches;
    mh->db = zcalloc(sizeof(*mh->db) * server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        redisDb *db = &server.db[j];
        size_t keys = dictSize(db->dict);
        mh->keys += keys;
        if (!keys) continue;
        mh->db[mh->ndbs].id = j;
        mh->db[mh->ndbs].main = dictMemUsage(db->dict);
        mh->db[mh->ndbs].expires = ttlHeapMemUsage(db->expires);
        mh->overhead_total += mh->db[mh->ndbs].main + mh->db[mh->ndbs].expires;
        mh->ndbs++;
    }
    mh->dataset = mh->used > mh->overhead_total ? mh->used - mh->overhead_total : 0;
    zmalloc_get_allocator_info(&mh->allocated, &mh->active, &mh->resident);
    if (!mh->allocated) mh->allocated = mh->used, mh->active = mh->used, mh->resident = mh->rss;
}

void memoryOverheadRelease(memoryOverhead *mh) { zfree(mh->db); }

/* Memory that is not the data set: what the server took to start, the
 * clients' buffers and the keyspace's own tables. */
static sds memorySection(sds info) {
    memoryOverhead mh;
    memoryOverheadCollect(&mh);
    size_t used = mh.used, rss = mh.rss, allocated = mh.allocated, active = mh.active, resident = mh.resident;
    size_t net = used > mh.startup ? used - mh.startup : 0;
    long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
    info = sdscat(info, "# Memory\r\n");
    info = humanField(info, "used_memory", used);
    info = humanField(info, "used_memory_rss", rss);
    info = humanField(info, "used_memory_peak", mh.peak);
    info = sdscatprintf(info,
                        "used_memory_peak_perc:%.2f%%\r\nused_memory_overhead:%zu\r\nused_memory_startup:%zu\r\n"
                        "used_memory_dataset:%zu\r\nused_memory_dataset_perc:%.2f%%\r\nallocator_allocated:%zu\r\n"
                        "allocator_active:%zu\r\nallocator_resident:%zu\r\n",
                        mh.peak ? 100.0 * used / mh.peak : 100.0, mh.overhead_total, mh.startup, mh.dataset,
                        net ? 100.0 * mh.dataset / net : 0.0, allocated, active, resident);
    info = humanField(info, "total_system_memory", (unsigned long long)pages * pagesize);
    info = sdscatprintf(info, "used_memory_lua:%zu\r\nused_memory_vm_eval:%zu\r\n", mh.lua_vm, mh.lua_vm);
    info = bytesToHuman(sdscat(info, "used_memory_lua_human:"), mh.lua_vm);
    info = sdscatprintf(info,
                        "\r\nused_memory_scripts_eval:%zu\r\nnumber_of_cached_scripts:%zu\r\nnumber_of_functions:%zu\r\n"
                        "number_of_libraries:%zu\r\nused_memory_vm_functions:%zu\r\n",
                        mh.lua_caches, mh.scripts, mh.functions, mh.libraries, mh.functions_vm);
    info = humanField(info, "used_memory_vm_total", mh.lua_vm + mh.functions_vm);
    info = sdscatprintf(info, "used_memory_functions:%zu\r\n", mh.functions_caches);
    info = humanField(info, "used_memory_scripts", mh.lua_caches + mh.functions_caches);
    info = humanField(info, "maxmemory", server.maxmemory);
    sds policy = configGetValue("maxmemory-policy");
    info = sdscatprintf(info, "maxmemory_policy:%s\r\n", policy);
    sdsfree(policy);
    info = sdscatprintf(
        info,
        "allocator_frag_ratio:%.2f\r\nallocator_frag_bytes:%lld\r\nallocator_rss_ratio:%.2f\r\n"
        "allocator_rss_bytes:%lld\r\nrss_overhead_ratio:%.2f\r\nrss_overhead_bytes:%lld\r\n"
        "mem_fragmentation_ratio:%.2f\r\nmem_fragmentation_bytes:%lld\r\nmem_not_counted_for_evict:%zu\r\n"
        "mem_replication_backlog:%zu\r\nmem_total_replication_buffers:%zu\r\nmem_clients_slaves:%zu\r\n"
        "mem_clients_normal:%zu\r\nmem_cluster_links:%zu\r\nmem_aof_buffer:%zu\r\nmem_allocator:%s\r\n"
        "active_defrag_running:0\r\nlazyfree_pending_objects:%zu\r\nlazyfreed_objects:%zu\r\n",
        allocated ? (double)active / allocated : 0, (long long)active - (long long)allocated,
        active ? (double)resident / active : 0, (long long)resident - (long long)active,
        resident ? (double)rss / resident : 0, (long long)rss - (long long)resident, used ? (double)rss / used : 0,
        (long long)rss - (long long)used, mh.not_counted_for_evict, mh.repl_backlog, replBufMemory(),
        mh.clients_slaves, mh.clients_normal, clusterLinksMemoryUsage(), mh.aof_buffer, zmalloc_lib_name(),
        lazyfreePendingObjects(), lazyfreedObjects());
    memoryOverheadRelease(&mh);
    return info;
}

static sds statsSection(sds info) {
    return sdscatprintf(
        info,
        "# Stats\r\ntotal_connections_received:%lld\r\ntotal_commands_processed:%lld\r\n"
        "instantaneous_ops_per_sec:%lld\r\ntotal_net_input_bytes:%lld\r\ntotal_net_output_bytes:%lld\r\n"
        "total_net_repl_input_bytes:%lld\r\ntotal_net_repl_output_bytes:%lld\r\ninstantaneous_input_kbps:%.2f\r\n"
        "instantaneous_output_kbps:%.2f\r\ninstantaneous_input_repl_kbps:%.2f\r\n"
        "instantaneous_output_repl_kbps:%.2f\r\nrejected_connections:%lld\r\nsync_full:%lld\r\nsync_partial_ok:%lld\r\n"
        "sync_partial_err:%lld\r\nexpired_keys:%lld\r\nexpired_stale_perc:0.00\r\n"
        "expired_time_cap_reached_count:0\r\nexpire_cycle_cpu_milliseconds:%lld\r\nevicted_keys:%lld\r\n"
        "evicted_clients:%lld\r\ntotal_eviction_exceeded_time:0\r\ncurrent_eviction_exceeded_time:0\r\n"
        "keyspace_hits:%lld\r\nkeyspace_misses:%lld\r\npubsub_channels:%lu\r\npubsub_patterns:%lu\r\n"
        "pubsubshard_channels:%lu\r\nlatest_fork_usec:%lld\r\ntotal_forks:%lld\r\nmigrate_cached_sockets:%d\r\n"
        "slave_expires_tracked_keys:%zu\r\nactive_defrag_hits:0\r\nactive_defrag_misses:0\r\n"
        "active_defrag_key_hits:0\r\nactive_defrag_key_misses:0\r\ntotal_active_defrag_time:0\r\n"
        "current_active_defrag_time:0\r\ntracking_total_keys:%llu\r\ntracking_total_items:%llu\r\n"
        "tracking_total_prefixes:%llu\r\nunexpected_error_replies:%lld\r\ntotal_error_replies:%lld\r\n"
        "dump_payload_sanitizations:0\r\ntotal_reads_processed:%lld\r\ntotal_writes_processed:%lld\r\n"
        "io_threaded_reads_processed:0\r\nio_threaded_writes_processed:0\r\nreply_buffer_shrinks:%lld\r\n"
        "reply_buffer_expands:%lld\r\n",
        server.stat_numconnections, server.stat_numcommands, metricRate(METRIC_COMMANDS),
        server.stat_net_input_bytes, server.stat_net_output_bytes, server.stat_net_repl_input_bytes,
        server.stat_net_repl_output_bytes, (double)metricRate(METRIC_NET_INPUT) / 1024,
        (double)metricRate(METRIC_NET_OUTPUT) / 1024, (double)metricRate(METRIC_NET_REPL_INPUT) / 1024,
        (double)metricRate(METRIC_NET_REPL_OUTPUT) / 1024, server.stat_rejected_conn, replStatSyncFull(),
        replStatSyncPartialOk(), replStatSyncPartialErr(), server.stat_expiredkeys,
        server.stat_expire_cycle_time_used / 1000, server.stat_evictedkeys, server.stat_evictedclients,
        server.stat_keyspace_hits,
        server.stat_keyspace_misses, pubsubChannelCount(), pubsubPatternCount(), pubsubShardChannelCount(), bgchildLatestForkUsec(),
        bgchildTotalForks(), migrate_sockets ? migrate_sockets() : 0, expireReplicaKeyCount(), trackingGetTotalKeys(), trackingGetTotalItems(), trackingGetTotalPrefixes(),
        server.stat_unexpected_error_replies,
        server.stat_total_error_replies, server.stat_total_reads_processed, server.stat_total_writes_processed,
        server.stat_reply_buffer_shrinks, server.stat_reply_buffer_expands);
}

static sds catRusage(sds info, const char *prefix, const char *suffix, struct rusage *ru) {
    return sdscatprintf(info, "%ssys%s:%ld.%06ld\r\n%suser%s:%ld.%06ld\r\n", prefix, suffix, (long)ru->ru_stime.tv_sec,
                        (long)ru->ru_stime.tv_usec, prefix, suffix, (long)ru->ru_utime.tv_sec,
                        (long)ru->ru_utime.tv_usec);
}

static sds cpuSection(sds info) {
    struct rusage self, children, thread;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    getrusage(RUSAGE_THREAD, &thread);
    info = sdscat(info, "# CPU\r\n");
    info = catRusage(info, "used_cpu_", "", &self);
    info = catRusage(info, "used_cpu_", "_children", &children);
    return catRusage(info, "used_cpu_", "_main_thread", &thread);
}

/* One line per command that was called, failed or was rejected; containers
 * are not called themselves, their subcommands are. */
static sds catCommandstats(sds info, dict *table) {
    dictIterator *di = dictGetIterator(table);
    dictEntry *de;
    while ((de = dictNext(di))) {
        redisCommand *cmd = dictGetVal(de);
        if (cmd->calls || cmd->failed_calls || cmd->rejected_calls)
            info = sdscatprintf(info, "cmdstat_%s:calls=%lld,usec=%lld,usec_per_call=%.2f,rejected_calls=%lld,failed_calls=%lld\r\n",
                                cmd->fullname, cmd->calls, cmd->microseconds,
                                cmd->calls ? (double)cmd->microseconds / cmd->calls : 0.0, cmd->rejected_calls,
                                cmd->failed_calls);
        if (cmd->subcommands) info = catCommandstats(info, cmd->subcommands);
    }
    dictReleaseIterator(di);
    return info;
}

static sds commandstatsSection(sds info) { return catCommandstats(sdscat(info, "# Commandstats\r\n"), server.commands); }

static sds errorstatsSection(sds info) {
    info = sdscat(info, "# Errorstats\r\n");
    dictIterator *di = dictGetIterator(server.errors);
    dictEntry *de;
    while ((de = dictNext(di)))
        info = sdscatprintf(info, "errorstat_%s:count=%lld\r\n", (char *)dictGetKey(de),
                            (long long)dictGetSignedIntegerVal(de));
    dictReleaseIterator(di);
    return info;
}

static sds keyspaceSection(sds info) {
    info = sdscat(info, "# Keyspace\r\n");
    for (int j = 0; j < server.dbnum; j++) {
        long long keys = dictSize(server.db[j].dict), vkeys = ttlHeapLen(server.db[j].expires);
        if (keys || vkeys)
            info = sdscatprintf(info, "db%d:keys=%lld,expires=%lld,avg_ttl=%lld\r\n", j, keys, vkeys,
                                dbAverageTtl(&server.db[j]));
    }
    return info;
}

static sds latencystatsSection(sds info) { return latencyInfo(info); }
/* Active expiry's lateness, after the push's own figures: how late a key
 * left (and was pushed) after its deadline, by the server's clock. */
static sds catExpiryLateness(sds info) {
    const latencyHistogram *h = expireLateness();
    return sdscatprintf(info,
                        "expired_lateness_count:%lld\r\nexpired_lateness_p50_us:%lld\r\n"
                        "expired_lateness_p99_us:%lld\r\nexpired_lateness_p999_us:%lld\r\n"
                        "expired_lateness_max_us:%lld\r\n",
                        h->total, (long long)histogramPercentile(h, 50), (long long)histogramPercentile(h, 99),
                        (long long)histogramPercentile(h, 99.9), (long long)histogramPercentile(h, 100));
}

static sds expiryPushSection(sds info) { return catExpiryLateness(expiryPushInfo(info)); }
static sds modulesSection(sds info) { return sdscat(info, "# Modules\r\n"); }
static sds clusterSection(sds info) { return clusterInfoSection(info); }

/* In output order. Not default: only by name, ALL or EVERYTHING. */
static const struct infoSection {
    const char *name;
    int is_default;
    sds (*gen)(sds info);
} sections[] = {
    {"server", 1, serverSection},          {"clients", 1, clientsSection},
    {"memory", 1, memorySection},          {"persistence", 1, persistInfo},
    {"stats", 1, statsSection},            {"replication", 1, replInfo},
    {"cpu", 1, cpuSection},                {"modules", 1, modulesSection},
    {"commandstats", 0, commandstatsSection}, {"errorstats", 1, errorstatsSection},
    {"latencystats", 0, latencystatsSection},
    {"expiry_push", 1, expiryPushSection}, {"cluster", 1, clusterSection},
    {"keyspace", 1, keyspaceSection},
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

/* Each section appears once, in the order above, whatever order and
 * repetitions the arguments have; unknown names add nothing. */
sds genInfoString(int argc, const char **names) {
    char wanted[NSECTIONS] = {0};
    if (argc == 0) {
        static const char *deflt = "default";
        names = &deflt;
        argc = 1;
    }
    for (int i = 0; i < argc; i++) {
        int all = !strcasecmp(names[i], "all") || !strcasecmp(names[i], "everything");
        int deflt = !strcasecmp(names[i], "default");
        for (size_t k = 0; k < NSECTIONS; k++)
            if (all || (deflt && sections[k].is_default) || !strcasecmp(names[i], sections[k].name)) wanted[k] = 1;
    }
    sds info = sdsempty();
    int emitted = 0;
    for (size_t k = 0; k < NSECTIONS; k++) {
        if (!wanted[k]) continue;
        if (emitted++) info = sdscat(info, "\r\n");
        info = sections[k].gen(info);
    }
    return info;
}

void infoCommand(client *c) {
    const char **names = zmalloc(sizeof(char *) * (c->argc > 1 ? c->argc - 1 : 1));
    for (int j = 1; j < c->argc; j++) names[j - 1] = objectPtr(c->argv[j]);
    sds info = genInfoString(c->argc - 1, names);
    zfree(names);
    addReplyVerbatim(c, info, sdslen(info), "txt");
    sdsfree(info);
}
