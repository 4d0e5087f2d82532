/* maxmem: used memory as maxmemory counts it (see maxmem.h). */
#include "server/maxmem.h"
#include "server/replbuf.h"
#include "core/zmalloc.h"

static size_t (*aof_buffer_probe)(void);

void evictSetAofBufferProbe(size_t (*probe)(void)) { aof_buffer_probe = probe; }

size_t evictNotCountedMemory(void) { return replBufNotCountedMemory() + (aof_buffer_probe ? aof_buffer_probe() : 0); }

size_t evictCountedMemory(void) {
    size_t used = zmalloc_used_memory(), not_counted = evictNotCountedMemory();
    return used > not_counted ? used - not_counted : 0;
}

int evictExpandAllowed(size_t more_mem, double used_ratio) {
    if (used_ratio > 1.618) return 1; /* too full to wait: grow anyway */
    return !server.maxmemory || evictCountedMemory() + more_mem <= server.maxmemory;
}

