/* propagate: the single exit for changes that must be replayed (see propagate.h).
 * With no sink installed it costs one branch. Commands whose effect depends on
 * when they ran are turned into absolute forms here, once, so every consumer
 * replays the same data: relative TTLs become PEXPIREAT / SET ... PXAT, and
 * INCRBYFLOAT becomes SET of the resulting value. */
#include "server/propagate.h"
#include "server/db.h"
#include "server/reply.h"
#include "core/zmalloc.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

static void (*sink)(int dbid, robj **argv, int argc);
static int in_transaction; /* MULTI was emitted and not yet closed */
static int pending_multi;  /* a transaction started; MULTI goes out with its first write */

void propagateSetSink(void (*fn)(int dbid, robj **argv, int argc)) { sink = fn; }

static void emit(int dbid, robj **argv, int argc) {
    if (pending_multi) {
        robj *multi = shared.multi;
        sink(dbid, &multi, 1);
        pending_multi = 0;
        in_transaction = 1;
    }
    sink(dbid, argv, argc);
}

/* Absolute ms from a relative amount (unit 1000 for seconds), saturating. */
static robj *absoluteMs(robj *amount, long long unit, long long base) {
    long long v;
    if (getLongLongFromObject(amount, &v) != 0) return NULL;
    if (unit == 1000) v = v > LLONG_MAX / 1000 ? LLONG_MAX : (v < LLONG_MIN / 1000 ? LLONG_MIN : v * 1000);
    if (base > 0 && v > LLONG_MAX - base) v = LLONG_MAX;
    else v += base;
    return createStringObjectFromLongLong(v);
}

static int isCmd(robj *o, const char *name) { return sdsEncodedObject(o) && !strcasecmp(o->ptr, name); }

/* Emits SET/SETEX/PSETEX/EXPIRE*, GETEX and INCRBYFLOAT in absolute form;
 * returns 0 when argv can be replayed as it is. */
static int rewriteForReplay(int dbid, robj **argv, int argc) {
    long long now = commandTimeMs();
    if (isCmd(argv[0], "expire") || isCmd(argv[0], "pexpire") || isCmd(argv[0], "expireat")) {
        long long unit = isCmd(argv[0], "pexpire") ? 1 : 1000;
        robj *when = absoluteMs(argv[2], unit, isCmd(argv[0], "expireat") ? 0 : now);
        if (!when) return 0;
        robj *out[3] = {shared.pexpireat, argv[1], when};
        emit(dbid, out, 3);
        decrRefCount(when);
        return 1;
    }
    if ((isCmd(argv[0], "setex") || isCmd(argv[0], "psetex")) && argc == 4) {
        robj *when = absoluteMs(argv[2], isCmd(argv[0], "setex") ? 1000 : 1, now);
        if (!when) return 0;
        robj *out[5] = {shared.set, argv[1], argv[3], shared.pxat, when};
        emit(dbid, out, 5);
        decrRefCount(when);
        return 1;
    }
    if (isCmd(argv[0], "set") || isCmd(argv[0], "getex")) {
        int getex = isCmd(argv[0], "getex");
        for (int j = getex ? 2 : 3; j < argc - 1; j++) {
            const char *opt = argv[j]->ptr;
            long long unit, base;
            if (!strcasecmp(opt, "ex")) unit = 1000, base = now;
            else if (!strcasecmp(opt, "px")) unit = 1, base = now;
            else if (!strcasecmp(opt, "exat")) unit = 1000, base = 0;
            else if (!strcasecmp(opt, "pxat") && getex) unit = 1, base = 0;
            else continue;
            robj *when = absoluteMs(argv[j + 1], unit, base);
            if (!when) return 0;
            if (getex) {
                robj *out[3] = {shared.pexpireat, argv[1], when};
                emit(dbid, out, 3);
            } else {
                robj **out = zmalloc(sizeof(robj *) * argc);
                memcpy(out, argv, sizeof(robj *) * argc);
                out[j] = shared.pxat;
                out[j + 1] = when;
                emit(dbid, out, argc);
                zfree(out);
            }
            decrRefCount(when);
            return 1;
        }
        if (getex) {
            for (int j = 2; j < argc; j++) {
                if (!strcasecmp(argv[j]->ptr, "persist")) {
                    robj *out[2] = {shared.persist, argv[1]};
                    emit(dbid, out, 2);
                    return 1;
                }
            }
        }
        return 0;
    }
    if (isCmd(argv[0], "incrbyfloat") && argc == 3) {
        /* Floating point may round differently on replay: write the result. */
        robj *val = lookupKeyReadWithFlags(&server.db[dbid], argv[1], LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOSTATS);
        if (!val) return 0;
        robj *out[4] = {shared.set, argv[1], val, shared.keepttl};
        emit(dbid, out, 4);
        return 1;
    }
    return 0;
}

void propagateCommand(int dbid, robj **argv, int argc) {
    if (!sink) return;
    if (rewriteForReplay(dbid, argv, argc)) return;
    emit(dbid, argv, argc);
}

void propagateDeletion(redisDb *db, robj *key) {
    if (!sink) return;
    robj *argv[2] = {shared.del, key};
    emit(db->id, argv, 2);
}

void propagateTransactionStart(int dbid) {
    (void)dbid;
    if (sink) pending_multi = 1;
}

void propagateTransactionEnd(int dbid) {
    pending_multi = 0;
    if (!in_transaction) return;
    in_transaction = 0;
    robj *exec = shared.exec;
    if (sink) sink(dbid, &exec, 1);
}
