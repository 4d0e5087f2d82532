"""Commands of features a standalone server runs without — cluster, replicas
(FAILOVER), modules, client-side caching — answered as Redis 7.0.15 answers
them with none in use. Checked on the reference.
"""
import pytest

from resp_raw import Err

DISABLED = Err("ERR This instance has cluster support disabled")
CLUSTER_SUBCOMMANDS = [
    ["INFO"], ["SLOTS"], ["SHARDS"], ["NODES"], ["MYID"], ["HELP"], ["KEYSLOT", "foo"], ["LINKS"],
    ["COUNTKEYSINSLOT", "1"], ["GETKEYSINSLOT", "1", "1"], ["RESET"], ["SAVECONFIG"], ["REPLICAS", "x"],
    ["MEET", "127.0.0.1", "1"], ["ADDSLOTS", "1"], ["DELSLOTS", "1"], ["FLUSHSLOTS"], ["FAILOVER"]]


@pytest.mark.parametrize("args", CLUSTER_SUBCOMMANDS, ids=lambda a: a[0])
def test_cluster_support_disabled(c, args):
    assert c.call("CLUSTER", *args) == DISABLED


def test_cluster_container_and_connection_commands(c):
    assert c.call("CLUSTER") == Err("ERR wrong number of arguments for 'cluster' command")
    assert c.call("CLUSTER", "nosuch") == Err("ERR unknown subcommand 'nosuch'. Try CLUSTER HELP.")
    for cmd in ("READONLY", "READWRITE", "ASKING"):
        assert c.call(cmd) == DISABLED
        assert c.call(cmd, "x") == Err("ERR wrong number of arguments for '%s' command" % cmd.lower())


@pytest.mark.parametrize("args,reply", [
    ([], "ERR FAILOVER requires connected replicas."),
    (["ABORT"], "ERR No failover in progress."),
    (["ABORT", "TIMEOUT", "5"], "ERR syntax error"),
    (["TIMEOUT", "0"], "ERR FAILOVER timeout must be greater than 0"),
    (["TIMEOUT", "-1"], "ERR FAILOVER timeout must be greater than 0"),
    (["TIMEOUT", "x"], "ERR value is not an integer or out of range"),
    (["TIMEOUT", "10"], "ERR FAILOVER requires connected replicas."),
    (["TO", "h"], "ERR syntax error"),
    (["TO", "h", "x"], "ERR value is not an integer or out of range"),
    (["TO", "h", "1", "FORCE"], "ERR FAILOVER requires connected replicas."),
    (["FORCE"], "ERR FAILOVER requires connected replicas."),
    (["foo"], "ERR syntax error"),
    (["ABORT", "ABORT"], "ERR syntax error"),
    (["TIMEOUT", "1", "TIMEOUT", "2"], "ERR syntax error"),
])
def test_failover_without_replicas(c, args, reply):
    assert c.call("FAILOVER", *args) == Err(reply)


NOT_ALLOWED = Err("ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", "
                  "you can run it from a local connection, otherwise you need to set this option in the "
                  "configuration file, and then restart the server.")


def test_module_commands_default(c):
    assert c.call("MODULE", "LIST") == []
    assert c.call("MODULE", "LOAD", "/nonexistent/module.so") == NOT_ALLOWED
    assert c.call("MODULE", "LOADEX", "/nonexistent/module.so") == NOT_ALLOWED
    assert c.call("MODULE", "UNLOAD", "x") == NOT_ALLOWED
    assert c.call("MODULE", "HELP") == [
        "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "LIST", "    Return a list of loaded modules.",
        "LOAD <path> [<arg> ...]",
        "    Load a module library from <path>, passing to it any optional arguments.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        "    Load a module library from <path>, while passing it module configurations and optional arguments.",
        "UNLOAD <name>", "    Unload a module.", "HELP", "    Prints this help."]


def test_module_commands_enabled(server_factory, open_conn):
    s = server_factory("--enable-module-command", "yes")
    conn = open_conn(s)
    assert conn.call("MODULE", "LOAD", "/nonexistent/module.so") == Err(
        "ERR Error loading the extension. Please check the server logs.")
    assert conn.call("MODULE", "UNLOAD", "x") == Err("ERR Error unloading module: no such module with that name")
    assert conn.call("CONFIG", "GET", "enable-module-command") == ["enable-module-command", "yes"]


def test_client_tracking_state_queries(c):
    assert c.call("CLIENT", "TRACKINGINFO") == ["flags", ["off"], "redirect", -1, "prefixes", []]
    assert c.call("CLIENT", "GETREDIR") == -1
    assert c.call("CLIENT", "CACHING", "yes") == Err(
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
    c.call("HELLO", "3")
    assert c.call("CLIENT", "TRACKINGINFO") == {"flags": {"off"}, "redirect": -1, "prefixes": []}
