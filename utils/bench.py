#!/usr/bin/python3
"""bench: one run of every benchmark against our server and Debian's
redis-server 7.0.15, printing both figures and the ratio (ours / reference).

  * redis-benchmark throughput, -c 50, pipelines -P 1 and -P 16
  * memory: 1,000,000 `SET key:N xxxxxxxxxx EX 3600` (used_memory and RSS)
  * expiry lag: issue 7's measurement (utils/expiry_lag.py)

usage: utils/bench.py [--quick] [--only throughput,memory,lag]
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
    print("%-34s %14.0f %14.0f %8.2f %s" % (name, ours, ref, ratio, unit))


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


def lag(quick):
    bg = "100000" if quick else "1000000"
    print("\n## expiry lag (2000 keys expiring over 5 s among %s volatile keys)" % bg)
    for label, binary in (("ours", OURS), ("reference", REF)):
        s = Server(binary)
        subprocess.run([sys.executable, os.path.join(ROOT, "utils", "expiry_lag.py"), "--port", str(s.port),
                        "--background", bg, "--keys", "2000", "--spread", "5", "--wait", "35" if not quick else "10",
                        "--label", label])
        s.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="throughput,memory,lag")
    a = ap.parse_args()
    print("%-34s %14s %14s %8s" % ("benchmark", "ours", "reference", "ratio"))
    parts = a.only.split(",")
    if "throughput" in parts:
        throughput(a.quick)
    if "memory" in parts:
        memory(a.quick)
    if "lag" in parts:
        lag(a.quick)


if __name__ == "__main__":
    main()
