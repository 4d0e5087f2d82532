/* geo: the GEO commands (GEOADD, GEOPOS, GEODIST, GEOHASH, GEORADIUS*,
 * GEOSEARCH*) with Redis 7.0.15's replies, errors and events.
 *
 * A GEO key is an ordinary sorted set whose scores are 52-bit geohashes
 * (data/geohash.h), so every read and write goes through the zset value type
 * (data/t_zset.h): GEOADD is literally a ZADD with computed scores, and a
 * search walks the score ranges of up to nine geohash boxes, keeps the
 * members inside the shape, then sorts, replies or stores them. */
#include "server/cmdargs.h"
#include "server/command.h"
#include "core/zmalloc.h"
#include "data/geohash.h"
#include "data/t_zset.h"
#include "server/client.h"
#include "server/db.h"
#include "server/keyhook.h"
#include "server/reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* ================================================== argument parsing */

static int getDoubleOrReply(client *c, robj *o, double *value, const char *msg) {
    if (getDoubleFromObject(o, value) == 0) return C_OK;
    addReplyError(c, msg ? msg : "value is not a valid float");
    return C_ERR;
}

/* Metres per unit, or -1 after replying the error. */
static double parseUnitOrReply(client *c, robj *unit) {
    const char *u = objectPtr(unit);
    if (!strcasecmp(u, "m")) return 1;
    if (!strcasecmp(u, "km")) return 1000;
    if (!strcasecmp(u, "ft")) return 0.3048;
    if (!strcasecmp(u, "mi")) return 1609.34;
    addReplyError(c, "unsupported unit provided. please use M, KM, FT, MI");
    return -1;
}

/* argv[0], argv[1]: longitude and latitude within the stored-score limits. */
static int parseLonLatOrReply(client *c, robj **argv, double xy[2]) {
    if (getDoubleOrReply(c, argv[0], &xy[0], NULL) != C_OK || getDoubleOrReply(c, argv[1], &xy[1], NULL) != C_OK)
        return C_ERR;
    if (xy[0] < GEO_LONG_MIN || xy[0] > GEO_LONG_MAX || xy[1] < GEO_LAT_MIN || xy[1] > GEO_LAT_MAX) {
        addReplyErrorFormat(c, "invalid longitude,latitude pair %f,%f", xy[0], xy[1]);
        return C_ERR;
    }
    return C_OK;
}

/* argv[0], argv[1]: radius and unit, making shape a circle. */
static int parseRadiusOrReply(client *c, robj **argv, geoShape *shape) {
    if (getDoubleOrReply(c, argv[0], &shape->radius, "need numeric radius") != C_OK) return C_ERR;
    if (shape->radius < 0) {
        addReplyError(c, "radius cannot be negative");
        return C_ERR;
    }
    if ((shape->to_meters = parseUnitOrReply(c, argv[1])) < 0) return C_ERR;
    shape->is_box = 0;
    return C_OK;
}

/* argv[0..2]: width, height and unit, making shape a box. */
static int parseBoxOrReply(client *c, robj **argv, geoShape *shape) {
    if (getDoubleOrReply(c, argv[0], &shape->width, "need numeric width") != C_OK ||
        getDoubleOrReply(c, argv[1], &shape->height, "need numeric height") != C_OK)
        return C_ERR;
    if (shape->width < 0 || shape->height < 0) {
        addReplyError(c, "height or width cannot be negative");
        return C_ERR;
    }
    if ((shape->to_meters = parseUnitOrReply(c, argv[2])) < 0) return C_ERR;
    shape->is_box = 1;
    return C_OK;
}

/* The position of a member of zobj (which may be NULL); 0 when absent. */
static int memberLonLat(robj *zobj, robj *member, double xy[2]) {
    double score;
    if (!zobj || !zsetScore(zobj, objectPtr(member), &score)) return 0;
    geohashScoreToLonLat(score, xy);
    return 1;
}

static void setCentre(geoShape *shape, const double xy[2]) {
    shape->lon = xy[0];
    shape->lat = xy[1];
}

static int centreOnMemberOrReply(client *c, robj *zobj, robj *member, geoShape *shape) {
    double xy[2];
    if (!memberLonLat(zobj, member, xy)) {
        addReplyError(c, "could not decode requested zset member");
        return C_ERR;
    }
    setCentre(shape, xy);
    return C_OK;
}

/* Distances are printed with four decimals, as a bulk string in RESP3 too. */
static void addReplyDistance(client *c, double meters) {
    char buf[128];
    int len = snprintf(buf, sizeof(buf), "%.4f", meters);
    addReplyBulkCBuffer(c, buf, (size_t)len);
}

/* ================================================== GEOADD */

/* GEOADD key [NX|XX] [CH] lon lat member ...: validated here, then run as
 * ZADD key [NX|XX] [CH] score member ..., which also makes the event "zadd"
 * and the AOF record a ZADD, as in Redis. */
void geoaddCommand(client *c) {
    int nx = 0, xx = 0, first = 2;
    for (; first < c->argc; first++) {
        const char *opt = objectPtr(c->argv[first]);
        if (!strcasecmp(opt, "nx")) nx = 1;
        else if (!strcasecmp(opt, "xx")) xx = 1;
        else if (strcasecmp(opt, "ch")) break;
    }
    if ((c->argc - first) % 3 || (nx && xx)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int elements = (c->argc - first) / 3, argc = first + elements * 2;
    robj **argv = zcalloc(sizeof(robj *) * (size_t)argc);
    argv[0] = createStringObject("zadd", 4);
    for (int j = 1; j < first; j++) {
        argv[j] = c->argv[j];
        incrRefCount(argv[j]);
    }
    for (int i = 0; i < elements; i++) {
        robj **triple = c->argv + first + i * 3;
        double xy[2];
        geoHash h;
        if (parseLonLatOrReply(c, triple, xy) != C_OK) {
            for (int j = 0; j < argc; j++)
                if (argv[j]) decrRefCount(argv[j]);
            zfree(argv);
            return;
        }
        geohashEncodeWGS84(xy[0], xy[1], GEO_STEP_MAX, &h);
        argv[first + i * 2] = createObject(OBJ_STRING, sdsfromlonglong((long long)geohashAlign52(h)));
        argv[first + i * 2 + 1] = triple[2];
        incrRefCount(triple[2]);
    }
    /* The vector changes but the command being run stays GEOADD (for
     * command stats and the propagation checks after it returns). */
    struct redisCommand *geoadd = c->cmd;
    replaceClientCommandVector(c, argc, argv);
    c->cmd = geoadd;
    /* Through the command table: command files do not call each other. */
    lookupCommandByCString("zadd")->proc(c);
}

/* ================================================== GEOPOS GEOHASH GEODIST */

void geoposCommand(client *c) {
    robj *zobj = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double xy[2];
        if (!memberLonLat(zobj, c->argv[j], xy)) {
            addReplyNullArray(c);
            continue;
        }
        addReplyArrayLen(c, 2);
        addReplyHumanLongDouble(c, xy[0]);
        addReplyHumanLongDouble(c, xy[1]);
    }
}

void geohashCommand(client *c) {
    robj *zobj = lookupKeyRead(c->db, c->argv[1]);
    if (replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double score;
        char hash[12];
        if (!zobj || !zsetScore(zobj, objectPtr(c->argv[j]), &score)) {
            addReplyNull(c);
            continue;
        }
        geohashScoreToString(score, hash);
        addReplyBulkCBuffer(c, hash, 11);
    }
}

void geodistCommand(client *c) {
    double to_meters = 1;
    if (c->argc == 5) {
        if ((to_meters = parseUnitOrReply(c, c->argv[4])) < 0) return;
    } else if (c->argc > 5) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null);
    if (!zobj || replyIfWrongType(c, zobj, OBJ_ZSET)) return;
    double a[2], b[2];
    if (!memberLonLat(zobj, c->argv[2], a) || !memberLonLat(zobj, c->argv[3], b)) {
        addReplyNull(c);
        return;
    }
    addReplyDistance(c, geoDistance(a[0], a[1], b[0], b[1]) / to_meters);
}

/* ================================================== searches */

typedef struct geoPoint {
    double lon, lat;
    double dist; /* from the centre, in metres */
    double score;
    sds member;
} geoPoint;

/* The members found so far; with a limit (COUNT n ANY) the walk stops once
 * it has that many. */
typedef struct geoMatches {
    const geoShape *shape;
    geoPoint *points;
    size_t used, cap;
    size_t limit; /* 0: no limit */
} geoMatches;

static int limitReached(const geoMatches *m) { return m->limit && m->used >= m->limit; }

static int addIfInShape(const unsigned char *ele, size_t len, double score, void *ctx) {
    geoMatches *m = ctx;
    double xy[2], dist;
    geohashScoreToLonLat(score, xy);
    if (geoShapeContains(m->shape, xy[0], xy[1], &dist)) {
        if (m->used == m->cap) {
            m->cap = m->cap ? m->cap * 2 : 16;
            m->points = zrealloc(m->points, sizeof(geoPoint) * m->cap);
        }
        m->points[m->used++] = (geoPoint){xy[0], xy[1], dist, score, sdsnewlen(ele, len)};
    }
    return !limitReached(m);
}

/* Scans the boxes of the search in order. Each box is the score range
 * [first score in it, first score past it). */
static void findInShape(robj *zobj, geoMatches *m) {
    geoHash boxes[GEO_SEARCH_BOXES];
    geoSearchBoxes(m->shape, boxes);
    int last = 0;
    for (int i = 0; i < GEO_SEARCH_BOXES; i++) {
        geoHash box = boxes[i], next = box;
        if (box.bits == 0 && box.step == 0) continue; /* left out */
        /* With very large radii neighbours can be the same box: scan it
         * once. Redis compares with the last scanned box unless that was
         * the centre; do the same so duplicates appear exactly as there. */
        if (last && box.bits == boxes[last].bits && box.step == boxes[last].step) continue;
        if (limitReached(m)) break;
        next.bits++;
        zrangespec range = {(double)geohashAlign52(box), (double)geohashAlign52(next), 0, 1};
        zsetVisitScoreRange(zobj, &range, addIfInShape, m);
        last = i;
    }
}

static int byDistanceAsc(const void *a, const void *b) {
    double da = ((const geoPoint *)a)->dist, db = ((const geoPoint *)b)->dist;
    return da > db ? 1 : da == db ? 0 : -1;
}

static int byDistanceDesc(const void *a, const void *b) { return byDistanceAsc(b, a); }

typedef int pointCmp(const void *a, const void *b);

static void swapPoints(geoPoint *p, size_t i, size_t j) {
    geoPoint t = p[i];
    p[i] = p[j];
    p[j] = t;
}

static void swapRuns(geoPoint *p, size_t i, size_t j, size_t n) {
    while (n--) swapPoints(p, i++, j++);
}

static size_t medianOf3(geoPoint *p, size_t a, size_t b, size_t c, pointCmp *cmp) {
    if (cmp(&p[a], &p[b]) < 0) return cmp(&p[b], &p[c]) < 0 ? b : cmp(&p[a], &p[c]) < 0 ? c : a;
    return cmp(&p[b], &p[c]) > 0 ? b : cmp(&p[a], &p[c]) < 0 ? a : c;
}

/* Puts in place the elements of ranks first..last of p[lo .. lo+n) (and
 * everything before them in order of distance too), the rest of the array
 * only partitioned around them: what COUNT needs. It is Bentley and
 * McIlroy's quicksort ("Engineering a Sort Function", 1993: median of three
 * or ninther pivot, three-way split-end partitioning, insertion sort below 7
 * elements) that skips the parts outside first..last, the partial sort Redis
 * uses here. Members at the same distance come out in the order this
 * algorithm leaves them, so COUNT replies match the reference even then. */
static void partialSort(geoPoint *p, size_t lo, size_t n, size_t first, size_t last, pointCmp *cmp) {
    for (;;) {
        if (n < 7) {
            for (size_t m = lo + 1; m < lo + n; m++)
                for (size_t l = m; l > lo && cmp(&p[l - 1], &p[l]) > 0; l--) swapPoints(p, l, l - 1);
            return;
        }
        size_t pm = lo + n / 2;
        if (n > 7) {
            size_t pl = lo, pn = lo + n - 1;
            if (n > 40) {
                size_t d = n / 8;
                pl = medianOf3(p, pl, pl + d, pl + 2 * d, cmp);
                pm = medianOf3(p, pm - d, pm, pm + d, cmp);
                pn = medianOf3(p, pn - 2 * d, pn - d, pn, cmp);
            }
            pm = medianOf3(p, pl, pm, pn, cmp);
        }
        swapPoints(p, lo, pm); /* the pivot waits at p[lo] */
        /* Invariant: [lo+1, pa) == pivot, [pa, pb) < pivot, (pc, pd] > pivot, (pd, end) == pivot. */
        size_t pa = lo + 1, pb = lo + 1, pc = lo + n - 1, pd = lo + n - 1;
        for (;;) {
            int r;
            while (pb <= pc && (r = cmp(&p[pb], &p[lo])) <= 0) {
                if (r == 0) swapPoints(p, pa++, pb);
                pb++;
            }
            while (pb <= pc && (r = cmp(&p[pc], &p[lo])) >= 0) {
                if (r == 0) swapPoints(p, pc, pd--);
                pc--;
            }
            if (pb > pc) break;
            swapPoints(p, pb++, pc--);
        }
        /* Move the equal runs from both ends to the middle. */
        size_t end = lo + n, s = pa - lo < pb - pa ? pa - lo : pb - pa;
        swapRuns(p, lo, pb - s, s);
        s = pd - pc < end - pd - 1 ? pd - pc : end - pd - 1;
        swapRuns(p, pb, end - s, s);
        /* Sort the smaller-than part, then loop on the greater-than part,
         * each only when it holds some of the ranks wanted. */
        if ((s = pb - pa) > 1 && first < lo + s && last >= lo) partialSort(p, lo, s, first, last, cmp);
        if ((s = pd - pc) <= 1) return;
        lo = end - s;
        n = s;
        if (!(first < lo + n && last >= lo)) return;
    }
}

#define SEARCH_FROM_COORDS (1 << 0) /* GEORADIUS: centre and radius are positional */
#define SEARCH_FROM_MEMBER (1 << 1) /* GEORADIUSBYMEMBER: centre member and radius are positional */
#define SEARCH_GEOSEARCH (1 << 2)   /* GEOSEARCH*: FROM... and BY... are options */
#define SEARCH_STORE_FIRST (1 << 3) /* GEOSEARCHSTORE: argv[1] is the destination */
#define SEARCH_NO_STORE (1 << 4)    /* the _RO forms */

#define SORT_NONE 0
#define SORT_ASC 1
#define SORT_DESC 2

typedef struct searchOptions {
    int withdist, withhash, withcoord, any, sort, storedist;
    int frommember, fromlonlat, byradius, bybox;
    long long count; /* 0: all */
    robj *storekey;
} searchOptions;

/* The options after the positional arguments (from argv[first]), applied
 * to o and shape. zobj may be NULL: FROMMEMBER is then not looked up, as the
 * search will answer empty anyway. */
static int parseSearchOptionsOrReply(client *c, int first, int flags, robj *zobj, searchOptions *o,
                                     geoShape *shape) {
    int geosearch = flags & SEARCH_GEOSEARCH;
    for (int j = first; j < c->argc; j++) {
        const char *arg = objectPtr(c->argv[j]);
        int left = c->argc - j - 1;
        if (!strcasecmp(arg, "withdist")) {
            o->withdist = 1;
        } else if (!strcasecmp(arg, "withhash")) {
            o->withhash = 1;
        } else if (!strcasecmp(arg, "withcoord")) {
            o->withcoord = 1;
        } else if (!strcasecmp(arg, "any")) {
            o->any = 1;
        } else if (!strcasecmp(arg, "asc")) {
            o->sort = SORT_ASC;
        } else if (!strcasecmp(arg, "desc")) {
            o->sort = SORT_DESC;
        } else if (!strcasecmp(arg, "count") && left >= 1) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &o->count, NULL) != C_OK) return C_ERR;
            if (o->count <= 0) {
                addReplyError(c, "COUNT must be > 0");
                return C_ERR;
            }
        } else if ((!strcasecmp(arg, "store") || !strcasecmp(arg, "storedist")) && left >= 1 &&
                   !(flags & SEARCH_NO_STORE) && !geosearch) {
            o->storedist = !strcasecmp(arg, "storedist");
            o->storekey = c->argv[++j];
        } else if (!strcasecmp(arg, "storedist") && (flags & SEARCH_STORE_FIRST)) {
            o->storedist = 1;
        } else if (!strcasecmp(arg, "frommember") && left >= 1 && geosearch && !o->fromlonlat) {
            robj *member = c->argv[++j];
            if (zobj && centreOnMemberOrReply(c, zobj, member, shape) != C_OK) return C_ERR;
            o->frommember = 1;
        } else if (!strcasecmp(arg, "fromlonlat") && left >= 2 && geosearch && !o->frommember) {
            double xy[2];
            if (parseLonLatOrReply(c, c->argv + j + 1, xy) != C_OK) return C_ERR;
            setCentre(shape, xy);
            o->fromlonlat = 1;
            j += 2;
        } else if (!strcasecmp(arg, "byradius") && left >= 2 && geosearch && !o->bybox) {
            if (parseRadiusOrReply(c, c->argv + j + 1, shape) != C_OK) return C_ERR;
            o->byradius = 1;
            j += 2;
        } else if (!strcasecmp(arg, "bybox") && left >= 3 && geosearch && !o->byradius) {
            if (parseBoxOrReply(c, c->argv + j + 1, shape) != C_OK) return C_ERR;
            o->bybox = 1;
            j += 3;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    const char *name = objectPtr(c->argv[0]);
    if (o->storekey && (o->withdist || o->withhash || o->withcoord)) {
        addReplyErrorFormat(c, "%s is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
                            (flags & SEARCH_STORE_FIRST) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS");
        return C_ERR;
    }
    if (geosearch && !(o->frommember || o->fromlonlat)) {
        addReplyErrorFormat(c, "exactly one of FROMMEMBER or FROMLONLAT can be specified for %s", name);
        return C_ERR;
    }
    if (geosearch && !(o->byradius || o->bybox)) {
        addReplyErrorFormat(c, "exactly one of BYRADIUS and BYBOX can be specified for %s", name);
        return C_ERR;
    }
    if (o->any && !o->count) {
        addReplyError(c, "the ANY argument requires COUNT argument");
        return C_ERR;
    }
    return C_OK;
}

static void replyMatches(client *c, const searchOptions *o, const geoShape *shape, const geoPoint *p, long n) {
    int extras = o->withdist + o->withhash + o->withcoord;
    addReplyArrayLen(c, n);
    for (long i = 0; i < n; i++) {
        if (extras) addReplyArrayLen(c, extras + 1);
        addReplyBulkCBuffer(c, p[i].member, sdslen(p[i].member));
        if (o->withdist) addReplyDistance(c, p[i].dist / shape->to_meters);
        if (o->withhash) addReplyLongLong(c, (long long)p[i].score);
        if (o->withcoord) {
            addReplyArrayLen(c, 2);
            addReplyHumanLongDouble(c, p[i].lon);
            addReplyHumanLongDouble(c, p[i].lat);
        }
    }
}

/* The matches (any number, even none) become the zset at o->storekey,
 * scored by geohash or, with STOREDIST, by distance in the search's unit. */
static void storeMatches(client *c, int flags, const searchOptions *o, const geoShape *shape, const geoPoint *p,
                         long n) {
    robj *dst = createZsetListpackObject();
    for (long i = 0; i < n; i++) {
        int out;
        zsetAdd(dst, o->storedist ? p[i].dist / shape->to_meters : p[i].score, p[i].member, ZADD_IN_NONE, &out,
                NULL, &server.zset_limits);
    }
    /* Redis counts one change per stored member. */
    storeResultOrDelete(c, o->storekey, dst, NOTIFY_ZSET,
                        (flags & SEARCH_GEOSEARCH) ? "geosearchstore" : "georadiusstore", n);
    decrRefCount(dst);
}

static void geoSearchGeneric(client *c, int flags) {
    int srcidx = (flags & SEARCH_STORE_FIRST) ? 2 : 1, first;
    robj *zobj = lookupKeyRead(c->db, c->argv[srcidx]);
    if (replyIfWrongType(c, zobj, OBJ_ZSET)) return;

    geoShape shape = {0};
    searchOptions o = {0};
    double xy[2];
    if (flags & SEARCH_FROM_COORDS) {
        first = 6;
        if (parseLonLatOrReply(c, c->argv + 2, xy) != C_OK) return;
        setCentre(&shape, xy);
        if (parseRadiusOrReply(c, c->argv + 4, &shape) != C_OK) return;
    } else if (flags & SEARCH_FROM_MEMBER) {
        first = 5;
        /* Without the key the reply is empty whatever the member and the
         * radius are, and the reference does not check them. */
        if (zobj) {
            if (centreOnMemberOrReply(c, zobj, c->argv[2], &shape) != C_OK) return;
            if (parseRadiusOrReply(c, c->argv + 3, &shape) != C_OK) return;
        }
    } else {
        first = srcidx + 1;
        if (flags & SEARCH_STORE_FIRST) o.storekey = c->argv[1];
    }
    if (parseSearchOptionsOrReply(c, first, flags, zobj, &o, &shape) != C_OK) return;

    if (!zobj) {
        if (o.storekey) storeMatches(c, flags, &o, &shape, NULL, 0);
        else addReply(c, shared.emptyarray);
        return;
    }
    /* The closest n need sorting; ANY takes the first n found. */
    if (o.count && o.sort == SORT_NONE && !o.any) o.sort = SORT_ASC;

    geoMatches m = {.shape = &shape, .limit = o.any ? (size_t)o.count : 0};
    findInShape(zobj, &m);
    long n = (long)m.used;
    if (o.count && o.count < n) n = (long)o.count;
    if (o.sort != SORT_NONE && m.used > 1) {
        pointCmp *cmp = o.sort == SORT_ASC ? byDistanceAsc : byDistanceDesc;
        if ((size_t)n == m.used) qsort(m.points, m.used, sizeof(geoPoint), cmp);
        else partialSort(m.points, 0, m.used, 0, (size_t)n - 1, cmp);
    }
    if (o.storekey) storeMatches(c, flags, &o, &shape, m.points, n);
    else replyMatches(c, &o, &shape, m.points, n);
    for (size_t i = 0; i < m.used; i++) sdsfree(m.points[i].member);
    zfree(m.points);
}

void georadiusCommand(client *c) { geoSearchGeneric(c, SEARCH_FROM_COORDS); }
void georadiusRoCommand(client *c) { geoSearchGeneric(c, SEARCH_FROM_COORDS | SEARCH_NO_STORE); }
void georadiusbymemberCommand(client *c) { geoSearchGeneric(c, SEARCH_FROM_MEMBER); }
void georadiusbymemberRoCommand(client *c) { geoSearchGeneric(c, SEARCH_FROM_MEMBER | SEARCH_NO_STORE); }
void geosearchCommand(client *c) { geoSearchGeneric(c, SEARCH_GEOSEARCH); }
void geosearchstoreCommand(client *c) { geoSearchGeneric(c, SEARCH_GEOSEARCH | SEARCH_STORE_FIRST); }
