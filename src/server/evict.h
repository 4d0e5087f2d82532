/* evict: keeping used memory under maxmemory. Before a command runs (and
 * from a timer while a big overshoot is worked off) keys are removed as
 * maxmemory-policy says, each the way expiry removes keys (expire.h). */
#ifndef SERVER_EVICT_H
#define SERVER_EVICT_H

#include "data/object.h"

/* maxmemory-policy's values (MAXMEMORY_*) stand beside server.maxmemory_policy. */

/* The keyspace tables' growth check: a table that can still take keys does
 * not double past maxmemory (7.0) — the doubling would only evict what it was
 * to hold. */
int evictExpandAllowed(size_t more_mem, double used_ratio);

/* Config apply hook of maxmemory-policy (and part of maxmemory's). */
int applyMaxmemoryPolicy(const char **err);

#define EVICT_OK 0      /* under the limit, no limit, or evicting is not safe now */
#define EVICT_RUNNING 1 /* still over it but out of time: a timer goes on evicting */
#define EVICT_FAIL 2    /* over it and nothing (more) may be evicted: refuse deny-OOM commands */

/* Access tracking, read by the LRU/LFU policies, OBJECT IDLETIME/FREQ and
 * DEBUG OBJECT. An access (a key lookup) touches the value; a new key starts
 * with the initial LFU count. */
void objectTouch(robj *o);
void objectInitAccess(robj *o);
int maxmemoryPolicyIsLfu(void);
/* RESTORE's IDLETIME / FREQ (-1 when not given): the one the policy keeps
 * (FREQ, 0..255, under LFU; IDLETIME seconds otherwise) sets the value's
 * access record. */
void objectSetAccess(robj *o, long long lfu_freq, long long lru_idle);
unsigned long long objectIdleSeconds(robj *o);
unsigned long objectLfuCounter(robj *o); /* decayed to now; read without touching */

/* Used memory as maxmemory counts it: without what replicas hold of the
 * shared replication buffer beyond repl-backlog-size and without the AOF
 * buffer (as Redis 7.0's freeMemoryGetNotCountedMemory), so a slow replica
 * or a burst of writes to the AOF never makes the master evict keys. */
size_t evictCountedMemory(void);
/* INFO mem_not_counted_for_evict: what evictCountedMemory leaves out. */
size_t evictNotCountedMemory(void);
/* The AOF's part of it (persist/ registers it: server/ cannot ask). */
void evictSetAofBufferProbe(size_t (*probe)(void));

/* Evicts until used memory is within maxmemory, for at most the time
 * maxmemory-eviction-tenacity allows. */
int performEvictions(void);
/* Config apply hook for maxmemory: a limit below the current usage starts
 * evicting at once (from the timer), as Redis does. */
int applyMaxmemory(const char **err);

#endif
