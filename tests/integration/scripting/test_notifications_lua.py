"""Keyspace notifications raised by commands a Lua script runs (EVAL,
EVALSHA, EVAL_RO): same events as from a client, in call order, published
before the script's reply, in the database the script selected, and kept for
writes done before a script error. Recorded from redis-server 7.0.15.
"""
import time

from resp_raw import Error, Status
from support import Watcher, evs

OK = Status("OK")


def test_script_writes_raise_events_in_order(connect):
    w = Watcher(connect)
    script = ("redis.call('set', KEYS[1], ARGV[1]); redis.call('lpush', 'l', 'x'); "
              "return redis.call('del', KEYS[1])")
    assert w.run("eval", script, "1", "k", "v") == (1, evs(("set", "k"), ("lpush", "l"), ("del", "k")))


def test_evalsha_raises_the_same_events(connect):
    w = Watcher(connect)
    sha = w.cmd.call("script", "load", "return redis.call('incr', KEYS[1])")
    assert sha == b"2bab3b661081db58bd2341920e0ba7cf5dc77b25"
    assert w.run("evalsha", sha, "1", "q") == (1, evs(("incrby", "q")))
    assert w.run("evalsha", sha, "1", "q") == (2, evs(("incrby", "q")))


def test_writes_before_a_failing_call_keep_their_events(connect):
    w = Watcher(connect)
    reply, events = w.run("eval", "redis.call('set', 'a', '1'); return redis.call('lpush', 'a', 'x')", "0")
    assert reply == Error("WRONGTYPE Operation against a key holding the wrong kind of value script: "
                          "34528de52ca2fe48f85270aabe5f611f97e2a780, on @user_script:1.")
    assert events == evs(("set", "a"))
    reply, events = w.run("eval", "redis.call('set', 'b', '1'); return redis.pcall('lpush', 'b', 'x')", "0")
    assert reply == Error("WRONGTYPE Operation against a key holding the wrong kind of value")
    assert events == evs(("set", "b"))
    reply, events = w.run("eval", "redis.call('set', 'c', '1'); error('boom')", "0")
    assert reply == Error("ERR user_script:1: boom script: a205e1f63946ef8189ff2fe39f06a414d70c51aa, "
                          "on @user_script:1.")
    assert events == evs(("set", "c"))


def test_select_inside_a_script_changes_the_channel_db(connect):
    w = Watcher(connect)
    assert w.run("eval", "redis.call('select', 2); redis.call('set', 'b', '1'); return 1", "0") == \
        (1, evs(("set", "b", 2)))
    # The caller's database is unchanged.
    assert w.run("set", "b", "0") == (OK, evs(("set", "b")))


def test_no_events_for_no_op_writes_and_reads(connect):
    w = Watcher(connect)
    assert w.run("eval", "redis.call('srem', 'nos', 'x'); return redis.call('get', 'zz')", "0") == (None, [])
    assert w.run("eval_ro", "return redis.call('get', 'zz')", "0") == (None, [])


def test_set_with_expire_and_expired_on_access_from_script(connect):
    w = Watcher(connect)
    assert w.run("eval", "redis.call('set', 'e', '1', 'px', '10'); return 1", "0") == \
        (1, evs(("set", "e"), ("expire", "e")))
    time.sleep(0.05)
    assert w.run("eval", "return redis.call('get', 'e')", "0") == (None, evs(("expired", "e")))


def test_keymiss_and_new_from_script(connect):
    w = Watcher(connect, flags="KEAmn")
    assert w.run("eval", "redis.call('get', 'nx'); return redis.call('set', 'nx', '1')", "0") == \
        (OK, evs(("keymiss", "nx"), ("new", "nx"), ("set", "nx")))


def test_script_inside_multi(connect):
    w = Watcher(connect)
    assert w.run("multi") == (OK, [])
    assert w.run("eval", "return redis.call('hset', KEYS[1], 'f', 'v')", "1", "h") == (Status("QUEUED"), [])
    assert w.run("set", "x", "1") == (Status("QUEUED"), [])
    assert w.run("exec") == ([1, OK], evs(("hset", "h"), ("set", "x")))
