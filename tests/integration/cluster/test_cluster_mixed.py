"""Mixed clusters of our nodes and Redis 7.0.15's (Debian's redis-server):
created by `redis-cli --cluster create` with our masters and the
reference's replicas, and the other way round; `--cluster check` is clean,
and redis-py's RedisCluster writes and reads through them (MGET with hash
tags, pipelines). Under REFERENCE=1 both kinds are the reference."""
import subprocess

import pytest

from support import REDIS_CLI, start_cluster, wait_for

pytest.importorskip("redis.cluster")
from redis.cluster import ClusterNode, RedisCluster  # noqa: E402


def cluster_check(node):
    p = subprocess.run([REDIS_CLI, "--cluster", "check", "%s:%d" % (node.host, node.port)],
                       capture_output=True, timeout=30)
    return p.returncode, p.stdout.decode()


@pytest.mark.parametrize("masters,replicas", [("ours", "reference"), ("reference", "ours")])
def test_mixed_cluster_serves_a_cluster_client(server_factory, masters, replicas):
    cl = start_cluster(server_factory, [masters] * 3 + [replicas] * 3, replicas=1)
    rc, out = cluster_check(cl.nodes[0])
    assert rc == 0, out
    assert "[OK] All nodes agree about slots configuration." in out
    assert "[OK] All 16384 slots covered." in out
    assert "[WARNING]" not in out and "[ERR]" not in out, out
    rc_ = RedisCluster(startup_nodes=[ClusterNode(n.host, n.port) for n in cl.nodes[:1]], decode_responses=True)
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
