"""Every CLUSTER subcommand of Redis 7.0: its reply's shape, what it does,
and its errors for bad input byte for byte (wrong arity, bad slot numbers,
unknown nodes, busy or unassigned slots, ...); and what cluster mode
refuses (SELECT n, SWAPDB, MOVE, COPY ... DB, FAILOVER, REPLICAOF). Redis
behaviour: these pass on the reference too."""
import binascii
import os

import pytest

from resp_raw import RawClient
from support import cluster_info, free_cluster_port, start_cluster, wait_for

BAR = 5061   # CLUSTER KEYSLOT bar
FOO = 12182  # foo
UNKNOWN = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def two(server_factory):
    """Two masters: slots 0-8191 and 8192-16383."""
    return start_cluster(server_factory, ["ours", "ours"], cli=False)


def fresh(server_factory, *args):
    return server_factory("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", *args,
                          pick_port=free_cluster_port)


def subcommand_error(name):
    return "-ERR unknown subcommand or wrong number of arguments for '%s'. Try CLUSTER HELP.\r\n" % name


def arity_error(name):
    return "-ERR wrong number of arguments for 'cluster|%s' command\r\n" % name


def frames(conn, *args):
    return conn.call_frame(*args).decode()


BAD_INPUT = [
    # Unknown subcommands and wrong arities.
    (("cluster", "foo"), "-ERR unknown subcommand 'foo'. Try CLUSTER HELP.\r\n"),
    (("cluster",), "-ERR wrong number of arguments for 'cluster' command\r\n"),
    (("cluster", "info", "x"), arity_error("info")),
    (("cluster", "myid", "x"), arity_error("myid")),
    (("cluster", "nodes", "x"), arity_error("nodes")),
    (("cluster", "slots", "x"), arity_error("slots")),
    (("cluster", "shards", "x"), arity_error("shards")),
    (("cluster", "links", "x"), arity_error("links")),
    (("cluster", "keyslot"), arity_error("keyslot")),
    (("cluster", "keyslot", "a", "b"), arity_error("keyslot")),
    (("cluster", "countkeysinslot"), arity_error("countkeysinslot")),
    (("cluster", "countkeysinslot", "1", "2"), arity_error("countkeysinslot")),
    (("cluster", "getkeysinslot", "1"), arity_error("getkeysinslot")),
    (("cluster", "addslots"), arity_error("addslots")),
    (("cluster", "delslots"), arity_error("delslots")),
    (("cluster", "addslotsrange"), arity_error("addslotsrange")),
    (("cluster", "addslotsrange", "1"), arity_error("addslotsrange")),
    (("cluster", "addslotsrange", "1", "2", "3"), arity_error("addslotsrange")),
    (("cluster", "delslotsrange", "1"), arity_error("delslotsrange")),
    (("cluster", "setslot"), arity_error("setslot")),
    (("cluster", "setslot", "1"), arity_error("setslot")),
    (("cluster", "setslot", "1", "foo"), "-ERR Invalid CLUSTER SETSLOT action or number of arguments. "
                                          "Try CLUSTER HELP\r\n"),
    (("cluster", "setslot", "1", "stable", "x"), "-ERR Invalid CLUSTER SETSLOT action or number of arguments. "
                                                  "Try CLUSTER HELP\r\n"),
    (("cluster", "setslot", "1", "importing"), "-ERR Invalid CLUSTER SETSLOT action or number of arguments. "
                                                "Try CLUSTER HELP\r\n"),
    (("cluster", "meet"), arity_error("meet")),
    (("cluster", "meet", "127.0.0.1"), arity_error("meet")),
    (("cluster", "meet", "127.0.0.1", "1", "2", "3"), subcommand_error("meet")),
    (("cluster", "forget"), arity_error("forget")),
    (("cluster", "forget", "a", "b"), arity_error("forget")),
    (("cluster", "replicate"), arity_error("replicate")),
    (("cluster", "replicas"), arity_error("replicas")),
    (("cluster", "slaves", "a", "b"), arity_error("slaves")),
    (("cluster", "count-failure-reports"), arity_error("count-failure-reports")),
    (("cluster", "set-config-epoch"), arity_error("set-config-epoch")),
    (("cluster", "bumpepoch", "x"), arity_error("bumpepoch")),
    (("cluster", "saveconfig", "x"), arity_error("saveconfig")),
    (("cluster", "flushslots", "x"), arity_error("flushslots")),
    (("cluster", "reset", "hard", "x"), subcommand_error("reset")),
    (("cluster", "reset", "foo"), "-ERR syntax error\r\n"),
    (("cluster", "failover", "x"), "-ERR syntax error\r\n"),
    (("cluster", "failover", "force", "x"), subcommand_error("failover")),
    (("readonly", "x"), "-ERR wrong number of arguments for 'readonly' command\r\n"),
    (("readwrite", "x"), "-ERR wrong number of arguments for 'readwrite' command\r\n"),
    (("asking", "x"), "-ERR wrong number of arguments for 'asking' command\r\n"),
    # Bad slot numbers.
    (("cluster", "countkeysinslot", "x"), "-ERR value is not an integer or out of range\r\n"),
    (("cluster", "countkeysinslot", "-1"), "-ERR Invalid slot\r\n"),
    (("cluster", "countkeysinslot", "16384"), "-ERR Invalid slot\r\n"),
    (("cluster", "countkeysinslot", "9223372036854775808"), "-ERR value is not an integer or out of range\r\n"),
    (("cluster", "getkeysinslot", "x", "1"), "-ERR value is not an integer or out of range\r\n"),
    (("cluster", "getkeysinslot", "1", "x"), "-ERR value is not an integer or out of range\r\n"),
    (("cluster", "getkeysinslot", "16384", "1"), "-ERR Invalid slot or number of keys\r\n"),
    (("cluster", "getkeysinslot", "-1", "1"), "-ERR Invalid slot or number of keys\r\n"),
    (("cluster", "getkeysinslot", "1", "-1"), "-ERR Invalid slot or number of keys\r\n"),
    (("cluster", "addslots", "x"), "-ERR Invalid or out of range slot\r\n"),
    (("cluster", "addslots", "16384"), "-ERR Invalid or out of range slot\r\n"),
    (("cluster", "addslots", "-1"), "-ERR Invalid or out of range slot\r\n"),
    (("cluster", "delslots", "16384"), "-ERR Invalid or out of range slot\r\n"),
    (("cluster", "addslotsrange", "x", "2"), "-ERR Invalid or out of range slot\r\n"),
    (("cluster", "addslotsrange", "1", "16384"), "-ERR Invalid or out of range slot\r\n"),
    (("cluster", "addslotsrange", "5", "3"), "-ERR start slot number 5 is greater than end slot number 3\r\n"),
    (("cluster", "delslotsrange", "5", "3"), "-ERR start slot number 5 is greater than end slot number 3\r\n"),
    (("cluster", "setslot", "x", "stable"), "-ERR Invalid or out of range slot\r\n"),
    (("cluster", "setslot", "16384", "stable"), "-ERR Invalid or out of range slot\r\n"),
    # Busy, unassigned and repeated slots (node 0 has 0-8191, node 1 the rest).
    (("cluster", "addslots", "1"), "-ERR Slot 1 is already busy\r\n"),
    (("cluster", "addslots", "9000"), "-ERR Slot 9000 is already busy\r\n"),
    (("cluster", "addslotsrange", "8000", "8200"), "-ERR Slot 8000 is already busy\r\n"),
    (("cluster", "delslots", "1", "1"), "-ERR Slot 1 specified multiple times\r\n"),
    (("cluster", "addslots", "1", "x"), "-ERR Invalid or out of range slot\r\n"),
    # Unknown nodes, and nodes that cannot be what was asked.
    (("cluster", "forget", "abc"), "-ERR Unknown node abc\r\n"),
    (("cluster", "forget", UNKNOWN), "-ERR Unknown node %s\r\n" % UNKNOWN),
    (("cluster", "replicate", "abc"), "-ERR Unknown node abc\r\n"),
    (("cluster", "replicas", "abc"), "-ERR Unknown node abc\r\n"),
    (("cluster", "slaves", UNKNOWN), "-ERR Unknown node %s\r\n" % UNKNOWN),
    (("cluster", "count-failure-reports", "abc"), "-ERR Unknown node abc\r\n"),
    (("cluster", "setslot", "1", "migrating", "abc"), "-ERR I don't know about node abc\r\n"),
    (("cluster", "setslot", "9000", "migrating", "abc"), "-ERR I'm not the owner of hash slot 9000\r\n"),
    (("cluster", "setslot", "9000", "importing", "abc"), "-ERR I don't know about node abc\r\n"),
    (("cluster", "setslot", "1", "importing", "abc"), "-ERR I'm already the owner of hash slot 1\r\n"),
    (("cluster", "setslot", "1", "node", "abc"), "-ERR Unknown node abc\r\n"),
    # MEET's address and ports.
    (("cluster", "meet", "127.0.0.1", "x"), "-ERR Invalid TCP base port specified: x\r\n"),
    (("cluster", "meet", "127.0.0.1", "1", "x"), "-ERR Invalid TCP bus port specified: x\r\n"),
    (("cluster", "meet", "999.0.0.1", "1"), "-ERR Invalid node address specified: 999.0.0.1:1\r\n"),
    (("cluster", "meet", "abc", "1234"), "-ERR Invalid node address specified: abc:1234\r\n"),
    (("cluster", "meet", "127.0.0.1", "70000"), "-ERR Invalid node address specified: 127.0.0.1:70000\r\n"),
    (("cluster", "meet", "127.0.0.1", "-1"), "-ERR Invalid node address specified: 127.0.0.1:-1\r\n"),
    # Epochs.
    (("cluster", "set-config-epoch", "x"), "-ERR value is not an integer or out of range\r\n"),
    (("cluster", "set-config-epoch", "-1"), "-ERR Invalid config epoch specified: -1\r\n"),
    (("cluster", "set-config-epoch", "5"), "-ERR The user can assign a config epoch only when the node does "
                                           "not know any other node.\r\n"),
    # A master asked to fail over.
    (("cluster", "failover"), "-ERR You should send CLUSTER FAILOVER to a replica\r\n"),
    (("cluster", "failover", "takeover"), "-ERR You should send CLUSTER FAILOVER to a replica\r\n"),
]


def test_bad_input(two):
    c = RawClient(two.nodes[0])
    id0, id1 = two.ids
    cases = BAD_INPUT + [
        (("cluster", "forget", id0), "-ERR I tried hard but I can't forget myself...\r\n"),
        (("cluster", "replicate", id0), "-ERR Can't replicate myself\r\n"),
        (("cluster", "replicate", id1), "-ERR To set a master the node must be empty and without assigned "
                                        "slots.\r\n"),
        (("cluster", "setslot", "1", "importing", id0), "-ERR I'm already the owner of hash slot 1\r\n"),
        (("cluster", "setslot", "9000", "migrating", id1), "-ERR I'm not the owner of hash slot 9000\r\n"),
    ]
    wrong = []
    for args, want in cases:
        got = frames(c, *args)
        if got != want:
            wrong.append((args, got, want))
    assert not wrong, "\n".join(map(repr, wrong))
    # Nothing above changed the cluster.
    assert cluster_info(two.nodes[0].client())["cluster_slots_assigned"] == "16384"
    assert c.call("cluster", "countkeysinslot", "1") == 0


def node_lines(server):
    """CLUSTER NODES as {id: fields}."""
    out = {}
    for line in server.client().execute_command("CLUSTER", "NODES").decode().splitlines():
        f = line.split()
        out[f[0]] = f
    return out


def as_dict(flat):
    return dict(zip(flat[::2], flat[1::2]))


INFO_HEAD = ["cluster_state", "cluster_slots_assigned", "cluster_slots_ok", "cluster_slots_pfail",
             "cluster_slots_fail", "cluster_known_nodes", "cluster_size", "cluster_current_epoch", "cluster_my_epoch"]


def test_info_myid_nodes(two):
    n0, n1 = two.nodes
    id0, id1 = two.ids
    raw = n0.client().execute_command("CLUSTER", "INFO").decode()
    assert raw.endswith("\r\n")
    keys = [line.split(":")[0] for line in raw.split("\r\n") if line]
    assert keys[:9] == INFO_HEAD
    assert keys[-1] == "total_cluster_links_buffer_limit_exceeded"
    for k in keys[9:-1]:  # only the kinds of message sent or received so far
        assert k.startswith("cluster_stats_messages_") and k.endswith(("_sent", "_received")), k
    assert "cluster_stats_messages_ping_sent" in keys and "cluster_stats_messages_pong_received" in keys
    info = cluster_info(n0.client())
    assert (info["cluster_state"], info["cluster_slots_assigned"], info["cluster_slots_ok"],
            info["cluster_known_nodes"], info["cluster_size"]) == ("ok", "16384", "16384", "2", "2")
    assert int(info["cluster_stats_messages_sent"]) == sum(
        int(v) for k, v in info.items() if k.startswith("cluster_stats_messages_") and k.endswith("_sent")
        and k != "cluster_stats_messages_sent")
    # MYID: a 40-character hex name, the one NODES marks myself.
    assert len(id0) == 40 and all(ch in "0123456789abcdef" for ch in id0)
    lines = node_lines(n0)
    assert set(lines) == {id0, id1}
    me, other = lines[id0], lines[id1]
    assert me[1] == "127.0.0.1:%d@%d" % (n0.port, n0.port + 10000)
    assert me[2:6] == ["myself,master", "-", "0", "0"] and me[7:] == ["connected", "0-8191"]
    assert other[1] == "127.0.0.1:%d@%d" % (n1.port, n1.port + 10000)
    assert other[2:5] == ["master", "-", "0"] and int(other[5]) > 0 and other[7:] == ["connected", "8192-16383"]
    # The two configEpochs differ (a collision is resolved), and NODES says the one INFO says.
    assert me[6] != other[6] and me[6] == info["cluster_my_epoch"]
    # NODES is a verbatim string in RESP3.
    c3 = RawClient(n0)
    c3.call("hello", "3")
    assert c3.call_frame("cluster", "nodes").startswith(b"=")


def test_keyslot_countkeysinslot_getkeysinslot(two):
    c = RawClient(two.nodes[0])
    assert c.call("cluster", "keyslot", "bar") == BAR
    assert c.call("cluster", "keyslot", "foo") == FOO
    # The hash tag: the first {...} with something inside.
    for key, hashed in [("{foo}bar", "foo"), ("x{foo}y{z}", "foo"), ("{}foo", "{}foo"), ("{foo", "{foo"),
                        ("a{}{b}", "a{}{b}"), ("{{b}}", "{b"), ("", ""), ("user:1000", "user:1000")]:
        assert c.call("cluster", "keyslot", key) == binascii.crc_hqx(hashed.encode(), 0) % 16384, key
    names = [b"{bar}%d" % i for i in range(5)]
    for k in names:
        assert c.call("set", k, "v") == "OK"
    assert c.call("cluster", "countkeysinslot", BAR) == 5
    assert c.call("cluster", "countkeysinslot", FOO) == 0  # not ours: still counted here (0)
    assert sorted(c.call("cluster", "getkeysinslot", BAR, 10)) == names
    some = c.call("cluster", "getkeysinslot", BAR, 3)
    assert len(some) == 3 and set(some) <= set(names)
    assert c.call("cluster", "getkeysinslot", BAR, 0) == []
    assert c.call("cluster", "getkeysinslot", 1, 10) == []
    c.call("del", names[0])
    assert c.call("cluster", "countkeysinslot", BAR) == 4


def my_slots(server):
    """The slot field of server's own CLUSTER NODES line."""
    for f in node_lines(server).values():
        if "myself" in f[2]:
            return f[8:]
    raise AssertionError("no myself line")


def test_addslots_delslots_and_their_ranges(server_factory):
    s = fresh(server_factory)
    c = RawClient(s)
    assert c.call_frame("cluster", "addslots", "1", "2", "3") == b"+OK\r\n"
    assert c.call_frame("cluster", "addslotsrange", "10", "20", "30", "40") == b"+OK\r\n"
    assert my_slots(s) == ["1-3", "10-20", "30-40"]
    assert cluster_info(s.client())["cluster_slots_assigned"] == "25"
    assert frames(c, "cluster", "addslots", "5", "5") == "-ERR Slot 5 specified multiple times\r\n"
    assert frames(c, "cluster", "addslotsrange", "4", "6", "6", "7") == "-ERR Slot 6 specified multiple times\r\n"
    assert frames(c, "cluster", "addslotsrange", "4", "10") == "-ERR Slot 10 is already busy\r\n"
    assert frames(c, "cluster", "addslots", "4", "3") == "-ERR Slot 3 is already busy\r\n"
    # A refused command assigns none of its slots.
    assert my_slots(s) == ["1-3", "10-20", "30-40"]
    assert frames(c, "cluster", "delslots", "4") == "-ERR Slot 4 is already unassigned\r\n"
    assert frames(c, "cluster", "delslotsrange", "3", "5") == "-ERR Slot 4 is already unassigned\r\n"
    assert frames(c, "cluster", "delslotsrange", "1", "2", "2", "3") == "-ERR Slot 2 specified multiple times\r\n"
    assert my_slots(s) == ["1-3", "10-20", "30-40"]
    assert c.call_frame("cluster", "delslots", "2") == b"+OK\r\n"
    assert c.call_frame("cluster", "delslotsrange", "10", "15", "40", "40") == b"+OK\r\n"
    assert my_slots(s) == ["1", "3", "16-20", "30-39"]
    # Every slot but one: the cluster is down (full coverage), then up.
    assert c.call_frame("cluster", "addslotsrange", "0", "16383") == b"-ERR Slot 1 is already busy\r\n"
    c.call("cluster", "flushslots")
    assert c.call_frame("cluster", "addslotsrange", "0", "16382") == b"+OK\r\n"
    wait_for(lambda: cluster_info(s.client())["cluster_state"] == "fail", what="cluster_state:fail")
    assert c.call_frame("cluster", "addslots", "16383") == b"+OK\r\n"
    wait_for(lambda: cluster_info(s.client())["cluster_state"] == "ok", what="cluster_state:ok")
    assert my_slots(s) == ["0-16383"]


def test_flushslots(server_factory):
    s = fresh(server_factory)
    c = RawClient(s)
    c.call("cluster", "addslotsrange", "0", "16383")
    wait_for(lambda: cluster_info(s.client())["cluster_state"] == "ok", what="cluster_state:ok")
    assert c.call("set", "foo", "1") == "OK"
    assert frames(c, "cluster", "flushslots") == "-ERR DB must be empty to perform CLUSTER FLUSHSLOTS.\r\n"
    assert cluster_info(s.client())["cluster_slots_assigned"] == "16384"
    c.call("flushall")
    assert c.call_frame("cluster", "flushslots") == b"+OK\r\n"
    assert cluster_info(s.client())["cluster_slots_assigned"] == "0"
    assert my_slots(s) == []
    assert frames(c, "get", "foo") == "-CLUSTERDOWN Hash slot not served\r\n"


def test_setslot_states_in_nodes(two):
    n0, n1 = two.nodes
    id0, id1 = two.ids
    c0, c1 = RawClient(n0), RawClient(n1)
    assert c0.call_frame("cluster", "setslot", str(BAR), "migrating", id1) == b"+OK\r\n"
    assert c1.call_frame("cluster", "setslot", str(BAR), "importing", id0) == b"+OK\r\n"
    assert my_slots(n0) == ["0-8191", "[%d->-%s]" % (BAR, id1)]
    assert my_slots(n1) == ["8192-16383", "[%d-<-%s]" % (BAR, id0)]
    # Only the node's own line shows them, and nodes.conf keeps them.
    assert "[" not in " ".join(node_lines(n0)[id1])
    c0.call("cluster", "saveconfig")
    with open(os.path.join(n0.dir, "nodes.conf")) as f:
        assert "[%d->-%s]" % (BAR, id1) in f.read()
    # STABLE clears both.
    assert c0.call_frame("cluster", "setslot", str(BAR), "stable") == b"+OK\r\n"
    assert c1.call_frame("cluster", "setslot", str(BAR), "stable") == b"+OK\r\n"
    assert my_slots(n0) == ["0-8191"] and my_slots(n1) == ["8192-16383"]
    # NODE: an empty slot handed over, the new owner bumps its epoch and the other learns it.
    assert c1.call_frame("cluster", "setslot", str(BAR), "node", id1) == b"+OK\r\n"
    assert c0.call_frame("cluster", "setslot", str(BAR), "node", id1) == b"+OK\r\n"
    assert my_slots(n0) == ["0-5060", "5062-8191"]
    wait_for(lambda: my_slots(n1) == ["5061", "8192-16383"], what="the new owner's view")
    wait_for(lambda: node_lines(n0)[id1][8:] == ["5061", "8192-16383"], what="the old owner's view")
    assert frames(c0, "get", "bar") == "-MOVED %d 127.0.0.1:%d\r\n" % (BAR, n1.port)
    # NODE on the importing side closes the import.
    assert c0.call_frame("cluster", "setslot", "100", "migrating", id1) == b"+OK\r\n"
    assert c1.call_frame("cluster", "setslot", "100", "importing", id0) == b"+OK\r\n"
    assert c1.call_frame("cluster", "setslot", "100", "node", id1) == b"+OK\r\n"
    assert my_slots(n1) == ["100", "5061", "8192-16383"]


def test_set_config_epoch_and_bumpepoch(server_factory):
    s = fresh(server_factory)
    c = RawClient(s)
    assert c.call_frame("cluster", "bumpepoch") == b"+BUMPED 1\r\n"
    assert c.call_frame("cluster", "bumpepoch") == b"+STILL 1\r\n"
    assert frames(c, "cluster", "set-config-epoch", "5") == "-ERR Node config epoch is already non-zero\r\n"
    s2 = fresh(server_factory)
    c2 = RawClient(s2)
    assert c2.call_frame("cluster", "set-config-epoch", "5") == b"+OK\r\n"
    info = cluster_info(s2.client())
    assert (info["cluster_my_epoch"], info["cluster_current_epoch"]) == ("5", "5")
    assert "configEpoch set to 5 via CLUSTER SET-CONFIG-EPOCH" in s2.log()
    assert c2.call_frame("cluster", "bumpepoch") == b"+STILL 5\r\n"
    # Met, the node with the lower epoch is behind: its bump takes the next epoch of the cluster.
    c.call("cluster", "meet", "127.0.0.1", str(s2.port))
    wait_for(lambda: cluster_info(s.client())["cluster_known_nodes"] == "2" and
             cluster_info(s.client())["cluster_current_epoch"] == "5", what="the epochs to spread")
    assert c.call_frame("cluster", "bumpepoch") == b"+BUMPED 6\r\n"
    assert frames(c, "cluster", "set-config-epoch", "9") == \
        "-ERR The user can assign a config epoch only when the node does not know any other node.\r\n"


def test_meet_replicate_replicas_and_forget(two, server_factory):
    n0, n1 = two.nodes
    id0, id1 = two.ids
    s = fresh(server_factory, "--cluster-node-timeout", "2000")
    c = RawClient(s)
    sid = c.call("cluster", "myid").decode()
    assert c.call_frame("cluster", "meet", "127.0.0.1", str(n0.port), str(n0.port + 10000)) == b"+OK\r\n"
    for n in (n0, n1, s):
        wait_for(lambda: cluster_info(n.client())["cluster_known_nodes"] == "3", interval=0.1,
                 what="every node to know the new one")
    wait_for(lambda: node_lines(s)[id1][1] == "127.0.0.1:%d@%d" % (n1.port, n1.port + 10000), interval=0.1,
             what="the new node to learn the other's address")
    assert frames(c, "cluster", "failover") == "-ERR You should send CLUSTER FAILOVER to a replica\r\n"
    assert c.call_frame("cluster", "replicate", id0) == b"+OK\r\n"
    wait_for(lambda: node_lines(n0)[sid][2:4] == ["slave", id0], interval=0.1, what="the master to see its replica")
    assert node_lines(s)[sid][2:4] == ["myself,slave", id0]
    n0.client().set("bar", "1")
    wait_for(lambda: s.client().execute_command("READONLY") and s.client().dbsize() == 1, what="the copy")
    # REPLICAS and SLAVES: the replicas' NODES lines.
    for sub in ("replicas", "slaves"):
        got = RawClient(n1).call("cluster", sub, id0)
        assert len(got) == 1 and got[0].split()[:4] == [sid.encode(), b"127.0.0.1:%d@%d" % (s.port, s.port + 10000),
                                                        b"slave", id0.encode()]
        assert RawClient(n1).call("cluster", sub, id1) == []
        assert frames(RawClient(n1), "cluster", sub, sid) == "-ERR The specified node is not a master\r\n"
    assert frames(RawClient(n1), "cluster", "replicate", sid) == \
        "-ERR I can only replicate a master, not a replica.\r\n"
    assert frames(c, "cluster", "forget", id0) == "-ERR Can't forget my master!\r\n"
    # SLOTS and SHARDS show the replica beside its master (SLOTS once its
    # replication offset, gossiped, is not 0).
    wait_for(lambda: sorted(RawClient(n1).call("cluster", "slots"))[0] == [
        0, 8191, [b"127.0.0.1", n0.port, id0.encode(), []], [b"127.0.0.1", s.port, sid.encode(), []]],
        interval=0.1, what="the replica in CLUSTER SLOTS")
    shard = [as_dict(sh) for sh in RawClient(n1).call("cluster", "shards") if as_dict(sh)[b"slots"] == [0, 8191]][0]
    members = {as_dict(m)[b"id"]: as_dict(m) for m in shard[b"nodes"]}
    assert set(members) == {id0.encode(), sid.encode()}
    assert list(members[sid.encode()]) == [b"id", b"port", b"ip", b"endpoint", b"role", b"replication-offset",
                                           b"health"]
    assert (members[id0.encode()][b"role"], members[sid.encode()][b"role"]) == (b"master", b"replica")
    wait_for(lambda: all(as_dict(m)[b"health"] == b"online" for sh in RawClient(n0).call("cluster", "shards")
                         for m in as_dict(sh)[b"nodes"]), interval=0.1, what="every node online")
    # FORGET: gone from the node's table, and gossip does not bring it back for a while.
    s.kill()
    for n in (n0, n1):
        assert RawClient(n).call_frame("cluster", "forget", sid) == b"+OK\r\n"
    assert sid not in node_lines(n0) and sid not in node_lines(n1)
    assert frames(RawClient(n0), "cluster", "forget", sid) == "-ERR Unknown node %s\r\n" % sid
    assert cluster_info(n0.client())["cluster_known_nodes"] == "2"


def test_count_failure_reports(server_factory):
    cl = start_cluster(server_factory, ["ours"] * 3, node_timeout=1000, cli=False)
    c0 = RawClient(cl.nodes[0])
    assert c0.call("cluster", "count-failure-reports", cl.ids[1]) == 0
    assert c0.call("cluster", "count-failure-reports", cl.ids[0]) == 0
    cl.nodes[2].kill()
    # Node 1's gossip reports node 2 as failing: node 0 counts that report.
    wait_for(lambda: c0.call("cluster", "count-failure-reports", cl.ids[2]) == 1, timeout=15, interval=0.1,
             what="a failure report")
    wait_for(lambda: "fail" in node_lines(cl.nodes[0])[cl.ids[2]][2].split(","), timeout=15, interval=0.1,
             what="node 2 marked fail")
    assert cluster_info(cl.nodes[0].client())["cluster_state"] == "fail"


def test_links(two):
    n0, n1 = two.nodes
    id0, id1 = two.ids
    links = [as_dict(link) for link in RawClient(n0).call("cluster", "links")]
    assert sorted(link[b"direction"] for link in links) == [b"from", b"to"]
    for link in links:
        assert list(link) == [b"direction", b"node", b"create-time", b"events", b"send-buffer-allocated",
                              b"send-buffer-used"]
        assert link[b"node"] == id1.encode()
        assert link[b"events"] in (b"r", b"rw", b"w")
        assert isinstance(link[b"create-time"], int) and link[b"create-time"] > 1600000000000
        assert link[b"send-buffer-used"] <= link[b"send-buffer-allocated"] or link[b"send-buffer-used"] == 0
    lone = RawClient(n0)
    lone.call("cluster", "forget", id1)
    assert lone.call("cluster", "links") == []


def test_reset_soft_and_hard(server_factory):
    cl = start_cluster(server_factory, ["ours"] * 3, replicas=2, cli=False)
    m, r1, r2 = cl.nodes
    mid, rid1, rid2 = cl.ids
    m.client().set("foo", "1")
    assert frames(RawClient(m), "cluster", "reset") == \
        "-ERR CLUSTER RESET can't be called with master nodes containing keys\r\n"
    wait_for(lambda: r1.client().execute_command("READONLY") and r1.client().dbsize() == 1, what="the copy")
    epoch = cluster_info(r1.client())["cluster_current_epoch"]
    # SOFT on a replica: a master again, its data gone, alone, the same id and epochs.
    assert RawClient(r1).call_frame("cluster", "reset", "soft") == b"+OK\r\n"
    info = cluster_info(r1.client())
    assert (info["cluster_known_nodes"], info["cluster_slots_assigned"], info["cluster_current_epoch"]) == \
        ("1", "0", epoch)
    assert RawClient(r1).call("cluster", "myid").decode() == rid1
    assert r1.client().dbsize() == 0
    assert node_lines(r1)[rid1][2:4] == ["myself,master", "-"]
    wait_for(lambda: r1.client().info("replication")["role"] == "master", what="r1 to stop replicating")
    # HARD: a new id, epochs back to 0.
    assert RawClient(r2).call_frame("cluster", "reset", "hard") == b"+OK\r\n"
    info = cluster_info(r2.client())
    assert (info["cluster_known_nodes"], info["cluster_current_epoch"], info["cluster_my_epoch"]) == ("1", "0", "0")
    assert RawClient(r2).call("cluster", "myid").decode() not in (rid2, mid, rid1)
    # A master with no keys may be reset: its slots go.
    m.client().flushall()
    assert RawClient(m).call_frame("cluster", "reset") == b"+OK\r\n"
    assert cluster_info(m.client())["cluster_slots_assigned"] == "0"
    assert list(node_lines(m)) == [mid]


def test_cluster_mode_refusals(two):
    c = RawClient(two.nodes[0])
    assert c.call("set", "bar", "1") == "OK"
    for args, want in [
        (("select", "0"), "+OK\r\n"),
        (("select", "1"), "-ERR SELECT is not allowed in cluster mode\r\n"),
        (("swapdb", "0", "1"), "-ERR SWAPDB is not allowed in cluster mode\r\n"),
        (("swapdb", "0", "0"), "-ERR SWAPDB is not allowed in cluster mode\r\n"),
        (("move", "bar", "1"), "-ERR MOVE is not allowed in cluster mode\r\n"),
        (("move", "bar", "0"), "-ERR MOVE is not allowed in cluster mode\r\n"),
        (("copy", "bar", "{bar}2", "db", "1"), "-ERR Copying to another database is not allowed in cluster mode\r\n"),
        (("copy", "bar", "{bar}2", "db", "0"), ":1\r\n"),
        (("failover",), "-ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.\r\n"),
        (("failover", "to", "127.0.0.1", "1"),
         "-ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.\r\n"),
        (("replicaof", "127.0.0.1", "1"), "-ERR REPLICAOF not allowed in cluster mode.\r\n"),
        (("replicaof", "no", "one"), "-ERR REPLICAOF not allowed in cluster mode.\r\n"),
        (("slaveof", "127.0.0.1", "1"), "-ERR REPLICAOF not allowed in cluster mode.\r\n"),
    ]:
        assert frames(c, *args) == want, args
    assert c.call("get", "{bar}2") == b"1"


def test_manual_failover(server_factory):
    cl = start_cluster(server_factory, ["ours", "ours"], replicas=1, node_timeout=2000, cli=False)
    m, r = cl.nodes
    mid, rid = cl.ids
    m.client().set("foo", "1")
    assert frames(RawClient(r), "cluster", "failover", "bogus") == "-ERR syntax error\r\n"
    assert RawClient(r).call_frame("cluster", "failover") == b"+OK\r\n"
    wait_for(lambda: node_lines(m)[mid][2:4] == ["myself,slave", rid], timeout=15, interval=0.1,
             what="the old master to follow")
    assert node_lines(r)[rid][2:4] == ["myself,master", "-"]
    assert frames(RawClient(m), "get", "foo") == "-MOVED %d 127.0.0.1:%d\r\n" % (FOO, r.port)
    assert RawClient(r).call("get", "foo") == b"1"
