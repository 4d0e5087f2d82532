"""Integration tests for the set commands, checked against Redis 7.0.15.

Replies and error texts are asserted exactly through datatype_client.py.
Encodings: 7.0 has only intset (all members canonical 64-bit
integers, at most set-max-intset-entries of them) and hashtable. We encode as
Redis 7.2 does: small non-integer sets are listpacks (set-max-listpack-entries
128, set-max-listpack-value 64), the one accepted difference (enc72).
"""
import pytest

from datatype_client import WRONGTYPE, arity, check_random_members, scan_all
from support import enc72, wait_for


def members(dc, key):
    return sorted(dc("SMEMBERS", key))


def b_set(*items):
    return sorted(x.encode() if isinstance(x, str) else x for x in items)


def make_hashtable_set(dc, key, n, prefix="m"):
    """A set of n short members: a hashtable on 7.0, and on ours too past 128."""
    dc("SADD", key, *["%s%d" % (prefix, i) for i in range(n)])
    assert dc.encoding(key) == enc72(b"listpack" if n <= 128 else b"hashtable", b"hashtable")


# --- SADD / SREM / SCARD / SISMEMBER / SMISMEMBER / SMEMBERS -------------

def test_sadd_srem_scard(dc):
    assert dc("SADD", "s", "a", "b", "a") == 2
    assert dc("SADD", "s", "b", "c") == 1
    assert dc("SCARD", "s") == 3
    assert dc("SREM", "s", "a", "zz", "a") == 1
    assert members(dc, "s") == [b"b", b"c"]
    assert dc("SREM", "s", "b", "c") == 2
    assert dc("EXISTS", "s") == 0
    assert dc("SREM", "nokey", "a") == 0
    assert dc("SCARD", "nokey") == 0
    assert dc("TYPE", "s") == "none"
    dc("SADD", "s", "x")
    assert dc("TYPE", "s") == "set"


def test_sismember_smismember(dc):
    dc("SADD", "s", "a", "1")
    assert dc("SISMEMBER", "s", "a") == 1
    assert dc("SISMEMBER", "s", "1") == 1
    assert dc("SISMEMBER", "s", "b") == 0
    assert dc("SISMEMBER", "nokey", "a") == 0
    assert dc("SMISMEMBER", "s", "a", "b", "1") == [1, 0, 1]
    assert dc("SMISMEMBER", "nokey", "a", "b") == [0, 0]
    dc("SADD", "i", "1", "2")
    assert dc.encoding("i") == b"intset"
    assert dc("SMISMEMBER", "i", "1", "01", "x", "2") == [1, 0, 0, 1]


def test_smembers(dc):
    assert dc("SMEMBERS", "nokey") == []
    dc("SADD", "i", "3", "1", "2", "-5", "10")
    # An intset keeps its members sorted.
    assert dc("SMEMBERS", "i") == [b"-5", b"1", b"2", b"3", b"10"]
    dc("SADD", "h", "b", "a", "c")
    assert members(dc, "h") == [b"a", b"b", b"c"]


def test_arity(dc):
    for cmd in (("SADD", "s"), ("SREM", "s"), ("SCARD",), ("SISMEMBER", "s"), ("SMISMEMBER", "s"),
                ("SMEMBERS",), ("SRANDMEMBER",), ("SPOP",), ("SMOVE", "a", "b"), ("SINTER",),
                ("SUNION",), ("SDIFF",), ("SINTERSTORE", "d"), ("SUNIONSTORE", "d"),
                ("SDIFFSTORE", "d"), ("SINTERCARD", "1"), ("SSCAN", "s")):
        assert dc.err(*cmd) == arity(cmd[0].lower()), cmd


# --- SRANDMEMBER / SPOP --------------------------------------------------

def test_srandmember_intset(dc):
    dc("SADD", "s", *range(1, 8))
    assert dc.encoding("s") == b"intset"
    check_random_members(dc, "SRANDMEMBER", "s", {str(i).encode() for i in range(1, 8)})
    assert set(dc("SRANDMEMBER", "s", "-300")) == {str(i).encode() for i in range(1, 8)}


def test_srandmember_hashtable(dc):
    make_hashtable_set(dc, "s", 100)
    expected = {b"m%d" % i for i in range(100)}
    check_random_members(dc, "SRANDMEMBER", "s", expected)
    for count in (10, 90):  # sampling and copy-then-remove paths
        got = dc("SRANDMEMBER", "s", count)
        assert len(set(got)) == count and set(got) <= expected


def test_srandmember_missing_and_errors(dc):
    assert dc("SRANDMEMBER", "nokey") is None
    assert dc("SRANDMEMBER", "nokey", "5") == []
    assert dc("SRANDMEMBER", "nokey", "-5") == []
    dc("SADD", "s", "a")
    assert dc.err("SRANDMEMBER", "s", "x") == "ERR value is not an integer or out of range"
    assert dc.err("SRANDMEMBER", "s", "-9223372036854775808") == (
        "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
    assert dc.err("SRANDMEMBER", "s", "1", "2") == "ERR syntax error"


def test_spop(dc):
    dc("SADD", "s", "a", "b", "c")
    popped = dc("SPOP", "s")
    assert popped in (b"a", b"b", b"c")
    assert dc("SISMEMBER", "s", popped) == 0
    assert dc("SCARD", "s") == 2
    rest = dc("SPOP", "s", "5")
    assert sorted(rest + [popped]) == [b"a", b"b", b"c"]
    assert dc("EXISTS", "s") == 0
    assert dc("SPOP", "nokey") is None
    assert dc("SPOP", "nokey", "3") == []


def test_spop_count_both_encodings(dc):
    for key, items in (("i", [str(i) for i in range(50)]), ("h", ["m%d" % i for i in range(50)])):
        dc("SADD", key, *items)
        assert dc.encoding(key) == (b"intset" if key == "i" else enc72(b"listpack", b"hashtable"))
        assert dc("SPOP", key, "0") == []
        got = []
        for count in (3, 30, 10):  # few, most of the rest, more than what is left
            part = dc("SPOP", key, count)
            assert len(set(part)) == len(part)
            got += part
            assert dc("SCARD", key) == max(50 - len(got), 0)
            assert not set(part) & set(dc("SMEMBERS", key))
        assert len(got) == 43
        got += dc("SPOP", key, "100")
        assert sorted(got) == b_set(*items)
        assert dc("EXISTS", key) == 0


def test_spop_errors(dc):
    dc("SADD", "s", "a")
    assert dc.err("SPOP", "s", "-1") == "ERR value is out of range, must be positive"
    assert dc.err("SPOP", "s", "x") == "ERR value is out of range, must be positive"
    assert dc.err("SPOP", "s", "1", "2") == "ERR syntax error"
    assert dc("SCARD", "s") == 1


# --- SMOVE ---------------------------------------------------------------

def test_smove(dc):
    dc("SADD", "src", "a", "b")
    dc("SADD", "dst", "5")
    assert dc("SMOVE", "src", "dst", "a") == 1
    assert members(dc, "src") == [b"b"]
    assert members(dc, "dst") == [b"5", b"a"]
    assert dc.encoding("dst") == enc72(b"listpack", b"hashtable")  # a non-integer member converted the intset
    assert dc("SMOVE", "src", "dst", "nothere") == 0
    assert dc("SMOVE", "src", "new", "b") == 1
    assert dc("EXISTS", "src") == 0
    assert members(dc, "new") == [b"b"]
    assert dc("SMOVE", "nokey", "dst", "a") == 0
    # Moving to the same set only checks membership.
    assert dc("SMOVE", "dst", "dst", "5") == 1
    assert dc("SMOVE", "dst", "dst", "nothere") == 0
    assert members(dc, "dst") == [b"5", b"a"]
    # Already present in the destination: removed from the source only.
    dc("SADD", "src2", "a", "z")
    assert dc("SMOVE", "src2", "dst", "a") == 1
    assert members(dc, "src2") == [b"z"]
    assert members(dc, "dst") == [b"5", b"a"]


def test_smove_wrongtype(dc):
    dc("SADD", "s", "1")
    dc("SET", "str", "x")
    assert dc.err("SMOVE", "s", "str", "1") == WRONGTYPE
    assert dc.err("SMOVE", "str", "s", "1") == WRONGTYPE
    assert members(dc, "s") == [b"1"]


# --- SINTER / SUNION / SDIFF and their STORE forms -----------------------

def setup_algebra(dc):
    dc("SADD", "a", "1", "2", "3", "x")
    dc("SADD", "b", "1", "2", "3", "4")
    dc("SADD", "c", "2", "3", "y")


def test_sinter_sunion_sdiff(dc):
    setup_algebra(dc)
    assert sorted(dc("SINTER", "a", "b", "c")) == b_set("2", "3")
    assert sorted(dc("SINTER", "a", "b")) == b_set("1", "2", "3")
    assert sorted(dc("SINTER", "a")) == b_set("1", "2", "3", "x")
    assert dc("SINTER", "a", "nokey") == []
    assert sorted(dc("SUNION", "a", "b", "c")) == b_set("1", "2", "3", "4", "x", "y")
    assert sorted(dc("SUNION", "a", "nokey")) == b_set("1", "2", "3", "x")
    assert dc("SUNION", "nokey") == []
    assert sorted(dc("SDIFF", "a", "b")) == b_set("x")
    assert sorted(dc("SDIFF", "b", "a", "c")) == b_set("4")
    assert sorted(dc("SDIFF", "a", "nokey")) == b_set("1", "2", "3", "x")
    assert dc("SDIFF", "nokey", "a") == []
    assert dc("SDIFF", "a", "a") == []


def test_store_variants(dc):
    setup_algebra(dc)
    assert dc("SINTERSTORE", "d1", "a", "b") == 3
    assert members(dc, "d1") == b_set("1", "2", "3")
    assert dc.encoding("d1") == b"intset"
    assert dc("SUNIONSTORE", "d2", "a", "b") == 5
    assert members(dc, "d2") == b_set("1", "2", "3", "4", "x")
    assert dc.encoding("d2") == enc72(b"listpack", b"hashtable")
    assert dc("SDIFFSTORE", "d3", "b", "a") == 1
    assert members(dc, "d3") == [b"4"]
    assert dc.encoding("d3") == b"intset"
    # The destination may be one of the sources.
    assert dc("SUNIONSTORE", "a", "a", "c") == 5
    assert members(dc, "a") == b_set("1", "2", "3", "x", "y")


def test_store_empty_result_deletes_destination(dc):
    setup_algebra(dc)
    dc("SET", "str", "x")
    assert dc("SINTERSTORE", "str", "a", "nokey") == 0
    assert dc("EXISTS", "str") == 0
    dc("SADD", "d", "old")
    assert dc("SDIFFSTORE", "d", "a", "a") == 0
    assert dc("EXISTS", "d") == 0
    assert dc("SUNIONSTORE", "d", "nokey", "nokey2") == 0
    assert dc("EXISTS", "d") == 0


def test_store_overwrites_other_types(dc):
    setup_algebra(dc)
    dc("SET", "str", "x")
    assert dc("SUNIONSTORE", "str", "c") == 3
    assert dc("TYPE", "str") == "set"


def test_algebra_wrongtype(dc):
    setup_algebra(dc)
    dc("SET", "str", "x")
    for cmd in ("SINTER", "SUNION", "SDIFF"):
        assert dc.err(cmd, "a", "str") == WRONGTYPE
        assert dc.err(cmd, "str", "a") == WRONGTYPE
        # Every key is checked, even after an empty one.
        assert dc.err(cmd, "nokey", "str") == WRONGTYPE
    for cmd in ("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"):
        assert dc.err(cmd, "d", "a", "str") == WRONGTYPE
    assert dc("EXISTS", "d") == 0
    assert dc.err("SINTERCARD", "2", "a", "str") == WRONGTYPE
    assert dc.err("SINTERCARD", "2", "nokey", "str") == WRONGTYPE


# --- SINTERCARD ----------------------------------------------------------

def test_sintercard(dc):
    setup_algebra(dc)
    assert dc("SINTERCARD", "2", "a", "b") == 3
    assert dc("SINTERCARD", "3", "a", "b", "c") == 2
    assert dc("SINTERCARD", "1", "a") == 4
    assert dc("SINTERCARD", "2", "a", "nokey") == 0
    assert dc("SINTERCARD", "2", "a", "b", "LIMIT", "2") == 2
    assert dc("SINTERCARD", "2", "a", "b", "LIMIT", "10") == 3
    assert dc("SINTERCARD", "2", "a", "b", "LIMIT", "0") == 3  # 0 means no limit
    assert dc("SINTERCARD", "1", "a", "limit", "1") == 1


def test_sintercard_errors(dc):
    dc("SADD", "s", "a")
    assert dc.err("SINTERCARD", "0", "s") == "ERR numkeys should be greater than 0"
    assert dc.err("SINTERCARD", "-1", "s") == "ERR numkeys should be greater than 0"
    assert dc.err("SINTERCARD", "x", "s") == "ERR numkeys should be greater than 0"
    assert dc.err("SINTERCARD", "2", "s") == "ERR Number of keys can't be greater than number of args"
    assert dc.err("SINTERCARD", "1", "s", "LIMIT", "-1") == "ERR LIMIT can't be negative"
    assert dc.err("SINTERCARD", "1", "s", "LIMIT", "x") == "ERR LIMIT can't be negative"
    assert dc.err("SINTERCARD", "1", "s", "LIMIT") == "ERR syntax error"
    assert dc.err("SINTERCARD", "1", "s", "FOO") == "ERR syntax error"


# --- SSCAN ---------------------------------------------------------------

def test_sscan_intset(dc):
    dc("SADD", "s", "3", "1", "2", "10", "11")
    assert dc("SSCAN", "s", "0") == [b"0", [b"1", b"2", b"3", b"10", b"11"]]
    assert dc("SSCAN", "s", "0", "COUNT", "1") == [b"0", [b"1", b"2", b"3", b"10", b"11"]]
    assert dc("SSCAN", "s", "0", "MATCH", "1*") == [b"0", [b"1", b"10", b"11"]]


def test_sscan_hashtable(dc):
    make_hashtable_set(dc, "s", 300)
    items, calls = scan_all(dc, "SSCAN", "s", "COUNT", "10")
    assert calls > 1
    assert len(items) == 300
    assert sorted(items) == b_set(*["m%d" % i for i in range(300)])
    items, _ = scan_all(dc, "SSCAN", "s", "MATCH", "m2?", "COUNT", "50")
    assert sorted(items) == b_set(*["m2%d" % i for i in range(10)])


def test_sscan_errors(dc):
    assert dc("SSCAN", "nokey", "0") == [b"0", []]
    dc("SADD", "s", "a")
    assert dc.err("SSCAN", "s", "x") == "ERR invalid cursor"
    assert dc.err("SSCAN", "s", "0", "COUNT", "0") == "ERR syntax error"
    assert dc.err("SSCAN", "s", "0", "MATCH") == "ERR syntax error"
    assert dc.err("SSCAN", "s", "0", "NOVALUES") == "ERR syntax error"


# --- WRONGTYPE -----------------------------------------------------------

def test_wrongtype(dc):
    dc("SET", "str", "x")
    for cmd in (("SADD", "str", "a"), ("SREM", "str", "a"), ("SCARD", "str"),
                ("SISMEMBER", "str", "a"), ("SMISMEMBER", "str", "a"), ("SMEMBERS", "str"),
                ("SRANDMEMBER", "str"), ("SRANDMEMBER", "str", "2"), ("SPOP", "str"),
                ("SPOP", "str", "2"), ("SSCAN", "str", "0"), ("SINTERCARD", "1", "str")):
        assert dc.err(*cmd) == WRONGTYPE, cmd
    dc("SADD", "s", "a")
    assert dc.err("LPUSH", "s", "a") == WRONGTYPE


# --- Encodings -----------------------------------------------------------

def test_set_encoding_directives(dc):
    assert dc("CONFIG", "GET", "set-max-intset-entries") == [b"set-max-intset-entries", b"512"]
    if enc72(True, False):  # 7.2's directives, unknown to 7.0
        assert dc("CONFIG", "GET", "set-max-listpack-entries") == [b"set-max-listpack-entries", b"128"]
        assert dc("CONFIG", "GET", "set-max-listpack-value") == [b"set-max-listpack-value", b"64"]
    else:
        assert dc("CONFIG", "GET", "set-max-listpack-entries") == []
        assert dc.err("CONFIG", "SET", "set-max-listpack-entries", "1") == (
            "ERR Unknown option or number of arguments for CONFIG SET - 'set-max-listpack-entries'")
    dc("SADD", "s", "a")
    assert dc.encoding("s") == enc72(b"listpack", b"hashtable")  # a small non-integer set


def test_intset_only_for_canonical_integers(dc):
    dc("SADD", "a", "1", "2", "3")
    assert dc.encoding("a") == b"intset"
    dc("SADD", "b", "9223372036854775807", "-9223372036854775808")
    assert dc.encoding("b") == b"intset"
    for i, member in enumerate(("9223372036854775808", "01", " 1", "1.0", "-0", "+1", "a")):
        key = "n%d" % i
        dc("SADD", key, member)
        assert dc.encoding(key) == enc72(b"listpack", b"hashtable"), member
        assert dc("SMEMBERS", key) == [member.encode()]


def test_intset_converts_on_non_integer_member(dc):
    dc("SADD", "s", "1", "2", "3")
    assert dc.encoding("s") == b"intset"
    dc("SADD", "s", "a")
    assert dc.encoding("s") == enc72(b"listpack", b"hashtable")
    # One-way: removing the non-integer member keeps the new encoding.
    dc("SREM", "s", "a")
    assert dc.encoding("s") == enc72(b"listpack", b"hashtable")
    assert members(dc, "s") == b_set("1", "2", "3")
    assert dc("SISMEMBER", "s", "2") == 1


def test_intset_entries_threshold_default(dc):
    dc("SADD", "s", *range(512))
    assert dc.encoding("s") == b"intset"
    dc("SADD", "s", "100")  # already there: no growth
    assert dc.encoding("s") == b"intset"
    dc("SADD", "s", "512")
    assert dc.encoding("s") == b"hashtable"
    assert dc("SCARD", "s") == 513
    assert dc("SISMEMBER", "s", "511") == 1


def test_intset_entries_config_set(dc):
    assert dc("CONFIG", "SET", "set-max-intset-entries", "3") == "OK"
    dc("SADD", "s", "1", "2", "3")
    assert dc.encoding("s") == b"intset"
    dc("SADD", "s", "4")
    assert dc.encoding("s") == b"hashtable"
    dc("SREM", "s", "1", "2", "3")
    assert dc.encoding("s") == b"hashtable"
    dc("SADD", "t", "1", "2", "3", "4", "5")  # too many in one command
    assert dc.encoding("t") == enc72(b"listpack", b"hashtable")
    dc("SINTERSTORE", "d", "t", "t")
    assert dc.encoding("d") == b"hashtable"
    dc("CONFIG", "SET", "set-max-intset-entries", "0")
    dc("SADD", "z", "1")
    assert dc.encoding("z") == enc72(b"listpack", b"hashtable")
    assert dc.err("CONFIG", "SET", "set-max-intset-entries", "-1") == (
        "ERR CONFIG SET failed (possibly related to argument 'set-max-intset-entries') - "
        "argument must be between 0 and 9223372036854775807 inclusive")


def test_commands_agree_across_encodings(dc):
    for key, items in (("i", ["1", "2", "3"]), ("h", ["a", "b", "c"])):
        dc("SADD", key, *items)
        assert dc("SISMEMBER", key, items[0]) == 1
        assert dc("SMISMEMBER", key, items[1], "zz") == [1, 0]
        assert dc("SREM", key, items[0]) == 1
        assert dc("SCARD", key) == 2
        assert sorted(dc("SINTER", key, key)) == b_set(*items[1:])
    assert dc("SINTERCARD", "2", "i", "h") == 0
    assert sorted(dc("SUNION", "i", "h")) == b_set("2", "3", "b", "c")
    assert sorted(dc("SDIFF", "i", "h")) == b_set("2", "3")


def test_small_set_encoding_thresholds(dc):
    """7.2's rules (the reference, 7.0, answers hashtable for every non-intset)."""
    dc("SADD", "a", "1", "2", "3")
    dc("SADD", "a", "x")  # a short string into a small intset: a listpack
    assert dc.encoding("a") == enc72(b"listpack", b"hashtable")
    assert members(dc, "a") == b_set("1", "2", "3", "x")
    dc("SADD", "b", "1", "2")
    dc("SADD", "b", "y" * 65)  # longer than set-max-listpack-value: a hashtable
    assert dc.encoding("b") == b"hashtable"
    dc("SADD", "c", *range(200))
    dc("SADD", "c", "z")  # more members than set-max-listpack-entries: a hashtable
    assert dc.encoding("c") == b"hashtable"
    dc("SADD", "d", *["m%d" % i for i in range(128)])
    assert dc.encoding("d") == enc72(b"listpack", b"hashtable")
    assert dc("SADD", "d", "m0") == 0
    assert dc.encoding("d") == enc72(b"listpack", b"hashtable")
    dc("SADD", "d", "m128")
    assert dc.encoding("d") == b"hashtable"
    assert dc("SCARD", "d") == 129
    dc("SADD", "e", *["m%d" % i for i in range(129)])  # too many in one command
    assert dc.encoding("e") == b"hashtable"
    # Integers in a listpack set stay integers for every command.
    dc("SADD", "f", "a", "10", "-3", "b")
    assert dc.encoding("f") == enc72(b"listpack", b"hashtable")
    assert dc("SISMEMBER", "f", "10") == 1 and dc("SISMEMBER", "f", "010") == 0
    assert dc("SMISMEMBER", "f", "-3", "a", "c") == [1, 1, 0]
    assert sorted(dc("SINTER", "f", "a")) == []
    assert dc("SINTERCARD", "2", "f", "f", "LIMIT", "3") == 3
    dc("SADD", "g", "a", "q")
    assert sorted(dc("SDIFF", "f", "g")) == b_set("10", "-3", "b")
    assert dc("SINTER", "g", "f") == [b"a"]
    assert dc("SORT", "f", "ALPHA") == [b"-3", b"10", b"a", b"b"]
    assert dc("SREM", "f", "10", "11") == 1
    drawn = dc("SRANDMEMBER", "f", "-10")
    assert len(drawn) == 10 and set(drawn) <= {b"-3", b"a", b"b"}
    assert sorted(dc("SRANDMEMBER", "f", "10")) == b_set("-3", "a", "b")
    assert sorted(dc("SPOP", "f", "2") + dc("SMEMBERS", "f")) == b_set("-3", "a", "b")
    assert dc("EVAL", "return redis.call('SCARD', KEYS[1])", "1", "f") == 1


@pytest.mark.ours
def test_set_listpack_directives_apply(dc):
    assert dc("CONFIG", "SET", "set-max-listpack-entries", "2") == "OK"
    dc("SADD", "s", "a", "b")
    assert dc.encoding("s") == b"listpack"
    dc("SADD", "s", "c")
    assert dc.encoding("s") == b"hashtable"
    assert dc("CONFIG", "SET", "set-max-listpack-value", "3") == "OK"
    dc("SADD", "t", "abc")
    assert dc.encoding("t") == b"listpack"
    dc("SADD", "t", "abcd")
    assert dc.encoding("t") == b"hashtable"


def _chi_square(counts):
    expected = sum(counts.values()) / len(counts)
    return sum((v - expected) ** 2 / expected for v in counts.values())


def test_srandmember_is_even_on_a_set_whose_members_share_one_bucket(server_factory):
    """Members left in one hash bucket (the set shrank from a big table
    after its other members went): SRANDMEMBER still draws each of them
    evenly, with or without a count, as Redis 7.0.15 does (its unit/type/set
    'SRANDMEMBER with a dict containing long chain')."""
    import collections
    import os
    import signal
    import subprocess
    server = server_factory("--enable-debug-command", "yes")
    r = server.client(decode_responses=True)
    r.config_set("set-max-intset-entries", 0)
    for i in range(0, 20000, 5000):
        r.sadd("s", *["m:%d" % j for j in range(i, i + 5000)])
    while "rehashing target" in r.execute_command("DEBUG", "HTSTATS-KEY", "s"):
        r.srandmember("s", 100)  # the growth finished: SSCAN returns each member once
    # A snapshot child that never ends holds the table at its size while
    # all but the members of the last buckets in SCAN order go.
    r.config_set("rdb-key-save-delay", 2147483647)
    r.bgsave()
    keep, cursor, order = 30, 0, []
    while True:
        cursor, batch = r.sscan("s", cursor, count=1000)
        order += batch
        if cursor == 0:
            break
    r.srem("s", *order[:-keep - 1])
    for pid in subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True, text=True).stdout.split():
        os.kill(int(pid), signal.SIGKILL)
    wait_for(lambda: not r.info("persistence")["rdb_bgsave_in_progress"])
    r.config_set("rdb-key-save-delay", 0)
    r.srem("s", order[-keep - 1])  # the next removal lets the table shrink
    while "rehashing target" in r.execute_command("DEBUG", "HTSTATS-KEY", "s"):
        r.srandmember("s")  # draws move the rehashing on
    stats = r.execute_command("DEBUG", "HTSTATS-KEY", "s")
    assert "different slots: 1\n" in stats and "max chain length: %d\n" % keep in stats, stats
    # Negative count: independent draws, every member about as often.
    drawn = collections.Counter(r.srandmember("s", -6000))
    assert len(drawn) == keep and _chi_square(drawn) < 73  # df 29: p 0.00001
    # Positive count below a third of the set: distinct draws, evenly spread.
    drawn = collections.Counter()
    for _ in range(600):
        drawn.update(r.srandmember("s", 10))
    assert len(drawn) == keep and _chi_square(drawn) < 73


# --- big sets: the hash-table encoding -------------------------------------
# Ours keeps a bucket's members back to back in one allocation, each behind
# its length (one byte below 128, two below 16384, three beyond): members at
# those boundaries, empty and binary ones, and a set that grows and shrinks.

def _awkward_members():
    ms = [b"", b"\x00", b"a\r\nb", b"\xff" * 3, b"-0", b"007", b"1e3"]
    for n in (126, 127, 128, 129, 16383, 16384, 16385, 70000):
        ms.append(b"%d:" % n + b"x" * (n - len(b"%d:" % n)))
    return ms


def test_hashtable_set_members_of_every_length(dc):
    awkward = _awkward_members()
    filler = [b"m%d" % i for i in range(200)]
    assert dc("SADD", "s", *filler) == 200
    assert dc("SADD", "s", *awkward) == len(awkward)
    assert dc.encoding("s") == b"hashtable"
    assert dc("SADD", "s", *awkward) == 0
    assert dc("SCARD", "s") == 200 + len(awkward)
    assert dc("SMISMEMBER", "s", *awkward) == [1] * len(awkward)
    assert dc("SISMEMBER", "s", b"x" * 127) == 0
    assert members(dc, "s") == sorted(filler + awkward)
    # Taken out one by one, the others stay; the set is a listpack only on 7.2's way in.
    for i, m in enumerate(awkward):
        assert dc("SREM", "s", m) == 1
        assert dc("SMISMEMBER", "s", *awkward[i + 1:]) == [1] * len(awkward[i + 1:]) if awkward[i + 1:] else True
    assert members(dc, "s") == sorted(filler)
    dump = dc("DUMP", "s")
    dc("DEL", "s")
    dc("RESTORE", "s", 0, dump)
    assert members(dc, "s") == sorted(filler)


def test_hashtable_set_churn_matches_a_model(dc):
    import random
    rnd = random.Random(17)
    model = set()
    dc("SADD", "s", *["seed%d" % i for i in range(300)])
    model.update(b"seed%d" % i for i in range(300))
    for step in range(40):
        grow = step < 20
        batch = [b"k%d" % rnd.randrange(20000) for _ in range(400)]
        if grow:
            assert dc("SADD", "s", *batch) == len(set(batch) - model)
            model.update(batch)
        else:
            gone = [m for m in model if rnd.random() < 0.05] + batch[:50]
            assert dc("SREM", "s", *gone) == len(set(gone) & model)
            model.difference_update(gone)
        assert dc("SCARD", "s") == len(model)
    assert set(dc("SMEMBERS", "s")) == model
    picks = dc("SRANDMEMBER", "s", 50)
    assert len(set(picks)) == 50 and set(picks) <= model
    popped = dc("SPOP", "s", 100)
    assert len(set(popped)) == 100 and set(popped) <= model
    model.difference_update(popped)
    assert set(dc("SMEMBERS", "s")) == model


def test_sscan_sees_every_member_while_a_set_grows_and_shrinks(dc):
    base = ["keep%d" % i for i in range(500)]
    dc("SADD", "s", *base)
    cursor, seen, calls = b"0", set(), 0
    while True:
        cursor, part = dc("SSCAN", "s", cursor, "COUNT", 20)
        seen.update(part)
        calls += 1
        if calls == 5:
            dc("SADD", "s", *["grow%d" % i for i in range(20000)])  # the table grows mid-scan
        if calls == 60:
            dc("SREM", "s", *["grow%d" % i for i in range(20000)])  # and shrinks again
        if cursor == b"0":
            break
        assert calls < 100000
    assert {m.encode() for m in base} <= seen
