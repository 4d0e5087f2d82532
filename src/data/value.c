/* value: encoding-independent reads of aggregate values (see value.h). */
#include "data/value.h"
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

unsigned long valueLength(robj *o) {
    switch (o->type) {
    case OBJ_LIST: return quicklistCount(o->ptr);
    case OBJ_SET: return o->encoding == OBJ_ENCODING_INTSET ? intsetLen(o->ptr) : dictSize((dict *)o->ptr);
    case OBJ_ZSET: return zsetLength(o);
    case OBJ_HASH:
        /* lpLength also refreshes an overflowed header count, as Redis does here. */
        return o->encoding == OBJ_ENCODING_LISTPACK ? lpLength(o->ptr) / 2 : dictSize((dict *)o->ptr);
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
        it->qi = quicklistGetIteratorAtIdx(o->ptr, reverse ? QUICKLIST_ITER_FROM_TAIL : QUICKLIST_ITER_FROM_HEAD,
                                           reverse ? -1 - first : first);
        break;
    case OBJ_ZSET: zcurAtRank(&it->zc, o, (unsigned long)first, reverse); break;
    case OBJ_HASH:
    case OBJ_SET:
        if (o->encoding == OBJ_ENCODING_HT) dictInitIterator(&it->di, o->ptr);
        else if (o->encoding == OBJ_ENCODING_LISTPACK) it->p = lpFirst(o->ptr);
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
            if (!intsetGet(o->ptr, it->pos++, &v)) return 0;
            elemFromInt(&item->ele, v);
            return 1;
        }
        break;
    case OBJ_HASH:
        if (o->encoding == OBJ_ENCODING_LISTPACK) {
            lpEntry f, v;
            if (!lpNextPair(o->ptr, &it->p, &f, &v)) return 0;
            elemFromLp(&item->ele, &f);
            elemFromLp(&item->val, &v);
            return 1;
        }
        break;
    default: return 0;
    }
    dictEntry *de = dictNext(&it->di);
    if (!de) return 0;
    elemFromSds(&item->ele, dictGetKey(de));
    if (o->type == OBJ_HASH) elemFromSds(&item->val, dictGetVal(de));
    return 1;
}

void valueIterDone(valueIter *it) {
    if (it->qi) quicklistReleaseIterator(it->qi);
    else if ((it->o->type == OBJ_SET || it->o->type == OBJ_HASH) && it->o->encoding == OBJ_ENCODING_HT)
        dictResetIterator(&it->di);
}

void listPush(robj *o, const void *s, size_t len, int tail) {
    quicklistPush(o->ptr, s, len, tail ? QUICKLIST_TAIL : QUICKLIST_HEAD);
}

int setContains(robj *o, sds member) {
    long long v;
    if (o->encoding == OBJ_ENCODING_INTSET)
        return intsetParseMember(member, sdslen(member), &v) && intsetFind(o->ptr, v);
    return dictFind(o->ptr, member) != NULL;
}

int hashGetValue(robj *o, sds field, valueElem *value) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr, *p = lpFirst(lp);
        if (p) p = lpFind(lp, p, (const unsigned char *)field, (uint32_t)sdslen(field), 1);
        if (!p) return 0;
        lpEntry e;
        lpGetEntry(lpNext(lp, p), &e);
        elemFromLp(value, &e);
        return 1;
    }
    dictEntry *de = dictFind(o->ptr, field);
    if (!de) return 0;
    elemFromSds(value, dictGetVal(de));
    return 1;
}

/* ------------------------------------------------------------ SCAN */

typedef struct scanCtx {
    robj *o;
    valueScanFn *fn;
    void *ctx;
} scanCtx;

static void scanTableEntry(void *privdata, const dictEntry *de) {
    scanCtx *sc = privdata;
    valueElem ele, val, *valp = NULL;
    elemFromSds(&ele, dictGetKey(de));
    char buf[MAX_D2STRING_CHARS];
    if (sc->o->type == OBJ_HASH) {
        elemFromSds(&val, dictGetVal(de));
        valp = &val;
    } else if (sc->o->type == OBJ_ZSET) {
        val.sval = (const unsigned char *)buf;
        val.slen = (size_t)d2string(buf, sizeof(buf), *(double *)dictGetVal(de));
        val.lval = 0;
        valp = &val;
    }
    sc->fn(sc->ctx, &ele, valp);
}

unsigned long valueScan(robj *o, unsigned long cursor, valueScanFn *fn, void *ctx) {
    dict *d = valueTable(o);
    if (d) {
        scanCtx sc = {o, fn, ctx};
        return dictScan(d, cursor, scanTableEntry, &sc);
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

static robj *dupTable(robj *o) {
    robj *copy = NULL;
    if (o->type == OBJ_SET) {
        copy = createSetObject();
        dictExpand(copy->ptr, dictSize((dict *)o->ptr));
    } else {
        copy = createObject(OBJ_HASH, dictCreate(&hashDictType));
        dictExpand(copy->ptr, dictSize((dict *)o->ptr));
    }
    dictIterator di;
    dictEntry *de;
    dictInitIterator(&di, o->ptr);
    while ((de = dictNext(&di)))
        dictAdd(copy->ptr, sdsdup(dictGetKey(de)), o->type == OBJ_HASH ? sdsdup(dictGetVal(de)) : NULL);
    dictResetIterator(&di);
    return copy;
}

robj *valueDup(robj *o) {
    robj *copy;
    switch (o->type) {
    case OBJ_STRING: return dupStringObject(o);
    case OBJ_LIST: copy = createObject(OBJ_LIST, quicklistDup(o->ptr)); break;
    case OBJ_STREAM: copy = createObject(OBJ_STREAM, streamDup(o->ptr)); break;
    case OBJ_SET:
    case OBJ_HASH:
    case OBJ_ZSET:
        if (o->encoding == OBJ_ENCODING_INTSET) {
            copy = createObject(o->type, dupBlob(o->ptr, intsetBlobLen(o->ptr)));
        } else if (o->encoding == OBJ_ENCODING_LISTPACK) {
            copy = createObject(o->type, dupBlob(o->ptr, lpBytes(o->ptr)));
        } else if (o->encoding == OBJ_ENCODING_HT) {
            copy = dupTable(o);
        } else {
            copy = createZsetObject();
            zset *src = o->ptr, *dst = copy->ptr;
            dictExpand(dst->dict, dictSize(src->dict));
            /* From the tail: each insertion lands at the head, without searching. */
            for (zskiplistNode *ln = src->zsl->tail; ln; ln = ln->backward)
                zsetInsertNew(dst, sdsdup(ln->ele), ln->score);
        }
        break;
    default: return NULL;
    }
    copy->encoding = o->encoding;
    return copy;
}

/* ------------------------------------------------------------ memory */

size_t valueMemoryUsage(robj *o, long long samples) {
    size_t size = sizeof(robj);
    if (o->type == OBJ_STRING) {
        if (o->encoding == OBJ_ENCODING_RAW) size += zmalloc_size(sdsAllocPtr(o->ptr));
        else if (o->encoding == OBJ_ENCODING_EMBSTR) size = zmalloc_size(o);
        return size;
    }
    switch (o->encoding) {
    case OBJ_ENCODING_LISTPACK: return size + lpBytes(o->ptr);
    case OBJ_ENCODING_INTSET: return size + intsetBlobLen(o->ptr);
    case OBJ_ENCODING_QUICKLIST: {
        quicklist *ql = o->ptr;
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
        dict *d = o->encoding == OBJ_ENCODING_HT ? o->ptr : ((zset *)o->ptr)->dict;
        size += dictMemUsage(d);
        long long seen = 0;
        size_t elesize = 0;
        dictIterator di;
        dictEntry *de;
        dictInitIterator(&di, d);
        while ((de = dictNext(&di)) && seen < samples) {
            elesize += sdsAllocSize(dictGetKey(de));
            if (o->type == OBJ_HASH) elesize += sdsAllocSize(dictGetVal(de));
            if (o->encoding == OBJ_ENCODING_SKIPLIST) elesize += 48;
            seen++;
        }
        dictResetIterator(&di);
        if (seen) size += (size_t)((double)elesize / seen * dictSize(d));
        return size;
    }
    case OBJ_ENCODING_STREAM: {
        stream *st = o->ptr;
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
    case OBJ_ENCODING_QUICKLIST: return ((quicklist *)o->ptr)->len;
    case OBJ_ENCODING_LISTPACK:
    case OBJ_ENCODING_INTSET: return 1;
    }
    return 0;
}

const void *valueBlobNext(robj *o, const void *pos, valueBlob *b) {
    switch (o->encoding) {
    case OBJ_ENCODING_QUICKLIST: {
        quicklistNode *n = pos ? ((const quicklistNode *)pos)->next : ((quicklist *)o->ptr)->head;
        if (!n) return NULL;
        b->bytes = quicklistNodeData(o->ptr, n); /* raw, even when the node is kept compressed */
        b->len = n->sz;
        b->container = n->container;
        return n;
    }
    case OBJ_ENCODING_LISTPACK:
    case OBJ_ENCODING_INTSET:
        if (pos) return NULL;
        b->bytes = o->ptr;
        b->len = o->encoding == OBJ_ENCODING_LISTPACK ? lpBytes(o->ptr) : intsetBlobLen(o->ptr);
        b->container = QUICKLIST_NODE_CONTAINER_PACKED;
        return o->ptr;
    }
    return NULL;
}

/* ------------------------------------------------------------ conversions */

dict *valueTable(robj *o) {
    if (o->encoding == OBJ_ENCODING_HT && (o->type == OBJ_SET || o->type == OBJ_HASH)) return o->ptr;
    if (o->encoding == OBJ_ENCODING_SKIPLIST) return ((zset *)o->ptr)->dict;
    return NULL;
}

void hashConvertToTable(robj *o) {
    unsigned char *lp = o->ptr, *p = lpFirst(lp);
    dict *d = dictCreate(&hashDictType);
    dictExpand(d, lpLength(lp) / 2);
    lpEntry field, value;
    valueElem f, v;
    while (lpNextPair(lp, &p, &field, &value)) {
        elemFromLp(&f, &field);
        elemFromLp(&v, &value);
        if (dictAdd(d, valueElemSds(&f), valueElemSds(&v)) != DICT_OK) abort();
    }
    lpFree(lp);
    o->ptr = d;
    o->encoding = OBJ_ENCODING_HT;
}

void setConvertToTable(robj *o) {
    intset *is = o->ptr;
    dict *d = dictCreate(&setDictType);
    dictExpand(d, intsetLen(is));
    long long ll;
    for (uint32_t i = 0; intsetGet(is, i, &ll); i++) dictAdd(d, sdsfromlonglong(ll), NULL);
    intsetFree(is);
    o->ptr = d;
    o->encoding = OBJ_ENCODING_HT;
}
