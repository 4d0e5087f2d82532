"""The 0MQ expiry push (our own feature, EXPIRY_0MQ.md "In a Redis Cluster")
in a cluster of our nodes: each node binds its own endpoint; each master
pushes the expired keys of its own slots, so a key is pushed once across the
cluster and never by a replica; after a failover the promoted replica pushes
its new slots' keys; keys that leave a node without expiring (MIGRATE, a
slot taken over by another node) are not pushed by it."""
import struct
import time

import pytest

from support import start_cluster, wait_for

pytestmark = pytest.mark.ours

PUSH_ARGS = ("--zmq-expiry-endpoint", "tcp://127.0.0.1:*")


def endpoint(node):
    return node.client(decode_responses=True).info("expiry_push")["expiry_push_bound_endpoints"]


def key_of(message):
    """The key of a pushed message (frame 2: uint32 length + key)."""
    (n,) = struct.unpack("=I", message[1][:4])
    return message[1][4:4 + n]


def drain(consumer, wait=0.5):
    """Every message that arrives until none has come for `wait` seconds: their keys."""
    keys = []
    while consumer.sock.poll(int(wait * 1000)):
        keys.append(key_of(consumer.sock.recv_multipart()))
    return keys


def slot_of(cl, key):
    return int(cl.nodes[0].client().execute_command("CLUSTER", "KEYSLOT", key))


def keys_for(cl, owner, count, prefix):
    """count key names whose slots the master cl.nodes[owner] serves."""
    out, i = [], 0
    while len(out) < count:
        k = "%s:%d" % (prefix, i)
        if cl.owner_of(slot_of(cl, k)) == owner:
            out.append(k)
        i += 1
    return out


@pytest.fixture
def pushing(server_factory, zctx):
    """Two masters and their replicas, each node with its own endpoint and a
    consumer of its own (consumers[i] reads cl.nodes[i])."""
    cl = start_cluster(server_factory, ["ours"] * 4, replicas=1, node_timeout=1000, args=PUSH_ARGS, cli=False)
    consumers = [zctx.consumer(endpoint(n)) for n in cl.nodes]
    time.sleep(0.2)  # the consumers' connections are made
    return cl, consumers


def test_each_master_pushes_its_own_keys_once(pushing):
    cl, consumers = pushing
    mine = [keys_for(cl, m, 40, "k") for m in range(2)]
    for m in range(2):
        c = cl.client(m)
        for k in mine[m]:
            c.set(k, "v", px=300)
    for m in range(2):
        wait_for(lambda: cl.client(m).dbsize() == 0, what="the keys to expire")
    got = [sorted(drain(c)) for c in consumers]
    assert got[0] == sorted(k.encode() for k in mine[0])
    assert got[1] == sorted(k.encode() for k in mine[1])
    # The replicas got the DELs and pushed nothing.
    assert got[2] == [] and got[3] == []
    for r in cl.nodes[2:]:
        assert r.client().dbsize() == 0


def test_the_promoted_replica_pushes(server_factory, zctx):
    # Three masters, so that two make the majority that fails the third.
    cl = start_cluster(server_factory, ["ours"] * 6, replicas=1, node_timeout=1000, args=PUSH_ARGS)
    consumers = [zctx.consumer(endpoint(n)) for n in cl.nodes]
    m0, r0 = cl.nodes[0], cl.nodes[3]  # nodes[3] follows nodes[0]
    keys = keys_for(cl, 0, 20, "f")
    for k in keys[:10]:
        m0.client().set(k, "v", px=60000)
    wait_for(lambda: r0.client().dbsize() == 10, what="the replica's copy")
    m0.kill()
    wait_for(lambda: r0.client().info("replication")["role"] == "master", timeout=20, interval=0.1,
             what="the replica to be promoted")
    wait_for(lambda: cl.nodes[1].client(decode_responses=True).execute_command("CLUSTER", "INFO")
             .startswith("cluster_state:ok"), timeout=20, interval=0.1, what="cluster_state:ok")
    c = r0.client()
    for k in keys[:10]:
        c.pexpire(k, 100)
    for k in keys[10:]:
        c.set(k, "v", px=100)
    wait_for(lambda: c.dbsize() == 0, what="the keys to expire on the new master")
    assert sorted(drain(consumers[3])) == sorted(k.encode() for k in keys)
    assert all(drain(consumers[i], 0.1) == [] for i in (1, 2, 4, 5))


def volatile_slot(cl, tag, count, px):
    """count keys {tag}0.. with a TTL of px ms, set on the master serving
    the tag's slot: (slot, that master's index, the other's, the keys)."""
    slot = slot_of(cl, "{%s}" % tag)
    src = cl.owner_of(slot)
    keys = ["{%s}%d" % (tag, i) for i in range(count)]
    for k in keys:
        cl.client(src).set(k, "v", px=px)
    return slot, src, 1 - src, keys


def move_slot(cl, slot, src, dst, keys):
    a, b = cl.client(src), cl.client(dst)
    b.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", cl.ids[src])
    a.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", cl.ids[dst])
    assert a.execute_command("MIGRATE", "127.0.0.1", cl.nodes[dst].port, "", 0, 5000, "KEYS", *keys) in (b"OK", True)
    for c in (b, a):
        c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", cl.ids[dst])


def test_migrated_keys_are_pushed_where_they_expire(pushing):
    cl, consumers = pushing
    slot, src, dst, keys = volatile_slot(cl, "m", 10, 1500)
    move_slot(cl, slot, src, dst, keys)
    assert cl.client(src).dbsize() == 0 and cl.client(dst).dbsize() == 10
    wait_for(lambda: cl.client(dst).dbsize() == 0, what="the keys to expire where they went")
    assert sorted(drain(consumers[dst])) == sorted(k.encode() for k in keys)
    assert drain(consumers[src], 0.1) == []
    assert drain(consumers[2], 0.1) == [] and drain(consumers[3], 0.1) == []


def test_keys_of_a_slot_taken_over_are_not_pushed(pushing):
    cl, consumers = pushing
    slot, src, dst, keys = volatile_slot(cl, "t", 10, 3000)
    # The other master claims the slot on its own (a higher epoch): the old
    # owner drops the slot's keys as deleted, not expired.
    cl.client(dst).execute_command("CLUSTER", "SETSLOT", slot, "NODE", cl.ids[dst])
    cl.client(dst).execute_command("CLUSTER", "BUMPEPOCH")
    wait_for(lambda: cl.client(src).execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 0, interval=0.05,
             what="the old owner to drop the slot's keys")
    time.sleep(3.2)
    assert all(drain(c, 0.2) == [] for c in consumers)


def test_flushslots_and_delslots_push_nothing(pushing):
    cl, consumers = pushing
    m = 0
    keys = keys_for(cl, m, 5, "d")
    c = cl.client(m)
    for k in keys:
        c.set(k, "v", px=60000)
    # FLUSHSLOTS refuses a node with keys; emptied by FLUSHALL, nothing is pushed.
    with pytest.raises(Exception, match="DB must be empty"):
        c.execute_command("CLUSTER", "FLUSHSLOTS")
    c.flushall()
    assert c.execute_command("CLUSTER", "FLUSHSLOTS") in (b"OK", True)
    assert drain(consumers[m], 0.3) == []
    assert all(drain(x, 0.1) == [] for x in consumers)


def test_keys_left_in_a_slot_served_elsewhere_are_not_pushed(pushing):
    """DELSLOTS keeps the keys (as Redis does); once another master serves
    the slot they are stale copies: they expire here but are not pushed."""
    cl, consumers = pushing
    slot, src, dst, keys = volatile_slot(cl, "o", 5, 2500)
    for i in (src, dst):
        cl.client(i).execute_command("CLUSTER", "DELSLOTS", slot)
    cl.client(dst).execute_command("CLUSTER", "ADDSLOTS", slot)
    wait_for(lambda: [r for r in cl.client(src).execute_command("CLUSTER", "SLOTS")
                      if r[0] <= slot <= r[1] and r[2][2].decode() == cl.ids[dst]], what="src to see the new owner")
    assert cl.client(src).execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 5
    wait_for(lambda: cl.client(src).dbsize() == 0, timeout=15, what="the stale keys to expire")
    assert int(cl.client(src).info("stats")["expired_keys"]) == 5
    assert all(drain(c, 0.2) == [] for c in consumers)
