"""Streams without consumer groups, checked against Redis 7.0.15: XADD (IDs,
NOMKSTREAM, MAXLEN/MINID trimming), XLEN, XRANGE/XREVRANGE, XDEL, XTRIM,
XSETID, XREAD (blocking too), XINFO STREAM, keyspace events, node sizes seen
through DUMP, RDB files and DUMP payloads exchanged with the reference, and
AOF replay of generated IDs and approximate trims."""
import os
import shutil
import subprocess
import time

import pytest

from test_persistence import start as _start
from datatype_client import NULL_ARRAY, WRONGTYPE, arity, c, connect, wait_blocked  # noqa: F401

REF_SERVER = shutil.which("redis-server")
CHECK_RDB = shutil.which("redis-check-rdb")
ID_ERR = "ERR Invalid stream ID specified as stream command argument"
TOP_ERR = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
MAX = "18446744073709551615"


def info(c, key, *full):
    flat = c("XINFO", "STREAM", key, *full)
    return dict(zip(flat[0::2], flat[1::2]))


def test_type_encoding_and_basic_add(c):
    assert c("XADD", "s", "1-1", "a", "1", "b", "2") == b"1-1"
    assert c("TYPE", "s") == "stream"
    assert c("OBJECT", "ENCODING", "s") == b"stream"
    assert c("XADD", "s", "1-*", "a", "x") == b"1-2"
    assert c("XADD", "s", "5", "a", "1") == b"5-0"
    assert c("XADD", "s", "5-*", "a", "1", "a", "2") == b"5-1"
    auto = c("XADD", "s", "*", "f", "v")
    ms, seq = auto.split(b"-")
    assert abs(int(ms) - time.time() * 1000) < 60000 and seq == b"0"
    assert c("XLEN", "s") == 5
    assert c("XLEN", "nokey") == 0
    assert c("XRANGE", "s", "5-1", "5-1") == [[b"5-1", [b"a", b"1", b"a", b"2"]]]


def test_xadd_errors(c):
    assert c.err("XADD", "s", "0-0", "a", "1") == "ERR The ID specified in XADD must be greater than 0-0"
    assert c("EXISTS", "s") == 0
    c("XADD", "s", "3-3", "a", "1")
    assert c.err("XADD", "s", "3-3", "a", "1") == TOP_ERR
    assert c.err("XADD", "s", "2-*", "a", "1") == TOP_ERR
    assert c.err("XADD", "s", "abc", "a", "1") == ID_ERR
    assert c.err("XADD", "s", "+", "a", "1") == ID_ERR
    assert c.err("XADD", "s", "1-2", "a") == arity("xadd")
    assert c.err("XADD", "s", "abc", "a") == arity("xadd")
    assert c.err("XADD", "s", "NOMKSTREAM") == arity("xadd")
    assert c.err("XADD", "s", "MAXLEN", "-1", "*", "a", "1") == "ERR The MAXLEN argument must be >= 0."
    assert c.err("XADD", "s", "MAXLEN", "abc", "*", "a", "1") == "ERR value is not an integer or out of range"
    assert c.err("XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "a", "1") == \
        "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
    assert c.err("XADD", "s", "MAXLEN", "1", "LIMIT", "5", "*", "a", "1") == \
        "ERR syntax error, LIMIT cannot be used without the special ~ option"
    assert c.err("XADD", "s", "LIMIT", "5", "*", "a", "1") == \
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
    assert c.err("XADD", "s", "LIMIT", "0", "1-*", "a", "1") == \
        "ERR syntax error, LIMIT cannot be used without the special ~ option"
    assert c.err("XADD", "s", "MAXLEN", "~", "1", "LIMIT", "-1", "*", "a", "1") == \
        "ERR The LIMIT argument must be >= 0."
    assert c.err("XADD", "s", "MINID", "~", "+", "*", "a", "1") == ID_ERR
    assert c("XADD", "nokey", "NOMKSTREAM", "*", "a", "1") is None
    assert c("EXISTS", "nokey") == 0
    assert c("XADD", "s", MAX + "-" + MAX, "a", "1") == (MAX + "-" + MAX).encode()
    assert c.err("XADD", "s", "*", "a", "1") == \
        "ERR The stream has exhausted the last possible ID, unable to add more items"
    c("SET", "str", "x")
    for cmd in (("XADD", "str", "*", "a", "1"), ("XLEN", "str"), ("XRANGE", "str", "-", "+"),
                ("XREVRANGE", "str", "+", "-"), ("XDEL", "str", "1"), ("XTRIM", "str", "MAXLEN", "1"),
                ("XSETID", "str", "1"), ("XREAD", "STREAMS", "str", "0"), ("XREAD", "STREAMS", "str", "$"),
                ("XINFO", "STREAM", "str")):
        assert c.err(*cmd) == WRONGTYPE, cmd


def test_ranges(c):
    c("XADD", "s", "1-1", "a", "1")
    c("XADD", "s", "2-1", "b", "2")
    c("XADD", "s", "2-2", "c", "3")
    e1, e2, e3 = [b"1-1", [b"a", b"1"]], [b"2-1", [b"b", b"2"]], [b"2-2", [b"c", b"3"]]
    assert c("XRANGE", "s", "-", "+") == [e1, e2, e3]
    assert c("XREVRANGE", "s", "+", "-") == [e3, e2, e1]
    assert c("XRANGE", "s", "2", "2") == [e2, e3]
    assert c("XRANGE", "s", "(1-1", "+") == [e2, e3]
    assert c("XRANGE", "s", "(1", "(2") == [e1, e2, e3]
    assert c("XRANGE", "s", "-", "(2-2") == [e1, e2]
    assert c("XREVRANGE", "s", "(2-2", "(1-1") == [e2]
    assert c("XRANGE", "s", "-", "+", "COUNT", "2") == [e1, e2]
    assert c("XREVRANGE", "s", "+", "-", "COUNT", "1") == [e3]
    assert c.frame("XRANGE", "s", "-", "+", "COUNT", "0") == b"*-1\r\n"
    assert c.frame("XRANGE", "s", "-", "+", "COUNT", "-1") == b"*-1\r\n"
    assert c("XRANGE", "s", "5", "1") == []
    assert c("XRANGE", "nokey", "-", "+") == []
    assert c.err("XRANGE", "s", "(-", "+") == ID_ERR
    assert c.err("XRANGE", "s", "-", "(+") == ID_ERR
    assert c.err("XRANGE", "s", "1-x", "+") == ID_ERR
    assert c.err("XRANGE", "s", "(" + MAX + "-" + MAX, "+") == "ERR invalid start ID for the interval"
    assert c.err("XRANGE", "s", "-", "(0-0") == "ERR invalid end ID for the interval"
    assert c.err("XRANGE", "s", "-", "+", "COUNT", "x") == "ERR value is not an integer or out of range"
    assert c.err("XRANGE", "s", "-", "+", "COUNT") == "ERR syntax error"
    assert c.err("XRANGE", "s", "-", "+", "foo") == "ERR syntax error"


def test_xdel_and_metadata(c):
    for i in range(1, 6):
        c("XADD", "s", "%d-0" % i, "f", i)
    assert c("XDEL", "s", "1-0", "3-0", "3-0", "9-0") == 2
    assert c("XDEL", "nokey", "1-0") == 0
    assert c.err("XDEL", "s", "1-x") == ID_ERR
    assert c.err("XDEL", "s") == arity("xdel")
    assert [e[0] for e in c("XRANGE", "s", "-", "+")] == [b"2-0", b"4-0", b"5-0"]
    i = info(c, "s")
    assert i[b"length"] == 3 and i[b"max-deleted-entry-id"] == b"3-0" and i[b"entries-added"] == 5
    assert i[b"recorded-first-entry-id"] == b"2-0" and i[b"last-generated-id"] == b"5-0"
    assert i[b"first-entry"] == [b"2-0", [b"f", b"2"]] and i[b"last-entry"] == [b"5-0", [b"f", b"5"]]
    assert c("XDEL", "s", "2-0", "4-0", "5-0") == 3
    i = info(c, "s")  # an empty stream stays
    assert i[b"length"] == 0 and i[b"recorded-first-entry-id"] == b"0-0" and i[b"first-entry"] is None
    assert i[b"radix-tree-keys"] == 0 and i[b"radix-tree-nodes"] == 1
    assert c("XADD", "s", "*", "a", "1") != b"5-1"


def test_xtrim(c):
    assert c.err("XTRIM", "s") == arity("xtrim")
    assert c.err("XTRIM", "s", "foo", "1") == "ERR syntax error"
    assert c.err("XTRIM", "s", "MAXLEN", "1", "LIMIT") == "ERR syntax error"
    assert c.err("XTRIM", "s", "LIMIT", "5") == \
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
    assert c.err("XTRIM", "s", "MAXLEN", "=", "1", "LIMIT", "10") == \
        "ERR syntax error, LIMIT cannot be used without the special ~ option"
    assert c.err("XTRIM", "s", "MINID", "x") == ID_ERR
    assert c("XTRIM", "nokey", "MAXLEN", "1") == 0
    c("CONFIG", "SET", "stream-node-max-entries", "10")
    for i in range(1, 101):
        c("XADD", "s", "%d-1" % i, "a", i)
    assert c("XTRIM", "s", "MAXLEN", "~", "95") == 0  # whole nodes only
    assert c("XTRIM", "s", "MAXLEN", "~", "85") == 10
    assert c("XTRIM", "s", "MAXLEN", "~", "50", "LIMIT", "25") == 20
    assert c("XLEN", "s") == 70
    assert c("XTRIM", "s", "MAXLEN", "67") == 3
    assert c("XRANGE", "s", "-", "+", "COUNT", "1")[0][0] == b"34-1"
    assert c("XTRIM", "s", "MINID", "~", "55") == 17
    assert c("XTRIM", "s", "MINID", "60-1") == 9
    assert info(c, "s")[b"recorded-first-entry-id"] == b"60-1"
    assert c("XADD", "s", "MAXLEN", "3", "101-*", "a", "1") == b"101-0"
    assert c("XLEN", "s") == 3
    assert c("XADD", "s", "MINID", "=", "99", "200-1", "a", "1") == b"200-1"
    assert [e[0] for e in c("XRANGE", "s", "-", "+")][-1] == b"200-1"


def test_xsetid(c):
    c("XADD", "s", "1-1", "a", "1")
    c("XADD", "s", "2-1", "b", "2")
    assert c.err("XSETID", "s", "1-0") == "ERR The ID specified in XSETID is smaller than the target stream top item"
    assert c.err("XSETID", "nokey", "5-0") == "ERR no such key"
    assert c.err("XSETID", "s", "5-0", "ENTRIESADDED", "1") == \
        "ERR The entries_added specified in XSETID is smaller than the target stream length"
    assert c.err("XSETID", "s", "5-0", "ENTRIESADDED", "-1") == "ERR entries_added must be positive"
    assert c.err("XSETID", "s", "5-0", "MAXDELETEDID", "6-0") == \
        "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
    assert c.err("XSETID", "s", "5-0", "foo") == "ERR syntax error"
    assert c.err("XSETID", "s", "+") == ID_ERR
    assert c("XSETID", "s", "50-0", "ENTRIESADDED", "10", "MAXDELETEDID", "3-0") == "OK"
    i = info(c, "s")
    assert (i[b"last-generated-id"], i[b"entries-added"], i[b"max-deleted-entry-id"]) == (b"50-0", 10, b"3-0")
    assert c.err("XADD", "s", "49-0", "a", "1") == TOP_ERR
    assert c("XADD", "s", "50-*", "a", "1") == b"50-1"


def test_xinfo_stream(c):
    c("CONFIG", "SET", "stream-node-max-entries", "4")
    for i in range(1, 11):
        c("XADD", "s", "%d-0" % i, "f", i)
    i = info(c, "s")
    assert list(i) == [b"length", b"radix-tree-keys", b"radix-tree-nodes", b"last-generated-id",
                       b"max-deleted-entry-id", b"entries-added", b"recorded-first-entry-id", b"groups",
                       b"first-entry", b"last-entry"]
    assert i[b"radix-tree-keys"] == 3 and i[b"radix-tree-nodes"] == 8 and i[b"groups"] == 0
    full = info(c, "s", "FULL", "COUNT", "2")
    assert list(full) == [b"length", b"radix-tree-keys", b"radix-tree-nodes", b"last-generated-id",
                          b"max-deleted-entry-id", b"entries-added", b"recorded-first-entry-id", b"entries",
                          b"groups"]
    assert full[b"entries"] == [[b"1-0", [b"f", b"1"]], [b"2-0", [b"f", b"2"]]]
    assert full[b"groups"] == []
    assert len(info(c, "s", "FULL")[b"entries"]) == 10
    assert len(info(c, "s", "FULL", "COUNT", "0")[b"entries"]) == 10
    assert c.err("XINFO", "STREAM", "nokey") == "ERR no such key"


def test_node_layout_matches_dump_of_reference_layout(c):
    """Same commands give the same DUMP bytes as Redis 7.0 (listpack nodes and
    their split points); the payload must at least round-trip here."""
    c("CONFIG", "SET", "stream-node-max-bytes", "300")
    for i in range(1, 60):
        c("XADD", "s", "%d-1" % i, "f%d" % (i % 3), "v" * (i % 37), "g", i)
    c("XDEL", "s", "3-1", "40-1")
    payload = c("DUMP", "s")
    c("RESTORE", "t", "0", payload)
    assert c("XRANGE", "t", "-", "+") == c("XRANGE", "s", "-", "+")
    assert info(c, "t") == info(c, "s")
    assert info(c, "s")[b"radix-tree-keys"] > 3


def test_keyspace_events(c, connect):
    c("CONFIG", "SET", "notify-keyspace-events", "KEA")
    sub = connect()
    sub.send("PSUBSCRIBE", "__key*__:*")
    sub.read()
    c("XADD", "s", "MAXLEN", "1", "1-1", "a", "1")
    c("XADD", "s", "MAXLEN", "1", "2-1", "a", "1")
    c("XDEL", "s", "2-1")
    c("XDEL", "s", "2-1")
    c("XSETID", "s", "5-0")
    c("XTRIM", "s", "MAXLEN", "0")
    events = []
    while sub.pending(0.2):
        m = sub.read()
        events.append((m[2].decode(), m[3].decode()))
    assert events == [
        ("__keyspace@0__:s", "xadd"), ("__keyevent@0__:xadd", "s"),
        ("__keyspace@0__:s", "xadd"), ("__keyevent@0__:xadd", "s"),
        ("__keyspace@0__:s", "xtrim"), ("__keyevent@0__:xtrim", "s"),
        ("__keyspace@0__:s", "xdel"), ("__keyevent@0__:xdel", "s"),
        ("__keyspace@0__:s", "xsetid"), ("__keyevent@0__:xsetid", "s"),
    ]


def test_xread(c):
    c("XADD", "s", "1-1", "a", "1")
    c("XADD", "s", "2-1", "b", "2")
    c("XADD", "t", "1-0", "c", "3")
    assert c("XREAD", "STREAMS", "s", "0") == [[b"s", [[b"1-1", [b"a", b"1"]], [b"2-1", [b"b", b"2"]]]]]
    assert c("XREAD", "COUNT", "1", "STREAMS", "s", "t", "0", "0") == \
        [[b"s", [[b"1-1", [b"a", b"1"]]]], [b"t", [[b"1-0", [b"c", b"3"]]]]]
    assert c("XREAD", "STREAMS", "s", "nokey", "t", "1-1", "0", "1-0") == [[b"s", [[b"2-1", [b"b", b"2"]]]]]
    assert c("XREAD", "COUNT", "-5", "STREAMS", "s", "1-1") == [[b"s", [[b"2-1", [b"b", b"2"]]]]]
    assert c("XREAD", "STREAMS", "s", "$") is NULL_ARRAY
    assert c("XREAD", "BLOCK", "10", "STREAMS", "s", "$") is NULL_ARRAY
    assert c.err("XREAD", "STREAMS", "s") == arity("xread")
    assert c.err("XREAD", "STREAMS", "s", "t", "0") == \
        "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."
    assert c.err("XREAD", "COUNT", "x", "STREAMS", "s", "0") == "ERR value is not an integer or out of range"
    assert c.err("XREAD", "BLOCK", "-1", "STREAMS", "s", "0") == "ERR timeout is negative"
    assert c.err("XREAD", "BLOCK", "x", "STREAMS", "s", "0") == "ERR timeout is not an integer or out of range"
    assert c.err("XREAD", "foo", "STREAMS", "s", "0") == "ERR syntax error"
    assert c.err("XREAD", "COUNT", "1") == arity("xread")
    assert c.err("XREAD", "COUNT", "1", "BLOCK", "0") == "ERR syntax error"
    assert c.err("XREAD", "STREAMS", "s", ">") == "ERR The > ID can be specified only when calling XREADGROUP " \
        "using the GROUP <group> <consumer> option."
    assert c.err("XREAD", "STREAMS", "s", "-") == ID_ERR
    c("HELLO", "3")
    assert c.frame("XREAD", "STREAMS", "t", "0") == \
        b"%1\r\n$1\r\nt\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n"


def test_xread_blocking(c, connect):
    w1, w2, w3 = connect(), connect(), connect()
    w1.send("XREAD", "BLOCK", "0", "STREAMS", "s", "other", "$", "0")
    wait_blocked(c, 1)
    w2.send("XREAD", "COUNT", "1", "BLOCK", "5000", "STREAMS", "s", "$")
    wait_blocked(c, 2)
    # Several entries in one transaction: served after EXEC, COUNT respected.
    c("MULTI")
    c("XADD", "s", "1-1", "a", "1")
    c("XADD", "s", "2-1", "a", "2")
    c("EXEC")
    assert w1.read() == [[b"s", [[b"1-1", [b"a", b"1"]], [b"2-1", [b"a", b"2"]]]]]
    assert w2.read() == [[b"s", [[b"1-1", [b"a", b"1"]]]]]
    # An entry on the other key only is served with that key alone.
    w1.send("XREAD", "BLOCK", "0", "STREAMS", "s", "other", "$", "$")
    wait_blocked(c, 1)
    c("XADD", "other", "7-0", "o", "1")
    assert w1.read() == [[b"other", [[b"7-0", [b"o", b"1"]]]]]
    # Timeout.
    t0 = time.time()
    w3.send("XREAD", "BLOCK", "150", "STREAMS", "s", "$")
    assert w3.read() is NULL_ARRAY
    assert time.time() - t0 >= 0.14
    # Deleting and re-adding below the waited ID does not wake it.
    w3.send("XREAD", "BLOCK", "0", "STREAMS", "s", "2-1")
    wait_blocked(c, 1)
    c("DEL", "s")
    c("XADD", "s", "1-5", "x", "y")
    assert not w3.pending(0.1)
    c("XADD", "s", "3-0", "x", "z")
    assert w3.read() == [[b"s", [[b"3-0", [b"x", b"z"]]]]]
    # Never blocks inside MULTI or a script.
    c("MULTI")
    c("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
    assert c("EXEC") == [None]
    assert c("EVAL", "return redis.call('xread', 'streams', KEYS[1], '$')", "1", "s") is None
    assert c.err("EVAL", "return redis.call('xread', 'block', 0, 'streams', KEYS[1], '$')", "1", "s").startswith(
        "ERR xread command is not allowed with BLOCK option from scripts script: ")


def _fill_streams(r):
    r.config_set("stream-node-max-entries", "7")
    for i in range(1, 50):
        r.xadd("big", {"f%d" % (i % 4): "v" * (i % 9), "n": i}, id="%d-%d" % (i, i % 3))
    r.xdel("big", "5-2", "20-2")
    r.xadd("small", {"a": "1"}, id="1-1")
    r.xadd("empty", {"a": "1"}, id="9-9")
    r.xdel("empty", "9-9")
    r.execute_command("XSETID", "small", "100-0", "ENTRIESADDED", "42", "MAXDELETEDID", "50-0")
    r.xadd("grouped", {"a": "1"}, id="1-1")
    r.xadd("grouped", {"b": "2"}, id="2-1")
    r.xgroup_create("grouped", "g1", id="0")
    r.xgroup_create("grouped", "g0", id="$")
    r.xgroup_createconsumer("grouped", "g1", "idle")
    r.xreadgroup("g1", "alice", {"grouped": ">"}, count=1)
    r.xreadgroup("g1", "bob", {"grouped": ">"})


def _stream_picture(r):
    out = {}
    for k in (b"big", b"small", b"empty", b"grouped"):
        flat = r.execute_command("XINFO", "STREAM", k, "FULL", "COUNT", "0")
        out[k] = (r.type(k), flat)
    return out


@pytest.mark.skipif(REF_SERVER is None, reason="Debian's redis-server is not installed")
def test_rdb_files_move_between_servers(server_factory, tmp_path):
    """Ours → reference and reference → ours; redis-check-rdb accepts both files."""
    for n, (writer, reader) in enumerate(((None, REF_SERVER), (REF_SERVER, None))):
        directory = tmp_path / str(n)
        os.makedirs(directory)
        w = _start(server_factory, directory, writer).client()
        _fill_streams(w)
        before = _stream_picture(w)
        w.save()
        if CHECK_RDB:
            out = subprocess.run([CHECK_RDB, str(directory / "dump.rdb")], capture_output=True, text=True)
            assert out.returncode == 0 and "RDB looks OK" in out.stdout, out.stdout + out.stderr
        assert _stream_picture(_start(server_factory, directory, reader).client()) == before


@pytest.mark.skipif(REF_SERVER is None, reason="Debian's redis-server is not installed")
def test_dump_payloads_move_between_servers(server_factory, tmp_path):
    """The same commands give byte-identical payloads, and each side restores the other's."""
    clients = []
    for binary in (None, REF_SERVER):
        directory = tmp_path / ("ref" if binary else "ours")
        os.makedirs(directory)
        clients.append(_start(server_factory, directory, binary).client())
        _fill_streams(clients[-1])
    ours, ref = clients
    for k in ("big", "small", "empty", "grouped"):
        assert ours.dump(k) == ref.dump(k) or k == "grouped", k  # groups hold delivery times
        for src, dst in ((ours, ref), (ref, ours)):
            dst.restore(k + ":copy", 0, src.dump(k))
            assert dst.execute_command("XINFO", "STREAM", k + ":copy", "FULL") == \
                src.execute_command("XINFO", "STREAM", k, "FULL")


def test_aof_replays_generated_ids_and_trims(server_factory, tmp_path):
    s = server_factory("--dir", str(tmp_path), "--appendonly", "yes", "--stream-node-max-entries", "5")
    r = s.client()
    for i in range(40):
        r.xadd("s", {"i": i})
    r.xadd("s", {"x": 1}, maxlen=12, approximate=True)
    r.xadd("s", {"x": 2}, id="*", minid="0-1")
    r.xtrim("s", maxlen=20, approximate=True)
    r.xdel("s", r.xrange("s", count=1)[0][0])
    r.execute_command("XSETID", "s", "%d-0" % (int(time.time() * 1000) + 100000), "ENTRIESADDED", "100")
    before = r.execute_command("XINFO", "STREAM", "s", "FULL", "COUNT", "0")
    assert r.xlen("s") < 42
    s.stop()
    s2 = server_factory("--dir", str(tmp_path), "--appendonly", "yes", "--stream-node-max-entries", "100")
    entries = lambda flat: dict(zip(flat[0::2], flat[1::2]))  # noqa: E731
    got = entries(s2.client().execute_command("XINFO", "STREAM", "s", "FULL", "COUNT", "0"))
    want = entries(before)
    for k in (b"length", b"last-generated-id", b"entries-added", b"recorded-first-entry-id",
              b"max-deleted-entry-id", b"entries"):
        assert got[k] == want[k], k


def test_consumer_groups(c):
    nogroup = "NOGROUP No such consumer group '%s' for key name 's'"
    c("XADD", "s", "1-1", "a", "1")
    c("XADD", "s", "2-1", "b", "2")
    assert c("XGROUP", "CREATE", "s", "g", "$") == "OK"
    assert c.err("XGROUP", "CREATE", "s", "g", "0") == "BUSYGROUP Consumer Group name already exists"
    assert c.err("XGROUP", "CREATE", "nokey", "g", "$") == "ERR The XGROUP subcommand requires the key to exist. " \
        "Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
    assert c("XGROUP", "CREATE", "nokey", "g", "$", "MKSTREAM") == "OK"
    assert c("XLEN", "nokey") == 0
    assert c.err("XGROUP", "CREATE", "s", "x", "bad") == ID_ERR
    assert c.err("XGROUP", "CREATE", "s", "x", "0", "foo") == \
        "ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP."
    assert c.err("XGROUP", "CREATE", "s", "x", "0", "ENTRIESREAD", "-5") == \
        "ERR value for ENTRIESREAD must be positive or -1"
    assert c.err("XGROUP", "SETID", "s", "nog", "0") == nogroup % "nog"
    assert c.err("XGROUP", "CREATECONSUMER", "s", "nog", "x") == nogroup % "nog"
    assert c("XGROUP", "CREATE", "s", "g2", "0") == "OK"
    assert c("XGROUP", "CREATECONSUMER", "s", "g2", "alice") == 1
    assert c("XGROUP", "CREATECONSUMER", "s", "g2", "alice") == 0
    assert c("XREADGROUP", "GROUP", "g2", "bob", "COUNT", "1", "STREAMS", "s", ">") == \
        [[b"s", [[b"1-1", [b"a", b"1"]]]]]
    assert c("XREADGROUP", "GROUP", "g2", "carl", "STREAMS", "s", ">") == [[b"s", [[b"2-1", [b"b", b"2"]]]]]
    assert c("XREADGROUP", "GROUP", "g2", "carl", "STREAMS", "s", ">") is NULL_ARRAY
    assert c("XREADGROUP", "GROUP", "g2", "bob", "STREAMS", "s", "0") == [[b"s", [[b"1-1", [b"a", b"1"]]]]]
    assert c("XREADGROUP", "GROUP", "g2", "dave", "STREAMS", "s", "0") == [[b"s", []]]
    assert c.err("XREADGROUP", "GROUP", "nog", "bob", "STREAMS", "s", ">") == \
        "NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option"
    assert c.err("XREADGROUP", "GROUP", "g2", "bob", "STREAMS", "s", "$").startswith(
        "ERR The $ ID is meaningless in the context of XREADGROUP")
    assert c.err("XREADGROUP", "COUNT", "1", "COUNT", "1", "STREAMS", "s", ">") == \
        "ERR Missing GROUP option for XREADGROUP"
    assert c.err("XREAD", "GROUP", "g2", "bob", "STREAMS", "s", ">") == \
        "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
    summary = c("XPENDING", "s", "g2")
    assert summary == [2, b"1-1", b"2-1", [[b"bob", b"1"], [b"carl", b"1"]]]
    detail = c("XPENDING", "s", "g2", "-", "+", "10")
    assert [(d[0], d[1], d[3]) for d in detail] == [(b"1-1", b"bob", 2), (b"2-1", b"carl", 1)]
    assert c("XPENDING", "s", "g2", "-", "+", "10", "nobody") == []
    assert c("XPENDING", "s", "g2", "IDLE", "100000", "-", "+", "10") == []
    assert c.err("XPENDING", "s", "g2", "-", "+") == "ERR syntax error"
    assert c.err("XPENDING", "s", "nog") == "NOGROUP No such key 's' or consumer group 'nog'"
    assert c("XACK", "s", "g2", "1-1", "9-9") == 1
    assert c("XACK", "s", "nog", "1-1") == 0
    assert c.err("XACK", "s", "g2", "x") == ID_ERR
    assert c("XGROUP", "DELCONSUMER", "s", "g2", "carl") == 1
    assert c.frame("XPENDING", "s", "g2") == b"*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n"
    groups = [dict(zip(g[0::2], g[1::2])) for g in c("XINFO", "GROUPS", "s")]
    assert [(g[b"name"], g[b"consumers"], g[b"pending"], g[b"last-delivered-id"], g[b"entries-read"], g[b"lag"])
            for g in groups] == [(b"g", 0, 0, b"2-1", None, 0), (b"g2", 3, 0, b"2-1", 2, 0)]
    consumers = [dict(zip(x[0::2], x[1::2])) for x in c("XINFO", "CONSUMERS", "s", "g2")]
    assert [x[b"name"] for x in consumers] == [b"alice", b"bob", b"dave"]
    assert c.err("XINFO", "CONSUMERS", "s", "nog") == nogroup % "nog"
    c("XADD", "s", "3-1", "c", "3")
    c("XADD", "s", "4-1", "d", "4")
    c("XDEL", "s", "3-1")
    lag = dict(zip(*[iter(c("XINFO", "GROUPS", "s")[1])] * 2))[b"lag"]
    assert lag is None  # a tombstone after the group's position
    assert c("XGROUP", "SETID", "s", "g2", "0", "ENTRIESREAD", "0") == "OK"
    assert c("XGROUP", "DESTROY", "s", "g") == 1
    assert c("XGROUP", "DESTROY", "s", "g") == 0
    assert info(c, "s")[b"groups"] == 1
    c("SET", "str", "x")
    for cmd in (("XGROUP", "CREATE", "str", "g", "$"), ("XREADGROUP", "GROUP", "g", "c", "STREAMS", "str", ">"),
                ("XACK", "str", "g", "1-1"), ("XPENDING", "str", "g"), ("XINFO", "GROUPS", "str")):
        assert c.err(*cmd) == WRONGTYPE, cmd


def test_consumer_group_events_and_blocking(c, connect):
    c("CONFIG", "SET", "notify-keyspace-events", "KEA")
    c("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    waiter = connect()
    waiter.send("XREADGROUP", "GROUP", "g", "w", "BLOCK", "0", "STREAMS", "s", ">")
    wait_blocked(c, 1)
    c("XADD", "s", "5-1", "k", "v")
    assert waiter.read() == [[b"s", [[b"5-1", [b"k", b"v"]]]]]
    assert c("XPENDING", "s", "g")[0] == 1
    waiter.send("XREADGROUP", "GROUP", "g", "w", "BLOCK", "0", "STREAMS", "s", ">")
    wait_blocked(c, 1)
    c("XGROUP", "DESTROY", "s", "g")
    assert str(waiter.read()) == "NOGROUP the consumer group this client was blocked on no longer exists"
    sub = connect()
    sub.send("PSUBSCRIBE", "__keyevent*")
    sub.read()
    c("XGROUP", "CREATE", "s", "g", "0")
    c("XREADGROUP", "GROUP", "g", "new", "STREAMS", "s", ">")
    c("XGROUP", "CREATECONSUMER", "s", "g", "other")
    c("XGROUP", "DELCONSUMER", "s", "g", "other")
    c("XGROUP", "SETID", "s", "g", "0")
    c("XGROUP", "DESTROY", "s", "g")
    events = []
    while sub.pending(0.2):
        events.append(sub.read()[2].decode().split(":", 1)[1])
    assert events == ["xgroup-create", "xgroup-createconsumer", "xgroup-createconsumer", "xgroup-delconsumer",
                      "xgroup-setid", "xgroup-destroy"]


def test_xclaim_and_xautoclaim(c):
    for i in range(1, 6):
        c("XADD", "s", "%d-1" % i, "a", i)
    c("XGROUP", "CREATE", "s", "g", "0")
    c("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">")
    assert c("XCLAIM", "s", "g", "bob", "0", "1-1") == [[b"1-1", [b"a", b"1"]]]
    assert c("XCLAIM", "s", "g", "bob", "0", "1-1", "JUSTID") == [b"1-1"]
    assert c("XCLAIM", "s", "g", "bob", "100000", "2-1") == []
    assert c("XCLAIM", "s", "g", "bob", "0", "9-9") == []
    assert c("XCLAIM", "s", "g", "bob", "0", "9-9", "FORCE", "JUSTID") == []
    assert c("XCLAIM", "s", "g", "bob", "0", "2-1", "RETRYCOUNT", "7", "IDLE", "5000", "JUSTID", "LASTID", "9-0") == \
        [b"2-1"]
    detail = {d[0]: (d[1], d[3]) for d in c("XPENDING", "s", "g", "-", "+", "10")}
    assert detail[b"1-1"] == (b"bob", 2) and detail[b"2-1"] == (b"bob", 7) and detail[b"3-1"] == (b"alice", 1)
    assert c("XPENDING", "s", "g", "IDLE", "4000", "-", "+", "10")[0][0] == b"2-1"
    assert dict(zip(*[iter(c("XINFO", "GROUPS", "s")[0])] * 2))[b"last-delivered-id"] == b"9-0"
    assert c.err("XCLAIM", "s", "g", "bob", "x", "1-1") == "ERR Invalid min-idle-time argument for XCLAIM"
    assert c.err("XCLAIM", "s", "g", "bob", "0", "x") == "ERR Unrecognized XCLAIM option 'x'"
    assert c.err("XCLAIM", "s", "g", "bob", "0", "1-1", "IDLE", "x") == "ERR Invalid IDLE option argument for XCLAIM"
    assert c.err("XCLAIM", "s", "nog", "bob", "0", "1-1") == "NOGROUP No such key 's' or consumer group 'nog'"
    c("XDEL", "s", "3-1")
    assert c("XCLAIM", "s", "g", "bob", "0", "3-1") == []  # deleted: leaves the PEL
    assert c("XPENDING", "s", "g")[0] == 4
    c("XDEL", "s", "4-1")
    assert c("XAUTOCLAIM", "s", "g", "zed", "0", "0", "COUNT", "2") == \
        [b"4-1", [[b"1-1", [b"a", b"1"]], [b"2-1", [b"a", b"2"]]], []]
    assert c("XAUTOCLAIM", "s", "g", "zed", "0", "4-1", "JUSTID") == [b"0-0", [b"5-1"], [b"4-1"]]
    assert c("XPENDING", "s", "g") == [3, b"1-1", b"5-1", [[b"zed", b"3"]]]
    assert c.err("XAUTOCLAIM", "s", "g", "zed", "0", "0", "COUNT", "0") == "ERR COUNT must be > 0"
    assert c.err("XAUTOCLAIM", "s", "g", "zed", "0", "x") == ID_ERR
    assert c.err("XAUTOCLAIM", "s", "g", "zed", "0", "0", "foo") == "ERR syntax error"
    assert c.err("XAUTOCLAIM", "s", "nog", "zed", "0", "0") == "NOGROUP No such key 's' or consumer group 'nog'"
    assert c.err("XAUTOCLAIM", "s", "g", "zed", "x", "0") == "ERR Invalid min-idle-time argument for XAUTOCLAIM"


def test_aof_replays_consumer_group_effects(server_factory, tmp_path):
    """Deliveries and claims are replayed with their delivery times and counts."""
    s = server_factory("--dir", str(tmp_path), "--appendonly", "yes")
    r = s.client()
    for i in range(1, 8):
        r.xadd("s", {"i": i}, id="%d-1" % i)
    r.xgroup_create("s", "g", id="0")
    r.xgroup_create("s", "quiet", id="0")
    r.xreadgroup("g", "alice", {"s": ">"}, count=4)
    r.xreadgroup("quiet", "nobody", {"s": ">"}, noack=True)
    r.xreadgroup("g", "alice", {"s": "0"}, count=1)
    r.xclaim("s", "g", "bob", 0, ["2-1"], idle=50000)
    r.xdel("s", "3-1")
    r.xautoclaim("s", "g", "carl", 0, "0", count=2)
    r.xreadgroup("g", "dora", {"s": ">"}, count=1)
    r.xack("s", "g", "4-1")

    def picture(c):
        pel = [(p["message_id"], p["consumer"], p["times_delivered"], p["time_since_delivered"] // 1000)
               for p in c.xpending_range("s", "g", "-", "+", 100)]
        # Redis 7.0 itself does not replay entries-read (and so lag) exactly: not compared.
        groups = [{k: v for k, v in g.items() if k not in ("entries-read", "lag")} for g in c.xinfo_groups("s")]
        consumers = sorted((x["name"], x["pending"]) for x in c.xinfo_consumers("s", "g"))
        return pel, groups, consumers

    before = picture(r)
    s.stop()
    s2 = server_factory("--dir", str(tmp_path), "--appendonly", "yes")
    assert picture(s2.client()) == before
