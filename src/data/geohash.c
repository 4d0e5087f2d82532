/* geohash: encoding positions as interleaved-bit geohashes, decoding them,
 * distances on the sphere and the choice of boxes a GEO search scans.
 * See geohash.h for the layout; the comments here explain the places where
 * the exact floating-point steps matter. */
#include "data/geohash.h"

#include <math.h>
#include <stddef.h>

static const geoRange wgs84_lon = {GEO_LONG_MIN, GEO_LONG_MAX};
static const geoRange wgs84_lat = {GEO_LAT_MIN, GEO_LAT_MAX};

static double degToRad(double deg) { return deg * (M_PI / 180.0); }
static double radToDeg(double rad) { return rad / (M_PI / 180.0); }

/* ------------------------------------------------------------ bit layout */

/* Moves bit i of v to bit 2i (binary magic numbers, one doubling per step). */
static uint64_t spreadToEvenBits(uint32_t v) {
    uint64_t x = v;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    x = (x | (x << 1)) & 0x5555555555555555ULL;
    return x;
}

/* The inverse: gathers the even bits of x into a 32-bit value. */
static uint32_t gatherEvenBits(uint64_t x) {
    x &= 0x5555555555555555ULL;
    x = (x | (x >> 1)) & 0x3333333333333333ULL;
    x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
    return (uint32_t)x;
}

/* Latitude on the even bits, longitude on the odd ones, so each pair starts
 * (from the top) with a longitude bit as geohashes do. Full 32-bit inputs are
 * kept: a point on the east or north edge encodes as 2^step, one bit above
 * the hash, and Redis stores that bit too. */
static uint64_t interleave(uint32_t lat, uint32_t lon) {
    return spreadToEvenBits(lat) | (spreadToEvenBits(lon) << 1);
}

static uint32_t latPart(uint64_t bits) { return gatherEvenBits(bits); }
static uint32_t lonPart(uint64_t bits) { return gatherEvenBits(bits >> 1); }

/* A score read back as geohash bits. Scores of real GEO members are 52-bit
 * integers; anything else was put there with ZADD, and is converted the way
 * an x86-64 build of the reference converts it (negative values wrap,
 * values out of range give 0 or 2^63), so GEOPOS on such a member prints what
 * the reference prints without relying on undefined behaviour here. */
static uint64_t scoreToBits(double score) {
    if (score >= 18446744073709551616.0) return 0;
    if (score >= 0) return (uint64_t)score;
    if (score > -9223372036854775808.0) return (uint64_t)(int64_t)score;
    return 0x8000000000000000ULL;
}

/* ------------------------------------------------------------ encode / decode */

int geohashEncode(const geoRange *lon_range, const geoRange *lat_range, double lon, double lat, int step,
                  geoHash *out) {
    if (lon > GEO_LONG_MAX || lon < GEO_LONG_MIN || lat > GEO_LAT_MAX || lat < GEO_LAT_MIN) return 0;
    if (lon < lon_range->min || lon > lon_range->max || lat < lat_range->min || lat > lat_range->max) return 0;
    /* Position inside the range as a fraction, then as a fixed-point number
     * of `step` bits (truncated): the cell index along each axis. */
    double lat_frac = (lat - lat_range->min) / (lat_range->max - lat_range->min);
    double lon_frac = (lon - lon_range->min) / (lon_range->max - lon_range->min);
    lat_frac *= (double)(1ULL << step);
    lon_frac *= (double)(1ULL << step);
    out->bits = interleave((uint32_t)lat_frac, (uint32_t)lon_frac);
    out->step = (uint8_t)step;
    return 1;
}

int geohashEncodeWGS84(double lon, double lat, int step, geoHash *out) {
    return geohashEncode(&wgs84_lon, &wgs84_lat, lon, lat, step, out);
}

static void geohashDecode(const geoRange *lon_range, const geoRange *lat_range, geoHash h, geoCell *cell) {
    uint32_t ilat = latPart(h.bits), ilon = lonPart(h.bits);
    double lat_span = lat_range->max - lat_range->min, lon_span = lon_range->max - lon_range->min;
    double cells = (double)(1ULL << h.step);
    /* Each edge computed from its own index (not min + one cell width), as
     * Redis does: the centre derived from them is what GEOPOS prints. */
    cell->lat.min = lat_range->min + (ilat * 1.0 / cells) * lat_span;
    cell->lat.max = lat_range->min + ((uint32_t)(ilat + 1) * 1.0 / cells) * lat_span;
    cell->lon.min = lon_range->min + (ilon * 1.0 / cells) * lon_span;
    cell->lon.max = lon_range->min + ((uint32_t)(ilon + 1) * 1.0 / cells) * lon_span;
}

void geohashDecodeWGS84(geoHash h, geoCell *cell) { geohashDecode(&wgs84_lon, &wgs84_lat, h, cell); }

uint64_t geohashAlign52(geoHash h) { return h.bits << (52 - h.step * 2); }

static double clamp(double v, double min, double max) { return v > max ? max : v < min ? min : v; }

void geohashScoreToLonLat(double score, double xy[2]) {
    geoCell cell;
    geohashDecodeWGS84((geoHash){scoreToBits(score), GEO_STEP_MAX}, &cell);
    xy[0] = clamp((cell.lon.min + cell.lon.max) / 2, GEO_LONG_MIN, GEO_LONG_MAX);
    xy[1] = clamp((cell.lat.min + cell.lat.max) / 2, GEO_LAT_MIN, GEO_LAT_MAX);
}

void geohashScoreToString(double score, char out[12]) {
    static const char alphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    /* Standard geohashes use latitude -90..90, the stored scores the Mercator
     * limits: re-encode the decoded position over the standard ranges. */
    static const geoRange std_lon = {-180, 180}, std_lat = {-90, 90};
    double xy[2];
    geoHash h = {0, 0};
    geohashScoreToLonLat(score, xy);
    geohashEncode(&std_lon, &std_lat, xy[0], xy[1], GEO_STEP_MAX, &h);
    /* 52 bits make ten 5-bit characters (the low 2 bits are dropped); the
     * eleventh is always '0', as the reference prints it. */
    for (int i = 0; i < 10; i++) out[i] = alphabet[(h.bits >> (52 - (i + 1) * 5)) & 0x1f];
    out[10] = '0';
    out[11] = '\0';
}

/* ------------------------------------------------------------ distances */

static double geoLatDistance(double lat1, double lat2) {
    return GEO_EARTH_RADIUS_M * fabs(degToRad(lat2) - degToRad(lat1));
}

/* Haversine formula. */
double geoDistance(double lon1, double lat1, double lon2, double lat2) {
    double lon1r = degToRad(lon1), lon2r = degToRad(lon2);
    double v = sin((lon2r - lon1r) / 2);
    /* Same meridian: the distance is along it (and Redis skips the trigonometry). */
    if (v == 0.0) return geoLatDistance(lat1, lat2);
    double lat1r = degToRad(lat1), lat2r = degToRad(lat2);
    double u = sin((lat2r - lat1r) / 2);
    double a = u * u + cos(lat1r) * cos(lat2r) * v * v;
    return 2.0 * GEO_EARTH_RADIUS_M * asin(sqrt(a));
}

int geoShapeContains(const geoShape *shape, double lon, double lat, double *dist) {
    if (!shape->is_box) {
        double d = geoDistance(shape->lon, shape->lat, lon, lat);
        if (d > shape->radius * shape->to_meters) return 0;
        *dist = d;
        return 1;
    }
    /* The cheap latitude test first; the east-west extent is measured along
     * the point's own parallel. */
    if (geoLatDistance(lat, shape->lat) > shape->height * shape->to_meters / 2) return 0;
    if (geoDistance(lon, lat, shape->lon, lat) > shape->width * shape->to_meters / 2) return 0;
    *dist = geoDistance(shape->lon, shape->lat, lon, lat);
    return 1;
}

/* ------------------------------------------------------------ search boxes */

int geoEstimateSteps(double range_m, double lat) {
    if (range_m == 0) return GEO_STEP_MAX;
    int step = 1;
    while (range_m < GEO_MERCATOR_MAX) {
        range_m *= 2;
        step++;
    }
    step -= 2; /* one level coarser, so the radius fits in the nine boxes in most cases */
    /* Meridians converge towards the poles: cells get narrower, use bigger ones. */
    if (lat > 66 || lat < -66) {
        step--;
        if (lat > 80 || lat < -80) step--;
    }
    if (step < 1) step = 1;
    if (step > GEO_STEP_MAX) step = GEO_STEP_MAX;
    return step;
}

/* The box dlon cells east and dlat cells north of h, wrapping around. The
 * axis that does not move keeps its bits untouched (even an edge bit). */
static geoHash geohashMove(geoHash h, int dlon, int dlat) {
    uint32_t lat = latPart(h.bits), lon = lonPart(h.bits);
    uint32_t mask = (uint32_t)((1ULL << h.step) - 1);
    if (dlon) lon = (lon + (uint32_t)dlon) & mask;
    if (dlat) lat = (lat + (uint32_t)dlat) & mask;
    h.bits = interleave(lat, lon);
    return h;
}

static void centreAndNeighbours(const geoShape *s, int steps, geoHash boxes[GEO_SEARCH_BOXES]) {
    static const int moves[GEO_SEARCH_BOXES][2] = {{0, 0},  {0, 1},  {0, -1}, {1, 0}, {-1, 0},
                                                   {1, 1},  {-1, 1}, {1, -1}, {-1, -1}};
    geohashEncodeWGS84(s->lon, s->lat, steps, &boxes[0]);
    for (int i = 1; i < GEO_SEARCH_BOXES; i++) boxes[i] = geohashMove(boxes[0], moves[i][0], moves[i][1]);
}

enum { BOX_CENTRE, BOX_N, BOX_S, BOX_E, BOX_W, BOX_NE, BOX_NW, BOX_SE, BOX_SW };

static void dropBoxes(geoHash boxes[GEO_SEARCH_BOXES], int a, int b, int c) {
    boxes[a] = boxes[b] = boxes[c] = (geoHash){0, 0};
}

void geoSearchBoxes(const geoShape *s, geoHash boxes[GEO_SEARCH_BOXES]) {
    /* Bounding box of the shape. Its east-west half-width is taken on the
     * parallel nearer the pole, where it is widest. */
    double half_h = s->to_meters * (s->is_box ? s->height / 2 : s->radius);
    double half_w = s->to_meters * (s->is_box ? s->width / 2 : s->radius);
    double lat_delta = radToDeg(half_h / GEO_EARTH_RADIUS_M);
    double lon_delta_top = radToDeg(half_w / GEO_EARTH_RADIUS_M / cos(degToRad(s->lat + lat_delta)));
    double lon_delta_bottom = radToDeg(half_w / GEO_EARTH_RADIUS_M / cos(degToRad(s->lat - lat_delta)));
    double lon_delta = s->lat < 0 ? lon_delta_bottom : lon_delta_top;
    double min_lon = s->lon - lon_delta, max_lon = s->lon + lon_delta;
    double min_lat = s->lat - lat_delta, max_lat = s->lat + lat_delta;

    /* A box is sized by its half-diagonal. */
    double reach = s->is_box ? sqrt((s->width / 2) * (s->width / 2) + (s->height / 2) * (s->height / 2)) : s->radius;
    int steps = geoEstimateSteps(reach * s->to_meters, s->lat);
    centreAndNeighbours(s, steps, boxes);

    /* Near a cell edge the estimate can be too fine: if a side neighbour
     * does not reach the bounding box's edge, use cells twice as large. */
    geoCell n, so, e, w;
    geohashDecodeWGS84(boxes[BOX_N], &n);
    geohashDecodeWGS84(boxes[BOX_S], &so);
    geohashDecodeWGS84(boxes[BOX_E], &e);
    geohashDecodeWGS84(boxes[BOX_W], &w);
    int too_fine = n.lat.max < max_lat || so.lat.min > min_lat || e.lon.max < max_lon || w.lon.min > min_lon;
    if (steps > 1 && too_fine) centreAndNeighbours(s, --steps, boxes);

    /* Leave out the neighbours on a side the centre cell already covers. */
    if (steps >= 2) {
        geoCell centre;
        geohashDecodeWGS84(boxes[BOX_CENTRE], &centre);
        if (centre.lat.min < min_lat) dropBoxes(boxes, BOX_S, BOX_SW, BOX_SE);
        if (centre.lat.max > max_lat) dropBoxes(boxes, BOX_N, BOX_NE, BOX_NW);
        if (centre.lon.min < min_lon) dropBoxes(boxes, BOX_W, BOX_SW, BOX_NW);
        if (centre.lon.max > max_lon) dropBoxes(boxes, BOX_E, BOX_SE, BOX_NE);
    }
}
