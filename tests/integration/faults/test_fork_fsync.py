"""A fork that fails (ENOMEM, EAGAIN) and an fsync that fails (EIO), put
under the server by the preload library of faultinject.c: the replies, the
INFO fields and the log lines as Redis 7.0's, the server serving throughout,
and recovery once the fault is gone. Every case runs on the reference too.
"""
import pytest
import redis

from resp_raw import Conn, Error
from support import info, link_up, wait_for

ENOMEM_TEXT = "Cannot allocate memory"


def persistence(r):
    return info(r, "persistence")


@pytest.mark.parametrize("err,text", [("ENOMEM", ENOMEM_TEXT), ("EAGAIN", "Resource temporarily unavailable")])
def test_bgsave_fork_failure_is_answered_and_retried(server_factory, faults, err, text):
    s = server_factory("--save", "1 1", env=faults.env)
    r = s.client()
    faults.set("fork", err)
    r.set("k", "v")
    conn = Conn(s)
    assert conn.call("BGSAVE") == Error("ERR")
    conn.close()
    assert persistence(r)["rdb_last_bgsave_status"] == "err"
    assert "Can't save in background: fork: " + text in s.log()
    # The failed save stops writes as a failed child does (save points set).
    with pytest.raises(redis.exceptions.ResponseError, match="^MISCONF Redis is configured to save RDB snapshots"):
        r.set("k2", "v")
    assert r.get("k") == b"v"
    faults.clear("fork")
    # The save point is due: the cron tries again 5 s after the failure.
    wait_for(lambda: persistence(r)["rdb_last_bgsave_status"] == "ok", timeout=15, what="the retried save")
    r.set("k2", "v")


def test_bgrewriteaof_fork_failure(server_factory, faults):
    s = server_factory("--appendonly", "yes", env=faults.env)
    r = s.client()
    r.set("k", "v")
    faults.set("fork", "ENOMEM")
    with pytest.raises(redis.exceptions.ResponseError) as e:
        r.bgrewriteaof()
    assert str(e.value) == ("Can't execute an AOF background rewriting. "
                            "Please check the server logs for more information.")
    p = persistence(r)
    assert (p["aof_last_bgrewrite_status"], p["aof_rewrites_consecutive_failures"]) == ("err", "0")
    assert "Can't rewrite append only file in background: fork: " + ENOMEM_TEXT in s.log()
    assert "Background AOF rewrite failed" not in s.log()
    # Writes go on: the AOF itself is fine.
    r.set("k2", "v2")
    faults.clear("fork")
    r.bgrewriteaof()
    wait_for(lambda: persistence(r)["aof_rewrite_in_progress"] == "0" and
             persistence(r)["aof_last_bgrewrite_status"] == "ok", what="a rewrite that works")
    s.proc.terminate()
    s.proc.wait(timeout=10)
    s.restart()
    assert s.client().mget("k", "k2") == [b"v", b"v2"]


@pytest.mark.parametrize("diskless", ["no", "yes"])
def test_full_sync_fork_failure_is_retried_by_the_replica(server_factory, faults, diskless):
    master = server_factory("--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0", env=faults.env)
    replica = server_factory()
    m, rr = master.client(), replica.client()
    m.set("k", "v")
    faults.set("fork", "ENOMEM")
    rr.execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: "BGSAVE for replication failed" in master.log(), what="the failed full sync")
    assert info(rr)["master_link_status"] == "down"
    assert m.set("k2", "v2")  # the master serves meanwhile
    faults.clear("fork")
    wait_for(lambda: link_up(rr), timeout=20, what="the replica's retry")
    wait_for(lambda: rr.get("k2") == b"v2", what="the data on the replica")


def test_everysec_fsync_error_refuses_writes(server_factory, faults):
    s = server_factory("--appendonly", "yes", "--appendfsync", "everysec", env=faults.env)
    r = s.client()
    r.set("k", "v")
    faults.set("fsync", "EIO incr.aof")

    def refused():
        try:
            r.set("probe", "1")
            return False
        except redis.exceptions.ResponseError as e:
            assert str(e) == "MISCONF Errors writing to the AOF file: Input/output error"
            return True

    wait_for(refused, timeout=5, what="writes refused after the failed fsync")
    assert persistence(r)["aof_last_write_status"] == "err"
    assert "Fail to fsync the AOF file: Input/output error" in s.log()
    assert r.get("k") == b"v"


@pytest.mark.server_exits
def test_always_fsync_error_exits(server_factory, faults):
    s = server_factory("--appendonly", "yes", "--appendfsync", "always", env=faults.env)
    r = s.client()
    r.set("k", "v")
    faults.set("fsync", "EIO incr.aof")
    with pytest.raises(redis.exceptions.ConnectionError):
        r.set("k2", "v2")
    s.proc.wait(timeout=10)
    assert s.proc.returncode == 1
    assert ("Can't persist AOF for fsync error when the AOF fsync policy is 'always': "
            "Input/output error. Exiting...") in s.log()
    faults.clear("fsync")
    s.restart()
    assert s.client().get("k") == b"v"


def test_rdb_fsync_error_fails_the_save(server_factory, faults):
    s = server_factory("--save", "3600 1", env=faults.env)
    r = s.client()
    r.set("k", "v")
    faults.set("fsync", "EIO temp-")
    r.bgsave()
    wait_for(lambda: persistence(r)["rdb_last_bgsave_status"] == "err", what="the failed save")
    assert "Write error saving DB on disk(fsync): Input/output error" in s.log()
    with pytest.raises(redis.exceptions.ResponseError, match="^MISCONF"):
        r.set("k2", "v")
    faults.clear("fsync")
    r.bgsave()
    wait_for(lambda: persistence(r)["rdb_last_bgsave_status"] == "ok", what="the save that works")
    r.set("k2", "v")


@pytest.mark.ours
def test_everysec_fsync_error_ends_with_a_rewrite_from_memory(server_factory, faults):
    # Redis 7.0 refuses writes until a restart after a failed everysec fsync
    # (a later fsync that works proves nothing: the kernel may have dropped
    # the pages that failed). Ours rewrites the AOF from memory, and accepts
    # writes once that rewrite has put everything on disk again.
    s = server_factory("--appendonly", "yes", "--appendfsync", "everysec", env=faults.env)
    r = s.client()
    for i in range(100):
        r.set("k%d" % i, i)
    faults.set("fsync", "EIO incr.aof")
    wait_for(lambda: persistence(r)["aof_last_write_status"] == "err", timeout=5, what="the failed fsync")
    with pytest.raises(redis.exceptions.ResponseError, match="^MISCONF Errors writing to the AOF file: Input/output error"):
        r.set("refused", "1")
    faults.clear("fsync")
    wait_for(lambda: persistence(r)["aof_last_write_status"] == "ok", timeout=15, what="the rewrite after the error")
    assert "AOF rewritten after the fsync error, Redis can write again." in s.log()
    r.set("after", "1")
    s.proc.terminate()
    s.proc.wait(timeout=10)
    s.restart()
    r = s.client()
    assert r.mget(["k%d" % i for i in range(100)]) == [b"%d" % i for i in range(100)]
    assert r.get("after") == b"1"


def test_appendonly_yes_with_fork_failing_stays_off(server_factory, faults):
    s = server_factory(env=faults.env)
    c = Conn(s)
    faults.set("fork", "ENOMEM")
    assert c.call("CONFIG", "SET", "appendonly", "yes") == Error(
        "ERR CONFIG SET failed (possibly related to argument 'appendonly') - Unable to turn on AOF. Check server logs.")
    assert c.call("CONFIG", "GET", "appendonly") == ["appendonly", "no"]
    p = persistence(s.client())
    assert (p["aof_enabled"], p["aof_rewrite_scheduled"], p["aof_last_bgrewrite_status"], p["aof_rewrites"]) == \
        ("0", "0", "err", "1")
    assert "Redis needs to enable the AOF but can't trigger a background AOF rewrite operation." in s.log()
    faults.clear("fork")
    assert c.call("CONFIG", "SET", "appendonly", "yes") == "OK"
    wait_for(lambda: persistence(s.client())["aof_rewrite_in_progress"] == "0" and
             persistence(s.client())["aof_last_bgrewrite_status"] == "ok", what="the first base")
    c.close()
