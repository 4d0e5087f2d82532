/* lru: the access record of every value, in its 24 lru bits: the LRU clock
 * of the last access, or under an LFU maxmemory-policy a logarithmic access
 * counter and the minute it last decayed. The keyspace touches it on every
 * lookup; eviction, OBJECT IDLETIME/FREQ, DEBUG OBJECT and RESTORE read or
 * set it. Apart from evict.c so the keyspace below eviction can keep it. */
#ifndef SERVER_LRU_H
#define SERVER_LRU_H

#include "server/server.h"

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

#endif
