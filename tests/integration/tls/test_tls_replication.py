"""The replication link over TLS (issue 33): a replica with tls-replication
yes syncing from its master's TLS port, ours and the reference on either
side, with a disk-based and a diskless full sync, the stream after it, a
partial resync after the link was cut, and a replica whose certificate the
master refuses. Every test runs on the reference too.
"""
import pytest

from support import caught_up, info, server_binary, start_tls, tls_client, wait_for

PAIRS = [("ours", "reference"), ("reference", "ours"), ("ours", "ours")]


def replica_of(server_factory, certs, master, binary=None, *args):
    return start_tls(server_factory, certs, "--tls-replication", "yes", "--replicaof", master.host,
                     str(master.tls_port), *args, binary=binary)


@pytest.mark.parametrize("diskless", ["no", "yes"])
@pytest.mark.parametrize("master_kind,replica_kind", PAIRS)
def test_full_sync_stream_and_partial_resync(server_factory, tls_certs, master_kind, replica_kind, diskless):
    master = start_tls(server_factory, tls_certs, "--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0",
                       binary=server_binary(master_kind))
    m = master.client()
    p = m.pipeline(transaction=False)
    for i in range(20000):
        p.set("key:%d" % i, "v" * (i % 100))
    p.execute()
    m.set("big", b"x" * (2 * 1024 * 1024))
    replica = replica_of(server_factory, tls_certs, master, server_binary(replica_kind))
    r = replica.client()
    wait_for(lambda: info(r)["master_link_status"] == "up", what="the link over TLS")
    caught_up(m, r)
    assert r.dbsize() == 20001
    assert r.get("key:19999") == b"v" * 99
    # The stream, and a replica of ours seen from the master over TLS.
    for i in range(1000):
        m.incr("counter")
    caught_up(m, r)
    assert r.get("counter") == b"1000"
    assert info(m)["connected_slaves"] == "1"
    # The link cut: the replica comes back with a partial resync.
    syncs = int(info(m, "stats")["sync_partial_ok"])
    r.client_kill_filter(_type="master")
    m.set("after", "cut")
    wait_for(lambda: int(info(m, "stats")["sync_partial_ok"]) == syncs + 1, what="a partial resync")
    caught_up(m, r)
    assert r.get("after") == b"cut"
    assert tls_client(replica, tls_certs).get("after") == b"cut"


@pytest.mark.parametrize("master_kind,replica_kind", PAIRS[:2])
def test_replica_with_a_refused_certificate_never_syncs(server_factory, tls_certs, master_kind, replica_kind):
    master = start_tls(server_factory, tls_certs, binary=server_binary(master_kind))
    replica = replica_of(server_factory, tls_certs, master, server_binary(replica_kind),
                         "--tls-client-cert-file", tls_certs.path("other.crt"),
                         "--tls-client-key-file", tls_certs.path("other.key"))
    wait_for(lambda: "Error accepting a client connection: error:0A000086:SSL routines::certificate verify failed"
             in master.log(), what="the master's refusal")
    wait_for(lambda: "Error condition on socket for SYNC" in replica.log() or
             "Error reading" in replica.log() or "Master did not respond" in replica.log() or
             "timeout" in replica.log().lower() or "lost" in replica.log(), timeout=15, what="the replica's failure")
    assert info(replica.client())["master_link_status"] == "down"
    assert master.client().ping()


@pytest.mark.parametrize("master_kind,replica_kind", PAIRS)
def test_diskless_load_reads_the_snapshot_from_the_tls_link(server_factory, tls_certs, master_kind, replica_kind):
    master = start_tls(server_factory, tls_certs, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
                       binary=server_binary(master_kind))
    m = master.client()
    m.set("big", b"y" * (1024 * 1024))
    m.mset({"k%d" % i: i for i in range(5000)})
    replica = replica_of(server_factory, tls_certs, master, server_binary(replica_kind),
                         "--repl-diskless-load", "swapdb")
    r = replica.client()
    wait_for(lambda: info(r)["master_link_status"] == "up", what="the link over TLS")
    caught_up(m, r)
    assert r.dbsize() == 5001
    assert r.strlen("big") == 1024 * 1024
    assert "MASTER <-> REPLICA sync: Finished with success" in replica.log()
