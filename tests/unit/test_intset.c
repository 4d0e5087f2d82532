/* test_intset: unit tests for src/data/intset.c.
 * Random adds/removes are checked against a sorted array model (including the
 * width upgrades), validation is fuzzed with corrupted copies, and blobs
 * captured from Redis 7.0.15 (DUMP with rdbcompression no) must validate and
 * be rebuilt byte for byte, because our RDB files embed intsets verbatim. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/zmalloc.h"
#include "data/intset.h"
#include "testhelp.h"

/* From redis-server 7.0.15 (--rdbcompression no): DUMP of a set is type 11,
 * the RDB string length, then the intset bytes below. In order:
 * SADD s 1 2 3; SADD s -70000; SADD s 1099511627776; SREM s 2 1099511627776;
 * then a fresh SADD s 5 -3 100 40000 7 -32768 32767. */
static const char refSetSmall[] =
    "0200000003000000010002000300";
static const char refSet32[] =
    "040000000400000090eefeff010000000200000003000000";
static const char refSet64[] =
    "080000000500000090eefeffffffffff010000000000000002000000000000000300000000000000"
    "0000000000010000";
static const char refSet64AfterRem[] =
    "080000000300000090eefeffffffffff01000000000000000300000000000000";
static const char refSetMixed[] =
    "04000000070000000080fffffdffffff050000000700000064000000ff7f0000409c0000";

/* The fixture's bytes in an exact-size zmalloc block (usable as an intset). */
static unsigned char *refBytes(const char *hex, size_t *len) {
    size_t n = strlen(hex) / 2;
    unsigned char *b = zmalloc(n);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        b[i] = (unsigned char)v;
    }
    *len = n;
    return b;
}

static void checkMatchesRef(const intset *is, const char *refHex) {
    size_t len;
    unsigned char *ref = refBytes(refHex, &len);
    CHECK(intsetValidateIntegrity(ref, len, 1));
    CHECK(intsetBlobLen(is) == len && memcmp(is, ref, len) == 0);
    zfree(ref);
}

static void testReferenceBlobs(void) {
    TEST("reference intsets");
    intset *is = intsetNew();
    int added;
    is = intsetAdd(is, 3, &added);
    is = intsetAdd(is, 1, &added);
    is = intsetAdd(is, 2, &added);
    is = intsetAdd(is, 2, &added);
    CHECK(!added);
    checkMatchesRef(is, refSetSmall);
    is = intsetAdd(is, -70000, &added);
    CHECK(added);
    checkMatchesRef(is, refSet32);
    is = intsetAdd(is, 1LL << 40, NULL);
    checkMatchesRef(is, refSet64);
    int removed;
    is = intsetRemove(is, 2, &removed);
    CHECK(removed);
    is = intsetRemove(is, 1LL << 40, &removed);
    CHECK(removed);
    is = intsetRemove(is, 99, &removed);
    CHECK(!removed);
    checkMatchesRef(is, refSet64AfterRem); /* widths never shrink */
    intsetFree(is);

    is = intsetNew();
    long long mixed[] = {5, -3, 100, 40000, 7, -32768, 32767};
    for (int i = 0; i < 7; i++) is = intsetAdd(is, mixed[i], NULL);
    checkMatchesRef(is, refSetMixed);
    intsetFree(is);

    TEST("edges of each width, and memory given back on removal");
    is = intsetNew();
    is = intsetAdd(is, INT16_MIN, NULL);
    is = intsetAdd(is, INT16_MAX, NULL);
    CHECK(intsetBlobLen(is) == 12 && ((unsigned char *)is)[0] == 2);
    is = intsetAdd(is, INT32_MAX, NULL);
    is = intsetAdd(is, INT32_MIN, NULL);
    CHECK(intsetBlobLen(is) == 24 && ((unsigned char *)is)[0] == 4);
    for (int i = 0; i < 500; i++) is = intsetAdd(is, (long long)i << 40, NULL);
    CHECK(intsetLen(is) == 504 && ((unsigned char *)is)[0] == 8);
    for (int i = 0; i < 500; i++) is = intsetRemove(is, (long long)i << 40, NULL);
    CHECK(intsetLen(is) == 4 && intsetBlobLen(is) == 40 && zmalloc_size(is) < 100);
    intsetFree(is);

    /* Read a reference blob directly, then keep modifying it. */
    size_t len;
    unsigned char *blob = refBytes(refSetMixed, &len);
    is = (intset *)blob;
    long long v;
    CHECK(intsetLen(is) == 7 && intsetMin(is) == -32768 && intsetMax(is) == 40000);
    CHECK(intsetGet(is, 1, &v) && v == -3 && !intsetGet(is, 7, &v));
    CHECK(intsetFind(is, 40000) && intsetFind(is, 7) && !intsetFind(is, 8));
    CHECK(!intsetFind(is, 1LL << 40) && !intsetFind(is, -(1LL << 40)));
    is = intsetAdd(is, 6, &added);
    CHECK(added && intsetGet(is, 3, &v) && v == 6 && intsetLen(is) == 8);
    intsetFree(is);
}

/* ---- random operations against a sorted-array model ---- */

static long long randomMember(void) {
    static const long long edges[] = {INT16_MIN, INT16_MAX, INT16_MIN - 1, INT16_MAX + 1,
                                      INT32_MIN, INT32_MAX, (long long)INT32_MIN - 1,
                                      (long long)INT32_MAX + 1, INT64_MIN, INT64_MAX};
    switch (testNextRandom() % 7) {
    case 6: return edges[testNextRandom() % (sizeof(edges) / sizeof(edges[0]))];
    case 0: return (long long)(testNextRandom() % 64) - 32;
    case 1: return (long long)(testNextRandom() % 70000) - 35000;      /* around 16-bit edges */
    case 2: return (long long)(int32_t)testNextRandom();                /* 32-bit */
    case 3: return (long long)(testNextRandom() % 20) + INT32_MAX - 10; /* around 32-bit edges */
    case 4: return (long long)testNextRandom();                         /* 64-bit */
    default:
        return testNextRandom() & 1 ? INT64_MAX - (long long)(testNextRandom() % 3)
                                : INT64_MIN + (long long)(testNextRandom() % 3);
    }
}

static int widthFor(long long v) {
    if (v < INT32_MIN || v > INT32_MAX) return 8;
    if (v < INT16_MIN || v > INT16_MAX) return 4;
    return 2;
}

#define MODEL_MAX 600
static long long model[MODEL_MAX];
static int modelLen, modelWidth;

static int modelFind(long long v, int *pos) {
    int i = 0;
    while (i < modelLen && model[i] < v) i++;
    *pos = i;
    return i < modelLen && model[i] == v;
}

static int matchesModel(const intset *is) {
    long long v;
    if (intsetLen(is) != (uint32_t)modelLen) return 0;
    if (intsetBlobLen(is) != 8 + (size_t)modelLen * (size_t)modelWidth) return 0;
    const unsigned char *b = (const unsigned char *)is;
    if (b[0] != modelWidth || b[1] || b[2] || b[3]) return 0;
    for (int i = 0; i < modelLen; i++)
        if (!intsetGet(is, (uint32_t)i, &v) || v != model[i] || !intsetFind(is, v)) return 0;
    if (!modelLen) return 1;
    if (intsetMin(is) != model[0] || intsetMax(is) != model[modelLen - 1]) return 0;
    unsigned long r = (unsigned long)testNextRandom();
    if (intsetRandom(is, r) != model[r % (unsigned long)modelLen]) return 0;
    return intsetValidateIntegrity(b, intsetBlobLen(is), 1);
}

static void testRandomOperations(void) {
    TEST("random operations against a model");
    int failures = 0;
    for (int round = 0; round < 40 && failures < 3; round++) {
        intset *is = intsetNew();
        modelLen = 0;
        modelWidth = 2;
        /* Rounds differ in how wide their members get, so upgrades happen at
         * different sizes. */
        int maxKind = round % 4;
        for (int op = 0; op < 300; op++) {
            long long v = testNextRandom() % 4 <= (uint64_t)maxKind ? randomMember() : (long long)(testNextRandom() % 100);
            if (modelLen && testNextRandom() % 3 == 0) v = model[testNextRandom() % (uint64_t)modelLen];
            int pos, present = modelFind(v, &pos), changed;
            if (modelLen < MODEL_MAX && testNextRandom() % 4) {
                is = intsetAdd(is, v, &changed);
                CHECK(changed == !present);
                if (changed) {
                    memmove(&model[pos + 1], &model[pos], sizeof(long long) * (size_t)(modelLen - pos));
                    model[pos] = v;
                    modelLen++;
                    if (widthFor(v) > modelWidth) modelWidth = widthFor(v);
                }
            } else {
                is = intsetRemove(is, v, &changed);
                CHECK(changed == present);
                if (changed) {
                    memmove(&model[pos], &model[pos + 1], sizeof(long long) * (size_t)(modelLen - pos - 1));
                    modelLen--;
                }
            }
            int ok = matchesModel(is);
            CHECK(ok);
            failures += !ok;
        }
        intsetFree(is);
    }
}

static void testValidationAndParsing(void) {
    TEST("validation of untrusted blobs");
    unsigned char empty[8] = {2, 0, 0, 0, 0, 0, 0, 0};
    CHECK(!intsetValidateIntegrity(empty, 8, 0)); /* Redis rejects empty intsets */
    CHECK(!intsetValidateIntegrity(empty, 4, 0));
    unsigned char one[10] = {2, 0, 0, 0, 1, 0, 0, 0, 5, 0};
    CHECK(intsetValidateIntegrity(one, 10, 1));
    CHECK(!intsetValidateIntegrity(one, 9, 1) && !intsetValidateIntegrity(one, 11, 0));
    one[0] = 3;
    CHECK(!intsetValidateIntegrity(one, 10, 0));
    unsigned char unsorted[12] = {2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 5, 0};
    CHECK(intsetValidateIntegrity(unsorted, 12, 0));
    CHECK(!intsetValidateIntegrity(unsorted, 12, 1));
    unsorted[10] = 4;
    CHECK(!intsetValidateIntegrity(unsorted, 12, 1));
    unsorted[8] = 0xFF, unsorted[9] = 0xFF; /* -1 < 4 */
    CHECK(intsetValidateIntegrity(unsorted, 12, 1));
    unsigned char huge[8] = {8, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF};
    CHECK(!intsetValidateIntegrity(huge, 8, 1));

    /* Random corruption of a valid blob in an exact-size buffer (ASan). */
    intset *is = intsetNew();
    for (int i = 0; i < 40; i++) is = intsetAdd(is, randomMember(), NULL);
    size_t size = intsetBlobLen(is);
    int accepted = 0, readable = 1;
    for (int i = 0; i < 2000; i++) {
        unsigned char *t = malloc(size);
        memcpy(t, is, size);
        t[testNextRandom() % size] = (unsigned char)testNextRandom();
        if (intsetValidateIntegrity(t, size, 1)) {
            accepted++;
            const intset *c = (const intset *)t;
            long long v, prev = 0;
            for (uint32_t j = 0; j < intsetLen(c); j++) {
                intsetGet(c, j, &v);
                readable &= j == 0 || v > prev;
                readable &= intsetFind(c, v);
                prev = v;
            }
        }
        free(t);
    }
    CHECK(readable && accepted < 2000);
    intsetFree(is);

    TEST("which strings an intset can hold");
    long long v;
    CHECK(intsetParseMember("123", 3, &v) && v == 123);
    CHECK(intsetParseMember("-9223372036854775808", 20, &v) && v == INT64_MIN);
    CHECK(intsetParseMember("9223372036854775807", 19, &v) && v == INT64_MAX);
    CHECK(intsetParseMember("0", 1, &v) && v == 0);
    const char *bad[] = {"9223372036854775808", "-9223372036854775809", "007", "-0", "+1",
                         " 1", "1 ", "", "-", "1.0", "0x10", "1e3"};
    int allBad = 1;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        allBad &= !intsetParseMember(bad[i], strlen(bad[i]), &v);
    CHECK(allBad);
}

int main(void) {
    testSeed(0x2545F4914F6CDD1DULL);
    testReferenceBlobs();
    testRandomOperations();
    testValidationAndParsing();
    return TEST_REPORT();
}
