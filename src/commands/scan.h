/* scan: the one SCAN implementation shared by SCAN, HSCAN, SSCAN and ZSCAN:
 * cursor parsing, MATCH/COUNT/TYPE options, and iteration over the keyspace
 * or any encoding of a hash, set or sorted set. */
#ifndef COMMANDS_SCAN_H
#define COMMANDS_SCAN_H

#include "server/server.h"

int parseScanCursorOrReply(client *c, robj *o, unsigned long *cursor);
/* o NULL scans the client's db; otherwise the hash/set/zset value.
 * Options start at argv[2] for SCAN and argv[3] for the typed variants. */
void scanGenericCommand(client *c, robj *o, unsigned long cursor);

#endif
