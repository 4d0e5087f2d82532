#!/usr/bin/python3
"""memrows_enc: used_memory and RSS per item for issue 17's value-encoding rows
(small sets, small lists, big hashes), on any redis-server-like binary.

Each row is loaded with `redis-cli --pipe` into a fresh server (no persistence);
the figure is (after - before) / items, items being the keys of the row.

    /usr/bin/python3 utils/memrows_enc.py [BINARY ...]
    (default: src/redis-server, /usr/bin/redis-server, the Valkey 8.0.1 anchor)
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALKEY = "/work/shared/anchors/valkey-server-8.0.1"


def _sets():
    for i in range(100000):
        yield ["SADD", "set:%d" % i] + ["member-%d" % j for j in range(10)]


def _lists():
    for i in range(100000):
        yield ["RPUSH", "list:%d" % i] + ["item-%d" % j for j in range(10)]


def _hashes():
    for i in range(1000):
        args = ["HSET", "hash:%d" % i]
        for j in range(1000):
            args += ["field:%d" % j, "value:%d" % j]
        yield args


# name: (generator of commands, items per row)
ROWS = {
    "100k sets of 10 short strings": (_sets, 100000),
    "100k lists of 10 short items": (_lists, 100000),
    "1k hashes of 1000 fields": (_hashes, 1000),
}


def _resp(args):
    out = ["*%d\r\n" % len(args)]
    for a in args:
        out.append("$%d\r\n%s\r\n" % (len(a.encode()), a))
    return "".join(out)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _info_memory(port):
    out = subprocess.run(["redis-cli", "-p", str(port), "INFO", "memory"], capture_output=True, text=True).stdout
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    return int(fields["used_memory"]), int(fields["used_memory_rss"])


def measure(binary, row):
    """(used_memory per item, RSS per item) for one row on one binary."""
    gen, items = ROWS[row]
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="memrows-enc-")
    proc = subprocess.Popen([binary, "--port", str(port), "--save", "", "--appendonly", "no", "--dir", workdir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if subprocess.run(["redis-cli", "-p", str(port), "PING"], capture_output=True,
                              text=True).stdout.strip() == "PONG":
                break
            time.sleep(0.05)
        time.sleep(0.2)
        before = _info_memory(port)
        data = "".join(_resp(cmd) for cmd in gen()).encode()
        subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=data, capture_output=True, check=True)
        time.sleep(0.5)
        after = _info_memory(port)
        return (after[0] - before[0]) / items, (after[1] - before[1]) / items
    finally:
        proc.terminate()
        proc.wait(10)


def main(binaries):
    print("%-32s %-44s %12s %12s" % ("row", "binary", "used/item", "rss/item"))
    for row in ROWS:
        for b in binaries:
            used, rss = measure(b, row)
            print("%-32s %-44s %12.1f %12.1f" % (row, b[-44:], used, rss), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or [os.path.join(ROOT, "src", "redis-server"), "/usr/bin/redis-server", VALKEY])
