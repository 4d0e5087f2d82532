"""A raw RESP client over a plain socket, for tests that check exact frames.

redis-py hides framing (push vs. reply, status vs. bulk) and is awkward for
connections in subscribed or MONITOR mode, so the pub/sub, notification,
MONITOR, transaction and scripting suites talk to the server through this.
Replies are parsed into plain Python values whose types keep what RESP said:
Status and Error are str subclasses, Push is a list subclass, bulk strings
are bytes and nil is None.
"""
import socket
import time

import pytest


class Status(str):
    """A simple-string reply (+OK)."""


class Error(str):
    """An error reply (-ERR ...): the text without the leading '-'."""


class Push(list):
    """A RESP3 push frame (>)."""


def encode_command(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        elif isinstance(a, int):
            a = str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Incomplete(Exception):
    pass


def parse_frame(buf, pos=0):
    """Parse one frame starting at pos; return (value, end). Raise Incomplete."""
    eol = buf.find(b"\r\n", pos)
    if eol < 0:
        raise Incomplete()
    kind, line, after = buf[pos:pos + 1], buf[pos + 1:eol], eol + 2
    if kind == b"+":
        return Status(line.decode(errors="surrogateescape")), after
    if kind == b"-":
        return Error(line.decode(errors="surrogateescape")), after
    if kind in (b":", b"("):
        return int(line), after
    if kind == b",":
        return float(line), after
    if kind == b"_":
        return None, after
    if kind == b"#":
        return line == b"t", after
    if kind == b"!":
        n = int(line)
        if len(buf) < after + n + 2:
            raise Incomplete()
        return Error(bytes(buf[after:after + n]).decode(errors="surrogateescape")), after + n + 2
    if kind in (b"$", b"="):
        n = int(line)
        if n < 0:
            return None, after
        if len(buf) < after + n + 2:
            raise Incomplete()
        return bytes(buf[after:after + n]), after + n + 2
    if kind in (b"*", b">", b"~"):
        n = int(line)
        if n < 0:
            return None, after
        items = []
        for _ in range(n):
            v, after = parse_frame(buf, after)
            items.append(v)
        if kind == b">":
            return Push(items), after
        if kind == b"~":
            return set(items), after
        return items, after
    if kind == b"%":
        n = int(line)
        d = {}
        for _ in range(n):
            k, after = parse_frame(buf, after)
            v, after = parse_frame(buf, after)
            d[k] = v
        return d, after
    raise ValueError("bad RESP type byte %r in %r" % (kind, bytes(buf[pos:pos + 40])))


class RawClient:
    def __init__(self, server_or_port, host="127.0.0.1", timeout=3.0, rcvbuf=None):
        port = getattr(server_or_port, "port", server_or_port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        self.timeout = timeout
        self.buf = bytearray()
        self.closed = False

    def close(self):
        self.sock.close()

    def addr(self):
        """Our ip:port as the server sees it."""
        h, p = self.sock.getsockname()[:2]
        return "%s:%d" % (h, p)

    def send(self, *args):
        self.sock.sendall(encode_command(*args))

    def send_raw(self, data):
        self.sock.sendall(data)

    def _fill(self, deadline):
        remaining = deadline - time.time()
        if remaining <= 0:
            raise socket.timeout("no complete reply in time; have %r" % bytes(self.buf[:200]))
        self.sock.settimeout(remaining)
        data = self.sock.recv(1 << 16)
        if not data:
            self.closed = True
            raise ConnectionError("connection closed by server; have %r" % bytes(self.buf[:200]))
        self.buf += data

    def read_frame(self, timeout=None):
        """Return the exact bytes of the next complete frame."""
        deadline = time.time() + (self.timeout if timeout is None else timeout)
        while True:
            try:
                _, end = parse_frame(self.buf)
                frame = bytes(self.buf[:end])
                del self.buf[:end]
                return frame
            except Incomplete:
                self._fill(deadline)

    def read(self, timeout=None):
        """Return the next reply, parsed."""
        frame = self.read_frame(timeout)
        return parse_frame(frame)[0]

    def call(self, *args):
        self.send(*args)
        return self.read()

    def call_frame(self, *args):
        self.send(*args)
        return self.read_frame()

    def nothing_pending(self, wait=0.1):
        """True if the server sends nothing more within `wait` seconds."""
        if self.buf:
            return False
        self.sock.settimeout(wait)
        try:
            data = self.sock.recv(1 << 16)
        except (socket.timeout, BlockingIOError):
            return True
        finally:
            self.sock.settimeout(self.timeout)
        if not data:
            self.closed = True
            return True
        self.buf += data
        return False

    def wait_closed(self, timeout=None):
        """Read and discard until the server closes the connection; return bytes seen."""
        deadline = time.time() + (self.timeout if timeout is None else timeout)
        seen = bytes(self.buf)
        self.buf.clear()
        while True:
            remaining = deadline - time.time()
            if remaining <= 0:
                raise socket.timeout("connection still open")
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(1 << 16)
            except ConnectionResetError:
                return seen
            if not data:
                self.closed = True
                return seen
            seen += data


def _connector(default_server):
    opened = []

    def open_client(target=None, **kw):
        c = RawClient(target or default_server, **kw)
        opened.append(c)
        return c

    return open_client, opened


@pytest.fixture
def connect(server):
    """connect(**kw) opens a RawClient to the test's server; all are closed at the end."""
    open_client, opened = _connector(server)
    yield open_client
    for c in opened:
        c.close()


@pytest.fixture
def shared_connect(module_server):
    """Like `connect`, but to the module's shared server, emptied (FLUSHALL) first.
    Settings are not reset: tests using it set every setting they depend on."""
    open_client, opened = _connector(module_server)
    assert open_client().call("flushall") == "OK"
    yield open_client
    for c in opened:
        c.close()


@pytest.fixture(scope="module")
def module_server(request):
    """One server shared by a whole test module, for many small stateless tests.

    The Server class lives in tests/conftest.py; pytest does not keep conftest
    modules importable by name (several share the name), so it is found among
    the loaded plugins.
    """
    server_class = None
    for plugin in request.config.pluginmanager.get_plugins():
        candidate = getattr(plugin, "Server", None)
        if isinstance(candidate, type) and hasattr(plugin, "free_port"):
            server_class = candidate
            break
    assert server_class is not None, "tests/conftest.py with its Server class was not loaded"
    s = server_class()
    yield s
    s.stop()
