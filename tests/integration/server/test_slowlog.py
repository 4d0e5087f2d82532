"""SLOWLOG tests: GET [count] / LEN / RESET / HELP, the two settings
(slowlog-log-slower-than, slowlog-max-len) and their errors, the entry layout
(id, unix time, microseconds, argv, client address, client name), argv capped
at 32 with "... (N more arguments)", strings cut at 128 bytes with
"... (N more bytes)", secrets redacted, and what is not logged.
Every reply was checked against redis-server 7.0.15.
"""
import time

import pytest

from resp_raw import Error, Status
from support import argvs, logged

OK = Status("OK")


def test_defaults(connect):
    conn = connect()
    assert conn.call("config", "get", "slowlog-log-slower-than") == [b"slowlog-log-slower-than", b"10000"]
    assert conn.call("config", "get", "slowlog-max-len") == [b"slowlog-max-len", b"128"]
    assert conn.call("slowlog", "len") == 0
    assert conn.call("slowlog", "get") == []


def test_entry_fields(connect):
    conn = connect()
    conn.call("config", "set", "slowlog-log-slower-than", "0")
    conn.call("client", "setname", "myname")
    conn.call("set", "k", "v")
    before = time.time()
    entries = conn.call("slowlog", "get")
    # Newest first; the first id of a fresh server is 0; the SLOWLOG GET is not in its own reply.
    assert [e[0] for e in entries] == [2, 1, 0]
    assert [e[3] for e in entries] == [
        [b"set", b"k", b"v"],
        [b"client", b"setname", b"myname"],
        [b"config", b"set", b"slowlog-log-slower-than", b"0"],
    ]
    for e in entries:
        assert len(e) == 6
        assert isinstance(e[1], int) and abs(e[1] - before) < 10
        assert isinstance(e[2], int) and 0 <= e[2] < 1000000
        assert e[4] == conn.addr().encode()
    # The name is the client's name when the entry was made.
    assert [e[5] for e in entries] == [b"myname", b"myname", b""]


def test_len_and_get_count(slowlog_conn):
    for i in range(12):
        slowlog_conn.call("set", "k", str(i))
    assert slowlog_conn.call_frame("slowlog", "len") == b":13\r\n"            # reset + 12 sets
    assert len(slowlog_conn.call("slowlog", "get")) == 10                      # default count
    newest = slowlog_conn.call("slowlog", "get", "1")
    assert len(newest) == 1 and newest[0][3] == [b"slowlog", b"get"]
    assert slowlog_conn.call("slowlog", "get", "0") == []
    assert len(slowlog_conn.call("slowlog", "get", "-1")) == 17
    assert len(slowlog_conn.call("slowlog", "get", "1000")) == 18


@pytest.mark.parametrize("args,err", [
    (("slowlog", "get", "-2"), "ERR count should be greater than or equal to -1"),
    (("slowlog", "get", "x"), "ERR count should be greater than or equal to -1"),
    (("slowlog", "get", "1.5"), "ERR count should be greater than or equal to -1"),
    (("slowlog", "get", "1", "2"), "ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP."),
    (("slowlog",), "ERR wrong number of arguments for 'slowlog' command"),
    (("slowlog", "foo"), "ERR unknown subcommand 'foo'. Try SLOWLOG HELP."),
    (("slowlog", "len", "x"), "ERR wrong number of arguments for 'slowlog|len' command"),
    (("slowlog", "reset", "x"), "ERR wrong number of arguments for 'slowlog|reset' command"),
    (("config", "set", "slowlog-log-slower-than", "-5"),
     "ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - "
     "argument must be between -1 and 9223372036854775807 inclusive"),
    (("config", "set", "slowlog-log-slower-than", "abc"),
     "ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - "
     "argument couldn't be parsed into an integer"),
    (("config", "set", "slowlog-max-len", "-1"),
     "ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - "
     "argument must be between 0 and 9223372036854775807 inclusive"),
    (("config", "set", "slowlog-max-len", "abc"),
     "ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - "
     "argument couldn't be parsed into an integer"),
])
def test_errors(connect, args, err):
    assert connect().call(*args) == Error(err)


def test_help(connect):
    assert connect().call("slowlog", "help") == [
        "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        "HELP",
        "    Prints this help.",
    ]


def test_reset_empties_but_ids_continue(slowlog_conn):
    slowlog_conn.call("set", "a", "1")
    slowlog_conn.call("set", "a", "2")
    last_id = slowlog_conn.call("slowlog", "get", "1")[0][0]
    assert slowlog_conn.call("slowlog", "reset") == OK
    # The RESET itself is logged once it has run.
    entries = slowlog_conn.call("slowlog", "get")
    assert [e[3] for e in entries] == [[b"slowlog", b"reset"]]
    assert entries[0][0] == last_id + 2                        # + the SLOWLOG GET 1 in between
    assert slowlog_conn.call("slowlog", "len") == 2                         # reset + the GET above


def test_negative_threshold_disables(connect):
    conn = connect()
    assert conn.call("config", "set", "slowlog-log-slower-than", "-1") == OK
    assert conn.call("slowlog", "reset") == OK
    conn.call("set", "a", "b")
    assert conn.call("slowlog", "len") == 0
    assert conn.call("config", "get", "slowlog-log-slower-than") == [b"slowlog-log-slower-than", b"-1"]


def test_threshold_in_microseconds(connect):
    conn = connect()
    assert conn.call("config", "set", "slowlog-log-slower-than", "20000") == OK
    conn.call("slowlog", "reset")
    spin = ('local function now() local t = redis.call("time") return t[1] * 1000000 + t[2] end '
            'local s = now() while now() - s < tonumber(ARGV[1]) do end return 1')
    assert conn.call("eval", spin, "0", "30000") == 1
    assert conn.call("eval", spin, "0", "100") == 1
    conn.call("set", "fast", "1")
    entries = conn.call("slowlog", "get")
    assert len(entries) == 1
    assert entries[0][2] >= 30000
    # The script text is longer than 128 bytes, so it is cut too.
    cut = spin.encode()[:128] + b"... (%d more bytes)" % (len(spin) - 128)
    assert entries[0][3] == [b"eval", cut, b"0", b"30000"]


def test_max_len_keeps_newest(slowlog_conn):
    assert slowlog_conn.call("config", "set", "slowlog-max-len", "2") == OK
    for i in range(5):
        slowlog_conn.call("set", "a", str(i))
    assert [e[3] for e in slowlog_conn.call("slowlog", "get")] == [[b"set", b"a", b"4"], [b"set", b"a", b"3"]]
    assert slowlog_conn.call("slowlog", "len") == 2


def test_shrinking_max_len_trims_at_next_entry(slowlog_conn):
    for i in range(15):
        slowlog_conn.call("set", "a", str(i))
    assert slowlog_conn.call("slowlog", "len") == 16
    assert slowlog_conn.call("config", "set", "slowlog-max-len", "5") == OK
    assert slowlog_conn.call("slowlog", "len") == 5
    slowlog_conn.call("set", "a", "b")
    assert slowlog_conn.call("slowlog", "len") == 5


def test_max_len_zero_logs_nothing(slowlog_conn):
    assert slowlog_conn.call("config", "set", "slowlog-max-len", "0") == OK
    slowlog_conn.call("set", "a", "1")
    assert slowlog_conn.call("slowlog", "len") == 0
    assert slowlog_conn.call("slowlog", "get") == []


@pytest.mark.parametrize("nargs,tail", [
    (30, [b"27", b"28", b"29"]),                                # 32 arguments in all: kept whole
    (31, [b"27", b"28", b"... (2 more arguments)"]),
    (32, [b"27", b"28", b"... (3 more arguments)"]),
    (40, [b"27", b"28", b"... (11 more arguments)"]),
])
def test_argv_capped_at_32(slowlog_conn, nargs, tail):
    slowlog_conn.call("rpush", "l", *[str(i) for i in range(nargs)])
    argv = argvs(slowlog_conn)[0]
    assert len(argv) == 32
    assert argv[:3] == [b"rpush", b"l", b"0"]
    assert argv[-3:] == tail


@pytest.mark.parametrize("size,shown", [
    (128, b"x" * 128),
    (129, b"x" * 128 + b"... (1 more bytes)"),
    (200, b"x" * 128 + b"... (72 more bytes)"),
])
def test_long_strings_cut_at_128_bytes(slowlog_conn, size, shown):
    slowlog_conn.call("set", "big", "x" * size)
    assert argvs(slowlog_conn) == [[b"set", b"big", shown]]


def test_binary_arguments_kept(slowlog_conn):
    slowlog_conn.call("set", b"k\x00\r\n", b"\xff\x00")
    assert argvs(slowlog_conn) == [[b"set", b"k\x00\r\n", b"\xff\x00"]]


@pytest.mark.parametrize("args,shown", [
    (("auth", "pw"), [b"auth", b"(redacted)"]),
    (("auth", "u", "pw"), [b"auth", b"(redacted)", b"(redacted)"]),
    (("hello", "2", "auth", "u", "p"), [b"hello", b"2", b"auth", b"(redacted)", b"(redacted)"]),
    (("migrate", "127.0.0.1", "1", "k", "0", "1", "auth", "pw"),
     [b"migrate", b"127.0.0.1", b"1", b"k", b"0", b"1", b"auth", b"(redacted)"]),
    (("config", "set", "requirepass", ""), [b"config", b"set", b"requirepass", b"(redacted)"]),
    (("config", "set", "masterauth", "secret"), [b"config", b"set", b"masterauth", b"(redacted)"]),
    (("acl", "setuser", "bob", ">pw"), [b"acl", b"setuser", b"(redacted)", b"(redacted)"]),
])
def test_secrets_redacted(slowlog_conn, args, shown):
    slowlog_conn.call(*args)
    assert argvs(slowlog_conn) == [shown]


def test_hello_setname_is_the_entry_name(slowlog_conn):
    slowlog_conn.call("hello", "2", "setname", "zz")
    assert [(e[3], e[5]) for e in logged(slowlog_conn)] == [([b"hello", b"2", b"setname", b"zz"], b"zz")]


def test_not_logged(slowlog_conn):
    slowlog_conn.call("nosuch")                           # unknown command: refused before running
    slowlog_conn.call("get")                              # wrong arity: refused before running
    slowlog_conn.call("slowlog", "len", "x")              # wrong arity of a subcommand
    slowlog_conn.call("blpop", "nolist", "0.05")          # timed out while blocked
    slowlog_conn.call("set", "marker", "1")
    assert argvs(slowlog_conn) == [[b"set", b"marker", b"1"]]


def test_multi_logs_queued_commands_not_exec(slowlog_conn):
    slowlog_conn.call("multi")
    slowlog_conn.call("set", "x", "1")
    slowlog_conn.call("incr", "x")
    assert slowlog_conn.call("exec") == [OK, 2]
    assert argvs(slowlog_conn) == [[b"multi"], [b"set", b"x", b"1"], [b"incr", b"x"]]


def test_blocked_command_logged_when_served(slowlog_conn, connect):
    pusher = connect()
    slowlog_conn.send("blpop", "bl", "5")
    time.sleep(0.05)
    assert pusher.call("rpush", "bl", "1") == 1
    assert slowlog_conn.read() == [b"bl", b"1"]
    entries = logged(slowlog_conn)
    assert [e[3] for e in entries] == [[b"rpush", b"bl", b"1"], [b"blpop", b"bl", b"5"]]
    assert entries[0][4] == pusher.addr().encode()
    assert entries[1][4] == slowlog_conn.addr().encode()


def test_script_commands_logged_from_the_lua_client(slowlog_conn):
    slowlog_conn.call("client", "setname", "caller")
    slowlog_conn.call("eval", 'redis.call("set", "a", "b"); return 1', "0")
    entries = logged(slowlog_conn)
    assert [(e[3], e[4], e[5]) for e in entries] == [
        ([b"client", b"setname", b"caller"], slowlog_conn.addr().encode(), b"caller"),
        ([b"set", b"a", b"b"], b"?:0", b""),
        ([b"eval", b'redis.call("set", "a", "b"); return 1', b"0"], slowlog_conn.addr().encode(), b"caller"),
    ]
