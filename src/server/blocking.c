/* blocking: the generic blocked-client machinery (see blocking.h). */
#include "server/blocking.h"
#include "server/readykeys.h"
#include "server/hooks.h"
#include "server/client.h"
#include "server/db.h"
#include "server/reply.h"
#include "core/zmalloc.h"

#include <limits.h>
#include <math.h>


/* Blocked clients with a deadline, earliest first: the timer is armed for the
 * earliest, so every timeout fires on time whatever the mix of deadlines, and
 * a client leaves in O(log n) when served, unblocked or disconnected. */
static ttlHeap *deadlines;
static list *postponed; /* clients whose command waits for a CLIENT PAUSE to end, oldest first */
static long long timeout_timer_id = -1;
static int timing_out; /* the timer pops due clients: it re-arms itself once, after them */
static client *reprocessing;
static robj *reprocessing_key; /* the ready key `reprocessing` is re-run for */

/* A far deadline (or none) is looked at again hourly rather than converted
 * into an overflowing microsecond count. */
#define TIMER_IDLE_MS 3600000LL

static void setDeadlineSlot(void *item, long pos) { ((client *)item)->bpop.deadline_slot = pos + 1; }

/* Arms the timer for the earliest deadline: it fires as that millisecond
 * begins on the wall clock the deadlines are taken from. */
static void armTimeoutTimer(void) {
    long long us = TIMER_IDLE_MS * 1000;
    if (ttlHeapLen(deadlines)) {
        long long when = ttlHeapMinWhen(deadlines), now = ustime();
        if (when - now / 1000 < TIMER_IDLE_MS) us = when * 1000 - now;
    }
    aeRescheduleTimeEventUs(server.el, timeout_timer_id, us);
}

static void addDeadline(client *c, long long when) {
    ttlHeapInsert(deadlines, c, when);
    if (c->bpop.deadline_slot == 1) armTimeoutTimer(); /* the new earliest */
}

static void removeDeadline(client *c) {
    if (!c->bpop.deadline_slot) return;
    int was_earliest = c->bpop.deadline_slot == 1;
    ttlHeapRemove(deadlines, (size_t)(c->bpop.deadline_slot - 1));
    c->bpop.deadline_slot = 0;
    if (was_earliest && !timing_out) armTimeoutTimer();
}

static long long timeoutTimerProc(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    long long now = mstime();
    timing_out = 1;
    while (ttlHeapLen(deadlines) && ttlHeapMinWhen(deadlines) <= now) {
        client *c = ttlHeapMinItem(deadlines);
        removeDeadline(c); /* unblockClient would too; never loop on it */
        unblockClient(c, 1);
    }
    timing_out = 0;
    armTimeoutTimer();
    return AE_RESCHEDULED;
}

void blockingInit(void) {
    deadlines = ttlHeapCreate(setDeadlineSlot);
    server.ready_keys = listCreate();
    server.unblocked_clients = listCreate();
    postponed = listCreate();
    timeout_timer_id = aeCreateTimeEvent(server.el, TIMER_IDLE_MS, timeoutTimerProc, NULL);
}

int blockingIsReprocessing(client *c) { return reprocessing == c; }
robj *blockingReadyKey(client *c) { return reprocessing == c ? reprocessing_key : NULL; }

int getTimeoutFromObjectOrReply(client *c, robj *object, long long *timeout, int unit) {
    long double ftval;
    long long tval;
    if (unit == UNIT_SECONDS) {
        if (getLongDoubleFromObject(object, &ftval) != 0) { /* NaN is refused there; inf passes */
            addReplyError(c, "timeout is not a float or out of range");
            return C_ERR;
        }
        ftval *= 1000.0;
        /* Redis 7.0 converts without a range check, and on x86 every value out
         * of range (inf included) converts to LLONG_MIN: "timeout is negative". */
        if (ftval >= -(long double)LLONG_MIN || ftval < (long double)LLONG_MIN) tval = LLONG_MIN;
        else tval = (long long)ceill(ftval);
    } else {
        if (getLongLongFromObject(object, &tval) != 0) {
            addReplyError(c, "timeout is not an integer or out of range");
            return C_ERR;
        }
    }
    if (tval < 0) {
        addReplyError(c, "timeout is negative");
        return C_ERR;
    }
    if (tval > 0) {
        long long now = commandTimeMs();
        /* A deadline past the clock's range: Redis's sum wraps and the client
         * then never times out, which is what 0 means here. */
        if (tval > LLONG_MAX - now) tval = 0;
        else tval += now;
    }
    *timeout = tval;
    return C_OK;
}

/* Paused and key-blocked clients count alike in INFO (blocked_clients) and show flag b. */
static void markBlocked(client *c, int btype) {
    c->flags |= CLIENT_BLOCKED;
    server.blocked_clients++;
    server.blocked_clients_by_type[btype]++;
}

void blockForKeys(client *c, int btype, robj **keys, int numkeys, long long timeout) {
    if (reprocessing == c) timeout = c->bpop.timeout; /* keep the original deadline */
    c->bpop.timeout = timeout;
    c->bpop.btype = btype;
    c->bpop.unblock_on_nokey = 0;
    if (!c->bpop.keys) c->bpop.keys = dictCreate(&objectKeyDictType);
    for (int j = 0; j < numkeys; j++) {
        if (dictAdd(c->bpop.keys, keys[j], NULL) != DICT_OK) continue;
        incrRefCount(keys[j]);
        list *clients = dictFetchValue(c->db->blocking_keys, keys[j]);
        if (!clients) {
            clients = listCreate();
            dictAdd(c->db->blocking_keys, keys[j], clients);
            incrRefCount(keys[j]);
        }
        listAddNodeTail(clients, c);
    }
    markBlocked(c, btype);
    if (timeout) addDeadline(c, timeout);
}

static void removeFromKeys(client *c) {
    if (!c->bpop.keys) return;
    dictIterator *di = dictGetIterator(c->bpop.keys);
    dictEntry *de;
    while ((de = dictNext(di))) {
        robj *key = dictGetKey(de);
        dictEntry *bde = dictFind(c->db->blocking_keys, key);
        if (!bde) continue;
        list *clients = dictGetVal(bde);
        listNode *ln = listSearchKey(clients, c);
        if (ln) listDelNode(clients, ln);
        if (listLength(clients) == 0) {
            listRelease(clients);
            dictDelete(c->db->blocking_keys, key);
        }
    }
    dictReleaseIterator(di);
    dictEmpty(c->bpop.keys, NULL);
}

static void detachBlocked(client *c) {
    removeFromKeys(c);
    removeDeadline(c);
    if (c->bpop.btype == BLOCKED_POSTPONE) {
        listDelNode(postponed, c->bpop.privdata);
        c->bpop.privdata = NULL;
    }
    c->flags &= ~CLIENT_BLOCKED;
    server.blocked_clients--;
    server.blocked_clients_by_type[c->bpop.btype]--;
}

/* The client can run again: its pipeline resumes from beforeSleep. */
static void queueUnblocked(client *c) {
    if (c->fd != -1 && !c->unblocked_node) {
        listAddNodeTail(server.unblocked_clients, c);
        c->unblocked_node = listLast(server.unblocked_clients);
    }
}

/* Out of every blocking structure, its keys forgotten; returns the owner's
 * unblock function (taken from the client), for the caller to call. */
typedef void unblockFn(client *c, int timed_out);
static unblockFn *releaseBlocked(client *c) {
    detachBlocked(c);
    if (c->bpop.keys) {
        dictRelease(c->bpop.keys);
        c->bpop.keys = NULL;
    }
    unblockFn *unblockfn = c->bpop.unblockfn;
    c->bpop.unblockfn = NULL;
    return unblockfn;
}

void unblockClient(client *c, int reply_timeout) {
    if (!(c->flags & CLIENT_BLOCKED)) return;
    unblockFn *unblockfn = releaseBlocked(c);
    if (!reply_timeout && unblockfn) unblockfn(c, 0); /* let its owner forget it */
    if (reply_timeout) {
        /* WAIT answers how many replicas acknowledged (its unblockfn counts them). */
        if (unblockfn) unblockfn(c, 1);
        else if (c->bpop.btype == BLOCKED_WAIT) addReplyLongLong(c, 0);
        else addReplyNullArray(c);
        /* The blocked command ends here. */
        if (c->cmd) c->cmd->calls++; /* counted like Redis: a timed-out call is a call */
        resetClient(c);
    }
    c->bpop.timeout = 0;
    queueUnblocked(c);
}

int unblockClientByRequest(client *c, int with_error) {
    /* A paused client is not waiting for anything CLIENT UNBLOCK could end
     * (Redis 7.0.15 crashes here; later versions answer 0 too). */
    if (!(c->flags & CLIENT_BLOCKED) || c->bpop.btype == BLOCKED_NONE || c->bpop.btype == BLOCKED_POSTPONE) return 0;
    if (with_error) {
        detachBlocked(c);
        if (c->bpop.keys) {
            dictRelease(c->bpop.keys);
            c->bpop.keys = NULL;
        }
        addReplyErrorObject(c, shared.unblockerr);
        if (c->cmd) {
            /* The blocked command ends here, failed (its stats were left for this moment). */
            c->cmd->calls++;
            c->cmd->failed_calls++;
        }
        resetClient(c);
        c->bpop.timeout = 0;
        queueUnblocked(c);
    } else {
        unblockClient(c, 1);
    }
    return 1;
}

void blockingRedirectClients(void) {
    if (!command_router || !command_router->redirect_blocked || !server.blocked_clients) return;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (!(c->flags & CLIENT_BLOCKED)) continue;
        int btype = c->bpop.btype;
        /* Only a wait on keys can be for a slot served elsewhere now. */
        if (btype != BLOCKED_LIST && btype != BLOCKED_ZSET && btype != BLOCKED_STREAM) continue;
        if (!command_router->redirect_blocked(c)) continue;
        /* Answered with the redirection: the command ends here. */
        unblockFn *unblockfn = releaseBlocked(c);
        if (unblockfn) unblockfn(c, 0);
        if (c->cmd) c->cmd->calls++;
        resetClient(c);
        c->bpop.timeout = 0;
        queueUnblocked(c);
    }
}

static int typeServes(int btype, robj *val) {
    if (!val) return 0;
    if (btype == BLOCKED_LIST) return val->type == OBJ_LIST;
    if (btype == BLOCKED_ZSET) return val->type == OBJ_ZSET;
    if (btype == BLOCKED_STREAM) return val->type == OBJ_STREAM;
    return 0;
}

/* Whether c, blocked on a key now holding val, runs its command again: when
 * val can serve it, or (XREADGROUP) when its stream is gone, which the
 * command then answers with an error, as Redis 7.0 does. */
static int shouldRerun(client *c, robj *val) {
    if (typeServes(c->bpop.btype, val)) return 1;
    return c->bpop.unblock_on_nokey && (!val || val->type != OBJ_STREAM);
}

static void rerunBlockedCommand(client *c, robj *key) {
    long long timeout = c->bpop.timeout;
    detachBlocked(c);
    c->bpop.timeout = timeout;
    reprocessing = c;
    reprocessing_key = key;
    server.current_client = c;
    updateCachedTime();
    dispatchCall(c, CALL_FULL);
    reprocessing = NULL;
    reprocessing_key = NULL;
    server.current_client = NULL;
    if (!(c->flags & CLIENT_BLOCKED)) {
        if (c->bpop.keys) {
            dictRelease(c->bpop.keys);
            c->bpop.keys = NULL;
        }
        c->bpop.timeout = 0;
        resetClient(c);
        queueUnblocked(c);
    }
}

/* Serves clients blocked on keys that received data, oldest first. Commands
 * run from here may make more keys ready, so loop until none is left. */
void handleClientsBlockedOnKeys(void) {
    while (listLength(server.ready_keys)) {
        list *batch = server.ready_keys;
        server.ready_keys = listCreate();
        while (listLength(batch)) {
            listNode *rln = listFirst(batch);
            readyKey *rk = listNodeValue(rln);
            /* From now on a new change of the key lists it again. */
            dictDelete(rk->db->ready_keys, rk->key);
            list *clients = dictFetchValue(rk->db->blocking_keys, rk->key);
            if (clients) {
                /* The clients waiting now, each once: one that blocks again
                 * goes to the tail, past them, and waits for the next signal.
                 * Running a client's command removes no other client. */
                long count = listLength(clients);
                listIter li;
                listNode *ln;
                listRewind(clients, &li);
                while (count-- > 0 && (ln = listNext(&li))) {
                    client *c = listNodeValue(ln);
                    robj *val = lookupKeyReadWithFlags(rk->db, rk->key, LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOSTATS);
                    if (!shouldRerun(c, val)) continue; /* another type's waiter (BLPOP on a stream...) */
                    rerunBlockedCommand(c, rk->key);
                    /* The last waiter gone, the list went with it. */
                    if (dictFetchValue(rk->db->blocking_keys, rk->key) != clients) break;
                }
            }
            decrRefCount(rk->key);
            zfree(rk);
            listDelNode(batch, rln);
        }
        listRelease(batch);
    }
}

void blockPostponeClient(client *c) {
    c->bpop.timeout = 0;
    c->bpop.btype = BLOCKED_POSTPONE;
    listAddNodeTail(postponed, c);
    c->bpop.privdata = listLast(postponed);
    c->flags |= CLIENT_PENDING_COMMAND;
    markBlocked(c, BLOCKED_POSTPONE);
}

void unblockPostponedClients(void) {
    while (listLength(postponed)) unblockClient(listNodeValue(listFirst(postponed)), 0);
}

unsigned long blockedClientsWithTimeout(void) { return ttlHeapLen(deadlines); }

void processUnblockedClients(void) {
    while (listLength(server.unblocked_clients)) {
        listNode *ln = listFirst(server.unblocked_clients);
        client *c = listNodeValue(ln);
        listDelNode(server.unblocked_clients, ln);
        c->unblocked_node = NULL;
        /* A client killed while held (CLIENT KILL, then UNPAUSE) never runs its command. */
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_ASAP)) continue;
        if (c->flags & CLIENT_PENDING_COMMAND) {
            /* The command a pause held goes through every check again, as
             * if it had just arrived: the pause may have been renewed. */
            c->flags &= ~CLIENT_PENDING_COMMAND;
            if (dispatchProcess(c) == C_OK && !(c->flags & CLIENT_BLOCKED)) resetClient(c);
            feedMasterStreamIfDone(c);
        }
        if (!(c->flags & CLIENT_BLOCKED) && c->querybuf && sdslen(c->querybuf) > c->qb_pos) processInputBuffer(c);
    }
}

void blockingClientTeardown(client *c) {
    if (c->flags & CLIENT_BLOCKED) unblockClient(c, 0);
}
