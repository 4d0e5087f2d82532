/* aofbase: a key and its value as the commands that rebuild it (SET, RPUSH,
 * SADD, ZADD, HMSET, the stream commands, PEXPIREAT), as Redis 7.0 writes an
 * AOF base without the RDB preamble. */
#ifndef PERSIST_AOFBASE_H
#define PERSIST_AOFBASE_H

#include "core/sds.h"
#include "data/object.h"

/* Appends to buf the commands that rebuild key with val (no SELECT), then a
 * PEXPIREAT unless expire_ms is -1. Returns the grown buf. */
sds aofCatKeyCommands(sds buf, robj *key, robj *val, long long expire_ms);

#endif
