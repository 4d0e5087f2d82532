/* debug: the DEBUG command, one table entry per subcommand. Redis's own
 * test suite drives the server through these (DIGEST above all, to compare
 * datasets across servers and reloads), so each answers as Redis 7.0 does:
 * same texts, same errors, same digests. */
#include "cluster/bus.h"
#include "cluster/state.h"
#include "server/cmdargs.h"
#include "server/lru.h"
#include "core/zmalloc.h"
#include "data/stream.h"
#include "data/value.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "persist/rdb.h"
#include "server/client.h"
#include "server/db.h"
#include "server/config.h"
#include "server/crash.h"
#include "server/evict.h"
#include "server/expire.h"
#include "server/keyhook.h"
#include "server/propagate.h"
#include "server/reply.h"

#include <arpa/inet.h>
#include <errno.h>
#include <sha1.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>

/* ------------------------------------------------------------------ DIGEST */

static void sha1(unsigned char *out, const void *p, size_t len) {
    SHA1_CTX ctx;
    SHA1Init(&ctx);
    SHA1Update(&ctx, p, len);
    SHA1Final(out, &ctx);
}

/* Redis's digest: order-insensitive parts (set members, hash pairs, keys)
 * are XORed in, ordered parts (list items, stream entries) are mixed, i.e.
 * XORed then rehashed, so two datasets digest alike exactly when their
 * logical contents are equal, whatever the encodings. */
static void xorDigest(unsigned char *digest, const void *p, size_t len) {
    unsigned char hash[SHA1_DIGEST_LENGTH];
    sha1(hash, p, len);
    for (int j = 0; j < SHA1_DIGEST_LENGTH; j++) digest[j] ^= hash[j];
}

static void mixDigest(unsigned char *digest, const void *p, size_t len) {
    xorDigest(digest, p, len);
    sha1(digest, digest, SHA1_DIGEST_LENGTH);
}

static void mixElemDigest(unsigned char *digest, const valueElem *e) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = valueElemBytes(e, buf, &len);
    mixDigest(digest, p, len);
}

static void valueDigest(unsigned char *digest, robj *o, long long expire) {
    objectAssertChecked(o); /* walked below: see object.h */
    uint32_t aux = htonl(o->type);
    mixDigest(digest, &aux, sizeof(aux));
    if (o->type == OBJ_STRING) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *p = stringObjectView(o, buf, &len);
        mixDigest(digest, p, len);
    } else if (o->type == OBJ_STREAM) {
        stream *s = objectPtr(o);
        streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX}, id;
        streamIterator si;
        long numfields;
        streamIteratorStart(&si, s, &min, &max, 0);
        while (streamIteratorNext(&si, &id, &numfields)) {
            char buf[64];
            int n = snprintf(buf, sizeof(buf), "%llu.%llu", (unsigned long long)id.ms, (unsigned long long)id.seq);
            mixDigest(digest, buf, (size_t)n);
            while (numfields--) {
                lpEntry f, v;
                streamIteratorNextField(&si, &f, &v);
                valueElem fe = {f.sval, f.slen, f.lval}, ve = {v.sval, v.slen, v.lval};
                mixElemDigest(digest, &fe);
                mixElemDigest(digest, &ve);
            }
        }
        streamIteratorStop(&si);
    } else {
        valueIter it;
        valueItem item;
        valueIterInit(&it, o);
        while (valueIterNext(&it, &item)) {
            if (o->type == OBJ_LIST) {
                mixElemDigest(digest, &item.ele);
            } else if (o->type == OBJ_SET) {
                char buf[LONG_STR_SIZE];
                size_t len;
                const char *p = valueElemBytes(&item.ele, buf, &len);
                xorDigest(digest, p, len);
            } else {
                unsigned char eledigest[20] = {0};
                mixElemDigest(eledigest, &item.ele);
                if (o->type == OBJ_ZSET) {
                    char buf[128];
                    int n = snprintf(buf, sizeof(buf), "%.17g", item.score);
                    mixDigest(eledigest, buf, (size_t)n);
                } else {
                    mixElemDigest(eledigest, &item.val);
                }
                xorDigest(digest, eledigest, 20);
            }
        }
        valueIterDone(&it);
    }
    if (expire != -1) xorDigest(digest, "!!expire!!", 10);
}

static void digestToHex(const unsigned char *digest, char *hex) {
    for (int j = 0; j < 20; j++) sprintf(hex + j * 2, "%02x", digest[j]);
}

static void debugDigest(client *c) {
    unsigned char final[20] = {0};
    for (int j = 0; j < server.dbnum; j++) {
        redisDb *db = server.db + j;
        if (dictSize(db->dict) == 0) continue;
        uint32_t aux = htonl((uint32_t)j);
        mixDigest(final, &aux, sizeof(aux));
        dictIterator di;
        dictInitIterator(&di, db->dict);
        dictEntry *de;
        while ((de = dictNext(&di))) {
            sds key = dbEntryKey(de);
            unsigned char digest[20] = {0};
            mixDigest(digest, key, sdslen(key));
            valueDigest(digest, dbEntryValue(de), dbEntryExpire(db, de));
            xorDigest(final, digest, 20);
        }
        dictResetIterator(&di);
    }
    char hex[41];
    digestToHex(final, hex);
    addReplyStatus(c, hex);
}

/* Logically expired keys digest too: a debug command reads what is stored. */
static void debugDigestValue(client *c) {
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        unsigned char digest[20] = {0};
        dictEntry *de = dbFindEntry(c->db, objectPtr(c->argv[j]));
        if (de) valueDigest(digest, dbEntryValue(de), dbEntryExpire(c->db, de));
        char hex[41];
        digestToHex(digest, hex);
        addReplyStatus(c, hex);
    }
}

/* ------------------------------------------------------ keys and encodings */

static robj *debugLookupOrReply(client *c, robj *key) {
    dictEntry *de = dbFindEntry(c->db, objectPtr(key));
    if (!de) {
        addReplyErrorObject(c, shared.nokeyerr);
        return NULL;
    }
    return dbEntryValue(de);
}

static void debugObject(client *c) {
    robj *val = debugLookupOrReply(c, c->argv[2]);
    if (!val) return;
    /* What an RDB file would store for the value: the DUMP payload less
     * its type byte, RDB version (2 bytes) and CRC64 (8 bytes). */
    sds payload = rdbDumpPayload(val);
    size_t serialized = sdslen(payload) - 11;
    sdsfree(payload);
    sds s = sdscatprintf(sdsempty(), "Value at:%p refcount:%d encoding:%s serializedlength:%zu lru:%u lru_seconds_idle:%llu",
                         (void *)val, objectRefcountView(val), strEncoding(val->encoding), serialized, val->lru,
                         objectIdleSeconds(val));
    int fill, compress;
    if (vlistQuicklistSettings(val, &fill, &compress)) { /* the nodes are walked as blobs */
        unsigned long uncompressed = 0, nodes = valueBlobCount(val);
        valueBlob b;
        for (const void *pos = NULL; (pos = valueBlobNext(val, pos, &b));) uncompressed += b.len;
        s = sdscatprintf(s, " ql_nodes:%lu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%lu",
                         nodes, nodes ? (double)valueLength(val) / nodes : 0, fill, compress != 0, uncompressed);
    }
    addReplyStatusLength(c, s, sdslen(s));
    sdsfree(s);
}

static void debugSdslen(client *c) {
    dictEntry *de = dbFindEntry(c->db, objectPtr(c->argv[2]));
    if (!de) {
        addReplyErrorObject(c, shared.nokeyerr);
        return;
    }
    robj *val = dbEntryValue(de);
    sds key = dbEntryKey(de);
    if (val->type != OBJ_STRING || !sdsEncodedObject(val)) {
        addReplyError(c, "Not an sds encoded string.");
        return;
    }
    sds s = sdscatprintf(sdsempty(),
                         "key_sds_len:%lld, key_sds_avail:%lld, key_zmalloc: %lld, val_sds_len:%lld, "
                         "val_sds_avail:%lld, val_zmalloc: %lld",
                         (long long)sdslen(key), (long long)sdsavail(key), (long long)sdsAllocSize(key),
                         (long long)sdslen(objectPtr(val)), (long long)sdsavail(objectPtr(val)),
                         (long long)sdsAllocSize(objectPtr(val)));
    addReplyStatusLength(c, s, sdslen(s));
    sdsfree(s);
}

/* LISTPACK / QUICKLIST: Redis prints the structure on its stdout; the
 * reply is all clients see. */
static void debugEncodingDump(client *c, int encoding, const char *err, const char *ok) {
    robj *o = debugLookupOrReply(c, c->argv[2]);
    if (!o) return;
    if (o->encoding != encoding) addReplyError(c, err);
    else addReplyStatus(c, ok);
}

static void debugListpack(client *c) {
    debugEncodingDump(c, OBJ_ENCODING_LISTPACK, "Not a listpack encoded object.", "Listpack structure printed on stdout");
}

static void debugQuicklist(client *c) {
    debugEncodingDump(c, OBJ_ENCODING_QUICKLIST, "Not a quicklist encoded object.", "Quicklist structure printed on stdout");
}

static sds catDictStats(sds s, dict *d) {
    char buf[4096];
    dictGetStats(buf, sizeof(buf), d);
    return sdscat(s, buf);
}

static void debugHtstats(client *c) {
    long long dbid;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &dbid, NULL) != C_OK) return;
    if (dbid < 0 || dbid >= server.dbnum) {
        addReplyError(c, "Out of range database");
        return;
    }
    redisDb *db = server.db + dbid;
    sds s = catDictStats(sdsnew("[Dictionary HT]\n"), db->dict);
    /* Deadlines live in an ordered heap, not a hash table. */
    s = sdscat(s, "[Expires HT]\nHash table 0 stats (main hash table):\n");
    unsigned long volatiles = ttlHeapLen(db->expires);
    if (volatiles == 0) s = sdscat(s, "No stats available for empty dictionaries\n");
    else s = sdscatprintf(s, " number of elements: %lu\n", volatiles);
    addReplyVerbatim(c, s, sdslen(s), "txt");
    sdsfree(s);
}

static void debugHtstatsKey(client *c) {
    robj *o = debugLookupOrReply(c, c->argv[2]);
    if (!o) return;
    char buf[4096];
    if (!valueTableStats(o, buf, sizeof(buf))) {
        addReplyError(c, "The value stored at the specified key is not represented using an hash table");
        return;
    }
    addReplyVerbatim(c, buf, strlen(buf), "txt");
}

/* POPULATE count [prefix] [size]: string keys <prefix>:<n> holding
 * "value:<n>" cut or zero-padded to size; existing keys are left alone. */
static void debugPopulate(client *c) {
    long keys, valsize = 0;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &keys, NULL) != C_OK) return;
    if (c->argc == 5 && getPositiveLongFromObjectOrReply(c, c->argv[4], &valsize, NULL) != C_OK) return;
    const char *prefix = c->argc >= 4 ? objectPtr(c->argv[3]) : "key";
    /* Room ahead when it can be had; an absurd count fails later, key by key. */
    (void)dictTryExpand(c->db->dict, dictSize(c->db->dict) + (unsigned long)keys);
    for (long j = 0; j < keys; j++) {
        char buf[128];
        snprintf(buf, sizeof(buf), "%s:%ld", prefix, j);
        robj *key = createStringObject(buf, strlen(buf));
        if (dbExists(c->db, key)) {
            decrRefCount(key);
            continue;
        }
        int n = snprintf(buf, sizeof(buf), "value:%ld", j);
        robj *val;
        if (valsize == 0) {
            val = createStringObject(buf, (size_t)n);
        } else {
            val = createStringObject(NULL, (size_t)valsize);
            memcpy(objectPtr(val), buf, valsize <= n ? (size_t)valsize : (size_t)n);
        }
        val = dbAdd(c->db, key, val);
        /* Not a write to replay: Redis leaves the write count alone. */
        keyChanged(c->db, key, 0, NULL, 0);
        decrRefCount(key);
    }
    addReply(c, shared.ok);
}

/* ---------------------------------------------------------------- PROTOCOL */

static void debugProtocol(client *c) {
    const char *name = objectPtr(c->argv[2]);
    if (!strcasecmp(name, "string")) {
        addReplyBulkCString(c, "Hello World");
    } else if (!strcasecmp(name, "integer")) {
        addReplyLongLong(c, 12345);
    } else if (!strcasecmp(name, "double")) {
        addReplyDouble(c, 3.141);
    } else if (!strcasecmp(name, "bignum")) {
        addReplyBigNum(c, "1234567999999999999999999999999999999", 37);
    } else if (!strcasecmp(name, "null")) {
        addReplyNull(c);
    } else if (!strcasecmp(name, "array") || !strcasecmp(name, "set")) {
        if (name[0] == 'a' || name[0] == 'A') addReplyArrayLen(c, 3);
        else addReplySetLen(c, 3);
        for (int j = 0; j < 3; j++) addReplyLongLong(c, j);
    } else if (!strcasecmp(name, "map")) {
        addReplyMapLen(c, 3);
        for (int j = 0; j < 3; j++) {
            addReplyLongLong(c, j);
            addReplyBool(c, j == 1);
        }
    } else if (!strcasecmp(name, "attrib")) {
        if (c->resp >= 3) {
            addReplyProto(c, "|1\r\n", 4);
            addReplyBulkCString(c, "key-popularity");
            addReplyArrayLen(c, 2);
            addReplyBulkCString(c, "key:123");
            addReplyLongLong(c, 90);
        }
        addReplyBulkCString(c, "Some real reply following the attribute");
    } else if (!strcasecmp(name, "push")) {
        if (c->resp < 3) {
            addReplyError(c, "RESP2 is not supported by this command");
            return;
        }
        addReplyPushLen(c, 2);
        addReplyBulkCString(c, "server-cpu-usage");
        addReplyLongLong(c, 42);
        addReplyBulkCString(c, "Some real reply following the push reply");
    } else if (!strcasecmp(name, "true")) {
        addReplyBool(c, 1);
    } else if (!strcasecmp(name, "false")) {
        addReplyBool(c, 0);
    } else if (!strcasecmp(name, "verbatim")) {
        addReplyVerbatim(c, "This is a verbatim\nstring", 25, "txt");
    } else {
        addReplyError(c, "Wrong protocol type name. Please use one of the following: "
                         "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
    }
}

/* ----------------------------------------------------------- server state */

static void debugSleep(client *c) {
    /* Not a number sleeps 0, as strtold's answer does in Redis. */
    double secs = strtod(objectPtr(c->argv[2]), NULL);
    if (secs > 0) {
        struct timespec ts = {(time_t)secs, (long)((secs - (long long)secs) * 1e9)};
        nanosleep(&ts, NULL);
    }
    addReply(c, shared.ok);
}

static void debugSetActiveExpire(client *c) {
    server.active_expire_enabled = atoi(objectPtr(c->argv[2])) != 0;
    if (server.active_expire_enabled) expireScheduleAt(0);
    addReply(c, shared.ok);
}

static void debugQuicklistPackedThreshold(client *c) {
    int err;
    unsigned long long sz = memtoull(objectPtr(c->argv[2]), &err);
    if (err || vlistSetPackedThreshold(sz) == -1) {
        addReplyError(c, "argument must be a memory value bigger than 1 and smaller than 4gb");
        return;
    }
    addReply(c, shared.ok);
}

static void debugReload(client *c) {
    int save = 1, flush = 1, merge = 0;
    for (int j = 2; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "merge")) merge = 1;
        else if (!strcasecmp(opt, "noflush")) flush = 0;
        else if (!strcasecmp(opt, "nosave")) save = 0;
        else {
            addReplyError(c, "DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
            return;
        }
    }
    if (persistDebugReload(save, flush, merge) != C_OK) {
        addReplyError(c, "Error trying to load the RDB dump");
        return;
    }
    serverLog(LL_NOTICE, "DB reloaded by DEBUG RELOAD");
    addReply(c, shared.ok);
}

static void debugLoadaof(client *c) {
    if (aofDebugLoad() != C_OK) {
        addReplyError(c, "Error loading the AOF");
        return;
    }
    serverLog(LL_NOTICE, "Append Only File loaded by DEBUG LOADAOF");
    addReply(c, shared.ok);
}

static void debugLog(client *c) {
    serverLog(LL_WARNING, "DEBUG LOG: %s", (char *)objectPtr(c->argv[2]));
    addReply(c, shared.ok);
}

/* DEBUG ERROR <string>: <string> as an error reply, verbatim (clients' test
 * suites fake server errors with it). As Redis's, the reply is written raw:
 * CR and LF become spaces so it stays one line, no "ERR" is prefixed, and it
 * is not counted in INFO errorstats nor as a failed call. */
static void debugError(client *c) {
    sds reply = sdscatsds(sdsnewlen("-", 1), objectPtr(c->argv[2]));
    reply = sdsmapchars(reply, "\r\n", "  ", 2);
    addReplySds(c, sdscatlen(reply, "\r\n", 2));
}

static void debugSetSkipChecksumValidation(client *c) {
    server.skip_checksum_validation = atoi(objectPtr(c->argv[2])) != 0;
    addReply(c, shared.ok);
}

/* DEBUG AOF-FLUSH-SLEEP <microsec>: each AOF write waits that long first
 * (the suite's check that replies never overtake their AOF write). */
static void debugAofFlushSleep(client *c) {
    server.aof_flush_sleep = atoi(objectPtr(c->argv[2]));
    addReply(c, shared.ok);
}

static void debugSetDisableDenyScripts(client *c) {
    server.script_disable_deny_script = atoi(objectPtr(c->argv[2])) != 0;
    addReply(c, shared.ok);
}

static void debugPauseCron(client *c) {
    server.pause_cron = atoi(objectPtr(c->argv[2])) != 0;
    addReply(c, shared.ok);
}

/* The reply buffers here are not resized nor peak-tracked by a cron job,
 * so the switches are accepted and have nothing to act on. */
static void debugConfigRewriteForceAll(client *c) { configRewriteReply(c, 1); }

/* DEBUG REPLYBUFFER PEAK-RESET-TIME <ms>|never|reset, RESIZING 0|1: how the
 * client cron resizes reply buffers (networking.c). */
static void debugReplybuffer(client *c) {
    const char *what = objectPtr(c->argv[2]), *arg = objectPtr(c->argv[3]);
    if (!strcasecmp(what, "peak-reset-time")) {
        if (!strcasecmp(arg, "never")) {
            server.reply_buffer_peak_reset_time = -1;
        } else if (!strcasecmp(arg, "reset")) {
            server.reply_buffer_peak_reset_time = REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME;
        } else {
            long long ms;
            if (getLongLongFromObjectOrReply(c, c->argv[3], &ms, NULL) != C_OK) return;
            server.reply_buffer_peak_reset_time = ms;
        }
    } else if (!strcasecmp(what, "resizing")) {
        server.reply_buffer_resizing_enabled = atoi(arg);
    } else {
        addReplySubcommandSyntaxError(c);
        return;
    }
    addReply(c, shared.ok);
}

/* A command for the replicas only, to test how they take what they cannot run. */
static void debugReplicate(client *c) {
    propagateToReplicas(c->db->id, c->argv + 2, c->argc - 2);
    addReply(c, shared.ok);
}

/* Replication IDs belong to the replication module; nothing to change here. */
static void debugOk(client *c) { addReply(c, shared.ok); }

static void debugMallctl(client *c) {
    int str = !strcasecmp(objectPtr(c->argv[1]), "mallctl-str");
    long long num = 0;
    const char *out = NULL;
    int err = zmalloc_ctl(objectPtr(c->argv[2]), str, c->argc > 3 ? objectPtr(c->argv[3]) : NULL, &num, &out);
    if (err == ENOTSUP) { /* Redis without jemalloc has no such subcommand */
        addReplySubcommandSyntaxError(c);
    } else if (err) {
        addReplyError(c, strerror(err));
    } else if (!str) {
        addReplyLongLong(c, num);
    } else if (out) {
        addReplyBulkCString(c, out);
    } else {
        addReply(c, shared.ok);
    }
}

/* DEBUG SEGFAULT / PANIC / ASSERT: the crash report, on purpose. A write to
 * a read-only page makes the segfault (a constant bad address would be
 * flagged by the compiler). */
static void debugSegfault(client *c) {
    (void)c;
    volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *p = 'x';
}

static void debugPanic(client *c) {
    (void)c;
    char msg[64];
    snprintf(msg, sizeof(msg), "DEBUG PANIC called at Unix time %lld", (long long)time(NULL));
    serverPanic("%s", msg);
}

static void debugAssert(client *c) { serverAssertWithClient(c, 1 == 2); }

/* DEBUG CLUSTERLINK KILL <to|from|all> <node-id>: the links with that node
 * are freed (the cron makes an outbound one again), for tests of the bus. */
static void debugClusterlink(client *c) {
    if (strcasecmp(objectPtr(c->argv[2]), "kill") || !server.cluster_enabled) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    const char *dir = objectPtr(c->argv[3]);
    int to = !strcasecmp(dir, "to") || !strcasecmp(dir, "all");
    int from = !strcasecmp(dir, "from") || !strcasecmp(dir, "all");
    clusterNode *n = clusterLookupNode(objectPtr(c->argv[4]), sdslen(objectPtr(c->argv[4])));
    if (!n) {
        addReplyErrorFormat(c, "Unknown node %s", (char *)objectPtr(c->argv[4]));
        return;
    }
    if (!to && !from) {
        addReplyErrorFormat(c, "Unknown direction %s", dir);
        return;
    }
    if (to && n->link) freeClusterLink(n->link);
    if (from && n->inbound_link) freeClusterLink(n->inbound_link);
    addReply(c, shared.ok);
}

/* DEBUG DROP-CLUSTER-PACKET-FILTER <type>: bus messages of that type are
 * dropped on arrival (-1: none), for tests of failure handling. */
static void debugDropClusterPacketFilter(client *c) {
    long long type;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &type, NULL) != C_OK) return;
    server.cluster_drop_packet_filter = (int)type;
    addReply(c, shared.ok);
}

static void debugHelp(client *c);

typedef struct debugSub {
    const char *name;
    int minargc, maxargc; /* counting DEBUG and the subcommand; -1: no limit */
    void (*proc)(client *c);
} debugSub;

static const debugSub debugSubs[] = {
    {"digest", 2, 2, debugDigest},
    {"digest-value", 2, -1, debugDigestValue},
    {"object", 3, 3, debugObject},
    {"sdslen", 3, 3, debugSdslen},
    {"listpack", 3, 3, debugListpack},
    {"quicklist", 3, 4, debugQuicklist},
    {"htstats", 3, 3, debugHtstats},
    {"htstats-key", 3, 3, debugHtstatsKey},
    {"populate", 3, 5, debugPopulate},
    {"protocol", 3, 3, debugProtocol},
    {"sleep", 3, 3, debugSleep},
    {"set-active-expire", 3, 3, debugSetActiveExpire},
    {"quicklist-packed-threshold", 3, 3, debugQuicklistPackedThreshold},
    {"reload", 2, -1, debugReload},
    {"loadaof", 2, 2, debugLoadaof},
    {"log", 3, 3, debugLog},
    {"error", 3, 3, debugError},
    {"set-skip-checksum-validation", 3, 3, debugSetSkipChecksumValidation},
    {"set-disable-deny-scripts", 3, 3, debugSetDisableDenyScripts},
    {"aof-flush-sleep", 3, 3, debugAofFlushSleep},
    {"pause-cron", 3, 3, debugPauseCron},
    {"replybuffer", 4, 4, debugReplybuffer},
    {"clusterlink", 5, 5, debugClusterlink},
    {"drop-cluster-packet-filter", 3, 3, debugDropClusterPacketFilter},
    {"config-rewrite-force-all", 2, 2, debugConfigRewriteForceAll},
    {"change-repl-id", 2, 2, debugOk},
    {"replicate", 3, -1, debugReplicate},
    {"mallctl", 3, 4, debugMallctl},
    {"mallctl-str", 3, 4, debugMallctl},
    {"segfault", 2, 2, debugSegfault},
    {"panic", 2, 2, debugPanic},
    {"assert", 2, 2, debugAssert},
    {"help", 2, 2, debugHelp},
};

static void debugHelp(client *c) {
    const char *help[] = {
        "AOF-FLUSH-SLEEP <microsec>",
        "    Server will sleep before flushing the AOF, this is used for testing.",
        "ASSERT",
        "    Crash by assertion failed.",
        "DIGEST",
        "    Output a hex signature representing the current DB content.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    Output a hex signature of the values of all the specified keys.",
        "ERROR <string>",
        "    Return a Redis protocol error with <string> as message. Useful for clients",
        "    unit tests to simulate Redis errors.",
        "LOG <message>",
        "    Write <message> to the server log.",
        "HTSTATS <dbid>",
        "    Return hash table statistics of the specified Redis database.",
        "HTSTATS-KEY <key>",
        "    Like HTSTATS but for the hash table stored at <key>'s value.",
        "LOADAOF",
        "    Flush the AOF buffers on disk and reload the AOF in memory.",
        "MALLCTL <key> [<val>]",
        "    Get or set a malloc tuning integer.",
        "MALLCTL-STR <key> [<val>]",
        "    Get or set a malloc tuning string.",
        "OBJECT <key>",
        "    Show low level info about `key` and associated value.",
        "DROP-CLUSTER-PACKET-FILTER <packet-type>",
        "    Drop all packets that match the filtered type. Set to -1 allow all packets.",
        "PANIC",
        "    Crash the server simulating a panic.",
        "POPULATE <count> [<prefix>] [<size>]",
        "    Create <count> string keys named key:<num>. If <prefix> is specified then",
        "    it is used instead of the 'key' prefix. These are not propagated to",
        "    replicas. Cluster slots are not respected so keys not belonging to the",
        "    current node can be created in cluster mode.",
        "PROTOCOL <type>",
        "    Reply with a test value of the specified type. <type> can be: string,",
        "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
        "    true, false.",
        "RELOAD [option ...]",
        "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
        "    * MERGE: conflicting keys will be loaded from RDB.",
        "    * NOFLUSH: the existing database will not be removed before load, but",
        "      conflicting keys will generate an exception and kill the server.",
        "    * NOSAVE: the database will be loaded from an existing RDB file.",
        "SDSLEN <key>",
        "    Show low level SDS string info representing `key` and value.",
        "SEGFAULT",
        "    Crash the server with sigsegv.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not",
        "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
        "    default.",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    Sets the threshold for elements to be inserted as plain vs packed nodes",
        "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
        "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
        "    Enables or disables checksum checks for RDB files and RESTORE's payload.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "LISTPACK <key>",
        "    Show low level info about the listpack encoding of <key>.",
        "QUICKLIST <key> [<0|1>]",
        "    Show low level info about the quicklist encoding of <key>.",
        "    The optional argument (0 by default) sets the level of detail",
        "PAUSE-CRON <0|1>",
        "    Stop periodic cron job processing.",
        "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
        "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
        "    In case NEVER is provided the last observed peak will never be reset",
        "    In case RESET is provided the peak reset time will be restored to the default value",
        "REPLYBUFFER RESIZING <0|1>",
        "    Enable or disable the reply buffer resize cron job",
        "CLUSTERLINK KILL <to|from|all> <node-id>",
        "    Kills the link based on the direction to/from (both) with the provided node.",
        NULL};
    addReplyHelp(c, help);
}

void debugCommand(client *c) {
    if (!commandEnabledFor(c, server.enable_debug_command)) {
        addReplyError(c, "DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.");
        return;
    }
    for (size_t j = 0; j < sizeof(debugSubs) / sizeof(debugSubs[0]); j++) {
        const debugSub *s = &debugSubs[j];
        if (strcasecmp(objectPtr(c->argv[1]), s->name)) continue;
        if (c->argc < s->minargc || (s->maxargc != -1 && c->argc > s->maxargc)) break;
        s->proc(c);
        /* Not a tail call to the subcommand (any compiler): debugCommand stays
         * in the stack traces of crash reports and the watchdog, as in Redis's. */
        __asm__ volatile("" ::: "memory");
        return;
    }
    addReplySubcommandSyntaxError(c);
}
