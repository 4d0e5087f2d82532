"""Debian's redis-sentinel over TLS failing over a TLS master (issue 33):
the data servers replicate over TLS (tls-replication yes: a replica
announces its TLS port), three sentinels with tls-replication yes monitor
the master's TLS port and talk to each other over TLS; the master killed, the
replica is promoted and the sentinels agree on its TLS port. Under
REFERENCE=1 the same runs with Redis servers.
"""
import functools
import os

import pytest

from support import (SENTINEL, SENTINEL_ERRORS, SENTINEL_NAME, ask, free_port, sentinel_master, start_tls, tls_client,
                     wait_for)

pytestmark = pytest.mark.skipif(not os.path.exists(SENTINEL), reason="redis-sentinel not installed (deps/install.sh)")

wait_retrying = functools.partial(wait_for, timeout=40, retry_on=SENTINEL_ERRORS)


def start_tls_sentinel(server_factory, certs, master_tls_port):
    conf = ("sentinel monitor %s 127.0.0.1 %d 2\n"
            "sentinel down-after-milliseconds %s 1000\n"
            "sentinel failover-timeout %s 6000\n") % ((SENTINEL_NAME, master_tls_port) + (SENTINEL_NAME,) * 2)
    return server_factory("--tls-port", str(free_port()), "--tls-replication", "yes", *certs.server_args(),
                          config_text=conf, binary=SENTINEL)


def test_sentinel_over_tls_fails_over_a_tls_master(server_factory, tls_certs):
    master = start_tls(server_factory, tls_certs, "--tls-replication", "yes", "--repl-diskless-sync", "no")
    replica = start_tls(server_factory, tls_certs, "--tls-replication", "yes", "--replicaof", "127.0.0.1",
                        str(master.tls_port))
    wait_for(lambda: ask(replica, "INFO", "replication")["master_link_status"] == "up", what="the link over TLS")
    # The master knows its replica by the replica's TLS port.
    assert ask(master, "INFO", "replication")["slave0"]["port"] == replica.tls_port
    sentinels = [start_tls_sentinel(server_factory, tls_certs, master.tls_port) for _ in range(3)]
    for s in sentinels:
        wait_retrying(lambda: int(sentinel_master(s)["num-slaves"]) == 1
                      and int(sentinel_master(s)["num-other-sentinels"]) == 2,
                      what="each sentinel to know the replica and the other sentinels over TLS")
    m = tls_client(master, tls_certs)
    for i in range(100):
        m.set("key:%d" % i, i)
    assert m.execute_command("WAIT", 1, 5000) == 1
    m.close()
    master.kill()
    for s in sentinels:
        wait_retrying(lambda: int(ask(s, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", SENTINEL_NAME)[1]) == replica.tls_port,
                      what="every sentinel to name the promoted replica's TLS port")
    wait_retrying(lambda: ask(replica, "INFO", "replication")["role"] == "master", what="the replica promoted")
    assert tls_client(replica, tls_certs).get("key:99") == b"99"
