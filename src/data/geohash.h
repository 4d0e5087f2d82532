/* geohash: the arithmetic behind the GEO commands, kept apart from the server
 * so it can be unit-tested alone.
 *
 * A position is stored as the score of a sorted-set member: a 52-bit geohash
 * (26 bits of longitude and 26 of latitude, longitude bit first in each
 * pair) over longitude -180..180 and latitude -85.05112878..85.05112878 (the
 * Web Mercator limits, as in Redis). Searches cover the area of interest with
 * a geohash box and its eight neighbours at a precision chosen from the
 * radius, and the caller then filters each candidate by exact distance
 * (haversine on a sphere of radius GEO_EARTH_RADIUS_M). Every formula follows
 * Redis 7.0's floating-point order of operations, because stored scores,
 * printed coordinates and distances must match it bit for bit. */
#ifndef DATA_GEOHASH_H
#define DATA_GEOHASH_H

#include <stdint.h>

#define GEO_STEP_MAX 26 /* bits per coordinate in a stored score */
#define GEO_LAT_MIN -85.05112878
#define GEO_LAT_MAX 85.05112878
#define GEO_LONG_MIN -180.0
#define GEO_LONG_MAX 180.0
#define GEO_EARTH_RADIUS_M 6372797.560856
#define GEO_MERCATOR_MAX 20037726.37 /* half the Mercator world width, in metres */

/* A geohash of `step` bits per coordinate. The all-zero value (bits 0, step
 * 0) marks a search box that was left out. */
typedef struct {
    uint64_t bits;
    uint8_t step;
} geoHash;

typedef struct {
    double min, max;
} geoRange;

/* The cell a geohash stands for. */
typedef struct {
    geoRange lon, lat;
} geoCell;

/* Encodes (lon, lat) over the given ranges at `step` bits per coordinate.
 * Returns 0 when the point is outside the ranges or the WGS84 limits. */
int geohashEncode(const geoRange *lon_range, const geoRange *lat_range, double lon, double lat, int step,
                  geoHash *out);
/* Same over the stored-score ranges. */
int geohashEncodeWGS84(double lon, double lat, int step, geoHash *out);
/* The cell of a geohash over the stored-score ranges. */
void geohashDecodeWGS84(geoHash h, geoCell *cell);
/* The stored score of a full-precision geohash (and the first score past a
 * coarser box: geohashAlign52 of bits + 1). */
uint64_t geohashAlign52(geoHash h);
/* The position a stored score stands for: the centre of its cell, clamped
 * to the WGS84 limits. xy[0] is the longitude, xy[1] the latitude. */
void geohashScoreToLonLat(double score, double xy[2]);
/* The 11-character standard geohash (latitude over -90..90) of a stored
 * score, as GEOHASH prints it; out receives a NUL-terminated string. */
void geohashScoreToString(double score, char out[12]);

/* Great-circle distance in metres between two points given in degrees. */
double geoDistance(double lon1, double lat1, double lon2, double lat2);

/* A search area: a circle of `radius`, or a box `width` x `height` (in the
 * unit whose size in metres is `to_meters`) centred on (lon, lat). */
typedef struct {
    int is_box;
    double lon, lat;
    double radius, width, height;
    double to_meters;
} geoShape;

/* 1 when (lon, lat) lies in the shape; *dist is then its distance from the
 * centre in metres. */
int geoShapeContains(const geoShape *shape, double lon, double lat, double *dist);

/* The boxes to scan for a search, in the order they are visited: centre,
 * north, south, east, west, north-east, north-west, south-east, south-west.
 * Boxes that cannot hold a match are zeroed (step 0). */
#define GEO_SEARCH_BOXES 9
void geoSearchBoxes(const geoShape *shape, geoHash boxes[GEO_SEARCH_BOXES]);
/* The precision whose cells are about as large as a radius of range_m
 * metres at latitude lat (exposed for the unit test). */
int geoEstimateSteps(double range_m, double lat);

#endif
