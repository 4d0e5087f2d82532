/* cmdargs: pieces several command families (and repl/'s REPLCONF, WAIT,
 * FAILOVER) share, so they behave alike — in server/, below every room that
 * parses arguments:
 * number arguments parsed or answered with Redis 7.0's exact error texts
 * (each returns C_OK, or replies with the error and returns C_ERR), and the
 * variadic member removal of HDEL / SREM / ZREM, storing computed results,
 * and the configured encoding limits handed to the data/ value types. */
#ifndef SERVER_CMDARGS_H
#define SERVER_CMDARGS_H

#include "server/server.h"

/* msg NULL: "value is not an integer or out of range". */
int getLongLongFromObjectOrReply(client *c, robj *o, long long *target, const char *msg);
/* A long in [min, max]. msg replaces both the parse and the range error;
 * NULL gives "value is out of range, value must between <min> and <max>". */
int getRangeLongFromObjectOrReply(client *c, robj *o, long min, long max, long *target,
                                  const char *msg);
/* [0, LONG_MAX]; msg NULL: "value is out of range, must be positive". */
int getPositiveLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg);
/* msg NULL: "value is not a valid float" (NaN is refused, infinities are not). */
int getLongDoubleFromObjectOrReply(client *c, robj *o, long double *target, const char *msg);

/* HRANDFIELD / ZRANDMEMBER key count [<withopt>]: the count (any sign but
 * LONG_MIN) and whether withopt (e.g. "withvalues") was given; with it the
 * count is limited to +-LONG_MAX/2, as the reply holds twice as many items. */
/* The optional trailing "COUNT n" of LMPOP/ZMPOP and their blocking forms,
 * from argv[from] on; *count is 1 when absent. */
int parseMpopCountOrReply(client *c, int from, long *count);
int parseRandomCountOrReply(client *c, const char *withopt, long *count, int *with);

/* Removes the members named by argv[2..] from the value at argv[1] (of
 * `type`) with del(o, member), 1 when it was there, and deletes the key as
 * soon as len(o) is 0. When something was removed raises `event` (of
 * `class`), then "del" if the key went. Replies with the number removed. */
void removeMembersCommand(client *c, int type, int (*del)(robj *o, sds member),
                          unsigned long (*len)(robj *o), int class, const char *event);

/* EXPIRE/GETEX with a relative or seconds TTL: replayed as PEXPIREAT key
 * <when>, the deadline it set, whenever the replay runs (a deadline in the
 * past removes the key on replay too). */
void propagateAsPexpireat(client *c, robj *key, long long when);

/* Stores a computed aggregate at dstkey raising `event` (of `class`, worth
 * `count` writes) and replies its size; an empty one deletes dstkey instead
 * (raising "del"), as Redis does. The caller keeps its reference to obj. */
void storeResultOrDelete(client *c, robj *dstkey, robj *obj, int class, const char *event, long long count);

/* Key lookups that answer for the command (in server/'s dispatch layer, above
 * the keyspace, which never replies). */
/* Reply with `reply` (and return NULL) when the key is missing. */
robj *lookupKeyReadOrReply(client *c, robj *key, robj *reply);
robj *lookupKeyWriteOrReply(client *c, robj *key, robj *reply);
/* When o exists and is not of `type`: replies WRONGTYPE and returns 1 (the
 * command stops). 0 when o is missing or of the type. */
int replyIfWrongType(client *c, robj *o, int type);

#endif
