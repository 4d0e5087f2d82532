/* fuzz_restore: libFuzzer target for value loading from untrusted bytes —
 * RESTORE's payload decoder, which is the RDB file loader's per-value code
 * (persist/rdb.c). The input is a payload's type byte and value; the target
 * appends the RDB version and the CRC64 a client would send, so the fuzzer
 * reaches the decoder instead of the checksum. Whatever the decoder accepts
 * is then walked element by element and serialized again, as commands and
 * DUMP would, and once more after it is stored with a key as RESTORE stores
 * it (a small listpack packed into the keyspace object). The input's first byte is reserved for the decoder's
 * settings. Loads run with sanitize-dump-payload yes: without it a payload
 * that passes only Redis's shallow check is kept and stops the server with
 * an assertion when touched (object.h, stream.h) — the server's answer, but
 * a crash to the fuzzer; tests/integration/persistence/test_corrupt_payload.py covers that
 * mode. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc64.h"
#include "core/sds.h"
#include "data/object.h"
#include "data/stream.h"
#include "data/value.h"
#include "persist/rdb.h"
#include "server/reply.h"
#include "server/server.h"

#define RDB_PAYLOAD_VERSION 10

/* Every entry of a stream, both ways, with its fields. */
static void walkStream(stream *s) {
    for (int rev = 0; rev <= 1; rev++) {
        streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX}, id;
        streamIterator it;
        long nf;
        uint64_t seen = 0;
        streamIteratorStart(&it, s, &min, &max, rev);
        while (streamIteratorNext(&it, &id, &nf)) {
            while (nf--) {
                lpEntry f, v;
                streamIteratorNextField(&it, &f, &v);
                if (f.sval && f.slen) (void)f.sval[f.slen - 1];
                if (v.sval && v.slen) (void)v.sval[v.slen - 1];
            }
            seen++;
        }
        streamIteratorStop(&it);
        if (seen != s->length) abort();
    }
}

static void walk(robj *o) {
    if (o->type == OBJ_STREAM) walkStream(objectPtr(o));
    if (o->type == OBJ_STRING || o->type == OBJ_STREAM) return;
    unsigned long n = valueLength(o), seen = 0;
    valueIter it;
    valueItem item;
    valueIterInit(&it, o);
    while (valueIterNext(&it, &item)) {
        if (item.ele.sval && item.ele.slen) (void)item.ele.sval[item.ele.slen - 1];
        if (item.val.sval && item.val.slen) (void)item.val.sval[item.val.slen - 1];
        seen++;
    }
    valueIterDone(&it);
    if (seen != n) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) {
        /* The encodings' thresholds at Redis's defaults (the config table's
         * own defaults need the modules main.c wires, not linked here). */
        server.hash_limits = (hashLimits){.lp_entries = 128, .lp_value = 64};
        server.set_limits = (setLimits){.intset_entries = 512, .lp_entries = 128, .lp_value = 64};
        server.zset_limits = (zsetLimits){.max_entries = 128, .max_value = 64};
        server.list_max_listpack_size = -2;
        server.list_compress_depth = 0;
        server.stream_node_max_bytes = 4096;
        server.stream_node_max_entries = 100;
        server.rdb_compression = 1;
        server.rdb_checksum = 1;
        server.sanitize_dump_payload = SANITIZE_DUMP_YES;
        createSharedObjects();
        initSharedIntegers();
        ready = 1;
    }
    if (size < 2) return 0;
    data++, size--; /* reserved */
    size_t len = size + 10;
    char *payload = malloc(len);
    memcpy(payload, data, size);
    payload[size] = RDB_PAYLOAD_VERSION & 0xff;
    payload[size + 1] = RDB_PAYLOAD_VERSION >> 8;
    uint64_t crc = crc64(0, payload, size + 2);
    for (int i = 0; i < 8; i++) payload[size + 2 + i] = (char)(crc >> (8 * i));
    if (rdbVerifyDumpPayload(payload, len)) {
        robj *o = rdbRestorePayload(payload, len);
        if (o) {
            walk(o);
            sdsfree(rdbDumpPayload(o));
            /* Stored as RESTORE stores it: a small listpack packed with its
             * key (data/object.h), then read and dumped from there. */
            o = objectWithKeyPacked("key", 3, o);
            walk(o);
            sdsfree(rdbDumpPayload(o));
            decrRefCount(o);
        }
    }
    free(payload);
    return 0;
}
