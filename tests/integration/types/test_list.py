"""Integration tests for the list commands, blocking ones included, checked
against Redis 7.0.15.

Replies and error texts are asserted exactly through datatype_client.py.
Blocking tests leave one client blocked (its command sent, its
reply not yet read, or a redis-py call in a thread) while another client
pushes, and wait for INFO's blocked_clients instead of sleeping.
The timeouts of every blocking command (zset, stream and WAIT ones too) are
checked here as well, each against other clients blocked with other
deadlines, since one index of deadlines serves them all.
In 7.0 every list is encoded "quicklist", whatever its size; we encode as
Redis 7.2 does (a list that fits one node is a "listpack"), the one accepted
difference (enc72).
"""
import random
import threading
import time

import pytest

from datatype_client import NULL_ARRAY, WRONGTYPE, ReplyError, arity, wait_blocked
from support import enc72, info

UNBLOCKED = "UNBLOCKED client unblocked via CLIENT UNBLOCK"


def lrange(dc, key):
    return dc("LRANGE", key, "0", "-1")


# --- LPUSH / RPUSH / LPUSHX / RPUSHX -------------------------------------

def test_push_order_and_length(dc):
    assert dc("RPUSH", "l", "a", "b") == 2
    assert dc("LPUSH", "l", "x", "y") == 4
    assert lrange(dc, "l") == [b"y", b"x", b"a", b"b"]
    assert dc("LLEN", "l") == 4
    assert dc("TYPE", "l") == "list"


def test_pushx_only_on_existing_lists(dc):
    assert dc("LPUSHX", "l", "a") == 0
    assert dc("RPUSHX", "l", "a", "b") == 0
    assert dc("EXISTS", "l") == 0
    dc("RPUSH", "l", "m")
    assert dc("LPUSHX", "l", "b", "c") == 3
    assert dc("RPUSHX", "l", "y", "z") == 5
    assert lrange(dc, "l") == [b"c", b"b", b"m", b"y", b"z"]


def test_push_arity(dc):
    for cmd in ("LPUSH", "RPUSH", "LPUSHX", "RPUSHX"):
        assert dc.err(cmd, "l") == arity(cmd.lower())


def test_binary_and_integer_elements(dc):
    elems = [b"", b"\x00\xff\r\n", b"12345678901234567890", b"-9223372036854775808", b"0", b"x" * 1000]
    dc("RPUSH", "l", *elems)
    assert lrange(dc, "l") == elems
    assert dc("LINDEX", "l", "3") == b"-9223372036854775808"


# --- LPOP / RPOP ---------------------------------------------------------

def test_pop_single(dc):
    dc("RPUSH", "l", "a", "b", "c")
    assert dc("LPOP", "l") == b"a"
    assert dc("RPOP", "l") == b"c"
    assert dc("RPOP", "l") == b"b"
    assert dc("EXISTS", "l") == 0
    assert dc("LPOP", "l") is None
    assert dc("RPOP", "l") is None


def test_pop_with_count(dc):
    dc("RPUSH", "l", "a", "b", "c", "d", "e")
    assert dc("LPOP", "l", "0") == []
    assert dc("LPOP", "l", "2") == [b"a", b"b"]
    assert dc("RPOP", "l", "2") == [b"e", b"d"]
    assert dc("RPOP", "l", "5") == [b"c"]
    assert dc("EXISTS", "l") == 0
    # A missing key gives the nil array, even with count 0.
    assert dc("LPOP", "l", "0") is NULL_ARRAY
    assert dc("LPOP", "l", "2") is NULL_ARRAY
    assert dc("RPOP", "l", "2") is NULL_ARRAY


def test_pop_count_errors(dc):
    dc("RPUSH", "l", "a")
    for cmd in ("LPOP", "RPOP"):
        assert dc.err(cmd, "l", "-1") == "ERR value is out of range, must be positive"
        assert dc.err(cmd, "l", "x") == "ERR value is out of range, must be positive"
        assert dc.err(cmd, "l", "1", "2") == arity(cmd.lower())
        assert dc.err(cmd) == arity(cmd.lower())
    assert lrange(dc, "l") == [b"a"]


# --- LLEN / LRANGE / LINDEX / LSET ---------------------------------------

def test_lrange_bounds(dc):
    dc("RPUSH", "l", "a", "b", "c", "d")
    assert dc("LRANGE", "l", "1", "2") == [b"b", b"c"]
    assert dc("LRANGE", "l", "-2", "-1") == [b"c", b"d"]
    assert dc("LRANGE", "l", "-100", "100") == [b"a", b"b", b"c", b"d"]
    assert dc("LRANGE", "l", "2", "1") == []
    assert dc("LRANGE", "l", "5", "10") == []
    assert dc("LRANGE", "l", "0", "-5") == []
    assert dc("LRANGE", "nokey", "0", "-1") == []
    assert dc.err("LRANGE", "l", "x", "1") == "ERR value is not an integer or out of range"
    assert dc.err("LRANGE", "l", "1") == arity("lrange")
    assert dc("LLEN", "nokey") == 0
    assert dc.err("LLEN") == arity("llen")


def test_lindex(dc):
    dc("RPUSH", "l", "a", "b", "c")
    assert dc("LINDEX", "l", "0") == b"a"
    assert dc("LINDEX", "l", "-1") == b"c"
    assert dc("LINDEX", "l", "-3") == b"a"
    assert dc("LINDEX", "l", "3") is None
    assert dc("LINDEX", "l", "-4") is None
    assert dc("LINDEX", "nokey", "0") is None
    assert dc.err("LINDEX", "l", "x") == "ERR value is not an integer or out of range"
    assert dc.err("LINDEX", "l") == arity("lindex")


def test_lset(dc):
    assert dc.err("LSET", "nokey", "0", "a") == "ERR no such key"
    dc("RPUSH", "l", "a", "b", "c")
    assert dc("LSET", "l", "0", "x") == "OK"
    assert dc("LSET", "l", "-1", "z") == "OK"
    assert dc("LSET", "l", "-3", "w") == "OK"
    assert lrange(dc, "l") == [b"w", b"b", b"z"]
    assert dc.err("LSET", "l", "3", "a") == "ERR index out of range"
    assert dc.err("LSET", "l", "-4", "a") == "ERR index out of range"
    assert dc.err("LSET", "l", "x", "a") == "ERR value is not an integer or out of range"
    assert dc.err("LSET", "l", "1") == arity("lset")
    assert dc("LSET", "l", "1", "y" * 500) == "OK"
    assert dc("LINDEX", "l", "1") == b"y" * 500


# --- LINSERT / LREM / LTRIM ----------------------------------------------

def test_linsert(dc):
    dc("RPUSH", "l", "a", "b", "c", "b")
    assert dc("LINSERT", "l", "BEFORE", "b", "X") == 5
    assert dc("LINSERT", "l", "after", "b", "Y") == 6
    assert lrange(dc, "l") == [b"a", b"X", b"b", b"Y", b"c", b"b"]
    assert dc("LINSERT", "l", "AFTER", "nope", "Z") == -1
    assert dc("LINSERT", "nokey", "AFTER", "a", "Z") == 0
    assert dc("EXISTS", "nokey") == 0
    assert dc.err("LINSERT", "l", "MIDDLE", "a", "Z") == "ERR syntax error"
    assert dc.err("LINSERT", "l", "BEFORE", "a") == arity("linsert")
    assert dc("LLEN", "l") == 6


def test_lrem(dc):
    dc("RPUSH", "l", "a", "b", "a", "c", "a", "b", "a")
    assert dc("LREM", "l", "2", "a") == 2
    assert lrange(dc, "l") == [b"b", b"c", b"a", b"b", b"a"]
    assert dc("LREM", "l", "-1", "a") == 1
    assert lrange(dc, "l") == [b"b", b"c", b"a", b"b"]
    assert dc("LREM", "l", "0", "b") == 2
    assert lrange(dc, "l") == [b"c", b"a"]
    assert dc("LREM", "l", "0", "nothing") == 0
    assert dc("LREM", "nokey", "0", "a") == 0
    assert dc("LREM", "l", "0", "c") == 1
    assert dc("LREM", "l", "-5", "a") == 1
    assert dc("EXISTS", "l") == 0
    assert dc.err("LREM", "l", "x", "a") == "ERR value is not an integer or out of range"
    assert dc.err("LREM", "l", "1") == arity("lrem")


def test_lrem_integer_elements(dc):
    dc("RPUSH", "l", "1", "01", "1", "1.0")
    assert dc("LREM", "l", "0", "1") == 2
    assert lrange(dc, "l") == [b"01", b"1.0"]


def test_ltrim(dc):
    dc("RPUSH", "l", "a", "b", "c", "d", "e")
    assert dc("LTRIM", "l", "1", "-2") == "OK"
    assert lrange(dc, "l") == [b"b", b"c", b"d"]
    assert dc("LTRIM", "l", "-2", "100") == "OK"
    assert lrange(dc, "l") == [b"c", b"d"]
    assert dc("LTRIM", "l", "5", "10") == "OK"
    assert dc("EXISTS", "l") == 0
    dc("RPUSH", "l", "a", "b")
    assert dc("LTRIM", "l", "1", "0") == "OK"
    assert dc("EXISTS", "l") == 0
    assert dc("LTRIM", "nokey", "0", "1") == "OK"
    assert dc.err("LTRIM", "l", "1", "x") == "ERR value is not an integer or out of range"
    assert dc.err("LTRIM", "l", "1") == arity("ltrim")


# --- LPOS ----------------------------------------------------------------

def test_lpos(dc):
    dc("RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c")
    assert dc("LPOS", "l", "c") == 2
    assert dc("LPOS", "l", "c", "RANK", "2") == 6
    assert dc("LPOS", "l", "c", "RANK", "-1") == 7
    assert dc("LPOS", "l", "c", "RANK", "-3") == 2
    assert dc("LPOS", "l", "c", "RANK", "4") is None
    assert dc("LPOS", "l", "c", "COUNT", "0") == [2, 6, 7]
    assert dc("LPOS", "l", "c", "COUNT", "2") == [2, 6]
    assert dc("LPOS", "l", "c", "RANK", "-1", "COUNT", "2") == [7, 6]
    assert dc("LPOS", "l", "c", "RANK", "3", "COUNT", "2") == [7]
    assert dc("LPOS", "l", "c", "COUNT", "0", "MAXLEN", "3") == [2]
    assert dc("LPOS", "l", "c", "MAXLEN", "2") is None
    assert dc("LPOS", "l", "c", "MAXLEN", "0") == 2
    assert dc("LPOS", "l", "a", "RANK", "-1", "MAXLEN", "1") is None
    assert dc("LPOS", "l", "c", "RANK", "-1", "MAXLEN", "1") == 7
    assert dc("LPOS", "l", "1") == 3
    assert dc("LPOS", "l", "nothere") is None
    assert dc("LPOS", "l", "nothere", "COUNT", "0") == []
    assert dc("LPOS", "nokey", "x") is None
    assert dc("LPOS", "nokey", "x", "COUNT", "0") == []
    # The last of a repeated option wins.
    assert dc("LPOS", "l", "c", "COUNT", "1", "COUNT", "2") == [2, 6]


def test_lpos_errors(dc):
    dc("RPUSH", "l", "a")
    assert dc.err("LPOS", "l", "a", "RANK", "0") == (
        "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
        "or use negative to start from the end of the list")
    assert dc.err("LPOS", "l", "a", "COUNT", "-1") == "ERR COUNT can't be negative"
    assert dc.err("LPOS", "l", "a", "COUNT", "x") == "ERR COUNT can't be negative"
    assert dc.err("LPOS", "l", "a", "MAXLEN", "-1") == "ERR MAXLEN can't be negative"
    assert dc.err("LPOS", "l", "a", "MAXLEN", "x") == "ERR MAXLEN can't be negative"
    assert dc.err("LPOS", "l", "a", "RANK", "x") == "ERR value is not an integer or out of range"
    assert dc.err("LPOS", "l", "a", "RANK") == "ERR syntax error"
    assert dc.err("LPOS", "l", "a", "FOO") == "ERR syntax error"
    assert dc.err("LPOS", "l") == arity("lpos")


# --- LMOVE / RPOPLPUSH / LMPOP -------------------------------------------

def test_lmove_directions(dc):
    dc("RPUSH", "src", "a", "b", "c")
    dc("RPUSH", "dst", "x")
    assert dc("LMOVE", "src", "dst", "LEFT", "LEFT") == b"a"
    assert dc("LMOVE", "src", "dst", "RIGHT", "RIGHT") == b"c"
    assert dc("LMOVE", "src", "dst", "left", "right") == b"b"
    assert lrange(dc, "dst") == [b"a", b"x", b"c", b"b"]
    assert dc("EXISTS", "src") == 0
    assert dc("LMOVE", "dst", "new", "RIGHT", "LEFT") == b"b"
    assert lrange(dc, "new") == [b"b"]
    assert dc("LMOVE", "nokey", "dst", "LEFT", "LEFT") is None
    assert dc("EXISTS", "nokey") == 0


def test_lmove_rotation_same_key(dc):
    dc("RPUSH", "l", "a", "b", "c")
    assert dc("LMOVE", "l", "l", "LEFT", "RIGHT") == b"a"
    assert lrange(dc, "l") == [b"b", b"c", b"a"]
    assert dc("LMOVE", "l", "l", "RIGHT", "LEFT") == b"a"
    assert lrange(dc, "l") == [b"a", b"b", b"c"]
    assert dc("RPOPLPUSH", "l", "l") == b"c"
    assert lrange(dc, "l") == [b"c", b"a", b"b"]


def test_lmove_errors(dc):
    dc("RPUSH", "l", "a")
    dc("SET", "s", "x")
    assert dc.err("LMOVE", "l", "d", "FOO", "LEFT") == "ERR syntax error"
    assert dc.err("LMOVE", "l", "d", "LEFT", "UP") == "ERR syntax error"
    assert dc.err("LMOVE", "l", "d", "LEFT") == arity("lmove")
    assert dc.err("LMOVE", "s", "d", "LEFT", "LEFT") == WRONGTYPE
    assert dc.err("LMOVE", "l", "s", "LEFT", "LEFT") == WRONGTYPE
    assert dc.err("RPOPLPUSH", "l", "s") == WRONGTYPE
    assert lrange(dc, "l") == [b"a"]
    assert dc.err("RPOPLPUSH", "l") == arity("rpoplpush")


def test_rpoplpush(dc):
    dc("RPUSH", "src", "a", "b")
    assert dc("RPOPLPUSH", "src", "dst") == b"b"
    assert dc("RPOPLPUSH", "src", "dst") == b"a"
    assert lrange(dc, "dst") == [b"a", b"b"]
    assert dc("EXISTS", "src") == 0
    assert dc("RPOPLPUSH", "src", "dst") is None


def test_lmpop(dc):
    dc("RPUSH", "l2", "a", "b", "c", "d")
    assert dc("LMPOP", "2", "l1", "l2", "LEFT") == [b"l2", [b"a"]]
    assert dc("LMPOP", "2", "l1", "l2", "RIGHT", "COUNT", "2") == [b"l2", [b"d", b"c"]]
    dc("RPUSH", "l1", "x")
    assert dc("LMPOP", "2", "l1", "l2", "left", "count", "10") == [b"l1", [b"x"]]
    assert dc("LMPOP", "2", "l1", "l2", "RIGHT", "COUNT", "10") == [b"l2", [b"b"]]
    assert dc("EXISTS", "l1", "l2") == 0
    assert dc("LMPOP", "2", "l1", "l2", "LEFT") is NULL_ARRAY


def test_lmpop_errors(dc):
    dc("RPUSH", "l", "a")
    msg = "ERR numkeys should be greater than 0"
    assert dc.err("LMPOP", "0", "l", "LEFT") == msg
    assert dc.err("LMPOP", "-1", "l", "LEFT") == msg
    assert dc.err("LMPOP", "x", "l", "LEFT") == msg
    assert dc.err("LMPOP", "99999999999999999999", "l", "LEFT") == msg
    assert dc.err("LMPOP", "1", "l", "MIDDLE") == "ERR syntax error"
    assert dc.err("LMPOP", "2", "l", "LEFT") == "ERR syntax error"
    assert dc.err("LMPOP", "3", "a", "b", "LEFT") == "ERR syntax error"
    assert dc.err("LMPOP", "1", "l", "LEFT", "COUNT", "0") == "ERR count should be greater than 0"
    assert dc.err("LMPOP", "1", "l", "LEFT", "COUNT", "-1") == "ERR count should be greater than 0"
    assert dc.err("LMPOP", "1", "l", "LEFT", "COUNT", "1", "COUNT", "2") == "ERR syntax error"
    assert dc.err("LMPOP", "1", "l", "LEFT", "COUNT") == "ERR syntax error"
    assert dc.err("LMPOP", "1", "l", "LEFT", "FOO") == "ERR syntax error"
    assert dc.err("LMPOP", "1", "l") == arity("lmpop")
    assert dc.err("LMPOP", "0", "LEFT") == arity("lmpop")
    assert lrange(dc, "l") == [b"a"]


# --- WRONGTYPE and encoding ----------------------------------------------

def test_wrongtype(dc):
    dc("SET", "s", "x")
    for cmd in (("LPUSH", "s", "a"), ("RPUSH", "s", "a"), ("LPUSHX", "s", "a"), ("RPUSHX", "s", "a"),
                ("LPOP", "s"), ("RPOP", "s", "2"), ("LLEN", "s"), ("LRANGE", "s", "0", "-1"),
                ("LINDEX", "s", "0"), ("LSET", "s", "0", "a"), ("LINSERT", "s", "BEFORE", "a", "b"),
                ("LREM", "s", "0", "a"), ("LTRIM", "s", "0", "1"), ("LPOS", "s", "a"),
                ("LMPOP", "1", "s", "LEFT"), ("BLPOP", "s", "0"), ("BRPOP", "s", "0"),
                ("BLMPOP", "0", "1", "s", "LEFT"), ("BRPOPLPUSH", "s", "d", "0"),
                ("BLMOVE", "s", "d", "LEFT", "LEFT", "0")):
        assert dc.err(*cmd) == WRONGTYPE, cmd
    dc("RPUSH", "l", "a")
    assert dc.err("GET", "l") == WRONGTYPE


def test_list_encodings(dc):
    assert dc("CONFIG", "GET", "list-max-listpack-size") == [b"list-max-listpack-size", b"-2"]
    assert dc("CONFIG", "GET", "list-max-ziplist-size") == [b"list-max-ziplist-size", b"-2"]
    assert dc("CONFIG", "GET", "list-compress-depth") == [b"list-compress-depth", b"0"]
    dc("RPUSH", "small", "a")
    assert dc.encoding("small") == enc72(b"listpack", b"quicklist")
    dc("RPUSH", "big", *["e%d" % i for i in range(2000)])  # over 8 KB
    assert dc.encoding("big") == b"quicklist"
    dc("RPUSH", "long", "x" * 10000)
    assert dc.encoding("long") == b"quicklist"
    assert dc("CONFIG", "SET", "list-max-listpack-size", "1") == "OK"
    dc("RPUSH", "tiny", "a", "b", "c")
    assert dc.encoding("tiny") == b"quicklist"


def test_listpack_list_converts_both_ways(dc):
    """7.2: past one node's limit (8 KB at -2) a quicklist; back to a listpack
    only once it fits half the limit. The reference answers quicklist throughout."""
    dc("RPUSH", "l", *["%04d" % i for i in range(100)])
    assert dc.encoding("l") == enc72(b"listpack", b"quicklist")
    dc("RPUSH", "l", "y" * 8000)  # more than 8 KB in all
    assert dc.encoding("l") == b"quicklist"
    dc("RPOP", "l")
    assert dc.encoding("l") == enc72(b"listpack", b"quicklist")  # 100 short items: well under half
    for cmd in (("LSET", "l", "0", "z" * 9000), ("LINSERT", "l", "BEFORE", "0050", "z" * 9000),
                ("LPUSH", "l", "z" * 9000)):
        dc("DEL", "m")
        dc("RPUSH", "m", *["%04d" % i for i in range(100)])
        dc(*cmd[:1], "m", *cmd[2:])
        assert dc.encoding("m") == b"quicklist", cmd
        assert dc("LLEN", "m") == (100 if cmd[0] == "LSET" else 101)
    # A count fill: more than 4 elements is a quicklist, 2 or fewer a listpack again.
    dc("CONFIG", "SET", "list-max-listpack-size", "4")
    dc("RPUSH", "c", "a", "b", "c", "d")
    assert dc.encoding("c") == enc72(b"listpack", b"quicklist")
    dc("RPUSH", "c", "e")
    assert dc.encoding("c") == b"quicklist"
    dc("RPOP", "c")
    assert dc.encoding("c") == b"quicklist"  # one node again, but 4 > half of 4
    dc("LREM", "c", "0", "a")
    assert dc.encoding("c") == b"quicklist"  # 3 > half of 4
    dc("LPOP", "c")
    assert dc.encoding("c") == enc72(b"listpack", b"quicklist")
    assert dc("LRANGE", "c", "0", "-1") == [b"c", b"d"]
    # Every command on a listpack list.
    dc("CONFIG", "SET", "list-max-listpack-size", "-2")
    dc("RPUSH", "p", "a", "b", "1", "c", "b", "2")
    assert dc.encoding("p") == enc72(b"listpack", b"quicklist")
    assert dc("LINDEX", "p", "-1") == b"2"
    assert dc("LPOS", "p", "b", "RANK", "-1") == 4
    assert dc("LPOS", "p", "b", "COUNT", "0") == [1, 4]
    assert dc("LINSERT", "p", "AFTER", "1", "x") == 7
    assert dc("LSET", "p", "0", "A") == "OK"
    assert dc("LREM", "p", "-1", "b") == 1
    assert dc("LRANGE", "p", "0", "-1") == [b"A", b"b", b"1", b"x", b"c", b"2"]
    assert dc("LTRIM", "p", "1", "-2") == "OK"
    assert dc("LMOVE", "p", "q", "LEFT", "RIGHT") == b"b"
    assert dc("RPOPLPUSH", "p", "p") == b"c"
    assert dc("LRANGE", "p", "0", "-1") == [b"c", b"1", b"x"]
    assert dc.encoding("q") == enc72(b"listpack", b"quicklist")
    assert dc("SORT", "p", "ALPHA", "STORE", "s") == 3
    assert dc("LRANGE", "s", "0", "-1") == [b"1", b"c", b"x"]
    assert dc.encoding("s") == enc72(b"listpack", b"quicklist")


def test_many_small_nodes_against_a_model(dc):
    """Random edits on a list split into many nodes (and compressed) match a Python list."""
    dc("CONFIG", "SET", "list-max-listpack-size", "4")
    dc("CONFIG", "SET", "list-compress-depth", "1")
    rng = random.Random(7)
    model = []
    for i in range(300):
        op = rng.randrange(9)
        val = ("v%d" % rng.randrange(20)).encode() if rng.random() < 0.8 else b"z" * rng.randrange(40, 90)
        if op <= 1:
            assert dc("RPUSH", "l", val) == len(model) + 1
            model.append(val)
        elif op == 2:
            assert dc("LPUSH", "l", val) == len(model) + 1
            model.insert(0, val)
        elif op == 3 and model:
            idx = rng.randrange(-len(model), len(model))
            assert dc("LSET", "l", idx, val) == "OK"
            model[idx] = val
        elif op == 4 and model:
            pivot = rng.choice(model)
            where = rng.choice(["BEFORE", "AFTER"])
            pos = model.index(pivot) + (1 if where == "AFTER" else 0)
            assert dc("LINSERT", "l", where, pivot, val) == len(model) + 1
            model.insert(pos, val)
        elif op == 5 and model:
            target = rng.choice(model)
            count = rng.choice([0, 1, 2, -1, -2])
            removed = 0
            if count >= 0:
                idxs = [j for j, v in enumerate(model) if v == target]
                idxs = idxs[:count] if count else idxs
            else:
                idxs = [j for j, v in enumerate(model) if v == target][::-1][:-count]
            for j in sorted(idxs, reverse=True):
                del model[j]
                removed += 1
            assert dc("LREM", "l", count, target) == removed
        elif op == 6 and model:
            assert dc("LPOP", "l") == model.pop(0)
        elif op == 7 and model:
            assert dc("RPOP", "l") == model.pop()
        elif op == 8 and model:
            idx = rng.randrange(-len(model), len(model))
            assert dc("LINDEX", "l", idx) == model[idx]
        if model:
            start = rng.randrange(-len(model) - 2, len(model) + 2)
            stop = rng.randrange(-len(model) - 2, len(model) + 2)
            s = start if start >= 0 else max(len(model) + start, 0)
            e = stop if stop >= 0 else len(model) + stop
            expected = model[s:e + 1] if e >= 0 else []
            assert dc("LRANGE", "l", start, stop) == expected
    assert lrange(dc, "l") == model
    assert dc("LLEN", "l") == len(model)
    dc("LTRIM", "l", "3", "-4")
    assert lrange(dc, "l") == model[3:len(model) - 3]


# --- Blocking: BLPOP BRPOP BRPOPLPUSH BLMOVE BLMPOP ----------------------

def test_blpop_returns_at_once_when_data_exists(dc):
    dc("RPUSH", "k2", "x")
    dc("RPUSH", "k3", "y")
    # The first non-empty key in argument order is served.
    assert dc("BLPOP", "k1", "k3", "k2", "0") == [b"k3", b"y"]
    assert dc("BRPOP", "k1", "k2", "0") == [b"k2", b"x"]
    dc("RPUSH", "l", "a", "b")
    assert dc("BRPOPLPUSH", "l", "d", "0") == b"b"
    assert dc("BLMOVE", "l", "d", "LEFT", "LEFT", "0") == b"a"
    assert lrange(dc, "d") == [b"a", b"b"]
    dc("RPUSH", "m", "1", "2", "3")
    assert dc("BLMPOP", "0", "2", "x", "m", "RIGHT", "COUNT", "2") == [b"m", [b"3", b"2"]]


def test_blpop_woken_by_push_from_other_client(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(dc, 1)
    assert not waiter.pending()
    assert dc("RPUSH", "k", "v") == 1
    assert waiter.read() == [b"k", b"v"]
    assert dc("EXISTS", "k") == 0
    wait_blocked(dc, 0)


@pytest.mark.parametrize("command", [("FLUSHALL",), ("FLUSHDB",), ("SWAPDB", "0", "1")])
@pytest.mark.parametrize("nkeys", [3, 5, 9, 17])
def test_whole_db_change_with_many_blocked_keys(dc, dconnect, command, nkeys):
    """A flush or swap looks at every key clients block on (a stream reader
    among them) while the table of those keys may be mid-rehash; the server
    once aborted there. Afterwards the waiters still block and are served."""
    dc("XADD", "s", "*", "f", "v")
    reader = dconnect()
    reader.send("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
    waiter = dconnect()
    waiter.send("BLPOP", *["k%d" % i for i in range(nkeys)], "0")
    wait_blocked(dc, 2)
    assert dc(*command) == "OK"
    assert dc("PING") == "PONG"
    assert dc("RPUSH", "k1", "v") == 1
    assert waiter.read() == [b"k1", b"v"]
    wait_blocked(dc, 1)


def test_brpop_woken_by_lpush_of_several(dc, dconnect):
    waiter = dconnect()
    waiter.send("BRPOP", "a", "k", "0")
    wait_blocked(dc, 1)
    assert dc("LPUSH", "k", "x", "y", "z") == 3
    assert waiter.read() == [b"k", b"x"]
    assert lrange(dc, "k") == [b"z", b"y"]


def test_blpop_woken_by_lpush_gets_last_pushed(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(dc, 1)
    # The push reports the list before the waiter is served.
    assert dc("LPUSH", "k", "a", "b", "c") == 3
    assert waiter.read() == [b"k", b"c"]
    assert lrange(dc, "k") == [b"b", b"a"]


def test_blpop_in_a_thread_with_redis_py(server, dc):
    result = {}

    def block():
        cl = server.client()
        try:
            result["reply"] = cl.blpop(["k1", "k2"], timeout=0)
        finally:
            cl.close()

    t = threading.Thread(target=block)
    t.start()
    wait_blocked(dc, 1)
    dc("RPUSH", "k2", "hello")
    t.join(5)
    assert not t.is_alive()
    assert result["reply"] == (b"k2", b"hello")


def test_brpoplpush_woken(dc, dconnect):
    waiter = dconnect()
    waiter.send("BRPOPLPUSH", "src", "dst", "0")
    wait_blocked(dc, 1)
    dc("RPUSH", "src", "a", "b")
    assert waiter.read() == b"b"
    assert lrange(dc, "src") == [b"a"]
    assert lrange(dc, "dst") == [b"b"]


def test_blmove_woken(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLMOVE", "src", "dst", "LEFT", "RIGHT", "0")
    wait_blocked(dc, 1)
    dc("RPUSH", "dst", "d")
    dc("RPUSH", "src", "a", "b")
    assert waiter.read() == b"a"
    assert lrange(dc, "src") == [b"b"]
    assert lrange(dc, "dst") == [b"d", b"a"]


def test_blmove_chain_wakes_client_waiting_on_destination(dc, dconnect):
    mover = dconnect()
    popper = dconnect()
    mover.send("BLMOVE", "src", "dst", "RIGHT", "LEFT", "0")
    wait_blocked(dc, 1)
    popper.send("BLPOP", "dst", "0")
    wait_blocked(dc, 2)
    dc("RPUSH", "src", "x")
    assert mover.read() == b"x"
    assert popper.read() == [b"dst", b"x"]
    assert dc("EXISTS", "src", "dst") == 0


def test_blmpop_woken(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLMPOP", "0", "2", "k1", "k2", "LEFT", "COUNT", "2")
    wait_blocked(dc, 1)
    dc("RPUSH", "k2", "a", "b", "c")
    assert waiter.read() == [b"k2", [b"a", b"b"]]
    assert lrange(dc, "k2") == [b"c"]


def test_blmpop_errors(dc):
    assert dc.err("BLMPOP", "0", "0", "l", "LEFT") == "ERR numkeys should be greater than 0"
    assert dc.err("BLMPOP", "0", "1", "l", "UP") == "ERR syntax error"
    assert dc.err("BLMPOP", "0", "1", "l", "LEFT", "COUNT", "0") == "ERR count should be greater than 0"
    assert dc.err("BLMPOP", "0", "1", "l") == arity("blmpop")


def test_fractional_timeouts(dc):
    for cmd in (("BLPOP", "k", "0.1"), ("BRPOP", "k", "0.1"), ("BRPOPLPUSH", "k", "d", "0.1"),
                ("BLMOVE", "k", "d", "LEFT", "LEFT", "0.1"), ("BLMPOP", "0.1", "1", "k", "LEFT")):
        start = time.time()
        assert dc(*cmd) is NULL_ARRAY
        elapsed = time.time() - start
        assert 0.09 <= elapsed < 2, (cmd, elapsed)
    assert dc("EXISTS", "d") == 0


def test_timeout_errors(dc):
    for cmd in (("BLPOP", "k", "{}"), ("BRPOP", "k", "{}"), ("BRPOPLPUSH", "k", "d", "{}"),
                ("BLMOVE", "k", "d", "LEFT", "LEFT", "{}"), ("BLMPOP", "{}", "1", "k", "LEFT")):
        def run(timeout):
            return dc.err(*[a.replace("{}", timeout) for a in cmd])
        assert run("-1") == "ERR timeout is negative"
        assert run("-0.5") == "ERR timeout is negative"
        assert run("x") == "ERR timeout is not a float or out of range"
        assert run("nan") == "ERR timeout is not a float or out of range"
    for cmd in ("BLPOP", "BRPOP"):
        assert dc.err(cmd, "k") == arity(cmd.lower())
    assert dc.err("BRPOPLPUSH", "a", "b") == arity("brpoplpush")
    assert dc.err("BLMOVE", "a", "b", "LEFT", "LEFT") == arity("blmove")
    assert dc.err("BLMOVE", "a", "b", "LEFT", "UP", "0") == "ERR syntax error"


def test_first_come_first_served(dc, dconnect):
    waiters = [dconnect() for _ in range(3)]
    for i, w in enumerate(waiters):
        w.send("BLPOP", "k", "0")
        wait_blocked(dc, i + 1)
    dc("RPUSH", "k", "one")
    assert waiters[0].read() == [b"k", b"one"]
    assert not waiters[1].pending() and not waiters[2].pending()
    dc("RPUSH", "k", "two", "three")
    assert waiters[1].read() == [b"k", b"two"]
    assert waiters[2].read() == [b"k", b"three"]
    assert dc("EXISTS", "k") == 0


def test_waiter_on_several_keys_served_once(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "a", "b", "0")
    wait_blocked(dc, 1)
    dc("MULTI")
    dc("RPUSH", "b", "x")
    dc("RPUSH", "a", "y")
    assert dc("EXEC") == [1, 1]
    # Keys are served in the order they became ready.
    assert waiter.read() == [b"b", b"x"]
    assert lrange(dc, "a") == [b"y"]
    wait_blocked(dc, 0)


def test_wakeup_by_multi_exec_push(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(dc, 1)
    assert dc("MULTI") == "OK"
    assert dc("RPUSH", "k", "a", "b") == "QUEUED"
    assert dc("RPUSH", "k", "c") == "QUEUED"
    assert dc("EXEC") == [2, 3]
    # The waiter is served after the whole transaction.
    assert waiter.read() == [b"k", b"a"]
    assert lrange(dc, "k") == [b"b", b"c"]


def test_push_and_delete_in_multi_does_not_wake(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(dc, 1)
    dc("MULTI")
    dc("RPUSH", "k", "a")
    dc("DEL", "k")
    assert dc("EXEC") == [1, 1]
    assert not waiter.pending(0.1)
    dc("RPUSH", "k", "later")
    assert waiter.read() == [b"k", b"later"]


def test_blocking_inside_multi_does_not_block(dc):
    dc("MULTI")
    assert dc("BLPOP", "k", "0") == "QUEUED"
    assert dc("BRPOP", "k", "0") == "QUEUED"
    assert dc("BRPOPLPUSH", "k", "d", "0") == "QUEUED"
    assert dc("BLMOVE", "k", "d", "LEFT", "LEFT", "0") == "QUEUED"
    assert dc("BLMPOP", "0", "1", "k", "LEFT") == "QUEUED"
    # Nil arrays for the pops, nil bulks for the moves.
    assert dc.frame("EXEC") == b"*5\r\n*-1\r\n*-1\r\n$-1\r\n$-1\r\n*-1\r\n"
    dc("RPUSH", "k", "a", "b")
    dc("MULTI")
    dc("BLPOP", "k", "0")
    dc("BRPOPLPUSH", "k", "d", "0")
    dc("BLPOP", "k", "0")
    assert dc.frame("EXEC") == b"*3\r\n*2\r\n$1\r\nk\r\n$1\r\na\r\n$1\r\nb\r\n*-1\r\n"


def test_client_unblock(dc, dconnect):
    waiter = dconnect()
    wid = waiter("CLIENT", "ID")
    for cmd in (("BLPOP", "k", "0"), ("BRPOP", "k", "0"), ("BRPOPLPUSH", "k", "d", "0"),
                ("BLMOVE", "k", "d", "LEFT", "LEFT", "0"), ("BLMPOP", "0", "1", "k", "LEFT")):
        for reason in ((), ("TIMEOUT",), ("timeout",)):
            waiter.send(*cmd)
            wait_blocked(dc, 1)
            assert dc("CLIENT", "UNBLOCK", wid, *reason) == 1
            assert waiter.read() is NULL_ARRAY, (cmd, reason)
        waiter.send(*cmd)
        wait_blocked(dc, 1)
        assert dc("CLIENT", "UNBLOCK", wid, "ERROR") == 1
        assert waiter.read() == ReplyError(UNBLOCKED), cmd
    wait_blocked(dc, 0)
    assert dc("CLIENT", "UNBLOCK", wid) == 0
    assert dc("CLIENT", "UNBLOCK", "999999") == 0
    assert dc.err("CLIENT", "UNBLOCK", wid, "FOO") == "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"
    assert dc.err("CLIENT", "UNBLOCK", "x") == "ERR value is not an integer or out of range"
    # The waiter is still usable afterwards.
    assert waiter("PING") == "PONG"


def test_waiter_stays_blocked_when_key_becomes_other_type(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(dc, 1)
    assert dc("SET", "k", "x") == "OK"
    assert not waiter.pending(0.1)
    dc("DEL", "k")
    assert dc("ZADD", "k", "1", "m") == 1
    assert not waiter.pending(0.1)
    wait_blocked(dc, 1)
    dc("DEL", "k")
    dc("RPUSH", "k", "v")
    assert waiter.read() == [b"k", b"v"]


def test_blmove_destination_of_wrong_type(dc, dconnect):
    dc("SET", "dst", "str")
    waiter = dconnect()
    waiter.send("BLMOVE", "src", "dst", "LEFT", "RIGHT", "0")
    wait_blocked(dc, 1)
    dc("RPUSH", "src", "e1")
    # The waiter is unblocked with the error; the element stays in the source.
    assert waiter.read() == ReplyError(WRONGTYPE)
    wait_blocked(dc, 0)
    assert lrange(dc, "src") == [b"e1"]
    assert dc("GET", "dst") == b"str"


def test_blocked_client_timeout_then_reuse(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "k", "0.1")
    assert waiter.read() is NULL_ARRAY
    wait_blocked(dc, 0)
    dc("RPUSH", "k", "a")
    assert dc("LLEN", "k") == 1  # nothing was taken by the timed-out waiter
    assert waiter("BLPOP", "k", "0") == [b"k", b"a"]


def test_disconnected_waiter_is_forgotten(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(dc, 1)
    waiter.close()
    wait_blocked(dc, 0)
    dc("RPUSH", "k", "a")
    assert lrange(dc, "k") == [b"a"]


# --- keys that become lists wake their waiters ----------------------------

@pytest.mark.parametrize("bring", [
    [("RENAME", "src", "dst")],
    [("RENAMENX", "src", "dst")],
    [("COPY", "src", "dst")],
    [("SET", "dst", "x"), ("COPY", "src", "dst", "REPLACE")],  # in one transaction: the string is never seen
    [("SET", "dst", "x"), ("RENAME", "src", "dst")],
    [("SELECT", "3"), ("RPUSH", "dst", "e1"), ("MOVE", "dst", "0"), ("SELECT", "0")],
    [("LMOVE", "src", "dst", "LEFT", "RIGHT")],
    [("SORT", "src", "ALPHA", "STORE", "dst")],
    [("RESTORE", "dst", "0", "<dump of src>")],
    [("SET", "dst", "x"), ("RESTORE", "dst", "0", "<dump of src>", "REPLACE")],
])
def test_list_waiter_woken_by_any_command_creating_its_key(dc, dconnect, bring):
    """Every command that adds the key (RENAME, COPY, MOVE, RESTORE, LMOVE,
    SORT STORE) serves BLPOP / BLMOVE waiters on it, as Redis 7.0 does."""
    dc("RPUSH", "src", "e1")
    payload = dc("DUMP", "src")
    waiters = [dconnect(), dconnect()]
    waiters[0].send("BLPOP", "dst", "0")
    wait_blocked(dc, 1)
    waiters[1].send("BLMOVE", "dst", "out", "LEFT", "LEFT", "0")
    wait_blocked(dc, 2)
    dc("MULTI")
    for cmd in bring:
        dc(*[payload if a == "<dump of src>" else a for a in cmd])
    dc("EXEC")
    assert waiters[0].read() == [b"dst", b"e1"]
    # The key emptied by the first waiter, the second waits on.
    assert not waiters[1].pending(0.1)
    dc("RPUSH", "dst", "e2")
    assert waiters[1].read() == b"e2"
    assert lrange(dc, "out") == [b"e2"]


def test_overwriting_a_key_does_not_wake_its_waiters(dc, dconnect):
    """7.0 signals a key when it is added, not when a value replaces another
    nor when an existing list grows: SORT ... STORE over a string leaves the
    waiter blocked on the new list until the key is created again."""
    dc("RPUSH", "src", "e1")
    waiter = dconnect()
    waiter.send("BLPOP", "dst", "0")
    wait_blocked(dc, 1)
    dc("MULTI")
    dc("SET", "dst", "x")
    dc("SORT", "src", "ALPHA", "STORE", "dst")
    dc("EXEC")
    assert not waiter.pending(0.1)
    assert lrange(dc, "dst") == [b"e1"]
    dc("RPUSH", "dst", "e2")
    assert not waiter.pending(0.1)
    dc("DEL", "dst")
    dc("RPUSH", "dst", "e3")
    assert waiter.read() == [b"dst", b"e3"]


def test_waiters_of_other_types_do_not_hold_up_list_waiters(dc, dconnect):
    """BZPOPMIN and XREAD waiters ahead on the same key are passed over; the
    list waiters behind them are served in order."""
    waiters = [dconnect() for _ in range(4)]
    for n, cmd in enumerate((("BZPOPMIN", "k", "0"), ("BLPOP", "k", "0"),
                             ("XREAD", "BLOCK", "0", "STREAMS", "k", "$"), ("BRPOP", "k", "0"))):
        waiters[n].send(*cmd)
        wait_blocked(dc, n + 1)
    dc("RPUSH", "k", "a", "b")
    assert waiters[1].read() == [b"k", b"a"]
    assert waiters[3].read() == [b"k", b"b"]
    wait_blocked(dc, 2)
    assert not waiters[0].pending(0.05) and not waiters[2].pending(0.05)
    dc("DEL", "k")
    dc("ZADD", "k", "1", "m")
    assert waiters[0].read() == [b"k", b"m", b"1"]


# --- Timeouts, in any mix of deadlines -----------------------------------
# A timeout answers on time whatever deadlines other clients wait for. The
# margin (LATE) is wide for a loaded machine, yet well below the second a
# timer re-armed for the latest blocker's deadline used to add; the reference
# checks its deadlines every 100 ms (hz 10).

LATE = 0.25

# Each blocking command kind with a 0.3 s timeout; each times out with a nil array.
SHORT_BLOCKERS = {
    "BLPOP": ("BLPOP", "s", "0.3"),
    "BRPOP": ("BRPOP", "s", "0.3"),
    "BLMOVE": ("BLMOVE", "s", "d", "LEFT", "RIGHT", "0.3"),
    "BRPOPLPUSH": ("BRPOPLPUSH", "s", "d", "0.3"),
    "BLMPOP": ("BLMPOP", "0.3", "1", "s", "LEFT"),
    "BZPOPMIN": ("BZPOPMIN", "s", "0.3"),
    "BZPOPMAX": ("BZPOPMAX", "s", "0.3"),
    "BZMPOP": ("BZMPOP", "0.3", "1", "s", "MIN"),
    "XREAD": ("XREAD", "BLOCK", "300", "STREAMS", "s", "$"),
    "XREADGROUP": ("XREADGROUP", "GROUP", "g", "c", "BLOCK", "300", "STREAMS", "gs", ">"),
}

# Clients blocked for 10 s on another key, after the short one.
LONG_BLOCKERS = {
    "BLPOP": ("BLPOP", "l", "10"),
    "BZPOPMIN": ("BZPOPMIN", "l", "10"),
    "XREAD": ("XREAD", "BLOCK", "10000", "STREAMS", "l", "$"),
}


def in_timeout_table(r):
    return int(info(r, "clients")["clients_in_timeout_table"])


def timed_out_in(waiter, start, deadline, expected):
    """Reads waiter's timeout reply; the seconds it took past `start`."""
    assert waiter.read(timeout=deadline + 5) == expected
    elapsed = time.time() - start
    assert elapsed >= deadline - 0.01, elapsed
    return elapsed


@pytest.mark.parametrize("long_kind", sorted(LONG_BLOCKERS))
@pytest.mark.parametrize("short_kind", sorted(SHORT_BLOCKERS))
def test_short_timeout_fires_on_time_behind_a_longer_one(dc, dconnect, r, short_kind, long_kind):
    dc("XGROUP", "CREATE", "gs", "g", "$", "MKSTREAM")
    short, longer = dconnect(), dconnect()
    start = time.time()
    short.send(*SHORT_BLOCKERS[short_kind])
    wait_blocked(dc, 1)
    longer.send(*LONG_BLOCKERS[long_kind])
    wait_blocked(dc, 2)
    assert timed_out_in(short, start, 0.3, NULL_ARRAY) < 0.3 + LATE
    wait_blocked(dc, 1)  # the long one still waits
    assert not longer.pending(0)
    assert in_timeout_table(r) == 1


def test_wait_timeout_fires_on_time_behind_a_longer_wait(dc, dconnect):
    short, longer = dconnect(), dconnect()
    start = time.time()
    short.send("WAIT", "1", "300")  # no replica: never satisfied
    wait_blocked(dc, 1)
    longer.send("WAIT", "1", "10000")
    wait_blocked(dc, 2)
    assert timed_out_in(short, start, 0.3, 0) < 0.3 + LATE
    wait_blocked(dc, 1)
    assert not longer.pending(0)


def test_deadlines_fire_in_their_order_whatever_the_order_of_blocking(dc, dconnect, r):
    """Blocked latest deadline first: each still answers on its own time."""
    waiters = []
    start = time.time()
    for n, secs in enumerate(("10", "0.9", "0.3", "0.6")):
        w = dconnect()
        w.send("BLPOP", "k%d" % n, secs)
        wait_blocked(dc, n + 1)
        waiters.append(w)
    for n, secs in ((2, 0.3), (3, 0.6), (1, 0.9)):
        assert timed_out_in(waiters[n], start, secs, NULL_ARRAY) < secs + LATE, secs
    assert in_timeout_table(r) == 1


def test_next_deadline_fires_on_time_when_the_earliest_client_leaves(dc, dconnect, r):
    """The earliest deadline's client served, unblocked or gone: the next
    earliest still fires on time, and the timeout table forgets each."""
    first, second, third, last = (dconnect() for _ in range(4))
    second_id = second("CLIENT", "ID")
    start = time.time()
    first.send("BLPOP", "a", "0.2")
    second.send("BZPOPMIN", "b", "0.25")
    third.send("XREAD", "BLOCK", "280", "STREAMS", "c", "$")
    last.send("BLPOP", "d", "0.4")
    wait_blocked(dc, 4)
    assert in_timeout_table(r) == 4
    dc("RPUSH", "a", "x")
    assert first.read() == [b"a", b"x"]
    assert dc("CLIENT", "UNBLOCK", second_id) == 1
    assert second.read() is NULL_ARRAY
    third.close()
    wait_blocked(dc, 1)
    assert in_timeout_table(r) == 1
    assert timed_out_in(last, start, 0.4, NULL_ARRAY) < 0.4 + LATE
    assert in_timeout_table(r) == 0


def test_served_waiter_that_blocks_again_keeps_its_deadline(dc, dconnect):
    """A waiter woken for a key another client empties first blocks again
    with its first deadline, not a new one counted from the wake-up."""
    waiter = dconnect()
    start = time.time()
    waiter.send("BLMOVE", "k", "d", "LEFT", "LEFT", "0.6")
    wait_blocked(dc, 1)
    time.sleep(0.3)
    dc("MULTI")
    dc("RPUSH", "k", "x")
    dc("LPOP", "k")
    dc("EXEC")
    wait_blocked(dc, 1)
    assert timed_out_in(waiter, start, 0.6, NULL_ARRAY) < 0.6 + LATE


def test_client_pause_ends_on_time_while_a_client_blocks(dc, dconnect):
    blocked, held = dconnect(), dconnect()
    blocked.send("BLPOP", "k", "10")
    wait_blocked(dc, 1)
    start = time.time()
    assert dc("CLIENT", "PAUSE", "300") == "OK"
    held.send("SET", "x", "1")
    assert held.read(timeout=5) == "OK"
    elapsed = time.time() - start
    assert 0.29 <= elapsed < 0.3 + LATE, elapsed
    wait_blocked(dc, 1)
    assert not blocked.pending(0)
