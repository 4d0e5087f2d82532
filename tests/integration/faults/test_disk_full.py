"""A full disk under the AOF and the RDB: what Redis 7.0 promises there, and
that no acknowledged write is lost. The data directory is a small tmpfs
(small_disk); the log stays outside it. Every case runs on the reference too.
"""
import os
import time

import pytest
import redis

from support import attach, free_port, info, wait_for

VALUE = os.urandom(1024)  # incompressible: an RDB of N keys takes N kB


def write_until_refused(r, limit=20000):
    """SETs of 1 kB, one at a time, until one is refused or the server goes:
    the keys acknowledged, and the refusal (None when the connection closed)."""
    acked = []
    for i in range(limit):
        try:
            r.set(b"k%d" % i, VALUE)
        except redis.exceptions.ResponseError as e:
            return acked, str(e)
        except redis.exceptions.ConnectionError:
            return acked, None
        acked.append(b"k%d" % i)
    raise AssertionError("the disk never filled up: %d keys written" % limit)


def missing(r, keys):
    pipe = r.pipeline(transaction=False)
    for k in keys:
        pipe.exists(k)
    return [k for k, there in zip(keys, pipe.execute()) if not there]


def start_aof(server_factory, disk, policy):
    return server_factory("--dir", disk.path, "--appendonly", "yes", "--appendfsync", policy)


@pytest.mark.server_exits
def test_aof_always_exits_before_acknowledging_what_it_cannot_write(server_factory, small_disk):
    s = start_aof(server_factory, small_disk, "always")
    acked, refusal = write_until_refused(s.client())
    assert refusal is None  # no reply at all: the server is gone
    s.proc.wait(timeout=10)
    assert s.proc.returncode == 1
    log = s.log()
    assert "Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting..." in log
    assert "Short write while writing to the AOF file" in log or "Error writing to the AOF file: No space left on device" in log
    small_disk.resize(64 * 1024)
    s.restart()
    r = s.client()
    assert missing(r, acked) == []
    assert r.dbsize() == len(acked)
    # The short write was cut off the file: it loads as written, not as a truncated file.
    assert "AOF loaded anyway" not in s.log()


def test_aof_everysec_refuses_writes_until_space_returns(server_factory, small_disk):
    s = start_aof(server_factory, small_disk, "everysec")
    r = s.client()
    acked, refusal = write_until_refused(r)
    assert refusal == "MISCONF Errors writing to the AOF file: No space left on device"
    assert info(r, "persistence")["aof_last_write_status"] == "err"
    # Reads go on; PING reports the disk, as a write does.
    assert r.get(acked[-1]) == VALUE
    with pytest.raises(redis.exceptions.ResponseError, match="^MISCONF Errors writing to the AOF file"):
        r.ping()
    with pytest.raises(redis.exceptions.ResponseError, match="^MISCONF"):
        r.eval("return redis.call('set', 'viascript', 1)", 0)
    assert "Error writing to the AOF file: No space left on device" in s.log() or "Short write while writing to the AOF file" in s.log()
    small_disk.resize(64 * 1024)
    freed = time.monotonic()
    # Recovered by itself, with no write to flush the buffer (the cron retries).
    wait_for(lambda: info(r, "persistence")["aof_last_write_status"] == "ok", timeout=5, what="aof_last_write_status:ok")
    r.set("after", "1")
    recovered_s = time.monotonic() - freed
    assert recovered_s < 3
    assert "AOF write error looks solved, Redis can write again." in s.log()
    s.proc.terminate()
    s.proc.wait(timeout=10)
    s.restart()
    r = s.client()
    assert missing(r, acked + [b"after"]) == []


def failed_bgsave(server_factory, disk, *args):
    """A server with 2000 keys whose BGSAVE failed: the disk had no room for them."""
    s = server_factory("--dir", disk.path, *args)
    r = s.client()
    for i in range(2000):
        r.set(b"k%d" % i, VALUE)
    disk.fill(leave_kb=64)
    r.bgsave()
    wait_for(lambda: info(r, "persistence")["rdb_last_bgsave_status"] == "err", what="rdb_last_bgsave_status:err")
    return s, r


def test_bgsave_error_stops_writes_until_a_save_succeeds(server_factory, small_disk):
    s, r = failed_bgsave(server_factory, small_disk, "--save", "1 1")
    assert "Write error saving DB on disk(" in s.log()
    assert "Background saving error" in s.log()
    with pytest.raises(redis.exceptions.ResponseError) as e:
        r.set("refused", "1")
    assert str(e.value).startswith("MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.")
    assert r.get("k1") == VALUE
    small_disk.free()
    # The save point is still due: the cron tries again (5 s after the failed
    # try, as Redis) and writes are accepted once it worked.
    wait_for(lambda: info(r, "persistence")["rdb_last_bgsave_status"] == "ok", timeout=15, what="a save that works")
    r.set("accepted", "1")
    assert r.get("accepted") == b"1"


def test_bgsave_error_with_stop_writes_off_accepts_writes(server_factory, small_disk):
    s, r = failed_bgsave(server_factory, small_disk, "--save", "3600 1", "--stop-writes-on-bgsave-error", "no")
    r.set("accepted", "1")
    small_disk.free()  # else the shutdown's save fails too, and the stop waits for its timeout


def test_failed_rewrite_on_full_disk_leaves_the_aof_loadable(server_factory, small_disk):
    s = start_aof(server_factory, small_disk, "everysec")
    r = s.client()
    keys = []
    for i in range(2000):
        r.set(b"k%d" % i, VALUE)
        keys.append(b"k%d" % i)
    small_disk.fill(leave_kb=128)
    r.bgrewriteaof()
    wait_for(lambda: info(r, "persistence")["aof_rewrite_in_progress"] == "0", what="the rewrite to end")
    p = info(r, "persistence")
    assert p["aof_last_bgrewrite_status"] == "err"
    # Writes still go to the old files while they fit.
    try:
        for i in range(20):
            r.set(b"late%d" % i, b"v")
            keys.append(b"late%d" % i)
    except redis.exceptions.ResponseError as e:
        assert str(e).startswith("MISCONF")
    small_disk.free()
    wait_for(lambda: info(r, "persistence")["aof_last_write_status"] == "ok", what="aof_last_write_status:ok")
    s.proc.terminate()
    s.proc.wait(timeout=10)
    s.restart()
    r = s.client()
    assert missing(r, keys) == []
    # And a rewrite works once there is room.
    r.bgrewriteaof()
    wait_for(lambda: info(r, "persistence")["aof_rewrite_in_progress"] == "0" and
             info(r, "persistence")["aof_last_bgrewrite_status"] == "ok", what="a rewrite that works")


@pytest.mark.parametrize("ignore", ["no", "yes"])
@pytest.mark.server_crash
def test_replica_that_cannot_write_its_aof(server_factory, small_disk, ignore):
    # A replica cannot refuse its master's stream: it stops (Redis's panic)
    # unless replica-ignore-disk-write-errors lets it apply the stream anyway.
    master = server_factory()
    replica = start_aof(server_factory, small_disk, "everysec")
    m, rr = master.client(), replica.client()
    rr.config_set("replica-ignore-disk-write-errors", ignore)
    attach(rr, master)
    n = 0
    for n in range(12000):
        m.set(b"k%d" % n, VALUE)
        if n % 500 == 0 and replica.proc.poll() is not None:
            break
    if ignore == "no":
        replica.proc.wait(timeout=10)
        assert "Replica was unable to write command to disk." in replica.log()
    else:
        m.set("last", "1")
        wait_for(lambda: rr.get("last") == b"1", what="the replica applying the stream")
        assert replica.proc.poll() is None
        assert "Replica is applying a command even though it is unable to write to disk." in replica.log()
        assert info(rr, "persistence")["aof_last_write_status"] == "err"


@pytest.mark.ours
def test_expiry_spool_on_a_full_disk_drops_counted_and_serves(server_factory, small_disk, tmp_path, zctx):
    # The 0MQ expiry push's spool (ours) on a disk that fills up: spooling
    # stops with a log line, what memory cannot hold is dropped and counted,
    # the server keeps serving; once there is room the spool is written
    # again, and a consumer gets everything that was not dropped.
    zport = free_port()
    ep = "tcp://127.0.0.1:%d" % zport
    s = server_factory("--dir", small_disk.path, "--zmq-expiry-endpoint", ep, "--zmq-expiry-backlog", "100kb")
    r = s.client()
    small_disk.fill(leave_kb=64)
    n = 20000
    pipe = r.pipeline(transaction=False)
    for i in range(n):
        pipe.set("full:%d" % i, b"%0100d" % i, px=50)
    pipe.execute()
    wait_for(lambda: r.info("stats")["expired_keys"] == n, what="the keys to expire")
    wait_for(lambda: "0MQ expiry push: spool: cannot write" in s.log(), what="the log line")
    st = r.info("expiry_push")
    assert st["expiry_push_dropped"] > 0 and st["expiry_push_spool_not_written"] > 0
    assert "No space left on device" in st["expiry_push_spool_last_error"]
    assert r.ping() and r.set("still", "serving") and r.get("still") == b"serving"
    small_disk.free()
    wait_for(lambda: "0MQ expiry push: the spool can be written again" in s.log(), what="the spool written again")
    dropped = r.info("expiry_push")["expiry_push_dropped"]
    consumer = zctx.consumer(ep)
    got = set()
    while len(got) < n - dropped and consumer.sock.poll(5000):
        got.add(consumer.sock.recv_multipart()[1])
    assert len(got) == n - dropped
    assert r.info("expiry_push")["expiry_push_spool_messages"] == 0
