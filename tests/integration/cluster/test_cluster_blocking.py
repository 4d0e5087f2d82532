"""Clients blocked on a key whose slot stops being served by the node they
wait on: each hears the redirection Redis 7.0 gives (MOVED to the new owner,
CLUSTERDOWN when the cluster went down) and is unblocked, its connection
usable again. Redis behaviour: these pass on the reference too."""
import pytest

from resp_raw import RawClient
from support import info, start_cluster, wait_for

FOO = 12182  # CLUSTER KEYSLOT foo


@pytest.fixture
def two(server_factory):
    return start_cluster(server_factory, ["ours", "ours"], cli=False)


def blocked(node, *cmd):
    c = RawClient(node, timeout=10)
    c.send(*cmd)
    wait_for(lambda: info(node.client(), "clients")["blocked_clients"] == "1", what="the client to block")
    return c


@pytest.mark.parametrize("cmd", [("blpop", "foo", "0"), ("bzpopmin", "foo", "0"),
                                 ("xread", "block", "0", "streams", "foo", "$")], ids=["blpop", "bzpopmin", "xread"])
def test_slot_given_away_redirects_the_blocked_client(two, cmd):
    n0, n1 = two.nodes
    c = blocked(n1, *cmd)
    assert RawClient(n1).call_frame("cluster", "setslot", str(FOO), "node", two.ids[0]) == b"+OK\r\n"
    assert c.read_frame() == b"-MOVED %d 127.0.0.1:%d\r\n" % (FOO, n0.port)
    assert c.call_frame("ping") == b"+PONG\r\n"
    assert info(n1.client(), "clients")["blocked_clients"] == "0"


def test_cluster_down_redirects_the_blocked_client(two):
    n0, n1 = two.nodes
    c = blocked(n1, "blpop", "foo", "0")
    r1 = RawClient(n1)
    assert r1.call_frame("cluster", "delslots", "0") == b"+OK\r\n"  # not ours: the cluster goes down here
    assert c.read_frame() == b"-CLUSTERDOWN The cluster is down\r\n"
    assert c.call_frame("blpop", "foo", "0") == b"-CLUSTERDOWN The cluster is down\r\n"


def test_a_waiter_on_a_served_slot_stays(two):
    n0, n1 = two.nodes
    c = blocked(n1, "blpop", "foo", "0")
    other = blocked(n0, "blpop", "bar", "0")  # slot 5061
    # The slot of bar moves between nodes: foo's waiter does not notice.
    r0, r1 = RawClient(n0), RawClient(n1)
    assert r0.call_frame("cluster", "setslot", "5061", "node", two.ids[1]) == b"+OK\r\n"
    assert other.read_frame() == b"-MOVED 5061 127.0.0.1:%d\r\n" % n1.port
    assert c.nothing_pending(0.5)
    assert r1.call_frame("rpush", "foo", "x") == b":1\r\n"
    assert c.read_frame() == b"*2\r\n$3\r\nfoo\r\n$1\r\nx\r\n"
