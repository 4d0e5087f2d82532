#!/usr/bin/python3
"""expiry_lag: how late do `expired` events arrive?

Reproduces issue 7's measurement against any server: it fills the server with
--background keys that expire in an hour, then sets --keys keys whose TTLs end
evenly over the next --spread seconds, and listens for their `expired` events
(keyspace notifications, or with --zmq ENDPOINT the 0MQ expiry push). For each
key the lag is arrival time minus the key's deadline. Prints delivered count
and lag p50/p99/max in ms. probe_lags() is the measurement on its own, for
a server already holding its background (utils/bench_scale.py).

usage: utils/expiry_lag.py --port 6379 [--background 1000000] [--dbs 1] [--keys 2000]
                           [--spread 5] [--wait 35] [--zmq tcp://127.0.0.1:5555]
"""
import argparse
import struct
import subprocess
import sys
import threading
import time

import redis


def fill_background(port, n, dbs=1):
    """Bulk-load n volatile keys through redis-cli --pipe (much faster than a
    client loop), spread evenly over dbs 0..dbs-1."""
    chunks = []
    per_db = -(-n // dbs)
    for i in range(n):
        if i % per_db == 0:
            db = b"%d" % (i // per_db)
            chunks.append(b"*2\r\n$6\r\nSELECT\r\n$%d\r\n%s\r\n" % (len(db), db))
        k = b"bg:%d" % i
        chunks.append(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$10\r\nxxxxxxxxxx\r\n$2\r\nEX\r\n$4\r\n3600\r\n" % (len(k), k))
    data = b"".join(chunks)
    subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=data, check=True,
                   stdout=subprocess.DEVNULL)


def percentile(sorted_vals, p):
    if not sorted_vals:
        return float("nan")
    idx = min(len(sorted_vals) - 1, int(round(p / 100.0 * (len(sorted_vals) - 1))))
    return sorted_vals[idx]


def probe_lags(r, keys=2000, spread=5.0, wait=35.0, zmq_endpoint=None):
    """Sets `keys` probe keys (lag:N) whose deadlines end evenly over the next
    `spread` seconds, listens for their `expired` events (keyspace
    notifications, or the 0MQ push at zmq_endpoint) until all came or `wait`
    seconds after the last deadline; returns the sorted lags in ms (arrival
    minus deadline) of those that came. The keys already in the server stay."""
    arrivals = {}
    done = threading.Event()

    if zmq_endpoint:
        import zmq
        ctx = zmq.Context()
        sock = ctx.socket(zmq.PULL)
        sock.connect(zmq_endpoint)
        sock.setsockopt(zmq.RCVTIMEO, 200)

        def listen():
            while not done.is_set():
                try:
                    frames = sock.recv_multipart()
                except zmq.Again:
                    continue
                now = time.time()
                klen = struct.unpack("=I", frames[1][:4])[0]
                arrivals[frames[1][4:4 + klen]] = now
    else:
        r.config_set("notify-keyspace-events", "Ex")
        p = r.pubsub()
        p.subscribe("__keyevent@0__:expired")

        def listen():
            while not done.is_set():
                m = p.get_message(timeout=0.2)
                if m and m["type"] == "message":
                    arrivals[m["data"]] = time.time()

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    time.sleep(0.3)
    start_ms = int(time.time() * 1000) + 500
    deadlines = {}
    pipe = r.pipeline(transaction=False)
    for i in range(keys):
        k = b"lag:%d" % i
        when = start_ms + int(i * spread * 1000 / max(keys, 1))
        deadlines[k] = when
        pipe.set(k, b"v", pxat=when)
    pipe.execute()
    end = time.time() + spread + wait
    while time.time() < end and sum(1 for k in deadlines if k in arrivals) < keys:
        time.sleep(0.05)
    done.set()
    t.join(1)
    if not zmq_endpoint:
        p.close()
    return sorted((arrivals[k] * 1000 - deadlines[k]) for k in deadlines if k in arrivals)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=6379)
    ap.add_argument("--background", type=int, default=1000000)
    ap.add_argument("--keys", type=int, default=2000)
    ap.add_argument("--spread", type=float, default=5.0)
    ap.add_argument("--wait", type=float, default=35.0)
    ap.add_argument("--zmq", default=None, help="0MQ endpoint of the expiry push instead of notifications")
    ap.add_argument("--label", default="")
    ap.add_argument("--dbs", type=int, default=1, help="spread the background keys over this many dbs (the probes are in db 0)")
    a = ap.parse_args()

    r = redis.Redis(host=a.host, port=a.port)
    r.flushall()
    if a.background:
        fill_background(a.port, a.background, a.dbs)
    try:
        r.config_resetstat()
    except redis.ResponseError:
        pass
    lags = probe_lags(r, a.keys, a.spread, a.wait, a.zmq)
    delivered = len(lags)
    # The server's own figure (ours: INFO's expired_lateness_*), when it has one.
    own = {k: v for k, v in r.info("all").items() if k.startswith("expired_lateness_")}
    print("%sdelivered %d/%d  lag ms p50 %.2f  p99 %.2f  max %.2f%s" % (
        (a.label + ": ") if a.label else "", delivered, a.keys,
        percentile(lags, 50), percentile(lags, 99), lags[-1] if lags else float("nan"),
        "  server lateness ms p50 %.2f  p99 %.2f  p999 %.2f  max %.2f" % tuple(
            own.get("expired_lateness_%s_us" % q, 0) / 1000 for q in ("p50", "p99", "p999", "max")) if own else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
