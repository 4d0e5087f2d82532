/* dump: DUMP and RESTORE, moving single values between servers in Redis's
 * payload format (the RDB object encoding + RDB version + CRC64). */
#include "persist/rdb.h"
#include "core/zmalloc.h"
#include "server/client.h"
#include "server/lru.h"
#include "server/db.h"
#include "server/evict.h"
#include "server/keyhook.h"
#include "server/reply.h"

#include <limits.h>
#include <strings.h>

void dumpCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOENTRIES); /* its payload is copied as it is */
    if (!o) {
        addReplyNull(c);
        return;
    }
    addReplyBulkSds(c, rdbDumpPayload(o));
}

void restoreCommand(client *c) {
    int replace = 0, absttl = 0;
    long long ttl, lru_idle = -1, lfu_freq = -1;
    for (int j = 4; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        int more = c->argc - j - 1;
        if (!strcasecmp(opt, "replace")) {
            replace = 1;
        } else if (!strcasecmp(opt, "absttl")) {
            absttl = 1;
        } else if (!strcasecmp(opt, "idletime") && more >= 1 && lfu_freq == -1) {
            if (getLongLongFromObject(c->argv[j + 1], &lru_idle) != 0) {
                addReplyError(c, "value is not an integer or out of range");
                return;
            }
            if (lru_idle < 0) {
                addReplyError(c, "Invalid IDLETIME value, must be >= 0");
                return;
            }
            j++;
        } else if (!strcasecmp(opt, "freq") && more >= 1 && lru_idle == -1) {
            if (getLongLongFromObject(c->argv[j + 1], &lfu_freq) != 0) {
                addReplyError(c, "value is not an integer or out of range");
                return;
            }
            if (lfu_freq < 0 || lfu_freq > 255) {
                addReplyError(c, "Invalid FREQ value, must be >= 0 and <= 255");
                return;
            }
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (getLongLongFromObject(c->argv[2], &ttl) != 0) {
        addReplyError(c, "value is not an integer or out of range");
        return;
    }
    if (ttl < 0) {
        addReplyError(c, "Invalid TTL value, must be >= 0");
        return;
    }
    robj *key = c->argv[1];
    if (!replace && lookupKeyWriteWithFlags(c->db, key, LOOKUP_NOENTRIES)) {
        addReplyErrorObject(c, shared.busykeyerr);
        return;
    }
    sds payload = objectPtr(c->argv[3]);
    if (!rdbVerifyDumpPayload(payload, sdslen(payload))) {
        addReplyError(c, "DUMP payload version or checksum are wrong");
        return;
    }
    robj *val = rdbRestorePayload(payload, sdslen(payload));
    if (!val) {
        addReplyError(c, "Bad data format");
        return;
    }
    if (ttl && !absttl) {
        if (ttl > LLONG_MAX - commandTimeMs()) ttl = LLONG_MAX;
        else ttl += commandTimeMs();
    }
    int deleted = replace && dbDelete(c->db, key);
    if (ttl && checkAlreadyExpired(ttl)) {
        /* Already expired: the key is gone, as if restored and expired at
         * once. A deletion of the old value (nothing is pushed), replayed as one. */
        decrRefCount(val);
        if (deleted) {
            keyChanged(c->db, key, NOTIFY_GENERIC, "del", 1);
            rewriteClientCommandVector(c, 2, shared.del, key);
        }
        addReply(c, shared.ok);
        return;
    }
    val = dbAddPacked(c->db, key, val);
    if (ttl) setExpire(c->db, key, ttl);
    objectSetAccess(val, lfu_freq, lru_idle);
    keyChanged(c->db, key, NOTIFY_GENERIC, "restore", 1);
    if (ttl && !absttl) {
        /* Replayed with the absolute deadline (… <unix-ms> <payload> … ABSTTL),
         * so the AOF and replicas expire the key when we do. */
        robj **argv = zmalloc(sizeof(robj *) * (c->argc + 1));
        for (int j = 0; j < c->argc; j++) {
            argv[j] = j == 2 ? createStringObjectFromLongLong(ttl) : c->argv[j];
            if (j != 2) incrRefCount(argv[j]);
        }
        argv[c->argc] = createStringObject("ABSTTL", 6);
        struct redisCommand *cmd = c->cmd;
        replaceClientCommandVector(c, c->argc + 1, argv);
        c->cmd = cmd;
    }
    addReply(c, shared.ok);
}
