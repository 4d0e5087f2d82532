/* ttlheap: 4-ary min-heap of deadlines in packed 12-byte slots, kept in
 * chunks (see ttlheap.h). */
#include "ttlheap.h"
#include "core/dict.h"
#include "core/zmalloc.h"

#include <stdlib.h>

#define ARITY 4

static dictType farDictType = {.hashFunction = dictPtrHash};

ttlHeap *ttlHeapCreate(ttlHeapSetPos *setpos) {
    ttlHeap *h = zcalloc(sizeof(*h));
    h->setpos = setpos;
    return h;
}

static void freeChunks(ttlHeap *h) {
    for (size_t i = 0; i < h->nchunks; i++) zfree(h->chunks[i]);
    zfree(h->chunks);
    h->chunks = NULL;
    h->nchunks = h->chunks_cap = h->len = h->cap = 0;
}

void ttlHeapFree(ttlHeap *h) {
    if (!h) return;
    freeChunks(h);
    if (h->far) dictRelease(h->far);
    zfree(h);
}

void ttlHeapClear(ttlHeap *h) {
    freeChunks(h);
    if (h->far) dictEmpty(h->far, NULL);
}

static ttlHeapSlot makeSlot(void *item, int64_t when) {
    uint64_t p = (uint64_t)(uintptr_t)item;
    if (p >> 48) abort(); /* a pointer outside 48 bits: this platform needs wider slots */
    int64_t w = when < 0 ? 0 : (when > TTLHEAP_WHEN_MAX ? TTLHEAP_WHEN_MAX : when);
    ttlHeapSlot s = {(uint32_t)w, (uint16_t)(w >> 32), (uint16_t)(p >> 32), (uint32_t)p};
    return s;
}

/* Remember or forget the exact deadline of an item whose slot clamps it. */
static void setFar(ttlHeap *h, void *item, int64_t when) {
    int clamped = when < 0 || when >= TTLHEAP_WHEN_MAX;
    if (clamped) {
        if (!h->far) h->far = dictCreate(&farDictType);
        dictEntry *de = dictAddOrFind(h->far, item);
        dictSetSignedIntegerVal(de, when);
    } else if (h->far && dictSize(h->far)) {
        dictDelete(h->far, item);
    }
}

int64_t ttlHeapWhen(const ttlHeap *h, size_t pos) {
    const ttlHeapSlot *slot = ttlHeapSlotAt(h, pos);
    int64_t w = ttlSlotWhen(slot);
    if ((w == 0 || w == TTLHEAP_WHEN_MAX) && h->far && dictSize(h->far)) {
        dictEntry *de = dictFind(h->far, ttlSlotItem(slot));
        if (de) return dictGetSignedIntegerVal(de);
    }
    return w;
}

static void place(ttlHeap *h, size_t pos, ttlHeapSlot s) {
    *ttlHeapSlotAt(h, pos) = s;
    h->setpos(ttlSlotItem(&s), (long)pos);
}

static void siftUp(ttlHeap *h, size_t pos) {
    ttlHeapSlot s = *ttlHeapSlotAt(h, pos);
    int64_t when = ttlSlotWhen(&s);
    while (pos > 0) {
        size_t parent = (pos - 1) / ARITY;
        const ttlHeapSlot *ps = ttlHeapSlotAt(h, parent);
        if (ttlSlotWhen(ps) <= when) break;
        place(h, pos, *ps);
        pos = parent;
    }
    place(h, pos, s);
}

static void siftDown(ttlHeap *h, size_t pos) {
    ttlHeapSlot s = *ttlHeapSlotAt(h, pos);
    int64_t when = ttlSlotWhen(&s);
    for (;;) {
        size_t first = pos * ARITY + 1;
        if (first >= h->len) break;
        size_t last = first + ARITY < h->len ? first + ARITY : h->len;
        size_t best = first;
        int64_t bestwhen = ttlSlotWhen(ttlHeapSlotAt(h, first));
        for (size_t c = first + 1; c < last; c++) {
            int64_t cw = ttlSlotWhen(ttlHeapSlotAt(h, c));
            if (cw < bestwhen) best = c, bestwhen = cw;
        }
        if (bestwhen >= when) break;
        place(h, pos, *ttlHeapSlotAt(h, best));
        pos = best;
    }
    place(h, pos, s);
}

/* Room for one more slot: the first chunk grows by a sixteenth (at least 64
 * slots) up to a full chunk; then whole chunks are added. */
static void grow(ttlHeap *h) {
    if (h->nchunks <= 1 && h->cap < TTLHEAP_CHUNK) {
        size_t step = h->cap / 16 < 64 ? 64 : h->cap / 16;
        size_t cap = h->cap + step < TTLHEAP_CHUNK ? h->cap + step : TTLHEAP_CHUNK;
        if (!h->nchunks) {
            h->chunks = zmalloc(sizeof(ttlHeapSlot *));
            h->chunks_cap = h->nchunks = 1;
            h->chunks[0] = NULL;
        }
        h->chunks[0] = zrealloc(h->chunks[0], cap * sizeof(ttlHeapSlot));
        h->cap = cap;
        return;
    }
    if (h->nchunks == h->chunks_cap) {
        h->chunks_cap *= 2;
        h->chunks = zrealloc(h->chunks, h->chunks_cap * sizeof(ttlHeapSlot *));
    }
    h->chunks[h->nchunks++] = zmalloc(TTLHEAP_CHUNK * sizeof(ttlHeapSlot));
    h->cap += TTLHEAP_CHUNK;
}

/* After a removal: a chunk goes once the one before it is empty too (one
 * empty chunk is kept, so a heap whose size swings around a chunk's edge does
 * not allocate and free it each time); the first chunk, once alone, shrinks
 * when three quarters of it are unused. */
static void shrink(ttlHeap *h) {
    if (h->nchunks > 1) {
        if (h->len + TTLHEAP_CHUNK <= h->cap - TTLHEAP_CHUNK) {
            zfree(h->chunks[--h->nchunks]);
            h->cap -= TTLHEAP_CHUNK;
        }
    }
    if (h->nchunks == 1 && h->cap > 1024 && h->len < h->cap / 4) {
        h->cap = h->len + h->len / 16 + 64;
        h->chunks[0] = zrealloc(h->chunks[0], h->cap * sizeof(ttlHeapSlot));
    }
}

void ttlHeapInsert(ttlHeap *h, void *item, int64_t when) {
    if (h->len == h->cap) grow(h);
    setFar(h, item, when);
    *ttlHeapSlotAt(h, h->len) = makeSlot(item, when);
    siftUp(h, h->len++);
}

void ttlHeapUpdate(ttlHeap *h, size_t pos, int64_t when) {
    ttlHeapSlot *slot = ttlHeapSlotAt(h, pos);
    int64_t old = ttlSlotWhen(slot);
    void *item = ttlSlotItem(slot);
    setFar(h, item, when);
    *slot = makeSlot(item, when);
    if (ttlSlotWhen(slot) < old) siftUp(h, pos);
    else siftDown(h, pos);
}

void *ttlHeapRemove(ttlHeap *h, size_t pos) {
    ttlHeapSlot *slot = ttlHeapSlotAt(h, pos);
    void *item = ttlSlotItem(slot);
    if (h->far && dictSize(h->far)) dictDelete(h->far, item);
    h->len--;
    if (pos != h->len) {
        int64_t old = ttlSlotWhen(slot);
        *slot = *ttlHeapSlotAt(h, h->len);
        if (ttlSlotWhen(slot) < old) siftUp(h, pos);
        else siftDown(h, pos);
    }
    h->setpos(item, -1);
    shrink(h);
    return item;
}

void ttlHeapSetItem(ttlHeap *h, size_t pos, void *item) {
    int64_t when = ttlHeapWhen(h, pos);
    void *old = ttlSlotItem(ttlHeapSlotAt(h, pos));
    if (h->far && dictSize(h->far)) dictDelete(h->far, old);
    setFar(h, item, when);
    place(h, pos, makeSlot(item, when));
}

size_t ttlHeapMemUsage(const ttlHeap *h) {
    return sizeof(*h) + h->cap * sizeof(ttlHeapSlot) + h->chunks_cap * sizeof(ttlHeapSlot *);
}

int ttlHeapVerify(const ttlHeap *h, long (*getpos)(void *item)) {
    for (size_t i = 0; i < h->len; i++) {
        if (getpos(ttlHeapItem(h, i)) != (long)i) return 0;
        if (i > 0 && ttlSlotWhen(ttlHeapSlotAt(h, (i - 1) / ARITY)) > ttlSlotWhen(ttlHeapSlotAt(h, i))) return 0;
    }
    return 1;
}
