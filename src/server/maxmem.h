/* maxmem: used memory as maxmemory counts it, and the keyspace tables'
 * growth check that reads it. Apart from eviction (evict.c, which acts on it)
 * so the keyspace below eviction can ask. */
#ifndef SERVER_MAXMEM_H
#define SERVER_MAXMEM_H

#include <stddef.h>

/* Used memory as maxmemory counts it: without what replicas hold of the
 * shared replication buffer beyond repl-backlog-size and without the AOF
 * buffer (as Redis 7.0's freeMemoryGetNotCountedMemory), so a slow replica
 * or a burst of writes to the AOF never makes the master evict keys. */
size_t evictCountedMemory(void);
/* INFO mem_not_counted_for_evict: what evictCountedMemory leaves out. */
size_t evictNotCountedMemory(void);
/* The AOF's part of it (persist/ registers it: server/ cannot ask). */
void evictSetAofBufferProbe(size_t (*probe)(void));

/* The keyspace tables' growth check: a table that can still take keys does
 * not double past maxmemory (7.0) — the doubling would only evict what it was
 * to hold. */
int evictExpandAllowed(size_t more_mem, double used_ratio);

#endif
