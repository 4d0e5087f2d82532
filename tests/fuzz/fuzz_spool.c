/* fuzz_spool: libFuzzer target for the 0MQ expiry push's spool scan
 * (features/expiry_spool.c, spoolScanRecords): the bytes of a segment file
 * as the start-up scan reads them, damaged, cut off or made up. Every record
 * it hands on must lie inside the input, with a known type and at least the
 * number every body starts with; the intact part it reports must end inside
 * the input. The same check (the record's CRC and lengths) guards the
 * records a replica takes from its master's stream. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/expiry_spool.h"
#include "server/server.h"

static const unsigned char *in_base;
static size_t in_size;

static void checkRecord(int type, const unsigned char *body, size_t len, void *ctx) {
    (void)ctx;
    if (type < 1 || type > 3 || len < 8) abort();
    if (body < in_base || len > in_size || body + len > in_base + in_size) abort();
    volatile unsigned char edge = (unsigned char)(body[0] ^ body[len - 1]);
    (void)edge;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    server.verbosity = LL_WARNING + 1; /* the damage reports are expected, not output */
    /* A private copy without slack, so reading one byte too far is caught. */
    unsigned char *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    in_base = buf;
    in_size = size;
    size_t end = spoolScanRecords(buf, size, "fuzz", checkRecord, NULL);
    if (end > size) abort();
    free(buf);
    return 0;
}
