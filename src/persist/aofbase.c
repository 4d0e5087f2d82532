/* aofbase: a key and its value as the commands that rebuild it, for an AOF
 * base written without the RDB preamble (aof-use-rdb-preamble no).
 *
 * Redis 7.0 writes such a base as plain commands (SET, RPUSH, SADD, ZADD,
 * HMSET, XADD/XSETID/XGROUP/XCLAIM, PEXPIREAT), so that the file reads as a
 * log of commands any tool can replay or inspect; the same command per type,
 * the same 64 items per command and the same stream sequence are written
 * here (checked against Debian's redis-server 7.0.15). */
#include "persist/aofbase.h"
#include "server/propagate.h"
#include "data/stream.h"
#include "data/value.h"
#include "core/numparse.h"
#include "core/zmalloc.h"

#include <string.h>

#include <stdint.h>

/* Redis's AOF_REWRITE_ITEMS_PER_CMD: elements (or pairs) per command. */
#define ITEMS_PER_CMD 64

/* One command being built: argv of string objects, written and freed by
 * flushCommand; the array grows as needed (a stream entry may have any
 * number of fields) and is freed by argsFree. */
typedef struct cmdArgs {
    robj **argv;
    int argc, cap;
} cmdArgs;

static void argPush(cmdArgs *a, robj *o) {
    if (a->argc == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 2 + 2 * ITEMS_PER_CMD;
        a->argv = zrealloc(a->argv, sizeof(robj *) * (size_t)a->cap);
    }
    a->argv[a->argc++] = o;
}

static void argsFree(cmdArgs *a) { zfree(a->argv); }

static void argBytes(cmdArgs *a, const void *p, size_t len) { argPush(a, createStringObject(p, len)); }
static void argText(cmdArgs *a, const char *s) { argBytes(a, s, strlen(s)); }
static void argLongLong(cmdArgs *a, long long v) { argPush(a, createStringObjectFromLongLong(v)); }

static void argObject(cmdArgs *a, robj *o) {
    incrRefCount(o);
    argPush(a, o);
}

/* An element as stored: bytes when sval is set, else the integer. */
static void argStored(cmdArgs *a, const unsigned char *sval, size_t slen, long long lval) {
    if (sval) argBytes(a, sval, slen);
    else argLongLong(a, lval);
}

static void argElem(cmdArgs *a, const valueElem *e) { argStored(a, e->sval, e->slen, e->lval); }
static void argLpEntry(cmdArgs *a, const lpEntry *e) { argStored(a, e->sval, e->slen, e->lval); }

static void argDouble(cmdArgs *a, double d) {
    char buf[64];
    argBytes(a, buf, (size_t)d2string(buf, sizeof(buf), d));
}

static void argStreamID(cmdArgs *a, const streamID *id) {
    char buf[STREAM_ID_STR_LEN];
    argBytes(a, buf, (size_t)streamFormatID(buf, id));
}

static sds flushCommand(sds buf, cmdArgs *a) {
    int selected = 0; /* the caller wrote the SELECT: none here */
    buf = catReplayableCommand(buf, &selected, 0, a->argv, a->argc);
    for (int j = 0; j < a->argc; j++) decrRefCount(a->argv[j]);
    a->argc = 0;
    return buf;
}

/* Lists (RPUSH), sets (SADD), sorted sets (ZADD score member), hashes
 * (HMSET field value): 64 elements per command, in the value's own order. */
static sds catCollection(sds buf, robj *key, robj *o) {
    const char *cmd = o->type == OBJ_LIST ? "RPUSH" : o->type == OBJ_SET ? "SADD" : o->type == OBJ_ZSET ? "ZADD" : "HMSET";
    cmdArgs a = {0};
    valueIter it;
    valueItem item;
    int items = 0;
    valueIterInit(&it, o);
    while (valueIterNext(&it, &item)) {
        if (items == 0) {
            argText(&a, cmd);
            argObject(&a, key);
        }
        if (o->type == OBJ_ZSET) argDouble(&a, item.score);
        argElem(&a, &item.ele);
        if (o->type == OBJ_HASH) argElem(&a, &item.val);
        if (++items == ITEMS_PER_CMD) {
            buf = flushCommand(buf, &a);
            items = 0;
        }
    }
    valueIterDone(&it);
    if (items) buf = flushCommand(buf, &a);
    argsFree(&a);
    return buf;
}

/* Entries as one XADD each (an empty stream as an XADD trimmed to nothing,
 * as 7.0 writes it), XSETID for the stream's counters, then each group, its
 * consumers and their pending entries. */
static sds catStream(sds buf, robj *key, stream *s) {
    cmdArgs a = {0};
    if (s->length) {
        streamIterator it;
        streamID id, start = {0, 0}, end = {UINT64_MAX, UINT64_MAX};
        long numfields;
        streamIteratorStart(&it, s, &start, &end, 0);
        while (streamIteratorNext(&it, &id, &numfields)) {
            argText(&a, "XADD");
            argObject(&a, key);
            argStreamID(&a, &id);
            for (long j = 0; j < numfields; j++) {
                lpEntry f, v;
                streamIteratorNextField(&it, &f, &v);
                argLpEntry(&a, &f);
                argLpEntry(&a, &v);
            }
            buf = flushCommand(buf, &a);
        }
        streamIteratorStop(&it);
    } else {
        static const streamID placeholder = {0, 1};
        argText(&a, "XADD");
        argObject(&a, key);
        argText(&a, "MAXLEN");
        argText(&a, "0");
        argStreamID(&a, &placeholder);
        argText(&a, "x");
        argText(&a, "y");
        buf = flushCommand(buf, &a);
    }
    argText(&a, "XSETID");
    argObject(&a, key);
    argStreamID(&a, &s->last_id);
    argText(&a, "ENTRIESADDED");
    argLongLong(&a, (long long)s->entries_added);
    argText(&a, "MAXDELETEDID");
    argStreamID(&a, &s->max_deleted_entry_id);
    buf = flushCommand(buf, &a);

    for (size_t g = 0; g < s->ngroups; g++) {
        streamCG *cg = s->groups[g];
        robj *group = createStringObject(cg->name, sdslen(cg->name));
        argText(&a, "XGROUP");
        argText(&a, "CREATE");
        argObject(&a, key);
        argObject(&a, group);
        argStreamID(&a, &cg->last_id);
        argText(&a, "ENTRIESREAD");
        argLongLong(&a, cg->entries_read);
        buf = flushCommand(buf, &a);
        for (size_t c = 0; c < cg->nconsumers; c++) {
            streamConsumer *consumer = cg->consumers[c];
            if (consumer->pel.len == 0) {
                argText(&a, "XGROUP");
                argText(&a, "CREATECONSUMER");
                argObject(&a, key);
                argObject(&a, group);
                argBytes(&a, consumer->name, sdslen(consumer->name));
                buf = flushCommand(buf, &a);
                continue;
            }
            for (size_t p = 0; p < consumer->pel.len; p++) {
                streamNACK *nack = consumer->pel.vals[p];
                argText(&a, "XCLAIM");
                argObject(&a, key);
                argObject(&a, group);
                argBytes(&a, consumer->name, sdslen(consumer->name));
                argText(&a, "0");
                argStreamID(&a, &consumer->pel.ids[p]);
                argText(&a, "TIME");
                argLongLong(&a, nack->delivery_time);
                argText(&a, "RETRYCOUNT");
                argLongLong(&a, (long long)nack->delivery_count);
                argText(&a, "JUSTID");
                argText(&a, "FORCE");
                buf = flushCommand(buf, &a);
            }
        }
        decrRefCount(group);
    }
    argsFree(&a);
    return buf;
}

sds aofCatKeyCommands(sds buf, robj *key, robj *val, long long expire_ms) {
    cmdArgs a = {0};
    switch (val->type) {
    case OBJ_STRING:
        argText(&a, "SET");
        argObject(&a, key);
        argObject(&a, val);
        buf = flushCommand(buf, &a);
        break;
    case OBJ_STREAM: buf = catStream(buf, key, objectPtr(val)); break;
    default: buf = catCollection(buf, key, val); break;
    }
    if (expire_ms != -1) {
        argText(&a, "PEXPIREAT");
        argObject(&a, key);
        argLongLong(&a, expire_ms);
        buf = flushCommand(buf, &a);
    }
    argsFree(&a);
    return buf;
}
