#!/usr/bin/python3
"""bench_cluster: Redis Cluster figures, ours next to Debian's redis-server
7.0.15 (bench.py's `cluster` section; also runnable alone):

  * a 3-master cluster, redis-benchmark --cluster SET/GET -c 50 -P 16: server
    CPU per request (the three masters' user+system time over the requests)
  * the cost of cluster mode on one node: CPU per SET -P 16 with
    cluster-enabled yes (all 16384 slots served) and no
  * resharding: the seconds `redis-cli --cluster reshard` takes to move every
    slot (and its keys) of one master of two to the other
  * failover: kill -9 of a master (cluster-node-timeout 3000, one replica
    each), the milliseconds until its replica accepts a write to its slots

usage: utils/bench_cluster.py [--quick] [--keys N]
"""
import argparse
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchserver import OURS, REF, process_cpu_seconds  # noqa: E402

CLUSTER_PORT_INCR = 10000


def port_pair_free():
    """A client port whose bus port (+10000) is free too."""
    for _ in range(200):
        p = random.randint(20000, 29999)
        ok = True
        for q in (p, p + CLUSTER_PORT_INCR):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", q))
                except OSError:
                    ok = False
        if ok:
            return p
    raise RuntimeError("no free port pair")


class Node:
    def __init__(self, binary, *args, node_timeout=3000):
        self.dir = tempfile.mkdtemp(prefix="bench-cluster-")
        self.port = port_pair_free()
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir, "--logfile", os.path.join(self.dir, "log"), "--cluster-enabled", "yes",
             "--cluster-config-file", os.path.join(self.dir, "nodes.conf"),
             "--cluster-node-timeout", str(node_timeout)] + list(args),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.r = redis.Redis(port=self.port)
        deadline = time.time() + 10
        while True:
            try:
                self.r.ping()
                break
            except redis.ConnectionError:
                if time.time() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("%s did not start" % binary)
                time.sleep(0.02)

    def cpu_seconds(self):
        return process_cpu_seconds(self.proc.pid)

    def kill9(self):
        self.proc.kill()
        self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def wait_ok(nodes, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if all(b"cluster_state:ok" in n.r.execute_command("CLUSTER", "INFO") for n in nodes):
                return
        except redis.ConnectionError:
            pass
        time.sleep(0.1)
    raise RuntimeError("cluster not ok")


def create(binary, masters, replicas=0, node_timeout=3000):
    nodes = [Node(binary, node_timeout=node_timeout) for _ in range(masters * (1 + replicas))]
    if masters >= 3:
        cmd = ["redis-cli", "--cluster", "create"] + ["127.0.0.1:%d" % n.port for n in nodes]
        if replicas:
            cmd += ["--cluster-replicas", str(replicas)]
        subprocess.run(cmd + ["--cluster-yes"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        # redis-cli --cluster create wants three masters: fewer are met and given slots by hand
        per = 16384 // masters
        for i, n in enumerate(nodes[:masters]):
            end = 16383 if i == masters - 1 else (i + 1) * per - 1
            n.r.execute_command("CLUSTER", "ADDSLOTSRANGE", str(i * per), str(end))
            n.r.execute_command("CLUSTER", "SET-CONFIG-EPOCH", str(i + 1))
        for n in nodes[1:]:
            nodes[0].r.execute_command("CLUSTER", "MEET", "127.0.0.1", str(n.port))
    wait_ok(nodes)
    return nodes


def stop_all(nodes):
    for n in nodes:
        n.stop()


def masters_of(nodes):
    return [n for n in nodes if n.proc.poll() is None and n.r.info("replication")["role"] == "master"]


# ------------------------------------------------------------------ figures

def cluster_cpu(binary, n):
    nodes = create(binary, 3)
    try:
        out = {}
        for test in ("set", "get"):
            c0 = sum(x.cpu_seconds() for x in nodes)
            subprocess.run(["redis-benchmark", "--cluster", "-p", str(nodes[0].port), "-c", "50", "-P", "16", "-n",
                            str(n), "-r", "100000", "-t", test, "-q"], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            out[test] = (sum(x.cpu_seconds() for x in nodes) - c0) / n * 1e6
        return out
    finally:
        stop_all(nodes)


def single_node_cpu(binary, n, cluster):
    if cluster:
        node = Node(binary)
        node.r.execute_command("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
        wait_ok([node])
    else:
        node = Node(binary, "--cluster-enabled", "no")
    try:
        c0 = node.cpu_seconds()
        subprocess.run(["redis-benchmark", "-p", str(node.port), "-c", "50", "-P", "16", "-n", str(n), "-r", "100000",
                        "-t", "set", "-q"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return (node.cpu_seconds() - c0) / n * 1e6
    finally:
        node.stop()


def crc16(data):
    crc = 0
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def resharding(binary, keys):
    nodes = create(binary, 2)
    try:
        a, b = nodes
        ids = {n.port: n.r.execute_command("CLUSTER", "MYID").decode() for n in nodes}
        owned = set()
        for start, end, master, *_ in a.r.execute_command("CLUSTER", "SLOTS"):
            if master[1] == a.port:
                owned.update(range(start, end + 1))
        # keys of a's slots only, loaded as a client would
        buf, made, i = [], 0, 0
        while made < keys:
            k = b"k:%d" % i
            i += 1
            if crc16(k) % 16384 in owned:
                buf.append(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$8\r\nxxxxxxxx\r\n" % (len(k), k))
                made += 1
        subprocess.run(["redis-cli", "-p", str(a.port), "--pipe"], input=b"".join(buf), check=True,
                       stdout=subprocess.DEVNULL)
        t0 = time.time()
        subprocess.run(["redis-cli", "--cluster", "reshard", "127.0.0.1:%d" % a.port, "--cluster-from", ids[a.port],
                        "--cluster-to", ids[b.port], "--cluster-slots", str(len(owned)), "--cluster-yes",
                        "--cluster-pipeline", "1000"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        took = time.time() - t0
        moved = b.r.dbsize()
        return took, moved
    finally:
        stop_all(nodes)


def failover_ms(binary):
    nodes = create(binary, 3, replicas=1, node_timeout=3000)
    try:
        time.sleep(7)  # the replicas' first sync (repl-diskless-sync-delay 5)
        victim = masters_of(nodes)[0]
        myid = victim.r.execute_command("CLUSTER", "MYID").decode()
        replica = None
        for n in nodes:
            if n is not victim and n.r.info("replication")["role"] == "slave":
                line = [x for x in n.r.execute_command("CLUSTER", "NODES").decode().splitlines() if "myself" in x][0]
                if line.split()[3] == myid:
                    replica = n
        slot = None
        for start, end, master, *_ in victim.r.execute_command("CLUSTER", "SLOTS"):
            if master[1] == victim.port:
                slot = start
        key = None
        for i in range(200000):
            k = b"f:%d" % i
            if crc16(k) % 16384 == slot:
                key = k
                break
        victim.kill9()
        t0 = time.time()
        while time.time() - t0 < 60:
            try:
                replica.r.set(key, b"1")
                return (time.time() - t0) * 1000
            except redis.ResponseError:
                time.sleep(0.01)
        return float("nan")
    finally:
        stop_all(nodes)


def run(quick=False, keys=None):
    servers = [("ours", OURS), ("redis", REF)]
    n = 200000 if quick else 1000000
    keys = keys or (100000 if quick else 1000000)
    print("\n## cluster: 3 masters, redis-benchmark --cluster -c 50 -P 16 -n %d: server CPU µs per request "
          "(ours / redis)" % n)
    res = {label: cluster_cpu(b, n) for label, b in servers}
    for test in ("set", "get"):
        print("  %-34s %8.3f %8.3f  ratio %.2f" % (test.upper() + " -P 16, 3 masters", res["ours"][test],
                                                   res["redis"][test], res["ours"][test] / res["redis"][test]))
    print("## cluster mode on one node: CPU µs per SET -P 16 (-n %d), cluster-enabled no / yes" % n)
    for label, b in servers:
        no, yes = single_node_cpu(b, n, False), single_node_cpu(b, n, True)
        print("  %-6s no %.3f  yes %.3f  (+%.1f%%)" % (label, no, yes, (yes / no - 1) * 100))
    print("## resharding %d keys (all slots of one master of two; redis-cli --cluster reshard --cluster-pipeline "
          "1000): seconds" % keys)
    for label, b in servers:
        took, moved = resharding(b, keys)
        print("  %-6s %.1f s (%d keys on the target after)" % (label, took, moved))
    print("## failover: kill -9 of a master (node timeout 3000 ms) until its replica accepts a write: ms")
    for label, b in servers:
        print("  %-6s %.0f ms" % (label, failover_ms(b)))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--keys", type=int)
    a = ap.parse_args()
    run(a.quick, a.keys)
