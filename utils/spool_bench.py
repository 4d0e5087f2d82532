#!/usr/bin/python3
"""spool_bench: the 0MQ expiry push's disk spool under a mass expiry with no
consumer (ours only; EXPIRY_0MQ.md, "The spool").

Loads --keys string keys with --value-bytes values that all expire at the same
moment, with an endpoint bound and no consumer, so that every message goes to
the spool. Prints: another client's GET latency p50/p99/max while idle (the
second before the deadline) and during the expiry (deadline .. every message
spooled), their ratio; how fast messages were spooled; the bytes on disk per
message; then how fast the C consumer from utils/ gets them all back once it
connects (the replay), and the server's CPU for it. With --ack the server is
started by the caller in ack mode and the consumer acknowledges.

usage: utils/spool_bench.py --port 6379 --zmq tcp://127.0.0.1:5555 [--keys 1000000] [--ack]
"""
import argparse
import os
import subprocess
import sys
import time

import redis

HERE = os.path.dirname(os.path.abspath(__file__))


def pct(lat, p):
    return lat[min(len(lat) - 1, int(len(lat) * p))] if lat else float("nan")


def cpu(r):
    c = r.info("cpu")
    return c["used_cpu_user"] + c["used_cpu_sys"]


def get_latencies(r, until):
    """GET round trips (ms) back to back until until() is true (checked every 100)."""
    lat = []
    while True:
        t = time.perf_counter()
        r.get("probe")
        lat.append((time.perf_counter() - t) * 1000)
        if len(lat) % 100 == 0 and until():
            return sorted(lat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=6379)
    ap.add_argument("--zmq", required=True)
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--value-bytes", type=int, default=100)
    ap.add_argument("--ack", action="store_true")
    a = ap.parse_args()
    r = redis.Redis(port=a.port)
    r.flushall()
    r.config_set("save", "")
    n = a.keys
    value = b"x" * a.value_bytes
    when = int(time.time() * 1000) + 3600 * 1000
    data = b"".join(b"*5\r\n$3\r\nSET\r\n$%d\r\nsp:%d\r\n$%d\r\n%s\r\n$4\r\nPXAT\r\n$%d\r\n%d\r\n" %
                    (len(b"sp:%d" % i), i, len(value), value, len(str(when)), when) for i in range(n))
    subprocess.run(["redis-cli", "-p", str(a.port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)
    # The common deadline moved to a moment after the PEXPIREATs are all in.
    when = int(time.time() * 1000) + 3000 + n // 200
    subprocess.run(["redis-cli", "-p", str(a.port), "--pipe"],
                   input=b"".join(b"*3\r\n$9\r\nPEXPIREAT\r\n$%d\r\nsp:%d\r\n$%d\r\n%d\r\n" %
                                  (len(b"sp:%d" % i), i, len(str(when)), when) for i in range(n)),
                   stdout=subprocess.DEVNULL, check=True)
    r.execute_command("latency", "reset")
    while time.time() * 1000 < when - 1100:
        time.sleep(0.01)
    idle = get_latencies(r, lambda: time.time() * 1000 >= when - 50)
    while time.time() * 1000 < when:
        pass
    def all_spooled():
        st = r.info("expiry_push")
        return r.dbsize() == 0 and (st["expiry_push_spool_max_bytes"] == 0 or st["expiry_push_spool_messages"] >= n)
    during = get_latencies(r, all_spooled)
    spooled_s = time.time() - when / 1000
    st = r.info("expiry_push")
    print("spool, %d keys of %d-byte values due at once, no consumer%s:" % (n, a.value_bytes, ", ack mode" if a.ack else ""))
    print("  GET idle: p50 %.3f ms p99 %.3f ms max %.3f ms (%d GETs)" % (pct(idle, .5), pct(idle, .99), idle[-1], len(idle)))
    print("  GET during: p50 %.3f ms p99 %.3f ms max %.3f ms (%d GETs); p99 %.2fx idle" %
          (pct(during, .5), pct(during, .99), during[-1], len(during), pct(during, .99) / pct(idle, .99)))
    print("  spooled: %d messages in %.2f s after the deadline (%.0f msg/s); %.1f bytes on disk per message; dropped %d"
          % (st["expiry_push_spool_messages"], spooled_s, n / spooled_s, st["expiry_push_spool_bytes"] / n,
             st["expiry_push_dropped"]))
    c0 = cpu(r)
    t = time.time()
    client = os.path.join(HERE, "zmq_expiry_msg_client")
    subprocess.run([client] + (["--ack"] if a.ack else []) + ["-n", str(n), a.zmq], stdout=subprocess.DEVNULL, check=True)
    replay_s = time.time() - t
    print("  replay: the consumer got all %d in %.2f s (%.0f msg/s), server CPU %.2f s" %
          (n, replay_s, n / replay_s, cpu(r) - c0))
    lat = r.execute_command("latency", "latest")
    print("  server events >= 10 ms: %s" % (", ".join("%s max %d ms" % (e[0].decode(), e[3]) for e in lat) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
