"""Small behaviours Redis 7.0.15's own suite checks (issue 15, branch misc):
the default bind (`* -::*`) with protected mode, bind lines that replace each
other, the process title (proc-title-template), PUBLISH reaching replicas'
subscribers (not the AOF), the start-up config error texts. All of it holds
on the reference too.
"""
import os
import socket
import subprocess
import time

import pytest
import redis

from support import SERVER, attach, free_port, start_pair, wait_for


def non_loopback_address():
    """An address of this host other than loopback, or None (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            addr = s.getsockname()[0]
    except OSError:
        return None
    return None if addr.startswith("127.") else addr


@pytest.fixture
def bare_server(tmp_path):
    """Starts the binary with only the arguments given (no --bind); stopped at the end."""
    procs = []

    def start(*args):
        port = free_port()
        cmd = [SERVER, "--port", str(port), "--dir", str(tmp_path), "--save", "", "--appendonly", "no",
               "--logfile", str(tmp_path / "log")] + list(args)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(proc)
        c = redis.Redis(port=port, decode_responses=True)
        wait_for(lambda: _pings(c), what="server up")
        return proc, port, c

    yield start
    for p in procs:
        if p.poll() is None:
            p.terminate()
            p.wait(10)


def _pings(c):
    try:
        return c.ping()
    except redis.ConnectionError:
        return False


def raw_ping(host, port):
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(b"PING\r\n")
        return s.recv(200)


def test_default_bind_is_every_address_with_protected_mode(bare_server):
    proc, port, c = bare_server()
    assert c.config_get("bind") == {"bind": "* -::*"}
    addr = non_loopback_address()
    if addr is None:
        pytest.skip("no non-loopback address here")
    # Listening on every address, but without a password only loopback may talk.
    assert raw_ping(addr, port).startswith(b"-DENIED Redis is running in protected mode")
    assert raw_ping("127.0.0.1", port) == b"+PONG\r\n"
    # An explicit bind does not lift protected mode (7.0).
    assert c.config_set("bind", "0.0.0.0")
    assert raw_ping(addr, port).startswith(b"-DENIED")
    assert c.config_set("protected-mode", "no")
    assert raw_ping(addr, port) == b"+PONG\r\n"


def test_empty_bind_listens_nowhere(bare_server, tmp_path):
    proc, port, c = bare_server("--unixsocket", str(tmp_path / "sock"))
    assert c.config_set("bind", "")
    with pytest.raises(OSError):
        raw_ping("127.0.0.1", port)
    u = redis.Redis(unix_socket_path=str(tmp_path / "sock"), decode_responses=True)
    assert u.config_get("bind") == {"bind": ""}
    u.close()


def test_bind_lines_replace_each_other(bare_server):
    # The later --bind wins, and one argument holding several addresses is split.
    proc, port, c = bare_server("--bind", "127.0.0.1", "--bind", "0.0.0.0 -::*")
    assert c.config_get("bind") == {"bind": "0.0.0.0 -::*"}


def read_title(pid):
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        return f.read().replace(b"\0", b" ").decode().split()


def test_process_title_follows_the_template(server, rd):
    pid = server.proc.pid
    title = read_title(pid)
    assert title[0].endswith("redis-server") and title[1] == "127.0.0.1:%d" % server.port
    assert rd.config_set("proc-title-template", "TEST {title} {listen-addr} {port} {tls-port} {config-file}")
    assert read_title(pid)[:5] == ["TEST", title[0], "127.0.0.1:%d" % server.port, str(server.port), "0"]
    assert rd.config_set("proc-title-template", "{{ x }} {title}")
    assert read_title(pid)[:3] == ["{", "x", "}}"]
    for bad in ("{nosuch}", "{title", "   ", ""):
        with pytest.raises(redis.ResponseError) as e:
            rd.config_set("proc-title-template", bad)
        assert str(e.value) == ("CONFIG SET failed (possibly related to argument 'proc-title-template') - "
                                "template format is invalid or contains unknown variables")
    assert rd.config_get("proc-title-template") == {"proc-title-template": "{{ x }} {title}"}


def test_publish_reaches_the_replicas_subscribers_not_the_aof(server_factory):
    master, replica, m, r = start_pair(server_factory)
    attach(r, master)
    sub = replica.client().pubsub()
    sub.subscribe("ch")
    wait_for(lambda: (sub.get_message(timeout=0.1) or {}).get("type") == "subscribe", what="subscribed")
    m.config_set("appendonly", "yes")
    wait_for(lambda: m.info("persistence")["aof_rewrite_in_progress"] == 0, what="aof written")
    m.publish("ch", "plain")
    p = m.pipeline(transaction=True)
    p.set("k", "v")
    p.publish("ch", "in-multi")
    p.execute()
    got = []

    def collect():
        msg = sub.get_message(timeout=0.1)
        if msg and msg["type"] == "message":
            got.append(msg["data"])
        return len(got) == 2

    wait_for(collect, what="messages on the replica")
    assert got == [b"plain", b"in-multi"]
    sub.close()
    d = os.path.join(master.dir, "appendonlydir")
    incr = [f for f in os.listdir(d) if f.endswith(".incr.aof")]
    data = b"".join(open(os.path.join(d, f), "rb").read() for f in incr)
    assert b"in-multi" not in data and b"plain" not in data and b"$1\r\nk\r\n" in data


def start_fails(tmp_path, *args, stdin=b""):
    """Runs the binary with args; it must exit 1. Returns (stdout, stderr) as text."""
    p = subprocess.run([SERVER] + list(args), input=stdin, capture_output=True, timeout=20, cwd=str(tmp_path))
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    return p.stdout.decode(), p.stderr.decode()


def fatal(line, text, err="Bad directive or wrong number of arguments"):
    return ("\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line %d\n>>> '%s'\n%s\n" % (line, text, err))


def test_config_errors_at_start_up_name_the_line_of_one_text(tmp_path):
    conf = tmp_path / "r.conf"
    conf.write_text("port 7777\n\n# c\nmaxmemory 1mb\n")
    # The command line's options follow the file after a newline: 4 lines, an empty one, then them.
    assert start_fails(tmp_path, str(conf), "--foo", "bar")[1] == fatal(6, 'foo "bar"')
    assert start_fails(tmp_path, str(conf), "--port", "1", "--maxmemory", "x")[1] == fatal(
        7, 'maxmemory "x"', "argument must be a memory value")
    assert start_fails(tmp_path, "--port", "99999")[1] == fatal(
        2, 'port "99999"', "argument must be between 0 and 65535 inclusive")
    conf.write_text("port 7777\nfoo bar\n")
    assert start_fails(tmp_path, str(conf))[1] == fatal(2, "foo bar")
    # stdin ("-" first or last) comes after the file, before the options.
    out, err = start_fails(tmp_path, "-", "--foo", stdin=b"port 7777\n")
    assert "Reading config from stdin" in out and err == fatal(3, "foo")
    out, err = start_fails(tmp_path, str(tmp_path / "nonexistent.conf"))
    assert out.rstrip().endswith("# Fatal error, can't open config file '%s': No such file or directory"
                                 % (tmp_path / "nonexistent.conf")) and err == ""


def test_rename_command_from_the_config_file_survives_rewrite(server_factory):
    s = server_factory(config_text="rename-command flushdb badger\nrename-command get \"\"\n")
    c = s.client(decode_responses=True)
    for cmd in (("flushdb",), ("get", "x")):
        with pytest.raises(redis.ResponseError) as e:
            c.execute_command(*cmd)
        assert str(e.value).startswith("unknown command '%s'" % cmd[0])
    assert c.execute_command("badger") == "OK"
    assert c.config_rewrite()
    text = open(s.config_path).read()
    assert "rename-command flushdb badger" in text and 'rename-command get ""' in text
    assert c.config_get("rename-command") == {}
    with pytest.raises(redis.ResponseError) as e:
        c.config_set("rename-command", "x")
    assert str(e.value).startswith("Unknown option or number of arguments for CONFIG SET - 'rename-command'")


def test_rename_command_errors_at_start_up(tmp_path):
    assert start_fails(tmp_path, "--rename-command", "nosuch", "x")[1] == fatal(
        2, 'rename-command "nosuch" "x"', "No such command in rename-command")
    assert start_fails(tmp_path, "--rename-command", "get", "set")[1] == fatal(
        2, 'rename-command "get" "set"', "Target command name already exists")


def test_clients_are_served_while_the_dataset_loads(server_factory):
    s = server_factory("--enable-debug-command", "yes", "--rdbcompression", "no", "--enable-protected-configs", "yes")
    c = s.client(decode_responses=True)
    c.execute_command("debug", "populate", "20000", "key", "1000")
    c.save()
    c.close()
    s.proc.terminate()
    s.proc.wait(10)
    proc = subprocess.Popen(s.cmd + ["--key-load-delay", "300", "--loading-process-events-interval-bytes", "1024"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    s.proc = proc
    c = s.client(decode_responses=True)
    wait_for(lambda: _info_loading(c) == "1", what="loading")
    assert c.config_set("loglevel", "debug")
    for cmd in (("config", "set", "dir", "x"), ("config", "set", "appendonly", "yes"), ("get", "key:1")):
        with pytest.raises(redis.BusyLoadingError) as e:
            c.execute_command(*cmd)
        assert str(e.value) == "Redis is loading the dataset in memory"
    assert _info_loading(c) == "1"
    proc.terminate()  # shuts down mid-load
    assert proc.wait(10) == 0


def _info_loading(c):
    try:
        return str(c.info("persistence")["loading"])
    except redis.ConnectionError:
        return None


def raw_client(server):
    """A client that shows BGREWRITEAOF's and BGSAVE's status text as it is."""
    c = server.client(decode_responses=True)
    for cmd in ("BGREWRITEAOF", "BGSAVE"):
        c.set_response_callback(cmd, lambda r, **kw: r)
    return c


def _persistence(c):
    return {k: str(v) for k, v in c.info("persistence").items()}


def _wait_no_child(c):
    wait_for(lambda: _persistence(c)["aof_rewrite_in_progress"] == "0" and
             _persistence(c)["rdb_bgsave_in_progress"] == "0" and
             _persistence(c)["aof_rewrite_scheduled"] == "0", what="no child")


def test_bgrewriteaof_in_multi_is_scheduled_then_forks(server):
    c = raw_client(server)
    forks = c.info("stats")["total_forks"]
    p = c.pipeline(transaction=True)
    p.set("foo", "bar")
    p.bgrewriteaof()
    assert p.execute()[1] == "Background append only file rewriting scheduled"
    wait_for(lambda: c.info("stats")["total_forks"] > forks, what="a fork")
    _wait_no_child(c)
    assert c.info("persistence")["aof_enabled"] == 0
    # CONFIG SET appendonly yes inside MULTI: scheduled too, and a child writes the base.
    forks = c.info("stats")["total_forks"]
    p = c.pipeline(transaction=True)
    p.config_set("appendonly", "yes")
    p.execute()
    wait_for(lambda: c.info("stats")["total_forks"] > forks, what="a fork")
    _wait_no_child(c)
    assert c.info("persistence")["aof_enabled"] == 1
    log = open(server.logfile).read()
    assert "AOF was enabled during a transaction. An AOF background was scheduled to start when possible." in log


def test_bgsave_and_bgrewriteaof_wait_for_each_other(server):
    c = raw_client(server)
    c.set("k", "v")
    c.config_set("rdb-key-save-delay", "10000000")
    assert c.execute_command("BGSAVE") == "Background saving started"
    assert c.bgrewriteaof() == "Background append only file rewriting scheduled"
    assert _persistence(c)["aof_rewrite_scheduled"] == "1"
    c.config_set("rdb-key-save-delay", "0")
    os.kill(int(_child_pid(server)), 9)
    wait_for(lambda: _persistence(c)["aof_rewrite_scheduled"] == "0", what="the rewrite")
    _wait_no_child(c)
    c.config_set("rdb-key-save-delay", "10000000")
    assert c.bgrewriteaof() == "Background append only file rewriting started"
    with pytest.raises(redis.ResponseError) as e:
        c.bgrewriteaof()
    assert str(e.value) == "Background append only file rewriting already in progress"
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command("BGSAVE")
    assert str(e.value) == ("Another child process is active (AOF?): can't BGSAVE right now. "
                            "Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")
    assert c.execute_command("BGSAVE", "SCHEDULE") == "Background saving scheduled"
    c.config_set("rdb-key-save-delay", "0")
    os.kill(int(_child_pid(server)), 9)
    _wait_no_child(c)


def _child_pid(server):
    out = subprocess.run(["ps", "--ppid", str(server.proc.pid), "-o", "pid="], capture_output=True, text=True).stdout
    pids = out.split()
    assert pids
    return pids[0]


def test_turning_aof_off_kills_the_rewrite_child(server):
    c = raw_client(server)
    c.config_set("appendonly", "yes")
    _wait_no_child(c)
    c.set("k", "v")
    c.config_set("rdb-key-save-delay", "10000000")
    assert c.bgrewriteaof() == "Background append only file rewriting started"
    c.config_set("appendonly", "no")
    wait_for(lambda: "Killing running AOF rewrite child" in open(server.logfile).read(), what="the log line")
    assert _persistence(c)["aof_rewrite_in_progress"] == "0"


def test_aof_timestamp_annotations_written_and_loaded(server_factory):
    server = server_factory()
    c = server.client(decode_responses=True)
    c.config_set("appendonly", "yes")
    _wait_no_child(c)
    c.config_set("aof-timestamp-enabled", "yes")
    c.config_set("aof-use-rdb-preamble", "no")
    d = os.path.join(server.dir, "appendonlydir")
    c.set("foo", "bar")
    incr = sorted(f for f in os.listdir(d) if f.endswith(".incr.aof"))[-1]
    assert open(os.path.join(d, incr), "rb").read().startswith(b"#TS:")
    assert c.bgrewriteaof()
    _wait_no_child(c)
    base = [f for f in os.listdir(d) if ".base." in f][0]
    assert open(os.path.join(d, base), "rb").read().startswith(b"#TS:")
    c.set("foo2", "bar2")
    incr = sorted(f for f in os.listdir(d) if f.endswith(".incr.aof"))[-1]
    with open(os.path.join(d, incr), "ab") as f:  # annotations between and after commands load
        f.write(b"#TS:1628217470\r\n*3\r\n$3\r\nset\r\n$4\r\nfoo3\r\n$4\r\nbar3\r\n#TS:1628217471\r\n")
    server.kill()
    server.proc.wait()
    again = server_factory("--dir", server.dir, "--appendonly", "yes")
    c2 = again.client(decode_responses=True)
    assert [c2.get("foo"), c2.get("foo2"), c2.get("foo3")] == ["bar", "bar2", "bar3"]


def test_debug_aof_flush_sleep(server_factory):
    c = server_factory("--enable-debug-command", "yes").client(decode_responses=True)
    c.config_set("appendonly", "yes")
    _wait_no_child(c)
    assert c.execute_command("debug", "aof-flush-sleep", "200000") == "OK"
    t = time.time()
    c.set("k", "v")
    assert time.time() - t >= 0.2
    assert c.execute_command("debug", "aof-flush-sleep", "0") == "OK"


def test_aof_of_redis_before_7_moves_into_the_aof_directory(server_factory, tmp_path):
    d = tmp_path / "work"
    d.mkdir()
    (d / "appendonly.aof").write_bytes(b"*3\r\n$3\r\nset\r\n$2\r\nk1\r\n$2\r\nv1\r\n")
    s = server_factory("--dir", str(d), "--appendonly", "yes")
    c = s.client(decode_responses=True)
    assert c.get("k1") == "v1"
    assert not (d / "appendonly.aof").exists() and (d / "appendonlydir" / "appendonly.aof").exists()
    manifest = (d / "appendonlydir" / "appendonly.aof.manifest").read_text().splitlines()
    assert manifest == ["file appendonly.aof seq 1 type b", "file appendonly.aof.1.incr.aof seq 1 type i"]
    c.set_response_callback("BGREWRITEAOF", lambda r, **kw: r)
    assert c.bgrewriteaof() == "Background append only file rewriting started"
    wait_for(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0, what="the rewrite")
    wait_for(lambda: (d / "appendonlydir" / "appendonly.aof.manifest").read_text().splitlines() ==
             ["file appendonly.aof.2.base.rdb seq 2 type b", "file appendonly.aof.2.incr.aof seq 2 type i"],
             what="the new manifest")


@pytest.mark.parametrize("manifest,message", [
    ("file appendonly.aof.2.incr.aof seq 2 type i\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
     "Found a non-monotonic sequence number"),
    ("file appendonly.aof.1.incr.aof seq 1 type i\n\nfile appendonly.aof.3.incr.aof seq 3 type i\n",
     "Invalid AOF manifest file format"),
    ("file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.2.base.aof seq 2 type b\n",
     "Found duplicate base file information"),
    ("file appendonly.aof.1.base.aof seq 1 type x\n", "Unknown AOF file type"),
    ("file appendonly.aof.1.base.aof seq 1 type b x\n", "Invalid AOF manifest file format"),
    ("file appendonly.aof.1.base.aof seq 1 type b\n" + "#" * 1200 + "\nfile " + "x" * 1100 + " seq 2 type i\n",
     "The AOF manifest file contains too long line"),
    ("", "Found an empty AOF manifest"),
])
def test_aof_manifest_errors_stop_the_server(tmp_path, manifest, message):
    d = tmp_path / "appendonlydir"
    d.mkdir()
    for name in ("appendonly.aof.1.base.aof", "appendonly.aof.2.base.aof", "appendonly.aof.1.incr.aof",
                 "appendonly.aof.2.incr.aof", "appendonly.aof.3.incr.aof"):
        (d / name).write_bytes(b"*3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n")
    (d / "appendonly.aof.manifest").write_text(manifest)
    out, err = start_fails(tmp_path, "--port", str(free_port()), "--dir", str(tmp_path), "--appendonly", "yes")
    assert "*** FATAL AOF MANIFEST FILE ERROR ***" in out
    assert [l for l in out.splitlines() if l.endswith("# " + message)], out
