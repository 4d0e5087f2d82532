/* propagate: the command stream (see propagate.h). With no subscriber it
 * costs one branch per write. Commands hand it their replayable form; it
 * only frames transactions and fans out. As in Redis 7.0 a transaction (or
 * script) is framed by MULTI/EXEC only when it wrote twice or more: its
 * first write is held until a second one comes (MULTI, then both) or the
 * transaction ends (that write alone); one that wrote nothing leaves no trace. */
#include "server/propagate.h"
#include "server/shared.h"
#include "core/zmalloc.h"

#include <stdlib.h>
#include <string.h>

#define MAX_STREAM_SUBSCRIBERS 4

static commandStreamFn *subscribers[MAX_STREAM_SUBSCRIBERS];
static int nsubscribers;
static int in_transaction; /* MULTI was emitted and not yet closed */
static int pending_multi;  /* a transaction started; MULTI goes out with its second write */
static int transaction_depth; /* EXEC running a script: the outer one frames */
static robj **held_argv;      /* the transaction's first write, not out yet */
static int held_argc, held_dbid, held_targets;
static int targets = PROPAGATE_ALL; /* where writes fed now go */
static commandStreamFn *replica_feed;
/* The command going out now as the client sent it (propagateCommandAsSent). */
static robj **sent_argv;
static const char *sent_wire;
static size_t sent_wirelen;

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

int propagateSetTargets(int t) {
    int old = targets;
    targets = t;
    return old;
}

/* The replica feed is the replication stream; every other subscriber is the AOF. */
static void fanOut(int dbid, robj **argv, int argc, int to) {
    if (argv != sent_argv) propagateFlushStaged(); /* what was staged goes first */
    for (int i = 0; i < nsubscribers; i++) {
        int kind = subscribers[i] == replica_feed ? PROPAGATE_REPL : PROPAGATE_AOF;
        if (to & kind) subscribers[i](dbid, argv, argc);
    }
}

static void releaseHeld(int send) {
    if (!held_argv) return;
    if (send) fanOut(held_dbid, held_argv, held_argc, held_targets);
    for (int j = 0; j < held_argc; j++) decrRefCount(held_argv[j]);
    zfree(held_argv);
    held_argv = NULL;
}

static void emit(int dbid, robj **argv, int argc) {
    if (!nsubscribers || !targets) return; /* a write going nowhere does not count toward MULTI */
    if (pending_multi) {
        if (!held_argv) {
            held_argv = zmalloc(sizeof(robj *) * argc);
            for (int j = 0; j < argc; j++) {
                held_argv[j] = argv[j];
                incrRefCount(argv[j]);
            }
            held_argc = argc;
            held_dbid = dbid;
            held_targets = targets;
            return;
        }
        robj *multi = shared.multi;
        fanOut(held_dbid, &multi, 1, PROPAGATE_ALL);
        pending_multi = 0;
        in_transaction = 1;
        releaseHeld(1);
    }
    fanOut(dbid, argv, argc, targets);
}

void propagateCommand(int dbid, robj **argv, int argc) {
    /* The outermost unit with nothing held: no second write can follow, so
     * this one goes out alone now instead of being held and released. */
    if (pending_multi && !held_argv && transaction_depth == 1) fanOut(dbid, argv, argc, targets);
    else emit(dbid, argv, argc);
}

void propagateCommandAsSent(int dbid, robj **argv, int argc, const char *wire, size_t wirelen) {
    sent_argv = argv;
    sent_wire = wire;
    sent_wirelen = wirelen;
    propagateCommand(dbid, argv, argc);
    sent_argv = NULL;
}

int propagate_staged;
static void (*staged_flush)(void);

void propagateSetStagedFlush(void (*flush)(void)) { staged_flush = flush; }

void propagateFlushStagedNow(void) {
    propagate_staged = 0;
    if (staged_flush) staged_flush();
}

const char *propagateSentForm(robj **argv, size_t *len) {
    if (argv != sent_argv) return NULL;
    *len = sent_wirelen;
    return sent_wire;
}

/* PUBLISH and the like: to replicas alone, as part of the command's unit. */
void propagateCommandToReplicas(int dbid, robj **argv, int argc) {
    int saved = propagateSetTargets(targets & PROPAGATE_REPL);
    propagateCommand(dbid, argv, argc);
    propagateSetTargets(saved);
}

void forceReplicaPropagation(client *c) { c->flags |= CLIENT_FORCE_REPL; }

void propagateSetReplicaFeed(commandStreamFn *fn) { replica_feed = fn; }
void propagateToReplicas(int dbid, robj **argv, int argc) {
    if (replica_feed) replica_feed(dbid, argv, argc);
}

void alsoPropagate(client *c, robj **argv, int argc) {
    if (c->flags & CLIENT_AOF) return; /* the AOF being loaded is not written again */
    emit(c->db->id, argv, argc);
}

void preventCommandPropagation(client *c) { c->flags |= CLIENT_PREVENT_PROP; }

/* An expired key's DEL is not part of the command that met it: it goes out
 * at once, outside the command's MULTI/EXEC (as 7.0.15 does), unless a
 * transaction already went out framed. */
void propagateDeletion(redisDb *db, robj *key) {
    robj *argv[2] = {shared.del, key};
    if (!nsubscribers) return;
    if (in_transaction) {
        int saved = propagateSetTargets(PROPAGATE_ALL);
        emit(db->id, argv, 2);
        propagateSetTargets(saved);
    } else {
        fanOut(db->id, argv, 2, PROPAGATE_ALL);
    }
}

int propagateActive(void) { return nsubscribers || transaction_depth || held_argv || in_transaction; }

void propagateTransactionStart(int dbid) {
    (void)dbid;
    if (transaction_depth++ > 0) return;
    if (nsubscribers) pending_multi = 1;
}

void propagateTransactionEnd(int dbid) {
    if (transaction_depth > 0 && --transaction_depth > 0) return;
    if (held_argv) releaseHeld(nsubscribers > 0); /* a single write goes out alone */
    pending_multi = 0;
    if (!in_transaction) return;
    in_transaction = 0;
    robj *exec = shared.exec;
    fanOut(dbid, &exec, 1, PROPAGATE_ALL);
}

/* Writes "<prefix><n>\r\n" at w; returns the end. */
static char *writeCountLine(char *w, char prefix, long long n) {
    *w++ = prefix;
    /* Argument counts and most lengths have one or two digits: written
     * directly, they cost a tenth of the general conversion. */
    if (n >= 0 && n < 10) {
        *w++ = (char)('0' + n);
    } else if (n >= 10 && n < 100) {
        *w++ = (char)('0' + n / 10);
        *w++ = (char)('0' + n % 10);
    } else {
        w += ll2string(w, LONG_STR_SIZE, n);
    }
    *w++ = '\r';
    *w++ = '\n';
    return w;
}

/* Every write that replicas or the AOF receive comes through here: the room
 * is made once and the command written in place, no printf, no append per piece. */
sds catReplayableCommand(sds buf, int *selected, int dbid, robj **argv, int argc) {
    char tmp[LONG_STR_SIZE];
    size_t len, need = 2 * (LONG_STR_SIZE + 3) + 32; /* the array header, and a SELECT */
    size_t sentlen;
    const char *sent = propagateSentForm(argv, &sentlen); /* a held copy of argv is framed again */
    if (sent) {
        need += sentlen;
    } else {
        for (int j = 0; j < argc; j++)
            need += LONG_STR_SIZE + 5 + (sdsEncodedObject(argv[j]) ? sdslen(objectPtr(argv[j])) : LONG_STR_SIZE);
    }
    buf = sdsMakeRoomFor(buf, need);
    char *w = buf + sdslen(buf);
    if (dbid != *selected) {
        int n = ll2string(tmp, sizeof(tmp), dbid);
        memcpy(w, "*2\r\n$6\r\nSELECT\r\n", 16);
        w = writeCountLine(w + 16, '$', n);
        memcpy(w, tmp, n);
        w += n;
        *w++ = '\r';
        *w++ = '\n';
        *selected = dbid;
    }
    if (sent) {
        memcpy(w, sent, sentlen);
        w += sentlen;
    } else {
        w = writeCountLine(w, '*', argc);
        for (int j = 0; j < argc; j++) {
            const char *p = stringObjectView(argv[j], tmp, &len);
            w = writeCountLine(w, '$', (long long)len);
            memcpy(w, p, len);
            w += len;
            *w++ = '\r';
            *w++ = '\n';
        }
    }
    *w = '\0'; /* sdsMakeRoomFor left room for it */
    sdssetlen(buf, (size_t)(w - buf));
    return buf;
}
