/* value: encoding-independent reads and edits of aggregate values (see value.h). */
#include "data/value.h"
#include "core/memprefetch.h"
#include "core/panic.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "data/intset.h"
#include "data/listpack.h"
#include "data/skiplist.h"
#include "data/stream.h"

#include <stdlib.h>
#include <string.h>

static void elemFromLp(valueElem *e, const lpEntry *l) {
    e->sval = l->sval;
    e->slen = l->slen;
    e->lval = l->lval;
}

static void elemFromSds(valueElem *e, sds s) {
    e->sval = (const unsigned char *)s;
    e->slen = sdslen(s);
    e->lval = 0;
}

static void elemFromInt(valueElem *e, long long v) {
    e->sval = NULL;
    e->slen = 0;
    e->lval = v;
}

/* A set's or a hash's table (a hash's is a packset of pairs). */
static inline int isPackset(const robj *o) {
    return (o->type == OBJ_SET || o->type == OBJ_HASH) && o->encoding == OBJ_ENCODING_HT;
}

/* The dict of a sorted set in its table encoding (sets and hashes have packsets). */
static dict *valueDict(robj *o) {
    if (o->type == OBJ_ZSET && o->encoding == OBJ_ENCODING_SKIPLIST) return ((zset *)objectPtr(o))->dict;
    return NULL;
}

void valuePrefetchMembers(robj *o, const char *const *m, const size_t *lens, int n, unsigned long minSize) {
    if (isPackset(o)) {
        if (packsetSize(objectPtr(o)) >= minSize) packsetPrefetch(objectPtr(o), m, lens, n);
        return;
    }
    dict *d = valueDict(o);
    /* A zset's table holds the members' skiplist nodes, scores and all. */
    if (d && dictSize(d) >= minSize) dictPrefetchSdsKeys(d, m, lens, n, 0);
}

unsigned long valueLength(robj *o) {
    switch (o->type) {
    case OBJ_LIST: return o->encoding == OBJ_ENCODING_LISTPACK ? lpLength(objectPtr(o)) : quicklistCount(objectPtr(o));
    case OBJ_SET:
        if (o->encoding == OBJ_ENCODING_INTSET) return intsetLen(objectPtr(o));
        return o->encoding == OBJ_ENCODING_LISTPACK ? lpLength(objectPtr(o)) : packsetSize(objectPtr(o));
    case OBJ_ZSET: return zsetLength(o);
    case OBJ_HASH:
        /* lpLength also refreshes an overflowed header count, as Redis does here. */
        return o->encoding == OBJ_ENCODING_LISTPACK ? lpLength(objectPtr(o)) / 2 : packsetSize(objectPtr(o));
    }
    return 0;
}

void valueIterInitAt(valueIter *it, robj *o, long first, int reverse) {
    it->o = o;
    it->qi = NULL;
    it->p = NULL;
    it->pos = 0;
    switch (o->type) {
    case OBJ_LIST:
        it->reverse = reverse;
        if (o->encoding == OBJ_ENCODING_LISTPACK)
            it->p = lpSeek(objectPtr(o), reverse ? -1 - first : first);
        else
            it->qi = quicklistGetIteratorAtIdx(objectPtr(o), reverse ? QUICKLIST_ITER_FROM_TAIL : QUICKLIST_ITER_FROM_HEAD,
                                               reverse ? -1 - first : first);
        break;
    case OBJ_ZSET: zcurAtRank(&it->zc, o, (unsigned long)first, reverse); break;
    case OBJ_HASH:
    case OBJ_SET:
        if (isPackset(o)) packsetIterInit(&it->pi, objectPtr(o));
        else if (o->encoding == OBJ_ENCODING_LISTPACK) it->p = lpFirst(objectPtr(o));
        break;
    }
}

void valueIterInit(valueIter *it, robj *o) { valueIterInitAt(it, o, 0, 0); }

static int zsetIterNext(valueIter *it, valueItem *item) {
    zcursor *zc = &it->zc;
    if (!zcurValid(zc)) return 0;
    if (zc->skiplist) {
        elemFromSds(&item->ele, zc->node->ele);
        item->score = zc->node->score;
        item->val.sval = NULL;
        item->val.lval = 0;
    } else {
        lpEntry m, s;
        lpGetEntry(zc->p, &m);
        lpGetEntry(lpNext(zc->lp, zc->p), &s);
        elemFromLp(&item->ele, &m);
        elemFromLp(&item->val, &s);
        item->score = lpEntryToDouble(&s);
    }
    zcurNext(zc);
    return 1;
}

int valueIterNext(valueIter *it, valueItem *item) {
    robj *o = it->o;
    switch (o->type) {
    case OBJ_LIST: {
        if (o->encoding == OBJ_ENCODING_LISTPACK) {
            if (!it->p) return 0;
            lpEntry l;
            lpGetEntry(it->p, &l);
            elemFromLp(&item->ele, &l);
            it->p = it->reverse ? lpPrev(objectPtr(o), it->p) : lpNext(objectPtr(o), it->p);
            return 1;
        }
        quicklistEntry e;
        if (!it->qi || !quicklistNext(it->qi, &e)) return 0;
        if (e.value) {
            item->ele.sval = e.value;
            item->ele.slen = e.sz;
            item->ele.lval = 0;
        } else {
            elemFromInt(&item->ele, e.longval);
        }
        return 1;
    }
    case OBJ_ZSET: return zsetIterNext(it, item);
    case OBJ_SET:
        if (o->encoding == OBJ_ENCODING_INTSET) {
            long long v;
            if (!intsetGet(objectPtr(o), it->pos++, &v)) return 0;
            elemFromInt(&item->ele, v);
            return 1;
        }
        if (o->encoding == OBJ_ENCODING_LISTPACK) {
            if (!it->p) return 0;
            lpEntry e;
            lpGetEntry(it->p, &e);
            elemFromLp(&item->ele, &e);
            it->p = lpNext(objectPtr(o), it->p);
            return 1;
        }
        item->ele.lval = 0;
        return packsetIterNext(&it->pi, &item->ele.sval, &item->ele.slen);
    case OBJ_HASH:
        if (o->encoding == OBJ_ENCODING_LISTPACK) {
            lpEntry f, v;
            if (!lpNextPair(objectPtr(o), &it->p, &f, &v)) return 0;
            elemFromLp(&item->ele, &f);
            elemFromLp(&item->val, &v);
            return 1;
        }
        item->ele.lval = item->val.lval = 0;
        return packsetIterNextPair(&it->pi, &item->ele.sval, &item->ele.slen, &item->val.sval, &item->val.slen);
    }
    return 0;
}

void valueIterDone(valueIter *it) {
    if (it->qi) quicklistReleaseIterator(it->qi);
    else if (isPackset(it->o)) packsetIterDone(&it->pi);
}

/* ------------------------------------------------------------ lists */

void vlistGrowFor(robj *o, size_t bytes, size_t largest, unsigned long count, int fill, int compress) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    unsigned char *lp = objectPtr(o);
    if (!quicklistExceedsFill(fill, lpBytes(lp) + bytes, lpLength(lp) + count, largest, 0)) return;
    lp = objectPtrForWrite(o);
    quicklist *ql = quicklistCreate(fill, compress);
    if (lpLength(lp)) quicklistAppendListpack(ql, lp);
    else lpFree(lp);
    objectSetPtr(o, ql);
    o->encoding = OBJ_ENCODING_QUICKLIST;
}

void vlistTryCompact(robj *o, int fill, int shrinking) {
    if (o->encoding != OBJ_ENCODING_QUICKLIST) return;
    quicklist *ql = objectPtr(o);
    if (ql->len != 1 || ql->head->container != QUICKLIST_NODE_CONTAINER_PACKED) return;
    if (quicklistExceedsFill(fill, ql->head->sz, ql->count, 0, shrinking)) return;
    objectSetPtr(o, quicklistTakeListpack(ql));
    o->encoding = OBJ_ENCODING_LISTPACK;
}

void vlistPush(robj *o, const void *s, size_t len, int tail) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectPtrForWrite(o);
        objectSetPtr(o, tail ? lpAppend(lp, s, (uint32_t)len) : lpPrepend(lp, s, (uint32_t)len));
    } else {
        quicklistPush(objectPtr(o), s, len, tail ? QUICKLIST_TAIL : QUICKLIST_HEAD);
    }
}

int vlistPop(robj *o, int tail, unsigned char **data, size_t *sz, long long *ll) {
    if (o->encoding != OBJ_ENCODING_LISTPACK)
        return quicklistPop(objectPtr(o), tail ? QUICKLIST_TAIL : QUICKLIST_HEAD, data, sz, ll);
    unsigned char *lp = objectPtrForWrite(o), *p = tail ? lpLast(lp) : lpFirst(lp);
    if (!p) return 0;
    uint32_t slen;
    unsigned char *v = lpGetValue(p, &slen, ll);
    *data = v ? zmemdup(v, slen) : NULL;
    *sz = v ? slen : 0;
    objectSetPtr(o, lpDelete(lp, p, NULL));
    return 1;
}

int vlistIndex(robj *o, long index, valueElem *e) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = lpSeek(objectPtr(o), index);
        if (!p) return 0;
        lpEntry l;
        lpGetEntry(p, &l);
        elemFromLp(e, &l);
        return 1;
    }
    quicklistEntry qe;
    if (!quicklistIndex(objectPtr(o), index, &qe)) return 0;
    if (qe.value) {
        e->sval = qe.value;
        e->slen = qe.sz;
        e->lval = 0;
    } else {
        elemFromInt(e, qe.longval);
    }
    return 1;
}

int vlistReplaceAt(robj *o, long index, const void *s, size_t len) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return quicklistReplaceAtIndex(objectPtr(o), index, s, len);
    unsigned char *lp = objectPtrForWrite(o), *p = lpSeek(lp, index);
    if (!p) return 0;
    objectSetPtr(o, lpReplace(lp, &p, s, (uint32_t)len));
    return 1;
}

void vlistDelRange(robj *o, long start, long count) {
    if (count <= 0) return;
    if (o->encoding != OBJ_ENCODING_LISTPACK) {
        quicklistDelRange(objectPtr(o), start, count);
        return;
    }
    long n = (long)lpLength(objectPtr(o));
    if (start < 0) start += n;
    if (start < 0 || start >= n) return;
    unsigned long upto = (unsigned long)(count < n - start ? count : n - start);
    objectSetPtr(o, lpDeleteRange(objectPtrForWrite(o), start, upto));
}

unsigned long vlistRemoveEqual(robj *o, const void *s, size_t len, int from_tail, unsigned long limit) {
    unsigned long removed = 0;
    if (o->encoding != OBJ_ENCODING_LISTPACK) {
        quicklistIter *it = quicklistGetIterator(objectPtr(o), from_tail ? QUICKLIST_ITER_FROM_TAIL : QUICKLIST_ITER_FROM_HEAD);
        quicklistEntry e;
        while ((!limit || removed < limit) && quicklistNext(it, &e)) {
            if (!quicklistCompare(&e, s, len)) continue;
            quicklistDelEntry(it, &e);
            removed++;
        }
        quicklistReleaseIterator(it);
        return removed;
    }
    unsigned char *lp = objectPtrForWrite(o), *p = from_tail ? lpLast(lp) : lpFirst(lp);
    while (p && (!limit || removed < limit)) {
        if (!lpCompare(p, s, (uint32_t)len)) {
            p = from_tail ? lpPrev(lp, p) : lpNext(lp, p);
            continue;
        }
        unsigned char *prev = from_tail ? lpPrev(lp, p) : NULL;
        size_t prevOff = prev ? (size_t)(prev - lp) : 0;
        lp = lpDelete(lp, p, &p); /* may move: the walk goes on by offset */
        if (from_tail) p = prev ? lp + prevOff : NULL;
        removed++;
    }
    objectSetPtr(o, lp);
    return removed;
}

int vlistInsertAtPivot(robj *o, const void *pivot, size_t plen, const void *s, size_t len, int after) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectPtrForWrite(o), *p = lpFirst(lp);
        if (p) p = lpFind(lp, p, pivot, (uint32_t)plen, 0);
        if (!p) return 0;
        objectSetPtr(o, lpInsertString(lp, s, (uint32_t)len, p, after ? LP_AFTER : LP_BEFORE, NULL));
        return 1;
    }
    quicklistIter *it = quicklistGetIterator(objectPtr(o), QUICKLIST_ITER_FROM_HEAD);
    quicklistEntry e;
    int found = 0;
    while (!found && quicklistNext(it, &e)) {
        if (!quicklistCompare(&e, pivot, plen)) continue;
        if (after) quicklistInsertAfter(objectPtr(o), &e, s, len);
        else quicklistInsertBefore(objectPtr(o), &e, s, len);
        found = 1;
    }
    quicklistReleaseIterator(it); /* invalid after an insert: only released */
    return found;
}

int vlistQuicklistSettings(robj *o, int *fill, int *compress) {
    if (o->type != OBJ_LIST || o->encoding != OBJ_ENCODING_QUICKLIST) return 0;
    quicklist *ql = objectPtr(o);
    *fill = ql->fill;
    *compress = ql->compress;
    return 1;
}

int vlistSetPackedThreshold(size_t sz) { return quicklistSetPackedThreshold(sz); }

/* ------------------------------------------------------------ sets */

/* 1 and *v when e is an integer as an intset stores it. */
static int elemAsInteger(const valueElem *e, long long *v) {
    if (!e->sval) {
        *v = e->lval;
        return 1;
    }
    return intsetParseMember((const char *)e->sval, e->slen, v);
}

/* The listpack entry equal to e, or NULL. */
static unsigned char *lpFindElem(unsigned char *lp, const valueElem *e) {
    unsigned char *p = lpFirst(lp);
    if (!p) return NULL;
    char num[LONG_STR_SIZE];
    size_t len;
    const char *s = valueElemBytes(e, num, &len);
    return lpFind(lp, p, (const unsigned char *)s, (uint32_t)len, 0);
}

static size_t decimalDigits(long long v) {
    char buf[LONG_STR_SIZE];
    return (size_t)ll2string(buf, sizeof(buf), v);
}

robj *setCreate(const valueElem *first, size_t sizeHint, const setLimits *lim) {
    long long v;
    if (elemAsInteger(first, &v) && sizeHint <= lim->intset_entries) return createIntsetObject();
    if (sizeHint <= lim->lp_entries) {
        robj *o = createObject(OBJ_SET, lpNew(0));
        o->encoding = OBJ_ENCODING_LISTPACK;
        return o;
    }
    robj *o = createSetObject();
    packsetExpand(objectPtr(o), sizeHint);
    return o;
}

void setExpand(robj *o, size_t n) {
    if (isPackset(o)) packsetExpand(objectPtr(o), n);
}

static void setConvertToListpack(robj *o) {
    intset *is = objectPtr(o);
    unsigned char *lp = lpNew(0);
    long long v;
    for (uint32_t i = 0; intsetGet(is, i, &v); i++) lp = lpAppendInteger(lp, v);
    intsetFree(is);
    objectSetPtr(o, lp);
    o->encoding = OBJ_ENCODING_LISTPACK;
}

/* An intset takes a non-integer member: a listpack if everything, the
 * widest integer counted for every member, stays within the limits. */
static int intsetFitsListpack(robj *o, size_t len, const setLimits *lim) {
    unsigned long n = intsetLen(objectPtr(o));
    size_t widest = 0, entry = 0;
    if (n) {
        long long lo = intsetMin(objectPtr(o)), hi = intsetMax(objectPtr(o));
        size_t a = decimalDigits(hi), b = decimalDigits(lo);
        widest = a > b ? a : b;
        a = lpEntrySizeInteger(hi), b = lpEntrySizeInteger(lo);
        entry = a > b ? a : b;
    }
    return n < lim->lp_entries && len <= lim->lp_value && widest <= lim->lp_value &&
           lpSafeToAdd(NULL, n * entry + len);
}

int setAdd(robj *o, const valueElem *m, const setLimits *lim) {
    long long v;
    char num[LONG_STR_SIZE];
    size_t len;
    const char *s = valueElemBytes(m, num, &len);
    if (o->encoding == OBJ_ENCODING_INTSET) {
        if (elemAsInteger(m, &v)) {
            int added = 0;
            objectSetPtr(o, intsetAdd(objectPtr(o), v, &added));
            size_t max = lim->intset_entries < (1UL << 30) ? lim->intset_entries : (1UL << 30);
            if (added && intsetLen(objectPtr(o)) > max) setConvertToTable(o, 0);
            return added;
        }
        /* Not an integer: it cannot be a member yet. */
        if (intsetFitsListpack(o, len, lim)) setConvertToListpack(o);
        else setConvertToTable(o, intsetLen(objectPtr(o)) + 1);
    }
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        if (lpFindElem(objectPtr(o), m)) return 0;
        if (lpLength(objectPtr(o)) < lim->lp_entries && len <= lim->lp_value && lpSafeToAdd(objectPtr(o), len)) {
            unsigned char *lp = objectPtrForWrite(o);
            lp = m->sval ? lpAppend(lp, (const unsigned char *)s, (uint32_t)len) : lpAppendInteger(lp, m->lval);
            objectSetPtr(o, lp);
            return 1;
        }
        setConvertToTable(o, lpLength(objectPtr(o)) + 1);
    }
    return packsetAdd(objectPtr(o), s, len);
}

int setRemove(robj *o, const valueElem *m) {
    long long v;
    if (o->encoding == OBJ_ENCODING_INTSET) {
        if (!elemAsInteger(m, &v)) return 0;
        int removed = 0;
        objectSetPtr(o, intsetRemove(objectPtr(o), v, &removed));
        return removed;
    }
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectPtrForWrite(o), *p = lpFindElem(lp, m);
        if (!p) return 0;
        objectSetPtr(o, lpDelete(lp, p, NULL));
        return 1;
    }
    char num[LONG_STR_SIZE];
    size_t len;
    const char *s = valueElemBytes(m, num, &len);
    return packsetRemove(objectPtr(o), s, len);
}

int setHas(robj *o, const valueElem *m) {
    long long v;
    if (o->encoding == OBJ_ENCODING_INTSET) return elemAsInteger(m, &v) && intsetFind(objectPtr(o), v);
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpFindElem(objectPtr(o), m) != NULL;
    char num[LONG_STR_SIZE];
    size_t len;
    const char *s = valueElemBytes(m, num, &len);
    return packsetContains(objectPtr(o), s, len);
}

void setRandomMember(robj *o, valueElem *m) {
    if (o->encoding == OBJ_ENCODING_INTSET) {
        elemFromInt(m, intsetRandom(objectPtr(o), (unsigned long)random()));
    } else if (o->encoding == OBJ_ENCODING_LISTPACK) {
        lpEntry e;
        lpGetEntry(lpSeek(objectPtr(o), random() % (long)lpLength(objectPtr(o))), &e);
        elemFromLp(m, &e);
    } else {
        m->lval = 0;
        packsetRandom(objectPtr(o), &m->sval, &m->slen);
    }
}

/* ------------------------------------------------------------ hashes */

/* The listpack entry holding field's name, or NULL. */
static unsigned char *lpFindField(unsigned char *lp, sds field) {
    unsigned char *p = lpFirst(lp);
    if (!p) return NULL;
    return lpFind(lp, p, (const unsigned char *)field, (uint32_t)sdslen(field), 1);
}

void hashGrowFor(robj *o, robj *const *args, int count, const hashLimits *lim) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    size_t new_fields = (size_t)count / 2;
    if (new_fields > lim->lp_entries) {
        hashConvertToTable(o);
        packsetExpand(objectPtr(o), new_fields); /* mostly new fields: size for them */
        return;
    }
    size_t sum = 0;
    for (int i = 0; i < count; i++) {
        if (!sdsEncodedObject(args[i])) continue;
        size_t len = sdslen(objectPtr(args[i]));
        if (len > lim->lp_value) {
            hashConvertToTable(o);
            return;
        }
        sum += len;
    }
    if (!lpSafeToAdd(objectPtr(o), sum)) hashConvertToTable(o);
}

int hashGetValue(robj *o, sds field, valueElem *value) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectPtr(o), *p = lpFindField(lp, field);
        if (!p) return 0;
        lpEntry e;
        lpGetEntry(lpNext(lp, p), &e);
        elemFromLp(value, &e);
        return 1;
    }
    value->lval = 0;
    return packsetGet(objectPtr(o), field, sdslen(field), &value->sval, &value->slen);
}

int hashExists(robj *o, sds field) {
    valueElem v;
    return hashGetValue(o, field, &v);
}

size_t hashStrlen(robj *o, sds field) {
    valueElem v;
    if (!hashGetValue(o, field, &v)) return 0;
    char buf[LONG_STR_SIZE];
    size_t len;
    valueElemBytes(&v, buf, &len);
    return len;
}

int hashSet(robj *o, sds field, const void *value, size_t vlen, const hashLimits *lim) {
    /* HINCRBY* reach here without hashGrowFor: a long field or value still
     * must not enter the listpack. */
    if (o->encoding == OBJ_ENCODING_LISTPACK && (sdslen(field) > lim->lp_value || vlen > lim->lp_value))
        hashConvertToTable(o);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        int update = 0;
        unsigned char *lp = objectPtrForWrite(o), *p = lpFindField(lp, field);
        if (p) {
            unsigned char *vp = lpNext(lp, p);
            lp = lpReplace(lp, &vp, value, (uint32_t)vlen);
            update = 1;
        } else {
            lp = lpAppend(lp, (const unsigned char *)field, (uint32_t)sdslen(field));
            lp = lpAppend(lp, value, (uint32_t)vlen);
        }
        objectSetPtr(o, lp);
        if (valueLength(o) > lim->lp_entries) hashConvertToTable(o);
        return update;
    }
    return !packsetSet(objectPtr(o), field, sdslen(field), value, vlen);
}

int hashDelete(robj *o, sds field) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = objectPtrForWrite(o), *p = lpFindField(lp, field);
        if (!p) return 0;
        objectSetPtr(o, lpDeleteRangeWithEntry(lp, &p, 2));
        return 1;
    }
    return packsetRemove(objectPtr(o), field, sdslen(field)); /* shrinks the table when sparse */
}

/* A random pair of a hash's table. */
static void tableRandomPair(robj *o, valueElem *field, valueElem *value) {
    valueElem v;
    if (!value) value = &v;
    field->lval = value->lval = 0;
    packsetRandomPair(objectPtr(o), &field->sval, &field->slen, &value->sval, &value->slen);
}

void hashRandomField(robj *o, valueElem *field, valueElem *value) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        lpEntry f, v;
        lpPairAt(objectPtr(o), (unsigned long)random() % valueLength(o), &f, value ? &v : NULL);
        elemFromLp(field, &f);
        if (value) elemFromLp(value, &v);
        return;
    }
    tableRandomPair(o, field, value);
}

/* A listpack visit handed on to a hashPairFn. */
typedef struct pairVisit {
    hashPairFn *fn;
    void *ctx;
} pairVisit;

static int visitLpPair(void *ctx, const lpEntry *key, const lpEntry *val) {
    pairVisit *pv = ctx;
    valueElem f, v;
    elemFromLp(&f, key);
    if (val) elemFromLp(&v, val);
    return pv->fn(pv->ctx, &f, val ? &v : NULL);
}

void hashRandomFields(robj *o, unsigned long count, int withvalues, hashPairFn *fn, void *ctx) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        pairVisit pv = {fn, ctx};
        lpVisitRandomPairs(objectPtr(o), count, withvalues, visitLpPair, &pv, random);
        return;
    }
    while (count--) {
        valueElem f, v;
        tableRandomPair(o, &f, &v);
        if (!fn(ctx, &f, withvalues ? &v : NULL)) return;
    }
}

/* HRANDFIELD: below this ratio of hash size to requested count, copying the
 * hash and removing random fields beats drawing random fields until enough
 * distinct ones came up (Redis's HRANDFIELD_SUB_STRATEGY_MUL). */
#define HRANDFIELD_SUB_STRATEGY_MUL 3

void hashRandomFieldsDistinct(robj *o, unsigned long count, int withvalues, hashPairFn *fn, void *ctx) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        /* Small by definition: one selection-sampling walk, in listpack order. */
        pairVisit pv = {fn, ctx};
        lpVisitRandomPairsUnique(objectPtr(o), count, withvalues, visitLpPair, &pv, random);
        return;
    }
    unsigned long size = packsetSize(objectPtr(o));
    valueElem f, v;
    if (count * HRANDFIELD_SUB_STRATEGY_MUL > size) {
        /* Most of the hash: copy it, then drop random fields until count remain. */
        packset *picked = packsetDup(objectPtr(o));
        packsetIter it;
        while (size-- > count) {
            packsetRandom(picked, &f.sval, &f.slen);
            packsetRemove(picked, f.sval, f.slen);
        }
        f.lval = v.lval = 0;
        packsetIterInit(&it, picked);
        while (packsetIterNextPair(&it, &f.sval, &f.slen, &v.sval, &v.slen))
            if (!fn(ctx, &f, withvalues ? &v : NULL)) break;
        packsetIterDone(&it);
        packsetRelease(picked);
        return;
    }
    /* Few of many: draw until count distinct fields came up. */
    packset *seen = packsetCreate();
    packsetExpand(seen, count);
    while (packsetSize(seen) < count) {
        tableRandomPair(o, &f, &v);
        if (!packsetAdd(seen, f.sval, f.slen)) continue;
        if (!fn(ctx, &f, withvalues ? &v : NULL)) break;
    }
    packsetRelease(seen);
}

/* ------------------------------------------------------------ SCAN */

typedef struct scanCtx {
    robj *o;
    valueScanFn *fn;
    void *ctx;
} scanCtx;

static void scanZsetEntry(void *privdata, const dictEntry *de) {
    scanCtx *sc = privdata;
    valueElem ele, val;
    char buf[MAX_D2STRING_CHARS];
    zskiplistNode *node = zsetDictNode(de);
    elemFromSds(&ele, node->ele);
    val.sval = (const unsigned char *)buf;
    val.slen = (size_t)d2string(buf, sizeof(buf), node->score);
    val.lval = 0;
    sc->fn(sc->ctx, &ele, &val);
}

/* A set's member, or a hash's field with its value. */
static void scanPackEntry(void *privdata, const unsigned char *m, size_t len, const unsigned char *v, size_t vlen) {
    scanCtx *sc = privdata;
    valueElem ele = {.sval = m, .slen = len}, val = {.sval = v, .slen = vlen};
    sc->fn(sc->ctx, &ele, v ? &val : NULL);
}

unsigned long valueScan(robj *o, unsigned long cursor, valueScanFn *fn, void *ctx) {
    if (isPackset(o)) {
        scanCtx sc = {o, fn, ctx};
        return packsetScan(objectPtr(o), cursor, scanPackEntry, &sc);
    }
    dict *d = valueDict(o);
    if (d) {
        scanCtx sc = {o, fn, ctx};
        return dictScan(d, cursor, scanZsetEntry, &sc);
    }
    valueIter it;
    valueItem item;
    valueIterInit(&it, o);
    /* A listpack zset's score goes out as stored, like a hash value. */
    while (valueIterNext(&it, &item)) fn(ctx, &item.ele, o->type == OBJ_SET ? NULL : &item.val);
    valueIterDone(&it);
    return 0;
}

/* ------------------------------------------------------------ copies */

static void *dupBlob(const void *p, size_t len) {
    void *copy = zmalloc(len);
    memcpy(copy, p, len);
    return copy;
}

robj *valueDup(robj *o) {
    robj *copy;
    switch (o->type) {
    case OBJ_STRING: return dupStringObject(o);
    case OBJ_LIST:
        if (o->encoding == OBJ_ENCODING_LISTPACK) copy = createObject(OBJ_LIST, dupBlob(objectPtr(o), lpBytes(objectPtr(o))));
        else copy = createObject(OBJ_LIST, quicklistDup(objectPtr(o)));
        break;
    case OBJ_STREAM: copy = createObject(OBJ_STREAM, streamDup(objectPtr(o))); break;
    case OBJ_SET:
    case OBJ_HASH:
    case OBJ_ZSET:
        if (o->encoding == OBJ_ENCODING_INTSET) {
            copy = createObject(o->type, dupBlob(objectPtr(o), intsetBlobLen(objectPtr(o))));
        } else if (o->encoding == OBJ_ENCODING_LISTPACK) {
            copy = createObject(o->type, dupBlob(objectPtr(o), lpBytes(objectPtr(o))));
        } else if (o->encoding == OBJ_ENCODING_HT) {
            copy = createObject(o->type, packsetDup(objectPtr(o))); /* a set's or a hash's table */
        } else {
            copy = createZsetObject();
            zsetExpand(copy, zsetLength(o));
            /* From the tail: each insertion lands at the head, without searching. */
            for (zskiplistNode *ln = ((zset *)objectPtr(o))->zsl->tail; ln; ln = ln->backward)
                zsetInsertNew(copy, ln->ele, ln->score);
        }
        break;
    default: return NULL;
    }
    copy->encoding = o->encoding;
    objectCopyUncheckedMark(o, copy); /* compact encodings are copied byte for byte, bad entries too */
    return copy;
}

/* ------------------------------------------------------------ memory */

size_t valueMemoryUsage(robj *o, long long samples) {
    /* A keyspace object holds its key (and an embstr value) in the same allocation. */
    size_t size = o->haskey ? zmalloc_size(o) : sizeof(robj);
    if (o->type == OBJ_STRING) {
        if (o->encoding == OBJ_ENCODING_RAW) size += zmalloc_size(sdsAllocPtr(objectPtr(o)));
        else if (o->encoding == OBJ_ENCODING_EMBSTR) size = zmalloc_size(o);
        return size;
    }
    switch (o->encoding) {
    case OBJ_ENCODING_LISTPACK: return objectIsPacked(o) ? size : size + lpBytes(objectPtr(o));
    case OBJ_ENCODING_INTSET: return size + intsetBlobLen(objectPtr(o));
    case OBJ_ENCODING_QUICKLIST: {
        quicklist *ql = objectPtr(o);
        size += sizeof(*ql);
        long long seen = 0;
        size_t nodes = 0;
        for (quicklistNode *n = ql->head; n && seen < samples; n = n->next, seen++) {
            size += sizeof(*n) + quicklistNodeStoredBytes(n);
            nodes++;
        }
        if (nodes && nodes < ql->len) size = (size_t)((double)size / nodes * ql->len);
        return size;
    }
    case OBJ_ENCODING_HT:
    case OBJ_ENCODING_SKIPLIST: {
        if (isPackset(o)) return size + packsetMemUsage(objectPtr(o), samples);
        dict *d = valueDict(o);
        size += dictMemUsage(d);
        long long seen = 0;
        size_t elesize = 0;
        dictIterator di;
        dictEntry *de;
        dictInitIterator(&di, d);
        while ((de = dictNext(&di)) && seen < samples) {
            elesize += zmalloc_size(zsetDictNode(de)); /* the member is its node */
            seen++;
        }
        dictResetIterator(&di);
        if (seen) size += (size_t)((double)elesize / seen * dictSize(d));
        return size;
    }
    case OBJ_ENCODING_STREAM: {
        stream *st = objectPtr(o);
        size += sizeof(*st) + sizeof(streamNode) * st->capacity;
        for (size_t j = 0; j < st->nnodes; j++) size += lpBytes(st->nodes[j].lp);
        return size;
    }
    }
    return size;
}

/* ------------------------------------------------------------ raw bytes */

size_t valueBlobCount(robj *o) {
    switch (o->encoding) {
    case OBJ_ENCODING_QUICKLIST: return ((quicklist *)objectPtr(o))->len;
    case OBJ_ENCODING_LISTPACK:
    case OBJ_ENCODING_INTSET: return 1;
    }
    return 0;
}

const void *valueBlobNext(robj *o, const void *pos, valueBlob *b) {
    switch (o->encoding) {
    case OBJ_ENCODING_QUICKLIST: {
        quicklistNode *n = pos ? ((const quicklistNode *)pos)->next : ((quicklist *)objectPtr(o))->head;
        if (!n) return NULL;
        b->bytes = quicklistNodeData(objectPtr(o), n); /* raw, even when the node is kept compressed */
        b->len = n->sz;
        b->container = n->container;
        return n;
    }
    case OBJ_ENCODING_LISTPACK:
    case OBJ_ENCODING_INTSET:
        if (pos) return NULL;
        b->bytes = objectPtr(o);
        b->len = o->encoding == OBJ_ENCODING_LISTPACK ? lpBytes(objectPtr(o)) : intsetBlobLen(objectPtr(o));
        b->container = QUICKLIST_NODE_CONTAINER_PACKED;
        return objectPtr(o);
    }
    return NULL;
}

/* ------------------------------------------------------------ conversions */

size_t valueTableStats(robj *o, char *buf, size_t bufsize) {
    if (isPackset(o)) return packsetGetStats(buf, bufsize, objectPtr(o));
    dict *d = valueDict(o);
    return d ? dictGetStats(buf, bufsize, d) : 0;
}

void hashConvertToTable(robj *o) {
    unsigned char *lp = objectPtrForWrite(o), *p = lpFirst(lp);
    packset *d = packsetCreatePairs();
    packsetExpand(d, lpLength(lp) / 2);
    lpEntry field, value;
    valueElem f, v;
    while (lpNextPair(lp, &p, &field, &value)) {
        elemFromLp(&f, &field);
        elemFromLp(&v, &value);
        char fbuf[LONG_STR_SIZE], vbuf[LONG_STR_SIZE];
        size_t flen, vlen;
        const char *fb = valueElemBytes(&f, fbuf, &flen), *vb = valueElemBytes(&v, vbuf, &vlen);
        /* Only a payload RESTOREd without sanitize-dump-payload can hold a
         * field twice; Redis stops here with this report too. */
        if (!packsetSet(d, fb, flen, vb, vlen))
            serverPanic("Listpack corruption detected (listpack with dup elements, %zu bytes)", lpBytes(lp));
    }
    lpFree(lp);
    objectSetPtr(o, d);
    o->encoding = OBJ_ENCODING_HT;
}

void setConvertToTable(robj *o, size_t sizeHint) {
    objectUnpack(o);
    packset *d = packsetCreate();
    packsetExpand(d, sizeHint ? sizeHint : valueLength(o));
    valueIter it;
    valueItem item;
    valueIterInit(&it, o);
    while (valueIterNext(&it, &item)) {
        char num[LONG_STR_SIZE];
        size_t len;
        const char *s = valueElemBytes(&item.ele, num, &len);
        packsetAdd(d, s, len);
    }
    valueIterDone(&it);
    if (o->encoding == OBJ_ENCODING_INTSET) intsetFree(objectPtr(o));
    else lpFree(objectPtr(o));
    objectSetPtr(o, d);
    o->encoding = OBJ_ENCODING_HT;
}
