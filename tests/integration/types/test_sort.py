"""Integration tests for SORT and SORT_RO, checked against Redis 7.0.15.

Lists, sets and sorted sets; numeric and ALPHA order, DESC, LIMIT, BY patterns
(string keys, hash fields `key_*->field`, `nosort`, a pattern without '*'),
GET (incl. '#' and hash fields), STORE, and exact error texts through datatype_client.py.
"""
from datatype_client import WRONGTYPE, arity

NOT_DOUBLE = "ERR One or more scores can't be converted into double"


def test_numeric_sort_of_list(dc):
    dc("RPUSH", "l", "3", "1", "2", "10")
    assert dc("SORT", "l") == [b"1", b"2", b"3", b"10"]
    assert dc("SORT", "l", "DESC") == [b"10", b"3", b"2", b"1"]
    assert dc("SORT", "l", "ASC") == [b"1", b"2", b"3", b"10"]
    # The last of ASC/DESC wins.
    assert dc("SORT", "l", "ASC", "DESC") == [b"10", b"3", b"2", b"1"]
    assert dc("SORT", "l", "DESC", "ASC") == [b"1", b"2", b"3", b"10"]
    # The list itself is unchanged.
    assert dc("LRANGE", "l", "0", "-1") == [b"3", b"1", b"2", b"10"]


def test_numeric_sort_parses_doubles(dc):
    dc("RPUSH", "f", "1.5", "-inf", "0.5", "1e2", "-3")
    assert dc("SORT", "f") == [b"-inf", b"-3", b"0.5", b"1.5", b"1e2"]


def test_alpha_sort(dc):
    dc("RPUSH", "l", "3", "1", "2", "10", "b", "a")
    assert dc("SORT", "l", "ALPHA") == [b"1", b"10", b"2", b"3", b"a", b"b"]
    assert dc("SORT", "l", "ALPHA", "DESC") == [b"b", b"a", b"3", b"2", b"10", b"1"]


def test_non_numeric_elements_error(dc):
    dc("RPUSH", "bad", "a", "1")
    assert dc.err("SORT", "bad") == NOT_DOUBLE
    assert dc("SORT", "bad", "ALPHA") == [b"1", b"a"]
    dc("RPUSH", "nan", "nan", "1")
    assert dc.err("SORT", "nan") == NOT_DOUBLE


def test_limit(dc):
    dc("RPUSH", "l", "3", "1", "2", "10")
    assert dc("SORT", "l", "LIMIT", "1", "2") == [b"2", b"3"]
    assert dc("SORT", "l", "LIMIT", "1", "2", "DESC") == [b"3", b"2"]
    assert dc("SORT", "l", "LIMIT", "-1", "2") == [b"1", b"2"]
    assert dc("SORT", "l", "LIMIT", "0", "-1") == [b"1", b"2", b"3", b"10"]
    assert dc("SORT", "l", "LIMIT", "5", "10") == []
    assert dc("SORT", "l", "LIMIT", "2", "0") == []
    assert dc("SORT", "l", "LIMIT", "0", "1", "LIMIT", "1", "1") == [b"2"]


def test_sort_set(dc):
    dc("SADD", "s", "5", "3", "10", "1")
    assert dc("SORT", "s") == [b"1", b"3", b"5", b"10"]
    assert dc("SORT", "s", "DESC", "LIMIT", "0", "2") == [b"10", b"5"]
    dc("SADD", "t", "5", "3", "b", "a", "10")
    assert dc("SORT", "t", "ALPHA") == [b"10", b"3", b"5", b"a", b"b"]
    assert dc.err("SORT", "t") == NOT_DOUBLE
    # BY nosort on a set with STORE sorts anyway (alphabetically), so the
    # stored result does not depend on the hash table's order.
    assert dc("SORT", "t", "BY", "nosort", "STORE", "d") == 5
    assert dc("LRANGE", "d", "0", "-1") == [b"10", b"3", b"5", b"a", b"b"]


def test_sort_zset(dc):
    dc("ZADD", "z", "3", "c", "1", "a", "2", "b", "4", "d")
    assert dc.err("SORT", "z") == NOT_DOUBLE
    assert dc("SORT", "z", "ALPHA", "DESC") == [b"d", b"c", b"b", b"a"]
    # BY nosort keeps the zset's own (score) order, and LIMIT picks a range of it.
    assert dc("SORT", "z", "BY", "nosort") == [b"a", b"b", b"c", b"d"]
    assert dc("SORT", "z", "BY", "nosort", "DESC") == [b"d", b"c", b"b", b"a"]
    assert dc("SORT", "z", "BY", "nosort", "LIMIT", "1", "2") == [b"b", b"c"]
    assert dc("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "2") == [b"c", b"b"]
    dc("ZADD", "n", "1", "30", "2", "10", "3", "20")
    assert dc("SORT", "n") == [b"10", b"20", b"30"]


def test_by_nosort_and_constant_pattern_on_list(dc):
    dc("RPUSH", "l", "3", "1", "2")
    assert dc("SORT", "l", "BY", "nosort") == [b"3", b"1", b"2"]
    # A pattern without '*' does not sort either.
    assert dc("SORT", "l", "BY", "constant") == [b"3", b"1", b"2"]
    assert dc("SORT", "l", "BY", "constant", "DESC") == [b"2", b"1", b"3"]
    assert dc("SORT", "l", "BY", "nosort", "LIMIT", "1", "5") == [b"1", b"2"]


def test_by_string_keys(dc):
    dc("RPUSH", "l", "3", "1", "2", "10")
    dc("MSET", "w_3", "30", "w_1", "10", "w_2", "20", "w_10", "-1")
    assert dc("SORT", "l", "BY", "w_*") == [b"10", b"1", b"2", b"3"]
    assert dc("SORT", "l", "BY", "w_*", "DESC") == [b"3", b"2", b"1", b"10"]
    # Missing weights count as 0; ties are ordered by the element itself.
    assert dc("SORT", "l", "BY", "missing_*") == [b"1", b"10", b"2", b"3"]
    dc("DEL", "w_10")
    assert dc("SORT", "l", "BY", "w_*") == [b"10", b"1", b"2", b"3"]
    dc("SET", "w_1", "abc")
    assert dc.err("SORT", "l", "BY", "w_*") == NOT_DOUBLE
    assert dc("SORT", "l", "BY", "w_*", "ALPHA") == [b"10", b"2", b"3", b"1"]


def test_by_hash_field(dc):
    dc("RPUSH", "l", "3", "1", "2", "10")
    dc("HSET", "h_1", "f", "5", "name", "one")
    dc("HSET", "h_2", "f", "1", "name", "two")
    dc("HSET", "h_3", "f", "3", "name", "three")
    assert dc("SORT", "l", "BY", "h_*->f") == [b"10", b"2", b"3", b"1"]
    assert dc("SORT", "l", "BY", "h_*->f", "GET", "h_*->name") == [None, b"two", b"three", b"one"]
    assert dc("SORT", "l", "BY", "h_*->f", "DESC", "GET", "#", "GET", "h_*->name") == [
        b"1", b"one", b"3", b"three", b"2", b"two", b"10", None]
    # A field pattern on string keys reads as missing.
    dc("MSET", "s_1", "5", "s_2", "1", "s_3", "3")
    assert dc("SORT", "l", "BY", "s_*->f") == [b"1", b"10", b"2", b"3"]
    assert dc("SORT", "l", "GET", "s_*->f") == [None, None, None, None]
    assert dc("SORT", "l", "GET", "h_*->") == [None, None, None, None]


def test_get_patterns(dc):
    dc("RPUSH", "l", "3", "1", "2")
    dc("MSET", "o_1", "one", "o_2", "two")
    assert dc("SORT", "l", "GET", "#") == [b"1", b"2", b"3"]
    assert dc("SORT", "l", "GET", "o_*") == [b"one", b"two", None]
    assert dc("SORT", "l", "GET", "#", "GET", "o_*") == [b"1", b"one", b"2", b"two", b"3", None]
    assert dc("SORT", "l", "BY", "nosort", "GET", "o_*") == [None, b"one", b"two"]
    assert dc("SORT", "l", "GET", "nothing_*") == [None, None, None]
    assert dc("SORT", "l", "LIMIT", "1", "1", "GET", "o_*", "GET", "#") == [b"two", b"2"]
    # A GET key of another type reads as missing.
    dc("RPUSH", "o_3", "x")
    assert dc("SORT", "l", "GET", "o_*") == [b"one", b"two", None]


def test_store(dc):
    dc("RPUSH", "l", "3", "1", "2")
    assert dc("SORT", "l", "STORE", "dst") == 3
    assert dc("LRANGE", "dst", "0", "-1") == [b"1", b"2", b"3"]
    assert dc("TYPE", "dst") == "list"
    dc("SET", "str", "x")
    assert dc("SORT", "l", "DESC", "LIMIT", "0", "2", "STORE", "str") == 2
    assert dc("LRANGE", "str", "0", "-1") == [b"3", b"2"]
    # Missing GET values are stored as empty strings.
    dc("MSET", "w_1", "5", "w_2", "1", "w_3", "3")
    assert dc("SORT", "l", "BY", "w_*", "GET", "#", "GET", "nope_*", "STORE", "out") == 6
    assert dc("LRANGE", "out", "0", "-1") == [b"2", b"", b"3", b"", b"1", b""]
    # An empty result deletes the destination.
    assert dc("SORT", "nokey", "STORE", "dst") == 0
    assert dc("EXISTS", "dst") == 0
    # The source may be the destination.
    assert dc("SORT", "l", "DESC", "STORE", "l") == 3
    assert dc("LRANGE", "l", "0", "-1") == [b"3", b"2", b"1"]


def test_sort_ro(dc):
    dc("RPUSH", "l", "3", "1", "2")
    dc("MSET", "w_1", "5", "w_2", "1", "w_3", "3")
    assert dc("SORT_RO", "l") == [b"1", b"2", b"3"]
    assert dc("SORT_RO", "l", "DESC") == [b"3", b"2", b"1"]
    assert dc("SORT_RO", "l", "BY", "w_*", "GET", "#", "GET", "w_*") == [b"2", b"1", b"3", b"3", b"1", b"5"]
    assert dc("SORT_RO", "l", "ALPHA", "LIMIT", "0", "1") == [b"1"]
    assert dc("SORT_RO", "nokey") == []
    assert dc.err("SORT_RO", "l", "STORE", "dst") == "ERR syntax error"
    assert dc("EXISTS", "dst") == 0
    assert dc.err("SORT_RO") == arity("sort_ro")


def test_missing_key(dc):
    assert dc("SORT", "nokey") == []
    assert dc("SORT", "nokey", "BY", "w_*", "GET", "#", "ALPHA", "DESC", "LIMIT", "0", "5") == []


def test_errors(dc):
    dc("RPUSH", "l", "3", "1", "2")
    assert dc.err("SORT", "l", "LIMIT", "1") == "ERR syntax error"
    assert dc.err("SORT", "l", "LIMIT", "x", "1") == "ERR value is not an integer or out of range"
    assert dc.err("SORT", "l", "FOO") == "ERR syntax error"
    assert dc.err("SORT", "l", "GET") == "ERR syntax error"
    assert dc.err("SORT", "l", "GET", "#", "GET") == "ERR syntax error"
    assert dc.err("SORT", "l", "BY") == "ERR syntax error"
    assert dc.err("SORT", "l", "STORE") == "ERR syntax error"
    assert dc.err("SORT") == arity("sort")
    dc("SET", "str", "x")
    dc("HSET", "h", "a", "1")
    assert dc.err("SORT", "str") == WRONGTYPE
    assert dc.err("SORT", "h") == WRONGTYPE
    assert dc.err("SORT_RO", "str") == WRONGTYPE


def test_alpha_sort_by_a_weight_key_many_elements_share(dc):
    # Every element reads the same weight key, which SORT holds once per
    # element: far more holders of one key than a key usually has.
    dc("RPUSH", "l", *(["a"] * 100 + ["b"] * 100))
    dc("SET", "w_a", "zz")
    dc("SET", "w_b", "aa")
    assert dc("SORT", "l", "BY", "w_*", "ALPHA") == [b"b"] * 100 + [b"a"] * 100
    # The weight keys are intact and still one reference each afterwards.
    assert dc("GET", "w_a") == b"zz"
    assert dc("OBJECT", "REFCOUNT", "w_a") == 1
    dc("SET", "w_a", "yy")
    assert dc("GET", "w_a") == b"yy"
