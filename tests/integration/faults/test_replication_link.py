"""Replication over a cut, stalled, slow or dropped link (issue 36, faults):
a LinkProxy (link_proxy.py) sits between a replica and its master — the
replica's REPLICAOF names the proxy — and the test cuts the cable
(blackhole), slows it (delay, rate) or resets it (drop); other tests kill -9
one side in the middle of a full sync, or kill the master under Sentinel.
What must hold: both sides notice a dead link within repl-timeout and log
it as Redis does, the link resumes with a partial resync that brings every
write made during the cut, WAIT never counts a replica that has not got the
write, a cut full sync is retried to a consistent copy, the master serves
its clients meanwhile, and no acknowledged (AOF, WAIT) write is lost. Each
runs on ours, on mixed pairs (ours and Debian's redis-server) and, under
REFERENCE=1, on the reference alone.
"""
import os
import re
import threading
import time

import pytest
import redis

from link_proxy import LinkProxy
from support import (MASTER_ARGS, SENTINEL, SENTINEL_ERRORS, SENTINEL_NAME, ask, attach, caught_up, info,
                     link_up, sentinel_master, server_binary, start_sentinel, wait_for)

KINDS = pytest.mark.parametrize("master_kind,replica_kind", [("ours", "ours"), ("ours", "reference"),
                                                            ("reference", "ours")])
TIMEOUT = 2
# A short repl-timeout, and a master that PINGs every second so an idle link
# is not taken for a dead one; DEBUG (POPULATE, DIGEST) on the reference too.
FAST = ("--repl-timeout", str(TIMEOUT), "--repl-ping-replica-period", "1", "--enable-debug-command", "yes")
DISKLESS = {"disk": ("--repl-diskless-sync", "no"),
            "diskless": ("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")}


@pytest.fixture
def proxy_to():
    made = []

    def make(server):
        p = LinkProxy(server.host, server.port)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


def proxied_pair(server_factory, proxy_to, master_kind, replica_kind, master_args=MASTER_ARGS, replica_args=()):
    master = server_factory(*FAST, *master_args, binary=server_binary(master_kind))
    proxy = proxy_to(master)
    replica = server_factory(*FAST, *replica_args, binary=server_binary(replica_kind))
    return master, proxy, replica, master.client(decode_responses=True), replica.client(decode_responses=True)


def stats(m):
    s = info(m, "stats")
    return int(s["sync_full"]), int(s["sync_partial_ok"])


def logged(server, pattern, what):
    return wait_for(lambda: re.search(pattern, server.log(), re.M), timeout=5, what=what)


def in_transfer(r, at_least=1):
    """The replica has read part of the RDB, not all of it."""
    i = info(r)
    return i.get("master_sync_in_progress") == "1" and int(i.get("master_sync_read_bytes", 0)) >= at_least


def same_data(m, r, keys):
    caught_up(m, r)
    assert r.dbsize() == m.dbsize() == keys
    assert r.execute_command("DEBUG", "DIGEST") == m.execute_command("DEBUG", "DIGEST")


@KINDS
def test_a_cut_cable_is_seen_on_both_sides_and_healed_by_a_partial_resync(server_factory, proxy_to, master_kind,
                                                                          replica_kind):
    master, proxy, replica, m, r = proxied_pair(server_factory, proxy_to, master_kind, replica_kind)
    attach(r, proxy)
    m.set("before", "1")
    assert m.execute_command("WAIT", 1, 5000) == 1
    full0, partial0 = stats(m)

    proxy.blackhole()
    cut = time.time()
    # Written during the cut: not on the replica, so WAIT must not count it,
    # neither while the master still lists the replica nor after.
    for i in range(100):
        m.set("cut:%d" % i, i)
    assert m.execute_command("WAIT", 1, 500) == 0
    wait_for(lambda: not link_up(r), timeout=TIMEOUT + 3, what="the replica to see its link down")
    # The cron checks once a second: seconds are whole on both clocks.
    assert time.time() - cut < TIMEOUT + 2.5
    # And it reconnects at once, not a cron tick later.
    logged(replica, r"MASTER timeout: no data nor PING received\.\.\.\n.* Connection with master lost\.\n"
           r".* Caching the disconnected master state\.\n.* Reconnecting to MASTER 127\.0\.0\.1:%d\n"
           r".* MASTER <-> REPLICA sync started$" % proxy.port, "the replica's timeout lines")
    wait_for(lambda: info(m)["connected_slaves"] == "0", timeout=TIMEOUT + 3, what="the master to drop the replica")
    assert time.time() - cut < TIMEOUT + 3
    logged(master, r"Disconnecting timedout replica \(streaming sync\): 127\.0\.0\.1:%d\n.* Connection with replica "
           r"127\.0\.0\.1:%d lost\.$" % (replica.port, replica.port),
           "the master's timeout lines, naming the replica by its listening port")
    m.set("after-drop", "1")
    assert m.execute_command("WAIT", 1, 300) == 0

    proxy.passing()
    wait_for(lambda: link_up(r), timeout=TIMEOUT + 5, what="the link back up")
    assert m.execute_command("WAIT", 1, 5000) == 1
    caught_up(m, r)
    assert stats(m) == (full0, partial0 + 1)
    logged(replica, r"Successful partial resynchronization with master\.$", "the replica's +CONTINUE line")
    logged(master, r"Partial resynchronization request from 127\.0\.0\.1:%d accepted\. Sending \d+ bytes of "
           r"backlog starting from offset \d+\.$" % replica.port, "the master's partial resync line")
    assert r.mget(["cut:%d" % i for i in range(100)]) == [str(i) for i in range(100)]
    assert r.get("after-drop") == "1" and r.get("before") == "1"


@KINDS
def test_a_slow_link_converges_and_wait_tells_when(server_factory, proxy_to, master_kind, replica_kind):
    master, proxy, replica, m, r = proxied_pair(server_factory, proxy_to, master_kind, replica_kind)
    attach(r, proxy)
    proxy.delay(200)
    for i in range(200):
        m.set("k:%d" % i, i)
    # 200 ms each way: not there in 50 ms, there within seconds.
    assert m.execute_command("WAIT", 1, 50) == 0
    assert m.execute_command("WAIT", 1, 5000) == 1
    assert r.get("k:199") == "199"
    # A delay well under repl-timeout is no dead link.
    time.sleep(TIMEOUT + 1)
    assert link_up(r) and info(m)["connected_slaves"] == "1"
    same_data(m, r, 200)


@KINDS
@pytest.mark.parametrize("sync", ["disk", "diskless"])
def test_a_full_sync_cut_in_the_middle_is_retried_to_a_consistent_copy(server_factory, proxy_to, master_kind,
                                                                       replica_kind, sync):
    master, proxy, replica, m, r = proxied_pair(server_factory, proxy_to, master_kind, replica_kind,
                                                master_args=DISKLESS[sync])
    m.execute_command("DEBUG", "POPULATE", 100000)
    proxy.rate(2_000_000)  # a few MB of RDB: seconds to transfer
    r.execute_command("REPLICAOF", proxy.host, proxy.port)
    wait_for(lambda: in_transfer(r, 100_000), what="the transfer under way")
    proxy.drop()
    assert info(r)["master_link_status"] == "down"
    proxy.passing()
    wait_for(lambda: link_up(r), timeout=20, what="the replica to sync again")
    assert proxy.accepted >= 2
    assert stats(m)[0] >= 2
    m.set("later", "1")
    assert m.execute_command("WAIT", 1, 5000) == 1
    same_data(m, r, 100001)
    assert r.get("key:65432") == "value:65432"


@KINDS
@pytest.mark.parametrize("sync", ["disk", "diskless"])
def test_a_full_sync_over_a_cut_cable_times_out_and_starts_over(server_factory, proxy_to, master_kind, replica_kind,
                                                                sync):
    # 12 MB (uncompressed: POPULATE pads with zeros): more than the sockets'
    # buffers take in once the cable is cut (else the whole snapshot is
    # written and the replica waits as an online one).
    master, proxy, replica, m, r = proxied_pair(server_factory, proxy_to, master_kind, replica_kind,
                                                master_args=DISKLESS[sync] + ("--rdbcompression", "no"))
    m.execute_command("DEBUG", "POPULATE", 100000, "key", 100)
    proxy.rate(2_000_000)
    r.execute_command("REPLICAOF", proxy.host, proxy.port)
    wait_for(lambda: in_transfer(r, 100_000), what="the transfer under way")
    with TimedGets(master, "key:1"):
        cut_a_full_sync(proxy, master, replica, m, sync)
    m.set("during", "1")
    proxy.passing()
    wait_for(lambda: link_up(r), timeout=20, what="the replica to sync again")
    assert m.execute_command("WAIT", 1, 5000) == 1
    same_data(m, r, 100001)


def cut_a_full_sync(proxy, master, replica, m, sync):
    proxy.blackhole()
    cut = time.time()
    logged(replica, r"Timeout receiving bulk data from MASTER\.\.\. If the problem persists try to set the "
           r"'repl-timeout' parameter in redis\.conf to a larger value\.$", "the replica's transfer timeout line")
    assert time.time() - cut < TIMEOUT + 2.5
    if sync == "diskless":
        # The snapshot's child feeds the replica: it is dropped, not waited for.
        logged(master, r"Disconnecting timedout replica \(full sync\): 127\.0\.0\.1:%d\n.* Connection with replica "
               r"127\.0\.0\.1:%d lost\.$" % (replica.port, replica.port), "the master's full-sync timeout lines")
        wait_for(lambda: info(m)["connected_slaves"] == "0", timeout=TIMEOUT + 3, what="the master to drop it")


class TimedGets:
    """A client of the server GETting key all along, in a thread: worst is
    the longest it waited for an answer (a stuck event loop shows there)."""

    def __init__(self, server, key):
        self.worst, self._stop, self.failure = 0.0, threading.Event(), None
        self._args = server, key
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        server, key = self._args
        c = server.client(socket_timeout=5)
        try:
            value = c.get(key)
            while not self._stop.is_set():
                t = time.time()
                got = c.get(key)
                self.worst = max(self.worst, time.time() - t)
                if value is None or got != value:
                    raise AssertionError("GET %s answered %r, then %r" % (key, value, got))
                time.sleep(0.01)
        except Exception as e:  # a timeout too: the test reports it
            self.failure = e
        finally:
            c.close()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(10)
        if exc[0] is not None:
            return False  # the test's own failure comes first
        assert not self._thread.is_alive()
        if self.failure is not None:
            raise self.failure
        assert self.worst < 0.5, "a GET on the master waited %.2f s" % self.worst


def acked_writer(server, prefix, acked, stop, confirm=None):
    """Writes prefix:N for N = 0, 1, ... until stop or a lost connection; acked
    gets each N the server acknowledged (with confirm(client) true when given)."""
    def run():
        c = server.client(decode_responses=True, socket_timeout=5)
        n = 0
        try:
            while not stop.is_set():
                c.set("%s:%d" % (prefix, n), n)
                if confirm is None or confirm(c):
                    acked.append(n)
                n += 1
        except (redis.ConnectionError, redis.TimeoutError):
            pass
        finally:
            c.close()
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@KINDS
def test_a_master_killed_in_a_full_sync_comes_back_from_its_aof(server_factory, proxy_to, master_kind, replica_kind):
    master, proxy, replica, m, r = proxied_pair(
        server_factory, proxy_to, master_kind, replica_kind,
        master_args=MASTER_ARGS + ("--appendonly", "yes", "--appendfsync", "always"))
    for i in range(0, 20000, 1000):
        m.mset({"bulk:%d" % j: "x" * 100 for j in range(i, i + 1000)})
    proxy.rate(500_000)
    r.execute_command("REPLICAOF", proxy.host, proxy.port)
    acked, stop = [], threading.Event()
    writer = acked_writer(master, "w", acked, stop)
    wait_for(lambda: in_transfer(r, 10_000), what="the transfer under way")
    wait_for(lambda: len(acked) > 100, what="writes acknowledged during the sync")
    master.kill()
    writer.join(10)
    assert acked
    proxy.passing()
    master.restart()
    m = master.client(decode_responses=True)
    got = m.mget(["w:%d" % n for n in acked])
    assert [n for n, v in zip(acked, got) if v != str(n)] == []
    assert m.get("bulk:19999") == "x" * 100
    # Synced with the restarted master, not still up with the old one (the
    # replica may not have seen the kill yet): same replication ID.
    wait_for(lambda: link_up(r) and info(r)["master_replid"] == info(m)["master_replid"], timeout=20,
             what="the replica to sync with the restarted master")
    same_data(m, r, m.dbsize())


@KINDS
@pytest.mark.parametrize("sync", ["disk", "diskless"])
def test_a_replica_killed_in_a_full_sync_resyncs_and_the_master_keeps_serving(server_factory, proxy_to, master_kind,
                                                                              replica_kind, sync):
    master = server_factory(*FAST, *DISKLESS[sync], binary=server_binary(master_kind))
    proxy = proxy_to(master)
    m = master.client(decode_responses=True)
    m.execute_command("DEBUG", "POPULATE", 100000)
    proxy.rate(2_000_000)
    replica = server_factory(*FAST, "--replicaof", proxy.host, str(proxy.port), binary=server_binary(replica_kind))
    r = replica.client(decode_responses=True)

    with TimedGets(master, "key:1"):
        wait_for(lambda: in_transfer(r, 100_000), what="the transfer under way")
        replica.kill()
        proxy.passing()
        # The master notices and serves the next replica.
        wait_for(lambda: info(m)["connected_slaves"] == "0", timeout=TIMEOUT + 3, what="the master to drop it")
        # A socket already reset has no peer address left: Redis names the
        # replica by its client id then (which comes first is a race).
        logged(master, r"Connection with replica (client id #\d+|127\.0\.0\.1:%d) lost\.$" % replica.port,
               "the master's line")
        replica.restart()
        r = replica.client(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=20, what="the restarted replica to sync")
    same_data(m, r, 100000)  # DEBUG DIGEST holds the master: not while the probe runs


@pytest.mark.skipif(not os.path.exists(SENTINEL), reason="redis-sentinel not installed (deps/install.sh)")
@KINDS
def test_no_wait_confirmed_write_is_lost_in_a_sentinel_failover(server_factory, master_kind, replica_kind):
    # Config files, so that the CONFIG REWRITE the sentinels send succeeds.
    master = server_factory(*MASTER_ARGS, config_text="", binary=server_binary(master_kind))
    replica = server_factory(*MASTER_ARGS, config_text="", binary=server_binary(replica_kind))
    attach(replica.client(), master)
    sentinels = [start_sentinel(server_factory, master.port) for _ in range(3)]
    for s in sentinels:
        wait_for(lambda: int(sentinel_master(s)["num-slaves"]) == 1
                 and int(sentinel_master(s)["num-other-sentinels"]) == 2, timeout=30, retry_on=SENTINEL_ERRORS,
                 what="each sentinel to know the replica and the other sentinels")

    confirmed, stop = [], threading.Event()
    writer = acked_writer(master, "c", confirmed, stop, confirm=lambda c: c.execute_command("WAIT", 1, 1000) == 1)
    wait_for(lambda: len(confirmed) > 200, what="writes confirmed by WAIT")
    master.kill()
    writer.join(10)
    wait_for(lambda: int(ask(sentinels[0], "SENTINEL", "GET-MASTER-ADDR-BY-NAME", SENTINEL_NAME)[1]) == replica.port,
             timeout=30, retry_on=SENTINEL_ERRORS, what="the replica promoted")
    wait_for(lambda: ask(replica, "ROLE")[0] == "master", timeout=30, retry_on=SENTINEL_ERRORS,
             what="the replica to be a master")
    got = ask(replica, "MGET", *["c:%d" % n for n in confirmed])
    assert [n for n, v in zip(confirmed, got) if v != str(n)] == []
