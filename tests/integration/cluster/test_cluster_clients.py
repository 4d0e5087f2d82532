"""Cluster clients against a cluster of 3 masters and 3 replicas: redis-py's
RedisCluster (Debian's python3-redis) reading and writing, pub/sub across
the bus, sharded pub/sub (SPUBLISH sent to the channel's shard) and
surviving a master's kill -9 mid-run; node-redis's createCluster (Debian's
node-redis; its script in cluster/libraries/) and ioredis's Cluster (not
packaged by Debian: skipped unless installed where node finds it). Redis
behaviour: these pass on the reference too."""
import os
import shutil
import subprocess
import time

import pytest

from resp_raw import RawClient
from support import cluster_info, redis_cluster, start_cluster, wait_for

pytest.importorskip("redis.cluster")

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_PATH = "/usr/share/nodejs"


@pytest.fixture
def six(server_factory):
    return start_cluster(server_factory, ["ours"] * 6, replicas=1, node_timeout=1000)


def test_redis_py_pubsub_and_sharded_pubsub(six):
    rc = redis_cluster(six.nodes[1])
    try:
        # PUBLISH on any node reaches a subscriber on any other, over the bus.
        sub = RawClient(six.nodes[4])
        assert sub.call("subscribe", "news") == [b"subscribe", b"news", 1]
        rc.publish("news", "hello")  # its count: the receivers on the node that ran it
        assert sub.read(timeout=5) == [b"message", b"news", b"hello"]
        # SPUBLISH goes to the channel's shard (redis-py 4.3 sees no key in
        # it: the application names the channel's node).
        slot = rc.keyslot("{u}ch")
        shard = rc.get_node_from_key("{u}ch")
        owner = six.owner_of(slot)
        ssub = RawClient(six.nodes[owner])
        assert ssub.call("ssubscribe", "{u}ch") == [b"ssubscribe", b"{u}ch", 1]
        # A subscriber on the master's replica gets it too (the shard's nodes;
        # subscribed first: the bus carries a message to it later than here).
        rsub = RawClient(six.nodes[owner + 3])
        assert rsub.call("ssubscribe", "{u}ch") == [b"ssubscribe", b"{u}ch", 1]
        assert rc.execute_command("SPUBLISH", "{u}ch", "hi", target_nodes=shard) == 1
        assert ssub.read(timeout=5) == [b"smessage", b"{u}ch", b"hi"]
        assert rsub.read(timeout=5) == [b"smessage", b"{u}ch", b"hi"]
        # Elsewhere the channel's slot is not served: MOVED to the owner.
        other = RawClient(six.nodes[(owner + 1) % 3])
        assert other.call_frame("ssubscribe", "{u}ch") == b"-MOVED %d 127.0.0.1:%d\r\n" % (
            slot, six.nodes[owner].port)
    finally:
        rc.close()


def test_redis_py_survives_a_failover(six):
    rc = redis_cluster(six.nodes[1])  # its seed stays up
    try:
        for i in range(300):
            assert rc.set("k:%d" % i, i)
        victim, heir = six.nodes[0], six.nodes[3]
        wait_for(lambda: heir.client().dbsize() == victim.client().dbsize(), what="the replica's copy")
        victim.kill()
        # The client keeps going: errors while the slots have no master, then
        # every write accepted again once the replica is promoted.
        ok_after, errors, deadline = 0, 0, time.time() + 30
        i = 300
        while ok_after < 200 and time.time() < deadline:
            try:
                rc.set("k:%d" % i, i)
                if heir.client().info("replication")["role"] == "master":
                    ok_after += 1
            except Exception:
                errors += 1
                time.sleep(0.05)
            i += 1
        assert ok_after == 200, (ok_after, errors)
        wait_for(lambda: cluster_info(six.nodes[1].client())["cluster_state"] == "ok", what="cluster_state:ok")
        # What was written before the kill was replicated: all of it is read back.
        assert all(rc.get("k:%d" % j) == str(j) for j in range(300))
        assert rc.mget("{t}a", "{t}b") == [None, None]
    finally:
        rc.close()


def run_node(script, port):
    out = subprocess.run(["node", os.path.join(HERE, "libraries", script), str(port)],
                         env=dict(os.environ, NODE_PATH=NODE_PATH), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


@pytest.mark.skipif(not shutil.which("node") or not os.path.isdir(os.path.join(NODE_PATH, "redis")),
                    reason="nodejs and node-redis (Debian packages nodejs, node-redis) are not installed")
def test_node_redis_create_cluster(six):
    assert run_node("node_redis_cluster.js", six.nodes[0].port) == [
        "200", '["1","2",null]', '[1,2,"1"]', "0", "0"]
    # The writes are spread over the three masters.
    assert all(n.client().dbsize() for n in six.nodes[:3])


def ioredis_installed():
    if not shutil.which("node"):
        return False
    p = subprocess.run(["node", "-e", "require.resolve('ioredis')"], env=dict(os.environ, NODE_PATH=NODE_PATH),
                       capture_output=True)
    return p.returncode == 0


@pytest.mark.skipif(not ioredis_installed(), reason="ioredis (npm only, not a Debian package) is not installed")
def test_ioredis_cluster(six):
    assert run_node("ioredis_cluster.js", six.nodes[0].port) == [
        "200", '["1","2",null]', '[[null,1],[null,2],[null,"1"]]', "0", "0"]
    assert all(n.client().dbsize() for n in six.nodes[:3])
