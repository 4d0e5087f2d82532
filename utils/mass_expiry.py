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

run() returns the figures instead, optionally on top of the keys the server
already holds and with the GET latency of an idle second before the
deadline (utils/bench_scale.py).

usage: utils/mass_expiry.py --port 6379 [--keys 1000000] [--zmq tcp://127.0.0.1:5555]
"""
import argparse
import gc
import os
import subprocess
import sys
import time

import redis


def latency_stats(lat):
    """(count, p50, p99, max) in ms of unsorted latencies (None for none)."""
    lat = sorted(lat)
    if not lat:
        return None
    return len(lat), lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))], lat[-1]


def fmt_stats(st):
    return "%d GETs p50 %.3f ms  p99 %.3f ms  max %.3f ms" % st if st else "no GETs"


def run(port, keys, zmq_endpoint=None, threshold=10, wait=60.0, flush=True, idle=0.0):
    """Loads `keys` keys mx:N due at one moment (on top of what the server
    holds unless flush), GETs from another client until they are all gone or
    `wait` s after the deadline, and returns a dict: removal_s (None: not all
    gone), left (mx keys still there at the end), during (latency_stats of the
    GETs over the removal window), idle (of the GETs over the `idle` s before
    the deadline), events (LATENCY LATEST from the deadline on, the server's
    latency-monitor-threshold set to `threshold` ms), expired (expired_keys
    over the run), and with zmq_endpoint consumer_s (None: not every message
    within `wait`) and draining (GETs while the push drained after removal)."""
    r = redis.Redis(port=port)
    if flush:
        r.flushall()
    r.execute_command("config", "set", "save", "")
    r.execute_command("config", "set", "latency-monitor-threshold", str(threshold))
    base = r.dbsize()
    expired0 = r.info("stats")["expired_keys"]
    when = int(time.time() * 1000) + 3600000  # moved below, once every key is in
    data = b"".join(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nx\r\n$4\r\nPXAT\r\n$%d\r\n%d\r\n" %
                    (len(b"mx:%d" % i), b"mx:%d" % i, len(str(when)), when) for i in range(keys))
    subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)
    # Move the common deadline to a moment after the PEXPIREATs below are all in
    # (loading 1M of them takes seconds; a deadline already past would make the
    # server delete those keys on the spot instead of expiring them).
    # The commands are built first with a placeholder of the deadline's width
    # (building 10M of them takes longer than sending them), then the deadline
    # is set from the moment they are ready.
    placeholder = b"%d" % (when + 10 ** 12)
    data = b"".join(b"*3\r\n$9\r\nPEXPIREAT\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" %
                    (len(b"mx:%d" % i), b"mx:%d" % i, len(placeholder), placeholder) for i in range(keys))
    when = int(time.time() * 1000) + 3000 + keys // 200 + int(idle * 1000)
    data = data.replace(placeholder, b"%d" % when)
    subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)
    consumer = None
    if zmq_endpoint:
        # The C consumer from utils/ (output discarded): light enough that the
        # measurement is the server's, not a Python receiver's.
        client = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zmq_expiry_msg_client")
        consumer = subprocess.Popen([client, "-n", str(keys), zmq_endpoint], stdout=subprocess.DEVNULL)
    # Python's cyclic collector stops the whole client now and then, for
    # longer as the samples pile up: off while GETs are timed, so that a slow
    # GET is not the collector's.
    gc.collect()
    gc.disable()
    idle_lat = []
    while time.time() * 1000 < when - 100:
        if time.time() * 1000 >= when - 100 - idle * 1000:
            t1 = time.perf_counter()
            r.get("probe")
            idle_lat.append((time.perf_counter() - t1) * 1000)
        else:
            time.sleep(0.01)
    r.execute_command("latency", "reset")  # events of the loading above are not the removal's
    # (time sent, latency ms) for every GET; the statistics are taken over the
    # removal window only (deadline .. keyspace empty), so that a longer or
    # shorter removal does not dilute the figures with idle-time GETs.
    samples = []
    deadline = when / 1000
    removed_at = None
    consumer_done_at = None
    while time.time() - deadline < wait:
        t0 = time.time()
        t1 = time.perf_counter()
        r.get("probe")
        samples.append((t0, (time.perf_counter() - t1) * 1000))
        if len(samples) % 100 == 0:
            if removed_at is None and r.dbsize() <= base:
                removed_at = time.time()
            if consumer and consumer_done_at is None and consumer.poll() is not None:
                consumer_done_at = time.time()
            if removed_at is not None and (not consumer or consumer_done_at is not None):
                break

    def window(lo, hi):
        return latency_stats([l for t, l in samples if lo <= t < hi])

    gc.enable()
    res = {"removal_s": removed_at - deadline if removed_at else None, "left": max(0, r.dbsize() - base),
           "during": window(deadline, removed_at or time.time()), "idle": latency_stats(idle_lat)}
    if consumer:
        if consumer_done_at is None:
            consumer.kill()
            res["consumer_s"] = None
        else:
            res["consumer_s"] = consumer_done_at - deadline
            if removed_at and consumer_done_at > removed_at:
                res["draining"] = window(removed_at, consumer_done_at)
    res["expired"] = r.info("stats")["expired_keys"] - expired0
    # LATENCY LATEST: [event, unix time, latest ms, max ms] for each event seen.
    res["events"] = [(e[0].decode(), e[3]) for e in r.execute_command("latency", "latest")]
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=6379)
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--zmq", default=None)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    res = run(a.port, a.keys, a.zmq)
    removal = res["removal_s"]
    msg = "%sexpiry of %d keys: removal took %s; GET during removal: %s" % (
        (a.label + ": ") if a.label else "", a.keys,
        "%.2f s" % removal if removal is not None else "more than 60 s (%d left)" % res["left"],
        fmt_stats(res["during"]))
    if a.zmq:
        if res["consumer_s"] is None:
            msg += "; 0MQ consumer did not get every message within 60 s"
        else:
            got = res["consumer_s"]
            msg += "; 0MQ consumer got all %d messages %.2f s after the deadline (%.0f msg/s)" % (
                a.keys, got, a.keys / max(got, 1e-6))
            if "draining" in res:
                msg += "; GET while the push drained: %s" % fmt_stats(res["draining"])
    msg += "; expired_keys %d" % res["expired"]
    stalls = ", ".join("%s max %d ms" % e for e in res["events"])
    msg += "; server events >= 10 ms: %s" % (stalls or "none")
    print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
