"""Blocking list commands meeting Lua scripts, checked against Redis 7.0.15.

Kept with the scripting tests rather than in types/test_list.py: a push from EVAL (or FCALL) wakes a blocked client once the script ends, and
inside a script the blocking commands either never block (BLMPOP, BZMPOP) or
are refused (BLPOP, BRPOP, BRPOPLPUSH, BLMOVE, BZPOPMIN, BZPOPMAX are flagged
noscript in 7.0).
"""
import hashlib

from datatype_client import wait_blocked


def noscript_error(script):
    sha = hashlib.sha1(script.encode()).hexdigest()
    return "ERR This Redis command is not allowed from script script: %s, on @user_script:1." % sha


def test_eval_push_wakes_blocked_client(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(dc, 1)
    script = "redis.call('rpush', KEYS[1], 'a', 'b'); return redis.call('lrange', KEYS[1], 0, -1)"
    # The script sees its own pushes: the waiter is served only after it ends.
    assert dc("EVAL", script, "1", "k") == [b"a", b"b"]
    assert waiter.read() == [b"k", b"a"]
    assert dc("LRANGE", "k", "0", "-1") == [b"b"]


def test_eval_push_then_pop_does_not_wake(dc, dconnect):
    waiter = dconnect()
    waiter.send("BLPOP", "k", "0")
    wait_blocked(dc, 1)
    assert dc("EVAL", "redis.call('rpush', KEYS[1], 'a'); return redis.call('lpop', KEYS[1])",
             "1", "k") == b"a"
    assert dc("EVAL", "redis.call('rpush', KEYS[1], 'a'); redis.call('del', KEYS[1]); return 1",
             "1", "k") == 1
    assert not waiter.pending(0.1)
    dc("RPUSH", "k", "z")
    assert waiter.read() == [b"k", b"z"]


def test_fcall_push_wakes_blocked_client(dc, dconnect):
    lib = ("#!lua name=lib\n"
           "redis.register_function('pushit', function(keys, args) "
           "return redis.call('rpush', keys[1], args[1]) end)")
    assert dc("FUNCTION", "LOAD", lib) == b"lib"
    waiter = dconnect()
    waiter.send("BRPOP", "k", "0")
    wait_blocked(dc, 1)
    assert dc("FCALL", "pushit", "1", "k", "fromfn") == 1
    assert waiter.read() == [b"k", b"fromfn"]


def test_blocking_commands_inside_scripts(dc):
    for call in ("redis.call('blpop', KEYS[1], 0)", "redis.call('brpop', KEYS[1], 0)",
                 "redis.call('brpoplpush', KEYS[1], 'x', 0)",
                 "redis.call('blmove', KEYS[1], 'x', 'left', 'left', 0)",
                 "redis.call('bzpopmin', KEYS[1], 0)", "redis.call('bzpopmax', KEYS[1], 0)"):
        script = "return " + call
        assert dc.err("EVAL", script, "1", "k") == noscript_error(script), call
    # BLMPOP and BZMPOP run in scripts without blocking.
    assert dc("EVAL", "return redis.call('blmpop', 0, 1, KEYS[1], 'left')", "1", "k") is None
    assert dc("EVAL", "return redis.call('bzmpop', 0, 1, KEYS[1], 'min')", "1", "k") is None
    dc("RPUSH", "k", "a", "b")
    assert dc("EVAL", "return redis.call('blmpop', 0, 1, KEYS[1], 'right')", "1", "k") == [b"k", [b"b"]]
