"""What the CLUSTER subcommands report of the nodes: the flags in CLUSTER
NODES as the bus spreads them, CLUSTER SHARDS's fields; the checks of
cluster-announce-hostname. Redis behaviour: these pass on the reference too."""
from resp_raw import RawClient
from support import start_cluster, wait_for


def node_flags(node, node_id):
    """The flags node's CLUSTER NODES lists for node_id."""
    for line in node.client(decode_responses=True).execute_command("CLUSTER", "NODES").splitlines():
        f = line.split()
        if f[0] == node_id:
            return f[2].split(",")
    raise AssertionError("%s does not know %s" % (node, node_id))


def test_nofailover_flag_spreads_and_clears(server_factory):
    cl = start_cluster(server_factory, ["ours", "ours"], replicas=1, cli=False)
    m, r = cl.nodes
    rid = cl.ids[1]
    assert "nofailover" not in node_flags(m, rid)
    r.client().config_set("cluster-replica-no-failover", "yes")
    assert node_flags(r, rid) == ["myself", "slave", "nofailover"]
    wait_for(lambda: node_flags(m, rid) == ["slave", "nofailover"], timeout=15, interval=0.1,
             what="the master to see the replica's nofailover flag")
    r.client().config_set("cluster-replica-no-failover", "no")
    assert node_flags(r, rid) == ["myself", "slave"]
    wait_for(lambda: node_flags(m, rid) == ["slave"], timeout=15, interval=0.1,
             what="the flag to clear on the master")


def shard_node(node, node_id):
    """CLUSTER SHARDS's entry of node_id, as node lists it (a dict)."""
    for shard in node.client(decode_responses=True).execute_command("CLUSTER", "SHARDS"):
        shard = dict(zip(shard[::2], shard[1::2]))
        for n in shard["nodes"]:
            n = dict(zip(n[::2], n[1::2]))
            if n["id"] == node_id:
                return n
    raise AssertionError("%s lists no %s" % (node, node_id))


def slots_lists(node, node_id):
    """Whether node's CLUSTER SLOTS names node_id among a range's nodes."""
    return any(e[2] == node_id for r in node.client(decode_responses=True).execute_command("CLUSTER", "SLOTS")
               for e in r[2:])


def test_shards_health_and_slots_while_a_replica_loads(server_factory):
    """A replica loading a full sync's snapshot has no offset: its master's
    CLUSTER SHARDS says health "loading" (replication-offset 0) and CLUSTER
    SLOTS leaves it out, until it is online again."""
    cl = start_cluster(server_factory, ["ours", "ours"], replicas=1, cli=False, args=("--enable-debug-command", "yes"))
    m, r = cl.nodes
    mid, rid = cl.ids
    mc, rc = m.client(), r.client()
    mc.execute_command("DEBUG", "POPULATE", 1000, "key", 1000)
    wait_for(lambda: shard_node(m, rid)["health"] == "online" and slots_lists(m, rid), timeout=15, interval=0.1,
             what="the replica online")
    assert shard_node(m, mid)["health"] == "online"
    assert shard_node(m, mid)["role"] == "master" and shard_node(m, rid)["role"] == "replica"
    # A backlog too small for what follows: the replica must sync in full, slowly.
    mc.config_set("repl-backlog-size", 100)
    rc.config_set("key-load-delay", 2000)
    rc.config_set("loading-process-events-interval-bytes", 1024)
    p = mc.pipeline(transaction=True)
    p.execute_command("CLIENT", "KILL", "TYPE", "replica")
    for j in range(100):
        p.set("{ch3}%d" % j, "A" * 1024)
    p.execute()
    wait_for(lambda: shard_node(m, rid)["health"] == "loading", timeout=15, interval=0.05,
             what="the master to see the replica loading")
    assert shard_node(m, rid)["replication-offset"] == 0
    assert not slots_lists(m, rid)
    rc.config_set("key-load-delay", 0)
    wait_for(lambda: shard_node(m, rid)["health"] == "online" and slots_lists(m, rid), timeout=15, interval=0.1,
             what="the replica online again")
    assert shard_node(r, rid)["health"] == "online"


def test_announce_hostname_validation(server_factory):
    n = start_cluster(server_factory, ["ours"], cli=False).nodes[0]
    c = RawClient(n)
    prefix = b"-ERR CONFIG SET failed (possibly related to argument 'cluster-announce-hostname') - "
    assert c.call_frame("config", "set", "cluster-announce-hostname", "x" * 256) == \
        prefix + b"Hostnames must be less than 256 characters\r\n"
    assert c.call_frame("config", "set", "cluster-announce-hostname", "?.com") == \
        prefix + b"Hostnames may only contain alphanumeric characters, hyphens or dots\r\n"
    assert c.call_frame("config", "set", "cluster-announce-hostname", "x" * 255) == b"+OK\r\n"
    assert c.call_frame("config", "get", "cluster-announce-hostname") == \
        b"*2\r\n$25\r\ncluster-announce-hostname\r\n$255\r\n" + b"x" * 255 + b"\r\n"
