/* rdb: RDB version 10 snapshots as Redis 7.0 writes and reads them, and the
 * DUMP/RESTORE payload format built on the same object serializer. */
#ifndef PERSIST_RDB_H
#define PERSIST_RDB_H

#include "server/server.h"

#define RDB_VERSION 10

/* Saves every db to filename (via a temp file, fsync, rename). C_OK / C_ERR. */
int rdbSave(const char *filename);
/* Loads filename into the (empty) dbs. C_ERR with a logged reason on a bad file;
 * a missing file is reported through *missing and returns C_ERR too. */
int rdbLoad(const char *filename, int *missing);
/* Serializes one value as DUMP does: type, value, RDB version, CRC64. */
sds rdbDumpPayload(robj *o);
/* 1 when a DUMP payload has a known RDB version and a matching CRC64. */
int rdbVerifyDumpPayload(const char *p, size_t len);
/* Decodes a verified DUMP payload; NULL when its data is malformed. */
robj *rdbRestorePayload(const char *p, size_t len);

#endif
