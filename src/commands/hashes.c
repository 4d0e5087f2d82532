/* hashes: the hash commands (HSET ... HSCAN). The value itself (its two
 * encodings, a listpack of field,value,... in insertion order and a dict,
 * and when one becomes the other by hash-max-listpack-entries / -value) is
 * data/value.h's; this file parses arguments, runs Redis's algorithms on
 * top of it and replies, so OBJECT ENCODING, DEBUG/RDB bytes and reply
 * order all match the reference. */
#include "server/cmdargs.h"
#include "commands/scan.h"
#include "core/numparse.h"
#include "data/value.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"

#include <limits.h>
#include <math.h>

/* ------------------------------------------------------------ the hash type */

static void addReplyElem(client *c, const valueElem *e) {
    if (e->sval) addReplyBulkCBuffer(c, e->sval, e->slen);
    else addReplyBulkLongLong(c, e->lval);
}

/* Walks the pairs in storage order (insertion order for a listpack). */
typedef struct hashIterator {
    valueIter vi;
    valueItem item; /* .ele the field, .val its value */
} hashIterator;

static void hashIterInit(hashIterator *it, robj *o) { valueIterInit(&it->vi, o); }
static int hashIterNext(hashIterator *it) { return valueIterNext(&it->vi, &it->item); }
static void hashIterDone(hashIterator *it) { valueIterDone(&it->vi); }

/* The hash at key for a write, created (empty listpack) when missing;
 * NULL after replying WRONGTYPE. */
static robj *hashTypeLookupWriteOrCreate(client *c, robj *key) {
    robj *o = lookupKeyWrite(c->db, key);
    if (replyIfWrongType(c, o, OBJ_HASH)) return NULL;
    if (o == NULL) {
        o = createHashObject();
        o = dbAdd(c->db, key, o);
    }
    return o;
}

/* ------------------------------------------------------------ writes */

/* HSET and HMSET: same work, different replies. */
static void hsetGeneric(client *c, int hmset) {
    if (c->argc % 2 == 1) {
        addReplyErrorArity(c);
        return;
    }
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (!o) return;
    hashGrowFor(o, c->argv + 2, c->argc - 2, &server.hash_limits);
    long long created = 0;
    for (int i = 2; i < c->argc; i += 2) {
        sds value = objectPtr(c->argv[i + 1]);
        created += !hashSet(o, objectPtr(c->argv[i]), value, sdslen(value), &server.hash_limits);
    }
    if (hmset) addReply(c, shared.ok);
    else addReplyLongLong(c, created);
    /* Always an event, even if every value was already the same (as Redis). */
    keyChanged(c->db, c->argv[1], NOTIFY_HASH, "hset", (c->argc - 2) / 2); /* Redis counts one change per pair */
}

void hsetCommand(client *c) { hsetGeneric(c, 0); }
void hmsetCommand(client *c) { hsetGeneric(c, 1); }

void hsetnxCommand(client *c) {
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (!o) return;
    if (hashExists(o, objectPtr(c->argv[2]))) {
        addReply(c, shared.czero);
        return;
    }
    hashGrowFor(o, c->argv + 2, 2, &server.hash_limits);
    sds value = objectPtr(c->argv[3]);
    hashSet(o, objectPtr(c->argv[2]), value, sdslen(value), &server.hash_limits);
    addReply(c, shared.cone);
    keyChanged(c->db, c->argv[1], NOTIFY_HASH, "hset", 1);
}

void hincrbyCommand(client *c) {
    long long incr, value;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (!o) return;
    valueElem cur;
    if (hashGetValue(o, objectPtr(c->argv[2]), &cur)) {
        if (!cur.sval) value = cur.lval;
        else if (!string2ll((char *)cur.sval, cur.slen, &value)) {
            addReplyError(c, "hash value is not an integer");
            return;
        }
    } else {
        value = 0;
    }
    if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) ||
        (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    value += incr;
    char buf[MAX_LONG_LONG_CHARS];
    int len = ll2string(buf, sizeof(buf), value);
    hashSet(o, objectPtr(c->argv[2]), buf, (size_t)len, &server.hash_limits);
    addReplyLongLong(c, value);
    keyChanged(c->db, c->argv[1], NOTIFY_HASH, "hincrby", 1);
}

void hincrbyfloatCommand(client *c) {
    long double incr, value;
    if (getLongDoubleFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    if (isnan(incr) || isinf(incr)) {
        addReplyError(c, "value is NaN or Infinity");
        return;
    }
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (!o) return;
    valueElem cur;
    if (hashGetValue(o, objectPtr(c->argv[2]), &cur)) {
        if (!cur.sval) value = (long double)cur.lval;
        else if (!string2ld((char *)cur.sval, cur.slen, &value)) {
            addReplyError(c, "hash value is not a float");
            return;
        }
    } else {
        value = 0;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), value, 1);
    hashSet(o, objectPtr(c->argv[2]), buf, (size_t)len, &server.hash_limits);
    addReplyBulkCBuffer(c, buf, (size_t)len);
    keyChanged(c->db, c->argv[1], NOTIFY_HASH, "hincrbyfloat", 1);
    /* Replayed as HSET of the result, as Redis does, so float formatting can
     * never make a replay diverge (MONITOR and SLOWLOG keep the original). */
    robj *hset = createStringObject("HSET", 4), *newval = createStringObject(buf, (size_t)len);
    rewriteClientCommandVector(c, 4, hset, c->argv[1], c->argv[2], newval);
    decrRefCount(hset);
    decrRefCount(newval);
}

void hdelCommand(client *c) {
    removeMembersCommand(c, OBJ_HASH, hashDelete, valueLength, NOTIFY_HASH, "hdel");
}

/* ------------------------------------------------------------ reads */

void hgetCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_HASH)) return;
    valueElem value;
    if (o && hashGetValue(o, objectPtr(c->argv[2]), &value)) addReplyElem(c, &value);
    else addReplyNull(c);
}

void hmgetCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_HASH)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        valueElem value;
        if (o && hashGetValue(o, objectPtr(c->argv[j]), &value)) addReplyElem(c, &value);
        else addReplyNull(c);
    }
}

void hlenCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOENTRIES); /* a count: no entry read */
    if (!o) addReply(c, shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_HASH)) return;
    addReplyLongLong(c, (long long)valueLength(o));
}

void hstrlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_HASH)) return;
    addReplyLongLong(c, (long long)hashStrlen(o, objectPtr(c->argv[2])));
}

void hexistsCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_HASH)) return;
    addReply(c, hashExists(o, objectPtr(c->argv[2])) ? shared.cone : shared.czero);
}

#define HASH_FIELDS 1
#define HASH_VALUES 2

/* HKEYS, HVALS, HGETALL: one walk; HGETALL is a map (flat in RESP2). */
static void hgetallGeneric(client *c, int what) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_HASH)) return;
    unsigned long length = o ? valueLength(o) : 0;
    if (what == (HASH_FIELDS | HASH_VALUES)) addReplyMapLen(c, (long)length);
    else addReplyArrayLen(c, (long)length);
    if (!o) return;
    hashIterator it;
    hashIterInit(&it, o);
    while (hashIterNext(&it)) {
        if (what & HASH_FIELDS) addReplyElem(c, &it.item.ele);
        if (what & HASH_VALUES) addReplyElem(c, &it.item.val);
    }
    hashIterDone(&it);
}

void hkeysCommand(client *c) { hgetallGeneric(c, HASH_FIELDS); }
void hvalsCommand(client *c) { hgetallGeneric(c, HASH_VALUES); }
void hgetallCommand(client *c) { hgetallGeneric(c, HASH_FIELDS | HASH_VALUES); }

void hscanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyscan);
    if (!o || replyIfWrongType(c, o, OBJ_HASH)) return;
    scanGenericCommand(c, o, cursor);
}

/* ------------------------------------------------------------ HRANDFIELD */

/* One picked pair as HRANDFIELD replies it: [field, value] in RESP3, flat
 * in RESP2, the field alone without WITHVALUES. Stops a reply to a client
 * that is being closed (its output buffer went over the limit). */
static int addReplyRandomPair(void *ctx, const valueElem *field, const valueElem *value) {
    client *c = ctx;
    if (value && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyElem(c, field);
    if (value) addReplyElem(c, value);
    return !(c->flags & CLIENT_CLOSE_ASAP);
}

void hrandfieldCommand(client *c) {
    if (c->argc == 2) {
        robj *o = lookupKeyRead(c->db, c->argv[1]);
        if (replyIfWrongType(c, o, OBJ_HASH)) return;
        if (!o) {
            addReplyNull(c);
        } else {
            valueElem field;
            hashRandomField(o, &field, NULL);
            addReplyElem(c, &field);
        }
        return;
    }
    long l;
    int withvalues;
    if (parseRandomCountOrReply(c, "withvalues", &l, &withvalues) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (!o || replyIfWrongType(c, o, OBJ_HASH)) return;
    int uniq = l >= 0;
    unsigned long count = uniq ? (unsigned long)l : (unsigned long)-l;
    if (count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    unsigned long size = valueLength(o);
    unsigned long replied = (!uniq || count == 1) ? count : (count < size ? count : size);
    if (withvalues && c->resp == 2) addReplyArrayLen(c, (long)replied * 2);
    else addReplyArrayLen(c, (long)replied);

    if (!uniq || count == 1) {
        hashRandomFields(o, count, withvalues, addReplyRandomPair, c);
    } else if (count >= size) {
        hashIterator it;
        hashIterInit(&it, o);
        while (hashIterNext(&it)) addReplyRandomPair(c, &it.item.ele, withvalues ? &it.item.val : NULL);
        hashIterDone(&it);
    } else {
        hashRandomFieldsDistinct(o, count, withvalues, addReplyRandomPair, c);
    }
}
