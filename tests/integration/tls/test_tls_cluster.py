"""The cluster bus over TLS (tls-cluster yes, issue 33): mixed clusters of our
nodes and the reference's whose bus and replication links are TLS; clients
sent to TLS ports or plain ones as they connected (MOVED, CLUSTER SLOTS,
NODES, SHARDS's port and tls-port); redis-py's RedisCluster over TLS; a
failover over the TLS bus; and a bus port that refuses a plaintext peer and
one without a certificate. Every test runs on the reference too."""
import socket
import ssl
import time

import pytest

from support import cluster_info, free_cluster_port, info, server_binary, start_cluster, tls_client, wait_for

pytest.importorskip("redis.cluster")
from redis.cluster import ClusterNode, RedisCluster  # noqa: E402

KINDS = [("ours", "reference"), ("reference", "ours")]


def moved_port(client, key):
    try:
        client.get(key)
    except Exception as e:  # redis-py raises its own error types for MOVED
        words = str(e).split()
        return int(words[-1].rsplit(":", 1)[1])
    return None


@pytest.mark.parametrize("masters,replicas", KINDS)
def test_tls_cluster_mixed_serves_tls_and_plain_clients_and_fails_over(server_factory, tls_certs, masters, replicas):
    cl = start_cluster(server_factory, [masters] * 3 + [replicas] * 3, replicas=1, tls=tls_certs)
    by_port = {n.port: n for n in cl.nodes}
    by_tls_port = {n.tls_port: n for n in cl.nodes}
    # What a client is told depends on how it came: plain ports for a plain one.
    plain, secure = cl.client(0), tls_client(cl.nodes[0], tls_certs)
    key = next("k%d" % i for i in range(1000) if cl.owner_of(int(plain.execute_command("CLUSTER", "KEYSLOT",
                                                                                      "k%d" % i))) != 0)
    owner = cl.nodes[cl.owner_of(int(plain.execute_command("CLUSTER", "KEYSLOT", key)))]
    assert by_port[moved_port(plain, key)] is owner
    assert by_tls_port[moved_port(secure, key)] is owner
    for c, ports in ((plain, by_port), (secure, by_tls_port)):
        for rng in c.execute_command("CLUSTER", "SLOTS"):
            assert all(n[1] in ports for n in rng[2:])
        lines = c.execute_command("CLUSTER", "NODES").decode().splitlines()
        assert {int(line.split()[1].split("@")[0].rsplit(":", 1)[1]) for line in lines} == set(ports)
    # SHARDS names both ports of every node, and the bus (10000 above the TLS port).
    for shard in plain.execute_command("CLUSTER", "SHARDS"):
        for node in dict(zip(shard[::2], shard[1::2]))[b"nodes"]:
            fields = dict(zip(node[::2], node[1::2]))
            n = by_port[fields[b"port"]]
            assert fields[b"tls-port"] == n.tls_port
    for line in plain.execute_command("CLUSTER", "NODES").decode().splitlines():
        addr = line.split()[1]
        n = by_port[int(addr.split("@")[0].rsplit(":", 1)[1])]
        assert int(addr.split("@")[1].split(",")[0]) == n.tls_port + 10000
    assert cluster_info(plain)["cluster_state"] == "ok"

    # A cluster client over TLS: writes land on their masters and reach the replicas over TLS.
    rc = RedisCluster(startup_nodes=[ClusterNode(cl.nodes[0].host, cl.nodes[0].tls_port)],
                      decode_responses=True, **tls_certs.client_kwargs())
    for i in range(300):
        rc.set("key:%d" % i, i)
    assert [rc.get("key:%d" % i) for i in range(0, 300, 37)] == [str(i) for i in range(0, 300, 37)]
    assert rc.mget(["{t}a", "{t}b"]) == [None, None]
    for j in range(3, 6):
        r = cl.client(j)
        wait_for(lambda: info(r)["master_link_status"] == "up", what="replica link over TLS")
    wait_for(lambda: sum(cl.client(j).dbsize() for j in range(3, 6)) == 300, what="the writes on the replicas")

    # A master killed: its replica is elected over the TLS bus and takes writes.
    victim, heir = cl.nodes[0], cl.nodes[3]
    mine = next("w%d" % i for i in range(1000)
                if cl.owner_of(int(plain.execute_command("CLUSTER", "KEYSLOT", "w%d" % i))) == 0)
    victim.kill()
    wait_for(lambda: info(heir.client())["role"] == "master", timeout=30, what="the replica promoted")
    h = heir.client()
    wait_for(lambda: cluster_info(h)["cluster_state"] == "ok", timeout=30, what="the cluster ok again")
    wait_for(lambda: _writes(h, mine), timeout=15, what="writes on the new master")
    assert h.get(mine) == b"after"


def _writes(client, key):
    try:
        return client.set(key, "after")
    except Exception:
        return False


@pytest.mark.parametrize("kind", ["ours", "reference"])
def test_tls_cluster_bus_refuses_plaintext_and_certless_peers(server_factory, tls_certs, kind):
    tls_port = free_cluster_port()
    node = server_factory("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--loglevel", "verbose",
                          "--tls-port", str(tls_port), "--tls-cluster", "yes", *tls_certs.server_args(),
                          binary=server_binary(kind), pick_port=free_cluster_port)
    bus = tls_port + 10000
    # A plaintext peer: the handshake fails, the connection is closed.
    with socket.create_connection(("127.0.0.1", bus), timeout=5) as s:
        s.sendall(b"RCmb" + b"\0" * 4000)
        s.settimeout(5)
        try:
            while s.recv(4096):
                pass
        except ConnectionResetError:
            pass
    # A TLS peer without a certificate: refused whatever tls-auth-clients says.
    ctx = ssl.create_default_context(cafile=tls_certs.path("ca.crt"))
    ctx.check_hostname = False
    with pytest.raises((ssl.SSLError, ConnectionResetError, BrokenPipeError, OSError)):
        with socket.create_connection(("127.0.0.1", bus), timeout=5) as raw:
            with ctx.wrap_socket(raw) as s:
                s.sendall(b"RCmb" + b"\0" * 4000)
                s.settimeout(5)
                if not s.recv(1):
                    raise ConnectionResetError("closed")
    wait_for(lambda: node.log().count("Error accepting cluster node connection:") >= 2,
             what="the bus's refusal lines")
    c = node.client()
    assert c.ping()
    assert cluster_info(c)["cluster_known_nodes"] == "1"
    time.sleep(0.1)
    assert node.proc.poll() is None
