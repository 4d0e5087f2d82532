/* ttlheap: the ordered index of expiry deadlines.
 * A 4-ary min-heap of (deadline, item) pairs. Each item learns its slot
 * through a callback, so it can be re-keyed or removed in O(log n) and its
 * deadline read in O(1) (ttlHeapWhen) without a second lookup structure.
 * A 4-ary heap keeps the hot top levels in few cache lines; slots are 16
 * bytes, and the array grows by an eighth so slack stays small. */
#ifndef DATA_TTLHEAP_H
#define DATA_TTLHEAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ttlHeapSlot {
    int64_t when;
    void *item;
} ttlHeapSlot;

/* Called whenever an item moves; pos is its 0-based slot, or -1 once removed. */
typedef void ttlHeapSetPos(void *item, long pos);

typedef struct ttlHeap {
    ttlHeapSlot *slots;
    size_t len, cap;
    ttlHeapSetPos *setpos;
} ttlHeap;

ttlHeap *ttlHeapCreate(ttlHeapSetPos *setpos);
void ttlHeapFree(ttlHeap *h);
/* Drops every item (their setpos is not called: the caller frees them). */
void ttlHeapClear(ttlHeap *h);
void ttlHeapInsert(ttlHeap *h, void *item, int64_t when);
void ttlHeapUpdate(ttlHeap *h, size_t pos, int64_t when);
void *ttlHeapRemove(ttlHeap *h, size_t pos);
static inline size_t ttlHeapLen(const ttlHeap *h) { return h->len; }
static inline int64_t ttlHeapWhen(const ttlHeap *h, size_t pos) { return h->slots[pos].when; }
static inline void *ttlHeapItem(const ttlHeap *h, size_t pos) { return h->slots[pos].item; }
/* Earliest entry; the heap must not be empty. */
static inline int64_t ttlHeapMinWhen(const ttlHeap *h) { return h->slots[0].when; }
static inline void *ttlHeapMinItem(const ttlHeap *h) { return h->slots[0].item; }
size_t ttlHeapMemUsage(const ttlHeap *h);
/* Checks the heap property and positions; for tests. Returns 1 when valid. */
int ttlHeapVerify(const ttlHeap *h, long (*getpos)(void *item));

#endif
