"""Integration tests for the hash commands, checked against Redis 7.0.15.

Replies and error texts are asserted exactly (through datatype_client.py),
including the listpack -> hashtable encoding switch at
hash-max-listpack-entries / hash-max-listpack-value and its CONFIG SET.
"""
from datatype_client import WRONGTYPE, arity, c, check_random_members, connect, scan_all  # noqa: F401


def as_dict(flat):
    assert len(flat) % 2 == 0
    return dict(zip(flat[0::2], flat[1::2]))


def fill_hashtable(c, key, n):
    """Creates a hash of n fields f0..f(n-1) -> v0.. in hashtable encoding."""
    args = []
    for i in range(n):
        args += ["f%d" % i, "v%d" % i]
    c("CONFIG", "SET", "hash-max-listpack-entries", "4")
    assert c("HSET", key, *args) == n
    assert c.encoding(key) == b"hashtable"


# --- HSET / HSETNX / HMSET / HGET / HMGET --------------------------------

def test_hset_returns_new_field_count(c):
    assert c("HSET", "h", "a", "1", "b", "2") == 2
    assert c("HSET", "h", "a", "10", "c", "3") == 1
    assert c("HGET", "h", "a") == b"10"
    assert c("HGET", "h", "c") == b"3"
    assert c("HLEN", "h") == 3


def test_hset_arity(c):
    assert c.err("HSET", "h") == arity("hset")
    assert c.err("HSET", "h", "f") == arity("hset")
    assert c.err("HSET", "h", "f", "v", "g") == arity("hset")
    assert c("EXISTS", "h") == 0


def test_hsetnx(c):
    assert c("HSETNX", "h", "f", "1") == 1
    assert c("HSETNX", "h", "f", "2") == 0
    assert c("HGET", "h", "f") == b"1"
    assert c.err("HSETNX", "h", "f") == arity("hsetnx")


def test_hmset(c):
    assert c("HMSET", "h", "a", "1", "b", "2") == "OK"
    assert c("HMGET", "h", "a", "b", "nope") == [b"1", b"2", None]
    assert c.err("HMSET", "h", "a", "1", "b") == arity("hmset")
    assert c.err("HMSET", "h") == arity("hmset")


def test_hget_hmget_missing(c):
    assert c("HGET", "nokey", "f") is None
    assert c("HMGET", "nokey", "a", "b") == [None, None]
    c("HSET", "h", "a", "1")
    assert c("HGET", "h", "zz") is None
    assert c.err("HMGET", "h") == arity("hmget")
    assert c.err("HGET", "h") == arity("hget")


def test_binary_fields_and_values(c):
    field = b"f\x00\r\n\xff"
    value = b"v\x00\r\n\xfe" * 3
    assert c("HSET", "h", field, value) == 1
    assert c("HGET", "h", field) == value
    assert c("HGETALL", "h") == [field, value]


def test_empty_field_and_value(c):
    assert c("HSET", "h", "", "") == 1
    assert c("HEXISTS", "h", "") == 1
    assert c("HGET", "h", "") == b""
    assert c("HSTRLEN", "h", "") == 0


# --- HDEL / HLEN / HSTRLEN / HEXISTS -------------------------------------

def test_hdel_counts_and_removes_empty_key(c):
    c("HSET", "h", "a", "1", "b", "2", "c", "3")
    assert c("HDEL", "h", "a", "zz", "a") == 1
    assert c("HLEN", "h") == 2
    assert c("HDEL", "h", "b", "c") == 2
    assert c("EXISTS", "h") == 0
    assert c("HDEL", "h", "b") == 0
    assert c.err("HDEL", "h") == arity("hdel")


def test_hlen_hstrlen_hexists(c):
    assert c("HLEN", "nokey") == 0
    assert c("HSTRLEN", "nokey", "f") == 0
    assert c("HEXISTS", "nokey", "f") == 0
    c("HSET", "h", "f", "hello", "n", "12345")
    assert c("HLEN", "h") == 2
    assert c("HSTRLEN", "h", "f") == 5
    assert c("HSTRLEN", "h", "n") == 5
    assert c("HSTRLEN", "h", "zz") == 0
    assert c("HEXISTS", "h", "f") == 1
    assert c("HEXISTS", "h", "zz") == 0
    assert c.err("HLEN", "h", "x") == arity("hlen")
    assert c.err("HEXISTS", "h") == arity("hexists")
    assert c.err("HSTRLEN", "h") == arity("hstrlen")


def test_hstrlen_of_integer_values(c):
    c("HSET", "h", "a", "-123", "b", "0", "c", "9223372036854775807")
    assert c("HSTRLEN", "h", "a") == 4
    assert c("HSTRLEN", "h", "b") == 1
    assert c("HSTRLEN", "h", "c") == 19
    c("CONFIG", "SET", "hash-max-listpack-entries", "0")
    c("HSET", "h2", "a", "-123")
    assert c.encoding("h2") == b"hashtable"
    assert c("HSTRLEN", "h2", "a") == 4


# --- HKEYS / HVALS / HGETALL ---------------------------------------------

def test_hkeys_hvals_hgetall_listpack_keep_insertion_order(c):
    c("HSET", "h", "z", "1", "a", "2", "m", "3")
    assert c.encoding("h") == b"listpack"
    assert c("HKEYS", "h") == [b"z", b"a", b"m"]
    assert c("HVALS", "h") == [b"1", b"2", b"3"]
    assert c("HGETALL", "h") == [b"z", b"1", b"a", b"2", b"m", b"3"]


def test_hkeys_hvals_hgetall_hashtable(c):
    fill_hashtable(c, "h", 20)
    keys = c("HKEYS", "h")
    vals = c("HVALS", "h")
    flat = c("HGETALL", "h")
    expected = {b"f%d" % i: b"v%d" % i for i in range(20)}
    assert sorted(keys) == sorted(expected)
    assert sorted(vals) == sorted(expected.values())
    assert len(flat) == 40
    assert as_dict(flat) == expected
    # The three commands walk the table in the same order.
    assert flat[0::2] == keys
    assert flat[1::2] == vals


def test_missing_key_gives_empty_arrays(c):
    assert c("HKEYS", "nokey") == []
    assert c("HVALS", "nokey") == []
    assert c("HGETALL", "nokey") == []
    assert c.err("HGETALL") == arity("hgetall")
    assert c.err("HKEYS", "a", "b") == arity("hkeys")


# --- HINCRBY / HINCRBYFLOAT ----------------------------------------------

def test_hincrby(c):
    assert c("HINCRBY", "h", "f", "5") == 5
    assert c("HINCRBY", "h", "f", "-7") == -2
    assert c("HGET", "h", "f") == b"-2"
    assert c("HINCRBY", "h", "g", "0") == 0
    assert c("HGET", "h", "g") == b"0"


def test_hincrby_errors(c):
    c("HSET", "h", "s", "abc", "sp", " 1", "max", "9223372036854775807",
      "min", "-9223372036854775808", "fl", "1.5")
    assert c.err("HINCRBY", "h", "s", "1") == "ERR hash value is not an integer"
    assert c.err("HINCRBY", "h", "sp", "1") == "ERR hash value is not an integer"
    assert c.err("HINCRBY", "h", "fl", "1") == "ERR hash value is not an integer"
    assert c.err("HINCRBY", "h", "max", "1") == "ERR increment or decrement would overflow"
    assert c.err("HINCRBY", "h", "min", "-1") == "ERR increment or decrement would overflow"
    assert c("HINCRBY", "h", "max", "-1") == 9223372036854775806
    for bad in ("x", "1.5", " 1", "01", "", "9223372036854775808"):
        assert c.err("HINCRBY", "h", "n", bad) == "ERR value is not an integer or out of range"
    assert c("HEXISTS", "h", "n") == 0
    assert c.err("HINCRBY", "h", "n") == arity("hincrby")


def test_hincrbyfloat_formatting(c):
    assert c("HINCRBYFLOAT", "h", "f", "1.1") == b"1.1"
    assert c("HINCRBYFLOAT", "h", "f", "2.2") == b"3.3"
    assert c("HGET", "h", "f") == b"3.3"
    assert c("HINCRBYFLOAT", "h", "w", "0.1") == b"0.1"
    assert c("HINCRBYFLOAT", "h", "w", "0.2") == b"0.3"
    assert c("HINCRBYFLOAT", "h", "g", "3.0e3") == b"3000"
    assert c("HINCRBYFLOAT", "h", "g", "1.0e1") == b"3010"
    assert c("HINCRBYFLOAT", "h", "z", "5") == b"5"
    assert c("HINCRBYFLOAT", "h", "z", "-5") == b"0"
    assert c("HINCRBYFLOAT", "h", "z", "1.5e-5") == b"0.000015"
    assert c("HINCRBYFLOAT", "h", "x", "5.0000") == b"5"
    assert c("HINCRBYFLOAT", "h", "x", "-5.5") == b"-0.5"
    # The sum is computed in long double: 17 significant digits survive.
    assert c("HINCRBYFLOAT", "h", "f", "1e-17") == b"3.30000000000000001"


def test_hincrbyfloat_on_integer_value(c):
    c("HSET", "h", "n", "10")
    assert c("HINCRBYFLOAT", "h", "n", "0.5") == b"10.5"
    assert c.err("HINCRBY", "h", "n", "1") == "ERR hash value is not an integer"


def test_hincrbyfloat_errors(c):
    c("HSET", "h", "s", "abc", "sp", " 1")
    assert c.err("HINCRBYFLOAT", "h", "s", "1") == "ERR hash value is not a float"
    assert c.err("HINCRBYFLOAT", "h", "sp", "1") == "ERR hash value is not a float"
    assert c.err("HINCRBYFLOAT", "h", "n", "abc") == "ERR value is not a valid float"
    assert c.err("HINCRBYFLOAT", "h", "n", "nan") == "ERR value is not a valid float"
    assert c.err("HINCRBYFLOAT", "h", "n", "inf") == "ERR value is NaN or Infinity"
    assert c("HEXISTS", "h", "n") == 0
    assert c.err("HINCRBYFLOAT", "h", "x", "1", "2") == arity("hincrbyfloat")


# --- HRANDFIELD ----------------------------------------------------------

def test_hrandfield_missing_key(c):
    assert c("HRANDFIELD", "nokey") is None
    assert c("HRANDFIELD", "nokey", "5") == []
    assert c("HRANDFIELD", "nokey", "-5") == []
    assert c("HRANDFIELD", "nokey", "-5", "WITHVALUES") == []


def test_hrandfield_errors(c):
    c("HSET", "h", "a", "1")
    assert c.err("HRANDFIELD", "h", "1", "foo") == "ERR syntax error"
    assert c.err("HRANDFIELD", "h", "1", "WITHVALUES", "x") == "ERR syntax error"
    assert c.err("HRANDFIELD", "h", "x") == "ERR value is not an integer or out of range"
    assert c.err("HRANDFIELD", "h", "-9223372036854775808") == (
        "ERR value is out of range, value must between "
        "-9223372036854775807 and 9223372036854775807")
    assert c.err("HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES") == "ERR value is out of range"
    assert c.err("HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES") == "ERR value is out of range"
    assert c.err("HRANDFIELD") == arity("hrandfield")


def test_hrandfield_listpack(c):
    expected = {b"a": b"1", b"b": b"2", b"c": b"3", b"d": b"4", b"e": b"5"}
    c("HSET", "h", *[x for kv in expected.items() for x in kv])
    assert c.encoding("h") == b"listpack"
    check_random_members(c, "HRANDFIELD", "h", expected, "WITHVALUES")
    # Many draws with repeats cover every field of a small hash.
    assert set(c("HRANDFIELD", "h", "-200")) == set(expected)


def test_hrandfield_hashtable(c):
    fill_hashtable(c, "h", 100)
    expected = {b"f%d" % i: b"v%d" % i for i in range(100)}
    check_random_members(c, "HRANDFIELD", "h", expected, "WITHVALUES")
    # A small positive count (sampling) and a large one (copy and remove).
    for count in (10, 90):
        got = c("HRANDFIELD", "h", count, "WITHVALUES")
        pairs = as_dict(got)
        assert len(pairs) == count
        assert all(expected[f] == v for f, v in pairs.items())


# --- HSCAN ---------------------------------------------------------------

def test_hscan_listpack(c):
    c("HSET", "h", "a", "1", "b", "2", "key:1", "3", "key:2", "4")
    assert c.encoding("h") == b"listpack"
    # A listpack hash is returned whole in one call, whatever COUNT says.
    assert c("HSCAN", "h", "0") == [b"0", [b"a", b"1", b"b", b"2", b"key:1", b"3", b"key:2", b"4"]]
    assert c("HSCAN", "h", "0", "COUNT", "1") == [b"0", [b"a", b"1", b"b", b"2", b"key:1", b"3",
                                                         b"key:2", b"4"]]
    assert c("HSCAN", "h", "0", "MATCH", "key:*") == [b"0", [b"key:1", b"3", b"key:2", b"4"]]
    assert c("HSCAN", "h", "0", "MATCH", "nothing*") == [b"0", []]


def test_hscan_hashtable(c):
    fill_hashtable(c, "h", 200)
    items, calls = scan_all(c, "HSCAN", "h", "COUNT", "10")
    assert calls > 1
    d = as_dict(items)
    assert d == {b"f%d" % i: b"v%d" % i for i in range(200)}
    assert len(items) == 400  # a table that does not change gives no duplicates
    items, _ = scan_all(c, "HSCAN", "h", "MATCH", "f1?", "COUNT", "1000")
    assert as_dict(items) == {b"f1%d" % i: b"v1%d" % i for i in range(10)}


def test_hscan_missing_key_and_errors(c):
    assert c("HSCAN", "nokey", "0") == [b"0", []]
    c("HSET", "h", "a", "1")
    assert c.err("HSCAN", "h", "x") == "ERR invalid cursor"
    assert c.err("HSCAN", "h", "0", "NOVALUES") == "ERR syntax error"  # not in 7.0
    assert c.err("HSCAN", "h", "0", "COUNT", "0") == "ERR syntax error"
    assert c.err("HSCAN", "h", "0", "COUNT", "-1") == "ERR syntax error"
    assert c.err("HSCAN", "h", "0", "COUNT", "x") == "ERR value is not an integer or out of range"
    assert c.err("HSCAN", "h", "0", "MATCH") == "ERR syntax error"
    assert c.err("HSCAN", "h", "0", "FOO", "1") == "ERR syntax error"
    assert c.err("HSCAN", "h") == arity("hscan")


# --- WRONGTYPE -----------------------------------------------------------

def test_wrongtype(c):
    c("SET", "s", "x")
    for cmd in (("HSET", "s", "f", "v"), ("HSETNX", "s", "f", "v"), ("HMSET", "s", "f", "v"),
                ("HGET", "s", "f"), ("HMGET", "s", "f"), ("HDEL", "s", "f"), ("HLEN", "s"),
                ("HSTRLEN", "s", "f"), ("HEXISTS", "s", "f"), ("HKEYS", "s"), ("HVALS", "s"),
                ("HGETALL", "s"), ("HINCRBY", "s", "f", "1"), ("HINCRBYFLOAT", "s", "f", "1"),
                ("HRANDFIELD", "s"), ("HRANDFIELD", "s", "2"), ("HSCAN", "s", "0")):
        assert c.err(*cmd) == WRONGTYPE, cmd
    assert c("GET", "s") == b"x"
    c("HSET", "h", "f", "v")
    assert c.err("GET", "h") == WRONGTYPE
    assert c("TYPE", "h") == "hash"


# --- Encodings -----------------------------------------------------------

def test_encoding_defaults(c):
    assert c("CONFIG", "GET", "hash-max-listpack-entries") == [b"hash-max-listpack-entries", b"512"]
    assert c("CONFIG", "GET", "hash-max-listpack-value") == [b"hash-max-listpack-value", b"64"]
    # The 6.x names are aliases of the same settings.
    assert c("CONFIG", "GET", "hash-max-ziplist-entries") == [b"hash-max-ziplist-entries", b"512"]
    assert c("CONFIG", "GET", "hash-max-ziplist-value") == [b"hash-max-ziplist-value", b"64"]
    assert c.encoding("nokey") is None


def test_encoding_entries_threshold_default(c):
    args = []
    for i in range(512):
        args += ["f%d" % i, "v"]
    assert c("HSET", "h", *args) == 512
    assert c.encoding("h") == b"listpack"
    assert c("HSET", "h", "f1", "changed") == 0
    assert c.encoding("h") == b"listpack"
    assert c("HSET", "h", "one-more", "v") == 1
    assert c.encoding("h") == b"hashtable"
    assert c("HLEN", "h") == 513
    assert c("HGET", "h", "f1") == b"changed"
    # 513 fields in a single command go straight to a hashtable.
    assert c("HSET", "h2", *(args + ["x", "y"])) == 513
    assert c.encoding("h2") == b"hashtable"


def test_encoding_value_threshold_default(c):
    c("HSET", "h", "f", "x" * 64)
    assert c.encoding("h") == b"listpack"
    c("HSET", "h", "g", "x" * 65)
    assert c.encoding("h") == b"hashtable"
    assert c("HGET", "h", "g") == b"x" * 65
    # A long field name counts too.
    c("HSET", "h2", "y" * 65, "1")
    assert c.encoding("h2") == b"hashtable"
    c("HSET", "h3", "a", "1")
    c("HSETNX", "h3", "b", "z" * 65)
    assert c.encoding("h3") == b"hashtable"
    c("HSET", "h4", "a", "1")
    c("HINCRBYFLOAT", "h4", "q" * 65, "1")
    assert c.encoding("h4") == b"hashtable"


def test_encoding_config_set_entries(c):
    assert c("CONFIG", "SET", "hash-max-listpack-entries", "4") == "OK"
    assert c("CONFIG", "GET", "hash-max-ziplist-entries") == [b"hash-max-ziplist-entries", b"4"]
    c("HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4")
    assert c.encoding("h") == b"listpack"
    c("HINCRBY", "h", "e", "1")
    assert c.encoding("h") == b"hashtable"
    # The conversion is one-way: shrinking does not go back to listpack.
    c("HDEL", "h", "a", "b", "c", "d")
    assert c("HGETALL", "h") == [b"e", b"1"]
    assert c.encoding("h") == b"hashtable"
    # An existing listpack hash is not converted by lowering the limit...
    c("CONFIG", "SET", "hash-max-listpack-entries", "10")
    c("HSET", "h2", "a", "1", "b", "2", "c", "3")
    c("CONFIG", "SET", "hash-max-listpack-entries", "2")
    assert c.encoding("h2") == b"listpack"
    # ...but by the next write that adds a field.
    c("HSET", "h2", "d", "4")
    assert c.encoding("h2") == b"hashtable"
    assert sorted(c("HKEYS", "h2")) == [b"a", b"b", b"c", b"d"]


def test_encoding_config_set_value_via_alias(c):
    assert c("CONFIG", "SET", "hash-max-ziplist-value", "10") == "OK"
    assert c("CONFIG", "GET", "hash-max-listpack-value") == [b"hash-max-listpack-value", b"10"]
    c("HSET", "h", "f", "x" * 10)
    assert c.encoding("h") == b"listpack"
    c("HSET", "h", "f", "x" * 11)
    assert c.encoding("h") == b"hashtable"
    c("CONFIG", "SET", "hash-max-listpack-entries", "0")
    c("HSET", "h2", "a", "1")
    assert c.encoding("h2") == b"hashtable"


def test_config_set_threshold_errors(c):
    assert c.err("CONFIG", "SET", "hash-max-listpack-entries", "-1") == (
        "ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-entries') - "
        "argument must be between 0 and 9223372036854775807 inclusive")
    assert c.err("CONFIG", "SET", "hash-max-listpack-entries", "abc") == (
        "ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-entries') - "
        "argument couldn't be parsed into an integer")


def test_commands_agree_across_encodings(c):
    c("CONFIG", "SET", "hash-max-listpack-entries", "0")
    c("HSET", "h", "a", "1", "b", "2")
    assert c.encoding("h") == b"hashtable"
    assert c("HGET", "h", "a") == b"1"
    assert c("HMGET", "h", "a", "zz", "b") == [b"1", None, b"2"]
    assert c("HSETNX", "h", "a", "9") == 0
    assert c("HINCRBY", "h", "a", "5") == 6
    assert c("HINCRBYFLOAT", "h", "b", "0.5") == b"2.5"
    assert c("HSTRLEN", "h", "b") == 3
    assert c("HEXISTS", "h", "b") == 1
    assert c("HDEL", "h", "a") == 1
    assert c("HGETALL", "h") == [b"b", b"2.5"]
    assert c("HDEL", "h", "b") == 1
    assert c("EXISTS", "h") == 0
