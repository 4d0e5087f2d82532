#!/usr/bin/python3
"""push_rate: how fast the 0MQ expiry push delivers a mass expiry to a live consumer.

Issue 35 asks for >= 1,000,000 messages/s in plain mode and >= 500,000 with
acknowledgements, 1M keys due at the same moment with 100-byte values. This
starts our server with a bound endpoint (zmq-expiry-ack yes with --ack),
loads --keys string keys of --value-size bytes that all expire at one
deadline, starts the C consumer from utils/ before it (with --ack, its
default window unless --window), and prints per run:

  delivered rate = lines the consumer printed / (its last line - deadline)

plus the server's CPU seconds (every thread, 0MQ's I/O thread included) and
the consumer's (from its rusage) over that time, and what the server dropped.
The consumer writes its lines to a file, as an archiving consumer would (not
/dev/null: the writes are part of its cost); the time of its last line is the
moment it exited after the last message (-n), or, when messages were dropped
and it waits for ones that never come, the file's last modification.

The backlog is raised to 1 GB so that the figure is the push from memory:
expiry outruns the consumer, and with the default 64 MB (~500k of these
messages) the rest goes through the disk spool (before the spool, a run
dropped 195k of the 1M in plain mode and 65k with acks;
--server-arg=--zmq-expiry-backlog --server-arg=64mb shows the spool's
share). In ack mode every message is written to the spool anyway.

With --sink null the lines go to /dev/null instead, which leaves the push
itself (the file's writes are ~20% of the consumer's CPU); --ipc binds an
ipc:// endpoint instead of tcp://127.0.0.1. The machine's two cores are
shared by four busy threads (the server's, 0MQ's I/O thread on each side,
the consumer's): figures move by a third from run to run when anything
else runs; --runs N prints the median.

usage: utils/push_rate.py [--keys 1000000] [--value-size 100] [--ack] [--window N] [--sink file|null]
                          [--ipc] [--runs 1] [--label TEXT] [--trace S] [--perf PREFIX] [--server B] [--client B]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchserver import OURS, Server, free_port, load_protocol  # noqa: E402

CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zmq_expiry_msg_client")


def count_lines(path):
    n = 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return n
            n += chunk.count(b"\n")


def load(s, keys, value, when):
    """SET pr:<i> value PXAT when, for every key, through redis-cli --pipe."""
    w = b"%d" % when
    v = b"$%d\r\n%s\r\n" % (len(value), value)
    data = b"".join(b"*5\r\n$3\r\nSET\r\n$%d\r\npr:%d\r\n%s$4\r\nPXAT\r\n$%d\r\n%s\r\n" %
                    (len(b"pr:%d" % i), i, v, len(w), w) for i in range(keys))
    load_protocol(s.port, data)


def one_run(a, label):
    if a.ipc:
        endpoint = "ipc://%s" % os.path.join(tempfile.gettempdir(), "push-rate-%d.sock" % os.getpid())
    else:
        endpoint = "tcp://127.0.0.1:%d" % free_port()
    args = ["--zmq-expiry-endpoint", endpoint, "--zmq-expiry-backlog", "1gb"]
    if a.ack:
        args += ["--zmq-expiry-ack", "yes"]
    args += a.server_arg
    s = Server(a.server, *args)
    out = tempfile.NamedTemporaryFile(prefix="push-rate-", suffix=".lines", delete=False)
    try:
        # Loading 1M keys takes a few seconds: the deadline leaves room for it
        # (a deadline already past when a SET arrives would still expire the
        # key, but not "at the same moment" as the others).
        when = int(time.time() * 1000) + 3000 + a.keys // 100
        load(s, a.keys, b"v" * a.value_size, when)
        if s.r.dbsize() != a.keys:
            return "%s: only %d of %d keys loaded before the deadline" % (label, s.r.dbsize(), a.keys)
        left = when / 1000 - time.time()
        if left < 0.5:
            return "%s: loading took too long (%.2f s before the deadline); no figure" % (label, left)
        cmd = [a.client, "-n", str(a.keys)]
        if a.ack:
            cmd += ["--ack"] + (["-w", str(a.window)] if a.window else [])
        sink = out if a.sink == "file" else subprocess.DEVNULL
        consumer = subprocess.Popen(cmd + [endpoint], stdout=sink, stderr=subprocess.DEVNULL)
        done = {}

        def reap():
            # wait4 gives the consumer's own CPU (its threads included), and
            # the moment it exited: right after its last line.
            _, status, ru = os.wait4(consumer.pid, 0)
            done["at"] = time.time()
            done["cpu"] = ru.ru_utime + ru.ru_stime
            done["status"] = status

        waiter = threading.Thread(target=reap)
        waiter.start()
        while time.time() < when / 1000 - 0.2:
            time.sleep(0.05)
        perf = []
        if a.perf:
            # perf record of both processes over the burst, to see where the time goes.
            for name, pid in (("server", s.pid), ("consumer", consumer.pid)):
                if a.perf_stat:
                    # Per thread: the main thread and 0MQ's I/O thread apart.
                    cmd = ["perf", "stat", "--per-thread", "-e", a.perf_stat, "-o", "%s.%s.stat" % (a.perf, name),
                           "-p", str(pid)]
                else:
                    cmd = ["perf", "record", "-q", "--call-graph", "dwarf,16384", "-F", "2000",
                           "-o", "%s.%s.data" % (a.perf, name), "-p", str(pid)]
                perf.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        cpu0 = s.cpu_seconds()
        deadline = when / 1000
        # Wait for the consumer; if the server has nothing left to send (it
        # dropped some) and the file stopped growing, stop waiting for it.
        last_size, stable = -1, 0
        while waiter.is_alive() and time.time() - deadline < a.timeout:
            waiter.join(a.trace or 1.0)
            if a.trace:
                st = s.r.info("stats")
                pi = s.r.info("expiry_push")
                print("  %+.2f s: expired %d, sent %d, backlog %d%s" % (
                    time.time() - deadline, st["expired_keys"], pi["expiry_push_messages_sent"],
                    pi["expiry_push_backlog_messages"],
                    ", file %d MB" % (os.path.getsize(out.name) >> 20) if a.sink == "file" else ""), flush=True)
            if not waiter.is_alive():
                break
            info = s.r.info("expiry_push")
            size = os.path.getsize(out.name) if a.sink == "file" else s.r.info("expiry_push")["expiry_push_messages_sent"]
            idle = s.r.dbsize() == 0 and info.get("expiry_push_backlog_messages", 0) == 0
            stable = stable + 1 if idle and size == last_size else 0
            last_size = size
            if stable >= 2:
                break
        cpu_server = s.cpu_seconds() - cpu0
        for p in perf:
            p.send_signal(2)
            p.wait()
        if waiter.is_alive():
            consumer.kill()
            waiter.join()
            last = os.stat(out.name).st_mtime_ns / 1e9 if a.sink == "file" else time.time()
            note = " (consumer stopped: not every message came)"
        else:
            last = done["at"]
            note = ""
        consumer.returncode = 0  # reaped above: keep Popen from waiting for it again
        out.close()
        if a.sink == "file":
            got = count_lines(out.name)
        elif note:  # lines not kept: what 0MQ took is all that can have come
            got = s.r.info("expiry_push")["expiry_push_messages_sent"]
            note += ", at most"
        else:
            got = a.keys
        info = s.r.info("expiry_push")
        took = max(last - deadline, 1e-6)
        return ("%s: %d of %d messages in %.2f s after the deadline: %.0f msg/s; "
                "server CPU %.2f s, consumer CPU %.2f s; dropped %d%s" %
                (label, got, a.keys, took, got / took, cpu_server, done["cpu"], info.get("expiry_push_dropped", 0),
                 note))
    finally:
        s.stop()
        out.close()
        os.unlink(out.name)


def main():
    ap = argparse.ArgumentParser(description="0MQ expiry push: delivered rate of a mass expiry")
    ap.add_argument("--keys", type=int, default=1000000)
    ap.add_argument("--value-size", type=int, default=100)
    ap.add_argument("--ack", action="store_true", help="zmq-expiry-ack yes, the consumer with --ack")
    ap.add_argument("--window", type=int, default=0, help="the consumer's -w (default: its own default)")
    ap.add_argument("--sink", choices=("file", "null"), default="file",
                    help="where the consumer's lines go: a file (default), or /dev/null")
    ap.add_argument("--ipc", action="store_true", help="an ipc:// endpoint instead of tcp://127.0.0.1")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--label", default="")
    ap.add_argument("--perf-stat", metavar="EVENTS", help="with --perf: perf stat these events instead of recording")
    ap.add_argument("--server", default=OURS, help="the server binary (default %(default)s)")
    ap.add_argument("--client", default=CLIENT, help="the consumer binary (default %(default)s)")
    ap.add_argument("--server-arg", action="append", default=[], help="one more argument for the server")
    ap.add_argument("--trace", type=float, default=0, metavar="SECONDS",
                    help="print the server's progress every SECONDS (costs the server a little)")
    ap.add_argument("--perf", metavar="PREFIX", help="perf record the server and the consumer during the burst "
                    "into PREFIX.server.data and PREFIX.consumer.data")
    a = ap.parse_args()
    if a.client == CLIENT and not os.access(CLIENT, os.X_OK):
        subprocess.run(["make", "-s", "utils/zmq_expiry_msg_client"], cwd=os.path.dirname(os.path.dirname(CLIENT)),
                       check=True)
    label = a.label or ("%s, %d-byte values, lines to %s%s" % (
        "ack" if a.ack else "plain", a.value_size, "a file" if a.sink == "file" else "/dev/null",
        ", ipc" if a.ipc else ""))
    rates = []
    for _ in range(a.runs):
        line = one_run(a, label)
        print(line, flush=True)
        m = re.search(r" ([0-9]+) msg/s;", line)
        if m:
            rates.append(int(m.group(1)))
    if len(rates) > 1:
        print("%s: median %d msg/s of %d runs (%s)" % (label, statistics.median(rates), len(rates),
                                                     ", ".join("%dk" % (r // 1000) for r in rates)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
