"""RDB persistence: SAVE/BGSAVE/LASTSAVE, restart round trips for every type
and encoding with TTLs, files exchanged with Debian's redis-server 7.0 in both
directions, redis-check-rdb on our files, corrupt and truncated files, saving
on shutdown, DUMP/RESTORE payloads."""
import os
import re
import signal
import shutil
import struct
import subprocess
import time

import pytest
import redis

from support import REF_SERVER, enc72, rdb_str, refuses_to_start, start_in_dir as start
from support import child_pids, wait_for

CHECK_RDB = shutil.which("redis-check-rdb")


def fill(r):
    """Every type in both of its encodings, binary data, TTLs, several dbs."""
    p = r.pipeline(transaction=False)
    p.set("str", "hello")
    p.set("int", 12345)
    p.set("neg", -42)
    p.set("bigint", 1 << 40)
    p.set("long", "x" * 500)
    p.set("bin", b"\x00\xff\r\n")
    p.set("ttl", "v", ex=1000)
    p.rpush("list_small", "a", "b", 1, 2)
    p.rpush("list_big", *["e%d" % i for i in range(2000)])
    p.sadd("set_int", *range(100))
    p.sadd("set_ht", *["m%d" % i for i in range(100)])
    p.hset("hash_small", mapping={"f": "v", "n": 1})
    p.hset("hash_big", mapping={"f%d" % i: "v%d" % i for i in range(600)})
    p.zadd("zset_small", {"a": 1, "b": 2.5, "c": -3})
    p.zadd("zset_big", {"m%d" % i: i / 3 for i in range(300)})
    p.zadd("zset_inf", {"lo": float("-inf"), "hi": float("inf")})
    p.execute()
    r.execute_command("select", 3)
    r.set("in_db3", "yes")
    r.execute_command("select", 0)


def snapshot(r):
    """A comparable picture of db 0 and db 3."""
    out = {}
    for db in (0, 3):
        r.execute_command("select", db)
        for k in r.keys("*"):
            t = r.type(k)
            if t == b"string":
                v = r.get(k)
            elif t == b"list":
                v = r.lrange(k, 0, -1)
            elif t == b"set":
                v = sorted(r.smembers(k))
            elif t == b"hash":
                v = r.hgetall(k)
            else:
                v = r.zrange(k, 0, -1, withscores=True)
            out[(db, k)] = (t, v, r.object("encoding", k), r.ttl(k) > 0)
    r.execute_command("select", 0)
    return out


# What Redis 7.0 calls the encodings we share with Redis 7.2 (small sets and
# lists are listpacks): the only difference a file moved between us and the
# reference may show.
ENCODING_70 = {(b"set", b"listpack"): b"hashtable", (b"list", b"listpack"): b"quicklist"}


def as_70(snap):
    return {k: (t, v, ENCODING_70.get((t, enc), enc), ttl) for k, (t, v, enc, ttl) in snap.items()}


def test_save_lastsave_and_restart(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    r = s.client()
    fill(r)
    before = snapshot(r)
    last = r.lastsave()
    time.sleep(1.1)
    assert r.save() is True
    assert r.lastsave() > last
    assert r.info("persistence")["rdb_changes_since_last_save"] == 0
    assert os.path.exists(tmp_path / "dump.rdb")
    s.stop()
    s2 = start(server_factory, tmp_path)
    assert snapshot(s2.client()) == before


def test_bgsave_while_writing(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    r = s.client()
    fill(r)
    assert r.bgsave() in (True, b"Background saving started")
    for i in range(2000):
        r.set("during:%d" % i, i)
    wait_for(lambda: not r.info("persistence")["rdb_bgsave_in_progress"])
    info = r.info("persistence")
    assert info["rdb_last_bgsave_status"] == "ok"
    assert info["rdb_bgsave_in_progress"] == 0
    s.stop()
    r2 = start(server_factory, tmp_path).client()
    assert r2.get("str") == b"hello"


def test_fork_and_copy_on_write_figures(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    r = s.client()
    assert r.info("stats")["total_forks"] == 0
    assert r.info("persistence")["rdb_last_cow_size"] == 0
    fill(r)
    r.bgsave()
    wait_for(lambda: r.info("persistence")["rdb_bgsave_in_progress"] == 0)
    stats, persistence = r.info("stats"), r.info("persistence")
    assert stats["total_forks"] == 1 and stats["latest_fork_usec"] > 0
    # The child's own buffers are private dirty memory at least.
    assert persistence["rdb_last_cow_size"] > 0
    assert persistence["aof_last_cow_size"] == 0
    assert re.search(r"Fork CoW for RDB: current \d+ MB, peak \d+ MB, average \d+ MB", s.log())
    r.config_set("appendonly", "yes")
    rewriting = lambda: (r.info("persistence")["aof_rewrite_in_progress"] or  # noqa: E731
                         r.info("persistence")["aof_rewrite_scheduled"])
    wait_for(lambda: not rewriting())
    r.bgrewriteaof()
    wait_for(lambda: not rewriting() and r.info("persistence")["aof_last_cow_size"] > 0)
    assert re.search(r"Fork CoW for AOF rewrite: current \d+ MB, peak \d+ MB, average \d+ MB", s.log())
    # Redis also forks for the rewrite that CONFIG SET appendonly yes starts; we write that one inline.
    assert r.info("stats")["total_forks"] >= 2


@pytest.mark.parametrize("sig,status", [(signal.SIGUSR1, "ok"), (signal.SIGKILL, "err")])
def test_a_bgsave_child_killed_by_a_signal(server_factory, tmp_path, sig, status):
    """As Redis: the log says which signal, the temp file goes, and only a signal other than
    SIGUSR1 (the way to stop a save) makes it a failed save."""
    s = start(server_factory, tmp_path)
    r = s.client()
    fill(r)
    r.config_set("rdb-key-save-delay", "100000")
    r.bgsave()
    child = int(wait_for(lambda: child_pids(s.proc.pid), what="the BGSAVE child")[0])
    wait_for(lambda: os.path.exists(tmp_path / ("temp-%d.rdb" % child)), what="the child's temp file")
    os.kill(child, sig)
    wait_for(lambda: r.info("persistence")["rdb_bgsave_in_progress"] == 0, what="the child's end")
    assert r.info("persistence")["rdb_last_bgsave_status"] == status
    assert "Background saving terminated by signal %d" % sig in s.log()
    assert not os.path.exists(tmp_path / ("temp-%d.rdb" % child))


def test_bgsave_errors(r):
    with pytest.raises(redis.ResponseError, match="syntax error"):
        r.execute_command("bgsave", "foo")


def test_shutdown_saves_with_save_points_and_nosave_does_not(server_factory, tmp_path):
    s = server_factory("--dir", str(tmp_path), "--save", "3600 1")
    r = s.client()
    r.set("a", "1")
    r.shutdown()  # redis-py returns once the server has closed the connection
    s.proc.wait(10)
    assert os.path.exists(tmp_path / "dump.rdb")
    s2 = server_factory("--dir", str(tmp_path), "--save", "3600 1")
    r2 = s2.client()
    assert r2.get("a") == b"1"
    r2.set("b", "2")
    r2.shutdown(nosave=True)
    s2.proc.wait(10)
    r3 = server_factory("--dir", str(tmp_path)).client()
    assert r3.get("a") == b"1" and r3.get("b") is None


def test_sigterm_saves(server_factory, tmp_path):
    s = server_factory("--dir", str(tmp_path), "--save", "3600 1")
    s.client().set("k", "v")
    s.proc.terminate()
    s.proc.wait(10)
    assert server_factory("--dir", str(tmp_path)).client().get("k") == b"v"


def test_expired_keys_dropped_on_load(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    r = s.client()
    r.set("short", "v", px=300)
    r.set("long", "v", ex=1000)
    r.save()
    s.stop()
    time.sleep(0.5)
    r2 = start(server_factory, tmp_path).client()
    assert r2.exists("short") == 0
    assert r2.exists("long") == 1


def handmade_rdb(dbs):
    """An RDB file of string keys: dbs is [(db, [(key, value, expire_ms or None)])].
    Checksum 0: not checked."""
    out = b"REDIS0009"
    for db, keys in dbs:
        out += b"\xfe" + bytes([db])
        for k, v, expire_ms in keys:
            if expire_ms is not None:
                out += b"\xfc" + struct.pack("<Q", expire_ms)
            out += b"\x00" + rdb_str(k) + rdb_str(v)
    return out + b"\xff" + b"\x00" * 8


def test_load_keys_of_several_dbs_with_ttls(server_factory, tmp_path):
    """Keys of several dbs in runs of every length, TTLs on some, some
    already expired: each lands in its db with its TTL, expired ones are not
    loaded (keys are stored in batches, flushed at each SELECTDB)."""
    future = int(time.time() * 1000) + 3600 * 1000
    past = int(time.time() * 1000) - 1000
    dbs, expected = [], {}
    for db, count in ((0, 37), (1, 1), (5, 100), (2, 16), (0, 3)):
        keys = []
        for i in range(count):
            k, v = b"k%d:%d:%d" % (db, len(dbs), i), b"v%d" % i
            expire = (future if i % 3 == 0 else past) if i % 2 == 0 else None
            keys.append((k, v, expire))
            if expire != past:
                expected[(db, k)] = (v, expire is not None)
        dbs.append((db, keys))
    (tmp_path / "dump.rdb").write_bytes(handmade_rdb(dbs))
    r = start(server_factory, tmp_path).client()
    got = {}
    for db in (0, 1, 2, 5):
        r.execute_command("select", db)
        for k in r.keys("*"):
            got[(db, k)] = (r.get(k), r.pttl(k) > 0)
    assert got == expected


def test_duplicated_key_in_a_file_refuses_to_start(server_factory, tmp_path):
    keys = [(b"key%d" % i, b"v", None) for i in range(40)]
    keys.insert(30, (b"key7", b"again", None))
    (tmp_path / "dump.rdb").write_bytes(handmade_rdb([(0, keys)]))
    e = refuses_to_start(lambda: start(server_factory, tmp_path), reference_status=(-6,))  # Redis panics
    assert "RDB has duplicated key 'key7' in DB 0" in str(e)


def test_truncated_and_corrupt_files_refuse_to_start(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    fill(s.client())
    s.client().save()
    s.stop()
    path = tmp_path / "dump.rdb"
    good = path.read_bytes()
    for bad in (good[: len(good) // 2], good[:-3], good[:20] + b"\x00" * 50 + good[70:]):
        path.write_bytes(bad)
        refuses_to_start(lambda: start(server_factory, tmp_path), reference_status=(0, 1, -6))
        assert path.read_bytes() == bad  # never overwritten
    path.write_bytes(b"NOTREDIS0010")
    refuses_to_start(lambda: start(server_factory, tmp_path), reference_status=(0, 1, -6))


def test_dump_restore(r):
    fill(r)
    for k in ("str", "int", "long", "list_big", "set_int", "set_ht", "hash_small", "hash_big", "zset_small",
              "zset_big"):
        payload = r.dump(k)
        r.restore(k + ":copy", 0, payload)
        assert r.type(k + ":copy") == r.type(k)
        assert r.object("encoding", k + ":copy") == r.object("encoding", k)
    assert r.lrange("list_big:copy", 0, -1) == r.lrange("list_big", 0, -1)
    assert r.zrange("zset_big:copy", 0, -1, withscores=True) == r.zrange("zset_big", 0, -1, withscores=True)
    assert r.dump("nokey") is None


def test_restore_options_and_errors(r):
    r.set("k", "v")
    payload = r.dump("k")
    with pytest.raises(redis.ResponseError, match="BUSYKEY Target key name already exists."):
        r.restore("k", 0, payload)
    assert r.restore("k", 0, payload, replace=True) == b"OK"
    assert r.restore("t", 5000, payload) == b"OK"
    assert 0 < r.pttl("t") <= 5000
    assert r.restore("abs", int(time.time() * 1000) + 100000, payload, absttl=True) == b"OK"
    assert 90 < r.ttl("abs") <= 100
    assert r.restore("gone", 1, payload, absttl=True) == b"OK"  # already in the past
    assert r.exists("gone") == 0
    assert r.restore("idle", 0, payload, idletime=1000) == b"OK"
    assert r.object("idletime", "idle") >= 1000
    for args, msg in [((-1, payload), "Invalid TTL value, must be >= 0"),
                      ((0, b"garbage"), "DUMP payload version or checksum are wrong"),
                      ((0, payload[:-1] + bytes([payload[-1] ^ 1])), "DUMP payload version or checksum are wrong"),
                      ((0, payload[:-8] + b"\x00" * 8), "DUMP payload version or checksum are wrong")]:
        with pytest.raises(redis.ResponseError, match=msg):
            r.execute_command("restore", "new", *args)
    for extra, msg in [(("idletime", "-1"), "Invalid IDLETIME value, must be >= 0"),
                       (("freq", "300"), "Invalid FREQ value, must be >= 0 and <= 255"),
                       (("idletime", "1", "freq", "1"), "syntax error"), (("foo",), "syntax error")]:
        with pytest.raises(redis.ResponseError, match=msg):
            r.execute_command("restore", "new", 0, payload, *extra)


@pytest.mark.skipif(CHECK_RDB is None, reason="redis-check-rdb is not installed")
def test_redis_check_rdb_accepts_our_file(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    fill(s.client())
    s.client().function_load("#!lua name=lib\nredis.register_function('f', function() return 1 end)")
    s.client().save()
    out = subprocess.run([CHECK_RDB, str(tmp_path / "dump.rdb")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "RDB looks OK" in out.stdout


@pytest.mark.skipif(REF_SERVER is None, reason="Debian's redis-server is not installed")
@pytest.mark.parametrize("writer,reader", [("server", "ref"), ("ref", "server")])
def test_files_move_between_servers(server_factory, tmp_path, writer, reader):
    binaries = {"server": None, "ref": REF_SERVER}
    s = start(server_factory, tmp_path, binaries[writer])
    r = s.client()
    fill(r)
    before = snapshot(r)
    if writer == "server":  # the file carries our listpack sets and lists as 7.0 types
        assert before[(0, b"set_ht")][2] == enc72(b"listpack", b"hashtable")
        assert before[(0, b"list_small")][2] == enc72(b"listpack", b"quicklist")
    r.save()
    s.stop()
    after = snapshot(start(server_factory, tmp_path, binaries[reader]).client())
    assert as_70(after) == as_70(before)


@pytest.mark.skipif(REF_SERVER is None, reason="Debian's redis-server is not installed")
def test_dump_payloads_move_between_servers(server_factory, tmp_path):
    os.makedirs(tmp_path / "a")
    os.makedirs(tmp_path / "b")
    ours = start(server_factory, tmp_path / "a").client()
    ref = start(server_factory, tmp_path / "b", REF_SERVER).client()
    fill(ours)
    fill(ref)
    for k in ("str", "int", "long", "list_small", "list_big", "set_int", "set_ht", "hash_small", "hash_big",
              "zset_small", "zset_big"):
        assert ours.dump(k) == ref.dump(k) or k in ("set_ht", "hash_big", "zset_big", "list_big"), k
        ref.restore(k + ":from_ours", 0, ours.dump(k))
        ours.restore(k + ":from_ref", 0, ref.dump(k))
        assert ref.type(k + ":from_ours") == ours.type(k + ":from_ref")
    # Same content whichever server wrote the payload (encodings as 7.0 names them).
    got_ref = {k: v for k, v in as_70(snapshot(ref)).items() if k[1].endswith(b":from_ours")}
    got_ours = {k: v for k, v in as_70(snapshot(ours)).items() if k[1].endswith(b":from_ref")}
    assert {(db, k[:-len(b":from_ours")]): v for (db, k), v in got_ref.items()} == \
        {(db, k[:-len(b":from_ref")]): v for (db, k), v in got_ours.items()}


def test_debug_reload_round_trips_the_dataset(server_factory, tmp_path):
    s = server_factory("--dir", str(tmp_path), "--save", "", "--enable-debug-command", "yes")
    r = s.client()
    fill(r)
    before = snapshot(r)
    assert r.execute_command("debug", "reload") == b"OK"
    assert snapshot(r) == before


def test_bgsave_child_stops_when_the_server_is_killed(server_factory):
    """A snapshot child whose server was killed (kill -9, the OOM killer)
    stops at its next progress report instead of writing on for nobody, as
    Redis 7.0's children do (its integration/replication 'replication child
    dies when parent is killed')."""
    server = server_factory("--enable-debug-command", "yes", "--save", "")
    r = server.client()
    r.execute_command("DEBUG", "POPULATE", 10000)
    r.config_set("rdb-key-save-delay", 1000)  # ten seconds of saving
    r.bgsave()
    children = []
    deadline = time.time() + 5
    while not children and time.time() < deadline:
        children = subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True,
                                  text=True).stdout.split()
        time.sleep(0.01)
    assert len(children) == 1
    child = int(children[0])
    server.kill()
    def alive(pid):  # a zombie waiting for its new parent to reap it has stopped too
        try:
            with open("/proc/%d/stat" % pid) as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.time() + 5
    while time.time() < deadline:
        if not alive(child):
            break
        time.sleep(0.05)
    else:
        os.kill(child, 9)
        pytest.fail("the snapshot child outlived its server by 5 s")


def test_clients_are_served_while_the_dataset_loads(server_factory):
    s = server_factory("--enable-debug-command", "yes", "--rdbcompression", "no", "--enable-protected-configs", "yes")
    c = s.client(decode_responses=True)
    c.execute_command("debug", "populate", "20000", "key", "1000")
    c.save()
    c.close()
    s.proc.terminate()
    s.proc.wait(10)
    proc = subprocess.Popen(s.cmd + ["--key-load-delay", "300", "--loading-process-events-interval-bytes", "1024"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    s.proc = proc
    c = s.client(decode_responses=True)
    wait_for(lambda: _info_loading(c) == "1", what="loading")
    assert c.config_set("loglevel", "debug")
    for cmd in (("config", "set", "dir", "x"), ("config", "set", "appendonly", "yes"), ("get", "key:1")):
        with pytest.raises(redis.BusyLoadingError) as e:
            c.execute_command(*cmd)
        assert str(e.value) == "Redis is loading the dataset in memory"
    assert _info_loading(c) == "1"
    proc.terminate()  # shuts down mid-load
    assert proc.wait(10) == 0


def _info_loading(c):
    try:
        return str(c.info("persistence")["loading"])
    except redis.ConnectionError:
        return None


def test_flushall_saves_and_resets_the_write_count_when_save_points_are_set(server_factory, tmp_path):
    r = server_factory("--save", "", "--dir", str(tmp_path)).client()
    r.set("key", "value")
    r.flushall()
    assert r.info("persistence")["rdb_changes_since_last_save"] > 0
    r.config_set("save", "3600 1 300 100 60 10000")
    r.set("key", "value")
    r.flushall()
    assert r.info("persistence")["rdb_changes_since_last_save"] == 0
