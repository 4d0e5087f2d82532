"""Integration tests for the GEO commands, checked against Redis 7.0.15.

Every expected value (stored scores, the text of coordinates and distances,
geohash strings, error texts, the order of unsorted search results, events)
was captured from Debian's redis-server 7.0.15, and the tests pass on it
(REDIS_SERVER=/usr/bin/redis-server REFERENCE=1). GEO keys are sorted sets, so
most behaviour tests run once per zset encoding (listpack and skiplist).
"""
import math
import os
import random

import pytest

from datatype_client import WRONGTYPE, arity

SYNTAX = "ERR syntax error"
NOT_FLOAT = "ERR value is not a valid float"
NOT_INT = "ERR value is not an integer or out of range"
BAD_UNIT = "ERR unsupported unit provided. please use M, KM, FT, MI"
NO_MEMBER = "ERR could not decode requested zset member"

PALERMO = (b"13.36138933897018433", b"38.11555639549629859")
CATANIA = (b"15.08726745843887329", b"37.50266842333162032")


@pytest.fixture(params=["listpack", "skiplist"])
def g(request, dc):
    """The raw client, with GEO keys created in the parametrized zset encoding."""
    if request.param == "skiplist":
        dc("CONFIG", "SET", "zset-max-listpack-entries", "0")
    dc.zenc = request.param.encode()
    return dc


def sicily(dc, key="Sicily"):
    """The example of the GEOADD documentation."""
    assert dc("GEOADD", key, "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania") == 2
    if hasattr(dc, "zenc"):
        assert dc.encoding(key) == dc.zenc


def edges(dc):
    """Points on the limits of the stored-score ranges and on both sides of the antimeridian."""
    assert dc("GEOADD", "edge", "180", "85.05112878", "a", "-180", "-85.05112878", "b", "0", "0", "c",
             "179.99", "10", "east", "-179.99", "10", "west", "10", "84.9", "north1", "-170", "84.9", "north2") == 7


# --- GEOADD and the stored scores -----------------------------------------

def test_geoadd_stores_geohash_scores(g):
    sicily(g)
    assert g("ZRANGE", "Sicily", "0", "-1", "WITHSCORES") == [
        b"Palermo", b"3479099956230698", b"Catania", b"3479447370796909"]
    assert g("TYPE", "Sicily") == "zset"
    # A GEO key is a plain sorted set: the zset commands see the members.
    assert g("ZCARD", "Sicily") == 2
    assert g("ZSCORE", "Sicily", "Catania") == b"3479447370796909"


def test_scores_at_the_limits(g):
    edges(g)
    # The east / north edges encode one bit above the 52-bit hash, as in Redis.
    assert g("ZRANGE", "edge", "0", "-1", "WITHSCORES") == [
        b"b", b"0", b"west", b"1131741149296021", b"north2", b"1504085385126250", b"c", b"3377699720527872",
        b"north1", b"3755885198811498", b"east", b"4134140895354687", b"a", b"13510798882111488"]


def test_geoadd_nx_xx_ch(g):
    sicily(g)
    # XX never creates the key.
    assert g("GEOADD", "new", "XX", "1", "2", "m") == 0
    assert g("EXISTS", "new") == 0
    # NX: only new members; CH counts changed ones too.
    assert g("GEOADD", "Sicily", "NX", "1", "1", "Palermo", "2", "2", "Other") == 1
    assert g("ZSCORE", "Sicily", "Palermo") == b"3479099956230698"
    assert g("GEOADD", "Sicily", "XX", "CH", "1", "1", "Palermo", "3", "3", "Nowhere") == 1
    assert g("ZSCORE", "Sicily", "Nowhere") is None
    assert g("GEOADD", "Sicily", "ch", "1", "1", "Palermo", "4", "4", "Fourth") == 1
    assert g("GEOADD", "Sicily", "CH", "5", "5", "Palermo", "4", "4", "Fourth") == 1
    assert g("GEOADD", "Sicily", "1", "1", "Fifth") == 1
    assert g("ZCARD", "Sicily") == 5


def test_geoadd_errors(dc):
    assert dc.err("GEOADD", "k", "200", "100", "m") == "ERR invalid longitude,latitude pair 200.000000,100.000000"
    assert dc.err("GEOADD", "k", "180.0000001", "0", "m") == "ERR invalid longitude,latitude pair 180.000000,0.000000"
    assert dc.err("GEOADD", "k", "0", "85.05112879", "m") == "ERR invalid longitude,latitude pair 0.000000,85.051129"
    assert dc.err("GEOADD", "k", "inf", "0", "m") == "ERR invalid longitude,latitude pair inf,0.000000"
    assert dc.err("GEOADD", "k", "nan", "0", "m") == NOT_FLOAT
    assert dc.err("GEOADD", "k", "abc", "2", "m") == NOT_FLOAT
    assert dc.err("GEOADD", "k", "1", "2") == arity("geoadd")
    assert dc.err("GEOADD", "k", "1", "2", "m", "3") == SYNTAX
    assert dc.err("GEOADD", "k", "NX", "XX", "1", "2", "m") == SYNTAX
    assert dc.err("GEOADD", "k", "nx", "ch", "ch") == SYNTAX
    # One bad triple adds nothing.
    assert dc.err("GEOADD", "k", "1", "2", "a", "1", "100", "b") == \
        "ERR invalid longitude,latitude pair 1.000000,100.000000"
    assert dc("EXISTS", "k") == 0
    dc("SET", "s", "x")
    assert dc.err("GEOADD", "s", "1", "2", "m") == WRONGTYPE
    # The coordinates are checked before the type.
    assert dc.err("GEOADD", "s", "200", "1", "m") == "ERR invalid longitude,latitude pair 200.000000,1.000000"


# --- GEOPOS GEOHASH GEODIST -----------------------------------------------

def test_geopos(g):
    sicily(g)
    assert g("GEOPOS", "Sicily", "Palermo", "Catania", "NonExisting") == [list(PALERMO), list(CATANIA), None]
    assert g.frame("GEOPOS", "Sicily", "nope") == b"*1\r\n*-1\r\n"
    assert g.frame("GEOPOS", "nokey", "a", "b") == b"*2\r\n*-1\r\n*-1\r\n"


def test_geopos_geohash_at_the_limits(g):
    edges(g)
    assert g("GEOPOS", "edge", "a", "b", "c") == [
        [b"180", b"85.0511287799999991"],
        [b"-179.99999731779098511", b"-85.05112751263942528"],
        [b"0.00000268220901489", b"0.00000126736058093"]]
    assert g("GEOHASH", "edge", "a", "b", "c", "east", "west", "north1", "north2") == [
        b"bp05b5048p0", b"00bh0hbj200", b"s0000000000", b"xczbzu2wnz0", b"81b0bhrq1p0", b"upp4gx9f2g0",
        b"bpp4gx9f2g0"]


def test_members_with_non_geo_scores(dc):
    # Scores set with ZADD decode as the reference decodes them.
    dc("ZADD", "z", "-5", "a", "1e20", "b", "-1e20", "c", "inf", "d")
    assert dc("GEOPOS", "z", "a", "b", "c", "d") == [
        [b"180", b"85.0511287799999991"],
        [b"-179.99999731779098511", b"-85.05112751263942528"],
        [b"180", b"-85.05112751263942528"],
        [b"-179.99999731779098511", b"-85.05112751263942528"]]
    assert dc("GEOHASH", "z", "a", "b", "c", "d") == [b"bp05b5048p0", b"00bh0hbj200", b"00bh0hbj200", b"00bh0hbj200"]


def test_geohash(g):
    sicily(g)
    assert g("GEOHASH", "Sicily", "Palermo", "Catania", "NonExisting") == [b"sqc8b49rny0", b"sqdtr74hyu0", None]
    assert g.frame("GEOHASH", "nokey", "a", "b") == b"*2\r\n$-1\r\n$-1\r\n"


def test_geodist_units(g):
    sicily(g)
    assert g("GEODIST", "Sicily", "Palermo", "Catania") == b"166274.1516"
    assert g("GEODIST", "Sicily", "Palermo", "Catania", "m") == b"166274.1516"
    assert g("GEODIST", "Sicily", "Palermo", "Catania", "km") == b"166.2742"
    assert g("GEODIST", "Sicily", "Palermo", "Catania", "MI") == b"103.3182"
    assert g("GEODIST", "Sicily", "Palermo", "Catania", "ft") == b"545518.8700"
    assert g("GEODIST", "Sicily", "Palermo", "Palermo") == b"0.0000"
    assert g("GEODIST", "Sicily", "Palermo", "nope") is None
    assert g("GEODIST", "nokey", "a", "b") is None


def test_geodist_far_apart(g):
    edges(g)
    assert g("GEODIST", "edge", "a", "b") == b"18919844.5891"
    assert g("GEODIST", "edge", "a", "b", "mi") == b"11756.2756"
    assert g("GEODIST", "edge", "a", "b", "ft") == b"62072980.9353"
    assert g("GEODIST", "edge", "east", "west") == b"2191.1593"  # across the antimeridian
    assert g("GEODIST", "edge", "north1", "north2", "km") == b"1134.5083"


def test_geodist_errors(dc):
    sicily(dc)
    assert dc.err("GEODIST", "Sicily", "Palermo", "Catania", "foo") == BAD_UNIT
    assert dc.err("GEODIST", "Sicily", "Palermo", "Catania", "km", "x") == SYNTAX
    assert dc.err("GEODIST", "Sicily", "Palermo") == arity("geodist")
    # The unit is checked before the key.
    dc("SET", "s", "x")
    assert dc.err("GEODIST", "s", "a", "b", "foo") == BAD_UNIT
    assert dc.err("GEODIST", "s", "a", "b") == WRONGTYPE


# --- GEORADIUS / GEORADIUSBYMEMBER ------------------------------------------

def test_georadius_documentation_example(g):
    sicily(g)
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST") == [
        [b"Palermo", b"190.4424"], [b"Catania", b"56.4413"]]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHCOORD") == [
        [b"Palermo", list(PALERMO)], [b"Catania", list(CATANIA)]]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "WITHHASH", "ASC") == [
        [b"Catania", b"56.4413", 3479447370796909, list(CATANIA)],
        [b"Palermo", b"190.4424", 3479099956230698, list(PALERMO)]]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km") == [b"Palermo", b"Catania"]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "DESC") == [b"Palermo", b"Catania"]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "ASC", "DESC") == [b"Palermo", b"Catania"]
    assert g("GEORADIUS_RO", "Sicily", "15", "37", "100", "km") == [b"Catania"]
    assert g.frame("GEORADIUS", "Sicily", "15", "37", "2", "km") == b"*0\r\n"
    assert g.frame("GEORADIUS", "nokey", "15", "37", "2", "km") == b"*0\r\n"


def test_georadius_count_and_any(g):
    sicily(g)
    # COUNT alone sorts (closest first); ANY takes the first found.
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "1") == [b"Catania"]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "1", "DESC") == [b"Palermo"]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "1", "ANY") == [b"Palermo"]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "1", "ANY", "ASC") == [b"Palermo"]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "1", "COUNT", "2") == [b"Catania", b"Palermo"]
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "5") == [b"Catania", b"Palermo"]


def test_georadiusbymember(g):
    sicily(g)
    assert g("GEOADD", "Sicily", "13.583333", "37.316667", "Agrigento") == 1
    assert g("GEORADIUSBYMEMBER", "Sicily", "Agrigento", "100", "km") == [b"Agrigento", b"Palermo"]
    assert g("GEORADIUSBYMEMBER_RO", "Sicily", "Agrigento", "100", "km", "withdist", "desc") == [
        [b"Palermo", b"90.9778"], [b"Agrigento", b"0.0000"]]
    assert g.err("GEORADIUSBYMEMBER", "Sicily", "nope", "1", "km") == NO_MEMBER
    # The member is looked up before the radius is read.
    assert g.err("GEORADIUSBYMEMBER", "Sicily", "nope", "-1", "km") == NO_MEMBER
    assert g.err("GEORADIUSBYMEMBER", "Sicily", "Palermo", "-1", "km") == "ERR radius cannot be negative"
    # Without the key neither the member nor the radius is looked at, the options are.
    assert g.frame("GEORADIUSBYMEMBER", "nokey", "m", "-1", "km") == b"*0\r\n"
    assert g.frame("GEORADIUSBYMEMBER", "nokey", "m", "abc", "foo") == b"*0\r\n"
    assert g.err("GEORADIUSBYMEMBER", "nokey", "m", "1", "km", "COUNT", "0") == "ERR COUNT must be > 0"
    assert g.err("GEORADIUSBYMEMBER", "nokey", "m", "1", "km", "foo") == SYNTAX
    assert g("GEORADIUSBYMEMBER", "nokey", "m", "1", "km", "STORE", "dst") == 0


@pytest.mark.parametrize("args,error", [
    (["15", "37", "-1", "km"], "ERR radius cannot be negative"),
    (["15", "37", "abc", "km"], "ERR need numeric radius"),
    (["15", "37", "1", "kmx"], BAD_UNIT),
    (["200", "37", "1", "km"], "ERR invalid longitude,latitude pair 200.000000,37.000000"),
    (["x", "37", "1", "km"], NOT_FLOAT),
    (["15", "37", "1", "km", "COUNT", "0"], "ERR COUNT must be > 0"),
    (["15", "37", "1", "km", "COUNT", "-1"], "ERR COUNT must be > 0"),
    (["15", "37", "1", "km", "COUNT", "x"], NOT_INT),
    (["15", "37", "1", "km", "COUNT", "99999999999999999999"], NOT_INT),
    (["15", "37", "1", "km", "COUNT"], SYNTAX),
    (["15", "37", "1", "km", "ANY"], "ERR the ANY argument requires COUNT argument"),
    (["15", "37", "1", "km", "STORE"], SYNTAX),
    (["15", "37", "1", "km", "FROMLONLAT", "1", "2"], SYNTAX),
    (["15", "37", "1", "km", "STORE", "x", "WITHDIST"],
     "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"),
    (["15", "37", "1", "km", "WITHHASH", "STOREDIST", "x"],
     "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"),
])
def test_georadius_errors(dc, args, error):
    sicily(dc)
    assert dc.err("GEORADIUS", "Sicily", *args) == error


def test_georadius_errors_other_forms(dc):
    sicily(dc)
    assert dc.err("GEORADIUS_RO", "Sicily", "15", "37", "1", "km", "STORE", "x") == SYNTAX
    assert dc.err("GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "1", "km", "STOREDIST", "x") == SYNTAX
    assert dc.err("GEORADIUS", "Sicily", "15", "37", "1") == arity("georadius")
    assert dc.err("GEORADIUSBYMEMBER", "Sicily", "Palermo", "1") == arity("georadiusbymember")
    assert dc.err("GEORADIUSBYMEMBER", "nokey", "m", "1", "km", "WITHDIST", "STORE", "x") == \
        "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
    # The missing key is answered after the options are checked.
    assert dc.err("GEORADIUS", "nokey", "15", "37", "1", "km", "COUNT", "0") == "ERR COUNT must be > 0"
    assert dc.err("GEORADIUS", "nokey", "1", "2", "1", "foo") == BAD_UNIT


# --- GEOSEARCH ------------------------------------------------------------

def test_geosearch(g):
    sicily(g)
    g("GEOADD", "Sicily", "13.583333", "37.316667", "Agrigento")
    assert g("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "ASC", "WITHCOORD",
             "WITHDIST") == [
        [b"Catania", b"56.4413", list(CATANIA)],
        [b"Agrigento", b"130.4235", [b"13.5833314061164856", b"37.31666804993816555"]],
        [b"Palermo", b"190.4424", list(PALERMO)]]
    assert g("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km", "ASC", "WITHDIST") == [
        [b"Palermo", b"0.0000"], [b"Agrigento", b"90.9778"], [b"Catania", b"166.2742"]]
    assert g("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHDIST") == [
        [b"Agrigento", b"130.4235"], [b"Palermo", b"190.4424"], [b"Catania", b"56.4413"]]
    # Options in any order; FROMMEMBER may be repeated (the last one counts).
    assert g("GEOSEARCH", "Sicily", "BYRADIUS", "200", "km", "FROMLONLAT", "15", "37", "ASC") == [
        b"Catania", b"Agrigento", b"Palermo"]
    assert g("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMMEMBER", "Catania", "BYRADIUS", "200", "km") == [
        b"Agrigento", b"Palermo", b"Catania"]
    assert g("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km", "ANY", "COUNT", "1",
             "WITHHASH") == [[b"Palermo", 3479099956230698]]
    assert g("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYBOX", "400", "400", "km", "ASC", "WITHDIST",
             "WITHCOORD", "WITHHASH") == [
        [b"Palermo", b"0.0000", 3479099956230698, list(PALERMO)],
        [b"Agrigento", b"90.9778", 3479030013248308,
         [b"13.5833314061164856", b"37.31666804993816555"]],
        [b"Catania", b"166.2742", 3479447370796909, list(CATANIA)]]
    assert g.frame("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYBOX", "0", "0", "km") == b"*0\r\n"
    assert g.frame("GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km") == b"*0\r\n"


@pytest.mark.parametrize("args,error", [
    (["FROMMEMBER", "x", "BYRADIUS", "1", "km"], NO_MEMBER),
    (["FROMMEMBER", "x", "BYRADIUS", "-1", "km"], NO_MEMBER),
    (["BYRADIUS", "-1", "km", "FROMMEMBER", "x"], "ERR radius cannot be negative"),
    (["FROMLONLAT", "15", "37", "BYBOX", "1", "-1", "km"], "ERR height or width cannot be negative"),
    (["FROMLONLAT", "15", "37", "BYBOX", "x", "1", "km"], "ERR need numeric width"),
    (["FROMLONLAT", "15", "37", "BYBOX", "1", "x", "km"], "ERR need numeric height"),
    (["FROMLONLAT", "15", "37", "BYBOX", "1", "1", "yd"], BAD_UNIT),
    (["FROMLONLAT", "1", "200", "BYRADIUS", "1", "km"],
     "ERR invalid longitude,latitude pair 1.000000,200.000000"),
    (["FROMMEMBER", "Palermo", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km"], SYNTAX),
    (["FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "BYBOX", "1", "1", "km"], SYNTAX),
    (["FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "STORE", "x"], SYNTAX),
    (["FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "STOREDIST"], SYNTAX),
    (["BYBOX", "200", "200", "km", "ASC"], "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearch"),
    (["FROMLONLAT", "15", "37", "ASC", "ASC"], "ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch"),
    (["FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "ANY"], "ERR the ANY argument requires COUNT argument"),
    (["FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "COUNT", "0"], "ERR COUNT must be > 0"),
])
def test_geosearch_errors(dc, args, error):
    sicily(dc)
    assert dc.err("geosearch", "Sicily", *args) == error


def test_geosearch_errors_name_and_missing_key(dc):
    sicily(dc)
    # The command name is quoted as it was sent.
    assert dc.err("GEOSEARCH", "Sicily", "BYBOX", "200", "200", "km", "ASC") == \
        "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH"
    assert dc.err("GeoSearchStore", "d", "Sicily", "FROMLONLAT", "1", "2", "COUNT", "1") == \
        "ERR exactly one of BYRADIUS and BYBOX can be specified for GeoSearchStore"
    assert dc.err("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo") == arity("geosearch")
    assert dc.err("GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "Palermo", "COUNT", "1") == arity("geosearchstore")
    assert dc.err("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "WITHDIST") == \
        "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
    # Without the key FROMMEMBER is not looked up; the other arguments are checked.
    assert dc.err("GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYBOX", "1", "1", "km", "COUNT", "0") == \
        "ERR COUNT must be > 0"
    assert dc.err("GEOSEARCH", "nokey", "FROMLONLAT", "1", "2", "BYRADIUS", "-1", "km") == \
        "ERR radius cannot be negative"
    assert dc.err("GEOSEARCH", "nokey", "FROMMEMBER", "a", "FROMLONLAT", "1", "2", "BYRADIUS", "1", "km") == SYNTAX


# --- STORE, STOREDIST, GEOSEARCHSTORE -----------------------------------------

def test_store_variants(g):
    sicily(g)
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "dst") == 2
    assert g("ZRANGE", "dst", "0", "-1", "WITHSCORES") == [
        b"Palermo", b"3479099956230698", b"Catania", b"3479447370796909"]
    assert g.encoding("dst") == g.zenc
    # The last STORE/STOREDIST wins.
    assert g("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d2", "STOREDIST", "d3") == 2
    assert g("EXISTS", "d2") == 0
    assert g("ZRANGE", "d3", "0", "-1", "WITHSCORES") == [
        b"Catania", b"56.441257870158204", b"Palermo", b"190.44242984775784"]
    assert g("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "COUNT", "1", "STOREDIST", "d4") == 1
    assert g("ZRANGE", "d4", "0", "-1", "WITHSCORES") == [b"Palermo", b"0"]
    assert g("GEOSEARCHSTORE", "d5", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STOREDIST") == 2
    assert g("ZRANGE", "d5", "0", "-1", "WITHSCORES") == [
        b"Catania", b"56.441257870158204", b"Palermo", b"190.44242984775784"]
    assert g("GEOSEARCHSTORE", "d6", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km",
             "COUNT", "1", "DESC") == 1
    assert g("ZRANGE", "d6", "0", "-1", "WITHSCORES") == [b"Palermo", b"3479099956230698"]
    # A destination of another type is overwritten.
    g("SET", "s", "x")
    assert g("GEOSEARCHSTORE", "s", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km") == 1
    assert g("TYPE", "s") == "zset"


def test_store_empty_result_deletes_destination(dc):
    sicily(dc)
    dc("SET", "dst", "x")
    assert dc("GEORADIUS", "Sicily", "15", "37", "1", "km", "STORE", "dst") == 0
    assert dc("EXISTS", "dst") == 0
    dc("SET", "dst", "x")
    assert dc("GEORADIUS", "nokey", "15", "37", "1", "km", "STORE", "dst") == 0
    assert dc("EXISTS", "dst") == 0
    dc("SET", "dst", "x")
    assert dc("GEOSEARCHSTORE", "dst", "nokey", "FROMMEMBER", "x", "BYBOX", "1", "1", "km") == 0
    assert dc("EXISTS", "dst") == 0


def test_store_result_encoding_follows_listpack_limits(dc):
    sicily(dc)
    dc("CONFIG", "SET", "zset-max-listpack-entries", "1")
    assert dc("GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "500", "km") == 2
    assert dc.encoding("d") == b"skiplist"
    assert dc("GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km") == 1
    assert dc.encoding("d") == b"listpack"
    dc("CONFIG", "SET", "zset-max-listpack-value", "3")
    assert dc("GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km") == 1
    assert dc.encoding("d") == b"skiplist"


# --- edges of the map -----------------------------------------------------

def test_search_across_the_antimeridian(g):
    edges(g)
    # Redis misses "west" from the east side of the antimeridian but finds both from the west side.
    assert g("GEORADIUS", "edge", "180", "10", "10", "km", "WITHDIST", "ASC") == [[b"east", b"1.0956"]]
    assert g("GEORADIUS", "edge", "-180", "10", "10", "km", "WITHDIST", "ASC") == [
        [b"east", b"1.0956"], [b"west", b"1.0956"]]
    assert g("GEOSEARCH", "edge", "FROMLONLAT", "180", "10", "BYBOX", "30", "30", "km", "ASC", "WITHDIST") == [
        [b"east", b"1.0956"]]


def test_search_near_the_poles(g):
    edges(g)
    assert g("GEORADIUS", "edge", "0", "85", "1000", "km", "WITHDIST", "ASC") == [[b"north1", b"98.4096"]]
    assert g("GEOSEARCH", "edge", "FROMLONLAT", "0", "85.05112878", "BYBOX", "40000", "600", "km", "ASC",
             "WITHDIST") == [[b"north1", b"98.7207"], [b"north2", b"1113.4357"]]


def test_huge_radius_order_and_duplicates(g):
    edges(g)
    # Unsorted results come box by box, in score order inside each box.
    assert g("GEORADIUS", "edge", "0", "0", "25000", "km") == [
        b"c", b"north1", b"east", b"west", b"north2", b"b"]
    assert g("GEORADIUS", "edge", "0", "0", "25000", "km", "COUNT", "3", "ANY") == [b"c", b"north1", b"east"]


def test_count_with_ties_keeps_the_reference_order(g):
    # COUNT smaller than the result sorts partially; members at the same
    # distance come out in the order Redis's partial quicksort leaves them.
    assert g("GEOADD", "t", "1", "1", "a", "1", "1", "b", "1", "1", "c", "1", "1", "d", "1", "1", "e",
             "1.001", "1", "f", "1.002", "1", "g", "0.999", "1", "h", "1", "1", "i", "1", "1", "j") == 10
    assert g("GEORADIUS", "t", "1", "1", "100", "km", "COUNT", "3") == [b"j", b"a", b"b"]
    assert g("GEORADIUS", "t", "1", "1", "100", "km", "COUNT", "3", "DESC") == [b"g", b"h", b"f"]
    assert g("GEORADIUS", "t", "1", "1", "100", "km", "COUNT", "5", "WITHDIST") == [
        [b"j", b"0.0001"], [b"a", b"0.0001"], [b"b", b"0.0001"], [b"c", b"0.0001"], [b"d", b"0.0001"]]
    assert g("GEORADIUS", "t", "1", "1", "100", "km", "COUNT", "9") == [
        b"j", b"a", b"b", b"c", b"d", b"e", b"i", b"f", b"h"]
    assert g("GEORADIUS", "t", "1", "1", "100", "km", "COUNT", "9", "DESC") == [
        b"g", b"h", b"f", b"c", b"d", b"e", b"i", b"j", b"b"]
    # Sorting everything keeps equal members in the order they were found.
    assert g("GEORADIUS", "t", "1", "1", "100", "km", "ASC") == [
        b"a", b"b", b"c", b"d", b"e", b"i", b"j", b"f", b"h", b"g"]
    assert g("GEORADIUS", "t", "1", "1", "100", "km", "DESC") == [
        b"g", b"h", b"f", b"a", b"b", b"c", b"d", b"e", b"i", b"j"]
    assert g("GEORADIUS", "t", "1", "1", "100", "km") == [
        b"h", b"a", b"b", b"c", b"d", b"e", b"i", b"j", b"f", b"g"]


def test_search_matches_geodist(g):
    """Every member within the radius (by GEODIST) is found, and nothing else."""
    rnd = random.Random(7)
    args = []
    for i in range(150):
        args += ["%.6f" % rnd.uniform(-20, 20), "%.6f" % rnd.uniform(30, 60), "p%d" % i]
    assert g("GEOADD", "pts", *args) == 150
    for _ in range(15):
        centre = "p%d" % rnd.randrange(150)
        radius = rnd.uniform(50, 2000)
        found = g("GEOSEARCH", "pts", "FROMMEMBER", centre, "BYRADIUS", "%.3f" % radius, "km", "WITHDIST")
        got = {m: float(d) for m, d in found}
        want = set()
        for i in range(150):
            d = float(g("GEODIST", "pts", centre, "p%d" % i, "km"))
            if d <= radius - 0.001:
                want.add(b"p%d" % i)
            if b"p%d" % i in got:
                assert math.isclose(got[b"p%d" % i], d, abs_tol=0.0001)
                assert d <= radius + 0.001
        assert want <= set(got)
        ordered = g("GEOSEARCH", "pts", "FROMMEMBER", centre, "BYRADIUS", "%.3f" % radius, "km", "WITHDIST", "ASC")
        dists = [float(d) for _, d in ordered]
        assert dists == sorted(dists)
        assert sorted(m for m, _ in ordered) == sorted(got)


# --- types, events, protocols, persistence ----------------------------------

@pytest.mark.parametrize("cmd", [
    ["GEOADD", "s", "1", "2", "m"],
    ["GEOPOS", "s", "a"],
    ["GEOHASH", "s", "a"],
    ["GEODIST", "s", "a", "b"],
    ["GEORADIUS", "s", "1", "2", "-1", "km"],
    ["GEORADIUS_RO", "s", "1", "2", "1", "km"],
    ["GEORADIUSBYMEMBER", "s", "m", "-1", "km"],
    ["GEORADIUSBYMEMBER_RO", "s", "m", "1", "km"],
    ["GEOSEARCH", "s", "FROMLONLAT", "1", "200", "BYRADIUS", "1", "km"],
    ["GEOSEARCH", "s", "FROMLONLAT", "1", "2", "BYRADIUS", "1", "km", "COUNT", "0"],
    ["GEOSEARCHSTORE", "d", "s", "FROMLONLAT", "1", "2", "BYRADIUS", "1", "km"],
])
def test_wrongtype(dc, cmd):
    dc("SET", "s", "x")
    assert dc.err(*cmd) == WRONGTYPE


def read_events(sub):
    events = []
    while sub.pending(0.2):
        msg = sub.read()
        events.append((msg[2].decode(), msg[3].decode()))
    return events


def test_keyspace_events(dc, dconnect):
    dc("CONFIG", "SET", "notify-keyspace-events", "KEA")
    sub = dconnect()
    sub.send("PSUBSCRIBE", "__key*__:*")
    assert sub.read()[0] == b"psubscribe"
    dc("GEOADD", "ev", "1", "2", "a")
    dc("GEOADD", "ev", "XX", "CH", "1", "3", "a")
    dc("GEOADD", "ev", "NX", "1", "3", "a")  # no change, no event
    dc("GEORADIUS", "ev", "1", "2", "500", "km", "STORE", "evs")
    dc("GEOSEARCHSTORE", "evs2", "ev", "FROMLONLAT", "1", "2", "BYRADIUS", "500", "km")
    dc("GEORADIUS", "ev", "1", "2", "1", "m", "STORE", "evs")
    dc("GEOSEARCHSTORE", "evs2", "ev", "FROMLONLAT", "50", "2", "BYRADIUS", "1", "km")
    dc("GEORADIUS", "nokey", "1", "2", "1", "m", "STORE", "evs2")  # nothing to delete
    dc("GEORADIUS", "ev", "1", "2", "1", "km")
    dc("GEOPOS", "ev", "a")
    assert read_events(sub) == [
        ("__keyspace@0__:ev", "zadd"), ("__keyevent@0__:zadd", "ev"),
        ("__keyspace@0__:ev", "zadd"), ("__keyevent@0__:zadd", "ev"),
        ("__keyspace@0__:evs", "georadiusstore"), ("__keyevent@0__:georadiusstore", "evs"),
        ("__keyspace@0__:evs2", "geosearchstore"), ("__keyevent@0__:geosearchstore", "evs2"),
        ("__keyspace@0__:evs", "del"), ("__keyevent@0__:del", "evs"),
        ("__keyspace@0__:evs2", "del"), ("__keyevent@0__:del", "evs2"),
    ]


def test_resp3_frames(dc):
    sicily(dc)
    dc("HELLO", "3")
    assert dc.frame("GEOPOS", "Sicily", "Palermo", "nope") == \
        b"*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n_\r\n"
    assert dc.frame("GEOPOS", "nokey", "a") == b"*1\r\n_\r\n"
    assert dc.frame("GEOHASH", "Sicily", "Palermo", "nope") == b"*2\r\n$11\r\nsqc8b49rny0\r\n_\r\n"
    assert dc.frame("GEODIST", "Sicily", "Palermo", "Catania") == b"$11\r\n166274.1516\r\n"
    assert dc.frame("GEODIST", "Sicily", "Palermo", "x") == b"_\r\n"
    assert dc.frame("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "WITHHASH", "ASC") == (
        b"*2\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n*2\r\n,15.08726745843887329\r\n"
        b",37.50266842333162032\r\n*4\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n:3479099956230698\r\n*2\r\n"
        b",13.36138933897018433\r\n,38.11555639549629859\r\n")


def test_resp2_frames(dc):
    sicily(dc)
    assert dc.frame("GEOPOS", "Sicily", "Palermo", "nope") == \
        b"*2\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*-1\r\n"
    assert dc.frame("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHDIST") == \
        b"*2\r\n*2\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n*2\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n"
    assert dc.frame("GEOADD", "k", "500", "1", "m") == b"-ERR invalid longitude,latitude pair 500.000000,1.000000\r\n"


def aof_text(directory):
    d = os.path.join(directory, "appendonlydir")
    return b"".join(open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d)) if f.endswith(".incr.aof"))


def test_aof_records_zadd_and_replays(server_factory, tmp_path):
    args = ("--dir", str(tmp_path), "--appendonly", "yes", "--save", "")
    s = server_factory(*args)
    r = s.client()
    r.execute_command("GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")
    r.execute_command("GEOSEARCHSTORE", "near", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km",
                      "STOREDIST")
    before = {k: r.zrange(k, 0, -1, withscores=True) for k in (b"Sicily", b"near")}
    text = aof_text(str(tmp_path))
    # GEOADD is recorded as the ZADD it turned into.
    assert b"$4\r\nzadd\r\n$6\r\nSicily\r\n$16\r\n3479099956230698\r\n$7\r\nPalermo\r\n" in text
    assert b"GEOADD" not in text.upper()
    s.stop()
    r = server_factory(*args).client()
    assert {k: r.zrange(k, 0, -1, withscores=True) for k in (b"Sicily", b"near")} == before
