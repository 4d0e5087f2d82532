"""Lua scripting tests: EVAL/EVALSHA/EVAL_RO/EVALSHA_RO, the SCRIPT
subcommands, the redis.* API, conversions between Lua and RESP (both ways,
RESP2 and RESP3), the sandbox, errors and their "script: <sha>, on
@user_script:<line>." suffixes, commands refused inside scripts, read-only
scripts, busy scripts with SCRIPT KILL / UNKILLABLE / SHUTDOWN NOSAVE, and
scripts racing with WATCH. Every frame and text was checked against
redis-server 7.0.15 (Lua 5.1 with cjson, bit, cmsgpack and struct).
"""
import hashlib
import time

import pytest

from resp_raw import Error, RawClient, Status
from support import wait_for

OK = Status("OK")
BUSY = b"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"


def sha1(text):
    return hashlib.sha1(text.encode()).hexdigest()


def script_error(message, script, line=1):
    """The error frame of a script that failed with `message` (raised by redis.call/error())."""
    return ("-%s script: %s, on @user_script:%d.\r\n" % (message, sha1(script), line)).encode()


@pytest.fixture
def c(shared_connect):
    """A connection to the module's shared server, emptied first. The many table
    tests use it to stay fast; tests that need a pristine server or change
    settings use `connect` (a server of their own) instead."""
    return shared_connect()


def ev(c, script, *args):
    """EVAL with no keys unless given; returns the exact frame."""
    return c.call_frame("eval", script, *(args or ("0",)))


# --- EVAL, KEYS and ARGV ----------------------------------------------------------------------

def test_keys_and_argv(c):
    assert ev(c, "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2]}", "2", "a", "b", "c", "d") == \
        b"*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"
    assert ev(c, "return #KEYS + #ARGV * 10", "1", "a", "b", "c") == b":21\r\n"
    assert ev(c, "return ARGV", "0", "a", "b") == b"*2\r\n$1\r\na\r\n$1\r\nb\r\n"
    assert ev(c, "return KEYS", "2", "a", "b") == b"*2\r\n$1\r\na\r\n$1\r\nb\r\n"
    assert ev(c, "return #ARGV", "2", "a", "b") == b":0\r\n"
    assert ev(c, "return {tostring(KEYS[1]), type(ARGV[1])}", "1", "5", "6") == b"*2\r\n$1\r\n5\r\n$6\r\nstring\r\n"
    assert ev(c, "return redis.call('set', KEYS[1], ARGV[1])", "1", "k", "v") == b"+OK\r\n"
    assert c.call_frame("get", "k") == b"$1\r\nv\r\n"


def test_empty_script_returns_nil(c):
    assert ev(c, "") == b"$-1\r\n"


@pytest.mark.parametrize("args,frame", [
    (("eval", "return 1"), b"-ERR wrong number of arguments for 'eval' command\r\n"),
    (("eval", "return 1", "1"), b"-ERR Number of keys can't be greater than number of args\r\n"),
    (("eval", "return 1", "-1"), b"-ERR Number of keys can't be negative\r\n"),
    (("eval", "return 1", "x"), b"-ERR value is not an integer or out of range\r\n"),
    (("evalsha", "ffffffffffffffffffffffffffffffffffffffff"), b"-ERR wrong number of arguments for 'evalsha' command\r\n"),
    (("eval_ro", "return 1"), b"-ERR wrong number of arguments for 'eval_ro' command\r\n"),
    (("eval", "return 1 +", "0"),
     b"-ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\r\n"),
])
def test_eval_argument_errors(c, args, frame):
    assert c.call_frame(*args) == frame


# --- EVALSHA and the script cache --------------------------------------------------------------

def test_evalsha_after_eval_and_load(c):
    assert ev(c, "return 1") == b":1\r\n"
    assert c.call_frame("evalsha", sha1("return 1"), "0") == b":1\r\n"
    assert c.call_frame("evalsha", sha1("return 1").upper(), "0") == b":1\r\n"
    assert c.call_frame("script", "load", "return 2") == b"$40\r\n7f923f79fe76194c868d7e1d0820de36700eb649\r\n"
    assert c.call_frame("evalsha", "7f923f79fe76194c868d7e1d0820de36700eb649", "0") == b":2\r\n"
    assert c.call("evalsha", sha1("return 1"), "x") == Error("ERR value is not an integer or out of range")


@pytest.mark.parametrize("sha", ["ffffffffffffffffffffffffffffffffffffffff", "short", ""])
def test_noscript(c, sha):
    assert c.call_frame("evalsha", sha, "0") == b"-NOSCRIPT No matching script. Please use EVAL.\r\n"
    assert c.call_frame("evalsha_ro", sha, "0") == b"-NOSCRIPT No matching script. Please use EVAL.\r\n"


def test_script_exists(c):
    sha = c.call("script", "load", "return 1").decode()
    ev(c, "return 5")
    assert c.call_frame("script", "exists", sha, sha1("return 5"), "ffff", sha.upper()) == \
        b"*4\r\n:1\r\n:1\r\n:0\r\n:1\r\n"
    assert c.call("script", "exists") == Error("ERR wrong number of arguments for 'script|exists' command")


@pytest.mark.parametrize("mode", [(), ("async",), ("sync",), ("ASYNC",), ("SYNC",)])
def test_script_flush(c, mode):
    sha = c.call("script", "load", "return 1")
    assert c.call_frame("script", "flush", *mode) == b"+OK\r\n"
    assert c.call_frame("script", "exists", sha) == b"*1\r\n:0\r\n"
    assert c.call_frame("evalsha", sha, "0") == b"-NOSCRIPT No matching script. Please use EVAL.\r\n"


@pytest.mark.parametrize("args,frame", [
    (("script", "flush", "bad"), b"-ERR SCRIPT FLUSH only support SYNC|ASYNC option\r\n"),
    (("script", "flush", "sync", "x"), b"-ERR SCRIPT FLUSH only support SYNC|ASYNC option\r\n"),
    (("script", "load"), b"-ERR wrong number of arguments for 'script|load' command\r\n"),
    (("script", "load", "return +"),
     b"-ERR Error compiling script (new function): user_script:1: unexpected symbol near '+'\r\n"),
    (("script", "kill"), b"-NOTBUSY No scripts in execution right now.\r\n"),
    (("script", "foo"), b"-ERR unknown subcommand 'foo'. Try SCRIPT HELP.\r\n"),
    (("script",), b"-ERR wrong number of arguments for 'script' command\r\n"),
])
def test_script_errors(c, args, frame):
    assert c.call_frame(*args) == frame


def test_script_help(c):
    assert c.call("script", "help") == [
        "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "HELP",
        "    Prints this help.",
    ]


# --- read-only scripts ---------------------------------------------------------------------------

def test_eval_ro(c):
    c.call("set", "a", "1")
    assert c.call_frame("eval_ro", "return redis.call('get', KEYS[1])", "1", "a") == b"$1\r\n1\r\n"
    script = "return redis.call('set','a','b')"
    assert c.call_frame("eval_ro", script, "0") == script_error(
        "ERR Write commands are not allowed from read-only scripts.", script)
    assert c.call_frame("get", "a") == b"$1\r\n1\r\n"
    # PUBLISH counts as a write here.
    script = "return redis.call('publish','ch','m')"
    assert c.call_frame("eval_ro", script, "0") == script_error(
        "ERR Write commands are not allowed from read-only scripts.", script)
    # pcall gets the error as a table, without the script suffix.
    assert c.call_frame("eval_ro", "return redis.pcall('set','a','b')", "0") == \
        b"-ERR Write commands are not allowed from read-only scripts.\r\n"
    assert c.call_frame("eval_ro", "local r = redis.pcall('set','a','b') return r.err", "0") == \
        b"$58\r\nERR Write commands are not allowed from read-only scripts.\r\n"


def test_evalsha_ro(c):
    c.call("set", "a", "1")
    ro = c.call("script", "load", "return redis.call('get', KEYS[1])")
    rw = c.call("script", "load", "return redis.call('set', KEYS[1], 'x')")
    assert c.call_frame("evalsha_ro", ro, "1", "a") == b"$1\r\n1\r\n"
    assert c.call_frame("evalsha_ro", rw, "1", "a") == script_error(
        "ERR Write commands are not allowed from read-only scripts.", "return redis.call('set', KEYS[1], 'x')")
    assert c.call_frame("evalsha", rw, "1", "a") == b"+OK\r\n"


def test_shebang_flags(c):
    c.call("set", "a", "b")
    script = "#!lua flags=no-writes\nreturn redis.call('set','a','b')"
    assert ev(c, script) == script_error("ERR Write commands are not allowed from read-only scripts.", script, 2)
    assert ev(c, "#!lua flags=no-writes\nreturn redis.call('get','a')") == b"$1\r\nb\r\n"
    assert ev(c, "#!lua\nreturn 1") == b":1\r\n"
    assert ev(c, "#!lua flags=allow-oom,no-cluster\nreturn 1") == b":1\r\n"
    assert ev(c, "#!lua flags=bad\nreturn 1") == b"-ERR Unexpected flag in script shebang: bad\r\n"
    assert ev(c, "#!lua name=x\nreturn 1") == b"-ERR Unknown lua shebang option: name=x\r\n"
    assert ev(c, "#!python\nreturn 1") == b"-ERR Unexpected engine in script shebang: #!python\r\n"
    # A shebang with no line after it, and one sdssplitargs cannot split.
    assert ev(c, "#!lua") == b"-ERR Invalid script shebang\r\n"
    assert ev(c, "#!lua flags=no-writes return 1") == b"-ERR Invalid script shebang\r\n"
    assert ev(c, '#!lua "abc\nreturn 1') == b"-ERR Invalid engine in script shebang\r\n"
    assert ev(c, "#!\nreturn 1") == b"-ERR Unexpected engine in script shebang: #!\r\n"


def test_cached_scripts_keep_their_shebang_flags(server):
    # A cached script's flags come from its cache entry (EVALSHA, and EVAL
    # of a body already loaded); after SCRIPT FLUSH the body is parsed anew.
    c = RawClient(server.port)
    reader = "#!lua flags=no-writes\nreturn redis.call('get','a')"
    writer = "#!lua\nreturn 1"
    oom_ok = "#!lua flags=allow-oom\nreturn 2"
    shas = [c.call("script", "load", body) for body in (reader, writer, oom_ok)]
    c.call("set", "a", "b")
    c.call("config", "set", "maxmemory", "1")
    oom = b"-OOM command not allowed when used memory > 'maxmemory'.\r\n"
    for _ in range(2):
        assert c.call_frame("evalsha", shas[0], "0") == b"$1\r\nb\r\n"
        assert c.call_frame("evalsha_ro", shas[0], "0") == b"$1\r\nb\r\n"
        assert c.call_frame("evalsha", shas[1], "0") == oom
        assert c.call_frame("evalsha", shas[2], "0") == b":2\r\n"
        assert c.call_frame("eval", reader, "0") == b"$1\r\nb\r\n"
        assert c.call_frame("eval", writer, "0") == oom
        assert c.call_frame("evalsha_ro", shas[1], "0") == oom  # the flags say write: OOM comes first
        c.call("config", "set", "maxmemory", "0")
        assert c.call_frame("evalsha_ro", shas[1], "0") == \
            b"-ERR Can not execute a script with write flag using *_ro command.\r\n"
        c.call("config", "set", "maxmemory", "1")
        c.call("script", "flush")
        shas = [c.call("script", "load", body) for body in (reader, writer, oom_ok)]
    c.close()


# --- Lua -> RESP conversion ------------------------------------------------------------------------

@pytest.mark.parametrize("script,frame", [
    ("return 3.99", b":3\r\n"),                          # numbers become integers, truncated
    ("return -3.99", b":-3\r\n"),
    ("return 0.5", b":0\r\n"),
    ("return 2^53", b":9007199254740992\r\n"),
    ("return {1.9, -1.9}", b"*2\r\n:1\r\n:-1\r\n"),
    ("return 'str'", b"$3\r\nstr\r\n"),
    ("return 'a\\0b'", b"$3\r\na\x00b\r\n"),
    ("return tostring(0.1)", b"$3\r\n0.1\r\n"),
    ("return tostring(1/3)", b"$16\r\n0.33333333333333\r\n"),
    ("return true", b":1\r\n"),
    ("return false", b"$-1\r\n"),
    ("return nil", b"$-1\r\n"),
    ("return {1, 2, 3, nil, 5}", b"*3\r\n:1\r\n:2\r\n:3\r\n"),      # stops at the first nil
    ("return {1, nil, 2}", b"*1\r\n:1\r\n"),
    ("return {1, false, 3}", b"*3\r\n:1\r\n$-1\r\n:3\r\n"),
    ("return {1, true, 3}", b"*3\r\n:1\r\n:1\r\n:3\r\n"),
    ("return {1, {2, {3, 'x'}}, true, false}", b"*4\r\n:1\r\n*2\r\n:2\r\n*2\r\n:3\r\n$1\r\nx\r\n:1\r\n$-1\r\n"),
    ("return {}", b"*0\r\n"),
    ("return {a=1, b=2}", b"*0\r\n"),                    # only the array part counts
    ("return {x=1, 5}", b"*1\r\n:5\r\n"),
    ("return {ok='fine'}", b"+fine\r\n"),
    ("return {err='bad thing'}", b"-bad thing\r\n"),
    ("return {err='ERR bad thing'}", b"-ERR bad thing\r\n"),
    ("return {ok='a', err='b'}", b"-b\r\n"),              # err wins
    ("return {'a', {err='inner'}}", b"*2\r\n$1\r\na\r\n-inner\r\n"),
    ("return {'a', {ok='inner'}}", b"*2\r\n$1\r\na\r\n+inner\r\n"),
    ("return redis.status_reply('FINE')", b"+FINE\r\n"),
    ("return redis.error_reply('My Error')", b"-My Error\r\n"),
    ("return redis.error_reply('ERR My Error')", b"-ERR My Error\r\n"),
    ("return redis.error_reply()", b"-ERR wrong number or type of arguments\r\n"),
    ("return redis.status_reply()", b"-ERR wrong number or type of arguments\r\n"),
    ("return redis.error_reply(1)", b"-ERR wrong number or type of arguments\r\n"),
    ("return {double=3.14}", b"$18\r\n3.1400000000000001\r\n"),     # RESP3 types, shown in RESP2
    ("return {map={a=1}}", b"*2\r\n$1\r\na\r\n:1\r\n"),
    ("return {set={a=true}}", b"*1\r\n$1\r\na\r\n"),
    ("return {big_number='12345678901234567890'}", b"$20\r\n12345678901234567890\r\n"),
])
def test_lua_to_resp2(c, script, frame):
    assert ev(c, script) == frame


@pytest.mark.parametrize("script,frame", [
    ("return {map={a=1}}", b"%1\r\n$1\r\na\r\n:1\r\n"),
    ("return {set={a=true}}", b"~1\r\n$1\r\na\r\n"),
    ("return {double=3.14}", b",3.1400000000000001\r\n"),
    ("return {big_number='12345678901234567890'}", b"(12345678901234567890\r\n"),
    ("return true", b":1\r\n"),
    ("return false", b"_\r\n"),
    ("return nil", b"_\r\n"),
    ("return {1, true, false}", b"*3\r\n:1\r\n:1\r\n_\r\n"),
    ("redis.setresp(3); return redis.call('hgetall', 'h')", b"%1\r\n$1\r\nf\r\n$1\r\nv\r\n"),
    ("redis.setresp(3); return redis.call('smembers', 's')", b"~1\r\n$1\r\nm\r\n"),
    ("redis.setresp(3); return redis.call('zscore', 'z', 'm')", b",1.5\r\n"),
    ("redis.setresp(3); return redis.call('get', 'nokey')", b"_\r\n"),
    ("redis.setresp(2); return redis.call('zscore', 'z', 'm')", b"$3\r\n1.5\r\n"),
])
def test_lua_to_resp3(c, script, frame):
    c.call("hset", "h", "f", "v")
    c.call("sadd", "s", "m")
    c.call("zadd", "z", "1.5", "m")
    assert isinstance(c.call("hello", "3"), dict)
    assert ev(c, script) == frame


# --- RESP -> Lua conversion ------------------------------------------------------------------------

@pytest.mark.parametrize("script,frame", [
    ("return type(redis.call('get', 'str'))", b"$6\r\nstring\r\n"),
    ("return type(redis.call('get', 'nokey'))", b"$7\r\nboolean\r\n"),         # nil -> false
    ("return tostring(redis.call('get', 'nokey'))", b"$5\r\nfalse\r\n"),
    ("return type(redis.call('incr', 'n'))", b"$6\r\nnumber\r\n"),
    ("return redis.call('incr', 'n') + 0.5", b":5\r\n"),          # 5.5 truncated
    ("return type(redis.call('lrange', 'list', 0, -1))", b"$5\r\ntable\r\n"),
    ("return #redis.call('lrange', 'list', 0, -1)", b":2\r\n"),
    ("local t = redis.call('lrange', 'list', 0, -1); return t[1] .. t[2]", b"$2\r\nab\r\n"),
    ("local r = redis.call('set', 'x', 'y'); return type(r) .. ':' .. r.ok", b"$8\r\ntable:OK\r\n"),
    ("local r = redis.pcall('lpush', 'str', 'x'); return type(r) .. ':' .. r.err",
     b"$71\r\ntable:WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
    ("return redis.call('mget', 'str', 'nokey')", b"*2\r\n$5\r\nhello\r\n$-1\r\n"),
    ("return #redis.call('mget', 'nokey', 'str')", b":2\r\n"),
    ("return cjson.encode(redis.call('mget', 'nokey'))", b"$7\r\n[false]\r\n"),
    ("return redis.call('hgetall', 'nokey')", b"*0\r\n"),
    ("return {redis.call('exists', 'str'), redis.call('exists', 'nokey')}", b"*2\r\n:1\r\n:0\r\n"),
    ("return redis.call('ping')", b"+PONG\r\n"),
    ("return redis.call('PING')", b"+PONG\r\n"),
    ("return redis.call('echo', 'x')", b"$1\r\nx\r\n"),
    ("redis.setresp(3); local r = redis.call('hgetall', 'h'); return type(r.map) .. r.map.f", b"$6\r\ntablev\r\n"),
    ("redis.setresp(3); local r = redis.call('smembers', 's'); return tostring(r.set.m)", b"$4\r\ntrue\r\n"),
    ("redis.setresp(3); local r = redis.call('zscore', 'z', 'm'); return type(r) .. tostring(r.double)",
     b"$8\r\ntable1.5\r\n"),
    ("redis.setresp(3); return tostring(redis.call('get', 'nokey'))", b"$3\r\nnil\r\n"),   # RESP3 null -> nil
])
def test_resp_to_lua(c, script, frame):
    c.call("set", "str", "hello")
    c.call("rpush", "list", "a", "b")
    c.call("set", "n", "4")
    c.call("hset", "h", "f", "v")
    c.call("sadd", "s", "m")
    c.call("zadd", "z", "1.5", "m")
    assert ev(c, script) == frame


def test_lua_arguments_to_commands(c):
    assert ev(c, "return redis.call('set', 'n', 5)") == b"+OK\r\n"
    assert c.call_frame("get", "n") == b"$1\r\n5\r\n"
    assert ev(c, "return redis.call('incrbyfloat', 'n', 0.5)") == b"$3\r\n5.5\r\n"
    assert ev(c, "return redis.call('set', 'k', 3.7)") == b"+OK\r\n"
    assert c.call_frame("get", "k") == b"$18\r\n3.7000000000000002\r\n"
    for script in ["return redis.call('get', {})", "return redis.call('get', nil)",
                   "return redis.call('set', 'k', true)"]:
        assert ev(c, script) == script_error("ERR Lua redis lib command arguments must be strings or integers", script)
    script = "return redis.call()"
    assert ev(c, script) == script_error("ERR Please specify at least one argument for this redis lib call", script)
    assert ev(c, "return redis.pcall()") == b"-ERR Please specify at least one argument for this redis lib call\r\n"


# --- errors --------------------------------------------------------------------------------------

def test_call_errors_carry_the_script_suffix_pcall_errors_do_not(c):
    c.call("set", "str", "x")
    script = "return redis.call('lpush', 'str', 'x')"
    assert ev(c, script) == script_error("WRONGTYPE Operation against a key holding the wrong kind of value", script)
    assert ev(c, "return redis.pcall('lpush', 'str', 'x')") == \
        b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
    script = "return redis.call('nosuch')"
    assert ev(c, script) == script_error("ERR Unknown Redis command called from script", script)
    assert ev(c, "local r = redis.pcall('nosuch'); return r.err") == \
        b"$44\r\nERR Unknown Redis command called from script\r\n"
    script = "return redis.call('get')"
    assert ev(c, script) == script_error("ERR Wrong number of args calling Redis command from script", script)
    assert ev(c, "local r = redis.pcall('get'); return r.err") == \
        b"$58\r\nERR Wrong number of args calling Redis command from script\r\n"
    script = "local x = 1\nreturn redis.call('nosuch')"
    assert ev(c, script) == script_error("ERR Unknown Redis command called from script", script, 2)


@pytest.mark.parametrize("script,message,line", [
    ("error('boom')", "ERR user_script:1: boom", 1),
    ("error('boom', 0)", "ERR boom", 1),
    ("error()", "ERR nil", 1),
    ("error({err='custom'})", "custom", 1),
    ("\n\nerror('line3')", "ERR user_script:3: line3", 3),
    ("return nosuchvar", "ERR user_script:1: Script attempted to access nonexistent global variable 'nosuchvar'", 1),
    ("local x = nosuchvar return 1",
     "ERR user_script:1: Script attempted to access nonexistent global variable 'nosuchvar'", 1),
    ("return redis.call('select', 100)", "ERR DB index is out of range", 1),
    ("return cjson.decode('{bad')",
     "ERR user_script:1: Expected object key string but found invalid token at character 2", 1),
])
def test_script_errors_text(c, script, message, line):
    assert ev(c, script) == script_error(message, script, line)


def test_lua_pcall_of_redis_call(c):
    c.call("set", "a", "x")
    assert ev(c, "local ok, err = pcall(redis.call, 'nosuch') return {tostring(ok), type(err), err}") == \
        b"*3\r\n$5\r\nfalse\r\n$6\r\nstring\r\n$44\r\nERR Unknown Redis command called from script\r\n"
    assert ev(c, "local ok, err = pcall(redis.call, 'lpush', 'a', 'x') return err") == \
        b"$65\r\nWRONGTYPE Operation against a key holding the wrong kind of value\r\n"
    assert ev(c, "local ok, err = pcall(function() error('x') end) return {tostring(ok), err}") == \
        b"*2\r\n$5\r\nfalse\r\n$16\r\nuser_script:1: x\r\n"


@pytest.mark.parametrize("call", [
    "'multi'", "'exec'", "'subscribe', 'x'", "'watch', 'x'", "'eval', 'return 1', '0'",
    "'script', 'load', 'return 1'", "'blpop', 'nolist', '0'", "'brpoplpush', 'nolist', 'x', '0'",
    "'config', 'get', 'maxmemory'", "'monitor'", "'auth', 'x'", "'save'", "'client', 'list'",
    "'shutdown'", "'hello'",
])
def test_commands_not_allowed_from_scripts(c, call):
    script = "return redis.call(%s)" % call
    assert ev(c, script) == script_error("ERR This Redis command is not allowed from script", script)
    assert ev(c, "return redis.pcall(%s)" % call) == b"-ERR This Redis command is not allowed from script\r\n"


def test_allowed_from_scripts(c):
    assert ev(c, "return redis.call('time')[1] ~= nil") == b":1\r\n"
    # Non-deterministic commands may be followed by writes (effects replication).
    assert ev(c, "redis.call('time') return redis.call('set', 'a', 'b')") == b"+OK\r\n"
    assert ev(c, "return redis.call('randomkey')") == b"$1\r\na\r\n"
    assert ev(c, "return redis.call('publish', 'ch', 'm')") == b":0\r\n"
    assert ev(c, "return redis.call('flushall')") == b"+OK\r\n"


def test_select_inside_script_is_local_to_it(c):
    assert ev(c, "redis.call('select', 2); return redis.call('set', 'k', 'in2')") == b"+OK\r\n"
    assert c.call_frame("get", "k") == b"$-1\r\n"
    c.call("select", "2")
    assert c.call_frame("get", "k") == b"$3\r\nin2\r\n"


# --- the redis.* API -------------------------------------------------------------------------------

@pytest.mark.parametrize("script,frame", [
    ("return redis.sha1hex('')", b"$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n"),
    ("return redis.sha1hex('abc')", b"$40\r\na9993e364706816aba3e25717850c26c9cd0d89d\r\n"),
    ("return redis.sha1hex(123)", b"$40\r\n40bd001563085fc35165329ea1ff5c5ecbdbbeef\r\n"),
    ("return {redis.REPL_ALL, redis.REPL_AOF, redis.REPL_REPLICA, redis.REPL_SLAVE, redis.REPL_NONE}",
     b"*5\r\n:3\r\n:1\r\n:2\r\n:2\r\n:0\r\n"),
    ("return redis.set_repl(redis.REPL_ALL)", b"$-1\r\n"),
    ("redis.set_repl(redis.REPL_NONE) return redis.call('set', 'k', 'v')", b"+OK\r\n"),
    ("return redis.replicate_commands()", b":1\r\n"),
    ("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}",
     b"*4\r\n:0\r\n:1\r\n:2\r\n:3\r\n"),
    ("return redis.log(redis.LOG_DEBUG, 'quiet')", b"$-1\r\n"),
    ("return redis.setresp(2)", b"$-1\r\n"),
    ("return redis.setresp(3)", b"$-1\r\n"),
])
def test_redis_api(c, script, frame):
    assert ev(c, script) == frame


@pytest.mark.parametrize("script,message", [
    ("return redis.sha1hex()", "ERR wrong number of arguments"),
    ("return redis.set_repl(42)", "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."),
    ("return redis.set_repl()", "ERR redis.set_repl() requires two arguments."),
    ("return redis.log(99, 'x')", "ERR Invalid debug level."),
    ("return redis.log(redis.LOG_WARNING)", "ERR redis.log() requires two arguments or more."),
    ("return redis.setresp(4)", "ERR RESP version must be 2 or 3."),
    ("return redis.setresp()", "ERR redis.setresp() requires one argument."),
])
def test_redis_api_errors(c, script, message):
    assert ev(c, script) == script_error(message, script)


def test_redis_log_writes_to_the_server_log(server, connect):
    c = connect()
    assert ev(c, "return redis.log(redis.LOG_WARNING, 'hello from lua', 42)") == b"$-1\r\n"
    wait_for(lambda: "hello from lua 42" in server.log(), timeout=2)
    assert "hello from lua 42" in server.log()


# --- sandbox ------------------------------------------------------------------------------------

@pytest.mark.parametrize("script", [
    "a = 5", "x = nil", "function f() end", "_G.x = 1", "redis = nil", "redis.call = nil",
    "cjson.encode = nil", "string.foo = 1", "table.sort = nil",
])
def test_globals_and_libraries_are_read_only(c, script):
    assert ev(c, script) == script_error("ERR user_script:1: Attempt to modify a readonly table", script)


def test_rawset_and_setmetatable_on_globals_refused(c):
    for script in ["rawset(_G, 'x', 1) return 1", "setmetatable(_G, nil) return 1"]:
        assert ev(c, script) == script_error("ERR Attempt to modify a readonly table", script)


def test_locals_are_fine(c):
    assert ev(c, "local a = 5 return a") == b":5\r\n"
    assert ev(c, "local function f() return 1 end return f()") == b":1\r\n"
    # A failed global assignment in one script leaves nothing behind.
    ev(c, "a = 5")
    script = "return a"
    assert ev(c, script) == script_error(
        "ERR user_script:1: Script attempted to access nonexistent global variable 'a'", script)


@pytest.mark.parametrize("name,script", [
    ("os", "return os.execute('ls')"),
    ("os", "return os"),
    ("io", "return io.open('/etc/passwd')"),
    ("loadfile", "return loadfile('/etc/passwd')"),
    ("dofile", "return dofile('/etc/passwd')"),
    ("require", "return require('os')"),
    ("getfenv", "return getfenv"),
    ("setfenv", "return setfenv"),
    ("print", "return print"),
    ("newproxy", "return newproxy"),
    ("module", "return module"),
    ("debug", "return type(debug)"),
    ("package", "return type(package)"),
])
def test_dangerous_functions_are_absent(c, name, script):
    assert ev(c, script) == script_error(
        "ERR user_script:1: Script attempted to access nonexistent global variable '%s'" % name, script)


@pytest.mark.parametrize("script,frame", [
    ("return type(string.format)", b"$8\r\nfunction\r\n"),
    ("return type(table.concat)", b"$8\r\nfunction\r\n"),
    ("return type(math.random)", b"$8\r\nfunction\r\n"),
    ("return type(cjson)", b"$5\r\ntable\r\n"),
    ("return type(bit)", b"$5\r\ntable\r\n"),
    ("return type(cmsgpack)", b"$5\r\ntable\r\n"),
    ("return type(struct)", b"$5\r\ntable\r\n"),
    ("return coroutine ~= nil", b":1\r\n"),
    ("return _VERSION", b"$7\r\nLua 5.1\r\n"),
    ("return string.format('%d-%s', 5, 'x')", b"$3\r\n5-x\r\n"),
    ("return table.concat({'a', 'b'}, ',')", b"$3\r\na,b\r\n"),
    ("return string.rep('ab', 3)", b"$6\r\nababab\r\n"),
    ("return cjson.encode({1, 2, {a=1}})", b"$13\r\n[1,2,{\"a\":1}]\r\n"),
    ("return cjson.decode('[1,2,3]')[3]", b":3\r\n"),
    ("return cjson.decode('{\"a\":[1,true]}').a[2]", b":1\r\n"),
    ("return cjson.encode(cjson.decode('{\"a\":\"b\"}'))", b"$9\r\n{\"a\":\"b\"}\r\n"),
    ("return cjson.encode({a=cjson.null})", b"$10\r\n{\"a\":null}\r\n"),
    ("return cjson.decode('null') == cjson.null", b":1\r\n"),
    ("return cjson.encode({})", b"$2\r\n{}\r\n"),
    ("return bit.band(12, 10)", b":8\r\n"),
    ("return bit.bor(12, 10)", b":14\r\n"),
    ("return bit.bxor(12, 10)", b":6\r\n"),
    ("return bit.lshift(1, 10)", b":1024\r\n"),
    ("return bit.tohex(255)", b"$8\r\n000000ff\r\n"),
    ("return bit.bnot(0)", b":-1\r\n"),
    ("return cmsgpack.unpack(cmsgpack.pack({1, 2, 3}))", b"*3\r\n:1\r\n:2\r\n:3\r\n"),
    ("return #cmsgpack.pack({1, 2, 3})", b":4\r\n"),
    ("return struct.pack('>I2', 258)", b"$2\r\n\x01\x02\r\n"),
    ("return struct.unpack('>I2', '\\1\\2')", b":258\r\n"),
])
def test_available_libraries(c, script, frame):
    assert ev(c, script) == frame


def test_math_random_is_deterministic(connect):
    c = connect()
    # The generator starts from the same state in every fresh server...
    assert ev(c, "return {math.random(100), math.random(100), math.random(100), tostring(math.random())}") == \
        b"*4\r\n:40\r\n:85\r\n:36\r\n$16\r\n0.44658343468168\r\n"
    # ... and math.randomseed gives a repeatable sequence.
    seeded = "math.randomseed(7) return {math.random(1000), math.random(1000), math.random(5, 10)}"
    assert ev(c, seeded) == b"*3\r\n:267\r\n:683\r\n:6\r\n"
    assert ev(c, seeded) == b"*3\r\n:267\r\n:683\r\n:6\r\n"
    # The state carries over from one script to the next.
    assert ev(c, "math.randomseed(7) return math.random(1000)") == b":267\r\n"
    assert ev(c, "return math.random(1000)") == b":683\r\n"


# --- busy scripts, SCRIPT KILL, UNKILLABLE -----------------------------------------------------------

SPIN_US = ('local function now() local t = redis.call("time") return t[1] * 1000000 + t[2] end '
           'local s = now() while now() - s < tonumber(ARGV[1]) do end return "done"')


def test_short_script_makes_others_wait(connect):
    a, b = connect(), connect()
    a.send("eval", SPIN_US, "0", "300000")
    time.sleep(0.05)
    t = time.time()
    assert b.call_frame("ping") == b"+PONG\r\n"          # queued until the script ends
    assert time.time() - t > 0.1
    assert a.read_frame() == b"$4\r\ndone\r\n"


def test_lua_time_limit_is_an_alias(connect):
    c = connect()
    assert c.call("config", "get", "busy-reply-threshold") == [b"busy-reply-threshold", b"5000"]
    assert c.call("config", "set", "lua-time-limit", "123") == OK
    assert c.call("config", "get", "busy-reply-threshold") == [b"busy-reply-threshold", b"123"]
    assert c.call("config", "get", "lua-time-limit") == [b"lua-time-limit", b"123"]


def test_busy_script_and_script_kill(connect):
    a, b = connect(), connect()
    assert b.call("config", "set", "busy-reply-threshold", "100") == OK
    script = "local i = 0 while true do i = i + 1 end"
    a.send("eval", script, "0")
    time.sleep(0.2)
    for args in [("ping",), ("get", "x"), ("eval", "return 1", "0"), ("client", "list"),
                 ("config", "get", "maxmemory"), ("script", "load", "return 1"), ("select", "1")]:
        assert b.call_frame(*args) == BUSY, args
    assert b.call_frame("script", "kill") == b"+OK\r\n"
    assert a.read_frame() == script_error("ERR Script killed by user with SCRIPT KILL...", script)
    assert b.call_frame("ping") == b"+PONG\r\n"
    assert a.call_frame("ping") == b"+PONG\r\n"
    assert b.call_frame("script", "kill") == b"-NOTBUSY No scripts in execution right now.\r\n"


def test_script_kill_of_a_read_only_script(connect):
    a, b = connect(), connect()
    b.call("config", "set", "busy-reply-threshold", "100")
    b.call("set", "k", "v")
    script = "while true do redis.call('get', KEYS[1]) end"
    a.send("eval_ro", script, "1", "k")
    time.sleep(0.2)
    assert b.call_frame("script", "kill") == b"+OK\r\n"
    assert a.read_frame() == script_error("ERR Script killed by user with SCRIPT KILL...", script)


def test_script_that_wrote_is_unkillable(connect):
    a, b = connect(), connect()
    b.call("config", "set", "busy-reply-threshold", "100")
    a.send("eval", "redis.call('set', 'w', '1') " + SPIN_US, "0", "600000")
    time.sleep(0.25)
    assert b.call_frame("script", "kill") == (
        b"-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either "
        b"wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n")
    assert b.call_frame("ping") == BUSY
    # It runs to its end.
    assert a.read_frame() == b"$4\r\ndone\r\n"
    assert b.call_frame("get", "w") == b"$1\r\n1\r\n"


def test_shutdown_nosave_stops_an_unkillable_script(server, connect):
    a, b = connect(), connect()
    b.call("config", "set", "busy-reply-threshold", "100")
    a.send("eval", "redis.call('set', 'w', '1') while true do end", "0")
    time.sleep(0.25)
    b.send("shutdown", "nosave")
    server.proc.wait(timeout=10)
    assert b.wait_closed() == b""


# --- scripts and transactions --------------------------------------------------------------------

def test_eval_inside_multi(c):
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("eval", "return redis.call('incr', KEYS[1])", "1", "n") == b"+QUEUED\r\n"
    assert c.call_frame("eval", "return redis.call('nosuch')", "0") == b"+QUEUED\r\n"
    assert c.call_frame("exec") == b"*2\r\n:1\r\n" + script_error(
        "ERR Unknown Redis command called from script", "return redis.call('nosuch')")


def test_script_write_fires_watch(connect):
    a, b = connect(), connect()
    a.call("set", "k", "1")
    a.call("watch", "k")
    assert b.call_frame("eval", "return redis.call('incr', KEYS[1])", "1", "k") == b":2\r\n"
    a.call("multi")
    a.call("set", "k", "100")
    assert a.call_frame("exec") == b"*-1\r\n"
    assert a.call_frame("get", "k") == b"$1\r\n2\r\n"


def test_script_read_or_other_key_does_not_fire_watch(connect):
    a, b = connect(), connect()
    a.call("set", "k", "1")
    a.call("watch", "k")
    assert b.call_frame("eval_ro", "return redis.call('get', KEYS[1])", "1", "k") == b"$1\r\n1\r\n"
    assert b.call_frame("eval", "return redis.call('set', KEYS[1], 'x')", "1", "other") == b"+OK\r\n"
    a.call("multi")
    a.call("set", "k", "100")
    assert a.call_frame("exec") == b"*1\r\n+OK\r\n"


def test_scripts_are_atomic_counters(connect):
    """Two clients run a read-modify-write script in turns; no update is lost."""
    script = ("local v = tonumber(redis.call('get', KEYS[1]) or '0') "
              "redis.call('set', KEYS[1], v + 1) return v + 1")
    a, b = connect(), connect()
    for _ in range(50):
        a.send("eval", script, "1", "ctr")
        b.send("eval", script, "1", "ctr")
    got = [a.read() for _ in range(50)] + [b.read() for _ in range(50)]
    assert sorted(got) == list(range(1, 101))
    assert a.call_frame("get", "ctr") == b"$3\r\n100\r\n"


def test_call_with_unpack_of_7999_arguments(c):
    """redis.call's arguments leave the Lua stack before its reply comes back:
    7999 of them (unpack's ceiling) still get the reply (Redis 7.0's suite)."""
    c.call_frame("del", "l")
    script = 'local a = {} for i=1,7999 do a[i] = 1 end return redis.call("lpush", "l", unpack(a))'
    assert ev(c, script) == b":7999\r\n"
    assert ev(c, 'return #redis.call("lrange", "l", 0, -1)') == b":7999\r\n"


# --- redis.set_repl and blocked clients during a busy script ------------------------------------

def test_set_repl_picks_aof_and_replicas(server_factory):
    """redis.set_repl(): REPL_NONE writes go nowhere, REPL_AOF ones only to the
    AOF, REPL_ALL ones to both (Redis 7.0's "selective replication" test)."""
    from support import attach, caught_up, start_pair
    master, replica, m, r = start_pair(server_factory, master_args=("--appendonly", "yes",
                                                                   "--enable-debug-command", "yes"))
    attach(r, master)
    m.eval("redis.call('set','a','1'); redis.set_repl(redis.REPL_NONE); redis.call('set','b','2');"
           "redis.set_repl(redis.REPL_AOF); redis.call('set','c','3');"
           "redis.set_repl(redis.REPL_ALL); redis.call('set','d','4')", 0)
    caught_up(m, r)
    assert r.mget("a", "b", "c", "d") == [b"1", None, None, b"4"]
    assert m.mget("a", "b", "c", "d") == [b"1", b"2", b"3", b"4"]
    m.execute_command("debug", "loadaof")
    assert m.mget("a", "b", "c", "d") == [b"1", None, b"3", b"4"]


def test_client_blocked_on_a_busy_scripts_key_is_served_after_it(server_factory):
    """A command served while a script is busy does not serve clients blocked
    on keys the script pushed to: they get the script's final state."""
    s = server_factory("--enable-debug-command", "yes", "--busy-reply-threshold", "10")
    blocked, runner, other = RawClient(s), RawClient(s), RawClient(s)
    blocked.send("blpop", "x", "0")
    time.sleep(0.2)
    other.call("debug", "set-disable-deny-scripts", "1")
    runner.send("eval", "redis.call('lpush', KEYS[1], 'y') "
                "while not string.find(redis.call('client', 'list'), 'abortscript') do end "
                "redis.call('lpush', KEYS[1], 'z') return 1", "1", "x")
    time.sleep(0.3)
    assert other.call_frame("ping").startswith(b"-BUSY")
    other.call("hello", "2", "setname", "abortscript")  # HELLO is served while busy
    assert blocked.read() == [b"x", b"z"]
    assert runner.read() == 1
    blocked.close(), runner.close(), other.close()


# --- SCRIPT DEBUG: the Lua debugger -------------------------------------------------------------

def stops_at(line, code, reason="step over"):
    """The debugger's frame when it stops at `line` showing `code`."""
    return [Status("* Stopped at %d, stop reason = %s" % (line, reason)), Status("-> %-3d %s" % (line, code))]


def ldb_session(s, script, *args, mode="sync"):
    """A connection whose EVAL of script is stopped at its first line; returns (conn, first frame)."""
    conn = RawClient(s, timeout=5)
    assert conn.call("script", "debug", mode) == OK
    conn.send("eval", script, *(args or ("0",)))
    return conn, conn.read()


def lines(conn, *cmd):
    """Sends a debugger command; returns its log lines as text."""
    conn.send(*cmd)
    return [str(x) for x in conn.read()]


SCRIPT = """local a = 1
local t = {1, 2, 'x'}
redis.debug('hello', a, t, {k = 'v'})
redis.call('set', KEYS[1], 'bar')
local r = redis.call('get', KEYS[1])
return r"""


def test_ldb_sync_session_steps_and_keeps_changes(server):
    conn, first = ldb_session(server, SCRIPT, "1", "foo")
    assert first == stops_at(1, "local a = 1")
    assert lines(conn, "s") == stops_at(2, "local t = {1, 2, 'x'}")
    assert lines(conn, "step") == stops_at(3, "redis.debug('hello', a, t, {k = 'v'})")
    assert lines(conn, "n") == ['<debug> line 3: "hello", 1, {1; 2; "x"}, {["k"]="v"}'] + \
        stops_at(4, "redis.call('set', KEYS[1], 'bar')")
    assert lines(conn, "p") == ["<value> a = 1", '<value> t = {1; 2; "x"}']
    assert lines(conn, "p", "t") == ['<value> {1; 2; "x"}']
    assert lines(conn, "print", "nothere") == ["No such variable."]
    assert lines(conn, "p", "KEYS") == ['<value> {"foo"}']
    assert lines(conn, "next") == ["<redis> set foo bar", '<reply> "+OK"'] + \
        stops_at(5, "local r = redis.call('get', KEYS[1])")
    assert lines(conn, "s") == ["<redis> get foo", '<reply> "bar"'] + stops_at(6, "return r")
    assert lines(conn, "s") == ["<endsession>"]
    assert conn.read_frame() == b"$3\r\nbar\r\n"
    conn.wait_closed()
    # sync mode: the server itself ran the script, its write stays
    assert RawClient(server).call("get", "foo") == b"bar"


def test_ldb_forked_session_rolls_back_and_server_goes_on(server):
    conn, first = ldb_session(server, SCRIPT, "1", "foo", mode="yes")
    assert first == stops_at(1, "local a = 1")
    other = RawClient(server)
    assert other.call("ping") == Status("PONG")  # the server is not waiting on the debugger
    assert lines(conn, "b", "5") == ["   4   redis.call('set', KEYS[1], 'bar')",
                                     "  #5   local r = redis.call('get', KEYS[1])", "   6   return r"]
    assert lines(conn, "c") == ['<debug> line 3: "hello", 1, {1; 2; "x"}, {["k"]="v"}'] + \
        stops_at(5, "local r = redis.call('get', KEYS[1])", "break point")[:1] + \
        ["->#5   local r = redis.call('get', KEYS[1])"]
    assert lines(conn, "r", "get", "foo") == ["<redis> get foo", '<reply> "bar"']
    assert other.call("get", "foo") is None  # the child's write is the child's
    assert lines(conn, "c") == ["<endsession>"]
    assert conn.read_frame() == b"$3\r\nbar\r\n"
    conn.wait_closed()
    assert other.call("get", "foo") is None  # rolled back: the child is gone
    assert other.call("eval", "return redis.breakpoint()", "0") is None  # no session: false
    assert other.call("eval", "return redis.debug('x')", "0") is None


def test_ldb_list_break_trace_eval_maxlen(server):
    script = "local function foo(x)\n  local y = x * 2\n  return y\nend\nlocal z = foo(3)\nreturn z"
    conn, first = ldb_session(server, script)
    assert first == stops_at(4, "end")
    assert lines(conn, "l", "2", "1") == ["   1   local function foo(x)", "   2     local y = x * 2",
                                          "   3     return y"]
    assert lines(conn, "w")[3:5] == ["-> 4   end", "   5   local z = foo(3)"]
    assert lines(conn, "list", "100") == []
    assert lines(conn, "b") == ["No breakpoints set. Use 'b <line>' to add one."]
    assert lines(conn, "b", "2", "2", "99", "x") == ["   1   local function foo(x)", "  #2     local y = x * 2",
                                                     "   3     return y", "Wrong line number.",
                                                     "Wrong line number.", "Invalid argument:'x'"]
    assert lines(conn, "b") == ["1 breakpoints set:", "  #2     local y = x * 2"]
    assert lines(conn, "c") == ["* Stopped at 2, stop reason = break point", "->#2     local y = x * 2"]
    assert lines(conn, "t") == ["In foo:", "->#2     local y = x * 2", "From top level:", "   5   local z = foo(3)"]
    assert lines(conn, "p") == ["<value> x = 3"]
    assert lines(conn, "b", "-2") == ["Breakpoint removed."]
    assert lines(conn, "b", "-2") == ["No breakpoint in the specified line."]
    assert lines(conn, "b", "0") == ["All breakpoints removed."]
    assert lines(conn, "e", "x", "+", "1") == ["<error> ldb_eval:1: Script attempted to access nonexistent "
                                               "global variable 'x'"]
    assert lines(conn, "e", "{1,nil,3}") == ["<retval> {[1]=1; [3]=3}"]
    assert lines(conn, "eval", "1", "+") == ["<error> ldb_eval:1: unexpected symbol near '1'"]
    assert lines(conn, "e", "redis.error_reply('x')") == ['<retval> {["err"]="ERR x"}']
    assert lines(conn, "maxlen") == ["<value> replies are truncated at 256 bytes."]
    assert lines(conn, "e", "string.rep('y', 300)") == ['<retval> "' + "y" * 246 + " ...",
                                                        "<hint> The above reply was trimmed. "
                                                        "Use 'maxlen 0' to disable trimming."]
    assert lines(conn, "m", "10") == ["<value> replies are truncated at 60 bytes."]
    assert lines(conn, "m", "0") == ["<value> replies are unlimited."]
    assert lines(conn, "zzz") == ["<error> Unknown Redis Lua debugger command or wrong number of arguments."]
    help_lines = lines(conn, "h")
    assert help_lines[0] == "Redis Lua debugger help:" and len(help_lines) == 30
    assert lines(conn, "c") == ["<endsession>"]
    assert conn.read() == 6
    conn.wait_closed()


def test_ldb_redis_replies_and_errors_in_human_form(server):
    script = "redis.call('lpush', 'l', 'a')\nredis.breakpoint()\nredis.pcall('incr', 'l')\nreturn 1"
    conn, _ = ldb_session(server, script)
    assert lines(conn, "r", "rpush", "l", "b") == ["<redis> rpush l b", "<reply> 1"]
    assert lines(conn, "r", "lrange", "l", "0", "-1") == ["<redis> lrange l 0 -1", '<reply> ["b"]']
    assert lines(conn, "r", "mget", "l", "nokey") == ["<redis> mget l nokey", "<reply> [NULL,NULL]"]
    assert lines(conn, "r", "nosuch") == ["<redis> nosuch", "<error> Unknown Redis command called from script"]
    assert lines(conn, "r", *["x"] * 12) == ["<redis> x x x x x x x x x x ... (1 more)",
                                             "<error> Unknown Redis command called from script"]
    assert lines(conn, "e", "redis.setresp(3)") == ["<retval> nil"]
    assert lines(conn, "r", "hgetall", "nohash") == ["<redis> hgetall nohash", "<reply> {}"]
    assert lines(conn, "c") == ["* Stopped at 3, stop reason = redis.breakpoint() called",
                                "-> 3   redis.pcall('incr', 'l')"]
    assert lines(conn, "s") == ["<redis> incr l",
                                "<error> -WRONGTYPE Operation against a key holding the wrong kind of value",
                                '<reply> "-WRONGTYPE Operation against a key holding the wrong kind of value"'] + \
        stops_at(4, "return 1")
    assert lines(conn, "s") == ["<endsession>"]
    assert conn.read() == 1


def test_ldb_abort_and_script_errors_end_the_session(server):
    conn, _ = ldb_session(server, "redis.call('set', 'k', 'v')\nreturn 1")
    assert lines(conn, "s") == ["<redis> set k v", '<reply> "+OK"'] + stops_at(2, "return 1")
    assert lines(conn, "abort") == ["<endsession>"]
    assert conn.read_frame() == script_error("ERR script aborted for user request",
                                             "redis.call('set', 'k', 'v')\nreturn 1", 2)
    conn.wait_closed()
    assert RawClient(server).call("get", "k") == b"v"  # sync mode keeps what ran
    conn, _ = ldb_session(server, "error('boom')")
    assert lines(conn, "s") == ["<endsession>"]
    assert conn.read_frame() == script_error("ERR user_script:1: boom", "error('boom')")
    conn = RawClient(server)
    assert conn.call("script", "debug", "sync") == OK
    conn.send("eval", "return +", "0")
    assert conn.read() == [Status("<endsession>")]
    assert conn.read_frame() == b"-ERR Error compiling script (new function): user_script:1: unexpected symbol near '+'\r\n"
    conn.wait_closed()


def test_ldb_protocol_parsing(server):
    """Redis 7.0's suite: NUL bytes make an unknown command, a command of 101
    arguments runs (and fails) as a Redis command, malformed input ends the script."""
    conn, _ = ldb_session(server, "return 'hello'")
    for arg in ("hello\0world", "hello\0", "\0hello", "\0hello\0"):
        assert lines(conn, arg) == ["<error> Unknown Redis Lua debugger command or wrong number of arguments."]
    assert lines(conn, "redis", *["test"] * 100) == ["<redis> test test test test test test test test test test "
                                                     "... (89 more)",
                                                     "<error> Unknown Redis command called from script"]
    conn.send_raw(b"*1\r\n$1\r\nx\r\n*1\r\n$1\r\nc\r\n")  # only the first command of a read counts
    assert conn.read() == [Status("<error> Unknown Redis Lua debugger command or wrong number of arguments.")]
    conn.send_raw(b"*1\r\n$0\r\n\r\n")
    assert conn.read() == [Status("<endsession>")]
    assert conn.read_frame() == script_error("ERR protocol error", "return 'hello'")
    conn.wait_closed()
    assert RawClient(server).call("ping") == Status("PONG")


def test_ldb_stops_a_script_running_past_the_busy_threshold(server_factory):
    s = server_factory("--busy-reply-threshold", "100")
    conn, first = ldb_session(s, "local i = 0\nwhile true do\n  i = i + 1\nend")
    assert first == stops_at(1, "local i = 0")
    assert lines(conn, "c") == stops_at(3, "i = i + 1", "timeout reached, infinite loop?")[:1] + \
        ["-> 3     i = i + 1"]
    assert lines(conn, "a") == ["<endsession>"]
    assert conn.read_frame().startswith(b"-ERR script aborted for user request script: ")


def test_ldb_client_gone_lets_the_script_finish(server):
    conn, _ = ldb_session(server, "redis.call('set', 'k', '1')\nredis.call('set', 'k', '2')\nreturn 1")
    conn.close()
    other = RawClient(server)
    wait = time.time() + 5
    while other.call("get", "k") != b"2" and time.time() < wait:
        time.sleep(0.05)
    assert other.call("get", "k") == b"2"


def test_script_debug_errors(server):
    c = RawClient(server)
    assert c.call_frame("script", "debug", "maybe") == b"-ERR Use SCRIPT DEBUG YES/SYNC/NO\r\n"
    assert c.call_frame("script", "debug") == b"-ERR wrong number of arguments for 'script|debug' command\r\n"
    c.send_raw(b"PING\r\nSCRIPT DEBUG yes\r\n")
    assert c.read_frame() == b"+PONG\r\n"
    assert c.read_frame() == b"-ERR SCRIPT DEBUG must be called outside a pipeline\r\n"
    assert c.call("multi") == OK
    assert c.call("script", "debug", "yes") == Status("QUEUED")
    assert c.call_frame("exec") == b"*1\r\n-ERR SCRIPT DEBUG must be called outside a pipeline\r\n"
    assert c.call("script", "debug", "yes") == OK
    assert c.call_frame("evalsha", "x" * 40, "0") == b"-ERR Please use EVAL instead of EVALSHA for debugging\r\n"
    assert c.call_frame("evalsha", "x", "0") == \
        b"-NOSCRIPT No matching script. Please use EVAL.\r\n"
    assert c.call("script", "debug", "no") == OK
    assert c.call("eval", "return 1", "0") == 1
    # functions have no debugger API
    c.call("function", "load", "#!lua name=lib\nredis.register_function('f', function() return redis.debug end)")
    assert c.call("fcall", "f", "0") is None


def test_redis_cli_ldb(server):
    import os
    import subprocess
    cli = "/usr/bin/redis-cli"
    if not os.path.exists(cli):
        pytest.skip("redis-cli is not installed")
    script = os.path.join(server.dir, "s.lua")
    with open(script, "w") as f:
        f.write('local a = redis.call("set", KEYS[1], ARGV[1])\nredis.debug(a)\nreturn redis.call("get", KEYS[1])\n')

    def run(*args, stdin):
        out = subprocess.run([cli, "-p", str(server.port), *args, "--eval", script, "k", ",", "v"],
                             input=stdin.encode(), capture_output=True, timeout=20).stdout.decode()
        return [line for line in out.replace("\x1b[0m", "").split("\n")]

    out = run("--ldb", stdin="s\np\nc\n")
    assert any(line.endswith('<redis> set k v') for line in out)
    assert any(line.endswith('<value> a = {["ok"]="OK"}') for line in out)
    assert any(line.endswith('<debug> line 2: {["ok"]="OK"}') for line in out)
    assert '"v"' in out and "(Lua debugging session ended -- dataset changes rolled back)" in out
    assert RawClient(server).call("get", "k") is None
    out = run("--ldb-sync-mode", stdin="c\n")
    assert "(Lua debugging session ended)" in out
    assert RawClient(server).call("get", "k") == b"v"


# --- scripts checked with the flags they declare; errors counted once ---------------------------

def test_scripts_on_a_read_only_replica(server_factory):
    master = server_factory()
    s = server_factory()
    c, m = RawClient(s), RawClient(master)
    m.call("set", "x", "some value")
    m.call("function", "load", "#!lua name=lib\nredis.register_function('w', function() return 1 end)\n"
           "redis.register_function{function_name='r', callback=function() return 2 end, flags={'no-writes'}}")
    assert c.call("replicaof", "127.0.0.1", str(master.port)) == OK
    wait_for(lambda: b"master_link_status:up" in c.call("info", "replication"))
    assert c.call("eval", "#!lua flags=no-writes\nreturn redis.call('get','x')", "1", "x") == b"some value"
    assert c.call_frame("eval", "#!lua\nreturn redis.call('get','x')", "1", "x") == \
        b"-READONLY You can't write against a read only replica.\r\n"
    script = "return redis.call('set','x','1')"
    assert c.call_frame("eval", script, "1", "x") == \
        script_error("READONLY You can't write against a read only replica.", script)
    assert c.call_frame("fcall", "w", "0") == b"-READONLY You can't write against a read only replica.\r\n"
    assert c.call("fcall", "r", "0") == 2
    assert c.call("multi") == OK
    assert c.call("eval", "#!lua flags=no-writes\nreturn 1", "0") == Status("QUEUED")
    assert c.call("exec") == [1]


def test_scripts_on_a_stale_replica(server_factory):
    c = RawClient(server_factory())
    c.call("config", "set", "replica-serve-stale-data", "no")
    c.call("replicaof", "127.0.0.1", "1")
    masterdown = b"-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n"
    assert c.call_frame("eval", "return 1", "0") == masterdown
    assert c.call_frame("eval", "#!lua flags=no-writes\nreturn 1", "0") == masterdown
    assert c.call("eval", "#!lua flags=allow-stale,no-writes\nreturn redis.call('echo','hi')", "0") == b"hi"
    script = "#!lua flags=allow-stale,no-writes\nreturn redis.call('get','x')"
    assert c.call_frame("eval", script, "1", "x") == \
        script_error("ERR Can not execute the command on a stale replica", script, 2)


def test_refused_script_commands_count_once(server):
    """A command a script asks for and is refused counts as that command's
    error, once, whether the script raises it, swallows it or returns it."""
    c = RawClient(server)

    def stats():
        errors = c.call("info", "errorstats").decode()
        cmds = c.call("info", "commandstats").decode()
        return errors, cmds

    c.call("config", "set", "maxmemory", "1")
    c.call("config", "resetstat")
    assert c.call("eval", "local t = redis.pcall('set','x','y') "
                  "return t['err'] == \"OOM command not allowed when used memory > 'maxmemory'.\"",
                  "1", "x") == 1
    errors, cmds = stats()
    assert "errorstat_OOM:count=1" in errors and "errorstat_ERR" not in errors
    assert "cmdstat_set:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0" in cmds
    assert ",rejected_calls=0,failed_calls=0" in cmds.split("cmdstat_eval:")[1].split("\r\n")[0]
    c.call("config", "resetstat")
    assert c.call_frame("eval", "return redis.pcall('set','x','y')", "1", "x") == \
        b"-OOM command not allowed when used memory > 'maxmemory'.\r\n"
    errors, cmds = stats()
    assert "errorstat_OOM:count=1" in errors
    assert ",rejected_calls=0,failed_calls=1" in cmds.split("cmdstat_eval:")[1].split("\r\n")[0]
    c.call("config", "set", "maxmemory", "0")
    c.call("config", "resetstat")
    c.call("lpush", "l", "a")
    assert c.call_frame("eval", "return redis.pcall('incr','l')", "0") == \
        b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
    errors, _ = stats()
    assert "errorstat_WRONGTYPE:count=1" in errors


# --- FUNCTION LOAD ------------------------------------------------------------------------------

def test_function_load_sees_only_the_library_api(c):
    c.call("function", "flush")
    assert c.call_frame("function", "load", "#!lua name=lib\nreturn math.random()") == \
        b"-ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent " \
        b"global variable 'math'\r\n"
    assert c.call_frame("function", "load", "#!lua name=lib\nredis.setresp(3)") == \
        b"-ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent " \
        b"global variable 'setresp'\r\n"
    assert c.call("function", "load", "#!lua name=lib\n"
                  "redis.register_function('f', function() return math.floor(2.5) end)") == b"lib"
    assert c.call("fcall", "f", "0") == 2  # called, it sees every global
    assert c.call_frame("function", "load", "replace", "#!lua name=lib\nlocal a = 1\nwhile 1 do a = a + 1 end") == \
        b"-ERR Error registering functions: ERR FUNCTION LOAD timeout\r\n"
    assert c.call("fcall", "f", "0") == 2
    assert c.call_frame("function", "flush", "sync", "extra") == \
        b"-ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.\r\n"
    assert c.call_frame("function", "flush", "bad") == b"-ERR FUNCTION FLUSH only supports SYNC|ASYNC option\r\n"
    c.call("function", "flush")


@pytest.mark.parametrize("header,frame", [
    ('#!lua name="foo"', b"$3\r\nfoo\r\n"),
    ("#!lua name='bar'", b"$3\r\nbar\r\n"),
    ('#!lua "name=baz"', b"$3\r\nbaz\r\n"),
    ('#!"lua" name=q2', b"$2\r\nq2\r\n"),
    ('#!lua  name=q1   ', b"$2\r\nq1\r\n"),
    ('#!lua name="foo', b"-ERR Invalid library metadata\r\n"),
    ('#!lua', b"-ERR Library name was not given\r\n"),
    ('#!foo', b"-ERR Library name was not given\r\n"),
    ('#! name=x', b"-ERR Engine '' not found\r\n"),
    ('#!foo bad', b"-ERR Invalid metadata value given: bad\r\n"),
    ('#!foo name=', b"-ERR Library names can only contain letters, numbers, or underscores(_) and must be at "
                    b"least one character long\r\n"),
    ('#!lua name=x name=y', b"-ERR Invalid metadata value, name argument was given multiple times\r\n"),
])
def test_function_library_metadata(c, header, frame):
    c.call("function", "flush")
    assert c.call_frame("function", "load", header + "\nredis.register_function('f', function() return 1 end)") \
        == frame
    c.call("function", "flush")
