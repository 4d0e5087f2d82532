/* memprefetch: the one way to ask the CPU for a cache line ahead of use.
 *
 * Used where a lookup's dependent loads (a hash bucket, a skiplist node)
 * can be started before the code that needs them, so their misses overlap. */
#ifndef CORE_MEMPREFETCH_H
#define CORE_MEMPREFETCH_H

/* GCC counts a prefetch as doing nothing: a function or a loop that only
 * prefetches is deleted whole, prefetches and all. The empty asm after each
 * one is a statement the compiler must keep, and it keeps them. */
static inline void prefetchLine(const void *p) {
    __builtin_prefetch(p);
    __asm__ volatile("" : : "r"(p));
}

#endif
