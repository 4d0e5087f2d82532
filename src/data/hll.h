/* hll: the HyperLogLog value (see hll.c for the layout): a string object
 * whose bytes are Redis 7.0's, built, grown, counted and merged here. The
 * PF* commands (commands/hyperloglog.c) are its only users; RESTORE and SET
 * can hand it any bytes, so everything that walks a value checks it. */
#ifndef DATA_HLL_H
#define DATA_HLL_H

#include <stddef.h>
#include <stdint.h>

#include "core/sds.h"
#include "data/object.h"

#define HLL_INDEX_BITS 14
#define HLL_REGISTERS (1 << HLL_INDEX_BITS)
#define HLL_REGISTER_BITS 6
#define HLL_REGISTER_MAX ((1 << HLL_REGISTER_BITS) - 1)
#define HLL_DENSE 0
#define HLL_SPARSE 1

/* An empty HLL: sparse, one XZERO covering every register, cache valid at 0. */
robj *hllCreate(void);
/* 1 when o is a string that looks like an HLL: the header and the dense
 * size are checked; a damaged sparse body is found by whatever walks it. */
int hllLooksValid(robj *o);
int hllEncoding(robj *o); /* HLL_DENSE or HLL_SPARSE */

/* The cached cardinality in the header. */
int hllCacheIsValid(robj *o);
uint64_t hllCachedCard(robj *o);
void hllSetCachedCard(robj *o, uint64_t card);
void hllInvalidateCache(robj *o);

/* Adding an element / raising one register: 1 when a register grew, 0 when
 * not, -1 on a damaged value. A sparse value turns dense when it would grow
 * beyond sparse_max bytes (hll-sparse-max-bytes). */
int hllAdd(robj *o, const unsigned char *ele, size_t len, size_t sparse_max);
int hllRaiseRegister(robj *o, long index, uint8_t val, size_t sparse_max);
/* Rewrites a sparse value as dense, keeping the header (the cached
 * cardinality survives). 0 when the sparse body is damaged. */
int hllToDense(robj *o);

/* The estimate from the registers (the cache is not consulted). 0 when the
 * value is damaged. */
int hllCount(robj *o, uint64_t *card);

/* Registers as plain bytes, for unions (PFCOUNT of several keys, PFMERGE). */
typedef struct hllMaxRegisters {
    uint8_t reg[HLL_REGISTERS];
} hllMaxRegisters;
/* max[i] = MAX(max[i], o's register i). 0 when o is damaged. */
int hllMergeInto(hllMaxRegisters *max, robj *o);
uint64_t hllCountRegisters(const hllMaxRegisters *max);

/* PFDEBUG: register index of a dense value; a sparse value's opcodes as
 * text ("v:3,1 z:5 Z:16000"). */
uint8_t hllDenseRegister(robj *o, long index);
sds hllSparseDescribe(robj *o);

/* PFSELFTEST: the first register the dense packing does not round-trip
 * (-1: none); the element count where sparse and dense disagree or the
 * estimate is off by more than a few standard errors (0: none). */
long hllSelftestPacking(void);
long hllSelftestEstimate(size_t sparse_max);

#endif
