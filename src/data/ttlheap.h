/* ttlheap: the ordered index of deadlines (keys' expiry times, blocked
 * clients' timeouts).
 * A 4-ary min-heap of (deadline, item) pairs. Each item learns its slot
 * through a callback, so it can be re-keyed or removed in O(log n) and its
 * deadline read in O(1) (ttlHeapWhen) without a second lookup structure.
 * A slot packs a 48-bit ms deadline and a 48-bit pointer into 12 bytes (user
 * space pointers on x86-64/arm64 Linux fit in 48 bits), so a volatile key
 * costs 12 bytes here; deadlines outside [0, 2^48) ms — years past 10000 or
 * before 1970 — are clamped in the slot and kept exactly in a side table.
 * A 4-ary heap keeps the hot top levels in few cache lines.
 *
 * The slots are kept in chunks of TTLHEAP_CHUNK (96 KB), not one array: a
 * big array that grows or shrinks stalls the server for as long as the
 * allocator takes to move it or to hand its pages back (at 10M keys a
 * 120 MB array: 0.6 s to move into fresh pages on a VM whose page faults
 * cost 20-30 µs, 5-15 ms to shrink), while a chunk costs its few pages.
 * The first chunk grows by 1/16 up to a full one, so a small heap stays
 * small; past it whole chunks are added, and freed once two are empty. */
#ifndef DATA_TTLHEAP_H
#define DATA_TTLHEAP_H

#include <stddef.h>
#include <stdint.h>

#define TTLHEAP_WHEN_MAX ((int64_t)((1ULL << 48) - 1))

typedef struct ttlHeapSlot {
    uint32_t when_lo;
    uint16_t when_hi;
    uint16_t item_hi;
    uint32_t item_lo;
} ttlHeapSlot;

/* Called whenever an item moves; pos is its 0-based slot, or -1 once removed. */
typedef void ttlHeapSetPos(void *item, long pos);

#define TTLHEAP_CHUNK_SHIFT 13
#define TTLHEAP_CHUNK ((size_t)1 << TTLHEAP_CHUNK_SHIFT) /* slots per chunk */

typedef struct ttlHeap {
    ttlHeapSlot **chunks; /* chunk i holds slots [i * TTLHEAP_CHUNK, (i + 1) * TTLHEAP_CHUNK) */
    size_t nchunks, chunks_cap;
    size_t len, cap;      /* cap: slots allocated (the first chunk alone may be partial) */
    ttlHeapSetPos *setpos;
    struct dict *far; /* item → exact deadline, for deadlines that do not fit a slot */
} ttlHeap;

ttlHeap *ttlHeapCreate(ttlHeapSetPos *setpos);
void ttlHeapFree(ttlHeap *h);
/* Drops every item (their setpos is not called: the caller frees them). */
void ttlHeapClear(ttlHeap *h);
void ttlHeapInsert(ttlHeap *h, void *item, int64_t when);
void ttlHeapUpdate(ttlHeap *h, size_t pos, int64_t when);
void *ttlHeapRemove(ttlHeap *h, size_t pos);
/* The item at pos moved in memory: same deadline, new address. */
void ttlHeapSetItem(ttlHeap *h, size_t pos, void *item);
int64_t ttlHeapWhen(const ttlHeap *h, size_t pos);

static inline int64_t ttlSlotWhen(const ttlHeapSlot *s) { return (int64_t)s->when_lo | ((int64_t)s->when_hi << 32); }
static inline void *ttlSlotItem(const ttlHeapSlot *s) {
    return (void *)(uintptr_t)((uint64_t)s->item_lo | ((uint64_t)s->item_hi << 32));
}
static inline ttlHeapSlot *ttlHeapSlotAt(const ttlHeap *h, size_t pos) {
    return &h->chunks[pos >> TTLHEAP_CHUNK_SHIFT][pos & (TTLHEAP_CHUNK - 1)];
}
static inline size_t ttlHeapLen(const ttlHeap *h) { return h->len; }
static inline void *ttlHeapItem(const ttlHeap *h, size_t pos) { return ttlSlotItem(ttlHeapSlotAt(h, pos)); }
/* Earliest entry; the heap must not be empty. Clamped deadlines compare as their clamp. */
static inline int64_t ttlHeapMinWhen(const ttlHeap *h) { return ttlHeapWhen(h, 0); }
static inline void *ttlHeapMinItem(const ttlHeap *h) { return ttlSlotItem(&h->chunks[0][0]); }
size_t ttlHeapMemUsage(const ttlHeap *h);
/* Checks the heap property and positions; for tests. Returns 1 when valid. */
int ttlHeapVerify(const ttlHeap *h, long (*getpos)(void *item));

#endif
