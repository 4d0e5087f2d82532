/* info: INFO (see info.h). Field names and order follow Redis 7.0 so tools
 * that parse INFO (redis-cli, monitoring agents, client libraries) work. */
#include "features/info.h"
#include "features/expiry_push.h"
#include "features/pubsub.h"
#include "server/client.h"
#include "server/reply.h"
#include "server/config.h"
#include "server/server.h"
#include "persist/persist.h"
#include "core/zmalloc.h"

#include <math.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

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

static int wants(const char *section, const char *name, int is_default) {
    if (!strcasecmp(section, "all") || !strcasecmp(section, "everything")) return 1;
    if (!strcasecmp(section, "default")) return is_default;
    return !strcasecmp(section, name);
}

static sds serverSection(sds info) {
    static struct utsname name;
    static int have_name;
    if (!have_name) have_name = uname(&name) == 0;
    long long uptime = server.unixtime - server.stat_starttime;
    info = sdscatprintf(info,
                        "# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\nredis_git_dirty:0\r\n"
                        "redis_build_id:0\r\nredis_mode:standalone\r\nos:%s %s %s\r\narch_bits:64\r\n"
                        "monotonic_clock:POSIX clock_gettime\r\nmultiplexing_api:epoll\r\n"
                        "atomicvar_api:c11-builtin\r\ngcc_version:%d.%d.%d\r\nprocess_id:%d\r\n"
                        "process_supervised:no\r\nrun_id:%s\r\ntcp_port:%d\r\nserver_time_usec:%lld\r\n"
                        "uptime_in_seconds:%lld\r\nuptime_in_days:%lld\r\nhz:%d\r\nconfigured_hz:%d\r\n"
                        "lru_clock:%u\r\nexecutable:%s\r\nconfig_file:%s\r\nio_threads_active:0\r\n",
                        have_name ? name.sysname : "", have_name ? name.release : "", have_name ? name.machine : "",
                        __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__, (int)getpid(), server.runid, server.port,
                        server.ustime, uptime, uptime / 86400, server.hz, server.hz, server.lruclock,
                        server.executable ? server.executable : "", server.configfile ? server.configfile : "");
    return info;
}

static sds clientsSection(sds info) {
    size_t maxin = 0, maxout = 0;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->querybuf_peak > maxin) maxin = c->querybuf_peak;
        if (c->reply_bytes > maxout) maxout = c->reply_bytes;
    }
    return sdscatprintf(info,
                        "# Clients\r\nconnected_clients:%lu\r\ncluster_connections:0\r\nmaxclients:%u\r\n"
                        "client_recent_max_input_buffer:%zu\r\nclient_recent_max_output_buffer:%zu\r\n"
                        "blocked_clients:%u\r\ntracking_clients:0\r\nclients_in_timeout_table:%u\r\n",
                        listLength(server.clients), server.maxclients, maxin, maxout, server.blocked_clients,
                        server.blocked_clients);
}

static sds memorySection(sds info) {
    size_t used = zmalloc_used_memory(), rss = zmalloc_get_rss();
    if (used > (size_t)server.stat_peak_memory) server.stat_peak_memory = used;
    long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
    info = sdscat(info, "# Memory\r\n");
    info = humanField(info, "used_memory", used);
    info = humanField(info, "used_memory_rss", rss);
    info = humanField(info, "used_memory_peak", server.stat_peak_memory);
    info = sdscatprintf(info, "used_memory_peak_perc:%.2f%%\r\n",
                        server.stat_peak_memory ? 100.0 * used / server.stat_peak_memory : 100.0);
    info = sdscatprintf(info, "used_memory_dataset:%zu\r\n", used);
    info = humanField(info, "total_system_memory", (unsigned long long)pages * pagesize);
    info = humanField(info, "maxmemory", server.maxmemory);
    sds policy = configGetValue("maxmemory-policy");
    info = sdscatprintf(info, "maxmemory_policy:%s\r\n", policy);
    sdsfree(policy);
    info = sdscatprintf(info, "mem_fragmentation_ratio:%.2f\r\nmem_allocator:%s\r\nlazyfree_pending_objects:0\r\n",
                        used ? (double)rss / used : 0, zmalloc_lib_name());
    return info;
}

static sds statsSection(sds info) {
    return sdscatprintf(
        info,
        "# Stats\r\ntotal_connections_received:%lld\r\ntotal_commands_processed:%lld\r\n"
        "instantaneous_ops_per_sec:0\r\ntotal_net_input_bytes:%lld\r\ntotal_net_output_bytes:%lld\r\n"
        "rejected_connections:%lld\r\nexpired_keys:%lld\r\nexpired_stale_perc:0.00\r\n"
        "expired_time_cap_reached_count:0\r\nexpire_cycle_cpu_milliseconds:%lld\r\nevicted_keys:%lld\r\n"
        "keyspace_hits:%lld\r\nkeyspace_misses:%lld\r\npubsub_channels:%lu\r\npubsub_patterns:%lu\r\n"
        "pubsubshard_channels:0\r\nlatest_fork_usec:0\r\ntotal_forks:0\r\n"
        "client_query_buffer_limit_disconnections:%lld\r\nclient_output_buffer_limit_disconnections:%lld\r\n"
        "unexpected_error_replies:%lld\r\ntotal_error_replies:%lld\r\n",
        server.stat_numconnections, server.stat_numcommands, server.stat_net_input_bytes,
        server.stat_net_output_bytes, server.stat_rejected_conn, server.stat_expiredkeys,
        server.stat_expire_cycle_time_used / 1000, server.stat_evictedkeys, server.stat_keyspace_hits,
        server.stat_keyspace_misses, pubsubChannelCount(), pubsubPatternCount(),
        server.stat_client_qbuf_limit_disconnections, server.stat_client_outbuf_limit_disconnections,
        server.stat_unexpected_error_replies, server.stat_total_error_replies);
}

static sds cpuSection(sds info) {
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    return sdscatprintf(info,
                        "# CPU\r\nused_cpu_sys:%ld.%06ld\r\nused_cpu_user:%ld.%06ld\r\n"
                        "used_cpu_sys_children:%ld.%06ld\r\nused_cpu_user_children:%ld.%06ld\r\n",
                        (long)self.ru_stime.tv_sec, (long)self.ru_stime.tv_usec, (long)self.ru_utime.tv_sec,
                        (long)self.ru_utime.tv_usec, (long)children.ru_stime.tv_sec, (long)children.ru_stime.tv_usec,
                        (long)children.ru_utime.tv_sec, (long)children.ru_utime.tv_usec);
}

static sds commandstatsFor(sds info, redisCommand *cmd) {
    if (cmd->calls || cmd->failed_calls || cmd->rejected_calls) {
        info = sdscatprintf(info, "cmdstat_%s:calls=%lld,usec=%lld,usec_per_call=%.2f,rejected_calls=%lld,failed_calls=%lld\r\n",
                            cmd->fullname, cmd->calls, cmd->microseconds,
                            cmd->calls ? (double)cmd->microseconds / cmd->calls : 0.0, cmd->rejected_calls,
                            cmd->failed_calls);
    }
    if (cmd->subcommands) {
        dictIterator *di = dictGetIterator(cmd->subcommands);
        dictEntry *de;
        while ((de = dictNext(di))) info = commandstatsFor(info, dictGetVal(de));
        dictReleaseIterator(di);
    }
    return info;
}

static sds keyspaceSection(sds info) {
    info = sdscat(info, "# Keyspace\r\n");
    for (int j = 0; j < server.dbnum; j++) {
        long long keys = dictSize(server.db[j].dict), vkeys = ttlHeapLen(server.db[j].expires);
        if (keys || vkeys)
            info = sdscatprintf(info, "db%d:keys=%lld,expires=%lld,avg_ttl=%lld\r\n", j, keys, vkeys,
                                server.db[j].avg_ttl);
    }
    return info;
}

sds genInfoString(const char *section) {
    sds info = sdsempty();
    int sections = 0;
#define SECTION(name, is_default, body)               \
    if (wants(section, name, is_default)) {           \
        if (sections++) info = sdscat(info, "\r\n"); \
        body;                                         \
    }
    SECTION("server", 1, info = serverSection(info));
    SECTION("clients", 1, info = clientsSection(info));
    SECTION("memory", 1, info = memorySection(info));
    SECTION("persistence", 1, info = persistInfo(info));
    SECTION("stats", 1, info = statsSection(info));
    SECTION("replication", 1,
            info = sdscatprintf(info, "# Replication\r\nrole:master\r\nconnected_slaves:0\r\nmaster_failover_state:no-failover\r\n"
                                      "master_replid:%s\r\nmaster_replid2:0000000000000000000000000000000000000000\r\n"
                                      "master_repl_offset:0\r\nsecond_repl_offset:-1\r\nrepl_backlog_active:0\r\n"
                                      "repl_backlog_size:1048576\r\nrepl_backlog_first_byte_offset:0\r\nrepl_backlog_histlen:0\r\n",
                                server.runid));
    SECTION("cpu", 1, info = cpuSection(info));
    SECTION("modules", 1, info = sdscat(info, "# Modules\r\n"));
    if (!strcasecmp(section, "commandstats") || !strcasecmp(section, "all") || !strcasecmp(section, "everything")) {
        if (sections++) info = sdscat(info, "\r\n");
        info = sdscat(info, "# Commandstats\r\n");
        dictIterator *di = dictGetIterator(server.commands);
        dictEntry *de;
        while ((de = dictNext(di))) info = commandstatsFor(info, dictGetVal(de));
        dictReleaseIterator(di);
    }
    SECTION("errorstats", 1, {
        info = sdscat(info, "# Errorstats\r\n");
        dictIterator *di = dictGetIterator(server.errors);
        dictEntry *de;
        while ((de = dictNext(di)))
            info = sdscatprintf(info, "errorstat_%s:count=%lld\r\n", (char *)dictGetKey(de),
                                (long long)dictGetSignedIntegerVal(de));
        dictReleaseIterator(di);
    });
    if (expiryPushInfo) SECTION("expiry_push", 1, info = expiryPushInfo(info));
    SECTION("cluster", 1, info = sdscat(info, "# Cluster\r\ncluster_enabled:0\r\n"));
    SECTION("keyspace", 1, info = keyspaceSection(info));
#undef SECTION
    return info;
}

void infoCommand(client *c) {
    const char *section = c->argc >= 2 ? c->argv[1]->ptr : "default";
    if (c->argc > 2) {
        /* Several sections: concatenate them in the order given. */
        sds all = sdsempty();
        for (int j = 1; j < c->argc; j++) {
            sds part = genInfoString(c->argv[j]->ptr);
            if (sdslen(part)) {
                if (sdslen(all)) all = sdscat(all, "\r\n");
                all = sdscatsds(all, part);
            }
            sdsfree(part);
        }
        addReplyVerbatim(c, all, sdslen(all), "txt");
        sdsfree(all);
        return;
    }
    sds info = genInfoString(section);
    addReplyVerbatim(c, info, sdslen(info), "txt");
    sdsfree(info);
}
