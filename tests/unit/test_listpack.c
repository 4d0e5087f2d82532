/* test_listpack: unit tests for src/data/listpack.c.
 * Random operations are checked against a plain array model, untrusted-blob
 * validation is fuzzed with corrupted and truncated copies, and blobs
 * captured from Redis 7.0.15 (DUMP with rdbcompression no) must parse and be
 * rebuilt byte for byte by the same operations, because our RDB files embed
 * these blobs verbatim and redis-server must load them (and we theirs). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numparse.h"
#include "core/zmalloc.h"
#include "data/listpack.h"
#include "testhelp.h"

/* ---- reference blobs ---- */

/* A captured blob: hex prefix, then nfill copies of the byte fill, then a hex
 * suffix (long strings are stored as a fill to keep the fixtures short). */
typedef struct refBlob {
    const char *pre;
    unsigned char fill;
    size_t nfill;
    const char *suf;
} refBlob;

/* From redis-server 7.0.15 started with --rdbcompression no and large
 * hash-max-listpack-value / zset-max-listpack-value: DUMP key gives the type
 * byte, the RDB string length, then these listpack bytes (list nodes: after
 * the node count and container type). The commands are rebuilt below. */
static const refBlob refHashMixed = {
        "9c00000008008161020101816202dfff02816302bf78787878787878787878787878787878787878"
        "78787878787878787878787878787878787878787878787878787878787878787878787878787878"
        "7878787840816402e040797979797979797979797979797979797979797979797979797979797979"
        "7979797979797979797979797979797979797979797979797979797979797979797942ff",
        0x00, 0,
        ""};
static const refBlob refHashInts = {
        "980100004800826930030001826931037f0182693203c0800282693303dfff0282693403d0000282"
        "693503cfff0282693603f100100382693703f1ffef0382693803f1ff7f0382693903f20080000483"
        "69313004f10080038369313104f2ff7fff048369313204f2ffff7f048369313304f3000080000583"
        "69313404f2000080048369313504f3ffff7fff058369313604f3ffffff7f058369313704f4000000"
        "8000000000098369313804f300000080058369313904f4ffffff7fffffffff098369323004f4ffff"
        "ffffffffff7f098369323104f4000000000000008009836932320493393232333337323033363835"
        "34373735383038148369323304942d39323233333732303336383534373735383039158369323404"
        "83303037048369323504822d30038369323604822b31038369323704822031038369323804823120"
        "03836932390480018369333004812d02836933310483316533048369333204843078313005836933"
        "33049731323334353637383930313233343536373839303132331883693334048230300383693335"
        "04842d30303705ff",
        0x00, 0,
        ""};
static const refBlob refHashStr125 = {
        "8a0000000200816602e07d",
        0x71, 125,
        "7fff"};
static const refBlob refHashStr126 = {
        "8c0000000200816602e07e",
        0x71, 126,
        "0180ff"};
static const refBlob refHashStr4095 = {
        "0d1000000200816602efff",
        0x71, 4095,
        "2081ff"};
static const refBlob refHashStr4096 = {
        "111000000200816602f000100000",
        0x71, 4096,
        "2085ff"};
static const refBlob refHashStr16377 = {
        "0a4000000200816602f0f93f0000",
        0x71, 16377,
        "7ffeff"};
static const refBlob refHashStr16378 = {
        "0c4000000200816602f0fa3f0000",
        0x71, 16378,
        "00ffffff"};
static const refBlob refHashStr16379 = {
        "0d4000000200816602f0fb3f0000",
        0x71, 16379,
        "018080ff"};
static const refBlob refHashUpdates = {
        "6a000000080082663203e046",
        0x4c, 70,
        "488266330381730282663403dffb028266350382763503ff"};
static const refBlob refZsetBasic = {
        "1d0000000600826d3303dffe02826d31030101826d320383312e3504ff",
        0x00, 0,
        ""};
static const refBlob refZsetOps = {
        "1c0000000600826d3003f26079fe04826d32030201826d33030301ff",
        0x00, 0,
        ""};
static const refBlob refListStrict = {
        "3800000007008161020101822d300383303037048220310393393232333337323033363835343737"
        "3538303814f4000000000000008009ff",
        0x00, 0,
        ""};
/* list after ops: [b'12345', b'x', b'b', b'1', b'2', b'3', b'tail'] */
static const refBlob refListOps = {
        "1d0000000700f1393003817802816202010102010301847461696c05ff",
        0x00, 0,
        ""};
static size_t unhex(const char *h, unsigned char *out) {
    size_t n = strlen(h) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
    return n;
}

/* The fixture's bytes in an exact-size allocation (so ASan sees overreads). */
static unsigned char *refBytes(const refBlob *rb, size_t *len) {
    size_t pl = strlen(rb->pre) / 2, sl = strlen(rb->suf) / 2;
    unsigned char *b = malloc(pl + rb->nfill + sl);
    unhex(rb->pre, b);
    memset(b + pl, rb->fill, rb->nfill);
    unhex(rb->suf, b + pl + rb->nfill);
    *len = pl + rb->nfill + sl;
    return b;
}

/* Checks that the reference blob validates and that lp has the same bytes. */
static void checkMatchesRef(unsigned char *lp, const refBlob *rb) {
    size_t len;
    unsigned char *ref = refBytes(rb, &len);
    CHECK(lpValidateIntegrity(ref, len, 1, NULL, NULL));
    int same = lpBytes(lp) == len && memcmp(lp, ref, len) == 0;
    CHECK(same);
    if (!same) {
        fprintf(stderr, "  ours %zu bytes, reference %zu bytes\n", lpBytes(lp), len);
        for (size_t i = 0; i < len && i < lpBytes(lp); i++)
            if (lp[i] != ref[i]) {
                fprintf(stderr, "  first difference at byte %zu: %02x vs %02x\n", i, lp[i], ref[i]);
                break;
            }
    }
    free(ref);
}

static unsigned char *appendStr(unsigned char *lp, const char *s) {
    return lpAppend(lp, (const unsigned char *)s, (uint32_t)strlen(s));
}

static unsigned char *appendFill(unsigned char *lp, char c, size_t n) {
    char *s = malloc(n ? n : 1);
    memset(s, c, n);
    lp = lpAppend(lp, (unsigned char *)s, (uint32_t)n);
    free(s);
    return lp;
}

static unsigned char *findStr(unsigned char *lp, const char *s, unsigned skip) {
    return lpFind(lp, lpFirst(lp), (const unsigned char *)s, (uint32_t)strlen(s), skip);
}

/* 1 if the entry at p reads back as the C string s. */
static int entryIs(unsigned char *p, const char *s) {
    unsigned char buf[LP_INTBUF_SIZE];
    uint32_t len;
    unsigned char *v = lpGetString(p, &len, buf);
    return len == strlen(s) && memcmp(v, s, len) == 0;
}

static const char *hashIntValues[] = {
    "0", "127", "128", "-1", "-4096", "4095", "4096", "-4097", "32767", "32768", "-32768",
    "-32769", "8388607", "8388608", "-8388608", "-8388609", "2147483647", "2147483648",
    "-2147483648", "-2147483649", "9223372036854775807", "-9223372036854775808",
    "9223372036854775808", "-9223372036854775809", "007", "-0", "+1", " 1", "1 ", "", "-",
    "1e3", "0x10", "12345678901234567890123", "00", "-007"};
#define NHASHINTS (sizeof(hashIntValues) / sizeof(hashIntValues[0]))

static void testReferenceBlobs(void) {
    TEST("reference: hash with 6- and 12-bit strings");
    unsigned char *lp = lpNew(0);
    lp = appendStr(lp, "a");
    lp = appendStr(lp, "1");
    lp = appendStr(lp, "b");
    lp = appendStr(lp, "-1");
    lp = appendStr(lp, "c");
    lp = appendFill(lp, 'x', 63);
    lp = appendStr(lp, "d");
    lp = appendFill(lp, 'y', 64);
    checkMatchesRef(lp, &refHashMixed);
    lpFree(lp);

    TEST("reference: every integer encoding and strict parsing");
    lp = lpNew(0);
    char field[16];
    for (size_t i = 0; i < NHASHINTS; i++) {
        snprintf(field, sizeof(field), "i%zu", i);
        lp = appendStr(lp, field);
        lp = appendStr(lp, hashIntValues[i]);
    }
    checkMatchesRef(lp, &refHashInts);
    lpFree(lp);
    /* Parse the reference blob itself and read every value back. */
    size_t len;
    unsigned char *ref = refBytes(&refHashInts, &len);
    CHECK(lpLength(ref) == 2 * NHASHINTS);
    unsigned char *p = lpFirst(ref);
    int allRead = 1;
    for (size_t i = 0; i < NHASHINTS; i++) {
        snprintf(field, sizeof(field), "i%zu", i);
        allRead &= p && entryIs(p, field);
        p = p ? lpNext(ref, p) : NULL;
        allRead &= p && entryIs(p, hashIntValues[i]);
        p = p ? lpNext(ref, p) : NULL;
    }
    CHECK(allRead && p == NULL);
    long long v;
    uint32_t slen;
    CHECK(lpGetValue(lpNext(ref, findStr(ref, "i21", 1)), &slen, &v) == NULL && v == INT64_MIN);
    CHECK(findStr(ref, "-9223372036854775808", 1) == NULL); /* values are skipped */
    p = lpFind(ref, lpNext(ref, lpFirst(ref)), (const unsigned char *)"-9223372036854775808", 20, 1);
    CHECK(p && lpGetValue(p, &slen, &v) == NULL && v == INT64_MIN);
    free(ref);

    TEST("reference: string length and backlen boundaries");
    static const struct { size_t n; const refBlob *rb; } strs[] = {
        {125, &refHashStr125},     {126, &refHashStr126},     {4095, &refHashStr4095},
        {4096, &refHashStr4096},   {16377, &refHashStr16377}, {16378, &refHashStr16378},
        {16379, &refHashStr16379},
    };
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        lp = appendStr(lpNew(0), "f");
        lp = appendFill(lp, 'q', strs[i].n);
        checkMatchesRef(lp, strs[i].rb);
        unsigned char *s = lpGetValue(lpLast(lp), &slen, &v);
        CHECK(s && slen == strs[i].n &&
              lpBytes(lp) == 7 + lpEntrySizeString((const unsigned char *)"f", 1) +
                                 lpEntrySizeString(s, slen));
        /* Walk backwards over the long entry: exercises multi-byte backlens. */
        p = lpLast(lp);
        CHECK(p && lpPrev(lp, p) == lpFirst(lp) && lpGetString(p, &slen, NULL) && slen == strs[i].n);
        lpFree(lp);
    }

    TEST("reference: hash updates (replace, delete pair, append)");
    lp = lpNew(0);
    const char *init[] = {"f1", "v1", "f2", "v2", "f3", "v3", "f4", "100"};
    for (int i = 0; i < 8; i++) lp = appendStr(lp, init[i]);
    char longv[70];
    memset(longv, 'L', sizeof(longv));
    p = lpNext(lp, findStr(lp, "f2", 1));
    lp = lpReplace(lp, &p, (unsigned char *)longv, sizeof(longv));
    CHECK(p == lpSeek(lp, 3));
    p = lpNext(lp, findStr(lp, "f4", 1));
    lp = lpReplaceInteger(lp, &p, -5);
    p = lpNext(lp, findStr(lp, "f3", 1));
    lp = lpReplace(lp, &p, (const unsigned char *)"s", 1);
    p = findStr(lp, "f1", 1);
    lp = lpDeleteRangeWithEntry(lp, &p, 2);
    CHECK(p == lpFirst(lp) && entryIs(p, "f2"));
    lp = appendStr(lp, "f5");
    lp = appendStr(lp, "v5");
    checkMatchesRef(lp, &refHashUpdates);
    lpFree(lp);

    TEST("reference: zsets");
    lp = lpNew(0);
    const char *zs[] = {"m3", "-2", "m1", "1", "m2", "1.5"};
    for (int i = 0; i < 6; i++) lp = appendStr(lp, zs[i]);
    checkMatchesRef(lp, &refZsetBasic);
    lpFree(lp);
    lp = lpNew(0);
    lp = appendStr(lp, "m1");
    lp = appendStr(lp, "1");
    lp = appendStr(lp, "m3");
    lp = appendStr(lp, "3");
    p = findStr(lp, "m3", 1);
    lp = lpInsertString(lp, (const unsigned char *)"m2", 2, p, LP_BEFORE, &p);
    lp = lpInsertString(lp, (const unsigned char *)"2", 1, p, LP_AFTER, &p);
    CHECK(entryIs(p, "2") && entryIs(lpNext(lp, p), "m3"));
    lp = lpDeleteRange(lp, 0, 2);
    lp = lpPrepend(lp, (const unsigned char *)"-100000", 7);
    lp = lpPrepend(lp, (const unsigned char *)"m0", 2);
    checkMatchesRef(lp, &refZsetOps);
    lpFree(lp);

    TEST("reference: list nodes");
    lp = lpNew(0);
    const char *ls[] = {"a", "1", "-0", "007", " 1", "9223372036854775808", "-9223372036854775808"};
    for (int i = 0; i < 7; i++) lp = appendStr(lp, ls[i]);
    checkMatchesRef(lp, &refListStrict);
    lpFree(lp);
    lp = lpNew(0);
    const char *l2[] = {"a", "b", "c", "1", "2", "3"};
    for (int i = 0; i < 6; i++) lp = appendStr(lp, l2[i]);
    lp = lpPrepend(lp, (const unsigned char *)"z", 1);
    lp = lpInsertString(lp, (const unsigned char *)"x", 1, findStr(lp, "b", 0), LP_BEFORE, NULL);
    lp = lpInsertString(lp, (const unsigned char *)"tail", 4, findStr(lp, "3", 0), LP_AFTER, NULL);
    p = lpSeek(lp, 1);
    lp = lpReplace(lp, &p, (const unsigned char *)"12345", 5);
    lp = lpDelete(lp, findStr(lp, "c", 0), &p);
    CHECK(p && entryIs(p, "1"));
    lp = lpDelete(lp, lpFirst(lp), NULL);
    checkMatchesRef(lp, &refListOps);
    lpFree(lp);
}

/* ---- random operations against an array model ---- */

static unsigned long rndBelow(unsigned long n) { return (unsigned long)(testNextRandom() % n); }
static long testRand(void) { return (long)(testNextRandom() >> 33); }

typedef struct item {
    char *s;
    size_t len;
} item;

#define MODEL_MAX 400
static item model[MODEL_MAX];
static int modelLen;

static long long randomInteger(void) {
    static const long long edges[] = {0, 127, 128, -1, -4096, 4095, 4096, -4097, 32767, 32768,
                                      -32768, -32769, 8388607, 8388608, -8388608, -8388609,
                                      INT32_MAX, (long long)INT32_MAX + 1, INT32_MIN,
                                      (long long)INT32_MIN - 1, INT64_MAX, INT64_MIN};
    switch (rndBelow(4)) {
    case 0: return edges[rndBelow(sizeof(edges) / sizeof(edges[0]))];
    case 1: return (long long)rndBelow(200) - 100;
    case 2: return (long long)(testNextRandom() >> rndBelow(64));
    default: return -(long long)(testNextRandom() >> (1 + rndBelow(63)));
    }
}

/* A random value as the model holds it: the exact bytes a reader gets back. */
static item randomValue(void) {
    static const char *tricky[] = {"007", "-0", "+5", " 5", "5 ", "", "-", "9223372036854775808",
                                   "-9223372036854775809", "1.5", "0x1f", "00", "1e3"};
    static char buf[20000];
    size_t len;
    switch (rndBelow(10)) {
    case 0: case 1: case 2:
        len = (size_t)ll2string(buf, sizeof(buf), randomInteger());
        break;
    case 3:
        len = strlen(strcpy(buf, tricky[rndBelow(sizeof(tricky) / sizeof(tricky[0]))]));
        break;
    case 4:
        len = rndBelow(8) ? 64 + rndBelow(4200) : 16370 + rndBelow(20);
        for (size_t i = 0; i < len; i++) buf[i] = (char)('a' + i % 26);
        break;
    default:
        len = rndBelow(80);
        for (size_t i = 0; i < len; i++) buf[i] = (char)rndBelow(256);
        /* Keep it from accidentally being a canonical integer. */
        if (len) buf[0] = 'k';
        break;
    }
    item it = {malloc(len + 1), len};
    memcpy(it.s, buf, len);
    return it;
}

static void modelInsert(int at, item it) {
    memmove(&model[at + 1], &model[at], sizeof(item) * (size_t)(modelLen - at));
    model[at] = it;
    modelLen++;
}

static void modelDelete(int at, int n) {
    for (int i = at; i < at + n; i++) free(model[i].s);
    memmove(&model[at], &model[at + n], sizeof(item) * (size_t)(modelLen - at - n));
    modelLen -= n;
}

/* Everything observable about lp agrees with the model. */
static int matchesModel(unsigned char *lp) {
    unsigned char buf[LP_INTBUF_SIZE];
    uint32_t len;
    size_t bytes = LP_HDR_SIZE + 1;
    if (lpLength(lp) != (unsigned long)modelLen) return 0;
    unsigned char *p = lpFirst(lp);
    for (int i = 0; i < modelLen; i++, p = lpNext(lp, p)) {
        if (!p) return 0;
        unsigned char *v = lpGetString(p, &len, buf);
        if (len != model[i].len || memcmp(v, model[i].s, len) != 0) return 0;
        bytes += lpEntrySizeString((unsigned char *)model[i].s, (uint32_t)model[i].len);
    }
    if (p) return 0;
    p = lpLast(lp);
    for (int i = modelLen - 1; i >= 0; i--, p = lpPrev(lp, p)) {
        if (!p || !lpCompare(p, (unsigned char *)model[i].s, (uint32_t)model[i].len)) return 0;
    }
    if (p || lpBytes(lp) != bytes) return 0;
    if (!lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL)) return 0;
    if (modelLen) {
        int i = (int)rndBelow((unsigned long)modelLen);
        if (lpSeek(lp, i) != lpSeek(lp, i - modelLen)) return 0;
        /* lpFind returns the first equal entry, with and without skipping. */
        item *w = &model[i];
        int first = 0, firstEven = -1;
        while (model[first].len != w->len || memcmp(model[first].s, w->s, w->len)) first++;
        for (int j = 0; j < modelLen; j += 2)
            if (model[j].len == w->len && !memcmp(model[j].s, w->s, w->len)) {
                firstEven = j;
                break;
            }
        if (lpFind(lp, lpFirst(lp), (unsigned char *)w->s, (uint32_t)w->len, 0) != lpSeek(lp, first))
            return 0;
        p = lpFind(lp, lpFirst(lp), (unsigned char *)w->s, (uint32_t)w->len, 1);
        if (p != (firstEven < 0 ? NULL : lpSeek(lp, firstEven))) return 0;
    }
    return lpSeek(lp, modelLen) == NULL && lpSeek(lp, -modelLen - 1) == NULL;
}

static void testRandomOperations(void) {
    TEST("random operations against a model");
    unsigned char *lp = lpNew(0);
    int failures = 0;
    for (int op = 0; op < 4000 && failures < 3; op++) {
        if (modelLen > MODEL_MAX - 10) {
            lp = lpDeleteRange(lp, 0, (unsigned long)modelLen);
            modelDelete(0, modelLen);
        }
        unsigned r = (unsigned)rndBelow(11);
        int at = modelLen ? (int)rndBelow((unsigned long)modelLen) : 0;
        unsigned char *p = modelLen ? lpSeek(lp, at) : NULL, *np = NULL;
        if (!modelLen && r >= 4) r = rndBelow(2); /* needs an entry: append or prepend */
        item it = randomValue();
        int useInt = 0;
        long long iv = 0;
        if (it.len && string2ll(it.s, it.len, &iv)) useInt = (int)rndBelow(2);
        int expectAt = -1; /* where *newp should point afterwards */
        switch (r) {
        case 0:
        case 1:
            lp = useInt ? lpAppendInteger(lp, iv) : lpAppend(lp, (unsigned char *)it.s, (uint32_t)it.len);
            modelInsert(modelLen, it);
            break;
        case 2:
        case 3:
            lp = useInt ? lpPrependInteger(lp, iv) : lpPrepend(lp, (unsigned char *)it.s, (uint32_t)it.len);
            modelInsert(0, it);
            break;
        case 4:
        case 5: {
            int where = r == 4 ? LP_BEFORE : LP_AFTER;
            lp = useInt ? lpInsertInteger(lp, iv, p, where, &np)
                        : lpInsertString(lp, (unsigned char *)it.s, (uint32_t)it.len, p, where, &np);
            expectAt = at + (where == LP_AFTER);
            modelInsert(expectAt, it);
            break;
        }
        case 6:
        case 7:
            lp = useInt ? lpReplaceInteger(lp, &p, iv) : lpReplace(lp, &p, (unsigned char *)it.s, (uint32_t)it.len);
            np = p;
            expectAt = at;
            free(model[at].s);
            model[at] = it;
            break;
        case 8:
            free(it.s);
            lp = lpDelete(lp, p, &np);
            modelDelete(at, 1);
            expectAt = at < modelLen ? at : -2;
            break;
        case 9: {
            free(it.s);
            unsigned long n = rndBelow(6);
            int start = rndBelow(2) ? at : at - modelLen; /* negative index from the end */
            lp = lpDeleteRange(lp, start, n);
            modelDelete(at, (int)(n < (unsigned long)(modelLen - at) ? n : (unsigned long)(modelLen - at)));
            break;
        }
        default: {
            free(it.s);
            unsigned long n = 1 + rndBelow(4);
            lp = lpDeleteRangeWithEntry(lp, &p, n);
            modelDelete(at, (int)(n < (unsigned long)(modelLen - at) ? n : (unsigned long)(modelLen - at)));
            np = p;
            expectAt = at < modelLen ? at : -2;
            break;
        }
        }
        int ok = matchesModel(lp);
        if (expectAt == -2) ok &= np == NULL;
        else if (expectAt >= 0) ok &= np == lpSeek(lp, expectAt);
        CHECK(ok);
        if (!ok) fprintf(stderr, "  op %d kind %u at %d (len %d)\n", op, r, at, modelLen);
        failures += !ok;
    }
    modelDelete(0, modelLen);
    lpFree(lp);
}

/* ---- the other operations ---- */

static void testCountOverflow(void) {
    TEST("element count beyond 65534 is 'unknown' in the header");
    unsigned char *lp = lpNew(0);
    for (int i = 0; i < 70000; i++) lp = lpAppendInteger(lp, i % 100);
    CHECK(lp[4] == 0xFF && lp[5] == 0xFF);
    CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    CHECK(lpLength(lp) == 70000);
    unsigned char *p = lpSeek(lp, -1);
    long long v;
    uint32_t slen;
    CHECK(p && lpGetValue(p, &slen, &v) == NULL && v == 69999 % 100);
    lp = lpDeleteRange(lp, 0, 10000);
    /* Like Redis, the header stays "unknown" until something counts. */
    CHECK(lp[4] == 0xFF && lp[5] == 0xFF);
    CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    CHECK(lpLength(lp) == 60000);
    CHECK(lp[4] == (60000 & 0xFF) && lp[5] == (60000 >> 8));
    lp = lpAppendInteger(lp, 5);
    CHECK(lpLength(lp) == 60001);
    /* A wrong known count fails deep validation only. */
    lp[4] ^= 1;
    CHECK(lpValidateIntegrity(lp, lpBytes(lp), 0, NULL, NULL));
    CHECK(!lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    lpFree(lp);
}

static int countEntriesCb(unsigned char *p, unsigned int header_count, void *userdata) {
    (void)p;
    int *n = userdata;
    return ++*n <= (int)header_count && *n < 1000;
}

/* Builds a listpack of short, mixed entries for the corruption tests. */
static unsigned char *smallMixedListpack(int n) {
    unsigned char *lp = lpNew(0);
    for (int i = 0; i < n; i++) {
        item it = randomValue();
        if (it.len > 300) it.len = 300;
        lp = lpAppend(lp, (unsigned char *)it.s, (uint32_t)it.len);
        free(it.s);
    }
    return lp;
}

/* Reads every entry both ways; only meaningful (and safe) on a validated blob. */
static int walkAll(unsigned char *lp) {
    unsigned char buf[LP_INTBUF_SIZE];
    uint32_t len;
    unsigned long fwd = 0, back = 0;
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p), fwd++) lpGetString(p, &len, buf);
    for (unsigned char *p = lpLast(lp); p; p = lpPrev(lp, p), back++) lpGetString(p, &len, buf);
    return fwd == back;
}

static void testValidation(void) {
    TEST("validation of untrusted blobs");
    unsigned char *lp = smallMixedListpack(60);
    size_t size = lpBytes(lp);
    CHECK(lpValidateIntegrity(lp, size, 0, NULL, NULL));
    CHECK(lpValidateIntegrity(lp, size, 1, NULL, NULL));
    int seen = 0;
    CHECK(lpValidateIntegrity(lp, size, 1, countEntriesCb, &seen) && seen == 60);
    CHECK(!lpValidateIntegrity(lp, size - 1, 0, NULL, NULL));
    CHECK(!lpValidateIntegrity(lp, size + 1, 0, NULL, NULL));
    unsigned char tiny[7] = {7, 0, 0, 0, 0, 0, 0xFF};
    CHECK(lpValidateIntegrity(tiny, 7, 1, NULL, NULL));
    CHECK(!lpValidateIntegrity(tiny, 6, 1, NULL, NULL));
    tiny[4] = 1;
    CHECK(!lpValidateIntegrity(tiny, 7, 1, NULL, NULL));
    unsigned char badenc[10] = {10, 0, 0, 0, 1, 0, 0xF5, 0, 1, 0xFF};
    CHECK(!lpValidateIntegrity(badenc, 10, 1, NULL, NULL));
    unsigned char int16[11] = {11, 0, 0, 0, 1, 0, 0xF1, 0x00, 0x80, 3, 0xFF};
    CHECK(lpValidateIntegrity(int16, 11, 1, NULL, NULL) && walkAll(int16));
    CHECK(!lpValidateIntegrity(int16, 10, 1, NULL, NULL));
    int16[9] = 4; /* wrong backlen */
    CHECK(!lpValidateIntegrity(int16, 11, 1, NULL, NULL));
    unsigned char str32[12] = {12, 0, 0, 0, 1, 0, 0xF0, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF};
    CHECK(!lpValidateIntegrity(str32, 12, 1, NULL, NULL)); /* length runs off the end */

    /* Every truncation, re-headed so the shallow check passes. */
    int truncOk = 1;
    for (size_t cut = 0; cut < size; cut++) {
        unsigned char *t = malloc(cut + 1);
        memcpy(t, lp, cut);
        if (cut >= 4) t[0] = (unsigned char)(cut + 1), t[1] = (unsigned char)((cut + 1) >> 8), t[2] = t[3] = 0;
        t[cut] = 0xFF;
        if (lpValidateIntegrity(t, cut + 1, 1, NULL, NULL)) truncOk &= walkAll(t);
        free(t);
    }
    CHECK(truncOk);

    /* Random corruption: validation never reads out of bounds (ASan), and
     * whatever it accepts can be walked safely. */
    int accepted = 0, walkOk = 1;
    for (int i = 0; i < 3000; i++) {
        unsigned char *t = malloc(size);
        memcpy(t, lp, size);
        int flips = 1 + (int)rndBelow(3);
        for (int f = 0; f < flips; f++) t[rndBelow(size)] = (unsigned char)testNextRandom();
        if (lpValidateIntegrity(t, size, 1, NULL, NULL)) {
            accepted++;
            walkOk &= walkAll(t);
        }
        free(t);
    }
    CHECK(walkOk);
    CHECK(accepted < 3000);
    lpFree(lp);
}

static void testEdgesAndHelpers(void) {
    TEST("empty listpack");
    unsigned char *lp = lpNew(100);
    CHECK(lpBytes(lp) == 7 && lpLength(lp) == 0);
    CHECK(!lpFirst(lp) && !lpLast(lp) && !lpSeek(lp, 0) && !lpSeek(lp, -1));
    CHECK(lpPrev(lp, lp + 6) == NULL);
    CHECK(findStr(lp, "x", 0) == NULL);
    lp = lpShrinkToFit(lp);
    CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    lp = lpDeleteRange(lp, 0, 3);
    CHECK(lpLength(lp) == 0);

    TEST("sizes and the safety limit");
    CHECK(lpEntrySizeString((const unsigned char *)"hello", 5) == 7);
    CHECK(lpEntrySizeString((const unsigned char *)"4096", 4) == 4);
    CHECK(lpEntrySizeInteger(127) == 2 && lpEntrySizeInteger(128) == 3);
    CHECK(lpEntrySizeInteger(INT64_MIN) == 10);
    CHECK(lpSafeToAdd(NULL, LP_MAX_SAFE_SIZE) && !lpSafeToAdd(NULL, LP_MAX_SAFE_SIZE + 1));
    CHECK(lpSafeToAdd(lp, LP_MAX_SAFE_SIZE - 7) && !lpSafeToAdd(lp, LP_MAX_SAFE_SIZE - 6));

    TEST("compare and find");
    lp = appendStr(lp, "100");
    lp = appendStr(lp, "abc");
    lp = appendStr(lp, "-7");
    unsigned char *p = lpFirst(lp);
    CHECK(lpCompare(p, (const unsigned char *)"100", 3));
    CHECK(!lpCompare(p, (const unsigned char *)"100 ", 4));
    CHECK(!lpCompare(p, (const unsigned char *)"0100", 4));
    CHECK(!lpCompare(p, (const unsigned char *)"1e2", 3));
    CHECK(lpCompare(lpNext(lp, p), (const unsigned char *)"abc", 3));
    CHECK(!lpCompare(lpNext(lp, p), (const unsigned char *)"abd", 3));
    CHECK(!lpCompare(lp + lpBytes(lp) - 1, (const unsigned char *)"", 0));
    CHECK(findStr(lp, "-7", 0) == lpSeek(lp, 2));
    CHECK(findStr(lp, "-7", 1) == lpSeek(lp, 2));
    CHECK(findStr(lp, "abc", 1) == NULL);
    CHECK(lpPrev(lp, lp + lpBytes(lp) - 1) == lpLast(lp));
    CHECK(lpNext(lp, lpLast(lp)) == NULL);
    unsigned char buf[LP_INTBUF_SIZE];
    uint32_t slen;
    long long v;
    CHECK(lpGetValue(lpSeek(lp, -1), &slen, &v) == NULL && v == -7);
    lpEntry e;
    lpGetEntry(lpSeek(lp, 1), &e);
    CHECK(e.sval && e.slen == 3 && !memcmp(e.sval, "abc", 3));
    CHECK(lpGetString(lpFirst(lp), &slen, buf) == buf && slen == 3 && !memcmp(buf, "100", 3));

    TEST("delete ranges");
    lpFree(lp);
    lp = lpNew(0);
    for (int i = 0; i < 10; i++) lp = lpAppendInteger(lp, i);
    lp = lpDeleteRange(lp, -3, 2); /* removes 7 and 8 */
    CHECK(lpLength(lp) == 8 && lpGetValue(lpSeek(lp, 7), &slen, &v) == NULL && v == 9);
    lp = lpDeleteRange(lp, 20, 1);
    CHECK(lpLength(lp) == 8);
    lp = lpDeleteRange(lp, 5, 100);
    CHECK(lpLength(lp) == 5 && lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    p = lpLast(lp);
    lp = lpDelete(lp, p, &p);
    CHECK(p == NULL && lpLength(lp) == 4);

    TEST("merge");
    unsigned char *other = lpNew(0);
    other = appendStr(other, "x");
    other = appendFill(other, 'y', 5000);
    unsigned char *expect = lpNew(0);
    for (int i = 0; i < 4; i++) expect = lpAppendInteger(expect, i);
    expect = appendStr(expect, "x");
    expect = appendFill(expect, 'y', 5000);
    lp = lpMerge(lp, other);
    CHECK(lpBytes(lp) == lpBytes(expect) && !memcmp(lp, expect, lpBytes(lp)));
    lpFree(expect);

    TEST("inserting a value read from the same listpack");
    p = lpLast(lp);
    unsigned char *s = lpGetValue(p, &slen, &v);
    for (int i = 0; i < 5; i++) lp = lpInsertString(lp, s, slen, lpFirst(lp), LP_BEFORE, &p), s = p + 5;
    CHECK(lpLength(lp) == 11 && lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    s = lpGetValue(lpFirst(lp), &slen, &v);
    CHECK(s && slen == 5000 && s[0] == 'y' && s[4999] == 'y');
    p = lpSeek(lp, 6);
    s = lpGetValue(lpLast(lp), &slen, &v);
    lp = lpReplace(lp, &p, s, slen); /* replace with a value from the same blob */
    s = lpGetValue(lpSeek(lp, 6), &slen, &v);
    CHECK(s && slen == 5000 && s[2500] == 'y');
    lpFree(lp);
}

static void testPairs(void) {
    TEST("pairs");
    unsigned char *lp = lpNew(0);
    char k[32], val[32];
    for (int i = 0; i < 50; i++) {
        snprintf(k, sizeof(k), "k%d", i);
        lp = appendStr(lp, k);
        lp = lpAppendInteger(lp, i * 10);
    }
    unsigned char *p = lpFirst(lp);
    lpEntry key, v;
    int n = 0, ok = 1;
    while (lpNextPair(lp, &p, &key, &v)) {
        snprintf(k, sizeof(k), "k%d", n);
        ok &= key.sval && key.slen == strlen(k) && !memcmp(key.sval, k, key.slen);
        ok &= !v.sval && v.lval == n * 10;
        n++;
    }
    CHECK(ok && n == 50);
    lpPairAt(lp, 49, &key, &v);
    CHECK(key.sval && !memcmp(key.sval, "k49", 3) && v.lval == 490);
    lpPairAt(lp, 0, &key, NULL);
    CHECK(key.sval && !memcmp(key.sval, "k0", 2));

    unsigned long idx[8] = {7, 3, 49, 3, 0, 20, 7, 1};
    lpEntry keys[64], vals[64];
    lpPairsAt(lp, idx, 8, keys, vals);
    ok = 1;
    for (int i = 0; i < 8; i++) {
        snprintf(k, sizeof(k), "k%lu", idx[i]);
        ok &= keys[i].slen == strlen(k) && !memcmp(keys[i].sval, k, keys[i].slen);
        ok &= vals[i].lval == (long long)idx[i] * 10;
    }
    CHECK(ok);

    unsigned long got = lpRandomPairsUnique(lp, 10, keys, vals, testRand);
    ok = got == 10;
    long long last = -1;
    for (unsigned long i = 0; i < got; i++) {
        ok &= vals[i].lval > last; /* distinct, in listpack order */
        last = vals[i].lval;
        snprintf(val, sizeof(val), "k%lld", vals[i].lval / 10);
        ok &= keys[i].slen == strlen(val) && !memcmp(keys[i].sval, val, keys[i].slen);
    }
    CHECK(ok);
    CHECK(lpRandomPairsUnique(lp, 64, keys, NULL, testRand) == 50);
    lpFree(lp);
}

int main(void) {
    testSeed(0x9E3779B97F4A7C15ULL);
    testReferenceBlobs();
    testRandomOperations();
    testCountOverflow();
    testValidation();
    testEdgesAndHelpers();
    testPairs();
    return TEST_REPORT();
}
