/* hyperloglog: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST over the
 * HyperLogLog value of data/hll (its layout is Redis 7.0's, byte for byte). */
#include "core/sds.h"
#include "core/zmalloc.h"
#include "data/hll.h"
#include "server/client.h"
#include "server/cmdargs.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"

#include <string.h>
#include <strings.h>

static const char *invalidHllError = "-INVALIDOBJ Corrupted HLL object detected";
static const char *notHllError = "-WRONGTYPE Key is not a valid HyperLogLog string value.";

/* Replies WRONGTYPE and returns 0 unless o is a string that looks like an
 * HLL (a damaged sparse body is found, INVALIDOBJ, by whatever walks it). */
static int isHllObjectOrReply(client *c, robj *o) {
    if (replyIfWrongType(c, o, OBJ_STRING)) return 0;
    if (hllLooksValid(o)) return 1;
    addReplyError(c, notHllError);
    return 0;
}

static size_t sparseMaxBytes(void) { return (size_t)server.hll_sparse_max_bytes; }

/* Folds every existing key of argv[from..] into max. Replies and returns 0
 * on a key that is not a valid HLL; *anyDense tells whether one was dense. */
static int hllMergeKeysOrReply(client *c, int from, hllMaxRegisters *max, int *anyDense) {
    memset(max, 0, sizeof(*max));
    *anyDense = 0;
    for (int j = from; j < c->argc; j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j]);
        if (o == NULL) continue; /* a missing key is an empty HLL */
        if (!isHllObjectOrReply(c, o)) return 0;
        if (hllEncoding(o) == HLL_DENSE) *anyDense = 1;
        if (!hllMergeInto(max, o)) {
            addReplyError(c, invalidHllError);
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------ commands */

/* An element as bytes, whatever the argument object's encoding. */
static int hllAddArgument(robj *o, robj *arg) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *ele = stringObjectView(arg, buf, &len);
    return hllAdd(o, (const unsigned char *)ele, len, sparseMaxBytes());
}

/* PFADD key [element ...] */
void pfaddCommand(client *c) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    int updated = 0;

    if (o == NULL) {
        o = hllCreate();
        o = dbAdd(c->db, c->argv[1], o);
        updated++; /* creating the key is a change even with no elements */
    } else {
        if (!isHllObjectOrReply(c, o)) return;
        o = dbUnshareStringValue(c->db, c->argv[1], o);
    }
    for (int j = 2; j < c->argc; j++) {
        int added = hllAddArgument(o, c->argv[j]);
        if (added < 0) {
            addReplyError(c, invalidHllError);
            return;
        }
        updated += added;
    }
    if (updated) {
        hllInvalidateCache(o);
        keyChanged(c->db, c->argv[1], NOTIFY_STRING, "pfadd", updated); /* Redis counts every changed register */
    }
    addReply(c, updated ? shared.cone : shared.czero);
}

/* PFCOUNT key [key ...] */
void pfcountCommand(client *c) {
    if (c->argc > 2) {
        /* The union is computed aside: none of the keys is modified. */
        hllMaxRegisters *max = zmalloc(sizeof(*max));
        int anyDense;
        if (hllMergeKeysOrReply(c, 1, max, &anyDense)) addReplyLongLong(c, (long long)hllCountRegisters(max));
        zfree(max);
        return;
    }

    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReply(c, shared.czero);
        return;
    }
    if (!isHllObjectOrReply(c, o)) return;
    o = dbUnshareStringValue(c->db, c->argv[1], o);
    if (hllCacheIsValid(o)) {
        addReplyLongLong(c, (long long)hllCachedCard(o));
        return;
    }
    uint64_t card;
    if (!hllCount(o, &card)) {
        addReplyError(c, invalidHllError);
        return;
    }
    /* Storing the estimate changes the string's bytes: WATCHers and the
     * AOF must see it, though it is no write worth an event. */
    hllSetCachedCard(o, card);
    keyChanged(c->db, c->argv[1], 0, NULL, 1);
    addReplyLongLong(c, (long long)card);
}

/* PFMERGE destkey [sourcekey ...] */
void pfmergeCommand(client *c) {
    hllMaxRegisters *max = zmalloc(sizeof(*max));
    int anyDense;

    /* The destination takes part in the union as a source. */
    if (!hllMergeKeysOrReply(c, 1, max, &anyDense)) goto done;

    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (o == NULL) {
        o = hllCreate();
        o = dbAdd(c->db, c->argv[1], o);
    } else {
        o = dbUnshareStringValue(c->db, c->argv[1], o);
    }
    /* A dense source makes the result dense at once rather than growing a
     * sparse one register by register into promotion. */
    if (anyDense && !hllToDense(o)) {
        addReplyError(c, invalidHllError);
        goto done;
    }
    for (long i = 0; i < HLL_REGISTERS; i++)
        if (max->reg[i]) hllRaiseRegister(o, i, max->reg[i], sparseMaxBytes());
    hllInvalidateCache(o);
    /* Redis reports a merge as a mass PFADD. */
    keyChanged(c->db, c->argv[1], NOTIFY_STRING, "pfadd", 1);
    addReply(c, shared.ok);
done:
    zfree(max);
}

/* PFDEBUG GETREG|DECODE|ENCODING|TODENSE key */
void pfdebugCommand(client *c) {
    char buf[LONG_STR_SIZE];
    size_t sublen;
    const char *sub = stringObjectView(c->argv[1], buf, &sublen);
    robj *o = lookupKeyWrite(c->db, c->argv[2]);
    if (o == NULL) {
        addReplyError(c, "The specified key does not exist");
        return;
    }
    if (!isHllObjectOrReply(c, o)) return;
    o = dbUnshareStringValue(c->db, c->argv[2], o);

    if (!strcasecmp(sub, "getreg") || !strcasecmp(sub, "todense")) {
        int converted = 0;
        if (hllEncoding(o) == HLL_SPARSE) {
            if (!hllToDense(o)) {
                addReplyError(c, invalidHllError);
                return;
            }
            converted = 1;
            /* The encoding change must reach the AOF; it is not a logical
             * change, so (as in Redis) no event and WATCH is untouched: a
             * count with no key. */
            keyChanged(c->db, NULL, 0, NULL, 1);
        }
        if (!strcasecmp(sub, "todense")) {
            addReply(c, converted ? shared.cone : shared.czero);
            return;
        }
        addReplyArrayLen(c, HLL_REGISTERS);
        for (long i = 0; i < HLL_REGISTERS; i++) addReplyLongLong(c, hllDenseRegister(o, i));
    } else if (!strcasecmp(sub, "decode")) {
        if (hllEncoding(o) != HLL_SPARSE) {
            addReplyError(c, "HLL encoding is not sparse");
            return;
        }
        addReplyBulkSds(c, hllSparseDescribe(o));
    } else if (!strcasecmp(sub, "encoding")) {
        addReplyStatus(c, hllEncoding(o) == HLL_DENSE ? "dense" : "sparse");
    } else {
        addReplyErrorFormat(c, "Unknown PFDEBUG subcommand '%s'", sub);
    }
}

void pfselftestCommand(client *c) {
    long bad = hllSelftestPacking();
    if (bad >= 0) {
        addReplyErrorFormat(c, "TESTFAILED Register error at index %ld", bad);
        return;
    }
    long failedAt = hllSelftestEstimate(sparseMaxBytes());
    if (failedAt) {
        addReplyErrorFormat(c, "TESTFAILED estimate error after %ld elements", failedAt);
        return;
    }
    addReply(c, shared.ok);
}
