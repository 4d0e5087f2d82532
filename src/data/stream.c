/* stream: the stream value type and its listpack nodes (see stream.h). */
#include "data/stream.h"
#include "core/numparse.h"
#include "core/panic.h"
#include "core/zmalloc.h"

#include <stddef.h>
#include <string.h>

/* Node fields are written as integers, but a node read from a file may hold
 * them as digits: accept both. */
static int64_t lpInt(unsigned char *p) {
    uint32_t slen;
    long long v = 0;
    unsigned char *s = lpGetValue(p, &slen, &v);
    if (s && !string2ll((const char *)s, slen, &v)) v = 0;
    return v;
}

stream *streamNew(void) {
    stream *s = zcalloc(sizeof(*s));
    return s;
}

static void freeCG(streamCG *cg) {
    for (size_t j = 0; j < cg->pel.len; j++) zfree(cg->pel.vals[j]);
    zfree(cg->pel.ids);
    zfree(cg->pel.vals);
    for (size_t j = 0; j < cg->nconsumers; j++) {
        streamConsumer *sc = cg->consumers[j];
        sdsfree(sc->name);
        zfree(sc->pel.ids);
        zfree(sc->pel.vals);
        zfree(sc);
    }
    zfree(cg->consumers);
    sdsfree(cg->name);
    zfree(cg);
}

void streamFree(stream *s) {
    for (size_t j = 0; j < s->nnodes; j++) lpFree(s->nodes[j].lp);
    zfree(s->nodes);
    for (size_t j = 0; j < s->ngroups; j++) freeCG(s->groups[j]);
    zfree(s->groups);
    zfree(s);
}

stream *streamDup(const stream *s) {
    stream *d = zmalloc(sizeof(*d));
    *d = *s;
    d->nodes = s->capacity ? zmalloc(sizeof(streamNode) * s->capacity) : NULL;
    for (size_t j = 0; j < s->nnodes; j++) {
        d->nodes[j].master = s->nodes[j].master;
        d->nodes[j].lp = zmemdup(s->nodes[j].lp, lpBytes(s->nodes[j].lp));
        d->nodes[j].unchecked = s->nodes[j].unchecked;
    }
    d->groups = NULL;
    d->ngroups = 0;
    for (size_t g = 0; g < s->ngroups; g++) {
        streamCG *src = s->groups[g];
        streamCG *cg = streamCreateCG(d, src->name, sdslen(src->name), &src->last_id, src->entries_read);
        for (size_t j = 0; j < src->nconsumers; j++) {
            streamConsumer *sc = src->consumers[j];
            streamCreateConsumer(cg, sc->name, sdslen(sc->name), sc->seen_time);
        }
        for (size_t j = 0; j < src->pel.len; j++) {
            streamNACK *nack = src->pel.vals[j];
            streamConsumer *owner = streamLookupConsumer(cg, nack->consumer->name, sdslen(nack->consumer->name));
            streamNACK *copy = streamAssignPending(cg, owner, &src->pel.ids[j], nack->delivery_time);
            copy->delivery_count = nack->delivery_count;
        }
    }
    return d;
}

robj *createStreamObject(void) {
    robj *o = createObject(OBJ_STREAM, streamNew());
    o->encoding = OBJ_ENCODING_STREAM;
    return o;
}

int streamCompareID(const streamID *a, const streamID *b) {
    if (a->ms != b->ms) return a->ms > b->ms ? 1 : -1;
    if (a->seq != b->seq) return a->seq > b->seq ? 1 : -1;
    return 0;
}

int streamIncrID(streamID *id) {
    if (id->seq == UINT64_MAX) {
        if (id->ms == UINT64_MAX) return -1;
        id->ms++;
        id->seq = 0;
    } else {
        id->seq++;
    }
    return 0;
}

int streamDecrID(streamID *id) {
    if (id->seq == 0) {
        if (id->ms == 0) return -1;
        id->ms--;
        id->seq = UINT64_MAX;
    } else {
        id->seq--;
    }
    return 0;
}

int streamFormatID(char *buf, const streamID *id) {
    int n = ull2string(buf, STREAM_ID_STR_LEN, id->ms);
    buf[n++] = '-';
    n += ull2string(buf + n, STREAM_ID_STR_LEN - (size_t)n, id->seq);
    return n;
}

void streamEncodeID(unsigned char *buf, const streamID *id) {
    for (int j = 0; j < 8; j++) {
        buf[j] = (unsigned char)(id->ms >> (56 - 8 * j));
        buf[8 + j] = (unsigned char)(id->seq >> (56 - 8 * j));
    }
}

void streamDecodeID(const unsigned char *buf, streamID *id) {
    id->ms = id->seq = 0;
    for (int j = 0; j < 8; j++) {
        id->ms = (id->ms << 8) | buf[j];
        id->seq = (id->seq << 8) | buf[8 + j];
    }
}

int streamNextID(const stream *s, const streamID *given, int seq_given, long long now_ms, streamID *out) {
    const streamID *last = &s->last_id;
    if (!given) {
        if ((uint64_t)now_ms > last->ms) {
            out->ms = (uint64_t)now_ms;
            out->seq = 0;
            return 0;
        }
        *out = *last;
        return streamIncrID(out);
    }
    *out = *given;
    if (!seq_given) {
        if (given->ms == last->ms) {
            if (last->seq == UINT64_MAX) return -1;
            out->seq = last->seq + 1;
        } else if (given->ms > last->ms) {
            out->seq = 0;
        } else {
            return -1;
        }
        return 0;
    }
    return streamCompareID(out, last) > 0 ? 0 : -1;
}

/* ------------------------------------------------------------ node layout */

typedef struct nodeHeader {
    int64_t count, deleted;
    long nfields;
    unsigned char *fields;      /* first master field */
    unsigned char *first_entry; /* NULL when the node has no entry */
} nodeHeader;

/* Walking a node. A node RESTOREd with sanitize-dump-payload off may only
 * have passed the shallow check (streamNode.unchecked): it is walked with
 * every entry checked before it is read, and what does not hold stops the
 * server with an assertion, as Redis does on such a node; a node that was
 * checked (or built here) is trusted and walked without checks. */
static unsigned char *nodeFirst(unsigned char *lp, int check) {
    unsigned char *p = lpFirst(lp);
    if (check) serverAssert(p && lpValidateFirstEntry(lp));
    return p;
}

/* The entry after p (NULL past the last). */
static unsigned char *nodeNext(unsigned char *lp, unsigned char *p, int check) {
    p = lpNext(lp, p);
    if (check && p) {
        unsigned char *q = p;
        serverAssert(lpValidateNextEntry(lp, &q));
    }
    return p;
}

/* The entry after p, which must exist. */
static unsigned char *nodeNeed(unsigned char *lp, unsigned char *p, int check) {
    p = nodeNext(lp, p, check);
    if (check) serverAssert(p != NULL);
    return p;
}

/* An integer field of a node (counts, flags, ID deltas). */
static int64_t intField(unsigned char *p, int *ok);
static int64_t nodeInt(unsigned char *p, int check) {
    if (!check) return lpInt(p);
    int ok = 1;
    int64_t v = intField(p, &ok);
    serverAssert(ok);
    return v;
}

static void readNodeHeader(unsigned char *lp, nodeHeader *h, int check) {
    unsigned char *p = nodeFirst(lp, check);
    h->count = nodeInt(p, check);
    p = nodeNeed(lp, p, check);
    h->deleted = nodeInt(p, check);
    p = nodeNeed(lp, p, check);
    h->nfields = (long)nodeInt(p, check);
    if (check) serverAssert(h->count >= 0 && h->deleted >= 0 && h->nfields >= 0);
    p = nodeNeed(lp, p, check);
    h->fields = p;
    for (long j = 0; j < h->nfields; j++) p = nodeNeed(lp, p, check);
    if (check) serverAssert(nodeInt(p, check) == 0); /* the master terminator */
    h->first_entry = nodeNext(lp, p, check);
}

typedef struct entryView {
    unsigned char *flagsp;
    int flags;
    streamID id;
    long nfields;
    unsigned char *values; /* first field (or first value with SAMEFIELDS) */
    long elements;         /* what its lp-count must say */
    unsigned char *countp; /* its lp-count */
    unsigned char *next;   /* the following entry's flags, NULL at the end */
} entryView;

static void readEntry(unsigned char *lp, unsigned char *p, const streamID *master, long master_nfields,
                      entryView *e, int check) {
    e->flagsp = p;
    e->flags = (int)nodeInt(p, check);
    p = nodeNeed(lp, p, check);
    e->id.ms = master->ms + (uint64_t)nodeInt(p, check);
    p = nodeNeed(lp, p, check);
    e->id.seq = master->seq + (uint64_t)nodeInt(p, check);
    p = nodeNeed(lp, p, check);
    long skip, elements;
    if (e->flags & STREAM_ITEM_FLAG_SAMEFIELDS) {
        e->nfields = master_nfields;
        skip = master_nfields;
        elements = master_nfields + 3;
    } else {
        e->nfields = (long)nodeInt(p, check);
        if (check) serverAssert(e->nfields >= 0 && e->nfields < (long)LP_MAX_SAFE_SIZE);
        p = nodeNeed(lp, p, check);
        skip = e->nfields * 2;
        elements = e->nfields * 2 + 4;
    }
    e->values = p;
    while (skip--) p = nodeNeed(lp, p, check);
    e->elements = elements;
    e->countp = p;
    e->next = nodeNext(lp, p, check);
}

/* Index of the last node whose master ID is <= id, or -1. */
static long findNode(const stream *s, const streamID *id) {
    long lo = 0, hi = (long)s->nnodes - 1, found = -1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        if (streamCompareID(&s->nodes[mid].master, id) <= 0) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

static void removeNode(stream *s, size_t idx) {
    lpFree(s->nodes[idx].lp);
    memmove(s->nodes + idx, s->nodes + idx + 1, sizeof(streamNode) * (s->nnodes - idx - 1));
    s->nnodes--;
}

static void pushNode(stream *s, const streamID *master, unsigned char *lp) {
    if (s->nnodes == s->capacity) {
        s->capacity = s->capacity ? s->capacity * 2 : 4;
        s->nodes = zrealloc(s->nodes, sizeof(streamNode) * s->capacity);
    }
    s->nodes[s->nnodes].master = *master;
    s->nodes[s->nnodes].lp = lp;
    s->nodes[s->nnodes].unchecked = 0;
    s->nnodes++;
}

/* Adds delta to the live and deleted counters of a node's master entry. */
static unsigned char *adjustNodeCounters(unsigned char *lp, int64_t live_delta, int64_t deleted_delta, int check) {
    unsigned char *p = nodeFirst(lp, check);
    lp = lpReplaceInteger(lp, &p, nodeInt(p, check) + live_delta);
    p = nodeNeed(lp, p, check);
    return lpReplaceInteger(lp, &p, nodeInt(p, check) + deleted_delta);
}

int streamAppendItem(stream *s, const streamID *id, robj **fv, long numfields, long long node_max_bytes,
                     long long node_max_entries) {
    char buf[LONG_STR_SIZE];
    size_t len, totelelen = 0;
    for (long j = 0; j < numfields * 2; j++) totelelen += stringObjectLen(fv[j]);
    if (!lpSafeToAdd(NULL, totelelen)) return -1;

    streamNode *tail = s->nnodes ? &s->nodes[s->nnodes - 1] : NULL;
    if (node_max_bytes <= 0 || node_max_bytes > STREAM_LISTPACK_MAX_SIZE) node_max_bytes = STREAM_LISTPACK_MAX_SIZE;
    if (tail) {
        unsigned char *p = nodeFirst(tail->lp, tail->unchecked);
        int64_t entries = nodeInt(p, tail->unchecked); /* deleted ones take room too */
        entries += nodeInt(nodeNeed(tail->lp, p, tail->unchecked), tail->unchecked);
        if (lpBytes(tail->lp) + totelelen >= (size_t)node_max_bytes) tail = NULL;
        else if (node_max_entries > 0 && entries >= node_max_entries) tail = NULL;
    }

    unsigned char *lp;
    int same = 0;
    if (!tail) {
        /* A new node: this entry's fields become the master fields. */
        lp = lpNew(0);
        lp = lpAppendInteger(lp, 1);
        lp = lpAppendInteger(lp, 0);
        lp = lpAppendInteger(lp, numfields);
        for (long j = 0; j < numfields; j++) {
            const char *f = stringObjectView(fv[j * 2], buf, &len);
            lp = lpAppend(lp, (const unsigned char *)f, (uint32_t)len);
        }
        lp = lpAppendInteger(lp, 0);
        pushNode(s, id, lp);
        tail = &s->nodes[s->nnodes - 1];
        same = 1;
    } else {
        lp = adjustNodeCounters(tail->lp, 1, 0, tail->unchecked);
        nodeHeader h;
        readNodeHeader(lp, &h, tail->unchecked);
        if (h.nfields == numfields) {
            same = 1;
            unsigned char *p = h.fields;
            for (long j = 0; j < numfields && same; j++, p = lpNext(lp, p)) { /* master fields: checked above */
                const char *f = stringObjectView(fv[j * 2], buf, &len);
                if (!lpCompare(p, (const unsigned char *)f, (uint32_t)len)) same = 0;
            }
        }
    }

    lp = lpAppendInteger(lp, same ? STREAM_ITEM_FLAG_SAMEFIELDS : STREAM_ITEM_FLAG_NONE);
    lp = lpAppendInteger(lp, (long long)(id->ms - tail->master.ms));
    lp = lpAppendInteger(lp, (long long)(id->seq - tail->master.seq));
    if (!same) lp = lpAppendInteger(lp, numfields);
    for (long j = 0; j < numfields * 2; j++) {
        if (same && j % 2 == 0) continue;
        const char *f = stringObjectView(fv[j], buf, &len);
        lp = lpAppend(lp, (const unsigned char *)f, (uint32_t)len);
    }
    /* lp-count: the entry's elements before it, for walking backwards. */
    lp = lpAppendInteger(lp, same ? numfields + 3 : numfields * 2 + 4);
    tail->lp = lp;

    s->length++;
    s->entries_added++;
    s->last_id = *id;
    if (s->length == 1) s->first_id = *id;
    return 0;
}

int streamEdgeID(stream *s, int last, streamID *id) {
    streamIterator it;
    streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX};
    long nf;
    streamIteratorStart(&it, s, &min, &max, last);
    int found = streamIteratorNext(&it, id, &nf);
    streamIteratorStop(&it);
    if (!found) id->ms = id->seq = 0;
    return found;
}

void streamLastValidID(stream *s, streamID *id) {
    if (!streamEdgeID(s, 1, id) && s->length)
        serverPanic("Corrupt stream, length is %llu, but no max id", (unsigned long long)s->length);
}

static void refreshFirstID(stream *s) {
    if (s->length == 0) s->first_id.ms = s->first_id.seq = 0;
    else streamEdgeID(s, 0, &s->first_id);
}

int streamDeleteItem(stream *s, const streamID *id) {
    long idx = findNode(s, id);
    if (idx < 0) return 0;
    streamNode *node = &s->nodes[idx];
    nodeHeader h;
    readNodeHeader(node->lp, &h, node->unchecked);
    for (unsigned char *p = h.first_entry; p;) {
        entryView e;
        readEntry(node->lp, p, &node->master, h.nfields, &e, node->unchecked);
        int cmp = streamCompareID(&e.id, id);
        if (cmp > 0) return 0;
        if (cmp == 0) {
            if (e.flags & STREAM_ITEM_FLAG_DELETED) return 0;
            unsigned char *fp = e.flagsp;
            node->lp = lpReplaceInteger(node->lp, &fp, e.flags | STREAM_ITEM_FLAG_DELETED);
            node->lp = adjustNodeCounters(node->lp, -1, 1, node->unchecked);
            if (h.count - 1 == 0) removeNode(s, (size_t)idx);
            s->length--;
            if (streamCompareID(id, &s->max_deleted_entry_id) > 0) s->max_deleted_entry_id = *id;
            if (streamCompareID(id, &s->first_id) == 0) refreshFirstID(s);
            return 1;
        }
        p = e.next;
    }
    return 0;
}

int64_t streamTrim(stream *s, int strategy, uint64_t maxlen, const streamID *minid, int approx, int64_t limit) {
    int64_t removed = 0;
    if (strategy == TRIM_STRATEGY_NONE) return 0;
    while (s->nnodes) {
        if (strategy == TRIM_STRATEGY_MAXLEN && s->length <= maxlen) break;
        streamNode *node = &s->nodes[0];
        nodeHeader h;
        readNodeHeader(node->lp, &h, node->unchecked);
        if (limit && removed + h.count > limit) break;

        int whole;
        if (strategy == TRIM_STRATEGY_MAXLEN) {
            whole = s->length - (uint64_t)h.count >= maxlen;
        } else {
            /* The node's last entry (live or not) decides. */
            unsigned char *p = h.first_entry;
            entryView e = {0};
            while (p) {
                readEntry(node->lp, p, &node->master, h.nfields, &e, node->unchecked);
                p = e.next;
            }
            whole = streamCompareID(&e.id, minid) < 0;
        }
        if (whole) {
            s->length -= (uint64_t)h.count;
            removed += h.count;
            removeNode(s, 0);
            continue;
        }
        /* Approximate trimming only drops whole nodes. */
        if (approx) break;

        /* Mark the leading entries deleted; the node keeps at least one live entry. */
        int64_t marked = 0;
        unsigned char *p = h.first_entry;
        while (p) {
            entryView e;
            readEntry(node->lp, p, &node->master, h.nfields, &e, node->unchecked);
            if (strategy == TRIM_STRATEGY_MAXLEN ? s->length <= maxlen : streamCompareID(&e.id, minid) >= 0) break;
            if (!(e.flags & STREAM_ITEM_FLAG_DELETED)) {
                size_t next_off = e.next ? (size_t)(e.next - node->lp) : 0;
                unsigned char *fp = e.flagsp;
                node->lp = lpReplaceInteger(node->lp, &fp, e.flags | STREAM_ITEM_FLAG_DELETED);
                marked++;
                s->length--;
                e.next = next_off ? node->lp + next_off : NULL;
            }
            p = e.next;
        }
        node->lp = adjustNodeCounters(node->lp, -marked, marked, node->unchecked);
        removed += marked;
        break;
    }
    refreshFirstID(s);
    return removed;
}

/* ------------------------------------------------------------ iteration */

static unsigned char *checkedPrev(unsigned char *lp, unsigned char *p);

/* Loads node it->node (header, and for reverse walks the entry offsets). */
static void iteratorEnterNode(streamIterator *it) {
    streamNode *node = &it->s->nodes[it->node];
    nodeHeader h;
    it->lp = node->lp;
    it->master = node->master;
    it->check = node->unchecked;
    readNodeHeader(it->lp, &h, it->check);
    it->master_nfields = h.nfields;
    it->master_fields = h.fields;
    it->next = h.first_entry;
    if (!it->rev) return;
    if (it->check) {
        /* From the last entry's lp-count back, as Redis walks (revCheckedNext). */
        it->ele = checkedPrev(it->lp, it->lp + lpBytes(it->lp) - 1);
        return;
    }
    it->noffsets = 0;
    for (unsigned char *p = h.first_entry; p;) {
        entryView e;
        readEntry(it->lp, p, &it->master, h.nfields, &e, 0);
        if (it->noffsets == it->offsets_cap) {
            it->offsets_cap = it->offsets_cap ? it->offsets_cap * 2 : 64;
            it->offsets = zrealloc(it->offsets, sizeof(size_t) * it->offsets_cap);
        }
        it->offsets[it->noffsets++] = (size_t)(p - it->lp);
        p = e.next;
    }
}

void streamIteratorStart(streamIterator *it, stream *s, const streamID *start, const streamID *end, int rev) {
    memset(it, 0, sizeof(*it));
    it->s = s;
    it->start = *start;
    it->end = *end;
    it->rev = rev;
    if (!rev) {
        it->node = findNode(s, start);
        if (it->node < 0) it->node = 0;
        if ((size_t)it->node >= s->nnodes) return;
    } else {
        it->node = findNode(s, end);
        /* Nothing can be at or below end then; Redis still walks back from
         * the last node, so on nodes that were not checked it stops on a
         * bad one here as well (only those need the walk). */
        if (it->node < 0 && streamHasUncheckedNodes(s)) it->node = (long)s->nnodes - 1;
        if (it->node < 0) return;
    }
    iteratorEnterNode(it);
}

/* The step back in an unchecked node; asserts when the landing entry is
 * bad, or when there is none (p was the first entry, or NULL). */
static unsigned char *checkedPrev(unsigned char *lp, unsigned char *p) {
    serverAssert(p != NULL);
    serverAssert(lpValidatePrevEntry(lp, &p));
    return p;
}

/* A reverse walk through an unchecked node, step for step as Redis walks
 * it: from an entry's lp-count back by that count to its flags, and on to
 * the previous lp-count, so that it stops (or finds nothing) where Redis
 * does on the same bytes. 1: an entry was found; 0: the iteration is over;
 * -1: the node is done. */
static int revCheckedNext(streamIterator *it, streamID *id, long *numfields) {
    unsigned char *lp = it->lp;
    if (it->emitted) {
        /* Back from the lp-count of the entry returned last. */
        it->emitted = 0;
        int64_t lp_count = nodeInt(it->ele, 1);
        while (lp_count-- > 0) it->ele = checkedPrev(lp, it->ele);
        it->ele = checkedPrev(lp, it->ele);
    }
    for (;;) {
        serverAssert(it->ele != NULL);
        int64_t lp_count = nodeInt(it->ele, 1);
        if (lp_count == 0) return -1; /* the master entry's terminator */
        while (lp_count-- > 0) it->ele = checkedPrev(lp, it->ele);
        unsigned char *p = it->ele;
        int64_t flags = nodeInt(p, 1);
        p = nodeNeed(lp, p, 1);
        streamID eid = it->master;
        eid.ms += (uint64_t)nodeInt(p, 1);
        p = nodeNeed(lp, p, 1);
        eid.seq += (uint64_t)nodeInt(p, 1);
        p = nodeNeed(lp, p, 1);
        long nf = it->master_nfields;
        if (!(flags & STREAM_ITEM_FLAG_SAMEFIELDS)) {
            nf = (long)nodeInt(p, 1);
            p = nodeNeed(lp, p, 1);
        }
        serverAssert(nf >= 0 && nf < (long)LP_MAX_SAFE_SIZE);
        if (streamCompareID(&eid, &it->end) <= 0 && !(flags & STREAM_ITEM_FLAG_DELETED)) {
            if (streamCompareID(&eid, &it->start) < 0) return 0;
            *id = eid;
            *numfields = nf;
            it->field_left = nf;
            it->samefields = (flags & STREAM_ITEM_FLAG_SAMEFIELDS) != 0;
            it->fp = p;
            it->mfp = it->master_fields;
            /* Where reading its fields ends: its lp-count. */
            for (long j = 0; j < (it->samefields ? nf : nf * 2); j++) p = nodeNeed(lp, p, 1);
            it->ele = p;
            it->emitted = 1;
            return 1;
        }
        it->ele = checkedPrev(lp, it->ele); /* from its flags to the previous lp-count */
    }
}

int streamIteratorNext(streamIterator *it, streamID *id, long *numfields) {
    while (it->lp) {
        if (it->rev && it->check) {
            int found = revCheckedNext(it, id, numfields);
            if (found >= 0) {
                if (!found) it->lp = NULL;
                return found;
            }
            it->lp = NULL;
            it->node--;
            if (it->node < 0) return 0;
            iteratorEnterNode(it);
            continue;
        }
        unsigned char *p;
        if (!it->rev) {
            p = it->next;
        } else {
            p = it->noffsets ? it->lp + it->offsets[--it->noffsets] : NULL;
        }
        if (!p) {
            /* Next node, if any. */
            it->lp = NULL;
            it->node += it->rev ? -1 : 1;
            if (it->node < 0 || (size_t)it->node >= it->s->nnodes) return 0;
            iteratorEnterNode(it);
            continue;
        }
        entryView e;
        readEntry(it->lp, p, &it->master, it->master_nfields, &e, it->check);
        it->next = e.next;
        if (!it->rev) {
            if (streamCompareID(&e.id, &it->end) > 0) break;
            if (streamCompareID(&e.id, &it->start) < 0) continue;
        } else {
            if (streamCompareID(&e.id, &it->start) < 0) break;
            if (streamCompareID(&e.id, &it->end) > 0) continue;
        }
        if (e.flags & STREAM_ITEM_FLAG_DELETED) continue;
        *id = e.id;
        *numfields = e.nfields;
        it->field_left = e.nfields;
        it->samefields = (e.flags & STREAM_ITEM_FLAG_SAMEFIELDS) != 0;
        it->fp = e.values;
        it->mfp = it->master_fields;
        return 1;
    }
    it->lp = NULL;
    return 0;
}

void streamIteratorNextField(streamIterator *it, lpEntry *field, lpEntry *value) {
    /* readEntry walked (and, for an unchecked node, checked) these entries. */
    if (it->samefields) {
        lpGetEntry(it->mfp, field);
        it->mfp = lpNext(it->lp, it->mfp);
    } else {
        lpGetEntry(it->fp, field);
        it->fp = lpNext(it->lp, it->fp);
    }
    lpGetEntry(it->fp, value);
    it->fp = lpNext(it->lp, it->fp);
    it->field_left--;
}

void streamIteratorStop(streamIterator *it) {
    zfree(it->offsets);
    it->offsets = NULL;
    it->lp = NULL;
}

/* ------------------------------------------------------------ loading */

/* A field that must be an integer (an integer entry, or digits); clears *ok if not. */
static int64_t intField(unsigned char *p, int *ok) {
    uint32_t slen;
    long long v = 0;
    unsigned char *str = lpGetValue(p, &slen, &v);
    if (str && !string2ll((const char *)str, slen, &v)) *ok = 0;
    return v;
}

/* Checks a node's structure with every step bounds-checked (lpNext returns
 * NULL at the end instead of running past it). */
static int nodeIsWellFormed(unsigned char *lp, const streamID *master) {
    int ok = 1; /* cleared by a field that should be an integer and is not */
    unsigned char *p = lpFirst(lp);
    if (!p) return 0;
    int64_t count = intField(p, &ok);
    if (!(p = lpNext(lp, p))) return 0;
    int64_t deleted = intField(p, &ok);
    if (!(p = lpNext(lp, p))) return 0;
    int64_t nfields = intField(p, &ok);
    if (count < 0 || deleted < 0 || nfields < 0) return 0;
    for (int64_t j = 0; j <= nfields; j++)
        if (!(p = lpNext(lp, p))) return 0;
    if (intField(p, &ok) != 0) return 0; /* master terminator */
    p = lpNext(lp, p);
    int64_t live = 0, dead = 0;
    streamID prev = {0, 0};
    while (p) {
        int64_t flags = intField(p, &ok);
        streamID id;
        if (!(p = lpNext(lp, p))) return 0;
        id.ms = master->ms + (uint64_t)intField(p, &ok);
        if (!(p = lpNext(lp, p))) return 0;
        id.seq = master->seq + (uint64_t)intField(p, &ok);
        if (!(p = lpNext(lp, p))) return 0;
        if ((live || dead) && streamCompareID(&id, &prev) <= 0) return 0;
        if (streamCompareID(&id, master) < 0) return 0;
        prev = id;
        int64_t skip, elements;
        if (flags & STREAM_ITEM_FLAG_SAMEFIELDS) {
            skip = nfields;
            elements = nfields + 3;
        } else {
            int64_t n = intField(p, &ok);
            if (n < 0) return 0;
            if (!(p = lpNext(lp, p))) return 0;
            skip = n * 2;
            elements = n * 2 + 4;
        }
        while (skip--)
            if (!(p = lpNext(lp, p))) return 0;
        if (intField(p, &ok) != elements) return 0;
        p = lpNext(lp, p);
        if (flags & STREAM_ITEM_FLAG_DELETED) dead++;
        else live++;
    }
    return ok && live == count && dead == deleted;
}

const char *streamAppendLoadedNode(stream *s, const streamID *master, unsigned char *lp, size_t size, int deep) {
    if (!lpValidateIntegrity(lp, size, 0, NULL, NULL)) return "Stream listpack integrity check failed.";
    int well_formed = lpValidateIntegrity(lp, size, 1, NULL, NULL) && nodeIsWellFormed(lp, master);
    if (!well_formed && deep) return "Stream listpack integrity check failed.";
    if (lpFirst(lp) == NULL) return "Empty listpack inside stream";
    /* Redis reads the first entry of every node it loads. */
    if (!well_formed) serverAssert(lpValidateFirstEntry(lp));
    if (s->nnodes && streamCompareID(master, &s->nodes[s->nnodes - 1].master) <= 0)
        return "Listpack re-added with existing key";
    if (well_formed) {
        nodeHeader h;
        readNodeHeader(lp, &h, 0);
        if (h.count == 0) return "Empty listpack inside stream"; /* Redis never keeps an empty node */
    }
    pushNode(s, master, lp);
    s->nodes[s->nnodes - 1].unchecked = !well_formed;
    return NULL;
}

int streamHasUncheckedNodes(const stream *s) {
    for (size_t j = 0; j < s->nnodes; j++)
        if (s->nodes[j].unchecked) return 1;
    return 0;
}

uint64_t streamCountLive(stream *s) {
    uint64_t live = 0;
    for (size_t j = 0; j < s->nnodes; j++) {
        nodeHeader h;
        readNodeHeader(s->nodes[j].lp, &h, s->nodes[j].unchecked);
        live += (uint64_t)h.count;
    }
    return live;
}

/* ------------------------------------------------------------ consumer groups */

size_t streamIDMapSeek(const streamIDMap *m, const streamID *id, int *found) {
    size_t lo = 0, hi = m->len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (streamCompareID(&m->ids[mid], id) < 0) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < m->len && streamCompareID(&m->ids[lo], id) == 0;
    return lo;
}

void streamIDMapInsertAt(streamIDMap *m, size_t pos, const streamID *id, void *val) {
    if (m->len == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->ids = zrealloc(m->ids, sizeof(streamID) * m->cap);
        m->vals = zrealloc(m->vals, sizeof(void *) * m->cap);
    }
    memmove(m->ids + pos + 1, m->ids + pos, sizeof(streamID) * (m->len - pos));
    memmove(m->vals + pos + 1, m->vals + pos, sizeof(void *) * (m->len - pos));
    m->ids[pos] = *id;
    m->vals[pos] = val;
    m->len++;
}

void streamIDMapDeleteAt(streamIDMap *m, size_t pos) {
    memmove(m->ids + pos, m->ids + pos + 1, sizeof(streamID) * (m->len - pos - 1));
    memmove(m->vals + pos, m->vals + pos + 1, sizeof(void *) * (m->len - pos - 1));
    m->len--;
}

/* Radix-tree order: bytes, then the shorter name first. */
static int compareNames(const char *a, size_t alen, const char *b, size_t blen) {
    int cmp = memcmp(a, b, alen < blen ? alen : blen);
    if (cmp) return cmp;
    return alen < blen ? -1 : (alen > blen);
}

/* Index of name in a sorted array of objects whose first member is an sds
 * name (groups, consumers), or where it would go. */
static size_t seekName(void **items, size_t n, size_t name_offset, const char *name, size_t len, int *found) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        sds other = *(sds *)((char *)items[mid] + name_offset);
        if (compareNames(other, sdslen(other), name, len) < 0) lo = mid + 1;
        else hi = mid;
    }
    sds at = lo < n ? *(sds *)((char *)items[lo] + name_offset) : NULL;
    *found = at && compareNames(at, sdslen(at), name, len) == 0;
    return lo;
}

static void *insertSorted(void **array, size_t *n, size_t pos, void *item) {
    void **grown = zrealloc(array, sizeof(void *) * (*n + 1));
    memmove(grown + pos + 1, grown + pos, sizeof(void *) * (*n - pos));
    grown[pos] = item;
    (*n)++;
    return grown;
}

streamCG *streamLookupCG(stream *s, const char *name, size_t len) {
    int found;
    size_t pos = seekName((void **)s->groups, s->ngroups, offsetof(streamCG, name), name, len, &found);
    return found ? s->groups[pos] : NULL;
}

streamCG *streamCreateCG(stream *s, const char *name, size_t len, const streamID *id, long long entries_read) {
    int found;
    size_t pos = seekName((void **)s->groups, s->ngroups, offsetof(streamCG, name), name, len, &found);
    if (found) return NULL;
    streamCG *cg = zcalloc(sizeof(*cg));
    cg->name = sdsnewlen(name, len);
    cg->last_id = *id;
    cg->entries_read = entries_read;
    s->groups = insertSorted((void **)s->groups, &s->ngroups, pos, cg);
    return cg;
}

int streamDestroyCG(stream *s, const char *name, size_t len) {
    int found;
    size_t pos = seekName((void **)s->groups, s->ngroups, offsetof(streamCG, name), name, len, &found);
    if (!found) return 0;
    freeCG(s->groups[pos]);
    memmove(s->groups + pos, s->groups + pos + 1, sizeof(streamCG *) * (s->ngroups - pos - 1));
    s->ngroups--;
    return 1;
}

streamConsumer *streamLookupConsumer(streamCG *cg, const char *name, size_t len) {
    int found;
    size_t pos = seekName((void **)cg->consumers, cg->nconsumers, offsetof(streamConsumer, name), name, len, &found);
    return found ? cg->consumers[pos] : NULL;
}

streamConsumer *streamCreateConsumer(streamCG *cg, const char *name, size_t len, long long now_ms) {
    int found;
    size_t pos = seekName((void **)cg->consumers, cg->nconsumers, offsetof(streamConsumer, name), name, len, &found);
    if (found) return NULL;
    streamConsumer *sc = zcalloc(sizeof(*sc));
    sc->name = sdsnewlen(name, len);
    sc->seen_time = now_ms;
    cg->consumers = insertSorted((void **)cg->consumers, &cg->nconsumers, pos, sc);
    return sc;
}

long long streamDelConsumer(streamCG *cg, const char *name, size_t len) {
    int found;
    size_t pos = seekName((void **)cg->consumers, cg->nconsumers, offsetof(streamConsumer, name), name, len, &found);
    if (!found) return -1;
    streamConsumer *sc = cg->consumers[pos];
    long long pending = (long long)sc->pel.len;
    while (sc->pel.len) streamAckEntry(cg, &sc->pel.ids[sc->pel.len - 1]);
    memmove(cg->consumers + pos, cg->consumers + pos + 1, sizeof(streamConsumer *) * (cg->nconsumers - pos - 1));
    cg->nconsumers--;
    sdsfree(sc->name);
    zfree(sc->pel.ids);
    zfree(sc->pel.vals);
    zfree(sc);
    return pending;
}

int streamAckEntry(streamCG *cg, const streamID *id) {
    int found;
    size_t pos = streamIDMapSeek(&cg->pel, id, &found);
    if (!found) return 0;
    streamNACK *nack = cg->pel.vals[pos];
    size_t cpos = streamIDMapSeek(&nack->consumer->pel, id, &found);
    if (found) streamIDMapDeleteAt(&nack->consumer->pel, cpos);
    streamIDMapDeleteAt(&cg->pel, pos);
    zfree(nack);
    return 1;
}

streamNACK *streamAssignPending(streamCG *cg, streamConsumer *consumer, const streamID *id, long long when) {
    int found;
    size_t pos = streamIDMapSeek(&cg->pel, id, &found);
    streamNACK *nack;
    if (found) {
        nack = cg->pel.vals[pos];
        if (nack->consumer != consumer) {
            size_t cpos = streamIDMapSeek(&nack->consumer->pel, id, &found);
            if (found) streamIDMapDeleteAt(&nack->consumer->pel, cpos);
        }
    } else {
        nack = zcalloc(sizeof(*nack));
        streamIDMapInsertAt(&cg->pel, pos, id, nack);
    }
    if (!found || nack->consumer != consumer) {
        size_t cpos = streamIDMapSeek(&consumer->pel, id, &found);
        if (!found) streamIDMapInsertAt(&consumer->pel, cpos, id, nack);
    }
    nack->consumer = consumer;
    nack->delivery_time = when;
    nack->delivery_count = 1;
    return nack;
}

long long streamEstimateDistanceFromFirstEverEntry(stream *s, const streamID *id) {
    if (!s->entries_added) return 0; /* a never-used stream */
    int cmp_last = streamCompareID(id, &s->last_id);
    if (!s->length && cmp_last <= 0) return (long long)s->entries_added;
    if (cmp_last == 0) return (long long)s->entries_added;
    if (cmp_last > 0) return SCG_INVALID_ENTRIES_READ; /* the future is unknown */
    /* Without a deletion after the first entry the count is exact. */
    int no_xdel_ahead = (s->max_deleted_entry_id.ms == 0 && s->max_deleted_entry_id.seq == 0) ||
                        streamCompareID(&s->max_deleted_entry_id, &s->first_id) < 0;
    if (no_xdel_ahead) {
        int cmp_first = streamCompareID(id, &s->first_id);
        if (cmp_first < 0) return (long long)(s->entries_added - s->length);
        if (cmp_first == 0) return (long long)(s->entries_added - s->length + 1);
    }
    return SCG_INVALID_ENTRIES_READ;
}

int streamRangeHasTombstones(stream *s, const streamID *start, const streamID *end) {
    streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX};
    if (s->length == 0 || (s->max_deleted_entry_id.ms == 0 && s->max_deleted_entry_id.seq == 0)) return 0;
    if (streamCompareID(&s->first_id, &s->max_deleted_entry_id) > 0) return 0;
    if (!start) start = &min;
    if (!end) end = &max;
    return streamCompareID(start, &s->max_deleted_entry_id) <= 0 && streamCompareID(end, &s->max_deleted_entry_id) >= 0;
}

int streamEntryExists(stream *s, const streamID *id) {
    streamIterator it;
    streamID found;
    long nf;
    streamIteratorStart(&it, s, id, id, 0);
    int exists = streamIteratorNext(&it, &found, &nf);
    streamIteratorStop(&it);
    return exists;
}
