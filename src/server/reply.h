/* reply: the one set of RESP2 reply builders. Every byte a client receives
 * goes through these; they buffer into the client and schedule the write. */
#ifndef SERVER_REPLY_H
#define SERVER_REPLY_H

#include <stddef.h>
#include "server/server.h"

struct sharedObjects {
    robj *crlf, *ok, *err, *emptybulk, *czero, *cone, *pong, *space, *queued, *null, *nullarray,
        *emptyarray, *wrongtypeerr, *nokeyerr, *syntaxerr, *sameobjecterr, *outofrangeerr,
        *noscripterr, *loadingerr, *slowevalerr, *slowscripterr, *bgsaveerr, *execaborterr,
        *noautherr, *oomerr, *busykeyerr, *unblockerr, *messagebulk, *pmessagebulk,
        *subscribebulk, *unsubscribebulk, *psubscribebulk, *punsubscribebulk, *del, *unlink,
        *rpop, *lpop, *lpush, *rpush, *rpoplpush, *lmove, *blmove, *zpopmin, *zpopmax,
        *emptyscan, *multi, *exec, *left, *right, *set, *pexpireat, *persist, *keepttl, *pxat,
        *minstring, *maxstring, *select0;
    robj *mbulkhdr[32]; /* "*<n>\r\n" */
    robj *bulkhdr[32];  /* "$<n>\r\n" */
};
extern struct sharedObjects shared;
void createSharedObjects(void);

void addReply(client *c, robj *obj);            /* obj holds raw protocol, or a string to send as is */
void addReplyProto(client *c, const char *s, size_t len);
void addReplySds(client *c, sds s);             /* raw protocol; takes ownership */
void addReplyBulk(client *c, robj *obj);
void addReplyBulkCBuffer(client *c, const void *p, size_t len);
void addReplyBulkCString(client *c, const char *s); /* NULL → null bulk */
void addReplyBulkSds(client *c, sds s);         /* takes ownership */
void addReplyBulkLongLong(client *c, long long ll);
void addReplyLongLong(client *c, long long ll);
void addReplyDouble(client *c, double d);       /* bulk string as Redis prints doubles */
void addReplyHumanLongDouble(client *c, long double d);
void addReplyNull(client *c);                   /* $-1 */
void addReplyNullArray(client *c);              /* *-1 */
void addReplyArrayLen(client *c, long length);
void addReplyMapLen(client *c, long length);    /* RESP2: array of 2*length */
void addReplySetLen(client *c, long length);
void addReplyBool(client *c, int b);            /* RESP2: :1 / :0 */
void addReplyStatus(client *c, const char *status);
void addReplyStatusLength(client *c, const char *s, size_t len);
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext); /* RESP2: bulk */
/* Errors: "-ERR " is prepended to msg unless msg starts with '-' and carries its
 * own code ("-WRONGTYPE ..."). Newlines in msg are turned into spaces. */
void addReplyError(client *c, const char *err);
void addReplyErrorLength(client *c, const char *err, size_t len);
void addReplyErrorFormat(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void addReplyErrorSds(client *c, sds err);     /* takes ownership */
void addReplyErrorObject(client *c, robj *err); /* shared "-CODE ...\r\n" objects */
void addReplyErrorArity(client *c);
void addReplyErrorExpireTime(client *c);
void addReplySubcommandSyntaxError(client *c);
void addReplyHelp(client *c, const char **help);
/* Deferred lengths: reserve now, fill once the element count is known. */
void *addReplyDeferredLen(client *c);
void setDeferredArrayLen(client *c, void *node, long length);
void setDeferredMapLen(client *c, void *node, long length);
void setDeferredSetLen(client *c, void *node, long length);
/* Copy all pending reply bytes of src to dst (used by EXEC-like paths and scripts). */
void copyReplicaOutputBuffer(client *dst, client *src);
/* Errors counted for INFO errorstats. */
void incrementErrorCount(const char *fullerr, size_t namelen);

#endif
