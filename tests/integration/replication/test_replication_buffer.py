"""The shared replication buffer, as Redis 7.0 has it (issue 14): the backlog
and every replica's output are references into one buffer, not copies. So
replicas waiting for the same snapshot cost the stream once; the backlog
grows past repl-backlog-size while a replica still holds older stream (and a
partial resync may use it), and shrinks back once it is let go; the
replicas' part is reported apart in INFO memory and does not make the master
evict keys; a replica's hard output limit below repl-backlog-size counts as
repl-backlog-size. Also the reply buffer of normal clients, resized by the
client cron as in 7.0 (DEBUG REPLYBUFFER, CLIENT LIST rbs/rbp). Every test
holds on the reference too (REFERENCE=1).
"""
import re
import subprocess
import time

import pytest
import redis

from support import MASTER_ARGS, REF_SERVER, SERVER, attach, caught_up, info, wait_for

MB = 1024 * 1024


def mem(client):
    return info(client, "memory")


def stream_bytes(m, total, value_size=1000, prefix="k"):
    """Writes about `total` bytes of stream (SETs of value_size bytes)."""
    value = "x" * value_size
    p = m.pipeline(transaction=False)
    for i in range(total // value_size):
        p.set("%s%d" % (prefix, i), value)
        if i % 500 == 499:
            p.execute()
    p.execute()


def replica_waiting_snapshot(server_factory, master):
    """A replica whose full sync waits for a snapshot that takes forever: the
    stream it will need after it stays in the master's buffer."""
    replica = server_factory()
    r = replica.client()
    r.execute_command("REPLICAOF", master.host, master.port)
    m = master.client()
    port = "port=%d," % replica.port
    wait_for(lambda: any(port in v and "state=wait_bgsave" in v for k, v in info(m).items() if k.startswith("slave")),
             what="replica waiting for bgsave")
    return replica, r


def slow_snapshot_master(server_factory, *extra):
    # shutdown-timeout 0: the replica left waiting never catches up, a
    # shutdown waiting for it would outlast the fixture's patience.
    master = server_factory(*MASTER_ARGS, "--save", "", "--repl-backlog-size", "16384", "--enable-debug-command", "yes",
                            "--shutdown-timeout", "0", *extra)
    m = master.client()
    m.set("seed", "1")  # the snapshot has a key to be slow on
    m.config_set("rdb-key-save-delay", 100000000)
    return master, m


def test_replicas_waiting_for_one_snapshot_share_the_stream(server_factory):
    master, m = slow_snapshot_master(server_factory)
    replica_waiting_snapshot(server_factory, master)
    second = server_factory().client()
    second.execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: "state=wait_bgsave" in info(m).get("slave1", ""), what="second replica waiting")
    before = int(mem(m)["used_memory"])
    stream_bytes(m, MB)
    buf = int(mem(m)["mem_total_replication_buffers"])
    assert buf > MB
    # Two replicas, one copy: the data set and the buffer, not two buffers.
    extra = int(mem(m)["used_memory"]) - before - MB
    assert extra < 2 * buf
    # Each replica's output is the whole buffer from its start (CLIENT LIST omem).
    for line in m.execute_command("CLIENT", "LIST", "TYPE", "replica").decode().splitlines():
        omem = int(line.split(" omem=")[1].split()[0])
        assert MB < omem <= buf + 100 * 1024
    # INFO: the part beyond repl-backlog-size is the replicas'.
    mm = mem(m)
    assert int(mm["mem_clients_slaves"]) == int(mm["mem_total_replication_buffers"]) - 16384
    # (Redis adds a few bytes for an index of the blocks it keeps)
    assert 16384 <= int(mm["mem_replication_backlog"]) < 16384 + 1024
    assert int(mm["mem_not_counted_for_evict"]) > MB - 64 * 1024


def test_backlog_outgrows_its_size_while_a_replica_holds_it_then_shrinks(server_factory):
    master, m = slow_snapshot_master(server_factory)
    _, r = replica_waiting_snapshot(server_factory, master)
    stream_bytes(m, 2 * MB)
    assert int(info(m)["repl_backlog_histlen"]) > 2 * MB
    # The replica goes: only the backlog holds the buffer, trimmed back to its size.
    r.execute_command("REPLICAOF", "NO", "ONE")
    wait_for(lambda: info(m)["connected_slaves"] == "0", what="replica gone")
    wait_for(lambda: int(info(m)["repl_backlog_histlen"]) < 100 * 1024, what="backlog trimmed")
    assert int(mem(m)["mem_total_replication_buffers"]) < 200 * 1024
    assert int(mem(m)["mem_clients_slaves"]) == 0


def test_partial_resync_from_the_buffer_beyond_backlog_size(server_factory):
    master, m = slow_snapshot_master(server_factory)
    online = server_factory("--enable-debug-command", "yes")
    o = online.client()
    m.config_set("rdb-key-save-delay", 0)
    attach(o, master)
    m.config_set("rdb-key-save-delay", 100000000)
    waiting, _ = replica_waiting_snapshot(server_factory, master)  # holds the stream from here
    caught_up(m, o)
    # The online replica follows another master for a while (one that cannot
    # serve it: still syncing itself), and 1 MB (64 backlogs) is written meanwhile.
    o.execute_command("REPLICAOF", waiting.host, waiting.port)
    stream_bytes(m, MB)
    o.execute_command("REPLICAOF", master.host, master.port)
    caught_up(m, o)
    wait_for(lambda: int(info(m, "stats")["sync_partial_ok"]) == 1, what="partial resync")
    assert int(info(m, "stats")["sync_full"]) == 2
    assert m.execute_command("DEBUG", "DIGEST") == o.execute_command("DEBUG", "DIGEST")


def test_replica_hard_limit_below_backlog_size_counts_as_backlog_size(server_factory):
    master, m = slow_snapshot_master(server_factory, "--repl-backlog-size", str(MB))
    m.config_set("client-output-buffer-limit", "replica 65536 0 0")
    replica_waiting_snapshot(server_factory, master)
    stream_bytes(m, 512 * 1024)  # over 64 kB, under the 1 MB backlog
    time.sleep(0.5)
    assert "for overcoming of output buffer limits" not in master.log()
    assert info(m, "stats")["sync_full"] == "1"
    stream_bytes(m, MB, prefix="more")
    # Dropped: it comes again for another full resync.
    wait_for(lambda: "for overcoming of output buffer limits" in master.log(), what="replica over its limit dropped")
    wait_for(lambda: info(m, "stats")["sync_full"] == "2", what="the replica's new full resync")


def test_replica_buffers_do_not_induce_eviction(server_factory):
    master, m = slow_snapshot_master(server_factory, "--maxmemory-policy", "allkeys-random")
    replica_waiting_snapshot(server_factory, master)
    for i in range(100):
        m.setrange("key:%d" % i, 10000, "asdf")
    mm = mem(m)
    m.config_set("maxmemory", int(mm["used_memory"]) - int(mm["mem_not_counted_for_evict"]) + 256 * 1024)
    # Rewrites that do not grow the data set, but the held stream by 2 MB.
    value = "A" * 1000
    for _ in range(2):
        p = m.pipeline(transaction=False)
        for _ in range(1000):
            p.setrange("key:0", 0, value)
        p.execute()
    assert int(mem(m)["mem_clients_slaves"]) > MB
    assert m.dbsize() == 101
    assert int(info(m, "stats")["evicted_keys"]) == 0


def rbs(m, name):
    for line in m.execute_command("CLIENT", "LIST").decode().splitlines():
        if " name=%s " % name in line:
            return int(line.split(" rbs=")[1].split()[0])
    raise AssertionError("no client " + name)


def test_reply_buffer_shrinks_when_idle_and_grows_when_busy(server_factory):
    server = server_factory("--enable-debug-command", "yes")
    m = server.client()
    m.execute_command("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "100")
    tc = server.client()
    tc.client_setname("test_client")
    wait_for(lambda: 1024 <= rbs(m, "test_client") < 2046, what="idle reply buffer shrunk")
    assert int(info(m, "stats")["reply_buffer_shrinks"]) > 0
    m.set("bigval", "x" * 32768)
    m.execute_command("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "never")

    def busy_grown():
        tc.get("bigval")
        return 16384 <= rbs(m, "test_client") < 32768

    wait_for(busy_grown, what="busy reply buffer grown")
    assert int(info(m, "stats")["reply_buffer_expands"]) > 0
    m.execute_command("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "reset")
    # Resizing off: the buffer stays as it is.
    m.execute_command("DEBUG", "REPLYBUFFER", "RESIZING", "0")
    size = rbs(m, "test_client")
    m.execute_command("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "100")
    time.sleep(0.5)
    assert rbs(m, "test_client") == size
    with pytest.raises(Exception, match="value is not an integer"):
        m.execute_command("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "soon")
    with pytest.raises(Exception, match="unknown subcommand or wrong number of arguments for 'REPLYBUFFER'. Try DEBUG HELP."):
        m.execute_command("DEBUG", "REPLYBUFFER", "SIZE", "1")


def test_full_sync_waits_for_a_running_aof_rewrite(server_factory):
    """One child at a time (Redis 7.0): a full resync asked for while an AOF
    rewrite runs forks its snapshot only after the rewrite ended."""
    master = server_factory(*MASTER_ARGS, "--appendonly", "yes")
    m = master.client()
    for i in range(10):
        m.set("k%d" % i, "v")
    m.config_set("rdb-key-save-delay", 200000)  # the rewrite takes about 2 s
    m.bgrewriteaof()
    wait_for(lambda: info(m, "persistence")["aof_rewrite_in_progress"] == "1", what="rewrite running")
    m.config_set("rdb-key-save-delay", 0)
    replica = server_factory()
    r = replica.client()
    r.execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: "BGSAVE for replication delayed" in master.log(), what="the full sync delayed")
    while True:
        # one INFO for both: the snapshot may start right after the rewrite ends
        p = info(m, "persistence")
        if p["aof_rewrite_in_progress"] == "0":
            break
        assert p["rdb_bgsave_in_progress"] == "0"
        time.sleep(0.05)
    wait_for(lambda: info(r).get("master_link_status") == "up", timeout=20, what="replica synced after the rewrite")
    assert r.dbsize() == 10


def test_shutdown_kills_the_snapshot_child_of_a_full_sync(server_factory):
    master, m = slow_snapshot_master(server_factory)
    replica_waiting_snapshot(server_factory, master)
    child = int(re.search(r"Background saving started by pid (\d+)", master.log()).group(1))
    master.stop()
    wait_for(lambda: not pid_alive(child), what="snapshot child gone")


def pid_alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def buffer_figures(server_factory, binary, backlog=100000, count=3000, size=50, aof="no"):
    """The buffer's figures after the same stream, on a master of `binary`."""
    master = server_factory(*MASTER_ARGS, "--repl-ping-replica-period", "3600", "--appendonly", aof,
                            "--appendfsync", "no", binary=binary)
    m = master.client()
    r = server_factory(binary=binary).client()
    attach(r, master)
    m.config_set("repl-backlog-size", backlog)
    p = m.pipeline(transaction=False)
    for i in range(count):
        p.set("key:%d" % i, "%0*d" % (size, i))
        if i % 1000 == 999:
            p.execute()
    p.execute()
    # The AOF buffer after a flush: a big one is freed, a small one kept
    # (how the pipeline was cut into reads decides which: end with one of each).
    m.set("big", "x" * 5000)
    m.set("small", "x")
    caught_up(m, r)
    mm, rep = mem(m), info(m)
    lines = m.execute_command("CLIENT", "LIST", "TYPE", "replica").decode().splitlines()
    # A replica's oll counts the shared blocks it has still to send (as Redis).
    omem = [(int(line.split(" omem=")[1].split()[0]), int(line.split(" oll=")[1].split()[0])) for line in lines]
    return {"buffers": int(mm["mem_total_replication_buffers"]), "replicas": int(mm["mem_clients_slaves"]),
            "not_counted": int(mm["mem_not_counted_for_evict"]), "first": int(rep["repl_backlog_first_byte_offset"]),
            "histlen": int(rep["repl_backlog_histlen"]), "offset": int(rep["master_repl_offset"]), "omem": omem,
            "backlog": int(mm["mem_replication_backlog"]), "aof_buffer": int(mm["mem_aof_buffer"])}


# Small commands into a small backlog; big ones into backlogs long enough
# for Redis to index some of its blocks (one in 64), all kept or trimmed;
# the AOF's buffer, which maxmemory does not count either.
@pytest.mark.skipif(not REF_SERVER, reason="needs Debian's redis-server")
@pytest.mark.parametrize("backlog,count,size,aof", [(100000, 3000, 50, "no"), (8 * MB, 6000, 1000, "no"),
                                                    (MB, 6000, 1000, "no"), (100000, 3000, 50, "yes")])
def test_buffer_figures_are_redis_figures(server_factory, backlog, count, size, aof):
    """The same stream gives the same INFO and CLIENT LIST figures as Redis 7.0.15."""
    probe = server_factory()
    if not mem(probe.client())["mem_allocator"].startswith("jemalloc"):
        pytest.skip("block sizes are jemalloc's size classes (a sanitizer or libc build has others)")
    probe.stop()
    ours = buffer_figures(server_factory, SERVER, backlog, count, size, aof)
    assert ours == buffer_figures(server_factory, REF_SERVER, backlog, count, size, aof)


def test_rdb_only_reader_holds_no_stream(server_factory, tmp_path):
    """redis-cli --rdb (REPLCONF rdb-only 1) takes the snapshot and no stream:
    waiting for it does not keep the stream in the buffer."""
    master, m = slow_snapshot_master(server_factory)
    m.config_set("rdb-key-save-delay", 1000000)  # one second a key
    cli = subprocess.Popen(["redis-cli", "-p", str(master.port), "--rdb", str(tmp_path / "dump.rdb")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: "state=wait_bgsave" in info(m).get("slave0", ""), what="snapshot for redis-cli")
        stream_bytes(m, MB)
        assert int(info(m)["repl_backlog_histlen"]) < 64 * 1024
        with pytest.raises(redis.ResponseError, match="value is out of range, value must between 0 and 1"):
            m.execute_command("REPLCONF", "RDB-ONLY", "2")
        assert cli.wait(timeout=20) == 0
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
