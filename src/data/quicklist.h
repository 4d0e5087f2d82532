/* quicklist: the list value encoding of Redis 7.0 — a doubly linked list of
 * nodes, each holding either a listpack of several elements ("packed") or
 * one very large element as raw bytes ("plain").
 *
 * Packing many elements per node keeps memory small; bounding each node
 * (`fill`, as list-max-listpack-size) keeps inserts and deletes inside a
 * node cheap. Each packed node's listpack is always a valid listpack, so RDB
 * (type QUICKLIST_2) writes every node as its container flag plus the blob
 * node->entry[0..node->sz), and loads it back with quicklistAppendListpack /
 * quicklistAppendPlainNode.
 *
 * fill > 0: at most `fill` elements per node (and, as in Redis, a node grows
 *           past 8 KB only while it holds a single element).
 * fill < 0: -1..-5 bound each node's listpack to 4, 8, 16, 32, 64 KB.
 * Elements of packed_threshold bytes or more (1 GB by default, settable like
 * DEBUG QUICKLIST-PACKED-THRESHOLD) get a plain node of their own.
 *
 * list-compress-depth (`compress`): the `compress` nodes nearest each end
 * stay as they are; nodes beyond are kept LZF-compressed when that saves
 * something (48 bytes or more, at least 8 saved), as in Redis 7.0. A node a
 * caller reads is decompressed and compressed again by the next call on the
 * list: entries and iterators see plain bytes. */
#ifndef DATA_QUICKLIST_H
#define DATA_QUICKLIST_H

#include <stddef.h>

#define QUICKLIST_NODE_CONTAINER_PLAIN 1
#define QUICKLIST_NODE_CONTAINER_PACKED 2

#define QUICKLIST_NODE_ENCODING_RAW 1
#define QUICKLIST_NODE_ENCODING_LZF 2

#define QUICKLIST_HEAD 0
#define QUICKLIST_TAIL -1

/* Iteration directions. */
#define QUICKLIST_ITER_FROM_HEAD 0 /* towards the tail */
#define QUICKLIST_ITER_FROM_TAIL 1 /* towards the head */

#define QUICKLIST_FILL_MAX 32767 /* larger fills are clamped, as Redis does */
#define QUICKLIST_FILL_MIN -5
#define QUICKLIST_DEFAULT_PACKED_THRESHOLD (1UL << 30)

typedef struct quicklistNode {
    struct quicklistNode *prev, *next;
    unsigned char *entry; /* RAW: PACKED a listpack, PLAIN the element's bytes; LZF: their compressed form */
    size_t sz;            /* bytes of the uncompressed entry */
    unsigned int count;   /* elements in this node (1 for PLAIN) */
    int container;        /* QUICKLIST_NODE_CONTAINER_PLAIN / _PACKED */
    unsigned char encoding;       /* QUICKLIST_NODE_ENCODING_RAW / _LZF */
    unsigned char recompress;     /* decompressed to be read or changed: compress again afterwards */
    unsigned char incompressible; /* LZF saved too little: not tried again until the content changes */
} quicklistNode;

/* Nodes of one list decompressed for an operation in progress (at most a
 * handful: an operation touches a node, its neighbours and a split). */
#define QUICKLIST_USED_MAX 8

typedef struct quicklist {
    quicklistNode *head, *tail;
    unsigned long count; /* elements in all nodes */
    unsigned long len;   /* nodes */
    int fill;            /* list-max-listpack-size, clamped to [-5, 32767] */
    unsigned int compress; /* list-compress-depth: uncompressed nodes at each end (0: none compressed) */
    int nused;
    quicklistNode *used[QUICKLIST_USED_MAX]; /* decompressed nodes to compress again */
} quicklist;

/* One element as seen by an iterator or an index lookup. Valid until the
 * next call on the list (other than quicklistCompare and quicklistDelEntry
 * on it): a later call may compress its node again. */
typedef struct quicklistEntry {
    quicklist *ql;
    quicklistNode *node;
    unsigned char *zi;    /* the listpack entry (NULL in a plain node) */
    unsigned char *value; /* the element's bytes, or NULL for an integer */
    size_t sz;            /* length of value */
    long long longval;    /* the element when value is NULL */
    long offset;          /* index of the element inside its node */
} quicklistEntry;

typedef struct quicklistIter {
    quicklist *ql;
    quicklistNode *current; /* node of the next element, NULL when done */
    unsigned char *zi;      /* its listpack entry, NULL when not yet looked up */
    long offset;            /* its index inside current */
    int direction;
} quicklistIter;

/* Create / free / copy. */
quicklist *quicklistCreate(int fill, int compress);
void quicklistSetFill(quicklist *ql, int fill);
void quicklistSetCompressDepth(quicklist *ql, int depth);
void quicklistRelease(quicklist *ql);
quicklist *quicklistDup(quicklist *orig);
unsigned long quicklistCount(const quicklist *ql);

/* Process-wide threshold for plain nodes (DEBUG QUICKLIST-PACKED-THRESHOLD).
 * 0 restores the default. Returns 0 on success, -1 when sz is too close to
 * 4 GB (above 4 GB - 1 MB), leaving the threshold unchanged. */
int quicklistSetPackedThreshold(size_t sz);
size_t quicklistGetPackedThreshold(void);

/* Adding at the ends; the value is copied. where: QUICKLIST_HEAD / _TAIL. */
void quicklistPushHead(quicklist *ql, const void *value, size_t sz);
void quicklistPushTail(quicklist *ql, const void *value, size_t sz);
void quicklistPush(quicklist *ql, const void *value, size_t sz, int where);

/* Removes the head or tail element. Returns 0 when the list is empty.
 * A string element is returned in *data (a zmalloc'd buffer the caller
 * frees; plain nodes hand over their buffer without copying) with its length
 * in *sz; an integer element sets *data = NULL and *sval. */
int quicklistPop(quicklist *ql, int where, unsigned char **data, size_t *sz, long long *sval);
/* Moves the tail element to the head. */
void quicklistRotate(quicklist *ql);

/* Index lookup: 0 is the head, -1 the tail. Returns 1 and fills *entry when
 * the index exists, 0 otherwise. */
int quicklistIndex(quicklist *ql, long index, quicklistEntry *entry);
/* Replaces the element at index; returns 0 when the index does not exist. */
int quicklistReplaceAtIndex(quicklist *ql, long index, const void *data, size_t sz);
/* Inserts next to an element found by quicklistIndex or an iterator. Any
 * iterator over the list is invalid afterwards: release it. */
void quicklistInsertBefore(quicklist *ql, quicklistEntry *entry, const void *value, size_t sz);
void quicklistInsertAfter(quicklist *ql, quicklistEntry *entry, const void *value, size_t sz);
/* Deletes count elements from start (negative counts from the tail); the
 * range is cut at the list's end. Returns 1 if anything was deleted. */
int quicklistDelRange(quicklist *ql, long start, long count);
/* 1 if the element equals the given bytes (integers compare as decimal text). */
int quicklistCompare(const quicklistEntry *entry, const unsigned char *s, size_t len);

/* Iteration. quicklistGetIteratorAtIdx starts at element idx (negative
 * counts from the tail) and returns NULL when idx is out of range. */
quicklistIter *quicklistGetIterator(quicklist *ql, int direction);
quicklistIter *quicklistGetIteratorAtIdx(quicklist *ql, int direction, long idx);
/* Fills *entry with the next element; returns 0 at the end. */
int quicklistNext(quicklistIter *iter, quicklistEntry *entry);
/* Deletes the element that quicklistNext just returned; iterating may go on
 * and yields the element that would have followed it. */
void quicklistDelEntry(quicklistIter *iter, quicklistEntry *entry);
void quicklistReleaseIterator(quicklistIter *iter);

/* Redis 7.2 keeps a list that fits one node as a bare listpack. Would one
 * node of `bytes` bytes and `count` elements, the largest `largest` bytes,
 * break the fill rule (with half: half its limits, the margin a quicklist
 * must shrink below before it turns back into a listpack)? An element of
 * the packed threshold or more never fits. */
int quicklistExceedsFill(int fill, size_t bytes, unsigned long count, size_t largest, int half);
/* The listpack of a quicklist made of one packed node, taking it and freeing
 * the quicklist; NULL (nothing changed) for any other shape. */
unsigned char *quicklistTakeListpack(quicklist *ql);

/* RDB loading: append a node made from an existing blob, taking ownership.
 * lp must be a valid, non-empty listpack; data a zmalloc'd buffer. */
void quicklistAppendListpack(quicklist *ql, unsigned char *lp);
void quicklistAppendPlainNode(quicklist *ql, unsigned char *data, size_t sz);

/* A node's uncompressed bytes (node->sz of them; container says what they
 * are), decompressing it if needed: readable until the next call on the list. */
const unsigned char *quicklistNodeData(quicklist *ql, quicklistNode *node);
/* Bytes the node's entry takes as stored (compressed or not). */
size_t quicklistNodeStoredBytes(const quicklistNode *node);
/* Compressed nodes (DEBUG and tests). */
unsigned long quicklistCompressedNodes(const quicklist *ql);

#endif
