/* replbuf: the shared replication buffer (see replbuf.h). One list of
 * blocks; the backlog references its first block, each replica the block it
 * is sending. Only the first block a holder needs carries its reference:
 * every later block is kept by the list order, so a block's refcount is the
 * number of holders starting there, and the first block may go only when
 * the backlog is its sole holder. */
#include "server/tls.h"
#include "server/replbuf.h"
#include "core/anet.h"
#include "core/zmalloc.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define IOV_BLOCKS 16

list *replBufBlocks;

static struct {
    listNode *backlog_node; /* the backlog's reference: always the first block (NULL while empty) */
    long long histlen;      /* bytes from the first block's start to the end */
    long long next_offset;  /* stream offset of the next byte appended */
    long long next_id;
    size_t mem;
    int unindexed;          /* blocks added since the last one Redis would index */
} rb;

void replBufCreate(long long next_offset) {
    if (replBufBlocks) return;
    replBufBlocks = listCreate();
    rb.backlog_node = NULL;
    rb.histlen = 0;
    rb.next_offset = next_offset;
    rb.mem = 0;
    rb.unindexed = 0;
}

void replBufRelease(void) {
    if (!replBufBlocks) return;
    listIter li;
    listNode *ln;
    listRewind(replBufBlocks, &li);
    while ((ln = listNext(&li))) zfree(listNodeValue(ln));
    listRelease(replBufBlocks);
    replBufBlocks = NULL;
    rb.backlog_node = NULL;
    rb.histlen = 0;
    rb.mem = 0;
}

static replBufBlock *blockOf(listNode *ln) { return listNodeValue(ln); }

/* The stream's numbering moved under the buffer (a replica taking its
 * master's offset back after a link loss): what it holds is renumbered so
 * its end is where the stream goes on. */
static void renumber(long long offset) {
    long long delta = offset - rb.next_offset;
    listIter li;
    listNode *ln;
    listRewind(replBufBlocks, &li);
    while ((ln = listNext(&li))) ((replBufBlock *)listNodeValue(ln))->repl_offset += delta;
    rb.next_offset = offset;
}

int replBufAppend(const char *s, size_t len, long long offset, listNode **start_node, size_t *start_pos) {
    *start_node = NULL;
    *start_pos = 0;
    if (!replBufBlocks) return 0;
    if (offset != rb.next_offset) renumber(offset);
    listNode *ln = listLast(replBufBlocks);
    replBufBlock *tail = ln ? blockOf(ln) : NULL;
    if (tail && tail->size - tail->used >= len && rb.backlog_node) {
        /* The usual case: a command that fits the last block. */
        *start_node = ln;
        *start_pos = tail->used;
        memcpy(tail->buf + tail->used, s, len);
        tail->used += len;
        rb.histlen += len;
        rb.next_offset += len;
        return 0;
    }
    int added = 0;
    if (tail && tail->used < tail->size) {
        *start_node = ln;
        *start_pos = tail->used;
        size_t n = tail->size - tail->used < len ? tail->size - tail->used : len;
        memcpy(tail->buf + tail->used, s, n);
        tail->used += n;
        s += n;
        len -= n;
        rb.histlen += n;
        rb.next_offset += n;
    }
    while (len) {
        /* At least a reply chunk, so small commands fill it; at most a
         * sixteenth of the backlog, so a big command is not one block the
         * backlog must keep whole long after it needs only its end. */
        size_t limit = (size_t)server.repl_backlog_size / 16;
        if (limit < PROTO_REPLY_CHUNK_BYTES) limit = PROTO_REPLY_CHUNK_BYTES;
        size_t size = len < PROTO_REPLY_CHUNK_BYTES ? PROTO_REPLY_CHUNK_BYTES : len;
        if (size > limit) size = limit;
        replBufBlock *b = zmalloc(size + sizeof(replBufBlock));
        size_t usable = zmalloc_size(b);
        b->size = usable - sizeof(replBufBlock);
        b->refcount = 0;
        b->indexed = ++rb.unindexed >= REPLBUF_INDEX_EVERY;
        if (b->indexed) rb.unindexed = 0;
        b->id = rb.next_id++;
        b->repl_offset = rb.next_offset;
        b->used = b->size < len ? b->size : len;
        memcpy(b->buf, s, b->used);
        listAddNodeTail(replBufBlocks, b);
        rb.mem += usable + sizeof(listNode);
        if (!*start_node) *start_node = listLast(replBufBlocks);
        s += b->used;
        len -= b->used;
        rb.histlen += b->used;
        rb.next_offset += b->used;
        added = 1;
    }
    if (!rb.backlog_node && *start_node) {
        /* The first bytes of an empty backlog: it holds them from here. */
        rb.backlog_node = *start_node;
        blockOf(rb.backlog_node)->refcount++;
    }
    return added;
}

long long replBufHistlen(void) { return replBufBlocks ? rb.histlen : 0; }
long long replBufFirstOffset(void) { return replBufBlocks ? rb.next_offset - rb.histlen : 0; }
size_t replBufMemory(void) { return rb.mem; }

/* The nodes of a radix tree (Redis's rax) holding keys[lo..hi), sorted
 * 8-byte keys sharing their first depth bytes: a compressed node for the
 * bytes they all share next (if any), a branching node, then each branch's
 * subtree; a key ends in an empty leaf node. */
static size_t raxNodes(unsigned char (*keys)[8], size_t lo, size_t hi, int depth) {
    if (hi - lo == 1) return (depth < 8) + 1;
    int shared = 0;
    while (keys[lo][depth + shared] == keys[hi - 1][depth + shared]) shared++;
    depth += shared;
    size_t nodes = (shared > 0) + 1;
    for (size_t start = lo; start < hi;) {
        size_t end = start + 1;
        while (end < hi && keys[end][depth] == keys[start][depth]) end++;
        nodes += raxNodes(keys, start, end, depth + 1);
        start = end;
    }
    return nodes;
}

size_t replBufIndexMemory(void) {
    if (!replBufBlocks) return 0;
    size_t n = 0;
    listIter li;
    listNode *ln;
    listRewind(replBufBlocks, &li);
    while ((ln = listNext(&li))) n += blockOf(ln)->indexed;
    const size_t rax_node = 4; /* sizeof(raxNode): a 32-bit header */
    if (!n) return rax_node;   /* the empty tree: its head */
    unsigned char(*keys)[8] = zmalloc(n * 8);
    size_t k = 0;
    listRewind(replBufBlocks, &li);
    while ((ln = listNext(&li))) {
        if (!blockOf(ln)->indexed) continue;
        unsigned long long off = (unsigned long long)blockOf(ln)->repl_offset;
        for (int j = 0; j < 8; j++) keys[k][j] = (unsigned char)(off >> (56 - 8 * j)); /* big-endian, as Redis */
        k++;
    }
    size_t nodes = raxNodes(keys, 0, n, 0);
    zfree(keys);
    return nodes * rax_node + n * sizeof(void *);
}

size_t replBufNotCountedMemory(void) {
    if ((long long)rb.mem <= server.repl_backlog_size) return 0;
    /* The backlog's own headers are counted, approximately (as Redis). */
    size_t counted = (size_t)server.repl_backlog_size + ((size_t)server.repl_backlog_size / PROTO_REPLY_CHUNK_BYTES + 1) *
                                                             (sizeof(replBufBlock) + sizeof(listNode));
    return rb.mem > counted ? rb.mem - counted : 0;
}

void replBufTrim(int max_blocks) {
    if (!replBufBlocks) return;
    while (max_blocks-- > 0 && rb.histlen > server.repl_backlog_size && listLength(replBufBlocks) > 1) {
        listNode *first = listFirst(replBufBlocks);
        replBufBlock *fo = blockOf(first);
        /* A replica still starts here: the backlog grows past its size
         * rather than lose what the replica needs (and may PSYNC from). */
        if (fo->refcount != 1) break;
        /* Never below the configured size. */
        if (rb.histlen - (long long)fo->used <= server.repl_backlog_size) break;
        rb.histlen -= fo->used;
        rb.backlog_node = first->next;
        blockOf(rb.backlog_node)->refcount++;
        rb.mem -= fo->size + sizeof(replBufBlock) + sizeof(listNode);
        zfree(fo);
        listDelNode(replBufBlocks, first);
    }
}

/* ------------------------------------------------------------- references */

void replBufRefClient(client *c, listNode *node, size_t pos) {
    replBufUnrefClient(c);
    if (!node) return;
    blockOf(node)->refcount++;
    c->ref_repl_buf_node = node;
    c->ref_block_pos = pos;
}

void replBufRefClientAt(client *c, long long offset) {
    if (!replBufBlocks || !rb.backlog_node) return; /* nothing kept: it starts with what comes */
    /* Replicas come back close to the end: search from there. */
    listNode *ln = listLast(replBufBlocks);
    while (ln != rb.backlog_node && blockOf(ln)->repl_offset > offset) ln = ln->prev;
    replBufRefClient(c, ln, (size_t)(offset - blockOf(ln)->repl_offset));
}

void replBufCopyRef(client *c, client *other) { replBufRefClient(c, other->ref_repl_buf_node, other->ref_block_pos); }

void replBufUnrefClient(client *c) {
    if (!c->ref_repl_buf_node) return;
    blockOf(c->ref_repl_buf_node)->refcount--;
    c->ref_repl_buf_node = NULL;
    c->ref_block_pos = 0;
    replBufTrim(REPLBUF_TRIM_BLOCKS_PER_CALL);
}

size_t replBufClientBlocks(client *c) {
    if (!c->ref_repl_buf_node) return 0;
    return (size_t)(blockOf(listLast(replBufBlocks))->id - blockOf(c->ref_repl_buf_node)->id + 1);
}

size_t replBufClientMemory(client *c) {
    if (!c->ref_repl_buf_node) return 0;
    replBufBlock *last = blockOf(listLast(replBufBlocks)), *cur = blockOf(c->ref_repl_buf_node);
    return (size_t)(last->repl_offset + (long long)last->size - cur->repl_offset) +
           replBufClientBlocks(c) * (sizeof(listNode) + sizeof(replBufBlock));
}

int replBufClientPending(client *c) {
    listNode *ln = c->ref_repl_buf_node;
    if (!ln) return 0;
    return ln != listLast(replBufBlocks) || c->ref_block_pos < blockOf(ln)->used;
}

/* c has sent its block to the end: it moves its reference to the next one,
 * and the block it leaves may be the backlog's to trim. */
static void advanceRef(client *c) {
    listNode *ln = c->ref_repl_buf_node, *next = ln->next;
    if (!next || c->ref_block_pos < blockOf(ln)->used) return;
    blockOf(ln)->refcount--;
    blockOf(next)->refcount++;
    c->ref_repl_buf_node = next;
    c->ref_block_pos = 0;
}

ssize_t replBufWriteClient(client *c) {
    if (!c->ref_repl_buf_node) return 0;
    advanceRef(c);
    struct iovec iov[IOV_BLOCKS];
    int iovcnt = 0;
    size_t pos = c->ref_block_pos;
    for (listNode *ln = c->ref_repl_buf_node; ln && iovcnt < IOV_BLOCKS; ln = ln->next) {
        replBufBlock *b = blockOf(ln);
        if (b->used > pos) {
            iov[iovcnt].iov_base = b->buf + pos;
            iov[iovcnt].iov_len = b->used - pos;
            iovcnt++;
        }
        pos = 0;
    }
    if (!iovcnt) return 0;
    ssize_t n = connWritev(c->fd, iov, iovcnt);
    if (n <= 0) return n == -1 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    size_t left = (size_t)n;
    int moved = 0;
    while (left) {
        replBufBlock *b = blockOf(c->ref_repl_buf_node);
        size_t inblock = b->used - c->ref_block_pos;
        size_t take = left < inblock ? left : inblock;
        c->ref_block_pos += take;
        left -= take;
        if (c->ref_block_pos == b->used && c->ref_repl_buf_node->next) {
            advanceRef(c);
            moved = 1;
        }
    }
    if (moved) replBufTrim(REPLBUF_TRIM_BLOCKS_PER_CALL);
    return n;
}
