/* object: the refcounted value object, and the string encodings (int,
 * embstr, raw). Aggregate types keep their own structures in ptr; this module
 * only knows how to free them and name their encodings. A value stored in the
 * keyspace is a keyspace object that also holds its key (objectWithKey). */
#ifndef DATA_OBJECT_H
#define DATA_OBJECT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "core/numparse.h"
#include "core/sds.h"

/* Numbering as in Redis's RDB object types where they coincide. */
#define OBJ_STRING 0
#define OBJ_LIST 1
#define OBJ_SET 2
#define OBJ_ZSET 3
#define OBJ_HASH 4
#define OBJ_STREAM 6

#define OBJ_ENCODING_RAW 0
#define OBJ_ENCODING_INT 1
#define OBJ_ENCODING_HT 2
#define OBJ_ENCODING_INTSET 6
#define OBJ_ENCODING_SKIPLIST 7
#define OBJ_ENCODING_EMBSTR 8
#define OBJ_ENCODING_QUICKLIST 9
#define OBJ_ENCODING_STREAM 10
#define OBJ_ENCODING_LISTPACK 11

#define OBJ_SHARED_REFCOUNT 0x7fffffff
#define OBJ_SHARED_INTEGERS 10000
#define OBJ_EMBSTR_SIZE_LIMIT 44
#define LRU_BITS 24
#define LRU_CLOCK_MAX ((1 << LRU_BITS) - 1)
#define LONG_STR_SIZE 21

typedef struct robj {
    unsigned type : 4;
    unsigned encoding : 4;
    unsigned lru : LRU_BITS; /* seconds clock at last access (OBJECT IDLETIME) */
    unsigned refcount : 31; /* in a keyspace object: OBJ_KEYSPACE_* below */
    unsigned haskey : 1;    /* a keyspace object: see objectWithKey */
    void *ptr_;             /* the value: read and set with objectPtr / objectSetPtr */
} robj;

/* A keyspace object (haskey) has no use for 31 bits of references, so the
 * field packs five things:
 *   bits 0-2   its references; at OBJ_KEYSPACE_REFS the rest are counted in
 *              a side table (object.c) — a handful of holders at a time is
 *              the rule (RENAME, SORT), thousands the rare exception
 *   bit 3      pack due: the keyspace (server/db.c) is to pack it after the
 *              turn's commands
 *   bit 4      compact: the header, the key and a short string value, with
 *              no ptr_ (objectWithKey), so `SET key:N 10-byte-value` takes
 *              a 32-byte allocation instead of 48
 *   bit 5      packed: the header, the key and a small listpack (a hash,
 *              set, sorted set or list), with no ptr_ (objectPack), so
 *              `HSET h:N` of 10 small fields takes one 128-byte allocation
 *              instead of 32 + 112
 *   bits 6-30  the slot of its deadline in the db's ttlheap, plus 1 (0: no
 *              TTL; OBJ_KEYSPACE_SLOT_FAR: a slot past the field's range,
 *              which db.c keeps in a side table)
 * so a TTL costs the object nothing. */
#define OBJ_KEYSPACE_REFS 7u
#define OBJ_KEYSPACE_PACK_DUE 8u
#define OBJ_KEYSPACE_COMPACT 16u
#define OBJ_KEYSPACE_PACKED 32u
#define OBJ_KEYSPACE_SLOT_SHIFT 6
#define OBJ_KEYSPACE_SLOT_FAR ((1u << 25) - 1)
#define OBJ_HEADER_SIZE 8 /* a compact or packed object ends its header here: no ptr_ */
#define OBJ_COMPACT_MAX_LEN 31 /* key and value both fit sds5 headers */
/* The largest listpack objectPack takes in: a write unpacks it first and the
 * key is packed again after the command, two copies of it per written key. */
#define OBJ_PACKED_MAX_BYTES 512

static inline int objectIsCompact(const robj *o) { return o->haskey && (o->refcount & OBJ_KEYSPACE_COMPACT); }
static inline int objectIsPacked(const robj *o) { return o->haskey && (o->refcount & OBJ_KEYSPACE_PACKED); }
/* A compact object: header | key as sds5 | value as sds5, where the value's
 * header takes the place of the key's terminating nul: a compact key is the
 * one sds that is not nul-terminated, so it is only ever read with its length
 * (which every reader of keyspace keys does: hashing, compare, copies). That
 * byte puts `SET key:NNNNNNN 10-byte-value` (10M keys) at 32 bytes, not 48. */
static inline char *objectCompactKey(const robj *o) { return (char *)o + OBJ_HEADER_SIZE + 1; }
static inline char *objectCompactValue(const robj *o) {
    const unsigned char *key = (const unsigned char *)objectCompactKey(o);
    return (char *)key + (key[-1] >> 3) + 1;
}
/* Other keyspace objects: header | byte giving the key's sds header size |
 * key | an embstr value (after ptr_), or the listpack (packed: no ptr_). */
static inline sds objectKey(const robj *o) {
    if (objectIsCompact(o)) return objectCompactKey(o);
    const unsigned char *area = objectIsPacked(o) ? (const unsigned char *)o + OBJ_HEADER_SIZE
                                                  : (const unsigned char *)(o + 1);
    return (sds)(area + 1 + area[0]);
}
/* A packed object's listpack: right after its key's nul (out of line: the
 * rare case of objectPtr, which is everywhere). */
unsigned char *objectPackedPayload(const robj *o);
/* The value: an sds, a payload (list, hash...), or an integer (INT encoding). */
static inline void *objectPtr(const robj *o) {
    if (!o->haskey || !(o->refcount & (OBJ_KEYSPACE_COMPACT | OBJ_KEYSPACE_PACKED))) return o->ptr_;
    return (o->refcount & OBJ_KEYSPACE_COMPACT) ? (void *)objectCompactValue(o) : (void *)objectPackedPayload(o);
}
/* Stops the server: a compact value is immutable, and a packed payload is
 * changed only after objectUnpack. */
void objectSetPtrOfInline(robj *o);
static inline void objectSetPtr(robj *o, void *ptr) {
    if (o->haskey && (o->refcount & (OBJ_KEYSPACE_COMPACT | OBJ_KEYSPACE_PACKED))) objectSetPtrOfInline(o);
    o->ptr_ = ptr;
}
/* Packed keyspace objects. objectUnpack gives a packed object's listpack an
 * allocation of its own and ptr_, in place: the object keeps its address
 * (its key moves within it), so whoever holds it may go on. Every edit of a
 * listpack payload starts with it (objectPtrForWrite). objectPack packs a
 * keyspace object that holds a listpack of at most OBJ_PACKED_MAX_BYTES and
 * that nobody else references: in place when its block has the room (it
 * returns o), else into a new object (type, encoding, access bits and key
 * copied; no TTL slot yet) that the caller puts in o's place before freeing
 * o; NULL when o is not to be packed. */
void objectUnpackSlow(robj *o);
static inline void objectUnpack(robj *o) {
    if (objectIsPacked(o)) objectUnpackSlow(o);
}
static inline void *objectPtrForWrite(robj *o) {
    objectUnpack(o);
    return objectPtr(o);
}
robj *objectPack(robj *o);
static inline uint32_t objectExpireSlot(const robj *o) { return o->refcount >> OBJ_KEYSPACE_SLOT_SHIFT; }
static inline void objectSetExpireSlot(robj *o, uint32_t slot) {
    o->refcount = (o->refcount & ((1u << OBJ_KEYSPACE_SLOT_SHIFT) - 1)) | (slot << OBJ_KEYSPACE_SLOT_SHIFT);
}
/* References held: any object. */
unsigned objectRefs(const robj *o);

/* The clock objects stamp on access; the server's cron advances it. */
void objectSetLruClock(unsigned int clock);
unsigned int objectLruClock(void);
/* A large sorted set: member → score in the dict (the value points at the
 * skiplist node's score), and the skiplist for order. */
typedef struct zset {
    struct dict *dict;
    struct zskiplist *zsl;
} zset;

/* The hash-table types of the aggregate encodings: a set's or a hash's
 * table is a packset (data/packset.h), a sorted set's a dict of its skiplist
 * nodes; setDictType is for the server's own sets of strings (embedded keys:
 * dictAdd copies them, the caller keeps its own). */
extern struct dictType setDictType;  /* sds member (embedded) → NULL */
extern struct dictType zsetDictType; /* item mode: the skiplist's nodes (t_zset.h's zsetDictNode) */

/* Dicts keyed by string objects (channels, blocked and watched keys): the key
 * is released with decrRefCount; values are the user's. */
uint64_t dictObjectHash(const void *key);
int dictObjectKeyCompare(struct dict *d, const void *a, const void *b);
void dictObjectDestructor(struct dict *d, void *o);
extern struct dictType objectKeyDictType;

robj *createQuicklistObject(int fill, int compress);
robj *createListListpackObject(void); /* a small list, as Redis 7.2 encodes it */
robj *createSetObject(void);        /* hashtable encoding (a packset) */
robj *createIntsetObject(void);
robj *createHashObject(void);       /* listpack encoding */
robj *createHashTableObject(unsigned long sizeHint); /* hashtable encoding (a packset of pairs) */
robj *createZsetObject(void);       /* skiplist encoding */
robj *createZsetListpackObject(void);

/* Keyspace objects. A value stored under a key is one allocation holding
 *   compact (a string value and a key of at most 31 bytes each):
 *     8-byte header | key sds5 without its nul | value sds5
 *   packed (a small listpack, between commands; objectPack):
 *     8-byte header | a byte giving the key's sds header size | key sds | listpack
 *   else: robj header | a byte giving the key's sds header size | key sds |
 *     for embstr values, the value sds
 * so a key with a short string costs a single allocation and the keyspace
 * table needs no entry of its own (it stores these objects, core/dict item
 * mode). objectWithKey builds one from val, consuming the caller's
 * reference: an embstr value is copied in, other payloads (raw sds, lists,
 * hashes...) move into the new object — when val is still referenced
 * elsewhere, a raw string is copied and an aggregate is moved anyway, leaving
 * the other holders an empty shell they may only release. */
robj *objectWithKey(const char *key, size_t keylen, robj *val);
/* objectWithKey, packing a small listpack value at once (objectPack). */
robj *objectWithKeyPacked(const char *key, size_t keylen, robj *val);
/* Puts val's value into keyspace object o in place (same key, TTL slot and
 * access bits; o's old value freed), consuming val's reference as
 * objectWithKey does. 0, and nothing done, when o is shared or an embstr
 * val does not fit in o's allocation: then build a new object. */
int objectReplaceValue(robj *o, robj *val);

/* The refcount OBJECT REFCOUNT and DEBUG OBJECT show: shared objects, and
 * a key holding an integer of the shared range (Redis stores the shared
 * object there; ours keeps a copy in its keyspace object), answer INT_MAX. */
int objectRefcountView(const robj *o);

robj *createObject(int type, void *ptr);
robj *createStringObject(const char *ptr, size_t len);
robj *createRawStringObject(const char *ptr, size_t len);
robj *createEmbeddedStringObject(const char *ptr, size_t len);
robj *createStringObjectFromLongLong(long long value);
robj *createStringObjectFromLongDouble(long double value, int humanfriendly);
robj *dupStringObject(const robj *o);
robj *tryObjectEncoding(robj *o);
robj *getDecodedObject(robj *o);
void incrRefCount(robj *o);
void decrRefCount(robj *o);

/* A compact payload RESTOREd without sanitize-dump-payload whose header and
 * size are right (Redis's shallow check) but whose entries are not: Redis
 * keeps it and stops on an assertion when a command touches a bad entry.
 * Our commands trust entries, so such a value is marked here and the first
 * lookup of it by a command that reads entries stops the server the same way
 * (objectAssertChecked, in lookupKey: one test of a counter that is 0 unless
 * such a value exists; TYPE, TTL, DUMP, RENAME... look up without it). DUMP
 * and SAVE copy it as it came; freeing it forgets it. Keyed by o->ptr, which
 * moves with the payload into its keyspace object (and on RENAME, MOVE). */
extern atomic_size_t object_unchecked_count; /* atomic: the lazyfree thread frees such values too */
void objectMarkUnchecked(robj *o);
/* to, a byte copy of from (COPY), is marked when from is. */
void objectCopyUncheckedMark(const robj *from, robj *to);
void objectAssertCheckedSlow(const robj *o);
#define objectAssertChecked(o)                            \
    do {                                                  \
        if (atomic_load_explicit(&object_unchecked_count, memory_order_relaxed)) objectAssertCheckedSlow(o); \
    } while (0)
void decrRefCountVoid(void *o);
robj *makeObjectShared(robj *o);
void initSharedIntegers(void);
robj *sharedInteger(long long v); /* NULL when out of the shared range */
/* Whether a keyspace value holding a small integer reports itself shared
 * (OBJECT REFCOUNT, DEBUG OBJECT): not under an LRU/LFU maxmemory policy. */
void objectReportSharedIntegers(int on);

static inline int sdsEncodedObject(const robj *o) {
    return o->encoding == OBJ_ENCODING_RAW || o->encoding == OBJ_ENCODING_EMBSTR;
}
size_t stringObjectLen(const robj *o);
/* A string object's bytes without allocating: int-encoded values are printed into buf. */
static inline const char *stringObjectView(const robj *o, char buf[LONG_STR_SIZE], size_t *len) {
    if (sdsEncodedObject(o)) {
        *len = sdslen(objectPtr(o));
        return objectPtr(o);
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, (long long)(intptr_t)objectPtr(o));
    return buf;
}
int getLongLongFromObject(const robj *o, long long *target);
int getDoubleFromObject(const robj *o, double *target);
int getLongDoubleFromObject(const robj *o, long double *target);
int compareStringObjects(const robj *a, const robj *b);
int collateStringObjects(const robj *a, const robj *b);
int equalStringObjects(const robj *a, const robj *b);
const char *strEncoding(int encoding);
const char *strType(int type);

#endif
