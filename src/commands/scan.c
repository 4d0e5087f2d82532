/* scan: cursor-based iteration (see scan.h). Hash tables are walked with
 * dictScan's reverse-binary cursor, which returns every element present for
 * the whole scan at least once even across rehashing; compact encodings are
 * small by definition and come back whole with cursor 0, as in Redis. */
#include "commands/scan.h"
#include "server/db.h"
#include "server/reply.h"
#include "core/glob.h"
#include "core/numparse.h"
#include "data/value.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

int parseScanCursorOrReply(client *c, robj *o, unsigned long *cursor) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = stringObjectView(o, buf, &len);
    char tmp[32];
    if (len == 0 || len >= sizeof(tmp)) goto err;
    memcpy(tmp, p, len);
    tmp[len] = '\0';
    /* Like strtoul: a leading '-' wraps around, as Redis accepts "-1". */
    errno = 0;
    char *eptr;
    unsigned long v = strtoul(tmp, &eptr, 10);
    if (isspace((unsigned char)tmp[0]) || eptr[0] != '\0' || errno == ERANGE) goto err;
    *cursor = v;
    return C_OK;
err:
    addReplyError(c, "invalid cursor");
    return C_ERR;
}

typedef struct scanData {
    list *keys;     /* robj* collected (keys, or field/value pairs) */
    long elements;  /* keys, members or pairs: what COUNT counts */
} scanData;

static void scanKeyCallback(void *privdata, const dictEntry *de) {
    scanData *sd = privdata;
    sds key = dbEntryKey(de);
    listAddNodeTail(sd->keys, createStringObject(key, sdslen(key)));
    sd->elements++;
}

static void scanElementCallback(void *privdata, const valueElem *ele, const valueElem *val) {
    scanData *sd = privdata;
    listAddNodeTail(sd->keys, valueElemObject(ele));
    if (val) listAddNodeTail(sd->keys, valueElemObject(val));
    sd->elements++;
}

static int typeNameMatches(robj *val, const char *typename) { return !strcasecmp(strType(val->type), typename); }

void scanGenericCommand(client *c, robj *o, unsigned long cursor) {
    int i = o == NULL ? 2 : 3;
    long count = 10;
    sds pat = NULL;
    const char *typename = NULL;
    for (; i < c->argc; i += 2) {
        const char *opt = objectPtr(c->argv[i]);
        int more = c->argc - i - 1;
        if (!strcasecmp(opt, "count") && more >= 1) {
            long long v;
            if (getLongLongFromObject(c->argv[i + 1], &v) != 0) {
                addReplyError(c, "value is not an integer or out of range");
                return;
            }
            if (v < 1) {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
            count = v > 1000000000 ? 1000000000 : (long)v;
        } else if (!strcasecmp(opt, "match") && more >= 1) {
            pat = objectPtr(c->argv[i + 1]);
        } else if (!strcasecmp(opt, "type") && o == NULL && more >= 1) {
            typename = objectPtr(c->argv[i + 1]);
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    int use_pattern = pat && !(pat[0] == '*' && pat[1] == '\0');
    scanData sd = {listCreate(), 0};
    /* Bounded work per call even when most buckets are empty; compact
     * encodings come back whole with cursor 0. */
    long maxiterations = count * 10;
    do {
        if (o == NULL) cursor = dictScan(c->db->dict, cursor, scanKeyCallback, &sd);
        else cursor = valueScan(o, cursor, scanElementCallback, &sd);
    } while (cursor && maxiterations-- && sd.elements < count);

    /* Filter: MATCH on keys/fields/members (dropping their values too), TYPE, expired keys. */
    int pairs = o && (o->type == OBJ_HASH || o->type == OBJ_ZSET);
    listNode *ln = listFirst(sd.keys);
    while (ln) {
        robj *kobj = listNodeValue(ln);
        listNode *next = ln->next;
        int drop = 0;
        if (use_pattern) {
            char buf[LONG_STR_SIZE];
            size_t len;
            const char *p = stringObjectView(kobj, buf, &len);
            if (!stringmatchlen(pat, sdslen(pat), p, (int)len, 0)) drop = 1;
        }
        if (!drop && o == NULL && typename) {
            dictEntry *de = dbFindEntry(c->db, objectPtr(kobj));
            if (!de || !typeNameMatches(dbEntryValue(de), typename)) drop = 1;
        }
        if (!drop && o == NULL && expireIfNeeded(c->db, kobj)) drop = 1;
        if (drop) {
            decrRefCount(kobj);
            listDelNode(sd.keys, ln);
        }
        if (pairs) {
            listNode *val = next;
            next = val ? val->next : NULL;
            if (drop && val) {
                decrRefCount(listNodeValue(val));
                listDelNode(sd.keys, val);
            }
        }
        ln = next;
    }

    addReplyArrayLen(c, 2);
    char cbuf[32];
    int clen = ull2string(cbuf, sizeof(cbuf), cursor);
    addReplyBulkCBuffer(c, cbuf, clen);
    addReplyArrayLen(c, listLength(sd.keys));
    while ((ln = listFirst(sd.keys))) {
        robj *kobj = listNodeValue(ln);
        addReplyBulk(c, kobj);
        decrRefCount(kobj);
        listDelNode(sd.keys, ln);
    }
    listRelease(sd.keys);
}

void scanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[1], &cursor) == C_ERR) return;
    scanGenericCommand(c, NULL, cursor);
}
