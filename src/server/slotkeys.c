/* slotkeys: db 0's keys by slot (slotkeys.h). */
#include "server/slotkeys.h"

#include "core/zmalloc.h"

struct slotKeys {
    dict *slot[CLUSTER_SLOTS];
};

/* Each slot's table is keyed by the object's address, not its name: a
 * pointer hashes in a few instructions where SipHash of the key costs
 * hundreds, and every caller has the object at hand. No destructor: the
 * keyspace owns the objects. */
static const void *itself(const void *o) { return o; }
static dictType slotDictType = {
    .hashFunction = dictPtrHash,
    .itemKey = itself,
};

slotKeys *slotKeysCreate(void) { return zcalloc(sizeof(slotKeys)); }

void slotKeysClear(slotKeys *sk) {
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!sk->slot[j]) continue;
        dictRelease(sk->slot[j]);
        sk->slot[j] = NULL;
    }
}

void slotKeysRelease(slotKeys *sk) {
    if (!sk) return;
    slotKeysClear(sk);
    zfree(sk);
}

static unsigned slotOfObject(const robj *o) {
    sds key = objectKey(o);
    return keyHashSlot(key, sdslen(key));
}

void slotKeysAdd(slotKeys *sk, robj *o) {
    unsigned s = slotOfObject(o);
    if (!sk->slot[s]) sk->slot[s] = dictCreate(&slotDictType);
    dictAddItem(sk->slot[s], o);
}

void slotKeysReplace(slotKeys *sk, robj *old, robj *o) {
    unsigned s = slotOfObject(o);
    if (!sk->slot[s]) return;
    dictDelete(sk->slot[s], old);
    dictAddItem(sk->slot[s], o);
}

void slotKeysRemove(slotKeys *sk, robj *o) {
    unsigned s = slotOfObject(o);
    dict *d = sk->slot[s];
    if (!d) return;
    dictDelete(d, o);
    if (dictSize(d) == 0) {
        dictRelease(d);
        sk->slot[s] = NULL;
    }
}

unsigned long slotKeysCount(const slotKeys *sk, unsigned slot) {
    return slot < CLUSTER_SLOTS && sk->slot[slot] ? dictSize(sk->slot[slot]) : 0;
}

unsigned long slotKeysGet(const slotKeys *sk, unsigned slot, robj **out, unsigned long max) {
    if (slot >= CLUSTER_SLOTS || !sk->slot[slot]) return 0;
    unsigned long n = 0;
    dictIterator it;
    dictInitIterator(&it, sk->slot[slot]);
    dictEntry *de;
    while (n < max && (de = dictNext(&it)) != NULL) out[n++] = (robj *)de;
    dictResetIterator(&it);
    return n;
}
