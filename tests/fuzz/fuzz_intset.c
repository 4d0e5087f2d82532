/* fuzz_intset: libFuzzer target for intset validation (data/intset), the
 * guard for intsets from RESTORE and RDB files. An intset deep validation
 * accepts must be safe to read and to search. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/intset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    unsigned char *blob = malloc(size ? size : 1);
    memcpy(blob, data, size);
    (void)intsetValidateIntegrity(blob, size, 0);
    if (intsetValidateIntegrity(blob, size, 1)) {
        const intset *is = (const intset *)blob;
        uint32_t len = intsetLen(is);
        if (intsetBlobLen(is) != size) abort();
        long long prev = 0, v;
        for (uint32_t i = 0; i < len; i++) {
            if (!intsetGet(is, i, &v)) abort();
            if (i && v <= prev) abort();
            if (!intsetFind(is, v)) abort();
            prev = v;
        }
        (void)intsetMin(is);
        (void)intsetMax(is);
    }
    free(blob);
    return 0;
}
