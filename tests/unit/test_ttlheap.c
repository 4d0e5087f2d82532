/* test_ttlheap: the expiry heap against a simple model — random inserts,
 * deadline updates and removals, checking order, positions and that popping
 * yields deadlines in non-decreasing order. */
#include "testhelp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/zmalloc.h"
#include "core/dict.h"
#include "data/ttlheap.h"

#define N 5000

typedef struct item {
    long pos;     /* where the heap says it is, -1 when absent */
    int64_t when; /* the model's deadline */
    int present;
} item;

static void setpos(void *p, long pos) { ((item *)p)->pos = pos; }
static long getpos(void *p) { return ((item *)p)->pos; }

int main(void) {
    static item items[N];
    ttlHeap *h = ttlHeapCreate(setpos);
    size_t present = 0;
    for (int i = 0; i < N; i++) items[i].pos = -1;

    TEST("random operations keep heap order and positions");
    int bad_removals = 0;
    for (int step = 0; step < 200000; step++) {
        item *it = &items[testNextRandom() % N];
        int op = testNextRandom() % 3;
        int64_t when = (int64_t)(testNextRandom() % 100000);
        if (!it->present) {
            ttlHeapInsert(h, it, when);
            it->when = when;
            it->present = 1;
            present++;
        } else if (op == 0) {
            ttlHeapUpdate(h, it->pos, when);
            it->when = when;
        } else {
            void *removed = ttlHeapRemove(h, it->pos);
            if (removed != it || it->pos != -1) bad_removals++;
            it->present = 0;
            present--;
        }
        if (step % 5000 == 0) {
            CHECK(ttlHeapVerify(h, getpos));
            CHECK(ttlHeapLen(h) == present);
        }
    }
    CHECK(bad_removals == 0);
    CHECK(ttlHeapVerify(h, getpos));

    TEST("deadlines read through positions match the model");
    int mismatches = 0;
    for (int i = 0; i < N; i++)
        if (items[i].present && ttlHeapWhen(h, items[i].pos) != items[i].when) mismatches++;
    CHECK(mismatches == 0);

    TEST("popping the minimum gives deadlines in order");
    int64_t last = -1;
    int ordered = 1;
    while (ttlHeapLen(h)) {
        int64_t when = ttlHeapMinWhen(h);
        item *it = ttlHeapMinItem(h);
        if (when < last || it->when != when) ordered = 0;
        last = when;
        ttlHeapRemove(h, 0);
        it->present = 0;
    }
    CHECK(ordered);
    CHECK(ttlHeapLen(h) == 0);

    TEST("deadlines outside 48 bits are kept exactly and order last/first");
    {
        ttlHeap *far = ttlHeapCreate(setpos);
        item a = {.pos = -1}, b = {.pos = -1}, c = {.pos = -1};
        ttlHeapInsert(far, &a, INT64_MAX);
        ttlHeapInsert(far, &b, 1000);
        ttlHeapInsert(far, &c, -5);
        CHECK(ttlHeapWhen(far, a.pos) == INT64_MAX);
        CHECK(ttlHeapWhen(far, c.pos) == -5);
        CHECK(ttlHeapMinItem(far) == &c);
        ttlHeapUpdate(far, c.pos, TTLHEAP_WHEN_MAX + 10);
        CHECK(ttlHeapWhen(far, c.pos) == TTLHEAP_WHEN_MAX + 10);
        CHECK(ttlHeapMinItem(far) == &b);
        ttlHeapUpdate(far, a.pos, 5);
        CHECK(ttlHeapWhen(far, a.pos) == 5 && ttlHeapMinItem(far) == &a);
        ttlHeapRemove(far, c.pos);
        CHECK(ttlHeapLen(far) == 2 && ttlHeapVerify(far, getpos));
        ttlHeapFree(far);
    }

    TEST("an item that moved keeps its slot and deadline, even a far one");
    {
        ttlHeap *mv = ttlHeapCreate(setpos);
        item a = {.pos = -1}, b = {.pos = -1}, a2 = {.pos = -1}, b2 = {.pos = -1};
        ttlHeapInsert(mv, &a, 700);
        ttlHeapInsert(mv, &b, INT64_MAX);
        long apos = a.pos, bpos = b.pos;
        ttlHeapSetItem(mv, (size_t)apos, &a2);
        ttlHeapSetItem(mv, (size_t)bpos, &b2);
        CHECK(a2.pos == apos && b2.pos == bpos);
        CHECK(ttlHeapItem(mv, (size_t)apos) == &a2 && ttlHeapWhen(mv, (size_t)apos) == 700);
        CHECK(ttlHeapWhen(mv, (size_t)bpos) == INT64_MAX);
        CHECK(ttlHeapRemove(mv, (size_t)b2.pos) == &b2 && ttlHeapLen(mv) == 1);
        CHECK(mv->far == NULL || dictSize(mv->far) == 0);
        ttlHeapFree(mv);
    }

    TEST("equal deadlines and a large heap");
    for (int i = 0; i < N; i++) ttlHeapInsert(h, &items[i], 42);
    CHECK(ttlHeapVerify(h, getpos));
    for (int i = 0; i < N; i += 2) ttlHeapRemove(h, items[i].pos);
    CHECK(ttlHeapLen(h) == N / 2);
    CHECK(ttlHeapVerify(h, getpos));
    ttlHeapFree(h);

    TEST("a heap of many chunks grows and gives its chunks back as it empties");
    {
        enum { BIG = (int)(TTLHEAP_CHUNK * 5 + 123) };
        item *many = zcalloc(sizeof(item) * BIG);
        ttlHeap *bh = ttlHeapCreate(setpos);
        size_t base = zmalloc_used_memory();
        for (int i = 0; i < BIG; i++) {
            many[i].when = (int64_t)(testNextRandom() % 1000000);
            ttlHeapInsert(bh, &many[i], many[i].when);
        }
        CHECK(ttlHeapVerify(bh, getpos));
        CHECK(bh->nchunks == 6 && bh->cap == 6 * TTLHEAP_CHUNK);
        /* Remove items from all over the heap (their positions cross chunk edges). */
        for (int i = 0; i < BIG; i += 3) ttlHeapRemove(bh, (size_t)many[i].pos);
        CHECK(ttlHeapVerify(bh, getpos));
        size_t left = ttlHeapLen(bh);
        CHECK(bh->cap >= left && bh->cap - left < 2 * TTLHEAP_CHUNK);
        int64_t prev = -1;
        int in_order = 1, wrong = 0;
        while (ttlHeapLen(bh)) {
            item *it = ttlHeapMinItem(bh);
            if (ttlHeapMinWhen(bh) < prev) in_order = 0;
            if (ttlHeapMinWhen(bh) != it->when) wrong++;
            prev = ttlHeapMinWhen(bh);
            ttlHeapRemove(bh, 0);
            if (ttlHeapLen(bh) % 4096 == 0 && !ttlHeapVerify(bh, getpos)) wrong++;
        }
        CHECK(in_order && wrong == 0);
        CHECK(bh->nchunks == 1 && bh->cap <= 1024); /* an empty heap keeps one small chunk */
        CHECK(zmalloc_used_memory() - base <= 1024 * sizeof(ttlHeapSlot) + 64);
        ttlHeapFree(bh);
        zfree(many);
    }
    CHECK(zmalloc_used_memory() == 0);
    return TEST_REPORT();
}
