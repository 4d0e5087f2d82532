/* config: the directive table and everything that reads it (see config.h).
 * Defaults are strings fed through the same setter as redis.conf and CONFIG
 * SET, so there is one parser per type and one place that states a default. */
#include "server/config.h"
#include "server/command.h"
#include "server/client.h"
#include "server/clientmem.h"
#include "server/evict.h"
#include "server/expire.h"
#include "server/lazyfree.h"
#include "server/reply.h"
#include "core/glob.h"
#include "core/zmalloc.h"
#include "server/hooks.h"

#include <syslog.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { T_BOOL, T_INT, T_UINT, T_LL, T_ULL, T_SIZE, T_MEM, T_STRING, T_ENUM, T_SPECIAL };
#define F_IMMUTABLE 1
#define F_SENSITIVE 2
#define F_MULTI 4      /* a space-separated list of values (save, bind, client-output-buffer-limit) */
#define F_NOEFFECT 8   /* accepted for compatibility with redis.conf files; documented as such */
#define F_OCTAL 16     /* an integer written in octal (file permissions) */
#define F_UMEM 32      /* T_MEM kept as unsigned long long over its whole range (maxmemory) */
#define F_FILE_ONLY 64 /* a redis.conf directive CONFIG GET/SET do not know (user) */
#define F_PERCENT 128  /* T_MEM that may also be "N%" (of maxmemory), kept as -N */
#define F_WORDS 256    /* takes a list of words: given none, its own check says what is wrong */
#define F_HIDDEN 512   /* CONFIG GET answers it by name, never for a pattern: testing knobs, and the
                        * set-max-listpack-* limits of our 7.2-style small sets, which 7.0 lacks */
#define F_PROTECTED 1024 /* CONFIG SET only as enable-protected-configs allows (dir, dbfilename) */
#define F_ARGS 2048    /* the value is several arguments: rewritten as they are, not as one quoted string */
#define F_DENY_LOADING 4096 /* CONFIG SET refused (-LOADING) while a dataset loads (dir, appendonly, repl-diskless-load) */
#define F_ACCUMULATE 8192 /* repeated config-file lines add up (save; zmq-expiry-endpoint, one endpoint each) */

typedef struct enumName {
    const char *name;
    int value;
} enumName;

typedef struct configDef configDef;
struct configDef {
    const char *name, *alias;
    int type, flags;
    void *ptr;
    const char *deflt;
    long long min, max;
    const enumName *enums;
    int (*apply)(const char **err);
    /* T_SPECIAL: set from already split arguments, get as CONFIG GET prints it. */
    int (*set)(sds *argv, int argc, int from_file, const char **err);
    sds (*get)(void);
    int seen_in_load; /* save: the first line of a load replaces, later ones append */
};

/* ------------------------------------------------------------------ enums */
/* Their values are named beside the fields they set: in server.h, or below for
 * the two fields that are config.c's own (oom-score-adj, propagation-error-behavior). */

static const enumName loglevelEnum[] = {{"debug", LL_DEBUG}, {"verbose", LL_VERBOSE}, {"notice", LL_NOTICE},
                                        {"warning", LL_WARNING}, {NULL, 0}};
static const enumName fsyncEnum[] = {{"everysec", AOF_FSYNC_EVERYSEC}, {"always", AOF_FSYNC_ALWAYS}, {"no", AOF_FSYNC_NO}, {NULL, 0}};
static const enumName maxmemoryPolicyEnum[] = {{"volatile-lru", MAXMEMORY_VOLATILE_LRU},
                                               {"volatile-lfu", MAXMEMORY_VOLATILE_LFU},
                                               {"volatile-random", MAXMEMORY_VOLATILE_RANDOM},
                                               {"volatile-ttl", MAXMEMORY_VOLATILE_TTL},
                                               {"allkeys-lru", MAXMEMORY_ALLKEYS_LRU},
                                               {"allkeys-lfu", MAXMEMORY_ALLKEYS_LFU},
                                               {"allkeys-random", MAXMEMORY_ALLKEYS_RANDOM},
                                               {"noeviction", MAXMEMORY_NO_EVICTION},
                                               {NULL, 0}};
static const enumName syslogFacilityEnum[] = {
    {"user", LOG_USER},     {"local0", LOG_LOCAL0}, {"local1", LOG_LOCAL1}, {"local2", LOG_LOCAL2}, {"local3", LOG_LOCAL3},
    {"local4", LOG_LOCAL4}, {"local5", LOG_LOCAL5}, {"local6", LOG_LOCAL6}, {"local7", LOG_LOCAL7}, {NULL, 0}};
static const enumName tlsAuthClientsEnum[] = {{"no", TLS_CLIENT_AUTH_NO}, {"yes", TLS_CLIENT_AUTH_YES},
                                               {"optional", TLS_CLIENT_AUTH_OPTIONAL}, {NULL, 0}};
static const enumName supervisedEnum[] = {{"upstart", SUPERVISED_UPSTART}, {"systemd", SUPERVISED_SYSTEMD},
                                          {"auto", SUPERVISED_AUTODETECT},  {"no", SUPERVISED_NONE},
                                          {NULL, 0}};
static const enumName enableEnum[] = {{"no", PROTECTED_ACTION_ALLOWED_NO},
                                      {"yes", PROTECTED_ACTION_ALLOWED_YES},
                                      {"local", PROTECTED_ACTION_ALLOWED_LOCAL},
                                      {NULL, 0}};
static const enumName endpointTypeEnum[] = {{"ip", CLUSTER_ENDPOINT_IP}, {"hostname", CLUSTER_ENDPOINT_HOSTNAME},
                                            {"unknown-endpoint", CLUSTER_ENDPOINT_UNKNOWN}, {NULL, 0}};
static const enumName protectedEnum[] = {{"yes", PROTECTED_MODE_YES}, {"no", PROTECTED_MODE_NO}, {NULL, 0}};
static const enumName disklessLoadEnum[] = {{"disabled", REPL_DISKLESS_LOAD_DISABLED},
                                            {"on-empty-db", REPL_DISKLESS_LOAD_EMPTY_DB},
                                            {"swapdb", REPL_DISKLESS_LOAD_SWAPDB},
                                            {NULL, 0}};
static const enumName sanitizeDumpEnum[] = {{"no", SANITIZE_DUMP_NO}, {"yes", SANITIZE_DUMP_YES},
                                            {"clients", SANITIZE_DUMP_CLIENTS}, {NULL, 0}};
static const enumName aclPubsubEnum[] = {{"allchannels", ACL_PUBSUB_DEFAULT_ALLCHANNELS},
                                         {"resetchannels", ACL_PUBSUB_DEFAULT_RESETCHANNELS},
                                         {NULL, 0}};

/* ---------------------------------------------- directives access control owns */

static configUserHooks userHooks;

void configRegisterUserHooks(const configUserHooks *hooks) { userHooks = *hooks; }

/* A `user` line is handed over whole (name first) for acl/ to check and keep. */
static int setUser(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    if (argc == 1 && sdslen(argv[0]) == 0) return 1; /* the empty default */
    if (!userHooks.load) return 1;
    return userHooks.load(argv, argc, err);
}

/* A file-only directive (user, rename-command) has no value to show. */
static sds getNothing(void) { return sdsempty(); }

/* rename-command NAME NEWNAME: a redis.conf line CONFIG REWRITE keeps as written. */
static int setRenameCommand(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    if (argc == 1 && sdslen(argv[0]) == 0) return 1; /* the empty default */
    if (argc != 2) {
        *err = "Bad directive or wrong number of arguments";
        return 0;
    }
    return commandTableRename(argv[0], argv[1], err);
}

/* A password directive: binary-safe (a password may hold a NUL), empty = none. */
static int setPassword(sds *dst, sds *argv, int argc, const char **err) {
    if (argc != 1) {
        *err = "wrong number of arguments";
        return 0;
    }
    sdsfree(*dst);
    *dst = sdslen(argv[0]) ? sdsdup(argv[0]) : NULL;
    return 1;
}

static int setRequirepass(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    if (!setPassword(&server.requirepass, argv, argc, err)) return 0;
    if (userHooks.requirepass) userHooks.requirepass(server.requirepass);
    return 1;
}

static sds getRequirepass(void) { return server.requirepass ? sdsdup(server.requirepass) : sdsempty(); }

static int setMasterauth(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    return setPassword(&server.masterauth, argv, argc, err);
}

static sds getMasterauth(void) { return server.masterauth ? sdsdup(server.masterauth) : sdsempty(); }

/* ------------------------------------------------- values with no home yet */

/* Directives accepted for redis.conf compatibility; their values are kept so
 * CONFIG GET/REWRITE round-trip, but nothing reads them. */
static int cfg_ints[64];
static char *server_cpulist, *bio_cpulist, *aof_rewrite_cpulist, *bgsave_cpulist, *ignore_warnings;
static unsigned socket_mark_id;

static int propagation_error_behavior; /* propagation-error-behavior: */
#define PROPAGATION_ERR_BEHAVIOR_IGNORE 0
#define PROPAGATION_ERR_BEHAVIOR_PANIC 1
#define PROPAGATION_ERR_BEHAVIOR_PANIC_ON_REPLICAS 2
static const enumName propagationErrorEnum[] = {{"ignore", PROPAGATION_ERR_BEHAVIOR_IGNORE},
                                                {"panic", PROPAGATION_ERR_BEHAVIOR_PANIC},
                                                {"panic-on-replicas", PROPAGATION_ERR_BEHAVIOR_PANIC_ON_REPLICAS},
                                                {NULL, 0}};

/* ------------------------------------------------------------- special sets */

/* shutdown-on-sigterm / -sigint: "default" or any of save, nosave, now, force. */
static const enumName shutdownFlagNames[] = {{"save", SHUTDOWN_SAVE}, {"nosave", SHUTDOWN_NOSAVE},
                                             {"now", SHUTDOWN_NOW},   {"force", SHUTDOWN_FORCE},
                                             {NULL, 0}};

static int setShutdownFlags(int *flags, sds *argv, int argc, const char **err) {
    int n, f = 0, ok = 1;
    sds joined = sdsempty();
    for (int i = 0; i < argc; i++) joined = sdscat(sdscatsds(joined, argv[i]), " ");
    sds *words = sdssplitargs(joined, &n);
    sdsfree(joined);
    if (!words || n == 0) ok = 0;
    for (int i = 0; ok && i < n; i++) {
        const enumName *e = shutdownFlagNames;
        while (e->name && strcasecmp(words[i], e->name)) e++;
        if (e->name) f |= e->value;
        else if (strcasecmp(words[i], "default")) ok = 0;
    }
    if (words) sdsfreesplitres(words, n);
    if (!ok) {
        *err = "argument(s) must be one of the following: default, save, nosave, now, force";
        return 0;
    }
    if ((f & SHUTDOWN_SAVE) && (f & SHUTDOWN_NOSAVE)) {
        *err = "shutdown options SAVE and NOSAVE can't be used simultaneously";
        return 0;
    }
    *flags = f;
    return 1;
}

static sds getShutdownFlags(int flags) {
    if (!flags) return sdsnew("default");
    sds s = sdsempty();
    for (const enumName *e = shutdownFlagNames; e->name; e++)
        if (flags & e->value) s = sdscat(sdslen(s) ? sdscat(s, " ") : s, e->name);
    return s;
}

static int setShutdownOnSigterm(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    return setShutdownFlags(&server.shutdown_on_sigterm, argv, argc, err);
}
static int setShutdownOnSigint(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    return setShutdownFlags(&server.shutdown_on_sigint, argv, argc, err);
}
static sds getShutdownOnSigterm(void) { return getShutdownFlags(server.shutdown_on_sigterm); }
static sds getShutdownOnSigint(void) { return getShutdownFlags(server.shutdown_on_sigint); }

static int setSave(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    if (argc == 1 && sdslen(argv[0]) == 0) {
        zfree(server.saveparams);
        server.saveparams = NULL;
        server.saveparamslen = 0;
        return 1;
    }
    /* CONFIG SET takes one string of pairs; the file may give them as separate arguments. */
    sds joined = sdsempty();
    for (int i = 0; i < argc; i++) {
        if (i) joined = sdscat(joined, " ");
        joined = sdscatsds(joined, argv[i]);
    }
    int n;
    sds *v = sdssplitlen(joined, sdslen(joined), " ", 1, &n);
    sdsfree(joined);
    int count = 0;
    for (int i = 0; i < n; i++)
        if (sdslen(v[i])) v[count++] = v[i];
        else sdsfree(v[i]);
    if (count % 2 != 0 || count == 0) {
        for (int i = 0; i < count; i++) sdsfree(v[i]);
        zfree(v);
        *err = "Invalid save parameters";
        return 0;
    }
    struct saveparam *params = zmalloc(sizeof(struct saveparam) * (count / 2));
    for (int i = 0; i < count; i += 2) {
        long long sec, ch;
        if (!string2ll(v[i], sdslen(v[i]), &sec) || !string2ll(v[i + 1], sdslen(v[i + 1]), &ch) || sec < 0 || ch < 0) {
            zfree(params);
            for (int j = 0; j < count; j++) sdsfree(v[j]);
            zfree(v);
            *err = "Invalid save parameters";
            return 0;
        }
        params[i / 2].seconds = sec;
        params[i / 2].changes = (int)ch;
    }
    for (int j = 0; j < count; j++) sdsfree(v[j]);
    zfree(v);
    zfree(server.saveparams);
    server.saveparams = params;
    server.saveparamslen = count / 2;
    return 1;
}

static sds getSave(void) {
    sds s = sdsempty();
    for (int j = 0; j < server.saveparamslen; j++) {
        if (j) s = sdscat(s, " ");
        s = sdscatprintf(s, "%ld %d", (long)server.saveparams[j].seconds, server.saveparams[j].changes);
    }
    return s;
}

static int setBind(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    /* CONFIG SET gives the addresses as one string: split it as the file's words. */
    int n = argc;
    sds *addrs = argv, *split = NULL;
    if (argc == 1 && strchr(argv[0], ' ')) addrs = split = sdssplitargs(argv[0], &n);
    if (!addrs || n > CONFIG_BINDADDR_MAX) {
        *err = addrs ? "Too many bind addresses specified." : "Invalid argument";
        if (split) sdsfreesplitres(split, n);
        return 0;
    }
    for (int j = 0; j < server.bindaddr_count; j++) zfree(server.bindaddr[j]);
    server.bindaddr_count = 0;
    /* "bind" with one empty argument is the empty list: no TCP listener. */
    if (!(n == 1 && sdslen(addrs[0]) == 0))
        for (int j = 0; j < n; j++) server.bindaddr[server.bindaddr_count++] = zstrdup(addrs[j]);
    if (split) sdsfreesplitres(split, n);
    return 1;
}

static sds getBind(void) { return sdsjoin(server.bindaddr, server.bindaddr_count, " "); }

/* Parses "<class> <hard> <soft> <seconds>..." over the current limits into `limits`. */
static int parseObufLimits(sds *argv, int argc, clientBufferLimitsConfig *limits, const char **err) {
    sds joined = sdsempty();
    for (int i = 0; i < argc; i++) {
        if (i) joined = sdscat(joined, " ");
        joined = sdscatsds(joined, argv[i]);
    }
    int n;
    sds *v = sdssplitargs(joined, &n);
    sdsfree(joined);
    int ok = v && n % 4 == 0 && n > 0;
    memcpy(limits, server.client_obuf_limits, sizeof(server.client_obuf_limits));
    if (!ok) *err = "Wrong number of arguments in buffer limit configuration.";
    for (int i = 0; ok && i < n; i += 4) {
        int class = getClientTypeByName(v[i]);
        if (class == -1 || class == 3) {
            *err = "Invalid client class specified in buffer limit configuration.";
            ok = 0;
            break;
        }
        int e1 = 0, e2 = 0;
        unsigned long long hard = memtoull(v[i + 1], &e1), soft = memtoull(v[i + 2], &e2);
        long long secs;
        if (e1 || e2 || !string2ll(v[i + 3], sdslen(v[i + 3]), &secs) || secs < 0) {
            *err = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
            ok = 0;
            break;
        }
        limits[class].hard_limit_bytes = hard;
        limits[class].soft_limit_bytes = soft;
        limits[class].soft_limit_seconds = secs;
    }
    if (v) sdsfreesplitres(v, n);
    return ok;
}

static int setObufLimits(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    clientBufferLimitsConfig limits[CLIENT_TYPE_COUNT];
    if (!parseObufLimits(argv, argc, limits, err)) return 0;
    memcpy(server.client_obuf_limits, limits, sizeof(limits));
    return 1;
}

static sds getObufLimits(void) {
    sds s = sdsempty();
    for (int j = 0; j < CLIENT_TYPE_COUNT; j++) {
        clientBufferLimitsConfig *l = &server.client_obuf_limits[j];
        s = sdscatprintf(s, "%s%s %llu %llu %ld", j ? " " : "", getClientTypeName(j), l->hard_limit_bytes,
                         l->soft_limit_bytes, (long)l->soft_limit_seconds);
    }
    return s;
}

static int setNotify(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    if (argc != 1) {
        *err = "wrong number of arguments";
        return 0;
    }
    int flags = keyspaceEventsStringToFlags(argv[0]);
    if (flags == -1) {
        *err = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
        return 0;
    }
    server.notify_keyspace_events = flags;
    return 1;
}

static int oom_score_adj; /* oom-score-adj: */
#define OOM_SCORE_ADJ_NO 0
#define OOM_SCORE_RELATIVE 1 /* the process's own score plus the class's value ("yes" too) */
#define OOM_SCORE_ADJ_ABSOLUTE 2
static const enumName oomScoreAdjEnum[] = {{"no", OOM_SCORE_ADJ_NO},
                                           {"yes", OOM_SCORE_RELATIVE},
                                           {"relative", OOM_SCORE_RELATIVE},
                                           {"absolute", OOM_SCORE_ADJ_ABSOLUTE},
                                           {NULL, 0}};
/* oom-score-adj-values: three numbers (master, replica, background child). */
static int oom_score_adj_values[3] = {0, 200, 800};

/* The kernel's OOM score as 7.0 sets it: off, the process's own (read when
 * first adjusted, put back when turned off) plus the class's value
 * (relative/yes), or the value itself (absolute). C_ERR when the write fails. */
int setOomScoreAdj(int process_class) {
    static int adjusted, base;
    int val;
    if (process_class == OOM_CURRENT) process_class = server.masterhost_set ? OOM_REPLICA : OOM_MASTER;
    if (oom_score_adj != OOM_SCORE_ADJ_NO) {
        if (!adjusted) {
            FILE *fp = fopen("/proc/self/oom_score_adj", "r");
            if (!fp || fscanf(fp, "%d", &base) != 1) base = 0;
            if (fp) fclose(fp);
            adjusted = 1;
        }
        val = oom_score_adj_values[process_class] + (oom_score_adj == OOM_SCORE_RELATIVE ? base : 0);
        if (val > 1000) val = 1000;
        if (val < -1000) val = -1000;
    } else if (adjusted) {
        adjusted = 0;
        val = base;
    } else {
        return C_OK;
    }
    FILE *fp = fopen("/proc/self/oom_score_adj", "w");
    int ok = fp && fprintf(fp, "%d", val) > 0;
    if (fp && fclose(fp) != 0) ok = 0;
    if (!ok) {
        serverLog(LL_WARNING, "Unable to write oom_score_adj: %s", strerror(errno));
        return C_ERR;
    }
    return C_OK;
}

static int applyOomScoreAdj(const char **err) {
    if (setOomScoreAdj(OOM_CURRENT) == C_OK) return 1;
    *err = "Failed to set current oom_score_adj. Check server logs.";
    return 0;
}

static int setOomScoreAdjValues(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    sds joined = sdsempty();
    for (int i = 0; i < argc; i++) joined = sdscatsds(i ? sdscat(joined, " ") : joined, argv[i]);
    int n;
    sds *v = sdssplitlen(joined, sdslen(joined), " ", 1, &n);
    sdsfree(joined);
    int values[3], ok = n == 3;
    if (!ok) *err = "wrong number of arguments";
    for (int i = 0; ok && i < 3; i++) {
        long long ll;
        if (!string2ll(v[i], sdslen(v[i]), &ll) || ll < -2000 || ll > 2000) {
            *err = "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
            ok = 0;
        }
        values[i] = (int)ll;
    }
    sdsfreesplitres(v, n);
    if (!ok) return 0;
    int old[3];
    memcpy(old, oom_score_adj_values, sizeof(old));
    memcpy(oom_score_adj_values, values, sizeof(values));
    if (server.el && setOomScoreAdj(OOM_CURRENT) != C_OK) {
        memcpy(oom_score_adj_values, old, sizeof(old));
        *err = "Failed to apply oom-score-adj-values configuration";
        return 0;
    }
    return 1;
}

static sds getOomScoreAdjValues(void) {
    return sdscatprintf(sdsempty(), "%d %d %d", oom_score_adj_values[0], oom_score_adj_values[1],
                        oom_score_adj_values[2]);
}

static sds getNotify(void) { return keyspaceEventsFlagsToString(server.notify_keyspace_events); }

static int setDir(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    if (argc != 1) {
        *err = "wrong number of arguments";
        return 0;
    }
    if (chdir(argv[0]) == -1) {
        *err = strerror(errno);
        return 0;
    }
    zfree(server.dir);
    server.dir = zstrdup(argv[0]);
    return 1;
}

static sds getDir(void) {
    char buf[4096];
    if (getcwd(buf, sizeof(buf)) == NULL) return sdsnew(server.dir ? server.dir : "");
    return sdsnew(buf);
}

static int setZmqEndpoints(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    sds *old = server.zmq_endpoints;
    int oldcount = server.zmq_endpoints_count;
    sds *eps = NULL;
    int count = 0;
    /* CONFIG SET gives one space-separated list; "" clears it. */
    for (int i = 0; i < argc; i++) {
        int n;
        sds *parts = sdssplitlen(argv[i], sdslen(argv[i]), " ", 1, &n);
        for (int j = 0; j < n; j++) {
            if (sdslen(parts[j]) == 0) continue;
            eps = zrealloc(eps, sizeof(sds) * (count + 1));
            eps[count++] = sdsdup(parts[j]);
        }
        sdsfreesplitres(parts, n);
    }
    (void)err;
    server.zmq_endpoints = eps;
    server.zmq_endpoints_count = count;
    for (int j = 0; j < oldcount; j++) sdsfree(old[j]);
    zfree(old);
    return 1; /* the push's apply hook binds them (and CONFIG SET puts the old ones back on failure) */
}

static sds getZmqEndpoints(void) { return sdsjoin(server.zmq_endpoints, server.zmq_endpoints_count, " "); }

static int setZmqTypes(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    int types = 0;
    for (int i = 0; i < argc; i++) {
        int n;
        sds *parts = sdssplitlen(argv[i], sdslen(argv[i]), ",", 1, &n);
        for (int j = 0; j < n; j++) {
            sds t = sdstrim(parts[j], " ");
            parts[j] = t;
            if (!strcasecmp(t, "string")) types |= 1 << OBJ_STRING;
            else if (!strcasecmp(t, "hash")) types |= 1 << OBJ_HASH;
            else if (!strcasecmp(t, "list")) types |= 1 << OBJ_LIST;
            else if (!strcasecmp(t, "set")) types |= 1 << OBJ_SET;
            else if (!strcasecmp(t, "zset")) types |= 1 << OBJ_ZSET;
            else if (sdslen(t)) {
                sdsfreesplitres(parts, n);
                *err = "argument must be a comma separated list of: string, hash, list, set, zset";
                return 0;
            }
        }
        sdsfreesplitres(parts, n);
    }
    server.zmq_types = types;
    return 1;
}

static sds getZmqTypes(void) {
    static const struct {
        int type;
        const char *name;
    } order[] = {{OBJ_STRING, "string"}, {OBJ_HASH, "hash"}, {OBJ_LIST, "list"}, {OBJ_SET, "set"}, {OBJ_ZSET, "zset"}};
    sds s = sdsempty();
    for (size_t j = 0; j < sizeof(order) / sizeof(order[0]); j++) {
        if (!(server.zmq_types & (1 << order[j].type))) continue;
        if (sdslen(s)) s = sdscat(s, ",");
        s = sdscat(s, order[j].name);
    }
    return s;
}


static int applyJemallocBgThread(const char **err) {
    (void)err;
    zmalloc_set_background_thread(cfg_ints[16]);
    return 1;
}

void configApplyThreadSettings(void) { zmalloc_set_background_thread(cfg_ints[16]); }

/* Active defragmentation needs a jemalloc built with Redis's defrag hint,
 * which Debian's is not (nor ours): enabling it is refused as by Debian's
 * Redis 7.0; its tuning directives are accepted and kept. */
static long long defrag_ignore_bytes, defrag_max_scan_fields;
static int applyActivedefrag(const char **err) {
    if (!cfg_ints[34]) return 1;
    cfg_ints[34] = 0;
    *err = "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc "
           "like the one shipped by default with the Redis source distribution";
    return 0;
}

static int applyHz(const char **err) {
    (void)err;
    if (server.hz < 1) server.hz = 1;
    if (server.hz > 500) server.hz = 500;
    return 1;
}

static int applyMaxclients(const char **err) {
    if (server.el && aeResizeSetSize(server.el, server.maxclients + 128 + 96) != AE_OK) {
        *err = "The event loop API used by Redis is not able to handle the specified number of clients";
        return 0;
    }
    return 1;
}

/* -------------------------------------------------------------- the table */

#define B(n, a, fl, p, d) {n, a, T_BOOL, fl, p, d, 0, 1, NULL, NULL, NULL, NULL, 0}
#define I(n, a, fl, p, d, mn, mx, ap) {n, a, T_INT, fl, p, d, mn, mx, NULL, ap, NULL, NULL, 0}
#define UI(n, a, fl, p, d, mn, mx) {n, a, T_UINT, fl, p, d, mn, mx, NULL, NULL, NULL, NULL, 0}
#define LL(n, a, fl, p, d, mn, mx) {n, a, T_LL, fl, p, d, mn, mx, NULL, NULL, NULL, NULL, 0}
#define SZ(n, a, fl, p, d, mn, mx) {n, a, T_SIZE, fl, p, d, mn, mx, NULL, NULL, NULL, NULL, 0}
#define MEM(n, a, fl, p, d, mn, mx, ap) {n, a, T_MEM, fl, p, d, mn, mx, NULL, ap, NULL, NULL, 0}
#define STR(n, a, fl, p, d) {n, a, T_STRING, fl, p, d, 0, 0, NULL, NULL, NULL, NULL, 0}
#define EN(n, a, fl, p, d, e) {n, a, T_ENUM, fl, p, d, 0, 0, e, NULL, NULL, NULL, 0}
#define SP(n, a, fl, d, st, gt) {n, a, T_SPECIAL, fl, NULL, d, 0, 0, NULL, NULL, st, gt, 0}

static configDef configs[] = {
    /* network */
    {"bind", NULL, T_SPECIAL, F_MULTI, NULL, "* -::*", 0, 0, NULL, NULL, setBind, getBind, 0},
    I("port", NULL, 0, &server.port, "6379", 0, 65535, NULL),
    I("tcp-backlog", NULL, F_IMMUTABLE, &server.tcp_backlog, "511", 0, INT_MAX, NULL),
    STR("unixsocket", NULL, F_IMMUTABLE, &server.unixsocket, NULL),
    UI("unixsocketperm", NULL, F_IMMUTABLE | F_OCTAL, &server.unixsocketperm, "0", 0, 0777),
    I("timeout", NULL, 0, &server.maxidletime, "0", 0, INT_MAX, NULL),
    I("tcp-keepalive", NULL, 0, &server.tcpkeepalive, "300", 0, INT_MAX, NULL),
    EN("protected-mode", NULL, 0, &server.protected_mode, "yes", protectedEnum),
    {"maxclients", NULL, T_UINT, 0, &server.maxclients, "10000", 1, UINT_MAX, NULL, applyMaxclients, NULL, NULL, 0},
    {"activedefrag", NULL, T_BOOL, F_NOEFFECT, &cfg_ints[34], "no", 0, 1, NULL, applyActivedefrag, NULL, NULL, 0},
    I("active-defrag-threshold-lower", NULL, F_NOEFFECT, &cfg_ints[35], "10", 0, 1000, NULL),
    I("active-defrag-threshold-upper", NULL, F_NOEFFECT, &cfg_ints[36], "100", 0, 1000, NULL),
    I("active-defrag-cycle-min", NULL, F_NOEFFECT, &cfg_ints[37], "1", 1, 99, NULL),
    I("active-defrag-cycle-max", NULL, F_NOEFFECT, &cfg_ints[38], "25", 1, 99, NULL),
    MEM("active-defrag-ignore-bytes", NULL, F_NOEFFECT, &defrag_ignore_bytes, "104857600", 1, LLONG_MAX, NULL),
    LL("active-defrag-max-scan-fields", NULL, F_NOEFFECT, &defrag_max_scan_fields, "1000", 1, LLONG_MAX),
    /* Expiry here is deadline-ordered (no sampling effort to tune), a replica
     * never evicts (it mirrors its master), and threads are not pinned. */
    I("active-expire-effort", NULL, F_NOEFFECT, &cfg_ints[39], "1", 1, 10, NULL),
    B("replica-ignore-maxmemory", "slave-ignore-maxmemory", F_NOEFFECT, &cfg_ints[40], "yes"),
    STR("server_cpulist", NULL, F_IMMUTABLE | F_NOEFFECT, &server_cpulist, NULL),
    STR("bio_cpulist", NULL, F_IMMUTABLE | F_NOEFFECT, &bio_cpulist, NULL),
    STR("aof_rewrite_cpulist", NULL, F_IMMUTABLE | F_NOEFFECT, &aof_rewrite_cpulist, NULL),
    STR("bgsave_cpulist", NULL, F_IMMUTABLE | F_NOEFFECT, &bgsave_cpulist, NULL),
    STR("ignore-warnings", NULL, F_NOEFFECT, &ignore_warnings, ""),
    UI("socket-mark-id", NULL, F_IMMUTABLE | F_NOEFFECT, &socket_mark_id, "0", 0, UINT_MAX),
    MEM("proto-max-bulk-len", NULL, 0, &server.proto_max_bulk_len, "536870912", 1024 * 1024, LLONG_MAX, NULL),
    {"client-query-buffer-limit", NULL, T_MEM, 0, &server.client_max_querybuf_len, "1073741824", 1024 * 1024,
     LLONG_MAX, NULL, NULL, NULL, NULL, 0},
    SP("client-output-buffer-limit", NULL, F_MULTI, "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
       setObufLimits, getObufLimits),
    /* general */
    B("daemonize", NULL, F_IMMUTABLE, &server.daemonize, "no"),
    EN("supervised", NULL, F_IMMUTABLE, &server.supervised, "no", supervisedEnum),
    /* TLS: the port opens its listeners again (lifecycle's apply hook), the
     * rest make the contexts again (server/tls.c's, both from main.c). */
    I("tls-port", NULL, 0, &server.tls_port, "0", 0, 65535, NULL),
    B("tls-replication", NULL, 0, &server.tls_replication, "no"),
    B("tls-cluster", NULL, 0, &server.tls_cluster, "no"),
    STR("tls-cert-file", NULL, 0, &server.tls_cert_file, ""),
    STR("tls-key-file", NULL, 0, &server.tls_key_file, ""),
    STR("tls-key-file-pass", NULL, F_SENSITIVE, &server.tls_key_file_pass, ""),
    STR("tls-client-cert-file", NULL, 0, &server.tls_client_cert_file, ""),
    STR("tls-client-key-file", NULL, 0, &server.tls_client_key_file, ""),
    STR("tls-client-key-file-pass", NULL, F_SENSITIVE, &server.tls_client_key_file_pass, ""),
    STR("tls-dh-params-file", NULL, 0, &server.tls_dh_params_file, ""),
    STR("tls-ca-cert-file", NULL, 0, &server.tls_ca_cert_file, ""),
    STR("tls-ca-cert-dir", NULL, 0, &server.tls_ca_cert_dir, ""),
    STR("tls-protocols", NULL, 0, &server.tls_protocols, ""),
    STR("tls-ciphers", NULL, 0, &server.tls_ciphers, ""),
    STR("tls-ciphersuites", NULL, 0, &server.tls_ciphersuites, ""),
    EN("tls-auth-clients", NULL, 0, &server.tls_auth_clients, "yes", tlsAuthClientsEnum),
    B("tls-prefer-server-ciphers", NULL, 0, &server.tls_prefer_server_ciphers, "no"),
    B("tls-session-caching", NULL, 0, &server.tls_session_caching, "yes"),
    I("tls-session-cache-size", NULL, 0, &server.tls_session_cache_size, "20480", 0, INT_MAX, NULL),
    I("tls-session-cache-timeout", NULL, 0, &server.tls_session_cache_timeout, "300", 0, INT_MAX, NULL),
    STR("pidfile", NULL, 0, &server.pidfile, NULL),
    EN("loglevel", NULL, 0, &server.verbosity, "notice", loglevelEnum),
    STR("logfile", NULL, F_IMMUTABLE, &server.logfile, ""),
    B("syslog-enabled", NULL, F_IMMUTABLE, &server.syslog_enabled, "no"),
    STR("syslog-ident", NULL, F_IMMUTABLE, &server.syslog_ident, "redis"),
    EN("syslog-facility", NULL, F_IMMUTABLE, &server.syslog_facility, "local0", syslogFacilityEnum),
    I("databases", NULL, F_IMMUTABLE, &server.dbnum, "16", 1, INT_MAX, NULL),
    B("always-show-logo", NULL, F_IMMUTABLE, &server.always_show_logo, "no"),
    SP("shutdown-on-sigterm", NULL, F_WORDS, "default", setShutdownOnSigterm, getShutdownOnSigterm),
    SP("shutdown-on-sigint", NULL, F_WORDS, "default", setShutdownOnSigint, getShutdownOnSigint),
    B("set-proc-title", NULL, F_IMMUTABLE, &server.set_proc_title, "yes"),
    {"proc-title-template", NULL, T_STRING, 0, &server.proc_title_template, "{title} {listen-addr} {server-mode}", 0, 0,
     NULL, NULL, NULL, NULL, 0},
    I("shutdown-timeout", NULL, 0, &server.shutdown_timeout, "10", 0, INT_MAX, NULL),
    I("hz", NULL, 0, &server.hz, "10", 0, INT_MAX, applyHz),
    B("dynamic-hz", NULL, 0, &server.dynamic_hz, "yes"),
    EN("enable-debug-command", NULL, F_IMMUTABLE, &server.enable_debug_command, "no", enableEnum),
    EN("enable-protected-configs", NULL, F_IMMUTABLE, &server.enable_protected_configs, "no", enableEnum),
    EN("enable-module-command", NULL, F_IMMUTABLE, &server.enable_module_command, "no", enableEnum),
    SP("requirepass", NULL, F_SENSITIVE, "", setRequirepass, getRequirepass),
    SP("user", NULL, F_FILE_ONLY, "", setUser, getNothing),
    SP("rename-command", NULL, F_FILE_ONLY, "", setRenameCommand, getNothing),
    STR("aclfile", NULL, F_IMMUTABLE, &server.acl_filename, ""),
    EN("acl-pubsub-default", NULL, 0, &server.acl_pubsub_default, "resetchannels", aclPubsubEnum),
    EN("propagation-error-behavior", NULL, F_NOEFFECT, &propagation_error_behavior, "ignore", propagationErrorEnum),
    SP("masterauth", NULL, F_SENSITIVE, "", setMasterauth, getMasterauth),
    STR("masteruser", NULL, F_SENSITIVE, &server.masteruser, NULL),
    SP("notify-keyspace-events", NULL, 0, "", setNotify, getNotify),
    /* snapshotting */
    SP("save", NULL, F_MULTI | F_ACCUMULATE, "3600 1 300 100 60 10000", setSave, getSave),
    B("stop-writes-on-bgsave-error", NULL, 0, &server.stop_writes_on_bgsave_err, "yes"),
    B("rdbcompression", NULL, 0, &server.rdb_compression, "yes"),
    B("rdbchecksum", NULL, F_IMMUTABLE, &server.rdb_checksum, "yes"),
    STR("dbfilename", NULL, F_PROTECTED, &server.dbfilename, "dump.rdb"),
    SP("dir", NULL, F_PROTECTED | F_DENY_LOADING, "", setDir, getDir),
    B("rdb-del-sync-files", NULL, 0, &server.rdb_del_sync_files, "no"),
    EN("sanitize-dump-payload", NULL, 0, &server.sanitize_dump_payload, "no", sanitizeDumpEnum),
    /* append only */
    B("appendonly", NULL, F_DENY_LOADING, &server.aof_enabled, "no"),
    STR("appendfilename", NULL, F_IMMUTABLE, &server.appendfilename, "appendonly.aof"),
    STR("appenddirname", NULL, F_IMMUTABLE, &server.appenddirname, "appendonlydir"),
    EN("appendfsync", NULL, 0, &server.aof_fsync, "everysec", fsyncEnum),
    B("no-appendfsync-on-rewrite", NULL, 0, &server.aof_no_fsync_on_rewrite, "no"),
    I("auto-aof-rewrite-percentage", NULL, 0, &server.aof_rewrite_perc, "100", 0, INT_MAX, NULL),
    MEM("auto-aof-rewrite-min-size", NULL, 0, &server.aof_rewrite_min_size, "67108864", 0, LLONG_MAX, NULL),
    B("aof-load-truncated", NULL, 0, &server.aof_load_truncated, "yes"),
    B("aof-use-rdb-preamble", NULL, 0, &server.aof_use_rdb_preamble, "yes"),
    B("aof-disable-auto-gc", NULL, 0, &server.aof_disable_auto_gc, "no"),
    B("aof-timestamp-enabled", NULL, 0, &server.aof_timestamp_enabled, "no"),
    B("aof-rewrite-incremental-fsync", NULL, F_NOEFFECT, &cfg_ints[5], "yes"),
    B("rdb-save-incremental-fsync", NULL, F_NOEFFECT, &cfg_ints[6], "yes"),
    /* memory */
    MEM("maxmemory", NULL, F_UMEM, &server.maxmemory, "0", 0, 0, applyMaxmemory),
    MEM("maxmemory-clients", NULL, F_PERCENT, &server.maxmemory_clients, "0", -100, LLONG_MAX, applyMaxmemoryClients),
    {"maxmemory-policy", NULL, T_ENUM, 0, &server.maxmemory_policy, "noeviction", 0, 0, maxmemoryPolicyEnum,
     applyMaxmemoryPolicy, NULL, NULL, 0},
    I("maxmemory-samples", NULL, 0, &server.maxmemory_samples, "5", 1, 64, NULL),
    I("maxmemory-eviction-tenacity", NULL, 0, &server.maxmemory_eviction_tenacity, "10", 0, 100, NULL),
    B("lazyfree-lazy-eviction", NULL, 0, &server.lazyfree_lazy_eviction, "no"),
    B("lazyfree-lazy-expire", NULL, 0, &server.lazyfree_lazy_expire, "no"),
    B("lazyfree-lazy-server-del", NULL, 0, &server.lazyfree_lazy_server_del, "no"),
    B("lazyfree-lazy-user-del", NULL, 0, &server.lazyfree_lazy_user_del, "no"),
    B("lazyfree-lazy-user-flush", NULL, 0, &server.lazyfree_lazy_user_flush, "no"),
    B("replica-lazy-flush", "slave-lazy-flush", 0, &server.repl_slave_lazy_flush, "no"),
    B("activerehashing", NULL, F_NOEFFECT, &cfg_ints[12], "yes"),
    B("activedefrag", NULL, F_NOEFFECT, &cfg_ints[13], "no"),
    I("lfu-log-factor", NULL, 0, &server.lfu_log_factor, "10", 0, INT_MAX, NULL),
    LL("tracking-table-max-keys", NULL, 0, &server.tracking_table_max_keys, "1000000", 0, LLONG_MAX),
    I("lfu-decay-time", NULL, 0, &server.lfu_decay_time, "1", 0, INT_MAX, NULL),
    {"jemalloc-bg-thread", NULL, T_BOOL, 0, &cfg_ints[16], "yes", 0, 1, NULL, applyJemallocBgThread, NULL, NULL, 0},
    LL("acllog-max-len", NULL, 0, &server.acllog_max_len, "128", 0, LLONG_MAX),
    B("disable-thp", NULL, F_IMMUTABLE, &server.disable_thp, "yes"),
    {"oom-score-adj", NULL, T_ENUM, 0, &oom_score_adj, "no", 0, 0, oomScoreAdjEnum, applyOomScoreAdj, NULL, NULL, 0},
    SP("oom-score-adj-values", NULL, F_ARGS, "0 200 800", setOomScoreAdjValues, getOomScoreAdjValues),
    I("io-threads", NULL, F_IMMUTABLE | F_NOEFFECT, &cfg_ints[29], "1", 1, 128, NULL),
    B("io-threads-do-reads", NULL, F_IMMUTABLE | F_NOEFFECT, &cfg_ints[30], "no"),
    /* encodings */
    SZ("hash-max-listpack-entries", "hash-max-ziplist-entries", 0, &server.hash_limits.lp_entries, "512", 0, LLONG_MAX),
    SZ("hash-max-listpack-value", "hash-max-ziplist-value", 0, &server.hash_limits.lp_value, "64", 0, LLONG_MAX),
    SZ("set-max-intset-entries", NULL, 0, &server.set_limits.intset_entries, "512", 0, LLONG_MAX),
    SZ("set-max-listpack-entries", NULL, F_HIDDEN, &server.set_limits.lp_entries, "128", 0, LLONG_MAX),
    SZ("set-max-listpack-value", NULL, F_HIDDEN, &server.set_limits.lp_value, "64", 0, LLONG_MAX),
    SZ("zset-max-listpack-entries", "zset-max-ziplist-entries", 0, &server.zset_limits.max_entries, "128", 0, LLONG_MAX),
    SZ("zset-max-listpack-value", "zset-max-ziplist-value", 0, &server.zset_limits.max_value, "64", 0, LLONG_MAX),
    I("list-max-listpack-size", "list-max-ziplist-size", 0, &server.list_max_listpack_size, "-2", INT_MIN, INT_MAX, NULL),
    I("list-compress-depth", NULL, 0, &server.list_compress_depth, "0", 0, INT_MAX, NULL),
    MEM("hll-sparse-max-bytes", NULL, 0, &server.hll_sparse_max_bytes, "3000", 0, LONG_MAX, NULL),
    MEM("stream-node-max-bytes", NULL, 0, &server.stream_node_max_bytes, "4096", 0, LLONG_MAX, NULL),
    LL("stream-node-max-entries", NULL, 0, &server.stream_node_max_entries, "100", 0, LLONG_MAX),
    /* scripting, slow log, latency */
    LL("busy-reply-threshold", "lua-time-limit", 0, &server.busy_reply_threshold, "5000", 0, LLONG_MAX),
    LL("slowlog-log-slower-than", NULL, 0, &server.slowlog_log_slower_than, "10000", -1, LLONG_MAX),
    {"slowlog-max-len", NULL, T_ULL, 0, &server.slowlog_max_len, "128", 0, LONG_MAX, NULL, NULL, NULL, NULL, 0},
    LL("latency-monitor-threshold", NULL, 0, &server.latency_monitor_threshold, "0", 0, LLONG_MAX),
    B("latency-tracking", NULL, 0, &server.latency_tracking, "yes"),
    SP("latency-tracking-info-percentiles", NULL, F_ARGS, "50 99 99.9", NULL, NULL), /* the latency module's */
    {"crash-log-enabled", NULL, T_BOOL, 0, &server.crashlog_enabled, "yes", 0, 1, NULL, NULL, NULL, NULL, 0},
    B("crash-memcheck-enabled", NULL, F_NOEFFECT, &cfg_ints[18], "yes"),
    B("use-exit-on-panic", NULL, F_HIDDEN | F_IMMUTABLE, &server.use_exit_on_panic, "no"), /* a testing knob (valgrind, ASAN) */
    /* replication (repl/ owns replicaof's parser and printer) */
    SP("replicaof", "slaveof", F_ARGS, "", NULL, NULL),
    B("replica-serve-stale-data", "slave-serve-stale-data", 0, &server.repl_serve_stale_data, "yes"),
    B("replica-read-only", "slave-read-only", 0, &server.repl_slave_ro, "yes"),
    B("replica-ignore-disk-write-errors", NULL, 0, &server.repl_ignore_disk_write_error, "no"),
    MEM("repl-backlog-size", NULL, 0, &server.repl_backlog_size, "1048576", 1, LLONG_MAX, NULL),
    I("repl-backlog-ttl", NULL, 0, &server.repl_backlog_ttl, "3600", 0, INT_MAX, NULL),
    I("repl-ping-replica-period", "repl-ping-slave-period", 0, &server.repl_ping_replica_period, "10", 1, INT_MAX, NULL),
    I("repl-timeout", NULL, 0, &server.repl_timeout, "60", 1, INT_MAX, NULL),
    I("min-replicas-to-write", "min-slaves-to-write", 0, &server.repl_min_slaves_to_write, "0", 0, INT_MAX, NULL),
    I("min-replicas-max-lag", "min-slaves-max-lag", 0, &server.repl_min_slaves_max_lag, "10", 0, INT_MAX, NULL),
    B("repl-diskless-sync", NULL, 0, &server.repl_diskless_sync, "yes"),
    I("repl-diskless-sync-delay", NULL, 0, &server.repl_diskless_sync_delay, "5", 0, INT_MAX, NULL),
    B("repl-disable-tcp-nodelay", NULL, F_NOEFFECT, &cfg_ints[23], "no"),
    I("replica-priority", "slave-priority", 0, &server.repl_slave_priority, "100", 0, INT_MAX, NULL),
    I("replica-announce-port", "slave-announce-port", 0, &server.repl_announce_port, "0", 0, 65535, NULL),
    STR("replica-announce-ip", "slave-announce-ip", 0, &server.repl_announce_ip, NULL),
    STR("bind-source-addr", NULL, 0, &server.bind_source_addr, NULL),
    B("replica-announced", NULL, 0, &server.repl_replica_announced, "yes"),
    EN("repl-diskless-load", NULL, F_DENY_LOADING, &server.repl_diskless_load, "disabled", disklessLoadEnum),
    I("repl-diskless-sync-max-replicas", NULL, 0, &server.repl_diskless_sync_max_replicas, "0", 0, INT_MAX, NULL),
    I("rdb-key-save-delay", NULL, F_HIDDEN, &server.rdb_key_save_delay, "0", INT_MIN, INT_MAX, NULL),
    I("key-load-delay", NULL, F_HIDDEN, &server.key_load_delay, "0", INT_MIN, INT_MAX, NULL),
    I("watchdog-period", NULL, F_HIDDEN, &server.watchdog_period, "0", 0, INT_MAX, NULL),
    I("loading-process-events-interval-bytes", NULL, F_HIDDEN, &server.loading_process_events_interval_bytes,
      "2097152", 1024, INT_MAX, NULL),
    /* Redis Cluster (cluster/ applies them) */
    B("cluster-enabled", NULL, F_IMMUTABLE, &server.cluster_enabled, "no"),
    STR("cluster-config-file", NULL, F_IMMUTABLE, &server.cluster_configfile, "nodes.conf"),
    LL("cluster-node-timeout", NULL, 0, &server.cluster_node_timeout, "15000", 0, LLONG_MAX),
    I("cluster-port", NULL, F_IMMUTABLE, &server.cluster_port, "0", 0, 65535, NULL),
    STR("cluster-announce-ip", NULL, 0, &server.cluster_announce_ip, NULL),
    STR("cluster-announce-hostname", NULL, 0, &server.cluster_announce_hostname, NULL),
    I("cluster-announce-port", NULL, 0, &server.cluster_announce_port, "0", 0, 65535, NULL),
    I("cluster-announce-bus-port", NULL, 0, &server.cluster_announce_bus_port, "0", 0, 65535, NULL),
    I("cluster-announce-tls-port", NULL, 0, &server.cluster_announce_tls_port, "0", 0, 65535, NULL),
    EN("cluster-preferred-endpoint-type", NULL, 0, &server.cluster_preferred_endpoint_type, "ip", endpointTypeEnum),
    B("cluster-require-full-coverage", NULL, 0, &server.cluster_require_full_coverage, "yes"),
    B("cluster-allow-reads-when-down", NULL, 0, &server.cluster_allow_reads_when_down, "no"),
    B("cluster-allow-pubsubshard-when-down", NULL, 0, &server.cluster_allow_pubsubshard_when_down, "yes"),
    I("cluster-replica-validity-factor", "cluster-slave-validity-factor", 0, &server.cluster_replica_validity_factor,
      "10", 0, INT_MAX, NULL),
    I("cluster-migration-barrier", NULL, 0, &server.cluster_migration_barrier, "1", 0, INT_MAX, NULL),
    B("cluster-allow-replica-migration", NULL, 0, &server.cluster_allow_replica_migration, "yes"),
    B("cluster-replica-no-failover", "cluster-slave-no-failover", 0, &server.cluster_replica_no_failover, "no"),
    MEM("cluster-link-sendbuf-limit", NULL, 0, &server.cluster_link_sendbuf_limit, "0", 0, LLONG_MAX, NULL),
    LL("expire-early-wake-us", NULL, 0, &server.expire_early_wake_us, "0", 0, 1000000),
    /* the 0MQ expiry push */
    SP("zmq-expiry-endpoint", NULL, F_MULTI | F_ACCUMULATE, "", setZmqEndpoints, getZmqEndpoints),
    LL("zmq-expiry-hwm", NULL, 0, &server.zmq_hwm, "1000", 0, INT_MAX),
    MEM("zmq-expiry-backlog", NULL, 0, &server.zmq_backlog, "67108864", 0, LLONG_MAX, NULL),
    SP("zmq-expiry-types", NULL, F_ARGS, "string,hash", setZmqTypes, getZmqTypes),
    B("zmq-expiry-ack", NULL, 0, &server.zmq_ack, "no"), /* a change is refused once running (expiry_push.c) */
    LL("zmq-expiry-ack-timeout", NULL, 0, &server.zmq_ack_timeout, "30000", 1, LLONG_MAX),
    MEM("zmq-expiry-spool-max-bytes", NULL, 0, &server.zmq_spool_max_bytes, "1073741824", 0, LLONG_MAX, NULL),
};

#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

static configDef *findConfig(const char *name) {
    for (size_t i = 0; i < NCONFIGS; i++)
        if (!strcasecmp(configs[i].name, name) || (configs[i].alias && !strcasecmp(configs[i].alias, name)))
            return &configs[i];
    return NULL;
}

/* Modules above server/ own what some directives do; main.c hands their
 * functions over before the config is read. A name not in the table is a
 * wiring bug. */
static configDef *findConfigOrDie(const char *name) {
    configDef *d = findConfig(name);
    if (!d) {
        fprintf(stderr, "no config directive %s to hook\n", name);
        exit(1);
    }
    return d;
}

void configSetApplyHook(const char *name, int (*apply)(const char **err)) { findConfigOrDie(name)->apply = apply; }

void configSetSpecialHandlers(const char *name, int (*set)(sds *argv, int argc, int from_file, const char **err),
                              sds (*get)(void)) {
    configDef *d = findConfigOrDie(name);
    d->set = set;
    d->get = get;
}

/* ----------------------------------------------------------- typed parsing */

/* As Redis reads them: no digits means 0, a number too big saturates and
 * the unit multiplies modulo 2^64; only a sign or a bad unit is an error. */
unsigned long long memtoull(const char *p, int *err) {
    *err = 0;
    if (*p == '-') {
        *err = 1;
        return 0;
    }
    const char *u = p;
    while (isdigit((unsigned char)*u)) u++;
    unsigned long long mul;
    if (*u == '\0' || !strcasecmp(u, "b")) mul = 1;
    else if (!strcasecmp(u, "k")) mul = 1000;
    else if (!strcasecmp(u, "kb")) mul = 1024;
    else if (!strcasecmp(u, "m")) mul = 1000 * 1000;
    else if (!strcasecmp(u, "mb")) mul = 1024 * 1024;
    else if (!strcasecmp(u, "g")) mul = 1000LL * 1000 * 1000;
    else if (!strcasecmp(u, "gb")) mul = 1024LL * 1024 * 1024;
    else {
        *err = 1;
        return 0;
    }
    unsigned long long v = 0;
    for (const char *d = p; d < u; d++) {
        unsigned digit = (unsigned)(*d - '0');
        if (v > (ULLONG_MAX - digit) / 10) {
            v = ULLONG_MAX;
            break;
        }
        v = v * 10 + digit;
    }
    return v * mul;
}

static char rangeErr[128];

static int setTypedValue(configDef *d, sds *argv, int argc, int from_file, const char **err) {
    if (d->type == T_SPECIAL) return d->set(argv, argc, from_file, err);
    if (argc != 1) {
        *err = "wrong number of arguments";
        return 0;
    }
    const char *v = argv[0];
    switch (d->type) {
    case T_BOOL: {
        int b;
        if (!strcasecmp(v, "yes")) b = 1;
        else if (!strcasecmp(v, "no")) b = 0;
        else {
            *err = "argument must be 'yes' or 'no'";
            return 0;
        }
        *(int *)d->ptr = b;
        return 1;
    }
    case T_ENUM: {
        for (const enumName *e = d->enums; e->name; e++) {
            if (!strcasecmp(v, e->name)) {
                *(int *)d->ptr = e->value;
                return 1;
            }
        }
        static char msg[256];
        int off = snprintf(msg, sizeof(msg), "argument(s) must be one of the following: ");
        for (const enumName *e = d->enums; e->name; e++)
            off += snprintf(msg + off, sizeof(msg) - off, "%s%s", e->name, e[1].name ? ", " : "");
        *err = msg;
        return 0;
    }
    case T_STRING: {
        char **p = d->ptr;
        zfree(*p);
        *p = (sdslen(argv[0]) == 0 && d->deflt == NULL) ? NULL : zstrdup(v);
        return 1;
    }
    default: break;
    }
    long long ll;
    if (d->flags & F_OCTAL) {
        char *end;
        errno = 0;
        ll = strtoll(v, &end, 8);
        if (errno || end == v || *end != '\0') {
            *err = "argument couldn't be parsed as an octal number";
            return 0;
        }
        if (ll < d->min || ll > d->max) {
            snprintf(rangeErr, sizeof(rangeErr), "argument must be between %llo and %llo inclusive",
                     (unsigned long long)d->min, (unsigned long long)d->max);
            *err = rangeErr;
            return 0;
        }
    } else if (d->type == T_MEM) {
        size_t vlen = strlen(v);
        const char *bad = (d->flags & F_PERCENT) ? "argument must be a memory or percent value"
                                                 : "argument must be a memory value";
        if ((d->flags & F_PERCENT) && vlen && v[vlen - 1] == '%') {
            long long pct;
            if (!string2ll(v, vlen - 1, &pct) || pct < 0) {
                *err = bad;
                return 0;
            }
            ll = -pct;
        } else {
            int e;
            unsigned long long m = memtoull(v, &e);
            if (e) {
                *err = bad;
                return 0;
            }
            if (d->flags & F_UMEM) {
                *(unsigned long long *)d->ptr = m;
                return 1;
            }
            ll = (long long)m; /* as Redis: a value past LLONG_MAX turns negative and fails the range check */
        }
        /* A percentage is negative (and so is a byte count past LLONG_MAX, as in Redis). */
        if ((d->flags & F_PERCENT) && ll < 0 && ll < d->min) {
            snprintf(rangeErr, sizeof(rangeErr), "percentage argument must be less or equal to %lld", -d->min);
            *err = rangeErr;
            return 0;
        }
    } else if (!string2ll(v, strlen(v), &ll)) {
        *err = "argument couldn't be parsed into an integer";
        return 0;
    }
    if (!(d->flags & F_OCTAL) && (ll < d->min || ll > d->max)) {
        snprintf(rangeErr, sizeof(rangeErr), "argument must be between %lld and %lld inclusive", d->min, d->max);
        *err = rangeErr;
        return 0;
    }
    switch (d->type) {
    case T_INT: *(int *)d->ptr = (int)ll; break;
    case T_UINT: *(unsigned int *)d->ptr = (unsigned int)ll; break;
    case T_SIZE: *(size_t *)d->ptr = (size_t)ll; break;
    case T_ULL: *(unsigned long long *)d->ptr = (unsigned long long)ll; break;
    case T_LL:
    case T_MEM: *(long long *)d->ptr = ll; break;
    }
    return 1;
}

static sds getTypedValue(configDef *d) {
    switch (d->type) {
    case T_SPECIAL: return d->get();
    case T_BOOL: return sdsnew(*(int *)d->ptr ? "yes" : "no");
    case T_ENUM:
        for (const enumName *e = d->enums; e->name; e++)
            if (*(int *)d->ptr == e->value) return sdsnew(e->name);
        return sdsempty();
    case T_STRING: return sdsnew(*(char **)d->ptr ? *(char **)d->ptr : "");
    case T_INT: return sdsfromlonglong(*(int *)d->ptr);
    case T_UINT:
        if (d->flags & F_OCTAL) return sdscatprintf(sdsempty(), "%o", *(unsigned int *)d->ptr);
        return sdsfromlonglong(*(unsigned int *)d->ptr);
    case T_SIZE: return sdsfromlonglong((long long)*(size_t *)d->ptr);
    case T_ULL: return sdscatprintf(sdsempty(), "%llu", *(unsigned long long *)d->ptr);
    default:
        if (d->flags & F_UMEM) return sdscatprintf(sdsempty(), "%llu", *(unsigned long long *)d->ptr);
        if ((d->flags & F_PERCENT) && *(long long *)d->ptr < 0)
            return sdscatprintf(sdsempty(), "%lld%%", -*(long long *)d->ptr);
        return sdsfromlonglong(*(long long *)d->ptr);
    }
}

sds configGetValue(const char *name) {
    configDef *d = findConfig(name);
    return d ? getTypedValue(d) : NULL;
}

/* --------------------------------------------------------------- defaults */

void initServerConfig(void) {
    server.dbnum = 16;
    server.reply_buffer_peak_reset_time = REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME;
    server.reply_buffer_resizing_enabled = 1;
    server.active_expire_enabled = 1;
    server.cluster_drop_packet_filter = -1;
    for (size_t i = 0; i < NCONFIGS; i++) {
        configDef *d = &configs[i];
        const char *err = NULL;
        if (d->deflt == NULL) continue; /* NULL strings stay NULL */
        int argc;
        sds *argv;
        if (d->type == T_SPECIAL && (d->flags & F_MULTI) && d->deflt[0]) {
            argv = sdssplitlen(d->deflt, strlen(d->deflt), " ", 1, &argc);
        } else {
            argv = zmalloc(sizeof(sds));
            argv[0] = sdsnew(d->deflt);
            argc = 1;
        }
        if (d->type == T_SPECIAL && d->set == setDir) {
            sdsfreesplitres(argv, argc);
            continue; /* the working directory is already the default */
        }
        if (d->type == T_SPECIAL && d->set == setZmqEndpoints) {
            sdsfreesplitres(argv, argc);
            continue; /* no endpoints: the push socket is not created */
        }
        if (!setTypedValue(d, argv, argc, 1, &err)) {
            fprintf(stderr, "bad default for %s: %s\n", d->name, err);
            exit(1);
        }
        sdsfreesplitres(argv, argc);
    }
}

/* ------------------------------------------------------------- config file */

/* Redis 7.0's words, whatever the line came from (file, stdin or the command
 * line: they are one text, see loadServerConfigFromArgs). */
static void fatalConfigError(int linenum, const char *line, const char *err) {
    fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (Redis " REDIS_VERSION ") ***\n");
    fprintf(stderr, "Reading the configuration file, at line %d\n", linenum);
    fprintf(stderr, ">>> '%s'\n", line);
    fprintf(stderr, "%s\n", err);
}

static int loadConfigText(const char *text, int depth);

/* Appends the whole content of path ("-": stdin) to *text. */
static int readConfigFile(const char *path, sds *text) {
    FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!fp) {
        serverLog(LL_WARNING, "Fatal error, can't open config file '%s': %s", path, strerror(errno));
        return C_ERR;
    }
    char buf[CONFIG_MAX_LINE + 1];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) *text = sdscatlen(*text, buf, n);
    if (fp != stdin) fclose(fp);
    return C_OK;
}

static int loadConfigFile(const char *path, int depth) {
    if (depth > 16) {
        serverLog(LL_WARNING, "Fatal error, include nesting too deep: '%s'", path);
        return C_ERR;
    }
    sds text = sdsempty();
    int rc = readConfigFile(path, &text);
    if (rc == C_OK) rc = loadConfigText(text, depth);
    sdsfree(text);
    return rc;
}

static int loadConfigText(const char *text, int depth) {
    int totlines;
    sds *lines = sdssplitlen(text, strlen(text), "\n", 1, &totlines);
    int rc = C_OK;
    for (int i = 0; i < totlines && rc == C_OK; i++) {
        int linenum = i + 1;
        sds line = sdstrim(lines[i], " \t\r\n");
        lines[i] = line;
        if (line[0] == '#' || line[0] == '\0') continue;
        int argc;
        sds *argv = sdssplitargs(line, &argc);
        if (argv == NULL) {
            fatalConfigError(linenum, line, "Unbalanced quotes in configuration line");
            rc = C_ERR;
            break;
        }
        if (argc == 0) {
            sdsfreesplitres(argv, argc);
            continue;
        }
        sdstolower(argv[0]);
        if (!strcmp(argv[0], "include") && argc == 2) {
            rc = loadConfigFile(argv[1], depth + 1);
        } else {
            configDef *d = findConfig(argv[0]);
            const char *err = NULL;
            /* A list directive with nothing after it ("save " as the test suite
             * writes `save ""`) is the empty list, as in Redis. */
            if (d && argc == 1 && (d->flags & (F_MULTI | F_WORDS))) {
                argv = zrealloc(argv, sizeof(sds) * 2);
                argv[argc++] = sdsempty();
            }
            if (!d || argc < 2) {
                fatalConfigError(linenum, line, "Bad directive or wrong number of arguments");
                rc = C_ERR;
            } else {
                /* An F_ACCUMULATE directive's lines add up, the first one of a load
                 * replacing the default; any other directive's line replaces (bind
                 * too, as Redis). */
                sds *vals = argv + 1;
                int nvals = argc - 1;
                int accumulates = d->flags & F_ACCUMULATE;
                if (accumulates && d->seen_in_load && !(nvals == 1 && sdslen(vals[0]) == 0)) {
                    sds cur = getTypedValue(d);
                    int curc;
                    sds *curv = sdssplitlen(cur, sdslen(cur), " ", 1, &curc);
                    sdsfree(cur);
                    sds *all = zmalloc(sizeof(sds) * (curc + nvals));
                    int k = 0;
                    for (int j = 0; j < curc; j++)
                        if (sdslen(curv[j])) all[k++] = curv[j];
                    for (int j = 0; j < nvals; j++) all[k++] = vals[j];
                    if (!setTypedValue(d, all, k, 1, &err) || (d->apply && !d->apply(&err))) {
                        fatalConfigError(linenum, line, err);
                        rc = C_ERR;
                    }
                    zfree(all);
                    sdsfreesplitres(curv, curc);
                } else if (!setTypedValue(d, vals, nvals, 1, &err) || (d->apply && !d->apply(&err))) {
                    fatalConfigError(linenum, line, err ? err : "Invalid argument");
                    rc = C_ERR;
                }
                d->seen_in_load = 1;
            }
        }
        sdsfreesplitres(argv, argc);
    }
    sdsfreesplitres(lines, totlines);
    return rc;
}

static void usage(void) {
    fprintf(stderr, "Usage: ./redis-server [/path/to/redis.conf] [options] [-]\n");
    fprintf(stderr, "       ./redis-server - (read config from stdin)\n");
    fprintf(stderr, "       ./redis-server -v or --version\n");
    fprintf(stderr, "       ./redis-server -h or --help\n\n");
    fprintf(stderr, "Examples:\n       ./redis-server (run the server with default conf)\n");
    fprintf(stderr, "       ./redis-server /etc/redis/6379.conf\n       ./redis-server --port 7777\n");
    exit(1);
}

int loadServerConfigFromArgs(int argc, char **argv) {
    int j = 1;
    if (argc >= 2) {
        if (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version")) {
            printf("Redis server v=" REDIS_VERSION " sha=00000000:0 malloc=%s bits=64 build=0\n", zmalloc_lib_name());
            exit(0);
        }
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) usage();
    }
    /* As Redis 7.0: a first argument not starting with '-' is the config file;
     * "-" first or last reads the config from stdin too. */
    const char *configfile = NULL;
    if (argc >= 2 && argv[1][0] != '-') {
        configfile = argv[1];
        j = 2;
        char *abs = realpath(configfile, NULL);
        server.configfile = zstrdup(abs ? abs : configfile);
        free(abs);
    }
    /* --name value... becomes config text, one directive a line, by Redis
     * 7.0's rules: an argument right after a bare option name is its value
     * even when it starts with "--" ("--name value" in one argument counts
     * as name and value); a bare --save with nothing after it, or followed
     * by another option, means `save ""`. */
    sds options = sdsempty();
    int value_given = 1; /* the last option already has a value */
    int from_stdin = 0;
    for (; j < argc; j++) {
        if (!strcmp(argv[j], "-") && (j == 1 || j == argc - 1)) {
            from_stdin = 1;
        } else if (value_given && argv[j][0] == '-' && argv[j][1] == '-' && argv[j][2]) {
            if (sdslen(options)) options = sdscat(options, "\n");
            options = sdscat(options, argv[j] + 2);
            options = sdscat(options, " ");
            int words;
            sds *split = sdssplitargs(argv[j], &words);
            value_given = words != 1;
            if (split) sdsfreesplitres(split, words);
            int next_is_option = j + 1 < argc && argv[j + 1][0] == '-' && argv[j + 1][1] == '-';
            if (!value_given && !strcasecmp(argv[j], "--save") && (j + 1 == argc || next_is_option)) {
                options = sdscat(options, "\"\"");
                value_given = 1;
            }
        } else {
            options = sdscatrepr(options, argv[j], strlen(argv[j]));
            options = sdscat(options, " ");
            value_given = 1;
        }
    }
    /* One text, as Redis reads it: the file, stdin, then the options after a
     * newline, so an error's line number counts from the file's first line. */
    sds text = sdsempty();
    int rc = configfile ? readConfigFile(configfile, &text) : C_OK;
    if (rc == C_OK && from_stdin) {
        serverLog(LL_WARNING, "Reading config from stdin");
        rc = readConfigFile("-", &text);
    }
    if (rc == C_OK) {
        text = sdscat(text, "\n");
        text = sdscatsds(text, options);
        rc = loadConfigText(text, 0);
    }
    sdsfree(text);
    sdsfree(options);
    return rc;
}

/* ------------------------------------------------------------------ CONFIG */

/* Each name is answered once (names compare without case); an exact name is
 * echoed as the client wrote it, a pattern yields the table's names. */
void configGetCommand(client *c) {
    dict *seen = dictCreate(&(dictType){.hashFunction = dictCStrCaseHash, .keyCompare = dictCStrKeyCaseCompare});
    void *replylen = addReplyDeferredLen(c);
    long n = 0;
    for (int i = 2; i < c->argc; i++) {
        const char *pattern = objectPtr(c->argv[i]);
        int glob = strpbrk(pattern, "*?[") != NULL;
        for (size_t k = 0; k < NCONFIGS; k++) {
            configDef *d = &configs[k];
            if ((d->flags & F_FILE_ONLY) || (glob && (d->flags & F_HIDDEN))) continue;
            const char *names[2] = {d->name, d->alias};
            for (int a = 0; a < 2; a++) {
                const char *nm = names[a];
                if (!nm) continue;
                if (glob ? !stringmatch(pattern, nm, 1) : strcasecmp(pattern, nm)) continue;
                if (!glob) nm = pattern;
                if (dictFind(seen, nm)) continue;
                dictAdd(seen, (void *)nm, NULL);
                addReplyBulkCString(c, nm);
                addReplyBulkSds(c, getTypedValue(d));
                n++;
            }
        }
    }
    dictRelease(seen);
    setDeferredMapLen(c, replylen, n);
}

/* CONFIG SET's steps. Its arguments are name/value pairs, pair i at
 * argv[2 + 2i] and argv[3 + 2i]. */

/* Secrets never reach MONITOR or SLOWLOG, whatever the outcome. */
static void redactSensitiveValues(client *c, int npairs) {
    for (int i = 0; i < npairs; i++) {
        configDef *d = findConfig(objectPtr(c->argv[2 + i * 2]));
        if (d && (d->flags & F_SENSITIVE)) redactClientCommandArgument(c, 3 + i * 2);
    }
}

/* As Redis, the loading refusal comes first, whatever else is wrong
 * (clients may handle -LOADING apart from a plain error). 1 after replying. */
static int rejectWhileLoading(client *c, int npairs) {
    if (!server.loading && !server.async_loading) return 0;
    for (int i = 0; i < npairs; i++) {
        configDef *d = findConfig(objectPtr(c->argv[2 + i * 2]));
        if (d && (d->flags & F_DENY_LOADING)) {
            addReplyErrorObject(c, shared.loadingerr);
            return 1;
        }
    }
    return 0;
}

/* Finds every pair's directive into defs. C_OK when all may be set; else
 * C_ERR, after replying for an unknown name (*failed stays -1), or with
 * *failed and *err saying which pair cannot be set and why. */
static int findSettableConfigs(client *c, configDef **defs, int npairs, int *failed, const char **err) {
    for (int i = 0; i < npairs; i++) {
        const char *name = objectPtr(c->argv[2 + i * 2]);
        defs[i] = findConfig(name);
        if (!defs[i] || (defs[i]->flags & F_FILE_ONLY)) {
            addReplyErrorFormat(c, "Unknown option or number of arguments for CONFIG SET - '%s'", name);
            return C_ERR;
        }
        *err = NULL;
        if (defs[i]->flags & F_IMMUTABLE) *err = "can't set immutable config";
        else if ((defs[i]->flags & F_PROTECTED) && !commandEnabledFor(c, server.enable_protected_configs))
            *err = "can't set protected config";
        for (int k = 0; k < i && !*err; k++)
            if (defs[k] == defs[i]) *err = "duplicate parameter";
        if (*err) {
            *failed = i;
            return C_ERR;
        }
    }
    return C_OK;
}

/* Puts back the values olds[0..last] the directives had before. */
static void restoreConfigs(configDef **defs, sds *olds, int last) {
    for (int k = 0; k <= last; k++) {
        const char *ignored;
        sds ov = olds[k];
        int oc = 1;
        sds *ovp = &ov;
        sds *split = NULL;
        if (defs[k]->type == T_SPECIAL && (defs[k]->flags & F_MULTI) && sdslen(ov)) {
            split = sdssplitlen(ov, sdslen(ov), " ", 1, &oc);
            ovp = split;
        }
        setTypedValue(defs[k], ovp, oc, 0, &ignored);
        if (defs[k]->apply) defs[k]->apply(&ignored);
        if (split) sdsfreesplitres(split, oc);
    }
}

/* Sets every pair, then runs each apply hook once, as Redis 7.0: directives
 * that take effect together (tls-cert-file with tls-key-file, bind with
 * port) are applied with all their new values. When one is refused, all
 * that were changed get their old values back: C_ERR with *failed and *err. */
static int setConfigs(client *c, configDef **defs, sds *olds, int npairs, int *failed, const char **err) {
    for (int i = 0; i < npairs; i++) {
        sds v = sdsdup(objectPtr(c->argv[3 + i * 2])); /* binary-safe: requirepass may hold a NUL */
        int ok = setTypedValue(defs[i], &v, 1, 0, err);
        sdsfree(v);
        if (!ok) {
            *failed = i;
            restoreConfigs(defs, olds, i);
            return C_ERR;
        }
    }
    for (int i = 0; i < npairs; i++) {
        int seen = 0;
        for (int k = 0; k < i && !seen; k++) seen = defs[k]->apply == defs[i]->apply;
        if (defs[i]->apply && !seen && !defs[i]->apply(err)) {
            *failed = i;
            restoreConfigs(defs, olds, npairs - 1);
            return C_ERR;
        }
    }
    return C_OK;
}

void configSetCommand(client *c) {
    if ((c->argc - 2) % 2 != 0) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int npairs = (c->argc - 2) / 2;
    redactSensitiveValues(c, npairs);
    if (rejectWhileLoading(c, npairs)) return;
    configDef **defs = zcalloc(sizeof(configDef *) * npairs);
    sds *olds = zcalloc(sizeof(sds) * npairs);
    const char *err = NULL;
    int failed = -1;
    if (findSettableConfigs(c, defs, npairs, &failed, &err) == C_OK) {
        for (int i = 0; i < npairs; i++) olds[i] = getTypedValue(defs[i]);
        if (setConfigs(c, defs, olds, npairs, &failed, &err) == C_OK) addReply(c, shared.ok);
    }
    if (failed >= 0)
        addReplyErrorFormat(c, "CONFIG SET failed (possibly related to argument '%s') - %s",
                            (char *)objectPtr(c->argv[2 + failed * 2]), err);
    for (int i = 0; i < npairs; i++) sdsfree(olds[i]);
    zfree(olds);
    zfree(defs);
}

void configResetstatCommand(client *c) {
    server.stat_numcommands = server.stat_numconnections = server.stat_expiredkeys = 0;
    server.stat_keyspace_hits = server.stat_keyspace_misses = server.stat_rejected_conn = 0;
    server.stat_net_input_bytes = server.stat_net_output_bytes = 0;
    server.stat_net_repl_input_bytes = server.stat_net_repl_output_bytes = 0;
    server.stat_total_error_replies = server.stat_unexpected_error_replies = 0;
    server.stat_evictedkeys = server.stat_expire_cycle_time_used = server.stat_evictedclients = 0;
    server.stat_client_qbuf_limit_disconnections = server.stat_client_outbuf_limit_disconnections = 0;
    server.stat_sync_full = server.stat_sync_partial_ok = server.stat_sync_partial_err = 0;
    server.stat_reply_buffer_shrinks = server.stat_reply_buffer_expands = 0;
    server.stat_peak_memory = zmalloc_used_memory();
    lazyfreeResetStats();
    expireResetLateness();
    dictEmpty(server.errors, NULL);
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di))) {
        redisCommand *cmd = dictGetVal(de);
        cmd->calls = cmd->microseconds = cmd->rejected_calls = cmd->failed_calls = 0;
        serverResetCommandStats(cmd);
        if (cmd->subcommands) {
            dictIterator *si = dictGetIterator(cmd->subcommands);
            dictEntry *se;
            while ((se = dictNext(si))) {
                redisCommand *sub = dictGetVal(se);
                sub->calls = sub->microseconds = sub->rejected_calls = sub->failed_calls = 0;
                serverResetCommandStats(sub);
            }
            dictReleaseIterator(si);
        }
    }
    dictReleaseIterator(di);
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------- CONFIG REWRITE */

/* The rewrite follows Redis: the old file's lines stay where they are; the
 * first line of a directive is replaced by its current value, its later lines
 * are blanked when no longer needed, and directives that differ from their
 * default and have no line yet go after a signature comment at the end. */
#define REWRITE_SIGNATURE "# Generated by CONFIG REWRITE"

typedef struct rewriteState {
    sds *lines;
    int numlines;
    int *line_lists[NCONFIGS]; /* per directive: its line numbers in the old file, in order */
    int line_counts[NCONFIGS];
    int line_used[NCONFIGS];   /* how many of them were reused */
    char processed[NCONFIGS];  /* rewritten: its unused old lines are blanked */
    int needs_signature;
    int force_all; /* DEBUG CONFIG-REWRITE-FORCE-ALL: every directive is written */
} rewriteState;

static void rewriteAppendLine(rewriteState *st, sds line) {
    st->lines = zrealloc(st->lines, sizeof(sds) * (st->numlines + 1));
    st->lines[st->numlines++] = line;
}

/* Puts `line` for directive d in place of its next old line, or appends it
 * when it must be written (force) and no old line is left. Takes `line`. */
static void rewriteLine(rewriteState *st, configDef *d, sds line, int force) {
    size_t idx = d - configs;
    st->processed[idx] = 1;
    if (st->line_used[idx] < st->line_counts[idx]) {
        int linenum = st->line_lists[idx][st->line_used[idx]++];
        sdsfree(st->lines[linenum]);
        st->lines[linenum] = line;
    } else if (force || st->force_all) {
        if (st->needs_signature) {
            rewriteAppendLine(st, sdsnew(REWRITE_SIGNATURE));
            st->needs_signature = 0;
        }
        rewriteAppendLine(st, line);
    } else {
        sdsfree(line);
    }
}

/* 1gb, 64mb, 16kb when exact, else bytes: how Redis writes memory values. */
static sds catMemory(sds s, unsigned long long bytes) {
    if (bytes && bytes % (1024ULL * 1024 * 1024) == 0) return sdscatprintf(s, "%llugb", bytes / (1024ULL * 1024 * 1024));
    if (bytes && bytes % (1024ULL * 1024) == 0) return sdscatprintf(s, "%llumb", bytes / (1024ULL * 1024));
    if (bytes && bytes % 1024 == 0) return sdscatprintf(s, "%llukb", bytes / 1024);
    return sdscatprintf(s, "%llu", bytes);
}

static int valueIsDefault(configDef *d, sds value) {
    if (d->deflt == NULL) return sdslen(value) == 0;
    if (d->type == T_MEM) {
        int e;
        return strtoull(value, NULL, 10) == memtoull(d->deflt, &e);
    }
    return strcmp(value, d->deflt) == 0;
}

static void rewriteSpecial(rewriteState *st, configDef *d) {
    if (d->set == setSave) {
        /* Always written, or the defaults would come back on restart. */
        if (server.saveparamslen == 0) rewriteLine(st, d, sdsnew("save \"\""), 1);
        for (int j = 0; j < server.saveparamslen; j++)
            rewriteLine(st, d, sdscatprintf(sdsempty(), "save %ld %d", (long)server.saveparams[j].seconds,
                                            server.saveparams[j].changes), 1);
    } else if (d->set == setDir) {
        sds dir = getDir();
        rewriteLine(st, d, sdscatrepr(sdsnew("dir "), dir, sdslen(dir)), 1);
        sdsfree(dir);
    } else if (d->set == setBind) {
        /* The default list writes no line; the empty one writes a bare "bind ". */
        sds addrs = getBind();
        if (!strcmp(addrs, d->deflt)) {
            st->processed[d - configs] = 1;
            sdsfree(addrs);
        } else {
            rewriteLine(st, d, sdscatsds(sdsnew("bind "), addrs), 1);
            sdsfree(addrs);
        }
    } else if (d->set == setObufLimits) {
        clientBufferLimitsConfig defaults[CLIENT_TYPE_COUNT];
        sds deflt = sdsnew(d->deflt);
        const char *ignored;
        parseObufLimits(&deflt, 1, defaults, &ignored);
        sdsfree(deflt);
        for (int j = 0; j < CLIENT_TYPE_COUNT; j++) {
            clientBufferLimitsConfig *l = &server.client_obuf_limits[j], *def = &defaults[j];
            int force = l->hard_limit_bytes != def->hard_limit_bytes || l->soft_limit_bytes != def->soft_limit_bytes ||
                        l->soft_limit_seconds != def->soft_limit_seconds;
            const char *name = j == CLIENT_TYPE_REPLICA ? "replica" : getClientTypeName(j);
            sds line = sdscatprintf(sdsempty(), "%s %s ", d->name, name);
            line = catMemory(line, l->hard_limit_bytes);
            line = sdscat(line, " ");
            line = catMemory(line, l->soft_limit_bytes);
            line = sdscatprintf(line, " %ld", (long)l->soft_limit_seconds);
            rewriteLine(st, d, line, force);
        }
    } else if (d->set == setUser) {
        /* With an ACL file the users live there: their lines here go. */
        int count = 0;
        sds *lines = !server.acl_filename[0] && userHooks.rewrite ? userHooks.rewrite(&count) : NULL;
        for (int j = 0; j < count; j++) rewriteLine(st, d, sdscatsds(sdsnew("user "), lines[j]), 1);
        for (int j = 0; j < count; j++) sdsfree(lines[j]);
        zfree(lines);
        st->processed[d - configs] = 1;
    } else if (d->set == setZmqEndpoints) {
        for (int j = 0; j < server.zmq_endpoints_count; j++)
            rewriteLine(st, d, sdscatprintf(sdsempty(), "%s %s", d->name, server.zmq_endpoints[j]), 1);
        if (server.zmq_endpoints_count == 0) st->processed[d - configs] = 1;
    } else {
        sds v = d->get();
        int force = !valueIsDefault(d, v);
        if ((d->flags & F_ARGS) && sdslen(v) == 0 && !force) {
            /* No arguments, as by default (no replicaof): no line, as Redis. */
            st->processed[d - configs] = 1;
            sdsfree(v);
            return;
        }
        sds line = sdscatprintf(sdsempty(), "%s ", d->name);
        line = (d->flags & F_ARGS) && sdslen(v) ? sdscatsds(line, v) : sdscatrepr(line, v, sdslen(v));
        rewriteLine(st, d, line, force);
        sdsfree(v);
    }
}

static void rewriteDirective(rewriteState *st, configDef *d) {
    if (d->set == setRenameCommand) return; /* its old lines stay as they are */
    if (d->type == T_SPECIAL) {
        rewriteSpecial(st, d);
        return;
    }
    sds v = getTypedValue(d);
    int force = !valueIsDefault(d, v);
    sds line = sdscatprintf(sdsempty(), "%s ", d->name);
    if (d->type == T_STRING) line = sdscatrepr(line, v, sdslen(v));
    else if (d->type == T_MEM && v[sdslen(v) - 1] != '%') line = catMemory(line, strtoull(v, NULL, 10));
    else line = sdscatsds(line, v);
    rewriteLine(st, d, line, force);
    sdsfree(v);
}

/* Reads the old file into st: comments and unknown lines are kept as they
 * are (a directive we no longer know becomes a "# ??? " comment). */
static void rewriteReadOldFile(rewriteState *st, const char *path) {
    FILE *fp = fopen(path, "r");
    sds text = sdsempty();
    if (fp) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) text = sdscatlen(text, buf, n);
        fclose(fp);
    }
    int nlines;
    sds *lines = sdssplitlen(text, sdslen(text), "\n", 1, &nlines);
    sdsfree(text);
    for (int i = 0; i < nlines; i++) {
        sds line = sdstrim(lines[i], "\r\n\t ");
        lines[i] = NULL;
        if (line[0] == '#' || line[0] == '\0') {
            if (!strcmp(line, REWRITE_SIGNATURE)) st->needs_signature = 0;
            rewriteAppendLine(st, line);
            continue;
        }
        int argc;
        sds *argv = sdssplitargs(line, &argc);
        configDef *d = argv && argc ? findConfig(argv[0]) : NULL;
        if (!d && !(argv && argc && !strcasecmp(argv[0], "include"))) {
            rewriteAppendLine(st, sdscatsds(sdsnew("# ??? "), line));
            sdsfree(line);
        } else {
            if (d) {
                size_t idx = d - configs;
                st->line_lists[idx] = zrealloc(st->line_lists[idx], sizeof(int) * (st->line_counts[idx] + 1));
                st->line_lists[idx][st->line_counts[idx]++] = st->numlines;
            }
            rewriteAppendLine(st, line);
        }
        if (argv) sdsfreesplitres(argv, argc);
    }
    zfree(lines);
}

/* Writes through a temporary file and a rename, keeping the file's mode. */
static int rewriteWriteFile(const char *path, sds content) {
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%d", path, (int)getpid());
    FILE *fp = fopen(tmp, "w");
    int ok = fp && fwrite(content, 1, sdslen(content), fp) == sdslen(content);
    struct stat sb;
    if (fp && stat(path, &sb) == 0) fchmod(fileno(fp), sb.st_mode & 07777);
    if (fp) ok = (fflush(fp) == 0 && fsync(fileno(fp)) == 0) && ok;
    if (fp) fclose(fp);
    if (ok && rename(tmp, path) == -1) ok = 0;
    int saved = errno;
    if (!ok) unlink(tmp);
    sdsfree(tmp);
    errno = saved;
    return ok;
}

void configRewriteCommand(client *c) { configRewriteReply(c, 0); }

sds configDebugInfo(void) {
    static const char *names[] = {"io-threads-do-reads", "lazyfree-lazy-eviction", "lazyfree-lazy-expire",
                                  "lazyfree-lazy-server-del", "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush",
                                  "repl-diskless-load", "repl-diskless-sync", "replica-read-only",
                                  "slave-read-only", "activedefrag", "sanitize-dump-payload", "io-threads",
                                  "list-compress-depth", "proto-max-bulk-len", "client-query-buffer-limit", NULL};
    sds out = sdsempty();
    for (int i = 0; names[i]; i++) {
        configDef *d = findConfig(names[i]);
        if (!d) continue;
        sds v = getTypedValue(d);
        out = sdscatprintf(out, "%s ", names[i]);
        if (d->type == T_MEM && sdslen(v) && v[sdslen(v) - 1] != '%') out = catMemory(out, strtoull(v, NULL, 10));
        else out = sdscatsds(out, v);
        out = sdscat(out, "\n");
        sdsfree(v);
    }
    return out;
}

void configRewriteReply(client *c, int force_all) {
    if (!server.configfile) {
        addReplyError(c, "The server is running without a config file");
        return;
    }
    rewriteState *st = zcalloc(sizeof(*st));
    st->needs_signature = 1;
    st->force_all = force_all;
    rewriteReadOldFile(st, server.configfile);
    for (size_t k = 0; k < NCONFIGS; k++) rewriteDirective(st, &configs[k]);
    /* Old lines of rewritten directives that were not reused are blanked. */
    for (size_t k = 0; k < NCONFIGS; k++) {
        if (st->processed[k])
            for (int j = st->line_used[k]; j < st->line_counts[k]; j++) sdsclear(st->lines[st->line_lists[k][j]]);
        zfree(st->line_lists[k]);
    }
    sds content = sdsempty();
    int was_empty = 0;
    for (int j = 0; j < st->numlines; j++) {
        /* Runs of empty lines become one. */
        int empty = sdslen(st->lines[j]) == 0;
        if (!(empty && was_empty)) content = sdscatlen(sdscatsds(content, st->lines[j]), "\n", 1);
        was_empty = empty;
        sdsfree(st->lines[j]);
    }
    zfree(st->lines);
    zfree(st);
    int ok = rewriteWriteFile(server.configfile, content);
    sdsfree(content);
    if (ok) {
        serverLog(LL_NOTICE, "CONFIG REWRITE executed with success.");
        addReply(c, shared.ok);
    } else {
        addReplyErrorFormat(c, "Rewriting config file: %s", strerror(errno));
    }
}

void configHelpCommand(client *c) {
    const char *help[] = {
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
        NULL};
    addReplyHelp(c, help);
}
