"""The cluster-* directives: their defaults in CONFIG GET, CONFIG SET where
Redis 7.0 allows it (and its error texts where it does not), nodes.conf
(locked against a second node, replaced whole by each save, a broken one
stopping start-up), the announced address, ports and hostname as CLUSTER
NODES, SLOTS and SHARDS show them, and cluster-preferred-endpoint-type in
MOVED and CLUSTER SLOTS. Redis behaviour, checked on the reference too,
except where marked ours."""
import os

import pytest

from resp_raw import RawClient
from support import REFERENCE, free_cluster_port, refuses_to_start, start_cluster, wait_for

CLUSTER_ARGS = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
FOO = 12182  # CLUSTER KEYSLOT foo

DEFAULTS = {
    "cluster-enabled": "yes",
    "cluster-config-file": "nodes.conf",
    "cluster-node-timeout": "15000",
    "cluster-port": "0",
    "cluster-announce-ip": "",
    "cluster-announce-hostname": "",
    "cluster-announce-port": "0",
    "cluster-announce-bus-port": "0",
    "cluster-announce-tls-port": "0",
    "cluster-preferred-endpoint-type": "ip",
    "cluster-require-full-coverage": "yes",
    "cluster-allow-reads-when-down": "no",
    "cluster-allow-pubsubshard-when-down": "yes",
    "cluster-replica-validity-factor": "10",
    "cluster-slave-validity-factor": "10",
    "cluster-migration-barrier": "1",
    "cluster-allow-replica-migration": "yes",
    "cluster-replica-no-failover": "no",
    "cluster-slave-no-failover": "no",
    "cluster-link-sendbuf-limit": "0",
}


def set_error(name, why):
    return "-ERR CONFIG SET failed (possibly related to argument '%s') - %s\r\n" % (name, why)


def node(server_factory, *args, **kw):
    return server_factory(*CLUSTER_ARGS, *args, pick_port=free_cluster_port, **kw)


def test_defaults(server_factory):
    s = node(server_factory)
    assert s.client(decode_responses=True).config_get("cluster-*") == DEFAULTS
    plain = server_factory()
    assert plain.client(decode_responses=True).config_get("cluster-enabled") == {"cluster-enabled": "no"}


def test_config_set(server_factory):
    s = node(server_factory)
    c = RawClient(s)
    for name in ("cluster-enabled", "cluster-config-file", "cluster-port"):
        assert c.call_frame("config", "set", name, "1").decode() == set_error(name, "can't set immutable config")
    accepted = {
        "cluster-node-timeout": "1234",
        "cluster-announce-ip": "10.0.0.1",
        "cluster-announce-hostname": "node-1.example",
        "cluster-announce-port": "7001",
        "cluster-announce-bus-port": "17001",
        "cluster-announce-tls-port": "7101",
        "cluster-preferred-endpoint-type": "unknown-endpoint",
        "cluster-require-full-coverage": "no",
        "cluster-allow-reads-when-down": "yes",
        "cluster-allow-pubsubshard-when-down": "no",
        "cluster-replica-validity-factor": "5",
        "cluster-migration-barrier": "2",
        "cluster-allow-replica-migration": "no",
        "cluster-replica-no-failover": "yes",
        "cluster-link-sendbuf-limit": "1mb",
    }
    for name, value in accepted.items():
        assert c.call_frame("config", "set", name, value) == b"+OK\r\n", name
    got = s.client(decode_responses=True).config_get("cluster-*")
    want = dict(DEFAULTS, **accepted)
    want.update({"cluster-link-sendbuf-limit": "1048576",
                 "cluster-slave-validity-factor": "5", "cluster-slave-no-failover": "yes"})
    assert got == want
    # The old names are aliases, both ways.
    assert c.call_frame("config", "set", "cluster-slave-validity-factor", "7") == b"+OK\r\n"
    assert c.call_frame("config", "set", "cluster-slave-no-failover", "no") == b"+OK\r\n"
    assert s.client(decode_responses=True).config_get("cluster-replica-*") == {
        "cluster-replica-validity-factor": "7", "cluster-replica-no-failover": "no"}
    refused = [
        ("cluster-node-timeout", "x", "argument couldn't be parsed into an integer"),
        ("cluster-node-timeout", "-1", "argument must be between 0 and 9223372036854775807 inclusive"),
        ("cluster-announce-port", "65536", "argument must be between 0 and 65535 inclusive"),
        ("cluster-announce-bus-port", "-1", "argument must be between 0 and 65535 inclusive"),
        ("cluster-announce-tls-port", "70000", "argument must be between 0 and 65535 inclusive"),
        ("cluster-announce-hostname", "bad_host!",
         "Hostnames may only contain alphanumeric characters, hyphens or dots"),
        ("cluster-preferred-endpoint-type", "dns",
         "argument(s) must be one of the following: ip, hostname, unknown-endpoint"),
        ("cluster-require-full-coverage", "maybe", "argument must be 'yes' or 'no'"),
        ("cluster-replica-validity-factor", "-1", "argument must be between 0 and 2147483647 inclusive"),
        ("cluster-migration-barrier", "-1", "argument must be between 0 and 2147483647 inclusive"),
        ("cluster-link-sendbuf-limit", "-1", "argument must be a memory value"),
    ]
    for name, value, why in refused:
        assert c.call_frame("config", "set", name, value).decode() == set_error(name, why), (name, value)
    # A refused value leaves the old one.
    assert s.client(decode_responses=True).config_get("cluster-node-timeout") == {"cluster-node-timeout": "1234"}
    assert c.call_frame("config", "set", "cluster-announce-hostname", "") == b"+OK\r\n"
    assert s.client(decode_responses=True).config_get("cluster-announce-hostname") == {
        "cluster-announce-hostname": ""}


@pytest.mark.server_exits
def test_config_file_is_locked(server_factory):
    first = node(server_factory)
    c = first.client()
    # After a save too: the lock follows the file the node writes.
    assert c.execute_command("CLUSTER", "ADDSLOTS", 1) in (b"OK", True)
    assert c.execute_command("CLUSTER", "SAVECONFIG") in (b"OK", True)
    e = refuses_to_start(lambda: node(server_factory, "--dir", first.dir))
    assert "Sorry, the cluster configuration file nodes.conf is already used by a different Redis Cluster " \
           "node. Please make sure that different nodes use different cluster configuration files." in e.text
    # The first node is untouched: still itself, still serving.
    assert c.execute_command("CLUSTER", "COUNTKEYSINSLOT", 1) == 0
    assert "myself" in c.execute_command("CLUSTER", "NODES").decode()


def nodes_conf(server):
    with open(os.path.join(server.dir, "nodes.conf")) as f:
        return f.read()


def test_config_file_content(server_factory):
    s = node(server_factory)
    c = s.client(decode_responses=True)
    myid = c.execute_command("CLUSTER", "MYID")
    c.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 99)
    c.execute_command("CLUSTER", "BUMPEPOCH")
    assert c.execute_command("CLUSTER", "SAVECONFIG") in ("OK", True)
    lines = nodes_conf(s).splitlines()
    assert lines[-1] == "vars currentEpoch 1 lastVoteEpoch 0"
    mine = [line for line in lines if line.startswith(myid)]
    assert len(mine) == 1 and " myself,master - 0 0 1 connected 0-99" in mine[0], lines
    # Restarted, the node is the same one with the same slots and epochs.
    s.restart()
    c = s.client(decode_responses=True)
    assert c.execute_command("CLUSTER", "MYID") == myid
    info = c.execute_command("CLUSTER", "INFO")
    assert "cluster_current_epoch:1\r\n" in info and "cluster_slots_assigned:100\r\n" in info


@pytest.mark.ours
def test_config_file_is_replaced_whole(server_factory):
    """Each save writes the spare file (nodes.conf.tmp) and exchanges the two
    names: a reader (or a crash) sees the old file or the new one, never half
    of one; the old one is the spare after it (test_cluster_nodesconf.py)."""
    s = node(server_factory)
    c = s.client()
    path = os.path.join(s.dir, "nodes.conf")
    with open(path) as old:
        was = old.read()
        c.execute_command("CLUSTER", "ADDSLOTS", 5)  # saved once, before the loop sleeps
        wait_for(lambda: " connected 5\n" in nodes_conf(s), what="the save")
        # The file held open is the old one, unchanged; the path names a new one.
        assert os.fstat(old.fileno()).st_ino != os.stat(path).st_ino
        old.seek(0)
        assert old.read() == was
    assert " connected 5\n" in nodes_conf(s) and " connected 5\n" not in was
    assert sorted(os.listdir(s.dir)) == ["nodes.conf", "nodes.conf.tmp", "server.log"]


@pytest.mark.server_exits
@pytest.mark.parametrize("content", [
    "garbage line here\n",
    "0123456789012345678901234567890123456789 127.0.0.1:1@2 myself,master - 0 0 0 connected 99999\n",
])
def test_broken_config_file_stops_start_up(server_factory, content):
    s = node(server_factory)
    s.kill()
    with open(os.path.join(s.dir, "nodes.conf"), "w") as f:
        f.write(content)
    e = refuses_to_start(s.restart)
    assert "Unrecoverable error: corrupted cluster config file." in e.text
    if not REFERENCE:
        # Ours also says which line (Redis 7.0 does not).
        assert "Cluster config file nodes.conf, line 1: %s" % content.strip() in e.text


def node_line(client, node_id):
    for line in client.execute_command("CLUSTER", "NODES").decode().splitlines():
        if line.startswith(node_id):
            return line.split()
    raise AssertionError("no line for %s" % node_id)


def shard_node(server, node_id):
    """What server's CLUSTER SHARDS says of node_id (a dict of bytes keys)."""
    for shard in RawClient(server).call("cluster", "shards"):
        d = dict(zip(shard[::2], shard[1::2]))
        for n in d[b"nodes"]:
            n = dict(zip(n[::2], n[1::2]))
            if n[b"id"] == node_id.encode():
                return n
    raise AssertionError("no shard node %s" % node_id)


@pytest.fixture
def announced(server_factory):
    """Two masters (0-8191, 8192-16383) with hostnames; the second announces
    127.0.0.2 (both listen on it too, so the bus still works)."""
    both = ("--bind", "127.0.0.1", "127.0.0.2", "--cluster-node-timeout", "2000")
    a = node(server_factory, *both, "--cluster-announce-hostname", "node-a.example", bind=None)
    b = node(server_factory, *both, "--cluster-announce-hostname", "node-b.example",
             "--cluster-announce-ip", "127.0.0.2", bind=None)
    a.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 8191)
    b.client().execute_command("CLUSTER", "ADDSLOTSRANGE", 8192, 16383)
    a.client().execute_command("CLUSTER", "MEET", "127.0.0.1", b.port)
    ids = [n.client(decode_responses=True).execute_command("CLUSTER", "MYID") for n in (a, b)]
    for n in (a, b):
        wait_for(lambda: b"cluster_state:ok" in n.client().execute_command("CLUSTER", "INFO"),
                 timeout=20, interval=0.1, what="cluster_state:ok")
    wait_for(lambda: node_line(a.client(), ids[1])[1].startswith("127.0.0.2:"), interval=0.1,
             what="node a to learn b's announced address")
    return a, b, ids


def test_announced_ip_and_hostname(announced):
    a, b, (ida, idb) = announced
    ca = a.client()
    assert node_line(ca, ida)[1] == "127.0.0.1:%d@%d,node-a.example" % (a.port, a.port + 10000)
    assert node_line(ca, idb)[1] == "127.0.0.2:%d@%d,node-b.example" % (b.port, b.port + 10000)
    assert node_line(b.client(), idb)[1] == "127.0.0.2:%d@%d,node-b.example" % (b.port, b.port + 10000)
    slots = RawClient(a).call("cluster", "slots")
    assert sorted(slots) == [
        [0, 8191, [b"127.0.0.1", a.port, ida.encode(), [b"hostname", b"node-a.example"]]],
        [8192, 16383, [b"127.0.0.2", b.port, idb.encode(), [b"hostname", b"node-b.example"]]],
    ]
    nb = shard_node(a, idb)
    assert (nb[b"ip"], nb[b"endpoint"], nb[b"hostname"], nb[b"port"]) == \
        (b"127.0.0.2", b"127.0.0.2", b"node-b.example", b.port)
    assert b"tls-port" not in nb  # without TLS, no TLS port


def test_announced_ports(announced):
    a, b, (ida, idb) = announced
    ca = RawClient(a)
    assert ca.call_frame("config", "set", "cluster-announce-port", "1234") == b"+OK\r\n"
    assert ca.call_frame("config", "set", "cluster-announce-bus-port", "2345") == b"+OK\r\n"
    # Myself at once, the other node by gossip.
    assert node_line(a.client(), ida)[1] == "127.0.0.1:1234@2345,node-a.example"
    wait_for(lambda: node_line(b.client(), ida)[1] == "127.0.0.1:1234@2345,node-a.example", interval=0.1,
             what="node b to learn a's announced ports")
    assert [0, 8191, [b"127.0.0.1", 1234, ida.encode(), [b"hostname", b"node-a.example"]]] in \
        RawClient(b).call("cluster", "slots")
    assert shard_node(b, ida)[b"port"] == 1234


def test_preferred_endpoint_type(announced):
    a, b, (ida, idb) = announced
    ca = RawClient(a)
    assert ca.call_frame("get", "foo") == b"-MOVED %d 127.0.0.2:%d\r\n" % (FOO, b.port)
    assert ca.call_frame("config", "set", "cluster-preferred-endpoint-type", "hostname") == b"+OK\r\n"
    assert ca.call_frame("get", "foo") == b"-MOVED %d node-b.example:%d\r\n" % (FOO, b.port)
    assert sorted(ca.call("cluster", "slots")) == [
        [0, 8191, [b"node-a.example", a.port, ida.encode(), [b"ip", b"127.0.0.1"]]],
        [8192, 16383, [b"node-b.example", b.port, idb.encode(), [b"ip", b"127.0.0.2"]]],
    ]
    assert shard_node(a, idb)[b"endpoint"] == b"node-b.example"
    assert ca.call_frame("config", "set", "cluster-preferred-endpoint-type", "unknown-endpoint") == b"+OK\r\n"
    assert ca.call_frame("get", "foo") == b"-MOVED %d :%d\r\n" % (FOO, b.port)
    assert sorted(ca.call("cluster", "slots")) == [
        [0, 8191, [None, a.port, ida.encode(), [b"ip", b"127.0.0.1", b"hostname", b"node-a.example"]]],
        [8192, 16383, [None, b.port, idb.encode(), [b"ip", b"127.0.0.2", b"hostname", b"node-b.example"]]],
    ]
    assert shard_node(a, idb)[b"endpoint"] == b""


def test_preferred_hostname_without_one(server_factory):
    cl = start_cluster(server_factory, ["ours", "ours"], cli=False)
    c = RawClient(cl.nodes[0])
    assert c.call_frame("config", "set", "cluster-preferred-endpoint-type", "hostname") == b"+OK\r\n"
    assert c.call_frame("get", "foo") == b"-MOVED %d ?:%d\r\n" % (FOO, cl.nodes[1].port)
    assert sorted(c.call("cluster", "slots")) == [
        [0, 8191, [b"?", cl.nodes[0].port, cl.ids[0].encode(), [b"ip", b"127.0.0.1"]]],
        [8192, 16383, [b"?", cl.nodes[1].port, cl.ids[1].encode(), [b"ip", b"127.0.0.1"]]],
    ]
    assert shard_node(cl.nodes[0], cl.ids[1])[b"endpoint"] == b"?"
    assert b"hostname" not in shard_node(cl.nodes[0], cl.ids[1])
