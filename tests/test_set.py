"""Integration tests for the set commands, checked against Redis 7.0.15.

Replies and error texts are asserted exactly through datatype_client.py.
Encodings: 7.0 has only intset (all members canonical 64-bit
integers, at most set-max-intset-entries of them) and hashtable; there is no
listpack set and no set-max-listpack-entries directive.
"""
from datatype_client import WRONGTYPE, arity, c, check_random_members, connect, scan_all  # noqa: F401


def members(c, key):
    return sorted(c("SMEMBERS", key))


def b_set(*items):
    return sorted(x.encode() if isinstance(x, str) else x for x in items)


def make_hashtable_set(c, key, n, prefix="m"):
    c("SADD", key, *["%s%d" % (prefix, i) for i in range(n)])
    assert c.encoding(key) == b"hashtable"


# --- SADD / SREM / SCARD / SISMEMBER / SMISMEMBER / SMEMBERS -------------

def test_sadd_srem_scard(c):
    assert c("SADD", "s", "a", "b", "a") == 2
    assert c("SADD", "s", "b", "c") == 1
    assert c("SCARD", "s") == 3
    assert c("SREM", "s", "a", "zz", "a") == 1
    assert members(c, "s") == [b"b", b"c"]
    assert c("SREM", "s", "b", "c") == 2
    assert c("EXISTS", "s") == 0
    assert c("SREM", "nokey", "a") == 0
    assert c("SCARD", "nokey") == 0
    assert c("TYPE", "s") == "none"
    c("SADD", "s", "x")
    assert c("TYPE", "s") == "set"


def test_sismember_smismember(c):
    c("SADD", "s", "a", "1")
    assert c("SISMEMBER", "s", "a") == 1
    assert c("SISMEMBER", "s", "1") == 1
    assert c("SISMEMBER", "s", "b") == 0
    assert c("SISMEMBER", "nokey", "a") == 0
    assert c("SMISMEMBER", "s", "a", "b", "1") == [1, 0, 1]
    assert c("SMISMEMBER", "nokey", "a", "b") == [0, 0]
    c("SADD", "i", "1", "2")
    assert c.encoding("i") == b"intset"
    assert c("SMISMEMBER", "i", "1", "01", "x", "2") == [1, 0, 0, 1]


def test_smembers(c):
    assert c("SMEMBERS", "nokey") == []
    c("SADD", "i", "3", "1", "2", "-5", "10")
    # An intset keeps its members sorted.
    assert c("SMEMBERS", "i") == [b"-5", b"1", b"2", b"3", b"10"]
    c("SADD", "h", "b", "a", "c")
    assert members(c, "h") == [b"a", b"b", b"c"]


def test_arity(c):
    for cmd in (("SADD", "s"), ("SREM", "s"), ("SCARD",), ("SISMEMBER", "s"), ("SMISMEMBER", "s"),
                ("SMEMBERS",), ("SRANDMEMBER",), ("SPOP",), ("SMOVE", "a", "b"), ("SINTER",),
                ("SUNION",), ("SDIFF",), ("SINTERSTORE", "d"), ("SUNIONSTORE", "d"),
                ("SDIFFSTORE", "d"), ("SINTERCARD", "1"), ("SSCAN", "s")):
        assert c.err(*cmd) == arity(cmd[0].lower()), cmd


# --- SRANDMEMBER / SPOP --------------------------------------------------

def test_srandmember_intset(c):
    c("SADD", "s", *range(1, 8))
    assert c.encoding("s") == b"intset"
    check_random_members(c, "SRANDMEMBER", "s", {str(i).encode() for i in range(1, 8)})
    assert set(c("SRANDMEMBER", "s", "-300")) == {str(i).encode() for i in range(1, 8)}


def test_srandmember_hashtable(c):
    make_hashtable_set(c, "s", 100)
    expected = {b"m%d" % i for i in range(100)}
    check_random_members(c, "SRANDMEMBER", "s", expected)
    for count in (10, 90):  # sampling and copy-then-remove paths
        got = c("SRANDMEMBER", "s", count)
        assert len(set(got)) == count and set(got) <= expected


def test_srandmember_missing_and_errors(c):
    assert c("SRANDMEMBER", "nokey") is None
    assert c("SRANDMEMBER", "nokey", "5") == []
    assert c("SRANDMEMBER", "nokey", "-5") == []
    c("SADD", "s", "a")
    assert c.err("SRANDMEMBER", "s", "x") == "ERR value is not an integer or out of range"
    assert c.err("SRANDMEMBER", "s", "-9223372036854775808") == (
        "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
    assert c.err("SRANDMEMBER", "s", "1", "2") == "ERR syntax error"


def test_spop(c):
    c("SADD", "s", "a", "b", "c")
    popped = c("SPOP", "s")
    assert popped in (b"a", b"b", b"c")
    assert c("SISMEMBER", "s", popped) == 0
    assert c("SCARD", "s") == 2
    rest = c("SPOP", "s", "5")
    assert sorted(rest + [popped]) == [b"a", b"b", b"c"]
    assert c("EXISTS", "s") == 0
    assert c("SPOP", "nokey") is None
    assert c("SPOP", "nokey", "3") == []


def test_spop_count_both_encodings(c):
    for key, items in (("i", [str(i) for i in range(50)]), ("h", ["m%d" % i for i in range(50)])):
        c("SADD", key, *items)
        assert c.encoding(key) == (b"intset" if key == "i" else b"hashtable")
        assert c("SPOP", key, "0") == []
        got = []
        for count in (3, 30, 10):  # few, most of the rest, more than what is left
            part = c("SPOP", key, count)
            assert len(set(part)) == len(part)
            got += part
            assert c("SCARD", key) == max(50 - len(got), 0)
            assert not set(part) & set(c("SMEMBERS", key))
        assert len(got) == 43
        got += c("SPOP", key, "100")
        assert sorted(got) == b_set(*items)
        assert c("EXISTS", key) == 0


def test_spop_errors(c):
    c("SADD", "s", "a")
    assert c.err("SPOP", "s", "-1") == "ERR value is out of range, must be positive"
    assert c.err("SPOP", "s", "x") == "ERR value is out of range, must be positive"
    assert c.err("SPOP", "s", "1", "2") == "ERR syntax error"
    assert c("SCARD", "s") == 1


# --- SMOVE ---------------------------------------------------------------

def test_smove(c):
    c("SADD", "src", "a", "b")
    c("SADD", "dst", "5")
    assert c("SMOVE", "src", "dst", "a") == 1
    assert members(c, "src") == [b"b"]
    assert members(c, "dst") == [b"5", b"a"]
    assert c.encoding("dst") == b"hashtable"  # a non-integer member converted the intset
    assert c("SMOVE", "src", "dst", "nothere") == 0
    assert c("SMOVE", "src", "new", "b") == 1
    assert c("EXISTS", "src") == 0
    assert members(c, "new") == [b"b"]
    assert c("SMOVE", "nokey", "dst", "a") == 0
    # Moving to the same set only checks membership.
    assert c("SMOVE", "dst", "dst", "5") == 1
    assert c("SMOVE", "dst", "dst", "nothere") == 0
    assert members(c, "dst") == [b"5", b"a"]
    # Already present in the destination: removed from the source only.
    c("SADD", "src2", "a", "z")
    assert c("SMOVE", "src2", "dst", "a") == 1
    assert members(c, "src2") == [b"z"]
    assert members(c, "dst") == [b"5", b"a"]


def test_smove_wrongtype(c):
    c("SADD", "s", "1")
    c("SET", "str", "x")
    assert c.err("SMOVE", "s", "str", "1") == WRONGTYPE
    assert c.err("SMOVE", "str", "s", "1") == WRONGTYPE
    assert members(c, "s") == [b"1"]


# --- SINTER / SUNION / SDIFF and their STORE forms -----------------------

def setup_algebra(c):
    c("SADD", "a", "1", "2", "3", "x")
    c("SADD", "b", "1", "2", "3", "4")
    c("SADD", "c", "2", "3", "y")


def test_sinter_sunion_sdiff(c):
    setup_algebra(c)
    assert sorted(c("SINTER", "a", "b", "c")) == b_set("2", "3")
    assert sorted(c("SINTER", "a", "b")) == b_set("1", "2", "3")
    assert sorted(c("SINTER", "a")) == b_set("1", "2", "3", "x")
    assert c("SINTER", "a", "nokey") == []
    assert sorted(c("SUNION", "a", "b", "c")) == b_set("1", "2", "3", "4", "x", "y")
    assert sorted(c("SUNION", "a", "nokey")) == b_set("1", "2", "3", "x")
    assert c("SUNION", "nokey") == []
    assert sorted(c("SDIFF", "a", "b")) == b_set("x")
    assert sorted(c("SDIFF", "b", "a", "c")) == b_set("4")
    assert sorted(c("SDIFF", "a", "nokey")) == b_set("1", "2", "3", "x")
    assert c("SDIFF", "nokey", "a") == []
    assert c("SDIFF", "a", "a") == []


def test_store_variants(c):
    setup_algebra(c)
    assert c("SINTERSTORE", "d1", "a", "b") == 3
    assert members(c, "d1") == b_set("1", "2", "3")
    assert c.encoding("d1") == b"intset"
    assert c("SUNIONSTORE", "d2", "a", "b") == 5
    assert members(c, "d2") == b_set("1", "2", "3", "4", "x")
    assert c.encoding("d2") == b"hashtable"
    assert c("SDIFFSTORE", "d3", "b", "a") == 1
    assert members(c, "d3") == [b"4"]
    assert c.encoding("d3") == b"intset"
    # The destination may be one of the sources.
    assert c("SUNIONSTORE", "a", "a", "c") == 5
    assert members(c, "a") == b_set("1", "2", "3", "x", "y")


def test_store_empty_result_deletes_destination(c):
    setup_algebra(c)
    c("SET", "str", "x")
    assert c("SINTERSTORE", "str", "a", "nokey") == 0
    assert c("EXISTS", "str") == 0
    c("SADD", "d", "old")
    assert c("SDIFFSTORE", "d", "a", "a") == 0
    assert c("EXISTS", "d") == 0
    assert c("SUNIONSTORE", "d", "nokey", "nokey2") == 0
    assert c("EXISTS", "d") == 0


def test_store_overwrites_other_types(c):
    setup_algebra(c)
    c("SET", "str", "x")
    assert c("SUNIONSTORE", "str", "c") == 3
    assert c("TYPE", "str") == "set"


def test_algebra_wrongtype(c):
    setup_algebra(c)
    c("SET", "str", "x")
    for cmd in ("SINTER", "SUNION", "SDIFF"):
        assert c.err(cmd, "a", "str") == WRONGTYPE
        assert c.err(cmd, "str", "a") == WRONGTYPE
        # Every key is checked, even after an empty one.
        assert c.err(cmd, "nokey", "str") == WRONGTYPE
    for cmd in ("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"):
        assert c.err(cmd, "d", "a", "str") == WRONGTYPE
    assert c("EXISTS", "d") == 0
    assert c.err("SINTERCARD", "2", "a", "str") == WRONGTYPE
    assert c.err("SINTERCARD", "2", "nokey", "str") == WRONGTYPE


# --- SINTERCARD ----------------------------------------------------------

def test_sintercard(c):
    setup_algebra(c)
    assert c("SINTERCARD", "2", "a", "b") == 3
    assert c("SINTERCARD", "3", "a", "b", "c") == 2
    assert c("SINTERCARD", "1", "a") == 4
    assert c("SINTERCARD", "2", "a", "nokey") == 0
    assert c("SINTERCARD", "2", "a", "b", "LIMIT", "2") == 2
    assert c("SINTERCARD", "2", "a", "b", "LIMIT", "10") == 3
    assert c("SINTERCARD", "2", "a", "b", "LIMIT", "0") == 3  # 0 means no limit
    assert c("SINTERCARD", "1", "a", "limit", "1") == 1


def test_sintercard_errors(c):
    c("SADD", "s", "a")
    assert c.err("SINTERCARD", "0", "s") == "ERR numkeys should be greater than 0"
    assert c.err("SINTERCARD", "-1", "s") == "ERR numkeys should be greater than 0"
    assert c.err("SINTERCARD", "x", "s") == "ERR numkeys should be greater than 0"
    assert c.err("SINTERCARD", "2", "s") == "ERR Number of keys can't be greater than number of args"
    assert c.err("SINTERCARD", "1", "s", "LIMIT", "-1") == "ERR LIMIT can't be negative"
    assert c.err("SINTERCARD", "1", "s", "LIMIT", "x") == "ERR LIMIT can't be negative"
    assert c.err("SINTERCARD", "1", "s", "LIMIT") == "ERR syntax error"
    assert c.err("SINTERCARD", "1", "s", "FOO") == "ERR syntax error"


# --- SSCAN ---------------------------------------------------------------

def test_sscan_intset(c):
    c("SADD", "s", "3", "1", "2", "10", "11")
    assert c("SSCAN", "s", "0") == [b"0", [b"1", b"2", b"3", b"10", b"11"]]
    assert c("SSCAN", "s", "0", "COUNT", "1") == [b"0", [b"1", b"2", b"3", b"10", b"11"]]
    assert c("SSCAN", "s", "0", "MATCH", "1*") == [b"0", [b"1", b"10", b"11"]]


def test_sscan_hashtable(c):
    make_hashtable_set(c, "s", 300)
    items, calls = scan_all(c, "SSCAN", "s", "COUNT", "10")
    assert calls > 1
    assert len(items) == 300
    assert sorted(items) == b_set(*["m%d" % i for i in range(300)])
    items, _ = scan_all(c, "SSCAN", "s", "MATCH", "m2?", "COUNT", "50")
    assert sorted(items) == b_set(*["m2%d" % i for i in range(10)])


def test_sscan_errors(c):
    assert c("SSCAN", "nokey", "0") == [b"0", []]
    c("SADD", "s", "a")
    assert c.err("SSCAN", "s", "x") == "ERR invalid cursor"
    assert c.err("SSCAN", "s", "0", "COUNT", "0") == "ERR syntax error"
    assert c.err("SSCAN", "s", "0", "MATCH") == "ERR syntax error"
    assert c.err("SSCAN", "s", "0", "NOVALUES") == "ERR syntax error"


# --- WRONGTYPE -----------------------------------------------------------

def test_wrongtype(c):
    c("SET", "str", "x")
    for cmd in (("SADD", "str", "a"), ("SREM", "str", "a"), ("SCARD", "str"),
                ("SISMEMBER", "str", "a"), ("SMISMEMBER", "str", "a"), ("SMEMBERS", "str"),
                ("SRANDMEMBER", "str"), ("SRANDMEMBER", "str", "2"), ("SPOP", "str"),
                ("SPOP", "str", "2"), ("SSCAN", "str", "0"), ("SINTERCARD", "1", "str")):
        assert c.err(*cmd) == WRONGTYPE, cmd
    c("SADD", "s", "a")
    assert c.err("LPUSH", "s", "a") == WRONGTYPE


# --- Encodings -----------------------------------------------------------

def test_no_listpack_sets_in_7_0(c):
    assert c("CONFIG", "GET", "set-max-intset-entries") == [b"set-max-intset-entries", b"512"]
    assert c("CONFIG", "GET", "set-max-listpack-entries") == []
    assert c("CONFIG", "GET", "set-max-listpack-value") == []
    assert c.err("CONFIG", "SET", "set-max-listpack-entries", "1") == (
        "ERR Unknown option or number of arguments for CONFIG SET - 'set-max-listpack-entries'")
    c("SADD", "s", "a")
    assert c.encoding("s") == b"hashtable"  # a small non-integer set


def test_intset_only_for_canonical_integers(c):
    c("SADD", "a", "1", "2", "3")
    assert c.encoding("a") == b"intset"
    c("SADD", "b", "9223372036854775807", "-9223372036854775808")
    assert c.encoding("b") == b"intset"
    for i, member in enumerate(("9223372036854775808", "01", " 1", "1.0", "-0", "+1", "a")):
        key = "n%d" % i
        c("SADD", key, member)
        assert c.encoding(key) == b"hashtable", member
        assert c("SMEMBERS", key) == [member.encode()]


def test_intset_converts_on_non_integer_member(c):
    c("SADD", "s", "1", "2", "3")
    assert c.encoding("s") == b"intset"
    c("SADD", "s", "a")
    assert c.encoding("s") == b"hashtable"
    # One-way: removing the non-integer member keeps the hashtable.
    c("SREM", "s", "a")
    assert c.encoding("s") == b"hashtable"
    assert members(c, "s") == b_set("1", "2", "3")
    assert c("SISMEMBER", "s", "2") == 1


def test_intset_entries_threshold_default(c):
    c("SADD", "s", *range(512))
    assert c.encoding("s") == b"intset"
    c("SADD", "s", "100")  # already there: no growth
    assert c.encoding("s") == b"intset"
    c("SADD", "s", "512")
    assert c.encoding("s") == b"hashtable"
    assert c("SCARD", "s") == 513
    assert c("SISMEMBER", "s", "511") == 1


def test_intset_entries_config_set(c):
    assert c("CONFIG", "SET", "set-max-intset-entries", "3") == "OK"
    c("SADD", "s", "1", "2", "3")
    assert c.encoding("s") == b"intset"
    c("SADD", "s", "4")
    assert c.encoding("s") == b"hashtable"
    c("SREM", "s", "1", "2", "3")
    assert c.encoding("s") == b"hashtable"
    c("SADD", "t", "1", "2", "3", "4", "5")  # too many in one command
    assert c.encoding("t") == b"hashtable"
    c("SINTERSTORE", "d", "t", "t")
    assert c.encoding("d") == b"hashtable"
    c("CONFIG", "SET", "set-max-intset-entries", "0")
    c("SADD", "z", "1")
    assert c.encoding("z") == b"hashtable"
    assert c.err("CONFIG", "SET", "set-max-intset-entries", "-1") == (
        "ERR CONFIG SET failed (possibly related to argument 'set-max-intset-entries') - "
        "argument must be between 0 and 9223372036854775807 inclusive")


def test_commands_agree_across_encodings(c):
    for key, items in (("i", ["1", "2", "3"]), ("h", ["a", "b", "c"])):
        c("SADD", key, *items)
        assert c("SISMEMBER", key, items[0]) == 1
        assert c("SMISMEMBER", key, items[1], "zz") == [1, 0]
        assert c("SREM", key, items[0]) == 1
        assert c("SCARD", key) == 2
        assert sorted(c("SINTER", key, key)) == b_set(*items[1:])
    assert c("SINTERCARD", "2", "i", "h") == 0
    assert sorted(c("SUNION", "i", "h")) == b_set("2", "3", "b", "c")
    assert sorted(c("SDIFF", "i", "h")) == b_set("2", "3")
