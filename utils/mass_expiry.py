#!/usr/bin/python3
"""mass_expiry: GET latency from another client while many keys expire at once.

Loads --keys keys that all expire at the same moment (PXAT), then a client
issues GETs back to back from just before the deadline until the keyspace is
empty, and prints how long removal took and the GET latency p50/p99/max in ms
over the removal window (deadline .. keyspace empty). With --zmq ENDPOINT the
C consumer from utils/ drains the 0MQ expiry push meanwhile: the message rate
is printed too, and the GET latency while the push was still draining after
the keyspace emptied. The server's own latency monitor (threshold 10 ms) is
on, its events from the removal on are printed: they tell a stall of the
server from one of the client or machine.

usage: utils/mass_expiry.py --port 6379 [--keys 1000000] [--zmq tcp://127.0.0.1:5555]
"""
import argparse
import os
import subprocess
import sys
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
    r.execute_command("config", "set", "latency-monitor-threshold", "10")
    when = int(time.time() * 1000) + 60000
    data = b"".join(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nx\r\n$4\r\nPXAT\r\n$%d\r\n%d\r\n" %
                    (len(b"mx:%d" % i), b"mx:%d" % i, len(str(when)), when) for i in range(a.keys))
    subprocess.run(["redis-cli", "-p", str(a.port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)
    # Move the common deadline to a moment after the PEXPIREATs below are all in
    # (loading 1M of them takes seconds; a deadline already past would make the
    # server delete those keys on the spot instead of expiring them).
    when = int(time.time() * 1000) + 3000 + a.keys // 200
    subprocess.run(["redis-cli", "-p", str(a.port), "--pipe"],
                   input=b"".join(b"*3\r\n$9\r\nPEXPIREAT\r\n$%d\r\n%s\r\n$%d\r\n%d\r\n" %
                                  (len(b"mx:%d" % i), b"mx:%d" % i, len(str(when)), when) for i in range(a.keys)),
                   stdout=subprocess.DEVNULL, check=True)
    consumer = None
    if a.zmq:
        # The C consumer from utils/ (output discarded): light enough that the
        # measurement is the server's, not a Python receiver's.
        client = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zmq_expiry_msg_client")
        consumer = subprocess.Popen([client, "-n", str(a.keys), a.zmq], stdout=subprocess.DEVNULL)
    while time.time() * 1000 < when - 100:
        time.sleep(0.01)
    r.execute_command("latency", "reset")  # events of the loading above are not the removal's
    # (time sent, latency ms) for every GET; the statistics are taken over the
    # removal window only (deadline .. keyspace empty), so that a longer or
    # shorter removal does not dilute the figures with idle-time GETs.
    samples = []
    deadline = when / 1000
    removed_at = None
    consumer_done_at = None
    while time.time() - deadline < 60:
        t0 = time.time()
        t1 = time.perf_counter()
        r.get("probe")
        samples.append((t0, (time.perf_counter() - t1) * 1000))
        if len(samples) % 100 == 0:
            if removed_at is None and r.dbsize() == 0:
                removed_at = time.time()
            if consumer and consumer_done_at is None and consumer.poll() is not None:
                consumer_done_at = time.time()
            if removed_at is not None and (not consumer or consumer_done_at is not None):
                break

    def stats(lo, hi):
        lat = sorted(l for t, l in samples if lo <= t < hi)
        if not lat:
            return "no GETs"
        return "%d GETs p50 %.3f ms  p99 %.3f ms  max %.3f ms" % (
            len(lat), lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))], lat[-1])

    removed_at = removed_at or time.time()
    msg = "%sexpiry of %d keys: removal took %.2f s; GET during removal: %s" % (
        (a.label + ": ") if a.label else "", a.keys, removed_at - deadline, stats(deadline, removed_at))
    if consumer:
        if consumer_done_at is None:
            consumer.kill()
            msg += "; 0MQ consumer did not get every message within 60 s"
        else:
            got = consumer_done_at - deadline
            msg += "; 0MQ consumer got all %d messages %.2f s after the deadline (%.0f msg/s)" % (
                a.keys, got, a.keys / max(got, 1e-6))
            if consumer_done_at > removed_at:
                msg += "; GET while the push drained: %s" % stats(removed_at, consumer_done_at)
    expired = r.info("stats")["expired_keys"]
    msg += "; expired_keys %d" % expired
    # LATENCY LATEST: [event, unix time, latest ms, max ms] for each event seen.
    stalls = ", ".join("%s max %d ms" % (e[0].decode(), e[3]) for e in r.execute_command("latency", "latest"))
    msg += "; server events >= 10 ms: %s" % (stalls or "none")
    print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
