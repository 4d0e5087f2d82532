"""Scripts and functions in cluster mode, as Redis 7.0 checks each command a
script runs (its keys' slot served here, the cluster up, undeclared keys in
one slot unless allow-cross-slot-keys; EVAL without a shebang may cross
slots), the no-cluster flag, and CROSSSLOT for declared keys. Redis
behaviour: these pass on the reference too."""
import pytest

from resp_raw import RawClient
from support import cluster_info, start_cluster, wait_for

A, B = 15495, 3300  # CLUSTER KEYSLOT a, b
CROSS_SCRIPT = b"Script attempted to access keys that do not hash to the same slot"
NON_LOCAL = b"Script attempted to access a non local key in a cluster node"


@pytest.fixture
def node(server_factory):
    return start_cluster(server_factory, ["ours"], cli=False).nodes[0]


def sha_of(c, body):
    return c.call("script", "load", body).decode()


def test_undeclared_keys_of_two_slots(node):
    c = RawClient(node)
    two = "redis.call('set','a','1'); return redis.call('set','b','1')"
    # EVAL without a shebang: the compatibility mode may cross slots.
    assert c.call_frame("eval", two, "0") == b"+OK\r\n"
    body = "#!lua\n" + two
    sha = sha_of(c, body)
    assert c.call_frame("eval", body, "0") == \
        b"-ERR " + CROSS_SCRIPT + b" script: " + sha.encode() + b", on @user_script:2.\r\n"
    # Declared keys fix the slot: an undeclared one elsewhere is refused.
    assert c.call_frame("eval", "#!lua\nreturn redis.pcall('set','b','1')", "1", "a") == \
        b"-ERR " + CROSS_SCRIPT + b"\r\n"
    assert c.call_frame("eval", "#!lua\nreturn redis.pcall('set','{a}x','1')", "1", "a") == b"+OK\r\n"
    assert c.call_frame("eval", "#!lua flags=allow-cross-slot-keys\n" + two, "1", "a") == b"+OK\r\n"
    # Declared keys of two slots: the router refuses the call itself.
    assert c.call_frame("eval", "return 1", "2", "a", "b") == \
        b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"
    assert c.call_frame("fcall", "nosuch", "2", "a", "b") == \
        b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"


def test_function_flags(node):
    c = RawClient(node)
    lib = ("#!lua name=lib\n"
           "redis.register_function('two', function(k, a) redis.call('set','a','1'); return redis.call('set','b','1') end)\n"
           "redis.register_function{function_name='cross', callback=function(k, a) redis.call('set','a','1'); "
           "return redis.call('set','b','1') end, flags={'allow-cross-slot-keys'}}\n"
           "redis.register_function{function_name='nocl', callback=function(k, a) return 1 end, flags={'no-cluster'}}\n")
    assert c.call_frame("function", "load", lib) == b"$3\r\nlib\r\n"
    assert c.call_frame("fcall", "two", "0") == b"-ERR " + CROSS_SCRIPT + b" script: two, on @user_function:2.\r\n"
    assert c.call_frame("fcall", "cross", "0") == b"+OK\r\n"
    assert c.call_frame("fcall", "nocl", "0") == b"-ERR Can not run script on cluster, 'no-cluster' flag is set.\r\n"
    assert c.call_frame("eval", "#!lua flags=no-cluster\nreturn 1", "0") == \
        b"-ERR Can not run script on cluster, 'no-cluster' flag is set.\r\n"


def test_keys_not_served_and_cluster_down(node):
    c = RawClient(node)
    assert c.call_frame("cluster", "delslots", str(B)) == b"+OK\r\n"
    assert c.call_frame("eval", "return redis.pcall('get','b')", "0") == b"-ERR " + NON_LOCAL + b"\r\n"
    sha = sha_of(c, "return redis.call('get','b')")
    assert c.call_frame("eval", "return redis.call('get','b')", "0") == \
        b"-ERR " + NON_LOCAL + b" script: " + sha.encode() + b", on @user_script:1.\r\n"
    wait_for(lambda: cluster_info(node.client())["cluster_state"] == "fail", what="cluster_state:fail")
    assert c.call_frame("eval", "return redis.pcall('get','a')", "0") == \
        b"-ERR Script attempted to execute a command while the cluster is down\r\n"
    # A script without keys runs; its keyless commands too.
    assert c.call_frame("eval", "return redis.call('ping')", "0") == b"+PONG\r\n"
    assert c.call_frame("config", "set", "cluster-allow-reads-when-down", "yes") == b"+OK\r\n"
    assert c.call_frame("eval", "return redis.pcall('get','a')", "0") == b"$-1\r\n"
    assert c.call_frame("eval", "return redis.pcall('set','a','2')", "0") == \
        b"-ERR Script attempted to execute a write command while the cluster is down and readonly\r\n"
    assert c.call_frame("eval", "#!lua flags=no-writes\nreturn redis.pcall('get','a')", "0") == b"$-1\r\n"
    # Declared keys: the router answers before the script starts, by the flags it declares
    # (EVAL without a shebang is not a write).
    assert c.call_frame("eval", "#!lua\nreturn 1", "1", "a") == \
        b"-CLUSTERDOWN The cluster is down and only accepts read commands\r\n"
    assert c.call_frame("eval", "return 1", "1", "a") == b":1\r\n"
