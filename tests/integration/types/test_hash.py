"""Integration tests for the hash commands, checked against Redis 7.0.15.

Replies and error texts are asserted exactly (through datatype_client.py),
including the listpack -> hashtable encoding switch at
hash-max-listpack-entries / hash-max-listpack-value and its CONFIG SET.
"""
import random

import pytest

from datatype_client import WRONGTYPE, arity, check_random_members, scan_all


def as_dict(flat):
    assert len(flat) % 2 == 0
    return dict(zip(flat[0::2], flat[1::2]))


def fill_hashtable(dc, key, n):
    """Creates a hash of n fields f0..f(n-1) -> v0.. in hashtable encoding."""
    args = []
    for i in range(n):
        args += ["f%d" % i, "v%d" % i]
    dc("CONFIG", "SET", "hash-max-listpack-entries", "4")
    assert dc("HSET", key, *args) == n
    assert dc.encoding(key) == b"hashtable"


# --- HSET / HSETNX / HMSET / HGET / HMGET --------------------------------

def test_hset_returns_new_field_count(dc):
    assert dc("HSET", "h", "a", "1", "b", "2") == 2
    assert dc("HSET", "h", "a", "10", "c", "3") == 1
    assert dc("HGET", "h", "a") == b"10"
    assert dc("HGET", "h", "c") == b"3"
    assert dc("HLEN", "h") == 3


def test_hset_arity(dc):
    assert dc.err("HSET", "h") == arity("hset")
    assert dc.err("HSET", "h", "f") == arity("hset")
    assert dc.err("HSET", "h", "f", "v", "g") == arity("hset")
    assert dc("EXISTS", "h") == 0


def test_hsetnx(dc):
    assert dc("HSETNX", "h", "f", "1") == 1
    assert dc("HSETNX", "h", "f", "2") == 0
    assert dc("HGET", "h", "f") == b"1"
    assert dc.err("HSETNX", "h", "f") == arity("hsetnx")


def test_hmset(dc):
    assert dc("HMSET", "h", "a", "1", "b", "2") == "OK"
    assert dc("HMGET", "h", "a", "b", "nope") == [b"1", b"2", None]
    assert dc.err("HMSET", "h", "a", "1", "b") == arity("hmset")
    assert dc.err("HMSET", "h") == arity("hmset")


def test_hget_hmget_missing(dc):
    assert dc("HGET", "nokey", "f") is None
    assert dc("HMGET", "nokey", "a", "b") == [None, None]
    dc("HSET", "h", "a", "1")
    assert dc("HGET", "h", "zz") is None
    assert dc.err("HMGET", "h") == arity("hmget")
    assert dc.err("HGET", "h") == arity("hget")


def test_binary_fields_and_values(dc):
    field = b"f\x00\r\n\xff"
    value = b"v\x00\r\n\xfe" * 3
    assert dc("HSET", "h", field, value) == 1
    assert dc("HGET", "h", field) == value
    assert dc("HGETALL", "h") == [field, value]


def test_empty_field_and_value(dc):
    assert dc("HSET", "h", "", "") == 1
    assert dc("HEXISTS", "h", "") == 1
    assert dc("HGET", "h", "") == b""
    assert dc("HSTRLEN", "h", "") == 0


# --- HDEL / HLEN / HSTRLEN / HEXISTS -------------------------------------

def test_hdel_counts_and_removes_empty_key(dc):
    dc("HSET", "h", "a", "1", "b", "2", "c", "3")
    assert dc("HDEL", "h", "a", "zz", "a") == 1
    assert dc("HLEN", "h") == 2
    assert dc("HDEL", "h", "b", "c") == 2
    assert dc("EXISTS", "h") == 0
    assert dc("HDEL", "h", "b") == 0
    assert dc.err("HDEL", "h") == arity("hdel")


def test_hlen_hstrlen_hexists(dc):
    assert dc("HLEN", "nokey") == 0
    assert dc("HSTRLEN", "nokey", "f") == 0
    assert dc("HEXISTS", "nokey", "f") == 0
    dc("HSET", "h", "f", "hello", "n", "12345")
    assert dc("HLEN", "h") == 2
    assert dc("HSTRLEN", "h", "f") == 5
    assert dc("HSTRLEN", "h", "n") == 5
    assert dc("HSTRLEN", "h", "zz") == 0
    assert dc("HEXISTS", "h", "f") == 1
    assert dc("HEXISTS", "h", "zz") == 0
    assert dc.err("HLEN", "h", "x") == arity("hlen")
    assert dc.err("HEXISTS", "h") == arity("hexists")
    assert dc.err("HSTRLEN", "h") == arity("hstrlen")


def test_hstrlen_of_integer_values(dc):
    dc("HSET", "h", "a", "-123", "b", "0", "c", "9223372036854775807")
    assert dc("HSTRLEN", "h", "a") == 4
    assert dc("HSTRLEN", "h", "b") == 1
    assert dc("HSTRLEN", "h", "c") == 19
    dc("CONFIG", "SET", "hash-max-listpack-entries", "0")
    dc("HSET", "h2", "a", "-123")
    assert dc.encoding("h2") == b"hashtable"
    assert dc("HSTRLEN", "h2", "a") == 4


# --- HKEYS / HVALS / HGETALL ---------------------------------------------

def test_hkeys_hvals_hgetall_listpack_keep_insertion_order(dc):
    dc("HSET", "h", "z", "1", "a", "2", "m", "3")
    assert dc.encoding("h") == b"listpack"
    assert dc("HKEYS", "h") == [b"z", b"a", b"m"]
    assert dc("HVALS", "h") == [b"1", b"2", b"3"]
    assert dc("HGETALL", "h") == [b"z", b"1", b"a", b"2", b"m", b"3"]


def test_hkeys_hvals_hgetall_hashtable(dc):
    fill_hashtable(dc, "h", 20)
    keys = dc("HKEYS", "h")
    vals = dc("HVALS", "h")
    flat = dc("HGETALL", "h")
    expected = {b"f%d" % i: b"v%d" % i for i in range(20)}
    assert sorted(keys) == sorted(expected)
    assert sorted(vals) == sorted(expected.values())
    assert len(flat) == 40
    assert as_dict(flat) == expected
    # The three commands walk the table in the same order.
    assert flat[0::2] == keys
    assert flat[1::2] == vals


def test_missing_key_gives_empty_arrays(dc):
    assert dc("HKEYS", "nokey") == []
    assert dc("HVALS", "nokey") == []
    assert dc("HGETALL", "nokey") == []
    assert dc.err("HGETALL") == arity("hgetall")
    assert dc.err("HKEYS", "a", "b") == arity("hkeys")


# --- HINCRBY / HINCRBYFLOAT ----------------------------------------------

def test_hincrby(dc):
    assert dc("HINCRBY", "h", "f", "5") == 5
    assert dc("HINCRBY", "h", "f", "-7") == -2
    assert dc("HGET", "h", "f") == b"-2"
    assert dc("HINCRBY", "h", "g", "0") == 0
    assert dc("HGET", "h", "g") == b"0"


def test_hincrby_errors(dc):
    dc("HSET", "h", "s", "abc", "sp", " 1", "max", "9223372036854775807",
      "min", "-9223372036854775808", "fl", "1.5")
    assert dc.err("HINCRBY", "h", "s", "1") == "ERR hash value is not an integer"
    assert dc.err("HINCRBY", "h", "sp", "1") == "ERR hash value is not an integer"
    assert dc.err("HINCRBY", "h", "fl", "1") == "ERR hash value is not an integer"
    assert dc.err("HINCRBY", "h", "max", "1") == "ERR increment or decrement would overflow"
    assert dc.err("HINCRBY", "h", "min", "-1") == "ERR increment or decrement would overflow"
    assert dc("HINCRBY", "h", "max", "-1") == 9223372036854775806
    for bad in ("x", "1.5", " 1", "01", "", "9223372036854775808"):
        assert dc.err("HINCRBY", "h", "n", bad) == "ERR value is not an integer or out of range"
    assert dc("HEXISTS", "h", "n") == 0
    assert dc.err("HINCRBY", "h", "n") == arity("hincrby")


def test_hincrbyfloat_formatting(dc):
    assert dc("HINCRBYFLOAT", "h", "f", "1.1") == b"1.1"
    assert dc("HINCRBYFLOAT", "h", "f", "2.2") == b"3.3"
    assert dc("HGET", "h", "f") == b"3.3"
    assert dc("HINCRBYFLOAT", "h", "w", "0.1") == b"0.1"
    assert dc("HINCRBYFLOAT", "h", "w", "0.2") == b"0.3"
    assert dc("HINCRBYFLOAT", "h", "g", "3.0e3") == b"3000"
    assert dc("HINCRBYFLOAT", "h", "g", "1.0e1") == b"3010"
    assert dc("HINCRBYFLOAT", "h", "z", "5") == b"5"
    assert dc("HINCRBYFLOAT", "h", "z", "-5") == b"0"
    assert dc("HINCRBYFLOAT", "h", "z", "1.5e-5") == b"0.000015"
    assert dc("HINCRBYFLOAT", "h", "x", "5.0000") == b"5"
    assert dc("HINCRBYFLOAT", "h", "x", "-5.5") == b"-0.5"
    # The sum is computed in long double: 17 significant digits survive.
    assert dc("HINCRBYFLOAT", "h", "f", "1e-17") == b"3.30000000000000001"


def test_hincrbyfloat_on_integer_value(dc):
    dc("HSET", "h", "n", "10")
    assert dc("HINCRBYFLOAT", "h", "n", "0.5") == b"10.5"
    assert dc.err("HINCRBY", "h", "n", "1") == "ERR hash value is not an integer"


def test_hincrbyfloat_errors(dc):
    dc("HSET", "h", "s", "abc", "sp", " 1")
    assert dc.err("HINCRBYFLOAT", "h", "s", "1") == "ERR hash value is not a float"
    assert dc.err("HINCRBYFLOAT", "h", "sp", "1") == "ERR hash value is not a float"
    assert dc.err("HINCRBYFLOAT", "h", "n", "abc") == "ERR value is not a valid float"
    assert dc.err("HINCRBYFLOAT", "h", "n", "nan") == "ERR value is not a valid float"
    assert dc.err("HINCRBYFLOAT", "h", "n", "inf") == "ERR value is NaN or Infinity"
    assert dc("HEXISTS", "h", "n") == 0
    assert dc.err("HINCRBYFLOAT", "h", "x", "1", "2") == arity("hincrbyfloat")


# --- HRANDFIELD ----------------------------------------------------------

def test_hrandfield_missing_key(dc):
    assert dc("HRANDFIELD", "nokey") is None
    assert dc("HRANDFIELD", "nokey", "5") == []
    assert dc("HRANDFIELD", "nokey", "-5") == []
    assert dc("HRANDFIELD", "nokey", "-5", "WITHVALUES") == []


def test_hrandfield_errors(dc):
    dc("HSET", "h", "a", "1")
    assert dc.err("HRANDFIELD", "h", "1", "foo") == "ERR syntax error"
    assert dc.err("HRANDFIELD", "h", "1", "WITHVALUES", "x") == "ERR syntax error"
    assert dc.err("HRANDFIELD", "h", "x") == "ERR value is not an integer or out of range"
    assert dc.err("HRANDFIELD", "h", "-9223372036854775808") == (
        "ERR value is out of range, value must between "
        "-9223372036854775807 and 9223372036854775807")
    assert dc.err("HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES") == "ERR value is out of range"
    assert dc.err("HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES") == "ERR value is out of range"
    assert dc.err("HRANDFIELD") == arity("hrandfield")


def test_hrandfield_listpack(dc):
    expected = {b"a": b"1", b"b": b"2", b"c": b"3", b"d": b"4", b"e": b"5"}
    dc("HSET", "h", *[x for kv in expected.items() for x in kv])
    assert dc.encoding("h") == b"listpack"
    check_random_members(dc, "HRANDFIELD", "h", expected, "WITHVALUES")
    # Many draws with repeats cover every field of a small hash.
    assert set(dc("HRANDFIELD", "h", "-200")) == set(expected)


def test_hrandfield_hashtable(dc):
    fill_hashtable(dc, "h", 100)
    expected = {b"f%d" % i: b"v%d" % i for i in range(100)}
    check_random_members(dc, "HRANDFIELD", "h", expected, "WITHVALUES")
    # A small positive count (sampling) and a large one (copy and remove).
    for count in (10, 90):
        got = dc("HRANDFIELD", "h", count, "WITHVALUES")
        pairs = as_dict(got)
        assert len(pairs) == count
        assert all(expected[f] == v for f, v in pairs.items())


# --- HSCAN ---------------------------------------------------------------

def test_hscan_listpack(dc):
    dc("HSET", "h", "a", "1", "b", "2", "key:1", "3", "key:2", "4")
    assert dc.encoding("h") == b"listpack"
    # A listpack hash is returned whole in one call, whatever COUNT says.
    assert dc("HSCAN", "h", "0") == [b"0", [b"a", b"1", b"b", b"2", b"key:1", b"3", b"key:2", b"4"]]
    assert dc("HSCAN", "h", "0", "COUNT", "1") == [b"0", [b"a", b"1", b"b", b"2", b"key:1", b"3",
                                                         b"key:2", b"4"]]
    assert dc("HSCAN", "h", "0", "MATCH", "key:*") == [b"0", [b"key:1", b"3", b"key:2", b"4"]]
    assert dc("HSCAN", "h", "0", "MATCH", "nothing*") == [b"0", []]


def test_hscan_hashtable(dc):
    fill_hashtable(dc, "h", 200)
    items, calls = scan_all(dc, "HSCAN", "h", "COUNT", "10")
    assert calls > 1
    d = as_dict(items)
    assert d == {b"f%d" % i: b"v%d" % i for i in range(200)}
    assert len(items) == 400  # a table that does not change gives no duplicates
    items, _ = scan_all(dc, "HSCAN", "h", "MATCH", "f1?", "COUNT", "1000")
    assert as_dict(items) == {b"f1%d" % i: b"v1%d" % i for i in range(10)}


def test_hscan_missing_key_and_errors(dc):
    assert dc("HSCAN", "nokey", "0") == [b"0", []]
    dc("HSET", "h", "a", "1")
    assert dc.err("HSCAN", "h", "x") == "ERR invalid cursor"
    assert dc.err("HSCAN", "h", "0", "NOVALUES") == "ERR syntax error"  # not in 7.0
    assert dc.err("HSCAN", "h", "0", "COUNT", "0") == "ERR syntax error"
    assert dc.err("HSCAN", "h", "0", "COUNT", "-1") == "ERR syntax error"
    assert dc.err("HSCAN", "h", "0", "COUNT", "x") == "ERR value is not an integer or out of range"
    assert dc.err("HSCAN", "h", "0", "MATCH") == "ERR syntax error"
    assert dc.err("HSCAN", "h", "0", "FOO", "1") == "ERR syntax error"
    assert dc.err("HSCAN", "h") == arity("hscan")


# --- WRONGTYPE -----------------------------------------------------------

def test_wrongtype(dc):
    dc("SET", "s", "x")
    for cmd in (("HSET", "s", "f", "v"), ("HSETNX", "s", "f", "v"), ("HMSET", "s", "f", "v"),
                ("HGET", "s", "f"), ("HMGET", "s", "f"), ("HDEL", "s", "f"), ("HLEN", "s"),
                ("HSTRLEN", "s", "f"), ("HEXISTS", "s", "f"), ("HKEYS", "s"), ("HVALS", "s"),
                ("HGETALL", "s"), ("HINCRBY", "s", "f", "1"), ("HINCRBYFLOAT", "s", "f", "1"),
                ("HRANDFIELD", "s"), ("HRANDFIELD", "s", "2"), ("HSCAN", "s", "0")):
        assert dc.err(*cmd) == WRONGTYPE, cmd
    assert dc("GET", "s") == b"x"
    dc("HSET", "h", "f", "v")
    assert dc.err("GET", "h") == WRONGTYPE
    assert dc("TYPE", "h") == "hash"


# --- Encodings -----------------------------------------------------------

def test_encoding_defaults(dc):
    assert dc("CONFIG", "GET", "hash-max-listpack-entries") == [b"hash-max-listpack-entries", b"512"]
    assert dc("CONFIG", "GET", "hash-max-listpack-value") == [b"hash-max-listpack-value", b"64"]
    # The 6.x names are aliases of the same settings.
    assert dc("CONFIG", "GET", "hash-max-ziplist-entries") == [b"hash-max-ziplist-entries", b"512"]
    assert dc("CONFIG", "GET", "hash-max-ziplist-value") == [b"hash-max-ziplist-value", b"64"]
    assert dc.encoding("nokey") is None


def test_encoding_entries_threshold_default(dc):
    args = []
    for i in range(512):
        args += ["f%d" % i, "v"]
    assert dc("HSET", "h", *args) == 512
    assert dc.encoding("h") == b"listpack"
    assert dc("HSET", "h", "f1", "changed") == 0
    assert dc.encoding("h") == b"listpack"
    assert dc("HSET", "h", "one-more", "v") == 1
    assert dc.encoding("h") == b"hashtable"
    assert dc("HLEN", "h") == 513
    assert dc("HGET", "h", "f1") == b"changed"
    # 513 fields in a single command go straight to a hashtable.
    assert dc("HSET", "h2", *(args + ["x", "y"])) == 513
    assert dc.encoding("h2") == b"hashtable"


def test_encoding_value_threshold_default(dc):
    dc("HSET", "h", "f", "x" * 64)
    assert dc.encoding("h") == b"listpack"
    dc("HSET", "h", "g", "x" * 65)
    assert dc.encoding("h") == b"hashtable"
    assert dc("HGET", "h", "g") == b"x" * 65
    # A long field name counts too.
    dc("HSET", "h2", "y" * 65, "1")
    assert dc.encoding("h2") == b"hashtable"
    dc("HSET", "h3", "a", "1")
    dc("HSETNX", "h3", "b", "z" * 65)
    assert dc.encoding("h3") == b"hashtable"
    dc("HSET", "h4", "a", "1")
    dc("HINCRBYFLOAT", "h4", "q" * 65, "1")
    assert dc.encoding("h4") == b"hashtable"


def test_encoding_config_set_entries(dc):
    assert dc("CONFIG", "SET", "hash-max-listpack-entries", "4") == "OK"
    assert dc("CONFIG", "GET", "hash-max-ziplist-entries") == [b"hash-max-ziplist-entries", b"4"]
    dc("HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4")
    assert dc.encoding("h") == b"listpack"
    dc("HINCRBY", "h", "e", "1")
    assert dc.encoding("h") == b"hashtable"
    # The conversion is one-way: shrinking does not go back to listpack.
    dc("HDEL", "h", "a", "b", "c", "d")
    assert dc("HGETALL", "h") == [b"e", b"1"]
    assert dc.encoding("h") == b"hashtable"
    # An existing listpack hash is not converted by lowering the limit...
    dc("CONFIG", "SET", "hash-max-listpack-entries", "10")
    dc("HSET", "h2", "a", "1", "b", "2", "c", "3")
    dc("CONFIG", "SET", "hash-max-listpack-entries", "2")
    assert dc.encoding("h2") == b"listpack"
    # ...but by the next write that adds a field.
    dc("HSET", "h2", "d", "4")
    assert dc.encoding("h2") == b"hashtable"
    assert sorted(dc("HKEYS", "h2")) == [b"a", b"b", b"c", b"d"]


def test_encoding_config_set_value_via_alias(dc):
    assert dc("CONFIG", "SET", "hash-max-ziplist-value", "10") == "OK"
    assert dc("CONFIG", "GET", "hash-max-listpack-value") == [b"hash-max-listpack-value", b"10"]
    dc("HSET", "h", "f", "x" * 10)
    assert dc.encoding("h") == b"listpack"
    dc("HSET", "h", "f", "x" * 11)
    assert dc.encoding("h") == b"hashtable"
    dc("CONFIG", "SET", "hash-max-listpack-entries", "0")
    dc("HSET", "h2", "a", "1")
    assert dc.encoding("h2") == b"hashtable"


def test_config_set_threshold_errors(dc):
    assert dc.err("CONFIG", "SET", "hash-max-listpack-entries", "-1") == (
        "ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-entries') - "
        "argument must be between 0 and 9223372036854775807 inclusive")
    assert dc.err("CONFIG", "SET", "hash-max-listpack-entries", "abc") == (
        "ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-entries') - "
        "argument couldn't be parsed into an integer")


def test_commands_agree_across_encodings(dc):
    dc("CONFIG", "SET", "hash-max-listpack-entries", "0")
    dc("HSET", "h", "a", "1", "b", "2")
    assert dc.encoding("h") == b"hashtable"
    assert dc("HGET", "h", "a") == b"1"
    assert dc("HMGET", "h", "a", "zz", "b") == [b"1", None, b"2"]
    assert dc("HSETNX", "h", "a", "9") == 0
    assert dc("HINCRBY", "h", "a", "5") == 6
    assert dc("HINCRBYFLOAT", "h", "b", "0.5") == b"2.5"
    assert dc("HSTRLEN", "h", "b") == 3
    assert dc("HEXISTS", "h", "b") == 1
    assert dc("HDEL", "h", "a") == 1
    assert dc("HGETALL", "h") == [b"b", b"2.5"]
    assert dc("HDEL", "h", "b") == 1
    assert dc("EXISTS", "h") == 0


@pytest.mark.ours
def test_hashtable_fields_live_in_their_entries(dc):
    """A field and its value cost no allocation of their own (both are packed
    into the table's buckets), so 1000 short pairs take less than 40 bytes
    each (Valkey 8.0.1 takes about 64, Redis 7.0 about 72)."""
    dc("HSET", "h", *[x for j in range(1000) for x in ("field:%d" % j, "value:%d" % j)])
    assert dc.encoding("h") == b"hashtable"
    dc("SADD", "s", *["member:%d" % j for j in range(1000)])
    assert dc.encoding("s") == b"hashtable"
    # The figures are jemalloc's block sizes (a sanitizer build runs on libc malloc).
    if b"mem_allocator:jemalloc" in dc("INFO", "memory"):
        assert dc("MEMORY", "USAGE", "h", "SAMPLES", "0") < 40 * 1000
        assert dc("MEMORY", "USAGE", "s", "SAMPLES", "0") < 48 * 1000
    # Fields and members stay usable as keys of every command.
    assert dc("HGET", "h", "field:999") == b"value:999"
    assert dc("HDEL", "h", "field:0", "nope") == 1
    assert dc("HLEN", "h") == 999
    assert dc("SREM", "s", "member:5") == 1 and dc("SISMEMBER", "s", "member:6") == 1


@pytest.mark.server_args("--enable-debug-command", "yes")
def test_hashtable_values_rewritten_longer_shorter_and_removed(r, dc):
    """Values replaced by ones of the same, a greater and a smaller length,
    fields removed and added again, all in one big hash: every read agrees
    with a model, before and after a reload."""
    rnd = random.Random(7)
    model = {}
    for i in range(3000):
        f = "f%d" % rnd.randrange(1500)
        op = rnd.random()
        if op < 0.15 and model:
            f = rnd.choice(sorted(model))
            assert r.hdel("h", f) == 1
            del model[f]
            continue
        v = "v" * rnd.choice((0, 1, 5, 40, 200)) + str(i % 10)
        assert r.hset("h", f, v) == (0 if f in model else 1)
        model[f] = v.encode()
        if op > 0.98:
            r.hincrby("h", "ctr", 1)
            model["ctr"] = str(int(model.get("ctr", b"0")) + 1).encode()
    assert r.object("encoding", "h") == b"hashtable"

    def check():
        got = {k.decode(): v for k, v in r.hgetall("h").items()}
        assert got == model
        assert r.hlen("h") == len(model)
        items, _ = scan_all(dc, "HSCAN", "h", "COUNT", "100")
        assert {k.decode(): v for k, v in as_dict(items).items()} == model
        sample = rnd.sample(sorted(model), 50)
        assert r.hmget("h", sample) == [model[f] for f in sample]
        for f, v in zip(*[iter(r.hrandfield("h", -200, withvalues=True))] * 2):
            assert model[f.decode()] == v

    check()
    r.execute_command("DEBUG", "RELOAD")
    check()


def test_hscan_and_zscan_count_a_pair_as_one(r):
    r.hset("h", mapping={"f%d" % i: i for i in range(1000)})
    r.zadd("z", {"m%d" % i: i for i in range(1000)})
    assert r.object("encoding", "h") == b"hashtable"
    assert r.object("encoding", "z") == b"skiplist"
    # One dictScan step may bring a few more than COUNT, never half of it.
    _, page = r.hscan("h", 0, count=50)
    assert 50 <= len(page) < 60
    _, page = r.zscan("z", 0, count=50)
    assert 50 <= len(page) < 60
