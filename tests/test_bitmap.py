"""Integration tests for the bitmap commands, checked against Redis 7.0.15.

SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO, with exact replies
and error texts through datatype_client.py. Offsets are bounded
by proto-max-bulk-len, lowered here to its 1mb minimum so the bound can be
reached without building a 512MB string.
"""
from datatype_client import WRONGTYPE, arity, c, connect  # noqa: F401

BAD_OFFSET = "ERR bit offset is not an integer or out of range"
BAD_TYPE = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
NOT_INT = "ERR value is not an integer or out of range"


# --- SETBIT / GETBIT -----------------------------------------------------

def test_setbit_getbit(c):
    assert c("SETBIT", "b", "7", "1") == 0
    assert c("GET", "b") == b"\x01"
    assert c("SETBIT", "b", "7", "1") == 1
    assert c("SETBIT", "b", "0", "1") == 0
    assert c("GET", "b") == b"\x81"
    assert c("SETBIT", "b", "7", "0") == 1
    assert c("GET", "b") == b"\x80"
    assert c("GETBIT", "b", "0") == 1
    assert c("GETBIT", "b", "1") == 0
    assert c("GETBIT", "b", "100000") == 0
    assert c("GETBIT", "nokey", "0") == 0
    assert c("EXISTS", "nokey") == 0


def test_setbit_grows_with_zero_bytes(c):
    c("SET", "s", "a")
    assert c("SETBIT", "s", "23", "1") == 0
    assert c("GET", "s") == b"a\x00\x01"
    assert c("SETBIT", "n", "15", "0") == 0
    assert c("GET", "n") == b"\x00\x00"


def test_setbit_on_integer_encoded_string(c):
    c("SET", "i", "1")  # 0x31
    assert c("GETBIT", "i", "7") == 1
    assert c("SETBIT", "i", "6", "1") == 0
    assert c("GET", "i") == b"3"


def test_setbit_getbit_errors(c):
    assert c.err("SETBIT", "b", "7", "2") == "ERR bit is not an integer or out of range"
    assert c.err("SETBIT", "b", "7", "x") == "ERR bit is not an integer or out of range"
    assert c.err("SETBIT", "b", "-1", "1") == BAD_OFFSET
    assert c.err("SETBIT", "b", "x", "1") == BAD_OFFSET
    assert c.err("GETBIT", "b", "-1") == BAD_OFFSET
    assert c.err("GETBIT", "b", "x") == BAD_OFFSET
    assert c.err("SETBIT", "b", "4294967296", "1") == BAD_OFFSET
    assert c.err("GETBIT", "b", "4294967296") == BAD_OFFSET
    assert c.err("SETBIT", "b", "1") == arity("setbit")
    assert c.err("GETBIT", "b") == arity("getbit")
    assert c("EXISTS", "b") == 0


def test_offsets_bounded_by_proto_max_bulk_len(c):
    assert c("CONFIG", "GET", "proto-max-bulk-len") == [b"proto-max-bulk-len", b"536870912"]
    assert c("CONFIG", "SET", "proto-max-bulk-len", "1mb") == "OK"
    assert c("SETBIT", "big", "8388607", "1") == 0
    assert c("STRLEN", "big") == 1048576
    assert c.err("SETBIT", "big", "8388608", "1") == BAD_OFFSET
    assert c.err("GETBIT", "big", "8388608") == BAD_OFFSET
    assert c("GETBIT", "big", "8388607") == 1
    assert c("BITFIELD", "big", "SET", "u8", "#1048575", "2") == [1]
    assert c.err("BITFIELD", "big", "SET", "u8", "#1048576", "1") == BAD_OFFSET
    assert c.err("BITFIELD", "big", "GET", "u8", "8388608") == BAD_OFFSET
    assert c("STRLEN", "big") == 1048576


# --- BITCOUNT ------------------------------------------------------------

def test_bitcount(c):
    c("SET", "s", "foobar")
    assert c("BITCOUNT", "s") == 26
    assert c("BITCOUNT", "s", "0", "0") == 4
    assert c("BITCOUNT", "s", "1", "1") == 6
    assert c("BITCOUNT", "s", "1", "1", "BYTE") == 6
    assert c("BITCOUNT", "s", "-2", "-1") == 7
    assert c("BITCOUNT", "s", "-100", "-1") == 26
    assert c("BITCOUNT", "s", "0", "100") == 26
    assert c("BITCOUNT", "s", "2", "1") == 0
    # A negative end beyond the start is clamped to the first byte.
    assert c("BITCOUNT", "s", "0", "-100") == 4
    assert c("BITCOUNT", "nokey") == 0
    assert c("BITCOUNT", "nokey", "0", "1") == 0


def test_bitcount_bit_ranges(c):
    c("SET", "s", "foobar")
    assert c("BITCOUNT", "s", "5", "30", "BIT") == 17
    assert c("BITCOUNT", "s", "-2", "-1", "BIT") == 1
    assert c("BITCOUNT", "s", "0", "-1", "bit") == 26
    assert c("BITCOUNT", "s", "1", "1", "BIT") == 1  # 'f' = 01100110
    assert c("BITCOUNT", "s", "0", "0", "BIT") == 0
    assert c("BITCOUNT", "s", "40", "47", "BIT") == c("BITCOUNT", "s", "5", "5")


def test_bitcount_errors(c):
    c("SET", "s", "foobar")
    assert c.err("BITCOUNT", "s", "0") == "ERR syntax error"
    assert c.err("BITCOUNT", "s", "0", "1", "FOO") == "ERR syntax error"
    assert c.err("BITCOUNT", "s", "0", "-1", "BIT", "x") == "ERR syntax error"
    assert c.err("BITCOUNT", "s", "x", "1") == NOT_INT
    assert c.err("BITCOUNT") == arity("bitcount")


# --- BITPOS --------------------------------------------------------------

def test_bitpos(c):
    c("SET", "s", "foobar")
    assert c("BITPOS", "s", "0") == 0
    assert c("BITPOS", "s", "1") == 1
    assert c("BITPOS", "s", "1", "2") == 17
    assert c("BITPOS", "s", "1", "2", "-1") == 17
    assert c("BITPOS", "s", "1", "2", "-1", "BYTE") == 17
    assert c("BITPOS", "s", "1", "7", "15", "BIT") == 9
    assert c("BITPOS", "s", "0", "0", "-1", "BIT") == 0
    assert c("BITPOS", "s", "1", "2", "1") == -1


def test_bitpos_not_found(c):
    c("SET", "ones", b"\xff\xff")
    # Looking for 0 in all-ones: with no end given the string counts as padded
    # with zeros, so the answer is just past it; with an explicit end, -1.
    assert c("BITPOS", "ones", "0") == 16
    assert c("BITPOS", "ones", "0", "0") == 16
    assert c("BITPOS", "ones", "0", "1") == 16
    assert c("BITPOS", "ones", "0", "0", "-1") == -1
    assert c("BITPOS", "ones", "0", "0", "-1", "BIT") == -1
    assert c("BITPOS", "ones", "0", "2") == -1
    assert c("BITPOS", "ones", "1", "2") == -1
    assert c("BITPOS", "ones", "1", "3", "2", "BIT") == -1
    c("SET", "zeros", b"\x00\x00")
    assert c("BITPOS", "zeros", "1") == -1
    assert c("BITPOS", "zeros", "1", "0", "-1", "BIT") == -1
    assert c("BITPOS", "zeros", "0", "1") == 8
    assert c("BITPOS", "nokey", "0") == 0
    assert c("BITPOS", "nokey", "1") == -1


def test_bitpos_errors(c):
    c("SET", "s", "foobar")
    assert c.err("BITPOS", "s", "2") == "ERR The bit argument must be 1 or 0."
    assert c.err("BITPOS", "s", "x") == NOT_INT
    assert c.err("BITPOS", "s", "1", "x") == NOT_INT
    assert c.err("BITPOS", "s", "1", "0", "-1", "FOO") == "ERR syntax error"
    assert c.err("BITPOS", "s", "1", "0", "-1", "BIT", "x") == "ERR syntax error"
    assert c.err("BITPOS", "s") == arity("bitpos")


# --- BITOP ---------------------------------------------------------------

def test_bitop(c):
    c("SET", "a", b"\xf0\x0f")
    c("SET", "b", b"\xff")
    for op, expected in (("AND", b"\xf0\x00"), ("OR", b"\xff\x0f"), ("XOR", b"\x0f\x0f")):
        assert c("BITOP", op, "d", "a", "b") == 2
        assert c("GET", "d") == expected, op
    assert c("BITOP", "NOT", "d", "a") == 2
    assert c("GET", "d") == b"\x0f\xf0"
    assert c("BITOP", "or", "d", "a", "nokey") == 2
    assert c("GET", "d") == b"\xf0\x0f"
    assert c("BITOP", "and", "d", "a", "nokey") == 2
    assert c("GET", "d") == b"\x00\x00"
    assert c("BITOP", "AND", "d", "a") == 2
    assert c("GET", "d") == b"\xf0\x0f"
    # The destination may be a source.
    assert c("BITOP", "XOR", "a", "a", "b") == 2
    assert c("GET", "a") == b"\x0f\x0f"


def test_bitop_empty_result_deletes_destination(c):
    c("SET", "d", "x")
    assert c("BITOP", "OR", "d", "nokey") == 0
    assert c("EXISTS", "d") == 0
    c("LPUSH", "d", "x")
    assert c("BITOP", "AND", "d", "nokey", "nokey2") == 0
    assert c("EXISTS", "d") == 0
    assert c("BITOP", "NOT", "d", "nokey") == 0
    assert c("EXISTS", "d") == 0


def test_bitop_errors(c):
    c("SET", "a", "x")
    c("LPUSH", "l", "x")
    assert c.err("BITOP", "NOT", "d", "a", "b") == "ERR BITOP NOT must be called with a single source key."
    assert c.err("BITOP", "FOO", "d", "a") == "ERR syntax error"
    assert c.err("BITOP", "OR", "d", "a", "l") == WRONGTYPE
    assert c.err("BITOP", "AND", "d") == arity("bitop")
    assert c("EXISTS", "d") == 0


# --- BITFIELD ------------------------------------------------------------

def test_bitfield_get_set(c):
    assert c("BITFIELD", "k", "SET", "i8", "0", "100", "GET", "i8", "0", "GET", "u4", "0", "GET", "u4", "4") == [
        0, 100, 6, 4]
    assert c("GET", "k") == b"d"
    assert c("BITFIELD", "k", "set", "u8", "#1", "255", "get", "u8", "8", "get", "u8", "#1") == [0, 255, 255]
    assert c("BITFIELD", "k", "SET", "i64", "0", "-1", "GET", "i64", "0", "GET", "u63", "0", "GET", "u1", "0") == [
        int.from_bytes(b"d\xff" + bytes(6), "big"), -1, 9223372036854775807, 1]
    assert c("BITFIELD", "k", "SET", "i5", "100", "7", "GET", "u5", "100", "GET", "i5", "100") == [0, 7, 7]
    assert c("BITFIELD", "k") == []


def test_bitfield_on_missing_key(c):
    assert c("BITFIELD", "nokey", "GET", "u8", "0", "GET", "i16", "100") == [0, 0]
    assert c("EXISTS", "nokey") == 0
    assert c("BITFIELD_RO", "nokey", "GET", "u8", "0") == [0]
    assert c("BITFIELD", "new", "SET", "u8", "#2", "65") == [0]
    assert c("GET", "new") == b"\x00\x00A"


def test_bitfield_overflow_wrap(c):
    c("BITFIELD", "k", "SET", "i8", "0", "100")
    assert c("BITFIELD", "k", "INCRBY", "i8", "0", "100") == [-56]
    assert c("BITFIELD", "k", "OVERFLOW", "WRAP", "INCRBY", "i8", "0", "-100") == [100]
    c("BITFIELD", "k", "SET", "u8", "#1", "250")
    assert c("BITFIELD", "k", "INCRBY", "u8", "#1", "10") == [4]
    assert c("BITFIELD", "k", "SET", "u8", "#1", "256", "GET", "u8", "#1") == [4, 0]
    assert c("BITFIELD", "k", "SET", "i5", "100", "7", "INCRBY", "i5", "100", "10") == [0, -15]


def test_bitfield_overflow_sat(c):
    c("BITFIELD", "k", "SET", "i8", "0", "100")
    assert c("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "100") == [127]
    assert c("BITFIELD", "k", "OVERFLOW", "sat", "INCRBY", "i8", "0", "-300") == [-128]
    c("BITFIELD", "k", "SET", "u8", "#1", "250")
    assert c("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u8", "#1", "10",
             "OVERFLOW", "WRAP", "INCRBY", "u8", "#1", "10") == [255, 9]
    assert c("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u8", "#1", "-300") == [0]
    assert c("BITFIELD", "k", "OVERFLOW", "SAT", "SET", "u8", "#1", "256", "GET", "u8", "#1") == [0, 255]
    assert c("BITFIELD", "k", "OVERFLOW", "SAT", "SET", "i8", "0", "-200", "GET", "i8", "0") == [-128, -128]
    assert c("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "i5", "100", "100",
             "INCRBY", "i5", "100", "-100") == [15, -16]


def test_bitfield_overflow_fail(c):
    c("BITFIELD", "k", "SET", "i8", "0", "44")
    assert c("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "100", "GET", "i8", "0") == [None, 44]
    c("BITFIELD", "k", "SET", "u8", "#1", "9")
    assert c("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "#1", "-250",
             "INCRBY", "u8", "#1", "-5", "INCRBY", "u8", "#1", "-5") == [None, 4, None]
    assert c("BITFIELD", "k", "OVERFLOW", "FAIL", "SET", "u8", "#1", "256", "GET", "u8", "#1") == [None, 4]
    # The failed write still creates the key (as zeros).
    assert c("BITFIELD", "nokey", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "10") == [None]
    assert c("GET", "nokey") == b"\x00"


def test_bitfield_errors(c):
    c("SET", "k", "x")
    for bad_type in ("u64", "i65", "i0", "u0", "x8", "8", "i"):
        assert c.err("BITFIELD", "k", "GET", bad_type, "0") == BAD_TYPE, bad_type
    assert c("BITFIELD", "k", "GET", "u63", "0", "GET", "i64", "0") == [0x78 << 55, 0x78 << 56]
    for bad_offset in ("-1", "x", "#x", "#-1", "4294967296"):
        assert c.err("BITFIELD", "k", "GET", "u8", bad_offset) == BAD_OFFSET, bad_offset
    assert c.err("BITFIELD", "k", "SET", "u8", "0", "x") == NOT_INT
    assert c.err("BITFIELD", "k", "INCRBY", "u8", "0", "x") == NOT_INT
    assert c.err("BITFIELD", "k", "OVERFLOW", "FOO", "GET", "u8", "0") == "ERR Invalid OVERFLOW type specified"
    assert c.err("BITFIELD", "k", "FOO") == "ERR syntax error"
    assert c.err("BITFIELD", "k", "GET", "u8") == "ERR syntax error"
    assert c.err("BITFIELD", "k", "SET", "u8", "0") == "ERR syntax error"
    assert c.err("BITFIELD") == arity("bitfield")
    # A bad operation anywhere means nothing runs.
    assert c.err("BITFIELD", "k", "SET", "u8", "0", "0", "GET", "u64", "0") == BAD_TYPE
    assert c("GET", "k") == b"x"


def test_bitfield_ro(c):
    c("SET", "k", b"\xff\x01")
    assert c("BITFIELD_RO", "k", "GET", "u8", "0", "GET", "i8", "0", "GET", "u16", "0") == [255, -1, 65281]
    assert c("BITFIELD_RO", "k", "GET", "u4", "#3") == [1]
    assert c("BITFIELD_RO", "k") == []
    assert c.err("BITFIELD_RO", "k", "SET", "u8", "0", "1") == "ERR BITFIELD_RO only supports the GET subcommand"
    assert c.err("BITFIELD_RO", "k", "INCRBY", "u8", "0", "1") == "ERR BITFIELD_RO only supports the GET subcommand"
    assert c.err("BITFIELD_RO", "k", "GET", "u64", "0") == BAD_TYPE
    assert c.err("BITFIELD_RO") == arity("bitfield_ro")
    assert c("GET", "k") == b"\xff\x01"


# --- WRONGTYPE -----------------------------------------------------------

def test_wrongtype(c):
    c("LPUSH", "l", "x")
    for cmd in (("SETBIT", "l", "0", "1"), ("GETBIT", "l", "0"), ("BITCOUNT", "l"),
                ("BITCOUNT", "l", "0", "1"), ("BITPOS", "l", "1"), ("BITOP", "NOT", "d", "l"),
                ("BITFIELD", "l", "GET", "u8", "0"), ("BITFIELD_RO", "l", "GET", "u8", "0")):
        assert c.err(*cmd) == WRONGTYPE, cmd
