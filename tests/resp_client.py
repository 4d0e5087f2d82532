"""Decoded raw-RESP connections for the server-foundation integration tests.

The tests in test_strings/keys/expire/protocol/admin compare full replies and
full error texts. resp_raw.RawClient gives exact frames (errors keep their
"ERR " prefix); this module only adds decoding, so a test can write
`c.call("GET", "k") == "v"` instead of b"v": bulk strings become str
(undecodable bytes kept via surrogateescape), recursively through arrays,
maps and sets. Status, Error and Push keep their types from resp_raw.

Fixtures: `c` (one decoded connection to the test's server) and `open_conn`
(more of them: open_conn(target=None, decode=True, timeout=..., rcvbuf=...)).
"""
import pytest

from resp_raw import Error, Push, RawClient, Status  # noqa: F401

Err = Error


def decode(value):
    """Turns bulk strings (bytes) into str, keeping every other reply type."""
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


class Conn(RawClient):
    """A RawClient whose parsed replies are decoded (unless decode=False)."""

    def __init__(self, target, decode=True, **kw):
        super().__init__(target, **kw)
        self.decode = decode

    def read(self, timeout=None):
        reply = super().read(timeout)
        return decode(reply) if self.decode else reply


@pytest.fixture
def open_conn(server):
    """open_conn(target=None, **kw) opens a Conn to the test's server (or target)."""
    opened = []

    def open_one(target=None, **kw):
        conn = Conn(target or server, **kw)
        opened.append(conn)
        return conn

    yield open_one
    for conn in opened:
        conn.close()


@pytest.fixture
def c(open_conn):
    """One decoded connection to the test's server."""
    return open_conn(timeout=10.0)
