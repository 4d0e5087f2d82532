/* hashes: the hash commands (HSET ... HSCAN) over Redis 7.0's two encodings.
 * A small hash is a listpack of field,value,field,value... in insertion
 * order; it becomes a dict (sds field -> sds value) for good once it holds
 * more than hash-max-listpack-entries fields or a field or value longer than
 * hash-max-listpack-value bytes. Conversions happen at exactly the points
 * Redis converts, and the listpack is edited with the same operations, so
 * OBJECT ENCODING, DEBUG/RDB bytes and reply order all match the reference. */
#include "server/cmdargs.h"
#include "commands/scan.h"
#include "core/memprefetch.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "data/listpack.h"
#include "data/value.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

/* HRANDFIELD: below this ratio of hash size to requested count, copying the
 * hash and removing random fields beats drawing random fields until enough
 * distinct ones came up (Redis's HRANDFIELD_SUB_STRATEGY_MUL). */
#define HRANDFIELD_SUB_STRATEGY_MUL 3
/* HRANDFIELD with repeats on a listpack: pairs are drawn in batches of this
 * many so the index buffers stay bounded whatever the count. */
#define HRANDFIELD_RANDOM_SAMPLE_LIMIT 1000

/* ------------------------------------------------------------ the hash type */

static sds sdsFromLpEntry(const lpEntry *e) {
    return e->sval ? sdsnewlen(e->sval, e->slen) : sdsfromlonglong(e->lval);
}

static void lpEntryFromSds(lpEntry *e, sds s) {
    e->sval = (unsigned char *)s;
    e->slen = (uint32_t)sdslen(s);
    e->lval = 0;
}

static void addReplyLpEntry(client *c, const lpEntry *e) {
    if (e->sval) addReplyBulkCBuffer(c, e->sval, e->slen);
    else addReplyBulkLongLong(c, e->lval);
}

/* The listpack entry holding field's name, or NULL. */
static unsigned char *lpFindField(unsigned char *lp, sds field) {
    unsigned char *p = lpFirst(lp);
    if (!p) return NULL;
    return lpFind(lp, p, (unsigned char *)field, (uint32_t)sdslen(field), 1);
}

/* Before argv[start..end] (field,value pairs) go into o: convert when they
 * cannot all fit the listpack limits, so one command never converts halfway. */
static void hashTypeTryConversion(robj *o, robj **argv, int start, int end) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    size_t new_fields = (size_t)(end - start + 1) / 2;
    if (new_fields > server.hash_max_listpack_entries) {
        hashConvertToTable(o);
        dictExpand(o->ptr, new_fields); /* mostly new fields: size for them */
        return;
    }
    size_t sum = 0;
    for (int i = start; i <= end; i++) {
        if (!sdsEncodedObject(argv[i])) continue;
        size_t len = sdslen(argv[i]->ptr);
        if (len > server.hash_max_listpack_value) {
            hashConvertToTable(o);
            return;
        }
        sum += len;
    }
    if (!lpSafeToAdd(o->ptr, sum)) hashConvertToTable(o);
}

/* The layer's elements as the listpack entries the replies here take. */
static void lpEntryFromElem(lpEntry *e, const valueElem *v) {
    e->sval = (unsigned char *)v->sval;
    e->slen = (uint32_t)v->slen;
    e->lval = v->lval;
}

/* Sets *value to field's value; 0 when there is no such field. */
static int hashTypeGetValue(robj *o, sds field, lpEntry *value) {
    valueElem v;
    if (!hashGetValue(o, field, &v)) return 0;
    lpEntryFromElem(value, &v);
    return 1;
}

static int hashTypeExists(robj *o, sds field) {
    lpEntry value;
    return hashTypeGetValue(o, field, &value);
}

/* Sets field to value (copied). Returns 1 if the field existed (its value
 * was replaced), 0 if it was added. */
static int hashTypeSet(robj *o, sds field, const char *value, size_t vlen) {
    /* HINCRBY* reach here without hashTypeTryConversion: a long field or
     * value still must not enter the listpack. */
    if (o->encoding == OBJ_ENCODING_LISTPACK &&
        (sdslen(field) > server.hash_max_listpack_value || vlen > server.hash_max_listpack_value))
        hashConvertToTable(o);

    int update = 0;
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr, *p = lpFindField(lp, field);
        if (p) {
            unsigned char *vp = lpNext(lp, p);
            lp = lpReplace(lp, &vp, (const unsigned char *)value, (uint32_t)vlen);
            update = 1;
        } else {
            lp = lpAppend(lp, (unsigned char *)field, (uint32_t)sdslen(field));
            lp = lpAppend(lp, (const unsigned char *)value, (uint32_t)vlen);
        }
        o->ptr = lp;
        if (valueLength(o) > server.hash_max_listpack_entries) hashConvertToTable(o);
    } else {
        dict *d = o->ptr;
        dictEntry *de = dictFind(d, field);
        if (de) {
            /* Freeing the old value reads its header, most often not in the
             * cache (the entry was, the value lives elsewhere): its load
             * starts now and the new value's copy runs under it. */
            sds old = dictGetVal(de);
            prefetchLine(old - 1);
            dictSetVal(d, de, sdsnewlen(value, vlen));
            sdsfree(old);
            update = 1;
        } else {
            dictAdd(d, field, sdsnewlen(value, vlen)); /* the field is copied into the entry */
        }
    }
    return update;
}

/* 1 if the field was there and is gone. */
static int hashTypeDelete(robj *o, sds field) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = lpFindField(o->ptr, field);
        if (!p) return 0;
        o->ptr = lpDeleteRangeWithEntry(o->ptr, &p, 2);
        return 1;
    }
    dict *d = o->ptr;
    if (dictDelete(d, field) != DICT_OK) return 0;
    if (dictNeedsResize(d)) dictResize(d);
    return 1;
}

/* Walks the pairs in storage order (insertion order for a listpack). */
typedef struct hashIterator {
    valueIter vi;
    lpEntry field, value;
} hashIterator;

static void hashIterInit(hashIterator *it, robj *o) { valueIterInit(&it->vi, o); }

static int hashIterNext(hashIterator *it) {
    valueItem item;
    if (!valueIterNext(&it->vi, &item)) return 0;
    lpEntryFromElem(&it->field, &item.ele);
    lpEntryFromElem(&it->value, &item.val);
    return 1;
}

static void hashIterDone(hashIterator *it) { valueIterDone(&it->vi); }

/* One uniformly chosen pair; the hash must not be empty. */
static void hashTypeRandomElement(robj *o, unsigned long size, lpEntry *field, lpEntry *value) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        lpPairAt(o->ptr, (unsigned long)random() % size, field, value);
        return;
    }
    dictEntry *de = dictGetFairRandomKey(o->ptr);
    lpEntryFromSds(field, dictGetKey(de));
    if (value) lpEntryFromSds(value, dictGetVal(de));
}

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
    hashTypeTryConversion(o, c->argv, 2, c->argc - 1);
    long long created = 0;
    for (int i = 2; i < c->argc; i += 2) {
        sds value = c->argv[i + 1]->ptr;
        created += !hashTypeSet(o, c->argv[i]->ptr, value, sdslen(value));
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
    if (hashTypeExists(o, c->argv[2]->ptr)) {
        addReply(c, shared.czero);
        return;
    }
    hashTypeTryConversion(o, c->argv, 2, 3);
    sds value = c->argv[3]->ptr;
    hashTypeSet(o, c->argv[2]->ptr, value, sdslen(value));
    addReply(c, shared.cone);
    keyChanged(c->db, c->argv[1], NOTIFY_HASH, "hset", 1);
}

void hincrbyCommand(client *c) {
    long long incr, value;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (!o) return;
    lpEntry cur;
    if (hashTypeGetValue(o, c->argv[2]->ptr, &cur)) {
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
    hashTypeSet(o, c->argv[2]->ptr, buf, (size_t)len);
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
    lpEntry cur;
    if (hashTypeGetValue(o, c->argv[2]->ptr, &cur)) {
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
    hashTypeSet(o, c->argv[2]->ptr, buf, (size_t)len);
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
    removeMembersCommand(c, OBJ_HASH, hashTypeDelete, valueLength, NOTIFY_HASH, "hdel");
}

/* ------------------------------------------------------------ reads */

void hgetCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_HASH)) return;
    lpEntry value;
    if (o && hashTypeGetValue(o, c->argv[2]->ptr, &value)) addReplyLpEntry(c, &value);
    else addReplyNull(c);
}

void hmgetCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_HASH)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        lpEntry value;
        if (o && hashTypeGetValue(o, c->argv[j]->ptr, &value)) addReplyLpEntry(c, &value);
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
    lpEntry value;
    long long len = 0;
    if (hashTypeGetValue(o, c->argv[2]->ptr, &value)) {
        char buf[MAX_LONG_LONG_CHARS];
        len = value.sval ? (long long)value.slen : ll2string(buf, sizeof(buf), value.lval);
    }
    addReplyLongLong(c, len);
}

void hexistsCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (!o || replyIfWrongType(c, o, OBJ_HASH)) return;
    addReply(c, hashTypeExists(o, c->argv[2]->ptr) ? shared.cone : shared.czero);
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
        if (what & HASH_FIELDS) addReplyLpEntry(c, &it.field);
        if (what & HASH_VALUES) addReplyLpEntry(c, &it.value);
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

static void addReplyRandomPair(client *c, const lpEntry *field, const lpEntry *value) {
    if (value && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyLpEntry(c, field);
    if (value) addReplyLpEntry(c, value);
}

static void addReplyRandomPairSds(client *c, sds field, sds value) {
    lpEntry f, v;
    lpEntryFromSds(&f, field);
    if (value) lpEntryFromSds(&v, value);
    addReplyRandomPair(c, &f, value ? &v : NULL);
}

/* Negative count (or 1): |count| independent draws, repeats allowed, in
 * random order. */
static void hrandfieldWithRepeats(client *c, robj *o, unsigned long count, int withvalues) {
    unsigned long size = valueLength(o);
    if (o->encoding == OBJ_ENCODING_HT) {
        while (count--) {
            lpEntry field, value;
            hashTypeRandomElement(o, size, &field, withvalues ? &value : NULL);
            addReplyRandomPair(c, &field, withvalues ? &value : NULL);
            if (c->flags & CLIENT_CLOSE_ASAP) break;
        }
        return;
    }
    unsigned long limit = count > HRANDFIELD_RANDOM_SAMPLE_LIMIT ? HRANDFIELD_RANDOM_SAMPLE_LIMIT : count;
    unsigned long *idx = zmalloc(sizeof(*idx) * limit);
    lpEntry *fields = zmalloc(sizeof(*fields) * limit);
    lpEntry *vals = withvalues ? zmalloc(sizeof(*vals) * limit) : NULL;
    while (count) {
        unsigned long batch = count > limit ? limit : count;
        count -= batch;
        for (unsigned long i = 0; i < batch; i++) idx[i] = (unsigned long)random() % size;
        lpPairsAt(o->ptr, idx, batch, fields, vals);
        for (unsigned long i = 0; i < batch; i++) addReplyRandomPair(c, &fields[i], vals ? &vals[i] : NULL);
        if (c->flags & CLIENT_CLOSE_ASAP) break;
    }
    zfree(idx);
    zfree(fields);
    zfree(vals);
}

/* Positive count below the size: count distinct fields. */
static void hrandfieldDistinct(client *c, robj *o, unsigned long count, int withvalues) {
    unsigned long size = valueLength(o);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        /* Small by definition: one selection-sampling walk, in listpack order. */
        lpEntry *fields = zmalloc(sizeof(*fields) * count);
        lpEntry *vals = withvalues ? zmalloc(sizeof(*vals) * count) : NULL;
        unsigned long got = lpRandomPairsUnique(o->ptr, count, fields, vals, random);
        for (unsigned long i = 0; i < got; i++) addReplyRandomPair(c, &fields[i], vals ? &vals[i] : NULL);
        zfree(fields);
        zfree(vals);
        return;
    }
    if (count * HRANDFIELD_SUB_STRATEGY_MUL > size) {
        /* Most of the hash: copy it, then drop random fields until count remain. */
        dict *d = dictCreate(&hashDictType);
        dictExpand(d, size);
        hashIterator it;
        hashIterInit(&it, o);
        while (hashIterNext(&it)) {
            sds field = sdsFromLpEntry(&it.field);
            dictAdd(d, field, withvalues ? sdsFromLpEntry(&it.value) : NULL);
            sdsfree(field); /* copied into the entry */
        }
        hashIterDone(&it);
        while (size > count) {
            dictEntry *de = dictGetFairRandomKey(d);
            dictFreeUnlinkedEntry(d, dictUnlink(d, dictGetKey(de)));
            size--;
        }
        dictIterator di;
        dictInitIterator(&di, d);
        dictEntry *de;
        while ((de = dictNext(&di))) addReplyRandomPairSds(c, dictGetKey(de), dictGetVal(de));
        dictResetIterator(&di);
        dictRelease(d);
        return;
    }
    /* Few of many: draw until count distinct fields came up, replying as we go. */
    dict *seen = dictCreate(&setDictType);
    dictExpand(seen, count);
    unsigned long added = 0;
    while (added < count) {
        lpEntry field, value;
        hashTypeRandomElement(o, size, &field, withvalues ? &value : NULL);
        sds key = sdsFromLpEntry(&field);
        int fresh = dictAdd(seen, key, NULL) == DICT_OK;
        sdsfree(key); /* copied into the entry */
        if (!fresh) continue;
        added++;
        addReplyRandomPair(c, &field, withvalues ? &value : NULL);
    }
    dictRelease(seen);
}

void hrandfieldCommand(client *c) {
    if (c->argc == 2) {
        robj *o = lookupKeyRead(c->db, c->argv[1]);
        if (replyIfWrongType(c, o, OBJ_HASH)) return;
        if (!o) {
            addReplyNull(c);
        } else {
            lpEntry field;
            hashTypeRandomElement(o, valueLength(o), &field, NULL);
            addReplyLpEntry(c, &field);
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
        hrandfieldWithRepeats(c, o, count, withvalues);
    } else if (count >= size) {
        hashIterator it;
        hashIterInit(&it, o);
        while (hashIterNext(&it)) addReplyRandomPair(c, &it.field, withvalues ? &it.value : NULL);
        hashIterDone(&it);
    } else {
        hrandfieldDistinct(c, o, count, withvalues);
    }
}
