"""The multi-part AOF's manifest through rewrites, as Redis 7.0 keeps it:
a base's sequence number grows only when a rewrite succeeds, each rewrite
start opens a new incremental file (so failed rewrites leave several), the
files a rewrite replaced become history (type h, newest first) that is
deleted at once unless aof-disable-auto-gc keeps it, BGREWRITEAOF with
appendonly no writes a base alone, DEBUG LOADAOF reads the manifest again,
repeated failures are counted in INFO and hold automatic rewrites back."""
import os
import signal
import subprocess
import time

import pytest

from support import info, wait_for
from support import free_port, start_fails

MANIFEST = "appendonly.aof.manifest"


def manifest(server):
    with open(os.path.join(server.dir, "appendonlydir", MANIFEST)) as f:
        return [line.strip() for line in f if line.strip()]


def entry(name, seq, kind):
    return f"file {name} seq {seq} type {kind}"


def base(seq):
    return entry(f"appendonly.aof.{seq}.base.rdb", seq, "b")


def incr(seq, kind="i"):
    return entry(f"appendonly.aof.{seq}.incr.aof", seq, kind)


def exists(server, name):
    return os.path.exists(os.path.join(server.dir, "appendonlydir", name))


def rewrite_done(r):
    wait_for(lambda: info(r, "persistence")["aof_rewrite_in_progress"] == "0", what="the rewrite to end")


def bgrewrite(r):
    r.bgrewriteaof()
    rewrite_done(r)


def child_pid(server):
    out = subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True, text=True).stdout.split()
    return int(out[0]) if out else None


def failed_rewrite(server, r):
    r.bgrewriteaof()
    pid = wait_for(lambda: child_pid(server), what="the rewrite child")
    os.kill(pid, signal.SIGKILL)
    rewrite_done(r)


@pytest.fixture
def aof_server(server_factory):
    s = server_factory("--appendonly", "yes", "--auto-aof-rewrite-percentage", "0",
                       "--enable-debug-command", "yes")
    r = s.client()
    wait_for(lambda: os.path.exists(os.path.join(s.dir, "appendonlydir", MANIFEST)), what="the first base")
    rewrite_done(r)
    return s, r


def test_aof_disable_auto_gc_keeps_history_until_turned_off(aof_server):
    s, r = aof_server
    assert r.config_get("aof-disable-auto-gc") == {"aof-disable-auto-gc": "no"}
    assert manifest(s) == [base(1), incr(1)]
    r.config_set("aof-disable-auto-gc", "yes")
    r.set("k", "v")
    bgrewrite(r)
    bgrewrite(r)
    assert manifest(s) == [base(3), incr(2, "h"), base(2)[:-1] + "h", incr(1, "h"),
                           base(1)[:-1] + "h", incr(3)]
    for name in ("appendonly.aof.1.base.rdb", "appendonly.aof.2.base.rdb",
                 "appendonly.aof.1.incr.aof", "appendonly.aof.2.incr.aof"):
        assert exists(s, name)
    r.config_set("aof-disable-auto-gc", "no")
    assert manifest(s) == [base(3), incr(3)]
    wait_for(lambda: not exists(s, "appendonly.aof.1.base.rdb") and not exists(s, "appendonly.aof.2.incr.aof"),
             what="the history files to go")
    r.execute_command("DEBUG", "LOADAOF")
    assert r.get("k") == b"v"


def test_failed_rewrites_open_incr_files_and_keep_the_base_number(aof_server):
    s, r = aof_server
    r.set("k", "v")
    r.config_set("rdb-key-save-delay", 10000000)
    for _ in range(3):
        failed_rewrite(s, r)
    assert manifest(s) == [base(1), incr(1), incr(2), incr(3), incr(4)]
    p = info(r, "persistence")
    assert p["aof_last_bgrewrite_status"] == "err"
    assert p["aof_rewrites_consecutive_failures"] == "3"
    r.set("k2", "v2")
    r.config_set("rdb-key-save-delay", 0)
    bgrewrite(r)
    assert manifest(s) == [base(2), incr(5)]
    p = info(r, "persistence")
    assert p["aof_last_bgrewrite_status"] == "ok"
    assert p["aof_rewrites_consecutive_failures"] == "0"
    wait_for(lambda: not exists(s, "appendonly.aof.4.incr.aof"), what="the history files to go")
    r.execute_command("DEBUG", "LOADAOF")
    assert r.mget("k", "k2") == [b"v", b"v2"]


def test_bgrewriteaof_with_aof_off_writes_a_base_alone(aof_server):
    s, r = aof_server
    r.set("k", "v")
    r.config_set("appendonly", "no")
    bgrewrite(r)
    assert manifest(s) == [base(2)]
    assert not exists(s, "appendonly.aof.1.incr.aof")
    # DEBUG LOADAOF reads the manifest again: numbers go on from what it names
    r.execute_command("DEBUG", "LOADAOF")
    assert r.get("k") == b"v"
    r.config_set("appendonly", "yes")
    rewrite_done(r)
    wait_for(lambda: manifest(s) == [base(3), incr(1)], what="the AOF to be on again")


def test_bgrewriteaof_with_aof_off_and_no_aof_yet(server_factory):
    s = server_factory()
    r = s.client()
    r.set("k", "v")
    bgrewrite(r)
    assert manifest(s) == [base(1)]


def test_enabling_aof_retries_after_a_failed_first_rewrite(server_factory):
    s = server_factory("--enable-debug-command", "yes")
    r = s.client()
    r.set("k", "v")
    r.config_set("rdb-key-save-delay", 10000000)
    r.config_set("appendonly", "yes")
    pid = wait_for(lambda: child_pid(s), what="the first rewrite")
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: "Removing the temp incr aof file" in s.log(), what="the temporary file to go")
    assert not exists(s, MANIFEST)
    assert not exists(s, "temp-appendonly.aof.incr") or info(r, "persistence")["aof_rewrite_in_progress"] == "1"
    r.config_set("rdb-key-save-delay", 0)
    wait_for(lambda: exists(s, MANIFEST) and info(r, "persistence")["aof_rewrite_in_progress"] == "0",
             timeout=20, what="the retried rewrite")
    assert manifest(s) == [base(1), incr(1)]
    r.set("k2", "v2")
    r.execute_command("DEBUG", "LOADAOF")
    assert r.mget("k", "k2") == [b"v", b"v2"]


def test_repeated_failures_hold_automatic_rewrites_back(aof_server):
    s, r = aof_server
    for name, value in (("rdb-key-save-delay", 10000000), ("auto-aof-rewrite-percentage", 1),
                        ("auto-aof-rewrite-min-size", "1kb")):
        r.config_set(name, value)
    r.set("k", "v")
    for _ in range(3):
        failed_rewrite(s, r)
    r.set("x", "x" * 2048)
    wait_for(lambda: "triggered the limit" in s.log(), what="the limit")
    time.sleep(0.3)
    assert info(r, "persistence")["aof_rewrite_in_progress"] == "0"
    assert s.log().count("triggered the limit") == 1
    r.config_set("auto-aof-rewrite-percentage", 0)
    r.config_set("rdb-key-save-delay", 0)
    bgrewrite(r)  # BGREWRITEAOF is not held back
    assert manifest(s) == [base(2), incr(5)]


def test_eval_from_the_aof_writes_on_a_read_only_replica(server_factory, tmp_path):
    d = tmp_path / "appendonlydir"
    d.mkdir()
    (d / MANIFEST).write_text("file appendonly.aof.1.incr.aof seq 1 type i\n")

    def cmd(*a):
        return f"*{len(a)}\r\n" + "".join(f"${len(x)}\r\n{x}\r\n" for x in a)

    (d / "appendonly.aof.1.incr.aof").write_text(
        cmd("select", "9") + cmd("eval", 'redis.call("set",KEYS[1],"100")', "1", "foo")
        + cmd("eval", 'redis.call("incr",KEYS[1])', "1", "foo") + cmd("eval", 'redis.call("incr",KEYS[1])', "1", "foo"))
    s = server_factory("--dir", str(tmp_path), "--appendonly", "yes", "--replica-read-only", "yes",
                       "--replicaof", "127.0.0.1", "0")
    r = s.client()
    r.select(9)
    assert r.get("foo") == b"102"


@pytest.mark.parametrize("manifest,message", [
    ("file appendonly.aof.2.incr.aof seq 2 type i\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
     "Found a non-monotonic sequence number"),
    ("file appendonly.aof.1.incr.aof seq 1 type i\n\nfile appendonly.aof.3.incr.aof seq 3 type i\n",
     "Invalid AOF manifest file format"),
    ("file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.2.base.aof seq 2 type b\n",
     "Found duplicate base file information"),
    ("file appendonly.aof.1.base.aof seq 1 type x\n", "Unknown AOF file type"),
    ("file appendonly.aof.1.base.aof seq 1 type b x\n", "Invalid AOF manifest file format"),
    ("file appendonly.aof.1.base.aof seq 1 type b\n" + "#" * 1200 + "\nfile " + "x" * 1100 + " seq 2 type i\n",
     "The AOF manifest file contains too long line"),
    ("", "Found an empty AOF manifest"),
])
def test_aof_manifest_errors_stop_the_server(tmp_path, manifest, message):
    d = tmp_path / "appendonlydir"
    d.mkdir()
    for name in ("appendonly.aof.1.base.aof", "appendonly.aof.2.base.aof", "appendonly.aof.1.incr.aof",
                 "appendonly.aof.2.incr.aof", "appendonly.aof.3.incr.aof"):
        (d / name).write_bytes(b"*3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n")
    (d / "appendonly.aof.manifest").write_text(manifest)
    out, err = start_fails(tmp_path, "--port", str(free_port()), "--dir", str(tmp_path), "--appendonly", "yes")
    assert "*** FATAL AOF MANIFEST FILE ERROR ***" in out
    assert [l for l in out.splitlines() if l.endswith("# " + message)], out
