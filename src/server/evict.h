/* evict: keeping used memory under maxmemory. Before a command runs (and
 * from a timer while a big overshoot is worked off) keys are removed as
 * maxmemory-policy says, each the way expiry removes keys (expire.h). */
#ifndef SERVER_EVICT_H
#define SERVER_EVICT_H

#include "data/object.h"
#include "server/maxmem.h"

/* maxmemory-policy's values (MAXMEMORY_*) stand beside server.maxmemory_policy. */


/* Config apply hook of maxmemory-policy (and part of maxmemory's). */
int applyMaxmemoryPolicy(const char **err);

#define EVICT_OK 0      /* under the limit, no limit, or evicting is not safe now */
#define EVICT_RUNNING 1 /* still over it but out of time: a timer goes on evicting */
#define EVICT_FAIL 2    /* over it and nothing (more) may be evicted: refuse deny-OOM commands */



/* Evicts until used memory is within maxmemory, for at most the time
 * maxmemory-eviction-tenacity allows. */
int performEvictions(void);
/* Config apply hook for maxmemory: a limit below the current usage starts
 * evicting at once (from the timer), as Redis does. */
int applyMaxmemory(const char **err);

#endif
