"""A minimal RESP2 client and fixtures for the data-type integration tests.

The tests assert replies exactly as the server sends them, which a full client
library hides (redis-py strips the "ERR " prefix, turns statuses into bools and
nil arrays into None). Here a status reply is a `str`, a bulk string is `bytes`,
a nil bulk is None, a nil array is NULL_ARRAY, and an error is a ReplyError whose
text is the whole line after '-' (e.g. "ERR syntax error").
Sending and reading are separate calls, so a test can leave a client blocked
(BLPOP ...) while another client acts, then read the blocked client's reply.
"""
import socket
import time

import pytest


class ReplyError(Exception):
    """An error reply; str(e) is the full error text including its code."""

    def __eq__(self, other):
        return isinstance(other, ReplyError) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    def __repr__(self):
        return "ReplyError(%r)" % str(self)


class _NullArray:
    """The RESP2 nil multi-bulk (*-1), distinct from the nil bulk string ($-1)."""

    def __repr__(self):
        return "NULL_ARRAY"


NULL_ARRAY = _NullArray()


def _encode_arg(arg):
    if isinstance(arg, bytes):
        return arg
    if isinstance(arg, str):
        return arg.encode()
    if isinstance(arg, (int, float)):
        return repr(arg).encode()
    raise TypeError("unsupported argument type %r" % type(arg))


class RawClient:
    def __init__(self, host, port, timeout=10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""

    def close(self):
        self.sock.close()

    def send(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for arg in args:
            data = _encode_arg(arg)
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        self.sock.sendall(b"".join(parts))

    def send_raw(self, data):
        self.sock.sendall(data)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buf += chunk

    def _line(self):
        while True:
            idx = self.buf.find(b"\r\n")
            if idx >= 0:
                line, self.buf = self.buf[:idx], self.buf[idx + 2:]
                return line
            self._fill()

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self):
        """Reads one reply; an error reply is returned as a ReplyError (not raised)."""
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return ReplyError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            if n < 0:
                return NULL_ARRAY
            return [self.read() for _ in range(n)]
        raise AssertionError("bad reply line %r" % line)

    def pending(self, wait=0.05):
        """True when a reply has arrived (or arrives within `wait` seconds)."""
        if self.buf:
            return True
        self.sock.settimeout(wait)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return False
        finally:
            self.sock.settimeout(10.0)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buf += chunk
        return True

    def __call__(self, *args):
        """Sends a command and returns its reply; error replies are raised."""
        self.send(*args)
        reply = self.read()
        if isinstance(reply, ReplyError):
            raise reply
        return reply

    def err(self, *args):
        """Sends a command that must fail and returns the full error text."""
        self.send(*args)
        reply = self.read()
        assert isinstance(reply, ReplyError), "expected an error, got %r" % (reply,)
        return str(reply)

    def encoding(self, key):
        return self("OBJECT", "ENCODING", key)


WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


def arity(cmd):
    return "ERR wrong number of arguments for '%s' command" % cmd


def wait_for(predicate, timeout=5.0, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.005)
    raise AssertionError("timed out waiting for " + what)


def blocked_clients(c):
    info = c("INFO", "clients").decode()
    for line in info.splitlines():
        if line.startswith("blocked_clients:"):
            return int(line.split(":", 1)[1])
    raise AssertionError("INFO clients has no blocked_clients")


def wait_blocked(c, n):
    """Waits until the server reports exactly n blocked clients."""
    wait_for(lambda: blocked_clients(c) == n, what="%d blocked clients" % n)


@pytest.fixture
def connect(server):
    """Opens more raw clients to the test's server; all are closed at the end."""
    opened = []

    def open_client():
        cl = RawClient(server.host, server.port)
        opened.append(cl)
        return cl

    yield open_client
    for cl in opened:
        cl.close()


@pytest.fixture
def c(connect):
    """A raw RESP2 client on the test's fresh server."""
    return connect()
