/* transaction: the per-client MULTI queue (see transaction.c). */
#ifndef SERVER_TRANSACTION_H
#define SERVER_TRANSACTION_H

#include "server/server.h"

void initClientMultiState(client *c);
void freeClientMultiState(client *c);
/* Queues c's command (the queue takes its argv) and notes its flags. */
void queueMultiCommand(client *c);
/* Ends the transaction without running it; transaction-end hooks run (WATCH). */
void discardTransaction(client *c);
void flagTransaction(client *c); /* a queueing error: EXEC will abort */

#endif
