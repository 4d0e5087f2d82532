/* lru: the access record of values (see lru.h), as Redis keeps it. */
#include "server/lru.h"

#include <stdlib.h>

/* With an LFU maxmemory policy a value's 24 lru bits hold, as in Redis, the
 * minute of the last decrement (16 bits) and a logarithmic access counter
 * (8 bits) that new keys start at LFU_INIT_VAL. Otherwise they hold the LRU
 * clock (seconds) of the last access. */
#define LFU_INIT_VAL 5

int maxmemoryPolicyIsLfu(void) {
    return server.maxmemory_policy == MAXMEMORY_VOLATILE_LFU || server.maxmemory_policy == MAXMEMORY_ALLKEYS_LFU;
}

static unsigned long lfuTimeInMinutes(void) { return (unsigned long)(server.unixtime / 60) & 65535; }

unsigned long objectLfuCounter(robj *o) {
    unsigned long ldt = o->lru >> 8, counter = o->lru & 255, now = lfuTimeInMinutes();
    unsigned long elapsed = now >= ldt ? now - ldt : 65535 - ldt + now;
    unsigned long periods = server.lfu_decay_time ? elapsed / server.lfu_decay_time : 0;
    return periods > counter ? 0 : counter - periods;
}

/* The counter grows with probability 1/((counter - LFU_INIT_VAL) * factor + 1). */
static void lfuTouch(robj *o) {
    unsigned long counter = objectLfuCounter(o);
    if (counter < 255) {
        double base = counter > LFU_INIT_VAL ? (double)(counter - LFU_INIT_VAL) : 0;
        if ((double)rand() / RAND_MAX < 1.0 / (base * server.lfu_log_factor + 1)) counter++;
    }
    o->lru = (unsigned)((lfuTimeInMinutes() << 8) | counter);
}

void objectTouch(robj *o) {
    if (maxmemoryPolicyIsLfu()) lfuTouch(o);
    else o->lru = objectLruClock();
}

void objectInitAccess(robj *o) {
    if (maxmemoryPolicyIsLfu()) o->lru = (unsigned)((lfuTimeInMinutes() << 8) | LFU_INIT_VAL);
}

void objectSetAccess(robj *o, long long lfu_freq, long long lru_idle) {
    if (maxmemoryPolicyIsLfu()) {
        if (lfu_freq >= 0) o->lru = (unsigned)((lfuTimeInMinutes() << 8) | (unsigned long)lfu_freq);
    } else if (lru_idle >= 0) {
        unsigned int clock = objectLruClock();
        o->lru = (clock - (unsigned int)(lru_idle % (LRU_CLOCK_MAX + 1))) & LRU_CLOCK_MAX;
    }
}

unsigned long long objectIdleSeconds(robj *o) {
    unsigned int now = objectLruClock();
    return now >= o->lru ? now - o->lru : (unsigned long long)LRU_CLOCK_MAX - o->lru + now;
}

