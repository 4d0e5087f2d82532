/* multi: MULTI/EXEC transactions and optimistic locking with WATCH. */
#ifndef FEATURES_MULTI_H
#define FEATURES_MULTI_H

#include "server/keyhook.h"
#include "server/server.h"

/* Subscribed to the key-change hook: invalidates the WATCHers of what changed. */
void multiKeyspaceSubscriber(const keyspaceEvent *ev); /* wants every change while a key is WATCHed */
void unwatchAllKeys(client *c); /* subscribed to the end of a transaction */
/* Any WATCHed key that is now logically expired counts as changed (7.0). */
int isWatchedKeyExpired(client *c);

#endif
