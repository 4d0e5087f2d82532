/* stream: the stream value type (XADD, XRANGE, ...). Entries live in
 * listpack nodes laid out exactly as Redis 7.0 lays them out, so a node can be
 * written to or read from an RDB file / DUMP payload verbatim:
 *
 *   master entry: count deleted num-fields field_1..field_N 0
 *   each entry:   flags ms-delta seq-delta [num-fields field value ...| value ...] lp-count
 *
 * IDs are stored as deltas from the node's master ID (the ID of the first
 * entry ever added to the node). An entry whose fields equal the master
 * fields (same order) stores only its values (flag SAMEFIELDS). Deleted
 * entries stay in place with the DELETED flag until the node empties.
 * Nodes are kept in an array sorted by master ID: appends go to the tail
 * and trimming removes from the head, so no tree is needed. */
#ifndef DATA_STREAM_H
#define DATA_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include "data/object.h"
#include "data/listpack.h"

#define STREAM_ITEM_FLAG_NONE 0
#define STREAM_ITEM_FLAG_DELETED (1 << 0)
#define STREAM_ITEM_FLAG_SAMEFIELDS (1 << 1)
/* A node never grows past this, whatever stream-node-max-bytes says. */
#define STREAM_LISTPACK_MAX_SIZE (1 << 30)

typedef struct streamID {
    uint64_t ms;
    uint64_t seq;
} streamID;

typedef struct streamNode {
    streamID master;
    unsigned char *lp;
    int unchecked; /* RESTOREd after the shallow check only: walked with checks (stream.c) */
} streamNode;

/* IDs → values in ID order: the pending entries lists (PEL) of consumer
 * groups and consumers. Deliveries mostly append, so a sorted array does. */
typedef struct streamIDMap {
    streamID *ids;
    void **vals;
    size_t len, cap;
} streamIDMap;

/* Where id is or would go; *found tells which. */
size_t streamIDMapSeek(const streamIDMap *m, const streamID *id, int *found);
void streamIDMapInsertAt(streamIDMap *m, size_t pos, const streamID *id, void *val);
void streamIDMapDeleteAt(streamIDMap *m, size_t pos);

/* A delivered, not yet acknowledged entry: in its group's PEL and in its
 * consumer's PEL (the same object). */
typedef struct streamNACK {
    long long delivery_time; /* ms */
    uint64_t delivery_count;
    struct streamConsumer *consumer;
} streamNACK;

typedef struct streamConsumer {
    sds name;
    long long seen_time; /* ms of the last read or claim */
    streamIDMap pel;     /* ID → streamNACK*, shared with the group's PEL */
} streamConsumer;

#define SCG_INVALID_ENTRIES_READ -1
typedef struct streamCG {
    sds name;
    streamID last_id;        /* last delivered ID */
    long long entries_read;  /* logical position of last_id, or SCG_INVALID_ENTRIES_READ */
    streamIDMap pel;         /* ID → streamNACK* (owned here) */
    streamConsumer **consumers; /* sorted by name */
    size_t nconsumers;
} streamCG;

typedef struct stream {
    streamNode *nodes; /* sorted by master ID */
    size_t nnodes, capacity;
    uint64_t length; /* live entries */
    streamID last_id;              /* the greatest ID ever added (or set by XSETID) */
    streamID first_id;             /* the first live entry, 0-0 when empty */
    streamID max_deleted_entry_id; /* the greatest ID removed by XDEL */
    uint64_t entries_added;        /* every entry ever added */
    streamCG **groups;             /* sorted by name, as Redis lists them */
    size_t ngroups;
} stream;

stream *streamNew(void);
void streamFree(stream *s);
stream *streamDup(const stream *s);
robj *createStreamObject(void);

int streamCompareID(const streamID *a, const streamID *b);
/* Next / previous ID in ID order; C_ERR-like -1 at the ends, 0 otherwise. */
int streamIncrID(streamID *id);
int streamDecrID(streamID *id);
/* "ms-seq" into buf (at least STREAM_ID_STR_LEN bytes); returns the length. */
#define STREAM_ID_STR_LEN 44
int streamFormatID(char *buf, const streamID *id);
/* 16 big-endian bytes (ms then seq): the node key in RDB files. */
void streamEncodeID(unsigned char *buf, const streamID *id);
void streamDecodeID(const unsigned char *buf, streamID *id);

/* The ID XADD would give: `given` NULL for "*", seq_given 0 for "ms-*".
 * 0 on success, -1 when it is not greater than the top item (or the
 * stream is exhausted). now_ms is the command's clock. */
int streamNextID(const stream *s, const streamID *given, int seq_given, long long now_ms, streamID *out);
/* Appends an entry with id (> last_id) and numfields pairs from fv (string
 * objects: field, value, ...). Node size limits: 0 means no limit. Returns
 * 0, or -1 when the elements are too large for a listpack. */
int streamAppendItem(stream *s, const streamID *id, robj **fv, long numfields, long long node_max_bytes,
                     long long node_max_entries);
/* Marks the entry deleted; 1 if it existed. Keeps first_id and max_deleted_entry_id. */
int streamDeleteItem(stream *s, const streamID *id);

#define TRIM_STRATEGY_NONE 0
#define TRIM_STRATEGY_MAXLEN 1
#define TRIM_STRATEGY_MINID 2
/* Removes entries from the head: until length <= maxlen (MAXLEN) or the
 * first entry is >= minid (MINID). approx removes whole nodes only; limit
 * (0 = none) caps the entries removed. Returns how many were removed. */
int64_t streamTrim(stream *s, int strategy, uint64_t maxlen, const streamID *minid, int approx, int64_t limit);

/* Range iteration over live entries with start <= ID <= end, ascending or
 * (rev) descending. After streamIteratorNext returns 1, read the entry's
 * fields with streamIteratorNextField. */
typedef struct streamIterator {
    stream *s;
    streamID start, end;
    int rev;
    long node;               /* index of the node being walked, -1/nnodes when done */
    unsigned char *lp;
    streamID master;
    long master_nfields;
    unsigned char *master_fields; /* first master field */
    unsigned char *next;          /* forward: flags of the next entry in lp */
    size_t *offsets;              /* reverse: entry offsets of the current node */
    size_t noffsets, offsets_cap;
    long field_left;              /* fields not yet read from the current entry */
    int samefields;
    unsigned char *fp, *mfp;      /* current value/field and master field positions */
    int check;                    /* the node is unchecked: every step is checked */
    unsigned char *ele;           /* reverse walk of an unchecked node: the current lp-count */
    int emitted;                  /* ... after returning the entry it ends */
} streamIterator;

void streamIteratorStart(streamIterator *it, stream *s, const streamID *start, const streamID *end, int rev);
int streamIteratorNext(streamIterator *it, streamID *id, long *numfields);
void streamIteratorNextField(streamIterator *it, lpEntry *field, lpEntry *value);
void streamIteratorStop(streamIterator *it);

/* The first (last=0) or last live entry's ID; 0 if the stream is empty. */
int streamEdgeID(stream *s, int last, streamID *id);
/* The last live entry's ID of a stream with entries (length > 0); a stream
 * that has none though its length says otherwise (a RESTORE without
 * sanitize-dump-payload can make one) stops the server, as in Redis. */
void streamLastValidID(stream *s, streamID *id);

/* Consumer groups. Lookups return NULL when missing; create returns NULL
 * when the name is taken. Names are compared as bytes. */
streamCG *streamLookupCG(stream *s, const char *name, size_t len);
streamCG *streamCreateCG(stream *s, const char *name, size_t len, const streamID *id, long long entries_read);
int streamDestroyCG(stream *s, const char *name, size_t len);
streamConsumer *streamLookupConsumer(streamCG *cg, const char *name, size_t len);
streamConsumer *streamCreateConsumer(streamCG *cg, const char *name, size_t len, long long now_ms);
/* Removes the consumer and its pending entries; returns how many it had, -1 if missing. */
long long streamDelConsumer(streamCG *cg, const char *name, size_t len);
/* Removes a pending entry from the group and its consumer; 1 if it was pending. */
int streamAckEntry(streamCG *cg, const streamID *id);
/* Entry id pending in cg is (re)assigned to consumer with the given time and count. */
streamNACK *streamAssignPending(streamCG *cg, streamConsumer *consumer, const streamID *id, long long when);
/* The logical counter of id (how many entries were added up to it), or
 * SCG_INVALID_ENTRIES_READ when XDELs make it unknowable. */
long long streamEstimateDistanceFromFirstEverEntry(stream *s, const streamID *id);
/* 1 when an XDEL tombstone may lie in [start, end] (NULL: open end). */
int streamRangeHasTombstones(stream *s, const streamID *start, const streamID *end);
/* 1 when the live entry id exists. */
int streamEntryExists(stream *s, const streamID *id);

/* RDB loading: adds a node read from a file (lp, size bytes, taken over on
 * success). Its listpack must pass the shallow check and have a well formed
 * first entry (without deep, a bad one stops the server, as in Redis);
 * with deep every entry and the node's stream layout must be right, and
 * without, a node that fails those is kept as unchecked. NULL on success,
 * else the reason, in Redis's words. */
const char *streamAppendLoadedNode(stream *s, const streamID *master, unsigned char *lp, size_t size, int deep);
/* 1 when a node was kept unchecked (counts in its header are not trusted). */
int streamHasUncheckedNodes(const stream *s);
/* The number of live entries the nodes' headers count. */
uint64_t streamCountLive(stream *s);

#endif
