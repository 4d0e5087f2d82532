"""benchserver: starting and stopping a server for the benchmark scripts.

bench.py, memrows.py (and bench_repl.py) compare different binaries — ours,
Debian's redis-server 7.0.15, Valkey 8.0.1 — so all of them are started here,
with the same settings (no RDB saving, no AOF, own port and directory), and
the few process figures the benchmarks read (CPU time, allocator) live here
once.
"""
import os
import resource
import shutil
import socket
import subprocess
import tempfile
import time

import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.environ.get("OURS_SERVER") or os.path.join(ROOT, "src", "redis-server")
REF = shutil.which("redis-server") or "/usr/bin/redis-server"
VALKEY = os.environ.get("VALKEY_SERVER") or "/work/shared/anchors/valkey-server-8.0.1"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raise_nofile():
    """Lifts the soft open-files limit to the hard one, for this process and
    the servers and redis-benchmark runs it starts: -c 1000 needs 1000
    sockets on each side, and the servers size maxclients from the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Server:
    """A server process on a free port in a temporary directory. `wrapper`
    (e.g. a valgrind command line) is put in front of the binary."""

    def __init__(self, binary, *args, wrapper=(), timeout=10):
        self.binary = binary
        for attempt in range(3):  # another process may take the free port before the server binds it
            error = self._start(binary, args, wrapper, timeout)
            if error is None:
                return
        raise RuntimeError("%s did not start: %s" % (binary, error))

    def _start(self, binary, args, wrapper, timeout):
        self.dir = tempfile.mkdtemp(prefix="bench-")
        self.port = free_port()
        log = os.path.join(self.dir, "log")
        cmd = list(wrapper) + [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", self.dir, "--logfile", log] + list(args)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.r = redis.Redis(port=self.port)
        deadline = time.time() + timeout
        while True:
            try:
                self.r.ping()
                return None
            except (redis.ConnectionError, redis.exceptions.BusyLoadingError):
                if time.time() > deadline or self.proc.poll() is not None:
                    try:
                        with open(log) as f:
                            error = f.read()[-300:].strip() or "no log"
                    except OSError:
                        error = "no log"
                    self.stop()
                    return error
                time.sleep(0.02)

    @property
    def pid(self):
        return self.proc.pid

    def cpu_seconds(self):
        """user + system CPU time of the whole server process (all threads),
        from /proc/PID/stat fields 14 and 15."""
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # fields[0] is field 3 (state), so utime (14) and stime (15) are at 11 and 12.
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def allocator(self):
        return self.r.info("memory").get("mem_allocator", "?")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def servers(with_valkey=True):
    """[(label, binary)] of the servers to compare; Valkey only when its
    binary is there."""
    out = [("ours", OURS), ("redis", REF)]
    if with_valkey and os.access(VALKEY, os.X_OK):
        out.append(("valkey", VALKEY))
    return out


def load_protocol(port, data):
    """Sends RESP commands through redis-cli --pipe, as a user loading data would."""
    subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)
