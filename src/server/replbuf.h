/* replbuf: the shared replication buffer, as Redis 7.0 keeps it. The stream
 * a master produces (or a replica passes on) is copied once, into a list of
 * refcounted blocks; the backlog and every replica's output are references
 * into that list (a block and a position in it), never copies. A replica's
 * output is written straight from the blocks (networking.c), and a block is
 * freed once nobody references it and the backlog no longer needs it: the
 * backlog keeps repl-backlog-size bytes, more while a replica still holds
 * older blocks (so it may also serve a partial resync from them).
 *
 * It lives in server/ because the client output path writes from it; repl/
 * decides when the buffer exists (it is the backlog's life), feeds it and
 * says which replica references what. */
#ifndef SERVER_REPLBUF_H
#define SERVER_REPLBUF_H

#include "server/server.h"

typedef struct replBufBlock {
    int refcount;          /* the backlog (on the first block) and replicas starting here */
    int indexed;           /* in Redis's index of the blocks (one in REPLBUF_INDEX_EVERY) */
    long long id;          /* increasing: the number of blocks between two is a difference */
    long long repl_offset; /* stream offset of buf[0] */
    size_t size, used;
    char buf[];
} replBufBlock;

/* Blocks trimmed at most per call on the hot paths (feeding, writing, a
 * replica leaving); the cron trims more between commands. */
#define REPLBUF_TRIM_BLOCKS_PER_CALL 64

/* The buffer (the backlog) exists; replBufCreate starts it empty, its first
 * byte to come being the stream's byte at next_offset. */
extern list *replBufBlocks; /* the blocks, NULL while there is no backlog (read through replBufActive) */
static inline int replBufActive(void) { return replBufBlocks != NULL; }
void replBufCreate(long long next_offset);
/* Frees every block. No client may reference one any more (replBufUnrefClient). */
void replBufRelease(void);

/* Appends stream bytes, s[0] being the stream's byte at offset. start_node
 * and start_pos: where they begin, for the replicas attaching with them.
 * Returns 1 when a block was added (then the caller checks the replicas'
 * output limits, and the backlog is trimmed). */
int replBufAppend(const char *s, size_t len, long long offset, listNode **start_node, size_t *start_pos);

/* The backlog: bytes of history kept, and the offset of the first one. */
long long replBufHistlen(void);
long long replBufFirstOffset(void);
/* INFO mem_total_replication_buffers: blocks, headers and list nodes. */
size_t replBufMemory(void);
/* Redis 7.0 indexes every 64th block of the backlog in a radix tree (to find
 * a PSYNC offset) and counts the tree in INFO mem_replication_backlog. We
 * walk the list instead, but report what the tree would take, the same way
 * (nodes * sizeof(raxNode) + keys * sizeof(void *)): 0 with no backlog. */
#define REPLBUF_INDEX_EVERY 64
size_t replBufIndexMemory(void);
/* The part beyond repl-backlog-size (what replicas hold on their own): not
 * counted for maxmemory, as Redis 7.0's freeMemoryGetNotCountedMemory. */
size_t replBufNotCountedMemory(void);
/* Drops blocks only the backlog holds while it keeps more than repl-backlog-size. */
void replBufTrim(int max_blocks);

/* A client's references. It streams from node/pos on (refcount taken). */
void replBufRefClient(client *c, listNode *node, size_t pos);
/* PSYNC: c streams the backlog from offset on (within the backlog). */
void replBufRefClientAt(client *c, long long offset);
/* c starts where other does (a replica sharing another's snapshot). */
void replBufCopyRef(client *c, client *other);
void replBufUnrefClient(client *c);
/* Bytes c has still to send of the buffer (what its output counts, as Redis:
 * from its block to the end, with the blocks' headers). */
size_t replBufClientMemory(client *c);
/* The blocks from c's to the last (CLIENT LIST counts them in oll, as Redis). */
size_t replBufClientBlocks(client *c);
/* c has bytes of the buffer to send. */
int replBufClientPending(client *c);
/* Writes what the socket takes of c's part of the buffer: bytes written,
 * 0 when the socket is full, -1 on a write error (errno set). */
ssize_t replBufWriteClient(client *c);

#endif
