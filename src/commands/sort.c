/* sort: SORT and SORT_RO of Redis 7.0 over lists, sets and sorted sets.
 *
 * The elements are copied into a vector of string objects, each with its
 * sort key: a double (numeric order, the default) or, with ALPHA, the
 * element itself or the value found through the BY pattern. BY replaces the
 * first '*' of a key pattern with the element ("weight_*", or
 * "h_*->field" for a hash field); a pattern without '*' (e.g. "nosort")
 * means "don't sort", and lists and sorted sets then come out in their own
 * order (sets too, except with STORE or from a script, where the result must
 * not depend on the hash table and ALPHA order is used instead). GET
 * patterns pick what is returned for each element ('#' is the element).
 * STORE writes the result as a list.
 *
 * Values are read through data/value.h, whatever their encoding. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/cmdargs.h"
#include "core/zmalloc.h"
#include "data/value.h"
#include "server/access.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"
#include "server/server.h"

/* One element being sorted. */
typedef struct sortItem {
    robj *obj;     /* the element */
    double score;  /* numeric sort key (0 when the BY key is missing) */
    robj *cmpobj;  /* ALPHA with BY: the BY value, NULL when missing */
} sortItem;

/* How items compare (qsort_r context). */
typedef struct sortOrder {
    int desc;
    int alpha;
    int bypattern;
    int binary; /* STORE: byte order, so the stored list does not depend on the locale */
} sortOrder;

/* ----------------------------------------------------- pattern lookups */

/* The value a BY/GET pattern yields for an element, with a reference the
 * caller releases, or NULL. "#" is the element itself; otherwise the first
 * '*' is replaced by the element to form a key, and a "->field" after the
 * '*' reads that field of a hash. A key that is missing or of the wrong
 * type, a missing field, or a pattern without '*', all yield NULL. The
 * pattern is read as a C string, as Redis does. */
static robj *lookupByPattern(redisDb *db, robj *pattern, robj *elem) {
    const char *pat = objectPtr(pattern);
    size_t patlen = sdslen(objectPtr(pattern));
    if (pat[0] == '#' && pat[1] == '\0') {
        incrRefCount(elem);
        return elem;
    }
    const char *star = strchr(pat, '*');
    if (star == NULL) return NULL;
    const char *arrow = strstr(star + 1, "->");
    size_t fieldlen = 0;
    if (arrow != NULL && arrow[2] != '\0') fieldlen = patlen - (size_t)(arrow - pat) - 2;

    char buf[LONG_STR_SIZE];
    size_t elemlen;
    const char *elembytes = stringObjectView(elem, buf, &elemlen);
    size_t prefixlen = (size_t)(star - pat);
    size_t postfixlen = patlen - prefixlen - 1 - (fieldlen ? fieldlen + 2 : 0);
    sds keyname = sdsnewlen(pat, prefixlen);
    keyname = sdscatlen(keyname, elembytes, elemlen);
    keyname = sdscatlen(keyname, star + 1, postfixlen);
    robj *key = createObject(OBJ_STRING, keyname);
    robj *o = lookupKeyRead(db, key);
    decrRefCount(key);
    if (o == NULL) return NULL;

    if (fieldlen == 0) {
        if (o->type != OBJ_STRING) return NULL;
        incrRefCount(o);
        return o;
    }
    if (o->type != OBJ_HASH) return NULL;
    sds field = sdsnewlen(arrow + 2, fieldlen);
    valueElem value;
    int found = hashGetValue(o, field, &value);
    sdsfree(field);
    return found ? valueElemObject(&value) : NULL;
}

/* -------------------------------------------------- loading elements */

/* Elements first..first+count-1 of a value in its own order, or (lists and
 * sorted sets) counting from the end when reverse: element 0 is the last. */
static void loadRange(robj *o, long first, long count, int reverse, sortItem *out) {
    valueIter it;
    valueItem item;
    long n = 0;
    valueIterInitAt(&it, o, first, reverse);
    while (n < count && valueIterNext(&it, &item)) out[n++].obj = valueElemObject(&item.ele);
    valueIterDone(&it);
}

/* --------------------------------------------------------- sort keys */

/* A numeric sort key as Redis reads it: strtod must consume the whole value
 * (leading spaces, hex and "inf" are fine; NaN and out-of-range are not).
 * Returns 0 when the value cannot be used. */
static int scoreFromObject(robj *o, double *score) {
    if (o->encoding == OBJ_ENCODING_INT) {
        long long v;
        getLongLongFromObject(o, &v);
        *score = (double)v;
        return 1;
    }
    char *end;
    errno = 0;
    *score = strtod(objectPtr(o), &end);
    return end[0] == '\0' && errno != ERANGE && !isnan(*score);
}

/* Fills every item's sort key. Returns 0 if a numeric key was not a number. */
static int computeSortKeys(redisDb *db, sortItem *items, long n, robj *sortby, int alpha) {
    int ok = 1;
    for (long j = 0; j < n; j++) {
        robj *byval = items[j].obj;
        if (sortby) {
            byval = lookupByPattern(db, sortby, items[j].obj);
            if (byval == NULL) continue; /* missing: score 0 / NULL key */
        }
        if (alpha) {
            if (sortby) items[j].cmpobj = getDecodedObject(byval);
        } else if (!scoreFromObject(byval, &items[j].score)) {
            ok = 0;
        }
        if (sortby) decrRefCount(byval);
    }
    return ok;
}

static int compareItems(const void *a, const void *b, void *ctx) {
    const sortItem *x = a, *y = b;
    const sortOrder *order = ctx;
    int cmp;
    if (!order->alpha) {
        if (x->score > y->score) cmp = 1;
        else if (x->score < y->score) cmp = -1;
        else cmp = compareStringObjects(x->obj, y->obj); /* ties: deterministic order */
    } else if (order->bypattern) {
        if (x->cmpobj == NULL || y->cmpobj == NULL) {
            /* A missing BY value sorts first. */
            cmp = x->cmpobj == y->cmpobj ? 0 : (x->cmpobj == NULL ? -1 : 1);
        } else {
            cmp = order->binary ? compareStringObjects(x->cmpobj, y->cmpobj)
                                : collateStringObjects(x->cmpobj, y->cmpobj);
        }
    } else {
        cmp = order->binary ? compareStringObjects(x->obj, y->obj) : collateStringObjects(x->obj, y->obj);
    }
    return order->desc ? -cmp : cmp;
}

/* ------------------------------------------------------------ command */

typedef struct sortOptions {
    int desc, alpha, dontsort;
    long limit_start, limit_count;
    robj *sortby, *storekey;
    robj **gets; /* GET patterns, in order */
    int getcount;
} sortOptions;

/* Parses argv[2..]; C_ERR after replying with the error. */
static int parseSortOptions(client *c, int readonly, sortOptions *opt) {
    for (int j = 2; j < c->argc; j++) {
        const char *arg = objectPtr(c->argv[j]);
        int left = c->argc - j - 1;
        if (!strcasecmp(arg, "asc")) {
            opt->desc = 0;
        } else if (!strcasecmp(arg, "desc")) {
            opt->desc = 1;
        } else if (!strcasecmp(arg, "alpha")) {
            opt->alpha = 1;
        } else if (!strcasecmp(arg, "limit") && left >= 2) {
            if (getRangeLongFromObjectOrReply(c, c->argv[j + 1], LONG_MIN, LONG_MAX, &opt->limit_start, NULL) ||
                getRangeLongFromObjectOrReply(c, c->argv[j + 2], LONG_MIN, LONG_MAX, &opt->limit_count, NULL))
                return C_ERR;
            j += 2;
        } else if (!readonly && !strcasecmp(arg, "store") && left >= 1) {
            opt->storekey = c->argv[++j];
        } else if (!strcasecmp(arg, "by") && left >= 1) {
            opt->sortby = c->argv[++j];
            /* A constant pattern would give every element the same key. */
            opt->dontsort = strchr(objectPtr(opt->sortby), '*') == NULL;
            /* A real pattern reads keys ACL cannot check one by one. */
            if (!opt->dontsort && !accessFullKeyAccess(c)) {
                addReplyError(c, "BY option of SORT denied due to insufficient ACL permissions.");
                return C_ERR;
            }
        } else if (!strcasecmp(arg, "get") && left >= 1) {
            if (!accessFullKeyAccess(c)) {
                addReplyError(c, "GET option of SORT denied due to insufficient ACL permissions.");
                return C_ERR;
            }
            opt->gets[opt->getcount++] = c->argv[++j];
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

/* Replies with (or stores) items [start, end]: each element, or for each
 * element the value of every GET pattern. */
static void emitResult(client *c, const sortOptions *opt, sortItem *items, long start, long end) {
    long count = end - start + 1;
    long outputlen = opt->getcount ? opt->getcount * count : count;
    if (opt->storekey == NULL) {
        addReplyArrayLen(c, outputlen);
        for (long j = start; j <= end; j++) {
            if (opt->getcount == 0) addReplyBulk(c, items[j].obj);
            for (int g = 0; g < opt->getcount; g++) {
                robj *val = lookupByPattern(c->db, opt->gets[g], items[j].obj);
                if (val == NULL) {
                    addReplyNull(c);
                } else {
                    addReplyBulk(c, val);
                    decrRefCount(val);
                }
            }
        }
        return;
    }

    robj *list = createQuicklistObject(server.list_max_listpack_size, server.list_compress_depth);
    for (long j = start; j <= end; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *s;
        if (opt->getcount == 0) {
            s = stringObjectView(items[j].obj, buf, &len);
            vlistPush(list, s, len, 1);
        }
        for (int g = 0; g < opt->getcount; g++) {
            robj *val = lookupByPattern(c->db, opt->gets[g], items[j].obj);
            if (val == NULL) {
                vlistPush(list, "", 0, 1); /* a missing value is stored empty */
                continue;
            }
            s = stringObjectView(val, buf, &len);
            vlistPush(list, s, len, 1);
            decrRefCount(val);
        }
    }
    /* Built as a quicklist (its size is not known ahead), then a listpack
     * if it ended up small, as Redis 7.2 stores it. */
    vlistTryCompact(list, server.list_max_listpack_size, 1);
    if (outputlen > 0) {
        setKey(c->db, opt->storekey, list, 0);
        /* Redis counts one change per stored element. */
        keyChanged(c->db, opt->storekey, NOTIFY_LIST, "sortstore", outputlen);
    } else if (dbDelete(c->db, opt->storekey)) {
        keyChanged(c->db, opt->storekey, NOTIFY_GENERIC, "del", 1);
    }
    decrRefCount(list);
    addReplyLongLong(c, outputlen);
}

static void sortGeneric(client *c, int readonly) {
    sortOptions opt = {.limit_count = -1};
    opt.gets = zmalloc(sizeof(robj *) * (size_t)c->argc);
    if (parseSortOptions(c, readonly, &opt) != C_OK) {
        zfree(opt.gets);
        return;
    }

    robj *sortval = lookupKeyRead(c->db, c->argv[1]);
    if (sortval && sortval->type != OBJ_LIST && sortval->type != OBJ_SET && sortval->type != OBJ_ZSET) {
        addReplyErrorObject(c, shared.wrongtypeerr);
        zfree(opt.gets);
        return;
    }
    /* Hold the value: GET/BY lookups may expire keys, even this one. */
    if (sortval) incrRefCount(sortval);

    /* An unsorted set would come out in hash table order: not acceptable
     * where the result must be reproducible (stored, or inside a script). */
    if (opt.dontsort && sortval && sortval->type == OBJ_SET && (opt.storekey || (c->flags & CLIENT_LUA))) {
        opt.dontsort = 0;
        opt.alpha = 1;
        opt.sortby = NULL;
    }

    long total = sortval ? (long)valueLength(sortval) : 0;
    long start = opt.limit_start < 0 ? 0 : opt.limit_start;
    long end = opt.limit_count < 0 ? total - 1 : start + opt.limit_count - 1;
    if (start >= total) {
        start = total - 1;
        end = total - 2;
    }
    if (end >= total) end = total - 1;

    /* Lists and sorted sets that are not sorted: load just the range, in
     * the container's own order (backwards for DESC). */
    long n = total;
    int ranged = sortval && sortval->type != OBJ_SET && opt.dontsort;
    long first = start;
    if (ranged) {
        n = end >= start ? end - start + 1 : 0;
        start = 0;
        end = n - 1;
    }
    sortItem *items = zcalloc(sizeof(*items) * (size_t)(n > 0 ? n : 1));
    if (ranged) {
        if (n > 0) loadRange(sortval, first, n, opt.desc, items);
    } else if (sortval) {
        loadRange(sortval, 0, total, 0, items);
    }

    int numeric_error = 0;
    if (!opt.dontsort) {
        numeric_error = !computeSortKeys(c->db, items, n, opt.sortby, opt.alpha);
        sortOrder order = {opt.desc, opt.alpha, opt.sortby != NULL, opt.storekey != NULL};
        qsort_r(items, (size_t)n, sizeof(*items), compareItems, &order);
    }

    if (numeric_error) addReplyError(c, "One or more scores can't be converted into double");
    else emitResult(c, &opt, items, start, end);

    for (long j = 0; j < n; j++) {
        decrRefCount(items[j].obj);
        if (items[j].cmpobj) decrRefCount(items[j].cmpobj);
    }
    zfree(items);
    if (sortval) decrRefCount(sortval);
    zfree(opt.gets);
}

void sortCommand(client *c) { sortGeneric(c, 0); }

void sortRoCommand(client *c) { sortGeneric(c, 1); }
