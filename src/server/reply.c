/* reply: reply builders for RESP2 and RESP3 (see reply.h). Bytes go to the
 * client's fixed buffer while the reply list is empty, then to 16 KB blocks on
 * the list, so order is kept and small replies never allocate. */
#include "server/reply.h"
#include "server/client.h"
#include "server/clientmem.h"
#include "core/zmalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- buffering */

/* A new block on the reply list: the limits are checked and the client's
 * memory recounted at once, so a client whose output grows while others
 * run (pub/sub, invalidations, MONITOR) is seen by the next eviction. */
static void replyListGrew(client *c, clientReplyBlock *b) {
    c->reply_bytes += b->size;
    checkClientOutputBufferLimits(c);
    updateClientMemUsage(c);
}

static size_t addToBuffer(client *c, const char *s, size_t len) {
    if (listLength(c->reply) > 0) return 0;
    size_t avail = c->buf_usable_size - c->bufpos;
    if (len > avail) len = avail;
    memcpy(c->buf + c->bufpos, s, len);
    c->bufpos += len;
    if (c->buf_peak < (size_t)c->bufpos) c->buf_peak = (size_t)c->bufpos;
    return len;
}

static void addToList(client *c, const char *s, size_t len) {
    listNode *ln = listLast(c->reply);
    clientReplyBlock *tail = ln ? listNodeValue(ln) : NULL;
    if (tail) {
        size_t avail = tail->size - tail->used;
        size_t copy = avail >= len ? len : avail;
        memcpy(tail->buf + tail->used, s, copy);
        tail->used += copy;
        s += copy;
        len -= copy;
    }
    if (len) {
        size_t size = len < PROTO_REPLY_CHUNK_BYTES ? PROTO_REPLY_CHUNK_BYTES : len;
        tail = zmalloc(size + sizeof(clientReplyBlock));
        tail->size = zmalloc_size(tail) - sizeof(clientReplyBlock);
        tail->used = len;
        memcpy(tail->buf, s, len);
        listAddNodeTail(c->reply, tail);
        replyListGrew(c, tail);
    }
}

void addReplyProto(client *c, const char *s, size_t len) {
    if (prepareClientToWrite(c) != C_OK) return;
    size_t done = addToBuffer(c, s, len);
    if (done < len) addToList(c, s + done, len - done);
}

void addReply(client *c, robj *obj) {
    if (c->resp == 3 && (obj == shared.null || obj == shared.nullarray)) obj = shared.null3;
    if (sdsEncodedObject(obj)) {
        addReplyProto(c, objectPtr(obj), sdslen(objectPtr(obj)));
    } else {
        char buf[LONG_STR_SIZE];
        int len = ll2string(buf, sizeof(buf), (long long)(intptr_t)objectPtr(obj));
        addReplyProto(c, buf, len);
    }
}

void addReplySds(client *c, sds s) {
    addReplyProto(c, s, sdslen(s));
    sdsfree(s);
}

/* ----------------------------------------------------------------- scalars */

static void addReplyLongLongWithPrefix(client *c, long long ll, char prefix) {
    if (prefix == '*' && ll >= 0 && ll < 32) {
        addReply(c, shared.mbulkhdr[ll]);
        return;
    }
    if (prefix == '$' && ll >= 0 && ll < 32) {
        addReply(c, shared.bulkhdr[ll]);
        return;
    }
    char buf[128];
    buf[0] = prefix;
    int len = ll2string(buf + 1, sizeof(buf) - 1, ll);
    buf[len + 1] = '\r';
    buf[len + 2] = '\n';
    addReplyProto(c, buf, len + 3);
}

void addReplyLongLong(client *c, long long ll) {
    if (ll == 0) addReply(c, shared.czero);
    else if (ll == 1) addReply(c, shared.cone);
    else addReplyLongLongWithPrefix(c, ll, ':');
}

void addReplyArrayLen(client *c, long length) { addReplyLongLongWithPrefix(c, length, '*'); }
void addReplyMapLen(client *c, long length) {
    if (c->resp == 2) addReplyLongLongWithPrefix(c, length * 2, '*');
    else addReplyLongLongWithPrefix(c, length, '%');
}
void addReplySetLen(client *c, long length) { addReplyLongLongWithPrefix(c, length, c->resp == 2 ? '*' : '~'); }
void addReplyPushLen(client *c, long length) { addReplyLongLongWithPrefix(c, length, c->resp == 2 ? '*' : '>'); }
void addReplyNull(client *c) { addReply(c, shared.null); }
void addReplyNullArray(client *c) { addReply(c, shared.nullarray); }
void addReplyBool(client *c, int b) {
    if (c->resp == 2) addReply(c, b ? shared.cone : shared.czero);
    else addReplyProto(c, b ? "#t\r\n" : "#f\r\n", 4);
}

/* Room for `need` more bytes at the end of the reply as it stands (the static
 * buffer while no block is queued, else the last block), or NULL. Writing a
 * small element in place, then replyCommit, spares the three appends (header,
 * data, CRLF) their separate checks and copies. */
static char *replyRoom(client *c, size_t need) {
    if (listLength(c->reply) == 0)
        return c->buf_usable_size - c->bufpos >= need ? c->buf + c->bufpos : NULL;
    clientReplyBlock *tail = listNodeValue(listLast(c->reply));
    return tail && tail->size - tail->used >= need ? tail->buf + tail->used : NULL;
}

static void replyCommit(client *c, size_t written) {
    if (listLength(c->reply) == 0) {
        c->bufpos += written;
        if (c->buf_peak < (size_t)c->bufpos) c->buf_peak = (size_t)c->bufpos;
    } else ((clientReplyBlock *)listNodeValue(listLast(c->reply)))->used += written;
}

void addReplyBulkCBuffer(client *c, const void *p, size_t len) {
    char *dst;
    if (len <= 4096 && prepareClientToWrite(c) == C_OK &&
        (dst = replyRoom(c, len + LONG_STR_SIZE + 5))) {
        char *w = dst;
        *w++ = '$';
        w += ll2string(w, LONG_STR_SIZE, (long long)len);
        *w++ = '\r';
        *w++ = '\n';
        memcpy(w, p, len);
        w += len;
        *w++ = '\r';
        *w++ = '\n';
        replyCommit(c, (size_t)(w - dst));
        return;
    }
    addReplyLongLongWithPrefix(c, (long long)len, '$');
    addReplyProto(c, p, len);
    addReplyProto(c, "\r\n", 2);
}

void addReplyBulk(client *c, robj *obj) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = stringObjectView(obj, buf, &len);
    addReplyBulkCBuffer(c, p, len);
}

void addReplyBulkCString(client *c, const char *s) {
    if (s == NULL) addReplyNull(c);
    else addReplyBulkCBuffer(c, s, strlen(s));
}

void addReplyBulkSds(client *c, sds s) {
    addReplyBulkCBuffer(c, s, sdslen(s));
    sdsfree(s);
}

void addReplyBulkLongLong(client *c, long long ll) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), ll);
    addReplyBulkCBuffer(c, buf, len);
}

/* A number already formatted: a bulk string in RESP2, a line after `type` in RESP3. */
static void addReplyNumberText(client *c, char type, const char *s, size_t len) {
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, s, len);
        return;
    }
    addReplyProto(c, &type, 1);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

void addReplyDouble(client *c, double d) {
    char buf[128];
    int len = d2string(buf, sizeof(buf), d);
    addReplyNumberText(c, ',', buf, len);
}

void addReplyHumanLongDouble(client *c, long double d) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), d, 1);
    addReplyNumberText(c, ',', buf, len);
}

void addReplyBigNum(client *c, const char *num, size_t len) { addReplyNumberText(c, '(', num, len); }

void addReplyStatusLength(client *c, const char *s, size_t len) {
    addReplyProto(c, "+", 1);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

void addReplyStatus(client *c, const char *status) { addReplyStatusLength(c, status, strlen(status)); }

void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext) {
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, s, len);
        return;
    }
    /* "=<len>\r\n<3-letter format>:<payload>\r\n" */
    char head[48];
    int n = snprintf(head, sizeof(head), "=%zu\r\n%.3s:", len + 4, ext);
    addReplyProto(c, head, n);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

/* ------------------------------------------------------------------ errors */

void incrementErrorCount(const char *fullerr, size_t namelen) {
    if (!server.errors) return;
    sds name = sdsnewlen(fullerr, namelen);
    dictEntry *de = dictFind(server.errors, name);
    if (de) {
        dictSetSignedIntegerVal(de, dictGetSignedIntegerVal(de) + 1);
        sdsfree(name);
    } else {
        de = dictAddRaw(server.errors, name, NULL);
        dictSetSignedIntegerVal(de, 1);
    }
}

/* Counts the error for INFO errorstats and the failing command's failed_calls.
 * An error for our master means its stream and our data diverge: logged
 * loudly, as Redis does, since nobody reads the reply. */
static void afterErrorReply(client *c, const char *s, size_t len) {
    server.stat_total_error_replies++;
    if (c && (c->flags & (CLIENT_MASTER | CLIENT_SLAVE))) {
        const char *msg = len && s[0] == '-' ? s + 1 : s;
        int n = (int)(len && s[0] == '-' ? len - 1 : len);
        int tomaster = c->flags & CLIENT_MASTER;
        serverLog(LL_WARNING,
                  "== CRITICAL == This %s is sending an error to its %s: '%.*s' after processing the command '%s'",
                  tomaster ? "replica" : "master", tomaster ? "master" : "replica", n, msg,
                  c->lastcmd ? c->lastcmd->fullname : "<unknown>");
    }
    if (s[0] != '-') {
        incrementErrorCount("ERR", 3);
    } else {
        const char *space = memchr(s, ' ', len);
        size_t n = space ? (size_t)(space - s - 1) : len - 1;
        if (n > 0 && n < 128) incrementErrorCount(s + 1, n);
    }
}

void countErrorReply(const char *err, size_t len) { afterErrorReply(NULL, err, len); }

static void addErrorLine(client *c, const char *s, size_t len) {
    if (!len || s[0] != '-') addReplyProto(c, "-ERR ", 5);
    /* Errors are one line: replace newlines so the protocol stays intact. */
    char stackbuf[256];
    char *copy = len <= sizeof(stackbuf) ? stackbuf : zmalloc(len);
    memcpy(copy, s, len);
    for (size_t i = 0; i < len; i++)
        if (copy[i] == '\r' || copy[i] == '\n') copy[i] = ' ';
    addReplyProto(c, copy, len);
    addReplyProto(c, "\r\n", 2);
    if (copy != stackbuf) zfree(copy);
}

void addReplyErrorLength(client *c, const char *s, size_t len) {
    addErrorLine(c, s, len);
    afterErrorReply(c, s, len);
}

void addReplyErrorSdsCounted(client *c, sds err) {
    addErrorLine(c, err, sdslen(err));
    sdsfree(err);
    if (c->realcmd) c->realcmd->failed_calls++;
}

void addReplyError(client *c, const char *err) { addReplyErrorLength(c, err, strlen(err)); }

void addReplyErrorSds(client *c, sds err) {
    addReplyErrorLength(c, err, sdslen(err));
    sdsfree(err);
}

void addReplyErrorFormat(client *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds s = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    addReplyErrorSds(c, s);
}

void addReplyErrorObject(client *c, robj *err) {
    addReply(c, err);
    sds s = objectPtr(err);
    afterErrorReply(c, s, sdslen(s) - 2);
}

void addReplyErrorArity(client *c) {
    addReplyErrorFormat(c, "wrong number of arguments for '%s' command", c->cmd->fullname);
}

void addReplyErrorExpireTime(client *c) {
    addReplyErrorFormat(c, "invalid expire time in '%s' command", c->cmd->fullname);
}

void addReplySubcommandSyntaxError(client *c) {
    sds cmd = sdsnew(objectPtr(c->argv[0]));
    sdstoupper(cmd);
    addReplyErrorFormat(c, "unknown subcommand or wrong number of arguments for '%.128s'. Try %s HELP.",
                        (char *)objectPtr(c->argv[1]), cmd);
    sdsfree(cmd);
}

void addReplyHelp(client *c, const char **help) {
    sds cmd = sdsnew(objectPtr(c->argv[0]));
    sdstoupper(cmd);
    long lines = 0;
    while (help[lines]) lines++;
    addReplyArrayLen(c, lines + 3);
    sds head = sdscatprintf(sdsempty(), "%s <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", cmd);
    addReplyStatusLength(c, head, sdslen(head));
    sdsfree(head);
    for (long i = 0; i < lines; i++) addReplyStatus(c, help[i]);
    addReplyStatus(c, "HELP");
    addReplyStatus(c, "    Prints this help.");
    sdsfree(cmd);
}

/* ---------------------------------------------------------- deferred lengths */

void *addReplyDeferredLen(client *c) {
    if (prepareClientToWrite(c) != C_OK) return NULL;
    /* A NULL node marks the spot; later bytes go after it on the list. */
    listAddNodeTail(c->reply, NULL);
    return listLast(c->reply);
}

static void setDeferredReply(client *c, void *node, const char *s, size_t len) {
    listNode *ln = node;
    if (ln == NULL) return;
    clientReplyBlock *b = zmalloc(len + sizeof(clientReplyBlock));
    b->size = zmalloc_size(b) - sizeof(clientReplyBlock);
    b->used = len;
    memcpy(b->buf, s, len);
    ln->value = b;
    replyListGrew(c, b);
}

static void setDeferredAggregateLen(client *c, void *node, long length, char prefix) {
    char buf[32];
    buf[0] = prefix;
    int n = ll2string(buf + 1, sizeof(buf) - 1, length);
    buf[n + 1] = '\r';
    buf[n + 2] = '\n';
    setDeferredReply(c, node, buf, n + 3);
}

void setDeferredArrayLen(client *c, void *node, long length) { setDeferredAggregateLen(c, node, length, '*'); }
void setDeferredMapLen(client *c, void *node, long length) {
    if (c->resp == 2) setDeferredAggregateLen(c, node, length * 2, '*');
    else setDeferredAggregateLen(c, node, length, '%');
}
void setDeferredSetLen(client *c, void *node, long length) {
    setDeferredAggregateLen(c, node, length, c->resp == 2 ? '*' : '~');
}

