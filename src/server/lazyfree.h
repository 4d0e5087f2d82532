/* lazyfree: values and whole databases freed by a background thread, as
 * Redis 7.0 frees them (UNLINK, FLUSHALL/FLUSHDB ASYNC and the lazyfree-lazy-*
 * settings), so deleting a key with millions of elements never stalls the
 * event loop. One thread, one queue. A value goes to the thread only when
 * freeing it costs more than LAZYFREE_THRESHOLD allocations and nobody else
 * holds it; once handed over, the main thread never touches it again. */
#ifndef SERVER_LAZYFREE_H
#define SERVER_LAZYFREE_H

#include "server/server.h"

/* Redis's threshold: values that take more allocations than this to free. */
#define LAZYFREE_THRESHOLD 64

/* About how many allocations freeing o takes (Redis's estimate per type). */
size_t lazyfreeFreeEffort(robj *o);
/* Releases the caller's reference to o: in the background when o is large
 * and held by the caller alone, else right away. */
void lazyfreeObject(robj *o);
/* The same, but a value handed over is not counted in INFO's
 * lazyfree_pending_objects / lazyfreed_objects: for a free Redis makes in
 * place (an expired key with lazyfree-lazy-expire off) that the event loop
 * must not stall on. */
void lazyfreeObjectUncounted(robj *o);
/* A whole keyspace (the dict of a db and its TTL index) freed in the
 * background; the caller has put empty ones in their place. */
void lazyfreeKeyspace(dict *keys, ttlHeap *expires);
/* Something the rooms above own and free as a whole (the script cache with
 * its Lua interpreter, a set of function libraries): free_fn(ptr) runs in the
 * background thread, counted as count objects in INFO. Nothing on the main
 * thread may reach ptr once handed over. */
void lazyfreeCall(void (*free_fn)(void *ptr), void *ptr, size_t count);
/* A block (a dict's table left by a rehash) freed in the background: the
 * allocator gives a big block's pages back as it is freed, for milliseconds.
 * Not counted as an object (Redis frees these in place). */
void lazyfreeBlock(void *ptr);
/* INFO: objects handed over and not freed yet; objects freed since start or
 * CONFIG RESETSTAT. */
size_t lazyfreePendingObjects(void);
size_t lazyfreedObjects(void);
void lazyfreeResetStats(void);

#endif
