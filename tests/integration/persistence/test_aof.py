"""AOF persistence in Redis 7.0's multi-part layout: replay after restart,
BGREWRITEAOF, CONFIG SET appendonly, truncated tails, redis-check-aof on our
files, AOF directories exchanged with Debian's redis-server, and crash tests
(SIGKILL under load: nothing acknowledged is lost with appendfsync always,
about a second at most with everysec)."""
import os
import shutil
import signal
import subprocess
import threading
import time

import pytest
import redis

from support import SENT_ODDLY_STREAM, refuses_to_start, send_oddly, wait_for

REF_SERVER = shutil.which("redis-server")
CHECK_AOF = shutil.which("redis-check-aof")


def start(server_factory, directory, *extra, binary=None):
    args = ("--dir", str(directory), "--appendonly", "yes", "--save", "") + extra
    return server_factory(*args, binary=binary)


def fill(r):
    r.set("str", "v")
    r.set("ttl", "v", ex=1000)
    r.setex("ttl2", 1000, "v")
    r.expire("str", 5000)
    r.incrbyfloat("f", 1.5)
    r.rpush("l", "a", "b", "c")
    r.sadd("s", "x", "y")
    r.hset("h", mapping={"a": "1", "b": "2"})
    r.zadd("z", {"m": 1.5, "n": 2})
    r.eval("redis.call('set','fromlua','1') redis.call('incr','fromlua')", 0)
    with r.pipeline(transaction=True) as p:
        p.set("tx1", "1")
        p.set("tx2", "2")
        p.execute()
    r.execute_command("select", 5)
    r.set("db5", "yes")
    r.execute_command("select", 0)


def picture(r):
    out = {}
    for db in (0, 5):
        r.execute_command("select", db)
        for k in sorted(r.keys("*")):
            t = r.type(k)
            v = {b"string": lambda: r.get(k), b"list": lambda: r.lrange(k, 0, -1),
                 b"set": lambda: sorted(r.smembers(k)), b"hash": lambda: r.hgetall(k),
                 b"zset": lambda: r.zrange(k, 0, -1, withscores=True), b"stream": lambda: r.xrange(k)}[t]()
            out[(db, k)] = (t, v, r.ttl(k) > 0)
    r.execute_command("select", 0)
    return out


def test_replay_after_restart(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    fill(s.client())
    before = picture(s.client())
    ttl = s.client().pttl("ttl")
    s.stop()
    r = start(server_factory, tmp_path).client()
    assert picture(r) == before
    assert abs(r.pttl("ttl") - ttl) < 2000  # absolute deadlines, not restarted TTLs
    assert r.info("persistence")["aof_enabled"] == 1


def test_replaying_an_expired_key_does_not_expire_it_again(server_factory, tmp_path):
    # SET ... PX and the DEL of its expiry are both in the incremental file,
    # after the RDB base: the replay recreates the key with a past deadline
    # and deletes it, but nothing expires during a load (expired_keys stays 0).
    s = start(server_factory, tmp_path)
    r = s.client()
    r.set("a", "1", px=100)
    r.set("kept", "1")
    wait_for(lambda: r.info("stats")["expired_keys"] == 1, what="the expiry")
    s.stop()
    r = start(server_factory, tmp_path).client()
    assert r.info("stats")["expired_keys"] == 0
    assert r.keys("*") == [b"kept"]


def test_layout_and_redis_check_aof(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    fill(s.client())
    d = tmp_path / "appendonlydir"
    manifest = (d / "appendonly.aof.manifest").read_text().splitlines()
    assert any(l.endswith("type b") for l in manifest) and any(l.endswith("type i") for l in manifest)
    for line in manifest:
        assert (d / line.split()[1]).exists()
    if CHECK_AOF:
        out = subprocess.run([CHECK_AOF, str(d / "appendonly.aof.manifest")], capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "All AOF files and manifest are valid" in out.stdout


def test_bgrewriteaof(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    r = s.client()
    fill(r)
    for i in range(500):
        r.incr("counter")
    before_files = set(os.listdir(tmp_path / "appendonlydir"))
    assert r.bgrewriteaof() in (True, b"Background append only file rewriting started")
    deadline = time.time() + 10
    while r.info("persistence")["aof_rewrite_in_progress"] and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    info = r.info("persistence")
    assert info["aof_last_bgrewrite_status"] == "ok" and info["aof_rewrites"] >= 1
    after_files = set(os.listdir(tmp_path / "appendonlydir"))
    assert after_files != before_files
    r.set("after_rewrite", "1")
    before = picture(r)
    s.stop()
    assert picture(start(server_factory, tmp_path).client()) == before


def test_config_set_appendonly_at_run_time(server_factory, tmp_path):
    s = server_factory("--dir", str(tmp_path), "--save", "")
    r = s.client()
    fill(r)
    assert r.config_set("appendonly", "yes")
    r.set("later", "1")
    before = picture(r)
    # Until its first rewrite is done a server refuses SIGTERM ("Writing
    # initial AOF, can't exit."), as Redis 7.0 does.
    wait_for(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0 and
             r.info("persistence")["aof_rewrite_scheduled"] == 0, what="the initial rewrite")
    assert s.stop() is None
    assert picture(start(server_factory, tmp_path).client()) == before


def test_truncated_tail(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    r = s.client()
    r.set("a", "1")
    r.set("b", "2")
    s.stop()
    d = tmp_path / "appendonlydir"
    incr = [l.split()[1] for l in (d / "appendonly.aof.manifest").read_text().splitlines() if l.endswith("type i")][-1]
    with open(d / incr, "ab") as f:
        f.write(b"*3\r\n$3\r\nset\r\n$1\r\nc\r\n$5\r\nhal")
    refuses_to_start(lambda: start(server_factory, tmp_path, "--aof-load-truncated", "no"))
    s2 = start(server_factory, tmp_path, "--aof-load-truncated", "yes")
    r2 = s2.client()
    assert r2.get("a") == b"1" and r2.get("b") == b"2" and r2.get("c") is None
    assert "truncated" in s2.log() or "short read" in s2.log()
    r2.set("c", "3")
    s2.stop()
    assert start(server_factory, tmp_path).client().get("c") == b"3"


@pytest.mark.skipif(REF_SERVER is None, reason="Debian's redis-server is not installed")
@pytest.mark.parametrize("writer", ["ours", "ref"])
def test_aof_directories_move_between_servers(server_factory, tmp_path, writer):
    bins = {"ours": None, "ref": REF_SERVER}
    other = "ref" if writer == "ours" else "ours"
    s = start(server_factory, tmp_path, binary=bins[writer])
    fill(s.client())
    before = picture(s.client())
    s.stop()
    assert picture(start(server_factory, tmp_path, binary=bins[other]).client()) == before


def crash_under_load(server_factory, tmp_path, fsync):
    s = start(server_factory, tmp_path, "--appendfsync", fsync)
    acked = []
    stop = threading.Event()

    def writer():
        r = s.client()
        i = 0
        while not stop.is_set():
            try:
                r.set("k:%d" % i, i)
            except redis.ConnectionError:
                return
            acked.append((i, time.time()))
            i += 1

    t = threading.Thread(target=writer)
    t.start()
    time.sleep(1.5)
    killed_at = time.time()
    s.kill()
    s.proc.wait()
    stop.set()
    t.join()
    r = start(server_factory, tmp_path).client()
    present = {int(k.split(b":")[1]) for k in r.keys("k:*")}
    return acked, present, killed_at


def test_crash_with_appendfsync_always_loses_nothing_acknowledged(server_factory, tmp_path):
    acked, present, _ = crash_under_load(server_factory, tmp_path, "always")
    assert len(acked) > 100
    missing = [i for i, _ in acked if i not in present]
    assert missing == []


def test_crash_with_everysec_loses_at_most_about_a_second(server_factory, tmp_path):
    acked, present, killed_at = crash_under_load(server_factory, tmp_path, "everysec")
    assert len(acked) > 100
    lost = [ts for i, ts in acked if i not in present]
    assert all(ts > killed_at - 2.0 for ts in lost)


def test_random_and_float_commands_replay_exactly(server_factory, tmp_path):
    """SPOP is replayed as SREM of what it popped, HINCRBYFLOAT/INCRBYFLOAT as
    writes of their results, so the data after a restart is the same."""
    s = start(server_factory, tmp_path)
    r = s.client()
    r.sadd("s", *range(200))
    r.sadd("t", *["m%d" % i for i in range(20)])
    r.spop("s")
    r.spop("s", 5)
    r.spop("s", 150)   # most of the set: a different path inside SPOP
    r.spop("t", 100)   # all of it: the key goes
    r.hincrbyfloat("h", "f", 0.1)
    r.hincrbyfloat("h", "f", 1e-3)
    r.incrbyfloat("x", 3.3)
    before = (sorted(r.smembers("s")), r.exists("t"), r.hget("h", "f"), r.get("x"))
    s.stop()
    r2 = start(server_factory, tmp_path).client()
    assert (sorted(r2.smembers("s")), r2.exists("t"), r2.hget("h", "f"), r2.get("x")) == before


def fill_stream(r):
    r.xadd("x", {"a": "1"}, id="1-1")
    r.xadd("x", {"b": "2", "c": "3"}, id="2-1")
    r.xadd("x", {f"f{i}": str(i) for i in range(100)}, id="3-1")  # more fields than a command's 64 items
    r.xgroup_create("x", "g1", id="0")
    r.xreadgroup("g1", "alice", {"x": ">"}, count=2)
    r.execute_command("XGROUP", "CREATECONSUMER", "x", "g1", "bob")
    r.xgroup_create("x", "g0", id="2-1")
    r.xadd("e", {"a": "1"}, id="5-5")
    r.xdel("e", "5-5")
    r.sadd("bigset", *range(130))  # more members than one SADD of the rewrite holds


def stream_picture(r):
    out = {}
    for k in ("x", "e"):
        info = r.xinfo_stream(k)
        groups = [(g["name"], g["consumers"], g["pending"], g["last-delivered-id"], g["entries-read"])
                  for g in r.xinfo_groups(k)]
        pending = {g[0]: [(p["message_id"], p["consumer"], p["times_delivered"])
                          for p in r.xpending_range(k, g[0], "-", "+", 100)] for g in groups}
        consumers = {g[0]: sorted(c["name"] for c in r.xinfo_consumers(k, g[0])) for g in groups}
        out[k] = (r.xrange(k), info["last-generated-id"], info["entries-added"], info["max-deleted-entry-id"],
                  groups, pending, consumers)
    return out


@pytest.mark.skipif(REF_SERVER is None, reason="Debian's redis-server is not installed")
@pytest.mark.parametrize("writer", ["ours", "ref"])
def test_rewrite_without_preamble_is_commands_both_servers_load(server_factory, tmp_path, writer):
    """aof-use-rdb-preamble no: the rewritten base is plain commands (SET,
    RPUSH, SADD, ZADD, HMSET, the stream commands, PEXPIREAT) as Redis 7.0
    writes it, not RESTOREs of DUMP payloads, and either server loads it."""
    bins = {"ours": None, "ref": REF_SERVER}
    s = start(server_factory, tmp_path, "--aof-use-rdb-preamble", "no", binary=bins[writer])
    r = s.client()
    fill(r)
    fill_stream(r)
    before, streams = picture(r), stream_picture(r)
    r.bgrewriteaof()
    deadline = time.time() + 10
    while (r.info("persistence")["aof_rewrite_in_progress"] or not r.info("persistence")["aof_rewrites"]) \
            and time.time() < deadline:
        time.sleep(0.05)
    assert r.info("persistence")["aof_last_bgrewrite_status"] == "ok"
    s.stop()
    d = tmp_path / "appendonlydir"
    base = [l.split()[1] for l in (d / "appendonly.aof.manifest").read_text().splitlines() if l.endswith("type b")][0]
    text = (d / base).read_bytes()
    assert base.endswith(".base.aof") and b"RESTORE" not in text
    for cmd in (b"SET", b"RPUSH", b"SADD", b"ZADD", b"HMSET", b"XADD", b"XSETID", b"XGROUP", b"XCLAIM",
                b"PEXPIREAT", b"CREATECONSUMER"):
        assert b"\r\n" + cmd + b"\r\n" in text, cmd
    for binary in (None, REF_SERVER):
        loaded = start(server_factory, tmp_path, binary=binary)
        assert picture(loaded.client()) == before
        assert stream_picture(loaded.client()) == streams
        loaded.stop()


def test_commands_are_logged_in_canonical_form_however_sent(server_factory, tmp_path):
    s = start(server_factory, tmp_path, "--appendfsync", "always")
    got, want = send_oddly(s)
    assert got == want
    d = tmp_path / "appendonlydir"
    incr = [l.split()[1] for l in (d / "appendonly.aof.manifest").read_text().splitlines() if l.endswith("type i")]
    assert (d / incr[-1]).read_bytes() == b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" + SENT_ODDLY_STREAM
