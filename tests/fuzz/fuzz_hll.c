/* fuzz_hll: libFuzzer target for the HyperLogLog representation (data/hll).
 * A client can store any bytes under a key (SET, RESTORE) and then run PF*
 * commands on it, so every function that walks a value that passes the
 * header check must survive any body: counting, merging, growing it by
 * adding elements (sparse splits and merges, promotion to dense), turning it
 * dense, and describing it. The input is the value after its "HYLL" magic;
 * its first byte also picks hll-sparse-max-bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sds.h"
#include "core/zmalloc.h"
#include "data/hll.h"
#include "data/object.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t sparse_max = (size_t)data[0] * 64;
    sds s = sdsnewlen("HYLL", 4);
    s = sdscatlen(s, data + 1, size - 1);
    robj *o = createObject(OBJ_STRING, s);
    if (hllLooksValid(o)) {
        uint64_t card;
        (void)hllCount(o, &card);
        hllMaxRegisters *max = zcalloc(sizeof(*max));
        if (hllMergeInto(max, o)) (void)hllCountRegisters(max);
        zfree(max);
        if (hllEncoding(o) == HLL_SPARSE) sdsfree(hllSparseDescribe(o));
        else (void)hllDenseRegister(o, HLL_REGISTERS - 1);
        /* Grow it: elements derived from the input reach different registers. */
        for (size_t i = 1; i + 4 <= size && i < 64; i += 4)
            if (hllAdd(o, data + i, 4, sparse_max) < 0) break;
        if (hllToDense(o)) {
            (void)hllCount(o, &card);
            (void)hllDenseRegister(o, 0);
        }
    }
    decrRefCount(o);
    return 0;
}
