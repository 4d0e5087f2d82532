/* cmdargs: helpers shared by the command families (see cmdargs.h). */
#include "server/cmdargs.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

int getLongLongFromObjectOrReply(client *c, robj *o, long long *target, const char *msg) {
    if (getLongLongFromObject(o, target) != 0) {
        addReplyError(c, msg ? msg : "value is not an integer or out of range");
        return C_ERR;
    }
    return C_OK;
}

int getRangeLongFromObjectOrReply(client *c, robj *o, long min, long max, long *target,
                                  const char *msg) {
    long long v;
    if (getLongLongFromObjectOrReply(c, o, &v, msg) != C_OK) return C_ERR;
    if (v < min || v > max) {
        if (msg) addReplyError(c, msg);
        else addReplyErrorFormat(c, "value is out of range, value must between %ld and %ld", min, max);
        return C_ERR;
    }
    *target = (long)v;
    return C_OK;
}

int getPositiveLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg) {
    return getRangeLongFromObjectOrReply(c, o, 0, LONG_MAX, target,
                                         msg ? msg : "value is out of range, must be positive");
}

int getLongDoubleFromObjectOrReply(client *c, robj *o, long double *target, const char *msg) {
    if (getLongDoubleFromObject(o, target) != 0) {
        addReplyError(c, msg ? msg : "value is not a valid float");
        return C_ERR;
    }
    return C_OK;
}

int parseRandomCountOrReply(client *c, const char *withopt, long *count, int *with) {
    if (getRangeLongFromObjectOrReply(c, c->argv[2], -LONG_MAX, LONG_MAX, count, NULL) != C_OK) return C_ERR;
    if (c->argc > 4 || (c->argc == 4 && strcasecmp(objectPtr(c->argv[3]), withopt))) {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    *with = c->argc == 4;
    if (*with && (*count < -LONG_MAX / 2 || *count > LONG_MAX / 2)) {
        addReplyError(c, "value is out of range");
        return C_ERR;
    }
    return C_OK;
}

void removeMembersCommand(client *c, int type, int (*del)(robj *o, sds member),
                          unsigned long (*len)(robj *o), int class, const char *event) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (!o || replyIfWrongType(c, o, type)) return;
    long long removed = 0;
    int keyremoved = 0;
    for (int j = 2; j < c->argc; j++) {
        if (!del(o, objectPtr(c->argv[j]))) continue;
        removed++;
        if (len(o) == 0) {
            dbDelete(c->db, c->argv[1]);
            keyremoved = 1;
            break;
        }
    }
    if (removed) {
        /* Redis counts removed members only, not the key's removal. */
        keyChanged(c->db, c->argv[1], class, event, removed);
        if (keyremoved) keyChanged(c->db, c->argv[1], NOTIFY_GENERIC, "del", 0);
    }
    addReplyLongLong(c, removed);
}

int parseMpopCountOrReply(client *c, int from, long *count) {
    *count = -1;
    for (int j = from; j < c->argc; j++) {
        if (*count == -1 && !strcasecmp(objectPtr(c->argv[j]), "count") && j + 1 < c->argc) {
            if (getRangeLongFromObjectOrReply(c, c->argv[++j], 1, LONG_MAX, count, "count should be greater than 0") !=
                C_OK)
                return C_ERR;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    if (*count == -1) *count = 1;
    return C_OK;
}

void propagateAsPexpireat(client *c, robj *key, long long when) {
    robj *whenobj = createStringObjectFromLongLong(when);
    rewriteClientCommandVector(c, 3, shared.pexpireat, key, whenobj);
    decrRefCount(whenobj);
}

void storeResultOrDelete(client *c, robj *dstkey, robj *obj, int class, const char *event, long long count) {
    unsigned long n = valueLength(obj);
    if (n) {
        setKey(c->db, dstkey, obj, 0);
        addReplyLongLong(c, (long long)n);
        keyChanged(c->db, dstkey, class, event, count);
    } else {
        addReply(c, shared.czero);
        if (dbDelete(c->db, dstkey)) keyChanged(c->db, dstkey, NOTIFY_GENERIC, "del", 1);
    }
}

/* ------------------------------------------------------ keys, answered */

robj *lookupKeyReadOrReply(client *c, robj *key, robj *reply) {
    robj *o = lookupKeyRead(c->db, key);
    if (!o) addReply(c, reply);
    return o;
}

robj *lookupKeyWriteOrReply(client *c, robj *key, robj *reply) {
    robj *o = lookupKeyWrite(c->db, key);
    if (!o) addReply(c, reply);
    return o;
}

int replyIfWrongType(client *c, robj *o, int type) {
    if (o && o->type != type) {
        addReplyErrorObject(c, shared.wrongtypeerr);
        return 1;
    }
    return 0;
}
