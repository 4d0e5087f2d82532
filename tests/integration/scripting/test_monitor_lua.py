"""MONITOR lines for Lua scripts: the EVAL/EVALSHA/EVAL_RO line comes first,
then every command the script ran as `[<db> lua]`, in the database the script
selected; commands refused inside the script are not shown. Checked against
redis-server 7.0.15.
"""
from resp_raw import Error
from support import Monitor


def test_eval_line_then_lua_lines(connect):
    mon = Monitor(connect)
    c = connect()
    assert c.call("eval", "redis.call('set','a','1'); return redis.call('get', KEYS[1])", "1", "a") == b"1"
    c.call("ping")
    assert mon.lines_until(b'"ping"') == [
        (0, c.addr(), b'"eval" "redis.call(\'set\',\'a\',\'1\'); return redis.call(\'get\', KEYS[1])" "1" "a"'),
        (0, "lua", b'"set" "a" "1"'),
        (0, "lua", b'"get" "a"'),
        (0, c.addr(), b'"ping"'),
    ]


def test_select_inside_script_shows_in_lua_lines(connect):
    mon = Monitor(connect)
    c = connect()
    c.call("select", "3")
    c.call("eval", "redis.call('select', 5); return redis.call('ping')", "0")
    c.call("echo", "end")
    assert mon.lines_until(b'"echo" "end"') == [
        (3, c.addr(), b'"select" "3"'),
        (3, c.addr(), b'"eval" "redis.call(\'select\', 5); return redis.call(\'ping\')" "0"'),
        (5, "lua", b'"select" "5"'),
        (5, "lua", b'"ping"'),
        (3, c.addr(), b'"echo" "end"'),
    ]


def test_evalsha_and_eval_ro(connect):
    mon = Monitor(connect)
    c = connect()
    sha = c.call("script", "load", 'return redis.call("incr", KEYS[1])')
    assert sha == b"024f02195a7e52e1776d26af209f8a79d0470e0f"
    assert c.call("evalsha", sha, "1", "n") == 1
    assert c.call("eval_ro", 'return redis.call("get", KEYS[1])', "1", "n") == b"1"
    c.call("ping")
    assert [(addr == "lua", rest) for _, addr, rest in mon.lines_until(b'"ping"')] == [
        (False, b'"script" "load" "return redis.call(\\"incr\\", KEYS[1])"'),
        (False, b'"evalsha" "024f02195a7e52e1776d26af209f8a79d0470e0f" "1" "n"'),
        (True, b'"incr" "n"'),
        (False, b'"eval_ro" "return redis.call(\\"get\\", KEYS[1])" "1" "n"'),
        (True, b'"get" "n"'),
        (False, b'"ping"'),
    ]


def test_lua_arguments_are_converted_and_escaped(connect):
    mon = Monitor(connect)
    c = connect()
    c.call("eval", 'redis.call("set", "k", "\\0x"); return redis.call("set", "k", ARGV[1])', "0", b"\x00\n")
    c.call("eval", 'return redis.call("ping", 1, 2.5)', "0")
    c.call("ping")
    assert [rest for _, addr, rest in mon.lines_until(b'"ping"') if addr == "lua"] == [
        b'"set" "k" "\\x00x"', b'"set" "k" "\\x00\\n"', b'"ping" "1" "2.5"']


def test_refused_script_commands_are_not_shown(connect):
    mon = Monitor(connect)
    c = connect()
    for script in ['return redis.call("nosuch")', 'return redis.pcall("get")',
                   'return redis.call("set", "k")', 'return redis.call("config", "get", "maxmemory")']:
        assert isinstance(c.call("eval", script, "0"), Error)
    assert isinstance(c.call("eval_ro", 'return redis.call("set", "k", "v")', "0"), Error)
    c.call("ping")
    lines = mon.lines_until(b'"ping"')
    assert [addr for _, addr, _ in lines if addr == "lua"] == []
    assert len(lines) == 6


def test_eval_inside_multi(connect):
    mon = Monitor(connect)
    c = connect()
    c.call("multi")
    c.call("eval", 'return redis.call("set", "a", "b")', "0")
    assert c.call("exec") == ["OK"]
    assert [(addr == "lua", rest) for _, addr, rest in mon.lines_until(b'"exec"')] == [
        (False, b'"multi"'),
        (False, b'"eval" "return redis.call(\\"set\\", \\"a\\", \\"b\\")" "0"'),
        (True, b'"set" "a" "b"'),
        (False, b'"exec"'),
    ]
