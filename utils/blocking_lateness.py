#!/usr/bin/python3
"""blocking_lateness: how late do blocking commands time out?

Blocks --clients connections at once, each on its own empty key with a random
timeout in [--min, --max] seconds, across BLPOP, BZPOPMIN and XREAD BLOCK, and
reads their timeout replies. A reply's lateness is its arrival minus the
moment the command was sent plus its timeout (so it includes the trip to the
server and back, well under a ms on loopback). Prints the count of timeout
replies and lateness p50/p99/max in ms.

The client is one thread over non-blocking sockets and an epoll selector, and
a batch of replies is stamped when the selector returns, so reading one reply
after another adds no lateness; replies are read while the commands are still
being sent, for the shortest timeouts end meanwhile. Redis 7.0 looks at its deadlines from its cron
(hz 10): expect up to ~100 ms there. A lateness below zero (down to -1 ms) is
the server's deadline counted from its millisecond clock, truncated.

Figures of 2026-12-01 on the 2-core machine (load ~1.3, 10,000 clients, three
seeds): ours p50 -0.1-0.05 ms, p99 3.6-5.9 ms, max 6-10 ms; Redis 7.0.15 p50
8-11 ms, p99 17-45 ms, max 20-58 ms. At load 5-7 (other engineers' runs) both
tails grow to tens or hundreds of ms: the machine's scheduling, not the servers.

usage: utils/blocking_lateness.py [--port P] [--clients 10000] [--min 0.05] [--max 3] [--seed 1]
Without --port it starts ours (src/redis-server) and the reference
(/usr/bin/redis-server) in turn, with --maxclients 20000, and reports both.
"""
import argparse
import os
import random
import selectors
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchserver import OURS, REF, Server, raise_nofile  # noqa: E402
from expiry_lag import percentile  # noqa: E402

TIMEOUT_REPLY = b"*-1\r\n"  # every one of the three times out with a nil array (RESP2)


def command(kind, key, secs):
    if kind == "BLPOP":
        args = [b"BLPOP", key, b"%.3f" % secs]
    elif kind == "BZPOPMIN":
        args = [b"BZPOPMIN", key, b"%.3f" % secs]
    else:
        args = [b"XREAD", b"BLOCK", b"%d" % round(secs * 1000), b"STREAMS", key, b"$"]
    return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)


def measure(host, port, clients, lo, hi, seed):
    """Lateness in ms of each timeout reply, and the count of other replies."""
    rng = random.Random(seed)
    socks = []
    for _ in range(clients):
        s = socket.create_connection((host, port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        socks.append(s)
    # A PING round trip on each: every connection is accepted and set up
    # before the blocking commands start their clocks.
    for s in socks:
        s.send(b"PING\r\n")
    for s in socks:
        s.setblocking(True)
        if s.recv(64) != b"+PONG\r\n":
            raise RuntimeError("no PONG")
        s.setblocking(False)
    sel = selectors.EpollSelector()
    deadline = {}
    buf = {}
    late, wrong = [], [0]

    def read_ready(timeout):
        """Reads the replies that arrived; returns how many connections finished."""
        done = 0
        events = sel.select(timeout=timeout)
        now = time.monotonic()
        for key, _ in events:
            s = key.fileobj
            fd = s.fileno()
            data = s.recv(4096)
            buf[fd] += data
            if data and not buf[fd].endswith(b"\r\n"):
                continue
            if buf[fd] == TIMEOUT_REPLY:
                late.append((now - deadline[fd]) * 1000.0)
            else:
                wrong[0] += 1
            sel.unregister(s)
            done += 1
        return done

    left = len(socks)
    for i, s in enumerate(socks):
        kind = ("BLPOP", "BZPOPMIN", "XREAD")[i % 3]
        secs = round(rng.uniform(lo, hi), 3)  # what the command says, to the ms
        payload = command(kind, b"lateness:%d" % i, secs)
        buf[s.fileno()] = b""
        sel.register(s, selectors.EVENT_READ)
        deadline[s.fileno()] = time.monotonic() + secs
        s.send(payload)  # a few dozen bytes: the socket buffer takes them at once
        if i % 64 == 63:
            left -= read_ready(0)  # the shortest timeouts end while the rest are sent
    give_up = time.monotonic() + hi + 30
    while left and time.monotonic() < give_up:
        left -= read_ready(1.0)
    sel.close()
    for s in socks:
        s.close()
    return sorted(late), wrong[0] + left


def report(label, late, wrong):
    print("%-10s timeouts %5d  other/missing %d  lateness ms: p50 %.2f  p99 %.2f  max %.2f  (min %.2f)"
          % (label, len(late), wrong, percentile(late, 50), percentile(late, 99),
             late[-1] if late else float("nan"), late[0] if late else float("nan")), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, help="measure this server (else start ours and the reference)")
    ap.add_argument("--clients", type=int, default=10000)
    ap.add_argument("--min", type=float, default=0.05)
    ap.add_argument("--max", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    raise_nofile()
    if a.port:
        report(a.label or str(a.port), *measure(a.host, a.port, a.clients, a.min, a.max, a.seed))
        return
    run_both(a.clients, a.min, a.max, a.seed)


def run_both(clients, lo, hi, seed):
    raise_nofile()
    for label, binary in (("ours", OURS), ("reference", REF)):
        s = Server(binary, "--maxclients", "20000")
        try:
            report(label, *measure("127.0.0.1", s.port, clients, lo, hi, seed))
        finally:
            s.stop()


if __name__ == "__main__":
    main()
