"""SHUTDOWN as Redis 7.0 does it (issues 14 and 15): a master whose replicas
lag pauses writes and waits for them (shutdown-timeout; NOW, FORCE, ABORT;
SIGTERM and SIGINT take the same path), the final snapshot and the AOF on the
way out, what a failed shutdown leaves (the server goes on, its SHUTDOWN
clients hear why), temp files of interrupted snapshots removed, FLUSHALL
killing a BGSAVE, -MISCONF for PING and scripts, a corrupt RDB stopping the
start-up, and the load counters. Every test runs on the reference too.
"""
import glob
import os
import signal
import subprocess
import time

import pytest

from resp_raw import Conn, Error
from support import attach, caught_up, info, refuses_to_start, wait_for

DEBUG = ("--enable-debug-command", "yes")


def exited(server, timeout=20):
    """The server process ended (within timeout): its exit code."""
    return server.proc.wait(timeout=timeout)


def child_pids(pid):
    """The processes whose parent is pid (a BGSAVE child)."""
    kids = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.split("/")[2]))
    return kids


class Stopped:
    """A replica process held with SIGSTOP (so it acknowledges nothing) for
    the time of a with block; always continued afterwards."""

    def __init__(self, server):
        self.server = server

    def __enter__(self):
        os.kill(self.server.proc.pid, signal.SIGSTOP)
        time.sleep(0.05)
        return self

    def resume(self):
        os.kill(self.server.proc.pid, signal.SIGCONT)

    def __exit__(self, *exc):
        self.resume()


def master_and_replica(server_factory, *master_args):
    master = server_factory(*master_args)
    replica = server_factory()
    m, r = master.client(), replica.client()
    attach(r, master)
    m.set("k", 1)
    caught_up(m, r)
    # The replica acknowledges the PING too: wait until it acknowledged everything.
    wait_for(lambda: info(m).get("slave0", "").split("offset=")[1].split(",")[0] == info(m)["master_repl_offset"],
             what="the replica's ACK")
    return master, replica, m, r


def test_shutdown_arguments_and_config(server):
    c = Conn(server)
    assert c.call("SHUTDOWN", "ABORT") == Error("ERR No shutdown in progress.")
    for args in (("ABORT", "NOW"), ("NOW", "ABORT"), ("ABORT", "FORCE"), ("SAVE", "NOSAVE"), ("FOO",)):
        assert c.call("SHUTDOWN", *args) == Error("ERR syntax error"), args
    assert c.call("CONFIG", "GET", "shutdown-timeout") == ["shutdown-timeout", "10"]
    assert c.call("CONFIG", "SET", "shutdown-timeout", "-1") == Error(
        "ERR CONFIG SET failed (possibly related to argument 'shutdown-timeout') - argument must be between 0 and "
        "2147483647 inclusive")
    assert c.call("CONFIG", "SET", "shutdown-timeout", "0") == "OK"
    assert c.call("MULTI") == "OK"
    assert c.call("SHUTDOWN") == Error("ERR Command not allowed inside a transaction")
    assert c.call("EXEC") == Error("EXECABORT Transaction discarded because of previous errors.")
    assert c.call("EVAL", "return redis.call('shutdown', 'abort')", "0").startswith(
        "ERR This Redis command is not allowed from script")
    assert "shutdown_in_milliseconds" not in c.call("INFO", "server")
    assert c.call("PING") == "PONG"


def test_abort_cancels_a_signal_the_cron_did_not_act_on_yet(server_factory):
    s = server_factory(*DEBUG)
    c = Conn(s)
    assert c.call("DEBUG", "PAUSE-CRON", "1") == "OK"
    os.kill(s.proc.pid, signal.SIGTERM)
    time.sleep(0.1)
    assert c.call("SHUTDOWN", "ABORT") == "OK"
    assert c.call("SHUTDOWN", "ABORT") == Error("ERR No shutdown in progress.")
    assert c.call("DEBUG", "PAUSE-CRON", "0") == "OK"
    time.sleep(0.3)  # a few cron runs
    assert c.call("PING") == "PONG"
    log = s.log()
    assert "signal-handler" in log and "Received SIGTERM scheduling shutdown..." in log
    assert "Shutdown manually aborted." in log


def test_waiting_shutdown_pauses_writes_and_abort_answers_its_clients(server_factory):
    master, replica, m, r = master_and_replica(server_factory, "--shutdown-timeout", "300")
    with Stopped(replica):
        m.incr("k")
        waiters = [Conn(master, timeout=10.0), Conn(master, timeout=10.0)]
        for w in waiters:
            w.send("SHUTDOWN")
        wait_for(lambda: int(info(m, "server").get("shutdown_in_milliseconds", 0)) > 0, what="a waiting shutdown")
        # (the second SHUTDOWN may reach the server after the first began waiting)
        wait_for(lambda: info(m, "clients")["blocked_clients"] == "2", what="both SHUTDOWNs waiting")
        clients = info(m, "clients")
        assert clients["connected_clients"] == "3"  # the replica is not counted
        assert all(w.nothing_pending(0.2) for w in waiters)
        writer = Conn(master, timeout=10.0)
        writer.send("SET", "during", "shutdown")
        assert writer.nothing_pending(0.3)  # writes wait
        assert Conn(master).call("GET", "k") == "2"  # reads do not
        assert Conn(master).call("SHUTDOWN", "ABORT") == "OK"
        for w in waiters:
            assert w.read() == Error("ERR Errors trying to SHUTDOWN. Check logs.")
        assert writer.read() == "OK"
        assert "shutdown_in_milliseconds" not in info(m, "server")
    assert "Waiting for replicas before shutting down." in master.log()
    assert "Shutdown manually aborted." in master.log()
    assert m.ping()


@pytest.mark.parametrize("how", ["shutdown", "sigterm"])
def test_master_waits_for_its_replica_to_catch_up(server_factory, how):
    master, replica, m, r = master_and_replica(server_factory, "--shutdown-timeout", "300")
    with Stopped(replica) as stopped:
        m.incr("k")
        if how == "sigterm":
            os.kill(master.proc.pid, signal.SIGTERM)
        else:
            Conn(master, timeout=30.0).send("SHUTDOWN")
        wait_for(lambda: int(info(m, "server").get("shutdown_in_milliseconds", 0)) > 0, what="a waiting shutdown")
        time.sleep(0.2)
        assert master.proc.poll() is None
        stopped.resume()
        assert exited(master) == 0
    assert r.get("k") == b"2"
    log = master.log()
    assert "Lagging replica" not in log
    assert "1 of 1 replicas are in sync when shutting down." in log
    assert "Redis is now ready to exit, bye bye..." in log


def test_shutdown_timeout_gives_up_on_a_lagging_replica(server_factory):
    master, replica, m, r = master_and_replica(server_factory, "--shutdown-timeout", "1")
    with Stopped(replica):
        m.incr("k")
        start = time.time()
        os.kill(master.proc.pid, signal.SIGTERM)
        assert exited(master) == 0
        assert 0.8 < time.time() - start < 10
    log = master.log()
    assert "Lagging replica 127.0.0.1:%d reported offset" % replica.port in log
    assert "0 of 1 replicas are in sync when shutting down." in log


def test_shutdown_now_does_not_wait(server_factory):
    master, replica, m, r = master_and_replica(server_factory, "--shutdown-timeout", "300")
    with Stopped(replica):
        m.incr("k")
        c = Conn(master)
        c.send("SHUTDOWN", "NOW")
        c.wait_closed(timeout=10)
        assert exited(master, timeout=10) == 0
    assert "0 of 1 replicas are in sync when shutting down." in master.log()


def test_shutdown_timeout_zero_does_not_wait(server_factory):
    master, replica, m, r = master_and_replica(server_factory, "--shutdown-timeout", "0")
    with Stopped(replica):
        m.incr("k")
        Conn(master).send("SHUTDOWN")
        assert exited(master, timeout=10) == 0


def test_shutdown_kills_a_bgsave_and_removes_its_temp_file(server_factory):
    s = server_factory()
    c = Conn(s)
    for i in range(20):
        c.call("SET", i, i)
    assert c.call("CONFIG", "SET", "rdb-key-save-delay", "100000") == "OK"
    assert c.call("BGSAVE") == "Background saving started"
    temp = wait_for(lambda: glob.glob(os.path.join(s.dir, "temp-*.rdb")), what="the child's temp file")
    c.send("SHUTDOWN", "NOSAVE")
    c.wait_closed(timeout=10)
    assert exited(s) == 0
    assert not any(os.path.exists(t) for t in temp)
    assert "There is a child saving an .rdb. Killing it!" in s.log()


def test_flushall_kills_a_bgsave(server_factory):
    s = server_factory()
    c = Conn(s)
    for i in range(100):
        c.call("SET", "key:%d" % i, i)
    assert c.call("CONFIG", "SET", "rdb-key-save-delay", "100000") == "OK"
    assert c.call("BGSAVE") == "Background saving started"
    assert info(s.client(), "persistence")["rdb_bgsave_in_progress"] == "1"
    temp = wait_for(lambda: glob.glob(os.path.join(s.dir, "temp-*.rdb")), what="the child's temp file")
    assert c.call("FLUSHALL") == "OK"
    wait_for(lambda: info(s.client(), "persistence")["rdb_bgsave_in_progress"] == "0", timeout=2,
             what="the BGSAVE to be gone")
    pers = info(s.client(), "persistence")
    assert int(pers["rdb_changes_since_last_save"]) >= 100  # it did not complete
    assert pers["rdb_last_bgsave_status"] == "ok"  # nor did it fail
    wait_for(lambda: not any(os.path.exists(t) for t in temp), what="the temp file to go")
    assert c.call("SET", "x", "y") == "OK"


@pytest.mark.server_exits
def test_second_sigint_exits_at_once_and_removes_the_temp_file(server_factory):
    s = server_factory("--save", "900 1")
    c = Conn(s)
    for i in range(20):
        c.call("SET", i, i)
    assert c.call("CONFIG", "SET", "rdb-key-save-delay", "100000") == "OK"
    temp = os.path.join(s.dir, "temp-%d.rdb" % s.proc.pid)
    os.kill(s.proc.pid, signal.SIGINT)
    wait_for(lambda: os.path.exists(temp), what="the final save to begin")
    os.kill(s.proc.pid, signal.SIGINT)
    assert exited(s, timeout=5) == 1
    assert not os.path.exists(temp)
    assert "You insist... exiting now." in s.log()


def test_a_failed_final_save_keeps_the_server_running(server_factory):
    s = server_factory("--save", "900 1")
    c = Conn(s)
    for i in range(20):
        c.call("SET", i, i)
    os.mkdir(os.path.join(s.dir, "dump.rdb"))  # the rename onto it fails
    assert c.call("SHUTDOWN") == Error("ERR Errors trying to SHUTDOWN. Check logs.")
    assert c.call("PING") == "PONG"
    log = s.log()
    assert "Error trying to save the DB, can't exit." in log
    assert "Errors trying to shut down the server. Check the logs for more information." in log
    os.kill(s.proc.pid, signal.SIGINT)
    wait_for(lambda: s.log().count("Error trying to save the DB, can't exit.") == 2, what="the signal's attempt")
    assert c.call("PING") == "PONG"
    c.send("SHUTDOWN", "NOSAVE")
    c.wait_closed(timeout=10)
    assert exited(s) == 0
    assert "Redis is now ready to exit, bye bye..." in s.log()


def test_the_first_aof_rewrite_holds_the_shutdown(server_factory):
    s = server_factory()
    c = Conn(s)
    c.call("SET", "k", "v")
    assert c.call("CONFIG", "SET", "rdb-key-save-delay", "30000000") == "OK"  # 30 s for the one key
    assert c.call("CONFIG", "SET", "appendonly", "yes") == "OK"
    assert info(s.client(), "persistence")["aof_rewrite_in_progress"] == "1"
    assert c.call("SHUTDOWN") == Error("ERR Errors trying to SHUTDOWN. Check logs.")
    assert "Writing initial AOF, can't exit." in s.log()
    assert c.call("PING") == "PONG"
    c.send("SHUTDOWN", "NOSAVE", "FORCE")
    c.wait_closed(timeout=10)
    assert exited(s) == 0
    log = s.log()
    assert "Writing initial AOF. Exit anyway." in log
    assert "There is a child rewriting the AOF. Killing it!" in log


def test_a_corrupt_rdb_stops_the_start_up(server_factory):
    s = server_factory()
    c = Conn(s)
    c.call("SET", "a", "b")
    assert c.call("SAVE") == "OK"
    s.kill()
    with open(os.path.join(s.dir, "dump.rdb"), "r+b") as f:
        f.seek(-8, os.SEEK_END)
        f.write(b"foobar00")  # the checksum
    e = refuses_to_start(lambda: s.restart())
    assert "Wrong RDB checksum expected" in str(e)
    assert "RDB CRC error" in str(e)


def test_misconf_refuses_ping_and_script_writes(server_factory):
    s = server_factory("--save", "900 1")
    c = Conn(s)
    c.call("SET", "x", "x")
    assert c.call("CONFIG", "SET", "rdb-key-save-delay", "10000000") == "OK"
    assert c.call("BGSAVE") == "Background saving started"
    kids = wait_for(lambda: child_pids(s.proc.pid), what="the BGSAVE child")
    for pid in kids:
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: info(s.client(), "persistence")["rdb_last_bgsave_status"] == "err", what="the failed BGSAVE")
    assert c.call("GET", "x") == "x"
    assert c.call("PING").startswith("MISCONF ")
    assert c.call("SET", "x", "y").startswith("MISCONF ")
    reply = c.call("EVAL", "return redis.call('set', 'x', 1)", "1", "x")
    assert isinstance(reply, Error) and reply.startswith("MISCONF ") and "script: " in reply
    reply = c.call("EVAL", "#!lua\nreturn 1", "0")
    assert isinstance(reply, Error) and reply.startswith("MISCONF ") and "script: " not in reply
    assert c.call("EVAL", "return redis.call('get', 'x')", "1", "x") == "x"
    assert c.call("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'x')", "1", "x") == "x"
    assert c.call("CONFIG", "SET", "rdb-key-save-delay", "0") == "OK"
    assert c.call("BGSAVE") == "Background saving started"
    wait_for(lambda: info(s.client(), "persistence")["rdb_last_bgsave_status"] == "ok", what="a good BGSAVE")
    assert c.call("SET", "x", "y") == "OK"
    assert c.call("PING") == "PONG"


def test_rdb_load_counts_loaded_and_expired_keys(server_factory):
    s = server_factory(*DEBUG)
    c = Conn(s)
    for i in range(100):
        c.call("SET", "live:%d" % i, i)
    assert c.call("DEBUG", "SET-ACTIVE-EXPIRE", "0") == "OK"
    for i in range(30):
        c.call("SET", "gone:%d" % i, i, "PX", "10")
    time.sleep(0.05)
    assert c.call("SAVE") == "OK"
    s.restart()
    pers = info(s.client(), "persistence")
    assert pers["rdb_last_load_keys_loaded"] == "100"
    assert pers["rdb_last_load_keys_expired"] == "30"
    assert "Done loading RDB, keys loaded: 100, keys expired: 30." in s.log()


def test_bgsave_child_reports_its_progress(server_factory):
    s = server_factory(*DEBUG)
    c = Conn(s)
    pers = info(s.client(), "persistence")
    assert (pers["current_cow_size"], pers["current_save_keys_processed"], pers["current_save_keys_total"]) == \
        ("0", "0", "0")
    assert c.call("DEBUG", "POPULATE", "3000", "key", "500") == "OK"
    assert c.call("CONFIG", "SET", "rdb-key-save-delay", "1000") == "OK"  # about 3 s
    assert c.call("BGSAVE") == "Background saving started"
    assert info(s.client(), "persistence")["current_save_keys_total"] == "3000"
    # Writes copy pages the child still shares: it sees them as its own.
    for i in range(200):
        c.call("SETRANGE", "key:%d" % i, "0", "B" * 500)

    def reported():
        p = info(s.client(), "persistence")
        assert p["rdb_bgsave_in_progress"] == "1", "the BGSAVE ended before reporting"
        return int(p["current_save_keys_processed"]) > 0 and float(p["current_fork_perc"]) > 0 and \
            int(p["current_cow_size"]) > 0 and p
    p = wait_for(reported, timeout=3, what="a progress report")
    assert int(p["current_cow_peak"]) >= int(p["current_cow_size"])
    wait_for(lambda: info(s.client(), "persistence")["rdb_bgsave_in_progress"] == "0", timeout=30,
             what="the BGSAVE to end")
    pers = info(s.client(), "persistence")
    assert (pers["current_cow_size"], pers["current_save_keys_processed"], pers["current_save_keys_total"]) == \
        ("0", "0", "0")
    assert int(pers["rdb_last_cow_size"]) > 0


def test_a_start_up_load_serves_clients(server_factory):
    s = server_factory(*DEBUG, "--key-load-delay", "100", "--loading-process-events-interval-bytes", "1024",
                       "--rdbcompression", "no")
    c = Conn(s)
    assert c.call("DEBUG", "POPULATE", "30000", "key", "100") == "OK"  # 3 s to load
    assert c.call("SAVE") == "OK"
    c.close()
    s.kill()
    s.proc = subprocess.Popen(s.cmd, cwd=s.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def connected():
        try:
            return Conn(s, timeout=5.0)
        except OSError:
            return None
    c = wait_for(connected, what="a connection while loading")
    ic = s.client()
    pers = info(ic, "persistence")
    assert pers["loading"] == "1"
    assert int(pers["loading_total_bytes"]) > 3000000
    assert 0 <= int(pers["loading_loaded_bytes"]) <= int(pers["loading_total_bytes"])
    assert c.call("GET", "key:1") == Error("LOADING Redis is loading the dataset in memory")
    others = [Conn(s, timeout=5.0) for _ in range(5)]
    for o in others:
        assert o.call("DEBUG", "LOG", "while loading") == "OK"
    before = int(info(ic, "clients")["connected_clients"])
    for o in others:
        o.close()
    wait_for(lambda: int(info(ic, "clients")["connected_clients"]) <= before - 5, what="closed clients freed")
    assert info(ic, "persistence")["loading"] == "1"
    wait_for(lambda: info(ic, "persistence")["loading"] == "0", timeout=60, what="the end of the load")
    assert c.call("DBSIZE") == 30000
    assert "loading_total_bytes" not in info(ic, "persistence")


def test_sigterm_during_a_start_up_load_exits_without_saving(server_factory):
    s = server_factory(*DEBUG, "--key-load-delay", "200", "--loading-process-events-interval-bytes", "1024",
                       "--save", "900 1")
    c = Conn(s)
    assert c.call("DEBUG", "POPULATE", "20000") == "OK"
    assert c.call("SAVE") == "OK"
    c.close()
    saved = os.path.getmtime(os.path.join(s.dir, "dump.rdb"))
    s.kill()
    s.proc = subprocess.Popen(s.cmd, cwd=s.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(lambda: "Loading RDB produced by version" in s.log().rsplit("Server initialized", 1)[-1],
             what="the load to begin")
    os.kill(s.proc.pid, signal.SIGTERM)
    assert exited(s, timeout=10) == 0
    assert os.path.getmtime(os.path.join(s.dir, "dump.rdb")) == saved
    log = s.log()
    assert "Received shutdown signal during loading, scheduling shutdown." in log
    assert log.rstrip().endswith("Redis is now ready to exit, bye bye...")
