"""Replication for high availability (issue 14): what a replica announces
of itself (replica-announce-ip/-port, replica-priority, replica-announced,
read by Sentinel from the master's INFO and the replica's), CLIENT KILL TYPE
master, the FAILOVER command and the diskless load on the replica side
(repl-diskless-load). Each runs with our servers, and with the reference's
where the other side of the link is meant to be Redis (support.REF_SERVER);
under REFERENCE=1 every server is the reference.
"""
import contextlib
import os
import re
import threading
import time

import pytest

from support import REF_SERVER, SERVER, attach, caught_up, info, start_pair, wait_for

KINDS = pytest.mark.parametrize("master_kind,replica_kind", [("ours", "ours"), ("ours", "reference"),
                                                            ("reference", "ours")])


def binary(kind):
    if kind == "reference" and not REF_SERVER:
        pytest.skip("no reference redis-server")
    return SERVER if kind == "ours" else REF_SERVER


def kinds_pair(server_factory, master_kind, replica_kind, replica_args=()):
    return start_pair(server_factory, binary(master_kind), binary(replica_kind), replica_args=replica_args)


@KINDS
def test_replica_announces_ip_and_port(server_factory, master_kind, replica_kind):
    master, replica, m, r = kinds_pair(server_factory, master_kind, replica_kind,
                                       ("--replica-announce-ip", "10.1.2.3", "--replica-announce-port", "1234"))
    attach(r, master)
    wait_for(lambda: "state=online" in info(m).get("slave0", ""), what="the replica online")
    assert re.match(r"ip=10\.1\.2\.3,port=1234,state=online,offset=\d+,lag=\d+$", info(m)["slave0"])
    role = wait_for(lambda: m.execute_command("ROLE")[2], what="the replica in ROLE")
    assert role[0][:2] == [b"10.1.2.3", b"1234"]


def test_announce_and_priority_settings(server_factory):
    s = server_factory()
    c = s.client(decode_responses=True)
    assert c.config_get("replica-announce-ip") == {"replica-announce-ip": ""}
    assert c.config_get("slave-announce-port") == {"slave-announce-port": "0"}
    with pytest.raises(Exception, match="argument must be between 0 and 65535 inclusive"):
        c.config_set("replica-announce-port", 70000)
    assert c.config_set("slave-announce-ip", "1.2.3.4")
    assert c.config_get("replica-announce-ip") == {"replica-announce-ip": "1.2.3.4"}
    assert c.config_set("replica-priority", 0) and c.config_set("replica-announced", "no")
    assert c.config_get("slave-priority") == {"slave-priority": "0"}


def test_replica_priority_and_announced_in_info(server_factory):
    master, replica, m, r = start_pair(server_factory, replica_args=("--replica-priority", "7"))
    attach(r, master)
    assert info(r)["slave_priority"] == "7" and info(r)["replica_announced"] == "1"
    r.config_set("replica-priority", 0)
    r.config_set("replica-announced", "no")
    assert info(r)["slave_priority"] == "0" and info(r)["replica_announced"] == "0"
    # A changed announce port reaches the master with the next handshake.
    r.config_set("replica-announce-port", 4321)
    assert r.execute_command("CLIENT", "KILL", "TYPE", "master") == 1
    wait_for(lambda: ",port=4321," in info(m).get("slave0", ""), what="the new announced port")


@KINDS
def test_client_kill_type_master_then_partial_resync(server_factory, master_kind, replica_kind):
    master, replica, m, r = kinds_pair(server_factory, master_kind, replica_kind)
    attach(r, master)
    m.set("a", "1")
    caught_up(m, r)
    partial = int(info(m, "stats")["sync_partial_ok"])
    assert r.execute_command("CLIENT", "KILL", "TYPE", "master") == 1
    m.set("b", "2")
    wait_for(lambda: int(info(m, "stats")["sync_partial_ok"]) == partial + 1, what="a partial resync")
    caught_up(m, r)
    assert r.get("b") == b"2"
    assert m.execute_command("CLIENT", "KILL", "TYPE", "master") == 0


# ------------------------------------------------------------------ FAILOVER


def test_failover_argument_errors(server_factory):
    master, replica, m, r = start_pair(server_factory)
    with pytest.raises(Exception, match="^FAILOVER requires connected replicas.$"):
        m.execute_command("FAILOVER")
    with pytest.raises(Exception, match="^No failover in progress.$"):
        m.execute_command("FAILOVER", "ABORT")
    with pytest.raises(Exception, match="^FAILOVER timeout must be greater than 0$"):
        m.execute_command("FAILOVER", "TIMEOUT", 0)
    with pytest.raises(Exception, match="^syntax error$"):
        m.execute_command("FAILOVER", "ABORT", "TIMEOUT", 10)
    attach(r, master)
    with pytest.raises(Exception, match="^FAILOVER with force option requires both a timeout and target HOST and IP.$"):
        m.execute_command("FAILOVER", "FORCE", "TIMEOUT", 100)
    with pytest.raises(Exception, match="^FAILOVER target HOST and PORT is not a replica.$"):
        m.execute_command("FAILOVER", "TO", "127.0.0.1", master.port)
    with pytest.raises(Exception, match="^FAILOVER is not valid when server is a replica.$"):
        r.execute_command("FAILOVER")


@KINDS
def test_failover_switches_roles_without_losing_writes(server_factory, master_kind, replica_kind):
    master, replica, m, r = kinds_pair(server_factory, master_kind, replica_kind)
    attach(r, master)
    for i in range(100):
        m.set("k%d" % i, i)
    replid = info(m)["master_replid"]
    assert m.execute_command("FAILOVER", "TO", "127.0.0.1", replica.port, "TIMEOUT", 5000) == b"OK"
    wait_for(lambda: info(r)["role"] == "master" and info(m)["role"] == "slave"
             and info(m)["master_link_status"] == "up", what="the roles switched")
    wait_for(lambda: info(m)["master_failover_state"] == "no-failover", what="the failover to end")
    assert int(info(m)["master_port"]) == replica.port
    # The new master continues the old history: the old master continued with a partial resync.
    assert info(r)["master_replid2"] == replid
    assert info(r, "stats")["sync_partial_ok"] == "1"
    with pytest.raises(Exception, match="read only replica"):
        m.set("x", "1")
    r.set("after", "1")
    caught_up(r, m)
    assert m.get("after") == b"1" and m.get("k99") == b"99"
    assert m.dbsize() == r.dbsize() == 101


def test_failover_holds_writes_then_they_meet_a_replica(server_factory):
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    blocked = master.client()
    replica_proc = replica.proc
    replica_proc.send_signal(19)  # SIGSTOP: the replica cannot acknowledge
    try:
        m.set("unacknowledged", "1")
        assert m.execute_command("FAILOVER", "TIMEOUT", 60000) == b"OK"
        assert info(m)["master_failover_state"] == "waiting-for-sync"
        with pytest.raises(Exception, match="^FAILOVER already in progress.$"):
            m.execute_command("FAILOVER")
        with pytest.raises(Exception, match="^REPLICAOF not allowed while failing over.$"):
            m.execute_command("REPLICAOF", "NO", "ONE")
        result = {}

        def write():
            try:
                result["reply"] = blocked.set("held", "1")
            except Exception as e:
                result["error"] = str(e)
        t = threading.Thread(target=write)
        t.start()
        t.join(0.3)
        assert t.is_alive(), "a write ran during the failover's pause"
    finally:
        replica_proc.send_signal(18)  # SIGCONT
    t.join(10)
    assert "read only replica" in result.get("error", ""), result
    assert info(m)["role"] == "slave" and info(r)["role"] == "master"


@contextlib.contextmanager
def failover_waiting_for_a_stopped_replica(server_factory):
    """A master whose FAILOVER waits for a replica that cannot acknowledge
    (SIGSTOP) a write it has not seen; the replica runs again at the end."""
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    replica.proc.send_signal(19)
    try:
        m.set("unacknowledged", "1")
        assert m.execute_command("FAILOVER") == b"OK"
        yield master, m
    finally:
        replica.proc.send_signal(18)


def test_failover_abort_gives_the_role_back(server_factory):
    with failover_waiting_for_a_stopped_replica(server_factory) as (master, m):
        assert info(m)["master_failover_state"] == "waiting-for-sync"
        assert m.execute_command("FAILOVER", "ABORT") == b"OK"
        assert info(m)["master_failover_state"] == "no-failover" and info(m)["role"] == "master"
        assert m.set("free", "1")  # the pause ended


def test_failover_pause_is_its_own_client_unpause_leaves_it(server_factory):
    """FAILOVER holds writes under its own pause: CLIENT UNPAUSE, or a CLIENT
    PAUSE that ends, does not let them through; FAILOVER ABORT does."""
    with failover_waiting_for_a_stopped_replica(server_factory) as (master, m):
        assert m.execute_command("CLIENT", "PAUSE", "50", "WRITE") == b"OK"
        assert m.execute_command("CLIENT", "UNPAUSE") == b"OK"
        blocked = master.client()
        result = {}
        t = threading.Thread(target=lambda: result.setdefault("reply", blocked.set("held", "1")))
        t.start()
        t.join(0.5)
        assert t.is_alive(), "a write ran during the failover's pause"
        assert m.execute_command("FAILOVER", "ABORT") == b"OK"
        t.join(10)
        assert result.get("reply") is True


# ------------------------------------------------------- repl-diskless-load


def snapshot_keys(c):
    out = {}
    for db in (0, 3):
        c.execute_command("SELECT", db)
        # (a big hash's DUMP follows its table's order: compared as a dict)
        out.update({(db, k): (c.type(k), c.hgetall(k) if c.type(k) == b"hash" else c.dump(k)) for k in c.keys("*")})
    c.execute_command("SELECT", 0)
    return out


def fill_some(m):
    m.set("s", "v")
    m.rpush("l", *range(300))
    m.hset("h", mapping={"f%d" % i: "x" * 70 for i in range(200)})
    m.zadd("z", {"a": 1, "b": 2})
    m.set("t", "v", ex=1000)
    m.execute_command("SELECT", 3)
    m.set("in3", "y")
    m.execute_command("SELECT", 0)


@pytest.mark.parametrize("diskless_sync", ["no", "yes"])
@pytest.mark.parametrize("mode,replica_has_data,to", [("disabled", False, "disk"), ("on-empty-db", False, "parser"),
                                                      ("on-empty-db", True, "disk"), ("swapdb", True, "parser")])
def test_diskless_load_modes(server_factory, mode, replica_has_data, to, diskless_sync):
    master = server_factory("--repl-diskless-sync", diskless_sync, "--repl-diskless-sync-delay", "0")
    replica = server_factory("--repl-diskless-load", mode)
    m, r = master.client(), replica.client()
    fill_some(m)
    if replica_has_data:
        r.set("old", "data")
    attach(r, master)
    assert snapshot_keys(r) == snapshot_keys(m)
    assert r.exists("old") == 0
    kind = "streamed RDB from master with EOF" if diskless_sync == "yes" else r"\d+ bytes from master"
    log = replica.log()
    assert re.search(r"receiving %s.* to %s" % (kind, to), log), log
    m.set("after", "1")
    caught_up(m, r)
    assert r.get("after") == b"1"


def saved_rdb(server):
    server.client().save()
    with open(os.path.join(server.dir, "dump.rdb"), "rb") as f:
        return f.read()


class FakeMaster:
    """Answers a replica's handshake with +FULLRESYNC, then sends payload (a
    snapshot, maybe cut short: announced_len says how long it should be) and
    the stream bytes `then`, and drops the link. Records each PSYNC's
    arguments."""

    def __init__(self, payload, announced_len, then=b""):
        import socket
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.payload, self.announced_len, self.then = payload, announced_len, then
        self.psyncs = []
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                buf, served = b"", 0
                try:
                    # Until the PSYNC command and its two arguments (not "capa psync2" of a REPLCONF).
                    while b"$5\r\nPSYNC\r\n" not in buf.upper() or \
                            buf.upper().split(b"$5\r\nPSYNC\r\n", 1)[1].count(b"\r\n") < 4:
                        chunk = conn.recv(4096)
                        if not chunk:
                            break
                        buf += chunk
                        # one reply per command received so far (PING, AUTH, REPLCONF...)
                        while served < buf.count(b"*") and b"$5\r\nPSYNC\r\n" not in buf.upper():
                            conn.sendall(b"+PONG\r\n" if served == 0 else b"+OK\r\n")
                            served += 1
                    args = buf.split(b"PSYNC\r\n", 1)[1].split(b"\r\n")
                    self.psyncs.append((args[1], args[3]))
                    conn.sendall(b"+FULLRESYNC %s 0\r\n$%d\r\n" % (b"a" * 40, self.announced_len))
                    conn.sendall(self.payload + self.then)
                    time.sleep(0.3)
                except (OSError, IndexError):
                    pass

    def close(self):
        self.sock.close()


@pytest.mark.parametrize("mode", ["swapdb", "disabled"])
def test_failed_transfer_keeps_the_old_data_with_swapdb(server_factory, mode):
    source = server_factory()
    s = source.client()
    fill_some(s)
    rdb = saved_rdb(source)
    fake = FakeMaster(rdb[: len(rdb) // 2], len(rdb))
    try:
        # (writable: on a read-only replica FCALL of a function without
        # no-writes is refused as a write)
        replica = server_factory("--repl-diskless-load", mode, "--replica-read-only", "no")
        r = replica.client()
        r.set("old", "data")
        r.execute_command("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)")
        r.execute_command("REPLICAOF", "127.0.0.1", fake.port)
        wait_for(lambda: "Failed trying to load the MASTER synchronization DB" in replica.log()
                 or "I/O error trying to sync with MASTER" in replica.log(), what="the failed transfer: " + replica.log())
        assert info(r)["master_link_status"] == "down", replica.log()
        # swapdb loads from the socket and puts the old data and functions
        # back; a transfer to disk never touched them.
        assert r.get("old") == b"data" and r.dbsize() == 1
        assert r.fcall("f", 0) == 1
    finally:
        fake.close()


# ------------------------------------------------- replica output buffers


def raw_replica(master):
    """A replica by hand: PSYNC with capa eof; returns the socket after the $EOF: line, and the mark."""
    import socket
    s = socket.create_connection((master.host, master.port), timeout=10)
    s.sendall(b"*3\r\n$8\r\nREPLCONF\r\n$4\r\ncapa\r\n$3\r\neof\r\n")
    assert s.recv(5) == b"+OK\r\n"
    s.sendall(b"*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n")
    buf = b""
    while True:
        while b"\n" not in buf:
            buf += s.recv(1)
        line, buf = buf.split(b"\n", 1)
        if line.startswith(b"$EOF:"):
            return s, line[5:45]


@pytest.mark.ours
def test_the_ack_sent_on_loading_starts_the_stream_however_early(server_factory):
    """A replica that loaded a diskless RDB ACKs at once, often before the
    master has collected the child that wrote it: that ACK must start the
    stream (ignored, the stream waits for the replica's next ACK — a second
    later — which Redis 7.0 does when the child has not exited yet)."""
    master = server_factory("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
    m = master.client()
    for attempt in range(5):
        s, mark = raw_replica(master)
        got = b""
        while not got.endswith(mark):
            got += s.recv(65536)
        s.sendall(b"*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$1\r\n0\r\n")
        m.set("k", attempt)
        s.settimeout(0.5)  # a fake replica: it never sends a second ACK
        stream = b""
        while b"$1\r\nk\r\n" not in stream:
            chunk = s.recv(4096)
            assert chunk, "the master dropped the replica"
            stream += chunk
        s.close()


def limit_master(server_factory):
    master = server_factory("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
                            "--client-output-buffer-limit", "replica 1mb 0 0")
    m = master.client()
    p = m.pipeline(transaction=False)
    for i in range(20000):
        p.set("key:%d" % i, os.urandom(250).hex())  # 10 MB of RDB (incompressible), ten times the limit
    p.execute()
    return master, m


def test_diskless_rdb_to_a_slow_replica_is_not_held_in_its_output_buffer(server_factory):
    master, m = limit_master(server_factory)
    s, mark = raw_replica(master)
    got = b""
    while not got.endswith(mark):
        chunk = s.recv(128 * 1024)
        assert chunk, "the master dropped the replica during the transfer"
        got += chunk
        time.sleep(0.01)
    assert len(got) > 10 * 1000 * 1000 and got.startswith(b"REDIS")
    assert info(m)["connected_slaves"] == "1"
    assert "output buffer limits" not in master.log()
    s.close()


def test_stream_held_during_a_sync_counts_against_the_replica_limit(server_factory):
    master, m = limit_master(server_factory)
    s, mark = raw_replica(master)  # never reads the RDB: the stream piles up on the master
    p = m.pipeline(transaction=False)
    for i in range(3000):
        p.set("new:%d" % i, os.urandom(500).hex())
    p.execute()
    wait_for(lambda: info(m)["connected_slaves"] == "0", what="the replica dropped")
    assert "scheduled to be closed ASAP for overcoming of output buffer limits" in master.log()
    s.close()


# ------------------------------------------------- what a role change does


def test_getset_replicates_as_set(server_factory):
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    r.config_resetstat()
    m.set("k", "a")
    assert m.getset("k", "b") == b"a"
    caught_up(m, r)
    stats = info(r, "commandstats")
    assert stats["cmdstat_set"].startswith("calls=2,") and "cmdstat_getset" not in stats


def test_blocked_clients_are_unblocked_when_the_master_becomes_a_replica(server_factory):
    master, replica, m, r = start_pair(server_factory)
    result = {}

    def blpop():
        try:
            result["reply"] = r.blpop("foo", 0)
        except Exception as e:
            result["error"] = str(e)
    t = threading.Thread(target=blpop)
    t.start()
    wait_for(lambda: info(r, "clients")["blocked_clients"] == "1", what="the client blocked")
    r2 = replica.client()
    r2.execute_command("REPLICAOF", master.host, master.port)
    t.join(5)
    assert result.get("error", "").startswith("UNBLOCKED force unblock from blocking operation"), result


def test_a_transaction_cut_by_a_lost_link_is_not_counted(server_factory):
    """The offset a replica asks to continue from stops before a MULTI whose
    EXEC never came: the master sends the whole transaction again."""
    source = server_factory()
    fill_some(source.client())
    rdb = saved_rdb(source)
    txn = b"*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$4\r\ntxnk\r\n$1\r\nv\r\n"
    ping = b"*1\r\n$4\r\nPING\r\n"
    fake = FakeMaster(rdb, len(rdb), then=ping + txn)
    try:
        replica = server_factory()
        r = replica.client()
        r.execute_command("REPLICAOF", "127.0.0.1", fake.port)
        wait_for(lambda: len(fake.psyncs) >= 2, what="the replica to come back")
        assert fake.psyncs[1] == (b"a" * 40, str(1 + len(ping)).encode())
        assert r.exists("txnk") == 0 and r.exists("s") == 1
    finally:
        fake.close()


# ------------------------------------------ a replica serving while it loads
# As Redis 7.0, a replica loading its master's snapshot lets clients in every
# loading-process-events-interval-bytes: INFO and -LOADING, or, when the new
# snapshot continues the history it holds (repl-diskless-load swapdb, same
# replication ID), the old data until the new one is in place.

import redis  # noqa: E402  (the module's other tests need no client library)

LOADING = redis.exceptions.BusyLoadingError  # redis-py's class for a -LOADING reply


def slow_master(server_factory):
    """A diskless master with 400 keys of 20 kB; rdb-key-save-delay 5000
    makes a snapshot of it take two seconds."""
    master = server_factory("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
                            "--rdbcompression", "no", "--enable-debug-command", "yes")
    m = master.client()
    m.execute_command("DEBUG", "POPULATE", 400, "master", 20000)
    return master, m


def loading_replica(server_factory, *args):
    replica = server_factory("--repl-diskless-load", "swapdb", "--loading-process-events-interval-bytes", "65536",
                             *args)
    return replica, replica.client()


def persistence(c):
    return info(c, "persistence")


def link_is_up(r):
    return info(r).get("master_link_status") == "up"


def test_a_loading_replica_answers_loading_and_info(server_factory):
    master, m = slow_master(server_factory)
    replica, r = loading_replica(server_factory)
    r.set("old", "data")  # its own history: the load is not async
    m.config_set("rdb-key-save-delay", 5000)
    r.execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: persistence(r).get("loading") == "1", what="loading:1")
    p = persistence(r)
    assert p["async_loading"] == "0"
    for field in ("loading_start_time", "loading_total_bytes", "loading_rdb_used_mem", "loading_loaded_bytes",
                  "loading_loaded_perc", "loading_eta_seconds"):
        assert field in p, p
    with pytest.raises(LOADING):
        r.get("old")
    with pytest.raises(LOADING):
        r.config_set("appendonly", "no")
    with pytest.raises(LOADING):
        r.config_set("repl-diskless-load", "disabled")
    m.config_set("rdb-key-save-delay", 0)
    wait_for(lambda: link_is_up(r), timeout=30, what="the sync")
    assert r.dbsize() == 400 and r.get("old") is None
    assert "loading_start_time" not in persistence(r)


def same_history_full_sync(m, r, master):
    """The replica follows the master, then loses the link for longer than
    the backlog covers: its next sync is a full one of the same history."""
    attach(r, master)
    p = m.pipeline(transaction=True)
    p.execute_command("CLIENT", "KILL", "TYPE", "replica")
    p.config_set("repl-backlog-size", 16384)
    for i in range(10):
        p.set("filler:%d" % i, "A" * 16384)
    p.execute()
    m.config_set("rdb-key-save-delay", 5000)


@pytest.mark.parametrize("outcome", ["loaded", "failed"])
def test_async_loading_serves_the_old_data_and_functions(server_factory, outcome):
    master, m = slow_master(server_factory)
    replica, r = loading_replica(server_factory, "--replica-read-only", "no")
    attach(r, master)
    r.set("mykey", "myvalue")
    r.execute_command("FUNCTION", "LOAD", "#!lua name=test\nredis.register_function('test', function() return 'old' end)")
    m.execute_command("FUNCTION", "LOAD", "#!lua name=test\nredis.register_function('test', function() return 'new' end)")
    old_size = r.dbsize()
    same_history_full_sync(m, r, master)
    wait_for(lambda: persistence(r).get("async_loading") == "1", what="async_loading:1")
    assert persistence(r)["loading"] == "0"
    assert r.get("mykey") == b"myvalue"
    assert r.fcall("test", 0) == b"old"
    assert r.dbsize() == old_size
    with pytest.raises(LOADING):
        r.execute_command("REPLICAOF", "NO", "ONE")
    with pytest.raises(LOADING):
        r.config_set("appendonly", "no")
    assert persistence(r)["async_loading"] == "1"
    if outcome == "failed":
        m.config_set("repl-diskless-sync-delay", 5)  # no new attempt right away
        m.execute_command("CLIENT", "KILL", "TYPE", "replica")
        wait_for(lambda: persistence(r).get("async_loading") == "0", what="the load to fail")
        assert r.get("mykey") == b"myvalue"
        assert r.fcall("test", 0) == b"old"
        assert r.dbsize() == old_size
        m.config_set("rdb-key-save-delay", 0)
        return
    m.config_set("rdb-key-save-delay", 0)
    wait_for(lambda: link_is_up(r), timeout=30, what="the sync")
    assert r.get("mykey") is None
    assert r.fcall("test", 0) == b"new"
    assert r.dbsize() == m.dbsize()


def test_sigterm_during_a_load_shuts_the_replica_down(server_factory):
    master, m = slow_master(server_factory)
    replica, r = loading_replica(server_factory)
    m.config_set("rdb-key-save-delay", 20000)  # eight seconds of snapshot
    r.execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: persistence(r).get("loading") == "1", what="loading:1")
    replica.proc.terminate()
    replica.proc.wait(timeout=5)
    m.config_set("rdb-key-save-delay", 0)
    # A clean shutdown, not a crash or a kill: status 0, Redis's last line.
    assert replica.proc.returncode == 0
    assert "ready to exit, bye bye" in replica.log() and replica.ended_badly() is None


# ------------------------------------------------ what a replica may not do


def raw_psync(master):
    import socket
    s = socket.create_connection((master.host, master.port), timeout=10)
    s.sendall(b"PSYNC ? -1\r\n")
    line = b""
    while not line.endswith(b"\r\n"):
        line += s.recv(1)
    assert line.startswith(b"+FULLRESYNC ")
    return s


def test_a_command_answered_on_a_replica_link_drops_it(server_factory):
    master = server_factory("--repl-diskless-sync", "no")
    m = master.client()
    s = raw_psync(master)
    s.sendall(b"GET foo\r\n")
    # Two lines, the second logged just after the first (the error is counted
    # once its reply is refused): wait for both.
    critical = ("== CRITICAL == This master is sending an error to its replica: "
                "'Replica can't interact with the keyspace'")
    wait_for(lambda: "Replica generated a reply to command 'get', disconnecting it" in master.log()
             and critical in master.log(), what="the two log lines")
    wait_for(lambda: info(m)["connected_slaves"] == "0", what="the replica dropped")
    assert m.ping()
    s.close()


def test_psync_with_a_bad_offset(server_factory):
    master = server_factory()
    m = master.client()
    with pytest.raises(redis.ResponseError, match="value is not an integer or out of range"):
        m.execute_command("PSYNC", "replicationid", "offset_str")
    assert "asks for synchronization but with a wrong offset" in master.log()
    assert info(m)["connected_slaves"] == "0"


def test_repl_backlog_size_has_a_floor(server_factory):
    master = server_factory()
    m = master.client()
    m.config_set("repl-backlog-size", 100)
    assert m.config_get("repl-backlog-size") == {"repl-backlog-size": "16384"}


def test_one_snapshot_child_at_a_time(server_factory):
    """A full resync's child is the snapshot child: SAVE and BGSAVE are
    refused while it runs, BGREWRITEAOF waits for it."""
    master = server_factory("--repl-diskless-sync", "no", "--rdb-key-save-delay", "100000",
                            "--enable-debug-command", "yes")
    m = master.client()
    m.execute_command("DEBUG", "POPULATE", 100)
    replica = server_factory()
    replica.client().execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: persistence(m).get("rdb_bgsave_in_progress") == "1", what="the replication child")
    for cmd in (("BGSAVE",), ("BGSAVE", "SCHEDULE"), ("SAVE",)):
        with pytest.raises(redis.ResponseError, match="^Background save already in progress$"):
            m.execute_command(*cmd)
    m.set_response_callback("BGREWRITEAOF", lambda resp, **kw: resp)
    assert m.execute_command("BGREWRITEAOF") == b"Background append only file rewriting scheduled"
    assert persistence(m)["aof_rewrite_scheduled"] == "1"
    replica.client().execute_command("REPLICAOF", "NO", "ONE")
