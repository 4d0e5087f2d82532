"""kill -9 in the middle of persistence work (an AOF rewrite, its child):
with appendfsync always every acknowledged write is there after the
restart, and the files left behind load. Runs on the reference too.
"""
import os
import signal

from support import info, wait_for


def rewrite_child_pid(s):
    """The pid of the server's AOF rewrite child, from its log line."""
    for line in reversed(s.log().splitlines()):
        if "Background append only file rewriting started by pid" in line:
            return int(line.rsplit(" ", 1)[1])
    raise AssertionError("no rewrite child in the log")


def slow_rewrite(s, r, keys=2000):
    for i in range(keys):
        r.set("base%d" % i, i)
    r.config_set("rdb-key-save-delay", 500)  # us per key: the rewrite takes ~1 s
    r.bgrewriteaof()
    wait_for(lambda: info(r, "persistence")["aof_rewrite_in_progress"] == "1", what="the rewrite to start")


def test_kill_9_during_rewrite_loses_no_acknowledged_write(server_factory):
    s = server_factory("--appendonly", "yes", "--appendfsync", "always")
    r = s.client()
    slow_rewrite(s, r)
    child = rewrite_child_pid(s)
    acked = []
    for i in range(300):
        r.set("during%d" % i, i)
        acked.append("during%d" % i)
    assert info(r, "persistence")["aof_rewrite_in_progress"] == "1"
    s.kill()
    try:
        os.kill(child, signal.SIGKILL)
    except ProcessLookupError:
        pass
    s.restart()
    r = s.client()
    assert r.dbsize() == 2000 + len(acked)
    assert r.mget(acked) == [b"%d" % i for i in range(len(acked))]
    assert r.get("base1999") == b"1999"


def test_killed_rewrite_child_leaves_the_old_files_in_use(server_factory):
    s = server_factory("--appendonly", "yes", "--appendfsync", "always")
    r = s.client()
    slow_rewrite(s, r)
    os.kill(rewrite_child_pid(s), signal.SIGKILL)
    wait_for(lambda: info(r, "persistence")["aof_rewrite_in_progress"] == "0", what="the child to be reaped")
    assert info(r, "persistence")["aof_last_bgrewrite_status"] == "err"
    assert "Background AOF rewrite terminated by signal 9" in s.log()
    r.set("after", "1")
    s.kill()
    s.restart()
    r = s.client()
    assert r.dbsize() == 2001
    assert r.get("after") == b"1"
