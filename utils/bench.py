#!/usr/bin/python3
"""bench: one run of every benchmark against our server and Debian's
redis-server 7.0.15, printing both figures and the ratio (ours / reference).

  * redis-benchmark throughput, -c 50, pipelines -P 1 and -P 16
  * memory: 1,000,000 `SET key:N xxxxxxxxxx EX 3600` (used_memory and RSS)
  * memory per volatile key, memory of small hashes and sorted sets
  * SET EX throughput; expiry lag (utils/expiry_lag.py); GET latency during a
    mass expiry and the 0MQ push rate (utils/mass_expiry.py)
  * SAVE/load time and RDB size; SET with appendfsync everysec
  * EVALSHA, MULTI/EXEC, PUBLISH, SET with keyspace notifications

usage: utils/bench.py [--quick] [--only throughput,memory,volatile,datatypes,expiry,lag,massexpiry,persistence,features]
Servers are started on free ports in temporary directories and stopped at the end.
"""
import argparse
import csv
import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.environ.get("OURS_SERVER") or os.path.join(ROOT, "src", "redis-server")
REF = shutil.which("redis-server") or "/usr/bin/redis-server"
TESTS = "set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange_100,lrange_600,mset"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, *args):
        self.dir = tempfile.mkdtemp(prefix="bench-")
        self.port = free_port()
        cmd = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
               "--dir", self.dir, "--logfile", os.path.join(self.dir, "log")] + list(args)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r = redis.Redis(port=self.port)
        for _ in range(200):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.02)
        self.r = r

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def row(name, ours, ref, unit=""):
    ratio = ours / ref if ref else float("nan")
    fmt = "%-40s %14.3f %14.3f %8.2f %s" if abs(ours) < 100 else "%-40s %14.0f %14.0f %8.2f %s"
    print(fmt % (name, ours, ref, ratio, unit), flush=True)


def throughput(quick):
    n = "50000" if quick else "200000"
    print("\n## redis-benchmark (-c 50 -n %s), requests/s: ours, reference, ratio" % n)
    for pipeline in ("1", "16"):
        results = {}
        for label, binary in (("ours", OURS), ("ref", REF)):
            s = Server(binary)
            out = subprocess.run(["redis-benchmark", "-p", str(s.port), "-c", "50", "-n", n, "-P", pipeline,
                                  "-t", TESTS, "--csv", "-q"], capture_output=True, text=True).stdout
            s.stop()
            for rec in csv.reader(io.StringIO(out)):
                if len(rec) >= 2 and rec[0] != "test":
                    results.setdefault(rec[0], {})[label] = float(rec[1])
        for test, v in results.items():
            if "ours" in v and "ref" in v:
                row("%s -P %s" % (test, pipeline), v["ours"], v["ref"])


def memory(quick):
    n = 100000 if quick else 1000000
    print("\n## memory: %d x SET key:N xxxxxxxxxx EX 3600 (bytes): ours, reference, ratio" % n)
    res = {}
    for label, binary in (("ours", OURS), ("ref", REF)):
        s = Server(binary)
        base = s.r.info("memory")["used_memory"]
        data = b"".join(b"*5\r\n$3\r\nSET\r\n$%d\r\nkey:%d\r\n$10\r\nxxxxxxxxxx\r\n$2\r\nEX\r\n$4\r\n3600\r\n" %
                        (len(b"key:%d" % i), i) for i in range(n))
        subprocess.run(["redis-cli", "-p", str(s.port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)
        info = s.r.info("memory")
        res[label] = (info["used_memory"] - base, info["used_memory_rss"])
        s.stop()
    row("used_memory (dataset)", res["ours"][0], res["ref"][0])
    row("used_memory per key", res["ours"][0] / n, res["ref"][0] / n)
    row("RSS", res["ours"][1], res["ref"][1])


def bench_cmd(port, n, *cmd, clients=50, pipeline=1):
    """requests/s of one command line through redis-benchmark."""
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-c", str(clients), "-n", str(n), "-P", str(pipeline),
                          "--csv", "-q"] + list(cmd), capture_output=True, text=True).stdout
    for rec in csv.reader(io.StringIO(out)):
        if len(rec) >= 2 and rec[0] != "test":
            return float(rec[1])
    return float("nan")


def both(fn, *server_args):
    """Runs fn(server) on ours and on the reference; returns (ours, ref)."""
    res = []
    for binary in (OURS, REF):
        s = Server(binary, *server_args)
        try:
            res.append(fn(s))
        finally:
            s.stop()
    return res


def load_protocol(port, data):
    subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)


def datatypes_memory(quick):
    n = 10000 if quick else 100000
    print("\n## memory of %d hashes of 10 small fields / %d sorted sets of 10 members (bytes)" % (n, n))

    def hashes(s):
        base = s.r.info("memory")["used_memory"]
        load_protocol(s.port, b"".join(
            b"*22\r\n$4\r\nHSET\r\n$%d\r\nh:%d\r\n" % (len(b"h:%d" % i), i) +
            b"".join(b"$2\r\nf%d\r\n$5\r\nv%04d\r\n" % (j, j) for j in range(10)) for i in range(n)))
        return s.r.info("memory")["used_memory"] - base

    def zsets(s):
        base = s.r.info("memory")["used_memory"]
        load_protocol(s.port, b"".join(
            b"*22\r\n$4\r\nZADD\r\n$%d\r\nz:%d\r\n" % (len(b"z:%d" % i), i) +
            b"".join(b"$1\r\n%d\r\n$2\r\nm%d\r\n" % (j, j) for j in range(10)) for i in range(n)))
        return s.r.info("memory")["used_memory"] - base

    o, r = both(hashes)
    row("hashes used_memory", o, r)
    o, r = both(zsets)
    row("zsets used_memory", o, r)


def volatile_memory(quick):
    n = 100000 if quick else 1000000
    print("\n## bytes per key: SET key:N xxxxxxxxxx with and without EX 3600 (%d keys)" % n)

    def per_key(ttl):
        def run(s):
            base = s.r.info("memory")["used_memory"]
            tail = b"$2\r\nEX\r\n$4\r\n3600\r\n" if ttl else b""
            load_protocol(s.port, b"".join(b"*%d\r\n$3\r\nSET\r\n$%d\r\nkey:%d\r\n$10\r\nxxxxxxxxxx\r\n%s" %
                                           (5 if ttl else 3, len(b"key:%d" % i), i, tail) for i in range(n)))
            return (s.r.info("memory")["used_memory"] - base) / n
        return run

    plain = both(per_key(False))
    vol = both(per_key(True))
    row("no TTL", plain[0], plain[1], "bytes/key")
    row("EX 3600", vol[0], vol[1], "bytes/key")
    row("TTL overhead", vol[0] - plain[0], vol[1] - plain[1], "bytes/key")


def expiry_throughput(quick):
    n = 100000 if quick else 500000
    print("\n## SET k v EX n throughput (requests/s)")
    o, r = both(lambda s: bench_cmd(s.port, n, "-r", "1000000", "SET", "key:__rand_int__", "v", "EX", "1000"))
    row("SET key v EX 1000 -P 1", o, r)
    o, r = both(lambda s: bench_cmd(s.port, n, "-r", "1000000", "SET", "key:__rand_int__", "v", "EX", "1000", pipeline=16))
    row("SET key v EX 1000 -P 16", o, r)


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


def persistence(quick):
    n = 100000 if quick else 1000000
    print("\n## persistence: %d keys of mixed types" % n)

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
    row("SAVE seconds", o[0], r[0], "s")
    row("load at start-up seconds", o[1], r[1], "s")
    row("RDB size", o[2], r[2], "bytes")
    n2 = 50000 if quick else 200000
    o, r = both(lambda s: bench_cmd(s.port, n2, "-t", "set"), "--appendonly", "yes", "--appendfsync", "everysec")
    row("SET, appendfsync everysec", o, r)


def features(quick):
    n = 50000 if quick else 200000
    print("\n## scripting, transactions, pub/sub (requests/s)")

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
    bg = "100000" if quick else "1000000"
    print("\n## expiry lag (2000 keys expiring over 5 s among %s volatile keys)" % bg)
    for label, binary in (("ours", OURS), ("reference", REF)):
        s = Server(binary)
        subprocess.run([sys.executable, os.path.join(ROOT, "utils", "expiry_lag.py"), "--port", str(s.port),
                        "--background", bg, "--keys", "2000", "--spread", "5", "--wait", "35" if not quick else "10",
                        "--label", label])
        s.stop()


SECTIONS = {"throughput": throughput, "memory": memory, "volatile": volatile_memory,
            "datatypes": datatypes_memory, "expiry": expiry_throughput, "lag": lag,
            "massexpiry": mass_expiry, "persistence": persistence, "features": features}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=",".join(SECTIONS))
    a = ap.parse_args()
    print("%-34s %14s %14s %8s" % ("benchmark", "ours", "reference", "ratio"))
    for name in a.only.split(","):
        SECTIONS[name](a.quick)


if __name__ == "__main__":
    main()
