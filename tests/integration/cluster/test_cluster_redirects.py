"""Redis Cluster's answers for keys served elsewhere or not at all, byte for
byte on a raw connection: MOVED, ASK (SETSLOT MIGRATING/IMPORTING, ASKING),
TRYAGAIN, CROSSSLOT, each CLUSTERDOWN, READONLY/READWRITE on a replica,
MULTI/EXEC with keys of another slot. Redis behaviour: these pass on the
reference too."""
import pytest

from resp_raw import RawClient
from support import cluster_info, start_cluster, wait_for

FOO = 12182  # CLUSTER KEYSLOT foo
BAR = 5061   # bar
A, B = 15495, 3300


@pytest.fixture
def two(server_factory):
    """Two masters: slots 0-8191 and 8192-16383."""
    return start_cluster(server_factory, ["ours", "ours"], cli=False)


def raw(node):
    return RawClient(node)


def addr(node):
    return "127.0.0.1:%d" % node.port


def test_moved_and_crossslot(two):
    c0 = raw(two.nodes[0])
    assert c0.call_frame("get", "foo") == b"-MOVED %d %s\r\n" % (FOO, addr(two.nodes[1]).encode())
    assert c0.call_frame("get", "bar") == b"$-1\r\n"
    assert c0.call_frame("mget", "a", "b") == b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"
    assert c0.call_frame("mset", "{bar}1", "x", "{bar}2", "y") == b"+OK\r\n"
    assert c0.call_frame("mget", "{bar}1", "{bar}2") == b"*2\r\n$1\r\nx\r\n$1\r\ny\r\n"
    # A command without keys runs anywhere.
    assert c0.call_frame("ping") == b"+PONG\r\n"
    # The errors are counted as Redis counts them.
    info = c0.call("info", "errorstats").decode()
    assert "errorstat_MOVED:count=1" in info and "errorstat_CROSSSLOT:count=1" in info


def test_multi_exec_with_keys_of_another_slot(two):
    c0 = raw(two.nodes[0])
    assert c0.call_frame("multi") == b"+OK\r\n"
    assert c0.call_frame("set", "foo", "1") == b"-MOVED %d %s\r\n" % (FOO, addr(two.nodes[1]).encode())
    assert c0.call_frame("exec") == b"-EXECABORT Transaction discarded because of previous errors.\r\n"
    # Each command is local, but together they span two slots: EXEC refuses them.
    assert c0.call_frame("multi") == b"+OK\r\n"
    assert c0.call_frame("set", "bar", "1") == b"+QUEUED\r\n"
    assert c0.call_frame("set", "b", "1") == b"+QUEUED\r\n"
    assert c0.call_frame("exec") == b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"
    assert c0.call_frame("exists", "bar", "b") == b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"
    assert c0.call_frame("get", "bar") == b"$-1\r\n"
    assert c0.call_frame("multi") == b"+OK\r\n"
    assert c0.call_frame("set", "bar", "1") == b"+QUEUED\r\n"
    assert c0.call_frame("exec") == b"*1\r\n+OK\r\n"


def test_ask_tryagain_and_asking(two):
    n0, n1 = two.nodes
    id0, id1 = two.ids
    c0, c1 = raw(n0), raw(n1)
    assert c0.call_frame("set", "{bar}here", "1") == b"+OK\r\n"
    assert c1.call_frame("cluster", "setslot", str(BAR), "importing", id0) == b"+OK\r\n"
    assert c0.call_frame("cluster", "setslot", str(BAR), "migrating", id1) == b"+OK\r\n"
    ask = b"-ASK %d %s\r\n" % (BAR, addr(n1).encode())
    assert c0.call_frame("get", "{bar}here") == b"$1\r\n1\r\n"  # still here
    assert c0.call_frame("get", "bar") == ask                 # not here: may be there
    assert c0.call_frame("mget", "{bar}here", "bar") == b"-TRYAGAIN Multiple keys request during rehashing of slot\r\n"
    # The importing node serves the slot only after ASKING, for one command.
    moved = b"-MOVED %d %s\r\n" % (BAR, addr(n0).encode())
    assert c1.call_frame("get", "bar") == moved
    assert c1.call_frame("asking") == b"+OK\r\n"
    assert c1.call_frame("get", "bar") == b"$-1\r\n"
    assert c1.call_frame("get", "bar") == moved
    assert c1.call_frame("asking") == b"+OK\r\n"
    assert c1.call_frame("set", "bar", "new") == b"+OK\r\n"
    assert c1.call_frame("asking") == b"+OK\r\n"
    assert c1.call_frame("mget", "bar", "{bar}missing") == b"-TRYAGAIN Multiple keys request during rehashing of slot\r\n"
    # A slot still holding keys here cannot be handed over.
    assert c0.call_frame("cluster", "setslot", str(BAR), "node", id1) == \
        b"-ERR Can't assign hashslot %d to a different node while I still hold keys for this hash slot.\r\n" % BAR
    assert c0.call_frame("del", "{bar}here") == b":1\r\n"
    # Closing the slot on both sides: bar is served where the slot is assigned.
    assert c1.call_frame("cluster", "setslot", str(BAR), "node", id1) == b"+OK\r\n"
    assert c0.call_frame("cluster", "setslot", str(BAR), "node", id1) == b"+OK\r\n"
    assert c1.call_frame("get", "bar") == b"$3\r\nnew\r\n"
    wait_for(lambda: c0.call_frame("get", "bar") == b"-MOVED %d %s\r\n" % (BAR, addr(n1).encode()),
             what="the slot to move")


def test_readonly_and_readwrite_on_a_replica(server_factory):
    cl = start_cluster(server_factory, ["ours", "ours"], replicas=1, cli=False)
    m, r = cl.nodes
    cm, cr = raw(m), raw(r)
    assert cm.call_frame("set", "foo", "1") == b"+OK\r\n"
    wait_for(lambda: r.client().dbsize() == 1, what="the replica's copy")
    moved = b"-MOVED %d %s\r\n" % (FOO, addr(m).encode())
    assert cr.call_frame("get", "foo") == moved
    assert cr.call_frame("readonly") == b"+OK\r\n"
    assert cr.call_frame("get", "foo") == b"$1\r\n1\r\n"
    assert cr.call_frame("set", "foo", "2") == moved  # a write still goes to the master
    assert cr.call_frame("readwrite") == b"+OK\r\n"
    assert cr.call_frame("get", "foo") == moved


@pytest.fixture
def single(server_factory):
    return start_cluster(server_factory, ["ours"], cli=False)


def test_clusterdown_variants(single):
    n = single.nodes[0]
    c = raw(n)
    assert c.call_frame("set", "foo", "1") == b"+OK\r\n"
    assert c.call_frame("cluster", "delslots", str(A)) == b"+OK\r\n"
    assert c.call_frame("get", "a") == b"-CLUSTERDOWN Hash slot not served\r\n"
    wait_for(lambda: cluster_info(n.client())["cluster_state"] == "fail", what="cluster_state:fail")
    assert c.call_frame("get", "foo") == b"-CLUSTERDOWN The cluster is down\r\n"
    assert c.call_frame("config", "set", "cluster-allow-reads-when-down", "yes") == b"+OK\r\n"
    assert c.call_frame("get", "foo") == b"$1\r\n1\r\n"
    assert c.call_frame("set", "foo", "2") == b"-CLUSTERDOWN The cluster is down and only accepts read commands\r\n"
    assert c.call_frame("get", "a") == b"-CLUSTERDOWN Hash slot not served\r\n"
    # Without full coverage required, the rest of the slots are served again.
    assert c.call_frame("config", "set", "cluster-require-full-coverage", "no") == b"+OK\r\n"
    wait_for(lambda: cluster_info(n.client())["cluster_state"] == "ok", what="cluster_state:ok")
    assert c.call_frame("set", "foo", "2") == b"+OK\r\n"
    assert c.call_frame("get", "a") == b"-CLUSTERDOWN Hash slot not served\r\n"
