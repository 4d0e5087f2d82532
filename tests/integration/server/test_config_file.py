"""Start-up configuration: redis.conf parsing, include, command-line overrides,
fatal errors for bad directives, and the unix socket.

The fixture writes config_text to <dir>/redis.conf and appends its own
--port/--dir/... arguments after it. Checked against Redis 7.0.15. For a bad
directive only what both servers share is asserted: the process exits
non-zero and its stderr or log names the line ("line 17" or "redis.conf:17")
and quotes the directive; Redis prints ">>> 'foo bar'" and "Bad directive or
wrong number of arguments".
"""
import os
import re
import shutil
import socket
import stat
import subprocess
import tempfile

import pytest
import redis

from resp_raw import Conn
from support import SERVER, start_fails


def config_get(server, *names):
    conn = Conn(server)
    try:
        reply = conn.call("CONFIG", "GET", *names)
    finally:
        conn.close()
    return dict(zip(reply[::2], reply[1::2]))


def start_failure(server_factory, *args, config_text=None):
    """Starts a server that must refuse to run; returns (exit code, its stderr and log)."""
    with pytest.raises(RuntimeError) as failure:
        server_factory(*args, config_text=config_text)
    message = str(failure.value)
    found = re.match(r"server exited with (-?\d+): ", message)
    assert found, "the server did not exit: " + message[:300]
    return int(found.group(1)), message


@pytest.fixture
def short_dir():
    """A directory with a short path (unix socket paths are limited to ~107 bytes)."""
    path = tempfile.mkdtemp(prefix="rt-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


# --- parsing ------------------------------------------------------------------

def test_config_file_values(server_factory):
    text = ("# a comment\n"
            "\n"
            "   maxmemory 10mb   \n"
            "MAXMEMORY-POLICY allkeys-lru\n"
            "hz 20\n"
            "timeout 300\n"
            "databases 4\n"
            "client-output-buffer-limit normal 1mb 2mb 60\n"
            "save 900 1 300 10\n"
            "  # an indented comment\n")
    s = server_factory(config_text=text)
    got = config_get(s, "maxmemory", "maxmemory-policy", "hz", "timeout", "databases",
                     "client-output-buffer-limit")
    assert got["maxmemory"] == "10485760"
    assert got["maxmemory-policy"] == "allkeys-lru"
    assert got["hz"] == "20"
    assert got["timeout"] == "300"
    assert got["databases"] == "4"
    assert got["client-output-buffer-limit"].startswith("normal 1048576 2097152 60 ")
    # --save "" on the command line (from the fixture) comes after the file and wins
    assert config_get(s, "save") == {"save": ""}


def test_config_file_quoted_arguments(server_factory):
    s = server_factory(config_text='maxmemory "2mb"\nmaxmemory-policy \'volatile-lru\'\n'
                                   'hz "15"\n')
    assert config_get(s, "maxmemory", "maxmemory-policy", "hz") == {
        "maxmemory": "2097152", "maxmemory-policy": "volatile-lru", "hz": "15"}


def test_later_directive_wins(server_factory):
    s = server_factory(config_text="maxmemory 1mb\nmaxmemory 3mb\n")
    assert config_get(s, "maxmemory") == {"maxmemory": "3145728"}


def test_config_file_path_reported(server_factory):
    s = server_factory(config_text="hz 11\n")
    conn = Conn(s)
    try:
        info = conn.call("INFO", "server")
    finally:
        conn.close()
    config_file = re.search(r"\r\nconfig_file:(.*)\r\n", info).group(1)
    assert os.path.realpath(config_file) == os.path.realpath(os.path.join(s.dir, "redis.conf"))


# --- include ------------------------------------------------------------------

def test_include(server_factory, short_dir):
    inner = os.path.join(short_dir, "inner.conf")
    middle = os.path.join(short_dir, "middle.conf")
    with open(inner, "w") as f:
        f.write("maxmemory-policy allkeys-random\nhz 30\n")
    with open(middle, "w") as f:
        f.write("include %s\nmaxmemory 5mb\nhz 25\n" % inner)
    # directives after an include override what it set; included files nest
    s = server_factory(config_text="timeout 50\ninclude %s\ntimeout 60\n" % middle)
    assert config_get(s, "maxmemory", "maxmemory-policy", "hz", "timeout") == {
        "maxmemory": "5242880", "maxmemory-policy": "allkeys-random", "hz": "25",
        "timeout": "60"}


def test_include_then_override(server_factory, short_dir):
    included = os.path.join(short_dir, "base.conf")
    with open(included, "w") as f:
        f.write("maxmemory 5mb\n")
    s = server_factory(config_text="include %s\nmaxmemory 7mb\n" % included)
    assert config_get(s, "maxmemory") == {"maxmemory": "7340032"}


def test_include_missing_file_is_fatal(server_factory, short_dir):
    missing = os.path.join(short_dir, "nope.conf")
    code, _ = start_failure(server_factory, config_text="include %s\n" % missing)
    assert code != 0  # (Redis says why on stdout, which the fixture drops)


# --- fatal errors -------------------------------------------------------------

def mentions_line(output, number):
    return re.search(r"(?i)line\W{0,2}%d\b|\.conf:%d\b" % (number, number), output)


@pytest.mark.parametrize("text,line,quoted", [
    ("".join("# line %d\n" % i for i in range(1, 17)) + "foo bar\nhz 10\n", 17, "foo bar"),
    ("hz 10\n\n\nmaxmemory abc\n", 4, "maxmemory abc"),  # a bad value
    ("hz 10\nmaxmemory\n", 2, "maxmemory"),  # a missing argument
], ids=["unknown-directive", "bad-value", "missing-argument"])
def test_bad_line_is_fatal(server_factory, text, line, quoted):
    code, output = start_failure(server_factory, config_text=text)
    assert code != 0
    assert mentions_line(output, line), output
    assert quoted in output


def test_unknown_command_line_directive_is_fatal(server_factory):
    code, output = start_failure(server_factory, "--foo", "bar")
    assert code != 0
    assert "foo" in output


def test_reference_wording(server_factory):
    """The reference's exact wording, which our server is free to match."""
    if not os.environ.get("REFERENCE") == "1":
        pytest.skip("wording checked against the reference only")
    code, output = start_failure(server_factory, config_text="hz 10\nfoo bar\n")
    assert ">>> 'foo bar'" in output
    assert "Bad directive or wrong number of arguments" in output
    assert "at line 2" in output


# --- command line -------------------------------------------------------------

def test_command_line_overrides_file(server_factory):
    s = server_factory("--maxmemory", "20mb", "--hz", "40",
                       config_text="maxmemory 10mb\nhz 20\ntimeout 7\n")
    assert config_get(s, "maxmemory", "hz", "timeout") == {
        "maxmemory": "20971520", "hz": "40", "timeout": "7"}


def test_command_line_without_file(server_factory):
    s = server_factory("--maxmemory-policy", "volatile-ttl", "--databases", "3",
                       "--client-output-buffer-limit", "normal 2mb 0 0")
    got = config_get(s, "maxmemory-policy", "databases", "client-output-buffer-limit")
    assert got["maxmemory-policy"] == "volatile-ttl"
    assert got["databases"] == "3"
    assert got["client-output-buffer-limit"].startswith("normal 2097152 0 0 ")


# --- unix socket --------------------------------------------------------------

def test_unixsocket(server_factory, short_dir):
    path = os.path.join(short_dir, "redis.sock")
    s = server_factory("--unixsocket", path, "--unixsocketperm", "700")
    assert stat.S_ISSOCK(os.stat(path).st_mode)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o700
    assert config_get(s, "unixsocket", "unixsocketperm") == {
        "unixsocket": path, "unixsocketperm": "700"}
    client = redis.Redis(unix_socket_path=path)
    try:
        assert client.ping() is True
        assert client.set("k", "v") is True
        info = client.client_info()
        assert info["addr"] == path + ":0"
        assert info["flags"] == "U"
    finally:
        client.close()
    # the same data over TCP
    conn = Conn(s)
    try:
        assert conn.call("GET", "k") == "v"
    finally:
        conn.close()


def test_unixsocket_raw_protocol(server_factory, short_dir):
    path = os.path.join(short_dir, "r.sock")
    server_factory("--unixsocket", path, "--unixsocketperm", "755")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o755
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    try:
        sock.connect(path)
        sock.sendall(b"PING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n")
        data = b""
        while len(data) < len(b"+PONG\r\n$2\r\nhi\r\n"):
            data += sock.recv(100)
        assert data == b"+PONG\r\n$2\r\nhi\r\n"
    finally:
        sock.close()


def test_unixsocket_from_config_file(server_factory, short_dir):
    path = os.path.join(short_dir, "c.sock")
    server_factory(config_text="unixsocket %s\nunixsocketperm 777\n" % path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o777
    client = redis.Redis(unix_socket_path=path)
    try:
        assert client.echo("x") == b"x"
    finally:
        client.close()


@pytest.mark.parametrize("args, line, why", [
    (["--port"], "'port'", "wrong number of arguments"),
    (["--port", "6379", "6380"], "'port \"6379\" \"6380\"'", "wrong number of arguments"),
    (["--port", "--loglevel", "verbose"], "'port \"--loglevel\" \"verbose\"'", "wrong number of arguments"),
    (["--port", "--bla", "--loglevel", "verbose"], "'port \"--bla\"'", "argument couldn't be parsed into an integer"),
    (["--logfile", "--my--log--file", "--loglevel", "--bla"], "'loglevel \"--bla\"'",
     "argument(s) must be one of the following"),
    (["--shutdown-on-sigint"], "'shutdown-on-sigint'", "argument(s) must be one of the following"),
])
def test_command_line_errors(args, line, why):
    out = subprocess.run([SERVER] + args, capture_output=True, text=True, timeout=10)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert ">>> " + line in text and why in text


@pytest.mark.parametrize("args, want", [
    (["--save", "--loglevel", "verbose"], {"save": "", "loglevel": "verbose"}),
    (["--loglevel", "verbose", "--save"], {"save": "", "loglevel": "verbose"}),
    (["--proc-title-template", "--save", "--save", "", "--loglevel", "verbose"],
     {"proc-title-template": "--save", "save": "", "loglevel": "verbose"}),
    (["--maxmemory 700mb", "--maxmemory-policy volatile-lru"],
     {"maxmemory": "734003200", "maxmemory-policy": "volatile-lru"}),
])
def test_command_line_values(server_factory, args, want):
    r = server_factory(*args).client(decode_responses=True)
    for name, value in want.items():
        assert r.config_get(name) == {name: value}


def non_loopback_address():
    """An address of this host other than loopback, or None (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            addr = s.getsockname()[0]
    except OSError:
        return None
    return None if addr.startswith("127.") else addr


def raw_ping(host, port):
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(b"PING\r\n")
        return s.recv(200)


def test_default_bind_is_every_address_with_protected_mode(server_factory):
    s = server_factory(bind=None)
    port, c = s.port, s.client(decode_responses=True)
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


def test_empty_bind_listens_nowhere(server_factory, tmp_path):
    s = server_factory("--unixsocket", str(tmp_path / "sock"), bind=None)
    port, c = s.port, s.client(decode_responses=True)
    assert c.config_set("bind", "")
    with pytest.raises(OSError):
        raw_ping("127.0.0.1", port)
    u = redis.Redis(unix_socket_path=str(tmp_path / "sock"), decode_responses=True)
    assert u.config_get("bind") == {"bind": ""}
    u.close()


def test_bind_lines_replace_each_other(server_factory):
    # The later --bind wins, and one argument holding several addresses is split.
    c = server_factory("--bind", "127.0.0.1", "--bind", "0.0.0.0 -::*", bind=None).client(decode_responses=True)
    assert c.config_get("bind") == {"bind": "0.0.0.0 -::*"}


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
