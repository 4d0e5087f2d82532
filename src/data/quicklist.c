/* quicklist: linked list of listpack nodes backing list values (see
 * quicklist.h for the fill rules and the plain-node exception).
 *
 * Invariants kept by every function here:
 *  - no node is empty; a plain node holds exactly one element;
 *  - node->sz and node->count always describe node->entry;
 *  - ql->count is the sum of node counts and ql->len the number of nodes;
 *  - a packed node only grows while the fill rule allows it (a node that
 *    holds a single element may be bigger than the size limit);
 *  - node->entry is read or changed only once useNode() made it raw.
 *
 * Compression (list-compress-depth) works as in Redis 7.0: an operation
 * decompresses the nodes it needs (useNode, which remembers them in
 * ql->used), and settle() then keeps the `compress` nodes at each end raw and
 * compresses the first node past them on each side and every node used
 * that lies beyond. Reads settle before their next node is decompressed, so
 * at most the node being read stays raw between calls. */
#include "data/quicklist.h"

#include <lzf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numparse.h"
#include "core/zmalloc.h"
#include "data/listpack.h"

/* Byte limits for fill -1..-5. */
static const size_t fill_size_limits[] = {4096, 8192, 16384, 32768, 65536};
/* With a count-based fill, a node still stops growing past this many bytes:
 * a few huge elements should not make one huge listpack. */
#define SIZE_SAFETY_LIMIT 8192
#define COMPRESS_DEPTH_MAX 65535
/* Threshold values too close to 4 GB would overflow listpack lengths. */
#define PACKED_THRESHOLD_MAX ((1ULL << 32) - (1ULL << 20))

static size_t packed_threshold = QUICKLIST_DEFAULT_PACKED_THRESHOLD;

int quicklistSetPackedThreshold(size_t sz) {
    if ((unsigned long long)sz > PACKED_THRESHOLD_MAX) return -1;
    packed_threshold = sz ? sz : QUICKLIST_DEFAULT_PACKED_THRESHOLD;
    return 0;
}

size_t quicklistGetPackedThreshold(void) { return packed_threshold; }

static int isLargeElement(size_t sz) { return sz >= packed_threshold; }

static int isPlain(const quicklistNode *n) { return n->container == QUICKLIST_NODE_CONTAINER_PLAIN; }

/* Would a packed node of `bytes` bytes holding `count` elements break the fill rule? */
static int exceedsFill(int fill, size_t bytes, unsigned long count) {
    if (fill >= 0) return bytes > SIZE_SAFETY_LIMIT || count > (unsigned long)fill;
    return bytes > fill_size_limits[-fill - 1];
}

int quicklistExceedsFill(int fill, size_t bytes, unsigned long count, size_t largest, int half) {
    if (fill < QUICKLIST_FILL_MIN) fill = QUICKLIST_FILL_MIN;
    if (fill > QUICKLIST_FILL_MAX) fill = QUICKLIST_FILL_MAX;
    if (isLargeElement(largest)) return 1;
    if (!half) return exceedsFill(fill, bytes, count);
    /* Half the limits, as Redis 7.2 compares them (the count alone for a count fill). */
    if (fill >= 0) return count > (unsigned long)(fill ? fill : 1) / 2;
    return bytes > fill_size_limits[-fill - 1] / 2;
}

unsigned char *quicklistTakeListpack(quicklist *ql) {
    if (ql->len != 1 || isPlain(ql->head)) return NULL;
    unsigned char *lp = ql->head->entry;
    ql->head->entry = NULL;
    ql->head->container = QUICKLIST_NODE_CONTAINER_PLAIN; /* freed as an empty buffer */
    quicklistRelease(ql);
    return lp;
}

/* ---- nodes ---- */

static void nodeRefresh(quicklistNode *n) {
    n->sz = lpBytes(n->entry);
    n->count = (unsigned int)lpLength(n->entry);
    n->incompressible = 0;
}

static quicklistNode *nodeCreate(int container, unsigned char *entry, size_t sz) {
    quicklistNode *n = zcalloc(sizeof(*n));
    n->container = container;
    n->encoding = QUICKLIST_NODE_ENCODING_RAW;
    n->entry = entry;
    if (container == QUICKLIST_NODE_CONTAINER_PACKED) {
        nodeRefresh(n);
    } else {
        n->sz = sz;
        n->count = 1;
    }
    return n;
}

/* A new node holding one copy of value: plain when it is large. */
static quicklistNode *nodeWithElement(const void *value, size_t sz) {
    if (isLargeElement(sz))
        return nodeCreate(QUICKLIST_NODE_CONTAINER_PLAIN, zmemdup(value, sz), sz);
    unsigned char *lp = lpAppend(lpNew(0), value, (uint32_t)sz);
    return nodeCreate(QUICKLIST_NODE_CONTAINER_PACKED, lp, 0);
}

static void nodeFree(quicklistNode *n) {
    if (n->container == QUICKLIST_NODE_CONTAINER_PACKED && n->encoding == QUICKLIST_NODE_ENCODING_RAW)
        lpFree(n->entry);
    else
        zfree(n->entry);
    zfree(n);
}


/* ---- compression ---- */

/* Smaller nodes are not worth it; nor is compression saving less than this. */
#define MIN_COMPRESS_BYTES 48
#define MIN_COMPRESS_IMPROVE 8

/* A compressed entry: its length, then the LZF bytes. */
typedef struct lzfBlob {
    size_t sz;
    unsigned char data[];
} lzfBlob;

static int isCompressed(const quicklistNode *n) { return n->encoding == QUICKLIST_NODE_ENCODING_LZF; }

static void forgetUsed(quicklist *ql, quicklistNode *n) {
    if (!n->recompress) return;
    n->recompress = 0;
    for (int i = 0; i < ql->nused; i++) {
        if (ql->used[i] == n) {
            ql->used[i] = ql->used[--ql->nused];
            return;
        }
    }
}

static void compressNode(quicklist *ql, quicklistNode *n) {
    forgetUsed(ql, n);
    if (isCompressed(n) || n->incompressible || n->sz < MIN_COMPRESS_BYTES || n->sz > UINT32_MAX) return;
    lzfBlob *blob = zmalloc(sizeof(*blob) + n->sz);
    unsigned int csz = lzf_compress(n->entry, (unsigned int)n->sz, blob->data, (unsigned int)n->sz);
    if (csz == 0 || csz + MIN_COMPRESS_IMPROVE >= n->sz) {
        zfree(blob);
        n->incompressible = 1;
        return;
    }
    blob->sz = csz;
    blob = zrealloc(blob, sizeof(*blob) + csz);
    zfree(n->entry); /* a raw listpack or plain buffer: both plain allocations */
    n->entry = (unsigned char *)blob;
    n->encoding = QUICKLIST_NODE_ENCODING_LZF;
}

/* Back to the raw bytes; the node is remembered to be compressed again. */
static void decompressNode(quicklist *ql, quicklistNode *n) {
    if (!isCompressed(n)) return;
    lzfBlob *blob = (lzfBlob *)n->entry;
    unsigned char *raw = zmalloc(n->sz);
    if (lzf_decompress(blob->data, (unsigned int)blob->sz, raw, (unsigned int)n->sz) != n->sz) {
        fprintf(stderr, "quicklist: a compressed node does not decompress to its size\n");
        abort();
    }
    zfree(blob);
    n->entry = raw;
    n->encoding = QUICKLIST_NODE_ENCODING_RAW;
    if (ql->nused < QUICKLIST_USED_MAX) {
        n->recompress = 1;
        ql->used[ql->nused++] = n;
    }
}

/* Makes n's entry raw for reading or changing it. */
static void useNode(quicklist *ql, quicklistNode *n) { decompressNode(ql, n); }

/* Applies the depth (see the file comment). `keep` (may be NULL) is a node
 * an iterator stands in: it is left as it is. */
static void settle(quicklist *ql, quicklistNode *keep) {
    if (ql->compress == 0 || !ql->head) return;
    quicklistNode *fwd = ql->head, *rev = ql->tail;
    for (unsigned int depth = 0; depth < ql->compress; depth++) {
        decompressNode(ql, fwd);
        forgetUsed(ql, fwd);
        decompressNode(ql, rev);
        forgetUsed(ql, rev);
        if (fwd == rev || fwd->next == rev) return; /* every node is within the depth */
        fwd = fwd->next;
        rev = rev->prev;
    }
    /* fwd and rev are now the first nodes past the depth. */
    if (fwd != keep) compressNode(ql, fwd);
    if (rev != keep) compressNode(ql, rev);
    for (int i = ql->nused - 1; i >= 0; i--)
        if (i < ql->nused && ql->used[i] != keep) compressNode(ql, ql->used[i]);
}

/* Before a read moves to another node: the nodes read so far go back. */
static void settleReads(quicklist *ql, quicklistNode *keep) {
    if (ql->nused) settle(ql, keep);
}

const unsigned char *quicklistNodeData(quicklist *ql, quicklistNode *node) {
    settleReads(ql, NULL);
    useNode(ql, node);
    return node->entry;
}

size_t quicklistNodeStoredBytes(const quicklistNode *node) {
    return isCompressed(node) ? sizeof(lzfBlob) + ((const lzfBlob *)node->entry)->sz : node->sz;
}

unsigned long quicklistCompressedNodes(const quicklist *ql) {
    unsigned long n = 0;
    for (const quicklistNode *node = ql->head; node; node = node->next) n += isCompressed(node);
    return n;
}

/* Can node take one more element of sz bytes without breaking the fill rule? */
static int nodeAllowsInsert(const quicklist *ql, const quicklistNode *node, const void *value,
                            size_t sz) {
    if (!node || isPlain(node) || isLargeElement(sz)) return 0;
    size_t bytes = node->sz + lpEntrySizeString(value, (uint32_t)sz);
    return !exceedsFill(ql->fill, bytes, (unsigned long)node->count + 1);
}

/* Adds value as the first (at_head) or last element of a packed node that
 * nodeAllowsInsert accepted. Counts only the node. */
static void addAtNodeEnd(quicklist *ql, quicklistNode *node, int at_head, const void *value, size_t sz) {
    useNode(ql, node);
    node->entry = at_head ? lpPrepend(node->entry, value, (uint32_t)sz)
                          : lpAppend(node->entry, value, (uint32_t)sz);
    nodeRefresh(node);
}

/* Links n after `after` (at the head when after is NULL). Counts only nodes. */
static void linkAfter(quicklist *ql, quicklistNode *after, quicklistNode *n) {
    n->prev = after;
    n->next = after ? after->next : ql->head;
    if (n->next)
        n->next->prev = n;
    else
        ql->tail = n;
    if (after)
        after->next = n;
    else
        ql->head = n;
    ql->len++;
}

static void unlinkNode(quicklist *ql, quicklistNode *n) {
    forgetUsed(ql, n);
    if (n->prev)
        n->prev->next = n->next;
    else
        ql->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        ql->tail = n->prev;
    ql->len--;
}

/* Removes a whole node and its elements. */
static void deleteNode(quicklist *ql, quicklistNode *n) {
    unlinkNode(ql, n);
    ql->count -= n->count;
    nodeFree(n);
}

/* Moves b's elements to the end of a (its predecessor) when the result
 * respects the fill rule; b is freed then. Returns 1 if merged. */
static int tryMerge(quicklist *ql, quicklistNode *a, quicklistNode *b) {
    if (!a || !b || isPlain(a) || isPlain(b)) return 0;
    /* The merged listpack drops one header and one terminator. */
    size_t bytes = a->sz + b->sz - LP_HDR_SIZE - 1;
    if (exceedsFill(ql->fill, bytes, (unsigned long)a->count + b->count)) return 0;
    useNode(ql, a);
    useNode(ql, b);
    a->entry = lpMerge(a->entry, b->entry);
    b->entry = NULL;
    nodeRefresh(a);
    unlinkNode(ql, b);
    zfree(b);
    return 1;
}

/* Splits node so that it keeps elements [0, at) and a new node linked right
 * after it holds [at, count). Both sides must be non-empty. */
static quicklistNode *splitNode(quicklist *ql, quicklistNode *node, unsigned long at) {
    useNode(ql, node);
    unsigned long total = node->count;
    unsigned char *copy = zmemdup(node->entry, node->sz);
    quicklistNode *right =
        nodeCreate(QUICKLIST_NODE_CONTAINER_PACKED, lpDeleteRange(copy, 0, at), 0);
    node->entry = lpDeleteRange(node->entry, (long)at, total - at);
    nodeRefresh(node);
    linkAfter(ql, node, right);
    return right;
}

/* ---- create / free / copy ---- */

void quicklistSetFill(quicklist *ql, int fill) {
    if (fill > QUICKLIST_FILL_MAX) fill = QUICKLIST_FILL_MAX;
    if (fill < QUICKLIST_FILL_MIN) fill = QUICKLIST_FILL_MIN;
    ql->fill = fill;
}

void quicklistSetCompressDepth(quicklist *ql, int depth) {
    if (depth < 0) depth = 0;
    if (depth > COMPRESS_DEPTH_MAX) depth = COMPRESS_DEPTH_MAX;
    ql->compress = (unsigned int)depth;
}

quicklist *quicklistCreate(int fill, int compress) {
    quicklist *ql = zcalloc(sizeof(*ql));
    quicklistSetFill(ql, fill);
    quicklistSetCompressDepth(ql, compress);
    return ql;
}

void quicklistRelease(quicklist *ql) {
    quicklistNode *n = ql->head;
    while (n) {
        quicklistNode *next = n->next;
        nodeFree(n);
        n = next;
    }
    zfree(ql);
}

quicklist *quicklistDup(quicklist *orig) {
    settleReads(orig, NULL);
    quicklist *copy = quicklistCreate(orig->fill, (int)orig->compress);
    /* Node by node as stored: compressed nodes are copied compressed. */
    for (quicklistNode *n = orig->head; n; n = n->next) {
        quicklistNode *c = zmemdup(n, sizeof(*n));
        c->entry = zmemdup(n->entry, quicklistNodeStoredBytes(n));
        c->recompress = 0;
        linkAfter(copy, copy->tail, c);
        copy->count += c->count;
    }
    return copy;
}

unsigned long quicklistCount(const quicklist *ql) { return ql->count; }

void quicklistAppendListpack(quicklist *ql, unsigned char *lp) {
    quicklistNode *n = nodeCreate(QUICKLIST_NODE_CONTAINER_PACKED, lp, 0);
    linkAfter(ql, ql->tail, n);
    ql->count += n->count;
    settle(ql, NULL);
}

void quicklistAppendPlainNode(quicklist *ql, unsigned char *data, size_t sz) {
    linkAfter(ql, ql->tail, nodeCreate(QUICKLIST_NODE_CONTAINER_PLAIN, data, sz));
    ql->count++;
    settle(ql, NULL);
}

/* ---- ends ---- */

void quicklistPush(quicklist *ql, const void *value, size_t sz, int where) {
    int at_head = where == QUICKLIST_HEAD;
    quicklistNode *end = at_head ? ql->head : ql->tail;
    if (nodeAllowsInsert(ql, end, value, sz))
        addAtNodeEnd(ql, end, at_head, value, sz);
    else
        linkAfter(ql, at_head ? NULL : end, nodeWithElement(value, sz));
    ql->count++;
    settle(ql, NULL);
}

void quicklistPushHead(quicklist *ql, const void *value, size_t sz) {
    quicklistPush(ql, value, sz, QUICKLIST_HEAD);
}

void quicklistPushTail(quicklist *ql, const void *value, size_t sz) {
    quicklistPush(ql, value, sz, QUICKLIST_TAIL);
}

int quicklistPop(quicklist *ql, int where, unsigned char **data, size_t *sz, long long *sval) {
    settleReads(ql, NULL);
    quicklistNode *node = where == QUICKLIST_HEAD ? ql->head : ql->tail;
    if (!node) return 0;
    useNode(ql, node);
    if (isPlain(node)) {
        /* Hand the buffer over: copying a huge element would be wasteful. */
        *data = node->entry;
        *sz = node->sz;
        node->entry = NULL;
        unlinkNode(ql, node);
        ql->count--;
        zfree(node);
        settle(ql, NULL);
        return 1;
    }
    unsigned char *p = where == QUICKLIST_HEAD ? lpFirst(node->entry) : lpLast(node->entry);
    uint32_t slen;
    long long lval;
    unsigned char *v = lpGetValue(p, &slen, &lval);
    if (v) {
        *data = zmemdup(v, slen);
        *sz = slen;
    } else {
        *data = NULL;
        *sval = lval;
    }
    if (node->count == 1) {
        deleteNode(ql, node);
    } else {
        node->entry = lpDelete(node->entry, p, NULL);
        nodeRefresh(node);
        ql->count--;
    }
    settle(ql, NULL);
    return 1;
}

void quicklistRotate(quicklist *ql) {
    if (ql->count <= 1) return;
    quicklistNode *tail = ql->tail;
    if (isPlain(tail)) {
        settleReads(ql, NULL);
        unlinkNode(ql, tail);
        linkAfter(ql, NULL, tail);
        settle(ql, NULL);
        return;
    }
    unsigned char *data;
    size_t sz;
    long long v;
    quicklistPop(ql, QUICKLIST_TAIL, &data, &sz, &v);
    if (data) {
        quicklistPushHead(ql, data, sz);
        zfree(data);
    } else {
        /* Integers go back through their decimal form, which re-encodes as the same integer. */
        char buf[MAX_LONG_LONG_CHARS];
        int n = ll2string(buf, sizeof(buf), v);
        quicklistPushHead(ql, buf, (size_t)n);
    }
}

/* ---- positions ---- */

/* Finds the node and in-node offset of element index (negative from the
 * tail), walking from the nearer end. Returns 0 when out of range. */
static int locate(const quicklist *ql, long index, quicklistNode **node, long *offset) {
    unsigned long idx;
    if (index < 0) {
        unsigned long back = (unsigned long)(-(index + 1)) + 1;
        if (back > ql->count) return 0;
        idx = ql->count - back;
    } else {
        idx = (unsigned long)index;
        if (idx >= ql->count) return 0;
    }
    quicklistNode *n;
    if (idx < ql->count / 2) {
        n = ql->head;
        while (idx >= n->count) {
            idx -= n->count;
            n = n->next;
        }
    } else {
        unsigned long from_tail = ql->count - 1 - idx;
        n = ql->tail;
        while (from_tail >= n->count) {
            from_tail -= n->count;
            n = n->prev;
        }
        idx = n->count - 1 - from_tail;
    }
    *node = n;
    *offset = (long)idx;
    return 1;
}

/* The listpack entry at offset, using the cheap ends when possible. */
static unsigned char *seekInNode(quicklistNode *n, long offset) {
    /* callers made n raw (useNode) */
    if (offset == 0) return lpFirst(n->entry);
    if ((unsigned long)offset == n->count - 1UL) return lpLast(n->entry);
    return lpSeek(n->entry, offset);
}

static void fillEntry(quicklist *ql, quicklistNode *node, long offset, unsigned char *zi,
                      quicklistEntry *e) {
    e->ql = ql;
    e->node = node;
    e->offset = offset;
    e->longval = 0;
    if (isPlain(node)) {
        e->zi = NULL;
        e->value = node->entry;
        e->sz = node->sz;
        return;
    }
    uint32_t slen = 0;
    e->zi = zi;
    e->value = lpGetValue(zi, &slen, &e->longval);
    e->sz = e->value ? slen : 0;
}

int quicklistIndex(quicklist *ql, long index, quicklistEntry *entry) {
    quicklistNode *node;
    long offset;
    settleReads(ql, NULL);
    if (!locate(ql, index, &node, &offset)) return 0;
    useNode(ql, node);
    fillEntry(ql, node, offset, isPlain(node) ? NULL : seekInNode(node, offset), entry);
    return 1;
}

int quicklistCompare(const quicklistEntry *entry, const unsigned char *s, size_t len) {
    if (isPlain(entry->node)) return entry->sz == len && memcmp(entry->value, s, len) == 0;
    if (len > UINT32_MAX) return 0;
    return lpCompare(entry->zi, s, (uint32_t)len);
}

/* ---- insertion ---- */

/* Inserts value before or after element `offset` of node. */
static void insertAt(quicklist *ql, quicklistNode *node, long offset, int after,
                     const void *value, size_t sz) {
    int at_tail = after && (unsigned long)offset == node->count - 1UL;
    int at_head = !after && offset == 0;
    settleReads(ql, NULL);
    useNode(ql, node);

    if (nodeAllowsInsert(ql, node, value, sz)) {
        unsigned char *zi = seekInNode(node, offset);
        node->entry = lpInsertString(node->entry, value, (uint32_t)sz, zi,
                                     after ? LP_AFTER : LP_BEFORE, NULL);
        nodeRefresh(node);
    } else if (at_tail || at_head) {
        /* The node is full, but the neighbour's near end is the same position. */
        quicklistNode *neighbour = at_tail ? node->next : node->prev;
        if (nodeAllowsInsert(ql, neighbour, value, sz))
            addAtNodeEnd(ql, neighbour, at_tail, value, sz);
        else
            linkAfter(ql, at_tail ? node : node->prev, nodeWithElement(value, sz));
    } else {
        /* Inside a packed node that cannot take it: split around the spot.
         * (A plain node holds one element, so it is always at_head/at_tail.) */
        unsigned long at = (unsigned long)offset + (after ? 1 : 0);
        quicklistNode *right = splitNode(ql, node, at);
        if (nodeAllowsInsert(ql, node, value, sz))
            addAtNodeEnd(ql, node, 0, value, sz);
        else if (nodeAllowsInsert(ql, right, value, sz))
            addAtNodeEnd(ql, right, 1, value, sz);
        else
            linkAfter(ql, node, nodeWithElement(value, sz));
        /* The halves may now fit into their outer neighbours. */
        tryMerge(ql, right, right->next);
        tryMerge(ql, node->prev, node);
    }
    ql->count++;
    settle(ql, NULL);
}

void quicklistInsertBefore(quicklist *ql, quicklistEntry *entry, const void *value, size_t sz) {
    insertAt(ql, entry->node, entry->offset, 0, value, sz);
}

void quicklistInsertAfter(quicklist *ql, quicklistEntry *entry, const void *value, size_t sz) {
    insertAt(ql, entry->node, entry->offset, 1, value, sz);
}

int quicklistReplaceAtIndex(quicklist *ql, long index, const void *data, size_t sz) {
    quicklistNode *node;
    long offset;
    settleReads(ql, NULL);
    if (!locate(ql, index, &node, &offset)) return 0;
    useNode(ql, node);
    unsigned long abs_index = index < 0 ? ql->count - (unsigned long)(-(index + 1)) - 1
                                        : (unsigned long)index;
    if (!isPlain(node) && !isLargeElement(sz)) {
        unsigned char *zi = seekInNode(node, offset);
        unsigned char *next = lpNext(node->entry, zi);
        size_t old_size = (size_t)((next ? next : node->entry + node->sz - 1) - zi);
        size_t bytes = node->sz - old_size + lpEntrySizeString(data, (uint32_t)sz);
        if (node->count == 1 || !exceedsFill(ql->fill, bytes, node->count)) {
            node->entry = lpReplace(node->entry, &zi, data, (uint32_t)sz);
            nodeRefresh(node);
            settle(ql, NULL);
            return 1;
        }
    } else if (isPlain(node) && isLargeElement(sz)) {
        zfree(node->entry);
        node->entry = zmemdup(data, sz);
        node->sz = sz;
        node->incompressible = 0;
        settle(ql, NULL);
        return 1;
    }
    /* The container changes or the node would overflow: delete, then insert
     * at the same index through the general path (which splits as needed). */
    quicklistDelRange(ql, (long)abs_index, 1);
    if (abs_index == ql->count) {
        quicklistPushTail(ql, data, sz);
    } else {
        quicklistEntry e;
        quicklistIndex(ql, (long)abs_index, &e);
        quicklistInsertBefore(ql, &e, data, sz);
    }
    return 1;
}

/* ---- deletion ---- */

int quicklistDelRange(quicklist *ql, long start, long count) {
    if (count <= 0) return 0;
    quicklistNode *node;
    long offset;
    settleReads(ql, NULL);
    if (!locate(ql, start, &node, &offset)) return 0;
    unsigned long abs_start = 0;
    for (quicklistNode *n = ql->head; n != node; n = n->next) abs_start += n->count;
    abs_start += (unsigned long)offset;
    unsigned long extent = ql->count - abs_start;
    if ((unsigned long)count < extent) extent = (unsigned long)count;

    while (extent > 0) {
        quicklistNode *next = node->next;
        if (offset == 0 && extent >= node->count) {
            extent -= node->count;
            deleteNode(ql, node);
        } else {
            unsigned long avail = node->count - (unsigned long)offset;
            unsigned long del = extent < avail ? extent : avail;
            useNode(ql, node);
            node->entry = lpDeleteRange(node->entry, offset, del);
            nodeRefresh(node);
            ql->count -= del;
            extent -= del;
        }
        node = next;
        offset = 0;
    }
    settle(ql, NULL);
    return 1;
}

/* ---- iteration ---- */

static quicklistIter *iterCreate(quicklist *ql, int direction, quicklistNode *node, long offset) {
    quicklistIter *it = zmalloc(sizeof(*it));
    it->ql = ql;
    it->direction = direction;
    it->current = node;
    it->offset = offset;
    it->zi = NULL;
    return it;
}

quicklistIter *quicklistGetIterator(quicklist *ql, int direction) {
    if (direction == QUICKLIST_ITER_FROM_HEAD) return iterCreate(ql, direction, ql->head, 0);
    return iterCreate(ql, direction, ql->tail, ql->tail ? (long)ql->tail->count - 1 : 0);
}

quicklistIter *quicklistGetIteratorAtIdx(quicklist *ql, int direction, long idx) {
    quicklistNode *node;
    long offset;
    if (!locate(ql, idx, &node, &offset)) return NULL;
    return iterCreate(ql, direction, node, offset);
}

/* Makes n the iterator's node, positioned at its first element in the
 * iteration direction. */
static void iterEnterNode(quicklistIter *it, quicklistNode *n) {
    it->current = n;
    it->zi = NULL;
    it->offset = (it->direction == QUICKLIST_ITER_FROM_HEAD || !n) ? 0 : (long)n->count - 1;
}

int quicklistNext(quicklistIter *it, quicklistEntry *entry) {
    quicklistNode *node = it->current;
    if (!node) return 0;
    int forward = it->direction == QUICKLIST_ITER_FROM_HEAD;
    if (!it->zi) {
        /* Entering a node: the ones read before go back first. */
        settleReads(it->ql, node);
        useNode(it->ql, node);
    }
    if (isPlain(node)) {
        fillEntry(it->ql, node, 0, NULL, entry);
        iterEnterNode(it, forward ? node->next : node->prev);
        return 1;
    }
    if (!it->zi) it->zi = seekInNode(node, it->offset);
    fillEntry(it->ql, node, it->offset, it->zi, entry);
    /* Step now, so the returned element can be deleted without losing our place. */
    unsigned char *step = forward ? lpNext(node->entry, it->zi) : lpPrev(node->entry, it->zi);
    if (step) {
        it->zi = step;
        it->offset += forward ? 1 : -1;
    } else {
        iterEnterNode(it, forward ? node->next : node->prev);
    }
    return 1;
}

void quicklistDelEntry(quicklistIter *it, quicklistEntry *entry) {
    quicklistNode *node = entry->node;
    if (node->count == 1) {
        /* The iterator has already moved to a neighbour node. */
        deleteNode(it->ql, node);
    } else {
        unsigned char *following;
        node->entry = lpDelete(node->entry, entry->zi, &following);
        nodeRefresh(node);
        it->ql->count--;
        if (it->current == node) {
            /* The next element is in this node: its pointer moved with the listpack. */
            if (it->direction == QUICKLIST_ITER_FROM_HEAD) {
                it->offset--;
                it->zi = following;
            } else {
                it->zi = following ? lpPrev(node->entry, following) : lpLast(node->entry);
            }
        }
    }
    entry->node = NULL;
    entry->zi = NULL;
    entry->value = NULL;
}

void quicklistReleaseIterator(quicklistIter *it) {
    /* Deletions during the walk may have brought compressed nodes near an end. */
    settle(it->ql, NULL);
    zfree(it);
}
