/* shared: objects made once and used everywhere without allocating —
 * protocol fragments replies send as they are (+OK, the common errors, array
 * and bulk headers) and the command names the server writes into the command
 * stream itself (DEL, MULTI, EXEC, ...). Below the reply builders, so the
 * command stream (propagate.c) uses them without reaching up. */
#ifndef SERVER_SHARED_H
#define SERVER_SHARED_H

#include "server/server.h"

struct sharedObjects {
    robj *crlf, *ok, *err, *emptybulk, *czero, *cone, *pong, *space, *queued, *null, *nullarray,
        *emptyarray, *wrongtypeerr, *nokeyerr, *syntaxerr, *sameobjecterr, *outofrangeerr,
        *noscripterr, *loadingerr, *slowevalerr, *slowscripterr, *bgsaveerr, *execaborterr,
        *noautherr, *oomerr, *busykeyerr, *unblockerr, *messagebulk, *pmessagebulk,
        *subscribebulk, *unsubscribebulk, *psubscribebulk, *punsubscribebulk, *ssubscribebulk, *sunsubscribebulk, *del, *unlink,
        *rpop, *lpop, *lpush, *rpush, *rpoplpush, *lmove, *blmove, *zpopmin, *zpopmax,
        *emptyscan, *multi, *exec, *left, *right, *set, *pexpireat, *persist, *keepttl, *pxat,
        *minstring, *maxstring, *select0, *redacted, *null3;
    robj *mbulkhdr[32]; /* "*<n>\r\n" */
    robj *bulkhdr[32];  /* "$<n>\r\n" */
};
extern struct sharedObjects shared;
void createSharedObjects(void);

#endif
