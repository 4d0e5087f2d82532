/* ttlheap: 4-ary min-heap of deadlines (see ttlheap.h). */
#include "ttlheap.h"
#include "core/zmalloc.h"

#define ARITY 4

ttlHeap *ttlHeapCreate(ttlHeapSetPos *setpos) {
    ttlHeap *h = zcalloc(sizeof(*h));
    h->setpos = setpos;
    return h;
}

void ttlHeapFree(ttlHeap *h) {
    if (!h) return;
    zfree(h->slots);
    zfree(h);
}

void ttlHeapClear(ttlHeap *h) {
    zfree(h->slots);
    h->slots = NULL;
    h->len = h->cap = 0;
}

static void place(ttlHeap *h, size_t pos, ttlHeapSlot s) {
    h->slots[pos] = s;
    h->setpos(s.item, (long)pos);
}

static void siftUp(ttlHeap *h, size_t pos) {
    ttlHeapSlot s = h->slots[pos];
    while (pos > 0) {
        size_t parent = (pos - 1) / ARITY;
        if (h->slots[parent].when <= s.when) break;
        place(h, pos, h->slots[parent]);
        pos = parent;
    }
    place(h, pos, s);
}

static void siftDown(ttlHeap *h, size_t pos) {
    ttlHeapSlot s = h->slots[pos];
    for (;;) {
        size_t first = pos * ARITY + 1;
        if (first >= h->len) break;
        size_t last = first + ARITY < h->len ? first + ARITY : h->len;
        size_t best = first;
        for (size_t c = first + 1; c < last; c++)
            if (h->slots[c].when < h->slots[best].when) best = c;
        if (h->slots[best].when >= s.when) break;
        place(h, pos, h->slots[best]);
        pos = best;
    }
    place(h, pos, s);
}

void ttlHeapInsert(ttlHeap *h, void *item, int64_t when) {
    if (h->len == h->cap) {
        size_t grow = h->cap / 8;
        h->cap += grow < 64 ? 64 : grow;
        h->slots = zrealloc(h->slots, h->cap * sizeof(ttlHeapSlot));
    }
    h->slots[h->len].when = when;
    h->slots[h->len].item = item;
    siftUp(h, h->len++);
}

void ttlHeapUpdate(ttlHeap *h, size_t pos, int64_t when) {
    int64_t old = h->slots[pos].when;
    h->slots[pos].when = when;
    if (when < old) siftUp(h, pos);
    else siftDown(h, pos);
}

void *ttlHeapRemove(ttlHeap *h, size_t pos) {
    void *item = h->slots[pos].item;
    h->len--;
    if (pos != h->len) {
        int64_t old = h->slots[pos].when;
        h->slots[pos] = h->slots[h->len];
        if (h->slots[pos].when < old) siftUp(h, pos);
        else siftDown(h, pos);
    }
    h->setpos(item, -1);
    /* Give memory back when the heap has shrunk a lot (e.g. after a mass expiry). */
    if (h->cap > 1024 && h->len < h->cap / 4) {
        h->cap = h->len + h->len / 8 + 64;
        h->slots = zrealloc(h->slots, h->cap * sizeof(ttlHeapSlot));
    }
    return item;
}

size_t ttlHeapMemUsage(const ttlHeap *h) { return sizeof(*h) + h->cap * sizeof(ttlHeapSlot); }

int ttlHeapVerify(const ttlHeap *h, long (*getpos)(void *item)) {
    for (size_t i = 0; i < h->len; i++) {
        if (getpos(h->slots[i].item) != (long)i) return 0;
        if (i > 0 && h->slots[(i - 1) / ARITY].when > h->slots[i].when) return 0;
    }
    return 1;
}
