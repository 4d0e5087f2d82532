"""A minimal RESP2/RESP3 client over a raw socket, for the integration tests.

Why not only redis-py: it strips the "ERR " prefix from errors, applies
per-command reply callbacks and cannot send malformed input. These tests need
the exact reply a server gives, so this client returns replies as parsed
values and errors as `Err` values that compare by their full text.

Reply mapping: simple string -> Status (a str), bulk string -> str (or bytes
with decode=False), integer -> int, nil/null -> None, array -> list,
RESP3 map -> dict, set -> list, double -> float, boolean -> bool,
verbatim string -> str without its format prefix, push -> Push (a list),
error -> Err.

Import the `c` and `connect` fixtures into a test module with
`from resp_client import c, connect  # noqa: F401` to use them.
"""
import socket
import time

import pytest


class Err:
    """An error reply; equal to another Err with the same full text."""

    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return isinstance(other, Err) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return "Err(%r)" % self.text

    def startswith(self, prefix):
        return self.text.startswith(prefix)


class Status(str):
    """A simple-string reply (+OK); compares equal to the plain str."""


class Push(list):
    """A RESP3 out-of-band push message."""


class ConnectionClosed(Exception):
    pass


def encode_command(args):
    """Encodes one command as a RESP multibulk request."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        elif isinstance(a, (int, float)):
            a = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class RespConn:
    def __init__(self, host, port=None, decode=True, timeout=10, unix_path=None):
        if unix_path is not None:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            self.sock.connect(unix_path)
        else:
            self.sock = socket.create_connection((host, port), timeout=timeout)
        self.decode = decode
        self.buf = b""

    def close(self):
        self.sock.close()

    def settimeout(self, t):
        self.sock.settimeout(t)

    # --- sending -------------------------------------------------------
    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, *args):
        self.sock.sendall(encode_command(args))

    def call(self, *args):
        """Sends one command and returns its parsed reply (pushes skipped)."""
        self.send(*args)
        return self.read_reply()

    # --- receiving -----------------------------------------------------
    def _fill(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnectionClosed("server closed the connection")
        self.buf += data

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                line, self.buf = self.buf[:i], self.buf[i + 2:]
                return line
            self._fill()

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def _str(self, b):
        return b.decode("utf-8", "surrogateescape") if self.decode else b

    def read_any(self):
        """Reads one reply, including RESP3 pushes."""
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return Status(rest.decode("utf-8", "surrogateescape"))
        if kind == b"-":
            return Err(rest.decode("utf-8", "surrogateescape"))
        if kind == b":":
            return int(rest)
        if kind == b"(":
            return int(rest)
        if kind == b",":
            return float(rest)
        if kind == b"#":
            return rest == b"t"
        if kind == b"_":
            return None
        if kind in (b"$", b"="):
            n = int(rest)
            if n < 0:
                return None
            data = self._exact(n)
            if kind == b"=":
                data = data[4:]
            return self._str(data)
        if kind in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return None
            items = [self.read_any() for _ in range(n)]
            return Push(items) if kind == b">" else items
        if kind == b"%":
            n = int(rest)
            d = {}
            for _ in range(n):
                k = self.read_any()
                d[k] = self.read_any()
            return d
        if kind == b"|":
            for _ in range(int(rest) * 2):
                self.read_any()
            return self.read_any()
        raise ValueError("bad reply line %r" % line)

    def read_reply(self):
        while True:
            v = self.read_any()
            if not isinstance(v, Push):
                return v

    def read_raw(self, n=None, timeout=2.0):
        """Returns buffered and newly arriving bytes until `n` bytes or a pause."""
        self.sock.settimeout(timeout)
        try:
            while n is None or len(self.buf) < n:
                data = self.sock.recv(1 << 20)
                if not data:
                    break
                self.buf += data
                if n is None:
                    self.sock.settimeout(0.2)
        except socket.timeout:
            pass
        finally:
            self.sock.settimeout(10)
        data, self.buf = self.buf, b""
        return data

    def is_closed(self, timeout=2.0):
        """True when the server closes the connection within `timeout` (data read is dropped)."""
        deadline = time.time() + timeout
        self.buf = b""
        try:
            while time.time() < deadline:
                self.sock.settimeout(max(0.01, deadline - time.time()))
                data = self.sock.recv(1 << 20)
                if not data:
                    return True
        except socket.timeout:
            return False
        except ConnectionResetError:
            return True
        finally:
            self.sock.settimeout(10)
        return False


@pytest.fixture
def connect(server):
    """Opens more raw connections to the test's server; all closed at the end."""
    opened = []

    def open_conn(**kw):
        conn = RespConn(server.host, server.port, **kw)
        opened.append(conn)
        return conn

    yield open_conn
    for conn in opened:
        conn.close()


@pytest.fixture
def c(connect):
    """One raw connection to the test's server."""
    return connect()
