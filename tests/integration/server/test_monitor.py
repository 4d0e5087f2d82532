"""MONITOR tests over a raw socket: the +OK, the exact line format
(`+<sec>.<usec> [<db> <ip:port>] "arg" ...`), argument escaping, AUTH/HELLO/
MIGRATE secrets redacted, which commands are not shown (admin commands,
rejected commands), and how a monitoring connection behaves itself.
Everything was checked against redis-server 7.0.15.
"""
import pytest

from resp_raw import Error
from support import LINE, Monitor


@pytest.fixture
def mon(connect):
    return Monitor(connect)


def test_monitor_replies_ok_then_shows_commands(connect, mon):
    c = connect()
    assert c.call("set", "k", "v") == "OK"
    frame = mon.conn.read_frame()
    m = LINE.match(frame)
    assert m
    assert m.group(3) == b"0"
    assert m.group(4).decode() == c.addr()
    assert m.group(5) == b'"set" "k" "v"'
    assert c.call("get", "k") == b"v"
    assert mon.line() == (0, c.addr(), b'"get" "k"')


def test_timestamps_increase(connect, mon):
    c = connect()
    stamps = []
    for i in range(5):
        c.call("incr", "n")
        frame = mon.conn.read_frame()
        m = LINE.match(frame)
        stamps.append(float(m.group(1) + b"." + m.group(2)))
    assert stamps == sorted(stamps)


def test_database_number_is_the_one_after_the_command(connect, mon):
    c = connect()
    c.call("select", "3")
    assert mon.line() == (3, c.addr(), b'"select" "3"')
    c.call("set", "a", "1")
    assert mon.line() == (3, c.addr(), b'"set" "a" "1"')
    c.call("select", "0")
    assert mon.line() == (0, c.addr(), b'"select" "0"')


def test_arguments_are_escaped(connect, mon):
    c = connect()
    c.call("set", b'bin\x00\x01\x7f\x80\xff"\\ \r\n\t\x07\x08', "v")
    assert mon.line()[2] == b'"set" "bin\\x00\\x01\\x7f\\x80\\xff\\"\\\\ \\r\\n\\t\\a\\b" "v"'
    c.call("set", "\u4e2d".encode(), "")
    assert mon.line()[2] == b'"set" "\\xe4\\xb8\\xad" ""'


def test_inline_commands_are_shown_like_multibulk(connect, mon):
    c = connect()
    c.send_raw(b"get   k\r\n")
    assert c.read() is None
    assert mon.line()[2] == b'"get" "k"'


@pytest.mark.parametrize("args,shown", [
    (("auth", "pw"), b'"auth" "(redacted)"'),
    (("auth", "user", "pw"), b'"auth" "(redacted)" "(redacted)"'),
    (("hello", "2", "auth", "u", "p"), b'"hello" "2" "auth" "(redacted)" "(redacted)"'),
    (("hello", "2"), b'"hello" "2"'),
    (("migrate", "127.0.0.1", "1", "k", "0", "1", "auth", "pw"),
     b'"migrate" "127.0.0.1" "1" "k" "0" "1" "auth" "(redacted)"'),
    (("migrate", "127.0.0.1", "1", "k", "0", "1", "auth2", "u", "pw"),
     b'"migrate" "127.0.0.1" "1" "k" "0" "1" "auth2" "(redacted)" "(redacted)"'),
])
def test_secrets_are_redacted(connect, mon, args, shown):
    c = connect()
    c.call(*args)            # it fails (no password set, nothing to migrate) but is still shown
    c.call("ping")
    assert [rest for _, _, rest in mon.lines_until(b'"ping"')] == [shown, b'"ping"']


@pytest.mark.parametrize("args", [
    ("config", "set", "maxmemory", "0"),
    ("config", "get", "maxmemory"),
    ("acl", "setuser", "bob", ">pw"),
    ("slowlog", "len"),
    ("client", "list"),
    ("client", "kill", "id", "999999"),
    ("save",),
    ("monitor",),
    ("nosuchcommand", "a"),       # unknown: refused before running
    ("get",),                     # wrong arity: refused before running
])
def test_not_shown(connect, mon, args):
    c = connect()
    c.call(*args)
    c.call("ping")
    assert [rest for _, _, rest in mon.lines_until(b'"ping"')] == [b'"ping"']


def test_shown_even_when_the_command_fails(connect, mon):
    c = connect()
    c.call("set", "s", "str")
    assert c.call("lpush", "s", "x") == Error("WRONGTYPE Operation against a key holding the wrong kind of value")
    assert [rest for _, _, rest in mon.lines_until(b'"lpush" "s" "x"')] == [b'"set" "s" "str"', b'"lpush" "s" "x"']


def test_other_commands_are_shown(connect, mon):
    c = connect()
    c.call("client", "setname", "nm")
    c.call("info", "server")
    c.call("flushdb")
    c.call("ping")
    assert [rest for _, _, rest in mon.lines_until(b'"ping"')] == [
        b'"client" "setname" "nm"', b'"info" "server"', b'"flushdb"', b'"ping"']


def test_multi_exec_shows_queued_commands_before_exec(connect, mon):
    c = connect()
    c.call("multi")
    c.call("set", "x", "1")
    c.call("incr", "x")
    c.call("exec")
    assert [rest for _, _, rest in mon.lines_until(b'"exec"')] == [
        b'"multi"', b'"set" "x" "1"', b'"incr" "x"', b'"exec"']
    c.call("multi")
    c.call("set", "x", "1")
    c.call("discard")
    assert [rest for _, _, rest in mon.lines_until(b'"discard"')] == [b'"multi"', b'"discard"']


def test_blocking_command_is_shown_when_it_blocks(connect, mon):
    c, p = connect(), connect()
    c.send("blpop", "bl", "0")
    assert mon.line() == (0, c.addr(), b'"blpop" "bl" "0"')
    p.call("rpush", "bl", "v")
    assert c.read() == [b"bl", b"v"]
    assert mon.line() == (0, p.addr(), b'"rpush" "bl" "v"')
    assert mon.conn.nothing_pending(0.1)


def test_several_monitors_see_the_same_lines(connect):
    m1, m2 = Monitor(connect), Monitor(connect)
    c = connect()
    c.call("set", "a", "1")
    assert m1.line() == m2.line() == (0, c.addr(), b'"set" "a" "1"')


def test_monitor_connection_itself(connect, mon):
    m = mon.conn
    # Its own commands are shown too.
    assert m.call_frame("ping") == b"+PONG\r\n"
    assert mon.line() == (0, m.addr(), b'"ping"')
    assert m.call_frame("ping", "x") == b"$1\r\nx\r\n"
    assert mon.line() == (0, m.addr(), b'"ping" "x"')
    # A monitor counts as a replica-like client: keyspace commands are refused.
    assert m.call_frame("get", "x") == b"-ERR Replica can't interact with the keyspace\r\n"
    # A second MONITOR is ignored without a reply.
    m.send("monitor")
    assert m.nothing_pending(0.1)
    # RESET leaves monitor mode.
    assert m.call_frame("reset") == b"+RESET\r\n"
    connect().call("set", "k", "v")
    assert m.nothing_pending(0.1)
    assert m.call_frame("get", "k") == b"$1\r\nv\r\n"


def test_quit_from_monitor(connect, mon):
    assert mon.conn.call_frame("quit") == b"+OK\r\n"
    assert mon.conn.wait_closed() == b""


def test_monitor_in_multi_is_refused(connect):
    c = connect()
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("monitor") == b"+QUEUED\r\n"
    assert c.call_frame("exec") == b"*1\r\n-ERR MONITOR isn't allowed for DENY BLOCKING client\r\n"


def test_monitor_lines_are_status_replies_in_resp3(connect):
    m = connect()
    assert isinstance(m.call("hello", "3"), dict)
    assert m.call_frame("monitor") == b"+OK\r\n"
    c = connect()
    c.call("set", "k", "v")
    frame = m.read_frame()
    mt = LINE.match(frame)
    assert mt and mt.group(5) == b'"set" "k" "v"'
