/* ttlheap: 4-ary min-heap of deadlines in packed 12-byte slots (see ttlheap.h). */
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

void ttlHeapFree(ttlHeap *h) {
    if (!h) return;
    zfree(h->slots);
    if (h->far) dictRelease(h->far);
    zfree(h);
}

void ttlHeapClear(ttlHeap *h) {
    zfree(h->slots);
    h->slots = NULL;
    h->len = h->cap = 0;
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
    int64_t w = ttlSlotWhen(&h->slots[pos]);
    if ((w == 0 || w == TTLHEAP_WHEN_MAX) && h->far && dictSize(h->far)) {
        dictEntry *de = dictFind(h->far, ttlSlotItem(&h->slots[pos]));
        if (de) return dictGetSignedIntegerVal(de);
    }
    return w;
}

static void place(ttlHeap *h, size_t pos, ttlHeapSlot s) {
    h->slots[pos] = s;
    h->setpos(ttlSlotItem(&s), (long)pos);
}

static void siftUp(ttlHeap *h, size_t pos) {
    ttlHeapSlot s = h->slots[pos];
    int64_t when = ttlSlotWhen(&s);
    while (pos > 0) {
        size_t parent = (pos - 1) / ARITY;
        if (ttlSlotWhen(&h->slots[parent]) <= when) break;
        place(h, pos, h->slots[parent]);
        pos = parent;
    }
    place(h, pos, s);
}

static void siftDown(ttlHeap *h, size_t pos) {
    ttlHeapSlot s = h->slots[pos];
    int64_t when = ttlSlotWhen(&s);
    for (;;) {
        size_t first = pos * ARITY + 1;
        if (first >= h->len) break;
        size_t last = first + ARITY < h->len ? first + ARITY : h->len;
        size_t best = first;
        int64_t bestwhen = ttlSlotWhen(&h->slots[first]);
        for (size_t c = first + 1; c < last; c++) {
            int64_t cw = ttlSlotWhen(&h->slots[c]);
            if (cw < bestwhen) best = c, bestwhen = cw;
        }
        if (bestwhen >= when) break;
        place(h, pos, h->slots[best]);
        pos = best;
    }
    place(h, pos, s);
}

/* Growing by a sixteenth keeps the slack small, but a big array moves about
 * four times per allocator size class, and the allocator keeps each old copy's
 * pages for seconds (30 MB of RSS after loading a million volatile keys): an
 * array that moved hands them back at once. */
#define PURGE_AFTER_MOVE_BYTES (1024 * 1024)

static void resizeSlots(ttlHeap *h, size_t cap) {
    uintptr_t before = (uintptr_t)h->slots;
    h->cap = cap;
    h->slots = zrealloc(h->slots, cap * sizeof(ttlHeapSlot));
    if (before && (uintptr_t)h->slots != before && cap * sizeof(ttlHeapSlot) >= PURGE_AFTER_MOVE_BYTES)
        zmalloc_purge();
}

void ttlHeapInsert(ttlHeap *h, void *item, int64_t when) {
    if (h->len == h->cap) {
        size_t grow = h->cap / 16;
        resizeSlots(h, h->cap + (grow < 64 ? 64 : grow));
    }
    setFar(h, item, when);
    h->slots[h->len] = makeSlot(item, when);
    siftUp(h, h->len++);
}

void ttlHeapUpdate(ttlHeap *h, size_t pos, int64_t when) {
    int64_t old = ttlSlotWhen(&h->slots[pos]);
    void *item = ttlSlotItem(&h->slots[pos]);
    setFar(h, item, when);
    h->slots[pos] = makeSlot(item, when);
    if (ttlSlotWhen(&h->slots[pos]) < old) siftUp(h, pos);
    else siftDown(h, pos);
}

void *ttlHeapRemove(ttlHeap *h, size_t pos) {
    void *item = ttlSlotItem(&h->slots[pos]);
    if (h->far && dictSize(h->far)) dictDelete(h->far, item);
    h->len--;
    if (pos != h->len) {
        int64_t old = ttlSlotWhen(&h->slots[pos]);
        h->slots[pos] = h->slots[h->len];
        if (ttlSlotWhen(&h->slots[pos]) < old) siftUp(h, pos);
        else siftDown(h, pos);
    }
    h->setpos(item, -1);
    /* Give memory back when the heap has shrunk a lot (e.g. after a mass expiry). */
    if (h->cap > 1024 && h->len < h->cap / 4) resizeSlots(h, h->len + h->len / 16 + 64);
    return item;
}

void ttlHeapSetItem(ttlHeap *h, size_t pos, void *item) {
    int64_t when = ttlHeapWhen(h, pos);
    void *old = ttlSlotItem(&h->slots[pos]);
    if (h->far && dictSize(h->far)) dictDelete(h->far, old);
    setFar(h, item, when);
    place(h, pos, makeSlot(item, when));
}

size_t ttlHeapMemUsage(const ttlHeap *h) { return sizeof(*h) + h->cap * sizeof(ttlHeapSlot); }

int ttlHeapVerify(const ttlHeap *h, long (*getpos)(void *item)) {
    for (size_t i = 0; i < h->len; i++) {
        if (getpos(ttlSlotItem(&h->slots[i])) != (long)i) return 0;
        if (i > 0 && ttlSlotWhen(&h->slots[(i - 1) / ARITY]) > ttlSlotWhen(&h->slots[i])) return 0;
    }
    return 1;
}
