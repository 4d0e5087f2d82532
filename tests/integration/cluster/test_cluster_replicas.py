"""Which master a cluster node follows when its shard's slots move to
another master of a newer epoch: that master, unless cluster-allow-replica-
migration is no and it serves slots of its own too (it is then not just the
shard's new master); a replica restarted with keys claims none of their
slots. Redis behaviour: these pass on the reference too."""
import pytest

from support import cluster_info, start_cluster, wait_for


def slot_owner(node, slot):
    for r in node.client(decode_responses=True).execute_command("CLUSTER", "SLOTS"):
        if r[0] <= slot <= r[1]:
            return r[2][2]
    return None


def my_epoch(node):
    return int(cluster_info(node.client())["cluster_my_epoch"])


@pytest.mark.parametrize("allow", ["yes", "no"])
def test_shard_whose_slots_move_to_another_master(server_factory, allow):
    # Masters 0 (slots 0-8191) and 1, replicas 2 (of 0) and 3 (of 1).
    cl = start_cluster(server_factory, ["ours"] * 4, replicas=1, cli=False)
    m0, m1, r0 = cl.nodes[:3]
    for n in cl.nodes:
        n.client().config_set("cluster-allow-replica-migration", allow)
    # Master 1 takes master 0's slots with a newer epoch.
    c1 = m1.client()
    wait_for(lambda: c1.execute_command("CLUSTER", "BUMPEPOCH") and my_epoch(m1) > my_epoch(m0), timeout=15,
             interval=0.2, what="master 1's epoch above master 0's")
    p = c1.pipeline(transaction=False)
    for slot in range(8192):
        p.execute_command("CLUSTER", "SETSLOT", slot, "NODE", cl.ids[1])
    p.execute()
    wait_for(lambda: slot_owner(r0, 0) == cl.ids[1] and slot_owner(m0, 0) == cl.ids[1], timeout=15,
             interval=0.1, what="master 0 and its replica to see master 1 own slot 0")
    if allow == "yes":
        wait_for(lambda: cl.roles_seen(m0)[cl.ids[0]] == cl.ids[1] and cl.roles_seen(r0)[cl.ids[2]] == cl.ids[1],
                 timeout=15, interval=0.1, what="master 0 and its replica to follow master 1")
    else:
        assert cl.roles_seen(m0)[cl.ids[0]] == "-"  # an empty master
        assert cl.roles_seen(r0)[cl.ids[2]] == cl.ids[0]
        assert r0.client().info("replication")["master_port"] == m0.port


def test_replica_restarted_with_keys_claims_no_slots(server_factory):
    """A replica that loads keys of its master's slots at start-up takes no
    slot and imports none (only a master reconciles its data with its slots)."""
    cl = start_cluster(server_factory, ["ours", "ours"], replicas=1, cli=False)
    m, r = cl.nodes
    m.client().set("foo", "1")
    wait_for(lambda: r.client().dbsize() == 1, what="the replica's copy")
    r.client().save()
    r.restart()
    assert r.client().dbsize() == 1
    myself = [line for line in r.client(decode_responses=True).execute_command("CLUSTER", "NODES").splitlines()
              if "myself" in line][0].split()
    assert myself[2] == "myself,slave" and myself[3] == cl.ids[0]
    assert myself[8:] == []  # no slots, no [slot-<-node] importing entries
    cl.wait_ok()
