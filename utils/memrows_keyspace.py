#!/usr/bin/python3
"""memrows_keyspace: memory per item of the keyspace rows of issue 17.

Each row is loaded with `redis-cli --pipe` into a fresh server (no persistence);
the figure is (used_memory after - before) / items, and the same for RSS.

  usage: utils/memrows_keyspace.py [BINARY ...]     (default: ours, redis 7.0.15, valkey 8.0.1)
  as a module: measure(binary, row) -> (used_per_item, rss_per_item)
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BINARIES = [os.path.join(ROOT, "src", "redis-server"), shutil.which("redis-server") or "/usr/bin/redis-server",
                    "/work/shared/anchors/valkey-server-8.0.1"]


def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def _hash_fields():
    return [x for j in range(10) for x in ("field:%d" % j, "value:%d" % j)]


def _zset_members():
    return [x for j in range(10) for x in (j, "member:%d" % j)]


# name -> (items, command generator for item n)
ROWS = {
    "set": (1000000, lambda n: resp("SET", "key:%d" % n, "xxxxxxxxxx")),
    "set_ex": (1000000, lambda n: resp("SET", "key:%d" % n, "xxxxxxxxxx", "EX", "3600")),
    "set_20_100": (1000000, lambda n: resp("SET", "key:%016d" % n, "x" * 100)),
    "hash10": (100000, lambda n: resp("HSET", "key:%d" % n, *_hash_fields())),
    "zset10": (100000, lambda n: resp("ZADD", "key:%d" % n, *_zset_members())),
}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port)] + list(args), capture_output=True, text=True).stdout


def _memory(port):
    info = dict(line.split(":", 1) for line in _cli(port, "INFO", "memory").splitlines() if ":" in line)
    return int(info["used_memory"]), int(info["used_memory_rss"])


def measure(binary, row):
    """Loads `row` (a key of ROWS) into a fresh server; returns (used, rss) bytes per item."""
    items, gen = ROWS[row]
    tmp = tempfile.mkdtemp(prefix="memrows-")
    port = _free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", tmp, "--logfile", os.path.join(tmp, "log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(500):
            if _cli(port, "PING").strip() == "PONG":
                break
            time.sleep(0.02)
        payload = os.path.join(tmp, "payload")
        with open(payload, "wb") as f:
            for n in range(items):
                f.write(gen(n))
        used0, rss0 = _memory(port)
        with open(payload, "rb") as f:
            subprocess.run(["redis-cli", "-p", str(port), "--pipe"], stdin=f, stdout=subprocess.DEVNULL, check=True)
        keys = int(_cli(port, "DBSIZE").strip())
        assert keys == items, (binary, row, keys)
        used1, rss1 = _memory(port)
        return (used1 - used0) / items, (rss1 - rss0) / items
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    binaries = sys.argv[1:] or DEFAULT_BINARIES
    print("%-12s %s" % ("row", "  ".join("%-28s" % os.path.basename(b) for b in binaries)))
    for row in ROWS:
        cells = []
        for b in binaries:
            used, rss = measure(b, row)
            cells.append("%8.1f used %8.1f rss     " % (used, rss))
        print("%-12s %s" % (row, "  ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
