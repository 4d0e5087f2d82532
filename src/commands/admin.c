/* admin: connection and server commands — PING ECHO QUIT TIME HELLO
 * RESET CLIENT MEMORY MODULE SHUTDOWN (AUTH is acl/'s, WAIT and ROLE repl/'s). */
#include "server/access.h"
#include "server/lifecycle.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/db.h"
#include "server/evict.h"
#include "server/config.h"
#include "server/expire.h"
#include "server/pause.h"
#include "server/reply.h"
#include "server/cmdargs.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "data/value.h"
#include "features/info.h"
#include "features/multi.h"
#include "server/transaction.h"
#include "features/pubsub.h"
#include "features/tracking.h"

#include <ctype.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

void pingCommand(client *c) {
    if (c->argc > 2) {
        addReplyErrorArity(c);
        return;
    }
    if (c->flags & CLIENT_PUBSUB && c->resp == 2) {
        addReply(c, shared.mbulkhdr[2]);
        addReplyBulkCBuffer(c, "pong", 4);
        if (c->argc == 1) addReplyBulkCBuffer(c, "", 0);
        else addReplyBulk(c, c->argv[1]);
    } else if (c->argc == 1) {
        addReply(c, shared.pong);
    } else {
        addReplyBulk(c, c->argv[1]);
    }
}

void echoCommand(client *c) { addReplyBulk(c, c->argv[1]); }

void quitCommand(client *c) {
    addReply(c, shared.ok);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

void timeCommand(client *c) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    addReplyArrayLen(c, 2);
    addReplyBulkLongLong(c, tv.tv_sec);
    addReplyBulkLongLong(c, tv.tv_usec);
}

/* ------------------------------------------------------------ AUTH / HELLO */

static int validClientName(robj *name) {
    const char *p = objectPtr(name);
    size_t len = sdslen(objectPtr(name));
    for (size_t j = 0; j < len; j++)
        if (p[j] < '!' || p[j] > '~') return 0;
    return 1;
}

static void setClientName(client *c, robj *name) {
    if (c->name) decrRefCount(c->name);
    c->name = NULL;
    if (sdslen(objectPtr(name)) == 0) return;
    c->name = name;
    incrRefCount(name);
}

void helloCommand(client *c) {
    long long ver = 0;
    int next = 1;
    if (c->argc >= 2) {
        if (getLongLongFromObject(c->argv[1], &ver) != 0) {
            addReplyError(c, "Protocol version is not an integer or out of range");
            return;
        }
        next = 2;
        if (ver < 2 || ver > 3) {
            addReplyError(c, "-NOPROTO unsupported protocol version");
            return;
        }
    }
    robj *user = NULL, *pass = NULL, *name = NULL;
    for (int j = next; j < c->argc; j++) {
        int more = c->argc - j - 1;
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "auth") && more >= 2) {
            redactClientCommandArgument(c, j + 1);
            redactClientCommandArgument(c, j + 2);
            user = c->argv[j + 1];
            pass = c->argv[j + 2];
            j += 2;
        } else if (!strcasecmp(opt, "setname") && more >= 1) {
            name = c->argv[j + 1];
            j++;
        } else {
            addReplyErrorFormat(c, "Syntax error in HELLO option '%s'", opt);
            return;
        }
    }
    if (user) {
        if (accessAuthenticate(c, user, pass) != C_OK) {
            addReplyError(c, "-WRONGPASS invalid username-password pair or user is disabled.");
            return;
        }
    }
    if (!c->authenticated) {
        addReplyError(c, "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time");
        return;
    }
    if (name && !validClientName(name)) {
        addReplyError(c, "Client names cannot contain spaces, newlines or special characters.");
        return;
    }
    if (name) setClientName(c, name);
    /* The reply is already in the new protocol. */
    if (ver) c->resp = (int)ver;
    addReplyMapLen(c, 7);
    addReplyBulkCString(c, "server");
    addReplyBulkCString(c, "redis");
    addReplyBulkCString(c, "version");
    addReplyBulkCString(c, "7.0.15");
    addReplyBulkCString(c, "proto");
    addReplyLongLong(c, c->resp);
    addReplyBulkCString(c, "id");
    addReplyLongLong(c, (long long)c->id);
    addReplyBulkCString(c, "mode");
    addReplyBulkCString(c, "standalone");
    addReplyBulkCString(c, "role");
    addReplyBulkCString(c, "master");
    addReplyBulkCString(c, "modules");
    addReplyArrayLen(c, 0);
}

void resetCommand(client *c) {
    if (c->flags & CLIENT_MULTI) discardTransaction(c);
    unwatchAllKeys(c);
    if (c->flags & CLIENT_MONITOR) {
        listNode *ln = listSearchKey(server.monitors, c);
        if (ln) listDelNode(server.monitors, ln);
        c->flags &= ~CLIENT_MONITOR;
    }
    pubsubUnsubscribeAllChannels(c, 0);
    pubsubUnsubscribeAllShardChannels(c, 0);
    pubsubUnsubscribeAllPatterns(c, 0);
    trackingDisable(c);
    c->flags &= ~(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_REPLY_SKIP_NEXT | CLIENT_NO_EVICT);
    selectDb(c, 0);
    c->resp = 2;
    if (c->name) {
        decrRefCount(c->name);
        c->name = NULL;
    }
    accessSetDefaultUser(c);
    addReplyStatus(c, "RESET");
}

/* ------------------------------------------------------------------ CLIENT */

void clientIdCommand(client *c) { addReplyLongLong(c, (long long)c->id); }

void clientInfoCommand(client *c) {
    sds s = catClientInfoString(sdsempty(), c);
    s = sdscatlen(s, "\n", 1);
    addReplyVerbatim(c, s, sdslen(s), "txt");
    sdsfree(s);
}

void clientListCommand(client *c) {
    int type = -1;
    sds out = NULL;
    if (c->argc == 4 && !strcasecmp(objectPtr(c->argv[2]), "type")) {
        type = getClientTypeByName(objectPtr(c->argv[3]));
        if (type == -1) {
            addReplyErrorFormat(c, "Unknown client type '%s'", (char *)objectPtr(c->argv[3]));
            return;
        }
    } else if (c->argc > 3 && !strcasecmp(objectPtr(c->argv[2]), "id")) {
        out = sdsempty();
        for (int j = 3; j < c->argc; j++) {
            long long id;
            if (getLongLongFromObject(c->argv[j], &id) != 0 || id < 1) {
                sdsfree(out);
                addReplyError(c, "Invalid client ID");
                return;
            }
            client *cl = lookupClientByID((uint64_t)id);
            if (cl) out = sdscatlen(catClientInfoString(out, cl), "\n", 1);
        }
    } else if (c->argc != 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (!out) out = getAllClientsInfoString(type);
    addReplyVerbatim(c, out, sdslen(out), "txt");
    sdsfree(out);
}

void clientSetnameCommand(client *c) {
    if (!validClientName(c->argv[2])) {
        addReplyError(c, "Client names cannot contain spaces, newlines or special characters.");
        return;
    }
    setClientName(c, c->argv[2]);
    addReply(c, shared.ok);
}

void clientGetnameCommand(client *c) {
    if (c->name) addReplyBulk(c, c->name);
    else addReplyNull(c);
}

void clientReplyCommand(client *c) {
    const char *mode = objectPtr(c->argv[2]);
    if (!strcasecmp(mode, "on")) {
        c->flags &= ~(CLIENT_REPLY_SKIP | CLIENT_REPLY_OFF);
        addReply(c, shared.ok);
    } else if (!strcasecmp(mode, "off")) {
        c->flags |= CLIENT_REPLY_OFF;
    } else if (!strcasecmp(mode, "skip")) {
        if (!(c->flags & CLIENT_REPLY_OFF)) c->flags |= CLIENT_REPLY_SKIP_NEXT;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
    }
}

void clientNoEvictCommand(client *c) {
    const char *mode = objectPtr(c->argv[2]);
    if (!strcasecmp(mode, "on")) c->flags |= CLIENT_NO_EVICT;
    else if (!strcasecmp(mode, "off")) c->flags &= ~CLIENT_NO_EVICT;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    addReply(c, shared.ok);
}

void clientUnblockCommand(client *c) {
    long long id;
    int with_error = 0;
    if (c->argc == 4) {
        if (!strcasecmp(objectPtr(c->argv[3]), "timeout")) with_error = 0;
        else if (!strcasecmp(objectPtr(c->argv[3]), "error")) with_error = 1;
        else {
            addReplyError(c, "CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    }
    if (getLongLongFromObject(c->argv[2], &id) != 0) {
        addReplyError(c, "value is not an integer or out of range");
        return;
    }
    client *target = id > 0 ? lookupClientByID((uint64_t)id) : NULL;
    addReply(c, target && unblockClientByRequest(target, with_error) ? shared.cone : shared.czero);
}

/* CLIENT PAUSE <ms> [WRITE|ALL]. A deadline past the clock's range wraps
 * into the past in Redis 7.0, so such a pause ends at once; here too. */
void clientPauseCommand(client *c) {
    if (c->argc > 4) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    int type = PAUSE_ALL;
    if (c->argc == 4) {
        if (!strcasecmp(objectPtr(c->argv[3]), "write")) type = PAUSE_WRITE;
        else if (strcasecmp(objectPtr(c->argv[3]), "all")) {
            addReplyError(c, "CLIENT PAUSE mode must be WRITE or ALL");
            return;
        }
    }
    long long deadline, ms;
    if (getTimeoutFromObjectOrReply(c, c->argv[2], &deadline, UNIT_MILLISECONDS) != C_OK) return;
    getLongLongFromObject(c->argv[2], &ms); /* valid: checked just above */
    long long now = commandTimeMs();
    pauseClients(type, ms > LLONG_MAX - now ? LLONG_MIN : now + ms);
    addReply(c, shared.ok);
}

void clientUnpauseCommand(client *c) {
    unpauseClients();
    addReply(c, shared.ok);
}

static int clientMatchesAddr(client *cl, const char *addr, int local) {
    return !strcmp(local ? cl->laddr : cl->addr, addr);
}

void clientKillCommand(client *c) {
    const char *addr = NULL, *laddr = NULL;
    void *user = NULL;
    long long id = 0;
    int type = -1, skipme = 1, old = c->argc == 3;
    if (old) {
        addr = objectPtr(c->argv[2]);
    } else if ((c->argc - 2) % 2 == 0) {
        for (int j = 2; j < c->argc; j += 2) {
            const char *opt = objectPtr(c->argv[j]), *val = objectPtr(c->argv[j + 1]);
            if (!strcasecmp(opt, "id")) {
                if (getLongLongFromObject(c->argv[j + 1], &id) != 0 || id <= 0) {
                    addReplyError(c, "client-id should be greater than 0");
                    return;
                }
            } else if (!strcasecmp(opt, "type")) {
                type = getClientTypeByName(val);
                if (type == -1) {
                    addReplyErrorFormat(c, "Unknown client type '%s'", val);
                    return;
                }
            } else if (!strcasecmp(opt, "addr")) {
                addr = val;
            } else if (!strcasecmp(opt, "laddr")) {
                laddr = val;
            } else if (!strcasecmp(opt, "user")) {
                user = accessLookupUser(val, sdslen(objectPtr(c->argv[j + 1])));
                if (!user) {
                    addReplyErrorFormat(c, "No such user '%s'", val);
                    return;
                }
            } else if (!strcasecmp(opt, "skipme")) {
                if (!strcasecmp(val, "yes")) skipme = 1;
                else if (!strcasecmp(val, "no")) skipme = 0;
                else {
                    addReplyErrorObject(c, shared.syntaxerr);
                    return;
                }
            } else {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
        }
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    long killed = 0;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *cl = listNodeValue(ln);
        if (addr && !clientMatchesAddr(cl, addr, 0)) continue;
        if (laddr && !clientMatchesAddr(cl, laddr, 1)) continue;
        if (type != -1 && getClientType(cl) != type) continue;
        if (id && cl->id != (uint64_t)id) continue;
        if (user && (void *)cl->user != user) continue;
        if (c == cl && skipme && !old) continue;
        if (c == cl) {
            c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        } else {
            freeClientAsync(cl);
            /* Its peer sees the connection closed before CLIENT KILL (or
             * the EXEC holding it) answers, as Redis frees it at once: a
             * killed replica has lost its link when its INFO is asked next.
             * (Not our master while we load from it: that link is read.) */
            if (cl->fd != -1 && !(cl->flags & (CLIENT_PROTECTED | CLIENT_MASTER))) shutdown(cl->fd, SHUT_RDWR);
        }
        killed++;
    }
    if (old) {
        if (killed == 0) addReplyError(c, "No such client");
        else addReply(c, shared.ok);
    } else {
        addReplyLongLong(c, killed);
    }
}

void clientHelpCommand(client *c) {
    const char *help[] = {
        "CACHING (YES|NO)",
        "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
        "GETREDIR",
        "    Return the client ID we are redirecting to when tracking is enabled.",
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "    * ID <client-id>",
        "      Kill connections by client id.",
        "LIST [options ...]",
        "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Return clients of specified type.",
        "UNPAUSE",
        "    Stop the current client pause, resuming traffic.",
        "PAUSE <timeout> [WRITE|ALL]",
        "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Control server assisted client side caching.",
        "TRACKINGINFO",
        "    Report tracking status for the current connection.",
        "NO-EVICT (ON|OFF)",
        "    Protect current client connection from eviction.",
        NULL};
    addReplyHelp(c, help);
}

/* ------------------------------------------------------------------ MEMORY */

void memoryUsageCommand(client *c) {
    long long samples = 5;
    for (int j = 3; j < c->argc; j++) {
        if (!strcasecmp(objectPtr(c->argv[j]), "samples") && j + 1 < c->argc) {
            if (getLongLongFromObject(c->argv[j + 1], &samples) != 0 || samples < 0) {
                addReplyError(c, "value is not an integer or out of range");
                return;
            }
            if (samples == 0) samples = LLONG_MAX;
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    dictEntry *de = dbFindEntry(c->db, objectPtr(c->argv[2]));
    if (!de || !lookupKeyReadWithFlags(c->db, c->argv[2], LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOENTRIES)) {
        addReplyNull(c);
        return;
    }
    /* The keyspace object holds the key too: nothing else is spent per key
     * but its share of the table's buckets, counted as one bucket pointer
     * (Redis counts its dictEntry there). */
    addReplyLongLong(c, (long long)(valueMemoryUsage(dbEntryValue(de), samples) + sizeof(void *)));
}

/* MEMORY STATS: the INFO memory account as a map, in Redis's field order. */
void memoryStatsCommand(client *c) {
    memoryOverhead mh;
    memoryOverheadCollect(&mh);
    size_t net = mh.used > mh.startup ? mh.used - mh.startup : 0;
    const struct {
        const char *name;
        size_t value;
    } sizes[] = {{"peak.allocated", mh.peak},         {"total.allocated", mh.used},
                 {"startup.allocated", mh.startup},   {"replication.backlog", mh.repl_backlog},
                 {"clients.slaves", mh.clients_slaves},               {"clients.normal", mh.clients_normal},
                 {"cluster.links", 0},                {"aof.buffer", mh.aof_buffer},
                 {"lua.caches", mh.lua_caches},       {"functions.caches", mh.functions_caches}};
    /* Ratios are single-precision floats in Redis, and print as such. */
    const struct {
        const char *name;
        int is_ratio;
        double value;
    } figures[] = {
        {"overhead.total", 0, (double)mh.overhead_total},
        {"keys.count", 0, (double)mh.keys},
        {"keys.bytes-per-key", 0, mh.keys ? (double)(net / mh.keys) : 0},
        {"dataset.bytes", 0, (double)mh.dataset},
        {"dataset.percentage", 1, net ? (float)(mh.dataset * 100.0 / net) : 0},
        {"peak.percentage", 1, mh.peak ? (float)(mh.used * 100.0 / mh.peak) : 0},
        {"allocator.allocated", 0, (double)mh.allocated},
        {"allocator.active", 0, (double)mh.active},
        {"allocator.resident", 0, (double)mh.resident},
        {"allocator-fragmentation.ratio", 1, mh.allocated ? (float)((double)mh.active / mh.allocated) : 0},
        {"allocator-fragmentation.bytes", 0, (double)mh.active - (double)mh.allocated},
        {"allocator-rss.ratio", 1, mh.active ? (float)((double)mh.resident / mh.active) : 0},
        {"allocator-rss.bytes", 0, (double)mh.resident - (double)mh.active},
        {"rss-overhead.ratio", 1, mh.resident ? (float)((double)mh.rss / mh.resident) : 0},
        {"rss-overhead.bytes", 0, (double)mh.rss - (double)mh.resident},
        {"fragmentation", 1, mh.used ? (float)((double)mh.rss / mh.used) : 0},
        {"fragmentation.bytes", 0, (double)mh.rss - (double)mh.used},
    };
    size_t nsizes = sizeof(sizes) / sizeof(sizes[0]), nfigures = sizeof(figures) / sizeof(figures[0]);
    addReplyMapLen(c, (long)(nsizes + mh.ndbs + nfigures));
    for (size_t j = 0; j < nsizes; j++) {
        addReplyBulkCString(c, sizes[j].name);
        addReplyLongLong(c, (long long)sizes[j].value);
    }
    for (int j = 0; j < mh.ndbs; j++) {
        char name[32];
        snprintf(name, sizeof(name), "db.%d", mh.db[j].id);
        addReplyBulkCString(c, name);
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "overhead.hashtable.main");
        addReplyLongLong(c, (long long)mh.db[j].main);
        addReplyBulkCString(c, "overhead.hashtable.expires");
        addReplyLongLong(c, (long long)mh.db[j].expires);
        addReplyBulkCString(c, "overhead.hashtable.slot-to-keys");
        addReplyLongLong(c, 0);
    }
    for (size_t j = 0; j < nfigures; j++) {
        addReplyBulkCString(c, figures[j].name);
        if (figures[j].is_ratio) addReplyDouble(c, figures[j].value);
        else addReplyLongLong(c, (long long)figures[j].value);
    }
    memoryOverheadRelease(&mh);
}

/* MEMORY DOCTOR: Redis's report, from the same account and thresholds. */
#define DOCTOR_MIN_USED (5 * 1024 * 1024)
#define DOCTOR_MIN_FRAG_BYTES (10 * 1024 * 1024)
#define DOCTOR_CLIENT_BUFFERS (200 * 1024)
#define DOCTOR_MANY_SCRIPTS 1000

void memoryDoctorCommand(client *c) {
    memoryOverhead mh;
    memoryOverheadCollect(&mh);
    sds s;
    if (mh.used < DOCTOR_MIN_USED) {
        s = sdsnew("Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used "
                   "in these conditions. Please, leave for your mission on Earth and fill it with some data. The new "
                   "Sam and I will be back to our programming as soon as I finished rebooting.\n");
    } else {
        double total_frag = mh.used ? (double)mh.rss / mh.used : 0;
        double alloc_frag = mh.allocated ? (double)mh.active / mh.allocated : 0;
        double alloc_rss = mh.active ? (double)mh.resident / mh.active : 0;
        double proc_rss = mh.resident ? (double)mh.rss / mh.resident : 0;
        int high_peak = mh.peak > mh.used * 3 / 2;
        int high_total_rss = total_frag > 1.4 && mh.rss > mh.used + DOCTOR_MIN_FRAG_BYTES;
        int high_alloc_frag = alloc_frag > 1.1 && mh.active > mh.allocated + DOCTOR_MIN_FRAG_BYTES;
        int high_alloc_rss = alloc_rss > 1.1 && mh.resident > mh.active + DOCTOR_MIN_FRAG_BYTES;
        int high_proc_rss = proc_rss > 1.1 && mh.rss > mh.resident + DOCTOR_MIN_FRAG_BYTES;
        int big_clients = mh.clients && mh.clients_normal / mh.clients > DOCTOR_CLIENT_BUFFERS;
        int many_scripts = mh.scripts > DOCTOR_MANY_SCRIPTS;
        if (!(high_peak || high_total_rss || high_alloc_frag || high_alloc_rss || high_proc_rss || big_clients ||
              many_scripts)) {
            s = sdsnew("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs "
                       "on this base.\n");
        } else {
            s = sdsnew("Sam, I detected a few issues in this Redis instance memory implants:\n\n");
            if (high_peak)
                s = sdscat(s, " * Peak memory: In the past this instance used more than 150% the memory that is "
                              "currently using. The allocator is normally not able to release memory after a peak, "
                              "so you can expect to see a big fragmentation ratio, however this is actually harmless "
                              "and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) "
                              "is currently bigger than expected, the memory will be used as soon as you fill the "
                              "Redis instance with more data. If the memory peak was only occasional and you want to "
                              "try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other "
                              "option is to shutdown and restart the instance.\n\n");
            if (high_total_rss)
                s = sdscatprintf(
                    s, " * High total RSS: This instance has a memory fragmentation and RSS overhead greater than "
                       "1.4 (this means that the Resident Set Size of the Redis process is much larger than the sum "
                       "of the logical allocations Redis performed). This problem is usually due either to a large "
                       "peak memory (check if there is a peak memory entry above in the report) or may result from "
                       "a workload that causes the allocator to fragment memory a lot. If the problem is a large "
                       "peak memory, then there is no issue. Otherwise, make sure you are using the Jemalloc "
                       "allocator and not the default libc malloc. Note: The currently used allocator is \"%s\".\n\n",
                    zmalloc_lib_name());
            if (high_alloc_frag)
                s = sdscat(s, " * High allocator fragmentation: This instance has an allocator external "
                              "fragmentation greater than 1.1. This problem is usually due either to a large peak "
                              "memory (check if there is a peak memory entry above in the report) or may result from "
                              "a workload that causes the allocator to fragment memory a lot. You can try enabling "
                              "'activedefrag' config option.\n\n");
            if (high_alloc_rss)
                s = sdscat(s, " * High allocator RSS overhead: This instance has an RSS memory overhead is greater "
                              "than 1.1 (this means that the Resident Set Size of the allocator is much larger than "
                              "the sum what the allocator actually holds). This problem is usually due to a large "
                              "peak memory (check if there is a peak memory entry above in the report), you can try "
                              "the MEMORY PURGE command to reclaim it.\n\n");
            if (high_proc_rss)
                s = sdscat(s, " * High process RSS overhead: This instance has non-allocator RSS memory overhead is "
                              "greater than 1.1 (this means that the Resident Set Size of the Redis process is much "
                              "larger than the RSS the allocator holds). This problem may be due to Lua scripts or "
                              "Modules.\n\n");
            if (big_clients)
                s = sdscat(s, " * Big client buffers: The clients output buffers in this instance are greater than "
                              "200K per client (on average). This may result from different causes, like Pub/Sub "
                              "clients subscribed to channels bot not receiving data fast enough, so that data piles "
                              "on the Redis instance output buffer, or clients sending commands with large replies or "
                              "very large sequences of commands in the same pipeline. Please use the CLIENT LIST "
                              "command in order to investigate the issue if it causes problems in your instance, or "
                              "to understand better why certain clients are using a big amount of memory.\n\n");
            if (many_scripts)
                s = sdscat(s, " * Many scripts: There seem to be many cached scripts in this instance (more than "
                              "1000). This may be because scripts are generated and `EVAL`ed, instead of being "
                              "parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT "
                              "FLUSH` is called periodically, the scripts' caches may end up consuming most of your "
                              "memory.\n\n");
            s = sdscat(s, "I'm here to keep you safe, Sam. I want to help you.\n");
        }
    }
    memoryOverheadRelease(&mh);
    addReplyVerbatim(c, s, sdslen(s), "txt");
    sdsfree(s);
}

static void catStatsText(void *ctx, const char *text) { *(sds *)ctx = sdscat(*(sds *)ctx, text); }

/* MEMORY MALLOC-STATS: jemalloc's own report. */
void memoryMallocStatsCommand(client *c) {
    sds report = sdsempty();
    if (!zmalloc_stats_report(catStatsText, &report)) report = sdscat(report, "Stats not supported for the current allocator");
    addReplyVerbatim(c, report, sdslen(report), "txt");
    sdsfree(report);
}

void memoryPurgeCommand(client *c) {
    if (zmalloc_purge()) addReply(c, shared.ok);
    else addReplyError(c, "Error purging dirty pages");
}

void memoryHelpCommand(client *c) {
    const char *help[] = {
        "DOCTOR",
        "    Return memory problems reports.",
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS",
        "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
        NULL};
    addReplyHelp(c, help);
}

/* ---------------------------------------------------------------- SHUTDOWN */

/* SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. The client waits, blocked,
 * while the shutdown waits for lagging replicas; if the shutdown fails it
 * hears why (server.c answers every client blocked in SHUTDOWN). */
void shutdownCommand(client *c) {
    int flags = SHUTDOWN_NOFLAGS, abort = 0;
    for (int j = 1; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "nosave")) flags |= SHUTDOWN_NOSAVE;
        else if (!strcasecmp(opt, "save")) flags |= SHUTDOWN_SAVE;
        else if (!strcasecmp(opt, "now")) flags |= SHUTDOWN_NOW;
        else if (!strcasecmp(opt, "force")) flags |= SHUTDOWN_FORCE;
        else if (!strcasecmp(opt, "abort")) abort = 1;
        else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if ((abort && flags != SHUTDOWN_NOFLAGS) || ((flags & SHUTDOWN_NOSAVE) && (flags & SHUTDOWN_SAVE))) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (abort) {
        if (abortShutdown() == C_OK) addReply(c, shared.ok);
        else addReplyError(c, "No shutdown in progress.");
        return;
    }
    if (!(flags & SHUTDOWN_NOW) && (c->flags & CLIENT_DENY_BLOCKING)) {
        addReplyError(c, "SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client");
        return;
    }
    blockClientOnShutdown(c);
    if (prepareForShutdown(flags) == C_OK) exit(0);
}

/* ------------------------------------------------------------------ MODULE */

/* This server loads no modules: the list is empty, and loading fails the
 * way a module that does not load fails in Redis (after the same
 * enable-module-command check). */
void moduleListCommand(client *c) { addReplyArrayLen(c, 0); }

static int moduleCommandAllowed(client *c) {
    if (commandEnabledFor(c, server.enable_module_command)) return 1;
    addReplyError(c, "MODULE command not allowed. If the enable-module-command option is set to \"local\", you can "
                     "run it from a local connection, otherwise you need to set this option in the configuration "
                     "file, and then restart the server.");
    return 0;
}

void moduleLoadCommand(client *c) {
    if (!moduleCommandAllowed(c)) return;
    serverLog(LL_WARNING, "Module %s failed to load: this server does not support modules", (char *)objectPtr(c->argv[2]));
    addReplyError(c, "Error loading the extension. Please check the server logs.");
}

void moduleLoadexCommand(client *c) { moduleLoadCommand(c); }

void moduleUnloadCommand(client *c) {
    if (!moduleCommandAllowed(c)) return;
    addReplyError(c, "Error unloading module: no such module with that name");
}

void moduleHelpCommand(client *c) {
    const char *help[] = {
        "LIST",
        "    Return a list of loaded modules.",
        "LOAD <path> [<arg> ...]",
        "    Load a module library from <path>, passing to it any optional arguments.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        "    Load a module library from <path>, while passing it module configurations and optional arguments.",
        "UNLOAD <name>",
        "    Unload a module.",
        NULL};
    addReplyHelp(c, help);
}
