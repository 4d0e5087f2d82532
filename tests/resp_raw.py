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


def decode(value):
    """Turns bulk strings (bytes) into str (undecodable bytes kept via
    surrogateescape), recursively, keeping every other reply type."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    if isinstance(value, Push):
        return Push(decode(v) for v in value)
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, set):
        return {decode(v) for v in value}
    if isinstance(value, dict):
        return {decode(k): decode(v) for k, v in value.items()}
    return value


class RawClient:
    """decode=True: replies come back decoded (see decode()), so a test can
    write `c.call("GET", "k") == "v"`; Status, Error and Push keep their types."""

    def __init__(self, server_or_port, host="127.0.0.1", timeout=3.0, rcvbuf=None, decode=False):
        port = getattr(server_or_port, "port", server_or_port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        self.timeout = timeout
        self.buf = bytearray()
        self.closed = False
        self.decode = decode

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
        reply = parse_frame(self.read_frame(timeout))[0]
        return decode(reply) if self.decode else reply

    def call(self, *args):
        self.send(*args)
        return self.read()

    def call_frame(self, *args):
        self.send(*args)
        return self.read_frame()

    def nothing_pending(self, wait=0.1):
        """True if the server sends nothing more within `wait` seconds and
        keeps the connection open (a closed connection is not "nothing")."""
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
            return False
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


def Conn(target, decode=True, **kw):
    """A RawClient decoding its replies (the foundation tests: strings, keys,
    expire, protocol, admin compare full decoded replies and error texts)."""
    return RawClient(target, decode=decode, **kw)


Err = Error
