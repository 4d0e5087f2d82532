"""Mixed clusters of our nodes and Redis 7.0.15's (Debian's redis-server):
created by `redis-cli --cluster create` with our masters and the
reference's replicas, and the other way round; `--cluster check` is clean,
and redis-py's RedisCluster writes and reads through them (MGET with hash
tags, pipelines). redis-cli's reshard, add-node, rebalance, fix and
del-node run while a client writes, and no acknowledged write is lost;
kill -9 of a master of either kind promotes its replica of the other kind,
and the restarted node comes back as a replica. Under REFERENCE=1 both
kinds are the reference."""
import subprocess
import threading

import pytest

from support import (REDIS_CLI, cluster_info, free_cluster_port, redis_cluster, server_binary, start_cluster,
                     wait_for)

pytest.importorskip("redis.cluster")

MIXES = [("ours", "reference"), ("reference", "ours")]


def cli(*args, timeout=60):
    p = subprocess.run([REDIS_CLI, "--cluster", *args], capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode() + p.stderr.decode()


def addr(node):
    return "%s:%d" % (node.host, node.port)


def cluster_check(node):
    return cli("check", addr(node), timeout=30)


def assert_clean(node):
    """`--cluster check` clean, once what the last command changed has spread
    over the bus (every node agrees), within 20 s."""
    wait_for(lambda: cluster_check(node)[0] == 0, timeout=20, interval=0.2, what="a clean --cluster check")
    rc, out = cluster_check(node)
    assert rc == 0, out
    assert "[OK] All nodes agree about slots configuration." in out
    assert "[OK] All 16384 slots covered." in out
    assert "[WARNING]" not in out and "[ERR]" not in out, out


def binaries(*nodes):
    return [n.cmd[0] for n in nodes]


def cluster_client(cl, seed=0):
    return redis_cluster(cl.nodes[seed])


@pytest.mark.parametrize("masters,replicas", MIXES)
def test_mixed_cluster_serves_a_cluster_client(server_factory, masters, replicas):
    cl = start_cluster(server_factory, [masters] * 3 + [replicas] * 3, replicas=1)
    # redis-cli made the first three the masters: each kind is on the side asked.
    assert binaries(*cl.nodes) == [server_binary(masters)] * 3 + [server_binary(replicas)] * 3
    assert_clean(cl.nodes[0])
    rc_ = cluster_client(cl)
    try:
        for i in range(300):
            assert rc_.set("key:%d" % i, "v%d" % i)
        assert all(rc_.get("key:%d" % i) == "v%d" % i for i in range(300))
        # Hash tags keep keys together: one MGET, one MSET.
        rc_.mset({"{user1}:a": "1", "{user1}:b": "2", "{user1}:c": "3"})
        assert rc_.mget("{user1}:a", "{user1}:b", "{user1}:c") == ["1", "2", "3"]
        # A pipeline across slots (redis-py splits it by node).
        pipe = rc_.pipeline()
        for i in range(100):
            pipe.incr("counter:%d" % i)
        assert pipe.execute() == [1] * 100
        pipe = rc_.pipeline()
        for i in range(100):
            pipe.get("counter:%d" % i)
        assert pipe.execute() == ["1"] * 100
        # Every master holds part of the keys, and its replica the same number.
        counts = [n.client().dbsize() for n in cl.nodes]
        assert all(counts[:3]), counts
        assert sum(counts[:3]) == 300 + 3 + 100
        for m in range(3):
            wait_for(lambda: cl.nodes[3 + m].client().dbsize() == counts[m], what="the replica's copy")
    finally:
        rc_.close()


class Writer(threading.Thread):
    """Writes key:<n> = <n> through RedisCluster until stopped; `acked`
    holds every n whose SET was answered OK."""

    def __init__(self, cl, seed=0):
        super().__init__(daemon=True)
        self.client = cluster_client(cl, seed)
        self.acked, self.errors = [], []
        self.stopping = threading.Event()

    def run(self):
        n = 0
        while not self.stopping.is_set():
            try:
                if self.client.set("key:%d" % n, str(n)):
                    self.acked.append(n)
            except Exception as e:  # counted; the test says how many it allows
                self.errors.append(repr(e))
            n += 1

    def stop(self):
        self.stopping.set()
        self.join(30)
        assert not self.is_alive()

    def check(self, reader):
        missing = [n for n in self.acked if reader.get("key:%d" % n) != str(n)]
        assert not missing, "%d acknowledged writes lost, e.g. %s" % (len(missing), missing[:10])


def slots_owned(server):
    """{master id: how many slots} as server's CLUSTER SLOTS says."""
    owned = {}
    for rng in server.client().execute_command("CLUSTER", "SLOTS"):
        nid = rng[2][2].decode()
        owned[nid] = owned.get(nid, 0) + rng[1] - rng[0] + 1
    return owned


def node_id(server):
    return server.client(decode_responses=True).execute_command("CLUSTER", "MYID")


@pytest.mark.parametrize("masters,replicas", MIXES)
def test_reshard_add_rebalance_fix_del_while_writing(server_factory, masters, replicas):
    cl = start_cluster(server_factory, [masters] * 3 + [replicas] * 3, replicas=1, node_timeout=2000)
    writer = Writer(cl)
    writer.start()
    try:
        wait_for(lambda: len(writer.acked) > 200, what="the writer to start")
        m0, m1 = cl.nodes[:2]
        # reshard: 500 slots from the first master to the second.
        rc, out = cli("reshard", addr(m0), "--cluster-from", cl.ids[0], "--cluster-to", cl.ids[1],
                      "--cluster-slots", "500", "--cluster-yes")
        assert rc == 0, out
        assert_clean(m0)
        # add-node: an empty master of the replicas' kind.
        new = server_factory("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                             "--cluster-node-timeout", "2000", binary=server_binary(replicas),
                             pick_port=free_cluster_port)
        rc, out = cli("add-node", addr(new), addr(m0))
        assert rc == 0, out
        wait_for(lambda: all(cluster_info(n.client())["cluster_known_nodes"] == "7" for n in cl.nodes + [new]),
                 timeout=20, interval=0.1, what="every node to know the new one")
        wait_for(lambda: cluster_info(new.client())["cluster_state"] == "ok", timeout=20, interval=0.1,
                 what="the new node's cluster_state:ok")
        # reshard onto the new node, then rebalance: the first two masters even again.
        new_id = node_id(new)
        rc, out = cli("reshard", addr(m0), "--cluster-from", cl.ids[1], "--cluster-to", new_id,
                      "--cluster-slots", "300", "--cluster-yes")
        assert rc == 0, out
        assert_clean(m0)  # rebalance checks first that every node agrees
        rc, out = cli("rebalance", addr(m0), "--cluster-weight", "%s=0.1" % new_id, "--cluster-yes")
        assert rc == 0, out
        owned = slots_owned(m0)
        assert abs(owned[cl.ids[0]] - owned[cl.ids[1]]) < 200 and 0 < owned[new_id] <= 600, owned
        wait_for(lambda: cluster_check(m0)[0] == 0, timeout=20, interval=0.2, what="a clean check")
        assert_clean(m0)
        # fix: a slot left half-migrated (MIGRATING on its owner, IMPORTING on another, keys in it).
        slot = int(m0.client().execute_command("CLUSTER", "KEYSLOT", "key:0"))
        owner = [n for n in cl.nodes[:3] + [new] if n.client().execute_command("CLUSTER", "COUNTKEYSINSLOT", slot)
                 and n.client().info("replication")["role"] == "master"][0]
        other = [n for n in (m0, m1) if n is not owner][0]
        owner.client().execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", node_id(other))
        other.client().execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", node_id(owner))
        rc, out = cluster_check(m0)
        assert "[WARNING] Node %s has slots in migrating state %d." % (addr(owner), slot) in out, out
        rc, out = cli("fix", addr(m0))
        assert rc == 0, out
        wait_for(lambda: cluster_check(m0)[0] == 0, timeout=20, interval=0.2, what="a clean check after fix")
        assert_clean(m0)
        # del-node: the new master's slots resharded away, then the node removed.
        rc, out = cli("reshard", addr(m0), "--cluster-from", new_id, "--cluster-to", cl.ids[2],
                      "--cluster-slots", str(slots_owned(m0)[new_id]), "--cluster-yes")
        assert rc == 0, out
        assert new_id not in slots_owned(m0)
        wait_for(lambda: int(new.client().dbsize()) == 0, what="the new node emptied")
        rc, out = cli("del-node", addr(m0), new_id)
        assert rc == 0, out
        wait_for(lambda: all(cluster_info(n.client())["cluster_known_nodes"] == "6" for n in cl.nodes),
                 timeout=20, interval=0.1, what="every node to forget the deleted one")
        assert_clean(m0)
    finally:
        writer.stop()
    # Errors may come while slots move (a client retries), but writes went on,
    # and every acknowledged one is there.
    assert len(writer.acked) > 1000, (len(writer.acked), writer.errors[:5])
    assert len(writer.errors) < len(writer.acked) / 10, writer.errors[:5]
    reader = cluster_client(cl)
    try:
        writer.check(reader)
    finally:
        reader.close()
        writer.client.close()


@pytest.mark.parametrize("masters,replicas", MIXES)
def test_kill_a_master_promotes_its_replica(server_factory, masters, replicas):
    cl = start_cluster(server_factory, [masters] * 3 + [replicas] * 3, replicas=1, node_timeout=1000)
    victim, heir = cl.nodes[0], cl.nodes[3]  # nodes[3] follows nodes[0]
    victim_id, heir_id = cl.ids[0], cl.ids[3]
    assert binaries(victim, heir) == [server_binary(masters), server_binary(replicas)]
    rc_ = cluster_client(cl, seed=1)
    try:
        for i in range(200):
            rc_.set("k:%d" % i, i)
        slot_keys = int(victim.client().dbsize())
        wait_for(lambda: int(heir.client().dbsize()) == slot_keys, what="the replica's copy")
        victim.kill()
        others = cl.nodes[1:]
        wait_for(lambda: heir.client().info("replication")["role"] == "master", timeout=20, interval=0.1,
                 what="the replica to be promoted")
        wait_for(lambda: all(cluster_info(n.client())["cluster_state"] == "ok" for n in others), timeout=20,
                 interval=0.1, what="the cluster to be ok again")
        assert heir.client().dbsize() == slot_keys
        # The client finds the new master.
        assert all(rc_.get("k:%d" % i) == str(i) for i in range(200))
        assert rc_.set("after", "1")
        # The killed node, restarted, learns it lost its slots and follows the new master.
        victim.restart()
        wait_for(lambda: victim.client().info("replication")["role"] == "slave", timeout=20, interval=0.1,
                 what="the old master to come back as a replica")
        assert int(victim.client().info("replication")["master_port"]) == heir.port
        wait_for(lambda: all(cl.roles_seen(n).get(victim_id) == heir_id for n in cl.nodes), timeout=20,
                 interval=0.1, what="every node to see it as the new master's replica")
        wait_for(lambda: victim.client().dbsize() == heir.client().dbsize(), what="the old master to resync")
        wait_for(lambda: cluster_check(heir)[0] == 0, timeout=20, interval=0.2, what="a clean check")
        assert_clean(heir)
    finally:
        rc_.close()
