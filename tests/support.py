"""What several test modules share that is not a fixture (fixtures are in
conftest.py): where the server binary is, the Server process wrapper, THE
wait helper (wait_for), and the helpers more than one area uses (replication,
Sentinel, RDB and DUMP bytes, MONITOR, notifications, SLOWLOG, 0MQ consumers).
Test modules import this, never each other; tests/README.md lists it all.
"""
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time

import pytest
import redis

from resp_raw import Err

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("REDIS_SERVER") or os.path.join(ROOT, "src", "redis-server")
REFERENCE = os.environ.get("REFERENCE") == "1"
REF_SERVER = shutil.which("redis-server")


# --- reply texts the string and expiry tests share ---------------------------

NOT_INT = Err("ERR value is not an integer or out of range")
MAX64 = "9223372036854775807"
MIN64 = "-9223372036854775808"


def invalid_expire(cmd):
    return Err("ERR invalid expire time in '%s' command" % cmd)


def rdb_len(n):
    """An RDB length (6-bit, 14-bit or 32-bit form), for files and payloads
    the tests write by hand."""
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    return b"\x80" + struct.pack(">I", n)


def rdb_str(b):
    """An RDB string: its length, then its bytes."""
    return rdb_len(len(b)) + b


def crc64(data):
    """CRC-64 Jones, reflected, as DUMP payloads and RDB files carry it."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x95AC9329AC4BC9B5 if crc & 1 else crc >> 1
    return crc


def payload_of(body, version=10):
    """A DUMP payload (for RESTORE) of an RDB value body: the RDB version, then the CRC."""
    body += bytes([version, 0])
    return body + crc64(body).to_bytes(8, "little")


def enc72(ours, reference):
    """An OBJECT ENCODING answer where we encode as Redis 7.2 does (listpack
    sets, listpack small lists) and the 7.0 reference answers `reference`:
    the one difference from the reference that tests accept."""
    return reference if REFERENCE else ours


class StartRefused(RuntimeError):
    """The server exited while starting: its exit status and its log."""

    def __init__(self, message, returncode, text):
        super().__init__(message)
        self.returncode = returncode
        self.text = text


def refuses_to_start(start, reference_status=(1,)):
    """start() must fail as a server refusing its configuration or its data
    does: exit status 1, no crash report, no sanitizer's. Returns the
    StartRefused, to check its message. reference_status: what Redis 7.0.15
    exits with instead where it differs (it runs redis-check-rdb and exits 0
    after some load errors, panics on others: a negative status, a signal,
    comes with its crash report), accepted under REFERENCE=1 only."""
    try:
        start()
    except StartRefused as e:
        allowed = reference_status if REFERENCE else (1,)
        assert e.returncode in allowed, "exit status %s, not %s: %s" % (e.returncode, allowed, e)
        if e.returncode >= 0:
            for mark in CRASH_MARKS:
                assert mark not in e.text, "a crash while refusing to start: %s" % e
        return e
    raise AssertionError("the server started")


def start_fails(tmp_path, *args, stdin=b""):
    """Runs the binary with args; it must exit 1. Returns (stdout, stderr) as text."""
    p = subprocess.run([SERVER] + list(args), input=stdin, capture_output=True, timeout=20, cwd=str(tmp_path))
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    return p.stdout.decode(), p.stderr.decode()


def start_exiting_on_panic(server_factory, *args):
    """A server that exits with status 1 where it would panic (use-exit-on-panic),
    DEBUG enabled, for the corrupt-payload tests. Returns (server, client)."""
    s = server_factory("--loglevel", "verbose", "--use-exit-on-panic", "yes", "--enable-debug-command", "yes", *args)
    return s, s.client()


def exits(server, timeout=10):
    """Whether the server's process exits within timeout seconds."""
    try:
        return wait_for(lambda: server.proc.poll() is not None, timeout=timeout, what="the server to exit")
    except AssertionError:
        return False


class PortTaken(Exception):
    """The port chosen for a server was taken by another process first."""


def child_pids(pid):
    """The pids of a process's children (a server's snapshot or rewrite child), from /proc."""
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return f.read().split()
    except FileNotFoundError:
        return []


def read_text(path):
    """A file's text, or "" when it cannot be read (a log not yet written, a
    /proc or /sys file this kernel lacks)."""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def wait_for(predicate, timeout=10, interval=0.01, what="condition", retry_on=()):
    """THE wait of the suite: polls predicate() every `interval` seconds and
    returns its first true value; fails the test (AssertionError "timed out
    waiting for <what>") if none comes within `timeout` seconds. It is tried
    once more at the deadline, so a slow last poll still counts. An exception
    in retry_on counts as "not yet" (a sentinel kills connections while it
    reconfigures a server)."""
    deadline = time.time() + timeout
    last = None
    while True:
        expired = time.time() >= deadline
        try:
            value = predicate()
            if value:
                return value
        except retry_on as e:
            last = e
        if expired:
            raise AssertionError("timed out waiting for %s%s" % (what, " (%r)" % last if last else ""))
        time.sleep(interval)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_cluster_port():
    """A free port whose cluster bus port (port + 10000) is free too."""
    for _ in range(100):
        port = free_port()
        if port > 55535:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue
    raise RuntimeError("no free port pair for a cluster node")


# What a server's log or stderr shows when it crashed, failed an assertion or
# a sanitizer caught something (Redis's crash report included).
CRASH_MARKS = ("=== REDIS BUG REPORT START", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", ": runtime error: ",
               "ASSERTION FAILED", "Guru Meditation")


class Server:
    """A server process on a free port, with its own directory. stop() says
    what was wrong with how it ended: server_factory fails the test with it."""

    def __init__(self, args=(), config_text=None, binary=None, env=None, bind="127.0.0.1", pick_port=None):
        # What the test says of this server (server_factory sets them from the
        # test's markers): it makes it exit with an error on purpose, or crash.
        self.exit_expected = False
        self.crash_expected = False
        self.killed = False  # this process was killed by kill() (kill -9, as a crash)
        self.log_from = 0    # where this process's part of the log starts
        self.stderr_text = b""
        self.dir = tempfile.mkdtemp(prefix="redis-test-")
        # env: variables added to the server's environment (e.g. LD_PRELOAD).
        self.env = dict(os.environ, **env) if env else None
        self.host = "127.0.0.1"
        self.logfile = os.path.join(self.dir, "server.log")
        self.proc = None
        self.config_path = None
        if config_text is not None:
            self.config_path = os.path.join(self.dir, "redis.conf")
            with open(self.config_path, "w") as f:
                f.write(config_text)
        # free_port() lets the port go before the server binds it, so another
        # process (a parallel test run) may take it first: start again on a
        # new port when that happened.
        for attempt in range(5):
            self.port = (pick_port or free_port)()
            cmd = [binary or SERVER] + ([self.config_path] if self.config_path else [])
            cmd += ["--port", str(self.port)] + (["--bind", bind] if bind else [])
            cmd += ["--dir", self.dir, "--save", "", "--appendonly", "no", "--logfile", self.logfile]
            cmd += list(args)
            self.cmd = cmd
            try:
                self.proc = subprocess.Popen(cmd, cwd=self.dir, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.PIPE, env=self.env)
                self._wait_ready()
                return
            except PortTaken:
                if self.proc.poll() is None:
                    self.proc.kill()
                self.proc.wait()
                self.proc.stderr.close()
                continue
            except BaseException:
                # Nobody holds a Server that failed to start, so stop it here:
                # a server that never answered PONG must not outlive the test.
                self.stop()
                raise
        self.stop()
        raise RuntimeError("no free port after 5 attempts")

    def _wait_ready(self):
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace")
                log = self.log()
                if "Address already in use" in log + err:
                    raise PortTaken()
                raise StartRefused("server exited with %s: %s %s" % (self.proc.returncode, err, log),
                                   self.proc.returncode, err + log)
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2) as s:
                    # Our process, not another one that took the port.
                    s.sendall(b"INFO server\r\n")
                    reply = b""
                    while not (reply.startswith(b"-") and reply.endswith(b"\r\n")) and (not reply.endswith(b"\r\n\r\n") or reply.count(b"\r\n") < 3):
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        reply += chunk
                    if reply.startswith(b"-NOAUTH"):
                        return
                    if b"process_id:%d\r\n" % self.proc.pid in reply:
                        # INFO is served while loading: ready means PING answers.
                        s.sendall(b"PING\r\n")
                        if s.recv(64).startswith(b"+PONG"):
                            return
                    elif reply.startswith(b"$") and self.proc.poll() is None:
                        raise PortTaken()  # somebody else's server answers there
            except OSError:
                pass
            time.sleep(0.02)
        raise RuntimeError("server did not start: " + self.log())

    def kill(self):
        """kill -9: no shutdown, no save (as a crash)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.killed = True
        if self.proc is not None:
            self.proc.wait()
            self._close_stderr()

    def _close_stderr(self):
        if self.proc.stderr and not self.proc.stderr.closed:
            try:
                self.stderr_text += self.proc.stderr.read()
            except (OSError, ValueError):
                pass
            self.proc.stderr.close()

    def ended_badly(self):
        """Once the process has exited: what was wrong with its end, or None."""
        rc = self.proc.returncode
        if rc != 0 and not (self.killed or self.exit_expected or self.crash_expected):
            how = "was killed by signal %d" % -rc if rc < 0 else "exited with status %d" % rc
            return "the server %s (not stopped by the test)" % how
        if not self.crash_expected:
            text = self.log()[self.log_from:] + self.stderr_text.decode(errors="replace")
            for mark in CRASH_MARKS:
                if mark in text:
                    at = text.index(mark)
                    return "the server's log or stderr shows a crash (%r):\n%s" % (mark, text[max(0, at - 2000):at + 3000])
        return None

    def restart(self):
        """The same command again, on the same port and directory (after kill or a shutdown)."""
        self.kill()
        problem = self.ended_badly()
        if problem:
            raise AssertionError("before the restart: " + problem)
        self.killed = False
        self.log_from = len(self.log())
        self.stderr_text = b""
        self.proc = subprocess.Popen(self.cmd, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     env=self.env)
        try:
            self._wait_ready()
        except StartRefused:
            self.exit_expected = True  # refused: the exception says how (refuses_to_start checks it)
            self.stop()
            raise
        except BaseException:
            self.stop()
            raise

    def log(self):
        try:
            with open(self.logfile, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def client(self, **kw):
        kw.setdefault("decode_responses", False)
        return redis.Redis(host=self.host, port=self.port, **kw)

    def stop(self):
        """SIGTERM (kill -9 after 10 s), and the directory removed. Returns
        what was wrong with how the server ended, or None: it did not exit 0
        on SIGTERM, it had exited by itself with another status, or its log
        or stderr shows a crash report or a sanitizer's."""
        if self.proc is None:
            shutil.rmtree(self.dir, ignore_errors=True)
            return None
        problem = None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                problem = "the server did not stop within 10 s of SIGTERM"
            else:
                if self.proc.returncode != 0 and not (self.exit_expected or self.crash_expected):
                    problem = "the server exited with status %d on SIGTERM" % self.proc.returncode
        self._close_stderr()
        problem = problem or self.ended_badly()
        shutil.rmtree(self.dir, ignore_errors=True)
        return problem


def start_in_dir(server_factory, directory, binary=None):
    """A server keeping its files in `directory` (optionally another binary, e.g. REF_SERVER)."""
    return server_factory("--dir", str(directory), "--save", "", binary=binary)


# --- MONITOR ------------------------------------------------------------------

LINE = re.compile(rb"^\+(\d+)\.(\d{6}) \[(\d+) ([^\]]+)\] (.*)\r\n$", re.S)


class Monitor:
    def __init__(self, connect):
        self.conn = connect()
        assert self.conn.call_frame("monitor") == b"+OK\r\n"

    def line(self, timeout=2.0):
        """Next monitor line as (db, address, rest-of-line bytes); checks the format and clock."""
        frame = self.conn.read_frame(timeout)
        m = LINE.match(frame)
        assert m, frame
        assert abs(int(m.group(1)) - time.time()) < 10
        return int(m.group(3)), m.group(4).decode(), m.group(5)

    def lines_until(self, marker_rest):
        """Lines (db, addr, rest) up to and including the one whose rest is marker_rest."""
        out = []
        while True:
            out.append(self.line())
            if out[-1][2] == marker_rest:
                return out


# --- keyspace notifications ---------------------------------------------------

SYNC = "__test_sync__"
ANY = object()


def ev(event, key, db=0):
    """The two messages one event produces with K and E enabled: (channel, payload)."""
    return [("__keyspace@%d__:%s" % (db, key), event), ("__keyevent@%d__:%s" % (db, event), key)]


def evs(*items):
    """Flatten ev() tuples: evs(("set", "a"), ("del", "a", 1))."""
    out = []
    for it in items:
        out += ev(*it)
    return out


def same(got, want):
    """Equal with RESP types kept apart (status vs error vs bulk); ANY matches anything."""
    if want is ANY:
        return True
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same, got, want))
    return type(got) is type(want) and got == want


class Watcher:
    """Runs commands on one connection and returns the notifications each raised.

    A second connection is psubscribed to every notification channel; after each
    command a third connection publishes to SYNC. Notifications are published
    before the command's reply is written, so everything that arrives before the
    SYNC message was raised by that command.
    """

    def __init__(self, connect, flags="KEA", patterns=("__key*__:*",)):
        self.cmd = connect()
        self.sub = connect()
        self.syncer = connect()
        if flags is not None:
            assert self.cmd.call("config", "set", "notify-keyspace-events", flags) == "OK"
        for p in patterns:
            self.sub.call("psubscribe", p)
        self.sub.call("subscribe", SYNC)

    def collect(self):
        self.syncer.call("publish", SYNC, "x")
        got = []
        while True:
            m = self.sub.read()
            if m[0] == b"message" and m[1] == SYNC.encode():
                return got
            assert m[0] == b"pmessage", m
            got.append((m[2].decode(errors="surrogateescape"), m[3].decode(errors="surrogateescape")))

    def run(self, *args):
        """(reply, notifications) of one command."""
        reply = self.cmd.call(*args)
        return reply, self.collect()

    def arriving(self, count, timeout=3.0):
        """Notifications arriving on their own (active expiry): wait for `count` messages."""
        got = []
        deadline = time.time() + timeout
        while len(got) < count and time.time() < deadline:
            m = self.sub.read(timeout=max(0.01, deadline - time.time()))
            got.append((m[2].decode(), m[3].decode()))
        return got

    def check(self, steps):
        for args, reply, events in steps:
            got_reply, got_events = self.run(*args)
            assert same(got_reply, reply), (args, got_reply, reply)
            assert got_events == evs(*events), (args, got_events)


# --- SLOWLOG ------------------------------------------------------------------

def logged(conn, count="-1"):
    """The log oldest first, without the SLOWLOG RESET that opened it."""
    entries = conn.call("slowlog", "get", count)[::-1]
    return [e for e in entries if e[3] != [b"slowlog", b"reset"]]


def argvs(conn):
    return [e[3] for e in logged(conn)]


# --- replication --------------------------------------------------------------

# The reference would delay a full sync by repl-diskless-sync-delay (5 s):
# both kinds of master save to disk here.
MASTER_ARGS = ("--repl-diskless-sync", "no")


def raw_info(client, section):
    client.set_response_callback("INFO", lambda resp, **kw: resp)
    return client.execute_command("INFO", section)


def info(client, section="replication"):
    raw = raw_info(client, section)
    if isinstance(raw, bytes):
        raw = raw.decode()
    out = {}
    for line in raw.split("\r\n"):
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k] = v
    return out


def info_keys(client, section="replication"):
    raw = raw_info(client, section)
    raw = raw.decode() if isinstance(raw, bytes) else raw
    return [line.split(":", 1)[0] for line in raw.split("\r\n") if ":" in line]


def link_up(replica):
    return info(replica).get("master_link_status") == "up"


def server_binary(kind):
    """The binary of one side of a mixed pair: "ours" is the server under test
    (the reference itself under REFERENCE=1), "reference" Debian's."""
    if kind == "reference" and not REF_SERVER:
        pytest.skip("no reference redis-server")
    return SERVER if kind == "ours" else REF_SERVER


def start_pair(server_factory, master_bin=None, replica_bin=None, replica_args=(), master_args=MASTER_ARGS):
    master = server_factory(*master_args, binary=master_bin)
    replica = server_factory(*replica_args, binary=replica_bin)
    m, r = master.client(), replica.client()
    return master, replica, m, r


def attach(r, master):
    r.execute_command("REPLICAOF", master.host, master.port)
    wait_for(lambda: link_up(r), what="master_link_status:up")


def caught_up(m, r):
    """The replica applied everything the master produced so far."""
    target = int(info(m)["master_repl_offset"])
    wait_for(lambda: int(info(r)["slave_repl_offset"]) >= target, what="replica offset %d" % target)


# What clients send, as a raw pipeline: Redis accepts anything in the byte
# after a header's "\r" and in the two after an argument, so a command that
# had garbage there must reach the stream in its canonical form.
SENT_ODDLY = (b"*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\n1\r\n"        # lower case, as sent
              b"*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2XY"            # garbage after an argument
              b"*3\r\n$3\r\nSET\r\n$1\r\nc\rZ$1\r\n3\r\n"           # garbage after a header's \r
              b"*3\rQ$3\r\nSET\r\n$1\r\nd\r\n$1\r\n4\r\n"           # after the count's \r
              b"set e 5\r\n"                                          # inline
              b"*2\r\n$4\r\nINCR\r\n")                                 # split: the rest comes later
SENT_ODDLY_REST = b"$1\r\nf\r\n*3\r\n$3\r\nSET\r\n$1\r\ng\r\n$3\r\n100\r\n"
SENT_ODDLY_STREAM = (b"*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\n1\r\n"
                     b"*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n"
                     b"*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$1\r\n3\r\n"
                     b"*3\r\n$3\r\nSET\r\n$1\r\nd\r\n$1\r\n4\r\n"
                     b"*3\r\n$3\r\nset\r\n$1\r\ne\r\n$1\r\n5\r\n"
                     b"*2\r\n$4\r\nINCR\r\n$1\r\nf\r\n"
                     b"*3\r\n$3\r\nSET\r\n$1\r\ng\r\n$3\r\n100\r\n")


def send_oddly(server):
    """Sends SENT_ODDLY then its rest; returns the replies."""
    c = socket.create_connection((server.host, server.port), timeout=5)
    c.sendall(SENT_ODDLY)
    time.sleep(0.2)  # the split command waits in the query buffer
    c.sendall(SENT_ODDLY_REST)
    want = b"+OK\r\n" * 5 + b":1\r\n+OK\r\n"
    got = b""
    while len(got) < len(want):
        chunk = c.recv(len(want) - len(got))
        if not chunk:
            break
        got += chunk
    c.close()
    return got, want


# --- Sentinel (Debian's redis-sentinel) -----------------------------------------

SENTINEL = shutil.which("redis-sentinel") or "/usr/bin/redis-sentinel"
SENTINEL_NAME = "mymaster"
SENTINEL_ERRORS = (redis.ConnectionError, redis.ResponseError)


def ask(server, *args):
    """One command on a fresh connection: the sentinels' CLIENT KILL TYPE
    normal closes the connections a test keeps."""
    c = server.client(decode_responses=True)
    try:
        return c.execute_command(*args)
    finally:
        c.close()


def start_sentinel(server_factory, master_port):
    # down-after 3 s, not 1: CI once ended test_sentinel_failover with the
    # restarted old master a master of both others, what a second failover
    # leaves (it is the only replica with a priority) when starved sentinels
    # miss the new master's replies for 1 s.
    conf = ("sentinel monitor %s 127.0.0.1 %d 2\n"
            "sentinel down-after-milliseconds %s 3000\n"
            "sentinel failover-timeout %s 6000\n"
            "sentinel parallel-syncs %s 1\n") % ((SENTINEL_NAME, master_port) + (SENTINEL_NAME,) * 3)
    return server_factory(config_text=conf, binary=SENTINEL)


def sentinel_master(sentinel):
    flat = ask(sentinel, "SENTINEL", "MASTER", SENTINEL_NAME)
    return dict(zip(flat[::2], flat[1::2]))


# --- 0MQ consumers (pyzmq; the zctx fixture in conftest.py makes them) ---------

class Consumer:
    """A PULL socket connected to one or more endpoints (ack=True: a DEALER,
    as an ack-mode consumer connects, that says READY and ACK itself)."""

    def __init__(self, ctx, *endpoints, rcvhwm=None, ack=False):
        import zmq
        self.sock = ctx.socket(zmq.DEALER if ack else zmq.PULL)
        self.sock.setsockopt(zmq.LINGER, 0)
        if rcvhwm is not None:
            self.sock.setsockopt(zmq.RCVHWM, rcvhwm)
        for e in endpoints:
            self.sock.connect(e)

    def recv(self, timeout=5.0):
        if not self.sock.poll(int(timeout * 1000)):
            raise AssertionError("no expiry message within %.1fs" % timeout)
        return self.sock.recv_multipart()

    def recv_n(self, n, timeout=10.0):
        deadline = time.time() + timeout
        out = []
        while len(out) < n:
            out.append(self.recv(max(0.1, deadline - time.time())))
        return out

    def expect_nothing(self, wait=0.3):
        if self.sock.poll(int(wait * 1000)):
            raise AssertionError("unexpected message %r" % (self.sock.recv_multipart(),))

    def say(self, words):
        self.sock.send(words.encode())

    def recv_numbered(self, n, timeout=10.0):
        """n ack-mode messages as (sequence number, the three frames)."""
        out = []
        for m in self.recv_n(n, timeout):
            assert len(m) == 4 and len(m[3]) == 8, m
            out.append((struct.unpack("=Q", m[3])[0], m[:3]))
        return out

    def close(self):
        self.sock.close(0)


class Consumers:
    """Makes consumers on one 0MQ context and closes them all at the end."""

    def __init__(self):
        import zmq  # pyzmq: only the 0MQ tests need it
        self.ctx = zmq.Context()
        self.made = []

    def consumer(self, *endpoints, **kw):
        self.made.append(Consumer(self.ctx, *endpoints, **kw))
        return self.made[-1]

    def close(self):
        for c in self.made:
            c.close()
        self.ctx.term()


# --- TLS ----------------------------------------------------------------------

class TlsCerts:
    """Test certificates made with the openssl CLI in `directory`: a CA
    (ca.crt), a server/client certificate it signed (redis.crt/.key, no
    usage restrictions, as Redis's gen-test-certs.sh makes), a client-only
    one (client.crt/.key), one that expired yesterday (expired.crt/.key), an
    encrypted key (redis-pass.key, password "secret"), and a second CA with a client certificate of its own
    (other-ca.crt, other.crt/.key: a stranger's). EC keys: fast to make."""

    def __init__(self, directory):
        self.dir = str(directory)
        os.makedirs(self.dir, exist_ok=True)
        self._ca("ca")
        self._ca("other-ca")
        self._cert("redis", "ca", "Generic-cert")
        self._cert("client", "ca", "Client-only")
        self._cert("other", "other-ca", "Stranger")
        self._cert("expired", "ca", "Expired", days=-1)  # its notAfter a day ago
        self._run("openssl", "ec", "-in", self.path("redis.key"), "-aes256", "-passout", "pass:secret",
                  "-out", self.path("redis-pass.key"))

    def path(self, name):
        return os.path.join(self.dir, name)

    def _run(self, *cmd):
        subprocess.run(cmd, check=True, capture_output=True, cwd=self.dir)

    def _key(self, name):
        self._run("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", self.path(name + ".key"))

    def _ca(self, name):
        self._key(name)
        self._run("openssl", "req", "-x509", "-new", "-nodes", "-sha256", "-key", name + ".key", "-days", "30",
                  "-subj", "/O=Redis Test/CN=%s" % name, "-out", name + ".crt")

    def _cert(self, name, ca, cn, days=30):
        self._key(name)
        self._run("openssl", "req", "-new", "-sha256", "-key", name + ".key", "-subj", "/O=Redis Test/CN=%s" % cn,
                  "-out", name + ".csr")
        self._run("openssl", "x509", "-req", "-sha256", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
                  "-CAcreateserial", "-days", str(days), "-out", name + ".crt")

    def reissue(self, name, ca="ca", cn="Rotated"):
        """A new key and certificate under the same file names (rotation)."""
        self._cert(name, ca, cn)

    def server_args(self, *extra):
        """--tls-* arguments of a server with a TLS port (the `tls_port` argument
        of Server) using redis.crt, and clients verified against ca.crt."""
        return ("--tls-cert-file", self.path("redis.crt"), "--tls-key-file", self.path("redis.key"),
                "--tls-ca-cert-file", self.path("ca.crt")) + extra

    def client_kwargs(self, cert="redis"):
        """redis-py's ssl arguments: verifying the server against ca.crt, with
        `cert`'s certificate (None: no client certificate)."""
        kw = dict(ssl=True, ssl_ca_certs=self.path("ca.crt"), ssl_cert_reqs="required", ssl_check_hostname=False)
        if cert:
            kw.update(ssl_certfile=self.path(cert + ".crt"), ssl_keyfile=self.path(cert + ".key"))
        return kw


def start_tls(server_factory, certs, *args, binary=None):
    """A server with a plain port and a TLS port (server.tls_port) side by
    side, with certs' redis.crt and its CA (args may override any of it)."""
    for attempt in range(5):
        tls_port = free_port()
        try:
            s = server_factory("--tls-port", str(tls_port), *certs.server_args(*args), binary=binary)
        except StartRefused as e:
            if "Address already in use" in str(e):
                continue
            raise
        s.tls_port = tls_port
        return s
    raise RuntimeError("no free TLS port after 5 attempts")


def tls_client(server, certs, cert="redis", **kw):
    """redis-py over TLS to server's TLS port (cert: the client certificate's
    name in certs, None for none)."""
    kw.update(certs.client_kwargs(cert))
    return redis.Redis(host=server.host, port=server.tls_port, **kw)


# --- Redis Cluster --------------------------------------------------------------

REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"


def cluster_info(client):
    raw = client.execute_command("CLUSTER", "INFO")
    raw = raw.decode() if isinstance(raw, bytes) else raw
    return dict(line.split(":", 1) for line in raw.split("\r\n") if ":" in line)


class Cluster:
    """The nodes of start_cluster, masters first (nodes[i] for i < masters),
    then the replicas, nodes[masters + k] following master k % masters;
    ids[i] is nodes[i]'s node id."""

    def __init__(self, nodes, masters):
        self.nodes = nodes
        self.masters = masters
        self.ids = [n.client(decode_responses=True).execute_command("CLUSTER", "MYID") for n in nodes]

    def client(self, i, **kw):
        return self.nodes[i].client(**kw)

    def owner_of(self, slot):
        """The index of the master serving slot."""
        for i, n in enumerate(self.nodes[:self.masters]):
            for rng in n.client(decode_responses=True).execute_command("CLUSTER", "SLOTS"):
                if rng[0] <= slot <= rng[1] and rng[2][2] == self.ids[i]:
                    return i
        raise AssertionError("no master serves slot %d" % slot)

    def roles_seen(self, node):
        """What node's CLUSTER NODES says of each node: its master's id, or "-" for a master."""
        seen = {}
        for line in node.client(decode_responses=True).execute_command("CLUSTER", "NODES").splitlines():
            f = line.split()
            seen[f[0]] = f[3]
        return seen

    def wait_ok(self, nodes=None, timeout=30):
        """Every node says cluster_state:ok, knows every node, and sees each replica as its master's."""
        nodes = self.nodes if nodes is None else nodes
        wait_for(lambda: all(cluster_info(n.client()).get("cluster_state") == "ok" and
                             int(cluster_info(n.client())["cluster_known_nodes"]) == len(self.nodes) for n in nodes),
                 timeout=timeout, interval=0.1, what="cluster_state:ok on every node")
        want = {}
        for j in range(self.masters, len(self.nodes) if self.masters else 0):
            want[self.ids[j]] = self.ids[(j - self.masters) % self.masters]
        if want and len(self.ids) == len(self.nodes):
            wait_for(lambda: all(all(self.roles_seen(n).get(r) == m for r, m in want.items()) for n in nodes),
                     timeout=timeout, interval=0.1, what="every node to see every replica's master")


def redis_cluster(node):
    """redis-py's RedisCluster seeded with node only (decoded replies).
    dynamic_startup_nodes=False: Debian's redis-py 4.3.4 fails to refresh its
    slot map from a discovered node it has no connection to yet (it deep-copies
    its own kwargs, locks included), so a test that kills a node seeds the
    client with one that stays up, and keeps it the seed."""
    from redis.cluster import ClusterNode, RedisCluster
    return RedisCluster(startup_nodes=[ClusterNode(node.host, node.port)], dynamic_startup_nodes=False,
                        decode_responses=True)


def start_cluster(server_factory, kinds, replicas=0, node_timeout=2000, args=(), cli=None, tls=None):
    """A cluster of len(kinds) nodes, each "ours" or "reference" (server_binary),
    each on its own port and bus port, in its own directory with its own
    nodes.conf; all stopped by server_factory at the end. The first
    len(kinds) / (replicas + 1) are masters sharing the 16384 slots, the
    others their replicas. Formed by `redis-cli --cluster create` when there
    are 3 masters or more (cli=False: by CLUSTER ADDSLOTSRANGE, MEET and
    REPLICATE), and returned once every node says cluster_state:ok.
    tls (a TlsCerts): every node also has a TLS port (node.tls_port) with
    tls-cluster and tls-replication yes, so the bus and the replication links
    are TLS; formed by MEET at the TLS ports (the bus is 10000 above them)."""
    nodes = []
    for kind in kinds:
        extra = ()
        if tls:
            tls_port = free_cluster_port()
            extra = ("--tls-port", str(tls_port), "--tls-cluster", "yes", "--tls-replication", "yes",
                     *tls.server_args())
        n = server_factory("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                           "--cluster-node-timeout", str(node_timeout), *extra, *args,
                           binary=server_binary(kind), pick_port=free_cluster_port)
        n.tls_port = tls_port if tls else None
        nodes.append(n)
    masters = len(kinds) // (replicas + 1)
    if cli is None:
        cli = masters >= 3 and not tls
    if cli:
        addrs = ["%s:%d" % (n.host, n.port) for n in nodes]
        p = subprocess.run([REDIS_CLI, "--cluster", "create", *addrs, "--cluster-replicas", str(replicas),
                            "--cluster-yes"], capture_output=True, timeout=60)
        assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
        # redis-cli picks the masters itself: the order of Cluster.nodes follows what it chose.
        cluster = Cluster(nodes, 0)
        cluster.wait_ok()
        # redis-cli chose which master each replica follows: nodes are put in Cluster's order.
        repl = [info(n.client()) for n in nodes]
        ordered = [n for n, r in zip(nodes, repl) if r["role"] == "master"]
        groups = [[n for n, r in zip(nodes, repl) if r["role"] == "slave" and int(r["master_port"]) == m.port]
                  for m in ordered]
        ordered += [g[i] for i in range(replicas) for g in groups if i < len(g)]
        cluster = Cluster(ordered, masters)
        cluster.wait_ok()
        return cluster
    per = 16384 // masters
    for i, n in enumerate(nodes[:masters]):
        last = 16383 if i == masters - 1 else (i + 1) * per - 1
        assert n.client().execute_command("CLUSTER", "ADDSLOTSRANGE", i * per, last) in (b"OK", True)
    for n in nodes[1:]:
        n.client().execute_command("CLUSTER", "MEET", nodes[0].host, nodes[0].tls_port or nodes[0].port)
    cluster = Cluster(nodes, masters)
    wait_for(lambda: all(int(cluster_info(n.client())["cluster_known_nodes"]) == len(nodes) for n in nodes),
             timeout=30, interval=0.1, what="every node to know every other")
    for j, n in enumerate(nodes[masters:]):
        master_id = cluster.ids[j % masters]
        wait_for(lambda: master_id in n.client(decode_responses=True).execute_command("CLUSTER", "NODES"),
                 interval=0.1, what="the replica to know its master")
        n.client().execute_command("CLUSTER", "REPLICATE", master_id)
    cluster.wait_ok()
    return cluster
