#!/usr/bin/python3
"""bench: one run of every benchmark against our server, Debian's redis-server
7.0.15 and (where it is about speed or memory) Valkey 8.0.1, printing the
figures side by side and the ratios ours/Redis and ours/Valkey.

  * throughput: redis-benchmark -c 50, pipelines -P 1 and -P 16
  * memory: used_memory, RSS and anonymous RSS of an empty server, and per item of the
    data sets of issue 17 and four big collections (utils/memrows.py); `volatile` and
    `datatypes` are parts of it
  * cpu: server CPU time (user+system, from the scheduler's per-thread run time)
    per request, -c 50 -P 16 / -P 1 -r 100000, one test at a time, the server
    pinned to one CPU and redis-benchmark to the other(s), rounds of fresh
    servers (6 at -P 16, 30 at -P 1) in which each test runs in three chunks
    the servers take in turn (medians, the median of the chunks' own ratios,
    spread, and in how many chunks ours was lower, with its sign-test p);
    with --callgrind also instructions per request under valgrind, which the
    machine's noise does not move
  * latency: p50/p99 with -c 1000 -P 1, GET and SET (pinned as cpu)
  * SET EX throughput; expiry lag (utils/expiry_lag.py); GET latency during a
    mass expiry and the 0MQ push rate (utils/mass_expiry.py)   [ours vs Redis]; the push
    rate to a live consumer, plain and with acks, 100-byte values (utils/push_rate.py)
  * the push's disk spool: GET latency during a mass expiry with no consumer, spool write and replay
    rates, bytes on disk per message (utils/spool_bench.py)   [ours]
  * SAVE/load time and RDB size; SET with appendfsync everysec  [ours vs Redis]
  * EVALSHA, MULTI/EXEC, PUBLISH, SET with keyspace notifications [ours vs Redis]
  * repl: full sync time both ways, replication lag, master throughput with a replica (utils/bench_repl.py) [ours vs Redis]
  * blocking: lateness of blocking-command timeouts, 10,000 clients on mixed deadlines
    (utils/blocking_lateness.py)                                 [ours vs Redis]
  * scale: N volatile keys (--scale-keys, default 10,000,000; 1,000,000 with --quick): memory per
    key, BGSAVE / AOF rewrite / full sync under writes (fork, child CPU, copy-on-write), start-up
    load, expiry lateness (client and server side), 1M keys due at once (utils/bench_scale.py)

usage: utils/bench.py [--quick] [--callgrind] [--scale-keys N] [--only SECTION,...]   (sections: see --help)
Servers are started on free ports in temporary directories, all with the same
settings (save "", appendonly no), and stopped at the end. Valkey's binary is
taken from VALKEY_SERVER (built from github.com/valkey-io/valkey tag 8.0.1, see
README.md); without it its column is left out, with a note saying so.
"""
import argparse
import csv
import io
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memrows  # noqa: E402
from benchserver import (OURS, REF, Server, callgrind_totals, free_port, load_protocol, pinner, raise_nofile, servers,
                         split_cpus, valkey_missing)  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = "set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange_100,lrange_600,mset"
SERVERS = servers()  # [(label, binary)]: ours, redis and valkey when present


def fmt(v):
    if v is None:
        return "-"
    if abs(v) < 10:
        return "%.3f" % v
    if abs(v) < 1000:
        return "%.1f" % v
    return "%.0f" % v


def ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "-"


def header(title):
    print("\n## " + title)
    print("%-48s %12s %12s %12s %8s %8s" % ("", "ours", "redis-7.0", "valkey-8.0", "o/redis", "o/valkey"),
          flush=True)


def row(name, ours, ref, valkey=None, unit="", note="", ratios=None):
    """One line: the figures of the three servers (valkey None: not measured)
    and the ratios ours/Redis, ours/Valkey (of the figures, unless given)."""
    if ratios is None:
        ratios = (ratio(ours, ref), ratio(ours, valkey))
    print("%-48s %12s %12s %12s %8s %8s %s" % (name, fmt(ours), fmt(ref), fmt(valkey), ratios[0], ratios[1],
                                               (unit + " " + note).strip()), flush=True)


def row3(name, vals, unit="", note=""):
    row(name, vals.get("ours"), vals.get("redis"), vals.get("valkey"), unit, note)


def each(fn, *server_args):
    """Runs fn(server) on every compared server; returns {label: result}."""
    res = {}
    for label, binary in SERVERS:
        s = Server(binary, *server_args)
        try:
            res[label] = fn(s)
        finally:
            s.stop()
    return res


def bench_csv(port, args, cpus=None):
    """redis-benchmark --csv records as {test name: {column: float}}; `cpus`
    binds redis-benchmark to those CPUs."""
    out = subprocess.run(["redis-benchmark", "-p", str(port), "--csv", "-q"] + list(args),
                         capture_output=True, text=True, preexec_fn=pinner(cpus)).stdout
    res = {}
    for rec in csv.DictReader(io.StringIO(out)):
        res[rec["test"]] = {k: float(v) for k, v in rec.items() if k != "test"}
    return res


def throughput(quick):
    # 100k requests a test: with three servers, 200k made this section alone
    # ten minutes on a loaded machine (LRANGE_600 runs at ~7k/s); the CPU
    # section is the one that ranks the servers.
    n = "30000" if quick else "100000"
    header("redis-benchmark (-c 50 -n %s), requests/s" % n)
    for pipeline in ("1", "16"):
        results = {}
        for label, binary in SERVERS:
            s = Server(binary)
            try:
                for test, rec in bench_csv(s.port, ["-c", "50", "-n", n, "-P", pipeline, "-t", TESTS]).items():
                    results.setdefault(test, {})[label] = rec["rps"]
            finally:
                s.stop()
        for test, v in results.items():
            row3("%s -P %s" % (test, pipeline), v)


def memory_rows(quick, names):
    """used_memory, RSS and anonymous RSS per item of memrows' rows, row by
    row across the servers (how each is read: memrows' docstring)."""
    scale = 0.1 if quick else 1.0
    allocs = memrows.allocators([b for _, b in SERVERS])
    header("memory per item (bytes): (after - before) / items, data loaded with redis-cli --pipe into a fresh "
           "server%s; mem_allocator: %s" % (" (--quick: a tenth of the items)" if quick else "",
                                          ", ".join("%s %s" % (label, allocs[b]) for label, b in SERVERS)))
    if any(not a.startswith("jemalloc") for a in allocs.values()):
        print("WARNING: not every server runs on jemalloc — the rows below compare different allocators")
    res = {}
    for name in names:
        r = memrows.BY_NAME[name].scaled(scale)
        res[name] = {label: memrows.measure(binary, r) for label, binary in SERVERS}
        row3("%s used_memory" % r.title, {k: v[0] for k, v in res[name].items()}, "B/item")
        row3("%s RSS" % r.title, {k: v[1] for k, v in res[name].items()}, "B/item")
        row3("%s RSS anonymous" % r.title, {k: v[2] for k, v in res[name].items()}, "B/item",
             "no code pages")
    if "strings" in res and "volatile" in res:
        row3("TTL overhead (EX 3600 minus no TTL)",
             {k: res["volatile"][k][0] - res["strings"][k][0] for k in res["strings"]}, "B/key")


def memory(quick):
    header("memory of an empty server (kB): a fresh server holding nothing, read after a second")
    res = {label: memrows.empty(binary) for label, binary in SERVERS}
    for i, what in enumerate(("used_memory", "RSS", "RSS anonymous")):
        row3("empty server %s" % what, {k: v[i] / 1024 for k, v in res.items()}, "kB",
             "no code pages" if i == 2 else "")
    memory_rows(quick, [r.name for r in memrows.ROWS])


def volatile_memory(quick):
    memory_rows(quick, ["strings", "volatile"])


def datatypes_memory(quick):
    memory_rows(quick, ["hashes", "zsets"])


def bench_cmd(port, n, *cmd, clients=50, pipeline=1):
    """requests/s of one command line through redis-benchmark."""
    recs = bench_csv(port, ["-c", str(clients), "-n", str(n), "-P", str(pipeline)] + list(cmd))
    return next(iter(recs.values()))["rps"] if recs else float("nan")


def both(fn, *server_args):
    """Runs fn(server) on ours and on Redis 7.0.15 only (sections about our
    own features, or measured by scripts that know two labels); returns (ours, ref)."""
    res = []
    for binary in (OURS, REF):
        s = Server(binary, *server_args)
        try:
            res.append(fn(s))
        finally:
            s.stop()
    return res


def expiry_throughput(quick):
    n = 100000 if quick else 500000
    header("SET k v EX n throughput (requests/s)")
    for pipeline in (1, 16):
        v = each(lambda s: bench_cmd(s.port, n, "-r", "1000000", "SET", "key:__rand_int__", "v", "EX", "1000",
                                     pipeline=pipeline))
        row3("SET key v EX 1000 -P %d" % pipeline, v)


def mass_expiry(quick):
    n = "200000" if quick else "1000000"
    print("\n## %s keys due in the same moment: GET latency from another client" % n)
    for label, binary in (("ours", OURS), ("reference", REF)):
        s = Server(binary)
        subprocess.run([sys.executable, os.path.join(ROOT, "utils", "mass_expiry.py"), "--port", str(s.port),
                        "--keys", n, "--label", label])
        s.stop()
    print("\n## 0MQ expiry push: %s keys expiring, without and with a live consumer (ours only)" % n)
    for label, hwm, consume in (("ours, endpoint bound, no consumer", "1000", False),
                                ("ours + 0MQ consumer (hwm 1000)", "1000", True),
                                ("ours + 0MQ consumer (hwm 100000)", "100000", True)):
        zport = free_port()
        endpoint = "tcp://127.0.0.1:%d" % zport
        s = Server(OURS, "--zmq-expiry-endpoint", endpoint, "--zmq-expiry-hwm", hwm)
        subprocess.run([sys.executable, os.path.join(ROOT, "utils", "mass_expiry.py"), "--port", str(s.port),
                        "--keys", n, "--label", label] + (["--zmq", endpoint] if consume else []))
        s.stop()
    # Issue 35's figure: the rate a live consumer receives a mass expiry at,
    # 100-byte values, plain and acknowledged (targets 1,000,000 and 500,000 msg/s).
    print("\n## 0MQ expiry push rate: %s keys due at once, 100-byte values, the C consumer (ours only)" % n)
    for mode in (["--sink", "null"], ["--ack", "--sink", "null"], [], ["--ack"]):
        subprocess.run([sys.executable, os.path.join(ROOT, "utils", "push_rate.py"), "--keys", n,
                        "--runs", "1" if quick else "3"] + mode)


def spool(quick):
    """The 0MQ push's disk spool (ours only): a mass expiry with no consumer,
    then the replay to one, plain and ack mode (utils/spool_bench.py)."""
    n = "200000" if quick else "1000000"
    print("\n## 0MQ expiry push spool: %s keys (100-byte values) due at once, no consumer, then one (ours only)" % n)
    for mode in ("plain", "ack"):
        zport = free_port()
        endpoint = "tcp://127.0.0.1:%d" % zport
        extra = ["--zmq-expiry-ack", "yes"] if mode == "ack" else []
        s = Server(OURS, "--zmq-expiry-endpoint", endpoint, "--latency-monitor-threshold", "10", *extra)
        subprocess.run([sys.executable, os.path.join(ROOT, "utils", "spool_bench.py"), "--port", str(s.port),
                        "--zmq", endpoint, "--keys", n] + (["--ack"] if mode == "ack" else []))
        s.stop()


def persistence(quick):
    n = 100000 if quick else 1000000
    header("persistence: %d keys of mixed types (ours vs Redis)" % n)

    def run(s):
        per = n // 4
        data = []
        for i in range(per):
            data.append(b"*3\r\n$3\r\nSET\r\n$%d\r\ns:%d\r\n$10\r\nvalue%05d\r\n" % (len(b"s:%d" % i), i, i % 100000))
            data.append(b"*4\r\n$4\r\nHSET\r\n$%d\r\nh:%d\r\n$1\r\nf\r\n$1\r\nv\r\n" % (len(b"h:%d" % i), i))
            data.append(b"*3\r\n$5\r\nRPUSH\r\n$%d\r\nl:%d\r\n$3\r\nabc\r\n" % (len(b"l:%d" % i), i))
            data.append(b"*4\r\n$4\r\nZADD\r\n$%d\r\nz:%d\r\n$1\r\n1\r\n$1\r\nm\r\n" % (len(b"z:%d" % i), i))
        load_protocol(s.port, b"".join(data))
        t = time.time()
        s.r.save()
        save_s = time.time() - t
        size = os.path.getsize(os.path.join(s.dir, "dump.rdb"))
        s.proc.terminate()
        s.proc.wait()
        t = time.time()
        s.proc = subprocess.Popen([s.proc.args[0], "--port", str(s.port), "--dir", s.dir, "--save", ""],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            try:
                if s.r.dbsize() == n:
                    break
            except redis.exceptions.BusyLoadingError:
                pass
            except redis.ConnectionError:
                pass
            time.sleep(0.01)
        return save_s, time.time() - t, size

    o, r = both(run)
    row("SAVE seconds", o[0], r[0], unit="s")
    row("load at start-up seconds", o[1], r[1], unit="s")
    row("RDB size", o[2], r[2], unit="bytes")
    n2 = 50000 if quick else 200000
    o, r = both(lambda s: bench_cmd(s.port, n2, "-t", "set"), "--appendonly", "yes", "--appendfsync", "everysec")
    row("SET, appendfsync everysec", o, r)


def features(quick):
    n = 50000 if quick else 200000
    header("scripting, transactions, pub/sub, notifications (requests/s, ours vs Redis)")

    def evalsha(script, keys=0):
        def run(s):
            sha = s.r.script_load(script)
            s.r.set("k", "v")
            return bench_cmd(s.port, n, "EVALSHA", sha, str(keys))
        return run

    o, r = both(evalsha("return redis.call('get','k')"))
    row("EVALSHA one GET", o, r)
    o, r = both(evalsha("for i=1,10 do redis.call('incr','c') end return 1"))
    row("EVALSHA 10 INCRs", o, r)

    def multi(s):
        # 10 SETs inside MULTI/EXEC, pipelined as one request batch per transaction.
        script = b"".join([b"MULTI\r\n"] + [b"SET k%d v\r\n" % i for i in range(10)] + [b"EXEC\r\n"])
        sock = socket.create_connection(("127.0.0.1", s.port))
        t = time.time()
        rounds = n // 20
        for _ in range(rounds):
            sock.sendall(script)
            buf = b""
            # +OK, 10 x +QUEUED, then the EXEC reply: *10 and 10 x +OK.
            while buf.count(b"\r\n") < 1 + 10 + 11:
                buf += sock.recv(65536)
        sock.close()
        return rounds / (time.time() - t)

    o, r = both(multi)
    row("MULTI + 10 SET + EXEC (tx/s, 1 client)", o, r)

    def publish(subscribers, patterns):
        def run(s):
            socks = []
            for i in range(subscribers):
                c = socket.create_connection(("127.0.0.1", s.port))
                if patterns:
                    c.sendall(b"PSUBSCRIBE ch:%d*\r\n" % (i % patterns))
                else:
                    c.sendall(b"SUBSCRIBE ch:0\r\n")
                c.setblocking(False)
                socks.append(c)
            stop = [False]

            def drain():
                import select
                while not stop[0]:
                    rd, _, _ = select.select(socks, [], [], 0.1)
                    for c in rd:
                        try:
                            c.recv(1 << 20)
                        except BlockingIOError:
                            pass
            import threading
            t = threading.Thread(target=drain)
            t.start()
            time.sleep(0.3)
            rate = bench_cmd(s.port, n, "PUBLISH", "ch:0", "hello")
            stop[0] = True
            t.join()
            for c in socks:
                c.close()
            return rate
        return run

    o, r = both(publish(1, 0))
    row("PUBLISH, 1 subscriber", o, r)
    o, r = both(publish(100, 10))
    row("PUBLISH, 100 subscribers on 10 patterns", o, r)
    o, r = both(lambda s: bench_cmd(s.port, n, "-t", "set"), "--notify-keyspace-events", "")
    row("SET, notifications off", o, r)
    o, r = both(lambda s: bench_cmd(s.port, n, "-t", "set"), "--notify-keyspace-events", "KEA")
    row("SET, notify-keyspace-events KEA", o, r)


def lag(quick):
    """Client-side lag and (ours) the server's own lateness: the reference at
    one size; ours also at 100k, and at 10M keys spread over 16 dbs."""
    bg = "100000" if quick else "1000000"
    runs = [("reference", REF, bg, 1), ("ours", OURS, bg, 1)]
    if not quick:
        runs += [("ours", OURS, "100000", 1), ("ours", OURS, "10000000", 16)]
    print("\n## expiry lag (2000 keys expiring over 5 s among N volatile keys; load average %.2f)" % os.getloadavg()[0])
    for label, binary, n, dbs in runs:
        s = Server(binary)
        subprocess.run([sys.executable, os.path.join(ROOT, "utils", "expiry_lag.py"), "--port", str(s.port),
                        "--background", n, "--dbs", str(dbs), "--keys", "2000", "--spread", "5",
                        "--wait", "35" if not quick else "10",
                        "--label", "%s, %s keys%s" % (label, n, " over %d dbs" % dbs if dbs > 1 else "")])
        s.stop()


# Server CPU per request. On 2 cores redis-benchmark saturates before any of
# the servers, so requests/s cannot rank them; the CPU time the server process
# spent per request can. Request counts per test are sized for about a second
# of server CPU a round and scaled down for the costly commands.
# A server process has its own luck: the same binary started three times and
# measured side by side came out 0.96-1.00 of itself at -P 1 for a whole run
# (where its memory and code land in the caches), as much as the margins
# measured. So each round starts fresh servers and runs few chunks on them,
# and the figures come from many rounds: -P 1, where that luck is the largest
# part of the noise, gets thirty: with ten (30 chunks), rows 3-5% apart came
# out lower in as few as 15 of 30, a coin's count; with 90, 39 of the 40
# comparisons of two runs stood out (56-87 of 90, p <= 0.013), and the sign
# test's p says how much a row's count can be trusted.
CPU_TESTS = [("set", 1), ("get", 1), ("incr", 1), ("lpush", 1), ("rpop", 1), ("hset", 1), ("sadd", 1),
             ("zadd", 1), ("lrange_100", 4), ("mset", 5)]
CPU_N = {16: 300000, 1: 60000}  # requests of a test per server and round
CPU_RUNS = {16: 6, 1: 30}  # rounds, each with fresh servers
CPU_PIPELINES = (16, 1)
CPU_CHUNKS = 3


def cpu_args(s, test, n, pipeline):
    """The redis-benchmark arguments of one CPU test. LRANGE_100 is sent as an
    explicit command on a list filled here: `-t lrange_100` would first run
    LPUSH N times, which would be counted with it."""
    args = ["-c", "50", "-P", str(pipeline), "-r", "100000", "-n", str(n)]
    if test == "lrange_100":
        s.r.delete("mylist")
        s.r.lpush("mylist", *(["xxx"] * 600))
        return args + ["LRANGE", "mylist", "0", "99"]
    return args + ["-t", test]


def cpu_round(pipeline, quick, run):
    """{label: {test: [µs of server CPU per request, one per chunk]}} of one
    round: a fresh server of each kind (all pinned to the same CPU,
    redis-benchmark to the other), every test in order on each (GET reads
    what SET wrote, RPOP pops what LPUSH pushed). A test's requests go in
    CPU_CHUNKS chunks of a few tenths of a second, the servers taking each
    chunk in turn: this machine's speed moves by tens of per cent from one
    second to the next (the host's other tenants), and three chunks run within
    a second or two of each other meet about the same machine, which a
    server's whole test after another's did not."""
    server_cpus, client_cpus = split_cpus()
    started = {}
    res = {label: {} for label, _ in SERVERS}
    try:
        for label, binary in SERVERS:
            started[label] = Server(binary, cpus=server_cpus)
        for i, (test, weight) in enumerate(CPU_TESTS):
            n = CPU_N[pipeline] // weight // (10 if quick else 1) // CPU_CHUNKS
            for chunk in range(CPU_CHUNKS):
                for label, _ in rotated(SERVERS, run + i + chunk):
                    s = started[label]
                    args = cpu_args(s, test, n, pipeline)
                    c0 = s.cpu_seconds()
                    bench_csv(s.port, args, client_cpus)
                    res[label].setdefault(test, []).append((s.cpu_seconds() - c0) / n * 1e6)
    finally:
        for s in started.values():
            s.stop()
    return res


def rotated(servers, run):
    """The servers in the order of one run: each run starts with the next
    server, so that none is always the first (or the one after another's
    run) in a sequence of runs on the same machine."""
    k = run % len(servers)
    return servers[k:] + servers[:k]


def median_spread(values):
    """The median of repeated runs (the mean, for two) and their spread,
    (max - min) / median in percent: how far the machine's noise moved them."""
    m = statistics.median(values)
    return m, ((max(values) - min(values)) / m * 100 if m else 0.0)


def quartile_spread(values):
    """The median of a test's chunks and the spread of the middle half of
    them, (p75 - p25) / median in percent."""
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return q[1], ((q[2] - q[0]) / q[1] * 100 if q[1] else 0.0)


def paired_ratio(a, b):
    """The median of a/b over chunks run side by side: what the machine's
    drift does to both cancels out of each chunk's ratio."""
    return statistics.median(x / y for x, y in zip(a, b) if y)


def chunks_lower(a, b):
    """In how many of the chunks run side by side a was below b, and the
    one-sided sign test's p of that count: the chance a coin (servers that
    cost the same) would come out lower in at least as many. A row whose
    median ratio is under 1 by less than the machine's noise shows it here."""
    pairs = [(x, y) for x, y in zip(a, b) if y]
    k, n = sum(x < y for x, y in pairs), len(pairs)
    p = sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n if n else 1.0
    return "%d/%d (p %.2g)" % (k, n, p)


def cpu(quick):
    for pipeline in CPU_PIPELINES:
        header("server CPU per request (user+system µs), -c 50 -P %d -r 100000, %d rounds x %d chunks, the servers "
               "taking each chunk in turn; figures: median of the chunks; ratios: median of the chunks' own ratios "
               "(side by side, the machine's drift cancels); spread: middle half of the chunks / median, worst server"
               % (pipeline, CPU_RUNS[pipeline], CPU_CHUNKS))
        runs = {label: {} for label, _ in SERVERS}
        for run in range(CPU_RUNS[pipeline]):
            res = cpu_round(pipeline, quick, run)
            for label in runs:
                for test, vals in res[label].items():
                    runs[label].setdefault(test, []).extend(vals)
        for test, _ in CPU_TESTS:
            vals, spread = {}, 0.0
            for label in runs:
                vals[label], sp = quartile_spread(runs[label][test])
                spread = max(spread, sp)
            ours = runs["ours"][test]
            ratios = ["%.2f" % paired_ratio(ours, runs[label][test]) if label in runs else "-"
                      for label in ("redis", "valkey")]
            lower = " / ".join(chunks_lower(ours, runs[label][test]) for label in ("redis", "valkey") if label in runs)
            row("%s -P %d" % (test.upper(), pipeline), vals.get("ours"), vals.get("redis"), vals.get("valkey"),
                "µs/req", "spread %.0f%%, ours lower in %s chunks" % (spread, lower), ratios)


def callgrind_pass(binary, pipeline, quick):
    """{test: instructions per request} of one server under callgrind. The
    counters are dumped (callgrind_control -d) after start-up, after 3 idle
    seconds, and after each test; the idle rate times the test's duration is
    taken off each test's count, so start-up and cron cost are not counted
    (idle, Redis 7.0 runs ~1M instructions a second and Valkey 8.0 ~4M: with
    few requests that would swamp the figure)."""
    outdir = tempfile.mkdtemp(prefix="bench-cg-")
    out = os.path.join(outdir, "cg.out")
    s = Server(binary, wrapper=["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out], timeout=120)
    seq = [0]

    def dump():
        subprocess.run(["callgrind_control", "-d", str(s.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        seq[0] += 1
        return callgrind_totals("%s.%d" % (out, seq[0]))

    res = {}
    try:
        dump()
        t = time.time()
        time.sleep(3)
        idle_rate = dump() / (time.time() - t)
        for test, weight in CPU_TESTS:
            n = (100000 if pipeline == 16 else 20000) // weight // (4 if quick else 1)
            args = cpu_args(s, test, n, pipeline)
            dump()  # drops what cpu_args' own commands cost
            t = time.time()
            bench_csv(s.port, args)
            res[test] = (dump() - idle_rate * (time.time() - t)) / n
    finally:
        s.stop()
        shutil.rmtree(outdir, ignore_errors=True)
    return res


def callgrind(quick):
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        print("\nnote: --callgrind needs valgrind (apt-get install valgrind); skipped")
        return
    for pipeline in (16, 1):
        header("instructions per request under callgrind (Ir, idle cost taken off), -c 50 -P %d -r 100000" % pipeline)
        res = {label: callgrind_pass(binary, pipeline, quick) for label, binary in SERVERS}
        for test, _ in CPU_TESTS:
            row3("%s -P %d" % (test.upper(), pipeline), {label: res[label][test] for label in res}, "Ir/req")


def latency(quick):
    # 150k requests: the first request of each of the 1000 clients waits for
    # the connection storm, and with 100k those 1000 would be the p99 itself.
    # Median of 3 runs: one stall of the loaded machine moves a p99 tenfold.
    n, runs = (20000, 2) if quick else (150000, 3)
    header("latency with 1000 connections (-c 1000 -P 1 -r 100000 -n %d), ms, median of %d runs" % (n, runs))
    # Pinned as in the cpu section: the client and the server each on their own CPU.
    server_cpus, client_cpus = split_cpus()
    res = {}
    for run in range(runs):
        for label, binary in rotated(SERVERS, run):
            s = Server(binary, cpus=server_cpus)
            try:
                for test in ("set", "get"):
                    rec = next(iter(bench_csv(s.port, ["-c", "1000", "-P", "1", "-r", "100000", "-n", str(n),
                                                       "-t", test], client_cpus).values()))
                    for col in ("p50_latency_ms", "p99_latency_ms"):
                        res.setdefault((test, col), {}).setdefault(label, []).append(rec[col])
            finally:
                s.stop()
    for (test, col), v in res.items():
        vals, spread = {}, 0.0
        for label, figures in v.items():
            vals[label], sp = median_spread(figures)
            spread = max(spread, sp)
        row3("%s %s" % (test.upper(), col.split("_")[0]), vals, "ms", "spread %.0f%%" % spread)


def repl(quick):
    import bench_repl
    bench_repl.run(OURS, REF, quick=quick)


def blocking(quick):
    import blocking_lateness
    n = 2000 if quick else 10000
    print("\n## blocking timeouts: lateness of %d clients on BLPOP/BZPOPMIN/XREAD, timeouts 0.05-3 s" % n)
    blocking_lateness.run_both(n, 0.05, 3.0, 1)


def tls_files(directory):
    """A self-signed certificate (its own CA) and its key for the TLS rows."""
    crt, key = os.path.join(directory, "bench.crt"), os.path.join(directory, "bench.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", crt, "-subj", "/CN=bench", "-days", "2"], check=True, capture_output=True)
    return crt, key


def tls(quick):
    """Over TLS (issue 33), ours and Redis 7.0.15 with the same certificate:
    SET/GET at -P 1 and -P 16 (requests/s and server CPU per request), a new
    connection per request (handshakes/s), and an empty server's RSS with
    and without a TLS port configured."""
    work = tempfile.mkdtemp(prefix="bench-tls-")
    try:
        crt, key = tls_files(work)
        port = free_port()
        args = ("--tls-port", str(port), "--tls-cert-file", crt, "--tls-key-file", key, "--tls-ca-cert-file", crt,
                "--tls-auth-clients", "no")
        client = ["--tls", "--cacert", crt, "-p", str(port)]
        n = 30000 if quick else 200000
        server_cpus, client_cpus = split_cpus()
        header("TLS (redis-benchmark --tls -c 50 -n %d): requests/s, and server CPU per request (user+system us)" % n)
        for pipeline in (1, 16):
            for test in ("set", "get"):
                rps, cpu_us = {}, {}
                for label, binary in (("ours", OURS), ("redis", REF)):
                    s = Server(binary, *args, cpus=server_cpus)
                    try:
                        c0 = s.cpu_seconds()
                        out = subprocess.run(["redis-benchmark"] + client + ["--csv", "-q", "-c", "50", "-n", str(n),
                                             "-P", str(pipeline), "-r", "100000", "-t", test],
                                             capture_output=True, text=True, preexec_fn=pinner(client_cpus)).stdout
                        cpu_us[label] = (s.cpu_seconds() - c0) / n * 1e6
                        recs = list(csv.DictReader(io.StringIO(out)))
                        rps[label] = float(recs[0]["rps"]) if recs else float("nan")
                    finally:
                        s.stop()
                row("TLS %s -P %d" % (test.upper(), pipeline), rps["ours"], rps["redis"], unit="req/s")
                row("TLS %s -P %d server CPU" % (test.upper(), pipeline), cpu_us["ours"], cpu_us["redis"], unit="us")
        hs = n // 20
        res = {}
        for label, binary in (("ours", OURS), ("redis", REF)):
            s = Server(binary, *args)
            try:
                out = subprocess.run(["redis-benchmark"] + client + ["--csv", "-q", "-c", "20", "-n", str(hs), "-k", "0",
                                     "PING"], capture_output=True, text=True).stdout
                recs = list(csv.DictReader(io.StringIO(out)))
                res[label] = float(recs[0]["rps"]) if recs else float("nan")
            finally:
                s.stop()
        row("TLS handshakes/s (new connection per PING)", res["ours"], res["redis"], unit="/s")
        for label_args, what in (((), "no TLS"), (args, "TLS port configured")):
            v = {label: memrows.empty(binary, *label_args)[1] / 1024 for label, binary in (("ours", OURS), ("redis", REF))}
            row("empty server RSS, %s" % what, v["ours"], v["redis"], unit="kB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


SCALE_KEYS = None  # --scale-keys


def scale(quick):
    """Issue 34's production-size rows: utils/bench_scale.py, one server at a time."""
    import bench_scale
    bench_scale.run(SCALE_KEYS or (1000000 if quick else bench_scale.KEYS), server_list=SERVERS)


def cluster(quick):
    """Redis Cluster: utils/bench_cluster.py's figures (ours and Redis)."""
    import bench_cluster
    bench_cluster.run(quick)


SECTIONS = {"throughput": throughput, "memory": memory, "cpu": cpu, "callgrind": callgrind, "latency": latency,
            "expiry": expiry_throughput, "lag": lag, "massexpiry": mass_expiry, "persistence": persistence,
            "features": features, "repl": repl, "blocking": blocking, "spool": spool, "tls": tls,
            "cluster": cluster, "scale": scale,
            # parts of `memory`, for a shorter run
            "volatile": volatile_memory, "datatypes": datatypes_memory}
DEFAULT = "throughput,memory,cpu,latency,expiry,lag,massexpiry,spool,persistence,features,repl,blocking,tls,cluster,scale"


def main():
    global CPU_RUNS, CPU_PIPELINES, SCALE_KEYS
    ap = argparse.ArgumentParser(description="ours vs Redis 7.0.15 vs Valkey 8.0.1")
    ap.add_argument("--quick", action="store_true", help="fewer requests and items: a few minutes")
    ap.add_argument("--callgrind", action="store_true",
                    help="also instructions per request under valgrind (needs valgrind)")
    ap.add_argument("--cpu-runs", type=int,
                    help="rounds of fresh servers in the cpu section, for every -P (default %s)"
                    % ", ".join("%d at -P %d" % (CPU_RUNS[p], p) for p in CPU_PIPELINES))
    ap.add_argument("--pipelines", default=",".join(map(str, CPU_PIPELINES)),
                    help="the cpu section's -P values (default %(default)s)")
    ap.add_argument("--scale-keys", type=int, metavar="N",
                    help="keys of the scale section (default 10,000,000; 1,000,000 with --quick)")
    ap.add_argument("--only", default=DEFAULT, help="comma-separated, of: " + ",".join(SECTIONS))
    a = ap.parse_args()
    if a.cpu_runs is not None:
        CPU_RUNS = {p: max(1, a.cpu_runs) for p in CPU_RUNS}
    pipelines = a.pipelines.split(",")
    if not all(p.isdigit() and int(p) in CPU_N for p in pipelines):
        ap.error("--pipelines takes some of " + ",".join(map(str, CPU_N)))
    CPU_PIPELINES = tuple(int(p) for p in pipelines)
    SCALE_KEYS = a.scale_keys
    names = a.only.split(",")
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        ap.error("unknown section(s): " + ",".join(unknown))
    if a.callgrind and "callgrind" not in names:
        names.insert(names.index("cpu") + 1 if "cpu" in names else len(names), "callgrind")
    nofile = raise_nofile()
    if nofile < 2100:
        print("note: open-files limit %d is below what -c 1000 needs on both sides" % nofile)
    print("servers: " + ", ".join("%s %s" % (label, b) for label, b in SERVERS))
    if valkey_missing():
        print("note: " + valkey_missing())
    start = time.time()
    for name in names:
        t = time.time()
        SECTIONS[name](a.quick)
        print("(%s: %d s)" % (name, time.time() - t), flush=True)
    print("\n(total %d s)" % (time.time() - start))


if __name__ == "__main__":
    main()
