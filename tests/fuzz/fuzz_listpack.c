/* fuzz_listpack: libFuzzer target for listpack validation (data/listpack),
 * which guards every listpack that arrives from outside (RESTORE, RDB load).
 * A blob deep validation accepts must then be safe to walk both ways and to
 * read every entry of: whatever validation lets through is what commands will
 * touch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/listpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    unsigned char *lp = malloc(size ? size : 1);
    memcpy(lp, data, size);
    if (lpValidateIntegrity(lp, size, 0, NULL, NULL)) {
        /* The checked steps (unchecked stream nodes, RESTORE without
         * sanitize-dump-payload) on a blob that only passed the shallow
         * check: never a read outside it, and a walk always ends. */
        unsigned char *p = lp + LP_HDR_SIZE;
        size_t steps = 0;
        while (p && lpValidateNextEntry(lp, &p)) {
            if (++steps > size) abort();
        }
        p = lp + size - 1;
        steps = 0;
        while (p && lpValidatePrevEntry(lp, &p)) {
            uint32_t slen;
            long long v;
            unsigned char *str = p ? lpGetValue(p, &slen, &v) : NULL; /* a checked entry reads safely */
            if (str && slen) (void)str[slen - 1];
            if (++steps > size) abort();
        }
        (void)lpValidateFirstEntry(lp);
    }
    if (lpValidateIntegrity(lp, size, 1, NULL, NULL)) {
        unsigned long n = 0, len = lpLength(lp);
        unsigned char buf[LP_INTBUF_SIZE];
        for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
            uint32_t slen;
            long long v;
            unsigned char *s = lpGetValue(p, &slen, &v);
            if (s && slen) (void)s[slen - 1];
            (void)lpGetString(p, &slen, buf);
            n++;
        }
        if (n != len) abort();
        for (unsigned char *p = lpLast(lp); p; p = lpPrev(lp, p)) n--;
        if (n != 0) abort();
        if (len) (void)lpSeek(lp, -1);
    }
    free(lp);
    return 0;
}
