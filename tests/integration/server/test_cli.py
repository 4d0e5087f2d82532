"""redis-cli (Debian's 7.0.15 client) against the server: one-shot commands, output
formats, piped commands, --pipe, -x, --scan, --bigkeys, and an interactive
session with hints on a pseudo-terminal.

The client is the same binary for both servers, so any difference in what it
prints comes from the server's replies. Outputs were checked on Redis 7.0.15.
"""
import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
import time

import pytest

CLI = "/usr/bin/redis-cli"

pytestmark = pytest.mark.skipif(not os.path.exists(CLI), reason="redis-cli is not installed")


def cli(server, *args, stdin=None):
    """Runs redis-cli against the server; returns its stdout (stdout is not a tty)."""
    done = subprocess.run([CLI, "-h", server.host, "-p", str(server.port)] + list(args),
                          input=stdin, capture_output=True, timeout=20)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode(errors="replace")


def test_simple_commands(server):
    assert cli(server, "set", "k", "v") == "OK\n"
    assert cli(server, "get", "k") == "v\n"
    assert cli(server, "get", "nokey") == "\n"
    assert cli(server, "incr", "n") == "1\n"
    assert cli(server, "rpush", "l", "a", "b", "c d") == "3\n"
    assert cli(server, "lrange", "l", "0", "-1") == "a\nb\nc d\n"
    assert cli(server, "ping") == "PONG\n"
    assert cli(server, "-n", "2", "set", "x", "1") == "OK\n"
    assert cli(server, "-n", "2", "get", "x") == "1\n"
    assert cli(server, "get", "x") == "\n"


def test_error_reply(server):
    assert cli(server, "foo") == "ERR unknown command 'foo', with args beginning with: \n\n"
    assert cli(server, "--no-raw", "get") == \
        "(error) ERR wrong number of arguments for 'get' command\n"


def test_no_raw_formatting(server):
    cli(server, "set", "k", "v")
    cli(server, "rpush", "l", "a", "b", "c d")
    assert cli(server, "--no-raw", "get", "k") == '"v"\n'
    assert cli(server, "--no-raw", "get", "nokey") == "(nil)\n"
    assert cli(server, "--no-raw", "incr", "n") == "(integer) 1\n"
    assert cli(server, "--no-raw", "lrange", "l", "0", "-1") == '1) "a"\n2) "b"\n3) "c d"\n'
    assert cli(server, "--no-raw", "lrange", "nokey", "0", "-1") == "(empty array)\n"
    assert cli(server, "--no-raw", "set", "k", "v") == "OK\n"
    assert cli(server, "--no-raw", "set", "bin", "a\tb") == "OK\n"
    assert cli(server, "--no-raw", "get", "bin") == '"a\\tb"\n'


def test_raw_output(server):
    cli(server, "rpush", "l", "a", "b", "c d")
    cli(server, "set", "bin", "a\tb")
    assert cli(server, "--raw", "lrange", "l", "0", "-1") == "a\nb\nc d\n"
    assert cli(server, "--raw", "get", "bin") == "a\tb\n"
    assert cli(server, "--raw", "incr", "n") == "1\n"
    assert cli(server, "--raw", "get", "nokey") == "\n"


def test_resp3_formatting(server):
    cli(server, "hset", "h", "a", "1", "b", "2")
    assert cli(server, "--no-raw", "-3", "hgetall", "h") == '1# "a" => "1"\n2# "b" => "2"\n'
    assert cli(server, "--no-raw", "-3", "hgetall", "nokey") == "(empty hash)\n"
    assert cli(server, "--no-raw", "-3", "smembers", "nokey") == "(empty set)\n"
    assert cli(server, "--no-raw", "-3", "get", "nokey") == "(nil)\n"


def test_piped_commands(server):
    out = cli(server, stdin=b"set a 1\nincr a\nget a\nfoo\nget nokey\n")
    assert out == "OK\n2\n2\nERR unknown command 'foo', with args beginning with: \n\n\n"


def test_pipe_mode(server):
    data = (b"*3\r\n$3\r\nSET\r\n$2\r\np1\r\n$1\r\n1\r\n"
            b"*2\r\n$4\r\nINCR\r\n$2\r\np1\r\n" * 1 +
            b"".join(b"*3\r\n$4\r\nSADD\r\n$1\r\ns\r\n$%d\r\n%s\r\n" % (len(b"m%d" % i), b"m%d" % i)
                     for i in range(1000)))
    out = cli(server, "--pipe", stdin=data)
    assert "All data transferred. Waiting for the last reply..." in out
    assert "Last reply received from server." in out
    assert out.rstrip("\n").endswith("errors: 0, replies: 1002")
    assert cli(server, "get", "p1") == "2\n"
    assert cli(server, "scard", "s") == "1000\n"


def test_pipe_mode_counts_errors(server):
    done = subprocess.run([CLI, "-p", str(server.port), "--pipe"],
                          input=b"*1\r\n$3\r\nFOO\r\n*1\r\n$4\r\nPING\r\n",
                          capture_output=True, timeout=20)
    assert done.returncode == 1
    assert b"errors: 1, replies: 2" in done.stdout


def test_stdin_as_last_argument(server):
    assert cli(server, "-x", "set", "xk", stdin=b"hello\x00world") == "OK\n"
    assert cli(server, "strlen", "xk") == "11\n"


def test_repeat(server):
    assert cli(server, "-r", "3", "incr", "cnt") == "1\n2\n3\n"


def test_scan_option(server):
    cli(server, "mset", "u:1", "a", "u:2", "b", "v:1", "c")
    assert sorted(cli(server, "--scan", "--pattern", "u:*").split()) == ["u:1", "u:2"]
    assert sorted(cli(server, "--scan").split()) == ["u:1", "u:2", "v:1"]


def test_bigkeys_and_memkeys(server):
    cli(server, "rpush", "biglist", "a", "b", "c", "d", "e")
    cli(server, "set", "longstring", "x" * 100)
    cli(server, "set", "s", "1")
    out = cli(server, "--bigkeys")
    assert "Sampled 3 keys in the keyspace!" in out
    assert "Biggest   list found '\"biglist\"' has 5 items" in out
    assert "Biggest string found '\"longstring\"' has 100 bytes" in out
    out = cli(server, "--memkeys")
    assert "Sampled 3 keys in the keyspace!" in out
    assert "biglist" in out and "longstring" in out


def test_info_output(server):
    cli(server, "set", "k", "v")
    out = cli(server, "info", "keyspace")
    assert out.replace("\r", "") == "# Keyspace\ndb0:keys=1,expires=0,avg_ttl=0\n"


def test_command_docs(server):
    out = cli(server, "--no-raw", "COMMAND", "DOCS", "get")
    lines = out.splitlines()
    assert lines[0] == '1) "get"'
    assert '"summary"' in out
    assert '"Get the value of a key"' in out
    assert '"complexity"' in out
    assert '"O(1)"' in out


class Terminal:
    """redis-cli in interactive mode on a pseudo-terminal (200 columns)."""

    def __init__(self, server):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
        self.proc = subprocess.Popen([CLI, "-h", server.host, "-p", str(server.port)],
                                     stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                                     env=dict(os.environ, TERM="xterm"))
        os.close(slave)
        self.prompt = b"%s:%d> " % (server.host.encode(), server.port)

    def read(self, until=None, timeout=5.0):
        """Reads screen output until `until` appears (or a quiet 0.3 s when None)."""
        out = b""
        deadline = time.time() + timeout
        while time.time() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.3 if until is None else 0.05)
            if not ready:
                if until is None:
                    break
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                break
            out += chunk
            if b"\x1b[6n" in chunk:  # the line editor asks where the cursor is
                os.write(self.master, b"\x1b[1;1R")
            if until is not None and until in out:
                break
        return out

    def type(self, text):
        os.write(self.master, text)

    def run(self, line):
        """Types a command line and Enter; returns the screen output up to the next prompt."""
        self.type(line + b"\r")
        out = self.read(until=b"\r\n" + self.prompt)
        assert out.endswith(b"\r\n" + self.prompt), out
        return out

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


def test_interactive_session_with_hints(server):
    term = Terminal(server)
    try:
        assert term.prompt in term.read(until=term.prompt)
        term.type(b"set hk ")
        assert b"value [NX|XX]" in term.read()  # the hint for SET's remaining arguments
        assert b"\r\nOK\r\n" in term.run(b"val")
        assert b'\r\n"val"\r\n' in term.run(b"get hk")
        assert b"Get the value of a key" in term.run(b"help get")
        assert b"\r\n(integer) 1\r\n" in term.run(b"incr cnt")
        assert b"\r\n(nil)\r\n" in term.run(b"get nokey")
        assert b"\r\n(empty array)\r\n" in term.run(b"lrange nokey 0 -1")
        assert b"\r\n(error) ERR unknown command 'foo'" in term.run(b"foo")
        assert b"\r\nPONG\r\n" in term.run(b"ping")
        term.type(b"quit\r")
        assert term.proc.wait(timeout=5) == 0
    finally:
        term.close()
