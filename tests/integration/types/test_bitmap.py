"""Integration tests for the bitmap commands, checked against Redis 7.0.15.

SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO, with exact replies
and error texts through datatype_client.py. Offsets are bounded
by proto-max-bulk-len, lowered here to its 1mb minimum so the bound can be
reached without building a 512MB string.
"""
from datatype_client import WRONGTYPE, arity

BAD_OFFSET = "ERR bit offset is not an integer or out of range"
BAD_TYPE = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
NOT_INT = "ERR value is not an integer or out of range"


# --- SETBIT / GETBIT -----------------------------------------------------

def test_setbit_getbit(dc):
    assert dc("SETBIT", "b", "7", "1") == 0
    assert dc("GET", "b") == b"\x01"
    assert dc("SETBIT", "b", "7", "1") == 1
    assert dc("SETBIT", "b", "0", "1") == 0
    assert dc("GET", "b") == b"\x81"
    assert dc("SETBIT", "b", "7", "0") == 1
    assert dc("GET", "b") == b"\x80"
    assert dc("GETBIT", "b", "0") == 1
    assert dc("GETBIT", "b", "1") == 0
    assert dc("GETBIT", "b", "100000") == 0
    assert dc("GETBIT", "nokey", "0") == 0
    assert dc("EXISTS", "nokey") == 0


def test_setbit_grows_with_zero_bytes(dc):
    dc("SET", "s", "a")
    assert dc("SETBIT", "s", "23", "1") == 0
    assert dc("GET", "s") == b"a\x00\x01"
    assert dc("SETBIT", "n", "15", "0") == 0
    assert dc("GET", "n") == b"\x00\x00"


def test_setbit_on_integer_encoded_string(dc):
    dc("SET", "i", "1")  # 0x31
    assert dc("GETBIT", "i", "7") == 1
    assert dc("SETBIT", "i", "6", "1") == 0
    assert dc("GET", "i") == b"3"


def test_setbit_getbit_errors(dc):
    assert dc.err("SETBIT", "b", "7", "2") == "ERR bit is not an integer or out of range"
    assert dc.err("SETBIT", "b", "7", "x") == "ERR bit is not an integer or out of range"
    assert dc.err("SETBIT", "b", "-1", "1") == BAD_OFFSET
    assert dc.err("SETBIT", "b", "x", "1") == BAD_OFFSET
    assert dc.err("GETBIT", "b", "-1") == BAD_OFFSET
    assert dc.err("GETBIT", "b", "x") == BAD_OFFSET
    assert dc.err("SETBIT", "b", "4294967296", "1") == BAD_OFFSET
    assert dc.err("GETBIT", "b", "4294967296") == BAD_OFFSET
    assert dc.err("SETBIT", "b", "1") == arity("setbit")
    assert dc.err("GETBIT", "b") == arity("getbit")
    assert dc("EXISTS", "b") == 0


def test_offsets_bounded_by_proto_max_bulk_len(dc):
    assert dc("CONFIG", "GET", "proto-max-bulk-len") == [b"proto-max-bulk-len", b"536870912"]
    assert dc("CONFIG", "SET", "proto-max-bulk-len", "1mb") == "OK"
    assert dc("SETBIT", "big", "8388607", "1") == 0
    assert dc("STRLEN", "big") == 1048576
    assert dc.err("SETBIT", "big", "8388608", "1") == BAD_OFFSET
    assert dc.err("GETBIT", "big", "8388608") == BAD_OFFSET
    assert dc("GETBIT", "big", "8388607") == 1
    assert dc("BITFIELD", "big", "SET", "u8", "#1048575", "2") == [1]
    assert dc.err("BITFIELD", "big", "SET", "u8", "#1048576", "1") == BAD_OFFSET
    assert dc.err("BITFIELD", "big", "GET", "u8", "8388608") == BAD_OFFSET
    assert dc("STRLEN", "big") == 1048576


# --- BITCOUNT ------------------------------------------------------------

def test_bitcount(dc):
    dc("SET", "s", "foobar")
    assert dc("BITCOUNT", "s") == 26
    assert dc("BITCOUNT", "s", "0", "0") == 4
    assert dc("BITCOUNT", "s", "1", "1") == 6
    assert dc("BITCOUNT", "s", "1", "1", "BYTE") == 6
    assert dc("BITCOUNT", "s", "-2", "-1") == 7
    assert dc("BITCOUNT", "s", "-100", "-1") == 26
    assert dc("BITCOUNT", "s", "0", "100") == 26
    assert dc("BITCOUNT", "s", "2", "1") == 0
    # A negative end beyond the start is clamped to the first byte.
    assert dc("BITCOUNT", "s", "0", "-100") == 4
    assert dc("BITCOUNT", "nokey") == 0
    assert dc("BITCOUNT", "nokey", "0", "1") == 0


def test_bitcount_bit_ranges(dc):
    dc("SET", "s", "foobar")
    assert dc("BITCOUNT", "s", "5", "30", "BIT") == 17
    assert dc("BITCOUNT", "s", "-2", "-1", "BIT") == 1
    assert dc("BITCOUNT", "s", "0", "-1", "bit") == 26
    assert dc("BITCOUNT", "s", "1", "1", "BIT") == 1  # 'f' = 01100110
    assert dc("BITCOUNT", "s", "0", "0", "BIT") == 0
    assert dc("BITCOUNT", "s", "40", "47", "BIT") == dc("BITCOUNT", "s", "5", "5")


def test_bitcount_errors(dc):
    dc("SET", "s", "foobar")
    assert dc.err("BITCOUNT", "s", "0") == "ERR syntax error"
    assert dc.err("BITCOUNT", "s", "0", "1", "FOO") == "ERR syntax error"
    assert dc.err("BITCOUNT", "s", "0", "-1", "BIT", "x") == "ERR syntax error"
    assert dc.err("BITCOUNT", "s", "x", "1") == NOT_INT
    assert dc.err("BITCOUNT") == arity("bitcount")


# --- BITPOS --------------------------------------------------------------

def test_bitpos(dc):
    dc("SET", "s", "foobar")
    assert dc("BITPOS", "s", "0") == 0
    assert dc("BITPOS", "s", "1") == 1
    assert dc("BITPOS", "s", "1", "2") == 17
    assert dc("BITPOS", "s", "1", "2", "-1") == 17
    assert dc("BITPOS", "s", "1", "2", "-1", "BYTE") == 17
    assert dc("BITPOS", "s", "1", "7", "15", "BIT") == 9
    assert dc("BITPOS", "s", "0", "0", "-1", "BIT") == 0
    assert dc("BITPOS", "s", "1", "2", "1") == -1


def test_bitpos_not_found(dc):
    dc("SET", "ones", b"\xff\xff")
    # Looking for 0 in all-ones: with no end given the string counts as padded
    # with zeros, so the answer is just past it; with an explicit end, -1.
    assert dc("BITPOS", "ones", "0") == 16
    assert dc("BITPOS", "ones", "0", "0") == 16
    assert dc("BITPOS", "ones", "0", "1") == 16
    assert dc("BITPOS", "ones", "0", "0", "-1") == -1
    assert dc("BITPOS", "ones", "0", "0", "-1", "BIT") == -1
    assert dc("BITPOS", "ones", "0", "2") == -1
    assert dc("BITPOS", "ones", "1", "2") == -1
    assert dc("BITPOS", "ones", "1", "3", "2", "BIT") == -1
    dc("SET", "zeros", b"\x00\x00")
    assert dc("BITPOS", "zeros", "1") == -1
    assert dc("BITPOS", "zeros", "1", "0", "-1", "BIT") == -1
    assert dc("BITPOS", "zeros", "0", "1") == 8
    assert dc("BITPOS", "nokey", "0") == 0
    assert dc("BITPOS", "nokey", "1") == -1


def test_bitpos_errors(dc):
    dc("SET", "s", "foobar")
    assert dc.err("BITPOS", "s", "2") == "ERR The bit argument must be 1 or 0."
    assert dc.err("BITPOS", "s", "x") == NOT_INT
    assert dc.err("BITPOS", "s", "1", "x") == NOT_INT
    assert dc.err("BITPOS", "s", "1", "0", "-1", "FOO") == "ERR syntax error"
    assert dc.err("BITPOS", "s", "1", "0", "-1", "BIT", "x") == "ERR syntax error"
    assert dc.err("BITPOS", "s") == arity("bitpos")


# --- BITOP ---------------------------------------------------------------

def test_bitop(dc):
    dc("SET", "a", b"\xf0\x0f")
    dc("SET", "b", b"\xff")
    for op, expected in (("AND", b"\xf0\x00"), ("OR", b"\xff\x0f"), ("XOR", b"\x0f\x0f")):
        assert dc("BITOP", op, "d", "a", "b") == 2
        assert dc("GET", "d") == expected, op
    assert dc("BITOP", "NOT", "d", "a") == 2
    assert dc("GET", "d") == b"\x0f\xf0"
    assert dc("BITOP", "or", "d", "a", "nokey") == 2
    assert dc("GET", "d") == b"\xf0\x0f"
    assert dc("BITOP", "and", "d", "a", "nokey") == 2
    assert dc("GET", "d") == b"\x00\x00"
    assert dc("BITOP", "AND", "d", "a") == 2
    assert dc("GET", "d") == b"\xf0\x0f"
    # The destination may be a source.
    assert dc("BITOP", "XOR", "a", "a", "b") == 2
    assert dc("GET", "a") == b"\x0f\x0f"


def test_bitop_empty_result_deletes_destination(dc):
    dc("SET", "d", "x")
    assert dc("BITOP", "OR", "d", "nokey") == 0
    assert dc("EXISTS", "d") == 0
    dc("LPUSH", "d", "x")
    assert dc("BITOP", "AND", "d", "nokey", "nokey2") == 0
    assert dc("EXISTS", "d") == 0
    assert dc("BITOP", "NOT", "d", "nokey") == 0
    assert dc("EXISTS", "d") == 0


def test_bitop_errors(dc):
    dc("SET", "a", "x")
    dc("LPUSH", "l", "x")
    assert dc.err("BITOP", "NOT", "d", "a", "b") == "ERR BITOP NOT must be called with a single source key."
    assert dc.err("BITOP", "FOO", "d", "a") == "ERR syntax error"
    assert dc.err("BITOP", "OR", "d", "a", "l") == WRONGTYPE
    assert dc.err("BITOP", "AND", "d") == arity("bitop")
    assert dc("EXISTS", "d") == 0


# --- BITFIELD ------------------------------------------------------------

def test_bitfield_get_set(dc):
    assert dc("BITFIELD", "k", "SET", "i8", "0", "100", "GET", "i8", "0", "GET", "u4", "0", "GET", "u4", "4") == [
        0, 100, 6, 4]
    assert dc("GET", "k") == b"d"
    assert dc("BITFIELD", "k", "set", "u8", "#1", "255", "get", "u8", "8", "get", "u8", "#1") == [0, 255, 255]
    assert dc("BITFIELD", "k", "SET", "i64", "0", "-1", "GET", "i64", "0", "GET", "u63", "0", "GET", "u1", "0") == [
        int.from_bytes(b"d\xff" + bytes(6), "big"), -1, 9223372036854775807, 1]
    assert dc("BITFIELD", "k", "SET", "i5", "100", "7", "GET", "u5", "100", "GET", "i5", "100") == [0, 7, 7]
    assert dc("BITFIELD", "k") == []


def test_bitfield_on_missing_key(dc):
    assert dc("BITFIELD", "nokey", "GET", "u8", "0", "GET", "i16", "100") == [0, 0]
    assert dc("EXISTS", "nokey") == 0
    assert dc("BITFIELD_RO", "nokey", "GET", "u8", "0") == [0]
    assert dc("BITFIELD", "new", "SET", "u8", "#2", "65") == [0]
    assert dc("GET", "new") == b"\x00\x00A"


def test_bitfield_overflow_wrap(dc):
    dc("BITFIELD", "k", "SET", "i8", "0", "100")
    assert dc("BITFIELD", "k", "INCRBY", "i8", "0", "100") == [-56]
    assert dc("BITFIELD", "k", "OVERFLOW", "WRAP", "INCRBY", "i8", "0", "-100") == [100]
    dc("BITFIELD", "k", "SET", "u8", "#1", "250")
    assert dc("BITFIELD", "k", "INCRBY", "u8", "#1", "10") == [4]
    assert dc("BITFIELD", "k", "SET", "u8", "#1", "256", "GET", "u8", "#1") == [4, 0]
    assert dc("BITFIELD", "k", "SET", "i5", "100", "7", "INCRBY", "i5", "100", "10") == [0, -15]


def test_bitfield_overflow_sat(dc):
    dc("BITFIELD", "k", "SET", "i8", "0", "100")
    assert dc("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "100") == [127]
    assert dc("BITFIELD", "k", "OVERFLOW", "sat", "INCRBY", "i8", "0", "-300") == [-128]
    dc("BITFIELD", "k", "SET", "u8", "#1", "250")
    assert dc("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u8", "#1", "10",
             "OVERFLOW", "WRAP", "INCRBY", "u8", "#1", "10") == [255, 9]
    assert dc("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u8", "#1", "-300") == [0]
    assert dc("BITFIELD", "k", "OVERFLOW", "SAT", "SET", "u8", "#1", "256", "GET", "u8", "#1") == [0, 255]
    assert dc("BITFIELD", "k", "OVERFLOW", "SAT", "SET", "i8", "0", "-200", "GET", "i8", "0") == [-128, -128]
    assert dc("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "i5", "100", "100",
             "INCRBY", "i5", "100", "-100") == [15, -16]


def test_bitfield_overflow_fail(dc):
    dc("BITFIELD", "k", "SET", "i8", "0", "44")
    assert dc("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "100", "GET", "i8", "0") == [None, 44]
    dc("BITFIELD", "k", "SET", "u8", "#1", "9")
    assert dc("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "#1", "-250",
             "INCRBY", "u8", "#1", "-5", "INCRBY", "u8", "#1", "-5") == [None, 4, None]
    assert dc("BITFIELD", "k", "OVERFLOW", "FAIL", "SET", "u8", "#1", "256", "GET", "u8", "#1") == [None, 4]
    # The failed write still creates the key (as zeros).
    assert dc("BITFIELD", "nokey", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "10") == [None]
    assert dc("GET", "nokey") == b"\x00"


def test_bitfield_errors(dc):
    dc("SET", "k", "x")
    for bad_type in ("u64", "i65", "i0", "u0", "x8", "8", "i"):
        assert dc.err("BITFIELD", "k", "GET", bad_type, "0") == BAD_TYPE, bad_type
    assert dc("BITFIELD", "k", "GET", "u63", "0", "GET", "i64", "0") == [0x78 << 55, 0x78 << 56]
    for bad_offset in ("-1", "x", "#x", "#-1", "4294967296"):
        assert dc.err("BITFIELD", "k", "GET", "u8", bad_offset) == BAD_OFFSET, bad_offset
    assert dc.err("BITFIELD", "k", "SET", "u8", "0", "x") == NOT_INT
    assert dc.err("BITFIELD", "k", "INCRBY", "u8", "0", "x") == NOT_INT
    assert dc.err("BITFIELD", "k", "OVERFLOW", "FOO", "GET", "u8", "0") == "ERR Invalid OVERFLOW type specified"
    assert dc.err("BITFIELD", "k", "FOO") == "ERR syntax error"
    assert dc.err("BITFIELD", "k", "GET", "u8") == "ERR syntax error"
    assert dc.err("BITFIELD", "k", "SET", "u8", "0") == "ERR syntax error"
    assert dc.err("BITFIELD") == arity("bitfield")
    # A bad operation anywhere means nothing runs.
    assert dc.err("BITFIELD", "k", "SET", "u8", "0", "0", "GET", "u64", "0") == BAD_TYPE
    assert dc("GET", "k") == b"x"


def test_bitfield_ro(dc):
    dc("SET", "k", b"\xff\x01")
    assert dc("BITFIELD_RO", "k", "GET", "u8", "0", "GET", "i8", "0", "GET", "u16", "0") == [255, -1, 65281]
    assert dc("BITFIELD_RO", "k", "GET", "u4", "#3") == [1]
    assert dc("BITFIELD_RO", "k") == []
    assert dc.err("BITFIELD_RO", "k", "SET", "u8", "0", "1") == "ERR BITFIELD_RO only supports the GET subcommand"
    assert dc.err("BITFIELD_RO", "k", "INCRBY", "u8", "0", "1") == "ERR BITFIELD_RO only supports the GET subcommand"
    assert dc.err("BITFIELD_RO", "k", "GET", "u64", "0") == BAD_TYPE
    assert dc.err("BITFIELD_RO") == arity("bitfield_ro")
    assert dc("GET", "k") == b"\xff\x01"


# --- WRONGTYPE -----------------------------------------------------------

def test_wrongtype(dc):
    dc("LPUSH", "l", "x")
    for cmd in (("SETBIT", "l", "0", "1"), ("GETBIT", "l", "0"), ("BITCOUNT", "l"),
                ("BITCOUNT", "l", "0", "1"), ("BITPOS", "l", "1"), ("BITOP", "NOT", "d", "l"),
                ("BITFIELD", "l", "GET", "u8", "0"), ("BITFIELD_RO", "l", "GET", "u8", "0")):
        assert dc.err(*cmd) == WRONGTYPE, cmd
