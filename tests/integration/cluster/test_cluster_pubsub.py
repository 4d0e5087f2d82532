"""Pub/sub in cluster mode: PUBLISH reaches the subscribers of every node
over the bus (its reply counts the local ones only), SPUBLISH those of the
channel's shard only (master and replicas); SSUBSCRIBE is routed by the
channel's slot (MOVED, CROSSSLOT, a replica serving its master's slots,
cluster-allow-pubsubshard-when-down), an open slot's channels stay with its
owner (no ASK), and a slot that leaves the shard
unsubscribes its channels' subscribers ("sunsubscribe"), as Redis 7.0.
Redis behaviour: these pass on the reference too."""
import pytest

from resp_raw import RawClient
from support import Server, cluster_info, start_cluster, wait_for

FOO = 12182  # CLUSTER KEYSLOT foo: the second master's
CROSS = b"-CROSSSLOT Keys in request don't hash to the same slot\r\n"


@pytest.fixture(scope="module")
def four():
    """Two masters, each with a replica: nodes 0 and 1 masters, 2 and 3 their replicas."""
    started = []

    def factory(*args, **kw):
        s = Server(args, **kw)
        started.append(s)
        return s

    cl = start_cluster(factory, ["ours"] * 4, replicas=1, cli=False)
    yield cl
    for s in started:
        problem = s.stop()
        assert not problem, problem


def sub(node, *cmd):
    c = RawClient(node, timeout=5)
    c.send(*cmd)
    return c


def test_publish_reaches_every_node_and_counts_local_receivers(four):
    subs = [sub(n, "subscribe", "news") for n in four.nodes]
    for s in subs:
        assert s.read_frame() == b"*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n"
    psub = sub(four.nodes[3], "psubscribe", "ne*")
    psub.read_frame()
    assert RawClient(four.nodes[0]).call_frame("publish", "news", "hello") == b":1\r\n"
    for s in subs:
        assert s.read_frame() == b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n"
    assert psub.read_frame() == b"*4\r\n$8\r\npmessage\r\n$3\r\nne*\r\n$4\r\nnews\r\n$5\r\nhello\r\n"
    # From a replica too.
    assert RawClient(four.nodes[2]).call_frame("publish", "news", "again") == b":1\r\n"
    for s in subs:
        assert s.read_frame() == b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nagain\r\n"


def test_spublish_reaches_the_shard_only(four):
    m0, m1, r0, r1 = four.nodes
    moved = b"-MOVED %d 127.0.0.1:%d\r\n" % (FOO, m1.port)
    assert RawClient(m0).call_frame("ssubscribe", "foo") == moved
    assert RawClient(m1).call_frame("ssubscribe", "foo", "bar") == CROSS
    on_master = sub(m1, "ssubscribe", "foo", "{foo}2")
    assert on_master.read_frame() == b"*3\r\n$10\r\nssubscribe\r\n$3\r\nfoo\r\n:1\r\n"
    assert on_master.read_frame() == b"*3\r\n$10\r\nssubscribe\r\n$6\r\n{foo}2\r\n:2\r\n"
    # A replica serves its master's shard channels, READONLY or not.
    on_replica = sub(r1, "ssubscribe", "foo")
    assert on_replica.read_frame() == b"*3\r\n$10\r\nssubscribe\r\n$3\r\nfoo\r\n:1\r\n"
    assert RawClient(r0).call_frame("ssubscribe", "foo") == moved
    plain = sub(m0, "subscribe", "foo")
    plain.read_frame()
    assert RawClient(m0).call_frame("spublish", "foo", "x") == moved
    assert RawClient(m1).call_frame("spublish", "foo", "x") == b":1\r\n"
    msg = b"*3\r\n$8\r\nsmessage\r\n$3\r\nfoo\r\n$1\r\nx\r\n"
    assert on_master.read_frame() == msg
    assert on_replica.read_frame() == msg
    assert plain.nothing_pending(0.3)  # the plain channel of that name is another one
    # SPUBLISH on the replica goes to its shard too.
    assert RawClient(r1).call_frame("spublish", "foo", "y") == b":1\r\n"
    assert on_master.read_frame() == b"*3\r\n$8\r\nsmessage\r\n$3\r\nfoo\r\n$1\r\ny\r\n"
    assert on_replica.read_frame() == b"*3\r\n$8\r\nsmessage\r\n$3\r\nfoo\r\n$1\r\ny\r\n"
    for c in (on_master, on_replica):
        c.send("sunsubscribe")
    on_master.read_frame(), on_master.read_frame(), on_replica.read_frame()


def test_a_lost_slot_unsubscribes_its_shard_channels(server_factory):
    cl = start_cluster(server_factory, ["ours", "ours"], cli=False)
    n0, n1 = cl.nodes
    s = sub(n1, "ssubscribe", "foo")
    s.read_frame()
    keep = sub(n1, "ssubscribe", "{foo}x")
    assert keep.read_frame() == b"*3\r\n$10\r\nssubscribe\r\n$6\r\n{foo}x\r\n:1\r\n"
    keep.send("ssubscribe", "a")  # slot 15495, staying
    assert keep.read_frame() == b"*3\r\n$10\r\nssubscribe\r\n$1\r\na\r\n:2\r\n"
    assert RawClient(n1).call_frame("cluster", "setslot", str(FOO), "node", cl.ids[0]) == b"+OK\r\n"
    assert s.read_frame() == b"*3\r\n$12\r\nsunsubscribe\r\n$3\r\nfoo\r\n:0\r\n"
    assert keep.read_frame() == b"*3\r\n$12\r\nsunsubscribe\r\n$6\r\n{foo}x\r\n:1\r\n"
    assert s.call_frame("ping") == b"+PONG\r\n"  # out of the subscribed state
    assert RawClient(n1).call_frame("pubsub", "shardchannels") == b"*1\r\n$1\r\na\r\n"


def test_shard_channels_when_the_cluster_is_down(server_factory):
    cl = start_cluster(server_factory, ["ours"], cli=False)
    n = cl.nodes[0]
    c = RawClient(n)
    assert c.call_frame("cluster", "delslots", "0") == b"+OK\r\n"
    wait_for(lambda: cluster_info(n.client())["cluster_state"] == "fail", what="cluster_state:fail")
    assert c.call_frame("spublish", "foo", "x") == b":0\r\n"
    s = sub(n, "ssubscribe", "foo")
    assert s.read_frame() == b"*3\r\n$10\r\nssubscribe\r\n$3\r\nfoo\r\n:1\r\n"
    assert c.call_frame("config", "set", "cluster-allow-pubsubshard-when-down", "no") == b"+OK\r\n"
    assert c.call_frame("spublish", "foo", "x") == b"-CLUSTERDOWN The cluster is down\r\n"
    assert RawClient(n).call_frame("ssubscribe", "foo") == b"-CLUSTERDOWN The cluster is down\r\n"
    # Plain channels have no slot: served down or not.
    assert c.call_frame("publish", "foo", "x") == b":0\r\n"


def test_an_open_slot_keeps_its_shard_channels_on_the_owner(server_factory):
    """A slot MIGRATING/IMPORTING: its channels stay with the owner (no ASK,
    whatever keys it still holds), the importing node redirects them to it
    (MOVED), until SETSLOT NODE moves the slot."""
    cl = start_cluster(server_factory, ["ours", "ours"], cli=False)
    n0, n1 = cl.nodes
    c0, c1 = RawClient(n0), RawClient(n1)
    assert c1.call_frame("cluster", "setslot", str(FOO), "migrating", cl.ids[0]) == b"+OK\r\n"
    assert c0.call_frame("cluster", "setslot", str(FOO), "importing", cl.ids[1]) == b"+OK\r\n"
    s = sub(n1, "ssubscribe", "foo")
    assert s.read_frame() == b"*3\r\n$10\r\nssubscribe\r\n$3\r\nfoo\r\n:1\r\n"
    assert c1.call_frame("spublish", "foo", "hi") == b":1\r\n"
    assert s.read_frame() == b"*3\r\n$8\r\nsmessage\r\n$3\r\nfoo\r\n$2\r\nhi\r\n"
    assert c1.call_frame("set", "foo", "1") == b"-ASK %d 127.0.0.1:%d\r\n" % (FOO, n0.port)  # keys do move
    assert c0.call_frame("spublish", "foo", "x") == b"-MOVED %d 127.0.0.1:%d\r\n" % (FOO, n1.port)
    assert c1.call_frame("cluster", "setslot", str(FOO), "node", cl.ids[0]) == b"+OK\r\n"
    assert s.read_frame() == b"*3\r\n$12\r\nsunsubscribe\r\n$3\r\nfoo\r\n:0\r\n"
