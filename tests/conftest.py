"""Fixtures shared by the integration tests.

Every test gets a fresh server on a free port, started from a temporary
directory and stopped when the test ends. REDIS_SERVER chooses the binary
(default: our src/redis-server); REFERENCE=1 says it is Debian's redis-server,
and tests marked `ours` (our own features: 0MQ push, expiry promptness) are
skipped then.
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("REDIS_SERVER") or os.path.join(ROOT, "src", "redis-server")
REFERENCE = os.environ.get("REFERENCE") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "ours: tests of our own features, skipped against the reference")


def pytest_collection_modifyitems(config, items):
    if not REFERENCE:
        return
    skip = pytest.mark.skip(reason="our own feature; not in the reference server")
    for item in items:
        if "ours" in item.keywords:
            item.add_marker(skip)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server process on a free port, with its own directory."""

    def __init__(self, args=(), config_text=None):
        self.dir = tempfile.mkdtemp(prefix="redis-test-")
        self.port = free_port()
        self.host = "127.0.0.1"
        self.logfile = os.path.join(self.dir, "server.log")
        cmd = [SERVER]
        if config_text is not None:
            path = os.path.join(self.dir, "redis.conf")
            with open(path, "w") as f:
                f.write(config_text)
            cmd.append(path)
        cmd += ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                "--save", "", "--appendonly", "no", "--logfile", self.logfile]
        cmd += list(args)
        self.cmd = cmd
        self.proc = None
        try:
            self.proc = subprocess.Popen(cmd, cwd=self.dir, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE)
            self._wait_ready()
        except BaseException:
            # Nobody holds a Server that failed to start, so stop it here:
            # a server that never answered PONG must not outlive the test.
            self.stop()
            raise

    def _wait_ready(self):
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace")
                raise RuntimeError("server exited with %s: %s %s" % (self.proc.returncode, err, self.log()))
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.02)
        raise RuntimeError("server did not start: " + self.log())

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
        if self.proc is None:
            shutil.rmtree(self.dir, ignore_errors=True)
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr:
            self.proc.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def server_factory():
    """Starts servers with extra arguments; all are stopped at the end."""
    started = []

    def start(*args, config_text=None):
        s = Server(args, config_text=config_text)
        started.append(s)
        return s

    yield start
    failure = None
    for s in started:
        try:
            s.stop()
        except Exception as e:  # stop the others too, then report it
            failure = failure or e
    if failure is not None:
        raise failure


@pytest.fixture
def server(server_factory):
    return server_factory()


@pytest.fixture
def r(server):
    c = server.client()
    yield c
    c.close()


@pytest.fixture
def rd(server):
    """A client that decodes replies to str."""
    c = server.client(decode_responses=True)
    yield c
    c.close()
