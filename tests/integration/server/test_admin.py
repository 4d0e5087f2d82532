"""Server and connection administration: PING/ECHO/TIME/QUIT, INFO, CONFIG, CLIENT,
HELLO, AUTH, RESET, SHUTDOWN, DEBUG, MEMORY, COMMAND, and the connection limits
(idle timeout, maxclients, output buffer limit).

Replies and error texts as Redis 7.0.15 gives them (each checked on it). Where
a value depends on the implementation (memory sizes, command count, field
order of CONFIG GET) the invariant is asserted instead.
"""
import os
import re
import socket
import time

import pytest
import redis

from support import read_text, wait_for
from resp_raw import Conn, Err
from support import free_port

SYNTAX = Err("ERR syntax error")
CLIENT_FIELDS = ["id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub",
                 "ssub", "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp",
                 "obl", "oll", "omem", "tot-mem", "events", "cmd", "user", "redir", "resp"]
DEBUG_REFUSED = Err(
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", "
    "you can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.")


def arity(cmd):
    return Err("ERR wrong number of arguments for '%s' command" % cmd)


def info_fields(text):
    """INFO text -> {section name: {field: value}}."""
    sections = {}
    current = None
    for line in text.split("\r\n"):
        if line.startswith("# "):
            current = sections.setdefault(line[2:], {})
        elif line:
            key, _, value = line.partition(":")
            current[key] = value
    return sections


def parse_client_line(line):
    """One CLIENT LIST / CLIENT INFO line -> ordered list of (field, value)."""
    return [tuple(kv.split("=", 1)) for kv in line.split(" ")]


def client_lines(c, *args):
    text = c.call("CLIENT", "LIST", *args)
    assert text == "" or text.endswith("\n")
    return [dict(parse_client_line(line)) for line in text.splitlines()]


def is_closed(conn, timeout=3.0):
    try:
        conn.wait_closed(timeout)
        return True
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


# --- PING ECHO TIME QUIT ------------------------------------------------------

def test_ping_echo(c):
    assert c.call("PING") == "PONG"
    assert type(c.call("PING")).__name__ == "Status"
    assert c.call("PING", "hello") == "hello"
    assert type(c.call("PING", "hello")).__name__ == "str"  # a bulk reply
    assert c.call("PING", "a", "b") == arity("ping")
    assert c.call("ECHO", "hi there") == "hi there"
    assert c.call("ECHO", "") == ""
    assert c.call("ECHO") == arity("echo")


def test_time(c):
    seconds, micros = c.call("TIME")
    assert seconds.isdigit() and micros.isdigit()
    assert abs(int(seconds) - time.time()) < 5
    assert 0 <= int(micros) < 1000000
    assert c.call("TIME", "x") == arity("time")


def test_role_of_a_master_without_replicas(c):
    assert c.call("ROLE") == ["master", 0, []]
    assert c.call("ROLE", "x") == arity("role")
    c.call("HELLO", "3")
    assert c.call("ROLE") == ["master", 0, []]


def test_quit(c, open_conn):
    c.send_raw(b"QUIT\r\nPING\r\n")
    assert c.read() == "OK"
    assert is_closed(c)  # nothing after QUIT is executed
    assert open_conn().call("PING") == "PONG"


# --- INFO ---------------------------------------------------------------------

INFO_FIELDS = {
    "Server": ["redis_version", "redis_mode", "os", "arch_bits", "multiplexing_api",
               "process_id", "run_id", "tcp_port", "server_time_usec", "uptime_in_seconds",
               "uptime_in_days", "hz", "configured_hz", "lru_clock", "executable", "config_file"],
    "Clients": ["connected_clients", "maxclients", "client_recent_max_input_buffer",
                "client_recent_max_output_buffer", "blocked_clients", "tracking_clients"],
    "Memory": ["used_memory", "used_memory_human", "used_memory_rss", "used_memory_peak",
               "used_memory_peak_human", "used_memory_startup", "used_memory_dataset",
               "maxmemory", "maxmemory_human", "maxmemory_policy", "mem_fragmentation_ratio",
               "mem_allocator"],
    "Persistence": ["loading", "rdb_changes_since_last_save", "rdb_bgsave_in_progress",
                    "rdb_last_save_time", "rdb_last_bgsave_status", "aof_enabled",
                    "aof_rewrite_in_progress", "aof_last_bgrewrite_status"],
    "Stats": ["total_connections_received", "total_commands_processed",
              "instantaneous_ops_per_sec", "total_net_input_bytes", "total_net_output_bytes",
              "rejected_connections", "expired_keys", "evicted_keys", "keyspace_hits",
              "keyspace_misses", "pubsub_channels", "pubsub_patterns", "total_error_replies"],
    "Replication": ["role", "connected_slaves", "master_replid", "master_repl_offset"],
    "CPU": ["used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children"],
}


def test_info_default_sections_and_fields(server, c):
    c.call("SET", "k", "v")
    text = c.call("INFO")
    assert text.endswith("\r\n")
    info = info_fields(text)
    for section, fields in INFO_FIELDS.items():
        assert section in info, section
        for field in fields:
            assert field in info[section], (section, field)
    assert "Keyspace" in info
    assert "Commandstats" not in info  # only with ALL, EVERYTHING or by name
    server_info = info["Server"]
    assert server_info["redis_mode"] == "standalone"
    assert server_info["arch_bits"] == "64"
    assert server_info["tcp_port"] == str(server.port)
    assert server_info["process_id"] == str(server.proc.pid)
    assert re.fullmatch(r"[0-9a-f]{40}", server_info["run_id"])
    assert server_info["hz"] == "10"
    assert info["Clients"]["connected_clients"] == "1"
    assert info["Clients"]["maxclients"] == "10000"
    assert int(info["Memory"]["used_memory"]) > 0
    assert info["Memory"]["maxmemory"] == "0"
    assert info["Memory"]["maxmemory_policy"] == "noeviction"
    assert info["Persistence"]["loading"] == "0"
    assert info["Persistence"]["aof_enabled"] == "0"
    assert info["Replication"]["role"] == "master"
    assert info["Replication"]["connected_slaves"] == "0"
    assert re.fullmatch(r"[0-9a-f]{40}", info["Replication"]["master_replid"])
    assert float(info["CPU"]["used_cpu_user"]) >= 0


MEMORY_FIELDS_7_0 = [
    "used_memory", "used_memory_human", "used_memory_rss", "used_memory_rss_human", "used_memory_peak",
    "used_memory_peak_human", "used_memory_peak_perc", "used_memory_overhead", "used_memory_startup",
    "used_memory_dataset", "used_memory_dataset_perc", "allocator_allocated", "allocator_active",
    "allocator_resident", "total_system_memory", "total_system_memory_human", "used_memory_lua",
    "used_memory_vm_eval", "used_memory_lua_human", "used_memory_scripts_eval", "number_of_cached_scripts",
    "number_of_functions", "number_of_libraries", "used_memory_vm_functions", "used_memory_vm_total",
    "used_memory_vm_total_human", "used_memory_functions", "used_memory_scripts", "used_memory_scripts_human",
    "maxmemory", "maxmemory_human", "maxmemory_policy", "allocator_frag_ratio", "allocator_frag_bytes",
    "allocator_rss_ratio", "allocator_rss_bytes", "rss_overhead_ratio", "rss_overhead_bytes",
    "mem_fragmentation_ratio", "mem_fragmentation_bytes", "mem_not_counted_for_evict",
    "mem_replication_backlog", "mem_total_replication_buffers", "mem_clients_slaves", "mem_clients_normal",
    "mem_cluster_links", "mem_aof_buffer", "mem_allocator", "active_defrag_running",
    "lazyfree_pending_objects", "lazyfreed_objects"]


def test_info_memory_fields_and_script_memory(c):
    memory = info_fields(c.call("INFO", "memory"))["Memory"]
    assert list(memory) == MEMORY_FIELDS_7_0
    assert memory["number_of_cached_scripts"] == "0" and memory["number_of_libraries"] == "0"
    assert c.call("EVAL", "return 1", "0") == 1
    assert c.call("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f1', function() return 1 end)\n"
                  "redis.register_function('f2', function() return 2 end)") == "lib"
    memory = {k: int(v) for k, v in info_fields(c.call("INFO", "memory"))["Memory"].items() if v.isdigit()}
    assert memory["number_of_cached_scripts"] == 1
    assert memory["number_of_functions"] == 2 and memory["number_of_libraries"] == 1
    assert memory["used_memory_lua"] == memory["used_memory_vm_eval"] > 0
    assert memory["used_memory_vm_total"] == memory["used_memory_vm_eval"] + memory["used_memory_vm_functions"]
    assert memory["used_memory_scripts"] == memory["used_memory_scripts_eval"] + memory["used_memory_functions"]
    assert memory["used_memory_scripts_eval"] > 0 and memory["used_memory_functions"] > 0
    stats = c.call("MEMORY", "STATS")
    stats = dict(zip(stats[::2], stats[1::2]))
    assert stats["lua.caches"] == memory["used_memory_scripts_eval"]
    assert stats["functions.caches"] == memory["used_memory_functions"]


def test_info_single_and_multiple_sections(c):
    text = c.call("INFO", "server")
    assert text.startswith("# Server\r\n")
    assert list(info_fields(text)) == ["Server"]
    assert list(info_fields(c.call("INFO", "SERVER"))) == ["Server"]
    assert sorted(info_fields(c.call("INFO", "server", "clients"))) == ["Clients", "Server"]
    assert c.call("INFO", "nosuchsection") == ""
    for name in ("ALL", "everything"):
        sections = info_fields(c.call("INFO", name))
        for needed in list(INFO_FIELDS) + ["Commandstats", "Keyspace"]:
            assert needed in sections, (name, needed)


def test_info_keyspace_format(c):
    assert c.call("INFO", "keyspace") == "# Keyspace\r\n"
    c.call("SET", "k", "v")
    assert c.call("INFO", "keyspace") == "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n"
    c.call("SELECT", "5")
    c.call("SET", "a", "1")
    c.call("SET", "b", "2", "EX", "1000")
    lines = c.call("INFO", "keyspace").split("\r\n")
    assert lines[0] == "# Keyspace"
    assert lines[1] == "db0:keys=1,expires=0,avg_ttl=0"
    assert re.fullmatch(r"db5:keys=2,expires=1,avg_ttl=\d+", lines[2])
    assert lines[3:] == [""]


def test_info_stats_counters(c):
    c.call("SET", "k", "v")
    c.call("GET", "k")
    c.call("GET", "k")
    c.call("GET", "nokey")
    c.call("FOO")
    stats = info_fields(c.call("INFO", "stats"))["Stats"]
    assert stats["keyspace_hits"] == "2"
    assert stats["keyspace_misses"] == "1"
    assert int(stats["total_commands_processed"]) >= 5
    assert int(stats["total_connections_received"]) >= 1
    assert int(stats["total_error_replies"]) >= 1


def test_info_commandstats(c):
    for _ in range(3):
        c.call("SET", "k", "v")
    c.call("GET", "k")
    c.call("CONFIG", "GET", "port")
    text = c.call("INFO", "commandstats")
    assert text.startswith("# Commandstats\r\n")
    stats = info_fields(text)["Commandstats"]
    assert re.fullmatch(r"calls=3,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=0,failed_calls=0",
                        stats["cmdstat_set"])
    assert stats["cmdstat_get"].startswith("calls=1,")
    assert stats["cmdstat_config|get"].startswith("calls=1,")


def test_info_wrong_arity_and_errorstats(c):
    c.call("GET")
    c.call("GET")
    stats = info_fields(c.call("INFO", "commandstats"))["Commandstats"]
    assert re.fullmatch(r"calls=0,usec=0,usec_per_call=0\.00,rejected_calls=2,failed_calls=0",
                        stats["cmdstat_get"])


def test_config_resetstat(c):
    c.call("SET", "k", "v")
    c.call("GET", "k")
    c.call("GET", "nokey")
    assert c.call("CONFIG", "RESETSTAT") == "OK"
    info = info_fields(c.call("INFO", "all"))
    assert info["Stats"]["keyspace_hits"] == "0"
    assert info["Stats"]["keyspace_misses"] == "0"
    assert info["Stats"]["total_error_replies"] == "0"
    assert "cmdstat_get" not in info["Commandstats"]
    assert "cmdstat_set" not in info["Commandstats"]
    assert c.call("GET", "k") == "v"  # data untouched


# --- CONFIG GET / SET / REWRITE -----------------------------------------------

def config_get(c, *patterns):
    reply = c.call("CONFIG", "GET", *patterns)
    assert len(reply) % 2 == 0
    return dict(zip(reply[::2], reply[1::2]))


def test_config_get(server, c):
    assert config_get(c, "maxmemory") == {"maxmemory": "0"}
    assert config_get(c, "port") == {"port": str(server.port)}
    assert config_get(c, "maxmemory", "port") == {"maxmemory": "0", "port": str(server.port)}
    assert config_get(c, "nonexistent") == {}
    assert c.call("CONFIG", "GET", "nonexistent") == []
    assert config_get(c, "MAXMEMORY") == {"MAXMEMORY": "0"}  # an exact name is echoed as given
    assert config_get(c, "dir") == {"dir": os.path.realpath(server.dir)}
    assert config_get(c, "save") == {"save": ""}
    assert config_get(c, "appendonly") == {"appendonly": "no"}
    assert config_get(c, "timeout") == {"timeout": "0"}
    assert config_get(c, "databases") == {"databases": "16"}
    assert c.call("CONFIG", "GET") == arity("config|get")


def test_config_get_patterns(c):
    got = config_get(c, "maxmemory*")
    assert got["maxmemory"] == "0"
    assert got["maxmemory-policy"] == "noeviction"
    assert got["maxmemory-samples"] == "5"
    assert all(k.startswith("maxmemory") for k in got)
    every = config_get(c, "*")
    assert len(every) > 100
    assert every["maxclients"] == "10000"
    assert every["hz"] == "10"
    assert set(config_get(c, "hz", "h?")) == {"hz"}  # a name matched twice appears once
    assert set(config_get(c, "*max-*-entries*")) >= {"hash-max-listpack-entries",
                                                      "zset-max-listpack-entries"}


def test_config_get_aliases(c):
    # old names are still accepted for GET and SET
    assert config_get(c, "hash-max-ziplist-entries") == {"hash-max-ziplist-entries": "512"}
    assert c.call("CONFIG", "SET", "hash-max-ziplist-entries", "64") == "OK"
    assert config_get(c, "hash-max-listpack-entries") == {"hash-max-listpack-entries": "64"}


def test_config_set(c):
    assert c.call("CONFIG", "SET", "maxmemory", "10mb") == "OK"
    assert config_get(c, "maxmemory") == {"maxmemory": "10485760"}
    assert c.call("CONFIG", "SET", "maxmemory", "1gb") == "OK"
    assert config_get(c, "maxmemory") == {"maxmemory": "1073741824"}
    assert c.call("CONFIG", "SET", "maxmemory", "100k") == "OK"
    assert config_get(c, "maxmemory") == {"maxmemory": "100000"}
    assert c.call("CONFIG", "SET", "maxmemory", "0") == "OK"
    assert c.call("CONFIG", "SET", "maxmemory-policy", "ALLKEYS-LRU") == "OK"
    assert config_get(c, "maxmemory-policy") == {"maxmemory-policy": "allkeys-lru"}
    assert c.call("CONFIG", "SET", "hz", "0") == "OK"  # clamped to the minimum
    assert config_get(c, "hz") == {"hz": "1"}
    assert c.call("CONFIG", "SET", "hz", "100") == "OK"
    assert config_get(c, "hz") == {"hz": "100"}
    assert c.call("CONFIG", "SET", "timeout", "0") == "OK"
    assert c.call("CONFIG", "SET", "save", "") == "OK"
    assert c.call("CONFIG", "SET", "appendonly", "no") == "OK"


def test_config_set_multiple_pairs(c):
    assert c.call("CONFIG", "SET", "maxmemory", "10mb", "maxmemory-policy", "allkeys-lru") == "OK"
    assert config_get(c, "maxmemory", "maxmemory-policy") == {
        "maxmemory": "10485760", "maxmemory-policy": "allkeys-lru"}
    # all or nothing: one bad value leaves every parameter as it was
    assert c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu", "maxmemory", "abc") == (
        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - "
        "argument must be a memory value")
    assert config_get(c, "maxmemory-policy") == {"maxmemory-policy": "allkeys-lru"}
    assert c.call("CONFIG", "SET", "maxmemory", "10mb", "maxmemory", "20mb") == (
        "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - duplicate parameter")
    assert c.call("CONFIG", "SET", "maxmemory", "10mb", "hz") == SYNTAX  # an odd count


def test_config_set_errors(c):
    def failed(name, why):
        return "ERR CONFIG SET failed (possibly related to argument '%s') - %s" % (name, why)

    for args, error in [
        (("foo", "bar"), "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"),
        (("maxmemory", "abc"), failed("maxmemory", "argument must be a memory value")),
        (("timeout", "-1"),
         failed("timeout", "argument must be between 0 and 2147483647 inclusive")),
        (("maxmemory-policy", "foo"),
         failed("maxmemory-policy", "argument(s) must be one of the following: volatile-lru, "
                "volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, "
                "allkeys-random, noeviction")),
        (("daemonize", "yes"), failed("daemonize", "can't set immutable config")),
        (("appendonly", "maybe"), failed("appendonly", "argument must be 'yes' or 'no'")),
        (("port",), arity("config|set")),
    ]:
        assert c.call("CONFIG", "SET", *args) == error, args
    assert c.call("CONFIG", "foo") == "ERR unknown subcommand 'foo'. Try CONFIG HELP."
    assert c.call("CONFIG") == arity("config")


def test_config_help(c):
    lines = c.call("CONFIG", "HELP")
    assert lines[0] == "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    for entry in ("GET <pattern>", "SET <directive> <value>", "RESETSTAT", "REWRITE", "HELP"):
        assert entry in lines


def test_config_rewrite_without_file(c):
    assert c.call("CONFIG", "REWRITE") == "ERR The server is running without a config file"


def test_config_rewrite(server_factory):
    original = "# my settings\nmaxmemory 10mb\nhz 20\n"
    s = server_factory(config_text=original)
    conn = Conn(s)
    try:
        assert config_get(conn, "maxmemory", "hz") == {"maxmemory": "10485760", "hz": "20"}
        assert conn.call("CONFIG", "SET", "maxmemory", "20mb", "maxmemory-policy",
                         "allkeys-lru") == "OK"
        assert conn.call("CONFIG", "REWRITE") == "OK"
    finally:
        conn.close()
    with open(os.path.join(s.dir, "redis.conf")) as f:
        rewritten = f.read()
    lines = rewritten.splitlines()
    assert "# my settings" in lines  # comments are kept
    assert "maxmemory 20mb" in lines  # changed in place
    assert "maxmemory 10mb" not in lines
    assert "hz 20" in lines
    assert "maxmemory-policy allkeys-lru" in lines
    # the rewritten file starts a server with the new settings
    s2 = server_factory(config_text=rewritten)
    conn = Conn(s2)
    try:
        assert config_get(conn, "maxmemory", "maxmemory-policy", "hz") == {
            "maxmemory": "20971520", "maxmemory-policy": "allkeys-lru", "hz": "20"}
    finally:
        conn.close()


# --- CLIENT -------------------------------------------------------------------

def test_client_id_and_info(server, c):
    cid = c.call("CLIENT", "ID")
    assert isinstance(cid, int) and cid > 0
    line = c.call("CLIENT", "INFO")
    assert line.endswith("\n") and line.count("\n") == 1
    fields = parse_client_line(line.rstrip("\n"))
    assert [k for k, _ in fields] == CLIENT_FIELDS
    info = dict(fields)
    assert info["id"] == str(cid)
    host, port = c.sock.getsockname()[:2]
    assert info["addr"] == "%s:%d" % (host, port)
    assert info["laddr"] == "127.0.0.1:%d" % server.port
    assert info["name"] == ""
    assert info["flags"] == "N"
    assert info["db"] == "0"
    assert info["multi"] == "-1"
    assert info["cmd"] == "client|info"
    assert info["user"] == "default"
    assert info["resp"] == "2"
    other = Conn(server)
    try:
        assert other.call("CLIENT", "ID") > cid  # ids only grow
    finally:
        other.close()


def test_client_list(c, open_conn):
    other = open_conn()
    other.call("CLIENT", "SETNAME", "worker")
    other.call("SELECT", "3")
    clients = client_lines(c)
    assert len(clients) == 2
    by_name = {cl["name"]: cl for cl in clients}
    assert by_name["worker"]["db"] == "3"
    assert by_name["worker"]["cmd"] == "select"
    assert by_name[""]["cmd"] == "client|list"
    assert by_name["worker"]["id"] == str(other.call("CLIENT", "ID"))
    assert len(client_lines(c, "TYPE", "normal")) == 2
    assert client_lines(c, "TYPE", "pubsub") == []
    assert [cl["name"] for cl in client_lines(c, "ID", by_name["worker"]["id"], "999999")] == \
        ["worker"]
    assert client_lines(c, "ID", "999999") == []
    assert c.call("CLIENT", "LIST", "TYPE", "foo") == "ERR Unknown client type 'foo'"
    assert c.call("CLIENT", "LIST", "ID", "abc") == "ERR Invalid client ID"
    assert c.call("CLIENT", "LIST", "foo") == SYNTAX


def test_client_list_pubsub_type(c, open_conn):
    sub = open_conn()
    sub.call("SUBSCRIBE", "ch")
    pubsub = client_lines(c, "TYPE", "pubsub")
    assert len(pubsub) == 1
    assert pubsub[0]["sub"] == "1"
    assert "P" in pubsub[0]["flags"]


def test_client_setname_getname(c):
    assert c.call("CLIENT", "GETNAME") is None
    assert c.call("CLIENT", "SETNAME", "foo") == "OK"
    assert c.call("CLIENT", "GETNAME") == "foo"
    assert "name=foo " in c.call("CLIENT", "INFO")
    bad = Err("ERR Client names cannot contain spaces, newlines or special characters.")
    assert c.call("CLIENT", "SETNAME", "a b") == bad
    assert c.call("CLIENT", "SETNAME", "a\nb") == bad
    assert c.call("CLIENT", "SETNAME", "caf\u00e9") == bad
    assert c.call("CLIENT", "GETNAME") == "foo"
    assert c.call("CLIENT", "SETNAME", "") == "OK"  # an empty name removes it
    assert c.call("CLIENT", "GETNAME") is None
    assert c.call("CLIENT", "SETNAME") == arity("client|setname")


def test_client_kill_old_form(c, open_conn):
    victim = open_conn()
    victim.call("PING")
    host, port = victim.sock.getsockname()[:2]
    assert c.call("CLIENT", "KILL", "%s:%d" % (host, port)) == "OK"
    assert is_closed(victim)
    assert c.call("CLIENT", "KILL", "1.2.3.4:5") == "ERR No such client"
    assert len(client_lines(c)) == 1


def test_client_kill_filters(c, open_conn):
    by_addr = open_conn()
    by_id = open_conn()
    by_addr.call("PING")
    host, port = by_addr.sock.getsockname()[:2]
    assert c.call("CLIENT", "KILL", "ADDR", "%s:%d" % (host, port)) == 1
    assert is_closed(by_addr)
    assert c.call("CLIENT", "KILL", "ID", str(by_id.call("CLIENT", "ID"))) == 1
    assert is_closed(by_id)
    assert c.call("CLIENT", "KILL", "ID", "999999") == 0
    assert c.call("CLIENT", "KILL", "ADDR", "1.2.3.4:5") == 0
    assert c.call("CLIENT", "KILL", "LADDR", "1.2.3.4:5") == 0
    # by default the caller is not killed by its own filter
    assert c.call("CLIENT", "KILL", "TYPE", "normal") == 0
    assert c.call("PING") == "PONG"


def test_client_kill_type_and_skipme(c, open_conn):
    others = [open_conn() for _ in range(3)]
    for o in others:
        o.call("PING")
    assert c.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes") == 3
    for o in others:
        assert is_closed(o)
    c.send("CLIENT", "KILL", "ID", str(c.call("CLIENT", "ID")), "SKIPME", "no")
    assert c.read() == 1  # the reply still arrives, then the connection closes
    assert is_closed(c)


def test_client_kill_errors(c):
    assert c.call("CLIENT", "KILL", "foo", "bar") == SYNTAX
    assert c.call("CLIENT", "KILL", "ID", "abc") == "ERR client-id should be greater than 0"
    assert c.call("CLIENT", "KILL", "SKIPME", "foo") == SYNTAX
    assert c.call("CLIENT", "KILL", "TYPE", "foo") == "ERR Unknown client type 'foo'"
    assert c.call("CLIENT", "KILL") == arity("client|kill")


def test_client_no_evict(c):
    assert c.call("CLIENT", "NO-EVICT", "on") == "OK"
    assert "flags=e " in c.call("CLIENT", "INFO")
    assert c.call("CLIENT", "NO-EVICT", "off") == "OK"
    assert "flags=N " in c.call("CLIENT", "INFO")
    assert c.call("CLIENT", "NO-EVICT", "foo") == SYNTAX


def test_client_errors_and_help(c):
    assert c.call("CLIENT", "foo") == "ERR unknown subcommand 'foo'. Try CLIENT HELP."
    assert c.call("CLIENT") == arity("client")
    lines = c.call("CLIENT", "HELP")
    assert lines[0] == "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    for entry in ("GETNAME", "ID", "INFO", "KILL <ip:port>", "REPLY (ON|OFF|SKIP)",
                  "SETNAME <name>"):
        assert entry in lines


def test_client_reply(c):
    c.send_raw(b"CLIENT REPLY OFF\r\nSET a 1\r\nGET a\r\nFOO\r\nCLIENT REPLY ON\r\nGET a\r\n")
    assert c.read() == "OK"  # the reply to CLIENT REPLY ON
    assert c.read() == "1"
    assert c.nothing_pending(0.1)
    c.send_raw(b"CLIENT REPLY SKIP\r\nSET a 2\r\nGET a\r\n")
    assert c.read() == "2"  # only the reply to SET was skipped
    c.send_raw(b"CLIENT REPLY OFF\r\nCLIENT REPLY SKIP\r\nGET a\r\nCLIENT REPLY ON\r\n")
    assert c.read() == "OK"
    assert c.nothing_pending(0.1)
    assert c.call("CLIENT", "REPLY", "foo") == SYNTAX


# --- HELLO AUTH RESET ---------------------------------------------------------

def test_hello(c):
    reply = c.call("HELLO")
    fields = dict(zip(reply[::2], reply[1::2]))
    assert reply[::2] == ["server", "redis", "version", "7.0.15", "proto", 2, "id", None,
                          "mode", "standalone", "role", "master", "modules", []][::2]
    assert fields["server"] == "redis"
    assert fields["proto"] == 2
    assert fields["id"] == c.call("CLIENT", "ID")
    assert fields["mode"] == "standalone"
    assert fields["role"] == "master"
    assert fields["modules"] == []
    assert re.fullmatch(r"\d+\.\d+\.\d+", fields["version"])


def test_hello_3_switches_protocol(c):
    reply = c.call("HELLO", "3")
    assert isinstance(reply, dict)
    assert reply["proto"] == 3
    assert reply["server"] == "redis"
    assert c.call_frame("GET", "nokey") == b"_\r\n"
    c.call("HSET", "h", "f", "v")
    assert c.call_frame("HGETALL", "h") == b"%1\r\n$1\r\nf\r\n$1\r\nv\r\n"
    assert c.call_frame("CONFIG", "GET", "maxmemory") == \
        b"%1\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n"
    assert "resp=3" in c.call("CLIENT", "INFO")
    reply = c.call("HELLO", "2")
    assert isinstance(reply, list)
    assert c.call_frame("GET", "nokey") == b"$-1\r\n"
    assert c.call_frame("HGETALL", "h") == b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n"


def test_hello_options_and_errors(c):
    reply = c.call("HELLO", "3", "SETNAME", "myname")
    assert reply["proto"] == 3
    assert c.call("CLIENT", "GETNAME") == "myname"
    assert c.call("HELLO", "4") == "NOPROTO unsupported protocol version"
    assert c.call("HELLO", "1") == "NOPROTO unsupported protocol version"
    assert c.call("HELLO", "abc") == "ERR Protocol version is not an integer or out of range"
    assert c.call("HELLO", "2", "foo") == "ERR Syntax error in HELLO option 'foo'"
    assert c.call("HELLO", "2", "AUTH", "default") == "ERR Syntax error in HELLO option 'AUTH'"
    # a failed HELLO keeps the protocol in use
    assert c.call_frame("GET", "nokey") == b"_\r\n"


def test_auth_without_password(c):
    assert c.call("AUTH", "x") == (
        "ERR AUTH <password> called without any password configured for the default user. "
        "Are you sure your configuration is correct?")
    assert c.call("AUTH", "nouser", "x") == \
        "WRONGPASS invalid username-password pair or user is disabled."
    assert c.call("AUTH", "default", "anything") == "OK"  # the default user has nopass
    assert c.call("AUTH") == arity("auth")
    assert c.call("AUTH", "a", "b", "c") == SYNTAX


def test_requirepass(server, c):
    # set at run time: the fixture's readiness PING needs no password
    assert c.call("CONFIG", "SET", "requirepass", "secret") == "OK"
    d = Conn(server)
    try:
        assert d.call("PING") == "NOAUTH Authentication required."
        assert d.call("GET", "a") == "NOAUTH Authentication required."
        assert d.call("CLIENT", "ID") == "NOAUTH Authentication required."
        # unknown commands and wrong arity are reported before the auth check
        assert d.call("FOO") == "ERR unknown command 'FOO', with args beginning with: "
        assert d.call("GET") == arity("get")
        wrongpass = "WRONGPASS invalid username-password pair or user is disabled."
        assert d.call("AUTH", "wrong") == wrongpass
        assert d.call("AUTH", "default", "wrong") == wrongpass
        assert d.call("AUTH", "nouser", "secret") == wrongpass
        assert d.call("HELLO", "3") == (
            "NOAUTH HELLO must be called with the client already authenticated, otherwise "
            "the HELLO AUTH <user> <pass> option can be used to authenticate the client and "
            "select the RESP protocol version at the same time")
        assert d.call("HELLO", "3", "AUTH", "default", "wrong") == wrongpass
        assert d.call("PING") == "NOAUTH Authentication required."
        assert d.call("AUTH", "secret") == "OK"
        assert d.call("PING") == "PONG"
        assert d.call("RESET") == "RESET"  # RESET logs the connection out
        assert d.call("PING") == "NOAUTH Authentication required."
        assert d.call("AUTH", "default", "secret") == "OK"
        assert d.call("PING") == "PONG"
    finally:
        d.close()
    e = Conn(server)
    try:
        reply = e.call("HELLO", "3", "AUTH", "default", "secret")
        assert reply["proto"] == 3
        assert e.call("PING") == "PONG"
    finally:
        e.close()
    # the connection that set the password stays authenticated
    assert c.call("CONFIG", "SET", "requirepass", "") == "OK"
    f = Conn(server)
    try:
        assert f.call("PING") == "PONG"
    finally:
        f.close()


def test_reset(c):
    c.call("SELECT", "2")
    c.call("CLIENT", "SETNAME", "abc")
    c.call("HELLO", "3")
    reply = c.call("RESET")
    assert reply == "RESET"
    assert type(reply).__name__ == "Status"
    info = dict(parse_client_line(c.call("CLIENT", "INFO").rstrip("\n")))
    assert info["db"] == "0"
    assert info["name"] == ""
    assert info["resp"] == "2"
    assert info["flags"] == "N"
    assert c.call("RESET", "x") == arity("reset")


def test_reset_leaves_subscribed_mode(c):
    c.call("SUBSCRIBE", "ch")
    assert c.call("RESET") == "RESET"
    assert c.call("PING") == "PONG"
    assert "sub=0 " in c.call("CLIENT", "INFO")


# --- SHUTDOWN -----------------------------------------------------------------

def test_shutdown_nosave(server, c):
    c.send("SHUTDOWN", "NOSAVE")
    assert is_closed(c, timeout=5.0)  # no reply: the server is gone
    assert server.proc.wait(timeout=5) == 0
    with pytest.raises(OSError):
        socket.create_connection((server.host, server.port), timeout=1).close()


def test_shutdown_errors(c):
    assert c.call("SHUTDOWN", "foo") == SYNTAX
    assert c.call("PING") == "PONG"


# --- DEBUG --------------------------------------------------------------------

def test_debug_refused_by_default(c):
    assert c.call("DEBUG", "SLEEP", "0") == DEBUG_REFUSED
    assert c.call("DEBUG", "OBJECT", "k") == DEBUG_REFUSED


def test_debug_sleep_and_object(server_factory):
    s = server_factory("--enable-debug-command", "yes")
    conn = Conn(s)
    try:
        assert conn.call("DEBUG", "SLEEP", "0") == "OK"
        start = time.time()
        assert conn.call("DEBUG", "SLEEP", "0.2") == "OK"
        assert time.time() - start >= 0.19
        conn.call("SET", "s", "hello")
        conn.call("SET", "n", "12")
        # 100 bytes LZF cannot shrink (a length of 64 or more takes 2 bytes), and
        # 100 bytes it can
        conn.call("SET", "r", "".join(chr(33 + (i * i * 7919) % 94) for i in range(100)))
        conn.call("SET", "z", "x" * 100)
        for key, refcount, encoding, serialized in [("s", 1, "embstr", 6),
                                                    ("n", 2147483647, "int", 2),
                                                    ("r", 1, "raw", 102),
                                                    ("z", 1, "raw", 13)]:
            reply = conn.call("DEBUG", "OBJECT", key)
            assert type(reply).__name__ == "Status"
            assert re.fullmatch(r"Value at:0x[0-9a-f]+ refcount:%d encoding:%s "
                                r"serializedlength:%d lru:\d+ lru_seconds_idle:\d+"
                                % (refcount, encoding, serialized), reply), reply
        assert conn.call("DEBUG", "OBJECT", "nokey") == "ERR no such key"
        assert conn.call("DEBUG", "FOO") == \
            "ERR unknown subcommand or wrong number of arguments for 'FOO'. Try DEBUG HELP."
    finally:
        conn.close()


# --- MEMORY -------------------------------------------------------------------

def test_memory_usage(c):
    c.call("SET", "small", "hello")
    c.call("SET", "big", "x" * 10000)
    c.call("RPUSH", "list", *["item%d" % i for i in range(1000)])
    small = c.call("MEMORY", "USAGE", "small")
    big = c.call("MEMORY", "USAGE", "big")
    assert isinstance(small, int) and 0 < small < 200
    assert 10000 < big < 20000
    assert c.call("MEMORY", "USAGE", "list") > 5000
    assert c.call("MEMORY", "USAGE", "small", "SAMPLES", "5") == small
    assert c.call("MEMORY", "USAGE", "list", "SAMPLES", "0") > 5000
    assert c.call("MEMORY", "USAGE", "nokey") is None
    assert c.call("MEMORY", "USAGE", "small", "SAMPLES") == SYNTAX
    assert c.call("MEMORY", "USAGE", "small", "foo") == SYNTAX
    assert c.call("MEMORY", "foo") == "ERR unknown subcommand 'foo'. Try MEMORY HELP."


MEMORY_STATS_FIELDS = [
    "peak.allocated", "total.allocated", "startup.allocated", "replication.backlog", "clients.slaves",
    "clients.normal", "cluster.links", "aof.buffer", "lua.caches", "functions.caches", "db.0", "db.3",
    "overhead.total", "keys.count", "keys.bytes-per-key", "dataset.bytes", "dataset.percentage",
    "peak.percentage", "allocator.allocated", "allocator.active", "allocator.resident",
    "allocator-fragmentation.ratio", "allocator-fragmentation.bytes", "allocator-rss.ratio",
    "allocator-rss.bytes", "rss-overhead.ratio", "rss-overhead.bytes", "fragmentation", "fragmentation.bytes"]


def test_memory_stats(c):
    c.call("SET", "a", "1")
    c.call("SET", "b", "2", "EX", "100")
    c.call("SELECT", "3")
    c.call("SET", "c", "3")
    reply = c.call("MEMORY", "STATS")
    assert reply[::2] == MEMORY_STATS_FIELDS
    stats = dict(zip(reply[::2], reply[1::2]))
    assert stats["db.0"][::2] == ["overhead.hashtable.main", "overhead.hashtable.expires",
                                  "overhead.hashtable.slot-to-keys"]
    db0 = dict(zip(stats["db.0"][::2], stats["db.0"][1::2]))
    assert db0["overhead.hashtable.main"] > 0 and db0["overhead.hashtable.expires"] > 0
    assert stats["keys.count"] == 3
    assert stats["total.allocated"] >= stats["startup.allocated"] > 0
    assert stats["peak.allocated"] >= stats["total.allocated"] - 100000
    assert stats["dataset.bytes"] == stats["total.allocated"] - stats["overhead.total"]
    assert stats["keys.bytes-per-key"] == (stats["total.allocated"] - stats["startup.allocated"]) // 3
    assert 0 < float(stats["dataset.percentage"]) <= 100
    assert float(stats["allocator-fragmentation.ratio"]) > 0 and float(stats["fragmentation"]) > 0
    assert stats["replication.backlog"] == 0 and stats["aof.buffer"] == 0
    assert c.call("MEMORY", "STATS", "x") == arity("memory|stats")


def test_memory_doctor_reports(c, open_conn):
    assert c.call("MEMORY", "DOCTOR") == (
        "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in "
        "these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and "
        "I will be back to our programming as soon as I finished rebooting.\n")
    value = "x" * 1000
    for start in range(0, 60000, 10000):
        c.send_raw(b"".join(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1000\r\n%s\r\n" % (
            len(b"key:%d" % i), b"key:%d" % i, value.encode()) for i in range(start, start + 10000)))
        for _ in range(10000):
            assert c.read() == "OK"
    # With jemalloc nothing is wrong now; a sanitizer build's RSS may still count as "High total RSS".
    report = c.call("MEMORY", "DOCTOR")
    no_issue = "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n"
    assert report == no_issue or (report.startswith("Sam, I detected a few issues") and "Peak memory" not in report)
    if "mem_allocator:jemalloc" in c.call("INFO", "memory"):
        assert report == no_issue
    c.send_raw(b"".join(b"*2\r\n$3\r\nDEL\r\n$%d\r\n%s\r\n" % (len(b"key:%d" % i), b"key:%d" % i)
                        for i in range(60000) if i % 10))
    for _ in range(54000):
        assert c.read() == 1
    report = c.call("MEMORY", "DOCTOR")
    assert report.startswith("Sam, I detected a few issues in this Redis instance memory implants:\n\n * Peak "
                             "memory: In the past this instance used more than 150% the memory that is currently "
                             "using. The allocator is normally not able to release memory after a peak, ")
    assert report.endswith("\n\nI'm here to keep you safe, Sam. I want to help you.\n")
    assert c.call("MEMORY", "PURGE") == "OK"


def test_memory_malloc_stats(c):
    report = c.call("MEMORY", "MALLOC-STATS")
    if c.call("INFO", "memory").find("mem_allocator:jemalloc") == -1:
        assert report == "Stats not supported for the current allocator"
    else:
        assert report.startswith("___ Begin jemalloc statistics ___\nVersion: ")
        assert report.rstrip().endswith("--- End jemalloc statistics ---")


def thread_names(server):
    names = []
    for tid in os.listdir("/proc/%d/task" % server.proc.pid):
        try:
            with open("/proc/%d/task/%s/comm" % (server.proc.pid, tid)) as f:
                names.append(f.read().strip())
        except OSError:
            pass  # the thread ended meanwhile
    return names


def test_jemalloc_background_thread_follows_config_from_start(server_factory):
    # jemalloc-bg-thread (default yes) moves the purging of freed memory off
    # the main thread; it must run from start-up, not only after CONFIG SET,
    # or a mass expiry stalls clients behind madvise calls.
    on = server_factory()
    if not on.client().info("memory")["mem_allocator"].startswith("jemalloc"):
        pytest.skip("built without jemalloc (sanitizer build)")
    wait_for(lambda: "jemalloc_bg_thd" in thread_names(on), what="jemalloc's background thread")
    off = server_factory("--jemalloc-bg-thread", "no")
    off.client().ping()
    assert "jemalloc_bg_thd" not in thread_names(off)
    assert off.client().config_set("jemalloc-bg-thread", "yes")
    wait_for(lambda: "jemalloc_bg_thd" in thread_names(off), what="the thread after CONFIG SET")


# --- COMMAND ------------------------------------------------------------------

def test_command_count_matches_lists(c):
    count = c.call("COMMAND", "COUNT")
    assert isinstance(count, int) and count > 50
    assert len(c.call("COMMAND")) == count
    assert len([name for name in c.call("COMMAND", "LIST") if "|" not in name]) == count


def test_command_info(c):
    get, nosuch, set_ = c.call("COMMAND", "INFO", "get", "nosuch", "SET")
    assert nosuch is None
    assert get[:6] == ["get", 2, ["readonly", "fast"], 1, 1, 1]
    assert set(get[6]) >= {"@read", "@string", "@fast"}
    assert set_[:6] == ["set", -3, ["write", "denyoom"], 1, 1, 1]
    assert len(get) == 10
    mset = c.call("COMMAND", "INFO", "mset")[0]
    assert mset[:6] == ["mset", -3, ["write", "denyoom"], 1, -1, 2]
    ping = c.call("COMMAND", "INFO", "ping")[0]
    assert ping[1] == -1 and ping[3:6] == [0, 0, 0]
    config = c.call("COMMAND", "INFO", "config")[0]
    assert "config|get" in [sub[0] for sub in config[9]]


def test_command_docs(c):
    docs = c.call("COMMAND", "DOCS", "get")
    assert docs[0] == "get"
    fields = dict(zip(docs[1][::2], docs[1][1::2]))
    assert fields["summary"] == "Get the value of a key"
    assert fields["since"] == "1.0.0"
    assert fields["group"] == "string"
    assert fields["complexity"] == "O(1)"
    assert c.call("COMMAND", "DOCS", "nosuch") == []
    assert c.call("COMMAND", "DOCS", "get", "set")[::2] == ["get", "set"]


def test_command_getkeys(c):
    assert c.call("COMMAND", "GETKEYS", "get", "a") == ["a"]
    assert c.call("COMMAND", "GETKEYS", "mset", "a", "1", "b", "2") == ["a", "b"]
    assert c.call("COMMAND", "GETKEYS", "rename", "a", "b") == ["a", "b"]
    assert c.call("COMMAND", "GETKEYS", "del", "a", "b", "c") == ["a", "b", "c"]
    assert c.call("COMMAND", "GETKEYS", "copy", "a", "b", "DB", "1") == ["a", "b"]
    assert c.call("COMMAND", "GETKEYS", "set", "k", "v", "EX", "10") == ["k"]
    assert c.call("COMMAND", "GETKEYS", "object", "encoding", "k") == ["k"]
    assert c.call("COMMAND", "GETKEYS", "zunionstore", "dst", "2", "a", "b") == \
        ["dst", "a", "b"]
    assert c.call("COMMAND", "GETKEYS", "eval", "return 1", "2", "x", "y", "arg") == ["x", "y"]


def test_command_getkeys_errors(c):
    no_keys = "ERR The command has no key arguments"
    assert c.call("COMMAND", "GETKEYS", "echo", "x") == no_keys
    assert c.call("COMMAND", "GETKEYS", "ping", "x") == no_keys
    assert c.call("COMMAND", "GETKEYS", "keys", "*") == no_keys
    assert c.call("COMMAND", "GETKEYS", "nosuch", "a") == "ERR Invalid command specified"
    assert c.call("COMMAND", "GETKEYS", "set", "a") == \
        "ERR Invalid number of arguments specified for command"
    assert c.call("COMMAND", "GETKEYS", "mset", "a") == \
        "ERR Invalid number of arguments specified for command"
    assert c.call("COMMAND", "GETKEYS", "get") == arity("command|getkeys")
    assert c.call("COMMAND", "foo") == "ERR unknown subcommand 'foo'. Try COMMAND HELP."


# --- connection limits --------------------------------------------------------

def test_idle_timeout_closes_connection(server, c):
    assert c.call("CONFIG", "SET", "timeout", "1") == "OK"
    idle = Conn(server)
    try:
        idle.call("PING")
        start = time.time()
        assert is_closed(idle, timeout=4.0)
        assert time.time() - start >= 0.9
    finally:
        idle.close()


def test_idle_timeout_spares_subscribers(server, c):
    assert c.call("CONFIG", "SET", "timeout", "1") == "OK"
    sub = Conn(server)
    try:
        sub.call("SUBSCRIBE", "ch")
        time.sleep(1.0)
        # clients in pub/sub mode are not subject to the idle timeout
        wait_for(lambda: len(client_lines(c, "TYPE", "pubsub")) == 1, timeout=1.0)
        time.sleep(0.8)
        assert len(client_lines(c, "TYPE", "pubsub")) == 1
    finally:
        sub.close()


def test_maxclients(server, c):
    assert c.call("CONFIG", "SET", "maxclients", "3") == "OK"
    a = Conn(server)
    b = Conn(server)
    try:
        assert a.call("PING") == "PONG" and b.call("PING") == "PONG"
        extra = Conn(server)
        try:
            assert extra.read() == "ERR max number of clients reached"
            assert is_closed(extra)
        finally:
            extra.close()
        stats = info_fields(c.call("INFO", "stats"))["Stats"]
        assert stats["rejected_connections"] == "1"
        b.close()
        wait_for(lambda: len(client_lines(c)) == 2, what="the closed client to go")
        again = Conn(server)
        try:
            assert again.call("PING") == "PONG"
        finally:
            again.close()
    finally:
        a.close()
        b.close()


def test_output_buffer_limit_disconnects_slow_reader(server, c):
    assert c.call("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0") == "OK"
    assert c.call("CONFIG", "GET", "client-output-buffer-limit")[1].startswith(
        "normal 1048576 0 0 ")
    c.call("SET", "big", "x" * 100000)
    slow = Conn(server, rcvbuf=4096)
    try:
        slow.send_raw(b"GET big\r\n" * 200)  # 20 MB of replies it will not read
        wait_for(lambda: len(client_lines(c)) == 1, timeout=5.0,
                   what="the slow client to be disconnected")
        # what was sent before the disconnection is readable, then the stream ends short
        received = len(slow.buf)
        slow.sock.settimeout(5.0)
        while True:
            try:
                chunk = slow.sock.recv(1 << 20)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += len(chunk)
        assert received < 200 * 100000
    finally:
        slow.close()
    assert c.call("GET", "big") == "x" * 100000


def test_oom_score_adj_follows_the_role_and_is_restored(server):
    """oom-score-adj: relative adds the class's value (master, replica) to the
    score the process had, absolute sets it, no puts the original back."""
    r = server.client()
    path = "/proc/%d/oom_score_adj" % server.proc.pid

    def score():
        with open(path) as f:
            return int(f.read())
    with open(path, "w") as f:
        f.write("22")
    r.config_set("oom-score-adj-values", "9 19 29")
    assert score() == 22  # off: not touched
    r.config_set("oom-score-adj", "yes")
    assert score() == 31
    r.execute_command("REPLICAOF", "127.0.0.1", 1)
    assert score() == 41
    r.execute_command("REPLICAOF", "NO", "ONE")
    assert score() == 31
    r.config_set("oom-score-adj", "absolute")
    assert score() == 9
    r.config_set("oom-score-adj", "no")
    assert score() == 22


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
    wait_for(lambda: r.info("clients")["blocked_clients"] == 1, timeout=5)
    assert r.client_unblock(cid, error=True)
    with pytest.raises(redis.ResponseError) as e:
        sock.read_response()
    assert str(e.value).startswith("UNBLOCKED")
    stat = cmdstat(r, "blpop")
    assert stat["calls"] == 1 and stat["failed_calls"] == 1 and stat["rejected_calls"] == 0


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


def test_config_get_star_lists_only_directives_of_7_0(r):
    # Our small sets are encoded as 7.2 does, with 7.2's set-max-listpack-*
    # limits; 7.0 has no such directives, so a pattern never shows them.
    every = r.config_get("*")
    assert "set-max-intset-entries" in every
    assert [k for k in every if k.startswith("set-max-listpack")] == []
    assert r.config_get("set-max-listpack-*") == {}


def read_title(pid):
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        return f.read().replace(b"\0", b" ").decode().split()


def test_process_title_follows_the_template(server, rd):
    pid = server.proc.pid
    title = read_title(pid)
    assert title[0].endswith("redis-server") and title[1] == "127.0.0.1:%d" % server.port
    assert rd.config_set("proc-title-template", "TEST {title} {listen-addr} {port} {tls-port} {config-file}")
    assert read_title(pid)[:5] == ["TEST", title[0], "127.0.0.1:%d" % server.port, str(server.port), "0"]
    assert rd.config_set("proc-title-template", "{{ x }} {title}")
    assert read_title(pid)[:3] == ["{", "x", "}}"]
    for bad in ("{nosuch}", "{title", "   ", ""):
        with pytest.raises(redis.ResponseError) as e:
            rd.config_set("proc-title-template", bad)
        assert str(e.value) == ("CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                "template format is invalid or contains unknown variables")
    assert rd.config_get("proc-title-template") == {"proc-title-template": "{{ x }} {title}"}


def test_config_directives_the_suite_sets(r):
    r.config_set("repl-ping-replica-period", 3600)
    assert r.config_get("repl-ping-replica-period") == {"repl-ping-replica-period": "3600"}
    r.config_set("rdb-key-save-delay", 100)
    assert r.config_get("rdb-key-save-delay") == {"rdb-key-save-delay": "100"}
    r.set("k", "v")
    t = time.time()
    r.save()
    assert time.time() - t >= 0.0001


def test_start_up_checks_the_kernels_memory_settings(server_factory):
    # As 7.0, after "Server initialized": a warning when vm.overcommit_memory
    # is not 1, and when transparent huge pages are "always" one that
    # disable-thp yes (the default) avoids by turning them off for the process.
    overcommit = read_text("/proc/sys/vm/overcommit_memory").strip()
    thp_always = "[always]" in read_text("/sys/kernel/mm/transparent_hugepage/enabled")
    for disable in ("yes", "no"):
        s = server_factory("--disable-thp", disable)
        log = s.log().split("Server initialized", 1)[1]
        assert ("WARNING Memory overcommit must be enabled!" in log) == (overcommit not in ("", "1"))
        assert ("WARNING You have Transparent Huge Pages (THP) support enabled" in log) == (
            thp_always and disable == "no")
        assert s.client().config_get("disable-thp") == {"disable-thp": disable}
    with pytest.raises(redis.ResponseError) as e:
        s.client().config_set("disable-thp", "yes")
    assert str(e.value) == ("CONFIG SET failed (possibly related to argument 'disable-thp') - "
                            "can't set immutable config")


def test_tuning_directives_of_7_0_are_listed_and_checked(r):
    """Directives 7.0 lists in CONFIG GET * that tune what this server does
    otherwise: listed with 7.0's defaults, their values checked as 7.0's."""
    every = r.config_get("*")
    assert {k: every[k] for k in ("active-expire-effort", "replica-ignore-maxmemory", "slave-ignore-maxmemory",
                                  "server_cpulist", "bio_cpulist", "aof_rewrite_cpulist", "bgsave_cpulist",
                                  "ignore-warnings", "socket-mark-id")} == {
        "active-expire-effort": "1", "replica-ignore-maxmemory": "yes", "slave-ignore-maxmemory": "yes",
        "server_cpulist": "", "bio_cpulist": "", "aof_rewrite_cpulist": "", "bgsave_cpulist": "",
        "ignore-warnings": "", "socket-mark-id": "0"}
    prefix = "CONFIG SET failed (possibly related to argument '%s') - "
    for name, value, err in (("active-expire-effort", "11", "argument must be between 1 and 10 inclusive"),
                             ("replica-ignore-maxmemory", "maybe", "argument must be 'yes' or 'no'"),
                             ("server_cpulist", "1", "can't set immutable config"),
                             ("socket-mark-id", "5", "can't set immutable config")):
        with pytest.raises(redis.ResponseError) as e:
            r.config_set(name, value)
        assert str(e.value) == prefix % name + err
    assert r.config_set("active-expire-effort", "10") and r.config_get("active-expire-effort") == {
        "active-expire-effort": "10"}
    assert r.config_set("ignore-warnings", "ARM64-COW-BUG")
