"""nodes.conf (cluster-config-file): every save leaves the file whole and
current, and it stays locked to its node however often it is saved (a
second server given it refuses to start). Ours: the spare file the saves
write and swap in ("<file>.tmp") goes at shutdown, and a spare removed
under the server is made again."""
import os
import pytest

from support import refuses_to_start, start_cluster, wait_for


def conf_lines(node):
    with open(os.path.join(node.dir, "nodes.conf")) as f:
        return f.read().splitlines()


def myself_line(node):
    return [line for line in conf_lines(node) if "myself" in line][0].split()


def test_saves_keep_the_file_current_and_locked(server_factory):
    n = start_cluster(server_factory, ["ours"], cli=False).nodes[0]
    c = n.client()
    c.execute_command("CLUSTER", "FLUSHSLOTS")
    for last in (99, 199, 299):
        c.execute_command("CLUSTER", "ADDSLOTSRANGE", last - 99, last)
        assert c.execute_command("CLUSTER", "SAVECONFIG") in (b"OK", True)
        assert myself_line(n)[8:] == ["0-%d" % last]  # the file has the latest
        assert conf_lines(n)[-1].startswith("vars currentEpoch ")
    path = os.path.join(n.dir, "nodes.conf")
    e = refuses_to_start(lambda: server_factory("--cluster-enabled", "yes", "--cluster-config-file", path))
    assert "Sorry, the cluster configuration file %s is already used by a different Redis Cluster node." % path in e.text


@pytest.mark.ours
def test_the_spare_file(server_factory):
    n = start_cluster(server_factory, ["ours"], cli=False).nodes[0]
    c = n.client()
    spare = os.path.join(n.dir, "nodes.conf.tmp")
    assert c.execute_command("CLUSTER", "SAVECONFIG") in (b"OK", True)
    assert os.path.exists(spare)
    os.unlink(spare)
    c.execute_command("CLUSTER", "FLUSHSLOTS")
    c.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 9)
    assert c.execute_command("CLUSTER", "SAVECONFIG") in (b"OK", True)
    assert myself_line(n)[8:] == ["0-9"]
    assert os.path.exists(spare)
    try:
        c.shutdown(nosave=True)
    except Exception:
        pass  # the connection closes with the server
    wait_for(lambda: n.proc.poll() is not None, what="the server to exit")
    assert not os.path.exists(spare)
    assert myself_line(n)[8:] == ["0-9"]
