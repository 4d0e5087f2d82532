"""The wire protocol over raw sockets: inline and multibulk requests, pipelining,
protocol errors (exact texts, connection closed, others unaffected), limits.

Replies and error texts as Redis 7.0.15 gives them (each checked on it).
"""
import socket
import time

import pytest
import redis

from resp_raw import Conn


def exchange(server, data, timeout=2.0, quiet=0.2):
    """Sends `data` on a new connection; returns (bytes received, closed by server).

    Reads until the server closes the connection, or nothing more arrives for
    `quiet` seconds after some data (or for `timeout` seconds before any)."""
    sock = socket.create_connection((server.host, server.port), timeout=timeout)
    try:
        sock.sendall(data)
        received = b""
        while True:
            sock.settimeout(quiet if received else timeout)
            try:
                chunk = sock.recv(1 << 16)
            except socket.timeout:
                return received, False
            except ConnectionResetError:
                return received, True
            if not chunk:
                return received, True
            received += chunk
    finally:
        sock.close()


def replies_then_open(server, data, n):
    """Sends `data`, reads `n` replies, checks the connection stays open, returns the replies."""
    conn = Conn(server, timeout=5.0)
    try:
        conn.send_raw(data)
        replies = [conn.read() for _ in range(n)]
        assert conn.call("PING") == "PONG"
        return replies
    finally:
        conn.close()


def assert_protocol_error(server, data, text, before=b""):
    """`data` must draw exactly `before` + "-ERR Protocol error: <text>" and a close,
    while another connection keeps working."""
    other = Conn(server, timeout=5.0)
    try:
        received, closed = exchange(server, data)
        assert received == before + b"-ERR Protocol error: " + text + b"\r\n"
        assert closed, "the server must close the connection after a protocol error"
        assert other.call("PING") == "PONG"
        assert other.call("SET", "after", "ok") == "OK"
    finally:
        other.close()


# --- inline commands ----------------------------------------------------------

def test_inline_commands(server):
    assert exchange(server, b"PING\r\n")[0] == b"+PONG\r\n"
    assert exchange(server, b"ping hello\r\n")[0] == b"$5\r\nhello\r\n"
    assert replies_then_open(server, b"set a \"hello world\"\r\nget a\r\n", 2) == \
        ["OK", "hello world"]


def test_inline_newline_only_and_extra_spaces(server):
    # a bare \n ends a line too; runs of spaces separate arguments
    assert replies_then_open(server, b"set k v\nget k\n", 2) == ["OK", "v"]
    assert replies_then_open(server, b"   set    k2    v2   \r\nget k2\r\n", 2) == ["OK", "v2"]


def test_inline_quotes_and_escapes(server):
    assert replies_then_open(server, b'set c "a\\x41\\n"\r\nget c\r\n', 2) == ["OK", "aA\n"]
    assert replies_then_open(server, b'set d "\\t\\r\\n\\a\\b\\"\\\\"\r\nget d\r\n', 2) == \
        ["OK", '\t\r\n\x07\x08"\\']
    # single quotes take everything literally except \'
    assert replies_then_open(server, b"set e '\\n\\''\r\nget e\r\n", 2) == ["OK", "\\n'"]
    # an incomplete \x escape is kept as the plain character
    assert replies_then_open(server, b'set f "\\x4"\r\nget f\r\n', 2) == ["OK", "x4"]
    assert replies_then_open(server, b"set g ''\r\nstrlen g\r\n", 2) == ["OK", 0]


def test_inline_unbalanced_quotes(server):
    for data in (b'set d "unbalanced\r\n', b"set d 'x\r\n", b'set e "a"b\r\n',
                 b"set b 'it''s'\r\n"):
        assert_protocol_error(server, data, b"unbalanced quotes in request")


def test_empty_lines_ignored(server):
    assert exchange(server, b"\r\n\r\nPING\r\n")[0] == b"+PONG\r\n"
    assert exchange(server, b"\n\nPING\n")[0] == b"+PONG\r\n"
    received, closed = exchange(server, b" \r\n\r\n", timeout=0.2)
    assert received == b"" and not closed
    # an empty multibulk (*0 or *-1) is skipped as well
    assert exchange(server, b"*0\r\nPING\r\n")[0] == b"+PONG\r\n"
    assert exchange(server, b"*-1\r\nPING\r\n")[0] == b"+PONG\r\n"


def test_too_big_inline_request(server):
    assert_protocol_error(server, b"a" * 70000, b"too big inline request")


def test_inline_under_limit_waits_for_newline(server):
    conn = Conn(server, timeout=5.0)
    try:
        conn.send_raw(b"set k " + b"x" * 60000)
        assert conn.nothing_pending(0.2)
        conn.send_raw(b"\r\nstrlen k\r\n")
        assert conn.read() == "OK"
        assert conn.read() == 60000
    finally:
        conn.close()


# --- multibulk ----------------------------------------------------------------

def test_multibulk(server):
    assert replies_then_open(
        server, b"*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$1\r\ny\r\n*2\r\n$3\r\nGET\r\n$1\r\nx\r\n", 2) \
        == ["OK", "y"]
    assert replies_then_open(
        server, b"*3\r\n$3\r\nSET\r\n$1\r\nz\r\n$0\r\n\r\n*2\r\n$3\r\nGET\r\n$1\r\nz\r\n", 2) \
        == ["OK", ""]


def test_multibulk_split_across_writes(c):
    data = b"*3\r\n$3\r\nSET\r\n$5\r\nsplit\r\n$10\r\n0123456789\r\n"
    for i in range(len(data)):
        c.send_raw(data[i:i + 1])
    assert c.read() == "OK"
    assert c.call("GET", "split") == "0123456789"


def test_binary_safe_arguments(open_conn):
    c = open_conn(decode=False)
    value = b"\r\n\x00$*+-:" * 100
    assert c.call(b"SET", b"\r\nkey\x00", value) == "OK"
    assert c.call(b"GET", b"\r\nkey\x00") == value


def test_invalid_multibulk_length(server):
    assert_protocol_error(server, b"*abc\r\n", b"invalid multibulk length")
    assert_protocol_error(server, b"*2147483648\r\n", b"invalid multibulk length")


def test_expected_dollar(server):
    assert_protocol_error(server, b"*1\r\nPING\r\n", b"expected '$', got 'P'")
    assert_protocol_error(server, b"*1\r\n$4\r\nPING\r\n*1\r\n:4\r\n", b"expected '$', got ':'",
                          before=b"+PONG\r\n")


def test_invalid_bulk_length(server):
    assert_protocol_error(server, b"*1\r\n$abc\r\n", b"invalid bulk length")
    assert_protocol_error(server, b"*1\r\n$-1\r\n", b"invalid bulk length")
    assert_protocol_error(server, b"*1\r\n$536870913\r\n", b"invalid bulk length")


def test_too_big_count_strings(server):
    assert_protocol_error(server, b"*" + b"1" * 70000, b"too big mbulk count string")
    assert_protocol_error(server, b"*1\r\n$" + b"1" * 70000, b"too big bulk count string")


def test_replies_before_protocol_error_are_sent(server):
    received, closed = exchange(server, b"PING\r\nSET a 1\r\n*abc\r\nPING\r\n")
    assert received == b"+PONG\r\n+OK\r\n-ERR Protocol error: invalid multibulk length\r\n"
    assert closed


# --- pipelining and big values ------------------------------------------------

def test_pipeline_1000_commands_in_one_write(c):
    data = b"".join(b"*2\r\n$4\r\nINCR\r\n$7\r\ncounter\r\n" for _ in range(500))
    data += b"".join(b"INCR counter\r\n" for _ in range(500))
    c.send_raw(data)
    assert [c.read() for _ in range(1000)] == list(range(1, 1001))
    assert c.call("GET", "counter") == "1000"


def test_pipeline_mixed_replies(c):
    data = b"SET a 1\r\nGET a\r\nGET nokey\r\nFOO\r\nLPUSH a x\r\nINCR a\r\nPING\r\n"
    c.send_raw(data)
    replies = [c.read() for _ in range(7)]
    assert replies == ["OK", "1", None, "ERR unknown command 'FOO', with args beginning with: ",
                       "WRONGTYPE Operation against a key holding the wrong kind of value", 2,
                       "PONG"]
    assert type(replies[3]).__name__ == "Error"


def test_big_value_10mb(open_conn):
    c = open_conn(decode=False, timeout=30.0)
    value = bytes(range(256)) * (10 * 1024 * 1024 // 256)
    assert c.call(b"SET", b"big", value) == "OK"
    assert c.call(b"STRLEN", b"big") == len(value)
    assert c.call(b"GET", b"big") == value
    assert c.call(b"APPEND", b"big", b"tail") == len(value) + 4


def test_many_arguments(c):
    args = ["f%d" % i for i in range(50000)]
    assert c.call("SADD", "s", *args) == 50000
    assert c.call("SCARD", "s") == 50000


# --- command errors -----------------------------------------------------------

def test_unknown_command(c):
    assert c.call("foo", "a", "b") == "ERR unknown command 'foo', with args beginning with: 'a' 'b' "
    assert c.call("foo") == "ERR unknown command 'foo', with args beginning with: "
    assert c.call("FOO", "a") == "ERR unknown command 'FOO', with args beginning with: 'a' "
    assert c.call("foo", "", "") == "ERR unknown command 'foo', with args beginning with: '' '' "
    assert c.call("") == "ERR unknown command '', with args beginning with: "
    assert c.call("PING") == "PONG"  # the connection stays usable


def test_unknown_command_text_is_truncated(c):
    # the argument list stops once it reaches 128 characters; each piece is cut to fit
    assert c.call("foo", "x" * 200, "b") == \
        "ERR unknown command 'foo', with args beginning with: '%s' " % ("x" * 128)
    assert c.call("foo", *["abc"] * 60) == \
        "ERR unknown command 'foo', with args beginning with: " + "'abc' " * 21 + "'ab' "
    assert c.call("x" * 200, "a") == \
        "ERR unknown command '%s', with args beginning with: 'a' " % ("x" * 128)


def test_wrong_arity(c):
    assert c.call("GET") == "ERR wrong number of arguments for 'get' command"
    assert c.call("GET", "a", "b") == "ERR wrong number of arguments for 'get' command"
    assert c.call("get") == "ERR wrong number of arguments for 'get' command"
    assert c.call("SET", "a") == "ERR wrong number of arguments for 'set' command"
    assert c.call("PING", "a", "b") == "ERR wrong number of arguments for 'ping' command"
    assert c.call("CONFIG", "GET") == "ERR wrong number of arguments for 'config|get' command"


def test_wrong_arity_inline(server):
    assert exchange(server, b"get\r\n")[0] == b"-ERR wrong number of arguments for 'get' command\r\n"
    assert exchange(server, b"GET a b\r\n")[0] == \
        b"-ERR wrong number of arguments for 'get' command\r\n"


# --- limits -------------------------------------------------------------------

def test_proto_max_bulk_len(server, c):
    assert c.call("CONFIG", "SET", "proto-max-bulk-len", "1mb") == "OK"
    assert c.call("CONFIG", "GET", "proto-max-bulk-len") == ["proto-max-bulk-len", "1048576"]
    assert c.call("SET", "ok", "x" * 1048576) == "OK"
    assert_protocol_error(server, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048577\r\n",
                          b"invalid bulk length")
    assert c.call("CONFIG", "SET", "proto-max-bulk-len", "1000") == (
        "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - "
        "argument must be between 1048576 and 9223372036854775807 inclusive")


def test_client_query_buffer_limit(server, c):
    assert c.call("CONFIG", "SET", "client-query-buffer-limit", "1mb") == "OK"
    big = Conn(server, timeout=5.0)
    try:
        # a 3 MB argument does not fit a 1 MB query buffer: the client is dropped
        big.send_raw(b"*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$3145728\r\n")
        try:
            big.send_raw(b"x" * 3145728 + b"\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:
            seen = big.wait_closed(3.0)
        except ConnectionResetError:
            seen = b""
        assert seen == b""
    finally:
        big.close()
    assert c.call("EXISTS", "big") == 0
    assert c.call("PING") == "PONG"
    # requests that fit are fine
    assert c.call("SET", "small", "x" * 500000) == "OK"
    assert c.call("CONFIG", "SET", "client-query-buffer-limit", "1000") == (
        "ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') - "
        "argument must be between 1048576 and 9223372036854775807 inclusive")


def test_unauthenticated_limits(server, c):
    # (requirepass is set at run time: the fixture's readiness PING needs no password)
    assert c.call("CONFIG", "SET", "requirepass", "secret") == "OK"
    # before AUTH a client may send at most 10 arguments and bulks up to 16 KB
    received, closed = exchange(server, b"*11\r\n")
    assert received == b"-ERR Protocol error: unauthenticated multibulk length\r\n"
    assert closed
    received, closed = exchange(server, b"*1\r\n$16385\r\n")
    assert received == b"-ERR Protocol error: unauthenticated bulk length\r\n"
    assert closed
    received, closed = exchange(server, b"*1\r\n$4\r\nPING\r\n", timeout=0.5)
    assert received == b"-NOAUTH Authentication required.\r\n"
    assert not closed
    conn = Conn(server)
    try:
        assert conn.call("AUTH", "secret") == "OK"
        assert conn.call("MSET", *["k%d" % i for i in range(20)]) == "OK"
        assert conn.call("SET", "big", "x" * 20000) == "OK"
    finally:
        conn.close()


@pytest.mark.parametrize("resp", [b"2", b"3"])
def test_hello_then_pipeline(server, resp):
    received, _ = exchange(server, b"HELLO " + resp + b"\r\nPING\r\n", timeout=0.5)
    assert received.endswith(b"+PONG\r\n")
    assert received.startswith(b"*14\r\n" if resp == b"2" else b"%7\r\n")


def query_buffer(r, name):
    for c in r.client_list():
        if c["name"] == name:
            return int(c["qbuf"]) + int(c["qbuf-free"]), int(c["idle"])
    return 0, 0


def test_query_buffer_shrinks_when_idle_and_after_a_big_request(server_factory):
    s = server_factory()
    r = s.client()
    idle = redis.Redis(port=r.connection_pool.connection_kwargs["port"], single_connection_client=True)
    idle.client_setname("idle_client")
    deadline = time.time() + 6
    while time.time() < deadline:
        size, secs = query_buffer(r, "idle_client")
        if secs >= 3 and size == 0:
            break
        time.sleep(0.1)
    assert query_buffer(r, "idle_client")[0] == 0

    busy = redis.Redis(port=r.connection_pool.connection_kwargs["port"], single_connection_client=True)
    busy.client_setname("busy_client")
    busy.set("x", "A" * 400000)
    big = query_buffer(r, "busy_client")[0]
    assert big > 32768
    deadline = time.time() + 2
    while time.time() < deadline:
        busy.set("x", "A" * 100)
        if query_buffer(r, "busy_client")[0] < big:
            break
        time.sleep(0.01)
    assert 0 < query_buffer(r, "busy_client")[0] < big


def test_a_new_clients_query_buffer_starts_at_16k(server_factory):
    r = server_factory().client()
    c = redis.Redis(port=r.connection_pool.connection_kwargs["port"], single_connection_client=True)
    c.client_setname("fresh")
    size = query_buffer(r, "fresh")[0]
    assert 16384 <= size < 32768
