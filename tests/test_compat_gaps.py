"""Behaviours Redis 7.0.15's own suite checks and ours missed (issue 15):
RESTORE's TTL and single-write transactions in the command stream, EXEC on a
replica gone stale, bind and port changed at run time, COMMAND LIST syntax
errors, failed_calls charged to the command that failed, migrate_cached_sockets,
DEBUG CONFIG-REWRITE-FORCE-ALL. All of it holds on the reference too.
"""
import os
import socket
import time

import pytest
import redis

from support import free_port


def aof_commands(directory):
    """The commands in the newest incremental AOF file, as lists of bytes."""
    d = os.path.join(str(directory), "appendonlydir")
    manifest = open(os.path.join(d, "appendonly.aof.manifest")).read().splitlines()
    incr = [l.split()[1] for l in manifest if l.endswith("type i")][-1]
    data = open(os.path.join(d, incr), "rb").read()
    out, pos = [], 0
    while pos < len(data):
        assert data[pos:pos + 1] == b"*"
        eol = data.index(b"\r\n", pos)
        n, pos = int(data[pos + 1:eol]), eol + 2
        cmd = []
        for _ in range(n):
            eol = data.index(b"\r\n", pos)
            length, pos = int(data[pos + 1:eol]), eol + 2
            cmd.append(data[pos:pos + length])
            pos += length + 2
        out.append(cmd)
    return out


@pytest.fixture
def aof(server_factory, tmp_path):
    s = server_factory("--dir", str(tmp_path), "--appendonly", "yes", "--appendfsync", "always")
    r = s.client()
    deadline = time.time() + 10
    while r.info("persistence")["aof_rewrite_in_progress"] and time.time() < deadline:
        time.sleep(0.05)
    return r, tmp_path


def writes(cmds):
    return [[a.lower() if i == 0 else a for i, a in enumerate(c)] for c in cmds if c[0].lower() != b"select"]


def test_restore_with_relative_ttl_is_replayed_with_absttl(aof):
    r, d = aof
    r.set("src", "value")
    payload = r.dump("src")
    before = int(time.time() * 1000)
    r.restore("k", 100000, payload)
    after = int(time.time() * 1000)
    restore = [c for c in aof_commands(d) if c[0].lower() == b"restore"][-1]
    assert restore[1] == b"k" and restore[3] == payload and restore[-1].upper() == b"ABSTTL"
    assert before + 100000 <= int(restore[2]) <= after + 100000
    # an absolute TTL is replayed as it was given
    r.restore("k2", before + 50000, payload, absttl=True)
    restore = [c for c in aof_commands(d) if c[0].lower() == b"restore"][-1]
    assert restore[2] == str(before + 50000).encode() and restore[-1].upper() == b"ABSTTL"


def test_transaction_writing_once_is_not_framed(aof):
    r, d = aof
    with r.pipeline(transaction=True) as p:
        p.set("one", "1")
        p.get("one")
        p.execute()
    with r.pipeline(transaction=True) as p:
        p.set("a", "1")
        p.set("b", "2")
        p.execute()
    r.eval("redis.call('set', 'fromlua', '1')", 0)
    r.eval("redis.call('set', 'l1', '1') redis.call('set', 'l2', '2')", 0)
    with r.pipeline(transaction=True) as p:
        p.get("one")
        p.execute()
    assert writes(aof_commands(d)) == [
        [b"set", b"one", b"1"],
        [b"multi"], [b"set", b"a", b"1"], [b"set", b"b", b"2"], [b"exec"],
        [b"set", b"fromlua", b"1"],
        [b"multi"], [b"set", b"l1", b"1"], [b"set", b"l2", b"2"], [b"exec"],
    ]


def test_exec_refused_when_replica_went_stale_after_queueing(server, connect):
    c, other = connect(), server.client()
    assert c.call("config", "set", "replica-serve-stale-data", "no") == "OK"
    assert c.call("set", "xx", "1") == "OK"
    unused = free_port()
    for queued in (("get", "xx"), ("ping",)):
        assert c.call("multi") == "OK"
        assert c.call(*queued) == "QUEUED"
        other.replicaof("127.0.0.1", unused)
        err = c.call("exec")
        assert err.startswith("EXECABORT Transaction discarded because of: MASTERDOWN"), err
        other.replicaof("no", "one")
    # not stale at EXEC: the queued read runs
    assert c.call("multi") == "OK"
    assert c.call("get", "xx") == "QUEUED"
    assert c.call("exec") == [b"1"]


def test_bind_and_port_change_at_run_time(server, r):
    assert r.config_set("bind", "127.0.0.1")
    assert r.config_get("bind") == {"bind": "127.0.0.1"}
    assert r.config_set("port", server.port)
    assert server.client().ping()
    with pytest.raises(redis.ResponseError) as e:
        r.config_set("bind", "192.0.2.1")  # an address of no interface here: nothing is sent
    assert str(e.value) == ("CONFIG SET failed (possibly related to argument 'bind') - "
                            "Failed to bind to specified addresses.")
    assert r.config_get("bind") == {"bind": "127.0.0.1"}
    assert server.client().ping()  # still listening where it was
    new_port = free_port()
    assert r.config_set("port", new_port)
    assert redis.Redis(port=new_port).ping()
    with pytest.raises(redis.ConnectionError):
        redis.Redis(port=server.port, socket_connect_timeout=1).ping()
    assert redis.Redis(port=new_port).config_set("port", server.port)
    assert server.client().ping()


@pytest.mark.parametrize("args", [("bad_arg",), ("filterby", "bad_arg"), ("filterby", "bad_arg", "bad_arg2"),
                                  ("filterby", "pattern", "a", "b")])
def test_command_list_syntax_errors(r, args):
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command("COMMAND", "LIST", *args)
    assert str(e.value) == "syntax error"


def cmdstat(r, name):
    return r.info("commandstats").get("cmdstat_" + name)


def test_failed_calls_belong_to_the_command_that_failed(r):
    r.config_resetstat()
    with r.pipeline(transaction=True) as p:
        p.set("a", "b")
        p.execute_command("AUTH", "a")
        with pytest.raises(redis.ResponseError):
            p.execute()
    assert cmdstat(r, "auth")["failed_calls"] == 1
    assert cmdstat(r, "exec")["failed_calls"] == 0 and cmdstat(r, "set")["failed_calls"] == 0
    r.eval("redis.pcall('XGROUP', 'CREATECONSUMER', 's1', 'mygroup', 'consumer') return 1", 0)
    assert cmdstat(r, "xgroup|createconsumer")["failed_calls"] == 1
    assert cmdstat(r, "eval")["failed_calls"] == 0
    with pytest.raises(redis.ResponseError):
        r.eval("return redis.call('incr', 'a')", 0)
    assert cmdstat(r, "eval")["failed_calls"] == 1
    assert r.info("stats")["total_error_replies"] == 3  # auth, xgroup, incr: the script passing on incr's error is not counted again


def test_blocked_command_unblocked_with_error_is_a_failed_call(server, r):
    r.config_resetstat()
    blocked = server.client()
    cid = blocked.client_id()
    sock = blocked.connection_pool.get_connection("blpop")
    sock.send_command("BLPOP", "list1", "0")
    deadline = time.time() + 5
    while r.info("clients")["blocked_clients"] != 1 and time.time() < deadline:
        time.sleep(0.01)
    assert r.client_unblock(cid, error=True)
    with pytest.raises(redis.ResponseError) as e:
        sock.read_response()
    assert str(e.value).startswith("UNBLOCKED")
    stat = cmdstat(r, "blpop")
    assert stat["calls"] == 1 and stat["failed_calls"] == 1 and stat["rejected_calls"] == 0


def test_migrate_cached_sockets(server_factory):
    a, b = server_factory(), server_factory()
    ra = a.client()
    assert ra.info("stats")["migrate_cached_sockets"] == 0
    ra.set("key", "v")
    assert ra.migrate("127.0.0.1", b.port, "key", 9, 1000) == b"OK"
    assert ra.info("stats")["migrate_cached_sockets"] == 1
    assert b.client().execute_command("SELECT", 9) and b.client(db=9).get("key") == b"v"


def test_debug_config_rewrite_force_all(server_factory):
    s = server_factory("--enable-debug-command", "yes", config_text="maxmemory-clients 5%\n")
    r = s.client(decode_responses=True)
    assert r.execute_command("DEBUG", "CONFIG-REWRITE-FORCE-ALL") == "OK"
    text = open(s.config_path).read()
    lines = text.splitlines()
    # defaults are written too
    assert "maxmemory-policy noeviction" in lines and "hz 10" in lines and "maxmemory-clients 5%" in lines
    before = r.config_get("*")
    s2 = server_factory(config_text=text)
    after = s2.client(decode_responses=True).config_get("*")
    for name in ("port", "dir", "logfile"):
        before.pop(name), after.pop(name)
    assert after == before


def test_protected_configs(server_factory, tmp_path):
    r = server_factory().client()
    for name in ("dir", "dbfilename"):
        with pytest.raises(redis.ResponseError) as e:
            r.config_set(name, str(tmp_path) if name == "dir" else "other.rdb")
        assert str(e.value) == ("CONFIG SET failed (possibly related to argument '%s') - "
                                "can't set protected config" % name)
    r = server_factory("--enable-protected-configs", "local").client()
    assert r.config_set("dir", str(tmp_path)) and r.config_set("dbfilename", "other.rdb")
    assert r.config_get("dbfilename") == {"dbfilename": "other.rdb"}


def test_hidden_configs_answer_by_name_only(r):
    every = r.config_get("*")
    for name in ("key-load-delay", "rdb-key-save-delay", "loading-process-events-interval-bytes"):
        assert name not in every
        assert name in r.config_get(name)
    assert r.config_get("loading-process-events-interval-bytes") == {
        "loading-process-events-interval-bytes": "2097152"}


@pytest.mark.parametrize("args, line, why", [
    (["--port"], "'port'", "wrong number of arguments"),
    (["--port", "6379", "6380"], "'port \"6379\" \"6380\"'", "wrong number of arguments"),
    (["--port", "--loglevel", "verbose"], "'port \"--loglevel\" \"verbose\"'", "wrong number of arguments"),
    (["--port", "--bla", "--loglevel", "verbose"], "'port \"--bla\"'", "argument couldn't be parsed into an integer"),
    (["--logfile", "--my--log--file", "--loglevel", "--bla"], "'loglevel \"--bla\"'",
     "argument(s) must be one of the following"),
    (["--shutdown-on-sigint"], "'shutdown-on-sigint'", "argument(s) must be one of the following"),
])
def test_command_line_errors(args, line, why):
    import subprocess
    from support import SERVER
    out = subprocess.run([SERVER] + args, capture_output=True, text=True, timeout=10)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert ">>> " + line in text and why in text


@pytest.mark.parametrize("args, want", [
    (["--save", "--loglevel", "verbose"], {"save": "", "loglevel": "verbose"}),
    (["--loglevel", "verbose", "--save"], {"save": "", "loglevel": "verbose"}),
    (["--proc-title-template", "--save", "--save", "", "--loglevel", "verbose"],
     {"proc-title-template": "--save", "save": "", "loglevel": "verbose"}),
    (["--maxmemory 700mb", "--maxmemory-policy volatile-lru"],
     {"maxmemory": "734003200", "maxmemory-policy": "volatile-lru"}),
])
def test_command_line_values(server_factory, args, want):
    r = server_factory(*args).client(decode_responses=True)
    for name, value in want.items():
        assert r.config_get(name) == {name: value}


def test_xgroup_setid_takes_minus_and_plus(r):
    r.xadd("events", {"f": "v"}, id="1-1")
    r.xgroup_create("events", "g1", id="0")
    for bad in ("-", "+"):
        with pytest.raises(redis.ResponseError) as e:
            r.xgroup_create("events", "g" + bad, id=bad)
        assert str(e.value) == "Invalid stream ID specified as stream command argument"
    assert r.xgroup_setid("events", "g1", "+")
    assert r.xinfo_groups("events")[0]["last-delivered-id"] == b"18446744073709551615-18446744073709551615"
    assert r.xgroup_setid("events", "g1", "-")
    assert r.xinfo_groups("events")[0]["last-delivered-id"] == b"0-0"


def test_xreadgroup_replays_as_its_effects(aof):
    r, d = aof
    r.xadd("s", {"a": "b"}, id="1-1")
    r.xgroup_create("s", "g", id="$")
    r.xgroup_create("s", "quiet", id="0")
    r.xreadgroup("g", "c1", {"s": ">"})  # nothing to deliver: nothing replayed
    r.xadd("s", {"c": "d"}, id="2-1")
    r.xreadgroup("g", "c2", {"s": ">"})
    r.xreadgroup("quiet", "nobody", {"s": ">"}, noack=True)
    cmds = [[a.lower() if i < 2 else a for i, a in enumerate(c)] for c in writes(aof_commands(d))]
    assert [c[:2] for c in cmds] == [
        [b"xadd", b"s"], [b"xgroup", b"create"], [b"xgroup", b"create"], [b"xadd", b"s"],
        [b"xclaim", b"s"],
        [b"multi"], [b"xgroup", b"createconsumer"], [b"xgroup", b"setid"], [b"exec"]]
