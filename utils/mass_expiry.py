#!/usr/bin/python3
"""mass_expiry: GET latency from another client while many keys expire at once.

Loads --keys keys that all expire at the same moment (PXAT), then a client
issues GETs back to back from just before the deadline until the keyspace is
empty, and prints the latency p50/p99/max in ms and how long removal took.
With --zmq ENDPOINT a PULL consumer drains the 0MQ expiry push meanwhile and
the message rate is printed too.

usage: utils/mass_expiry.py --port 6379 [--keys 1000000] [--zmq tcp://127.0.0.1:5555]
"""
import argparse
import subprocess
import sys
import threading
import time

import redis


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=6379)
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--zmq", default=None)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    r = redis.Redis(port=a.port)
    r.flushall()
    r.execute_command("config", "set", "save", "")
    when = int(time.time() * 1000) + 60000
    data = b"".join(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nx\r\n$4\r\nPXAT\r\n$%d\r\n%d\r\n" %
                    (len(b"mx:%d" % i), b"mx:%d" % i, len(str(when)), when) for i in range(a.keys))
    t0 = time.time()
    subprocess.run(["redis-cli", "-p", str(a.port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)
    # Move the common deadline to 2 s from now (loading took a while).
    when = int(time.time() * 1000) + 2000
    subprocess.run(["redis-cli", "-p", str(a.port), "--pipe"],
                   input=b"".join(b"*3\r\n$9\r\nPEXPIREAT\r\n$%d\r\n%s\r\n$%d\r\n%d\r\n" %
                                  (len(b"mx:%d" % i), b"mx:%d" % i, len(str(when)), when) for i in range(a.keys)),
                   stdout=subprocess.DEVNULL, check=True)
    received = [0]
    done = threading.Event()
    if a.zmq:
        import zmq
        ctx = zmq.Context()
        sock = ctx.socket(zmq.PULL)
        sock.setsockopt(zmq.RCVHWM, 0)
        sock.connect(a.zmq)
        sock.setsockopt(zmq.RCVTIMEO, 200)
        first_last = [None, None]

        def consume():
            while not done.is_set():
                try:
                    sock.recv_multipart()
                except zmq.Again:
                    continue
                now = time.time()
                if first_last[0] is None:
                    first_last[0] = now
                first_last[1] = now
                received[0] += 1

        t = threading.Thread(target=consume, daemon=True)
        t.start()
    while time.time() * 1000 < when - 100:
        time.sleep(0.01)
    lat = []
    start = time.time()
    end_at = None
    while time.time() - start < 60:
        t1 = time.perf_counter()
        r.get("probe")
        lat.append((time.perf_counter() - t1) * 1000)
        if len(lat) % 200 == 0 and r.dbsize() == 0:
            end_at = time.time()
            break
    lat.sort()
    msg = "%sGET during expiry of %d keys: p50 %.3f ms  p99 %.3f ms  max %.3f ms; removal took %.2f s" % (
        (a.label + ": ") if a.label else "", a.keys, lat[len(lat) // 2], lat[int(len(lat) * 0.99)], lat[-1],
        (end_at or time.time()) - when / 1000)
    if a.zmq:
        deadline = time.time() + 30
        while received[0] < a.keys and time.time() < deadline:
            time.sleep(0.05)
        done.set()
        span = (first_last[1] - first_last[0]) if first_last[0] else 0
        msg += "; 0MQ received %d messages at %.0f msg/s" % (received[0], received[0] / span if span else 0)
    print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
