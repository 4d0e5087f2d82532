"""What the CLUSTER subcommands report of the nodes: the flags in CLUSTER
NODES as the bus spreads them, CLUSTER SHARDS's fields. Redis behaviour:
these pass on the reference too."""
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
