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
import redis

from support import start_in_dir as _start
from datatype_client import NULL_ARRAY, WRONGTYPE, arity, wait_blocked

REF_SERVER = shutil.which("redis-server")
CHECK_RDB = shutil.which("redis-check-rdb")
ID_ERR = "ERR Invalid stream ID specified as stream command argument"
TOP_ERR = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
MAX = "18446744073709551615"


def info(dc, key, *full):
    flat = dc("XINFO", "STREAM", key, *full)
    return dict(zip(flat[0::2], flat[1::2]))


def test_type_encoding_and_basic_add(dc):
    assert dc("XADD", "s", "1-1", "a", "1", "b", "2") == b"1-1"
    assert dc("TYPE", "s") == "stream"
    assert dc("OBJECT", "ENCODING", "s") == b"stream"
    assert dc("XADD", "s", "1-*", "a", "x") == b"1-2"
    assert dc("XADD", "s", "5", "a", "1") == b"5-0"
    assert dc("XADD", "s", "5-*", "a", "1", "a", "2") == b"5-1"
    auto = dc("XADD", "s", "*", "f", "v")
    ms, seq = auto.split(b"-")
    assert abs(int(ms) - time.time() * 1000) < 60000 and seq == b"0"
    assert dc("XLEN", "s") == 5
    assert dc("XLEN", "nokey") == 0
    assert dc("XRANGE", "s", "5-1", "5-1") == [[b"5-1", [b"a", b"1", b"a", b"2"]]]


def test_xadd_errors(dc):
    assert dc.err("XADD", "s", "0-0", "a", "1") == "ERR The ID specified in XADD must be greater than 0-0"
    assert dc("EXISTS", "s") == 0
    dc("XADD", "s", "3-3", "a", "1")
    assert dc.err("XADD", "s", "3-3", "a", "1") == TOP_ERR
    assert dc.err("XADD", "s", "2-*", "a", "1") == TOP_ERR
    assert dc.err("XADD", "s", "abc", "a", "1") == ID_ERR
    assert dc.err("XADD", "s", "+", "a", "1") == ID_ERR
    assert dc.err("XADD", "s", "1-2", "a") == arity("xadd")
    assert dc.err("XADD", "s", "abc", "a") == arity("xadd")
    assert dc.err("XADD", "s", "NOMKSTREAM") == arity("xadd")
    assert dc.err("XADD", "s", "MAXLEN", "-1", "*", "a", "1") == "ERR The MAXLEN argument must be >= 0."
    assert dc.err("XADD", "s", "MAXLEN", "abc", "*", "a", "1") == "ERR value is not an integer or out of range"
    assert dc.err("XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "a", "1") == \
        "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
    assert dc.err("XADD", "s", "MAXLEN", "1", "LIMIT", "5", "*", "a", "1") == \
        "ERR syntax error, LIMIT cannot be used without the special ~ option"
    assert dc.err("XADD", "s", "LIMIT", "5", "*", "a", "1") == \
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
    assert dc.err("XADD", "s", "LIMIT", "0", "1-*", "a", "1") == \
        "ERR syntax error, LIMIT cannot be used without the special ~ option"
    assert dc.err("XADD", "s", "MAXLEN", "~", "1", "LIMIT", "-1", "*", "a", "1") == \
        "ERR The LIMIT argument must be >= 0."
    assert dc.err("XADD", "s", "MINID", "~", "+", "*", "a", "1") == ID_ERR
    assert dc("XADD", "nokey", "NOMKSTREAM", "*", "a", "1") is None
    assert dc("EXISTS", "nokey") == 0
    assert dc("XADD", "s", MAX + "-" + MAX, "a", "1") == (MAX + "-" + MAX).encode()
    assert dc.err("XADD", "s", "*", "a", "1") == \
        "ERR The stream has exhausted the last possible ID, unable to add more items"
    dc("SET", "str", "x")
    for cmd in (("XADD", "str", "*", "a", "1"), ("XLEN", "str"), ("XRANGE", "str", "-", "+"),
                ("XREVRANGE", "str", "+", "-"), ("XDEL", "str", "1"), ("XTRIM", "str", "MAXLEN", "1"),
                ("XSETID", "str", "1"), ("XREAD", "STREAMS", "str", "0"), ("XREAD", "STREAMS", "str", "$"),
                ("XINFO", "STREAM", "str")):
        assert dc.err(*cmd) == WRONGTYPE, cmd


def test_ranges(dc):
    dc("XADD", "s", "1-1", "a", "1")
    dc("XADD", "s", "2-1", "b", "2")
    dc("XADD", "s", "2-2", "c", "3")
    e1, e2, e3 = [b"1-1", [b"a", b"1"]], [b"2-1", [b"b", b"2"]], [b"2-2", [b"c", b"3"]]
    assert dc("XRANGE", "s", "-", "+") == [e1, e2, e3]
    assert dc("XREVRANGE", "s", "+", "-") == [e3, e2, e1]
    assert dc("XRANGE", "s", "2", "2") == [e2, e3]
    assert dc("XRANGE", "s", "(1-1", "+") == [e2, e3]
    assert dc("XRANGE", "s", "(1", "(2") == [e1, e2, e3]
    assert dc("XRANGE", "s", "-", "(2-2") == [e1, e2]
    assert dc("XREVRANGE", "s", "(2-2", "(1-1") == [e2]
    assert dc("XRANGE", "s", "-", "+", "COUNT", "2") == [e1, e2]
    assert dc("XREVRANGE", "s", "+", "-", "COUNT", "1") == [e3]
    assert dc.frame("XRANGE", "s", "-", "+", "COUNT", "0") == b"*-1\r\n"
    assert dc.frame("XRANGE", "s", "-", "+", "COUNT", "-1") == b"*-1\r\n"
    assert dc("XRANGE", "s", "5", "1") == []
    assert dc("XRANGE", "nokey", "-", "+") == []
    assert dc.err("XRANGE", "s", "(-", "+") == ID_ERR
    assert dc.err("XRANGE", "s", "-", "(+") == ID_ERR
    assert dc.err("XRANGE", "s", "1-x", "+") == ID_ERR
    assert dc.err("XRANGE", "s", "(" + MAX + "-" + MAX, "+") == "ERR invalid start ID for the interval"
    assert dc.err("XRANGE", "s", "-", "(0-0") == "ERR invalid end ID for the interval"
    assert dc.err("XRANGE", "s", "-", "+", "COUNT", "x") == "ERR value is not an integer or out of range"
    assert dc.err("XRANGE", "s", "-", "+", "COUNT") == "ERR syntax error"
    assert dc.err("XRANGE", "s", "-", "+", "foo") == "ERR syntax error"


def test_xdel_and_metadata(dc):
    for i in range(1, 6):
        dc("XADD", "s", "%d-0" % i, "f", i)
    assert dc("XDEL", "s", "1-0", "3-0", "3-0", "9-0") == 2
    assert dc("XDEL", "nokey", "1-0") == 0
    assert dc.err("XDEL", "s", "1-x") == ID_ERR
    assert dc.err("XDEL", "s") == arity("xdel")
    assert [e[0] for e in dc("XRANGE", "s", "-", "+")] == [b"2-0", b"4-0", b"5-0"]
    i = info(dc, "s")
    assert i[b"length"] == 3 and i[b"max-deleted-entry-id"] == b"3-0" and i[b"entries-added"] == 5
    assert i[b"recorded-first-entry-id"] == b"2-0" and i[b"last-generated-id"] == b"5-0"
    assert i[b"first-entry"] == [b"2-0", [b"f", b"2"]] and i[b"last-entry"] == [b"5-0", [b"f", b"5"]]
    assert dc("XDEL", "s", "2-0", "4-0", "5-0") == 3
    i = info(dc, "s")  # an empty stream stays
    assert i[b"length"] == 0 and i[b"recorded-first-entry-id"] == b"0-0" and i[b"first-entry"] is None
    assert i[b"radix-tree-keys"] == 0 and i[b"radix-tree-nodes"] == 1
    assert dc("XADD", "s", "*", "a", "1") != b"5-1"


def test_xtrim(dc):
    assert dc.err("XTRIM", "s") == arity("xtrim")
    assert dc.err("XTRIM", "s", "foo", "1") == "ERR syntax error"
    assert dc.err("XTRIM", "s", "MAXLEN", "1", "LIMIT") == "ERR syntax error"
    assert dc.err("XTRIM", "s", "LIMIT", "5") == \
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
    assert dc.err("XTRIM", "s", "MAXLEN", "=", "1", "LIMIT", "10") == \
        "ERR syntax error, LIMIT cannot be used without the special ~ option"
    assert dc.err("XTRIM", "s", "MINID", "x") == ID_ERR
    assert dc("XTRIM", "nokey", "MAXLEN", "1") == 0
    dc("CONFIG", "SET", "stream-node-max-entries", "10")
    for i in range(1, 101):
        dc("XADD", "s", "%d-1" % i, "a", i)
    assert dc("XTRIM", "s", "MAXLEN", "~", "95") == 0  # whole nodes only
    assert dc("XTRIM", "s", "MAXLEN", "~", "85") == 10
    assert dc("XTRIM", "s", "MAXLEN", "~", "50", "LIMIT", "25") == 20
    assert dc("XLEN", "s") == 70
    assert dc("XTRIM", "s", "MAXLEN", "67") == 3
    assert dc("XRANGE", "s", "-", "+", "COUNT", "1")[0][0] == b"34-1"
    assert dc("XTRIM", "s", "MINID", "~", "55") == 17
    assert dc("XTRIM", "s", "MINID", "60-1") == 9
    assert info(dc, "s")[b"recorded-first-entry-id"] == b"60-1"
    assert dc("XADD", "s", "MAXLEN", "3", "101-*", "a", "1") == b"101-0"
    assert dc("XLEN", "s") == 3
    assert dc("XADD", "s", "MINID", "=", "99", "200-1", "a", "1") == b"200-1"
    assert [e[0] for e in dc("XRANGE", "s", "-", "+")][-1] == b"200-1"


def test_xsetid(dc):
    dc("XADD", "s", "1-1", "a", "1")
    dc("XADD", "s", "2-1", "b", "2")
    assert dc.err("XSETID", "s", "1-0") == "ERR The ID specified in XSETID is smaller than the target stream top item"
    assert dc.err("XSETID", "nokey", "5-0") == "ERR no such key"
    assert dc.err("XSETID", "s", "5-0", "ENTRIESADDED", "1") == \
        "ERR The entries_added specified in XSETID is smaller than the target stream length"
    assert dc.err("XSETID", "s", "5-0", "ENTRIESADDED", "-1") == "ERR entries_added must be positive"
    assert dc.err("XSETID", "s", "5-0", "MAXDELETEDID", "6-0") == \
        "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
    assert dc.err("XSETID", "s", "5-0", "foo") == "ERR syntax error"
    assert dc.err("XSETID", "s", "+") == ID_ERR
    assert dc("XSETID", "s", "50-0", "ENTRIESADDED", "10", "MAXDELETEDID", "3-0") == "OK"
    i = info(dc, "s")
    assert (i[b"last-generated-id"], i[b"entries-added"], i[b"max-deleted-entry-id"]) == (b"50-0", 10, b"3-0")
    assert dc.err("XADD", "s", "49-0", "a", "1") == TOP_ERR
    assert dc("XADD", "s", "50-*", "a", "1") == b"50-1"


def test_xinfo_stream(dc):
    dc("CONFIG", "SET", "stream-node-max-entries", "4")
    for i in range(1, 11):
        dc("XADD", "s", "%d-0" % i, "f", i)
    i = info(dc, "s")
    assert list(i) == [b"length", b"radix-tree-keys", b"radix-tree-nodes", b"last-generated-id",
                       b"max-deleted-entry-id", b"entries-added", b"recorded-first-entry-id", b"groups",
                       b"first-entry", b"last-entry"]
    assert i[b"radix-tree-keys"] == 3 and i[b"radix-tree-nodes"] == 8 and i[b"groups"] == 0
    full = info(dc, "s", "FULL", "COUNT", "2")
    assert list(full) == [b"length", b"radix-tree-keys", b"radix-tree-nodes", b"last-generated-id",
                          b"max-deleted-entry-id", b"entries-added", b"recorded-first-entry-id", b"entries",
                          b"groups"]
    assert full[b"entries"] == [[b"1-0", [b"f", b"1"]], [b"2-0", [b"f", b"2"]]]
    assert full[b"groups"] == []
    assert len(info(dc, "s", "FULL")[b"entries"]) == 10
    assert len(info(dc, "s", "FULL", "COUNT", "0")[b"entries"]) == 10
    assert dc.err("XINFO", "STREAM", "nokey") == "ERR no such key"


def test_node_layout_matches_dump_of_reference_layout(dc):
    """Same commands give the same DUMP bytes as Redis 7.0 (listpack nodes and
    their split points); the payload must at least round-trip here."""
    dc("CONFIG", "SET", "stream-node-max-bytes", "300")
    for i in range(1, 60):
        dc("XADD", "s", "%d-1" % i, "f%d" % (i % 3), "v" * (i % 37), "g", i)
    dc("XDEL", "s", "3-1", "40-1")
    payload = dc("DUMP", "s")
    dc("RESTORE", "t", "0", payload)
    assert dc("XRANGE", "t", "-", "+") == dc("XRANGE", "s", "-", "+")
    assert info(dc, "t") == info(dc, "s")
    assert info(dc, "s")[b"radix-tree-keys"] > 3


def test_keyspace_events(dc, dconnect):
    dc("CONFIG", "SET", "notify-keyspace-events", "KEA")
    sub = dconnect()
    sub.send("PSUBSCRIBE", "__key*__:*")
    sub.read()
    dc("XADD", "s", "MAXLEN", "1", "1-1", "a", "1")
    dc("XADD", "s", "MAXLEN", "1", "2-1", "a", "1")
    dc("XDEL", "s", "2-1")
    dc("XDEL", "s", "2-1")
    dc("XSETID", "s", "5-0")
    dc("XTRIM", "s", "MAXLEN", "0")
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


def test_xread(dc):
    dc("XADD", "s", "1-1", "a", "1")
    dc("XADD", "s", "2-1", "b", "2")
    dc("XADD", "t", "1-0", "c", "3")
    assert dc("XREAD", "STREAMS", "s", "0") == [[b"s", [[b"1-1", [b"a", b"1"]], [b"2-1", [b"b", b"2"]]]]]
    assert dc("XREAD", "COUNT", "1", "STREAMS", "s", "t", "0", "0") == \
        [[b"s", [[b"1-1", [b"a", b"1"]]]], [b"t", [[b"1-0", [b"c", b"3"]]]]]
    assert dc("XREAD", "STREAMS", "s", "nokey", "t", "1-1", "0", "1-0") == [[b"s", [[b"2-1", [b"b", b"2"]]]]]
    assert dc("XREAD", "COUNT", "-5", "STREAMS", "s", "1-1") == [[b"s", [[b"2-1", [b"b", b"2"]]]]]
    assert dc("XREAD", "STREAMS", "s", "$") is NULL_ARRAY
    assert dc("XREAD", "BLOCK", "10", "STREAMS", "s", "$") is NULL_ARRAY
    assert dc.err("XREAD", "STREAMS", "s") == arity("xread")
    assert dc.err("XREAD", "STREAMS", "s", "t", "0") == \
        "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."
    assert dc.err("XREAD", "COUNT", "x", "STREAMS", "s", "0") == "ERR value is not an integer or out of range"
    assert dc.err("XREAD", "BLOCK", "-1", "STREAMS", "s", "0") == "ERR timeout is negative"
    assert dc.err("XREAD", "BLOCK", "x", "STREAMS", "s", "0") == "ERR timeout is not an integer or out of range"
    assert dc.err("XREAD", "foo", "STREAMS", "s", "0") == "ERR syntax error"
    assert dc.err("XREAD", "COUNT", "1") == arity("xread")
    assert dc.err("XREAD", "COUNT", "1", "BLOCK", "0") == "ERR syntax error"
    assert dc.err("XREAD", "STREAMS", "s", ">") == "ERR The > ID can be specified only when calling XREADGROUP " \
        "using the GROUP <group> <consumer> option."
    assert dc.err("XREAD", "STREAMS", "s", "-") == ID_ERR
    dc("HELLO", "3")
    assert dc.frame("XREAD", "STREAMS", "t", "0") == \
        b"%1\r\n$1\r\nt\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n"


def test_xread_blocking(dc, dconnect):
    w1, w2, w3 = dconnect(), dconnect(), dconnect()
    w1.send("XREAD", "BLOCK", "0", "STREAMS", "s", "other", "$", "0")
    wait_blocked(dc, 1)
    w2.send("XREAD", "COUNT", "1", "BLOCK", "5000", "STREAMS", "s", "$")
    wait_blocked(dc, 2)
    # Several entries in one transaction: served after EXEC, COUNT respected.
    dc("MULTI")
    dc("XADD", "s", "1-1", "a", "1")
    dc("XADD", "s", "2-1", "a", "2")
    dc("EXEC")
    assert w1.read() == [[b"s", [[b"1-1", [b"a", b"1"]], [b"2-1", [b"a", b"2"]]]]]
    assert w2.read() == [[b"s", [[b"1-1", [b"a", b"1"]]]]]
    # An entry on the other key only is served with that key alone.
    w1.send("XREAD", "BLOCK", "0", "STREAMS", "s", "other", "$", "$")
    wait_blocked(dc, 1)
    dc("XADD", "other", "7-0", "o", "1")
    assert w1.read() == [[b"other", [[b"7-0", [b"o", b"1"]]]]]
    # Timeout.
    t0 = time.time()
    w3.send("XREAD", "BLOCK", "150", "STREAMS", "s", "$")
    assert w3.read() is NULL_ARRAY
    assert time.time() - t0 >= 0.14
    # Deleting and re-adding below the waited ID does not wake it.
    w3.send("XREAD", "BLOCK", "0", "STREAMS", "s", "2-1")
    wait_blocked(dc, 1)
    dc("DEL", "s")
    dc("XADD", "s", "1-5", "x", "y")
    assert not w3.pending(0.1)
    dc("XADD", "s", "3-0", "x", "z")
    assert w3.read() == [[b"s", [[b"3-0", [b"x", b"z"]]]]]
    # Never blocks inside MULTI or a script.
    dc("MULTI")
    dc("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
    assert dc("EXEC") == [None]
    assert dc("EVAL", "return redis.call('xread', 'streams', KEYS[1], '$')", "1", "s") is None
    assert dc.err("EVAL", "return redis.call('xread', 'block', 0, 'streams', KEYS[1], '$')", "1", "s").startswith(
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


def test_consumer_groups(dc):
    nogroup = "NOGROUP No such consumer group '%s' for key name 's'"
    dc("XADD", "s", "1-1", "a", "1")
    dc("XADD", "s", "2-1", "b", "2")
    assert dc("XGROUP", "CREATE", "s", "g", "$") == "OK"
    assert dc.err("XGROUP", "CREATE", "s", "g", "0") == "BUSYGROUP Consumer Group name already exists"
    assert dc.err("XGROUP", "CREATE", "nokey", "g", "$") == "ERR The XGROUP subcommand requires the key to exist. " \
        "Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
    assert dc("XGROUP", "CREATE", "nokey", "g", "$", "MKSTREAM") == "OK"
    assert dc("XLEN", "nokey") == 0
    assert dc.err("XGROUP", "CREATE", "s", "x", "bad") == ID_ERR
    assert dc.err("XGROUP", "CREATE", "s", "x", "0", "foo") == \
        "ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP."
    assert dc.err("XGROUP", "CREATE", "s", "x", "0", "ENTRIESREAD", "-5") == \
        "ERR value for ENTRIESREAD must be positive or -1"
    assert dc.err("XGROUP", "SETID", "s", "nog", "0") == nogroup % "nog"
    assert dc.err("XGROUP", "CREATECONSUMER", "s", "nog", "x") == nogroup % "nog"
    assert dc("XGROUP", "CREATE", "s", "g2", "0") == "OK"
    assert dc("XGROUP", "CREATECONSUMER", "s", "g2", "alice") == 1
    assert dc("XGROUP", "CREATECONSUMER", "s", "g2", "alice") == 0
    assert dc("XREADGROUP", "GROUP", "g2", "bob", "COUNT", "1", "STREAMS", "s", ">") == \
        [[b"s", [[b"1-1", [b"a", b"1"]]]]]
    assert dc("XREADGROUP", "GROUP", "g2", "carl", "STREAMS", "s", ">") == [[b"s", [[b"2-1", [b"b", b"2"]]]]]
    assert dc("XREADGROUP", "GROUP", "g2", "carl", "STREAMS", "s", ">") is NULL_ARRAY
    assert dc("XREADGROUP", "GROUP", "g2", "bob", "STREAMS", "s", "0") == [[b"s", [[b"1-1", [b"a", b"1"]]]]]
    assert dc("XREADGROUP", "GROUP", "g2", "dave", "STREAMS", "s", "0") == [[b"s", []]]
    assert dc.err("XREADGROUP", "GROUP", "nog", "bob", "STREAMS", "s", ">") == \
        "NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option"
    assert dc.err("XREADGROUP", "GROUP", "g2", "bob", "STREAMS", "s", "$").startswith(
        "ERR The $ ID is meaningless in the context of XREADGROUP")
    assert dc.err("XREADGROUP", "COUNT", "1", "COUNT", "1", "STREAMS", "s", ">") == \
        "ERR Missing GROUP option for XREADGROUP"
    assert dc.err("XREAD", "GROUP", "g2", "bob", "STREAMS", "s", ">") == \
        "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
    summary = dc("XPENDING", "s", "g2")
    assert summary == [2, b"1-1", b"2-1", [[b"bob", b"1"], [b"carl", b"1"]]]
    detail = dc("XPENDING", "s", "g2", "-", "+", "10")
    assert [(d[0], d[1], d[3]) for d in detail] == [(b"1-1", b"bob", 2), (b"2-1", b"carl", 1)]
    assert dc("XPENDING", "s", "g2", "-", "+", "10", "nobody") == []
    assert dc("XPENDING", "s", "g2", "IDLE", "100000", "-", "+", "10") == []
    assert dc.err("XPENDING", "s", "g2", "-", "+") == "ERR syntax error"
    assert dc.err("XPENDING", "s", "nog") == "NOGROUP No such key 's' or consumer group 'nog'"
    assert dc("XACK", "s", "g2", "1-1", "9-9") == 1
    assert dc("XACK", "s", "nog", "1-1") == 0
    assert dc.err("XACK", "s", "g2", "x") == ID_ERR
    assert dc("XGROUP", "DELCONSUMER", "s", "g2", "carl") == 1
    assert dc.frame("XPENDING", "s", "g2") == b"*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n"
    groups = [dict(zip(g[0::2], g[1::2])) for g in dc("XINFO", "GROUPS", "s")]
    assert [(g[b"name"], g[b"consumers"], g[b"pending"], g[b"last-delivered-id"], g[b"entries-read"], g[b"lag"])
            for g in groups] == [(b"g", 0, 0, b"2-1", None, 0), (b"g2", 3, 0, b"2-1", 2, 0)]
    consumers = [dict(zip(x[0::2], x[1::2])) for x in dc("XINFO", "CONSUMERS", "s", "g2")]
    assert [x[b"name"] for x in consumers] == [b"alice", b"bob", b"dave"]
    assert dc.err("XINFO", "CONSUMERS", "s", "nog") == nogroup % "nog"
    dc("XADD", "s", "3-1", "c", "3")
    dc("XADD", "s", "4-1", "d", "4")
    dc("XDEL", "s", "3-1")
    lag = dict(zip(*[iter(dc("XINFO", "GROUPS", "s")[1])] * 2))[b"lag"]
    assert lag is None  # a tombstone after the group's position
    assert dc("XGROUP", "SETID", "s", "g2", "0", "ENTRIESREAD", "0") == "OK"
    assert dc("XGROUP", "DESTROY", "s", "g") == 1
    assert dc("XGROUP", "DESTROY", "s", "g") == 0
    assert info(dc, "s")[b"groups"] == 1
    dc("SET", "str", "x")
    for cmd in (("XGROUP", "CREATE", "str", "g", "$"), ("XREADGROUP", "GROUP", "g", "c", "STREAMS", "str", ">"),
                ("XACK", "str", "g", "1-1"), ("XPENDING", "str", "g"), ("XINFO", "GROUPS", "str")):
        assert dc.err(*cmd) == WRONGTYPE, cmd


def test_consumer_group_events_and_blocking(dc, dconnect):
    dc("CONFIG", "SET", "notify-keyspace-events", "KEA")
    dc("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    waiter = dconnect()
    waiter.send("XREADGROUP", "GROUP", "g", "w", "BLOCK", "0", "STREAMS", "s", ">")
    wait_blocked(dc, 1)
    dc("XADD", "s", "5-1", "k", "v")
    assert waiter.read() == [[b"s", [[b"5-1", [b"k", b"v"]]]]]
    assert dc("XPENDING", "s", "g")[0] == 1
    waiter.send("XREADGROUP", "GROUP", "g", "w", "BLOCK", "0", "STREAMS", "s", ">")
    wait_blocked(dc, 1)
    dc("XGROUP", "DESTROY", "s", "g")
    assert str(waiter.read()) == "NOGROUP the consumer group this client was blocked on no longer exists"
    sub = dconnect()
    sub.send("PSUBSCRIBE", "__keyevent*")
    sub.read()
    dc("XGROUP", "CREATE", "s", "g", "0")
    dc("XREADGROUP", "GROUP", "g", "new", "STREAMS", "s", ">")
    dc("XGROUP", "CREATECONSUMER", "s", "g", "other")
    dc("XGROUP", "DELCONSUMER", "s", "g", "other")
    dc("XGROUP", "SETID", "s", "g", "0")
    dc("XGROUP", "DESTROY", "s", "g")
    events = []
    while sub.pending(0.2):
        events.append(sub.read()[2].decode().split(":", 1)[1])
    assert events == ["xgroup-create", "xgroup-createconsumer", "xgroup-createconsumer", "xgroup-delconsumer",
                      "xgroup-setid", "xgroup-destroy"]


def test_xclaim_and_xautoclaim(dc):
    for i in range(1, 6):
        dc("XADD", "s", "%d-1" % i, "a", i)
    dc("XGROUP", "CREATE", "s", "g", "0")
    dc("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">")
    assert dc("XCLAIM", "s", "g", "bob", "0", "1-1") == [[b"1-1", [b"a", b"1"]]]
    assert dc("XCLAIM", "s", "g", "bob", "0", "1-1", "JUSTID") == [b"1-1"]
    assert dc("XCLAIM", "s", "g", "bob", "100000", "2-1") == []
    assert dc("XCLAIM", "s", "g", "bob", "0", "9-9") == []
    assert dc("XCLAIM", "s", "g", "bob", "0", "9-9", "FORCE", "JUSTID") == []
    assert dc("XCLAIM", "s", "g", "bob", "0", "2-1", "RETRYCOUNT", "7", "IDLE", "5000", "JUSTID", "LASTID", "9-0") == \
        [b"2-1"]
    detail = {d[0]: (d[1], d[3]) for d in dc("XPENDING", "s", "g", "-", "+", "10")}
    assert detail[b"1-1"] == (b"bob", 2) and detail[b"2-1"] == (b"bob", 7) and detail[b"3-1"] == (b"alice", 1)
    assert dc("XPENDING", "s", "g", "IDLE", "4000", "-", "+", "10")[0][0] == b"2-1"
    assert dict(zip(*[iter(dc("XINFO", "GROUPS", "s")[0])] * 2))[b"last-delivered-id"] == b"9-0"
    assert dc.err("XCLAIM", "s", "g", "bob", "x", "1-1") == "ERR Invalid min-idle-time argument for XCLAIM"
    assert dc.err("XCLAIM", "s", "g", "bob", "0", "x") == "ERR Unrecognized XCLAIM option 'x'"
    assert dc.err("XCLAIM", "s", "g", "bob", "0", "1-1", "IDLE", "x") == "ERR Invalid IDLE option argument for XCLAIM"
    assert dc.err("XCLAIM", "s", "nog", "bob", "0", "1-1") == "NOGROUP No such key 's' or consumer group 'nog'"
    dc("XDEL", "s", "3-1")
    assert dc("XCLAIM", "s", "g", "bob", "0", "3-1") == []  # deleted: leaves the PEL
    assert dc("XPENDING", "s", "g")[0] == 4
    dc("XDEL", "s", "4-1")
    assert dc("XAUTOCLAIM", "s", "g", "zed", "0", "0", "COUNT", "2") == \
        [b"4-1", [[b"1-1", [b"a", b"1"]], [b"2-1", [b"a", b"2"]]], []]
    assert dc("XAUTOCLAIM", "s", "g", "zed", "0", "4-1", "JUSTID") == [b"0-0", [b"5-1"], [b"4-1"]]
    assert dc("XPENDING", "s", "g") == [3, b"1-1", b"5-1", [[b"zed", b"3"]]]
    assert dc.err("XAUTOCLAIM", "s", "g", "zed", "0", "0", "COUNT", "0") == "ERR COUNT must be > 0"
    assert dc.err("XAUTOCLAIM", "s", "g", "zed", "0", "x") == ID_ERR
    assert dc.err("XAUTOCLAIM", "s", "g", "zed", "0", "0", "foo") == "ERR syntax error"
    assert dc.err("XAUTOCLAIM", "s", "nog", "zed", "0", "0") == "NOGROUP No such key 's' or consumer group 'nog'"
    assert dc.err("XAUTOCLAIM", "s", "g", "zed", "x", "0") == "ERR Invalid min-idle-time argument for XAUTOCLAIM"


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

    def picture(dc):
        pel = [(p["message_id"], p["consumer"], p["times_delivered"], p["time_since_delivered"] // 1000)
               for p in dc.xpending_range("s", "g", "-", "+", 100)]
        # Redis 7.0 itself does not replay entries-read (and so lag) exactly: not compared.
        groups = [{k: v for k, v in g.items() if k not in ("entries-read", "lag")} for g in dc.xinfo_groups("s")]
        consumers = sorted((x["name"], x["pending"]) for x in dc.xinfo_consumers("s", "g"))
        return pel, groups, consumers

    before = picture(r)
    s.stop()
    s2 = server_factory("--dir", str(tmp_path), "--appendonly", "yes")
    assert picture(s2.client()) == before


GONE = "UNBLOCKED the stream key no longer exists"


def _block_on_group(dc, waiter, key="s", db=None):
    """waiter blocks in XREADGROUP on group g of key (which it creates)."""
    dc("XGROUP", "CREATE", key, "g", "$", "MKSTREAM")
    if db is not None:
        assert waiter("SELECT", db) == "OK"
    waiter.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", key, ">")
    wait_blocked(dc, 1)


@pytest.mark.parametrize("change", [
    [("DEL", "s")],
    [("UNLINK", "s")],
    [("SET", "s", "x")],
    [("MULTI",), ("DEL", "s"), ("SADD", "s", "m"), ("EXEC",)],
    [("FLUSHALL",)],
    [("FLUSHDB",)],
    [("RENAME", "s", "t")],
    [("PEXPIRE", "s", "1")],
    [("MOVE", "s", "3")],
])
def test_xreadgroup_woken_when_its_stream_goes(dc, dconnect, change):
    """A blocked XREADGROUP fails when its stream is deleted, overwritten,
    flushed, renamed away, expired or moved (7.0: 'no longer exists')."""
    dc("CONFIG", "RESETSTAT")
    waiter = dconnect()
    _block_on_group(dc, waiter)
    for cmd in change:
        dc(*cmd)
    assert str(waiter.read()) == GONE
    wait_blocked(dc, 0)
    assert waiter("PING") == "PONG"
    # Counted as a failed call of XREADGROUP with its error, as in Redis.
    assert b"errorstat_UNBLOCKED:count=1" in dc("INFO", "errorstats")
    stats = dc("INFO", "commandstats").decode()
    assert "cmdstat_xreadgroup:calls=1," in stats and "failed_calls=1" in stats.split("cmdstat_xreadgroup:")[1]


def test_xreadgroup_woken_by_swapdb(dc, dconnect):
    # The stream's db swapped with one where the key is missing, then with
    # one where it is a list: the waiter fails each time.
    for other in ((), (("LPUSH", "s", "e"),)):
        dc("SELECT", "4")
        dc("FLUSHDB")
        for cmd in other:
            dc(*cmd)
        dc("SELECT", "9")
        dc("DEL", "s")
        waiter = dconnect()
        _block_on_group(dc, waiter, db="9")
        dc("SWAPDB", "4", "9")
        assert str(waiter.read()) == GONE
        wait_blocked(dc, 0)


def test_xreadgroup_stays_blocked_while_a_stream_with_its_group_replaces_it(dc, dconnect):
    waiter = dconnect()
    _block_on_group(dc, waiter)
    # Deleted and recreated with the group in one transaction: still a stream
    # with the group when the waiter is looked at, so it waits on.
    dc("MULTI")
    dc("DEL", "s")
    dc("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    dc("EXEC")
    assert not waiter.pending(0.1)
    wait_blocked(dc, 1)
    dc("XADD", "s", "5-1", "f", "v")
    assert waiter.read() == [[b"s", [[b"5-1", [b"f", b"v"]]]]]


def test_xread_without_group_is_not_woken_by_deletion(dc, dconnect):
    dc("XADD", "s", "1-1", "f", "v")
    waiter = dconnect()
    waiter.send("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
    wait_blocked(dc, 1)
    dc("SET", "s", "x")
    dc("DEL", "s")
    assert not waiter.pending(0.1)
    dc("XADD", "s", "2-1", "f", "w")
    assert waiter.read() == [[b"s", [[b"2-1", [b"f", b"w"]]]]]


def test_rename_onto_a_blocked_stream_key(dc, dconnect):
    """RENAME (and RESTORE, COPY, MOVE) of a stream onto the key a client
    waits on serves it, or fails it when the new stream lacks its group."""
    waiter = dconnect()
    _block_on_group(dc, waiter, key="s{t}")
    dc("XGROUP", "CREATE", "s2{t}", "g", "$", "MKSTREAM")
    dc("XADD", "s2{t}", "100-1", "f1", "v1")
    dc("RENAME", "s2{t}", "s{t}")
    assert waiter.read() == [[b"s{t}", [[b"100-1", [b"f1", b"v1"]]]]]
    waiter.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s{t}", ">")
    wait_blocked(dc, 1)
    dc("XADD", "s3{t}", "100-1", "f1", "v1")
    dc("RENAME", "s3{t}", "s{t}")
    assert str(waiter.read()) == "NOGROUP the consumer group this client was blocked on no longer exists"
    # XREAD waiters get the entries of a stream copied, restored or moved in.
    for bring in (lambda: dc("COPY", "src", "dst"),
                  lambda: dc("RESTORE", "dst", "0", dc("DUMP", "src")),
                  lambda: (dc("SELECT", "2"), dc("XADD", "dst", "7-1", "a", "b"), dc("MOVE", "dst", "0"),
                           dc("SELECT", "0"))):
        dc("DEL", "src", "dst")
        dc("XADD", "src", "7-1", "a", "b")
        waiter.send("XREAD", "BLOCK", "0", "STREAMS", "dst", "0")
        wait_blocked(dc, 1)
        bring()
        assert waiter.read() == [[b"dst", [[b"7-1", [b"a", b"b"]]]]]


def test_blocked_consumer_exists_once_served(dc, dconnect):
    dc("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
    waiter = dconnect()
    waiter.send("XREADGROUP", "GROUP", "g", "bob", "BLOCK", "0", "NOACK", "STREAMS", "s", ">")
    wait_blocked(dc, 1)
    # Waiting, bob is no consumer yet.
    assert dc("XINFO", "CONSUMERS", "s", "g") == []
    dc("XADD", "s", "1-1", "f", "v")
    assert waiter.read() == [[b"s", [[b"1-1", [b"f", b"v"]]]]]
    assert [c[1] for c in dc("XINFO", "CONSUMERS", "s", "g")] == [b"bob"]


def test_xreadgroup_on_two_streams_looks_at_the_key_that_changed(dc, dconnect):
    """Woken through one key, the waiter is judged on that key alone: new
    entries on s2 serve it even though s went in the same transaction, when
    s2's change came first; s gone first fails it."""
    for first, then, want in ((("XADD", "s2", "5-1", "a", "b"), ("DEL", "s"), [[b"s2", [[b"5-1", [b"a", b"b"]]]]]),
                              (("DEL", "s"), ("XADD", "s2", "5-1", "a", "b"), GONE)):
        dc("DEL", "s", "s2")
        dc("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
        dc("XGROUP", "CREATE", "s2", "g", "$", "MKSTREAM")
        waiter = dconnect()
        waiter.send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", "s2", ">", ">")
        wait_blocked(dc, 1)
        dc("MULTI")
        dc(*first)
        dc(*then)
        dc("EXEC")
        got = waiter.read()
        assert (str(got) if want == GONE else got) == want
        wait_blocked(dc, 0)


def test_xgroup_setid_takes_minus_and_plus(r):
    r.xadd("events", {"f": "v"}, id="1-1")
    r.xgroup_create("events", "g1", id="0")
    for bad in ("-", "+"):
        with pytest.raises(redis.ResponseError) as e:
            r.xgroup_create("events", "g" + bad, id=bad)
        assert str(e.value) == "Invalid stream ID specified as stream command argument"
    assert r.xgroup_setid("events", "g1", "+")
    assert r.xinfo_groups("events")[0]["last-delivered-id"] == b"18446744073709551615-18446744073709551615"
    assert r.xgroup_setid("events", "g1", "-")
    assert r.xinfo_groups("events")[0]["last-delivered-id"] == b"0-0"
