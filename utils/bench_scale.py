#!/usr/bin/python3
"""bench_scale: issue 34's production-size figures, ours next to Redis 7.0.15
and Valkey 8.0.1 (bench.py's `scale` section; also runs alone). One server at
a time (each holds N keys; the full sync two), the servers' order rotated
from run to run, the load average printed at every step: on a 2-core machine
shared with others a wall-clock figure says as much about the neighbours as
about the server, so CPU times are given where there are any.

On one server of each kind, in this order:
  * load: N keys `SET vol:N xxxxxxxxxx PX <1-2 h>` through redis-cli --pipe:
    used_memory and RSS per key (after - before, as memrows), and the load time
  * BGSAVE of the N keys while a client writes WRITE_RATE SETs a second to
    random vol: keys (the same offered load on every server): the fork (INFO
    latest_fork_usec), the child's CPU (user+system: the server's reaped
    children's time, /proc/PID/stat cutime+cstime), its copy-on-write bytes
    (INFO rdb_last_cow_size; the peak of current_cow_size seen meanwhile), wall
  * EQUAL_WRITES writes into a BGSAVE held back by rdb-key-save-delay: the
    child's copy-on-write read from its /proc, the same writes on every server
  * BGREWRITEAOF, the same (aof_last_cow_size)
  * a full sync to a fresh replica of the same kind (diskless on the master,
    delay 0; the replica loads from disk, the default), under the same
    writes: the master's fork, child CPU, rdb_last_cow_size, the replica's
    CPU over the sync and its load (from its log: "Loading DB in memory" to
    "Finished with success"), wall until master_link_status:up
  * start-up load of the BGSAVE's RDB: the log's "DB loaded from disk", the
    new process's CPU, wall until it answers
  * expiry lateness: 2000 probe keys expiring over 5 s, client side as
    utils/expiry_lag.py (its probe_lags), and the server's own INFO
    expired_lateness_* where it has them (ours; a dash for the others)
  * MASS keys due at the same millisecond (utils/mass_expiry.py's run): time
    until all are gone, the worst LATENCY LATEST event (threshold 1 ms), GET
    p99 from another client during the removal and over a second before it

usage: utils/bench_scale.py [--keys N] [--run K] [--runs R] [--mass M]
"""
import argparse
import datetime
import multiprocessing
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expiry_lag  # noqa: E402
import mass_expiry  # noqa: E402
import memrows  # noqa: E402
from benchserver import Server, reaped_children_cpu_seconds, servers  # noqa: E402

KEYS = 10000000
WRITE_RATE = 5000      # SETs a second during the fork steps
EQUAL_WRITES = 100000  # writes into a held-back BGSAVE, the same count on every server
PROBES, SPREAD, PROBE_WAIT = 2000, 5.0, 30.0
MASS, MASS_WAIT = 1000000, 30.0
RUN_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "bench_scale.run")


def ttl_ms(i):
    """Key i's PX: 1-2 h, spread over the keys the same way on every server."""
    return 3600000 + (i * 7919) % 3600000


def write_protocol(path, n):
    """The N keys' SETs as RESP, written once to a file every server is fed from."""
    with open(path, "wb") as f:
        for lo in range(0, n, 100000):
            f.write(b"".join(memrows.bulk(b"SET", b"vol:%d" % i, b"xxxxxxxxxx", b"PX", b"%d" % ttl_ms(i))
                             for i in range(lo, min(n, lo + 100000))))


def step(label, what):
    print("  %-6s load average %.2f %.2f %.2f: %s" % ((label,) + os.getloadavg() + (what,)), flush=True)


def write_batch(rng, n):
    """100 SETs of random vol: keys, the write load's unit."""
    return b"".join(memrows.bulk(b"SET", b"vol:%d" % i, b"yyyyyyyyyy", b"PX", b"%d" % ttl_ms(i))
                    for i in (rng.randrange(n) for _ in range(100)))


def send_batch(sock, rng, n):
    """One write_batch, waiting for its 100 replies (+OK, one newline each:
    counted by "\n", which a read cannot split as it can split "\r\n")."""
    sock.sendall(write_batch(rng, n))
    got = 0
    while got < 100:
        got += sock.recv(65536).count(b"\n")


def writer(port, n, rate, stop, done):
    """The write load, in its own process: SET vol:<random> at `rate` a second
    in batches of 100, on a fixed schedule (a batch that is late goes at once:
    every server is offered the same writes per second); done: the count so far."""
    rng = random.Random(34)
    sock = socket.create_connection(("127.0.0.1", port))
    interval = 100 / rate
    next_t = time.monotonic()
    count = 0
    while not stop.is_set():
        send_batch(sock, rng, n)
        count += 100
        done.value = count
        next_t += interval
        delay = next_t - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    sock.close()


class Writes:
    def __init__(self, port, n):
        ctx = multiprocessing.get_context("fork")
        self.stop_ev, self.done = ctx.Event(), ctx.Value("q", 0)
        self.proc = ctx.Process(target=writer, args=(port, n, WRITE_RATE, self.stop_ev, self.done), daemon=True)
        self.proc.start()

    def count(self):
        return self.done.value

    def stop(self):
        self.stop_ev.set()
        self.proc.join()
        return self.done.value


def child_step(s, n, start, running, cow_field, r=None):
    """A fork step on s under the write load: start() begins it, running(INFO
    persistence) says it goes on. r: where to poll INFO (the master)."""
    r = r or s.r
    forks0 = r.info("stats")["total_forks"]
    cpu0 = reaped_children_cpu_seconds(s.pid)
    w = Writes(s.port, n)
    time.sleep(1)  # the writes run before the fork too
    t0 = time.time()
    w0 = w.count()
    start()
    peak = 0
    while True:
        p = r.info("persistence")
        peak = max(peak, p["current_cow_size"])
        if r.info("stats")["total_forks"] > forks0 and not running(p):
            break
        time.sleep(0.05)
    wall = time.time() - t0
    during = w.count() - w0
    w.stop()
    return {"fork_ms": r.info("stats")["latest_fork_usec"] / 1000, "child_cpu": reaped_children_cpu_seconds(s.pid) - cpu0,
            "cow": p[cow_field] / 1e6, "peak": peak / 1e6, "wall": wall, "writes": during}


def private_dirty(pid):
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("Private_Dirty:"):
                return int(line.split()[1]) * 1024
    return 0


def equal_writes_cow(s, n):
    """Copy-on-write of the same EQUAL_WRITES writes on every server: a BGSAVE
    held back by rdb-key-save-delay, the writes sent at once, the child's
    Private_Dirty read from its /proc before and after (the servers' own
    readings can be seconds old), then the child stopped with SIGUSR1 (not a
    failed save). At the fixed rate above a faster child meets fewer writes;
    here every server meets as many."""
    s.r.config_set("rdb-key-save-delay", "100000")
    s.r.bgsave()
    deadline = time.time() + 10
    while True:
        with open("/proc/%d/task/%d/children" % (s.pid, s.pid)) as f:
            kids = f.read().split()
        if kids or time.time() > deadline:
            break
        time.sleep(0.01)
    child = int(kids[0])
    time.sleep(0.5)
    before = private_dirty(child)
    rng = random.Random(35)
    sock = socket.create_connection(("127.0.0.1", s.port))
    for _ in range(EQUAL_WRITES // 100):
        send_batch(sock, rng, n)
    sock.close()
    time.sleep(0.5)
    after = private_dirty(child)
    os.kill(child, signal.SIGUSR1)
    while s.r.info("persistence")["rdb_bgsave_in_progress"]:
        time.sleep(0.05)
    s.r.config_set("rdb-key-save-delay", "0")
    return {"cow": (after - before) / 1e6, "per_write": (after - before) / 1e3 / EQUAL_WRITES}


def log_time(line):
    """The timestamp of a log line `pid:X 01 Jan 2024 10:00:00.123 * ...`."""
    m = re.match(r"\d+:\w (\d+ \w+ \d+ [\d:.]+)", line)
    return datetime.datetime.strptime(m.group(1), "%d %b %Y %H:%M:%S.%f").timestamp() if m else None


def replica_load_s(log):
    """Seconds from the replica's "sync: Loading DB in memory" to its "sync:
    Finished with success" (Valkey says PRIMARY for MASTER)."""
    t0 = t1 = None
    for line in log.splitlines():
        if t0 is None and "REPLICA sync: Loading DB in memory" in line:
            t0 = log_time(line)
        elif t0 is not None and "REPLICA sync: Finished with success" in line:
            t1 = log_time(line)
            break
    return t1 - t0 if t0 is not None and t1 is not None else None


def full_sync(s, binary, n):
    s.r.config_set("repl-diskless-sync", "yes")
    s.r.config_set("repl-diskless-sync-delay", "0")
    rep = Server(binary, "--repl-diskless-load", "disabled")
    try:
        rcpu0 = rep.cpu_seconds()
        started, up = [], []

        def start():
            started.append(time.time())
            rep.r.execute_command("REPLICAOF", "127.0.0.1", str(s.port))

        def running(p):
            if not up and rep.r.info("replication").get("master_link_status") == "up":
                up.append(time.time())
            return not up or p["rdb_bgsave_in_progress"]

        res = child_step(s, n, start, running, "rdb_last_cow_size")
        res["wall"] = up[0] - started[0]  # until the link is up
        res["replica_cpu"] = rep.cpu_seconds() - rcpu0
        with open(rep.log) as f:
            res["replica_load"] = replica_load_s(f.read())
        if rep.r.dbsize() < n:
            raise RuntimeError("%s: the replica has %d keys of %d" % (binary, rep.r.dbsize(), n))
    finally:
        rep.stop()
    return res


def startup_load(s, n):
    with open(s.log) as f:
        off = len(f.read())
    t0 = time.time()
    s.restart()
    wall = time.time() - t0
    cpu = s.cpu_seconds()
    with open(s.log) as f:
        m = re.search(r"DB loaded from disk: ([0-9.]+) seconds", f.read()[off:])
    if s.r.dbsize() != n:
        raise RuntimeError("%s loaded %d keys of %d" % (s.binary, s.r.dbsize(), n))
    return {"log_s": float(m.group(1)) if m else None, "wall": wall, "cpu": cpu}


def lateness(s):
    s.r.config_resetstat()
    lags = expiry_lag.probe_lags(s.r, PROBES, SPREAD, PROBE_WAIT)
    own = s.r.info("expiry_push")
    res = {"delivered": len(lags), "p50": expiry_lag.percentile(lags, 50) if lags else None,
           "p99": expiry_lag.percentile(lags, 99) if lags else None, "max": lags[-1] if lags else None}
    for q in ("p50", "p99", "p999", "max"):
        res["own_" + q] = own.get("expired_lateness_%s_us" % q)
    return res


def mass(s):
    s.r.config_resetstat()
    res = mass_expiry.run(s.port, MASS, threshold=1, wait=MASS_WAIT, flush=False, idle=1.0)
    own = s.r.info("expiry_push")
    res["own_p99"] = own.get("expired_lateness_p99_us")
    res["own_max"] = own.get("expired_lateness_max_us")
    return res


def measure(label, binary, n, protocol):
    """Every step on one server of `binary`; returns {step: {figure: value}}."""
    out = {}
    s = Server(binary, timeout=60)
    try:
        step(label, "loading %d keys" % n)
        time.sleep(memrows.SETTLE)
        before = memrows.process_memory(s)
        t0 = time.time()
        with open(protocol, "rb") as f:
            subprocess.run(["redis-cli", "-p", str(s.port), "--pipe"], stdin=f, stdout=subprocess.DEVNULL, check=True)
        took = time.time() - t0
        if s.r.dbsize() != n:
            raise RuntimeError("%s: loaded %d keys of %d" % (binary, s.r.dbsize(), n))
        time.sleep(memrows.LOADED_SETTLE)
        after = memrows.process_memory(s)
        out["load"] = {"used": (after[0] - before[0]) / n, "rss": (after[1] - before[1]) / n, "s": took}
        step(label, "BGSAVE")
        out["bgsave"] = child_step(s, n, s.r.bgsave, lambda p: p["rdb_bgsave_in_progress"], "rdb_last_cow_size")
        step(label, "%d writes into a held-back BGSAVE" % EQUAL_WRITES)
        out["equal"] = equal_writes_cow(s, n)
        step(label, "BGREWRITEAOF")
        out["aof"] = child_step(s, n, s.r.bgrewriteaof,
                                lambda p: p["aof_rewrite_in_progress"] or p["aof_rewrite_scheduled"], "aof_last_cow_size")
        step(label, "full sync to a replica")
        out["sync"] = full_sync(s, binary, n)
        step(label, "restart: start-up load of the RDB")
        out["startup"] = startup_load(s, n)
        step(label, "expiry lateness of %d probes" % PROBES)
        out["lag"] = lateness(s)
        step(label, "%d keys due at once" % MASS)
        out["mass"] = mass(s)
        step(label, "done")
    finally:
        s.stop()
    return out


def rows(res, n):
    """The figures of one run, side by side (bench.py's row3)."""
    from bench import header, row3

    def r3(name, stepname, key, unit="", scale=1.0, note=""):
        vals = {}
        for label, figs in res.items():
            v = figs[stepname].get(key)
            vals[label] = v * scale if v is not None else None
        row3(name, vals, unit, note)

    k = memrows.count(n)
    header("scale: %s keys SET vol:N <10 B> PX <1-2 h>, one server at a time; writes during forks: %d SET/s"
           % (k, WRITE_RATE))
    r3("%s keys: used_memory per key" % k, "load", "used", "B/key")
    r3("%s keys: RSS per key" % k, "load", "rss", "B/key")
    r3("%s keys: redis-cli --pipe load" % k, "load", "s", "s")
    r3("CoW of %d writes, held-back BGSAVE" % EQUAL_WRITES, "equal", "cow", "MB",
       note="the child's Private_Dirty from /proc")
    r3("  the same per write", "equal", "per_write", "kB")
    for stepname, what, cow in (("bgsave", "BGSAVE", "rdb_last_cow_size"), ("aof", "BGREWRITEAOF", "aof_last_cow_size"),
                                ("sync", "full sync", "master's rdb_last_cow_size")):
        r3("%s: fork (latest_fork_usec)" % what, stepname, "fork_ms", "ms")
        r3("%s: child CPU user+sys" % what, stepname, "child_cpu", "s")
        r3("%s: copy-on-write (%s)" % (what, cow), stepname, "cow", "MB")
        r3("%s: current_cow_size peak seen" % what, stepname, "peak", "MB")
        r3("%s: writes while the child ran" % what, stepname, "writes")
        r3("%s: wall" % what, stepname, "wall", "s", note="until link up" if stepname == "sync" else "")
    r3("full sync: replica CPU over the sync", "sync", "replica_cpu", "s")
    r3("full sync: replica load (its log)", "sync", "replica_load", "s")
    r3("start-up load: DB loaded from disk (log)", "startup", "log_s", "s")
    r3("start-up load: process CPU", "startup", "cpu", "s")
    r3("start-up load: wall until it answers", "startup", "wall", "s")
    r3("%d probes over %g s: delivered in %g s" % (PROBES, SPREAD, SPREAD + PROBE_WAIT), "lag", "delivered")
    for q in ("p50", "p99", "max"):
        r3("probe lateness %s (client)" % q, "lag", q, "ms")
    for q in ("p50", "p99", "p999", "max"):
        r3("probe lateness %s (server INFO)" % q, "lag", "own_" + q, "ms", 1e-3, "expired_lateness_%s_us" % q)
    m = memrows.count(MASS)
    r3("%s due at once: all gone after" % m, "mass", "removal_s", "s", note="dash: not within %g s" % MASS_WAIT)
    r3("%s due at once: keys left at the end" % m, "mass", "left")
    worst = {label: max((e[1] for e in f["mass"]["events"]), default=0) for label, f in res.items()}
    row3("%s due at once: worst LATENCY LATEST event" % m, worst, "ms", "threshold 1 ms")
    for what, key in (("idle", "idle"), ("during removal", "during")):
        row3("%s due at once: GET p99 %s" % (m, what),
             {label: f["mass"][key][2] if f["mass"][key] else None for label, f in res.items()}, "ms")
    row3("%s due at once: GET p99 during / idle" % m,
         {label: f["mass"]["during"][2] / f["mass"]["idle"][2] if f["mass"]["during"] and f["mass"]["idle"] else None
          for label, f in res.items()})
    r3("%s due at once: server lateness p99 (INFO)" % m, "mass", "own_p99", "ms", 1e-3)
    r3("%s due at once: server lateness max (INFO)" % m, "mass", "own_max", "ms", 1e-3)


def next_run():
    """This invocation's run number, kept in build/: each run starts with the next server."""
    try:
        with open(RUN_FILE) as f:
            k = int(f.read().strip() or 0)
    except (OSError, ValueError):
        k = 0
    try:
        os.makedirs(os.path.dirname(RUN_FILE), exist_ok=True)
        with open(RUN_FILE, "w") as f:
            f.write("%d\n" % (k + 1))
    except OSError:
        pass
    return k


def run(n=KEYS, first_run=None, runs=1, server_list=None):
    server_list = server_list or servers()
    first_run = next_run() if first_run is None else first_run
    work = tempfile.mkdtemp(prefix="bench-scale-")
    try:
        protocol = os.path.join(work, "keys.resp")
        t = time.time()
        write_protocol(protocol, n)
        print("(scale: the %d keys' protocol written in %.0f s)" % (n, time.time() - t))
        for k in range(first_run, first_run + runs):
            j = k % len(server_list)
            order = server_list[j:] + server_list[:j]
            print("\n## scale run %d: order %s" % (k, ", ".join(label for label, _ in order)), flush=True)
            res = {}
            for label, binary in order:
                res[label] = measure(label, binary, n, protocol)
            rows(res, n)
    finally:
        for name in os.listdir(work):
            os.unlink(os.path.join(work, name))
        os.rmdir(work)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="issue 34's scale figures, ours vs Redis 7.0.15 vs Valkey 8.0.1")
    ap.add_argument("--keys", type=int, default=KEYS, help="N (default %(default)s)")
    ap.add_argument("--run", type=int, help="run number: which server goes first (default: the next, kept in build/)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--mass", type=int, default=MASS, help="keys due at once (default %(default)s)")
    a = ap.parse_args()
    MASS = a.mass
    run(a.keys, a.run, a.runs)
