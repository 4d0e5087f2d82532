"""Replication as Redis 7.0 does it (issue 14): the master side (SYNC/PSYNC,
the RDB of a full resync, the command stream with SELECT, REPLCONF, the
backlog, INFO replication, ROLE, CLIENT LIST), the replica side (REPLICAOF,
the handshake, applying the stream, read-only replicas, expiry as 7.0),
PSYNC partial resync and WAIT. Interoperability runs both ways with Debian's
redis-server 7.0.15 (support.REF_SERVER); under REFERENCE=1 every server is
the reference, so the tests of Redis behaviour check themselves.
"""
import os
import re
import socket
import subprocess
import time

import pytest

from support import (MASTER_ARGS, REF_SERVER, SENT_ODDLY_STREAM, SERVER, attach, caught_up, child_pids, info, info_keys,
                     link_up,
                     send_oddly, start_pair, wait_for)

def fill(m):
    """Every type, TTLs, several dbs, a stream with a consumer group, a function."""
    m.set("str", "hello")
    m.set("int", 12345)
    m.set("ttl", "v", ex=1000)
    m.rpush("list", *[b"e%d" % i for i in range(50)])
    m.rpush("biglist", *[b"x" * 100 for _ in range(300)])
    m.hset("hash", mapping={"f%d" % i: "v%d" % i for i in range(10)})
    m.hset("bighash", mapping={"f%d" % i: "v" * 80 for i in range(600)})
    m.sadd("intset", *range(20))
    m.sadd("set", *["m%d" % i for i in range(20)])
    m.zadd("zset", {"a": 1, "b": 2.5, "c": -3})
    m.zadd("bigzset", {"m%d" % i: i for i in range(200)})
    for i in range(5):
        m.xadd("stream", {"f": i}, id="1-%d" % (i + 1))
    m.xgroup_create("stream", "grp", id="0")
    m.xreadgroup("grp", "alice", {"stream": ">"}, count=2)
    m.pexpire("hash", 500000)
    m.execute_command("SELECT", 3)  # the connection pool keeps this client on db 3
    m.set("in-db-3", "x")
    m.execute_command("SELECT", 0)
    m.execute_command("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)")


def live_load(m):
    """A mixed write load, each command of a kind whose replay differs from the call."""
    p = m.pipeline(transaction=True)
    p.incr("counter")
    p.lpush("list", "head")
    p.execute()
    m.eval("redis.call('set', KEYS[1], ARGV[1]); redis.call('incrbyfloat', KEYS[2], '1.5')", 2, "ek", "fl", "val")
    m.incrbyfloat("fl", "2.25")
    m.spop("set")
    m.xadd("stream", {"new": "1"})
    m.expire("str", 5000)
    m.execute_command("SELECT", 5)
    m.set("in-db-5", "y")
    m.execute_command("SELECT", 0)
    m.delete("int")
    m.hset("hash", "nf", "nv")
    m.zincrby("zset", 2, "a")


def snapshot(c):
    """The dataset, logically: per db, per key, type, value and whether it expires."""
    out = {}
    for db in range(16):
        c.execute_command("SELECT", db)
        for key in c.keys("*"):
            t = c.type(key).decode()
            if t == "string":
                v = c.get(key)
            elif t == "list":
                v = c.lrange(key, 0, -1)
            elif t == "hash":
                v = sorted(c.hgetall(key).items())
            elif t == "set":
                v = sorted(c.smembers(key))
            elif t == "zset":
                v = c.zrange(key, 0, -1, withscores=True)
            elif t == "stream":
                groups = [(g["name"], g["last-delivered-id"], g["pending"]) for g in c.xinfo_groups(key)]
                v = (c.xrange(key), groups)
            else:
                v = None
            out[(db, key)] = (t, v, c.pttl(key) > 0)
    c.execute_command("SELECT", 0)
    out["functions"] = sorted(lib[b"library_name"] if isinstance(lib, dict) else lib[1]
                              for lib in c.execute_command("FUNCTION", "LIST"))
    return out


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        assert chunk, "connection closed"
        buf += chunk
    return buf


def read_line(s):
    line = b""
    while not line.endswith(b"\n"):
        chunk = s.recv(1)
        assert chunk, "connection closed"
        line += chunk
    return line


def sync_socket(server, command=b"SYNC\r\n"):
    """A connection that sent SYNC (as attach_to_replication_stream does) and read the RDB."""
    s = socket.create_connection((server.host, server.port), timeout=10)
    s.sendall(command)
    first = None
    while True:
        line = read_line(s)
        if line == b"\n":
            continue  # keepalives while the master saves
        if line.startswith(b"+FULLRESYNC"):
            first = line
            continue
        break
    assert line.startswith(b"$"), line
    rdb = read_exact(s, int(line[1:-2]))
    return s, first, rdb


def read_stream(s, expect_len, timeout=5):
    s.settimeout(timeout)
    return read_exact(s, expect_len)


# ------------------------------------------------------------------ master side


def test_sync_sends_rdb_then_the_stream_with_select(server_factory):
    master = server_factory(*MASTER_ARGS)
    m = master.client()
    m.set("before", "1")
    s, first, rdb = sync_socket(master)
    assert first is None
    assert rdb.startswith(b"REDIS0010")
    m.set("k", "v")
    m.execute_command("SELECT", 2)
    m.lpush("l", "a")
    m.execute_command("SELECT", 0)
    want = (b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
            b"*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n*3\r\n$5\r\nLPUSH\r\n$1\r\nl\r\n$1\r\na\r\n")
    assert read_stream(s, len(want)) == want
    s.close()


def test_stream_has_commands_in_canonical_form_however_sent(server_factory):
    master = server_factory(*MASTER_ARGS)
    s, _, _ = sync_socket(master)
    got, want = send_oddly(master)
    assert got == want
    stream = b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" + SENT_ODDLY_STREAM
    assert read_stream(s, len(stream)) == stream
    s.close()


def test_offset_counts_pipelined_writes_before_a_read_in_the_same_pipeline(server_factory):
    """INFO, ROLE and WAIT read the stream's offset: sent in the same pipeline
    right after writes, they count them (and the stream holds them in order)."""
    master = server_factory(*MASTER_ARGS)
    s, _, _ = sync_socket(master, b"PSYNC ? -1\r\n")
    start = int(info(master.client())["master_repl_offset"])
    c = socket.create_connection((master.host, master.port), timeout=5)
    writes = b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n" * 3 + b"*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"
    c.sendall(writes + b"*1\r\n$4\r\nROLE\r\n" + writes + b"*2\r\n$4\r\nINFO\r\n$11\r\nreplication\r\n")
    got = b""
    while b"master_repl_offset" not in got or not got.endswith(b"\r\n\r\n"):
        got += c.recv(65536)
    c.close()
    select = b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
    role_offset = int(re.search(rb"\*3\r\n\$6\r\nmaster\r\n:(\d+)\r\n", got).group(1))
    info_offset = int(re.search(rb"master_repl_offset:(\d+)", got).group(1))
    assert role_offset == start + len(select) + len(writes)
    assert info_offset == start + len(select) + 2 * len(writes)
    assert read_stream(s, len(select) + 2 * len(writes)) == select + writes + writes
    s.close()


def test_psync_answers_fullresync_with_replid_and_offset(server_factory):
    master = server_factory(*MASTER_ARGS)
    m = master.client()
    s, first, rdb = sync_socket(master, b"PSYNC ? -1\r\n")
    mo = re.match(rb"\+FULLRESYNC ([0-9a-f]{40}) (\d+)\r\n$", first)
    assert mo, first
    i = info(m)
    assert i["master_replid"] == mo.group(1).decode()
    assert int(mo.group(2)) == int(i["master_repl_offset"])
    assert i["repl_backlog_active"] == "1"
    assert i["connected_slaves"] == "1"
    assert i["slave0"].startswith("ip=127.0.0.1,port=0,state=online,offset=0,lag=")
    s.close()


def test_stream_offsets_and_backlog_follow_writes(server_factory):
    master = server_factory(*MASTER_ARGS)
    m = master.client()
    s, first, rdb = sync_socket(master, b"PSYNC ? -1\r\n")
    start = int(info(m)["master_repl_offset"])
    m.set("k", "v")
    want = b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
    assert read_stream(s, len(want)) == want
    i = info(m)
    assert int(i["master_repl_offset"]) == start + len(want)
    assert int(i["repl_backlog_histlen"]) == int(i["master_repl_offset"])
    assert i["repl_backlog_first_byte_offset"] == "1"
    s.close()


def test_replconf_options_and_errors(server_factory):
    master = server_factory(*MASTER_ARGS)
    m = master.client()
    assert m.execute_command("REPLCONF", "listening-port", "1234") == b"OK"
    assert m.execute_command("REPLCONF", "capa", "eof", "capa", "psync2") == b"OK"
    assert m.execute_command("REPLCONF", "ip-address", "10.0.0.1") == b"OK"
    with pytest.raises(Exception, match="^Unrecognized REPLCONF option: foo$"):
        m.execute_command("REPLCONF", "foo", "bar")
    with pytest.raises(Exception, match="^syntax error$"):
        m.execute_command("REPLCONF", "listening-port")


def test_role_and_info_of_a_master_with_a_replica(server_factory):
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    m.set("k", "v")
    caught_up(m, r)

    def acked():
        role = m.execute_command("ROLE")
        return role if role[2] and int(role[2][0][2]) == int(info(m)["master_repl_offset"]) else None
    role = wait_for(acked, what="ROLE with the replica's ACK")
    assert role[0] == b"master"
    assert role[2][0][:2] == [b"127.0.0.1", str(replica.port).encode()]
    assert info_keys(m) == ["role", "connected_slaves", "slave0", "master_failover_state", "master_replid",
                            "master_replid2", "master_repl_offset", "second_repl_offset", "repl_backlog_active",
                            "repl_backlog_size", "repl_backlog_first_byte_offset", "repl_backlog_histlen"]
    assert re.match(r"ip=127\.0\.0\.1,port=%d,state=online,offset=\d+,lag=\d+$" % replica.port, info(m)["slave0"])
    replicas = m.execute_command("CLIENT", "LIST", "TYPE", "replica").decode()
    assert " flags=S " in replicas and "cmd=replconf" in replicas
    masters = r.execute_command("CLIENT", "LIST", "TYPE", "master").decode()
    assert " flags=M " in masters


def test_info_and_role_of_a_replica(server_factory):
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    assert info_keys(r) == ["role", "master_host", "master_port", "master_link_status", "master_last_io_seconds_ago",
                            "master_sync_in_progress", "slave_read_repl_offset", "slave_repl_offset",
                            "slave_priority", "slave_read_only", "replica_announced", "connected_slaves",
                            "master_failover_state", "master_replid", "master_replid2", "master_repl_offset",
                            "second_repl_offset", "repl_backlog_active", "repl_backlog_size",
                            "repl_backlog_first_byte_offset", "repl_backlog_histlen"]
    i = info(r)
    assert i["role"] == "slave" and i["master_port"] == str(master.port)
    assert i["master_replid"] == info(m)["master_replid"]
    role = r.execute_command("ROLE")
    assert role[:4] == [b"slave", b"127.0.0.1", master.port, b"connected"]
    assert isinstance(role[4], int)


def test_redis_cli_rdb_and_replica(server_factory, tmp_path):
    master = server_factory(*MASTER_ARGS)
    m = master.client()
    fill(m)
    out = tmp_path / "dump.rdb"
    res = subprocess.run(["redis-cli", "-p", str(master.port), "--rdb", str(out)], capture_output=True, timeout=30)
    assert res.returncode == 0, res.stderr
    assert out.read_bytes().startswith(b"REDIS0010")
    chk = subprocess.run(["redis-check-rdb", str(out)], capture_output=True, timeout=30)
    assert chk.returncode == 0 and b"RDB looks OK" in chk.stdout, chk.stdout
    proc = subprocess.Popen(["redis-cli", "-p", str(master.port), "--replica"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: info(m)["connected_slaves"] == "1" and "online" in info(m).get("slave0", ""))
        time.sleep(1)  # a diskless master streams once the first REPLCONF ACK came
        m.set("seen", "1")
        time.sleep(1)
    finally:
        proc.terminate()
    text = proc.communicate(timeout=10)[0]
    # (redis-cli drops what follows an EOF-marked transfer in the same read: the SELECT, on the reference)
    assert b'"SET","seen","1"\n' in text, text


@pytest.mark.parametrize("master_args", [("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"),
                                         ("--repl-diskless-sync", "no")])
def test_redis_cli_functions_rdb_holds_the_libraries_alone(server_factory, tmp_path, master_args):
    """redis-cli --functions-rdb (REPLCONF rdb-filter-only functions): a
    snapshot of the function libraries without the keys, diskless even on a
    master that syncs its replicas through a file; the file loads as such."""
    master = server_factory(*master_args)
    m = master.client()
    fill(m)
    out = tmp_path / "functions.rdb"
    res = subprocess.run(["redis-cli", "-p", str(master.port), "--functions-rdb", str(out)], capture_output=True,
                         timeout=30)
    assert res.returncode == 0, res.stderr
    assert b"Transfer finished with success" in res.stderr + res.stdout
    loaded = server_factory("--dir", str(tmp_path), "--dbfilename", "functions.rdb")
    c = loaded.client()
    assert c.dbsize() == 0
    assert [lib[1] for lib in c.execute_command("FUNCTION", "LIST")] == [b"lib"]
    with pytest.raises(Exception, match="^Unsupported rdb-filter-only option: keys$"):
        m.execute_command("REPLCONF", "rdb-filter-only", "keys")
    assert m.execute_command("REPLCONF", "rdb-filter-only", "") == b"OK"


# -------------------------------------------------------------- both directions

PAIRS = [("ours", "ours"), ("ours", "reference"), ("reference", "ours")]


def binary(kind):
    return SERVER if kind == "ours" else REF_SERVER


def start_kinds(server_factory, master_kind, replica_kind, master_args=MASTER_ARGS):
    """A master and a replica of the kinds named (not attached yet)."""
    if not REF_SERVER and "reference" in (master_kind, replica_kind):
        pytest.skip("no reference redis-server")
    master, replica, m, r = start_pair(server_factory, binary(master_kind), binary(replica_kind),
                                       master_args=master_args)
    fill(m)
    return master, replica, m, r


@pytest.mark.parametrize("master_kind,replica_kind", PAIRS)
def test_full_sync_then_live_writes(server_factory, master_kind, replica_kind):
    master, replica, m, r = start_kinds(server_factory, master_kind, replica_kind)
    attach(r, master)
    assert snapshot(r) == snapshot(m)
    live_load(m)
    caught_up(m, r)
    assert snapshot(r) == snapshot(m)


@pytest.mark.parametrize("master_kind,replica_kind", PAIRS)
def test_diskless_full_sync_then_live_writes(server_factory, master_kind, replica_kind):
    """repl-diskless-sync yes: an EOF-marked RDB from the child's pipe; the stream after the first ACK."""
    master, replica, m, r = start_kinds(server_factory, master_kind, replica_kind,
                                        master_args=("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"))
    live_load(m)  # before the sync too: the stream during the transfer waits for the ACK
    attach(r, master)
    assert snapshot(r) == snapshot(m)
    live_load(m)
    caught_up(m, r)
    assert snapshot(r) == snapshot(m)


def test_a_diskless_sync_child_reports_its_copy_on_write_as_a_bgsave(server_factory):
    """Redis 7.0 counts the sync's snapshot child as an RDB child: INFO rdb_last_cow_size
    (its private dirty memory: its own buffers at least) and the log line of it."""
    master, replica, m, r = start_kinds(server_factory, "ours", "ours",
                                        master_args=("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"))
    assert info(m, "persistence")["rdb_last_cow_size"] == "0"
    attach(r, master)
    wait_for(lambda: info(m, "persistence")["rdb_bgsave_in_progress"] == "0", what="the snapshot child's end")
    assert int(info(m, "persistence")["rdb_last_cow_size"]) > 0
    assert re.search(r"Fork CoW for RDB: current \d+ MB, peak \d+ MB, average \d+ MB", master.log())
    assert info(m, "stats")["total_forks"] == "1"


def test_no_table_grows_while_a_diskless_sync_child_shares_it(server_factory):
    """As for a BGSAVE: while the sync's snapshot child runs the master's tables do not
    grow (each entry moved would be a page copied), and grow once it is gone."""
    args = ("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes")
    master, replica, m, r = start_kinds(server_factory, "ours", "ours", master_args=args)
    m.flushall()
    m.execute_command("DEBUG", "POPULATE", "4096")
    m.config_set("rdb-key-save-delay", "500")  # µs a key: about 2 s
    r.execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: info(m, "persistence")["rdb_bgsave_in_progress"] == "1", what="the snapshot child")
    m.mset({"k1": "v1", "k2": "v2"})
    assert "table size: 8192" not in m.execute_command("DEBUG", "HTSTATS", "0").decode()
    assert info(m, "persistence")["rdb_bgsave_in_progress"] == "1", "the child ended too soon to tell"
    m.config_set("rdb-key-save-delay", "0")
    wait_for(lambda: link_up(r), what="master_link_status:up")
    wait_for(lambda: info(m, "persistence")["rdb_bgsave_in_progress"] == "0", what="the snapshot child's end")
    m.set("k3", "v3")
    wait_for(lambda: "table size: 8192" in m.execute_command("DEBUG", "HTSTATS", "0").decode(), what="the growth")


def test_replica_is_read_only_and_serves_stale_data_as_configured(server_factory):
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    with pytest.raises(Exception, match="You can't write against a read only replica.$"):
        r.set("k", "v")
    master.stop()
    wait_for(lambda: not link_up(r), what="link down")
    assert r.get("k") is None  # stale data served by default
    r.config_set("replica-serve-stale-data", "no")
    with pytest.raises(Exception, match="Link with MASTER is down and replica-serve-stale-data is set to 'no'.$"):
        r.get("k")
    assert info(r)["role"] == "slave"  # INFO serves stale data (PING does not)
    i = info(r)
    assert i["master_link_status"] == "down" and "master_link_down_since_seconds" in i


def test_replica_keeps_expired_keys_until_the_masters_del(server_factory):
    master = server_factory(*MASTER_ARGS, "--enable-debug-command", "yes")
    replica = server_factory()
    m, r = master.client(), replica.client()
    attach(r, master)
    m.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    m.set("k", "v", px=200)
    caught_up(m, r)
    assert r.get("k") == b"v"
    time.sleep(0.3)
    assert r.get("k") is None  # logically expired: read as missing
    assert r.dbsize() == 1     # but still there until the master says so
    assert m.get("k") is None  # the master expires it and propagates DEL
    caught_up(m, r)
    assert r.dbsize() == 0


def tracked(r):
    return int(info(r, "stats")["slave_expires_tracked_keys"])


def test_a_writable_replicas_own_volatile_keys_expire_on_it(server_factory):
    # The master sends no DEL for keys it never had: the replica remembers the
    # names its own clients gave a TTL, and removes each key when it is due.
    master, replica, m, r = start_pair(server_factory, replica_args=("--replica-read-only", "no"))
    attach(r, master)
    for _ in range(500):
        r.set("k", "v", px=100000)
    assert tracked(r) == 1  # one name however often it is given a TTL
    r.set("s1", "v", px=100)
    r.set("s2", "v")
    r.pexpire("s2", 100)
    assert tracked(r) == 3
    wait_for(lambda: r.dbsize() == 1, what="s1 and s2 removed by the replica")  # not merely read as missing
    assert tracked(r) == 1
    assert r.get("k") == b"v"
    r.set("k", "no ttl now")  # overwritten: the name is forgotten, the key stays
    wait_for(lambda: tracked(r) == 0, what="k forgotten")
    assert r.get("k") == b"no ttl now"
    for i in range(3):
        r.set("f%d" % i, "v", ex=1000)
    assert tracked(r) == 3
    r.flushall()
    assert tracked(r) == 0
    # Promoted, it expires them as any master does (the names are no longer
    # needed: Redis keeps them unused, ours drops them).
    r.set("p", "v", px=300)
    r.execute_command("REPLICAOF", "NO", "ONE")
    wait_for(lambda: r.dbsize() == 0, what="p expired on the promoted replica")


def test_replicaof_no_one_keeps_data_and_shifts_replid(server_factory):
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    m.set("k", "v")
    caught_up(m, r)
    before = info(r)
    assert r.execute_command("REPLICAOF", "NO", "ONE") == b"OK"
    after = info(r)
    assert after["role"] == "master"
    assert after["master_replid2"] == before["master_replid"]
    assert after["master_replid"] != before["master_replid"]
    assert int(after["second_repl_offset"]) == int(before["master_repl_offset"]) + 1
    assert r.get("k") == b"v"
    r.set("writable", "1")


def test_replicaof_replies(server_factory):
    master, replica, m, r = start_pair(server_factory)
    assert r.execute_command("REPLICAOF", "NO", "ONE") == b"OK"
    with pytest.raises(Exception, match="^Invalid master port$"):
        r.execute_command("REPLICAOF", "127.0.0.1", "70000")
    attach(r, master)
    assert r.execute_command("REPLICAOF", master.host, master.port) == b"OK Already connected to specified master"


# ------------------------------------------------------ partial resync and WAIT


@pytest.mark.parametrize("master_kind,replica_kind", PAIRS)
def test_partial_resync_after_a_dropped_link(server_factory, master_kind, replica_kind):
    master, replica, m, r = start_kinds(server_factory, master_kind, replica_kind)
    attach(r, master)
    full = int(info(m, "stats")["sync_full"])
    m.execute_command("CLIENT", "KILL", "TYPE", "replica")
    m.set("while-down", "1")
    m.execute_command("SELECT", 4)
    m.set("db4", "x")
    m.execute_command("SELECT", 0)
    wait_for(lambda: int(info(m, "stats")["sync_partial_ok"]) == 1, what="a partial resync")
    assert int(info(m, "stats")["sync_full"]) == full
    wait_for(lambda: link_up(r))
    caught_up(m, r)
    assert snapshot(r) == snapshot(m)


def test_wait_counts_acknowledgements(server_factory):
    master, replica, m, r = start_pair(server_factory)
    assert m.execute_command("WAIT", 1, 100) == 0
    attach(r, master)
    m.set("k", "v")
    assert m.execute_command("WAIT", 1, 5000) == 1
    assert m.execute_command("WAIT", 2, 300) == 1
    with pytest.raises(Exception, match="^WAIT cannot be used with replica instances"):
        r.execute_command("WAIT", 1, 0)


def test_min_replicas_to_write(server_factory):
    master, replica, m, r = start_pair(server_factory)
    m.config_set("min-replicas-to-write", 1)
    with pytest.raises(Exception, match="Not enough good replicas to write.$"):
        m.set("k", "v")
    attach(r, master)
    wait_for(lambda: _writes(m), what="writes accepted with a good replica")


def _writes(m):
    try:
        m.set("k", "v")
        return True
    except Exception:
        return False


# ------------------------------------------------------------ ours: the push


@pytest.mark.ours
def test_expiry_push_follows_the_role(server_factory):
    master, replica, m, r = start_pair(server_factory)
    assert info(r, "expiry_push")["expiry_push_role"] == "master"
    attach(r, master)
    assert info(r, "expiry_push")["expiry_push_role"] == "replica"
    r.execute_command("REPLICAOF", "NO", "ONE")
    assert info(r, "expiry_push")["expiry_push_role"] == "master"


# ------------------------------------------------------------ chains and auth


MIDDLE = pytest.mark.parametrize("middle_kind", ["ours", "reference"], ids=["middle-ours", "middle-reference"])


def start_chain(server_factory, middle_kind):
    """Our master, a replica of it (of the kind named, attached) and our leaf replica (not yet)."""
    master, middle, m, mid = start_kinds(server_factory, "ours", middle_kind)
    leaf = server_factory()
    attach(mid, master)
    return middle, leaf, m, mid, leaf.client()


@MIDDLE
def test_chained_replica_gets_the_masters_stream(server_factory, middle_kind):
    middle, leaf, m, mid, lf = start_chain(server_factory, middle_kind)
    attach(lf, middle)
    live_load(m)
    caught_up(m, mid)
    caught_up(mid, lf)
    assert snapshot(lf) == snapshot(m)
    assert info(lf)["master_replid"] == info(m)["master_replid"]


def test_masterauth_and_masteruser(server_factory):
    master = server_factory(*MASTER_ARGS, "--requirepass", "secret")
    replica = server_factory("--masterauth", "secret")
    m, r = master.client(password="secret"), replica.client()
    m.set("k", "v")
    attach(r, master)
    assert r.get("k") == b"v"
    replica2 = server_factory("--masteruser", "default", "--masterauth", "secret")
    r2 = replica2.client()
    attach(r2, master)
    assert r2.get("k") == b"v"
    replica3 = server_factory("--masterauth", "wrong")
    r3 = replica3.client()
    r3.execute_command("REPLICAOF", master.host, master.port)
    time.sleep(1.5)
    assert info(r3)["master_link_status"] == "down"


@pytest.mark.parametrize("master_kind,replica_kind", PAIRS)
def test_partial_resync_after_a_replica_restart(server_factory, master_kind, replica_kind):
    """The replica's RDB keeps the replication ID and offset (aux fields), as 7.0."""
    master, replica, m, r = start_kinds(server_factory, master_kind, replica_kind)
    attach(r, master)
    live_load(m)
    caught_up(m, r)
    try:
        r.shutdown(save=True)
    except Exception:
        pass  # the connection closes
    replica.proc.wait(timeout=10)
    m.set("while-down", "1")
    again = server_factory("--dir", replica.dir, "--replicaof", master.host, str(master.port),
                           binary=binary(replica_kind))
    r2 = again.client()
    wait_for(lambda: link_up(r2), what="link up after the restart")
    caught_up(m, r2)
    stats = info(m, "stats")
    assert stats["sync_partial_ok"] == "1" and stats["sync_full"] == "1", stats
    assert snapshot(r2) == snapshot(m)


@MIDDLE
def test_chained_replica_attached_mid_stream_follows_the_selected_db(server_factory, middle_kind):
    """The snapshot a replica serves names the db its master's stream has selected (repl-stream-db)."""
    middle, leaf, m, mid, lf = start_chain(server_factory, middle_kind)
    m.execute_command("SELECT", 5)
    m.set("x", "1")
    caught_up(m, mid)
    attach(lf, middle)
    m.set("y", "2")  # no SELECT in the stream: db 5 still
    m.execute_command("SELECT", 0)
    caught_up(m, mid)
    caught_up(mid, lf)
    lf.execute_command("SELECT", 5)
    assert lf.get("y") == b"2"
    lf.execute_command("SELECT", 0)
    assert lf.get("y") is None


# ------------------------------------------------ how pops and GETDEL replay


def resp(*commands):
    out = b""
    for cmd in commands:
        out += b"*%d\r\n" % len(cmd)
        for a in cmd:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def test_getdel_and_zmpop_replay_as_del_and_counted_pops(server_factory):
    """GETDEL goes out as DEL; ZMPOP/BZMPOP as ZPOPMIN/MAX with the count they
    popped (not the one asked); BZPOPMIN as a plain ZPOPMIN."""
    master = server_factory(*MASTER_ARGS)
    m = master.client()
    s, _, _ = sync_socket(master)
    m.set("foo", "bar")
    assert m.execute_command("GETDEL", "foo") == b"bar"
    assert m.execute_command("GETDEL", "foo") is None  # nothing removed: nothing replayed
    m.zadd("z", {"one": 1, "two": 2, "three": 3})
    m.execute_command("ZMPOP", 1, "z", "MIN")
    m.execute_command("ZMPOP", 2, "z", "z2", "MAX", "COUNT", 10)
    m.execute_command("ZMPOP", 2, "z", "z2", "MAX", "COUNT", 10)  # both empty: not replayed
    m.zadd("z2", {"a": 1, "b": 2, "c": 3})
    m.execute_command("BZMPOP", 0, 2, "z", "z2", "MIN", "COUNT", 2)
    m.execute_command("BZPOPMAX", "z2", 0)
    want = resp([b"SELECT", 0], [b"SET", b"foo", b"bar"], [b"DEL", b"foo"],
                [b"ZADD", b"z", 1, b"one", 2, b"two", 3, b"three"],
                [b"ZPOPMIN", b"z", 1], [b"ZPOPMAX", b"z", 2],
                [b"ZADD", b"z2", 1, b"a", 2, b"b", 3, b"c"],
                [b"ZPOPMIN", b"z2", 2], [b"ZPOPMAX", b"z2"])
    got = read_stream(s, len(want))
    assert got.lower() == want.lower()
    s.close()


def test_masterauth_with_a_nul_byte(server_factory):
    master, replica, m, r = start_pair(server_factory)
    m.config_set("requirepass", "abc\x00def")
    r.config_set("masterauth", "abc")
    r.execute_command("REPLICAOF", master.host, master.port)
    time.sleep(1)
    assert info(r)["master_link_status"] == "down"
    r.config_set("masterauth", "abc\x00def")
    assert r.execute_command("CONFIG", "GET", "masterauth") == [b"masterauth", b"abc\x00def"]
    wait_for(lambda: info(r)["master_link_status"] == "up", timeout=10)


def test_bind_source_addr_is_where_a_replica_connects_from(server_factory):
    master, replica, m, r = start_pair(server_factory)
    m.config_set("protected-mode", "no")
    r.config_set("bind-source-addr", "127.0.0.2")
    assert r.config_get("bind-source-addr") in ({"bind-source-addr": "127.0.0.2"},
                                                {b"bind-source-addr": b"127.0.0.2"})
    attach(r, master)
    wait_for(lambda: "ip=127.0.0.2," in info(m).get("slave0", ""), what="a replica from 127.0.0.2")


def test_a_paused_replica_reads_the_stream_but_applies_it_after_unpause(server_factory):
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    m.set("foo", "bar")
    caught_up(m, r)
    applied = int(info(r)["slave_repl_offset"])
    r.execute_command("CLIENT", "PAUSE", 100000, "WRITE")
    m.set("foo2", "bar2")
    target = int(info(m)["master_repl_offset"])
    wait_for(lambda: int(info(r)["slave_read_repl_offset"]) == target, what="the write read")
    assert int(info(r)["slave_repl_offset"]) == applied
    assert r.get("foo2") is None
    r.execute_command("CLIENT", "UNPAUSE")
    wait_for(lambda: int(info(r)["slave_repl_offset"]) == target, what="the write applied")
    assert r.get("foo2") == b"bar2"


def test_redis_cli_replica_gets_the_writes_made_during_its_sync(server_factory):
    """Writes made while redis-cli --replica's snapshot is being produced are
    held and sent after its first REPLCONF ACK, on the same link (they once
    dropped it: the held stream was taken for a reply to the ACK)."""
    master = server_factory("--repl-diskless-sync", "no")
    m = master.client()
    for i in range(20):
        m.set(f"k{i}", i)
    m.config_set("rdb-key-save-delay", 50000)  # about one second of snapshot
    proc = subprocess.Popen(["redis-cli", "-p", str(master.port), "--replica"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: info(m)["connected_slaves"] == "1")
        for i in range(5):
            m.set("during", i)
        wait_for(lambda: "online" in info(m).get("slave0", ""))
        time.sleep(1)
        m.set("after", "1")
        time.sleep(1)
        assert info(m)["connected_slaves"] == "1"
    finally:
        proc.terminate()
    text = proc.communicate(timeout=10)[0]
    assert b'"SET","during","4"\n' in text and b'"SET","after","1"\n' in text, text


@pytest.mark.parametrize("load", ["disabled", "swapdb"])
def test_a_full_sync_touches_watched_keys(server_factory, load):
    """A transaction on a replica watching a key the full sync replaces (or
    removes) fails, as after a FLUSHALL; one watching an untouched missing key
    does not."""
    other = server_factory(*MASTER_ARGS)
    o = other.client()
    o.set("changed", "new")
    master, replica, m, r = start_pair(server_factory, replica_args=("--repl-diskless-load", load))
    m.set("changed", "old")
    m.set("removed", "x")
    attach(r, master)
    caught_up(m, r)
    watchers = {}
    for key in ("changed", "removed", "never"):
        w = replica.client()
        w.execute_command("WATCH", key)
        watchers[key] = w
    r.execute_command("REPLICAOF", "127.0.0.1", other.port)
    wait_for(lambda: r.get("changed") == b"new" and link_up(r))
    results = {}
    for key, w in watchers.items():
        w.execute_command("MULTI")
        w.execute_command("GET", key)
        results[key] = w.execute_command("EXEC")
    assert results == {"changed": None, "removed": None, "never": [None]}


def test_debug_reload_touches_watched_keys(server_factory):
    s = server_factory("--enable-debug-command", "yes")
    c = s.client()
    c.set("k", "v")
    w = s.client()
    w.execute_command("WATCH", "k")
    assert c.execute_command("DEBUG", "RELOAD") == b"OK"
    w.execute_command("MULTI")
    w.execute_command("GET", "k")
    assert w.execute_command("EXEC") is None


def test_a_sync_snapshot_nobody_needs_goes_with_its_files(server_factory):
    """A disk snapshot for a replica that leaves (no save points) is killed,
    and its half-written temp file removed; one still running at SHUTDOWN is
    killed before the server exits, leaving no file and no orphan."""
    import glob
    import os
    master, replica, m, r = start_pair(server_factory, master_args=MASTER_ARGS + ("--repl-diskless-sync", "no"))
    p = m.pipeline(transaction=False)
    for i in range(200):
        p.set("k%d" % i, "v")
    p.execute()
    m.config_set("rdb-key-save-delay", 100000)  # 20 s of snapshot
    r.execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: child_pids(master.proc.pid), what="the sync's snapshot child")
    r.execute_command("REPLICAOF", "NO", "ONE")
    wait_for(lambda: not child_pids(master.proc.pid), what="the snapshot child killed")
    wait_for(lambda: not glob.glob(os.path.join(master.dir, "temp-*.rdb")), what="no temp file")
    r.execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: child_pids(master.proc.pid), what="a second snapshot child")
    child = int(child_pids(master.proc.pid)[0])
    try:
        m.shutdown(nosave=True)
    except Exception:
        pass
    master.proc.wait(10)
    wait_for(lambda: not os.path.exists("/proc/%d" % child) or open("/proc/%d/stat" % child).read().split()[2] == "Z",
             what="the snapshot child gone with its parent")
    assert not glob.glob(os.path.join(master.dir, "temp-*.rdb"))


def test_functions_on_a_read_only_replica(server_factory):
    """A function without the no-writes flag is a write: a read-only replica
    refuses it before it runs (FCALL and FCALL_RO alike); a no-writes one runs."""
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    m.execute_command("FUNCTION", "LOAD", "#!lua name=lib\n"
                      "redis.register_function('w', function() return redis.call('set', 'x', '1') end)\n"
                      "redis.register_function{function_name='ro', callback=function() return 7 end, flags={'no-writes'}}")
    caught_up(m, r)
    for cmd in ("FCALL", "FCALL_RO"):
        with pytest.raises(Exception, match="^You can't write against a read only replica.$"):
            r.execute_command(cmd, "w", 0)
    assert r.execute_command("FCALL", "ro", 0) == 7
    assert r.execute_command("FCALL_RO", "ro", 0) == 7
    assert r.get("x") is None


def test_publish_reaches_the_replicas_subscribers_not_the_aof(server_factory):
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    sub = replica.client().pubsub()
    sub.subscribe("ch")
    wait_for(lambda: (sub.get_message(timeout=0.1) or {}).get("type") == "subscribe", what="subscribed")
    m.config_set("appendonly", "yes")
    wait_for(lambda: m.info("persistence")["aof_rewrite_in_progress"] == 0, what="aof written")
    m.publish("ch", "plain")
    p = m.pipeline(transaction=True)
    p.set("k", "v")
    p.publish("ch", "in-multi")
    p.execute()
    got = []

    def collect():
        msg = sub.get_message(timeout=0.1)
        if msg and msg["type"] == "message":
            got.append(msg["data"])
        return len(got) == 2

    wait_for(collect, what="messages on the replica")
    assert got == [b"plain", b"in-multi"]
    sub.close()
    d = os.path.join(master.dir, "appendonlydir")
    incr = [f for f in os.listdir(d) if f.endswith(".incr.aof")]
    data = b"".join(open(os.path.join(d, f), "rb").read() for f in incr)
    assert b"in-multi" not in data and b"plain" not in data and b"$1\r\nk\r\n" in data
