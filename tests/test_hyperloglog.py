"""Integration tests for the HyperLogLog commands, checked against Redis 7.0.15.

An HLL is a string whose bytes must be exactly the reference's for the same
inserts (so DUMP/RESTORE and RDB files exchange them): the expected values and
digests below were captured from Debian's redis-server 7.0.15. Header: "HYLL",
encoding byte (1 sparse, 0 dense), 3 unused bytes, 8-byte little-endian cached
cardinality whose top bit marks it stale.
"""
import hashlib
import random
import time

from datatype_client import NULL_ARRAY, WRONGTYPE, arity, c, connect  # noqa: F401

NOT_HLL = "WRONGTYPE Key is not a valid HyperLogLog string value."
INVALID = "INVALIDOBJ Corrupted HLL object detected"
STALE_HEADER = b"HYLL\x01\x00\x00\x00" + b"\x00" * 7 + b"\x80"
EMPTY_HLL_STALE = STALE_HEADER + b"\x7f\xff"  # one XZERO run over all 16384 registers
DENSE_SIZE = 16 + 16384 * 6 // 8


def sha(b):
    return hashlib.sha256(b).hexdigest()


def items(prefix, start, stop):
    return ["%s:%d" % (prefix, i) for i in range(start, stop)]


def changes(c):
    for line in c("INFO", "persistence").decode().splitlines():
        if line.startswith("rdb_changes_since_last_save:"):
            return int(line.split(":")[1])
    raise AssertionError("no rdb_changes_since_last_save")


# --- PFADD / PFCOUNT and the exact bytes --------------------------------

def test_pfadd_sparse_bytes_and_cached_cardinality(c):
    assert c("PFADD", "h", "a", "b", "c") == 1
    # Three VAL opcodes between XZERO runs; the cache is marked stale.
    assert c("GET", "h") == STALE_HEADER + b"`\xf3\x80P\xb1\x84K\xfb\x80BZ"
    assert c("PFDEBUG", "DECODE", "h") == b"Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"
    assert c("PFDEBUG", "ENCODING", "h") == "sparse"
    assert c("PFCOUNT", "h") == 3
    # PFCOUNT stored the cardinality (3, cache valid) in the header.
    assert c("GET", "h")[:16] == b"HYLL\x01\x00\x00\x00\x03" + b"\x00" * 7
    assert c("PFCOUNT", "h") == 3
    # Nothing changes: the cache stays valid and PFADD says 0.
    assert c("PFADD", "h", "a", "c") == 0
    assert c("PFADD", "h") == 0
    assert c("GET", "h")[15] == 0
    assert c("PFADD", "h", "d") == 1
    assert c("GET", "h")[15] == 0x80
    assert c("PFCOUNT", "h") == 4


def test_pfadd_without_elements_creates_the_key(c):
    assert c("PFADD", "e") == 1
    assert c("GET", "e") == EMPTY_HLL_STALE
    assert c("PFADD", "e") == 0
    assert c("PFCOUNT", "e") == 0
    assert c("GET", "e") == STALE_HEADER[:15] + b"\x00" + b"\x7f\xff"
    assert c("PFCOUNT", "nokey") == 0
    assert c("EXISTS", "nokey") == 0


def test_sparse_bytes_after_100_adds(c):
    c("PFADD", "s", *items("item", 0, 100))
    v = c("GET", "s")
    assert len(v) == 277
    assert v[:40].hex() == ("48594c4c01000000000000000000008040ed80407688421e"
                            "8040ce8432843d80406a80406f84038c")
    assert sha(v) == "8176ff593bf4a6206392e83b04f3ffa2c2ab074604da93b0e2b9400549fa5744"
    assert c("PFCOUNT", "s") == 99
    assert sha(c("GET", "s")) == "7b1c93e7f0e1b98470ed7378c743bdabdf5a36120d07c9835b380c98dae9f217"
    # DUMP carries the same bytes, so the payload is the reference's too.
    dump = c("DUMP", "s")
    assert sha(dump) == "575375fe2b731f1930b6bc93aaf288c04eddffbfd73902ac15b59e8830956f98"
    c("RESTORE", "copy", 0, dump)
    assert c("GET", "copy") == c("GET", "s")
    assert c("PFCOUNT", "copy") == 99


def test_promotion_to_dense_at_default_threshold(c):
    assert c("CONFIG", "GET", "hll-sparse-max-bytes") == [b"hll-sparse-max-bytes", b"3000"]
    n = 0
    while True:
        c("PFADD", "d", "item:%d" % n)
        n += 1
        v = c("GET", "d")
        if v[4] == 0:
            break
        last = v
    # The add that would take the sparse string past 3000 bytes promotes it.
    assert n == 1671
    assert len(last) == 2999
    assert sha(last) == "413c0eca924ab3e350962c90997586875c85526ee1918ae30c927fc1acc0cafc"
    assert len(v) == DENSE_SIZE
    assert v[:20].hex() == "48594c4c000000000000000000000080c0000000"
    assert sha(v) == "fbb6a173d9e82afa1ee895451e75391b38690507d8b516ce422a3325abf52489"
    assert c("PFDEBUG", "ENCODING", "d") == "dense"
    c("PFADD", "d", *items("item", n, 5000))
    assert sha(c("GET", "d")) == "cc8464d4e5b440c892d2a8fc93f207344a99c691444fa52f57bf6f2d27b9f467"
    assert c("PFCOUNT", "d") == 5052
    assert sha(c("GET", "d")) == "ab7538099c5674b673c978895464f90d4a59e32819708e2cfefada99edb67d8e"
    assert sha(c("DUMP", "d")) == "ce2dd8374f77d9ee2e55a0ae9beb0ec6d51a473dc6543aec0768ed294e8da896"
    assert c.err("PFDEBUG", "DECODE", "d") == "ERR HLL encoding is not sparse"


def test_promotion_follows_hll_sparse_max_bytes(c):
    assert c("CONFIG", "SET", "hll-sparse-max-bytes", 40) == "OK"
    expected = [
        "48594c4c0100000000000000000000807c44a043b9",
        "48594c4c0100000000000000000000806f79904cc9a043b9",
        "48594c4c0100000000000000000000805c2c80534b904cc9a043b9",
        "48594c4c010000000000000000000080516f904abb80534b904cc9a043b9",
        "48594c4c010000000000000000000080516f904abb80534b9049bd84430aa043b9",
        "48594c4c010000000000000000000080516f904abb80534b90497d803e84430aa043b9",
        "48594c4c010000000000000000000080516f904abb8051468c420390497d803e84430aa043b9",
    ]
    for i, hexval in enumerate(expected):
        c("PFADD", "t", "el%d" % i)
        assert c("GET", "t").hex() == hexval
    c("PFADD", "t", "el7")
    v = c("GET", "t")
    assert len(v) == DENSE_SIZE
    assert sha(v) == "03a0bec775ef776b575c4e688c40bfaaa00171ea252c0efc2d367087f7a5f17e"


def test_hll_sparse_max_bytes_config(c):
    assert c("CONFIG", "SET", "hll-sparse-max-bytes", "3kb") == "OK"
    assert c("CONFIG", "GET", "hll-sparse-max-bytes") == [b"hll-sparse-max-bytes", b"3072"]
    assert c.err("CONFIG", "SET", "hll-sparse-max-bytes", "-1") == (
        "ERR CONFIG SET failed (possibly related to argument 'hll-sparse-max-bytes') - "
        "argument must be a memory value")
    # 0: every add that grows the string promotes at once.
    c("CONFIG", "SET", "hll-sparse-max-bytes", 0)
    c("PFADD", "z")
    assert c("PFDEBUG", "ENCODING", "z") == "sparse"
    c("PFADD", "z", "x")
    assert c("PFDEBUG", "ENCODING", "z") == "dense"


def test_cardinality_accuracy_100k(c):
    for i in range(0, 100000, 5000):
        c("PFADD", "big", *items("element", i, i + 5000))
    card = c("PFCOUNT", "big")
    # Standard error 0.81%: stay within 3 of them; the estimate is deterministic.
    assert abs(card - 100000) / 100000 < 3 * 0.0081
    assert card == 100039
    c("PFADD", "big2", *items("other", 0, 50000))
    assert c("PFCOUNT", "big2") == 49324
    assert c("PFCOUNT", "big", "big2") == 148453


def test_pfcount_of_several_keys_modifies_none(c):
    c("PFADD", "a", *items("a", 0, 50))
    c("PFADD", "b", *items("b", 0, 3000))
    c("PFADD", "ab", *items("a", 0, 50), *items("b", 0, 3000))
    before = {k: c("GET", k) for k in ("a", "b")}
    assert before["a"][15] == 0x80 and before["b"][15] == 0x80
    union = c("PFCOUNT", "ab")
    dirty = changes(c)
    assert c("PFCOUNT", "a", "b", "missing") == union
    assert {k: c("GET", k) for k in ("a", "b")} == before
    assert c("EXISTS", "missing") == 0
    assert changes(c) == dirty
    assert c("PFCOUNT", "missing1", "missing2") == 0


def test_pfadd_and_pfcount_count_writes_like_redis(c):
    dirty = changes(c)
    c("PFADD", "k", "x", "y", "z")
    assert changes(c) == dirty + 4  # the creation and each changed register
    c("PFCOUNT", "k")
    assert changes(c) == dirty + 5  # refreshing the cache is a write
    c("PFCOUNT", "k")
    c("PFADD", "k", "x")
    assert changes(c) == dirty + 5


# --- PFMERGE ---------------------------------------------------------------

def test_pfmerge_sparse_and_dense(c):
    c("PFADD", "s", *items("item", 0, 100))
    c("PFADD", "d", *items("item", 0, 5000))
    assert c("PFDEBUG", "ENCODING", "d") == "dense"
    assert c("PFMERGE", "m", "s", "d") == "OK"
    assert c("PFDEBUG", "ENCODING", "m") == "dense"
    assert sha(c("GET", "m")) == "cc8464d4e5b440c892d2a8fc93f207344a99c691444fa52f57bf6f2d27b9f467"
    assert c("PFCOUNT", "m") == 5052
    # Sparse sources only: the result stays sparse.
    c("PFADD", "x", "x1", "x2", "x3")
    assert c("PFMERGE", "m2", "x", "s") == "OK"
    v = c("GET", "m2")
    assert len(v) == 286
    assert sha(v) == "3bfc0f3829dabb4e2cee681753996a330a88c7d69a13025e16c646dda80ff003"
    assert c("PFCOUNT", "m2") == 102
    # The destination is itself a source.
    c("PFADD", "acc", "x1")
    c("PFMERGE", "acc", "s")
    assert c("PFCOUNT", "acc") == c("PFCOUNT", "m2") - 2


def test_pfmerge_into_a_sparse_destination_with_a_dense_source(c):
    c("PFADD", "dst", "a", "b")
    c("PFADD", "d", *items("item", 0, 5000))
    c("PFMERGE", "dst", "d")
    assert c("PFDEBUG", "ENCODING", "dst") == "dense"
    assert c("PFCOUNT", "dst") == c("PFCOUNT", "d", "dst")
    c("PFADD", "ref", "a", "b", *items("item", 0, 5000))
    assert c("PFCOUNT", "dst") == c("PFCOUNT", "ref")


def test_pfmerge_without_sources_creates_an_empty_hll(c):
    assert c("PFMERGE", "m") == "OK"
    assert c("GET", "m") == EMPTY_HLL_STALE
    assert c("PFMERGE", "m", "nokey") == "OK"
    assert c("PFCOUNT", "m") == 0


# --- type checks and damaged values ----------------------------------------

def test_wrong_types(c):
    c("SET", "str", "hello")
    c("SET", "int", "12345")
    c("LPUSH", "lst", "a")
    c("PFADD", "h", "a")
    for key in ("str", "int"):
        assert c.err("PFADD", key, "a") == NOT_HLL
        assert c.err("PFCOUNT", key) == NOT_HLL
        assert c.err("PFCOUNT", "h", key) == NOT_HLL
        assert c.err("PFMERGE", key, "h") == NOT_HLL
        assert c.err("PFMERGE", "h", key) == NOT_HLL
        assert c.err("PFDEBUG", "ENCODING", key) == NOT_HLL
    assert c.err("PFADD", "lst", "a") == WRONGTYPE
    assert c.err("PFCOUNT", "lst") == WRONGTYPE
    assert c.err("PFCOUNT", "h", "lst") == WRONGTYPE
    assert c.err("PFMERGE", "lst", "h") == WRONGTYPE
    assert c.err("PFMERGE", "h", "lst") == WRONGTYPE
    assert c.err("PFDEBUG", "ENCODING", "lst") == WRONGTYPE
    assert c("GET", "str") == b"hello"
    # Header checks: bad magic, unknown encoding, too short, dense of the wrong size.
    c("SET", "magic", b"HYLX\x01" + b"\x00" * 11 + b"\x7f\xff")
    c("SET", "enc", b"HYLL\x02" + b"\x00" * 11 + b"\x7f\xff")
    c("SET", "short", b"HYLL\x01")
    c("SET", "dense", b"HYLL\x00" + b"\x00" * 111)
    for key in ("magic", "enc", "short", "dense"):
        assert c.err("PFADD", key, "a") == NOT_HLL
        assert c.err("PFCOUNT", key) == NOT_HLL


def test_corrupted_sparse_values(c):
    # Runs covering 16383 registers instead of 16384.
    c("SET", "c1", STALE_HEADER + b"\x7f\xfe")
    assert c.err("PFCOUNT", "c1") == INVALID
    assert c.err("PFCOUNT", "c1", "nokey") == INVALID
    assert c.err("PFMERGE", "x", "c1") == INVALID
    assert c("EXISTS", "x") == 0
    assert c.err("PFDEBUG", "TODENSE", "c1") == INVALID
    assert c.err("PFDEBUG", "GETREG", "c1") == INVALID
    assert c("PFDEBUG", "DECODE", "c1") == b"Z:16383"
    # Only registers 0..7999 covered: "a", "b" and "c" (registers 8436,
    # 12711 and 15780) find no run to update.
    c("SET", "short", STALE_HEADER + b"\x5f\x3f")
    assert c("PFDEBUG", "DECODE", "short") == b"Z:8000"
    assert c.err("PFADD", "short", "a", "b", "c") == INVALID
    assert c("GET", "short") == STALE_HEADER + b"\x5f\x3f"
    # An extra opcode past the last register.
    c("SET", "c2", STALE_HEADER + b"\x7f\xff\x80")
    assert c.err("PFCOUNT", "c2") == INVALID
    assert c("PFADD", "c2", "q") == 1
    assert c.err("PFCOUNT", "c2", "nokey") == INVALID
    # No opcodes at all.
    c("SET", "c3", STALE_HEADER)
    assert c.err("PFCOUNT", "c3") == INVALID
    assert c.err("PFADD", "c3", "a") == INVALID
    assert c("PFDEBUG", "DECODE", "c3") == b""
    # Far too many registers.
    c("SET", "c4", STALE_HEADER + b"\xff" * 5000)
    assert c.err("PFCOUNT", "c4") == INVALID
    assert c.err("PFMERGE", "c4") == INVALID
    assert c("PFADD", "c4", "a") == 0


def test_cached_cardinality_is_trusted_until_invalidated(c):
    # A valid cache of 12345 in front of an empty register set.
    c("SET", "h", b"HYLL\x01\x00\x00\x00\x39\x30" + b"\x00" * 6 + b"\x7f\xff")
    assert c("PFCOUNT", "h") == 12345
    assert c("PFCOUNT", "h", "h") == 0
    c("PFADD", "h", "a")
    assert c("PFCOUNT", "h") == 1


def test_fuzzed_values_never_crash(c):
    rng = random.Random(7)
    c("PFADD", "sparse", *items("f", 0, 200))
    c("PFADD", "dense", *items("f", 0, 3000))
    sources = {k: c("GET", k) for k in ("sparse", "dense")}
    for round_ in range(200):
        kind = "sparse" if round_ % 2 == 0 else "dense"
        value = bytearray(sources[kind])
        for _ in range(rng.randint(1, 10)):
            value[rng.randrange(16, len(value))] = rng.randrange(256)
        c("SET", "fz", bytes(value))
        for cmd in (("PFCOUNT", "fz"), ("PFADD", "fz", "x%d" % round_), ("PFCOUNT", "fz", "sparse"),
                    ("PFMERGE", "out", "fz"), ("PFDEBUG", "DECODE", "fz")):
            c.send(*cmd)
            c.read()
    assert c("PING") == "PONG"


# --- PFDEBUG / PFSELFTEST ----------------------------------------------------

def test_pfdebug(c):
    c("PFADD", "h", "a", "b", "c")
    regs = c("PFDEBUG", "GETREG", "h")
    assert len(regs) == 16384
    assert [(i, v) for i, v in enumerate(regs) if v] == [(8436, 1), (12711, 2), (15780, 1)]
    # GETREG leaves the value dense.
    assert c("PFDEBUG", "ENCODING", "h") == "dense"
    assert c("GET", "h")[:20].hex() == "48594c4c00000000000000000000008000000000"
    assert c("PFCOUNT", "h") == 3
    c("PFADD", "s", "a")
    assert c("PFDEBUG", "TODENSE", "s") == 1
    assert c("PFDEBUG", "TODENSE", "s") == 0
    assert c("PFDEBUG", "todense", "s") == 0
    assert c.err("PFDEBUG", "FOO", "s") == "ERR Unknown PFDEBUG subcommand 'FOO'"
    assert c.err("PFDEBUG", "FOO", "nokey") == "ERR The specified key does not exist"
    assert c.err("PFDEBUG", "GETREG", "nokey") == "ERR The specified key does not exist"
    assert c.err("PFDEBUG", "DECODE", "s", "x") == arity("pfdebug")
    assert c.err("PFADD") == arity("pfadd")
    assert c.err("PFCOUNT") == arity("pfcount")
    assert c.err("PFMERGE") == arity("pfmerge")


def test_pfselftest(c):
    assert c("PFSELFTEST") == "OK"


# --- keyspace events, WATCH ---------------------------------------------------

def test_keyspace_events(server, c):
    c("CONFIG", "SET", "notify-keyspace-events", "KEA")
    r = server.client()
    p = r.pubsub()
    p.psubscribe("__key*__:*")
    assert p.get_message(timeout=2)["type"] == "psubscribe"
    c("PFADD", "h", "a")
    c("PFADD", "h", "a")        # no change: no event
    c("PFADD", "e")             # creation without elements
    c("PFCOUNT", "h")           # cache refresh: no event
    c("PFCOUNT", "h", "e")
    c("PFMERGE", "m", "h")      # a merge is reported as pfadd
    c("PFMERGE", "h", "e")
    c("PFDEBUG", "TODENSE", "h")
    c("PFMERGE", "m2")
    c("SET", "done", "1")
    got = []
    deadline = time.time() + 5
    while time.time() < deadline:
        m = p.get_message(timeout=0.5)
        if m is None:
            continue
        got.append((m["channel"], m["data"]))
        if m["channel"] == b"__keyevent@0__:set":
            break
    p.close()
    r.close()
    expected = []
    for key in (b"h", b"e", b"m", b"h", b"m2"):
        expected += [(b"__keyspace@0__:" + key, b"pfadd"), (b"__keyevent@0__:pfadd", key)]
    expected += [(b"__keyspace@0__:done", b"set"), (b"__keyevent@0__:set", b"done")]
    assert got == expected


def test_keymiss_and_new_events(server, c):
    c("CONFIG", "SET", "notify-keyspace-events", "KEAnm")
    r = server.client()
    p = r.pubsub()
    p.psubscribe("__keyevent*__:*")
    assert p.get_message(timeout=2)["type"] == "psubscribe"
    c("PFADD", "h", "a")
    c("PFCOUNT", "nokey")
    c("PFCOUNT", "n1", "h")
    c("PFMERGE", "m", "nk")     # the destination is read first: keymiss, then new
    c("PFMERGE", "h", "nk2")
    c("SET", "done", "1")
    got = []
    deadline = time.time() + 5
    while time.time() < deadline:
        m = p.get_message(timeout=0.5)
        if m is None:
            continue
        got.append((m["channel"].decode()[len("__keyevent@0__:"):], m["data"].decode()))
        if got[-1] == ("set", "done"):
            break
    p.close()
    r.close()
    assert got == [("new", "h"), ("pfadd", "h"), ("keymiss", "nokey"), ("keymiss", "n1"),
                   ("keymiss", "m"), ("keymiss", "nk"), ("new", "m"), ("pfadd", "m"),
                   ("keymiss", "nk2"), ("pfadd", "h"), ("new", "done"), ("set", "done")]


def test_aof_replay_and_rdb_keep_the_bytes(server_factory, tmp_path):
    args = ("--dir", str(tmp_path), "--appendonly", "yes")
    first = server_factory(*args)
    r = first.client()
    r.pfadd("s", *items("item", 0, 100))
    r.pfcount("s")                  # the cache refresh is propagated too
    r.pfadd("d", *items("item", 0, 200))
    r.execute_command("PFDEBUG", "TODENSE", "d")
    r.pfmerge("m", "s", "d")
    r.pfadd("e")
    before = {k: r.get(k) for k in (b"s", b"d", b"m", b"e")}
    assert before[b"s"][15] == 0 and before[b"d"][4] == 0
    first.stop()
    s = server_factory(*args)
    r = s.client()
    assert {k: r.get(k) for k in (b"s", b"d", b"m", b"e")} == before
    # Then through an RDB file.
    r.save()
    s.stop()
    r = server_factory("--dir", str(tmp_path), "--appendonly", "no").client()
    assert {k: r.get(k) for k in (b"s", b"d", b"m", b"e")} == before


def test_watch(c, connect):
    c("PFADD", "h", "a", "b")
    other = connect()

    def watched(action):
        c("WATCH", "h")
        action()
        c("MULTI")
        c("PING")
        return c("EXEC")

    # Refreshing a stale cache modifies the string: WATCH sees it.
    assert watched(lambda: other("PFCOUNT", "h")) is NULL_ARRAY
    assert watched(lambda: other("PFCOUNT", "h")) == ["PONG"]
    assert watched(lambda: other("PFADD", "h", "a")) == ["PONG"]
    assert watched(lambda: other("PFADD", "h", "zz")) is NULL_ARRAY
    assert watched(lambda: other("PFMERGE", "h")) is NULL_ARRAY
    assert watched(lambda: other("PFCOUNT", "h", "x")) == ["PONG"]
