"""AOF persistence in Redis 7.0's multi-part layout: replay after restart,
BGREWRITEAOF, CONFIG SET appendonly, truncated tails, redis-check-aof on our
files, AOF directories exchanged with Debian's redis-server, and crash tests
(SIGKILL under load: nothing acknowledged is lost with appendfsync always,
about a second at most with everysec)."""
import os
import shutil
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
    wait_for(lambda: not r.info("persistence")["aof_rewrite_in_progress"])
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


def aof_commands(directory):
    """The commands in the newest incremental AOF file, as lists of bytes."""
    d = os.path.join(str(directory), "appendonlydir")
    manifest = open(os.path.join(d, "appendonly.aof.manifest")).read().splitlines()
    incr = [l.split()[1] for l in manifest if l.endswith("type i")][-1]
    data = open(os.path.join(d, incr), "rb").read()
    out, pos = [], 0
    while pos < len(data):
        assert data[pos:pos + 1] == b"*"
        eol = data.index(b"\r\n", pos)
        n, pos = int(data[pos + 1:eol]), eol + 2
        cmd = []
        for _ in range(n):
            eol = data.index(b"\r\n", pos)
            length, pos = int(data[pos + 1:eol]), eol + 2
            cmd.append(data[pos:pos + length])
            pos += length + 2
        out.append(cmd)
    return out


@pytest.fixture
def aof(server_factory, tmp_path):
    s = server_factory("--dir", str(tmp_path), "--appendonly", "yes", "--appendfsync", "always")
    r = s.client()
    wait_for(lambda: not r.info("persistence")["aof_rewrite_in_progress"])
    return r, tmp_path


def writes(cmds):
    return [[a.lower() if i == 0 else a for i, a in enumerate(c)] for c in cmds if c[0].lower() != b"select"]


def test_restore_with_relative_ttl_is_replayed_with_absttl(aof):
    r, d = aof
    r.set("src", "value")
    payload = r.dump("src")
    before = int(time.time() * 1000)
    r.restore("k", 100000, payload)
    after = int(time.time() * 1000)
    restore = [c for c in aof_commands(d) if c[0].lower() == b"restore"][-1]
    assert restore[1] == b"k" and restore[3] == payload and restore[-1].upper() == b"ABSTTL"
    assert before + 100000 <= int(restore[2]) <= after + 100000
    # an absolute TTL is replayed as it was given
    r.restore("k2", before + 50000, payload, absttl=True)
    restore = [c for c in aof_commands(d) if c[0].lower() == b"restore"][-1]
    assert restore[2] == str(before + 50000).encode() and restore[-1].upper() == b"ABSTTL"


def test_transaction_writing_once_is_not_framed(aof):
    r, d = aof
    with r.pipeline(transaction=True) as p:
        p.set("one", "1")
        p.get("one")
        p.execute()
    with r.pipeline(transaction=True) as p:
        p.set("a", "1")
        p.set("b", "2")
        p.execute()
    r.eval("redis.call('set', 'fromlua', '1')", 0)
    r.eval("redis.call('set', 'l1', '1') redis.call('set', 'l2', '2')", 0)
    with r.pipeline(transaction=True) as p:
        p.get("one")
        p.execute()
    assert writes(aof_commands(d)) == [
        [b"set", b"one", b"1"],
        [b"multi"], [b"set", b"a", b"1"], [b"set", b"b", b"2"], [b"exec"],
        [b"set", b"fromlua", b"1"],
        [b"multi"], [b"set", b"l1", b"1"], [b"set", b"l2", b"2"], [b"exec"],
    ]


def test_xreadgroup_replays_as_its_effects(aof):
    r, d = aof
    r.xadd("s", {"a": "b"}, id="1-1")
    r.xgroup_create("s", "g", id="$")
    r.xgroup_create("s", "quiet", id="0")
    r.xreadgroup("g", "c1", {"s": ">"})  # nothing to deliver: nothing replayed
    r.xadd("s", {"c": "d"}, id="2-1")
    r.xreadgroup("g", "c2", {"s": ">"})
    r.xreadgroup("quiet", "nobody", {"s": ">"}, noack=True)
    cmds = [[a.lower() if i < 2 else a for i, a in enumerate(c)] for c in writes(aof_commands(d))]
    assert [c[:2] for c in cmds] == [
        [b"xadd", b"s"], [b"xgroup", b"create"], [b"xgroup", b"create"], [b"xadd", b"s"],
        [b"xclaim", b"s"],
        [b"multi"], [b"xgroup", b"createconsumer"], [b"xgroup", b"setid"], [b"exec"]]


def raw_client(server):
    """A client that shows BGREWRITEAOF's and BGSAVE's status text as it is."""
    c = server.client(decode_responses=True)
    for cmd in ("BGREWRITEAOF", "BGSAVE"):
        c.set_response_callback(cmd, lambda r, **kw: r)
    return c


def _persistence(c):
    return {k: str(v) for k, v in c.info("persistence").items()}


def _wait_no_child(c):
    wait_for(lambda: _persistence(c)["aof_rewrite_in_progress"] == "0" and
             _persistence(c)["rdb_bgsave_in_progress"] == "0" and
             _persistence(c)["aof_rewrite_scheduled"] == "0", what="no child")


def _child_pid(server):
    out = subprocess.run(["ps", "--ppid", str(server.proc.pid), "-o", "pid="], capture_output=True, text=True).stdout
    pids = out.split()
    assert pids
    return pids[0]


def test_bgrewriteaof_in_multi_is_scheduled_then_forks(server):
    c = raw_client(server)
    forks = c.info("stats")["total_forks"]
    p = c.pipeline(transaction=True)
    p.set("foo", "bar")
    p.bgrewriteaof()
    assert p.execute()[1] == "Background append only file rewriting scheduled"
    wait_for(lambda: c.info("stats")["total_forks"] > forks, what="a fork")
    _wait_no_child(c)
    assert c.info("persistence")["aof_enabled"] == 0
    # CONFIG SET appendonly yes inside MULTI: scheduled too, and a child writes the base.
    forks = c.info("stats")["total_forks"]
    p = c.pipeline(transaction=True)
    p.config_set("appendonly", "yes")
    p.execute()
    wait_for(lambda: c.info("stats")["total_forks"] > forks, what="a fork")
    _wait_no_child(c)
    assert c.info("persistence")["aof_enabled"] == 1
    log = open(server.logfile).read()
    assert "AOF was enabled during a transaction. An AOF background was scheduled to start when possible." in log


def test_bgsave_and_bgrewriteaof_wait_for_each_other(server):
    c = raw_client(server)
    c.set("k", "v")
    c.config_set("rdb-key-save-delay", "10000000")
    assert c.execute_command("BGSAVE") == "Background saving started"
    assert c.bgrewriteaof() == "Background append only file rewriting scheduled"
    assert _persistence(c)["aof_rewrite_scheduled"] == "1"
    c.config_set("rdb-key-save-delay", "0")
    os.kill(int(_child_pid(server)), 9)
    wait_for(lambda: _persistence(c)["aof_rewrite_scheduled"] == "0", what="the rewrite")
    _wait_no_child(c)
    c.config_set("rdb-key-save-delay", "10000000")
    assert c.bgrewriteaof() == "Background append only file rewriting started"
    with pytest.raises(redis.ResponseError) as e:
        c.bgrewriteaof()
    assert str(e.value) == "Background append only file rewriting already in progress"
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command("BGSAVE")
    assert str(e.value) == ("Another child process is active (AOF?): can't BGSAVE right now. "
                            "Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")
    assert c.execute_command("BGSAVE", "SCHEDULE") == "Background saving scheduled"
    c.config_set("rdb-key-save-delay", "0")
    os.kill(int(_child_pid(server)), 9)
    _wait_no_child(c)


def test_turning_aof_off_kills_the_rewrite_child(server):
    c = raw_client(server)
    c.config_set("appendonly", "yes")
    _wait_no_child(c)
    c.set("k", "v")
    c.config_set("rdb-key-save-delay", "10000000")
    assert c.bgrewriteaof() == "Background append only file rewriting started"
    c.config_set("appendonly", "no")
    wait_for(lambda: "Killing running AOF rewrite child" in open(server.logfile).read(), what="the log line")
    assert _persistence(c)["aof_rewrite_in_progress"] == "0"


def test_aof_timestamp_annotations_written_and_loaded(server_factory):
    server = server_factory()
    c = server.client(decode_responses=True)
    c.config_set("appendonly", "yes")
    _wait_no_child(c)
    c.config_set("aof-timestamp-enabled", "yes")
    c.config_set("aof-use-rdb-preamble", "no")
    d = os.path.join(server.dir, "appendonlydir")
    c.set("foo", "bar")
    incr = sorted(f for f in os.listdir(d) if f.endswith(".incr.aof"))[-1]
    assert open(os.path.join(d, incr), "rb").read().startswith(b"#TS:")
    assert c.bgrewriteaof()
    _wait_no_child(c)
    base = [f for f in os.listdir(d) if ".base." in f][0]
    assert open(os.path.join(d, base), "rb").read().startswith(b"#TS:")
    c.set("foo2", "bar2")
    incr = sorted(f for f in os.listdir(d) if f.endswith(".incr.aof"))[-1]
    with open(os.path.join(d, incr), "ab") as f:  # annotations between and after commands load
        f.write(b"#TS:1628217470\r\n*3\r\n$3\r\nset\r\n$4\r\nfoo3\r\n$4\r\nbar3\r\n#TS:1628217471\r\n")
    server.kill()
    server.proc.wait()
    again = server_factory("--dir", server.dir, "--appendonly", "yes")
    c2 = again.client(decode_responses=True)
    assert [c2.get("foo"), c2.get("foo2"), c2.get("foo3")] == ["bar", "bar2", "bar3"]


def test_debug_aof_flush_sleep(server_factory):
    c = server_factory("--enable-debug-command", "yes").client(decode_responses=True)
    c.config_set("appendonly", "yes")
    _wait_no_child(c)
    assert c.execute_command("debug", "aof-flush-sleep", "200000") == "OK"
    t = time.time()
    c.set("k", "v")
    assert time.time() - t >= 0.2
    assert c.execute_command("debug", "aof-flush-sleep", "0") == "OK"


def test_aof_of_redis_before_7_moves_into_the_aof_directory(server_factory, tmp_path):
    d = tmp_path / "work"
    d.mkdir()
    (d / "appendonly.aof").write_bytes(b"*3\r\n$3\r\nset\r\n$2\r\nk1\r\n$2\r\nv1\r\n")
    s = server_factory("--dir", str(d), "--appendonly", "yes")
    c = s.client(decode_responses=True)
    assert c.get("k1") == "v1"
    assert not (d / "appendonly.aof").exists() and (d / "appendonlydir" / "appendonly.aof").exists()
    manifest = (d / "appendonlydir" / "appendonly.aof.manifest").read_text().splitlines()
    assert manifest == ["file appendonly.aof seq 1 type b", "file appendonly.aof.1.incr.aof seq 1 type i"]
    c.set_response_callback("BGREWRITEAOF", lambda r, **kw: r)
    assert c.bgrewriteaof() == "Background append only file rewriting started"
    wait_for(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0, what="the rewrite")
    wait_for(lambda: (d / "appendonlydir" / "appendonly.aof.manifest").read_text().splitlines() ==
             ["file appendonly.aof.2.base.rdb seq 2 type b", "file appendonly.aof.2.incr.aof seq 2 type i"],
             what="the new manifest")


def test_set_pxat_is_propagated_with_the_option_uppercase(server_factory, tmp_path):
    r = server_factory("--appendonly", "yes", "--dir", str(tmp_path)).client()
    when = int(time.time() * 1000) + 100000
    r.execute_command("SET", "foo4", "bar", "pxat", when)
    r.execute_command("SET", "foo5", "bar", "exat", when // 1000)
    time.sleep(1.2)  # appendfsync everysec
    aof = b"".join(p.read_bytes() for p in (tmp_path / "appendonlydir").glob("*.incr.aof"))
    assert b"$4\r\nPXAT\r\n$13\r\n%d\r\n" % when in aof
    assert b"$4\r\nPXAT\r\n$13\r\n%d\r\n" % (when // 1000 * 1000) in aof
    assert b"pxat" not in aof
