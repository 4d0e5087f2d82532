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

from datatype_client import NULL_ARRAY, WRONGTYPE, arity

NOT_HLL = "WRONGTYPE Key is not a valid HyperLogLog string value."
INVALID = "INVALIDOBJ Corrupted HLL object detected"
STALE_HEADER = b"HYLL\x01\x00\x00\x00" + b"\x00" * 7 + b"\x80"
EMPTY_HLL_STALE = STALE_HEADER + b"\x7f\xff"  # one XZERO run over all 16384 registers
DENSE_SIZE = 16 + 16384 * 6 // 8


def sha(b):
    return hashlib.sha256(b).hexdigest()


def items(prefix, start, stop):
    return ["%s:%d" % (prefix, i) for i in range(start, stop)]


def changes(dc):
    for line in dc("INFO", "persistence").decode().splitlines():
        if line.startswith("rdb_changes_since_last_save:"):
            return int(line.split(":")[1])
    raise AssertionError("no rdb_changes_since_last_save")


# --- PFADD / PFCOUNT and the exact bytes --------------------------------

def test_pfadd_sparse_bytes_and_cached_cardinality(dc):
    assert dc("PFADD", "h", "a", "b", "c") == 1
    # Three VAL opcodes between XZERO runs; the cache is marked stale.
    assert dc("GET", "h") == STALE_HEADER + b"`\xf3\x80P\xb1\x84K\xfb\x80BZ"
    assert dc("PFDEBUG", "DECODE", "h") == b"Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"
    assert dc("PFDEBUG", "ENCODING", "h") == "sparse"
    assert dc("PFCOUNT", "h") == 3
    # PFCOUNT stored the cardinality (3, cache valid) in the header.
    assert dc("GET", "h")[:16] == b"HYLL\x01\x00\x00\x00\x03" + b"\x00" * 7
    assert dc("PFCOUNT", "h") == 3
    # Nothing changes: the cache stays valid and PFADD says 0.
    assert dc("PFADD", "h", "a", "c") == 0
    assert dc("PFADD", "h") == 0
    assert dc("GET", "h")[15] == 0
    assert dc("PFADD", "h", "d") == 1
    assert dc("GET", "h")[15] == 0x80
    assert dc("PFCOUNT", "h") == 4


def test_pfadd_without_elements_creates_the_key(dc):
    assert dc("PFADD", "e") == 1
    assert dc("GET", "e") == EMPTY_HLL_STALE
    assert dc("PFADD", "e") == 0
    assert dc("PFCOUNT", "e") == 0
    assert dc("GET", "e") == STALE_HEADER[:15] + b"\x00" + b"\x7f\xff"
    assert dc("PFCOUNT", "nokey") == 0
    assert dc("EXISTS", "nokey") == 0


def test_sparse_bytes_after_100_adds(dc):
    dc("PFADD", "s", *items("item", 0, 100))
    v = dc("GET", "s")
    assert len(v) == 277
    assert v[:40].hex() == ("48594c4c01000000000000000000008040ed80407688421e"
                            "8040ce8432843d80406a80406f84038c")
    assert sha(v) == "8176ff593bf4a6206392e83b04f3ffa2c2ab074604da93b0e2b9400549fa5744"
    assert dc("PFCOUNT", "s") == 99
    assert sha(dc("GET", "s")) == "7b1c93e7f0e1b98470ed7378c743bdabdf5a36120d07c9835b380c98dae9f217"
    # DUMP carries the same bytes, so the payload is the reference's too.
    dump = dc("DUMP", "s")
    assert sha(dump) == "575375fe2b731f1930b6bc93aaf288c04eddffbfd73902ac15b59e8830956f98"
    dc("RESTORE", "copy", 0, dump)
    assert dc("GET", "copy") == dc("GET", "s")
    assert dc("PFCOUNT", "copy") == 99


def test_promotion_to_dense_at_default_threshold(dc):
    assert dc("CONFIG", "GET", "hll-sparse-max-bytes") == [b"hll-sparse-max-bytes", b"3000"]
    n = 0
    while True:
        dc("PFADD", "d", "item:%d" % n)
        n += 1
        v = dc("GET", "d")
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
    assert dc("PFDEBUG", "ENCODING", "d") == "dense"
    dc("PFADD", "d", *items("item", n, 5000))
    assert sha(dc("GET", "d")) == "cc8464d4e5b440c892d2a8fc93f207344a99c691444fa52f57bf6f2d27b9f467"
    assert dc("PFCOUNT", "d") == 5052
    assert sha(dc("GET", "d")) == "ab7538099c5674b673c978895464f90d4a59e32819708e2cfefada99edb67d8e"
    assert sha(dc("DUMP", "d")) == "ce2dd8374f77d9ee2e55a0ae9beb0ec6d51a473dc6543aec0768ed294e8da896"
    assert dc.err("PFDEBUG", "DECODE", "d") == "ERR HLL encoding is not sparse"


def test_promotion_follows_hll_sparse_max_bytes(dc):
    assert dc("CONFIG", "SET", "hll-sparse-max-bytes", 40) == "OK"
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
        dc("PFADD", "t", "el%d" % i)
        assert dc("GET", "t").hex() == hexval
    dc("PFADD", "t", "el7")
    v = dc("GET", "t")
    assert len(v) == DENSE_SIZE
    assert sha(v) == "03a0bec775ef776b575c4e688c40bfaaa00171ea252c0efc2d367087f7a5f17e"


def test_hll_sparse_max_bytes_config(dc):
    assert dc("CONFIG", "SET", "hll-sparse-max-bytes", "3kb") == "OK"
    assert dc("CONFIG", "GET", "hll-sparse-max-bytes") == [b"hll-sparse-max-bytes", b"3072"]
    assert dc.err("CONFIG", "SET", "hll-sparse-max-bytes", "-1") == (
        "ERR CONFIG SET failed (possibly related to argument 'hll-sparse-max-bytes') - "
        "argument must be a memory value")
    # 0: every add that grows the string promotes at once.
    dc("CONFIG", "SET", "hll-sparse-max-bytes", 0)
    dc("PFADD", "z")
    assert dc("PFDEBUG", "ENCODING", "z") == "sparse"
    dc("PFADD", "z", "x")
    assert dc("PFDEBUG", "ENCODING", "z") == "dense"


def test_cardinality_accuracy_100k(dc):
    for i in range(0, 100000, 5000):
        dc("PFADD", "big", *items("element", i, i + 5000))
    card = dc("PFCOUNT", "big")
    # Standard error 0.81%: stay within 3 of them; the estimate is deterministic.
    assert abs(card - 100000) / 100000 < 3 * 0.0081
    assert card == 100039
    dc("PFADD", "big2", *items("other", 0, 50000))
    assert dc("PFCOUNT", "big2") == 49324
    assert dc("PFCOUNT", "big", "big2") == 148453


def test_pfcount_of_several_keys_modifies_none(dc):
    dc("PFADD", "a", *items("a", 0, 50))
    dc("PFADD", "b", *items("b", 0, 3000))
    dc("PFADD", "ab", *items("a", 0, 50), *items("b", 0, 3000))
    before = {k: dc("GET", k) for k in ("a", "b")}
    assert before["a"][15] == 0x80 and before["b"][15] == 0x80
    union = dc("PFCOUNT", "ab")
    dirty = changes(dc)
    assert dc("PFCOUNT", "a", "b", "missing") == union
    assert {k: dc("GET", k) for k in ("a", "b")} == before
    assert dc("EXISTS", "missing") == 0
    assert changes(dc) == dirty
    assert dc("PFCOUNT", "missing1", "missing2") == 0


def test_pfadd_and_pfcount_count_writes_like_redis(dc):
    dirty = changes(dc)
    dc("PFADD", "k", "x", "y", "z")
    assert changes(dc) == dirty + 4  # the creation and each changed register
    dc("PFCOUNT", "k")
    assert changes(dc) == dirty + 5  # refreshing the cache is a write
    dc("PFCOUNT", "k")
    dc("PFADD", "k", "x")
    assert changes(dc) == dirty + 5


# --- PFMERGE ---------------------------------------------------------------

def test_pfmerge_sparse_and_dense(dc):
    dc("PFADD", "s", *items("item", 0, 100))
    dc("PFADD", "d", *items("item", 0, 5000))
    assert dc("PFDEBUG", "ENCODING", "d") == "dense"
    assert dc("PFMERGE", "m", "s", "d") == "OK"
    assert dc("PFDEBUG", "ENCODING", "m") == "dense"
    assert sha(dc("GET", "m")) == "cc8464d4e5b440c892d2a8fc93f207344a99c691444fa52f57bf6f2d27b9f467"
    assert dc("PFCOUNT", "m") == 5052
    # Sparse sources only: the result stays sparse.
    dc("PFADD", "x", "x1", "x2", "x3")
    assert dc("PFMERGE", "m2", "x", "s") == "OK"
    v = dc("GET", "m2")
    assert len(v) == 286
    assert sha(v) == "3bfc0f3829dabb4e2cee681753996a330a88c7d69a13025e16c646dda80ff003"
    assert dc("PFCOUNT", "m2") == 102
    # The destination is itself a source.
    dc("PFADD", "acc", "x1")
    dc("PFMERGE", "acc", "s")
    assert dc("PFCOUNT", "acc") == dc("PFCOUNT", "m2") - 2


def test_pfmerge_into_a_sparse_destination_with_a_dense_source(dc):
    dc("PFADD", "dst", "a", "b")
    dc("PFADD", "d", *items("item", 0, 5000))
    dc("PFMERGE", "dst", "d")
    assert dc("PFDEBUG", "ENCODING", "dst") == "dense"
    assert dc("PFCOUNT", "dst") == dc("PFCOUNT", "d", "dst")
    dc("PFADD", "ref", "a", "b", *items("item", 0, 5000))
    assert dc("PFCOUNT", "dst") == dc("PFCOUNT", "ref")


def test_pfmerge_without_sources_creates_an_empty_hll(dc):
    assert dc("PFMERGE", "m") == "OK"
    assert dc("GET", "m") == EMPTY_HLL_STALE
    assert dc("PFMERGE", "m", "nokey") == "OK"
    assert dc("PFCOUNT", "m") == 0


# --- type checks and damaged values ----------------------------------------

def test_wrong_types(dc):
    dc("SET", "str", "hello")
    dc("SET", "int", "12345")
    dc("LPUSH", "lst", "a")
    dc("PFADD", "h", "a")
    for key in ("str", "int"):
        assert dc.err("PFADD", key, "a") == NOT_HLL
        assert dc.err("PFCOUNT", key) == NOT_HLL
        assert dc.err("PFCOUNT", "h", key) == NOT_HLL
        assert dc.err("PFMERGE", key, "h") == NOT_HLL
        assert dc.err("PFMERGE", "h", key) == NOT_HLL
        assert dc.err("PFDEBUG", "ENCODING", key) == NOT_HLL
    assert dc.err("PFADD", "lst", "a") == WRONGTYPE
    assert dc.err("PFCOUNT", "lst") == WRONGTYPE
    assert dc.err("PFCOUNT", "h", "lst") == WRONGTYPE
    assert dc.err("PFMERGE", "lst", "h") == WRONGTYPE
    assert dc.err("PFMERGE", "h", "lst") == WRONGTYPE
    assert dc.err("PFDEBUG", "ENCODING", "lst") == WRONGTYPE
    assert dc("GET", "str") == b"hello"
    # Header checks: bad magic, unknown encoding, too short, dense of the wrong size.
    dc("SET", "magic", b"HYLX\x01" + b"\x00" * 11 + b"\x7f\xff")
    dc("SET", "enc", b"HYLL\x02" + b"\x00" * 11 + b"\x7f\xff")
    dc("SET", "short", b"HYLL\x01")
    dc("SET", "dense", b"HYLL\x00" + b"\x00" * 111)
    for key in ("magic", "enc", "short", "dense"):
        assert dc.err("PFADD", key, "a") == NOT_HLL
        assert dc.err("PFCOUNT", key) == NOT_HLL


def test_corrupted_sparse_values(dc):
    # Runs covering 16383 registers instead of 16384.
    dc("SET", "c1", STALE_HEADER + b"\x7f\xfe")
    assert dc.err("PFCOUNT", "c1") == INVALID
    assert dc.err("PFCOUNT", "c1", "nokey") == INVALID
    assert dc.err("PFMERGE", "x", "c1") == INVALID
    assert dc("EXISTS", "x") == 0
    assert dc.err("PFDEBUG", "TODENSE", "c1") == INVALID
    assert dc.err("PFDEBUG", "GETREG", "c1") == INVALID
    assert dc("PFDEBUG", "DECODE", "c1") == b"Z:16383"
    # Only registers 0..7999 covered: "a", "b" and "c" (registers 8436,
    # 12711 and 15780) find no run to update.
    dc("SET", "short", STALE_HEADER + b"\x5f\x3f")
    assert dc("PFDEBUG", "DECODE", "short") == b"Z:8000"
    assert dc.err("PFADD", "short", "a", "b", "c") == INVALID
    assert dc("GET", "short") == STALE_HEADER + b"\x5f\x3f"
    # An extra opcode past the last register.
    dc("SET", "c2", STALE_HEADER + b"\x7f\xff\x80")
    assert dc.err("PFCOUNT", "c2") == INVALID
    assert dc("PFADD", "c2", "q") == 1
    assert dc.err("PFCOUNT", "c2", "nokey") == INVALID
    # No opcodes at all.
    dc("SET", "c3", STALE_HEADER)
    assert dc.err("PFCOUNT", "c3") == INVALID
    assert dc.err("PFADD", "c3", "a") == INVALID
    assert dc("PFDEBUG", "DECODE", "c3") == b""
    # Far too many registers.
    dc("SET", "c4", STALE_HEADER + b"\xff" * 5000)
    assert dc.err("PFCOUNT", "c4") == INVALID
    assert dc.err("PFMERGE", "c4") == INVALID
    assert dc("PFADD", "c4", "a") == 0


def test_cached_cardinality_is_trusted_until_invalidated(dc):
    # A valid cache of 12345 in front of an empty register set.
    dc("SET", "h", b"HYLL\x01\x00\x00\x00\x39\x30" + b"\x00" * 6 + b"\x7f\xff")
    assert dc("PFCOUNT", "h") == 12345
    assert dc("PFCOUNT", "h", "h") == 0
    dc("PFADD", "h", "a")
    assert dc("PFCOUNT", "h") == 1


def test_fuzzed_values_never_crash(dc):
    rng = random.Random(7)
    dc("PFADD", "sparse", *items("f", 0, 200))
    dc("PFADD", "dense", *items("f", 0, 3000))
    sources = {k: dc("GET", k) for k in ("sparse", "dense")}
    for round_ in range(200):
        kind = "sparse" if round_ % 2 == 0 else "dense"
        value = bytearray(sources[kind])
        for _ in range(rng.randint(1, 10)):
            value[rng.randrange(16, len(value))] = rng.randrange(256)
        dc("SET", "fz", bytes(value))
        for cmd in (("PFCOUNT", "fz"), ("PFADD", "fz", "x%d" % round_), ("PFCOUNT", "fz", "sparse"),
                    ("PFMERGE", "out", "fz"), ("PFDEBUG", "DECODE", "fz")):
            dc.send(*cmd)
            dc.read()
    assert dc("PING") == "PONG"


# --- PFDEBUG / PFSELFTEST ----------------------------------------------------

def test_pfdebug(dc):
    dc("PFADD", "h", "a", "b", "c")
    regs = dc("PFDEBUG", "GETREG", "h")
    assert len(regs) == 16384
    assert [(i, v) for i, v in enumerate(regs) if v] == [(8436, 1), (12711, 2), (15780, 1)]
    # GETREG leaves the value dense.
    assert dc("PFDEBUG", "ENCODING", "h") == "dense"
    assert dc("GET", "h")[:20].hex() == "48594c4c00000000000000000000008000000000"
    assert dc("PFCOUNT", "h") == 3
    dc("PFADD", "s", "a")
    assert dc("PFDEBUG", "TODENSE", "s") == 1
    assert dc("PFDEBUG", "TODENSE", "s") == 0
    assert dc("PFDEBUG", "todense", "s") == 0
    assert dc.err("PFDEBUG", "FOO", "s") == "ERR Unknown PFDEBUG subcommand 'FOO'"
    assert dc.err("PFDEBUG", "FOO", "nokey") == "ERR The specified key does not exist"
    assert dc.err("PFDEBUG", "GETREG", "nokey") == "ERR The specified key does not exist"
    assert dc.err("PFDEBUG", "DECODE", "s", "x") == arity("pfdebug")
    assert dc.err("PFADD") == arity("pfadd")
    assert dc.err("PFCOUNT") == arity("pfcount")
    assert dc.err("PFMERGE") == arity("pfmerge")


def test_pfselftest(dc):
    assert dc("PFSELFTEST") == "OK"


# --- keyspace events, WATCH ---------------------------------------------------

def test_keyspace_events(server, dc):
    dc("CONFIG", "SET", "notify-keyspace-events", "KEA")
    r = server.client()
    p = r.pubsub()
    p.psubscribe("__key*__:*")
    assert p.get_message(timeout=2)["type"] == "psubscribe"
    dc("PFADD", "h", "a")
    dc("PFADD", "h", "a")        # no change: no event
    dc("PFADD", "e")             # creation without elements
    dc("PFCOUNT", "h")           # cache refresh: no event
    dc("PFCOUNT", "h", "e")
    dc("PFMERGE", "m", "h")      # a merge is reported as pfadd
    dc("PFMERGE", "h", "e")
    dc("PFDEBUG", "TODENSE", "h")
    dc("PFMERGE", "m2")
    dc("SET", "done", "1")
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


def test_keymiss_and_new_events(server, dc):
    dc("CONFIG", "SET", "notify-keyspace-events", "KEAnm")
    r = server.client()
    p = r.pubsub()
    p.psubscribe("__keyevent*__:*")
    assert p.get_message(timeout=2)["type"] == "psubscribe"
    dc("PFADD", "h", "a")
    dc("PFCOUNT", "nokey")
    dc("PFCOUNT", "n1", "h")
    dc("PFMERGE", "m", "nk")     # the destination is read first: keymiss, then new
    dc("PFMERGE", "h", "nk2")
    dc("SET", "done", "1")
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


def test_watch(dc, dconnect):
    dc("PFADD", "h", "a", "b")
    other = dconnect()

    def watched(action):
        dc("WATCH", "h")
        action()
        dc("MULTI")
        dc("PING")
        return dc("EXEC")

    # Refreshing a stale cache modifies the string: WATCH sees it.
    assert watched(lambda: other("PFCOUNT", "h")) is NULL_ARRAY
    assert watched(lambda: other("PFCOUNT", "h")) == ["PONG"]
    assert watched(lambda: other("PFADD", "h", "a")) == ["PONG"]
    assert watched(lambda: other("PFADD", "h", "zz")) is NULL_ARRAY
    assert watched(lambda: other("PFMERGE", "h")) is NULL_ARRAY
    assert watched(lambda: other("PFCOUNT", "h", "x")) == ["PONG"]
