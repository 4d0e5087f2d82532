/* object: the refcounted value object every key points to, and the string
 * encodings (int, embstr, raw). Aggregate types keep their own structures in
 * ptr; this module only knows how to free them and name their encodings. */
#ifndef DATA_OBJECT_H
#define DATA_OBJECT_H

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
    int refcount;
    void *ptr;
} robj;

/* The clock objects stamp on access; the server's cron advances it. */
void objectSetLruClock(unsigned int clock);
unsigned int objectLruClock(void);
/* A large sorted set: member → score in the dict (the value points at the
 * skiplist node's score), and the skiplist for order. */
typedef struct zset {
    struct dict *dict;
    struct zskiplist *zsl;
} zset;

/* The hash-table types every aggregate encoding uses (sds members/fields).
 * Sets and hashes embed the key: dictAdd copies it, the caller keeps its own. */
extern struct dictType setDictType;  /* sds member (embedded) → NULL */
extern struct dictType hashDictType; /* sds field (embedded) → sds value */
extern struct dictType zsetDictType; /* sds member → double* (owned by the skiplist) */

/* Dicts keyed by string objects (channels, blocked and watched keys): the key
 * is released with decrRefCount; values are the user's. */
uint64_t dictObjectHash(const void *key);
int dictObjectKeyCompare(struct dict *d, const void *a, const void *b);
void dictObjectDestructor(struct dict *d, void *o);
extern struct dictType objectKeyDictType;

robj *createQuicklistObject(int fill, int compress);
robj *createListListpackObject(void); /* a small list, as Redis 7.2 encodes it */
robj *createSetObject(void);        /* hashtable encoding */
robj *createIntsetObject(void);
robj *createHashObject(void);       /* listpack encoding */
robj *createZsetObject(void);       /* skiplist encoding */
robj *createZsetListpackObject(void);

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
void decrRefCountVoid(void *o);
robj *makeObjectShared(robj *o);
void initSharedIntegers(void);
robj *sharedInteger(long long v); /* NULL when out of the shared range */

int sdsEncodedObject(const robj *o);
size_t stringObjectLen(const robj *o);
/* A string object's bytes without allocating: int-encoded values are printed into buf. */
const char *stringObjectView(const robj *o, char buf[LONG_STR_SIZE], size_t *len);
int getLongLongFromObject(const robj *o, long long *target);
int getDoubleFromObject(const robj *o, double *target);
int getLongDoubleFromObject(const robj *o, long double *target);
int compareStringObjects(const robj *a, const robj *b);
int collateStringObjects(const robj *a, const robj *b);
int equalStringObjects(const robj *a, const robj *b);
const char *strEncoding(int encoding);
const char *strType(int type);

#endif
