/* Unit tests for src/core/zmalloc.c: used_memory counts the usable size of
 * every block, whether the size comes from the allocator or from the size
 * classes zmalloc computes, and zfree_sized gives back exactly what was counted. */
#include <malloc.h>
#include <string.h>

#include "core/zmalloc.h"
#include "testhelp.h"

static void testCountsUsableSize(void) {
    TEST("malloc/realloc/free count the usable size");
    size_t before = zmalloc_used_memory();
    for (size_t size = 0; size < 70000; size += size < 600 ? 1 : 997) {
        void *p = zmalloc(size);
        CHECK(zmalloc_used_memory() - before == malloc_usable_size(p));
        p = zrealloc(p, size * 2 + 1);
        CHECK(zmalloc_used_memory() - before == malloc_usable_size(p));
        zfree(p);
        CHECK(zmalloc_used_memory() == before);
    }
    void *c = zcalloc(100);
    CHECK(zmalloc_used_memory() - before == malloc_usable_size(c));
    zfree(c);
    CHECK(zmalloc_used_memory() == before);
}

static void testFreeSized(void) {
    TEST("zfree_sized with the requested or the usable size");
    size_t before = zmalloc_used_memory();
    for (size_t size = 1; size < 40000; size += size < 300 ? 1 : 311) {
        void *p = zmalloc(size);
        memset(p, 'x', size);
        zfree_sized(p, size);
        CHECK(zmalloc_used_memory() == before);
        p = zmalloc(size);
        zfree_sized(p, zmalloc_size(p));
        CHECK(zmalloc_used_memory() == before);
    }
}

int main(void) {
    testCountsUsableSize();
    testFreeSized();
    return TEST_REPORT();
}
