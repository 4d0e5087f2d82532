/* persist: the persistence hooks the server core calls (RDB/AOF live behind them). */
#ifndef PERSIST_PERSIST_H
#define PERSIST_PERSIST_H

#include "core/sds.h"

void persistCron(void);
void persistBeforeSleep(void);
int persistDeniesWrites(void);   /* stop-writes-on-bgsave-error in effect */
int persistOnShutdown(int flags); /* save/flush as configured; C_ERR to refuse shutdown */
int persistLoadAtStartup(void);
/* Appends the "# Persistence" INFO section. */
sds persistInfo(sds info);

#endif
