#!/usr/bin/python3
"""bench_repl: the replication figures of issue 14, ours against Debian's
redis-server 7.0.15 (bench.py calls run(); it also runs alone).

  * full sync of 1,000,000 keys: seconds from REPLICAOF to
    master_link_status:up, for ours->ours, ref->ref, ours master->ref replica
    and ref master->our replica (diskless transfer, as 7.0's default, with
    repl-diskless-sync-delay 0 so the delay does not hide the transfer)
  * replication lag under redis-benchmark SET -P 16: the replica's offset
    behind the master's, sampled every few ms, in bytes and in ms (how long
    ago the master was at the replica's offset); p50, p99 and max
  * the master's SET -P 16 throughput with one replica attached divided by
    its throughput with none (Redis keeps >= 0.9 where each process has a
    core of its own), measured so that two cores can show it (see
    throughput_ratio), and the same ratio in instructions under callgrind

usage: utils/bench_repl.py [--quick]
"""
import bisect
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchserver import OURS, REF, Server, callgrind_totals, pinner, split_cpus  # noqa: E402

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
                         preexec_fn=pinner(cpus)).stdout
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


def behind_ms(history, ro, now):
    """How long ago the master's offset was ro: the replica's state's age, in
    ms, interpolated in history [(time, master offset)] (0 when caught up)."""
    if ro >= history[-1][1]:
        return 0.0
    i = bisect.bisect_left(history, ro, key=lambda h: h[1])
    if i == 0:
        return (now - history[0][0]) * 1000
    (t0, o0), (t1, o1) = history[i - 1], history[i]
    return (now - (t0 + (t1 - t0) * (ro - o0) / (o1 - o0))) * 1000


def lag(binary, requests):
    """(bytes, ms) samples of how far the replica is behind the master while
    redis-benchmark writes: master_repl_offset - the replica's offset, and the
    time since the master was at the replica's offset. Bytes alone would rank
    the faster master worse: it produces more of them a second."""
    master, replica = start(binary), start(binary)
    try:
        attached(master, replica)
        m = redis.Redis(port=master.port)
        r = redis.Redis(port=replica.port)
        proc = subprocess.Popen(["redis-benchmark", "-p", str(master.port), "-c", "50", "-n", str(requests), "-P",
                                 "16", "-r", "100000", "-t", "set", "-q"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        bytes_behind, ms_behind = [], []
        base = m.info("replication")["master_repl_offset"]
        history = [(time.time(), base)]
        while proc.poll() is None:
            # the replica first: the master's offset read after it is never older
            ro = r.info("replication")["slave_repl_offset"]
            mo = m.info("replication")["master_repl_offset"]
            now = time.time()
            if mo > history[-1][1]:
                history.append((now, mo))
            if mo > base:  # the load has begun
                bytes_behind.append(max(0, mo - ro))
                ms_behind.append(behind_ms(history, ro, now))
            time.sleep(0.003)
        return sorted(bytes_behind), sorted(ms_behind)
    finally:
        master.stop()
        replica.stop()


def sched_idle(pid):
    """Every thread of pid (and those it starts later) at SCHED_IDLE: it runs
    only when its CPU has nothing else to run."""
    for tid in os.listdir("/proc/%d/task" % pid):
        os.sched_setscheduler(int(tid), os.SCHED_IDLE, os.sched_param(0))


def master_run(binary, requests, with_replica):
    """(requests/s, master CPU µs per request) of one SET -P 16 run.

    On two cores the master, its replica and redis-benchmark cannot each have
    a core: a replica sharing redis-benchmark's CPU as an equal slows the
    load it offers (and the master, getting smaller batches, spends more per
    request), so the figure would show the machine, not the master. Here the
    master has one CPU to itself and redis-benchmark the other, with and
    without a replica alike; the replica shares redis-benchmark's CPU at
    SCHED_IDLE (it runs while redis-benchmark waits for replies, and takes no
    time from it), and the master's CPU time counts until the replica has
    caught up, so every byte the master sends it is paid for in the figure."""
    master_cpus, other_cpus = split_cpus()
    master = start(binary, master_cpus)
    replica = None
    try:
        if with_replica:
            replica = start(binary, other_cpus)
            sched_idle(replica.pid)
            attached(master, replica)
        c0 = master.cpu_seconds()
        rps = benchmark_set(master.port, requests, other_cpus)
        if replica:
            end = repl_info(master.r)["master_repl_offset"]
            while repl_info(replica.r)["slave_repl_offset"] < end:
                time.sleep(0.002)
        return rps, (master.cpu_seconds() - c0) / requests * 1e6
    finally:
        master.stop()
        if replica:
            replica.stop()


def throughput_ratio(binary, requests, rounds):
    """Medians over rounds of short runs, alone and with a replica in turn
    (this machine's speed drifts by tens of per cent from minute to minute;
    each pair of runs is seconds apart): ((requests/s, µs/request) alone,
    the same with one replica)."""
    alone, with_replica = [], []
    for _ in range(rounds):
        alone.append(master_run(binary, requests, False))
        with_replica.append(master_run(binary, requests, True))
    med = lambda runs, i: statistics.median(r[i] for r in runs)  # noqa: E731
    return (med(alone, 0), med(alone, 1)), (med(with_replica, 0), med(with_replica, 1))


def instructions_per_set(binary, requests, with_replica):
    """The master's instructions per SET -P 16 under callgrind (user space,
    deterministic), counted from after a warm-up that fills the keyspace."""
    outdir = tempfile.mkdtemp(prefix="bench-cg-")
    out = os.path.join(outdir, "cg.out")
    master = Server(binary, *SERVER_ARGS, wrapper=["valgrind", "--tool=callgrind", "--instr-atstart=no",
                                                   "--callgrind-out-file=" + out], timeout=120)
    replica = None
    try:
        if with_replica:
            replica = start(binary)
            attached(master, replica)
        benchmark_set(master.port, requests)  # the keys exist: every later SET overwrites, as in the run
        subprocess.run(["callgrind_control", "-i", "on", str(master.pid)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        benchmark_set(master.port, requests)
        subprocess.run(["callgrind_control", "-i", "off", str(master.pid)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        subprocess.run(["callgrind_control", "-d", str(master.pid)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        return callgrind_totals(out + ".1") / requests  # the first dump: what ran while instrumented
    finally:
        master.stop()
        if replica:
            replica.stop()
        shutil.rmtree(outdir, ignore_errors=True)


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
    emit(rows, "\n## replication lag under redis-benchmark SET -P 16 -c 50 (%d requests): bytes behind the master, "
               "and ms since the master was where the replica is" % requests)
    emit(rows, "%-40s %10s %10s %10s %8s %8s %8s" % ("", "bytes p50", "p99", "max", "ms p50", "p99", "max"))
    for label, binary in (("ours", ours_binary), ("reference", ref_binary)):
        b, ms = lag(binary, requests)
        emit(rows, "%-40s %10d %10d %10d %8.1f %8.1f %8.1f" % (
            label, percentile(b, 50), percentile(b, 99), b[-1] if b else 0, percentile(ms, 50), percentile(ms, 99),
            ms[-1] if ms else 0))
    rounds = 3 if quick else 8
    emit(rows, "\n## master SET -P 16 (%d requests) with one replica vs none: the master on one CPU, redis-benchmark "
               "on the other, the replica on redis-benchmark's CPU at SCHED_IDLE (master CPU counted until it caught "
               "up); median of %d rounds" % (requests // 3, rounds))
    emit(rows, "%-28s %12s %12s %7s %10s %10s %7s" % ("", "req/s alone", "one replica", "ratio", "µs alone",
                                                     "µs replica", "ratio"))
    for label, binary in (("ours", ours_binary), ("reference", ref_binary)):
        alone, with_replica = throughput_ratio(binary, requests // 3, rounds)
        emit(rows, "%-28s %12.0f %12.0f %7.2f %10.3f %10.3f %7.2f" % (
            label, alone[0], with_replica[0], with_replica[0] / alone[0], alone[1], with_replica[1],
            alone[1] / with_replica[1]))
    if shutil.which("valgrind") and shutil.which("callgrind_control"):
        n = 50000 if quick else 200000
        emit(rows, "\n## the master's instructions per SET -P 16 under callgrind, alone vs one replica (%d requests)" % n)
        emit(rows, "%-28s %12s %12s %7s" % ("", "Ir alone", "one replica", "ratio"))
        for label, binary in (("ours", ours_binary), ("reference", ref_binary)):
            alone, with_replica = instructions_per_set(binary, n, False), instructions_per_set(binary, n, True)
            emit(rows, "%-28s %12.0f %12.0f %7.2f" % (label, alone, with_replica, alone / with_replica))
    return rows


if __name__ == "__main__":
    run(quick="--quick" in sys.argv[1:])
