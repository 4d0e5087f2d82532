#!/usr/bin/python3
"""memrows: memory per item of the data sets of issue 17, for any server binary.

Each row is a data set sent through `redis-cli --pipe` into a fresh server
(no saving, no AOF); the figure is (after - before) / items for used_memory,
for RSS and for anonymous RSS, read after a short settle so that lazy frees and
jemalloc's purging have happened on every server alike. RSS is read here from
/proc/PID/status at the same moment for every server (INFO's used_memory_rss is
a figure each server refreshes on its own schedule); anonymous RSS is RSS
without file pages, i.e. without the code of the binary and its libraries that
the load happens to touch first (a dynamically linked libjemalloc, for one).

  measure(binary, row) -> (used_per_item, rss_per_item, anon_rss_per_item)
  empty(binary) -> (used, rss, anon_rss) of a server holding nothing, in bytes

usage: utils/memrows.py [--scale 0.1] [--rows strings,volatile,...] [BINARY...]
(default binaries: ours, Redis 7.0.15, Valkey 8.0.1 when VALKEY_SERVER names it)
"""
import argparse
import functools
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchserver import Server, load_protocol, servers, valkey_missing  # noqa: E402

SETTLE = 1.0  # seconds between starting a server and reading it
# Seconds between loading and reading: past the rehash of a table that grew
# near the end of the load, on a server that finishes it while idle (ours:
# about 2 s at 10M keys; Redis and Valkey take minutes at 1 ms per cron tick,
# so they are read mid-rehash, holding both tables, as a user would see them).
LOADED_SETTLE = 3.0


def bulk(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def _strings(i):
    return bulk(b"SET", b"key:%d" % i, b"xxxxxxxxxx")


def _volatile(i):
    return bulk(b"SET", b"key:%d" % i, b"xxxxxxxxxx", b"EX", b"3600")


_V100 = b"v" * 100


def _k20v100(i):
    return bulk(b"SET", b"key:%016d" % i, _V100)


def _fields(i, cmd, prefix, pairs):
    args = [cmd, b"%s:%d" % (prefix, i)]
    for p in pairs:
        args.extend(p)
    return bulk(*args)


_HASH10 = [(b"f%d" % j, b"val%d" % j) for j in range(10)]
_ZSET10 = [(b"%d" % j, b"m%d" % j) for j in range(10)]
_SHORT10 = [(b"member:%d" % j,) for j in range(10)]
_ITEMS10 = [(b"item%d" % j,) for j in range(10)]
_HASH1000 = [(b"field:%d" % j, b"value:%d" % j) for j in range(1000)]


def count(n):
    """1000000 -> 1M, 100000 -> 100k: the item counts as issue 17 writes them."""
    for div, suffix in ((1000000, "M"), (1000, "k")):
        if n >= div and n % div == 0:
            return "%d%s" % (n // div, suffix)
    return str(n)


class Row:
    def __init__(self, name, what, items, command, keys=None):
        """keys: how many keys the loaded row makes (default: one per item)."""
        self.name, self.what, self.items, self.command = name, what, items, command
        self.keys = keys

    @property
    def title(self):
        return "%s %s" % (count(self.items), self.what)

    def scaled(self, scale):
        return Row(self.name, self.what, max(1, int(self.items * scale)), self.command, self.keys)


ROWS = [
    Row("strings", "SET key:N xxxxxxxxxx", 1000000, _strings),
    Row("volatile", "SET key:N xxxxxxxxxx EX 3600", 1000000, _volatile),
    # The same two at production size: 10M keys need 7-digit numbers, and
    # the table is larger than any cache.
    Row("strings10m", "SET key:N xxxxxxxxxx", 10000000, _strings),
    Row("volatile10m", "SET key:N xxxxxxxxxx EX 3600", 10000000, _volatile),
    Row("k20v100", "20-byte keys, 100-byte values", 1000000, _k20v100),
    Row("hashes", "hashes of 10 small fields", 100000, lambda i: _fields(i, b"HSET", b"h", _HASH10)),
    Row("zsets", "sorted sets of 10 members", 100000, lambda i: _fields(i, b"ZADD", b"z", _ZSET10)),
    Row("sets", "sets of 10 short strings", 100000, lambda i: _fields(i, b"SADD", b"s", _SHORT10)),
    Row("lists", "lists of 10 short items", 100000, lambda i: _fields(i, b"RPUSH", b"l", _ITEMS10)),
    Row("bighashes", "hashes of 1000 fields", 1000, lambda i: _fields(i, b"HSET", b"big", _HASH1000)),
    # Beyond issue 17's table: the elements of one big collection (skiplist,
    # hashtable and quicklist encodings), where the per-element structures are the cost.
    Row("bigzset", "members of one sorted set", 1000000,
        lambda i: bulk(b"ZADD", b"bigz", b"%d" % i, b"member:%d" % i), keys=1),
    Row("bigset", "members of one set", 1000000, lambda i: bulk(b"SADD", b"bigs", b"member:%d" % i), keys=1),
    Row("bighash", "fields of one hash", 1000000,
        lambda i: bulk(b"HSET", b"bigh", b"field:%d" % i, b"value:%d" % i), keys=1),
    Row("biglist", "items of one list", 1000000, lambda i: bulk(b"RPUSH", b"bigl", b"item:%d" % i), keys=1),
]
BY_NAME = {r.name: r for r in ROWS}


@functools.lru_cache(maxsize=1)
def payload(command, items):
    """The protocol of one row, kept for the next server (rows are measured
    row by row across servers, so one cached payload is enough)."""
    return b"".join(command(i) for i in range(items))


def process_memory(s):
    used = s.r.info("memory")["used_memory"]
    kb = {}
    with open("/proc/%d/status" % s.pid) as f:
        for line in f:
            if line.startswith(("VmRSS:", "RssAnon:")):
                kb[line.split(":")[0]] = int(line.split()[1])
    return used, kb["VmRSS"] * 1024, kb["RssAnon"] * 1024


def empty(binary, *server_args):
    """(used_memory, RSS, anonymous RSS) in bytes of a fresh server holding
    nothing: what every instance costs before its first key (the code of the
    binary and its libraries, their relocated data, the allocator's arenas)."""
    s = Server(binary, *server_args)
    try:
        time.sleep(SETTLE)
        return process_memory(s)
    finally:
        s.stop()


def measure(binary, row, *server_args):
    """(used_memory, RSS, anonymous RSS) per item of `row` (a Row or a row
    name) loaded into a fresh server of `binary`."""
    if isinstance(row, str):
        row = BY_NAME[row]
    data = payload(row.command, row.items)
    s = Server(binary, *server_args)
    try:
        time.sleep(SETTLE)
        before = process_memory(s)
        load_protocol(s.port, data)
        time.sleep(LOADED_SETTLE)
        after = process_memory(s)
        keys = row.items if row.keys is None else row.keys
        if s.r.dbsize() != keys:
            raise RuntimeError("%s: %s loaded %d keys of %d" % (binary, row.name, s.r.dbsize(), keys))
    finally:
        s.stop()
    return tuple((a - b) / row.items for a, b in zip(after, before))


def allocators(binaries):
    """{binary: INFO mem_allocator}: the rows compare like with like only
    when every server runs on jemalloc."""
    out = {}
    for b in binaries:
        s = Server(b)
        try:
            out[b] = s.allocator()
        finally:
            s.stop()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of each row's item count")
    ap.add_argument("--rows", default=",".join(BY_NAME))
    ap.add_argument("binaries", nargs="*")
    a = ap.parse_args()
    binaries = a.binaries or [b for _, b in servers()]
    if not a.binaries and valkey_missing():
        print("# note: " + valkey_missing())
    for b, alloc in allocators(binaries).items():
        print("# %s: mem_allocator %s" % (b, alloc))
    for name in a.rows.split(","):
        row = BY_NAME[name].scaled(a.scale)
        for b in binaries:
            used, rss, anon = measure(b, row)
            print("%-40s %-45s used %10.1f B/item  rss %10.1f  anon %10.1f B/item" % (row.title, b, used, rss, anon),
                  flush=True)


if __name__ == "__main__":
    main()
