/* slotkeys: in cluster mode, db 0's keys by hash slot, so that a slot's keys
 * can be counted, listed and dropped (CLUSTER COUNTKEYSINSLOT,
 * GETKEYSINSLOT, a lost slot) without a scan of the keyspace. One item-mode
 * dict per slot that holds keys, made on the slot's first key: it stores the
 * keyspace's own objects (no copy of a key), keyed by their address, 8-16
 * bytes a key.
 * db.c keeps it exact; nothing else writes it. */
#ifndef SERVER_SLOTKEYS_H
#define SERVER_SLOTKEYS_H

#include "core/crc16.h"
#include "core/dict.h"
#include "data/object.h"

typedef struct slotKeys slotKeys;

slotKeys *slotKeysCreate(void);
void slotKeysRelease(slotKeys *sk);
void slotKeysAdd(slotKeys *sk, robj *o);             /* o: a keyspace object (holds its key) */
void slotKeysReplace(slotKeys *sk, robj *old, robj *o); /* o, with old's key, takes its place */
void slotKeysRemove(slotKeys *sk, robj *o);
void slotKeysClear(slotKeys *sk);
unsigned long slotKeysCount(const slotKeys *sk, unsigned slot);
/* Up to max objects of slot into out; returns how many (valid until the next write). */
unsigned long slotKeysGet(const slotKeys *sk, unsigned slot, robj **out, unsigned long max);

#endif
