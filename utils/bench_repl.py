#!/usr/bin/python3
"""bench_repl: the replication figures of issue 14, ours against Debian's
redis-server 7.0.15 (bench.py calls run(); it also runs alone).

  * full sync of 1,000,000 keys: seconds from REPLICAOF to
    master_link_status:up, for ours->ours, ref->ref, ours master->ref replica
    and ref master->our replica (diskless transfer, as 7.0's default, with
    repl-diskless-sync-delay 0 so the delay does not hide the transfer)
  * replication lag under redis-benchmark SET -P 16: the replica's offset
    behind the master's, sampled every few ms (bytes, p50 and p99)
  * the master's SET -P 16 throughput with one replica attached divided by
    its throughput with none (Redis keeps >= 0.9), and the same ratio of the
    master's CPU time per request, which two shared cores do not distort

usage: utils/bench_repl.py [--quick]
"""
import os
import subprocess
import sys
import time

import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:  # the benchmarks' shared server wrapper (utils/benchserver.py on main)
    from benchserver import OURS, REF, Server, pinner, split_cpus  # noqa: E402
except ImportError:
    from bench import OURS, REF, Server  # noqa: E402
    pinner = split_cpus = None

SERVER_ARGS = ("--enable-debug-command", "yes", "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")


def repl_info(r):
    return r.info("replication")


def start(binary, cpus=None):
    return Server(binary, *SERVER_ARGS, cpus=cpus)


def full_sync_seconds(master_bin, replica_bin, keys):
    master, replica = start(master_bin), start(replica_bin)
    try:
        master.r.execute_command("DEBUG", "POPULATE", keys)
        t0 = time.time()
        replica.r.execute_command("REPLICAOF", "127.0.0.1", master.port)
        deadline = t0 + 300
        while repl_info(replica.r).get("master_link_status") != "up":
            if time.time() > deadline:
                raise RuntimeError("full sync did not finish")
            time.sleep(0.005)
        took = time.time() - t0
        assert replica.r.dbsize() == keys
        return took
    finally:
        master.stop()
        replica.stop()


def benchmark_set(port, requests, cpus=None):
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-c", "50", "-n", str(requests), "-P", "16",
                          "-r", "100000", "-t", "set", "--csv", "-q"], capture_output=True, text=True,
                         preexec_fn=pinner(cpus) if pinner else None).stdout
    for line in out.splitlines():
        fields = [f.strip('"') for f in line.split(",")]
        if fields and fields[0] == "SET":
            return float(fields[1])
    raise RuntimeError("no SET figure from redis-benchmark: " + out)


def attached(master, replica):
    replica.r.execute_command("REPLICAOF", "127.0.0.1", master.port)
    while repl_info(replica.r).get("master_link_status") != "up":
        time.sleep(0.01)


def percentile(sorted_values, p):
    if not sorted_values:
        return 0
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * p / 100))]


def lag_bytes(binary, requests):
    """(p50, p99, max) of master_repl_offset - replica offset while redis-benchmark writes."""
    master, replica = start(binary), start(binary)
    try:
        attached(master, replica)
        m = redis.Redis(port=master.port)
        r = redis.Redis(port=replica.port)
        proc = subprocess.Popen(["redis-benchmark", "-p", str(master.port), "-c", "50", "-n", str(requests), "-P",
                                 "16", "-r", "100000", "-t", "set", "-q"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        samples = []
        base = m.info("replication")["master_repl_offset"]
        while proc.poll() is None:
            # the replica first: the master's offset read after it is never older
            ro = r.info("replication")["slave_repl_offset"]
            mo = m.info("replication")["master_repl_offset"]
            if mo > base:  # the load has begun
                samples.append(max(0, mo - ro))
            time.sleep(0.003)
        samples.sort()
        return percentile(samples, 50), percentile(samples, 99), samples[-1] if samples else 0
    finally:
        master.stop()
        replica.stop()


def master_set(master, requests, cpus):
    """(requests/s, master CPU µs per request) of one SET -P 16 run."""
    c0 = master.cpu_seconds()
    rps = benchmark_set(master.port, requests, cpus)
    return rps, (master.cpu_seconds() - c0) / requests * 1e6


def throughput_ratio(binary, requests, rounds=2):
    """((requests/s, master CPU µs/request) alone, the same with one replica):
    SET -P 16 against a master, the best of a few alternating rounds (the
    machine is shared: noise only slows). On two cores the master, its replica
    and redis-benchmark contend for the CPUs, so requests/s with a replica
    mostly shows that contention; the master's CPU time per request shows
    what feeding a replica costs the master itself — on a machine where the
    master has a core of its own its throughput is the inverse of that.
    The master is pinned to one CPU, redis-benchmark and the replica to the
    other(s), so the replica's work does not land on the master's core."""
    master_cpus, other_cpus = split_cpus() if split_cpus else (None, None)
    alone, with_replica = (0, float("inf")), (0, float("inf"))
    for _ in range(rounds):
        master = start(binary, master_cpus)
        try:
            rps, cpu = master_set(master, requests, other_cpus)
            alone = (max(alone[0], rps), min(alone[1], cpu))
        finally:
            master.stop()
        master, replica = start(binary, master_cpus), start(binary, other_cpus)
        try:
            attached(master, replica)
            rps, cpu = master_set(master, requests, other_cpus)
            with_replica = (max(with_replica[0], rps), min(with_replica[1], cpu))
        finally:
            master.stop()
            replica.stop()
    return alone, with_replica


def emit(rows, text):
    print(text, flush=True)
    rows.append(text)


def run(ours_binary=OURS, ref_binary=REF, quick=False):
    """Runs every replication benchmark; returns the lines it printed."""
    rows = []
    keys = 200000 if quick else 1000000
    requests = 300000 if quick else 1000000
    emit(rows, "\n## replication: full sync of %d keys (s from REPLICAOF to link up, diskless transfer)" % keys)
    emit(rows, "%-40s %14s" % ("master -> replica", "seconds"))
    for label, mb, rb in (("ours -> ours", ours_binary, ours_binary), ("reference -> reference", ref_binary, ref_binary),
                          ("ours -> reference replica", ours_binary, ref_binary),
                          ("reference -> our replica", ref_binary, ours_binary)):
        emit(rows, "%-40s %14.3f" % (label, full_sync_seconds(mb, rb, keys)))
    emit(rows, "\n## replication lag under redis-benchmark SET -P 16 -c 50 (%d requests), bytes behind" % requests)
    emit(rows, "%-40s %14s %14s %14s" % ("", "p50", "p99", "max"))
    for label, binary in (("ours", ours_binary), ("reference", ref_binary)):
        p50, p99, worst = lag_bytes(binary, requests)
        emit(rows, "%-40s %14d %14d %14d" % (label, p50, p99, worst))
    emit(rows, "\n## master SET -P 16 with one replica vs none: requests/s, and the master's CPU µs per request "
               "(ratio: alone / with a replica, the throughput ratio of a master with its own core)")
    emit(rows, "%-28s %12s %12s %7s %10s %10s %7s" % ("", "req/s alone", "one replica", "ratio", "µs alone",
                                                     "µs replica", "ratio"))
    for label, binary in (("ours", ours_binary), ("reference", ref_binary)):
        alone, with_replica = throughput_ratio(binary, requests)
        emit(rows, "%-28s %12.0f %12.0f %7.2f %10.3f %10.3f %7.2f" % (
            label, alone[0], with_replica[0], with_replica[0] / alone[0], alone[1], with_replica[1],
            alone[1] / with_replica[1]))
    return rows


if __name__ == "__main__":
    run(quick="--quick" in sys.argv[1:])
