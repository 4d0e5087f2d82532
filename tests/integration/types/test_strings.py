"""String commands: replies, encodings and exact error texts, as Redis 7.0.15 gives them.

Each expectation here was checked against the reference server; the raw
client (resp_raw.Conn) is used so error texts are compared in full.
"""
import pytest
import redis

from resp_raw import Err
from support import MAX64, MIN64, NOT_INT, invalid_expire

SYNTAX = Err("ERR syntax error")
NOT_FLOAT = Err("ERR value is not a valid float")
OVERFLOW = Err("ERR increment or decrement would overflow")
WRONGTYPE = Err("WRONGTYPE Operation against a key holding the wrong kind of value")


def arity(cmd):
    return Err("ERR wrong number of arguments for '%s' command" % cmd)


# --- GET / SET ---------------------------------------------------------------

def test_get_set_basic(c):
    assert c.call("GET", "k") is None
    assert c.call("SET", "k", "v") == "OK"
    assert c.call("GET", "k") == "v"
    assert c.call("SET", "k", "") == "OK"
    assert c.call("GET", "k") == ""
    assert c.call("TTL", "k") == -1


def test_set_binary_value(open_conn):
    c = open_conn(decode=False)
    value = bytes(range(256)) * 4
    assert c.call("SET", b"bin\x00key", value) == "OK"
    assert c.call("GET", b"bin\x00key") == value
    assert c.call("STRLEN", b"bin\x00key") == 1024


def test_set_ex_px(c):
    assert c.call("SET", "k", "v", "EX", "100") == "OK"
    assert 99 <= c.call("TTL", "k") <= 100
    assert c.call("SET", "k", "v", "PX", "100000") == "OK"
    assert 99000 <= c.call("PTTL", "k") <= 100000
    assert c.call("SET", "k", "v", "ex", "100") == "OK"  # options are case-insensitive


def test_set_exat_pxat(c):
    now = int(c.call("TIME")[0])
    assert c.call("SET", "k", "v", "EXAT", str(now + 100)) == "OK"
    assert 98 <= c.call("TTL", "k") <= 100
    assert c.call("EXPIRETIME", "k") == now + 100
    assert c.call("SET", "k", "v", "PXAT", str((now + 200) * 1000)) == "OK"
    assert c.call("PEXPIRETIME", "k") == (now + 200) * 1000


def test_set_past_exat_deletes(c):
    assert c.call("SET", "k", "v", "EXAT", "1") == "OK"
    assert c.call("EXISTS", "k") == 0
    assert c.call("SET", "k", "v", "PXAT", "1") == "OK"
    assert c.call("GET", "k") is None


def test_set_pxat_max_is_accepted(c):
    assert c.call("SET", "k", "v", "PXAT", MAX64) == "OK"
    assert c.call("PEXPIRETIME", "k") == int(MAX64)


def test_set_invalid_expire_time(c):
    # EX 9223372036854776 overflows when turned into ms; EX 9223372036854775
    # overflows when the current time is added
    for args in [("EX", "0"), ("EX", "-1"), ("PX", "0"), ("PX", "-5"), ("EXAT", "0"),
                 ("PXAT", "-1"), ("PX", MAX64), ("EX", MAX64), ("EXAT", MAX64),
                 ("EX", "9223372036854776"), ("EX", "9223372036854775"),
                 ("PX", "9223372036854775000")]:
        assert c.call("SET", "k", "v", *args) == invalid_expire("set"), args
        assert c.call("EXISTS", "k") == 0


def test_set_expire_not_integer(c):
    for args in [("EX", "abc"), ("PX", "1.5"), ("EXAT", "x"), ("PXAT", ""),
                 ("EX", "9223372036854775808")]:
        assert c.call("SET", "k", "v", *args) == NOT_INT, args


def test_set_syntax_errors(c):
    for args in [("NX", "XX"), ("XX", "NX"), ("EX", "10", "PX", "10"),
                 ("EX", "10", "EXAT", "10"), ("PX", "10", "PXAT", "10"), ("KEEPTTL", "EX", "10"),
                 ("PX", "10", "KEEPTTL"), ("EX",), ("PX",), ("FOO",), ("GET", "FOO"),
                 ("EX", "10", "PX")]:
        assert c.call("SET", "k", "v", *args) == SYNTAX, args
        assert c.call("EXISTS", "k") == 0


def test_set_repeated_option_is_accepted(c):
    assert c.call("SET", "k", "v", "NX", "NX") == "OK"
    assert c.call("SET", "k", "w", "XX", "XX") == "OK"
    assert c.call("GET", "k") == "w"
    assert c.call("SET", "k", "v", "EX", "10", "EX", "20") == "OK"
    assert 19 <= c.call("TTL", "k") <= 20
    assert c.call("SET", "k", "v", "GET", "GET") == "v"
    assert c.call("SET", "k", "v", "KEEPTTL", "KEEPTTL") == "OK"


def test_set_nx_xx(c):
    assert c.call("SET", "k", "v", "XX") is None
    assert c.call("EXISTS", "k") == 0
    assert c.call("SET", "k", "v", "NX") == "OK"
    assert c.call("SET", "k", "w", "NX") is None
    assert c.call("GET", "k") == "v"
    assert c.call("SET", "k", "w", "XX") == "OK"
    assert c.call("GET", "k") == "w"


def test_set_get_option(c):
    assert c.call("SET", "k", "v", "GET") is None
    assert c.call("SET", "k", "w", "GET") == "v"
    assert c.call("GET", "k") == "w"
    # NX together with GET is allowed since 7.0
    assert c.call("SET", "k", "x", "NX", "GET") == "w"
    assert c.call("GET", "k") == "w"
    assert c.call("SET", "n", "x", "GET", "NX") is None
    assert c.call("GET", "n") == "x"
    assert c.call("SET", "k", "y", "XX", "GET") == "w"
    assert c.call("SET", "m", "y", "XX", "GET") is None
    assert c.call("EXISTS", "m") == 0


def test_set_get_against_wrong_type(c):
    c.call("RPUSH", "l", "a")
    assert c.call("SET", "l", "x", "GET") == WRONGTYPE
    assert c.call("TYPE", "l") == "list"
    assert c.call("SET", "l", "x") == "OK"
    assert c.call("TYPE", "l") == "string"


def test_set_keepttl(c):
    c.call("SET", "k", "v", "EX", "100")
    assert c.call("SET", "k", "w", "KEEPTTL") == "OK"
    assert 99 <= c.call("TTL", "k") <= 100
    assert c.call("SET", "k", "x") == "OK"
    assert c.call("TTL", "k") == -1


def test_set_wrong_arity(c):
    assert c.call("SET", "k") == arity("set")
    assert c.call("GET") == arity("get")
    assert c.call("GET", "a", "b") == arity("get")


# --- SETNX SETEX PSETEX GETSET GETDEL GETEX -----------------------------------

def test_setnx(c):
    assert c.call("SETNX", "k", "v") == 1
    assert c.call("SETNX", "k", "w") == 0
    assert c.call("GET", "k") == "v"


def test_setex_psetex(c):
    assert c.call("SETEX", "k", "100", "v") == "OK"
    assert c.call("GET", "k") == "v"
    assert 99 <= c.call("TTL", "k") <= 100
    assert c.call("PSETEX", "p", "100000", "v") == "OK"
    assert 99000 <= c.call("PTTL", "p") <= 100000


def test_setex_invalid_expire(c):
    for cmd, ttl in [("SETEX", "0"), ("SETEX", "-5"), ("SETEX", MAX64), ("PSETEX", "0"),
                     ("PSETEX", MAX64), ("PSETEX", "-1")]:
        assert c.call(cmd, "k", ttl, "v") == invalid_expire(cmd.lower()), (cmd, ttl)
        assert c.call("EXISTS", "k") == 0


def test_setex_not_integer(c):
    assert c.call("SETEX", "k", "abc", "v") == NOT_INT
    assert c.call("PSETEX", "k", "1.5", "v") == NOT_INT
    assert c.call("SETEX", "k", "10") == arity("setex")


def test_getset(c):
    assert c.call("GETSET", "k", "v") is None
    assert c.call("GETSET", "k", "w") == "v"
    assert c.call("GET", "k") == "w"
    c.call("RPUSH", "l", "a")
    assert c.call("GETSET", "l", "x") == WRONGTYPE


def test_getdel(c):
    c.call("SET", "k", "v")
    assert c.call("GETDEL", "k") == "v"
    assert c.call("GETDEL", "k") is None
    assert c.call("EXISTS", "k") == 0
    c.call("RPUSH", "l", "a")
    assert c.call("GETDEL", "l") == WRONGTYPE
    assert c.call("EXISTS", "l") == 1


def test_getex(c):
    c.call("SET", "k", "v")
    assert c.call("GETEX", "k") == "v"
    assert c.call("TTL", "k") == -1
    assert c.call("GETEX", "k", "EX", "100") == "v"
    assert 99 <= c.call("TTL", "k") <= 100
    assert c.call("GETEX", "k", "PX", "200000") == "v"
    assert 199000 <= c.call("PTTL", "k") <= 200000
    now = int(c.call("TIME")[0])
    assert c.call("GETEX", "k", "EXAT", str(now + 300)) == "v"
    assert c.call("EXPIRETIME", "k") == now + 300
    assert c.call("GETEX", "k", "PXAT", str((now + 400) * 1000)) == "v"
    assert c.call("PEXPIRETIME", "k") == (now + 400) * 1000
    assert c.call("GETEX", "k", "PERSIST") == "v"
    assert c.call("TTL", "k") == -1
    assert c.call("GETEX", "missing", "EX", "10") is None
    assert c.call("EXISTS", "missing") == 0


def test_getex_past_time_deletes(c):
    c.call("SET", "k", "v")
    assert c.call("GETEX", "k", "EXAT", "1") == "v"
    assert c.call("EXISTS", "k") == 0


def test_getex_errors(c):
    c.call("SET", "k", "v")
    for args, err in [
        (("EX", "0"), invalid_expire("getex")),
        (("EX", "-1"), invalid_expire("getex")),
        (("PX", MAX64), invalid_expire("getex")),
        (("EX", MAX64), invalid_expire("getex")),
        (("EXAT", MAX64), invalid_expire("getex")),
        (("EX", "abc"), NOT_INT),
        (("FOO",), SYNTAX),
        (("EX",), SYNTAX),
        (("EX", "10", "PX", "10"), SYNTAX),
        (("PERSIST", "EX", "10"), SYNTAX),
        (("EX", "10", "PERSIST"), SYNTAX),
    ]:
        assert c.call("GETEX", "k", *args) == err, args
        assert c.call("TTL", "k") == -1


# --- MGET MSET MSETNX ---------------------------------------------------------

def test_mget_mset(c):
    assert c.call("MSET", "a", "1", "b", "2", "a", "3") == "OK"
    c.call("RPUSH", "l", "x")
    assert c.call("MGET", "a", "b", "nokey", "l") == ["3", "2", None, None]
    assert c.call("MSET", "a", "1", "b") == arity("mset")
    assert c.call("MSET") == arity("mset")
    assert c.call("MGET") == arity("mget")


def test_mset_clears_ttl(c):
    c.call("SET", "a", "1", "EX", "100")
    c.call("MSET", "a", "2")
    assert c.call("TTL", "a") == -1


def test_msetnx(c):
    assert c.call("MSETNX", "a", "1", "b", "2") == 1
    assert c.call("MSETNX", "b", "x", "c", "3") == 0
    assert c.call("MGET", "a", "b", "c") == ["1", "2", None]
    # the same new key twice: the last value wins
    assert c.call("MSETNX", "e", "1", "e", "2") == 1
    assert c.call("GET", "e") == "2"
    assert c.call("MSETNX", "e", "1", "f") == arity("msetnx")


# --- APPEND STRLEN ------------------------------------------------------------

def test_append_strlen(c):
    assert c.call("APPEND", "k", "abc") == 3
    assert c.call("APPEND", "k", "def") == 6
    assert c.call("GET", "k") == "abcdef"
    assert c.call("STRLEN", "k") == 6
    assert c.call("STRLEN", "nokey") == 0
    c.call("SET", "n", "12345")
    assert c.call("STRLEN", "n") == 5
    assert c.call("APPEND", "n", "6") == 6
    assert c.call("GET", "n") == "123456"


def test_append_keeps_ttl(c):
    c.call("SET", "k", "v", "EX", "100")
    c.call("APPEND", "k", "w")
    assert 99 <= c.call("TTL", "k") <= 100


# --- INCR family --------------------------------------------------------------

def test_incr_decr(c):
    assert c.call("INCR", "n") == 1
    assert c.call("INCR", "n") == 2
    assert c.call("DECR", "n") == 1
    assert c.call("INCRBY", "n", "10") == 11
    assert c.call("DECRBY", "n", "20") == -9
    assert c.call("INCRBY", "n", "-1") == -10
    assert c.call("DECR", "m") == -1
    assert c.call("GET", "n") == "-10"


def test_incr_keeps_ttl(c):
    c.call("SET", "n", "5", "EX", "100")
    assert c.call("INCR", "n") == 6
    assert 99 <= c.call("TTL", "n") <= 100


def test_incr_not_integer_values(c):
    for value in ["abc", " 1", "1 ", "+1", "01", "-0", "1.5", "", "9223372036854775808"]:
        c.call("SET", "n", value)
        assert c.call("INCR", "n") == NOT_INT, value
        assert c.call("GET", "n") == value


def test_incrby_not_integer_argument(c):
    for arg in ["abc", "1.5", "", "9223372036854775808", " 1"]:
        assert c.call("INCRBY", "n", arg) == NOT_INT, arg
        assert c.call("DECRBY", "n", arg) == NOT_INT, arg
        assert c.call("EXISTS", "n") == 0


def test_incr_overflow(c):
    c.call("SET", "big", MAX64)
    assert c.call("INCR", "big") == OVERFLOW
    assert c.call("INCRBY", "big", "1") == OVERFLOW
    assert c.call("GET", "big") == MAX64
    c.call("SET", "small", MIN64)
    assert c.call("DECR", "small") == OVERFLOW
    assert c.call("DECRBY", "small", "1") == OVERFLOW
    assert c.call("INCRBY", "small", "-1") == OVERFLOW
    assert c.call("INCRBY", "z", MIN64) == int(MIN64)
    assert c.call("INCRBY", "y", MAX64) == int(MAX64)


def test_decrby_min_int(c):
    # negating the minimum 64-bit value cannot be represented
    assert c.call("DECRBY", "z", MIN64) == Err("ERR decrement would overflow")
    assert c.call("EXISTS", "z") == 0
    assert c.call("DECRBY", "z", MAX64) == -int(MAX64)


def test_incr_against_wrong_type(c):
    c.call("HSET", "h", "f", "v")
    for args in (("INCR", "h"), ("DECR", "h"), ("INCRBY", "h", "1"), ("DECRBY", "h", "1"),
                 ("INCRBYFLOAT", "h", "1")):
        assert c.call(*args) == WRONGTYPE


def test_incrbyfloat_formatting(c):
    # the sum is a long double printed with 17 decimals, trailing zeros removed
    for start, incr, result in [
        ("10.50", "0.1", "10.6"),
        ("10.6", "-5", "5.6"),
        ("5.6", "5.0e3", "5005.60000000000000009"),
        ("3.0", "0", "3"),
        ("5.0e3", "0", "5000"),
        (None, "1.0", "1"),
        (None, "1e-17", "0.00000000000000001"),
        ("1", "-1", "0"),
        ("-3.5", "1", "-2.5"),
        ("100", "1e2", "200"),
    ]:
        c.call("DEL", "f")
        if start is not None:
            c.call("SET", "f", start)
        assert c.call("INCRBYFLOAT", "f", incr) == result, (start, incr)
        assert c.call("GET", "f") == result


def test_incrbyfloat_accumulates(c):
    assert c.call("INCRBYFLOAT", "f", "0.1") == "0.1"
    assert c.call("INCRBYFLOAT", "f", "0.2") == "0.3"


def test_incrbyfloat_huge_uses_long_double(c):
    c.call("SET", "f", "1e308")
    # 2e308 overflows a double but not the long double INCRBYFLOAT computes in
    reply = c.call("INCRBYFLOAT", "f", "1e308")
    assert reply.startswith("19999999999999999999")
    assert len(reply) == 309 and reply.isdigit()


def test_incrbyfloat_errors(c):
    assert c.call("INCRBYFLOAT", "f", "abc") == NOT_FLOAT
    assert c.call("INCRBYFLOAT", "f", "nan") == NOT_FLOAT
    assert c.call("INCRBYFLOAT", "f", "") == NOT_FLOAT
    assert c.call("INCRBYFLOAT", "f", "inf") == Err("ERR increment would produce NaN or Infinity")
    assert c.call("INCRBYFLOAT", "f", "-inf") == Err("ERR increment would produce NaN or Infinity")
    assert c.call("EXISTS", "f") == 0
    for bad in ("abc", " 1", "1 ", ""):
        c.call("SET", "s", bad)
        assert c.call("INCRBYFLOAT", "s", "1") == NOT_FLOAT
    assert c.call("INCRBYFLOAT", "f") == arity("incrbyfloat")


def test_incrbyfloat_keeps_ttl(c):
    c.call("SET", "f", "1.5", "EX", "100")
    assert c.call("INCRBYFLOAT", "f", "1") == "2.5"
    assert 99 <= c.call("TTL", "f") <= 100


# --- GETRANGE SETRANGE SUBSTR -------------------------------------------------

def test_getrange(c):
    c.call("SET", "s", "This is a string")
    for start, end, result in [
        ("0", "3", "This"), ("-3", "-1", "ing"), ("0", "-1", "This is a string"),
        ("10", "100", "string"), ("5", "3", ""), ("-100", "2", "Thi"), ("100", "200", ""),
        ("-1", "-5", ""), ("0", "-100", "T"), ("15", "15", "g"),
    ]:
        assert c.call("GETRANGE", "s", start, end) == result, (start, end)
        assert c.call("SUBSTR", "s", start, end) == result


def test_getrange_missing_and_errors(c):
    assert c.call("GETRANGE", "nokey", "0", "-1") == ""
    c.call("SET", "s", "abc")
    assert c.call("GETRANGE", "s", "a", "1") == NOT_INT
    assert c.call("GETRANGE", "s", "0") == arity("getrange")


def test_getrange_on_integer_value(c):
    c.call("SET", "n", "12345")
    assert c.call("GETRANGE", "n", "1", "3") == "234"
    assert c.call("GETRANGE", "n", "-2", "-1") == "45"


def test_setrange(c):
    c.call("SET", "s", "Hello World")
    assert c.call("SETRANGE", "s", "6", "Redis") == 11
    assert c.call("GET", "s") == "Hello Redis"
    assert c.call("SETRANGE", "s", "11", "!!") == 13
    assert c.call("GET", "s") == "Hello Redis!!"
    assert c.call("SETRANGE", "n", "5", "abc") == 8
    assert c.call("GET", "n") == "\x00\x00\x00\x00\x00abc"


def test_setrange_on_integer_value(c):
    c.call("SET", "i", "12")
    assert c.call("SETRANGE", "i", "0", "3") == 2
    assert c.call("GET", "i") == "32"
    assert c.call("OBJECT", "ENCODING", "i") == "raw"


def test_setrange_empty_value(c):
    assert c.call("SETRANGE", "n", "0", "") == 0
    assert c.call("SETRANGE", "n", "10", "") == 0
    assert c.call("EXISTS", "n") == 0
    c.call("SET", "s", "abc")
    assert c.call("SETRANGE", "s", "10", "") == 3
    assert c.call("GET", "s") == "abc"


def test_setrange_errors(c):
    c.call("SET", "s", "abc")
    assert c.call("SETRANGE", "s", "-1", "x") == Err("ERR offset is out of range")
    assert c.call("SETRANGE", "s", "abc", "x") == NOT_INT
    too_big = Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
    assert c.call("SETRANGE", "s", "536870912", "x") == too_big
    assert c.call("SETRANGE", "n", "536870912", "x") == too_big
    assert c.call("EXISTS", "n") == 0
    assert c.call("GET", "s") == "abc"


def test_setrange_limit_follows_proto_max_bulk_len(c):
    assert c.call("CONFIG", "SET", "proto-max-bulk-len", "1048576") == "OK"
    too_big = Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
    assert c.call("SETRANGE", "s", "1048576", "x") == too_big
    assert c.call("SETRANGE", "s", "1048575", "x") == 1048576
    assert c.call("APPEND", "s", "y") == too_big
    assert c.call("STRLEN", "s") == 1048576


# --- LCS ----------------------------------------------------------------------

def test_lcs(c):
    c.call("MSET", "key1", "ohmytext", "key2", "mynewtext")
    assert c.call("LCS", "key1", "key2") == "mytext"
    assert c.call("LCS", "key1", "key2", "LEN") == 6
    assert c.call("LCS", "key1", "key2", "WITHMATCHLEN") == "mytext"
    assert c.call("LCS", "key1", "key2", "LEN", "WITHMATCHLEN") == 6
    assert c.call("LCS", "key1", "nokey") == ""
    assert c.call("LCS", "nokey", "nokey2", "LEN") == 0


def test_lcs_idx(c):
    c.call("MSET", "key1", "ohmytext", "key2", "mynewtext")
    assert c.call("LCS", "key1", "key2", "IDX") == \
        ["matches", [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], "len", 6]
    assert c.call("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4") == \
        ["matches", [[[4, 7], [5, 8]]], "len", 6]
    assert c.call("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN") == \
        ["matches", [[[4, 7], [5, 8], 4]], "len", 6]
    assert c.call("LCS", "key1", "key2", "IDX", "WITHMATCHLEN") == \
        ["matches", [[[4, 7], [5, 8], 4], [[2, 3], [0, 1], 2]], "len", 6]
    assert c.call("LCS", "key1", "key2", "MINMATCHLEN", "-1", "IDX") == \
        ["matches", [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], "len", 6]
    assert c.call("LCS", "key1", "nokey", "IDX") == ["matches", [], "len", 0]


def test_lcs_errors(c):
    c.call("MSET", "key1", "ohmytext", "key2", "mynewtext")
    c.call("RPUSH", "l", "a")
    both = Err("ERR If you want both the length and indexes, please just use IDX.")
    assert c.call("LCS", "key1", "key2", "LEN", "IDX") == both
    assert c.call("LCS", "key1", "key2", "IDX", "LEN") == both
    assert c.call("LCS", "key1", "key2", "FOO") == SYNTAX
    assert c.call("LCS", "key1", "key2", "MINMATCHLEN") == SYNTAX
    assert c.call("LCS", "key1", "key2", "MINMATCHLEN", "abc") == NOT_INT
    assert c.call("LCS", "key1") == arity("lcs")
    strings_only = Err("ERR The specified keys must contain string values")
    assert c.call("LCS", "l", "key1") == strings_only
    assert c.call("LCS", "key1", "l") == strings_only


# --- OBJECT ENCODING ----------------------------------------------------------

def test_object_encoding_after_set(c):
    # integers in 64-bit range written canonically are "int"; other strings up
    # to 44 bytes are "embstr", longer ones "raw"
    for value, encoding in [
        ("12", "int"), ("-12", "int"), ("0", "int"), (MAX64, "int"), (MIN64, "int"),
        ("012", "embstr"), (" 12", "embstr"), ("12 ", "embstr"), ("-0", "embstr"),
        ("+1", "embstr"), ("9223372036854775808", "embstr"), ("1.5", "embstr"),
        ("abc", "embstr"), ("", "embstr"), ("x" * 44, "embstr"), ("x" * 45, "raw"),
        ("1" * 45, "raw"),
    ]:
        c.call("SET", "k", value)
        assert c.call("OBJECT", "ENCODING", "k") == encoding, value
        assert c.call("GET", "k") == value


def test_encoding_transitions(c):
    c.call("SET", "k", "abc")
    c.call("APPEND", "k", "d")
    assert c.call("OBJECT", "ENCODING", "k") == "raw"
    c.call("SET", "k", "10")
    c.call("APPEND", "k", "1")
    assert c.call("OBJECT", "ENCODING", "k") == "raw"
    assert c.call("GET", "k") == "101"
    assert c.call("INCR", "k") == 102  # INCR on a raw string holding a number
    assert c.call("OBJECT", "ENCODING", "k") == "int"
    c.call("SET", "k", "abc")
    c.call("SETRANGE", "k", "0", "x")
    assert c.call("OBJECT", "ENCODING", "k") == "raw"
    c.call("SET", "k", "abc")
    c.call("GETRANGE", "k", "0", "1")
    assert c.call("OBJECT", "ENCODING", "k") == "embstr"
    c.call("SET", "k", "1")
    c.call("INCRBYFLOAT", "k", "1")
    assert c.call("OBJECT", "ENCODING", "k") == "embstr"
    c.call("SET", "k", "5")
    c.call("INCRBY", "k", "10")
    assert c.call("OBJECT", "ENCODING", "k") == "int"
    c.call("SETEX", "k", "100", "123")
    assert c.call("OBJECT", "ENCODING", "k") == "int"


# --- WRONGTYPE ----------------------------------------------------------------

def test_wrongtype(c):
    c.call("RPUSH", "list", "a")
    c.call("HSET", "hash", "f", "v")
    for key in ("list", "hash"):
        for args in [("GET", key), ("SET", key, "x", "GET"), ("GETSET", key, "x"),
                     ("APPEND", key, "x"), ("STRLEN", key), ("INCR", key), ("DECRBY", key, "2"),
                     ("INCRBYFLOAT", key, "1"), ("GETRANGE", key, "0", "1"),
                     ("SETRANGE", key, "0", "x"), ("GETDEL", key), ("GETEX", key, "PERSIST"),
                     ("SUBSTR", key, "0", "1"), ("SET", key, "x", "NX", "GET"),
                     ("LCS", key, key)]:
            expected = (Err("ERR The specified keys must contain string values")
                        if args[0] == "LCS" else WRONGTYPE)
            assert c.call(*args) == expected, args
        assert c.call("TYPE", key) == key
    assert c.call("MGET", "list", "hash") == [None, None]


def test_setnx_and_mset_ignore_type(c):
    c.call("RPUSH", "l", "a")
    assert c.call("SETNX", "l", "x") == 0
    assert c.call("MSET", "l", "x") == "OK"
    assert c.call("TYPE", "l") == "string"


@pytest.mark.server_args("--enable-debug-command", "yes")
def test_incr_results_in_the_shared_range_are_shared(r):
    r.set("foo", -1)
    r.incr("foo")
    assert r.object("refcount", "foo") == 2147483647
    r.set("foo", 9998)
    r.incr("foo")
    assert r.object("refcount", "foo") == 2147483647
    r.incr("foo")
    assert r.object("refcount", "foo") == 1
    # Out of the shared range the value is updated in place.
    r.set("foo", 20000)
    r.incr("foo")
    before = r.execute_command("DEBUG", "OBJECT", "foo").split()[1]
    r.incr("foo")
    assert r.execute_command("DEBUG", "OBJECT", "foo").split()[1] == before


def test_float_increments_refuse_values_with_a_nul_byte(r):
    r.set("foo", 1)
    r.setrange("foo", 2, 2)
    with pytest.raises(redis.ResponseError, match="^value is not a valid float$"):
        r.incrbyfloat("foo", 1)
    r.hset("h", "f", b"1\x002")
    with pytest.raises(redis.ResponseError, match="^hash value is not a float$"):
        r.hincrbyfloat("h", "f", 1)
