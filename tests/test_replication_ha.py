"""Replication for high availability (issue 14): what a replica announces
of itself (replica-announce-ip/-port, replica-priority, replica-announced,
read by Sentinel from the master's INFO and the replica's), CLIENT KILL TYPE
master, the FAILOVER command and the diskless load on the replica side
(repl-diskless-load). Each runs with our servers, and with the reference's
where the other side of the link is meant to be Redis (support.REF_SERVER);
under REFERENCE=1 every server is the reference.
"""
import re

import pytest

from support import MASTER_ARGS, REF_SERVER, SERVER, attach, caught_up, info, start_pair, wait_for

KINDS = pytest.mark.parametrize("master_kind,replica_kind", [("ours", "ours"), ("ours", "reference"),
                                                            ("reference", "ours")])


def binary(kind):
    if kind == "reference" and not REF_SERVER:
        pytest.skip("no reference redis-server")
    return SERVER if kind == "ours" else REF_SERVER


def kinds_pair(server_factory, master_kind, replica_kind, replica_args=()):
    return start_pair(server_factory, binary(master_kind), binary(replica_kind), replica_args=replica_args)


@KINDS
def test_replica_announces_ip_and_port(server_factory, master_kind, replica_kind):
    master, replica, m, r = kinds_pair(server_factory, master_kind, replica_kind,
                                       ("--replica-announce-ip", "10.1.2.3", "--replica-announce-port", "1234"))
    attach(r, master)
    wait_for(lambda: "state=online" in info(m).get("slave0", ""), what="the replica online")
    assert re.match(r"ip=10\.1\.2\.3,port=1234,state=online,offset=\d+,lag=\d+$", info(m)["slave0"])
    role = wait_for(lambda: m.execute_command("ROLE")[2], what="the replica in ROLE")
    assert role[0][:2] == [b"10.1.2.3", b"1234"]


def test_announce_and_priority_settings(server_factory):
    s = server_factory()
    c = s.client(decode_responses=True)
    assert c.config_get("replica-announce-ip") == {"replica-announce-ip": ""}
    assert c.config_get("slave-announce-port") == {"slave-announce-port": "0"}
    with pytest.raises(Exception, match="argument must be between 0 and 65535 inclusive"):
        c.config_set("replica-announce-port", 70000)
    assert c.config_set("slave-announce-ip", "1.2.3.4")
    assert c.config_get("replica-announce-ip") == {"replica-announce-ip": "1.2.3.4"}
    assert c.config_set("replica-priority", 0) and c.config_set("replica-announced", "no")
    assert c.config_get("slave-priority") == {"slave-priority": "0"}


def test_replica_priority_and_announced_in_info(server_factory):
    master, replica, m, r = start_pair(server_factory, replica_args=("--replica-priority", "7"))
    attach(r, master)
    assert info(r)["slave_priority"] == "7" and info(r)["replica_announced"] == "1"
    r.config_set("replica-priority", 0)
    r.config_set("replica-announced", "no")
    assert info(r)["slave_priority"] == "0" and info(r)["replica_announced"] == "0"
    # A changed announce port reaches the master with the next handshake.
    r.config_set("replica-announce-port", 4321)
    assert r.execute_command("CLIENT", "KILL", "TYPE", "master") == 1
    wait_for(lambda: ",port=4321," in info(m).get("slave0", ""), what="the new announced port")


@KINDS
def test_client_kill_type_master_then_partial_resync(server_factory, master_kind, replica_kind):
    master, replica, m, r = kinds_pair(server_factory, master_kind, replica_kind)
    attach(r, master)
    m.set("a", "1")
    caught_up(m, r)
    partial = int(info(m, "stats")["sync_partial_ok"])
    assert r.execute_command("CLIENT", "KILL", "TYPE", "master") == 1
    m.set("b", "2")
    wait_for(lambda: int(info(m, "stats")["sync_partial_ok"]) == partial + 1, what="a partial resync")
    caught_up(m, r)
    assert r.get("b") == b"2"
    assert m.execute_command("CLIENT", "KILL", "TYPE", "master") == 0
