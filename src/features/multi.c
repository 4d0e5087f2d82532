/* multi: transactions (see multi.h). Queued commands run back to back in
 * EXEC; WATCH marks clients dirty from the key-change hook. */
#include "features/multi.h"
#include "features/scripting.h"
#include "server/access.h"
#include "server/dispatch.h"
#include "server/client.h"
#include "server/db.h"
#include "server/reply.h"
#include "server/propagate.h"
#include "server/transaction.h"
#include "core/zmalloc.h"

typedef struct watchedKey {
    robj *key;
    redisDb *db;
    int expired; /* the key was already logically expired when WATCHed */
} watchedKey;

void multiCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "MULTI calls can not be nested");
        return;
    }
    c->flags |= CLIENT_MULTI;
    addReply(c, shared.ok);
}

void discardCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "DISCARD without MULTI");
        return;
    }
    discardTransaction(c);
    addReply(c, shared.ok);
}

void execCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "EXEC without MULTI");
        return;
    }
    if (isWatchedKeyExpired(c)) c->flags |= CLIENT_DIRTY_CAS;
    if (c->flags & (CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC)) {
        if (c->flags & CLIENT_DIRTY_EXEC) addReplyErrorObject(c, shared.execaborterr);
        else addReplyNullArray(c);
        discardTransaction(c);
        return;
    }
    unwatchAllKeys(c);
    int orig_argc = c->argc, orig_argv_len = c->argv_len;
    robj **orig_argv = c->argv;
    struct redisCommand *orig_cmd = c->cmd;
    addReplyArrayLen(c, c->mstate.count);
    server.in_exec = 1;
    c->flags |= CLIENT_DENY_BLOCKING;
    propagateTransactionStart(c->db->id);
    for (int j = 0; j < c->mstate.count; j++) {
        c->argc = c->mstate.commands[j].argc;
        c->argv = c->mstate.commands[j].argv;
        c->argv_len = c->argc;
        c->cmd = c->realcmd = c->mstate.commands[j].cmd;
        /* Permissions may have changed since the command was queued. */
        int acl_pos, denied = accessCheck(c, c->cmd, c->argv, c->argc, &acl_pos);
        if (denied != ACCESS_OK) {
            accessLogDenial(c, denied, ACCESS_CTX_MULTI, c->cmd, c->argv, acl_pos);
            addReplyErrorFormat(c,
                                "-NOPERM ACLs rules changed between the moment the transaction was accumulated and "
                                "the EXEC call. This command is no longer allowed for the following reason: %s",
                                denied == ACCESS_DENIED_CMD   ? "no permission to execute the command or subcommand"
                                : denied == ACCESS_DENIED_KEY ? "no permission to touch the specified keys"
                                : "no permission to access one of the channels used as arguments");
        } else {
            call(c, CALL_FULL);
        }
        /* call() may have rewritten argv (e.g. relative TTLs): keep the new vector. */
        c->mstate.commands[j].argc = c->argc;
        c->mstate.commands[j].argv = c->argv;
        c->mstate.commands[j].cmd = c->cmd;
        /* MONITOR and SLOWLOG have seen the vector as sent; it is not needed any more. */
        freeClientOriginalArgv(c);
    }
    propagateTransactionEnd(c->db->id);
    c->flags &= ~CLIENT_DENY_BLOCKING;
    server.in_exec = 0;
    c->argv = orig_argv;
    c->argv_len = orig_argv_len;
    c->argc = orig_argc;
    c->cmd = orig_cmd;
    discardTransaction(c);
}

/* ------------------------------------------------------------------- WATCH */

static watchedKey *findWatchedKey(client *c, redisDb *db, robj *key) {
    listIter li;
    listNode *ln;
    listRewind(c->watched_keys, &li);
    while ((ln = listNext(&li))) {
        watchedKey *wk = listNodeValue(ln);
        if (wk->db == db && equalStringObjects(key, wk->key)) return wk;
    }
    return NULL;
}

static long watchedKeyCount; /* (client, key) pairs, over all clients */

static void countWatchedKeys(long delta) {
    int was = watchedKeyCount != 0;
    watchedKeyCount += delta;
    if (was != (watchedKeyCount != 0)) keyspaceSetInterest(multiKeyspaceSubscriber, watchedKeyCount ? KEYSPACE_CHANGES : 0);
}

static void watchForKey(client *c, robj *key) {
    if (findWatchedKey(c, c->db, key)) return;
    list *clients = dictFetchValue(c->db->watched_keys, key);
    if (!clients) {
        clients = listCreate();
        incrRefCount(key);
        dictAdd(c->db->watched_keys, key, clients);
    }
    listAddNodeTail(clients, c);
    watchedKey *wk = zmalloc(sizeof(*wk));
    wk->key = key;
    wk->db = c->db;
    wk->expired = keyIsExpired(c->db, key);
    incrRefCount(key);
    listAddNodeTail(c->watched_keys, wk);
    countWatchedKeys(1);
}

void unwatchAllKeys(client *c) {
    while (listLength(c->watched_keys)) {
        listNode *ln = listFirst(c->watched_keys);
        watchedKey *wk = listNodeValue(ln);
        dictEntry *de = dictFind(wk->db->watched_keys, wk->key);
        if (de) {
            list *clients = dictGetVal(de);
            listNode *cn = listSearchKey(clients, c);
            if (cn) listDelNode(clients, cn);
            if (listLength(clients) == 0) {
                listRelease(clients);
                dictDelete(wk->db->watched_keys, wk->key);
            }
        }
        decrRefCount(wk->key);
        zfree(wk);
        listDelNode(c->watched_keys, ln);
        countWatchedKeys(-1);
    }
}

int isWatchedKeyExpired(client *c) {
    listIter li;
    listNode *ln;
    listRewind(c->watched_keys, &li);
    while ((ln = listNext(&li))) {
        watchedKey *wk = listNodeValue(ln);
        if (wk->expired) continue; /* already expired when watched: not a change */
        if (keyIsExpired(wk->db, wk->key)) return 1;
    }
    return 0;
}

/* A key that was already logically expired when WATCHed was, for the
 * transaction, missing: its removal (by expiry or any delete) changes
 * nothing, and afterwards it is watched as a missing key. Redis 7.0 leaves
 * such a client alone while the stale key stays, too. */
static int staleWatchUnchanged(client *c, redisDb *db, robj *key, int removed) {
    watchedKey *wk = findWatchedKey(c, db, key);
    if (!wk || !wk->expired) return 0;
    if (removed) wk->expired = 0;
    return 1;
}

static void touchWatchedKey(redisDb *db, robj *key, int expired) {
    if (dictSize(db->watched_keys) == 0) return;
    list *clients = dictFetchValue(db->watched_keys, key);
    if (!clients) return;
    int removed = expired || !dbFindEntry(db, objectPtr(key));
    listIter li;
    listNode *ln;
    listRewind(clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (!staleWatchUnchanged(c, db, key, removed)) c->flags |= CLIENT_DIRTY_CAS;
    }
}

/* FLUSHDB/SWAPDB, raised before the change: keys watched in `emptied` are
 * touched if they exist in it or in `replaced_with` — unless a stale key
 * goes and nothing or another stale key takes its place, or a missing key
 * is replaced by a stale one (then watched as stale). */
static void touchAllWatchedKeysInDb(redisDb *emptied, redisDb *replaced_with) {
    if (dictSize(emptied->watched_keys) == 0) return;
    dictIterator *di = dictGetSafeIterator(emptied->watched_keys);
    dictEntry *de;
    while ((de = dictNext(di))) {
        robj *key = dictGetKey(de);
        int exists_in_emptied = dbExists(emptied, key);
        int exists_in_new = replaced_with && dbExists(replaced_with, key);
        if (!exists_in_emptied && !exists_in_new) continue;
        int new_stale = exists_in_new && keyIsExpired(replaced_with, key);
        list *clients = dictGetVal(de);
        listIter li;
        listNode *ln;
        listRewind(clients, &li);
        while ((ln = listNext(&li))) {
            client *c = listNodeValue(ln);
            watchedKey *wk = findWatchedKey(c, emptied, key);
            if (wk && wk->expired) {
                if (!exists_in_new) {
                    wk->expired = 0;
                    continue;
                }
                if (new_stale) continue;
            } else if (wk && !exists_in_emptied && new_stale) {
                wk->expired = 1;
                continue;
            }
            c->flags |= CLIENT_DIRTY_CAS;
        }
    }
    dictReleaseIterator(di);
}

void multiKeyspaceSubscriber(const keyspaceEvent *ev) {
    if (!ev->db || ev->class & (NOTIFY_KEY_MISS | NOTIFY_NEW)) return; /* not changes */
    if (ev->key) touchWatchedKey(ev->db, ev->key, (ev->class & NOTIFY_EXPIRED) != 0);
    else if (ev->event) touchAllWatchedKeysInDb(ev->db, ev->other); /* flushdb, swapdb */
}

void watchCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "WATCH inside MULTI is not allowed");
        return;
    }
    /* Nothing to watch for a transaction that already failed. */
    if (c->flags & CLIENT_DIRTY_CAS) {
        addReply(c, shared.ok);
        return;
    }
    for (int j = 1; j < c->argc; j++) watchForKey(c, c->argv[j]);
    addReply(c, shared.ok);
}

void unwatchCommand(client *c) {
    unwatchAllKeys(c);
    c->flags &= ~CLIENT_DIRTY_CAS;
    addReply(c, shared.ok);
}
