"""The connection the data-type integration tests talk through (hash, list,
set, zset, bitmap, sort, ...); their fixtures `dc` and `dconnect` are in
conftest.py.

It is resp_raw.RawClient (exact frames, full error texts) with the calling
conventions these tests assert with: `dc("CMD", ...)` returns the reply and
raises an error reply as ReplyError; `dc.err("CMD", ...)` returns the full
error text of a command that must fail; a status reply is a `str`, a bulk
string `bytes`, a nil bulk None, and a top-level nil array (*-1) is
NULL_ARRAY, so "no such key" nil bulks and timed-out blocking pops stay
distinct (`dc.frame(...)` gives the exact bytes when a nil array is nested).
Sending and reading are separate, so a test can leave a client blocked
(BLPOP ...) while another client acts, then read the blocked client's reply.
"""

from resp_raw import Error, RawClient, parse_frame
from support import wait_for

WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


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


class DataClient(RawClient):
    def read(self, timeout=None):
        """Reads one reply; an error reply is returned as a ReplyError (not raised)."""
        frame = self.read_frame(timeout)
        if frame == b"*-1\r\n":
            return NULL_ARRAY
        reply = parse_frame(frame)[0]
        if isinstance(reply, Error):
            return ReplyError(str(reply))
        return reply

    def frame(self, *args):
        """Sends a command and returns the exact bytes of its reply."""
        return self.call_frame(*args)

    def pending(self, wait=0.05):
        """True when a reply has arrived (or arrives within `wait` seconds)."""
        return not self.nothing_pending(wait)

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


def arity(cmd):
    return "ERR wrong number of arguments for '%s' command" % cmd


def scan_all(c, cmd, key, *opts):
    """Runs HSCAN/SSCAN/ZSCAN from cursor 0 to the end; returns (items, calls)."""
    cursor, items, calls = b"0", [], 0
    while True:
        cursor, part = c(cmd, key, cursor, *opts)
        items += part
        calls += 1
        assert calls < 10000
        if cursor == b"0":
            return items, calls


def check_random_members(c, cmd, key, expected, with_flag=None):
    """Checks the invariants of HRANDFIELD/SRANDMEMBER/ZRANDMEMBER on `key`.

    `expected` is the content: a set of members, or a dict member -> value
    when the command takes `with_flag` (WITHVALUES/WITHSCORES). No count gives
    one member (and, over many calls, more than one distinct); a positive count
    gives distinct members, at most the size; a negative count gives exactly
    |count| members, repeats allowed (certain here by pigeonhole).
    """
    n = len(expected)
    members = set(expected)
    assert c(cmd, key, "0") == []
    seen = set()
    for _ in range(60):
        m = c(cmd, key)
        assert m in members
        seen.add(m)
    assert len(seen) > 1
    for count in sorted({1, 2, n // 4, n // 2, n - 1, n, n + 5} - {0}):
        got = c(cmd, key, count)
        assert len(got) == min(count, n)
        assert len(set(got)) == len(got)
        assert set(got) <= members
        if with_flag:
            flat = c(cmd, key, count, with_flag)
            assert len(flat) == 2 * min(count, n)
            pairs = dict(zip(flat[0::2], flat[1::2]))
            assert len(pairs) == min(count, n)
            assert all(expected[m] == v for m, v in pairs.items())
    assert sorted(c(cmd, key, n)) == sorted(members)
    got = c(cmd, key, -(n * 10))
    assert len(got) == n * 10
    assert set(got) <= members
    assert len(set(got)) < len(got)
    if with_flag:
        assert c(cmd, key, "0", with_flag) == []
        flat = c(cmd, key, -(n * 3), with_flag)
        assert len(flat) == n * 6
        assert all(expected[m] == v for m, v in zip(flat[0::2], flat[1::2]))


def blocked_clients(c):
    info = c("INFO", "clients").decode()
    for line in info.splitlines():
        if line.startswith("blocked_clients:"):
            return int(line.split(":", 1)[1])
    raise AssertionError("INFO clients has no blocked_clients")


def wait_blocked(c, n):
    """Waits until the server reports exactly n blocked clients."""
    wait_for(lambda: blocked_clients(c) == n, what="%d blocked clients" % n)
