/* server: the one `server` struct holding server-wide state, the client and
 * database structures, and the command descriptor. Commands include this
 * together with reply.h and db.h; features include only what they use. */
#ifndef SERVER_SERVER_H
#define SERVER_SERVER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "core/adlist.h"
#include "core/ae.h"
#include "core/dict.h"
#include "core/sds.h"
#include "data/object.h"
#include "data/value.h"
#include "data/ttlheap.h"

/* The Redis version we answer as (INFO, LOLWUT, --version, config errors). */
#define REDIS_VERSION "7.0.15"

#define C_OK 0
#define C_ERR -1

#define PROTO_IOBUF_LEN (1024 * 16)
#define PROTO_RESIZE_THRESHOLD (1024 * 32) /* query buffers above this shrink to their recent peak */
#define PROTO_REPLY_CHUNK_BYTES (16 * 1024)
#define PROTO_REPLY_MIN_BYTES 1024 /* a reply buffer never shrinks below this */
#define REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME 5000 /* ms */
#define PROTO_MBULK_BIG_ARG (1024 * 32)
#define CONFIG_MAX_LINE 1024
#define NET_IP_STR_LEN 46
#define NET_ADDR_STR_LEN (NET_IP_STR_LEN + 32)
#define CONFIG_BINDADDR_MAX 16
#define CONFIG_RUN_ID_SIZE 40

/* Command flags (from the declarative table's flag words). */
#define CMD_WRITE (1ULL << 0)
#define CMD_READONLY (1ULL << 1)
#define CMD_DENYOOM (1ULL << 2)
#define CMD_MODULE (1ULL << 3)
#define CMD_ADMIN (1ULL << 4)
#define CMD_PUBSUB (1ULL << 5)
#define CMD_NOSCRIPT (1ULL << 6)
#define CMD_BLOCKING (1ULL << 8)
#define CMD_LOADING (1ULL << 9)
#define CMD_STALE (1ULL << 10)
#define CMD_SKIP_MONITOR (1ULL << 11)
#define CMD_SKIP_SLOWLOG (1ULL << 12)
#define CMD_ASKING (1ULL << 13)
#define CMD_FAST (1ULL << 14)
#define CMD_NO_AUTH (1ULL << 15)
#define CMD_MAY_REPLICATE (1ULL << 16)
#define CMD_SENTINEL (1ULL << 17)
#define CMD_ONLY_SENTINEL (1ULL << 18)
#define CMD_NO_MANDATORY_KEYS (1ULL << 19)
#define CMD_PROTECTED (1ULL << 20)
#define CMD_MODULE_GETKEYS (1ULL << 21)
#define CMD_MODULE_NO_CLUSTER (1ULL << 22)
#define CMD_NO_ASYNC_LOADING (1ULL << 23)
#define CMD_NO_MULTI (1ULL << 24)
#define CMD_MOVABLE_KEYS (1ULL << 25)
#define CMD_ALLOW_BUSY (1ULL << 26)
/* Ours: runs other commands that propagate themselves (EXEC, EVAL...), so the
 * command itself is never propagated. */
#define CMD_PROPAGATES_EFFECTS (1ULL << 40)

typedef struct client client;
struct user; /* acl/'s; opaque here */
typedef void redisCommandProc(client *c);

typedef struct redisCommand {
    const char *fullname;  /* "get", "config|get" */
    const char *name;      /* "get", "get" (the part after '|') */
    redisCommandProc *proc;
    int arity;
    uint64_t flags;
    const char *flagwords;
    int firstkey, lastkey, keystep;
    /* The members it looks up in its key's hash, set or sorted set: from
     * argument member_first every member_step-th (0: that one), for prefetch.c. */
    int member_first, member_step;
    const char *group;
    const char *info_resp; /* RESP2 fragment: [acl categories, tips, key specs] */
    const char *docs_resp; /* RESP2 fragment: the docs map */
    struct redisCommand *parent;
    dict *subcommands;     /* name → redisCommand, for containers */
    int nsubcommands;
    /* Statistics (INFO commandstats). */
    long long calls, microseconds, rejected_calls, failed_calls;
    struct latencyHistogram *latency_histogram; /* features/latency.c; NULL until called */
    /* Access control (acl/ sets them at start-up): the command's bit in a
     * user's command bitmap, and its ACL categories as bits. */
    int id;
    uint64_t acl_categories;
} redisCommand;

/* Client flags. */
#define CLIENT_CLOSE_AFTER_REPLY (1 << 0)
#define CLIENT_CLOSE_ASAP (1 << 1)
#define CLIENT_MULTI (1 << 2)
#define CLIENT_DIRTY_CAS (1 << 3)
#define CLIENT_DIRTY_EXEC (1 << 4)
#define CLIENT_BLOCKED (1 << 5)
#define CLIENT_MONITOR (1 << 6)
#define CLIENT_PUBSUB (1 << 7)
#define CLIENT_UNIX_SOCKET (1 << 8)
#define CLIENT_PENDING_WRITE (1 << 9)
#define CLIENT_REPLY_OFF (1 << 10)
#define CLIENT_REPLY_SKIP_NEXT (1 << 11)
#define CLIENT_REPLY_SKIP (1 << 12)
#define CLIENT_LUA (1 << 13)       /* the fake client scripts run commands through */
#define CLIENT_NO_EVICT (1 << 14)
#define CLIENT_PROTECTED (1 << 15)
#define CLIENT_EXECUTING (1 << 16)
#define CLIENT_AOF (1 << 17)       /* the fake client loading the AOF */
#define CLIENT_CLOSE_AFTER_COMMAND (1 << 18)
#define CLIENT_DENY_BLOCKING (1 << 19) /* inside MULTI or a script: never block */
#define CLIENT_PREVENT_PROP (1 << 20) /* this call's own argv is not propagated (propagate.h) */
#define CLIENT_PENDING_COMMAND (1 << 21) /* its argv holds a command a pause postponed: run it first */
#define CLIENT_SLAVE (1 << 22)  /* a replica attached by SYNC/PSYNC (repl/ owns its state) */
#define CLIENT_MASTER (1 << 23) /* our master's link: its commands are applied, never answered */
#define CLIENT_REPLICA_CMD (1 << 24) /* a replica's own command runs: answering it breaks its link (dropped) */
#define CLIENT_FORCE_REPL (1 << 25) /* this call goes to replicas though it wrote nothing (PUBLISH) */
#define CLIENT_LUA_DEBUG (1 << 26)      /* SCRIPT DEBUG YES|SYNC: its next EVAL runs under the debugger */
#define CLIENT_LUA_DEBUG_SYNC (1 << 27) /* ... SYNC: in the server itself, not in a forked child */
#define CLIENT_REPL_HOLD (1 << 28) /* a replica whose stream waits (its RDB is made, sent or loaded) */
#define CLIENT_ASKING (1 << 29)   /* cluster: ASKING given, the next command may use an importing slot */
#define CLIENT_READONLY (1 << 30) /* cluster: READONLY, reads are served by a replica of the slot's master */

/* Client-side caching state (features/tracking.c), kept in their own field
 * (client->tracking_flags) so they never compete with `flags` for bits. */
#define TRACKING_ON (1 << 0)
#define TRACKING_BCAST (1 << 1)
#define TRACKING_OPTIN (1 << 2)
#define TRACKING_OPTOUT (1 << 3)
#define TRACKING_CACHING (1 << 4)      /* CLIENT CACHING given for the next command */
#define TRACKING_NOLOOP (1 << 5)
#define TRACKING_BROKEN_REDIR (1 << 6) /* the redirect client went away */
#define TRACKING_PUSHING (1 << 7)      /* a push (invalidation, pub/sub) is being written: CLIENT REPLY OFF lets it through */

#define PROTO_REQ_INLINE 1
#define PROTO_REQ_MULTIBULK 2

/* Client output classes for client-output-buffer-limit. */
#define CLIENT_TYPE_NORMAL 0
#define CLIENT_TYPE_REPLICA 1
#define CLIENT_TYPE_PUBSUB 2
#define CLIENT_TYPE_COUNT 3

typedef struct clientReplyBlock {
    size_t size, used;
    char buf[];
} clientReplyBlock;

typedef struct redisDb {
    dict *dict;             /* key (embedded sds) → robj; entry meta: expiry heap slot */
    ttlHeap *expires;       /* ordered deadlines of volatile keys */
    dict *blocking_keys;    /* key → list of clients blocked on it */
    dict *ready_keys;       /* keys of this db in server.ready_keys (each listed once) */
    dict *watched_keys;     /* key → list of clients WATCHing it */
    struct slotKeys *slots; /* cluster mode, db 0: its keys by hash slot (slotkeys.h); else NULL */
    int id;
    long long avg_ttl;
} redisDb;

/* Blocking state. */
#define BLOCKED_NONE 0
#define BLOCKED_LIST 1
#define BLOCKED_ZSET 2
#define BLOCKED_SLEEP 3
#define BLOCKED_WAIT 4     /* WAIT: replica acknowledgements */
#define BLOCKED_POSTPONE 5 /* CLIENT PAUSE holds its command */
#define BLOCKED_STREAM 6   /* XREAD BLOCK */
#define BLOCKED_SHUTDOWN 7 /* SHUTDOWN waiting for lagging replicas */

typedef struct blockingState {
    long long timeout;   /* absolute ms; 0 = forever */
    int btype;
    dict *keys;          /* keys the client waits for */
    void *privdata;      /* owned by the blocking command family */
    void (*unblockfn)(client *c, int reply); /* its owner answers (reply) or forgets it when unblocked */
    int unblock_on_nokey; /* XREADGROUP: woken (to fail) when a key stops being a stream */
    long deadline_slot;   /* 1 + its slot in the blocking module's deadline heap; 0 = not there */
} blockingState;

typedef struct multiCmd {
    robj **argv;
    int argc;
    struct redisCommand *cmd;
} multiCmd;

typedef struct multiState {
    multiCmd *commands;
    int count;
    int alloc_count;        /* slots in commands: it grows by doubling, from 2 */
    int cmd_flags;
    int cmd_inv_flags;      /* flags some queued command lacks (e.g. one not allowed on a stale replica) */
    size_t argv_len_sums;   /* queued arguments' bytes and pointers (CLIENT LIST multi-mem) */
} multiState;

struct client {
    uint64_t id;
    int fd;
    int flags;
    redisDb *db;
    robj *name;
    sds querybuf;
    size_t qb_pos;
    size_t prefetched_to; /* querybuf offset up to which prefetchQueuedKeys looked */
    int prefetch_rest;    /* look-aheads prefetchQueuedKeys skips (one key: nothing to fetch) */
    size_t repl_unfed; /* master client: querybuf[repl_unfed..qb_pos) ran but is not in our stream yet (an open MULTI) */
    size_t querybuf_peak;
    int argc, argv_len;
    robj **argv;
    size_t argv_len_sum;
    /* The argv as the client sent it, kept when a command rewrites its argv
     * (for propagation) or redacts a secret: MONITOR and SLOWLOG show this. */
    robj **original_argv;
    int original_argc;
    struct redisCommand *cmd, *lastcmd, *realcmd;
    int reqtype;
    int multibulklen;
    long bulklen;
    /* The last multibulk command parsed: its argv, and where its RESP bytes
     * begin in querybuf (they end at qb_pos), or -1 once they are cut off
     * or the command came inline. While argv is still raw_argv, propagation
     * takes these bytes as sent instead of framing argv again (call()). */
    long raw_start;
    robj **raw_argv;
    list *reply;
    unsigned long long reply_bytes;
    /* A replica's output: where it is in the shared replication buffer
     * (replbuf.h); CLIENT_REPL_HOLD while it may not be sent yet. */
    listNode *ref_repl_buf_node;
    size_t ref_block_pos;
    size_t sentlen;
    time_t ctime;
    time_t lastinteraction; /* read from or written to */
    time_t lastread; /* bytes last came from it: a replica's ACKs and keep-alive newlines (repl/'s timeout) */
    time_t obuf_soft_limit_reached_time;
    int authenticated;
    struct user *user; /* NULL: fake clients (scripts, AOF), which may run anything */
    int resp;
    int bufpos;
    size_t buf_usable_size;
    size_t buf_peak;                 /* most of buf used since the last peak reset (CLIENT LIST rbp) */
    long long buf_peak_last_reset_time;
    char *buf;
    blockingState bpop;
    multiState mstate;
    list *watched_keys;
    dict *pubsub_channels;
    dict *pubsubshard_channels; /* SSUBSCRIBE'd channels, NULL until the first */
    list *pubsub_patterns;
    listNode *client_list_node;
    listNode *pending_write_node;
    listNode *unblocked_node;
    char addr[NET_ADDR_STR_LEN];
    char laddr[NET_ADDR_STR_LEN];
    sds lib_name, lib_ver;
    long long commands_processed;
    unsigned long long net_input_bytes, net_output_bytes;
    int tracking_flags;            /* TRACKING_* */
    uint64_t tracking_redirection; /* CLIENT TRACKING REDIRECT: client id, 0 none */
    dict *tracking_prefixes;       /* BCAST prefixes (sds set), NULL until the first */
    void *repl; /* replication state of a replica or master client (repl/ owns it) */
    /* Memory accounting (clientmem.c): the usage last counted, the type it
     * was counted under, and the eviction bucket holding the client. */
    size_t mem_usage;
    int mem_type;
    int mem_bucket;               /* -1: in none */
    listNode *mem_bucket_node;
};

/* Output buffer limits per client class. */
typedef struct clientBufferLimitsConfig {
    unsigned long long hard_limit_bytes;
    unsigned long long soft_limit_bytes;
    time_t soft_limit_seconds;
} clientBufferLimitsConfig;

/* A setting with named values has them right below its field (config.c's
 * enum tables and every test of the value use the names). */
struct redisServer {
    pid_t pid;
    char *executable;
    char *configfile;
    char **exec_argv;
    aeEventLoop *el;
    char runid[CONFIG_RUN_ID_SIZE + 1];
    long long cronloops;
    volatile sig_atomic_t shutdown_asap;     /* SIGTERM/SIGINT asked for a shutdown (the cron starts it) */
    volatile sig_atomic_t last_sig_received; /* ... which of the two */
    int shutdown_flags;                      /* the SHUTDOWN_* flags of the shutdown under way */
#define SHUTDOWN_NOFLAGS 0
#define SHUTDOWN_SAVE 1
#define SHUTDOWN_NOSAVE 2
#define SHUTDOWN_FORCE 4
#define SHUTDOWN_NOW 8 /* do not wait for replicas to catch up */
    long long shutdown_mstime;               /* a shutdown waits for replicas until then; 0 if none */
    int shutdown_timeout;                    /* seconds it waits at most (shutdown-timeout) */
    int shutdown_on_sigterm, shutdown_on_sigint; /* SHUTDOWN_* flags a signal shuts down with */

    /* Networking. */
    int port;
    int tcp_backlog;
    char *bindaddr[CONFIG_BINDADDR_MAX];
    int bindaddr_count;
    int ipfd[CONFIG_BINDADDR_MAX];
    int ipfd_count;
    /* TLS (server/tls.h): the port and its listeners, and the settings its
     * contexts are made of ("" for a file or list not given). */
    int tls_port;
    int tlsfd[CONFIG_BINDADDR_MAX];
    int tlsfd_count;
    int tls_replication; /* our link to a master is TLS; its replicas' links are what they connected to */
    int tls_cluster;     /* the cluster bus (accepted and kept until the bus exists) */
    char *tls_cert_file, *tls_key_file, *tls_key_file_pass;
    char *tls_client_cert_file, *tls_client_key_file, *tls_client_key_file_pass;
    char *tls_dh_params_file, *tls_ca_cert_file, *tls_ca_cert_dir;
    char *tls_protocols, *tls_ciphers, *tls_ciphersuites;
    int tls_auth_clients; /* TLS_CLIENT_AUTH_*: */
#define TLS_CLIENT_AUTH_NO 0
#define TLS_CLIENT_AUTH_YES 1
#define TLS_CLIENT_AUTH_OPTIONAL 2
    int tls_prefer_server_ciphers;
    int tls_session_caching;
    int tls_session_cache_size;
    int tls_session_cache_timeout;
    char *unixsocket;
    unsigned int unixsocketperm;
    int sofd;
    int set_proc_title;
    int disable_thp; /* disable-thp: no transparent huge pages for this process when the kernel gives them always */
    char *proc_title_template; /* {title} {listen-addr} {server-mode} {port} {tls-port} {unixsocket} {config-file} */
    int tcpkeepalive;
    int protected_mode; /* protected-mode: */
#define PROTECTED_MODE_NO 0
#define PROTECTED_MODE_YES 1
    unsigned int maxclients;
    int maxidletime;
    list *clients;
    list *clients_to_close;
    list *clients_pending_write;
    list *unblocked_clients;
    list *monitors;
    dict *clients_by_id;
    uint64_t next_client_id;
    client *current_client;
    long long proto_max_bulk_len;
    unsigned long long client_max_querybuf_len;
    clientBufferLimitsConfig client_obuf_limits[CLIENT_TYPE_COUNT];
    long long maxmemory_clients; /* bytes; negative: that percentage of maxmemory; 0: no client eviction */
    unsigned int blocked_clients;
    unsigned int blocked_clients_by_type[8];
    list *ready_keys;   /* readyList entries: keys that got data for blocked clients */

    /* Keyspace. */
    redisDb *db;
    int dbnum;
    long long dirty;
    int active_expire_enabled;
    long long expire_early_wake_us; /* expire-early-wake-us: the expiry timer wakes this long early and polls */
    int pause_cron;                 /* DEBUG PAUSE-CRON: serverCron does nothing */
    int pause_type;                 /* the CLIENT PAUSE in effect (pause.h's PAUSE_*), 0 none; pause.c sets it */
    int skip_checksum_validation;   /* DEBUG SET-SKIP-CHECKSUM-VALIDATION: RDB and RESTORE */
    int sanitize_dump_payload;      /* sanitize-dump-payload (persist/rdb.h says what each checks): */
#define SANITIZE_DUMP_NO 0
#define SANITIZE_DUMP_YES 1
#define SANITIZE_DUMP_CLIENTS 2
    int script_disable_deny_script; /* DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may run noscript commands */
    int hz;
    int dynamic_hz;
    long long expire_timer_id;
    long long stat_expiredkeys;
    long long stat_expired_stale_perc;
    long long stat_evictedkeys;
    long long stat_evictedclients; /* clients disconnected by maxmemory-clients */
    long long stat_keyspace_hits;
    long long stat_keyspace_misses;
    long long stat_numcommands;
    monotime command_turn_us; /* aeTurnStartUs() of the turn the last command ran in */
    long long stat_numconnections;
    long long stat_rejected_conn;
    long long stat_net_input_bytes;
    long long stat_net_output_bytes;
    long long stat_net_repl_input_bytes;  /* from our master (stream and RDB), apart as in 7.0 */
    long long stat_net_repl_output_bytes; /* to our replicas */
    long long stat_unexpected_error_replies;
    long long stat_total_error_replies;
    long long stat_client_qbuf_limit_disconnections;
    long long stat_client_outbuf_limit_disconnections;
    long long stat_sync_full, stat_sync_partial_ok, stat_sync_partial_err; /* repl/ counts them */
    long long stat_expire_cycle_time_used;
    long long stat_peak_memory;
    long long stat_total_reads_processed;  /* reads from client sockets */
    long long stat_total_writes_processed; /* writes to client sockets */
    long long stat_reply_buffer_shrinks, stat_reply_buffer_expands; /* the client cron's resizes */
    /* Reply buffers (networking.c): their peak is forgotten this often (ms,
     * -1 never), and resizing may be off (DEBUG REPLYBUFFER). */
    long long reply_buffer_peak_reset_time;
    int reply_buffer_resizing_enabled;
    size_t initial_memory_usage;           /* used memory once started (used_memory_startup) */
    time_t stat_starttime;
    dict *commands;     /* name → redisCommand (containers hold subcommands) */
    struct redisCommand *exec_command; /* EXEC: the pipeline looks into the transaction it runs */
    struct redisCommand *ping_command; /* PING: refused like a write while persistence fails (-MISCONF) */
    dict *errors;       /* error prefix → count (INFO errorstats) */

    /* Limits and encodings. */
    unsigned long long maxmemory;
    int maxmemory_policy; /* maxmemory-policy (evict.c applies it): */
#define MAXMEMORY_VOLATILE_LRU 0
#define MAXMEMORY_VOLATILE_LFU 1
#define MAXMEMORY_VOLATILE_RANDOM 2
#define MAXMEMORY_VOLATILE_TTL 3
#define MAXMEMORY_ALLKEYS_LRU 4
#define MAXMEMORY_ALLKEYS_LFU 5
#define MAXMEMORY_ALLKEYS_RANDOM 6
#define MAXMEMORY_NO_EVICTION 7
    int lfu_log_factor; /* LFU counter growth: higher is slower (OBJECT FREQ) */
    long long tracking_table_max_keys; /* keys client-side caching remembers (0: no limit) */
    int lfu_decay_time; /* minutes for the LFU counter to drop by one; 0 never */
    int maxmemory_samples;
    int maxmemory_eviction_tenacity; /* 0..100: how long one eviction run may take (evict.c) */
    hashLimits hash_limits; /* hash-max-listpack-entries/value */
    setLimits set_limits; /* set-max-intset-entries, set-max-listpack-entries/value */
    zsetLimits zset_limits; /* zset-max-listpack-entries/value */
    int list_max_listpack_size;
    int list_compress_depth;
    long long hll_sparse_max_bytes; /* a sparse HyperLogLog growing past this turns dense */
    long long stream_node_max_bytes;   /* a stream node listpack grows up to this (0: no limit) */
    long long stream_node_max_entries; /* entries per stream node (0: no limit) */
    int lazyfree_lazy_user_del;
    int lazyfree_lazy_user_flush;
    int lazyfree_lazy_eviction;
    int lazyfree_lazy_expire;
    int lazyfree_lazy_server_del;
    int repl_slave_lazy_flush; /* replica-lazy-flush: a full sync's flush of the old data is lazy */
    int rdb_del_sync_files;    /* with no persistence, the RDB files of full syncs are removed */

    /* Logging and process. */
    int verbosity; /* loglevel: the least level serverLog writes */
#define LL_DEBUG 0
#define LL_VERBOSE 1
#define LL_NOTICE 2
#define LL_WARNING 3
    char *logfile;
    int always_show_logo;
    int daemonize;
    char *pidfile;
    int supervised; /* the supervised directive, and below the mode in effect (server/supervise.h): */
#define SUPERVISED_NONE 0
#define SUPERVISED_UPSTART 1
#define SUPERVISED_SYSTEMD 2
#define SUPERVISED_AUTODETECT 3
    int supervised_mode; /* SUPERVISED_NONE unless supervision started (superviseStart) */
    int syslog_enabled; /* log lines also go to syslog (serverOpenSyslog), as ident and facility say */
    char *syslog_ident;
    int syslog_facility;
    sds requirepass; /* NULL: none */
    sds masterauth; /* binary-safe, as requirepass: a password may hold a NUL */
    char *masteruser;
    char *acl_filename;          /* aclfile; "" when users come from redis.conf */
    int acl_pubsub_default;      /* acl-pubsub-default: what new users start with */
#define ACL_PUBSUB_DEFAULT_RESETCHANNELS 0
#define ACL_PUBSUB_DEFAULT_ALLCHANNELS 1
    long long acllog_max_len;
    int notify_keyspace_events;
    int latency_tracking;
    long long latency_monitor_threshold; /* ms; 0 disables the latency monitor */
    int enable_debug_command; /* enable-debug-command: */
#define PROTECTED_ACTION_ALLOWED_NO 0
#define PROTECTED_ACTION_ALLOWED_YES 1
#define PROTECTED_ACTION_ALLOWED_LOCAL 2 /* from a unix socket or a loopback address only */
    int enable_protected_configs; /* CONFIG SET of dir and dbfilename: the same values */
    int enable_module_command; /* the same values */

    /* Persistence knobs that the config table owns; the persist/ module reads them. */
    char *dir;
    char *dbfilename;
    int rdb_compression;
    int rdb_checksum;
    int rdb_key_save_delay; /* microseconds slept per key saved (tests slow saves down with it) */
    int key_load_delay;     /* ... and per key loaded */
    int stop_writes_on_bgsave_err;
    int aof_enabled;
    int aof_fsync; /* appendfsync: */
#define AOF_FSYNC_NO 0
#define AOF_FSYNC_ALWAYS 1
#define AOF_FSYNC_EVERYSEC 2
    char *appendfilename;
    char *appenddirname;
    int aof_no_fsync_on_rewrite;
    int aof_rewrite_perc;
    long long aof_rewrite_min_size;
    int aof_load_truncated;
    int aof_use_rdb_preamble;
    int aof_disable_auto_gc; /* keep the files a rewrite replaced, as history in the manifest */
    struct saveparam *saveparams;
    int saveparamslen;
    time_t lastsave;
    int loading;        /* a snapshot is loaded into the dbs: commands without CMD_LOADING are refused */
    int async_loading;  /* a replica loads its master's snapshot aside and serves the old data meanwhile
                           (repl-diskless-load swapdb, same history): CMD_NO_ASYNC_LOADING refused */
    int loading_process_events_interval_bytes; /* how often a load lets clients in */
    int crashlog_enabled;   /* crash-log-enabled: fatal signals write the bug report */
    int use_exit_on_panic;  /* use-exit-on-panic: a failed assertion exits instead of aborting */
    int watchdog_period; /* ms the event loop may stall before SIGALRM logs a stack trace; 0: off */
    int aof_timestamp_enabled; /* "#TS:" annotations in the AOF */
    int aof_flush_sleep; /* DEBUG AOF-FLUSH-SLEEP: µs each AOF write waits first */
    int masterhost_set; /* we are a replica (REPLICAOF host port); repl/ sets it */

    /* Replication knobs the config table owns; repl/ reads them. */
    long long repl_backlog_size;
    int repl_backlog_ttl;
    int repl_ping_replica_period;
    int repl_timeout;
    int repl_serve_stale_data;
    int repl_slave_ro;
    int repl_ignore_disk_write_error; /* replica-ignore-disk-write-errors */
    int repl_min_slaves_to_write;
    int repl_min_slaves_max_lag;
    int repl_diskless_sync;       /* full resyncs stream the RDB from the child, no file */
    int repl_diskless_sync_delay; /* seconds to wait for more replicas before such a transfer */
    int repl_diskless_sync_max_replicas; /* ... unless this many wait (0: no such limit) */
    int repl_diskless_load;       /* repl-diskless-load: a replica loads the RDB from the socket */
#define REPL_DISKLESS_LOAD_DISABLED 0
#define REPL_DISKLESS_LOAD_EMPTY_DB 1 /* ... when it holds no keys */
#define REPL_DISKLESS_LOAD_SWAPDB 2   /* ... aside, serving the old data meanwhile */
    int repl_slave_priority;      /* shown to Sentinel (INFO slave_priority); 0: never promoted */
    int repl_replica_announced;   /* Sentinel lists this replica */
    char *bind_source_addr;       /* where outgoing connections (to a master) come from; NULL: any */
    char *repl_announce_ip;       /* what a replica tells its master about itself (REPLCONF ip-address) */
    int repl_announce_port;       /* ... and REPLCONF listening-port, 0: our port */
    int repl_link_up; /* a replica's link with its master is up (repl/ sets it) */
    int repl_good_slaves_count; /* replicas acknowledging within min-replicas-max-lag (repl/ counts) */

    /* Redis Cluster: the knobs the config table owns; cluster/ reads them. */
    int cluster_enabled;          /* cluster-enabled: db 0 only, keys by slot, the bus */
    char *cluster_configfile;     /* cluster-config-file (nodes.conf) */
    long long cluster_node_timeout; /* ms without a PONG before a node is suspected (PFAIL) */
    int cluster_port;             /* the bus's port; 0: port + 10000 */
    char *cluster_announce_ip;
    char *cluster_announce_hostname;
    int cluster_announce_port, cluster_announce_bus_port, cluster_announce_tls_port;
    int cluster_preferred_endpoint_type;
#define CLUSTER_ENDPOINT_IP 0
#define CLUSTER_ENDPOINT_HOSTNAME 1
#define CLUSTER_ENDPOINT_UNKNOWN 2
    int cluster_require_full_coverage;
    int cluster_allow_reads_when_down;
    int cluster_allow_pubsubshard_when_down;
    int cluster_replica_validity_factor;
    int cluster_migration_barrier;
    int cluster_allow_replica_migration;
    int cluster_replica_no_failover;
    long long cluster_link_sendbuf_limit; /* bytes a bus link may hold unsent; 0: no limit */
    int cluster_drop_packet_filter;       /* DEBUG DROP-CLUSTER-PACKET-FILTER: bus messages of this type are dropped; -1 none */

    /* Scripting and transactions (features/). */
    long long busy_reply_threshold;
    int in_script;
    int in_exec;
    int in_fork_child; /* this process is a forked child (a saver, a debugging session) */
    long long slowlog_log_slower_than;
    unsigned long slowlog_max_len;

    /* The 0MQ expiry push (features/expiry_push reads these). */
    sds *zmq_endpoints;
    int zmq_endpoints_count;
    long long zmq_hwm;
    long long zmq_backlog;
    int zmq_ack;               /* zmq-expiry-ack: acknowledged delivery (ROUTER/DEALER) */
    long long zmq_ack_timeout; /* ms a consumer holding messages may stay silent */
    long long zmq_spool_max_bytes; /* zmq-expiry-spool-max-bytes: the disk spool's bound, 0 = off */
    int zmq_types; /* bit per OBJ_ type */

    /* Clocks cached each event loop round. */
    long long mstime;
    long long ustime;
    time_t unixtime;
    unsigned int lruclock;
};

struct saveparam {
    time_t seconds;
    int changes;
};

extern struct redisServer server;

/* Logging: a level (LL_DEBUG..LL_WARNING, beside server.verbosity), LL_RAW
 * or'ed in for a line without the pid and time prefix. */
#define LL_RAW (1 << 10)
void serverLog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* syslog-enabled: opens the log with syslog-ident and syslog-facility (initServer). */
void serverOpenSyslog(void);

/* What call() does besides running the proc (dispatch.h). */
#define CALL_NONE 0
#define CALL_SLOWLOG (1 << 0)
#define CALL_STATS (1 << 1)
#define CALL_PROPAGATE (1 << 2)
#define CALL_FULL (CALL_SLOWLOG | CALL_STATS | CALL_PROPAGATE)

/* A CLIENT PAUSE (or a pause of another purpose) is in effect: nothing may
 * remove keys on its own. In the base so the keyspace asks without reaching
 * up into pause.c. */
static inline int clientsArePaused(void) { return server.pause_type != 0; }

/* Time as commands see it: fixed during a command (and a script), as Redis does. */
long long commandTimeMs(void);
void updateCachedTime(void);
/* The clocks set to `us` (call() fixes them at a command's start). */
static inline void setCachedTime(long long us) {
    server.ustime = us;
    server.mstime = us / 1000;
    server.unixtime = server.mstime / 1000;
}

void serverLogFromHandler(int level, const char *msg);


/* Work the server does on its own between commands (expiry, draining the 0MQ
 * backlog) shares one budget per turn of the event loop, so a client waits
 * behind about a millisecond of it at most, however many kinds are due.
 * Returns the µs left in this turn; never less than a small minimum, so that
 * every kind keeps making progress. */
long long backgroundWorkLeftUs(void);
/* µs that background work feeding the 0MQ push pauses between slices while
 * more is due and clients are being served (backgroundConsumerFeeding()).
 * 0MQ's I/O thread and the consumer need the CPU at the same moment; on a
 * machine with few cores a main thread that never sleeps gets preempted for
 * whole scheduler slices, and clients wait for milliseconds. With a pause it
 * is served first when a client writes (measured with utils/mass_expiry.py:
 * GET p50 0.05 ms during the expiry, 1 ms without the pause). With no client
 * to serve the pause only idles the thread that feeds 0MQ (a third of a mass
 * expiry's push rate), so it is skipped. */
#define BACKGROUND_PAUSE_US 500
/* Clients count as being served for this long after a command ran. */
#define BACKGROUND_CLIENTS_WINDOW_US 5000

#endif
