"""Integration tests for SORT and SORT_RO, checked against Redis 7.0.15.

Lists, sets and sorted sets; numeric and ALPHA order, DESC, LIMIT, BY patterns
(string keys, hash fields `key_*->field`, `nosort`, a pattern without '*'),
GET (incl. '#' and hash fields), STORE, and exact error texts through datatype_client.py.
"""
from datatype_client import WRONGTYPE, arity, c, connect  # noqa: F401

NOT_DOUBLE = "ERR One or more scores can't be converted into double"


def test_numeric_sort_of_list(c):
    c("RPUSH", "l", "3", "1", "2", "10")
    assert c("SORT", "l") == [b"1", b"2", b"3", b"10"]
    assert c("SORT", "l", "DESC") == [b"10", b"3", b"2", b"1"]
    assert c("SORT", "l", "ASC") == [b"1", b"2", b"3", b"10"]
    # The last of ASC/DESC wins.
    assert c("SORT", "l", "ASC", "DESC") == [b"10", b"3", b"2", b"1"]
    assert c("SORT", "l", "DESC", "ASC") == [b"1", b"2", b"3", b"10"]
    # The list itself is unchanged.
    assert c("LRANGE", "l", "0", "-1") == [b"3", b"1", b"2", b"10"]


def test_numeric_sort_parses_doubles(c):
    c("RPUSH", "f", "1.5", "-inf", "0.5", "1e2", "-3")
    assert c("SORT", "f") == [b"-inf", b"-3", b"0.5", b"1.5", b"1e2"]


def test_alpha_sort(c):
    c("RPUSH", "l", "3", "1", "2", "10", "b", "a")
    assert c("SORT", "l", "ALPHA") == [b"1", b"10", b"2", b"3", b"a", b"b"]
    assert c("SORT", "l", "ALPHA", "DESC") == [b"b", b"a", b"3", b"2", b"10", b"1"]


def test_non_numeric_elements_error(c):
    c("RPUSH", "bad", "a", "1")
    assert c.err("SORT", "bad") == NOT_DOUBLE
    assert c("SORT", "bad", "ALPHA") == [b"1", b"a"]
    c("RPUSH", "nan", "nan", "1")
    assert c.err("SORT", "nan") == NOT_DOUBLE


def test_limit(c):
    c("RPUSH", "l", "3", "1", "2", "10")
    assert c("SORT", "l", "LIMIT", "1", "2") == [b"2", b"3"]
    assert c("SORT", "l", "LIMIT", "1", "2", "DESC") == [b"3", b"2"]
    assert c("SORT", "l", "LIMIT", "-1", "2") == [b"1", b"2"]
    assert c("SORT", "l", "LIMIT", "0", "-1") == [b"1", b"2", b"3", b"10"]
    assert c("SORT", "l", "LIMIT", "5", "10") == []
    assert c("SORT", "l", "LIMIT", "2", "0") == []
    assert c("SORT", "l", "LIMIT", "0", "1", "LIMIT", "1", "1") == [b"2"]


def test_sort_set(c):
    c("SADD", "s", "5", "3", "10", "1")
    assert c("SORT", "s") == [b"1", b"3", b"5", b"10"]
    assert c("SORT", "s", "DESC", "LIMIT", "0", "2") == [b"10", b"5"]
    c("SADD", "t", "5", "3", "b", "a", "10")
    assert c("SORT", "t", "ALPHA") == [b"10", b"3", b"5", b"a", b"b"]
    assert c.err("SORT", "t") == NOT_DOUBLE
    # BY nosort on a set with STORE sorts anyway (alphabetically), so the
    # stored result does not depend on the hash table's order.
    assert c("SORT", "t", "BY", "nosort", "STORE", "d") == 5
    assert c("LRANGE", "d", "0", "-1") == [b"10", b"3", b"5", b"a", b"b"]


def test_sort_zset(c):
    c("ZADD", "z", "3", "c", "1", "a", "2", "b", "4", "d")
    assert c.err("SORT", "z") == NOT_DOUBLE
    assert c("SORT", "z", "ALPHA", "DESC") == [b"d", b"c", b"b", b"a"]
    # BY nosort keeps the zset's own (score) order, and LIMIT picks a range of it.
    assert c("SORT", "z", "BY", "nosort") == [b"a", b"b", b"c", b"d"]
    assert c("SORT", "z", "BY", "nosort", "DESC") == [b"d", b"c", b"b", b"a"]
    assert c("SORT", "z", "BY", "nosort", "LIMIT", "1", "2") == [b"b", b"c"]
    assert c("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "2") == [b"c", b"b"]
    c("ZADD", "n", "1", "30", "2", "10", "3", "20")
    assert c("SORT", "n") == [b"10", b"20", b"30"]


def test_by_nosort_and_constant_pattern_on_list(c):
    c("RPUSH", "l", "3", "1", "2")
    assert c("SORT", "l", "BY", "nosort") == [b"3", b"1", b"2"]
    # A pattern without '*' does not sort either.
    assert c("SORT", "l", "BY", "constant") == [b"3", b"1", b"2"]
    assert c("SORT", "l", "BY", "constant", "DESC") == [b"2", b"1", b"3"]
    assert c("SORT", "l", "BY", "nosort", "LIMIT", "1", "5") == [b"1", b"2"]


def test_by_string_keys(c):
    c("RPUSH", "l", "3", "1", "2", "10")
    c("MSET", "w_3", "30", "w_1", "10", "w_2", "20", "w_10", "-1")
    assert c("SORT", "l", "BY", "w_*") == [b"10", b"1", b"2", b"3"]
    assert c("SORT", "l", "BY", "w_*", "DESC") == [b"3", b"2", b"1", b"10"]
    # Missing weights count as 0; ties are ordered by the element itself.
    assert c("SORT", "l", "BY", "missing_*") == [b"1", b"10", b"2", b"3"]
    c("DEL", "w_10")
    assert c("SORT", "l", "BY", "w_*") == [b"10", b"1", b"2", b"3"]
    c("SET", "w_1", "abc")
    assert c.err("SORT", "l", "BY", "w_*") == NOT_DOUBLE
    assert c("SORT", "l", "BY", "w_*", "ALPHA") == [b"10", b"2", b"3", b"1"]


def test_by_hash_field(c):
    c("RPUSH", "l", "3", "1", "2", "10")
    c("HSET", "h_1", "f", "5", "name", "one")
    c("HSET", "h_2", "f", "1", "name", "two")
    c("HSET", "h_3", "f", "3", "name", "three")
    assert c("SORT", "l", "BY", "h_*->f") == [b"10", b"2", b"3", b"1"]
    assert c("SORT", "l", "BY", "h_*->f", "GET", "h_*->name") == [None, b"two", b"three", b"one"]
    assert c("SORT", "l", "BY", "h_*->f", "DESC", "GET", "#", "GET", "h_*->name") == [
        b"1", b"one", b"3", b"three", b"2", b"two", b"10", None]
    # A field pattern on string keys reads as missing.
    c("MSET", "s_1", "5", "s_2", "1", "s_3", "3")
    assert c("SORT", "l", "BY", "s_*->f") == [b"1", b"10", b"2", b"3"]
    assert c("SORT", "l", "GET", "s_*->f") == [None, None, None, None]
    assert c("SORT", "l", "GET", "h_*->") == [None, None, None, None]


def test_get_patterns(c):
    c("RPUSH", "l", "3", "1", "2")
    c("MSET", "o_1", "one", "o_2", "two")
    assert c("SORT", "l", "GET", "#") == [b"1", b"2", b"3"]
    assert c("SORT", "l", "GET", "o_*") == [b"one", b"two", None]
    assert c("SORT", "l", "GET", "#", "GET", "o_*") == [b"1", b"one", b"2", b"two", b"3", None]
    assert c("SORT", "l", "BY", "nosort", "GET", "o_*") == [None, b"one", b"two"]
    assert c("SORT", "l", "GET", "nothing_*") == [None, None, None]
    assert c("SORT", "l", "LIMIT", "1", "1", "GET", "o_*", "GET", "#") == [b"two", b"2"]
    # A GET key of another type reads as missing.
    c("RPUSH", "o_3", "x")
    assert c("SORT", "l", "GET", "o_*") == [b"one", b"two", None]


def test_store(c):
    c("RPUSH", "l", "3", "1", "2")
    assert c("SORT", "l", "STORE", "dst") == 3
    assert c("LRANGE", "dst", "0", "-1") == [b"1", b"2", b"3"]
    assert c("TYPE", "dst") == "list"
    c("SET", "str", "x")
    assert c("SORT", "l", "DESC", "LIMIT", "0", "2", "STORE", "str") == 2
    assert c("LRANGE", "str", "0", "-1") == [b"3", b"2"]
    # Missing GET values are stored as empty strings.
    c("MSET", "w_1", "5", "w_2", "1", "w_3", "3")
    assert c("SORT", "l", "BY", "w_*", "GET", "#", "GET", "nope_*", "STORE", "out") == 6
    assert c("LRANGE", "out", "0", "-1") == [b"2", b"", b"3", b"", b"1", b""]
    # An empty result deletes the destination.
    assert c("SORT", "nokey", "STORE", "dst") == 0
    assert c("EXISTS", "dst") == 0
    # The source may be the destination.
    assert c("SORT", "l", "DESC", "STORE", "l") == 3
    assert c("LRANGE", "l", "0", "-1") == [b"3", b"2", b"1"]


def test_sort_ro(c):
    c("RPUSH", "l", "3", "1", "2")
    c("MSET", "w_1", "5", "w_2", "1", "w_3", "3")
    assert c("SORT_RO", "l") == [b"1", b"2", b"3"]
    assert c("SORT_RO", "l", "DESC") == [b"3", b"2", b"1"]
    assert c("SORT_RO", "l", "BY", "w_*", "GET", "#", "GET", "w_*") == [b"2", b"1", b"3", b"3", b"1", b"5"]
    assert c("SORT_RO", "l", "ALPHA", "LIMIT", "0", "1") == [b"1"]
    assert c("SORT_RO", "nokey") == []
    assert c.err("SORT_RO", "l", "STORE", "dst") == "ERR syntax error"
    assert c("EXISTS", "dst") == 0
    assert c.err("SORT_RO") == arity("sort_ro")


def test_missing_key(c):
    assert c("SORT", "nokey") == []
    assert c("SORT", "nokey", "BY", "w_*", "GET", "#", "ALPHA", "DESC", "LIMIT", "0", "5") == []


def test_errors(c):
    c("RPUSH", "l", "3", "1", "2")
    assert c.err("SORT", "l", "LIMIT", "1") == "ERR syntax error"
    assert c.err("SORT", "l", "LIMIT", "x", "1") == "ERR value is not an integer or out of range"
    assert c.err("SORT", "l", "FOO") == "ERR syntax error"
    assert c.err("SORT", "l", "GET") == "ERR syntax error"
    assert c.err("SORT", "l", "GET", "#", "GET") == "ERR syntax error"
    assert c.err("SORT", "l", "BY") == "ERR syntax error"
    assert c.err("SORT", "l", "STORE") == "ERR syntax error"
    assert c.err("SORT") == arity("sort")
    c("SET", "str", "x")
    c("HSET", "h", "a", "1")
    assert c.err("SORT", "str") == WRONGTYPE
    assert c.err("SORT", "h") == WRONGTYPE
    assert c.err("SORT_RO", "str") == WRONGTYPE
