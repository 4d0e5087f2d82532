/* rdb: RDB version 10 snapshots as Redis 7.0 writes and reads them, and the
 * DUMP/RESTORE payload formats (keys, and FUNCTION DUMP/RESTORE) built on the
 * same serializer. */
#ifndef PERSIST_RDB_H
#define PERSIST_RDB_H

#include "server/server.h"

#define RDB_VERSION 10

/* rdbLoad flags. MERGE (DEBUG RELOAD MERGE): keys and libraries already
 * present are replaced by the file's instead of failing the load. */
#define RDB_LOAD_MERGE (1 << 0)

/* Replication's place in a snapshot: the aux fields repl-stream-db, repl-id
 * and repl-offset, as Redis 7.0 writes them, so that a restarted replica
 * continues with PSYNC. Replication registers how to fill them when saving
 * (fill returns 0: none to write) and what to do with those of a loaded file. */
typedef struct rdbReplInfo {
    int stream_db;
    char replid[CONFIG_RUN_ID_SIZE + 1];
    long long offset;
} rdbReplInfo;
void rdbSetReplInfoHooks(int (*fill)(rdbReplInfo *rsi), void (*loaded)(const rdbReplInfo *rsi));

/* Saves every db and function library to filename (via a temp file, fsync,
 * rename). aof_base: the file is an AOF base (its "aof-base" aux field). C_OK / C_ERR. */
int rdbSave(const char *filename, int aof_base);
/* The same snapshot written to fd (a pipe: diskless replication), then
 * trailer (the transfer's EOF mark: only a complete snapshot ends with it),
 * and fd closed. exclude: RDB_EXCLUDE_* (REPLCONF rdb-filter-only). */
#define RDB_EXCLUDE_DATA 1
#define RDB_EXCLUDE_FUNCTIONS 2
int rdbSaveToFd(int fd, const char *trailer, size_t trailer_len, int exclude);
/* Removes the temp file ("temp-<pid>.rdb") process pid writes a snapshot to,
 * when it was killed. Async-signal-safe (the second SIGINT's handler uses it). */
void rdbRemoveTempFile(pid_t pid);
/* Loads filename into the (empty) dbs and function registry. C_ERR with a logged reason on a bad file;
 * a missing file is reported through *missing and returns C_ERR too. */
int rdbLoad(const char *filename, int flags, int *missing);
/* rdbLoad serving clients meanwhile (the start-up load, a replica's snapshot
 * from its master): progress() runs each time another
 * loading-process-events-interval-bytes were read (INFO, -LOADING answered
 * from there); *missing says the file is absent (not an error at start-up). */
int rdbLoadServing(const char *filename, void (*progress)(void), int *missing);
/* Loads a snapshot as it arrives on a socket (diskless load): size bytes, or
 * up to its end (-1: an EOF-marked transfer); waits at most timeout_ms for
 * each chunk, and calls progress() as rdbLoadServing does. Bytes read
 * past the snapshot are handed back in *leftover. */
int rdbLoadFromSocket(int fd, long long size, int timeout_ms, void (*progress)(void), sds *leftover);
/* INFO persistence while a load runs: the loading_* fields. */
sds rdbLoadingInfo(sds info);
/* Keys the last successful load found, and how many of them had expired already. */
long long rdbLastLoadKeysLoaded(void);
long long rdbLastLoadKeysExpired(void);
/* Serializes one value as DUMP does: type, value, RDB version, CRC64. */
sds rdbDumpPayload(robj *o);
/* 1 when a DUMP payload has a known RDB version and a matching CRC64. */
int rdbVerifyDumpPayload(const char *p, size_t len);
/* Decodes a verified DUMP payload; NULL when its data is malformed. */
robj *rdbRestorePayload(const char *p, size_t len);
/* FUNCTION DUMP: every library's record as in an RDB file, RDB version, CRC64. */
sds rdbDumpFunctions(void);
/* FUNCTION RESTORE: checks the payload and hands each library's code to
 * create(ctx, code), which returns NULL or an error. NULL, or the first error. */
sds rdbRestoreFunctionsPayload(const char *p, size_t len, sds (*create)(void *ctx, sds code), void *ctx);

/* The start-up load serves clients every loading-process-events-interval-bytes
 * (they get -LOADING but for INFO, CONFIG and the like), as Redis does. */

/* Where the last rdbLoad stopped reading (the end of the RDB part of an AOF
 * with an RDB preamble, which commands may follow). */
size_t rdbLastLoadEnd(void);

#endif
