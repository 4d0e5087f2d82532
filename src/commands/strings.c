/* strings: the string commands of Redis 7.0 (GET/SET and their variants,
 * MGET/MSET, APPEND/STRLEN, the INCR family, GETRANGE/SETRANGE, LCS).
 *
 * Values are stored the way Redis stores them so OBJECT ENCODING agrees:
 * whole values go through tryObjectEncoding (int / embstr / raw), commands
 * that edit bytes in place (APPEND, SETRANGE) first make the value a private
 * raw string, and counters stay int-encoded. Option parsing, the order in
 * which errors are detected and the error texts follow Redis 7.0.15. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "server/cmdargs.h"
#include "core/zmalloc.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"
#include "server/server.h"

/* ------------------------------------------------------------ helpers */

/* A string may not grow past proto-max-bulk-len (the biggest value a client
 * could have sent in one piece). Replaying the AOF must never fail, so it is
 * exempt, as in Redis. */
static int checkStringLength(client *c, long long size, long long append) {
    if (c->flags & CLIENT_AOF) return C_OK;
    /* Unsigned sum: an overflow shows up as a total smaller than an operand. */
    long long total = (long long)((uint64_t)size + (uint64_t)append);
    if (total > server.proto_max_bulk_len || total < size || total < append) {
        addReplyError(c, "string exceeds maximum allowed size (proto-max-bulk-len)");
        return C_ERR;
    }
    return C_OK;
}

/* Grows s to newlen bytes, the new bytes zeroed (no-op when already long enough). */
static sds growZeroed(sds s, size_t newlen) {
    size_t cur = sdslen(s);
    if (newlen <= cur) return s;
    s = sdsMakeRoomFor(s, newlen - cur);
    memset(s + cur, 0, newlen - cur);
    sdsincrlen(s, (ssize_t)(newlen - cur));
    return s;
}

/* Replies with the value, or null when missing; C_ERR (WRONGTYPE replied)
 * when the key holds another type. GET, GETSET, GETDEL and SET ... GET. */
static int replyStringValue(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyNull(c);
        return C_OK;
    }
    if (replyIfWrongType(c, o, OBJ_STRING)) return C_ERR;
    addReplyBulk(c, o);
    return C_OK;
}

/* ------------------------------------------- SET / GETEX option parsing */

#define STR_NX (1 << 0)
#define STR_XX (1 << 1)
#define STR_GET (1 << 2)
#define STR_KEEPTTL (1 << 3)
#define STR_PERSIST (1 << 4)
#define STR_EX (1 << 5)
#define STR_PX (1 << 6)
#define STR_EXAT (1 << 7)
#define STR_PXAT (1 << 8)
#define STR_ANY_EXPIRE (STR_EX | STR_PX | STR_EXAT | STR_PXAT)

#define FOR_SET 1
#define FOR_GETEX 2

/* Each option lists the options that, when already seen, make it a syntax
 * error. An option may repeat itself ("EX 10 EX 20" keeps the last value);
 * it only conflicts with the others of its group. */
static const struct stringOption {
    const char *name;
    int flag;
    int conflicts;
    int commands;
    int takes_value;
} stringOptions[] = {
    {"nx", STR_NX, STR_XX, FOR_SET, 0},
    {"xx", STR_XX, STR_NX, FOR_SET, 0},
    {"get", STR_GET, 0, FOR_SET, 0},
    {"keepttl", STR_KEEPTTL, STR_ANY_EXPIRE | STR_PERSIST, FOR_SET, 0},
    {"persist", STR_PERSIST, STR_ANY_EXPIRE | STR_KEEPTTL, FOR_GETEX, 0},
    {"ex", STR_EX, (STR_ANY_EXPIRE & ~STR_EX) | STR_KEEPTTL | STR_PERSIST, FOR_SET | FOR_GETEX, 1},
    {"px", STR_PX, (STR_ANY_EXPIRE & ~STR_PX) | STR_KEEPTTL | STR_PERSIST, FOR_SET | FOR_GETEX, 1},
    {"exat", STR_EXAT, (STR_ANY_EXPIRE & ~STR_EXAT) | STR_KEEPTTL | STR_PERSIST, FOR_SET | FOR_GETEX, 1},
    {"pxat", STR_PXAT, (STR_ANY_EXPIRE & ~STR_PXAT) | STR_KEEPTTL | STR_PERSIST, FOR_SET | FOR_GETEX, 1},
};

/* Parses argv[first..] into *flags and *expire (the TTL argument, not yet
 * validated: Redis reports syntax errors before bad numbers). */
static int parseStringOptionsOrReply(client *c, int first, int command, int *flags, robj **expire) {
    for (int j = first; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        int has_next = j + 1 < c->argc;
        const struct stringOption *match = NULL;
        for (size_t k = 0; k < sizeof(stringOptions) / sizeof(stringOptions[0]); k++) {
            if (!strcasecmp(opt, stringOptions[k].name)) {
                match = &stringOptions[k];
                break;
            }
        }
        if (match == NULL || !(match->commands & command) || (*flags & match->conflicts) ||
            (match->takes_value && !has_next)) {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
        *flags |= match->flag;
        if (match->takes_value) *expire = c->argv[++j];
    }
    return C_OK;
}

/* Turns the TTL argument into an absolute deadline in ms. Zero, negative and
 * overflowing values (seconds → ms, or now + relative) are invalid. */
static int expireDeadlineOrReply(client *c, robj *arg, int flags, long long *when) {
    long long v;
    if (getLongLongFromObjectOrReply(c, arg, &v, NULL) != C_OK) return C_ERR;
    int in_seconds = flags & (STR_EX | STR_EXAT);
    if (v <= 0 || (in_seconds && v > LLONG_MAX / 1000)) goto invalid;
    if (in_seconds) v *= 1000;
    if ((flags & (STR_EX | STR_PX)) && __builtin_add_overflow(v, commandTimeMs(), &v)) goto invalid;
    *when = v;
    return C_OK;
invalid:
    addReplyErrorExpireTime(c);
    return C_ERR;
}

/* ------------------------------------------------------------ GET / SET */

/* Any TTL is replayed as the deadline it gave, so a replay sets the same
 * deadline whenever it runs: as Redis 7.0, SET key value PXAT <ms> (what
 * NX/XX/GET decided is already done). */
static void propagateSetWithDeadline(client *c, robj *key, robj *val, long long when) {
    robj *whenobj = createStringObjectFromLongLong(when);
    rewriteClientCommandVector(c, 5, shared.set, key, val, shared.pxat, whenobj);
    decrRefCount(whenobj);
}

/* The one SET path (SET, SETNX, SETEX, PSETEX). ok_reply / abort_reply
 * default to +OK / null; with GET the old value was the reply. */
static void setGeneric(client *c, int flags, robj *key, robj *val, robj *expire, robj *ok_reply,
                       robj *abort_reply) {
    long long when = 0;
    if (expire && expireDeadlineOrReply(c, expire, flags, &when) != C_OK) return;
    if ((flags & STR_GET) && replyStringValue(c) != C_OK) return;

    int found = lookupKeyWrite(c->db, key) != NULL;
    if (((flags & STR_NX) && found) || ((flags & STR_XX) && !found)) {
        if (!(flags & STR_GET)) {
            if (abort_reply) addReply(c, abort_reply);
            else addReplyNull(c);
        }
        return;
    }

    int setkey_flags = (found ? SETKEY_ALREADY_EXIST : SETKEY_DOESNT_EXIST);
    if (flags & STR_KEEPTTL) setkey_flags |= SETKEY_KEEPTTL;
    setKey(c->db, key, val, setkey_flags);
    keyChanged(c->db, key, NOTIFY_STRING, "set", 1);
    if (expire) {
        /* Part of the same change (Redis counts SET EX as one write). A
         * deadline already in the past leaves the key for lazy expiry, as
         * Redis 7.0 does. */
        setExpire(c->db, key, when);
        keyChanged(c->db, key, NOTIFY_GENERIC, "expire", 0);
        propagateSetWithDeadline(c, key, val, when); /* PXAT too: 7.0.15 writes it uppercase */
    }
    if (!(flags & STR_GET)) addReply(c, ok_reply ? ok_reply : shared.ok);
}

void getCommand(client *c) { replyStringValue(c); }

void setCommand(client *c) {
    int flags = 0;
    robj *expire = NULL;
    if (parseStringOptionsOrReply(c, 3, FOR_SET, &flags, &expire) != C_OK) return;
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    setGeneric(c, flags, c->argv[1], c->argv[2], expire, NULL, NULL);
}

void setnxCommand(client *c) {
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    setGeneric(c, STR_NX, c->argv[1], c->argv[2], NULL, shared.cone, shared.czero);
}

void setexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->argv[3]);
    setGeneric(c, STR_EX, c->argv[1], c->argv[3], c->argv[2], NULL, NULL);
}

void psetexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->argv[3]);
    setGeneric(c, STR_PX, c->argv[1], c->argv[3], c->argv[2], NULL, NULL);
}

void getsetCommand(client *c) {
    if (replyStringValue(c) != C_OK) return;
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    setKey(c->db, c->argv[1], c->argv[2], 0);
    keyChanged(c->db, c->argv[1], NOTIFY_STRING, "set", 1);
    /* Replayed as SET, as Redis 7.0 propagates it (replicas count a SET call). */
    rewriteClientCommandVector(c, 3, shared.set, c->argv[1], c->argv[2]);
}

void getdelCommand(client *c) {
    if (replyStringValue(c) != C_OK) return;
    if (!dbDelete(c->db, c->argv[1])) return;
    keyChanged(c->db, c->argv[1], NOTIFY_GENERIC, "del", 1);
    rewriteClientCommandVector(c, 2, shared.del, c->argv[1]); /* replayed as DEL, as 7.0 */
}

void getexCommand(client *c) {
    int flags = 0;
    robj *expire = NULL;
    if (parseStringOptionsOrReply(c, 2, FOR_GETEX, &flags, &expire) != C_OK) return;

    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyNull(c);
        return;
    }
    if (replyIfWrongType(c, o, OBJ_STRING)) return;
    long long when = 0;
    if (expire && expireDeadlineOrReply(c, expire, flags, &when) != C_OK) return;

    /* Reply first: the value may be freed just below. */
    addReplyBulk(c, o);
    robj *key = c->argv[1];
    if ((flags & (STR_EXAT | STR_PXAT)) && checkAlreadyExpired(when)) {
        /* A deletion, not an expiry (nothing is pushed), replayed as one. */
        dbDelete(c->db, key);
        keyChanged(c->db, key, NOTIFY_GENERIC, "del", 1);
        rewriteClientCommandVector(c, 2, shared.del, key);
        return;
    } else if (expire) {
        setExpire(c->db, key, when);
        keyChanged(c->db, key, NOTIFY_GENERIC, "expire", 1);
    } else if ((flags & STR_PERSIST) && removeExpire(c->db, key)) {
        keyChanged(c->db, key, NOTIFY_GENERIC, "persist", 1);
        rewriteClientCommandVector(c, 2, shared.persist, key);
        return;
    }
    if (expire) propagateAsPexpireat(c, key, when);
}

/* ------------------------------------------------------ MGET / MSET(NX) */

void mgetCommand(client *c) {
    addReplyArrayLen(c, c->argc - 1);
    for (int j = 1; j < c->argc; j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j]);
        if (o == NULL || o->type != OBJ_STRING) addReplyNull(c);
        else addReplyBulk(c, o);
    }
}

static void msetGeneric(client *c, int nx) {
    if (c->argc % 2 == 0) {
        addReplyErrorArity(c);
        return;
    }
    /* MSETNX sets nothing when any key exists. A key given twice is still
     * "new" for the second pair, so each write looks the key up again. */
    if (nx) {
        for (int j = 1; j < c->argc; j += 2) {
            if (lookupKeyWrite(c->db, c->argv[j]) != NULL) {
                addReply(c, shared.czero);
                return;
            }
        }
    }
    for (int j = 1; j < c->argc; j += 2) {
        c->argv[j + 1] = tryObjectEncoding(c->argv[j + 1]);
        setKey(c->db, c->argv[j], c->argv[j + 1], 0);
        keyChanged(c->db, c->argv[j], NOTIFY_STRING, "set", 1);
    }
    addReply(c, nx ? shared.cone : shared.ok);
}

void msetCommand(client *c) { msetGeneric(c, 0); }

void msetnxCommand(client *c) { msetGeneric(c, 1); }

/* ------------------------------------------------------- APPEND / STRLEN */

void appendCommand(client *c) {
    size_t totlen;
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (o == NULL) {
        c->argv[2] = tryObjectEncoding(c->argv[2]);
        incrRefCount(c->argv[2]);
        dbAdd(c->db, c->argv[1], c->argv[2]);
        totlen = stringObjectLen(c->argv[2]);
    } else {
        if (replyIfWrongType(c, o, OBJ_STRING)) return;
        sds tail = objectPtr(c->argv[2]); /* an argument: always sds-encoded */
        if (checkStringLength(c, (long long)stringObjectLen(o), (long long)sdslen(tail)) != C_OK) return;
        o = dbUnshareStringValue(c->db, c->argv[1], o);
        objectSetPtr(o, sdscatlen(objectPtr(o), tail, sdslen(tail)));
        totlen = sdslen(objectPtr(o));
    }
    keyChanged(c->db, c->argv[1], NOTIFY_STRING, "append", 1);
    addReplyLongLong(c, (long long)totlen);
}

void strlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || replyIfWrongType(c, o, OBJ_STRING)) return;
    addReplyLongLong(c, (long long)stringObjectLen(o));
}

/* ------------------------------------------------------- INCR / DECR ... */

static void incrDecrGeneric(client *c, long long incr) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_STRING)) return;
    long long value;
    if (getLongLongFromObjectOrReply(c, o, &value, NULL) != C_OK) return; /* a missing key counts as 0 */
    if (__builtin_add_overflow(value, incr, &value)) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    if (o && objectRefs(o) == 1 && o->encoding == OBJ_ENCODING_INT && (o->haskey || !sharedInteger(value))) {
        /* Our own int-encoded value: update it in place (keeps TTL and LRU). A
         * keyspace object holds small integers itself and reports them shared. */
        objectSetPtr(o, (void *)(intptr_t)value);
    } else {
        /* 0..9999 share one object, as SET stores them. */
        robj *fresh = createStringObjectFromLongLong(value);
        if (o) dbOverwrite(c->db, c->argv[1], fresh);
        else dbAdd(c->db, c->argv[1], fresh);
    }
    keyChanged(c->db, c->argv[1], NOTIFY_STRING, "incrby", 1);
    addReplyLongLong(c, value);
}

void incrCommand(client *c) { incrDecrGeneric(c, 1); }

void decrCommand(client *c) { incrDecrGeneric(c, -1); }

void incrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    incrDecrGeneric(c, incr);
}

void decrbyCommand(client *c) {
    long long decr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &decr, NULL) != C_OK) return;
    if (decr == LLONG_MIN) { /* its negation does not exist */
        addReplyError(c, "decrement would overflow");
        return;
    }
    incrDecrGeneric(c, -decr);
}

void incrbyfloatCommand(client *c) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_STRING)) return;
    long double value, incr;
    if (getLongDoubleFromObjectOrReply(c, o, &value, NULL) != C_OK ||
        getLongDoubleFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK)
        return;
    value += incr;
    if (isnan(value) || isinf(value)) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    robj *fresh = createStringObjectFromLongDouble(value, 1);
    fresh = o ? dbOverwrite(c->db, c->argv[1], fresh) : dbAdd(c->db, c->argv[1], fresh);
    keyChanged(c->db, c->argv[1], NOTIFY_STRING, "incrbyfloat", 1);
    addReplyBulk(c, fresh);
    /* Floating point may round differently on replay: the result is replayed. */
    rewriteClientCommandVector(c, 4, shared.set, c->argv[1], fresh, shared.keepttl);
}

/* ------------------------------------------- GETRANGE / SUBSTR / SETRANGE */

void getrangeCommand(client *c) {
    long long start, end;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptybulk);
    if (o == NULL || replyIfWrongType(c, o, OBJ_STRING)) return;

    char buf[LONG_STR_SIZE];
    size_t len;
    const char *str = stringObjectView(o, buf, &len);
    long long slen = (long long)len;

    /* Both negative and inverted: empty even if clamping would make them meet. */
    if (start < 0 && end < 0 && start > end) {
        addReply(c, shared.emptybulk);
        return;
    }
    if (start < 0) start += slen;
    if (end < 0) end += slen;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= slen) end = slen - 1;
    if (slen == 0 || start > end) addReply(c, shared.emptybulk);
    else addReplyBulkCBuffer(c, str + start, (size_t)(end - start + 1));
}

/* SUBSTR is GETRANGE's old name. */
void substrCommand(client *c) { getrangeCommand(c); }

void setrangeCommand(client *c) {
    long long offset;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &offset, NULL) != C_OK) return;
    if (offset < 0) {
        addReplyError(c, "offset is out of range");
        return;
    }
    sds patch = objectPtr(c->argv[3]);
    size_t patchlen = sdslen(patch);

    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (o == NULL) {
        /* Writing nothing creates nothing. */
        if (patchlen == 0) {
            addReply(c, shared.czero);
            return;
        }
        if (checkStringLength(c, offset, (long long)patchlen) != C_OK) return;
        o = dbAdd(c->db, c->argv[1], createObject(OBJ_STRING, sdsnewlen(NULL, (size_t)offset + patchlen)));
    } else {
        if (replyIfWrongType(c, o, OBJ_STRING)) return;
        if (patchlen == 0) {
            addReplyLongLong(c, (long long)stringObjectLen(o));
            return;
        }
        if (checkStringLength(c, offset, (long long)patchlen) != C_OK) return;
        o = dbUnshareStringValue(c->db, c->argv[1], o);
        objectSetPtr(o, growZeroed(objectPtr(o), (size_t)offset + patchlen));
    }
    memcpy((char *)objectPtr(o) + offset, patch, patchlen);
    keyChanged(c->db, c->argv[1], NOTIFY_STRING, "setrange", 1);
    addReplyLongLong(c, (long long)sdslen(objectPtr(o)));
}

/* ------------------------------------------------------------------ LCS */

/* The IDX reply's matches: each run of consecutive common bytes, reported
 * with its ranges in both strings when it is at least minmatchlen long. */
typedef struct lcsMatches {
    client *c;
    int enabled; /* IDX given */
    int withmatchlen;
    long long minmatchlen;
    long count;
} lcsMatches;

static void lcsRunEnded(lcsMatches *m, uint32_t a_start, uint32_t b_start, uint32_t len) {
    if (!m->enabled || len == 0 || (m->minmatchlen && len < m->minmatchlen)) return;
    client *c = m->c;
    addReplyArrayLen(c, 2 + m->withmatchlen);
    addReplyArrayLen(c, 2);
    addReplyLongLong(c, a_start);
    addReplyLongLong(c, a_start + len - 1);
    addReplyArrayLen(c, 2);
    addReplyLongLong(c, b_start);
    addReplyLongLong(c, b_start + len - 1);
    if (m->withmatchlen) addReplyLongLong(c, len);
    m->count++;
}

void lcsCommand(client *c) {
    /* Keys first: a non-string key is reported before any option error. */
    robj *oa = lookupKeyRead(c->db, c->argv[1]);
    robj *ob = lookupKeyRead(c->db, c->argv[2]);
    if ((oa && oa->type != OBJ_STRING) || (ob && ob->type != OBJ_STRING)) {
        addReplyError(c, "The specified keys must contain string values");
        return;
    }
    char bufa[LONG_STR_SIZE], bufb[LONG_STR_SIZE];
    size_t la = 0, lb = 0;
    const char *a = oa ? stringObjectView(oa, bufa, &la) : "";
    const char *b = ob ? stringObjectView(ob, bufb, &lb) : "";

    int want_len = 0, want_idx = 0, withmatchlen = 0;
    long long minmatchlen = 0;
    for (int j = 3; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "idx")) {
            want_idx = 1;
        } else if (!strcasecmp(opt, "len")) {
            want_len = 1;
        } else if (!strcasecmp(opt, "withmatchlen")) {
            withmatchlen = 1;
        } else if (!strcasecmp(opt, "minmatchlen") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &minmatchlen, NULL) != C_OK) return;
            if (minmatchlen < 0) minmatchlen = 0;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (want_idx && want_len) {
        addReplyError(c, "If you want both the length and indexes, please just use IDX.");
        return;
    }
    if (la >= UINT32_MAX - 1 || lb >= UINT32_MAX - 1) {
        addReplyError(c, "String too long for LCS");
        return;
    }

    /* table[i*(lb+1)+j] = LCS length of a[0..i) and b[0..j). */
    uint64_t cells = (uint64_t)(la + 1) * (lb + 1);
    if (cells > SIZE_MAX / sizeof(uint32_t)) {
        addReplyError(c, "Insufficient memory, failed allocating transient memory for LCS");
        return;
    }
    if (cells * sizeof(uint32_t) > (uint64_t)server.proto_max_bulk_len) {
        addReplyError(c, "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
        return;
    }
    size_t width = lb + 1;
    uint32_t *table = zmalloc(cells * sizeof(uint32_t));
#define CELL(i, j) table[(size_t)(i) * width + (j)]
    for (size_t i = 0; i <= la; i++) {
        for (size_t j = 0; j <= lb; j++) {
            if (i == 0 || j == 0) CELL(i, j) = 0;
            else if (a[i - 1] == b[j - 1]) CELL(i, j) = CELL(i - 1, j - 1) + 1;
            else CELL(i, j) = CELL(i - 1, j) > CELL(i, j - 1) ? CELL(i - 1, j) : CELL(i, j - 1);
        }
    }
    uint32_t total = CELL(la, lb);

    if (want_len) {
        addReplyLongLong(c, total);
        zfree(table);
        return;
    }

    /* Walk back from the end collecting the common subsequence; with IDX also
     * report each run of consecutive matches, last run first (Redis's order). */
    sds result = sdsnewlen(NULL, total);
    void *matches_len = NULL;
    lcsMatches matches = {c, want_idx, withmatchlen, minmatchlen, 0};
    if (want_idx) {
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "matches");
        matches_len = addReplyDeferredLen(c);
    }
    size_t i = la, j = lb;
    uint32_t filled = total, run = 0;
    while (i > 0 && j > 0) {
        if (a[i - 1] == b[j - 1]) {
            result[--filled] = a[i - 1];
            i--;
            j--;
            run++;
            continue;
        }
        /* A mismatch ends the current run, which started where the walk is. */
        lcsRunEnded(&matches, (uint32_t)i, (uint32_t)j, run);
        run = 0;
        if (CELL(i - 1, j) > CELL(i, j - 1)) i--;
        else j--;
    }
    lcsRunEnded(&matches, (uint32_t)i, (uint32_t)j, run);
#undef CELL
    zfree(table);
    if (want_idx) {
        setDeferredArrayLen(c, matches_len, matches.count);
        addReplyBulkCString(c, "len");
        addReplyLongLong(c, total);
        sdsfree(result);
    } else {
        addReplyBulkSds(c, result);
    }
}
