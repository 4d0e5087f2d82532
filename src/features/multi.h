/* multi: MULTI/EXEC transactions and optimistic locking with WATCH. */
#ifndef FEATURES_MULTI_H
#define FEATURES_MULTI_H

#include "server/server.h"

void initClientMultiState(client *c);
void execCommand(client *c); /* the pipeline recognises EXEC by its proc */
void freeClientMultiState(client *c);
void queueMultiCommand(client *c);
void discardTransaction(client *c);
void flagTransaction(client *c);  /* a queueing error: EXEC will abort */
void touchWatchedKey(redisDb *db, robj *key);
/* After SWAPDB: keys watched in `db` are touched if they exist in either db. */
void touchAllWatchedKeysInDb(redisDb *emptied, redisDb *replaced_with);
void unwatchAllKeys(client *c);
/* Any WATCHed key that is now logically expired counts as changed (7.0). */
int isWatchedKeyExpired(client *c);

#endif
