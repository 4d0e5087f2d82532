/* aof: the append-only file in Redis 7.0's multi-part layout (a manifest
 * naming a base file and incremental files in appenddirname). */
#ifndef PERSIST_AOF_H
#define PERSIST_AOF_H

#include "core/sds.h"

/* Start-up: with appendonly yes, load the AOF (or create an empty one). */
int aofLoadAtStartup(void);
/* DEBUG LOADAOF: flush, empty the data and load the AOF back; C_ERR when it is off. */
int aofDebugLoad(void);
/* Writes the buffered commands, and fsyncs per appendfsync; before replies go
 * out. A failed write exits under appendfsync always, else is retried here
 * (and by the cron) with the buffer kept. */
void aofFlush(void);
/* The AOF cannot be made durable: the errno of the last failed write or
 * everysec fsync (writes are refused with -MISCONF meanwhile), else 0. */
int aofWriteErrno(void);
void aofCron(void);
/* Stops writing (appendonly no / shutdown), flushing and fsyncing first. */
void aofStop(void);
/* CONFIG SET appendonly yes: write a base of the current data and start appending. */
int aofStart(void);
/* Shutdown: kills a rewrite child and makes the AOF durable. C_ERR while its
 * first rewrite is being written (the data is nowhere on disk yet), unless
 * force ("Writing initial AOF, can't exit"). */
int aofPrepareShutdown(int force);
/* The appendonly directive's apply hook: starts or stops the AOF at run
 * time (at start-up the loader decides). */
int aofApplyConfig(const char **err);
/* aof-disable-auto-gc's apply hook: turned off, the history files kept go. */
int aofApplyAutoGc(const char **err);
int aofRewriteInProgress(void);
sds aofInfo(sds info);
/* Bytes of commands waiting to be written to the AOF (its part of the overhead). */
size_t aofBufferMemory(void);

#endif
