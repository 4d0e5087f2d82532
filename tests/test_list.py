"""Integration tests for the list commands, blocking ones included, checked
against Redis 7.0.15.

Replies and error texts are asserted exactly through datatype_client.py.
Blocking tests leave one client blocked (its command sent, its
reply not yet read, or a redis-py call in a thread) while another client
pushes, and wait for INFO's blocked_clients instead of sleeping.
In 7.0 every list is encoded "quicklist", whatever its size.
"""
import random
import threading
import time

from datatype_client import NULL_ARRAY, WRONGTYPE, ReplyError, arity, c, connect, wait_blocked  # noqa: F401

UNBLOCKED = "UNBLOCKED client unblocked via CLIENT UNBLOCK"


def lrange(c, key):
    return c("LRANGE", key, "0", "-1")


# --- LPUSH / RPUSH / LPUSHX / RPUSHX -------------------------------------

def test_push_order_and_length(c):
    assert c("RPUSH", "l", "a", "b") == 2
    assert c("LPUSH", "l", "x", "y") == 4
    assert lrange(c, "l") == [b"y", b"x", b"a", b"b"]
    assert c("LLEN", "l") == 4
    assert c("TYPE", "l") == "list"


def test_pushx_only_on_existing_lists(c):
    assert c("LPUSHX", "l", "a") == 0
    assert c("RPUSHX", "l", "a", "b") == 0
    assert c("EXISTS", "l") == 0
    c("RPUSH", "l", "m")
    assert c("LPUSHX", "l", "b", "c") == 3
    assert c("RPUSHX", "l", "y", "z") == 5
    assert lrange(c, "l") == [b"c", b"b", b"m", b"y", b"z"]


def test_push_arity(c):
    for cmd in ("LPUSH", "RPUSH", "LPUSHX", "RPUSHX"):
        assert c.err(cmd, "l") == arity(cmd.lower())


def test_binary_and_integer_elements(c):
    elems = [b"", b"\x00\xff\r\n", b"12345678901234567890", b"-9223372036854775808", b"0", b"x" * 1000]
    c("RPUSH", "l", *elems)
    assert lrange(c, "l") == elems
    assert c("LINDEX", "l", "3") == b"-9223372036854775808"


# --- LPOP / RPOP ---------------------------------------------------------

def test_pop_single(c):
    c("RPUSH", "l", "a", "b", "c")
    assert c("LPOP", "l") == b"a"
    assert c("RPOP", "l") == b"c"
    assert c("RPOP", "l") == b"b"
    assert c("EXISTS", "l") == 0
    assert c("LPOP", "l") is None
    assert c("RPOP", "l") is None


def test_pop_with_count(c):
    c("RPUSH", "l", "a", "b", "c", "d", "e")
    assert c("LPOP", "l", "0") == []
    assert c("LPOP", "l", "2") == [b"a", b"b"]
    assert c("RPOP", "l", "2") == [b"e", b"d"]
    assert c("RPOP", "l", "5") == [b"c"]
    assert c("EXISTS", "l") == 0
    # A missing key gives the nil array, even with count 0.
    assert c("LPOP", "l", "0") is NULL_ARRAY
    assert c("LPOP", "l", "2") is NULL_ARRAY
    assert c("RPOP", "l", "2") is NULL_ARRAY


def test_pop_count_errors(c):
    c("RPUSH", "l", "a")
    for cmd in ("LPOP", "RPOP"):
        assert c.err(cmd, "l", "-1") == "ERR value is out of range, must be positive"
        assert c.err(cmd, "l", "x") == "ERR value is out of range, must be positive"
        assert c.err(cmd, "l", "1", "2") == arity(cmd.lower())
        assert c.err(cmd) == arity(cmd.lower())
    assert lrange(c, "l") == [b"a"]


# --- LLEN / LRANGE / LINDEX / LSET ---------------------------------------

def test_lrange_bounds(c):
    c("RPUSH", "l", "a", "b", "c", "d")
    assert c("LRANGE", "l", "1", "2") == [b"b", b"c"]
    assert c("LRANGE", "l", "-2", "-1") == [b"c", b"d"]
    assert c("LRANGE", "l", "-100", "100") == [b"a", b"b", b"c", b"d"]
    assert c("LRANGE", "l", "2", "1") == []
    assert c("LRANGE", "l", "5", "10") == []
    assert c("LRANGE", "l", "0", "-5") == []
    assert c("LRANGE", "nokey", "0", "-1") == []
    assert c.err("LRANGE", "l", "x", "1") == "ERR value is not an integer or out of range"
    assert c.err("LRANGE", "l", "1") == arity("lrange")
    assert c("LLEN", "nokey") == 0
    assert c.err("LLEN") == arity("llen")


def test_lindex(c):
    c("RPUSH", "l", "a", "b", "c")
    assert c("LINDEX", "l", "0") == b"a"
    assert c("LINDEX", "l", "-1") == b"c"
    assert c("LINDEX", "l", "-3") == b"a"
    assert c("LINDEX", "l", "3") is None
    assert c("LINDEX", "l", "-4") is None
    assert c("LINDEX", "nokey", "0") is None
    assert c.err("LINDEX", "l", "x") == "ERR value is not an integer or out of range"
    assert c.err("LINDEX", "l") == arity("lindex")


def test_lset(c):
    assert c.err("LSET", "nokey", "0", "a") == "ERR no such key"
    c("RPUSH", "l", "a", "b", "c")
    assert c("LSET", "l", "0", "x") == "OK"
    assert c("LSET", "l", "-1", "z") == "OK"
    assert c("LSET", "l", "-3", "w") == "OK"
    assert lrange(c, "l") == [b"w", b"b", b"z"]
    assert c.err("LSET", "l", "3", "a") == "ERR index out of range"
    assert c.err("LSET", "l", "-4", "a") == "ERR index out of range"
    assert c.err("LSET", "l", "x", "a") == "ERR value is not an integer or out of range"
    assert c.err("LSET", "l", "1") == arity("lset")
    assert c("LSET", "l", "1", "y" * 500) == "OK"
    assert c("LINDEX", "l", "1") == b"y" * 500


# --- LINSERT / LREM / LTRIM ----------------------------------------------

def test_linsert(c):
    c("RPUSH", "l", "a", "b", "c", "b")
    assert c("LINSERT", "l", "BEFORE", "b", "X") == 5
    assert c("LINSERT", "l", "after", "b", "Y") == 6
    assert lrange(c, "l") == [b"a", b"X", b"b", b"Y", b"c", b"b"]
    assert c("LINSERT", "l", "AFTER", "nope", "Z") == -1
    assert c("LINSERT", "nokey", "AFTER", "a", "Z") == 0
    assert c("EXISTS", "nokey") == 0
    assert c.err("LINSERT", "l", "MIDDLE", "a", "Z") == "ERR syntax error"
    assert c.err("LINSERT", "l", "BEFORE", "a") == arity("linsert")
    assert c("LLEN", "l") == 6


def test_lrem(c):
    c("RPUSH", "l", "a", "b", "a", "c", "a", "b", "a")
    assert c("LREM", "l", "2", "a") == 2
    assert lrange(c, "l") == [b"b", b"c", b"a", b"b", b"a"]
    assert c("LREM", "l", "-1", "a") == 1
    assert lrange(c, "l") == [b"b", b"c", b"a", b"b"]
    assert c("LREM", "l", "0", "b") == 2
    assert lrange(c, "l") == [b"c", b"a"]
    assert c("LREM", "l", "0", "nothing") == 0
    assert c("LREM", "nokey", "0", "a") == 0
    assert c("LREM", "l", "0", "c") == 1
    assert c("LREM", "l", "-5", "a") == 1
    assert c("EXISTS", "l") == 0
    assert c.err("LREM", "l", "x", "a") == "ERR value is not an integer or out of range"
    assert c.err("LREM", "l", "1") == arity("lrem")


def test_lrem_integer_elements(c):
    c("RPUSH", "l", "1", "01", "1", "1.0")
    assert c("LREM", "l", "0", "1") == 2
    assert lrange(c, "l") == [b"01", b"1.0"]


def test_ltrim(c):
    c("RPUSH", "l", "a", "b", "c", "d", "e")
    assert c("LTRIM", "l", "1", "-2") == "OK"
    assert lrange(c, "l") == [b"b", b"c", b"d"]
    assert c("LTRIM", "l", "-2", "100") == "OK"
    assert lrange(c, "l") == [b"c", b"d"]
    assert c("LTRIM", "l", "5", "10") == "OK"
    assert c("EXISTS", "l") == 0
    c("RPUSH", "l", "a", "b")
    assert c("LTRIM", "l", "1", "0") == "OK"
    assert c("EXISTS", "l") == 0
    assert c("LTRIM", "nokey", "0", "1") == "OK"
    assert c.err("LTRIM", "l", "1", "x") == "ERR value is not an integer or out of range"
    assert c.err("LTRIM", "l", "1") == arity("ltrim")


# --- LPOS ----------------------------------------------------------------

def test_lpos(c):
    c("RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c")
    assert c("LPOS", "l", "c") == 2
    assert c("LPOS", "l", "c", "RANK", "2") == 6
    assert c("LPOS", "l", "c", "RANK", "-1") == 7
    assert c("LPOS", "l", "c", "RANK", "-3") == 2
    assert c("LPOS", "l", "c", "RANK", "4") is None
    assert c("LPOS", "l", "c", "COUNT", "0") == [2, 6, 7]
    assert c("LPOS", "l", "c", "COUNT", "2") == [2, 6]
    assert c("LPOS", "l", "c", "RANK", "-1", "COUNT", "2") == [7, 6]
    assert c("LPOS", "l", "c", "RANK", "3", "COUNT", "2") == [7]
    assert c("LPOS", "l", "c", "COUNT", "0", "MAXLEN", "3") == [2]
    assert c("LPOS", "l", "c", "MAXLEN", "2") is None
    assert c("LPOS", "l", "c", "MAXLEN", "0") == 2
    assert c("LPOS", "l", "a", "RANK", "-1", "MAXLEN", "1") is None
    assert c("LPOS", "l", "c", "RANK", "-1", "MAXLEN", "1") == 7
    assert c("LPOS", "l", "1") == 3
    assert c("LPOS", "l", "nothere") is None
    assert c("LPOS", "l", "nothere", "COUNT", "0") == []
    assert c("LPOS", "nokey", "x") is None
    assert c("LPOS", "nokey", "x", "COUNT", "0") == []
    # The last of a repeated option wins.
    assert c("LPOS", "l", "c", "COUNT", "1", "COUNT", "2") == [2, 6]


def test_lpos_errors(c):
    c("RPUSH", "l", "a")
    assert c.err("LPOS", "l", "a", "RANK", "0") == (
        "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
        "or use negative to start from the end of the list")
    assert c.err("LPOS", "l", "a", "COUNT", "-1") == "ERR COUNT can't be negative"
    assert c.err("LPOS", "l", "a", "COUNT", "x") == "ERR COUNT can't be negative"
    assert c.err("LPOS", "l", "a", "MAXLEN", "-1") == "ERR MAXLEN can't be negative"
    assert c.err("LPOS", "l", "a", "MAXLEN", "x") == "ERR MAXLEN can't be negative"
    assert c.err("LPOS", "l", "a", "RANK", "x") == "ERR value is not an integer or out of range"
    assert c.err("LPOS", "l", "a", "RANK") == "ERR syntax error"
    assert c.err("LPOS", "l", "a", "FOO") == "ERR syntax error"
    assert c.err("LPOS", "l") == arity("lpos")


# --- LMOVE / RPOPLPUSH / LMPOP -------------------------------------------

def test_lmove_directions(c):
    c("RPUSH", "src", "a", "b", "c")
    c("RPUSH", "dst", "x")
    assert c("LMOVE", "src", "dst", "LEFT", "LEFT") == b"a"
    assert c("LMOVE", "src", "dst", "RIGHT", "RIGHT") == b"c"
    assert c("LMOVE", "src", "dst", "left", "right") == b"b"
    assert lrange(c, "dst") == [b"a", b"x", b"c", b"b"]
    assert c("EXISTS", "src") == 0
    assert c("LMOVE", "dst", "new", "RIGHT", "LEFT") == b"b"
    assert lrange(c, "new") == [b"b"]
    assert c("LMOVE", "nokey", "dst", "LEFT", "LEFT") is None
    assert c("EXISTS", "nokey") == 0


def test_lmove_rotation_same_key(c):
    c("RPUSH", "l", "a", "b", "c")
    assert c("LMOVE", "l", "l", "LEFT", "RIGHT") == b"a"
    assert lrange(c, "l") == [b"b", b"c", b"a"]
    assert c("LMOVE", "l", "l", "RIGHT", "LEFT") == b"a"
    assert lrange(c, "l") == [b"a", b"b", b"c"]
    assert c("RPOPLPUSH", "l", "l") == b"c"
    assert lrange(c, "l") == [b"c", b"a", b"b"]


def test_lmove_errors(c):
    c("RPUSH", "l", "a")
    c("SET", "s", "x")
    assert c.err("LMOVE", "l", "d", "FOO", "LEFT") == "ERR syntax error"
    assert c.err("LMOVE", "l", "d", "LEFT", "UP") == "ERR syntax error"
    assert c.err("LMOVE", "l", "d", "LEFT") == arity("lmove")
    assert c.err("LMOVE", "s", "d", "LEFT", "LEFT") == WRONGTYPE
    assert c.err("LMOVE", "l", "s", "LEFT", "LEFT") == WRONGTYPE
    assert c.err("RPOPLPUSH", "l", "s") == WRONGTYPE
    assert lrange(c, "l") == [b"a"]
    assert c.err("RPOPLPUSH", "l") == arity("rpoplpush")


def test_rpoplpush(c):
    c("RPUSH", "src", "a", "b")
    assert c("RPOPLPUSH", "src", "dst") == b"b"
    assert c("RPOPLPUSH", "src", "dst") == b"a"
    assert lrange(c, "dst") == [b"a", b"b"]
    assert c("EXISTS", "src") == 0
    assert c("RPOPLPUSH", "src", "dst") is None


def test_lmpop(c):
    c("RPUSH", "l2", "a", "b", "c", "d")
    assert c("LMPOP", "2", "l1", "l2", "LEFT") == [b"l2", [b"a"]]
    assert c("LMPOP", "2", "l1", "l2", "RIGHT", "COUNT", "2") == [b"l2", [b"d", b"c"]]
    c("RPUSH", "l1", "x")
    assert c("LMPOP", "2", "l1", "l2", "left", "count", "10") == [b"l1", [b"x"]]
    assert c("LMPOP", "2", "l1", "l2", "RIGHT", "COUNT", "10") == [b"l2", [b"b"]]
    assert c("EXISTS", "l1", "l2") == 0
    assert c("LMPOP", "2", "l1", "l2", "LEFT") is NULL_ARRAY


def test_lmpop_errors(c):
    c("RPUSH", "l", "a")
    msg = "ERR numkeys should be greater than 0"
    assert c.err("LMPOP", "0", "l", "LEFT") == msg
    assert c.err("LMPOP", "-1", "l", "LEFT") == msg
    assert c.err("LMPOP", "x", "l", "LEFT") == msg
    assert c.err("LMPOP", "99999999999999999999", "l", "LEFT") == msg
    assert c.err("LMPOP", "1", "l", "MIDDLE") == "ERR syntax error"
    assert c.err("LMPOP", "2", "l", "LEFT") == "ERR syntax error"
    assert c.err("LMPOP", "3", "a", "b", "LEFT") == "ERR syntax error"
    assert c.err("LMPOP", "1", "l", "LEFT", "COUNT", "0") == "ERR count should be greater than 0"
    assert c.err("LMPOP", "1", "l", "LEFT", "COUNT", "-1") == "ERR count should be greater than 0"
    assert c.err("LMPOP", "1", "l", "LEFT", "COUNT", "1", "COUNT", "2") == "ERR syntax error"
    assert c.err("LMPOP", "1", "l", "LEFT", "COUNT") == "ERR syntax error"
    assert c.err("LMPOP", "1", "l", "LEFT", "FOO") == "ERR syntax error"
    assert c.err("LMPOP", "1", "l") == arity("lmpop")
    assert c.err("LMPOP", "0", "LEFT") == arity("lmpop")
    assert lrange(c, "l") == [b"a"]


# --- WRONGTYPE and encoding ----------------------------------------------

def test_wrongtype(c):
    c("SET", "s", "x")
    for cmd in (("LPUSH", "s", "a"), ("RPUSH", "s", "a"), ("LPUSHX", "s", "a"), ("RPUSHX", "s", "a"),
                ("LPOP", "s"), ("RPOP", "s", "2"), ("LLEN", "s"), ("LRANGE", "s", "0", "-1"),
                ("LINDEX", "s", "0"), ("LSET", "s", "0", "a"), ("LINSERT", "s", "BEFORE", "a", "b"),
                ("LREM", "s", "0", "a"), ("LTRIM", "s", "0", "1"), ("LPOS", "s", "a"),
                ("LMPOP", "1", "s", "LEFT"), ("BLPOP", "s", "0"), ("BRPOP", "s", "0"),
                ("BLMPOP", "0", "1", "s", "LEFT"), ("BRPOPLPUSH", "s", "d", "0"),
                ("BLMOVE", "s", "d", "LEFT", "LEFT", "0")):
        assert c.err(*cmd) == WRONGTYPE, cmd
    c("RPUSH", "l", "a")
    assert c.err("GET", "l") == WRONGTYPE


def test_encoding_is_quicklist(c):
    assert c("CONFIG", "GET", "list-max-listpack-size") == [b"list-max-listpack-size", b"-2"]
    assert c("CONFIG", "GET", "list-max-ziplist-size") == [b"list-max-ziplist-size", b"-2"]
    assert c("CONFIG", "GET", "list-compress-depth") == [b"list-compress-depth", b"0"]
    c("RPUSH", "small", "a")
    assert c.encoding("small") == b"quicklist"
    c("RPUSH", "big", *["e%d" % i for i in range(1000)])
    assert c.encoding("big") == b"quicklist"
    c("RPUSH", "long", "x" * 10000)
    assert c.encoding("long") == b"quicklist"
    assert c("CONFIG", "SET", "list-max-listpack-size", "1") == "OK"
    c("RPUSH", "tiny", "a", "b", "c")
    assert c.encoding("tiny") == b"quicklist"


def test_many_small_nodes_against_a_model(c):
    """Random edits on a list split into many nodes (and compressed) match a Python list."""
    c("CONFIG", "SET", "list-max-listpack-size", "4")
    c("CONFIG", "SET", "list-compress-depth", "1")
    rng = random.Random(7)
    model = []
    for i in range(300):
        op = rng.randrange(9)
        val = ("v%d" % rng.randrange(20)).encode() if rng.random() < 0.8 else b"z" * rng.randrange(40, 90)
        if op <= 1:
            assert c("RPUSH", "l", val) == len(model) + 1
            model.append(val)
        elif op == 2:
            assert c("LPUSH", "l", val) == len(model) + 1
            model.insert(0, val)
        elif op == 3 and model:
            idx = rng.randrange(-len(model), len(model))
            assert c("LSET", "l", idx, val) == "OK"
            model[idx] = val
        elif op == 4 and model:
            pivot = rng.choice(model)
            where = rng.choice(["BEFORE", "AFTER"])
            pos = model.index(pivot) + (1 if where == "AFTER" else 0)
            assert c("LINSERT", "l", where, pivot, val) == len(model) + 1
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
            assert c("LREM", "l", count, target) == removed
        elif op == 6 and model:
            assert c("LPOP", "l") == model.pop(0)
        elif op == 7 and model:
            assert c("RPOP", "l") == model.pop()
        elif op == 8 and model:
            idx = rng.randrange(-len(model), len(model))
            assert c("LINDEX", "l", idx) == model[idx]
        if model:
            start = rng.randrange(-len(model) - 2, len(model) + 2)
            stop = rng.randrange(-len(model) - 2, len(model) + 2)
            s = start if start >= 0 else max(len(model) + start, 0)
            e = stop if stop >= 0 else len(model) + stop
            expected = model[s:e + 1] if e >= 0 else []
            assert c("LRANGE", "l", start, stop) == expected
    assert lrange(c, "l") == model
    assert c("LLEN", "l") == len(model)
    c("LTRIM", "l", "3", "-4")
    assert lrange(c, "l") == model[3:len(model) - 3]


# --- Blocking: BLPOP BRPOP BRPOPLPUSH BLMOVE BLMPOP ----------------------

def test_blpop_returns_at_once_when_data_exists(c):
    c("RPUSH", "k2", "x")
    c("RPUSH", "k3", "y")
    # The first non-empty key in argument order is served.
    assert c("BLPOP", "k1", "k3", "k2", "0") == [b"k3", b"y"]
    assert c("BRPOP", "k1", "k2", "0") == [b"k2", b"x"]
    c("RPUSH", "l", "a", "b")
    assert c("BRPOPLPUSH", "l", "d", "0") == b"b"
    assert c("BLMOVE", "l", "d", "LEFT", "LEFT", "0") == b"a"
    assert lrange(c, "d") == [b"a", b"b"]
    c("RPUSH", "m", "1", "2", "3")
    assert c("BLMPOP", "0", "2", "x", "m", "RIGHT", "COUNT", "2") == [b"m", [b"3", b"2"]]


def test_blpop_woken_by_push_from_other_client(c, connect):
    waiter = connect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(c, 1)
    assert not waiter.pending()
    assert c("RPUSH", "k", "v") == 1
    assert waiter.read() == [b"k", b"v"]
    assert c("EXISTS", "k") == 0
    wait_blocked(c, 0)


def test_brpop_woken_by_lpush_of_several(c, connect):
    waiter = connect()
    waiter.send("BRPOP", "a", "k", "0")
    wait_blocked(c, 1)
    assert c("LPUSH", "k", "x", "y", "z") == 3
    assert waiter.read() == [b"k", b"x"]
    assert lrange(c, "k") == [b"z", b"y"]


def test_blpop_woken_by_lpush_gets_last_pushed(c, connect):
    waiter = connect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(c, 1)
    # The push reports the list before the waiter is served.
    assert c("LPUSH", "k", "a", "b", "c") == 3
    assert waiter.read() == [b"k", b"c"]
    assert lrange(c, "k") == [b"b", b"a"]


def test_blpop_in_a_thread_with_redis_py(server, c):
    result = {}

    def block():
        cl = server.client()
        try:
            result["reply"] = cl.blpop(["k1", "k2"], timeout=0)
        finally:
            cl.close()

    t = threading.Thread(target=block)
    t.start()
    wait_blocked(c, 1)
    c("RPUSH", "k2", "hello")
    t.join(5)
    assert not t.is_alive()
    assert result["reply"] == (b"k2", b"hello")


def test_brpoplpush_woken(c, connect):
    waiter = connect()
    waiter.send("BRPOPLPUSH", "src", "dst", "0")
    wait_blocked(c, 1)
    c("RPUSH", "src", "a", "b")
    assert waiter.read() == b"b"
    assert lrange(c, "src") == [b"a"]
    assert lrange(c, "dst") == [b"b"]


def test_blmove_woken(c, connect):
    waiter = connect()
    waiter.send("BLMOVE", "src", "dst", "LEFT", "RIGHT", "0")
    wait_blocked(c, 1)
    c("RPUSH", "dst", "d")
    c("RPUSH", "src", "a", "b")
    assert waiter.read() == b"a"
    assert lrange(c, "src") == [b"b"]
    assert lrange(c, "dst") == [b"d", b"a"]


def test_blmove_chain_wakes_client_waiting_on_destination(c, connect):
    mover = connect()
    popper = connect()
    mover.send("BLMOVE", "src", "dst", "RIGHT", "LEFT", "0")
    wait_blocked(c, 1)
    popper.send("BLPOP", "dst", "0")
    wait_blocked(c, 2)
    c("RPUSH", "src", "x")
    assert mover.read() == b"x"
    assert popper.read() == [b"dst", b"x"]
    assert c("EXISTS", "src", "dst") == 0


def test_blmpop_woken(c, connect):
    waiter = connect()
    waiter.send("BLMPOP", "0", "2", "k1", "k2", "LEFT", "COUNT", "2")
    wait_blocked(c, 1)
    c("RPUSH", "k2", "a", "b", "c")
    assert waiter.read() == [b"k2", [b"a", b"b"]]
    assert lrange(c, "k2") == [b"c"]


def test_blmpop_errors(c):
    assert c.err("BLMPOP", "0", "0", "l", "LEFT") == "ERR numkeys should be greater than 0"
    assert c.err("BLMPOP", "0", "1", "l", "UP") == "ERR syntax error"
    assert c.err("BLMPOP", "0", "1", "l", "LEFT", "COUNT", "0") == "ERR count should be greater than 0"
    assert c.err("BLMPOP", "0", "1", "l") == arity("blmpop")


def test_fractional_timeouts(c):
    for cmd in (("BLPOP", "k", "0.1"), ("BRPOP", "k", "0.1"), ("BRPOPLPUSH", "k", "d", "0.1"),
                ("BLMOVE", "k", "d", "LEFT", "LEFT", "0.1"), ("BLMPOP", "0.1", "1", "k", "LEFT")):
        start = time.time()
        assert c(*cmd) is NULL_ARRAY
        elapsed = time.time() - start
        assert 0.09 <= elapsed < 2, (cmd, elapsed)
    assert c("EXISTS", "d") == 0


def test_timeout_errors(c):
    for cmd in (("BLPOP", "k", "{}"), ("BRPOP", "k", "{}"), ("BRPOPLPUSH", "k", "d", "{}"),
                ("BLMOVE", "k", "d", "LEFT", "LEFT", "{}"), ("BLMPOP", "{}", "1", "k", "LEFT")):
        def run(timeout):
            return c.err(*[a.replace("{}", timeout) for a in cmd])
        assert run("-1") == "ERR timeout is negative"
        assert run("-0.5") == "ERR timeout is negative"
        assert run("x") == "ERR timeout is not a float or out of range"
        assert run("nan") == "ERR timeout is not a float or out of range"
    for cmd in ("BLPOP", "BRPOP"):
        assert c.err(cmd, "k") == arity(cmd.lower())
    assert c.err("BRPOPLPUSH", "a", "b") == arity("brpoplpush")
    assert c.err("BLMOVE", "a", "b", "LEFT", "LEFT") == arity("blmove")
    assert c.err("BLMOVE", "a", "b", "LEFT", "UP", "0") == "ERR syntax error"


def test_first_come_first_served(c, connect):
    waiters = [connect() for _ in range(3)]
    for i, w in enumerate(waiters):
        w.send("BLPOP", "k", "0")
        wait_blocked(c, i + 1)
    c("RPUSH", "k", "one")
    assert waiters[0].read() == [b"k", b"one"]
    assert not waiters[1].pending() and not waiters[2].pending()
    c("RPUSH", "k", "two", "three")
    assert waiters[1].read() == [b"k", b"two"]
    assert waiters[2].read() == [b"k", b"three"]
    assert c("EXISTS", "k") == 0


def test_waiter_on_several_keys_served_once(c, connect):
    waiter = connect()
    waiter.send("BLPOP", "a", "b", "0")
    wait_blocked(c, 1)
    c("MULTI")
    c("RPUSH", "b", "x")
    c("RPUSH", "a", "y")
    assert c("EXEC") == [1, 1]
    # Keys are served in the order they became ready.
    assert waiter.read() == [b"b", b"x"]
    assert lrange(c, "a") == [b"y"]
    wait_blocked(c, 0)


def test_wakeup_by_multi_exec_push(c, connect):
    waiter = connect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(c, 1)
    assert c("MULTI") == "OK"
    assert c("RPUSH", "k", "a", "b") == "QUEUED"
    assert c("RPUSH", "k", "c") == "QUEUED"
    assert c("EXEC") == [2, 3]
    # The waiter is served after the whole transaction.
    assert waiter.read() == [b"k", b"a"]
    assert lrange(c, "k") == [b"b", b"c"]


def test_push_and_delete_in_multi_does_not_wake(c, connect):
    waiter = connect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(c, 1)
    c("MULTI")
    c("RPUSH", "k", "a")
    c("DEL", "k")
    assert c("EXEC") == [1, 1]
    assert not waiter.pending(0.1)
    c("RPUSH", "k", "later")
    assert waiter.read() == [b"k", b"later"]


def test_blocking_inside_multi_does_not_block(c):
    c("MULTI")
    assert c("BLPOP", "k", "0") == "QUEUED"
    assert c("BRPOP", "k", "0") == "QUEUED"
    assert c("BRPOPLPUSH", "k", "d", "0") == "QUEUED"
    assert c("BLMOVE", "k", "d", "LEFT", "LEFT", "0") == "QUEUED"
    assert c("BLMPOP", "0", "1", "k", "LEFT") == "QUEUED"
    # Nil arrays for the pops, nil bulks for the moves.
    assert c.frame("EXEC") == b"*5\r\n*-1\r\n*-1\r\n$-1\r\n$-1\r\n*-1\r\n"
    c("RPUSH", "k", "a", "b")
    c("MULTI")
    c("BLPOP", "k", "0")
    c("BRPOPLPUSH", "k", "d", "0")
    c("BLPOP", "k", "0")
    assert c.frame("EXEC") == b"*3\r\n*2\r\n$1\r\nk\r\n$1\r\na\r\n$1\r\nb\r\n*-1\r\n"


def test_client_unblock(c, connect):
    waiter = connect()
    wid = waiter("CLIENT", "ID")
    for cmd in (("BLPOP", "k", "0"), ("BRPOP", "k", "0"), ("BRPOPLPUSH", "k", "d", "0"),
                ("BLMOVE", "k", "d", "LEFT", "LEFT", "0"), ("BLMPOP", "0", "1", "k", "LEFT")):
        for reason in ((), ("TIMEOUT",), ("timeout",)):
            waiter.send(*cmd)
            wait_blocked(c, 1)
            assert c("CLIENT", "UNBLOCK", wid, *reason) == 1
            assert waiter.read() is NULL_ARRAY, (cmd, reason)
        waiter.send(*cmd)
        wait_blocked(c, 1)
        assert c("CLIENT", "UNBLOCK", wid, "ERROR") == 1
        assert waiter.read() == ReplyError(UNBLOCKED), cmd
    wait_blocked(c, 0)
    assert c("CLIENT", "UNBLOCK", wid) == 0
    assert c("CLIENT", "UNBLOCK", "999999") == 0
    assert c.err("CLIENT", "UNBLOCK", wid, "FOO") == "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"
    assert c.err("CLIENT", "UNBLOCK", "x") == "ERR value is not an integer or out of range"
    # The waiter is still usable afterwards.
    assert waiter("PING") == "PONG"


def test_waiter_stays_blocked_when_key_becomes_other_type(c, connect):
    waiter = connect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(c, 1)
    assert c("SET", "k", "x") == "OK"
    assert not waiter.pending(0.1)
    c("DEL", "k")
    assert c("ZADD", "k", "1", "m") == 1
    assert not waiter.pending(0.1)
    wait_blocked(c, 1)
    c("DEL", "k")
    c("RPUSH", "k", "v")
    assert waiter.read() == [b"k", b"v"]


def test_blmove_destination_of_wrong_type(c, connect):
    c("SET", "dst", "str")
    waiter = connect()
    waiter.send("BLMOVE", "src", "dst", "LEFT", "RIGHT", "0")
    wait_blocked(c, 1)
    c("RPUSH", "src", "e1")
    # The waiter is unblocked with the error; the element stays in the source.
    assert waiter.read() == ReplyError(WRONGTYPE)
    wait_blocked(c, 0)
    assert lrange(c, "src") == [b"e1"]
    assert c("GET", "dst") == b"str"


def test_blocked_client_timeout_then_reuse(c, connect):
    waiter = connect()
    waiter.send("BLPOP", "k", "0.1")
    assert waiter.read() is NULL_ARRAY
    wait_blocked(c, 0)
    c("RPUSH", "k", "a")
    assert c("LLEN", "k") == 1  # nothing was taken by the timed-out waiter
    assert waiter("BLPOP", "k", "0") == [b"k", b"a"]


def test_disconnected_waiter_is_forgotten(c, connect):
    waiter = connect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(c, 1)
    waiter.close()
    wait_blocked(c, 0)
    c("RPUSH", "k", "a")
    assert lrange(c, "k") == [b"a"]
