/* zmalloc: the allocator wrapper every module allocates through.
 * It counts bytes in use (used_memory in INFO) and aborts with a log line
 * when the allocator returns NULL, so callers never check for it.
 * Backed by jemalloc unless built with MALLOC=libc. */
#ifndef CORE_ZMALLOC_H
#define CORE_ZMALLOC_H

#include <stddef.h>

void *zmalloc(size_t size);
void *zcalloc(size_t size);
void *zrealloc(void *ptr, size_t size);
void zfree(void *ptr);
/* Frees a block whose size the caller knows: size must be the size it was
 * allocated (or last reallocated) with, or any size up to its usable size. */
void zfree_sized(void *ptr, size_t size);
/* zrealloc of a block whose size the caller knows (as for zfree_sized). */
void *zrealloc_sized(void *ptr, size_t oldsize, size_t size);
char *zstrdup(const char *s);
void *zmemdup(const void *p, size_t size);
size_t zmalloc_size(void *ptr);          /* usable size of an allocation */
size_t zmalloc_used_memory(void);        /* bytes handed out and not freed */
size_t zmalloc_get_rss(void);            /* resident set size of the process */
const char *zmalloc_lib_name(void);      /* "jemalloc-5.3.0" or "libc" */
/* jemalloc's allocated/active/resident bytes (fresh); all 0 with libc. */
void zmalloc_get_allocator_info(size_t *allocated, size_t *active, size_t *resident);
/* jemalloc: purge freed pages from a background thread instead of inline in
 * free(), so mass deletions never stall the event loop. No-op with libc. */
void zmalloc_set_background_thread(int enable);
/* jemalloc: called once at start-up. Lets no free() in the main thread purge
 * pages on the spot (see zmalloc.c). No-op with libc. */
void zmalloc_no_eager_purge(void);
/* The allocator's own statistics report, written in pieces to write(ctx, text);
 * returns 0 when the allocator has none (libc). */
int zmalloc_stats_report(void (*write)(void *ctx, const char *text), void *ctx);
/* Hands the calling thread's cached free blocks back to the arenas (jemalloc;
 * no-op with libc): a thread that only frees would otherwise keep them. */
void zmalloc_thread_cache_flush(void);
/* Returns dirty pages of every arena to the system now; 0 if not possible. */
int zmalloc_purge(void);
/* DEBUG MALLCTL / MALLCTL-STR: reads the allocator setting `name` (an
 * integer into *num, or a string into *strout, NULL for write-only ones)
 * and writes newval to it when given (a string "VOID": written with no
 * value). Returns 0 or an errno; ENOTSUP with libc. */
int zmalloc_ctl(const char *name, int str, const char *newval, long long *num, const char **strout);
/* Called instead of returning NULL; the default logs and aborts. */
void zmalloc_set_oom_handler(void (*handler)(size_t size));

#endif
