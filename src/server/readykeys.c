/* readykeys: which blocked-on keys received data in this command (see
 * readykeys.h). Only bookkeeping: the keyspace marks keys here as it
 * changes them, and blocking.c serves the clients waiting on them later. */
#include "server/readykeys.h"
#include "core/zmalloc.h"

/* Lists key (the blocking table's own object) as ready once. */
void markKeyReady(redisDb *db, robj *key) {
    if (dictAdd(db->ready_keys, key, NULL) != DICT_OK) return; /* listed already */
    incrRefCount(key);
    readyKey *rk = zmalloc(sizeof(*rk));
    rk->db = db;
    rk->key = key;
    incrRefCount(key);
    listAddNodeTail(server.ready_keys, rk);
}

void signalKeyAsReady(redisDb *db, robj *key, int type) {
    (void)type;
    if (dictSize(db->blocking_keys) == 0) return;
    /* The blocking table's own key object is kept: the caller's may be a
     * temporary, or point into a keyspace entry that is about to go. */
    dictEntry *bde = dictFind(db->blocking_keys, key);
    if (bde) markKeyReady(db, dictGetKey(bde));
}
