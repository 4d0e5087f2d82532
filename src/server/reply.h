/* reply: the one set of reply builders. Every byte a client receives goes
 * through these; they buffer into the client and schedule the write. Each
 * builder speaks the client's protocol (c->resp): RESP2, or RESP3 with its
 * own null, map, set, double, boolean, big number, verbatim and push types. */
#ifndef SERVER_REPLY_H
#define SERVER_REPLY_H

#include <stddef.h>
#include "server/server.h"
#include "server/shared.h"


/* obj holds raw protocol, or a string to send as is. shared.null and
 * shared.nullarray become RESP3's null for a RESP3 client. */
void addReply(client *c, robj *obj);
void addReplyProto(client *c, const char *s, size_t len);
void addReplySds(client *c, sds s);             /* raw protocol; takes ownership */
void addReplyBulk(client *c, robj *obj);
void addReplyBulkCBuffer(client *c, const void *p, size_t len);
void addReplyBulkCString(client *c, const char *s); /* NULL → null bulk */
void addReplyBulkSds(client *c, sds s);         /* takes ownership */
void addReplyBulkLongLong(client *c, long long ll);
void addReplyLongLong(client *c, long long ll);
void addReplyDouble(client *c, double d);       /* RESP2: bulk "%.17g"; RESP3: ',' double */
void addReplyHumanLongDouble(client *c, long double d); /* RESP2: bulk; RESP3: ',' double */
void addReplyBigNum(client *c, const char *num, size_t len); /* RESP2: bulk; RESP3: '(' */
void addReplyNull(client *c);                   /* RESP2: $-1; RESP3: _ */
void addReplyNullArray(client *c);              /* RESP2: *-1; RESP3: _ */
void addReplyArrayLen(client *c, long length);
void addReplyMapLen(client *c, long length);    /* RESP2: array of 2*length; RESP3: '%' */
void addReplySetLen(client *c, long length);    /* RESP2: array; RESP3: '~' */
void addReplyPushLen(client *c, long length);   /* RESP2: array; RESP3: '>' (out-of-band push) */
void addReplyBool(client *c, int b);            /* RESP2: :1 / :0; RESP3: #t / #f */
void addReplyStatus(client *c, const char *status);
void addReplyStatusLength(client *c, const char *s, size_t len);
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext); /* RESP2: bulk; RESP3: '=' */
/* Errors: "-ERR " is prepended to msg unless msg starts with '-' and carries its
 * own code ("-WRONGTYPE ..."). Newlines in msg are turned into spaces. */
void addReplyError(client *c, const char *err);
void addReplyErrorLength(client *c, const char *err, size_t len);
void addReplyErrorFormat(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void addReplyErrorSds(client *c, sds err);     /* takes ownership */
/* An error already counted (INFO errorstats, total_error_replies) where it
 * arose — a script passing on the error of a command it called: sent without
 * counting it again; the command replying it still counts as failed. */
void addReplyErrorSdsCounted(client *c, sds err);
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
/* An error counted as if replied (INFO errorstats, total_error_replies), for
 * one that is handed on instead: a command a script wanted was refused. */
void countErrorReply(const char *err, size_t len);
/* Errors counted for INFO errorstats. */
void incrementErrorCount(const char *fullerr, size_t namelen);

#endif
