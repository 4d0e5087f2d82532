"""benchserver: starting and stopping a server for the benchmark scripts.

bench.py, memrows.py (and bench_repl.py) compare different binaries — ours,
Debian's redis-server 7.0.15, Valkey 8.0.1 (VALKEY_SERVER: its binary, built
from github.com/valkey-io/valkey tag 8.0.1; README.md) — so all of them are started here,
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
VALKEY = os.environ.get("VALKEY_SERVER") or None  # no default: nothing outside the repository is assumed


def callgrind_totals(path):
    """The instruction count of one callgrind dump (its "totals:" line)."""
    with open(path) as f:
        for line in f:
            if line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("no totals in " + path)


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


def pinner(cpus):
    """A preexec_fn that binds the child (and the threads it starts) to
    `cpus`, or None to leave it free."""
    if not cpus:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def split_cpus():
    """({server cpu}, {client cpus}) when this process may use two CPUs or
    more, else (None, None). The CPU benchmark pins the server to one CPU and
    redis-benchmark to the others: left to the scheduler, the two migrate
    between the cores and each migration (cold caches, a wake-up on the other
    core) lands in the server's CPU time differently from run to run."""
    mine = sorted(os.sched_getaffinity(0))
    if len(mine) < 2:
        return None, None
    return {mine[0]}, set(mine[1:])


def process_cpu_seconds(pid):
    """CPU time (user + system) of a process's threads, in seconds, from
    each thread's /proc/PID/task/TID/schedstat: the scheduler's run time in
    nanoseconds. /proc/PID/stat's utime and stime are sampled at the clock
    tick (10 ms), and a benchmark of a few seconds moved by that sampling
    alone by several per cent. A thread that ended is no longer counted;
    the servers' helper threads live as long as the server."""
    total = 0
    task_dir = "/proc/%d/task" % pid
    for tid in os.listdir(task_dir):
        try:
            with open(os.path.join(task_dir, tid, "schedstat")) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError):
            pass  # the thread ended between the listing and the read
    return total / 1e9


def reaped_children_cpu_seconds(pid):
    """CPU time (user + system) of the children a process has forked and
    reaped (waitpid) so far, in seconds: /proc/PID/stat's cutime and cstime.
    A server's BGSAVE or rewrite child is counted once the server reaped it,
    whichever server it is, without reading the child's own /proc while it
    lives; the figure moves by clock ticks (10 ms)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state): cutime and cstime are fields 16 and 17.
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


class Server:
    """A server process on a free port in a temporary directory. `wrapper`
    (e.g. a valgrind command line) is put in front of the binary."""

    def __init__(self, binary, *args, wrapper=(), timeout=10, cpus=None):
        self.binary = binary
        self.cpus = cpus
        for attempt in range(3):  # another process may take the free port before the server binds it
            error = self._start(binary, args, wrapper, timeout)
            if error is None:
                return
        raise RuntimeError("%s did not start: %s" % (binary, error))

    def _start(self, binary, args, wrapper, timeout):
        self.dir = tempfile.mkdtemp(prefix="bench-")
        self.port = free_port()
        log = os.path.join(self.dir, "log")
        self.log = log
        self.cmd = list(wrapper) + [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                    "--appendonly", "no", "--dir", self.dir, "--logfile", log] + list(args)
        return self._spawn(timeout)

    def _spawn(self, timeout):
        log = self.log
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     preexec_fn=pinner(self.cpus))
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

    def restart(self, timeout=600):
        """Stops the server (SIGTERM: with save "" nothing is saved) and starts
        it again with the same command line, port and directory: a start-up
        that loads what the directory holds. Its log goes on in the same file."""
        self.proc.terminate()
        self.proc.wait()
        error = self._spawn(timeout)
        if error is not None:
            raise RuntimeError("%s did not restart: %s" % (self.binary, error))

    @property
    def pid(self):
        return self.proc.pid

    def cpu_seconds(self):
        return process_cpu_seconds(self.proc.pid)

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


def valkey_missing():
    """Why Valkey is left out of the comparison, or None when VALKEY_SERVER
    names an executable."""
    if not VALKEY:
        return ("VALKEY_SERVER is not set: no Valkey column (set it to a valkey-server built from "
                "github.com/valkey-io/valkey tag 8.0.1, see README.md)")
    if not os.access(VALKEY, os.X_OK):
        return "VALKEY_SERVER=%s is not an executable: no Valkey column" % VALKEY
    return None


def servers(with_valkey=True):
    """[(label, binary)] of the servers to compare; Valkey only when
    VALKEY_SERVER names its binary."""
    out = [("ours", OURS), ("redis", REF)]
    if with_valkey and not valkey_missing():
        out.append(("valkey", VALKEY))
    return out


def load_protocol(port, data):
    """Sends RESP commands through redis-cli --pipe, as a user loading data would."""
    subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)
