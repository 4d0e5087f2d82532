/* bits: the bitmap commands of Redis 7.0 on string values (SETBIT GETBIT
 * BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO).
 *
 * A string is a bit array numbered from the most significant bit of its
 * first byte; bits past its end read as 0. Writes grow the string with zero
 * bytes as far as the highest bit written and turn the value into a private
 * raw string first, so the bytes can be edited in place. Bit offsets are
 * bounded by proto-max-bulk-len, the largest string a client could send.
 * Counting and searching work on 64-bit words (the CPU's popcount), because
 * bitmaps are routinely megabytes long. Replies, error texts, the order in
 * which errors are detected and the events raised follow Redis 7.0.15. */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "server/cmdargs.h"
#include "core/zmalloc.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"
#include "server/server.h"

static const char *const BAD_BIT_OFFSET = "bit offset is not an integer or out of range";

/* ------------------------------------------------------------ counting */

/* Population count of bytes [0, n): single bytes until p is 8-aligned, then
 * whole 64-bit words, then the remaining bytes. Compiled twice on x86-64 so
 * the word loop becomes the POPCNT instruction where the CPU has it, while
 * the binary still runs on CPUs without it. */
#define DEFINE_POPCOUNT(name, attr)                                           \
    attr static long long name(const unsigned char *p, size_t n) {          \
        long long count = 0;                                                  \
        while (n > 0 && ((uintptr_t)p & 7) != 0) {                            \
            count += __builtin_popcount(*p++);                                \
            n--;                                                              \
        }                                                                     \
        for (; n >= 8; p += 8, n -= 8) {                                      \
            uint64_t word;                                                    \
            memcpy(&word, p, 8); /* aligned: one load, no aliasing issue */   \
            count += __builtin_popcountll(word);                              \
        }                                                                     \
        while (n > 0) {                                                       \
            count += __builtin_popcount(*p++);                                \
            n--;                                                              \
        }                                                                     \
        return count;                                                         \
    }

DEFINE_POPCOUNT(popcountGeneric, )

#if defined(__x86_64__) && defined(__GNUC__)
DEFINE_POPCOUNT(popcountHardware, __attribute__((target("popcnt"))))

static long long popcountBytes(const unsigned char *p, size_t n) {
    static int has_popcnt = -1;
    if (has_popcnt < 0) {
        __builtin_cpu_init();
        has_popcnt = __builtin_cpu_supports("popcnt") ? 1 : 0;
    }
    return has_popcnt ? popcountHardware(p, n) : popcountGeneric(p, n);
}
#else
static long long popcountBytes(const unsigned char *p, size_t n) { return popcountGeneric(p, n); }
#endif

/* Offset of the first bit equal to `bit` among bit offsets [first, last],
 * or -1. Whole words that cannot contain it are skipped 8 bytes at a time. */
static long long findFirstBit(const unsigned char *p, uint64_t first, uint64_t last, int bit) {
    const uint64_t firstbyte = first >> 3, lastbyte = last >> 3;
    const unsigned flip = bit ? 0x00 : 0xff; /* looking for 0: search the complement for 1 */
    const uint64_t skipword = bit ? 0 : UINT64_MAX;
    uint64_t byte = firstbyte;
    while (byte <= lastbyte) {
        /* Skip whole words strictly between the (possibly partial) first and
         * last byte; stop at the word holding the bit, then find it below. */
        if (byte > firstbyte) {
            uint64_t word;
            while (byte + 8 <= lastbyte) {
                memcpy(&word, p + byte, 8);
                if (word != skipword) break;
                byte += 8;
            }
        }
        unsigned v = (p[byte] ^ flip) & 0xff;
        if (byte == firstbyte) v &= 0xffu >> (first & 7);
        if (byte == lastbyte) v &= (0xff00u >> ((last & 7) + 1)) & 0xff;
        if (v != 0) return (long long)(byte * 8 + (uint64_t)(__builtin_clz(v) - 24));
        byte++;
    }
    return -1;
}

/* ------------------------------------------------------------- helpers */

/* Parses a bit offset argument. With hash_form, "#N" means N * bits (the
 * N-th field of that width, for BITFIELD). Offsets must address a byte below
 * proto-max-bulk-len (AOF replay is exempt, as in Redis). */
static int bitOffsetOrReply(client *c, robj *arg, int hash_form, int bits, uint64_t *offset) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = stringObjectView(arg, buf, &len);
    int indexed = hash_form && bits > 0 && len > 0 && s[0] == '#';
    long long value;
    if (!string2ll(s + indexed, len - indexed, &value) ||
        (indexed && __builtin_mul_overflow(value, (long long)bits, &value)) || value < 0 ||
        (!(c->flags & CLIENT_AOF) && (value >> 3) >= server.proto_max_bulk_len)) {
        addReplyError(c, BAD_BIT_OFFSET);
        return C_ERR;
    }
    *offset = (uint64_t)value;
    return C_OK;
}

/* The string at argv[1] made writable and at least long enough to hold bit
 * maxbit: created zeroed when missing, unshared and zero-extended otherwise.
 * *grew (when not NULL) tells whether the key was created or lengthened,
 * which counts as a change even when no bit flips. NULL after WRONGTYPE. */
static robj *writableBitmapOrReply(client *c, uint64_t maxbit, int *grew) {
    size_t needed = (size_t)(maxbit >> 3) + 1;
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (replyIfWrongType(c, o, OBJ_STRING)) return NULL;
    if (grew) *grew = 0;
    if (o == NULL) {
        o = dbAdd(c->db, c->argv[1], createObject(OBJ_STRING, sdsnewlen(NULL, needed)));
        if (grew) *grew = 1;
        return o;
    }
    o = dbUnshareStringValue(c->db, c->argv[1], o);
    size_t len = sdslen(objectPtr(o));
    if (needed > len) {
        objectSetPtr(o, sdsMakeRoomFor(objectPtr(o), needed - len));
        memset((char *)objectPtr(o) + len, 0, needed - len);
        sdsincrlen(objectPtr(o), (ssize_t)(needed - len));
        if (grew) *grew = 1;
    }
    return o;
}

/* A string value's bytes, whatever its encoding (int values are printed into buf). */
static const unsigned char *bitmapBytes(const robj *o, char buf[LONG_STR_SIZE], size_t *len) {
    return (const unsigned char *)stringObjectView(o, buf, len);
}

/* Parses an optional BYTE|BIT unit argument; C_ERR (syntax error replied) otherwise. */
static int rangeUnitOrReply(client *c, robj *arg, int *isbit) {
    if (!strcasecmp(objectPtr(arg), "bit")) {
        *isbit = 1;
    } else if (!strcasecmp(objectPtr(arg), "byte")) {
        *isbit = 0;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    return C_OK;
}

/* Turns a user range (negative indexes count from the end) over `total`
 * units into [*start, *end], clamped to the value. Empty when start > end. */
static void clampRange(long long *start, long long *end, long long total) {
    if (*start < 0) *start += total;
    if (*end < 0) *end += total;
    if (*start < 0) *start = 0;
    if (*end < 0) *end = 0;
    if (*end >= total) *end = total - 1;
}

/* ------------------------------------------------------- SETBIT GETBIT */

void setbitCommand(client *c) {
    static const char *const bad_bit = "bit is not an integer or out of range";
    uint64_t offset;
    long long on;
    if (bitOffsetOrReply(c, c->argv[2], 0, 0, &offset) != C_OK) return;
    if (getLongLongFromObject(c->argv[3], &on) != C_OK || (on != 0 && on != 1)) {
        addReplyError(c, bad_bit);
        return;
    }
    int grew;
    robj *o = writableBitmapOrReply(c, offset, &grew);
    if (o == NULL) return;

    unsigned char *byte = (unsigned char *)objectPtr(o) + (offset >> 3);
    unsigned char mask = (unsigned char)(0x80 >> (offset & 7));
    int old = (*byte & mask) != 0;
    /* Setting a bit to the value it has changes nothing: no event. */
    if (grew || old != on) {
        if (on) *byte |= mask;
        else *byte &= (unsigned char)~mask;
        keyChanged(c->db, c->argv[1], NOTIFY_STRING, "setbit", 1);
    }
    addReply(c, old ? shared.cone : shared.czero);
}

void getbitCommand(client *c) {
    uint64_t offset;
    if (bitOffsetOrReply(c, c->argv[2], 0, 0, &offset) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || replyIfWrongType(c, o, OBJ_STRING)) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = bitmapBytes(o, buf, &len);
    int bit = (offset >> 3) < len && (p[offset >> 3] & (0x80 >> (offset & 7)));
    addReply(c, bit ? shared.cone : shared.czero);
}

/* ------------------------------------------------------------ BITCOUNT */

void bitcountCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || replyIfWrongType(c, o, OBJ_STRING)) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = bitmapBytes(o, buf, &len);

    long long start = 0, end = (long long)len - 1;
    int isbit = 0;
    if (c->argc == 4 || c->argc == 5) {
        if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK) return;
        if (getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK) return;
        /* Both from the end and reversed: empty whatever the length (Redis
         * answers this before looking at the unit). */
        if (start < 0 && end < 0 && start > end) {
            addReply(c, shared.czero);
            return;
        }
        if (c->argc == 5 && rangeUnitOrReply(c, c->argv[4], &isbit) != C_OK) return;
        clampRange(&start, &end, isbit ? (long long)len * 8 : (long long)len);
    } else if (c->argc != 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (start > end) {
        addReply(c, shared.czero);
        return;
    }
    if (!isbit) {
        addReplyLongLong(c, popcountBytes(p + start, (size_t)(end - start + 1)));
        return;
    }
    /* Bit range: count the whole bytes it touches, then take off the bits of
     * the first and last byte that lie outside it. */
    long long firstbyte = start >> 3, lastbyte = end >> 3;
    long long count = popcountBytes(p + firstbyte, (size_t)(lastbyte - firstbyte + 1));
    count -= __builtin_popcount(p[firstbyte] & ~(0xffu >> (start & 7)) & 0xff);
    count -= __builtin_popcount(p[lastbyte] & (0xffu >> ((end & 7) + 1)));
    addReplyLongLong(c, count);
}

/* -------------------------------------------------------------- BITPOS */

void bitposCommand(client *c) {
    long long bit;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &bit, NULL) != C_OK) return;
    if (bit != 0 && bit != 1) {
        addReplyError(c, "The bit argument must be 1 or 0.");
        return;
    }
    /* A missing key is an endless run of zeros. */
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyLongLong(c, bit ? -1 : 0);
        return;
    }
    if (replyIfWrongType(c, o, OBJ_STRING)) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = bitmapBytes(o, buf, &len);

    long long start = 0, end = (long long)len - 1;
    int isbit = 0, end_given = 0;
    if (c->argc >= 4 && c->argc <= 6) {
        if (getLongLongFromObjectOrReply(c, c->argv[3], &start, NULL) != C_OK) return;
        if (c->argc == 6 && rangeUnitOrReply(c, c->argv[5], &isbit) != C_OK) return;
        long long total = isbit ? (long long)len * 8 : (long long)len;
        if (c->argc >= 5) {
            if (getLongLongFromObjectOrReply(c, c->argv[4], &end, NULL) != C_OK) return;
            end_given = 1;
        } else {
            end = total - 1;
        }
        clampRange(&start, &end, total);
    } else if (c->argc != 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    /* An empty range holds neither a 0 nor a 1. */
    if (start > end) {
        addReplyLongLong(c, -1);
        return;
    }
    uint64_t firstbit = isbit ? (uint64_t)start : (uint64_t)start * 8;
    uint64_t lastbit = isbit ? (uint64_t)end : (uint64_t)end * 8 + 7;
    long long pos = findFirstBit(p, firstbit, lastbit, (int)bit);
    /* No clear bit in the range: without an explicit end the string counts
     * as followed by zeros, so the first clear bit is the one after it. */
    if (pos < 0 && bit == 0 && !end_given) pos = (long long)lastbit + 1;
    addReplyLongLong(c, pos);
}

/* --------------------------------------------------------------- BITOP */

enum bitop { BITOP_AND, BITOP_OR, BITOP_XOR, BITOP_NOT };

/* dst[i] = dst[i] op src[i] for i < n, 64 bits at a time. */
static void combineBytes(unsigned char *dst, const unsigned char *src, size_t n, enum bitop op) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, dst + i, 8);
        memcpy(&b, src + i, 8);
        if (op == BITOP_AND) a &= b;
        else if (op == BITOP_OR) a |= b;
        else a ^= b;
        memcpy(dst + i, &a, 8);
    }
    for (; i < n; i++) {
        if (op == BITOP_AND) dst[i] &= src[i];
        else if (op == BITOP_OR) dst[i] |= src[i];
        else dst[i] ^= src[i];
    }
}

typedef struct bitopSource {
    const unsigned char *p; /* NULL for a missing key */
    size_t len;
    char buf[LONG_STR_SIZE]; /* digits of an int-encoded value */
} bitopSource;

void bitopCommand(client *c) {
    const char *opname = objectPtr(c->argv[1]);
    enum bitop op;
    if (!strcasecmp(opname, "and")) op = BITOP_AND;
    else if (!strcasecmp(opname, "or")) op = BITOP_OR;
    else if (!strcasecmp(opname, "xor")) op = BITOP_XOR;
    else if (!strcasecmp(opname, "not")) op = BITOP_NOT;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (op == BITOP_NOT && c->argc != 4) {
        addReplyError(c, "BITOP NOT must be called with a single source key.");
        return;
    }

    /* Read every source first: the destination may be one of them. Missing
     * keys are empty strings (all zeros). */
    int nsrc = c->argc - 3;
    bitopSource *src = zmalloc(sizeof(*src) * (size_t)nsrc);
    size_t maxlen = 0;
    for (int j = 0; j < nsrc; j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j + 3]);
        src[j].p = NULL;
        src[j].len = 0;
        if (o == NULL) continue;
        if (replyIfWrongType(c, o, OBJ_STRING)) {
            zfree(src);
            return;
        }
        src[j].p = bitmapBytes(o, src[j].buf, &src[j].len);
        if (src[j].len > maxlen) maxlen = src[j].len;
    }

    robj *target = c->argv[2];
    if (maxlen > 0) {
        /* Shorter sources are zero-padded to the longest. */
        unsigned char *res = (unsigned char *)sdsnewlen(NULL, maxlen);
        if (op == BITOP_NOT) {
            for (size_t i = 0; i < maxlen; i++) res[i] = (unsigned char)~src[0].p[i];
        } else {
            size_t from = 0;
            if (op == BITOP_AND) {
                if (src[0].p) memcpy(res, src[0].p, src[0].len);
                from = 1;
            }
            for (int j = (int)from; j < nsrc; j++) {
                if (src[j].p) combineBytes(res, src[j].p, src[j].len, op);
                /* AND with the padding zeros of a shorter source. */
                if (op == BITOP_AND && src[j].len < maxlen) memset(res + src[j].len, 0, maxlen - src[j].len);
            }
        }
        robj *o = createObject(OBJ_STRING, res);
        setKey(c->db, target, o, 0);
        decrRefCount(o);
        keyChanged(c->db, target, NOTIFY_STRING, "set", 1);
    } else if (dbDelete(c->db, target)) {
        /* Every source empty: the result is the empty string, i.e. no key. */
        keyChanged(c->db, target, NOTIFY_GENERIC, "del", 1);
    }
    zfree(src);
    addReplyLongLong(c, (long long)maxlen);
}

/* ------------------------------------------------------------ BITFIELD */

enum bitfieldOpcode { BF_GET, BF_SET, BF_INCRBY };
enum bitfieldOverflow { BF_WRAP, BF_SAT, BF_FAIL };

typedef struct bitfieldOp {
    uint64_t offset;
    long long value; /* SET value or INCRBY increment */
    enum bitfieldOpcode opcode;
    enum bitfieldOverflow overflow;
    int bits;
    int is_signed;
} bitfieldOp;

/* "i1".."i64" or "u1".."u63" (u64 could not be returned as a RESP integer). */
static int bitfieldTypeOrReply(client *c, robj *arg, int *is_signed, int *bits) {
    const char *s = objectPtr(arg);
    long long width;
    if ((s[0] != 'i' && s[0] != 'u') || !string2ll(s + 1, strlen(s + 1), &width) || width < 1 ||
        width > (s[0] == 'i' ? 64 : 63)) {
        addReplyError(c, "Invalid bitfield type. Use something like i16 u8. "
                         "Note that u64 is not supported but i64 is.");
        return C_ERR;
    }
    *is_signed = s[0] == 'i';
    *bits = (int)width;
    return C_OK;
}

/* The `bits`-wide field at bit offset `offset`, as an unsigned number. Bytes
 * past len read as zero. */
static uint64_t readField(const unsigned char *p, size_t len, uint64_t offset, int bits) {
    uint64_t value = 0;
    for (int i = 0; i < bits; i++, offset++) {
        uint64_t byte = offset >> 3;
        int bit = byte < len && (p[byte] & (0x80 >> (offset & 7)));
        value = (value << 1) | (uint64_t)bit;
    }
    return value;
}

/* Writes the low `bits` bits of value at bit offset `offset` (within the string). */
static void writeField(unsigned char *p, uint64_t offset, int bits, uint64_t value) {
    for (int i = bits - 1; i >= 0; i--, offset++) {
        unsigned char mask = (unsigned char)(0x80 >> (offset & 7));
        if ((value >> i) & 1) p[offset >> 3] |= mask;
        else p[offset >> 3] &= (unsigned char)~mask;
    }
}

/* Sign-extends the low `bits` bits of raw. */
static int64_t signExtend(uint64_t raw, int bits) {
    if (bits < 64 && (raw & ((uint64_t)1 << (bits - 1)))) raw |= UINT64_MAX << bits;
    return (int64_t)raw;
}

/* The value a SET (current = the new value, incr = 0) or INCRBY stores into a
 * field, given the overflow policy. Returns 0 and leaves *result untouched
 * when the result does not fit and the policy is FAIL. The exact sum is
 * computed in 128 bits, so every input is handled without overflow. */
static int fitField(const bitfieldOp *op, __int128 exact, uint64_t *result) {
    __int128 min, max;
    if (op->is_signed) {
        max = ((__int128)1 << (op->bits - 1)) - 1;
        min = -max - 1;
    } else {
        max = ((__int128)1 << op->bits) - 1;
        min = 0;
    }
    int too_high = exact > max;
    /* Redis 7.0 compares against max - value computed in 64 bits: for a
     * signed SET of a value within `max` of INT64_MIN that difference wraps
     * negative and the value counts as too high, so SAT stores max. */
    if (op->is_signed && op->bits < 64 && op->opcode == BF_SET && max - exact > INT64_MAX) too_high = 1;
    if (!too_high && exact >= min) {
        *result = (uint64_t)exact;
        return 1;
    }
    switch (op->overflow) {
    case BF_FAIL: return 0;
    case BF_SAT: *result = (uint64_t)(too_high ? max : min); return 1;
    case BF_WRAP: *result = (uint64_t)exact; return 1; /* the low bits are what gets written */
    }
    return 0;
}

/* Parses the subcommands into ops (all of them before running any, so one bad
 * argument means nothing runs). Returns the op count, or -1 after an error reply.
 * *highest_write is the last bit any SET/INCRBY touches (-1 when read-only). */
static int parseBitfieldOps(client *c, bitfieldOp **ops_out, long long *highest_write) {
    bitfieldOp *ops = NULL;
    int numops = 0;
    enum bitfieldOverflow overflow = BF_WRAP;
    *highest_write = -1;
    for (int j = 2; j < c->argc; j++) {
        int remaining = c->argc - j - 1;
        const char *sub = objectPtr(c->argv[j]);
        bitfieldOp op = {0};
        if (!strcasecmp(sub, "get") && remaining >= 2) {
            op.opcode = BF_GET;
        } else if (!strcasecmp(sub, "set") && remaining >= 3) {
            op.opcode = BF_SET;
        } else if (!strcasecmp(sub, "incrby") && remaining >= 3) {
            op.opcode = BF_INCRBY;
        } else if (!strcasecmp(sub, "overflow") && remaining >= 1) {
            const char *policy = objectPtr(c->argv[++j]);
            if (!strcasecmp(policy, "wrap")) overflow = BF_WRAP;
            else if (!strcasecmp(policy, "sat")) overflow = BF_SAT;
            else if (!strcasecmp(policy, "fail")) overflow = BF_FAIL;
            else {
                addReplyError(c, "Invalid OVERFLOW type specified");
                goto fail;
            }
            continue;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            goto fail;
        }
        if (bitfieldTypeOrReply(c, c->argv[j + 1], &op.is_signed, &op.bits) != C_OK) goto fail;
        if (bitOffsetOrReply(c, c->argv[j + 2], 1, op.bits, &op.offset) != C_OK) goto fail;
        if (op.opcode != BF_GET) {
            long long last = (long long)(op.offset + (uint64_t)op.bits - 1);
            if (last > *highest_write) *highest_write = last;
            if (getLongLongFromObjectOrReply(c, c->argv[j + 3], &op.value, NULL) != C_OK) goto fail;
        }
        op.overflow = overflow;
        ops = zrealloc(ops, sizeof(*ops) * (size_t)(numops + 1));
        ops[numops++] = op;
        j += op.opcode == BF_GET ? 2 : 3;
    }
    *ops_out = ops;
    return numops;
fail:
    zfree(ops);
    return -1;
}

static void bitfieldGeneric(client *c, int readonly_command) {
    bitfieldOp *ops = NULL;
    long long highest_write;
    int numops = parseBitfieldOps(c, &ops, &highest_write);
    if (numops < 0) return;

    robj *o;
    int grew = 0;
    if (highest_write < 0) {
        /* Only GETs: a missing key reads as zeros and is not created. */
        o = lookupKeyRead(c->db, c->argv[1]);
        if (o != NULL && replyIfWrongType(c, o, OBJ_STRING)) goto done;
    } else {
        if (readonly_command) {
            addReplyError(c, "BITFIELD_RO only supports the GET subcommand");
            goto done;
        }
        o = writableBitmapOrReply(c, (uint64_t)highest_write, &grew);
        if (o == NULL) goto done;
    }

    char buf[LONG_STR_SIZE];
    size_t len = 0;
    const unsigned char *p = o ? bitmapBytes(o, buf, &len) : NULL;
    int changes = 0;
    addReplyArrayLen(c, numops);
    for (int j = 0; j < numops; j++) {
        const bitfieldOp *op = &ops[j];
        uint64_t raw = readField(p, len, op->offset, op->bits);
        long long current = op->is_signed ? signExtend(raw, op->bits) : (long long)raw;
        if (op->opcode == BF_GET) {
            addReplyLongLong(c, current);
            continue;
        }
        __int128 exact = op->opcode == BF_SET ? (__int128)op->value : (__int128)current + op->value;
        /* An unsigned SET takes the argument's 64-bit pattern, as Redis does:
         * a negative value is a huge unsigned one. */
        if (op->opcode == BF_SET && !op->is_signed) exact = (__int128)(uint64_t)op->value;
        uint64_t stored;
        if (!fitField(op, exact, &stored)) {
            addReplyNull(c);
            continue;
        }
        writeField((unsigned char *)objectPtr(o), op->offset, op->bits, stored);
        uint64_t mask = op->bits == 64 ? UINT64_MAX : (((uint64_t)1 << op->bits) - 1);
        long long written = op->is_signed ? signExtend(stored & mask, op->bits) : (long long)(stored & mask);
        /* SET answers the old value, INCRBY the new one. */
        addReplyLongLong(c, op->opcode == BF_SET ? current : written);
        if (grew || (uint64_t)written != (uint64_t)current) changes++;
    }
    if (changes) {
        keyChanged(c->db, c->argv[1], NOTIFY_STRING, "setbit", changes); /* Redis counts every changing subcommand */
    }
done:
    zfree(ops);
}

void bitfieldCommand(client *c) { bitfieldGeneric(c, 0); }

void bitfieldRoCommand(client *c) { bitfieldGeneric(c, 1); }
