"""Integration tests for the sorted-set commands, checked against Redis 7.0.15.

Replies and error texts are asserted exactly through datatype_client.py.
Scores are printed as C's "%.17g" (so 1.1 reads back as
"1.1000000000000001") with "inf"/"-inf"; both encodings (listpack up to
zset-max-listpack-entries / -value, skiplist beyond) must give the same
replies, so most behaviour tests run once per encoding.
"""
import random
import time

import pytest

from datatype_client import NULL_ARRAY, WRONGTYPE, ReplyError, arity, check_random_members, scan_all, wait_blocked

NOT_FLOAT = "ERR value is not a valid float"
MINMAX_FLOAT = "ERR min or max is not a float"
MINMAX_LEX = "ERR min or max not valid string range item"
NOT_INT = "ERR value is not an integer or out of range"
UNBLOCKED = "UNBLOCKED client unblocked via CLIENT UNBLOCK"


def fmt(score):
    """The server's spelling of a score."""
    return ("%.17g" % score).encode()


@pytest.fixture(params=["listpack", "skiplist"])
def z(request, dc):
    """The raw client, with small zsets created in the parametrized encoding."""
    if request.param == "skiplist":
        dc("CONFIG", "SET", "zset-max-listpack-entries", "0")
    dc.zenc = request.param.encode()
    return dc


def zadd(dc, key, *pairs):
    n = dc("ZADD", key, *pairs)
    if hasattr(dc, "zenc"):
        assert dc.encoding(key) == dc.zenc
    return n


# --- ZADD ----------------------------------------------------------------

def test_zadd_basic(z):
    assert zadd(z, "z", "1", "a", "2", "b") == 2
    assert z("ZADD", "z", "3", "a", "4", "c") == 1
    assert z("ZRANGE", "z", "0", "-1", "WITHSCORES") == [b"b", b"2", b"a", b"3", b"c", b"4"]
    assert z("ZCARD", "z") == 3
    assert z("TYPE", "z") == "zset"
    # The last score given for a member wins.
    assert z("ZADD", "z2", "1", "m", "5", "m") == 1
    assert z("ZSCORE", "z2", "m") == b"5"


def test_zadd_nx_xx_ch(z):
    zadd(z, "z", "1", "a")
    assert z("ZADD", "z", "NX", "5", "a", "2", "b") == 1
    assert z("ZSCORE", "z", "a") == b"1"
    assert z("ZADD", "z", "XX", "5", "a", "3", "c") == 0
    assert z("ZSCORE", "z", "a") == b"5"
    assert z("ZSCORE", "z", "c") is None
    assert z("ZADD", "z", "CH", "6", "a", "2", "b", "7", "d") == 2
    assert z("ZADD", "z", "XX", "CH", "6", "a", "9", "b") == 1
    assert z("ZADD", "nokey", "XX", "1", "a") == 0
    assert z("EXISTS", "nokey") == 0


def test_zadd_gt_lt(z):
    zadd(z, "z", "5", "a")
    assert z("ZADD", "z", "GT", "CH", "1", "a") == 0
    assert z("ZSCORE", "z", "a") == b"5"
    assert z("ZADD", "z", "GT", "CH", "7", "a") == 1
    assert z("ZADD", "z", "LT", "CH", "9", "a") == 0
    assert z("ZADD", "z", "LT", "CH", "1", "a") == 1
    assert z("ZSCORE", "z", "a") == b"1"
    # GT and LT still add new members.
    assert z("ZADD", "z", "GT", "3", "new") == 1
    assert z("ZADD", "z", "LT", "XX", "0", "other") == 0
    assert z("ZRANGE", "z", "0", "-1", "WITHSCORES") == [b"a", b"1", b"new", b"3"]


def test_zadd_incr(z):
    assert z("ZADD", "z", "INCR", "1.5", "a") == b"1.5"
    assert z("ZADD", "z", "INCR", "1", "a") == b"2.5"
    assert z("ZADD", "z", "NX", "INCR", "1", "a") is None
    assert z("ZADD", "z", "XX", "INCR", "1", "nokey") is None
    assert z("ZADD", "z", "GT", "INCR", "-5", "a") is None
    assert z("ZADD", "z", "LT", "INCR", "-5", "a") == b"-2.5"
    assert z("ZADD", "z", "XX", "INCR", "1", "a") == b"-1.5"
    assert z("ZSCORE", "z", "a") == b"-1.5"
    assert z("ZCARD", "z") == 1


def test_zadd_errors(z):
    zadd(z, "z", "1", "a")
    assert z.err("ZADD", "z", "XX", "NX", "1", "a") == "ERR XX and NX options at the same time are not compatible"
    assert z.err("ZADD", "z", "NX", "XX", "CH", "1", "a") == (
        "ERR XX and NX options at the same time are not compatible")
    gt_lt_nx = "ERR GT, LT, and/or NX options at the same time are not compatible"
    assert z.err("ZADD", "z", "GT", "LT", "1", "a") == gt_lt_nx
    assert z.err("ZADD", "z", "GT", "NX", "1", "a") == gt_lt_nx
    assert z.err("ZADD", "z", "LT", "NX", "1", "a") == gt_lt_nx
    assert z.err("ZADD", "z", "INCR", "1", "a", "2", "b") == (
        "ERR INCR option supports a single increment-element pair")
    assert z.err("ZADD", "z", "INCR", "1") == "ERR syntax error"
    assert z.err("ZADD", "z", "1", "a", "2") == "ERR syntax error"
    assert z.err("ZADD", "z", "abc", "a") == NOT_FLOAT
    assert z.err("ZADD", "z", "nan", "a") == NOT_FLOAT
    assert z.err("ZADD", "z", "1", "b", "nan", "c") == NOT_FLOAT
    assert z.err("ZADD", "z", "1e400", "a") == NOT_FLOAT
    assert z.err("ZADD", "z", "1") == arity("zadd")
    assert z.err("ZADD", "z", "INCR") == arity("zadd")
    assert z.err("ZADD", "z") == arity("zadd")
    # Nothing of a failed command is applied.
    assert z("ZRANGE", "z", "0", "-1", "WITHSCORES") == [b"a", b"1"]


# --- Score printing ------------------------------------------------------

def test_score_printing(z):
    cases = [("1.1", b"1.1000000000000001"), ("3.0", b"3"), ("1.5", b"1.5"), ("-2.25", b"-2.25"),
             ("123456789012345678", b"1.2345678901234568e+17"), ("5e20", b"5e+20"),
             ("1e-5", b"1.0000000000000001e-05"), ("0.30000000000000004", b"0.30000000000000004"),
             ("inf", b"inf"), ("+inf", b"inf"), ("-inf", b"-inf"), ("-INF", b"-inf"),
             ("9007199254740993", b"9007199254740992"), ("1e400", None), ("1.5x", None)]
    for i, (given, printed) in enumerate(cases):
        member = "m%d" % i
        if printed is None:
            assert z.err("ZADD", "z", given, member) == NOT_FLOAT
            continue
        assert z("ZADD", "z", given, member) == 1
        assert z("ZSCORE", "z", member) == printed, given
    assert z.encoding("z") == z.zenc
    # Equal scores are ordered by member: m8 and m9 are both inf.
    assert z("ZRANGE", "z", "-1", "-1", "WITHSCORES") == [b"m9", b"inf"]
    assert z("ZRANGE", "z", "0", "0", "WITHSCORES") == [b"m10", b"-inf"]


def test_zincrby(z):
    assert z("ZINCRBY", "z", "0.1", "a") == b"0.10000000000000001"
    assert z("ZINCRBY", "z", "0.2", "a") == b"0.30000000000000004"
    assert z("ZINCRBY", "z", "2.5", "b") == b"2.5"
    assert z("ZINCRBY", "z", "-2.5", "b") == b"0"
    assert z("ZINCRBY", "z", "inf", "c") == b"inf"
    assert z.err("ZINCRBY", "z", "-inf", "c") == "ERR resulting score is not a number (NaN)"
    assert z("ZSCORE", "z", "c") == b"inf"
    assert z.err("ZINCRBY", "z", "abc", "a") == NOT_FLOAT
    assert z.err("ZINCRBY", "z", "nan", "a") == NOT_FLOAT
    assert z.err("ZINCRBY", "z", "1") == arity("zincrby")


# --- ZREM / ZCARD / ZSCORE / ZMSCORE / ZRANK / ZREVRANK ------------------

def test_zrem_zcard(z):
    zadd(z, "z", "1", "a", "2", "b", "3", "c")
    assert z("ZREM", "z", "a", "x", "a") == 1
    assert z("ZCARD", "z") == 2
    assert z("ZREM", "z", "b", "c") == 2
    assert z("EXISTS", "z") == 0
    assert z("ZREM", "nokey", "a") == 0
    assert z("ZCARD", "nokey") == 0
    assert z.err("ZREM", "z") == arity("zrem")
    assert z.err("ZCARD") == arity("zcard")


def test_zscore_zmscore(z):
    zadd(z, "z", "1", "a", "inf", "b")
    assert z("ZSCORE", "z", "a") == b"1"
    assert z("ZSCORE", "z", "x") is None
    assert z("ZSCORE", "nokey", "a") is None
    assert z("ZMSCORE", "z", "b", "x", "a") == [b"inf", None, b"1"]
    assert z("ZMSCORE", "nokey", "a", "b") == [None, None]
    assert z.err("ZMSCORE", "z") == arity("zmscore")


def test_zrank_zrevrank(z):
    zadd(z, "z", "1", "a", "2", "b", "2", "c", "3", "d")
    assert [z("ZRANK", "z", m) for m in "abcd"] == [0, 1, 2, 3]
    assert [z("ZREVRANK", "z", m) for m in "abcd"] == [3, 2, 1, 0]
    assert z("ZRANK", "z", "x") is None
    assert z("ZREVRANK", "nokey", "a") is None
    # WITHSCORE arrived in 7.2.
    assert z.err("ZRANK", "z", "a", "WITHSCORE") == arity("zrank")
    assert z.err("ZREVRANK", "z") == arity("zrevrank")


# --- ZCOUNT / ZLEXCOUNT --------------------------------------------------

def test_zcount(z):
    zadd(z, "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
    assert z("ZCOUNT", "z", "-inf", "+inf") == 5
    assert z("ZCOUNT", "z", "(1", "(5") == 3
    assert z("ZCOUNT", "z", "2", "4") == 3
    assert z("ZCOUNT", "z", "3", "1") == 0
    assert z("ZCOUNT", "z", "(3", "3") == 0
    assert z("ZCOUNT", "nokey", "0", "1") == 0
    for bad in (("a", "b"), ("(1", "(x"), ("nan", "1"), ("1", "((2"), ("1", "(2x")):
        assert z.err("ZCOUNT", "z", *bad) == MINMAX_FLOAT, bad


def test_zlexcount(z):
    zadd(z, "z", "0", "a", "0", "b", "0", "c", "0", "d")
    assert z("ZLEXCOUNT", "z", "-", "+") == 4
    assert z("ZLEXCOUNT", "z", "(a", "+") == 3
    assert z("ZLEXCOUNT", "z", "[b", "[c") == 2
    assert z("ZLEXCOUNT", "z", "(b", "(c") == 0
    assert z("ZLEXCOUNT", "z", "+", "-") == 0
    assert z("ZLEXCOUNT", "nokey", "-", "+") == 0
    for bad in (("a", "b"), ("[a", "b"), ("", "+"), ("-", "c")):
        assert z.err("ZLEXCOUNT", "z", *bad) == MINMAX_LEX, bad


# --- ZRANGE and the older range commands --------------------------------

def five(z):
    zadd(z, "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")


def test_zrange_by_rank(z):
    five(z)
    assert z("ZRANGE", "z", "0", "-1") == [b"a", b"b", b"c", b"d", b"e"]
    assert z("ZRANGE", "z", "1", "2", "WITHSCORES") == [b"b", b"2", b"c", b"3"]
    assert z("ZRANGE", "z", "-2", "-1") == [b"d", b"e"]
    assert z("ZRANGE", "z", "-100", "100") == [b"a", b"b", b"c", b"d", b"e"]
    assert z("ZRANGE", "z", "3", "1") == []
    assert z("ZRANGE", "z", "5", "10") == []
    assert z("ZRANGE", "z", "0", "-1", "REV") == [b"e", b"d", b"c", b"b", b"a"]
    assert z("ZRANGE", "z", "0", "1", "REV", "WITHSCORES") == [b"e", b"5", b"d", b"4"]
    assert z("ZRANGE", "z", "0", "1", "WITHSCORES", "WITHSCORES") == [b"a", b"1", b"b", b"2"]
    assert z("ZRANGE", "nokey", "0", "-1") == []
    assert z("ZREVRANGE", "z", "0", "1", "WITHSCORES") == [b"e", b"5", b"d", b"4"]
    assert z("ZREVRANGE", "z", "-1", "-1") == [b"a"]


def test_zrange_by_score(z):
    five(z)
    assert z("ZRANGE", "z", "(1", "3", "BYSCORE") == [b"b", b"c"]
    assert z("ZRANGE", "z", "3", "(1", "BYSCORE", "REV") == [b"c", b"b"]
    assert z("ZRANGE", "z", "(1", "+inf", "BYSCORE", "LIMIT", "1", "2", "WITHSCORES") == [b"c", b"3", b"d", b"4"]
    assert z("ZRANGE", "z", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "0", "-1") == [b"e", b"d", b"c", b"b", b"a"]
    assert z("ZRANGEBYSCORE", "z", "-inf", "+inf") == [b"a", b"b", b"c", b"d", b"e"]
    assert z("ZRANGEBYSCORE", "z", "-INF", "+Inf", "WITHSCORES", "LIMIT", "4", "10") == [b"e", b"5"]
    assert z("ZRANGEBYSCORE", "z", "2", "(4") == [b"b", b"c"]
    assert z("ZRANGEBYSCORE", "z", "(2", "(3") == []
    assert z("ZRANGEBYSCORE", "z", "1", "5", "LIMIT", "0", "2", "LIMIT", "2", "2") == [b"c", b"d"]
    assert z("ZRANGEBYSCORE", "z", "1", "5", "LIMIT", "0", "-5") == [b"a", b"b", b"c", b"d", b"e"]
    assert z("ZRANGEBYSCORE", "z", "1", "5", "LIMIT", "0", "0") == []
    assert z("ZRANGEBYSCORE", "z", "1", "5", "WITHSCORES", "LIMIT", "-1", "2") == []
    assert z("ZRANGEBYSCORE", "z", "5", "1") == []
    assert z("ZREVRANGEBYSCORE", "z", "5", "1", "LIMIT", "1", "2", "WITHSCORES") == [b"d", b"4", b"c", b"3"]
    assert z("ZREVRANGEBYSCORE", "z", "(5", "(1") == [b"d", b"c", b"b"]
    assert z("ZREVRANGEBYSCORE", "z", "1", "5") == []


def test_zrange_by_score_with_infinities_and_ties(z):
    zadd(z, "z", "-inf", "lo", "1", "b", "1", "a", "inf", "hi")
    assert z("ZRANGEBYSCORE", "z", "-inf", "inf", "WITHSCORES") == [
        b"lo", b"-inf", b"a", b"1", b"b", b"1", b"hi", b"inf"]
    assert z("ZRANGEBYSCORE", "z", "(-inf", "(inf") == [b"a", b"b"]
    assert z("ZRANGEBYSCORE", "z", "1", "1") == [b"a", b"b"]
    assert z("ZREVRANGEBYSCORE", "z", "1", "1") == [b"b", b"a"]
    assert z("ZCOUNT", "z", "inf", "inf") == 1


def test_zrange_by_lex(z):
    zadd(z, "z", *[x for m in "abcde" for x in ("0", m)])
    assert z("ZRANGE", "z", "[b", "(d", "BYLEX") == [b"b", b"c"]
    assert z("ZRANGE", "z", "(d", "[b", "BYLEX", "REV") == [b"c", b"b"]
    assert z("ZRANGE", "z", "-", "+", "BYLEX", "LIMIT", "1", "-1") == [b"b", b"c", b"d", b"e"]
    assert z("ZRANGE", "z", "+", "-", "BYLEX", "REV", "LIMIT", "1", "2") == [b"d", b"c"]
    assert z("ZRANGEBYLEX", "z", "-", "+") == [b"a", b"b", b"c", b"d", b"e"]
    assert z("ZRANGEBYLEX", "z", "(a", "[c") == [b"b", b"c"]
    assert z("ZRANGEBYLEX", "z", "(a", "(c") == [b"b"]
    assert z("ZRANGEBYLEX", "z", "[aa", "[cc") == [b"b", b"c"]
    assert z("ZRANGEBYLEX", "z", "+", "-") == []
    assert z("ZRANGEBYLEX", "z", "-", "+", "LIMIT", "2", "2") == [b"c", b"d"]
    assert z("ZREVRANGEBYLEX", "z", "+", "-", "LIMIT", "1", "2") == [b"d", b"c"]
    assert z("ZREVRANGEBYLEX", "z", "[c", "-") == [b"c", b"b", b"a"]
    assert z("ZREVRANGEBYLEX", "z", "-", "+") == []


def test_zrange_errors(z):
    five(z)
    assert z.err("ZRANGE", "z", "0", "1", "BYSCORE", "BYLEX") == "ERR syntax error"
    assert z.err("ZRANGE", "z", "0", "1", "LIMIT", "0", "1") == (
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
    assert z.err("ZRANGE", "z", "[a", "[c", "BYLEX", "WITHSCORES") == (
        "ERR syntax error, WITHSCORES not supported in combination with BYLEX")
    assert z.err("ZREVRANGEBYLEX", "z", "+", "-", "WITHSCORES") == (
        "ERR syntax error, WITHSCORES not supported in combination with BYLEX")
    assert z.err("ZRANGE", "z", "0", "1", "LIMIT", "0") == "ERR syntax error"
    assert z.err("ZRANGE", "z", "0", "1", "BYSCORE", "LIMIT", "x", "1") == NOT_INT
    assert z.err("ZRANGE", "z", "0", "1", "FOO") == "ERR syntax error"
    assert z.err("ZRANGE", "z", "a", "1") == NOT_INT
    assert z.err("ZRANGE", "z", "a", "1", "BYSCORE") == MINMAX_FLOAT
    assert z.err("ZRANGE", "z", "a", "b", "BYLEX") == MINMAX_LEX
    assert z.err("ZRANGEBYSCORE", "z", "a", "b") == MINMAX_FLOAT
    assert z.err("ZRANGEBYSCORE", "z", "(1", "(x") == MINMAX_FLOAT
    assert z.err("ZRANGEBYSCORE", "z", "nan", "1") == MINMAX_FLOAT
    assert z.err("ZRANGEBYSCORE", "z", "1", "5", "LIMIT") == "ERR syntax error"
    assert z.err("ZRANGEBYLEX", "z", "a", "b") == MINMAX_LEX
    assert z.err("ZRANGEBYLEX", "z", "[a", "b") == MINMAX_LEX
    assert z.err("ZRANGEBYLEX", "z", "-", "+", "FOO") == "ERR syntax error"
    assert z.err("ZREVRANGE", "z", "0", "1", "BYSCORE") == "ERR syntax error"
    assert z.err("ZRANGE", "z", "0") == arity("zrange")
    assert z.err("ZRANGEBYSCORE", "z", "0") == arity("zrangebyscore")
    assert z.err("ZREVRANGEBYLEX", "z", "0") == arity("zrevrangebylex")


def test_zrangestore(z):
    five(z)
    assert z("ZRANGESTORE", "d", "z", "0", "1") == 2
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"a", b"1", b"b", b"2"]
    assert z("ZRANGESTORE", "d", "z", "(1", "3", "BYSCORE", "LIMIT", "0", "1") == 1
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"b", b"2"]
    assert z("ZRANGESTORE", "d", "z", "+", "(c", "BYLEX", "REV") == 2
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"d", b"4", b"e", b"5"]
    assert z("ZRANGESTORE", "d", "z", "0", "0", "REV") == 1
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"e", b"5"]
    # An empty result deletes the destination.
    assert z("ZRANGESTORE", "d", "z", "1", "0") == 0
    assert z("EXISTS", "d") == 0
    z("SET", "str", "x")
    assert z("ZRANGESTORE", "str", "nokey", "0", "-1") == 0
    assert z("EXISTS", "str") == 0
    assert z.err("ZRANGESTORE", "d", "z", "0", "1", "WITHSCORES") == "ERR syntax error"
    assert z.err("ZRANGESTORE", "d", "z", "0") == arity("zrangestore")


# --- ZREMRANGEBY* --------------------------------------------------------

def test_zremrangebyrank(z):
    five(z)
    assert z("ZREMRANGEBYRANK", "z", "0", "0") == 1
    assert z("ZREMRANGEBYRANK", "z", "-2", "-1") == 2
    assert z("ZRANGE", "z", "0", "-1") == [b"b", b"c"]
    assert z("ZREMRANGEBYRANK", "z", "5", "10") == 0
    assert z("ZREMRANGEBYRANK", "z", "0", "-1") == 2
    assert z("EXISTS", "z") == 0
    assert z("ZREMRANGEBYRANK", "nokey", "0", "-1") == 0
    assert z.err("ZREMRANGEBYRANK", "z", "x", "0") == NOT_INT


def test_zremrangebyscore(z):
    five(z)
    assert z("ZREMRANGEBYSCORE", "z", "(1", "2") == 1
    assert z("ZREMRANGEBYSCORE", "z", "4", "(5") == 1
    assert z("ZRANGE", "z", "0", "-1") == [b"a", b"c", b"e"]
    assert z("ZREMRANGEBYSCORE", "z", "-inf", "+inf") == 3
    assert z("EXISTS", "z") == 0
    assert z.err("ZREMRANGEBYSCORE", "z", "x", "0") == MINMAX_FLOAT


def test_zremrangebylex(z):
    zadd(z, "z", *[x for m in "abcde" for x in ("0", m)])
    assert z("ZREMRANGEBYLEX", "z", "[b", "(d") == 2
    assert z("ZRANGE", "z", "0", "-1") == [b"a", b"d", b"e"]
    assert z("ZREMRANGEBYLEX", "z", "-", "+") == 3
    assert z("EXISTS", "z") == 0
    assert z.err("ZREMRANGEBYLEX", "z", "x", "0") == MINMAX_LEX


# --- ZPOPMIN / ZPOPMAX / ZMPOP -------------------------------------------

def test_zpopmin_zpopmax(z):
    five(z)
    assert z("ZPOPMIN", "z") == [b"a", b"1"]
    assert z("ZPOPMAX", "z", "2") == [b"e", b"5", b"d", b"4"]
    assert z("ZPOPMIN", "z", "0") == []
    assert z("ZPOPMIN", "z", "10") == [b"b", b"2", b"c", b"3"]
    assert z("EXISTS", "z") == 0
    # A missing key gives an empty array here (not a nil).
    assert z("ZPOPMIN", "nokey") == []
    assert z("ZPOPMAX", "nokey", "2") == []
    for cmd in ("ZPOPMIN", "ZPOPMAX"):
        assert z.err(cmd, "z", "-1") == "ERR value is out of range, must be positive"
        assert z.err(cmd, "z", "x") == "ERR value is out of range, must be positive"
        assert z.err(cmd, "z", "1", "2") == "ERR syntax error"
        assert z.err(cmd) == arity(cmd.lower())


def test_zmpop(z):
    zadd(z, "z2", "1", "a", "2", "b", "3", "c")
    assert z("ZMPOP", "2", "z1", "z2", "MIN") == [b"z2", [[b"a", b"1"]]]
    assert z("ZMPOP", "2", "z1", "z2", "MAX", "COUNT", "10") == [b"z2", [[b"c", b"3"], [b"b", b"2"]]]
    assert z("EXISTS", "z2") == 0
    assert z("ZMPOP", "2", "z1", "z2", "MIN") is NULL_ARRAY


def test_zmpop_errors(dc):
    dc("ZADD", "z", "1", "a")
    assert dc.err("ZMPOP", "0", "z", "MIN") == "ERR numkeys should be greater than 0"
    assert dc.err("ZMPOP", "x", "z", "MIN") == "ERR numkeys should be greater than 0"
    assert dc.err("ZMPOP", "1", "z", "FOO") == "ERR syntax error"
    assert dc.err("ZMPOP", "2", "z", "MIN") == "ERR syntax error"
    assert dc.err("ZMPOP", "1", "z", "MIN", "COUNT", "0") == "ERR count should be greater than 0"
    assert dc.err("ZMPOP", "1", "z", "MIN", "COUNT", "-1") == "ERR count should be greater than 0"
    assert dc.err("ZMPOP", "1", "z", "MIN", "COUNT", "1", "COUNT", "1") == "ERR syntax error"
    assert dc.err("ZMPOP", "1", "z") == arity("zmpop")
    assert dc("ZCARD", "z") == 1


# --- BZPOPMIN / BZPOPMAX / BZMPOP ----------------------------------------

def test_bzpop_immediate(dc):
    dc("ZADD", "z2", "1", "a", "2", "b", "3", "c")
    assert dc("BZPOPMIN", "z1", "z2", "0") == [b"z2", b"a", b"1"]
    assert dc("BZPOPMAX", "z1", "z2", "0") == [b"z2", b"c", b"3"]
    assert dc("BZMPOP", "0", "2", "z1", "z2", "MIN", "COUNT", "5") == [b"z2", [[b"b", b"2"]]]
    assert dc("EXISTS", "z2") == 0


def test_bzpopmin_woken_by_zadd(dc, dconnect):
    waiter = dconnect()
    waiter.send("BZPOPMIN", "z", "0")
    wait_blocked(dc, 1)
    assert dc("ZADD", "z", "2", "b", "1", "a") == 2
    assert waiter.read() == [b"z", b"a", b"1"]
    assert dc("ZRANGE", "z", "0", "-1") == [b"b"]


def test_bzpopmax_woken_on_second_key(dc, dconnect):
    waiter = dconnect()
    waiter.send("BZPOPMAX", "z1", "z2", "0")
    wait_blocked(dc, 1)
    dc("ZADD", "z2", "1.5", "a", "2.5", "b")
    assert waiter.read() == [b"z2", b"b", b"2.5"]


def test_bzmpop_woken(dc, dconnect):
    waiter = dconnect()
    waiter.send("BZMPOP", "0", "1", "z", "MAX", "COUNT", "2")
    wait_blocked(dc, 1)
    dc("ZADD", "z", "1", "a", "2", "b", "3", "c")
    assert waiter.read() == [b"z", [[b"c", b"3"], [b"b", b"2"]]]
    assert dc("ZRANGE", "z", "0", "-1") == [b"a"]


def test_bzpop_first_come_first_served(dc, dconnect):
    waiters = [dconnect() for _ in range(3)]
    for i, w in enumerate(waiters):
        w.send("BZPOPMIN", "z", "0")
        wait_blocked(dc, i + 1)
    dc("ZADD", "z", "1", "a", "2", "b", "3", "c")
    assert [w.read() for w in waiters] == [[b"z", b"a", b"1"], [b"z", b"b", b"2"], [b"z", b"c", b"3"]]


def test_bzpop_timeouts_and_errors(dc):
    for cmd in (("BZPOPMIN", "z", "0.1"), ("BZPOPMAX", "z", "0.1"), ("BZMPOP", "0.1", "1", "z", "MIN")):
        start = time.time()
        assert dc(*cmd) is NULL_ARRAY
        assert 0.09 <= time.time() - start < 2
    for cmd in (("BZPOPMIN", "z", "{}"), ("BZPOPMAX", "z", "{}"), ("BZMPOP", "{}", "1", "z", "MIN")):
        def run(timeout):
            return dc.err(*[a.replace("{}", timeout) for a in cmd])
        assert run("-1") == "ERR timeout is negative"
        assert run("x") == "ERR timeout is not a float or out of range"
    assert dc.err("BZMPOP", "0", "0", "z", "MIN") == "ERR numkeys should be greater than 0"
    assert dc.err("BZMPOP", "0", "1", "z", "MIN", "COUNT", "0") == "ERR count should be greater than 0"
    assert dc.err("BZPOPMIN", "z") == arity("bzpopmin")
    assert dc.err("BZMPOP", "0", "1", "z") == arity("bzmpop")


def test_bzpop_inside_multi_and_unblock(dc, dconnect):
    dc("MULTI")
    dc("BZPOPMIN", "z", "0")
    dc("BZMPOP", "0", "1", "z", "MIN")
    assert dc.frame("EXEC") == b"*2\r\n*-1\r\n*-1\r\n"
    waiter = dconnect()
    wid = waiter("CLIENT", "ID")
    waiter.send("BZPOPMAX", "z", "0")
    wait_blocked(dc, 1)
    assert dc("CLIENT", "UNBLOCK", wid) == 1
    assert waiter.read() is NULL_ARRAY
    waiter.send("BZMPOP", "0", "1", "z", "MIN")
    wait_blocked(dc, 1)
    assert dc("CLIENT", "UNBLOCK", wid, "ERROR") == 1
    assert waiter.read() == ReplyError(UNBLOCKED)


def test_bzpop_waiter_ignores_list_on_its_key(dc, dconnect):
    waiter = dconnect()
    waiter.send("BZPOPMIN", "z", "0")
    wait_blocked(dc, 1)
    dc("RPUSH", "z", "x")
    assert not waiter.pending(0.1)
    dc("DEL", "z")
    dc("ZADD", "z", "1", "m")
    assert waiter.read() == [b"z", b"m", b"1"]


# --- ZUNION / ZINTER / ZDIFF and the STORE forms, ZINTERCARD -------------

def setup_ab(z):
    zadd(z, "a", "1", "x", "2", "y")
    zadd(z, "b", "10", "y", "20", "z")


def test_zunionstore_weights_aggregate(z):
    setup_ab(z)
    assert z("ZUNIONSTORE", "d", "2", "a", "b") == 3
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"x", b"1", b"y", b"12", b"z", b"20"]
    assert z("ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "2", "3") == 3
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"x", b"2", b"y", b"34", b"z", b"60"]
    assert z("ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE", "MIN") == 3
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"x", b"1", b"y", b"2", b"z", b"20"]
    assert z("ZUNIONSTORE", "d", "2", "a", "b", "aggregate", "max", "weights", "1", "-1") == 3
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"z", b"-20", b"x", b"1", b"y", b"2"]
    assert z("ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE", "SUM") == 3
    assert z("ZUNIONSTORE", "d", "1", "nokey") == 0
    assert z("EXISTS", "d") == 0


def test_zinterstore_weights_aggregate(z):
    setup_ab(z)
    assert z("ZINTERSTORE", "d", "2", "a", "b") == 1
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"y", b"12"]
    assert z("ZINTERSTORE", "d", "2", "a", "b", "WEIGHTS", "0.5", "2", "AGGREGATE", "MAX") == 1
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"y", b"20"]
    assert z("ZINTERSTORE", "d", "2", "a", "b", "AGGREGATE", "MIN") == 1
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"y", b"2"]
    assert z("ZINTERSTORE", "d", "2", "a", "nokey") == 0
    assert z("EXISTS", "d") == 0


def test_zdiffstore(z):
    setup_ab(z)
    assert z("ZDIFFSTORE", "d", "2", "a", "b") == 1
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"x", b"1"]
    assert z("ZDIFFSTORE", "d", "1", "a") == 2
    assert z("ZDIFFSTORE", "d", "2", "a", "a") == 0
    assert z("EXISTS", "d") == 0
    assert z("ZDIFFSTORE", "d", "2", "nokey", "a") == 0


def test_zunion_zinter_zdiff_replies(z):
    setup_ab(z)
    assert z("ZUNION", "2", "a", "b") == [b"x", b"y", b"z"]
    assert z("ZUNION", "2", "a", "b", "WITHSCORES") == [b"x", b"1", b"y", b"12", b"z", b"20"]
    assert z("ZINTER", "2", "a", "b", "WITHSCORES", "AGGREGATE", "MAX") == [b"y", b"10"]
    assert z("ZINTER", "2", "a", "b") == [b"y"]
    assert z("ZDIFF", "2", "a", "b", "WITHSCORES") == [b"x", b"1"]
    assert z("ZDIFF", "2", "b", "a") == [b"z"]
    assert z("ZUNION", "1", "nokey") == []
    assert z("ZINTER", "2", "a", "nokey") == []


def test_set_algebra_accepts_plain_sets(z):
    zadd(z, "a", "1", "x", "2", "y")
    z("SADD", "s", "x", "y", "q")
    # Members of a plain set count with score 1.
    assert z("ZUNION", "2", "a", "s", "WITHSCORES") == [b"q", b"1", b"x", b"2", b"y", b"3"]
    assert z("ZINTER", "2", "s", "a", "WITHSCORES") == [b"x", b"2", b"y", b"3"]
    assert z("ZINTERSTORE", "d", "2", "s", "a", "WEIGHTS", "5", "1") == 2
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"x", b"6", b"y", b"7"]
    assert z("ZINTERCARD", "2", "a", "s") == 2


def test_infinities_in_set_algebra(z):
    zadd(z, "a", "inf", "x", "-inf", "y", "1", "z")
    zadd(z, "b", "-inf", "x", "inf", "y")
    # inf * 0 and inf + -inf are taken as 0 rather than NaN.
    assert z("ZUNIONSTORE", "d", "1", "a", "WEIGHTS", "0") == 3
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"x", b"0", b"y", b"0", b"z", b"0"]
    assert z("ZUNIONSTORE", "d", "2", "a", "b") == 3
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"x", b"0", b"y", b"0", b"z", b"1"]
    assert z("ZINTERSTORE", "d", "2", "a", "b", "AGGREGATE", "MAX") == 2
    assert z("ZRANGE", "d", "0", "-1", "WITHSCORES") == [b"x", b"inf", b"y", b"inf"]


def test_zintercard(z):
    setup_ab(z)
    zadd(z, "c", "1", "x", "2", "y", "3", "z")
    assert z("ZINTERCARD", "2", "a", "b") == 1
    assert z("ZINTERCARD", "2", "a", "c") == 2
    assert z("ZINTERCARD", "2", "a", "c", "LIMIT", "1") == 1
    assert z("ZINTERCARD", "2", "a", "c", "LIMIT", "0") == 2
    assert z("ZINTERCARD", "1", "c") == 3
    assert z("ZINTERCARD", "2", "a", "nokey") == 0


def test_set_algebra_errors(dc):
    dc("ZADD", "a", "1", "x")
    dc("ZADD", "b", "1", "x")
    for cmd in ("zunionstore", "zinterstore", "zdiffstore"):
        assert dc.err(cmd, "d", "0", "a") == "ERR at least 1 input key is needed for '%s' command" % cmd
        assert dc.err(cmd, "d", "-1", "a") == "ERR at least 1 input key is needed for '%s' command" % cmd
        assert dc.err(cmd, "d", "3", "a", "b") == "ERR syntax error"
        assert dc.err(cmd, "d", "x", "a") == NOT_INT
        assert dc.err(cmd, "d", "2", "a", "b", "WITHSCORES") == "ERR syntax error"
    for cmd in ("zunion", "zinter", "zdiff", "zintercard"):
        assert dc.err(cmd, "0", "a") == "ERR at least 1 input key is needed for '%s' command" % cmd
        assert dc.err(cmd, "3", "a", "b") == "ERR syntax error"
    for cmd in ("ZUNIONSTORE", "ZINTERSTORE"):
        assert dc.err(cmd, "d", "2", "a", "b", "WEIGHTS", "1") == "ERR syntax error"
        assert dc.err(cmd, "d", "2", "a", "b", "WEIGHTS", "1", "x") == "ERR weight value is not a float"
        assert dc.err(cmd, "d", "2", "a", "b", "AGGREGATE", "FOO") == "ERR syntax error"
        assert dc.err(cmd, "d", "2", "a", "b", "AGGREGATE") == "ERR syntax error"
    assert dc.err("ZDIFF", "2", "a", "b", "WEIGHTS", "1", "2") == "ERR syntax error"
    assert dc.err("ZDIFF", "2", "a", "b", "AGGREGATE", "SUM") == "ERR syntax error"
    assert dc.err("ZINTERCARD", "2", "a", "b", "WEIGHTS", "1", "2") == "ERR syntax error"
    assert dc.err("ZINTERCARD", "2", "a", "b", "LIMIT", "-1") == "ERR LIMIT can't be negative"
    assert dc.err("ZINTERCARD", "2", "a", "b", "LIMIT", "x") == "ERR LIMIT can't be negative"
    assert dc.err("ZINTERCARD", "1", "a", "FOO") == "ERR syntax error"
    assert dc.err("ZUNIONSTORE", "d", "1") == arity("zunionstore")
    assert dc.err("ZUNION", "1") == arity("zunion")
    assert dc("EXISTS", "d") == 0


# --- ZRANDMEMBER ---------------------------------------------------------

def test_zrandmember_listpack(dc):
    expected = {b"a": b"1", b"b": b"2.5", b"c": b"inf", b"d": b"-3", b"e": b"5"}
    dc("ZADD", "z", *[x for m, s in expected.items() for x in (s, m)])
    assert dc.encoding("z") == b"listpack"
    check_random_members(dc, "ZRANDMEMBER", "z", expected, "WITHSCORES")
    assert set(dc("ZRANDMEMBER", "z", "-200")) == set(expected)


def test_zrandmember_skiplist(dc):
    dc("CONFIG", "SET", "zset-max-listpack-entries", "4")
    expected = {b"m%d" % i: fmt(i / 2) for i in range(100)}
    dc("ZADD", "z", *[x for m, s in expected.items() for x in (s, m)])
    assert dc.encoding("z") == b"skiplist"
    check_random_members(dc, "ZRANDMEMBER", "z", expected, "WITHSCORES")


def test_zrandmember_missing_and_errors(dc):
    assert dc("ZRANDMEMBER", "nokey") is None
    assert dc("ZRANDMEMBER", "nokey", "3") == []
    assert dc("ZRANDMEMBER", "nokey", "-3", "WITHSCORES") == []
    dc("ZADD", "z", "1", "a")
    assert dc.err("ZRANDMEMBER", "z", "x") == NOT_INT
    assert dc.err("ZRANDMEMBER", "z", "1", "foo") == "ERR syntax error"
    assert dc.err("ZRANDMEMBER", "z", "-9223372036854775808") == (
        "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
    assert dc.err("ZRANDMEMBER", "z", "-4611686018427387904", "WITHSCORES") == "ERR value is out of range"


# --- ZSCAN ---------------------------------------------------------------

def test_zscan_listpack(dc):
    dc("ZADD", "z", "1", "a", "2", "key:1", "3", "key:2")
    assert dc("ZSCAN", "z", "0") == [b"0", [b"a", b"1", b"key:1", b"2", b"key:2", b"3"]]
    assert dc("ZSCAN", "z", "0", "COUNT", "1", "MATCH", "key:*") == [b"0", [b"key:1", b"2", b"key:2", b"3"]]


@pytest.mark.ours
def test_skiplist_members_live_in_their_nodes(dc):
    """Issue 17: a skiplist member is one allocation (its node, with the
    element inside) and the member table holds the nodes themselves, so 1000
    members take less than Valkey 8.0.1's 94 bytes each (Redis 7.0: ~102)."""
    dc("ZADD", "z", *[x for j in range(1000) for x in (j, "member:%d" % j)])
    assert dc.encoding("z") == b"skiplist"
    # The figure is jemalloc's block sizes (a sanitizer build runs on libc malloc).
    if b"mem_allocator:jemalloc" in dc("INFO", "memory"):
        assert dc("MEMORY", "USAGE", "z", "SAMPLES", "0") < 94 * 1000
    assert dc("ZSCORE", "z", "member:999") == b"999"
    assert dc("ZRANK", "z", "member:500") == 500
    assert dc("ZADD", "z", "5000", "member:0") == 0
    assert dc("ZREVRANGE", "z", "0", "0", "WITHSCORES") == [b"member:0", b"5000"]
    assert dc("ZREM", "z", "member:0", "nope") == 1
    assert dc("ZCARD", "z") == 999


def test_zscan_skiplist(dc):
    dc("CONFIG", "SET", "zset-max-listpack-entries", "4")
    dc("ZADD", "z", *[x for i in range(200) for x in (i, "m%d" % i)])
    assert dc.encoding("z") == b"skiplist"
    items, calls = scan_all(dc, "ZSCAN", "z", "COUNT", "10")
    assert calls > 1
    assert len(items) == 400
    assert dict(zip(items[0::2], items[1::2])) == {b"m%d" % i: b"%d" % i for i in range(200)}


def test_zscan_errors(dc):
    assert dc("ZSCAN", "nokey", "0") == [b"0", []]
    dc("ZADD", "z", "1", "a")
    assert dc.err("ZSCAN", "z", "x") == "ERR invalid cursor"
    assert dc.err("ZSCAN", "z", "0", "NOVALUES") == "ERR syntax error"
    assert dc.err("ZSCAN", "z", "0", "COUNT", "0") == "ERR syntax error"


# --- WRONGTYPE -----------------------------------------------------------

def test_wrongtype(dc):
    dc("SET", "str", "x")
    dc("ZADD", "z", "1", "a")
    for cmd in (("ZADD", "str", "1", "a"), ("ZINCRBY", "str", "1", "a"), ("ZREM", "str", "a"),
                ("ZCARD", "str"), ("ZSCORE", "str", "a"), ("ZMSCORE", "str", "a"), ("ZRANK", "str", "a"),
                ("ZREVRANK", "str", "a"), ("ZCOUNT", "str", "0", "1"), ("ZLEXCOUNT", "str", "-", "+"),
                ("ZRANGE", "str", "0", "-1"), ("ZRANGEBYSCORE", "str", "0", "1"),
                ("ZREVRANGEBYSCORE", "str", "1", "0"), ("ZRANGEBYLEX", "str", "-", "+"),
                ("ZREVRANGEBYLEX", "str", "+", "-"), ("ZREVRANGE", "str", "0", "-1"),
                ("ZRANGESTORE", "d", "str", "0", "-1"), ("ZREMRANGEBYRANK", "str", "0", "1"),
                ("ZREMRANGEBYSCORE", "str", "0", "1"), ("ZREMRANGEBYLEX", "str", "-", "+"),
                ("ZPOPMIN", "str"), ("ZPOPMAX", "str"), ("ZMPOP", "1", "str", "MIN"),
                ("BZPOPMIN", "str", "0"), ("BZPOPMAX", "str", "0"), ("BZMPOP", "0", "1", "str", "MIN"),
                ("ZUNIONSTORE", "d", "2", "z", "str"), ("ZINTERSTORE", "d", "2", "z", "str"),
                ("ZDIFFSTORE", "d", "2", "z", "str"), ("ZUNION", "2", "z", "str"),
                ("ZINTER", "2", "z", "str"), ("ZDIFF", "2", "z", "str"), ("ZINTERCARD", "2", "z", "str"),
                ("ZRANDMEMBER", "str"), ("ZSCAN", "str", "0")):
        assert dc.err(*cmd) == WRONGTYPE, cmd
    assert dc("EXISTS", "d") == 0
    assert dc.err("GET", "z") == WRONGTYPE


# --- Encodings -----------------------------------------------------------

def test_encoding_defaults(dc):
    assert dc("CONFIG", "GET", "zset-max-listpack-entries") == [b"zset-max-listpack-entries", b"128"]
    assert dc("CONFIG", "GET", "zset-max-listpack-value") == [b"zset-max-listpack-value", b"64"]
    assert dc("CONFIG", "GET", "zset-max-ziplist-entries") == [b"zset-max-ziplist-entries", b"128"]
    assert dc("CONFIG", "GET", "zset-max-ziplist-value") == [b"zset-max-ziplist-value", b"64"]


def test_encoding_entries_threshold(dc):
    dc("ZADD", "z", *[x for i in range(128) for x in (i, "m%d" % i)])
    assert dc.encoding("z") == b"listpack"
    dc("ZADD", "z", "1000", "m1")  # an update does not grow it
    assert dc.encoding("z") == b"listpack"
    dc("ZADD", "z", "5", "extra")
    assert dc.encoding("z") == b"skiplist"
    assert dc("ZCARD", "z") == 129
    assert dc("ZRANK", "z", "m1") == 128
    dc("ZADD", "z2", *[x for i in range(129) for x in (i, "m%d" % i)])
    assert dc.encoding("z2") == b"skiplist"


def test_encoding_value_threshold(dc):
    dc("ZADD", "z", "1", "x" * 64)
    assert dc.encoding("z") == b"listpack"
    dc("ZADD", "z", "2", "y" * 65)
    assert dc.encoding("z") == b"skiplist"
    dc("ZINCRBY", "z2", "1", "q" * 65)
    assert dc.encoding("z2") == b"skiplist"


def test_encoding_config_set(dc):
    assert dc("CONFIG", "SET", "zset-max-listpack-entries", "2") == "OK"
    assert dc("CONFIG", "GET", "zset-max-ziplist-entries") == [b"zset-max-ziplist-entries", b"2"]
    dc("ZADD", "z", "1", "a", "2", "b")
    assert dc.encoding("z") == b"listpack"
    dc("ZADD", "z", "3", "c")
    assert dc.encoding("z") == b"skiplist"
    # Removing members keeps the skiplist.
    dc("ZREMRANGEBYRANK", "z", "0", "1")
    assert dc.encoding("z") == b"skiplist"
    dc("ZADD", "z", "1", "a", "2", "b")
    # Stored results get the encoding their size calls for.
    dc("CONFIG", "SET", "zset-max-listpack-entries", "128")
    for cmd in (("ZUNIONSTORE", "d1", "1", "z"), ("ZINTERSTORE", "d2", "2", "z", "z"),
                ("ZDIFFSTORE", "d3", "1", "z"), ("ZRANGESTORE", "d4", "z", "0", "-1")):
        assert dc(*cmd) == 3
        assert dc.encoding(cmd[1]) == b"listpack", cmd
    dc("CONFIG", "SET", "zset-max-listpack-entries", "1")
    assert dc("ZUNIONSTORE", "d5", "1", "d1") == 3
    assert dc.encoding("d5") == b"skiplist"
    assert dc("CONFIG", "SET", "zset-max-ziplist-value", "3") == "OK"
    assert dc("CONFIG", "GET", "zset-max-listpack-value") == [b"zset-max-listpack-value", b"3"]
    dc("CONFIG", "SET", "zset-max-listpack-entries", "128")
    dc("ZADD", "v", "1", "abc")
    assert dc.encoding("v") == b"listpack"
    dc("ZADD", "v", "1", "abcd")
    assert dc.encoding("v") == b"skiplist"
    dc("CONFIG", "SET", "zset-max-listpack-entries", "0")
    dc("ZADD", "w", "1", "a")
    assert dc.encoding("w") == b"skiplist"


def test_random_edits_match_a_model(z):
    """Random ZADD/ZINCRBY/ZREM against a Python model, checked by rank, score and lex queries."""
    if z.zenc == b"listpack":
        z("CONFIG", "SET", "zset-max-listpack-entries", "1000")
    rng = random.Random(11)
    model = {}
    for _ in range(400):
        m = ("m%02d" % rng.randrange(60)).encode()
        op = rng.randrange(4)
        if op <= 1:
            s = rng.randrange(-20, 20) / 4
            added = m not in model
            assert z("ZADD", "z", fmt(s), m) == (1 if added else 0)
            model[m] = s
        elif op == 2:
            inc = rng.randrange(-8, 8) / 4
            model[m] = model.get(m, 0.0) + inc
            assert z("ZINCRBY", "z", fmt(inc), m) == fmt(model[m])
        else:
            assert z("ZREM", "z", m) == (1 if m in model else 0)
            model.pop(m, None)
    order = sorted(model, key=lambda k: (model[k], k))
    assert z.encoding("z") == z.zenc
    assert z("ZCARD", "z") == len(order)
    flat = z("ZRANGE", "z", "0", "-1", "WITHSCORES")
    assert flat[0::2] == order
    assert flat[1::2] == [fmt(model[m]) for m in order]
    assert z("ZRANGE", "z", "0", "-1", "REV") == order[::-1]
    for m in order[::7]:
        assert z("ZRANK", "z", m) == order.index(m)
        assert z("ZREVRANK", "z", m) == len(order) - 1 - order.index(m)
    for lo, hi in ((-2, 2), (-5, -1), (0, 0), (1.25, 3)):
        expect = [m for m in order if lo <= model[m] <= hi]
        assert z("ZRANGEBYSCORE", "z", fmt(lo), fmt(hi)) == expect
        assert z("ZCOUNT", "z", fmt(lo), fmt(hi)) == len(expect)
        expect = [m for m in order if lo < model[m] < hi]
        assert z("ZRANGEBYSCORE", "z", b"(" + fmt(lo), b"(" + fmt(hi)) == expect
        assert z("ZREVRANGEBYSCORE", "z", b"(" + fmt(hi), b"(" + fmt(lo)) == expect[::-1]
    # Lex ranges only make sense on equal scores: put them all at 0.
    z("ZADD", "lex", *[x for m in model for x in ("0", m)])
    names = sorted(model)
    assert z("ZRANGEBYLEX", "lex", "[m10", "(m40") == [m for m in names if b"m10" <= m < b"m40"]
    assert z("ZLEXCOUNT", "lex", "(m10", "+") == len([m for m in names if m > b"m10"])


@pytest.mark.parametrize("bring", [
    [("RENAME", "src", "dst")],
    [("COPY", "src", "dst")],
    [("SET", "dst", "x"), ("RENAME", "src", "dst")],
    [("SELECT", "3"), ("ZADD", "dst", "1", "m"), ("MOVE", "dst", "0"), ("SELECT", "0")],
    [("RESTORE", "dst", "0", "<dump of src>")],
    [("ZUNIONSTORE", "dst", "1", "src")],
    [("ZRANGESTORE", "dst", "src", "0", "-1")],
    [("ZDIFFSTORE", "dst", "1", "src")],
    [("GEOADD", "g", "13.361389", "38.115556", "m"), ("GEOSEARCHSTORE", "dst", "g", "FROMLONLAT", "15", "37",
                                                         "BYRADIUS", "200", "km", "STOREDIST")],
])
def test_zset_waiter_woken_by_any_command_creating_its_key(dc, dconnect, bring):
    """BZPOPMIN / BZMPOP waiters are served when a command adds their key
    (RENAME, COPY, MOVE, RESTORE, the *STORE commands), as in Redis 7.0."""
    dc("ZADD", "src", "1", "m")
    payload = dc("DUMP", "src")
    waiters = [dconnect(), dconnect()]
    waiters[0].send("BLPOP", "dst", "0")  # a list waiter first: passed over
    wait_blocked(dc, 1)
    waiters[1].send("BZMPOP", "0", "1", "dst", "MIN")
    wait_blocked(dc, 2)
    dc("MULTI")
    for cmd in bring:
        dc(*[payload if a == "<dump of src>" else a for a in cmd])
    dc("EXEC")
    reply = waiters[1].read()
    assert reply[0] == b"dst" and reply[1][0][0] == b"m"
    wait_blocked(dc, 1)
    assert not waiters[0].pending(0.05)


def test_big_zset_churn_matches_model(r):
    """Thousands of members under random ZADD (ties on the score are common,
    as are moves to far places), ZINCRBY, ZADD GT/LT and ZREM: order, scores,
    ranks, ZSCAN and ZRANDMEMBER stay those of a plain model."""
    rng = random.Random(1717)
    pool = [b"member:%d" % i for i in range(4000)]
    model = {}

    def check():
        ordered = sorted(model.items(), key=lambda kv: (kv[1], kv[0]))
        got = r.zrange("z", 0, -1, withscores=True)
        assert got == [(m, s) for m, s in ordered]
        sample = rng.sample(pool, 200)
        pipe = r.pipeline(transaction=False)
        for m in sample:
            pipe.zscore("z", m)
            pipe.zrank("z", m)
        replies = pipe.execute()
        rank = {m: i for i, (m, _) in enumerate(ordered)}
        for i, m in enumerate(sample):
            assert replies[2 * i] == model.get(m)
            assert replies[2 * i + 1] == rank.get(m)
        scanned = dict(r.zscan_iter("z"))
        assert scanned == model
        for count in (50, -50):  # distinct members, then repeats allowed
            flat = r.zrandmember("z", count, withscores=True)
            assert len(flat) == 100
            for m, s in zip(flat[0::2], flat[1::2]):
                assert model[m] == float(s)

    for rnd in range(8):
        pipe = r.pipeline(transaction=False)
        for _ in range(4000):
            m = rng.choice(pool)
            op = rng.random()
            score = float(rng.randrange(600)) if rng.random() < 0.8 else rng.uniform(-1000, 1000)
            if op < 0.55:
                pipe.zadd("z", {m: score})
                model[m] = score
            elif op < 0.7:
                pipe.zincrby("z", 7, m)
                model[m] = model.get(m, 0.0) + 7
            elif op < 0.8:
                gt = rng.random() < 0.5
                pipe.zadd("z", {m: score}, gt=gt, lt=not gt)
                if m not in model or (gt and score > model[m]) or (not gt and score < model[m]):
                    model[m] = score
            else:
                pipe.zrem("z", m)
                model.pop(m, None)
        pipe.execute()
        assert r.object("encoding", "z") == b"skiplist"
        assert r.zcard("z") == len(model)
        check()
