/* propagate: the single exit for changes that must be replayed (see propagate.h).
 * With no sink installed (appendonly off, no replicas) it costs one branch. */
#include "persist/propagate.h"
#include "server/reply.h"

static void (*sink)(int dbid, robj **argv, int argc);
static int in_transaction; /* MULTI was emitted and not yet closed */
static int pending_multi;  /* a transaction started; MULTI goes out with its first write */

void propagateSetSink(void (*fn)(int dbid, robj **argv, int argc)) { sink = fn; }

void propagateCommand(int dbid, robj **argv, int argc) {
    if (!sink) return;
    if (pending_multi) {
        robj *multi = shared.multi;
        sink(dbid, &multi, 1);
        pending_multi = 0;
        in_transaction = 1;
    }
    sink(dbid, argv, argc);
}

void propagateDeletion(redisDb *db, robj *key) {
    if (!sink) return;
    robj *argv[2] = {shared.del, key};
    propagateCommand(db->id, argv, 2);
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
