/* object: value objects and string encodings (see object.h). */
#include "object.h"
#include "core/numparse.h"
#include "core/dict.h"
#include "core/panic.h"
#include "core/zmalloc.h"
#include "data/intset.h"
#include "data/listpack.h"
#include "data/packset.h"
#include "data/quicklist.h"
#include "data/skiplist.h"
#include "data/stream.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned int lru_clock;
static robj *shared_integers[OBJ_SHARED_INTEGERS];

void objectSetLruClock(unsigned int clock) { lru_clock = clock & LRU_CLOCK_MAX; }
unsigned int objectLruClock(void) { return lru_clock; }
uint64_t dictObjectHash(const void *key) {
    const robj *o = key;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = stringObjectView(o, buf, &len);
    return dictGenHashFunction(p, len);
}

int dictObjectKeyCompare(dict *d, const void *a, const void *b) {
    (void)d;
    return equalStringObjects(a, b);
}

void dictObjectDestructor(dict *d, void *o) {
    (void)d;
    if (o) decrRefCount(o);
}

struct dictType objectKeyDictType = {.hashFunction = dictObjectHash,
                                     .keyCompare = dictObjectKeyCompare,
                                     .keyDestructor = dictObjectDestructor};

/* The server's own sets of strings: members live inside their entries
 * (embedKey, one allocation each); dictAdd copies them. */
struct dictType setDictType = {.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare, .embedKey = 1};
/* Item mode: the table holds the members' skiplist nodes themselves, keyed by
 * the element inside each node; the skiplist frees them. A member costs no
 * dict entry unless it shares its bucket (Valkey 8 pays a 24-byte entry and a
 * score pointer per member). */
static const void *zsetNodeKey(const void *item) { return ((const zskiplistNode *)item)->ele; }
struct dictType zsetDictType = {.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare, .itemKey = zsetNodeKey};

robj *createQuicklistObject(int fill, int compress) {
    robj *o = createObject(OBJ_LIST, quicklistCreate(fill, compress));
    o->encoding = OBJ_ENCODING_QUICKLIST;
    return o;
}

robj *createListListpackObject(void) {
    robj *o = createObject(OBJ_LIST, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

robj *createSetObject(void) {
    robj *o = createObject(OBJ_SET, packsetCreate());
    o->encoding = OBJ_ENCODING_HT;
    return o;
}

robj *createHashTableObject(unsigned long sizeHint) {
    robj *o = createObject(OBJ_HASH, packsetCreatePairs());
    o->encoding = OBJ_ENCODING_HT;
    packsetExpand(objectPtr(o), sizeHint);
    return o;
}

robj *createIntsetObject(void) {
    robj *o = createObject(OBJ_SET, intsetNew());
    o->encoding = OBJ_ENCODING_INTSET;
    return o;
}

robj *createHashObject(void) {
    robj *o = createObject(OBJ_HASH, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

robj *createZsetObject(void) {
    zset *zs = zmalloc(sizeof(*zs));
    zs->dict = dictCreate(&zsetDictType);
    zs->zsl = zslCreate();
    robj *o = createObject(OBJ_ZSET, zs);
    o->encoding = OBJ_ENCODING_SKIPLIST;
    return o;
}

robj *createZsetListpackObject(void) {
    robj *o = createObject(OBJ_ZSET, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

/* ------------------------------------------------ payloads kept unchecked */

/* The lazyfree thread frees values too (freeAggregate forgets them here),
 * while the main thread marks and looks up: the list is guarded by a lock,
 * and its length is atomic so lookups test it without taking the lock. */
atomic_size_t object_unchecked_count;
static void **unchecked_payloads; /* o->ptr of each such value: a handful at most */
static pthread_mutex_t unchecked_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t unchecked_atfork_once = PTHREAD_ONCE_INIT;

/* Held across fork() so that a child never inherits it locked by the lazyfree
 * thread (which takes it while freeing such a value). */
static void lockUncheckedBeforeFork(void) { pthread_mutex_lock(&unchecked_lock); }
static void unlockUncheckedAfterFork(void) { pthread_mutex_unlock(&unchecked_lock); }
static void registerUncheckedAtfork(void) {
    pthread_atfork(lockUncheckedBeforeFork, unlockUncheckedAfterFork, unlockUncheckedAfterFork);
}

void objectMarkUnchecked(robj *o) {
    pthread_once(&unchecked_atfork_once, registerUncheckedAtfork);
    pthread_mutex_lock(&unchecked_lock);
    size_t n = atomic_load(&object_unchecked_count);
    unchecked_payloads = zrealloc(unchecked_payloads, sizeof(void *) * (n + 1));
    unchecked_payloads[n] = objectPtr(o);
    atomic_store(&object_unchecked_count, n + 1);
    pthread_mutex_unlock(&unchecked_lock);
}

/* Called with the lock held. */
static long uncheckedIndex(const robj *o) {
    size_t n = atomic_load(&object_unchecked_count);
    for (size_t j = 0; j < n; j++)
        if (unchecked_payloads[j] == objectPtr(o)) return (long)j;
    return -1;
}

void objectAssertCheckedSlow(const robj *o) {
    pthread_mutex_lock(&unchecked_lock);
    long j = uncheckedIndex(o);
    pthread_mutex_unlock(&unchecked_lock);
    if (j >= 0)
        _serverAssert("the value's entries are sound (it was RESTOREd without sanitize-dump-payload and failed "
                      "the deep check)",
                      __FILE__, __LINE__);
}

void objectCopyUncheckedMark(const robj *from, robj *to) {
    if (!atomic_load_explicit(&object_unchecked_count, memory_order_relaxed)) return;
    pthread_mutex_lock(&unchecked_lock);
    long j = uncheckedIndex(from);
    pthread_mutex_unlock(&unchecked_lock);
    if (j >= 0) objectMarkUnchecked(to);
}

/* Before its payload is freed (on either thread), so that no later value
 * at the same address is taken for it. */
static void forgetUnchecked(const robj *o) {
    pthread_mutex_lock(&unchecked_lock);
    long j = uncheckedIndex(o);
    if (j >= 0) {
        size_t n = atomic_load(&object_unchecked_count) - 1;
        unchecked_payloads[j] = unchecked_payloads[n];
        atomic_store(&object_unchecked_count, n);
    }
    pthread_mutex_unlock(&unchecked_lock);
}

static void freeAggregate(robj *o) {
    if (atomic_load_explicit(&object_unchecked_count, memory_order_relaxed)) forgetUnchecked(o);
    switch (o->encoding) {
    case OBJ_ENCODING_QUICKLIST: quicklistRelease(objectPtr(o)); break;
    case OBJ_ENCODING_HT: packsetRelease(objectPtr(o)); break; /* a set's or a hash's */
    case OBJ_ENCODING_INTSET: intsetFree(objectPtr(o)); break;
    case OBJ_ENCODING_LISTPACK:
        if (!objectIsPacked(o)) lpFree(objectPtr(o)); /* else it goes with the object */
        break;
    case OBJ_ENCODING_STREAM: streamFree(objectPtr(o)); break;
    case OBJ_ENCODING_SKIPLIST: {
        zset *zs = objectPtr(o);
        dictRelease(zs->dict);
        zslFree(zs->zsl);
        zfree(zs);
        break;
    }
    default: abort();
    }
}

robj *createObject(int type, void *ptr) {
    robj *o = zmalloc(sizeof(*o));
    o->type = type;
    o->encoding = OBJ_ENCODING_RAW;
    o->refcount = 1;
    o->haskey = 0;
    o->ptr_ = ptr;
    o->lru = lru_clock;
    return o;
}

robj *makeObjectShared(robj *o) {
    o->refcount = OBJ_SHARED_REFCOUNT;
    return o;
}

void initSharedIntegers(void) {
    for (long long i = 0; i < OBJ_SHARED_INTEGERS; i++) {
        robj *o = makeObjectShared(createObject(OBJ_STRING, (void *)(intptr_t)i));
        o->encoding = OBJ_ENCODING_INT;
        shared_integers[i] = o;
    }
}

robj *sharedInteger(long long v) {
    if (v >= 0 && v < OBJ_SHARED_INTEGERS && shared_integers[0]) return shared_integers[v];
    return NULL;
}

robj *createRawStringObject(const char *ptr, size_t len) {
    return createObject(OBJ_STRING, sdsnewlen(ptr, len));
}

/* One allocation: the object header followed by an immutable embedded sds,
 * so short strings cost a single malloc. Writers turn it raw first. */
robj *createEmbeddedStringObject(const char *ptr, size_t len) {
    robj *o = zmalloc(sizeof(robj) + sdsEmbeddedSize(len));
    o->type = OBJ_STRING;
    o->encoding = OBJ_ENCODING_EMBSTR;
    o->refcount = 1;
    o->haskey = 0;
    o->lru = lru_clock;
    o->ptr_ = sdsEmbed(o + 1, ptr, len);
    return o;
}

/* Moves val's value into a keyspace object: embstr bytes are copied to
 * embedAt, a raw string still referenced elsewhere is copied, any other
 * payload moves (val keeps a shell that frees nothing). Returns the new ptr;
 * val's reference is not released here. */
static void *takeValue(robj *val, void *embedAt) {
    if (objectIsPacked(val)) return zmemdup(objectPtr(val), lpBytes(objectPtr(val)));
    if (val->type == OBJ_STRING && val->encoding == OBJ_ENCODING_EMBSTR)
        return sdsEmbed(embedAt, objectPtr(val), sdslen(objectPtr(val)));
    if (val->type == OBJ_STRING && val->encoding == OBJ_ENCODING_RAW && objectRefs(val) > 1) return sdsdup(objectPtr(val));
    void *ptr = objectPtr(val);
    if (val->type != OBJ_STRING || val->encoding == OBJ_ENCODING_RAW) objectSetPtr(val, NULL);
    return ptr;
}

/* Where a keyspace object's embedded value starts: right after its key
 * (and its nul, except in a compact object). */
static char *embeddedValueArea(robj *o) {
    sds key = objectKey(o);
    return key + sdslen(key) + !objectIsCompact(o);
}

static void initKeyspaceHeader(robj *o, const robj *val, unsigned flags) {
    o->type = val->type;
    o->encoding = val->encoding;
    o->lru = val->lru;
    o->haskey = 1;
    o->refcount = 1 | flags; /* no TTL slot yet */
}

robj *objectWithKey(const char *key, size_t keylen, robj *val) {
    int embed = val->type == OBJ_STRING && val->encoding == OBJ_ENCODING_EMBSTR;
    size_t vallen = embed ? sdslen(objectPtr(val)) : 0;
    robj *o;
    if (embed && keylen <= OBJ_COMPACT_MAX_LEN && vallen <= OBJ_COMPACT_MAX_LEN) {
        /* header | key sds5 | value sds5: both headers one byte, no ptr_,
         * the value's header over the key's nul */
        o = zmalloc(OBJ_HEADER_SIZE + sdsEmbeddedSize(keylen) - 1 + sdsEmbeddedSize(vallen));
        initKeyspaceHeader(o, val, OBJ_KEYSPACE_COMPACT);
        sds k = sdsEmbed((char *)o + OBJ_HEADER_SIZE, key, keylen);
        sdsEmbed(k + keylen, objectPtr(val), vallen);
    } else {
        size_t keysize = sdsEmbeddedSize(keylen);
        size_t valsize = embed ? sdsEmbeddedSize(vallen) : 0;
        o = zmalloc(sizeof(robj) + 1 + keysize + valsize);
        initKeyspaceHeader(o, val, 0);
        unsigned char *area = (unsigned char *)(o + 1);
        area[0] = (unsigned char)(keysize - keylen - 1);
        sdsEmbed(area + 1, key, keylen);
        o->ptr_ = takeValue(val, area + 1 + keysize);
    }
    decrRefCount(val);
    return o;
}

int objectReplaceValue(robj *o, robj *val) {
    if (objectRefs(o) != 1 || val == o || objectIsPacked(o)) return 0;
    char *area = embeddedValueArea(o);
    int embed = val->type == OBJ_STRING && val->encoding == OBJ_ENCODING_EMBSTR;
    if (objectIsCompact(o)) { /* stays compact, or a new object is built */
        if (!embed) return 0;
        size_t len = sdslen(objectPtr(val));
        if (len > OBJ_COMPACT_MAX_LEN || sdsEmbeddedSize(len) > zmalloc_size(o) - (size_t)(area - (char *)o)) return 0;
        sdsEmbed(area, objectPtr(val), len);
        decrRefCount(val);
        return 1;
    }
    if (embed) {
        /* Room: the old embstr's bytes, else what the allocator gave beyond them. */
        size_t need = sdsEmbeddedSize(sdslen(objectPtr(val)));
        size_t have = o->encoding == OBJ_ENCODING_EMBSTR ? sdsEmbeddedSize(sdslen(objectPtr(o))) : 0;
        if (need > have && need > zmalloc_size(o) - (size_t)(area - (char *)o)) return 0;
    }
    if (o->type != OBJ_STRING) {
        if (objectPtr(o)) freeAggregate(o);
    } else if (o->encoding == OBJ_ENCODING_RAW) {
        sdsfree(objectPtr(o));
    }
    o->type = val->type;
    o->encoding = val->encoding;
    o->ptr_ = takeValue(val, area);
    decrRefCount(val);
    return 1;
}

void objectSetPtrOfInline(robj *o) {
    (void)o;
    _serverAssert("a compact or packed keyspace object's value is not replaced through its ptr", __FILE__, __LINE__);
}

unsigned char *objectPackedPayload(const robj *o) {
    sds key = objectKey(o);
    return (unsigned char *)key + sdslen(key) + 1;
}

/* Packed: 8-byte header | byte | key sds | listpack. Unpacked in place:
 * robj header (ptr_ at 8) | byte | key sds, in the same allocation, which
 * is large enough: the listpack took at least 8 bytes (objectPack). */
void objectUnpackSlow(robj *o) {
    unsigned char *lp = objectPtr(o);
    unsigned char *copy = zmemdup(lp, lpBytes(lp));
    unsigned char *area = (unsigned char *)o + OBJ_HEADER_SIZE;
    memmove(o + 1, area, (size_t)(lp - area));
    o->refcount &= ~OBJ_KEYSPACE_PACKED;
    o->ptr_ = copy;
}

/* Whether o holds a small listpack and nobody else holds o. */
static int packable(const robj *o) {
    if (o->encoding != OBJ_ENCODING_LISTPACK || objectRefs(o) != 1) return 0;
    /* A payload RESTOREd unchecked is known by its address (objectMarkUnchecked). */
    if (atomic_load_explicit(&object_unchecked_count, memory_order_relaxed)) return 0;
    return lpBytes(objectPtr(o)) <= OBJ_PACKED_MAX_BYTES;
}

/* header (type, encoding, access bits of from) | byte | key | a copy of lp,
 * given at least 8 bytes: ptr_'s room when it is unpacked. */
static robj *packedObject(const robj *from, const char *key, size_t keylen, const unsigned char *lp) {
    size_t keysize = sdsEmbeddedSize(keylen), lpsize = lpBytes((unsigned char *)lp);
    robj *o = zmalloc(OBJ_HEADER_SIZE + 1 + keysize + (lpsize < 8 ? 8 : lpsize));
    initKeyspaceHeader(o, from, OBJ_KEYSPACE_PACKED);
    unsigned char *area = (unsigned char *)o + OBJ_HEADER_SIZE;
    area[0] = (unsigned char)(keysize - keylen - 1);
    sdsEmbed(area + 1, key, keylen);
    memcpy(area + 1 + keysize, lp, lpsize);
    return o;
}

robj *objectPack(robj *o) {
    if (!o->haskey || objectIsPacked(o) || !packable(o)) return NULL;
    unsigned char *lp = o->ptr_;
    size_t lpsize = lpBytes(lp);
    const unsigned char *area = (const unsigned char *)(o + 1);
    sds key = objectKey(o);
    size_t keyarea = 1 + area[0] + sdslen(key) + 1;
    if (OBJ_HEADER_SIZE + keyarea + (lpsize < 8 ? 8 : lpsize) > zmalloc_size(o))
        return packedObject(o, key, sdslen(key), lp);
    /* It fits where it is (an object packed before, its listpack no bigger than its block allows). */
    memmove((char *)o + OBJ_HEADER_SIZE, area, keyarea);
    memcpy((char *)o + OBJ_HEADER_SIZE + keyarea, lp, lpsize);
    o->refcount |= OBJ_KEYSPACE_PACKED;
    lpFree(lp);
    return o;
}

robj *objectWithKeyPacked(const char *key, size_t keylen, robj *val) {
    if (objectIsPacked(val) || !packable(val)) return objectWithKey(key, keylen, val);
    robj *o = packedObject(val, key, keylen, objectPtr(val));
    decrRefCount(val);
    return o;
}

/* ---------------------------------------------- references of keyspace objects */

/* A keyspace object counts up to OBJ_KEYSPACE_REFS references in its
 * header; the ones past that are counted here (SORT ... BY with a weight key many elements share
 * holds it once per element). Main thread only: the lazyfree thread is only
 * given objects nobody else holds. */
static dictType extraRefsType = {.hashFunction = dictPtrHash};
static dict *extra_refs; /* object → references beyond OBJ_KEYSPACE_REFS */

static uintptr_t extraRefs(const robj *o) {
    dictEntry *de = extra_refs ? dictFind(extra_refs, o) : NULL;
    return de ? (uintptr_t)dictGetVal(de) : 0;
}

static void setExtraRefs(robj *o, uintptr_t n) {
    if (!extra_refs) extra_refs = dictCreate(&extraRefsType);
    if (n == 0) {
        dictDelete(extra_refs, o);
        return;
    }
    dictEntry *de = dictAddOrFind(extra_refs, o);
    dictSetVal(extra_refs, de, (void *)n);
}

unsigned objectRefs(const robj *o) {
    if (!o->haskey) return o->refcount;
    unsigned refs = o->refcount & OBJ_KEYSPACE_REFS;
    return refs == OBJ_KEYSPACE_REFS ? refs + (unsigned)extraRefs(o) : refs;
}

static void keyspaceIncrRefs(robj *o) {
    if ((o->refcount & OBJ_KEYSPACE_REFS) == OBJ_KEYSPACE_REFS) setExtraRefs(o, extraRefs(o) + 1);
    else o->refcount++;
}

/* Drops one reference; 1 when it was the last. */
static int keyspaceDecrRefs(robj *o) {
    unsigned refs = o->refcount & OBJ_KEYSPACE_REFS;
    if (refs == 1) return 1;
    uintptr_t extra = refs == OBJ_KEYSPACE_REFS ? extraRefs(o) : 0;
    if (extra) setExtraRefs(o, extra - 1);
    else o->refcount--;
    return 0;
}

/* Redis shares no integers under an LRU/LFU maxmemory policy (each value
 * needs its own access clock): OBJECT REFCOUNT then says 1 for them. */
static int report_shared_integers = 1;
void objectReportSharedIntegers(int on) { report_shared_integers = on; }

int objectRefcountView(const robj *o) {
    int shared = (!o->haskey && o->refcount == OBJ_SHARED_REFCOUNT) ||
                 (report_shared_integers && o->haskey && o->encoding == OBJ_ENCODING_INT &&
                  sharedInteger((intptr_t)objectPtr(o)));
    return shared ? INT_MAX : (int)objectRefs(o);
}

robj *createStringObject(const char *ptr, size_t len) {
    if (len <= OBJ_EMBSTR_SIZE_LIMIT) return createEmbeddedStringObject(ptr, len);
    return createRawStringObject(ptr, len);
}

static robj *createIntObject(long long value) {
    robj *o = createObject(OBJ_STRING, (void *)(intptr_t)value);
    o->encoding = OBJ_ENCODING_INT;
    return o;
}

robj *createStringObjectFromLongLong(long long value) {
    robj *shared = sharedInteger(value);
    if (shared) return shared;
    return createIntObject(value);
}

robj *createStringObjectFromLongDouble(long double value, int humanfriendly) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), value, humanfriendly);
    return createStringObject(buf, len);
}

robj *dupStringObject(const robj *o) {
    switch (o->encoding) {
    case OBJ_ENCODING_RAW: return createRawStringObject(objectPtr(o), sdslen(objectPtr(o)));
    case OBJ_ENCODING_EMBSTR: return createEmbeddedStringObject(objectPtr(o), sdslen(objectPtr(o)));
    default: return createIntObject((long long)(intptr_t)objectPtr(o));
    }
}

/* Turns a string into its most compact encoding: shared/int for integers that
 * print back identically, embstr for short strings, or trims spare capacity. */
robj *tryObjectEncoding(robj *o) {
    if (o->type != OBJ_STRING || !sdsEncodedObject(o) || objectRefs(o) > 1) return o;
    sds s = objectPtr(o);
    size_t len = sdslen(s);
    long long value;
    if (len <= 20 && string2ll(s, len, &value)) {
        robj *shared = sharedInteger(value);
        if (shared) {
            decrRefCount(o);
            return shared;
        }
        if (o->encoding == OBJ_ENCODING_RAW) {
            sdsfree(s);
            o->encoding = OBJ_ENCODING_INT;
            objectSetPtr(o, (void *)(intptr_t)value);
            return o;
        }
        robj *n = createIntObject(value);
        n->lru = o->lru;
        decrRefCount(o);
        return n;
    }
    if (len <= OBJ_EMBSTR_SIZE_LIMIT) {
        if (o->encoding == OBJ_ENCODING_EMBSTR) return o;
        robj *emb = createEmbeddedStringObject(s, len);
        decrRefCount(o);
        return emb;
    }
    if (o->encoding == OBJ_ENCODING_RAW && sdsavail(s) > len / 10) objectSetPtr(o, sdsRemoveFreeSpace(s));
    return o;
}

robj *getDecodedObject(robj *o) {
    if (sdsEncodedObject(o)) {
        incrRefCount(o);
        return o;
    }
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), (long long)(intptr_t)objectPtr(o));
    return createStringObject(buf, len);
}

void incrRefCount(robj *o) {
    if (o->haskey) keyspaceIncrRefs(o);
    else if (o->refcount != OBJ_SHARED_REFCOUNT) o->refcount++;
}

void decrRefCount(robj *o) {
    if (o->haskey ? keyspaceDecrRefs(o) : o->refcount == 1) {
        if (o->type == OBJ_STRING) {
            if (o->encoding == OBJ_ENCODING_RAW) sdsfree(objectPtr(o));
            /* The size createEmbeddedStringObject allocated (the string is
             * immutable); a keyspace object's size depends on its key. */
            if (o->encoding == OBJ_ENCODING_EMBSTR && !o->haskey) {
                zfree_sized(o, sizeof(robj) + sdsEmbeddedSize(sdslen(objectPtr(o))));
                return;
            }
        } else if (objectPtr(o)) { /* NULL: its payload moved to a keyspace object */
            freeAggregate(o);
        }
        zfree(o);
    } else if (!o->haskey && o->refcount != OBJ_SHARED_REFCOUNT) {
        o->refcount--;
    }
}


void decrRefCountVoid(void *o) { decrRefCount(o); }

size_t stringObjectLen(const robj *o) {
    if (sdsEncodedObject(o)) return sdslen(objectPtr(o));
    char buf[LONG_STR_SIZE]; /* printing handles LLONG_MIN, which llabs cannot */
    return (size_t)ll2string(buf, sizeof(buf), (long long)(intptr_t)objectPtr(o));
}

int getLongLongFromObject(const robj *o, long long *target) {
    long long value = 0;
    if (o != NULL) {
        if (sdsEncodedObject(o)) {
            if (!string2ll(objectPtr(o), sdslen(objectPtr(o)), &value)) return -1;
        } else {
            value = (long long)(intptr_t)objectPtr(o);
        }
    }
    *target = value;
    return 0;
}

int getDoubleFromObject(const robj *o, double *target) {
    double value = 0;
    if (o != NULL) {
        if (sdsEncodedObject(o)) {
            if (!string2d(objectPtr(o), sdslen(objectPtr(o)), &value)) return -1;
        } else {
            value = (double)(long long)(intptr_t)objectPtr(o);
        }
    }
    *target = value;
    return 0;
}

int getLongDoubleFromObject(const robj *o, long double *target) {
    long double value = 0;
    if (o != NULL) {
        if (sdsEncodedObject(o)) {
            if (!string2ld(objectPtr(o), sdslen(objectPtr(o)), &value)) return -1;
        } else {
            value = (long double)(long long)(intptr_t)objectPtr(o);
        }
    }
    *target = value;
    return 0;
}

static int compareViews(const robj *a, const robj *b, int collate) {
    char ba[LONG_STR_SIZE], bb[LONG_STR_SIZE];
    size_t la, lb;
    const char *pa = stringObjectView(a, ba, &la), *pb = stringObjectView(b, bb, &lb);
    if (collate) return strcoll(pa, pb);
    size_t minlen = la < lb ? la : lb;
    int cmp = memcmp(pa, pb, minlen);
    if (cmp == 0) return la < lb ? -1 : (la > lb);
    return cmp;
}

int compareStringObjects(const robj *a, const robj *b) { return a == b ? 0 : compareViews(a, b, 0); }
int collateStringObjects(const robj *a, const robj *b) { return a == b ? 0 : compareViews(a, b, 1); }

int equalStringObjects(const robj *a, const robj *b) {
    if (a->encoding == OBJ_ENCODING_INT && b->encoding == OBJ_ENCODING_INT) return objectPtr(a) == objectPtr(b);
    return compareStringObjects(a, b) == 0;
}

const char *strEncoding(int encoding) {
    switch (encoding) {
    case OBJ_ENCODING_RAW: return "raw";
    case OBJ_ENCODING_INT: return "int";
    case OBJ_ENCODING_HT: return "hashtable";
    case OBJ_ENCODING_INTSET: return "intset";
    case OBJ_ENCODING_SKIPLIST: return "skiplist";
    case OBJ_ENCODING_EMBSTR: return "embstr";
    case OBJ_ENCODING_QUICKLIST: return "quicklist";
    case OBJ_ENCODING_LISTPACK: return "listpack";
    case OBJ_ENCODING_STREAM: return "stream";
    default: return "unknown";
    }
}

const char *strType(int type) {
    switch (type) {
    case OBJ_STRING: return "string";
    case OBJ_LIST: return "list";
    case OBJ_SET: return "set";
    case OBJ_ZSET: return "zset";
    case OBJ_HASH: return "hash";
    case OBJ_STREAM: return "stream";
    default: return "unknown";
    }
}
