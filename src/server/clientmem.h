/* clientmem: what each client connection costs in memory, counted as Redis
 * 7.0 counts it (CLIENT LIST tot-mem), kept current as it changes so the
 * total of all clients is known without walking them, and client eviction
 * (maxmemory-clients): while normal and pub/sub clients together use more
 * than the limit, the biggest evictable ones are disconnected first. */
#ifndef SERVER_CLIENTMEM_H
#define SERVER_CLIENTMEM_H

#include "server/server.h"

/* The client's usage now; *obuf (may be NULL) gets its output buffer's part. */
size_t getClientMemoryUsage(client *c, size_t *obuf);
/* The MULTI state's part of it: queued commands and WATCHed keys. */
size_t multiStateMemOverhead(client *c);

/* Recounts a connection's usage after it changed (read, command, reply
 * added or written, subscription...): cheap, no walk over its data, and
 * nothing at all while client eviction is off — then, as in Redis 7.0, the
 * client cron's refreshClientMemUsage keeps the totals INFO shows. */
void updateClientMemUsage(client *c);
void refreshClientMemUsage(client *c);
/* Takes a client that is going away out of the totals and its bucket. */
void removeClientMemUsage(client *c);

/* Disconnects the biggest evictable clients while all normal and pub/sub
 * clients together are over maxmemory-clients. `current` is the client whose
 * input is being processed: if it must go it is only scheduled (closed
 * before the next sleep), and 1 is returned. */
int evictClients(client *current);

/* Config apply hook for maxmemory-clients (and maxmemory, whose percentage
 * it may be): recounts every client into or out of the buckets. */
int applyMaxmemoryClients(const char **err);

#endif
