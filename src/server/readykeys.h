/* readykeys: the keys with clients blocked on them that received data (or,
 * streams, were deleted or overwritten) since they were last served. The
 * keyspace (db.c) marks them as it changes keys; blocking.c serves their
 * clients after the command, from server.ready_keys. Apart from blocking.c
 * so that the keyspace below it never calls up into serving clients. */
#ifndef SERVER_READYKEYS_H
#define SERVER_READYKEYS_H

#include "server/server.h"

/* One entry of server.ready_keys: the key is the blocking table's own object. */
typedef struct readyKey {
    redisDb *db;
    robj *key;
} readyKey;

/* Lists key (the blocking table's own object) as ready once. */
void markKeyReady(redisDb *db, robj *key);
/* key received data, or (a stream) was deleted or overwritten: its blocked
 * clients are looked at after the command. */
void signalKeyAsReady(redisDb *db, robj *key, int type);

#endif
