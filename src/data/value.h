/* value: the one way code outside data/ reads aggregate values (hash, list,
 * set, sorted set) whatever their encoding, so persistence, the expiry push,
 * SORT, *SCAN and MEMORY/DEBUG never walk listpacks, intsets, quicklists,
 * hash tables or skiplists by hand. Per type it offers the length, a
 * type-generic iterator, the SCAN step, a deep copy, the memory estimate, the
 * conversions from compact to table encodings, and the encodings' own bytes
 * for formats that store them verbatim (RDB, DUMP). Hashes, lists and sets
 * are also edited here, whatever their encoding (Redis 7.2's: listpack lists
 * and sets), so their commands never touch lp*, intset*, quicklist* or the
 * hash table's internals either; sorted sets are read and edited through
 * data/t_zset.h (their own module, included here). An edit of a listpack
 * starts by unpacking a packed keyspace object (objectPtrForWrite,
 * data/object.h), before any pointer into the listpack is taken. Creating and freeing are
 * data/object.h's (create*Object, decrRefCount; setCreate picks a set's
 * first encoding). */
#ifndef DATA_VALUE_H
#define DATA_VALUE_H

#include <stddef.h>
#include <string.h>

#include "core/dict.h"
#include "data/object.h"
#include "data/packset.h"
#include "data/quicklist.h"
#include "data/t_zset.h"

/* One element as stored, read without allocating: bytes (sval, slen) when
 * sval != NULL, otherwise the integer lval. Valid until the value changes. */
typedef struct valueElem {
    const unsigned char *sval;
    size_t slen;
    long long lval;
} valueElem;

/* What an iterator yields for one element. */
typedef struct valueItem {
    valueElem ele; /* list item, set member, hash field, zset member */
    valueElem val; /* hash: the field's value */
    double score;  /* zset: the member's score */
} valueItem;

/* Fields are private; the iterator may live on the stack. */
typedef struct valueIter {
    robj *o;
    unsigned char *p;  /* hash or set listpack: next entry */
    uint32_t pos;      /* intset: next position */
    packsetIter pi;    /* set's or hash's table */
    quicklistIter *qi; /* quicklist */
    int reverse;       /* listpack list: walking towards the head */
    zcursor zc;        /* sorted set */
} valueIter;

/* Elements: list items, set members, hash fields, zset members (0 for
 * strings and streams). */
unsigned long valueLength(robj *o);

/* Prefetch hints for looking up n members (fields) of a hash, set or sorted
 * set held in a table encoding of at least minSize members; nothing for
 * compact encodings and other types. */
void valuePrefetchMembers(robj *o, const char *const *m, const size_t *lens, int n, unsigned long minSize);

/* Walks every element: lists head to tail, sorted sets by rank, intsets
 * ascending, listpack hashes in insertion order, hash tables in table order.
 * The value must not change until valueIterDone. */
void valueIterInit(valueIter *it, robj *o);
/* Lists and sorted sets only: starts at 0-based index `first` counted from
 * the head (from the tail when reverse) and walks away from that end. */
void valueIterInitAt(valueIter *it, robj *o, long first, int reverse);
int valueIterNext(valueIter *it, valueItem *item);
void valueIterDone(valueIter *it);

/* Lists, as Redis 7.2 encodes them: a bare listpack while the list fits
 * what one quicklist node may hold under fill (list-max-listpack-size), a
 * quicklist beyond; a quicklist turns back into a listpack when it shrinks
 * to one node within half those limits. Conversions are explicit: before
 * adding, vlistGrowFor; after removing, vlistTryCompact. New lists start as
 * createListListpackObject (data/object.h). The prefix is vlist ("value
 * list"), apart from core/adlist.h's list* (a doubly linked list of
 * pointers, another type altogether). */
/* Before adding count elements of `bytes` bytes in all, the largest
 * `largest`: a listpack that would outgrow fill becomes a quicklist. */
void vlistGrowFor(robj *o, size_t bytes, size_t largest, unsigned long count, int fill, int compress);
/* A quicklist of one packed node within the limits (half of them when
 * shrinking) becomes a listpack. */
void vlistTryCompact(robj *o, int fill, int shrinking);
/* Adds a copy of the bytes at the head, or at the tail when tail is set. */
void vlistPush(robj *o, const void *s, size_t len, int tail);
/* Removes the head (tail) element: a string in *data (a zmalloc'd buffer
 * the caller frees, *sz bytes), or an integer (*data = NULL, *ll). 0 when empty. */
int vlistPop(robj *o, int tail, unsigned char **data, size_t *sz, long long *ll);
/* Element at index (negative: from the tail); 0 when out of range. */
int vlistIndex(robj *o, long index, valueElem *e);
/* Replaces the element at index; 0 when out of range. */
int vlistReplaceAt(robj *o, long index, const void *s, size_t len);
/* Deletes count elements from start (negative: from the tail), cut at the end. */
void vlistDelRange(robj *o, long start, long count);
/* Deletes elements equal to s, walking from the head (tail), at most limit
 * of them (0: all). Returns how many went. */
unsigned long vlistRemoveEqual(robj *o, const void *s, size_t len, int from_tail, unsigned long limit);
/* Inserts s before (after) the first element equal to pivot from the head;
 * 0 when there is no such element. */
int vlistInsertAtPivot(robj *o, const void *pivot, size_t plen, const void *s, size_t len, int after);
/* The fill (list-max-listpack-size) and compress depth a quicklist list
 * was made with (DEBUG OBJECT); 0 for a listpack list. */
int vlistQuicklistSettings(robj *o, int *fill, int *compress);
/* The process-wide size from which an element gets a plain quicklist node
 * of its own (DEBUG QUICKLIST-PACKED-THRESHOLD; 0: the default); -1 when
 * sz is out of range. */
int vlistSetPackedThreshold(size_t sz);

/* Sets, as Redis 7.2 encodes them: an intset while every member is an
 * integer and there are at most intset_entries; else a listpack (insertion
 * order) while there are at most lp_entries members of at most lp_value
 * bytes; else a hash table. Growing only: nothing converts back. */
typedef struct setLimits {
    size_t intset_entries; /* set-max-intset-entries */
    size_t lp_entries;     /* set-max-listpack-entries */
    size_t lp_value;       /* set-max-listpack-value */
} setLimits;
/* An empty set in the encoding that suits `first` and about sizeHint members. */
robj *setCreate(const valueElem *first, size_t sizeHint, const setLimits *lim);
/* Sizes a set's table for n members (nothing for compact encodings). */
void setExpand(robj *o, size_t n);
/* 1 if m was added (it was not a member); converts the encoding as needed. */
int setAdd(robj *o, const valueElem *m, const setLimits *lim);
/* 1 if m was a member and is gone. */
int setRemove(robj *o, const valueElem *m);
int setHas(robj *o, const valueElem *m);
/* One uniformly chosen member of a non-empty set (valid until it changes). */
void setRandomMember(robj *o, valueElem *m);

/* Hashes, as Redis 7.0 encodes them: a listpack of field, value, field,
 * value ... in insertion order while there are at most lp_entries fields
 * and no field or value is longer than lp_value bytes; a table beyond, for
 * good (a packset of pairs: each field with its value in its bucket's pack). Conversions happen where Redis's do, and
 * the listpack is edited with the same operations, so encodings, dumped
 * bytes and reply order match. New hashes start as createHashObject
 * (data/object.h). */
typedef struct hashLimits {
    size_t lp_entries; /* hash-max-listpack-entries */
    size_t lp_value;   /* hash-max-listpack-value */
} hashLimits;
/* Before the count strings args (field, value, field, value ...) go into
 * the hash: converts it now when they cannot all fit the listpack, so one
 * command never converts halfway. */
void hashGrowFor(robj *o, robj *const *args, int count, const hashLimits *lim);
/* A field's value; 0 when the hash has no such field. */
int hashGetValue(robj *o, sds field, valueElem *value);
int hashExists(robj *o, sds field);
/* Bytes of a field's value (integers as their decimal text); 0 when absent. */
size_t hashStrlen(robj *o, sds field);
/* Sets field to a copy of value, converting as the limits say. Returns 1
 * when the field existed (its value was replaced), 0 when it was added. */
int hashSet(robj *o, sds field, const void *value, size_t vlen, const hashLimits *lim);
/* 1 when the field was there and is gone. */
int hashDelete(robj *o, sds field);
/* One uniformly chosen field of a non-empty hash, and its value when value
 * is not NULL (valid until the hash changes). */
void hashRandomField(robj *o, valueElem *field, valueElem *value);
/* HRANDFIELD's draws, handed to fn one pair at a time (value NULL unless
 * withvalues); fn returns 0 to stop. hashRandomFields: count independent
 * draws, repeats allowed. hashRandomFieldsDistinct: count distinct fields,
 * 0 < count < the hash's length, by Redis's strategies (a listpack in one
 * selection-sampling walk; most of a table by dropping random entries from
 * a copy of its entry pointers; few of many by drawing until enough
 * distinct ones came up). */
typedef int hashPairFn(void *ctx, const valueElem *field, const valueElem *value);
void hashRandomFields(robj *o, unsigned long count, int withvalues, hashPairFn *fn, void *ctx);
void hashRandomFieldsDistinct(robj *o, unsigned long count, int withvalues, hashPairFn *fn, void *ctx);

/* One SCAN step over a hash, set or zset: fn gets each element and, for
 * hashes and zsets, val as SCAN replies it (the hash value; the score as
 * stored in a listpack, or printed by d2string). Compact encodings come back
 * whole and return cursor 0; tables advance one step of dictScan's cursor. */
typedef void valueScanFn(void *ctx, const valueElem *ele, const valueElem *val);
unsigned long valueScan(robj *o, unsigned long cursor, valueScanFn *fn, void *ctx);

/* A deep copy in the same encoding (any type, strings and streams included). */
robj *valueDup(robj *o);
/* Bytes the value takes, sampling at most `samples` elements of big ones. */
size_t valueMemoryUsage(robj *o, long long samples);

/* The encoding's own bytes: a listpack or intset is one blob, a quicklist
 * one per node (container: QUICKLIST_NODE_CONTAINER_*); hash tables and
 * skiplists have none. Walk: pos = NULL; while ((pos = valueBlobNext(o, pos, &b))). */
typedef struct valueBlob {
    const unsigned char *bytes;
    size_t len;
    int container;
} valueBlob;
size_t valueBlobCount(robj *o);
const void *valueBlobNext(robj *o, const void *pos, valueBlob *b);

/* DEBUG HTSTATS-KEY's text for a hash, set or sorted set held in a table
 * encoding; 0 (nothing written) for compact encodings and other types. */
size_t valueTableStats(robj *o, char *buf, size_t bufsize);

/* Compact to table encodings, for good (listpack hash → packset of pairs, intset or
 * listpack set → packset); sizeHint presizes the table (0: the current size). */
void hashConvertToTable(robj *o);
void setConvertToTable(robj *o, size_t sizeHint);

/* The bytes of an sds as an element (no copy: valid while s is). */
static inline valueElem valueElemFromSds(sds s) {
    return (valueElem){.sval = (const unsigned char *)s, .slen = sdslen(s)};
}
/* An element as a new object / sds (integers as their decimal text). */
static inline robj *valueElemObject(const valueElem *e) {
    return e->sval ? createStringObject((const char *)e->sval, e->slen) : createStringObjectFromLongLong(e->lval);
}
static inline sds valueElemSds(const valueElem *e) {
    return e->sval ? sdsnewlen(e->sval, e->slen) : sdsfromlonglong(e->lval);
}
/* An element's bytes without allocating: integers are printed into buf. */
static inline const char *valueElemBytes(const valueElem *e, char buf[LONG_STR_SIZE], size_t *len) {
    if (e->sval) {
        *len = e->slen;
        return (const char *)e->sval;
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, e->lval);
    return buf;
}
/* 1 when the element's bytes (integers as decimal text) are s. */
static inline int valueElemEquals(const valueElem *e, const void *s, size_t len) {
    char buf[LONG_STR_SIZE];
    size_t elen;
    const char *p = valueElemBytes(e, buf, &elen);
    return elen == len && memcmp(p, s, len) == 0;
}

#endif
