/* db: the keyspace API. Commands read and write keys only through these
 * functions, which apply lazy expiry, keep the expiry index exact and count
 * hits and misses. */
#ifndef SERVER_DB_H
#define SERVER_DB_H

#include "server/server.h"

#define LOOKUP_NONE 0
#define LOOKUP_NOTOUCH (1 << 0)  /* don't update the access time */
#define LOOKUP_NONOTIFY (1 << 1) /* no keymiss event */
#define LOOKUP_NOSTATS (1 << 2)  /* don't count hits/misses */
#define LOOKUP_WRITE (1 << 3)
#define LOOKUP_NOEXPIRE (1 << 4) /* don't delete an expired key (report it missing anyway) */
/* The caller reads none of the value's elements (TYPE, TTL, DUMP, RENAME...):
 * a value RESTOREd unchecked (data/object.h) may be looked up, as Redis
 * answers those on it; only reading its entries stops the server. */
#define LOOKUP_NOENTRIES (1 << 5)

robj *lookupKey(redisDb *db, robj *key, int flags);
/* Called before each command: the last lookup's object is not carried over. */
void dbForgetLastLookup(void);
/* The object at key, without what a lookup does (expiring it, hit and miss
 * counts, access time): for hints only. */
robj *dbPeekValue(redisDb *db, const char *key, size_t len);
robj *lookupKeyRead(redisDb *db, robj *key);
robj *lookupKeyReadWithFlags(redisDb *db, robj *key, int flags);
robj *lookupKeyWrite(redisDb *db, robj *key);
robj *lookupKeyWriteWithFlags(redisDb *db, robj *key, int flags);

/* Storing a value builds the keyspace object (the value with its key, see
 * objectWithKey): these return the object now in the db, which callers that
 * go on using the value must use instead of val. dbAdd and dbOverwrite take
 * the caller's reference to val (val itself may be freed); an aggregate val
 * must not be referenced elsewhere (its payload moves). */
robj *dbAdd(redisDb *db, robj *key, robj *val);
robj *dbOverwrite(redisDb *db, robj *key, robj *val);  /* keeps the TTL */
/* dbAdd of a value complete as it is (a loaded or restored key): a small
 * listpack is stored packed at once rather than after the command. */
robj *dbAddPacked(redisDb *db, robj *key, robj *val);
/* Packs again the keys whose small listpacks this turn's writes unpacked
 * (see db.c): after the turn's commands, when nothing holds their objects. */
void dbPackPending(void);
#define SETKEY_KEEPTTL 1
#define SETKEY_ALREADY_EXIST 4
#define SETKEY_DOESNT_EXIST 8
/* Add or overwrite; removes the TTL unless SETKEY_KEEPTTL. The caller keeps
 * its reference to val: a string is copied, an aggregate's payload moves out
 * (val is then an empty shell to release only). The caller reports the
 * change through keyChanged(). */
robj *setKey(redisDb *db, robj *key, robj *val, int flags);
int dbDelete(redisDb *db, robj *key);       /* 1 if it existed */
int dbSyncDelete(redisDb *db, robj *key);
int dbAsyncDelete(redisDb *db, robj *key);  /* a large value is freed by the lazyfree thread */
/* How a deleted key's object is freed: at once; by the lazyfree thread when
 * its value is large (UNLINK, the lazyfree-lazy-* settings); the same but
 * uncounted in INFO's lazyfree figures, a free Redis makes in place that must
 * not stall the loop (an expired value of a million elements). */
enum { DB_FREE_NOW, DB_FREE_LAZILY, DB_FREE_OFF_LOOP };
/* Deletes key, whose entry in db is de: the entry is found by address, so
 * no other key's object is read on the way. */
void dbDeleteEntry(redisDb *db, robj *key, dictEntry *de, int how);
int dbExists(redisDb *db, robj *key);       /* no expiry check, no stats */
robj *dbRandomKey(redisDb *db);
/* Make the value at key safe to modify in place (unshare / turn embstr raw). */
robj *dbUnshareStringValue(redisDb *db, robj *key, robj *o);
long long emptyData(int dbnum, void (*callback)(dict *));
/* FLUSHALL/FLUSHDB ASYNC: the keys are freed by the lazyfree thread. */
long long emptyDataAsync(int dbnum);
typedef struct dbBackup dbBackup;
/* Every db's data replaced outside any command: WATCH and tracking told, as
 * of a flush. Called while the live dbs hold one side of the replacement and
 * other (NULL: nothing, the data is about to be emptied) the other side. */
void dbAnnounceReplaced(dbBackup *other);
/* Every db's data set aside (the dbs are left empty), then put back — the
 * data loaded meanwhile dropped — or freed. */
dbBackup *dbBackupAll(void);
/* The data dropped goes to the lazy free thread (as Redis 7.0 discards a
 * replica's temporary dbs). */
void dbBackupRestore(dbBackup *b);
void dbBackupDiscard(dbBackup *b);
/* The live dbs and the backup trade places (a replica loading its master's
 * snapshot aside lets clients at the old data between pieces of the load). */
void dbBackupSwap(dbBackup *b);
long long dbTotalServerKeySize(void);
int selectDb(client *c, int id);
int dbSwapDatabases(int id1, int id2);
void initDatabases(void);
/* Cluster mode: db 0's keys in a hash slot — how many; up to max of their
 * names (the keyspace's own, valid until the next write); all dropped as a
 * DEL would (propagated, no keyspace event). 0 outside cluster mode. */
unsigned long dbSlotKeyCount(unsigned slot);
unsigned long dbSlotKeyNames(unsigned slot, sds *out, unsigned long max);
unsigned long dbDeleteSlotKeys(unsigned slot);

/* Expiry. */
long long getExpire(redisDb *db, robj *key);          /* absolute ms, -1 when none */
void setExpire(redisDb *db, robj *key, long long when);
int removeExpire(redisDb *db, robj *key);
int keyIsExpired(redisDb *db, robj *key);
/* Whether expiry (lazy, active) and eviction may remove keys now: on a
 * master, not during CLIENT PAUSE, not while loading. */
int expiryAllowed(void);
/* Lazy expiry: deletes the key when it is due (and expiryAllowed()).
 * Returns 1 when it was expired: the caller sees it missing either way. */
int expireIfNeeded(redisDb *db, robj *key);
/* The same for a lookup made to write (write != 0): a writable replica then deletes the key too. */
int expireIfNeededForWrite(redisDb *db, robj *key, int write);
int checkAlreadyExpired(long long when);
long long dbAverageTtl(redisDb *db); /* ms, for INFO keyspace */


/* Key iteration helpers for KEYS/SCAN/DEBUG. */
dictEntry *dbFindEntry(redisDb *db, const sds key);
robj *dbEntryValue(dictEntry *de);
sds dbEntryKey(const dictEntry *de);
long long dbEntryExpire(redisDb *db, dictEntry *de);

/* The blocked-on keys of db that hold a value, made ready (readykeys.h):
 * every one (SWAPDB: data arrived under them), or those holding a stream,
 * before the data goes (flush, SWAPDB). */
void signalBlockedKeysInDb(redisDb *db);
void signalBlockedStreamsInDb(redisDb *db);

#endif
