"""Cluster clients against a cluster of 3 masters and 3 replicas: redis-py's
RedisCluster (Debian's python3-redis) reading and writing, pub/sub across
the bus, sharded pub/sub (SPUBLISH sent to the channel's shard) and
surviving a master's kill -9 mid-run; node-redis's createCluster (Debian's
node-redis; its script in cluster/libraries/) and ioredis's Cluster (npm
only: deps/install.sh installs it from tests/node's lock file, and without it
its test is skipped), each through a master's kill -9 mid-run. Redis
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


NODE_MODULES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "node", "node_modules")
NODE_ENV = dict(os.environ, NODE_PATH=NODE_PATH + os.pathsep + NODE_MODULES)


def run_node_through_a_failover(six, script, *args):
    """Runs a node client's script (cluster/libraries/) until it prints
    "ready", kills master 0 with kill -9, tells the script to go on, and
    returns every line it printed but "ready"."""
    p = subprocess.Popen(["node", os.path.join(HERE, "libraries", script), str(six.nodes[1].port)] + [str(a) for a in args],
                         env=NODE_ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while True:
            line = p.stdout.readline()
            assert line, p.stderr.read() if p.poll() is not None else "no output"
            if line.strip() == "ready":
                break
            lines.append(line.strip())
        victim, heir = six.nodes[0], six.nodes[3]
        wait_for(lambda: heir.client().dbsize() == victim.client().dbsize(), what="the replica's copy")
        victim.kill()
        p.stdin.write("go\n")
        p.stdin.flush()
        out, err = p.communicate(timeout=90)
        assert p.returncode == 0, err
        assert heir.client().info("replication")["role"] == "master"
        return lines + out.splitlines()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def node_module(name):
    if not shutil.which("node"):
        return False
    p = subprocess.run(["node", "-e", "require.resolve('%s')" % name], env=NODE_ENV, capture_output=True)
    return p.returncode == 0


@pytest.mark.skipif(not node_module("redis"),
                    reason="nodejs and node-redis (Debian packages nodejs, node-redis) are not installed")
def test_node_redis_create_cluster_through_a_failover(six):
    # Reads, writes, MGET by hash tag, MULTI, PUBLISH to a subscriber on
    # another node, SPUBLISH (no receiver); then a master killed mid-run: 200
    # more writes acknowledged and every acknowledged write read back.
    assert run_node_through_a_failover(six, "node_redis_cluster.js", six.nodes[4].port) == [
        "200", '["1","2",null]', '[1,2,"1"]', "news hello", "0", "200", "400"]
    assert all(n.client().dbsize() for n in six.nodes[1:3])


@pytest.mark.skipif(not node_module("ioredis"),
                    reason="ioredis (npm only: deps/install.sh installs tests/node's lock file) is not installed")
def test_ioredis_cluster_through_a_failover(six):
    # The same with ioredis, whose cluster also subscribes (a subscriber and
    # a sharded subscriber on the channel's shard).
    assert run_node_through_a_failover(six, "ioredis_cluster.js") == [
        "200", '["1","2",null]', '[[null,1],[null,2],[null,"1"]]', "news hello", "1", "{u}ch hi", "200", "400"]
    assert all(n.client().dbsize() for n in six.nodes[1:3])
