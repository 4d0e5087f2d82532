/* zmalloc: allocation with used-memory accounting (see zmalloc.h).
 * The count is the usable size of each block, so it matches what jemalloc
 * really hands out, without a size prefix. Asking jemalloc for a block's
 * size (malloc_usable_size) costs more than the allocation itself, so a new
 * block's size comes from jemalloc's size classes computed here (checked
 * against nallocx once), and callers that know a block's size free it with
 * zfree_sized, which skips the size lookup in jemalloc too. */
#include "zmalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

static atomic_size_t used_memory;

static void defaultOomHandler(size_t size) {
    fprintf(stderr, "zmalloc: Out of memory trying to allocate %zu bytes\n", size);
    fflush(stderr);
    abort();
}

static void (*oom_handler)(size_t) = defaultOomHandler;

void zmalloc_set_oom_handler(void (*handler)(size_t)) { oom_handler = handler; }

size_t zmalloc_size(void *ptr) { return malloc_usable_size(ptr); }

#ifdef USE_JEMALLOC
/* jemalloc's size classes with 16-byte quantum: 8, then multiples of 16 up
 * to 128, then four classes per power of two. Valid only when every class
 * checked against nallocx matched (sizeClassesChecked == 1); otherwise the
 * allocator's own answer is used. */
static int sizeClassesChecked; /* 0 unchecked, 1 formula holds, -1 it does not */

static inline size_t sizeClassFormula(size_t size) {
    if (size <= 8) return 8;
    if (size <= 128) return (size + 15) & ~(size_t)15;
    size_t delta = (size_t)1 << (63 - __builtin_clzll(size - 1) - 2);
    return (size + delta - 1) & ~(delta - 1);
}

static void checkSizeClasses(void) {
    sizeClassesChecked = 1;
    /* Every size up to 1 KB, then each class's last size and the next one. */
    for (size_t size = 1; size <= ((size_t)1 << 24);) {
        if (nallocx(size, 0) != sizeClassFormula(size)) {
            sizeClassesChecked = -1;
            return;
        }
        size_t class = sizeClassFormula(size);
        size = size < 1024 ? size + 1 : size == class ? class + 1 : class;
    }
}

static inline size_t usableSizeFor(size_t size) {
    if (__builtin_expect(sizeClassesChecked == 0, 0)) checkSizeClasses();
    return sizeClassesChecked > 0 ? sizeClassFormula(size) : nallocx(size, 0);
}
#define usableSizeOf(p, size) usableSizeFor(size)
#else
#define usableSizeOf(p, size) malloc_usable_size(p)
#endif

static inline void countAlloc(size_t n) {
    atomic_fetch_add_explicit(&used_memory, n, memory_order_relaxed);
}
static inline void countFree(size_t n) {
    atomic_fetch_sub_explicit(&used_memory, n, memory_order_relaxed);
}

static void *accounted(void *p, size_t size) {
    if (!p) oom_handler(size);
    countAlloc(usableSizeOf(p, size ? size : 1));
    return p;
}

void *zmalloc(size_t size) { return accounted(malloc(size ? size : 1), size); }

void *zcalloc(size_t size) { return accounted(calloc(1, size ? size : 1), size); }

static void *reallocFrom(void *ptr, size_t old, size_t size) {
#ifdef USE_JEMALLOC
    /* Same size class: jemalloc would keep the block where it is, and asking
     * it costs more than this test (growing listpacks hit it on most inserts). */
    if (usableSizeFor(size) == old) return ptr;
#endif
    void *p = realloc(ptr, size);
    if (!p) oom_handler(size);
    countFree(old);
    countAlloc(usableSizeOf(p, size));
    return p;
}

void *zrealloc(void *ptr, size_t size) {
    if (ptr == NULL) return zmalloc(size);
    if (size == 0) {
        zfree(ptr);
        return NULL;
    }
    return reallocFrom(ptr, malloc_usable_size(ptr), size);
}

void *zrealloc_sized(void *ptr, size_t oldsize, size_t size) {
    if (ptr == NULL) return zmalloc(size);
    if (size == 0) {
        zfree_sized(ptr, oldsize);
        return NULL;
    }
#ifdef USE_JEMALLOC
    return reallocFrom(ptr, usableSizeFor(oldsize), size);
#else
    (void)oldsize;
    return reallocFrom(ptr, malloc_usable_size(ptr), size);
#endif
}

void zfree(void *ptr) {
    if (ptr == NULL) return;
    countFree(malloc_usable_size(ptr));
    free(ptr);
}

void zfree_sized(void *ptr, size_t size) {
#ifdef USE_JEMALLOC
    countFree(usableSizeFor(size));
    sdallocx(ptr, size, 0);
#else
    (void)size;
    zfree(ptr);
#endif
}

void *zmemdup(const void *p, size_t size) {
    void *d = zmalloc(size);
    memcpy(d, p, size);
    return d;
}

char *zstrdup(const char *s) { return zmemdup(s, strlen(s) + 1); }

size_t zmalloc_used_memory(void) {
    return atomic_load_explicit(&used_memory, memory_order_relaxed);
}

size_t zmalloc_get_rss(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long pages_total = 0, pages_rss = 0;
    int n = fscanf(f, "%lu %lu", &pages_total, &pages_rss);
    fclose(f);
    if (n != 2) return 0;
    return (size_t)pages_rss * (size_t)sysconf(_SC_PAGESIZE);
}

/* jemalloc 5.3 gives freed pages back to the system inside free() itself
 * when the free leaves 8 MB or more of adjacent free pages (an arena's
 * oversize_threshold). In a mass expiry the expiry heap's 96 KB chunks go
 * one after another and join up to that every ~200k keys: madvise on 2048
 * pages, 10-14 ms on the VM here, inside one key's removal. The main thread's
 * arena (0) is given no such threshold, so its freed pages age like any
 * others and go back gradually (from the background thread, with
 * jemalloc-bg-thread yes). Blocks of 8 MB or more are not in it: they come
 * from jemalloc's huge arena, which purges them when freed (the old table a
 * rehash leaves is freed off the event loop), so that a new table comes from
 * untouched memory, zeroed by the kernel page by page as it is used, not all
 * at once by an madvise inside calloc: with the huge arena off as well,
 * a SET that grew the keyspace after a FLUSHALL took 7 ms for that. */
void zmalloc_no_eager_purge(void) {
#ifdef USE_JEMALLOC
    size_t never = SIZE_MAX;
    mallctl("arena.0.oversize_threshold", NULL, NULL, &never, sizeof(never));
#endif
}

void zmalloc_set_background_thread(int enable) {
#ifdef USE_JEMALLOC
    _Bool val = enable != 0;
    mallctl("background_thread", NULL, NULL, &val, sizeof(val));
#else
    (void)enable;
#endif
}

int zmalloc_stats_report(void (*write)(void *ctx, const char *text), void *ctx) {
#ifdef USE_JEMALLOC
    malloc_stats_print(write, ctx, NULL);
    return 1;
#else
    (void)write, (void)ctx;
    return 0;
#endif
}

void zmalloc_thread_cache_flush(void) {
#ifdef USE_JEMALLOC
    mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
#endif
}

int zmalloc_purge(void) {
#ifdef USE_JEMALLOC
    char name[64];
    snprintf(name, sizeof(name), "arena.%u.purge", (unsigned)MALLCTL_ARENAS_ALL);
    mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
    return mallctl(name, NULL, NULL, NULL, 0) == 0;
#else
    return 1; /* libc: nothing to ask for */
#endif
}

int zmalloc_ctl(const char *name, int str, const char *newval, long long *num, const char **strout) {
#ifdef USE_JEMALLOC
    if (str) {
        const char *old = NULL;
        size_t sz = sizeof(old);
        int rret = mallctl(name, &old, &sz, NULL, 0);
        if (rret && !(rret == EPERM && newval)) return rret;
        *strout = rret ? NULL : old;
        if (!newval) return 0;
        int void_write = !strcmp(newval, "VOID");
        return mallctl(name, NULL, NULL, void_write ? NULL : &newval, void_write ? 0 : sizeof(newval));
    }
    /* The setting's width is unknown: try 64, 32 then 8 bits. */
    int64_t old = 0, val = newval ? strtoll(newval, NULL, 10) : 0;
    for (size_t sz = sizeof(old); sz > 0; sz /= 2) {
        size_t zz = sz;
        int ret = mallctl(name, &old, &zz, newval ? &val : NULL, newval ? sz : 0);
        if (ret == EPERM && newval) return mallctl(name, NULL, NULL, &val, sz);
        if (ret == EINVAL) continue;
        if (ret) return ret;
        *num = sz == 8 ? old : sz == 4 ? (int32_t)old : sz == 2 ? (int16_t)old : (int8_t)old;
        return 0;
    }
    return EINVAL;
#else
    (void)name, (void)str, (void)newval, (void)num, (void)strout;
    return ENOTSUP;
#endif
}

void zmalloc_get_allocator_info(size_t *allocated, size_t *active, size_t *resident) {
    *allocated = *active = *resident = 0;
#ifdef USE_JEMALLOC
    /* Statistics are a snapshot taken when the epoch advances. */
    uint64_t epoch = 1;
    size_t sz = sizeof(epoch);
    mallctl("epoch", &epoch, &sz, &epoch, sz);
    sz = sizeof(size_t);
    mallctl("stats.allocated", allocated, &sz, NULL, 0);
    mallctl("stats.active", active, &sz, NULL, 0);
    mallctl("stats.resident", resident, &sz, NULL, 0);
#endif
}

const char *zmalloc_lib_name(void) {
#ifdef USE_JEMALLOC
    static char name[64];
    if (!name[0]) {
        const char *v = NULL;
        size_t sz = sizeof(v);
        if (mallctl("version", &v, &sz, NULL, 0) == 0 && v) {
            char tmp[32];
            snprintf(tmp, sizeof(tmp), "%s", v);
            char *dash = strchr(tmp, '-');
            if (dash) *dash = '\0';
            snprintf(name, sizeof(name), "jemalloc-%s", tmp);
        } else {
            snprintf(name, sizeof(name), "jemalloc");
        }
    }
    return name;
#else
    return "libc";
#endif
}
