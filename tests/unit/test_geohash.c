/* test_geohash: unit tests for data/geohash (the GEO commands' arithmetic).
 * Expected scores, strings and distances are those Redis 7.0.15 gives for the
 * same points, so a change in the floating-point steps shows up here first. */
#include <stdio.h>
#include <string.h>

#include "data/geohash.h"
#include "testhelp.h"

static uint64_t scoreOf(double lon, double lat) {
    geoHash h;
    if (!geohashEncodeWGS84(lon, lat, GEO_STEP_MAX, &h)) return UINT64_MAX;
    return geohashAlign52(h);
}

/* The coordinate as GEOPOS prints it (without the trailing-zero trimming). */
static const char *fmt17(double v) {
    static char buf[64];
    snprintf(buf, sizeof(buf), "%.17f", v);
    return buf;
}

static void testEncode(void) {
    TEST("encode");
    CHECK(scoreOf(13.361389, 38.115556) == 3479099956230698ULL);
    CHECK(scoreOf(15.087269, 37.502669) == 3479447370796909ULL);
    CHECK(scoreOf(0, 0) == 3377699720527872ULL);
    CHECK(scoreOf(-180, -85.05112878) == 0);
    /* The east and north edges set the bits just above the 52-bit hash. */
    CHECK(scoreOf(180, 85.05112878) == 13510798882111488ULL);
    geoHash h;
    CHECK(!geohashEncodeWGS84(180.0000001, 0, GEO_STEP_MAX, &h));
    CHECK(!geohashEncodeWGS84(0, 85.05112879, GEO_STEP_MAX, &h));
    CHECK(!geohashEncodeWGS84(0, -85.05112879, GEO_STEP_MAX, &h));
}

static void testDecode(void) {
    TEST("decode");
    double xy[2];
    geohashScoreToLonLat(3479099956230698.0, xy);
    CHECK_STREQ(fmt17(xy[0]), "13.36138933897018433");
    CHECK_STREQ(fmt17(xy[1]), "38.11555639549629859");
    geohashScoreToLonLat(13510798882111488.0, xy); /* clamped to the limits */
    CHECK(xy[0] == 180.0);
    CHECK(xy[1] == GEO_LAT_MAX);
    geohashScoreToLonLat(0, xy);
    CHECK_STREQ(fmt17(xy[0]), "-179.99999731779098511");
    /* Scores that are not geohashes decode as the reference decodes them. */
    geohashScoreToLonLat(-5, xy);
    CHECK(xy[0] == 180.0 && xy[1] == GEO_LAT_MAX);
    geohashScoreToLonLat(-1e20, xy);
    CHECK(xy[0] == 180.0);
    CHECK_STREQ(fmt17(xy[1]), "-85.05112751263942528");
    geohashScoreToLonLat(1e20, xy);
    CHECK_STREQ(fmt17(xy[0]), "-179.99999731779098511");

    geoCell cell;
    geohashDecodeWGS84((geoHash){3479099956230698ULL, GEO_STEP_MAX}, &cell);
    CHECK(cell.lon.min <= 13.361389 && 13.361389 <= cell.lon.max);
    CHECK(cell.lat.min <= 38.115556 && 38.115556 <= cell.lat.max);
}

static void testStrings(void) {
    TEST("geohash strings");
    char s[12];
    geohashScoreToString(3479099956230698.0, s);
    CHECK_STREQ(s, "sqc8b49rny0");
    geohashScoreToString(3479447370796909.0, s);
    CHECK_STREQ(s, "sqdtr74hyu0");
    geohashScoreToString(13510798882111488.0, s);
    CHECK_STREQ(s, "bp05b5048p0");
    geohashScoreToString(0, s);
    CHECK_STREQ(s, "00bh0hbj200");
    geohashScoreToString(3377699720527872.0, s);
    CHECK_STREQ(s, "s0000000000");
}

static void testDistance(void) {
    TEST("distance");
    double p[2], q[2];
    char buf[64];
    geohashScoreToLonLat(3479099956230698.0, p);
    geohashScoreToLonLat(3479447370796909.0, q);
    snprintf(buf, sizeof(buf), "%.4f", geoDistance(p[0], p[1], q[0], q[1]));
    CHECK_STREQ(buf, "166274.1516");
    CHECK(geoDistance(p[0], p[1], p[0], p[1]) == 0);
    /* Same meridian: the distance along it. */
    snprintf(buf, sizeof(buf), "%.4f", geoDistance(10, 0, 10, 1));
    CHECK_STREQ(buf, "111226.3000");

    geoShape circle = {.lon = 15, .lat = 37, .radius = 200, .to_meters = 1000};
    double d;
    CHECK(geoShapeContains(&circle, q[0], q[1], &d));
    snprintf(buf, sizeof(buf), "%.4f", d / 1000);
    CHECK_STREQ(buf, "56.4413");
    circle.radius = 50;
    CHECK(!geoShapeContains(&circle, q[0], q[1], &d));
    geoShape box = {.is_box = 1, .lon = 15, .lat = 37, .width = 200, .height = 200, .to_meters = 1000};
    CHECK(geoShapeContains(&box, q[0], q[1], &d));
    CHECK(!geoShapeContains(&box, p[0], p[1], &d)); /* 190 km away, outside 100 km either way */
}

static void testSearchBoxes(void) {
    TEST("search boxes");
    CHECK(geoEstimateSteps(0, 0) == GEO_STEP_MAX);
    CHECK(geoEstimateSteps(1000, 0) == 14);
    CHECK(geoEstimateSteps(1000, 70) == 13);
    CHECK(geoEstimateSteps(1000, -85) == 12);
    CHECK(geoEstimateSteps(40000000, 0) == 1);

    /* The centre box of a small search holds the centre's score. */
    geoShape s = {.lon = 13.361389, .lat = 38.115556, .radius = 10, .to_meters = 1000};
    geoHash boxes[GEO_SEARCH_BOXES];
    geoSearchBoxes(&s, boxes);
    geoHash next = boxes[0];
    next.bits++;
    uint64_t score = scoreOf(s.lon, s.lat);
    CHECK(boxes[0].step > 0);
    CHECK(geohashAlign52(boxes[0]) <= score && score < geohashAlign52(next));
    for (int i = 1; i < GEO_SEARCH_BOXES; i++)
        CHECK(boxes[i].step == 0 || boxes[i].bits != boxes[0].bits);

    /* The west neighbour of a box on the antimeridian wraps to the east edge. */
    s.lon = -179.9;
    s.lat = 0;
    s.radius = 1;
    geoSearchBoxes(&s, boxes);
    geoCell west;
    geohashDecodeWGS84(boxes[4], &west);
    CHECK(boxes[4].step == 0 || west.lon.max == 180.0);
}

int main(void) {
    testEncode();
    testDecode();
    testStrings();
    testDistance();
    testSearchBoxes();
    return TEST_REPORT();
}
