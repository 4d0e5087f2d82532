/* propagate: the command stream (see propagate.h). With no subscriber it
 * costs one branch per write. Commands hand it their replayable form; it
 * only frames transactions (MULTI goes out with the first write of one, so
 * a transaction that wrote nothing leaves no trace) and fans out. */
#include "server/propagate.h"
#include "server/reply.h"

#include <stdlib.h>

#define MAX_STREAM_SUBSCRIBERS 4

static commandStreamFn *subscribers[MAX_STREAM_SUBSCRIBERS];
static int nsubscribers;
static int in_transaction; /* MULTI was emitted and not yet closed */
static int pending_multi;  /* a transaction started; MULTI goes out with its first write */

void propagateSubscribe(commandStreamFn *fn) {
    for (int i = 0; i < nsubscribers; i++)
        if (subscribers[i] == fn) return;
    if (nsubscribers == MAX_STREAM_SUBSCRIBERS) {
        serverLog(LL_WARNING, "Too many command stream subscribers");
        abort();
    }
    subscribers[nsubscribers++] = fn;
}

void propagateUnsubscribe(commandStreamFn *fn) {
    for (int i = 0; i < nsubscribers; i++) {
        if (subscribers[i] != fn) continue;
        subscribers[i] = subscribers[--nsubscribers];
        return;
    }
}

static void fanOut(int dbid, robj **argv, int argc) {
    for (int i = 0; i < nsubscribers; i++) subscribers[i](dbid, argv, argc);
}

static void emit(int dbid, robj **argv, int argc) {
    if (!nsubscribers) return;
    if (pending_multi) {
        robj *multi = shared.multi;
        fanOut(dbid, &multi, 1);
        pending_multi = 0;
        in_transaction = 1;
    }
    fanOut(dbid, argv, argc);
}

void propagateCommand(int dbid, robj **argv, int argc) { emit(dbid, argv, argc); }

static commandStreamFn *replica_feed;
void propagateSetReplicaFeed(commandStreamFn *fn) { replica_feed = fn; }
void propagateToReplicas(int dbid, robj **argv, int argc) {
    if (replica_feed) replica_feed(dbid, argv, argc);
}

void alsoPropagate(client *c, robj **argv, int argc) {
    if (c->flags & CLIENT_AOF) return; /* the AOF being loaded is not written again */
    emit(c->db->id, argv, argc);
}

void preventCommandPropagation(client *c) { c->flags |= CLIENT_PREVENT_PROP; }

void propagateDeletion(redisDb *db, robj *key) {
    robj *argv[2] = {shared.del, key};
    emit(db->id, argv, 2);
}

void propagateTransactionStart(int dbid) {
    (void)dbid;
    if (nsubscribers) pending_multi = 1;
}

void propagateTransactionEnd(int dbid) {
    pending_multi = 0;
    if (!in_transaction) return;
    in_transaction = 0;
    robj *exec = shared.exec;
    fanOut(dbid, &exec, 1);
}

sds catReplayableCommand(sds buf, int *selected, int dbid, robj **argv, int argc) {
    char tmp[LONG_STR_SIZE];
    size_t len;
    if (dbid != *selected) {
        int n = ll2string(tmp, sizeof(tmp), dbid);
        buf = sdscatprintf(buf, "*2\r\n$6\r\nSELECT\r\n$%d\r\n%s\r\n", n, tmp);
        *selected = dbid;
    }
    buf = sdscatprintf(buf, "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) {
        const char *p = stringObjectView(argv[j], tmp, &len);
        buf = sdscatprintf(buf, "$%zu\r\n", len);
        buf = sdscatlen(buf, p, len);
        buf = sdscatlen(buf, "\r\n", 2);
    }
    return buf;
}
