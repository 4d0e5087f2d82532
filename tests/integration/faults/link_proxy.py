"""A TCP proxy a fault test puts between two servers (a replica and its
master) to cut or slow the link between them as a network would: the
replica's REPLICAOF names the proxy's port. One thread runs every
connection through a selector; the test switches the mode at any time:

  pass       forward both ways as soon as bytes arrive
  delay(ms)  hold every chunk for ms milliseconds, then forward it, in order
  drop       close both sides of every connection (and of those that come
             while the mode lasts), as a peer's crash or a reset does
  blackhole  accept and keep the connections but forward nothing either way
             and read nothing (the senders' buffers fill), as a cut cable
             does; what was held goes on in order when the link passes again
  rate(bps)  forward at most bps bytes a second each way (to make a transfer
             last long enough to be cut in the middle)
"""
import collections
import selectors
import socket
import threading
import time

HIGH_WATER = 1 << 20  # bytes held for one side before its source is no longer read
# The proxy's receive buffers, fixed: autotuned ones grow to tens of MB, and a
# blackholed link would take in a whole snapshot before its sender blocks.
RCVBUF = 128 << 10


class _Side:
    """One socket of a connection and what is held to be written to it."""

    def __init__(self, sock):
        self.sock = sock
        self.held = collections.deque()  # (release time, bytes)
        self.out = bytearray()
        self.eof = False  # the other side closed: close this one once flushed
        self.mask = 0

    def backlog(self):
        return len(self.out) + sum(len(b) for _, b in self.held)


class _Conn:
    def __init__(self, client, upstream):
        self.a = _Side(client)
        self.b = _Side(upstream)

    def peer(self, side):
        return self.b if side is self.a else self.a


class LinkProxy:
    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)  # accepted ones inherit it
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.setblocking(False)
        self.host, self.port = self.listener.getsockname()
        self.mode = "pass"
        self.delay_s = 0.0
        self.rate_bps = None
        self.accepted = 0  # connections accepted so far (a retry shows as one more)
        self._lock = threading.Lock()
        self._conns = []
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.listener, selectors.EVENT_READ, None)
        self._sel.register(self._wake_r, selectors.EVENT_READ, None)
        self._stopping = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    # --- switching (from the test's thread) ---------------------------------

    def _set(self, mode, delay_ms=0, rate_bps=None):
        with self._lock:
            self.mode = mode
            self.delay_s = delay_ms / 1000.0
            self.rate_bps = rate_bps
        self._wake_w.send(b"x")

    def passing(self):
        self._set("pass")

    def delay(self, ms):
        self._set("pass", delay_ms=ms)

    def rate(self, bps):
        self._set("pass", rate_bps=bps)

    def blackhole(self):
        self._set("blackhole")

    def drop(self):
        """Closes every connection now and those that come until the mode changes."""
        self._set("drop")
        wait_until = time.time() + 5
        while time.time() < wait_until:
            with self._lock:
                if not self._conns:
                    return
            time.sleep(0.01)
        raise AssertionError("the proxy did not close its connections")

    def close(self):
        self._stopping = True
        self._wake_w.send(b"x")
        self._thread.join(5)
        for c in list(self._conns):
            self._close(c)
        self.listener.close()
        self._wake_r.close()
        self._wake_w.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- the proxy's thread -------------------------------------------------

    def _close(self, conn):
        for side in (conn.a, conn.b):
            if side.mask:
                self._sel.unregister(side.sock)
                side.mask = 0
            side.sock.close()
        with self._lock:
            if conn in self._conns:
                self._conns.remove(conn)

    def _accept(self):
        try:
            client, _ = self.listener.accept()
        except BlockingIOError:
            return
        if self.mode == "drop":
            client.close()
            return
        upstream = socket.socket()
        upstream.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
        upstream.settimeout(2)
        try:
            upstream.connect(self.target)
        except OSError:
            upstream.close()
            client.close()  # the target is down: as a refused connection
            return
        for s in (client, upstream):
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            self._conns.append(_Conn(client, upstream))
            self.accepted += 1

    def _release(self, now):
        """Moves the held chunks whose time came to the output buffers; the
        earliest time still to come (None: nothing is held)."""
        nxt = None
        for conn in self._conns:
            for side in (conn.a, conn.b):
                while side.held and side.held[0][0] <= now:
                    side.out += side.held.popleft()[1]
                if side.held:
                    nxt = side.held[0][0] if nxt is None else min(nxt, side.held[0][0])
        return nxt

    def _want(self, conn, side):
        if self.mode == "blackhole":
            return 0
        mask = 0
        if side.out:
            mask |= selectors.EVENT_WRITE
        if not conn.peer(side).eof and conn.peer(side).backlog() < HIGH_WATER and not side.eof:
            mask |= selectors.EVENT_READ
        return mask

    def _rearm(self):
        for conn in list(self._conns):
            for side in (conn.a, conn.b):
                mask = self._want(conn, side)
                if mask == side.mask:
                    continue
                if side.mask and mask:
                    self._sel.modify(side.sock, mask, (conn, side))
                elif mask:
                    self._sel.register(side.sock, mask, (conn, side))
                else:
                    self._sel.unregister(side.sock)
                side.mask = mask

    def _read(self, conn, side, now, budget):
        try:
            data = side.sock.recv(min(65536, budget))
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:
            data = b""
        dst = conn.peer(side)
        if not data:
            side.eof = True  # forward what is held, then close the other side
            dst.eof = True
            return 0
        dst.held.append((now + self.delay_s, data))
        return len(data)

    def _write(self, conn, side):
        try:
            n = side.sock.send(side.out)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False
        del side.out[:n]
        return True

    def _run(self):
        window_start, window_bytes = time.time(), 0
        while not self._stopping:
            now = time.time()
            if self.mode == "drop":
                for conn in list(self._conns):
                    self._close(conn)
            nxt = self._release(now) if self.mode != "blackhole" else None
            # A connection whose peer closed is closed once its output is flushed.
            for conn in list(self._conns):
                if (conn.a.eof or conn.b.eof) and not any(s.out or s.held for s in (conn.a, conn.b)):
                    self._close(conn)
            if now - window_start >= 0.1:
                window_start, window_bytes = now, 0
            budget = 65536
            if self.rate_bps is not None:
                budget = int(self.rate_bps * 0.1) - window_bytes
            if budget <= 0:
                # Over the rate for this window: read nothing until the next.
                for conn in self._conns:
                    for side in (conn.a, conn.b):
                        if side.mask & selectors.EVENT_READ:
                            side.mask &= ~selectors.EVENT_READ
                            if side.mask:
                                self._sel.modify(side.sock, side.mask, (conn, side))
                            else:
                                self._sel.unregister(side.sock)
                nxt = min(nxt or now + 1, window_start + 0.1)
            else:
                self._rearm()
            timeout = None if nxt is None else max(0.0, nxt - now)
            timeout = 0.2 if timeout is None else min(timeout, 0.2)
            for key, events in self._sel.select(timeout):
                if key.fileobj is self.listener:
                    self._accept()
                    continue
                if key.fileobj is self._wake_r:
                    try:
                        self._wake_r.recv(4096)
                    except BlockingIOError:
                        pass
                    continue
                conn, side = key.data
                if conn not in self._conns:
                    continue
                if events & selectors.EVENT_WRITE and not self._write(conn, side):
                    self._close(conn)
                    continue
                if events & selectors.EVENT_READ and budget > 0:
                    n = self._read(conn, side, time.time(), budget)
                    window_bytes += n
                    budget -= n
