/* zsets: what the sorted-set code offers other command families (GEO keys
 * are sorted sets), so they reuse its encodings instead of copying them. */
#ifndef COMMANDS_ZSETS_H
#define COMMANDS_ZSETS_H

#include <stddef.h>

#include "data/skiplist.h"
#include "server/server.h"

void zaddCommand(client *c);

/* 1 and the score when zobj (which may be NULL) holds ele. */
int zsetMemberScore(robj *zobj, sds ele, double *score);

/* Called for each member in a score range, lowest first; returning 0 stops
 * the walk. ele is only valid during the call. */
typedef int zsetVisitFn(const unsigned char *ele, size_t len, double score, void *ctx);
void zsetVisitScoreRange(robj *zobj, const zrangespec *range, zsetVisitFn *visit, void *ctx);

/* Adds ele (which stays the caller's) or updates its score; new results start
 * as createZsetListpackObject() and grow into a skiplist as needed. */
void zsetAddMember(robj *zobj, double score, sds ele);
/* Stores a built result at dstkey raising `event` and replies its size; an
 * empty one deletes dstkey instead (raising "del"), as Redis does. */
void zsetStoreResult(client *c, robj *dstkey, robj *dstobj, const char *event, long long count);

#endif
