"""Running as a service as Redis 7.0 (issue 33): `supervised
systemd|auto|upstart`, syslog-*, daemonize with a pidfile. The server
speaks systemd's notification protocol itself, one datagram per message to
the AF_UNIX socket in $NOTIFY_SOCKET. A fake listener stands in for systemd:
READY=1 must come once the data is loaded, STOPPING=1 when the shutdown
begins, with Redis's STATUS= texts around them; INFO's process_supervised
says which supervisor it is. Every test runs on the reference too.
"""
import os
import signal
import socket
import subprocess
import tempfile
import threading

import pytest
import redis

from support import SERVER, free_port, info, read_text, wait_for


class FakeSystemd:
    """A datagram socket in a scratch directory, as systemd's notify socket.
    on_ready(): called from the listener thread when READY=1 arrives (to
    look at the server at that moment)."""

    def __init__(self, on_ready=None):
        self.dir = tempfile.mkdtemp(prefix="notify-")
        self.path = os.path.join(self.dir, "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.1)
        self.messages = []
        self.at_ready = None
        self.on_ready = on_ready
        self.running = True
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    def _listen(self):
        while self.running:
            try:
                msg = self.sock.recv(4096).decode()
            except socket.timeout:
                continue
            except OSError:
                return
            if msg == "READY=1\n" and self.on_ready:
                self.at_ready = self.on_ready()
            self.messages.append(msg)

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()
        os.unlink(self.path)
        os.rmdir(self.dir)


@pytest.fixture
def systemd():
    made = []

    def make(on_ready=None):
        made.append(FakeSystemd(on_ready))
        return made[-1]
    yield make
    for s in made:
        s.close()


def saved_dataset(server_factory, tmp_path, keys):
    src = server_factory("--dir", str(tmp_path))
    c = src.client()
    c.mset({"k%d" % i: "v%d" % i for i in range(keys)})
    c.save()
    src.stop()
    return tmp_path


@pytest.mark.parametrize("mode", ["systemd", "auto"])
def test_ready_after_load_and_stopping_at_shutdown(server_factory, systemd, tmp_path, mode):
    saved_dataset(server_factory, tmp_path, 2000)
    logfile = str(tmp_path / "supervised.log")
    sd = systemd(on_ready=lambda: read_text(logfile))
    s = server_factory("--dir", str(tmp_path), "--supervised", mode, "--logfile", logfile,
                       env={"NOTIFY_SOCKET": sd.path})
    wait_for(lambda: "READY=1\n" in sd.messages, what="READY=1")
    # READY=1 went out once the dataset was in memory.
    assert "DB loaded from disk" in sd.at_ready
    assert s.client().dbsize() == 2000
    assert sd.messages == ["STATUS=Redis is loading...\n", "STATUS=Ready to accept connections\n", "READY=1\n"]
    assert info(s.client(), "server")["process_supervised"] == "systemd"
    assert "Supervised by systemd. Please make sure you set appropriate values for TimeoutStartSec " \
           "and TimeoutStopSec in your service unit." in read_text(logfile)
    s.client().config_set("save", "3600 1")
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=20) == 0
    wait_for(lambda: len(sd.messages) >= 5, what="the shutdown's messages")
    assert sd.messages[3:] == ["STOPPING=1\n", "STATUS=Saving the final RDB snapshot\n"]


def test_replica_reports_waiting_then_synced(server_factory, systemd):
    master = server_factory()
    sd = systemd()
    replica = server_factory("--supervised", "systemd", "--replicaof", "127.0.0.1", str(master.port),
                             env={"NOTIFY_SOCKET": sd.path})
    wait_for(lambda: info(replica.client())["master_link_status"] == "up", what="the link")
    want = ["STATUS=Redis is loading...\n",
            "STATUS=Ready to accept connections in read-only mode. Waiting for MASTER <-> REPLICA sync\n",
            "READY=1\n",
            "STATUS=MASTER <-> REPLICA sync: Finished with success. Ready to accept connections in read-write mode.\n"]
    wait_for(lambda: sd.messages == want, what="the sync's status (%r)" % sd.messages)


def test_systemd_without_notify_socket_is_not_supervised(server_factory):
    env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    s = server_factory("--supervised", "systemd", env=env)
    assert info(s.client(), "server")["process_supervised"] == "no"
    assert "systemd supervision error: NOTIFY_SOCKET not found!" in s.log()


def test_auto_without_a_supervisor_is_not_supervised(server_factory):
    s = server_factory("--supervised", "auto")
    assert info(s.client(), "server")["process_supervised"] == "no"


def test_upstart_stops_itself_until_continued(tmp_path):
    """Upstart's readiness signal: the server raises SIGSTOP once its config
    is read; upstart resumes it with SIGCONT."""
    port = free_port()
    p = subprocess.Popen([SERVER, "--port", str(port), "--save", "", "--dir", str(tmp_path),
                          "--supervised", "upstart", "--logfile", str(tmp_path / "log")],
                         env=dict(os.environ, UPSTART_JOB="redis"), stdout=subprocess.DEVNULL)
    try:
        def state():
            with open("/proc/%d/stat" % p.pid) as f:
                return f.read().rsplit(")", 1)[1].split()[0]
        wait_for(lambda: state() == "T", what="the server to stop itself")
        assert "supervised by upstart, will stop to signal readiness." in read_text(str(tmp_path / "log"))
        os.kill(p.pid, signal.SIGCONT)
        c = redis.Redis(port=port)
        wait_for(lambda: c.ping(), retry_on=(redis.ConnectionError,), what="PONG")
        assert info(c, "server")["process_supervised"] == "upstart"
        c.close()
    finally:
        p.terminate()
        p.wait(timeout=10)


@pytest.mark.skipif(os.path.exists("/dev/log") or os.geteuid() != 0,
                    reason="needs to stand in for syslog at /dev/log (absent, and root)")
def test_syslog_ident_and_facility(tmp_path):
    """syslog-enabled: every line also goes to syslog, under syslog-ident and
    syslog-facility once the server is initialised (the first lines, logged
    before, under the defaults: the program's name, user), as Redis 7.0."""
    log = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    log.bind("/dev/log")
    log.settimeout(0.2)
    port = free_port()
    p = subprocess.Popen([SERVER, "--port", str(port), "--save", "", "--dir", str(tmp_path), "--syslog-enabled", "yes",
                          "--syslog-ident", "kv", "--syslog-facility", "local3"], stdout=subprocess.DEVNULL)
    try:
        c = redis.Redis(port=port)
        wait_for(lambda: c.ping(), retry_on=(redis.ConnectionError,), what="PONG")
        got = []
        wait_for(lambda: got.append(log.recv(4096)) or any(b"Ready to accept connections" in g for g in got),
                 retry_on=(socket.timeout,), what="the ready line in syslog")
        c.close()
    finally:
        p.terminate()
        p.wait(timeout=10)
        log.close()
        os.unlink("/dev/log")
    # <priority>: facility * 8 + severity (user = 1, local3 = 19; warning 4, notice 5).
    assert got[0].startswith(b"<12>") and b"Redis is starting" in got[0]
    ready = [g for g in got if b"Ready to accept connections" in g][0]
    assert ready.startswith(b"<157>") and b" kv[%d]: " % p.pid in ready


def test_daemonized_server_writes_and_removes_its_pidfile(tmp_path):
    port = free_port()
    pidfile = tmp_path / "redis.pid"
    rc = subprocess.run([SERVER, "--port", str(port), "--save", "", "--dir", str(tmp_path), "--daemonize", "yes",
                         "--pidfile", str(pidfile), "--logfile", str(tmp_path / "log")], timeout=20).returncode
    assert rc == 0  # the parent returns at once
    c = redis.Redis(port=port)
    wait_for(lambda: c.ping(), retry_on=(redis.ConnectionError,), what="the daemon's PONG")
    pid = int(pidfile.read_text())
    assert pid == int(info(c, "server")["process_id"])
    assert os.getppid() != pid
    c.shutdown(nosave=True)
    wait_for(lambda: not pidfile.exists(), what="the pidfile removed at shutdown")
