"""Keyspace notification tests: the notify-keyspace-events setting (parsing,
normalised CONFIG GET form, errors), the exact events every command family
raises (names, order, keys, databases), `new`/`keymiss`/`expired`/`evicted` events,
class filtering, and events raised by MULTI/EXEC.

Expected events were recorded from redis-server 7.0.15. Where 7.0 differs from
the prose documentation the reference wins, e.g. LMOVE/RPOPLPUSH publish the
destination's lpush/rpush *before* the source's pop, ZREMRANGEBYSCORE raises
`zremrangebyscore` (not `zrembyscore`), and EXPIRE with a past time raises `del`.
"""
import time

import pytest

from resp_raw import Error, Status
from support import ANY, Watcher, evs


@pytest.fixture
def watch(shared_connect):
    """A KEA watcher on the module's shared server (emptied first)."""
    return Watcher(shared_connect)


OK = Status("OK")
S = Status

# Each case is a list of (command, exact reply, events as (event, key[, db]) in order).
CASES = {
    "del_unlink": [
        (("set", "a", "1"), OK, [("set", "a")]),
        (("set", "b", "2"), OK, [("set", "b")]),
        (("del", "a", "b", "nokey"), 2, [("del", "a"), ("del", "b")]),
        (("del", "nokey"), 0, []),
        (("mset", "a", "1", "b", "2"), OK, [("set", "a"), ("set", "b")]),
        (("unlink", "b", "nokey", "a"), 2, [("del", "b"), ("del", "a")]),
    ],
    "expire_persist": [
        (("set", "a", "1"), OK, [("set", "a")]),
        (("expire", "a", "100"), 1, [("expire", "a")]),
        (("expire", "nokey", "100"), 0, []),
        (("pexpire", "a", "100000"), 1, [("expire", "a")]),
        (("expireat", "a", "99999999999"), 1, [("expire", "a")]),
        (("pexpireat", "a", "99999999999000"), 1, [("expire", "a")]),
        (("expire", "a", "100", "NX"), 0, []),
        (("persist", "a"), 1, [("persist", "a")]),
        (("persist", "a"), 0, []),
        (("expire", "a", "100", "XX"), 0, []),
        (("expire", "a", "100", "NX"), 1, [("expire", "a")]),
    ],
    "expire_in_the_past_deletes": [
        (("set", "d", "x"), OK, [("set", "d")]),
        (("expire", "d", "0"), 1, [("del", "d")]),
        (("set", "e", "5"), OK, [("set", "e")]),
        (("expire", "e", "-1"), 1, [("del", "e")]),
        (("set", "f", "1"), OK, [("set", "f")]),
        (("pexpireat", "f", "1"), 1, [("del", "f")]),
    ],
    "rename": [
        (("set", "a", "1"), OK, [("set", "a")]),
        (("rename", "a", "b"), OK, [("rename_from", "a"), ("rename_to", "b")]),
        (("set", "a", "1"), OK, [("set", "a")]),
        (("renamenx", "a", "b"), 0, []),
        (("renamenx", "a", "c"), 1, [("rename_from", "a"), ("rename_to", "c")]),
        (("rename", "nokey", "x"), Error("ERR no such key"), []),
    ],
    "copy_move": [
        (("set", "c", "1"), OK, [("set", "c")]),
        (("copy", "c", "d"), 1, [("copy_to", "d")]),
        (("copy", "c", "d"), 0, []),
        (("copy", "c", "d", "replace"), 1, [("copy_to", "d")]),
        (("copy", "c", "x", "db", "3"), 1, [("copy_to", "x", 3)]),
        (("move", "d", "1"), 1, [("move_from", "d"), ("move_to", "d", 1)]),
        (("set", "d", "x"), OK, [("set", "d")]),
        (("move", "d", "1"), 0, []),
        (("move", "nokey", "1"), 0, []),
    ],
    "touch_and_reads_raise_nothing": [
        (("set", "u", "1"), OK, [("set", "u")]),
        (("touch", "u"), 1, []),
        (("get", "u"), b"1", []),
        (("exists", "u"), 1, []),
        (("ttl", "u"), -1, []),
        (("type", "u"), S("string"), []),
        (("getex", "u"), b"1", []),
    ],
    "sort_store": [
        (("rpush", "l", "3", "1", "2"), 3, [("rpush", "l")]),
        (("sort", "l", "store", "s"), 3, [("sortstore", "s")]),
        (("sort", "l"), [b"1", b"2", b"3"], []),
        (("sort", "l", "store", "l"), 3, [("sortstore", "l")]),
        (("sort", "nokey", "store", "s"), 0, [("del", "s")]),
        (("sort", "nokey", "store", "s"), 0, []),
    ],
    "strings": [
        (("set", "s", "hello"), OK, [("set", "s")]),
        (("set", "s", "x", "nx"), None, []),
        (("set", "s", "hello", "xx"), OK, [("set", "s")]),
        (("set", "nos", "x", "xx"), None, []),
        (("set", "s", "hello", "get"), b"hello", [("set", "s")]),
        (("set", "s", "hello", "keepttl"), OK, [("set", "s")]),
        (("set", "v", "1", "ex", "100"), OK, [("set", "v"), ("expire", "v")]),
        (("set", "v", "1", "px", "100000", "get"), b"1", [("set", "v"), ("expire", "v")]),
        (("setex", "w", "100", "1"), OK, [("set", "w"), ("expire", "w")]),
        (("psetex", "w", "100000", "1"), OK, [("set", "w"), ("expire", "w")]),
        (("setnx", "w", "1"), 0, []),
        (("setnx", "x", "1"), 1, [("set", "x")]),
        (("getset", "x", "2"), b"1", [("set", "x")]),
        (("mset", "m1", "1", "m2", "2"), OK, [("set", "m1"), ("set", "m2")]),
        (("msetnx", "m3", "1", "m1", "2"), 0, []),
        (("msetnx", "m3", "1", "m4", "2"), 1, [("set", "m3"), ("set", "m4")]),
        (("getdel", "m4"), b"2", [("del", "m4")]),
        (("getdel", "m4"), None, []),
        (("getex", "m3", "ex", "100"), b"1", [("expire", "m3")]),
        (("getex", "m3", "persist"), b"1", [("persist", "m3")]),
        (("getex", "m3", "persist"), b"1", []),
    ],
    "string_modifiers": [
        (("set", "s", "hello"), OK, [("set", "s")]),
        (("setrange", "s", "1", "EY"), 5, [("setrange", "s")]),
        (("setrange", "s", "0", ""), 5, []),
        (("setrange", "new", "2", "ab"), 4, [("setrange", "new")]),
        (("incr", "n"), 1, [("incrby", "n")]),
        (("incrby", "n", "5"), 6, [("incrby", "n")]),
        (("decr", "n"), 5, [("incrby", "n")]),
        (("decrby", "n", "2"), 3, [("incrby", "n")]),
        (("incrby", "n", "0"), 3, [("incrby", "n")]),
        (("incr", "s"), Error("ERR value is not an integer or out of range"), []),
        (("incrbyfloat", "f", "1.5"), b"1.5", [("incrbyfloat", "f")]),
        (("incrbyfloat", "f", "0"), b"1.5", [("incrbyfloat", "f")]),
        (("append", "s", "!"), 6, [("append", "s")]),
        (("append", "s2", "x"), 1, [("append", "s2")]),
        (("append", "s", ""), 6, [("append", "s")]),
        (("getrange", "s", "0", "1"), b"hE", []),
        (("strlen", "s"), 6, []),
    ],
    "bits": [
        (("setbit", "bits", "7", "1"), 0, [("setbit", "bits")]),
        (("setbit", "bits", "7", "1"), 1, []),
        (("setbit", "bits", "7", "0"), 1, [("setbit", "bits")]),
        (("set", "s", "a"), OK, [("set", "s")]),
        (("bitop", "or", "dest", "bits", "s"), 1, [("set", "dest")]),
        (("bitop", "and", "dest", "nokey1", "nokey2"), 0, [("del", "dest")]),
        (("bitop", "and", "dest", "nokey1", "nokey2"), 0, []),
        (("bitfield", "bf", "set", "u8", "0", "255"), [0], [("setbit", "bf")]),
        (("bitfield", "bf", "get", "u8", "0"), [255], []),
        (("bitfield", "bf", "incrby", "u8", "0", "1"), [0], [("setbit", "bf")]),
        (("bitfield", "bf", "overflow", "fail", "incrby", "u8", "0", "300"), [None], []),
    ],
    "lists": [
        (("lpush", "l", "a", "b", "c"), 3, [("lpush", "l")]),
        (("rpush", "l", "d", "e"), 5, [("rpush", "l")]),
        (("lpushx", "l", "x"), 6, [("lpush", "l")]),
        (("lpushx", "nol", "x"), 0, []),
        (("rpushx", "l", "y"), 7, [("rpush", "l")]),
        (("rpushx", "nol", "y"), 0, []),
        (("rpop", "l"), b"y", [("rpop", "l")]),
        (("lpop", "l"), b"x", [("lpop", "l")]),
        (("rpop", "l", "2"), [b"e", b"d"], [("rpop", "l")]),
        (("lpop", "l", "0"), [], []),
        (("lpop", "nol"), None, []),
        (("linsert", "l", "before", "a", "z"), 4, [("linsert", "l")]),
        (("linsert", "l", "before", "nomatch", "z"), -1, []),
        (("linsert", "nol", "before", "a", "z"), 0, []),
        (("lset", "l", "0", "Q"), OK, [("lset", "l")]),
        (("lrem", "l", "0", "nomatch"), 0, []),
        (("lrem", "l", "1", "Q"), 1, [("lrem", "l")]),
        (("ltrim", "l", "0", "-1"), OK, [("ltrim", "l")]),
        (("ltrim", "l", "0", "0"), OK, [("ltrim", "l")]),
        (("lrange", "l", "0", "-1"), [b"b"], []),
    ],
    "lists_emptied_raise_del": [
        (("rpush", "l", "a", "b"), 2, [("rpush", "l")]),
        (("ltrim", "l", "5", "10"), OK, [("ltrim", "l"), ("del", "l")]),
        (("rpush", "l", "1"), 1, [("rpush", "l")]),
        (("rpop", "l"), b"1", [("rpop", "l"), ("del", "l")]),
        (("rpush", "l", "1", "2"), 2, [("rpush", "l")]),
        (("lpop", "l", "5"), [b"1", b"2"], [("lpop", "l"), ("del", "l")]),
        (("rpush", "l2", "a", "a"), 2, [("rpush", "l2")]),
        (("lrem", "l2", "0", "a"), 2, [("lrem", "l2"), ("del", "l2")]),
        (("rpush", "l6", "a", "b", "c"), 3, [("rpush", "l6")]),
        (("lmpop", "2", "nol", "l6", "right", "count", "2"), [b"l6", [b"c", b"b"]], [("rpop", "l6")]),
        (("lmpop", "1", "l6", "left", "count", "5"), [b"l6", [b"a"]], [("lpop", "l6"), ("del", "l6")]),
    ],
    "list_moves_push_before_pop": [
        (("rpush", "src", "1", "2", "3"), 3, [("rpush", "src")]),
        (("rpoplpush", "src", "dst"), b"3", [("lpush", "dst"), ("rpop", "src")]),
        (("rpoplpush", "src", "src"), b"2", [("lpush", "src"), ("rpop", "src")]),
        (("lmove", "src", "dst", "left", "right"), b"2", [("rpush", "dst"), ("lpop", "src")]),
        (("lmove", "src", "dst", "right", "left"), b"1", [("lpush", "dst"), ("rpop", "src"), ("del", "src")]),
        (("rpoplpush", "nosrc", "dst"), None, []),
        (("lmove", "dst", "other", "left", "left"), b"1", [("lpush", "other"), ("lpop", "dst")]),
    ],
    "blocking_list_pops_served_at_once": [
        (("rpush", "l3", "a", "b"), 2, [("rpush", "l3")]),
        (("blpop", "l3", "0"), [b"l3", b"a"], [("lpop", "l3")]),
        (("brpop", "l3", "0"), [b"l3", b"b"], [("rpop", "l3"), ("del", "l3")]),
        (("rpush", "l4", "a"), 1, [("rpush", "l4")]),
        (("brpoplpush", "l4", "l5", "0"), b"a", [("lpush", "l5"), ("rpop", "l4"), ("del", "l4")]),
        (("blmove", "l5", "l4", "left", "left", "0"), b"a", [("lpush", "l4"), ("lpop", "l5"), ("del", "l5")]),
        (("blmpop", "0", "1", "l4", "right", "count", "2"), [b"l4", [b"a"]], [("rpop", "l4"), ("del", "l4")]),
    ],
    "hashes": [
        (("hset", "h", "a", "1", "b", "2"), 2, [("hset", "h")]),
        (("hset", "h", "a", "1"), 0, [("hset", "h")]),
        (("hsetnx", "h", "a", "2"), 0, []),
        (("hsetnx", "h", "c", "3"), 1, [("hset", "h")]),
        (("hmset", "h", "d", "4"), OK, [("hset", "h")]),
        (("hdel", "h", "nofield"), 0, []),
        (("hdel", "h", "a", "b"), 2, [("hdel", "h")]),
        (("hincrby", "h", "c", "1"), 4, [("hincrby", "h")]),
        (("hincrbyfloat", "h", "c", "1.5"), b"5.5", [("hincrbyfloat", "h")]),
        (("hincrby", "h", "c", "1"), Error("ERR hash value is not an integer"), []),
        (("hget", "h", "c"), b"5.5", []),
        (("hdel", "h", "c", "d"), 2, [("hdel", "h"), ("del", "h")]),
        (("hdel", "noh", "x"), 0, []),
    ],
    "sets": [
        (("sadd", "s", "a", "b", "c"), 3, [("sadd", "s")]),
        (("sadd", "s", "a"), 0, []),
        (("srem", "s", "nomember"), 0, []),
        (("srem", "s", "a"), 1, [("srem", "s")]),
        (("spop", "s"), ANY, [("spop", "s")]),
        (("spop", "s", "0"), [], []),
        (("spop", "s", "5"), ANY, [("spop", "s"), ("del", "s")]),
        (("spop", "s"), None, []),
        (("sadd", "t", "a", "b", "c"), 3, [("sadd", "t")]),
        (("spop", "t", "2"), ANY, [("spop", "t")]),
        (("srandmember", "t"), ANY, []),
        (("sadd", "t2", "1"), 1, [("sadd", "t2")]),
        (("spop", "t2", "1"), [b"1"], [("spop", "t2"), ("del", "t2")]),
        (("sadd", "u", "1", "2"), 2, [("sadd", "u")]),
        (("srem", "u", "1", "2", "3"), 2, [("srem", "u"), ("del", "u")]),
    ],
    "smove": [
        (("sadd", "s1", "a", "b"), 2, [("sadd", "s1")]),
        (("sadd", "s2", "b", "c"), 2, [("sadd", "s2")]),
        # b is already in s2: only the source changes.
        (("smove", "s1", "s2", "b"), 1, [("srem", "s1")]),
        (("smove", "s1", "s2", "nomember"), 0, []),
        (("smove", "s1", "s1", "a"), 1, []),
        (("smove", "s1", "s2", "a"), 1, [("srem", "s1"), ("del", "s1"), ("sadd", "s2")]),
        (("smove", "s2", "s3", "a"), 1, [("srem", "s2"), ("sadd", "s3")]),
    ],
    "set_stores": [
        (("sadd", "s2", "a", "b", "c"), 3, [("sadd", "s2")]),
        (("sinterstore", "d", "s2", "nokey"), 0, []),
        (("sadd", "d", "x"), 1, [("sadd", "d")]),
        (("sinterstore", "d", "s2", "nokey"), 0, [("del", "d")]),
        (("sinterstore", "d", "s2"), 3, [("sinterstore", "d")]),
        (("sunionstore", "d", "s2", "x"), 3, [("sunionstore", "d")]),
        (("sdiffstore", "d", "s2"), 3, [("sdiffstore", "d")]),
        (("sdiffstore", "d", "s2", "s2"), 0, [("del", "d")]),
        (("sunionstore", "d", "nokey"), 0, []),
    ],
    "zsets": [
        (("zadd", "z", "1", "a", "2", "b"), 2, [("zadd", "z")]),
        (("zadd", "z", "1", "a"), 0, []),
        (("zadd", "z", "3", "a"), 0, [("zadd", "z")]),
        (("zadd", "z", "incr", "1", "a"), b"4", [("zincr", "z")]),
        (("zadd", "z", "nx", "5", "a"), 0, []),
        (("zadd", "z", "xx", "5", "nomember"), 0, []),
        (("zadd", "z", "gt", "1", "a"), 0, []),
        (("zadd", "z", "ch", "7", "a"), 1, [("zadd", "z")]),
        (("zincrby", "z", "1", "a"), b"8", [("zincr", "z")]),
        (("zincrby", "z", "0", "a"), b"8", []),
        (("zrem", "z", "nomember"), 0, []),
        (("zrem", "z", "a"), 1, [("zrem", "z")]),
        (("zrem", "z", "b"), 1, [("zrem", "z"), ("del", "z")]),
    ],
    "zset_range_removal": [
        (("zadd", "z", "1", "a", "2", "c", "3", "d"), 3, [("zadd", "z")]),
        (("zremrangebyscore", "z", "10", "20"), 0, []),
        (("zremrangebyscore", "z", "1", "1"), 1, [("zremrangebyscore", "z")]),
        (("zremrangebyrank", "z", "0", "0"), 1, [("zremrangebyrank", "z")]),
        (("zremrangebyrank", "z", "10", "20"), 0, []),
        (("zremrangebyscore", "z", "-inf", "+inf"), 1, [("zremrangebyscore", "z"), ("del", "z")]),
        (("zadd", "z7", "1", "a", "2", "b"), 2, [("zadd", "z7")]),
        (("zremrangebyrank", "z7", "0", "-1"), 2, [("zremrangebyrank", "z7"), ("del", "z7")]),
        (("zadd", "lex", "0", "a", "0", "b", "0", "c"), 3, [("zadd", "lex")]),
        (("zremrangebylex", "lex", "[a", "[a"), 1, [("zremrangebylex", "lex")]),
        (("zremrangebylex", "lex", "[x", "[z"), 0, []),
        (("zremrangebylex", "lex", "-", "+"), 2, [("zremrangebylex", "lex"), ("del", "lex")]),
    ],
    "zset_stores": [
        (("zadd", "z1", "1", "a", "2", "b"), 2, [("zadd", "z1")]),
        (("zadd", "z2", "1", "b", "2", "c"), 2, [("zadd", "z2")]),
        (("zinterstore", "zd", "2", "z1", "z2"), 1, [("zinterstore", "zd")]),
        (("zunionstore", "zd", "2", "z1", "z2"), 3, [("zunionstore", "zd")]),
        (("zdiffstore", "zd", "2", "z1", "z2"), 1, [("zdiffstore", "zd")]),
        (("zinterstore", "zd", "2", "z1", "nokey"), 0, [("del", "zd")]),
        (("zinterstore", "zd", "2", "z1", "nokey"), 0, []),
        (("zunionstore", "zd", "1", "nokey"), 0, []),
        (("zrangestore", "zd2", "z1", "0", "-1"), 2, [("zrangestore", "zd2")]),
        (("zrangestore", "zd2", "z1", "5", "6"), 0, [("del", "zd2")]),
    ],
    "zset_pops": [
        (("zadd", "z1", "1", "a", "2", "b"), 2, [("zadd", "z1")]),
        (("zpopmin", "z1"), [b"a", b"1"], [("zpopmin", "z1")]),
        (("zpopmax", "z1"), [b"b", b"2"], [("zpopmax", "z1"), ("del", "z1")]),
        (("zpopmin", "z1"), [], []),
        (("zadd", "z2", "1", "b", "2", "c"), 2, [("zadd", "z2")]),
        (("zpopmin", "z2", "5"), [b"b", b"1", b"c", b"2"], [("zpopmin", "z2"), ("del", "z2")]),
        (("zadd", "z2", "1", "b", "2", "c"), 2, [("zadd", "z2")]),
        (("bzpopmin", "z2", "0"), [b"z2", b"b", b"1"], [("zpopmin", "z2")]),
        (("bzpopmax", "z2", "0"), [b"z2", b"c", b"2"], [("zpopmax", "z2"), ("del", "z2")]),
        (("zadd", "z4", "1", "a", "2", "b"), 2, [("zadd", "z4")]),
        (("zmpop", "1", "z4", "min", "count", "1"), [b"z4", [[b"a", b"1"]]], [("zpopmin", "z4")]),
        (("bzmpop", "0", "1", "z4", "max"), [b"z4", [[b"b", b"2"]]], [("zpopmax", "z4"), ("del", "z4")]),
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_events_by_command(watch, name):
    watch.check(CASES[name])


def test_restore_raises_restore(watch):
    watch.check([(("set", "t", "1"), OK, [("set", "t")])])
    payload = watch.cmd.call("dump", "t")
    watch.check([
        (("restore", "t2", "0", payload), OK, [("restore", "t2")]),
        (("restore", "t2", "0", payload), Error("BUSYKEY Target key name already exists."), []),
        (("restore", "t2", "0", payload, "replace"), OK, [("restore", "t2")]),
        (("restore", "t3", "100000", payload), OK, [("restore", "t3")]),
        # Replacing with an already expired TTL only deletes the old key.
        (("restore", "t3", "1", payload, "replace", "absttl"), OK, [("del", "t3")]),
    ])


def test_flush_and_swapdb_raise_nothing(watch):
    watch.check([
        (("set", "a", "1"), OK, [("set", "a")]),
        (("swapdb", "0", "1"), OK, []),
        (("flushdb",), OK, []),
        (("flushall",), OK, []),
    ])


def test_other_database_in_channel_names(watch):
    watch.check([
        (("select", "9"), OK, []),
        (("set", "k", "v"), OK, [("set", "k", 9)]),
        (("lpush", "l", "x"), 1, [("lpush", "l", 9)]),
        (("move", "k", "0"), 1, [("move_from", "k", 9), ("move_to", "k", 0)]),
        (("del", "l"), 1, [("del", "l", 9)]),
    ])


def test_exact_frames_on_plain_subscriptions(connect):
    """Subscribing to one keyspace and one keyevent channel; the frames are plain messages."""
    c, sub = connect(), connect()
    c.call("config", "set", "notify-keyspace-events", "KEA")
    sub.send("subscribe", "__keyspace@0__:foo", "__keyevent@0__:del")
    sub.read(), sub.read()
    c.call("set", "foo", "bar")
    c.call("set", "other", "x")
    c.call("del", "foo", "other")
    assert sub.read_frame() == b"*3\r\n$7\r\nmessage\r\n$18\r\n__keyspace@0__:foo\r\n$3\r\nset\r\n"
    assert sub.read_frame() == b"*3\r\n$7\r\nmessage\r\n$18\r\n__keyspace@0__:foo\r\n$3\r\ndel\r\n"
    assert sub.read_frame() == b"*3\r\n$7\r\nmessage\r\n$18\r\n__keyevent@0__:del\r\n$3\r\nfoo\r\n"
    assert sub.read_frame() == b"*3\r\n$7\r\nmessage\r\n$18\r\n__keyevent@0__:del\r\n$5\r\nother\r\n"
    assert sub.nothing_pending()


def test_binary_key_names(watch):
    key = "k:\x01 with space"
    watch.check([(("set", key, "v"), OK, [("set", key)])])


# --- notify-keyspace-events parsing ----------------------------------------------------------

@pytest.mark.parametrize("value,normalised", [
    ("", ""),
    ("KEA", "AKE"),
    ("AKE", "AKE"),
    ("A", "A"),
    ("K", "K"),
    ("E", "E"),
    ("Kg", "gK"),
    ("KgE", "gKE"),
    ("Elg", "glE"),
    ("KA", "AK"),
    ("KEA$", "AKE"),
    ("Ax", "A"),
    ("$lshzxeKE", "$lshzxeKE"),
    ("g$lshzxetdKE", "AKE"),          # every class letter spelled out is shown as A
    ("xK", "xK"),
    ("K$", "$K"),
    ("Kn", "nK"),
    ("Km", "Km"),
    ("KEtm", "tKEm"),
    ("KEtd", "tdKE"),
    ("KEm", "KEm"),
    ("KEAm", "AKEm"),
    ("KEAmn", "AKEm"),                # n is still active but not shown next to A (checked below)
    ("KEnA", "AKE"),
    ("KEAe", "AKE"),
])
def test_config_set_get_normalises_flags(connect, value, normalised):
    c = connect()
    assert c.call_frame("config", "set", "notify-keyspace-events", value) == b"+OK\r\n"
    assert c.call("config", "get", "notify-keyspace-events") == [b"notify-keyspace-events", normalised.encode()]


def test_invalid_flag_is_refused_and_value_kept(connect):
    c = connect()
    c.call("config", "set", "notify-keyspace-events", "KEl")
    assert c.call("config", "set", "notify-keyspace-events", "KEq") == Error(
        "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
        "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
    assert c.call("config", "get", "notify-keyspace-events") == [b"notify-keyspace-events", b"lKE"]


def test_default_is_empty_and_nothing_is_published(connect):
    w = Watcher(connect, flags=None)
    assert w.cmd.call("config", "get", "notify-keyspace-events") == [b"notify-keyspace-events", b""]
    assert w.run("set", "a", "1") == (OK, [])
    assert w.run("del", "a") == (1, [])


def test_setting_from_the_command_line(server_factory):
    s = server_factory("--notify-keyspace-events", "KEA")
    c = s.client()
    try:
        assert c.config_get("notify-keyspace-events") == {"notify-keyspace-events": "AKE"}
    finally:
        c.close()


def test_a_with_n_keeps_new_events(connect):
    w = Watcher(connect, flags="KEAn")
    assert w.cmd.call("config", "get", "notify-keyspace-events") == [b"notify-keyspace-events", b"AKE"]
    assert w.run("set", "a", "1") == (OK, evs(("new", "a"), ("set", "a")))


# --- class filtering ---------------------------------------------------------------------------

def test_keyspace_only(connect):
    w = Watcher(connect, flags="Kg$")
    assert w.run("set", "a", "1") == (OK, [("__keyspace@0__:a", "set")])
    assert w.run("del", "a") == (1, [("__keyspace@0__:a", "del")])


def test_keyevent_only(connect):
    w = Watcher(connect, flags="El")
    assert w.run("rpush", "l", "x") == (1, [("__keyevent@0__:rpush", "l")])
    # Emptying a list raises a generic del, which the l class does not include.
    assert w.run("rpop", "l") == (b"x", [("__keyevent@0__:rpop", "l")])


def test_classes_filter_events(connect):
    w = Watcher(connect, flags="KEl")
    assert w.run("set", "a", "1") == (OK, [])
    assert w.run("lpush", "l", "x") == (1, evs(("lpush", "l")))
    assert w.run("del", "l") == (1, [])
    assert w.run("sadd", "s", "x") == (1, [])
    assert w.run("hset", "h", "f", "v") == (1, [])
    assert w.run("zadd", "z", "1", "m") == (1, [])
    assert w.run("expire", "s", "100") == (1, [])


def test_generic_class(connect):
    w = Watcher(connect, flags="KEg")
    assert w.run("set", "a", "1", "ex", "100") == (OK, evs(("expire", "a")))
    assert w.run("rename", "a", "b") == (OK, evs(("rename_from", "a"), ("rename_to", "b")))
    assert w.run("del", "b") == (1, evs(("del", "b")))


def test_k_or_e_needed(connect):
    w = Watcher(connect, flags="A")
    assert w.run("set", "a", "1") == (OK, [])
    assert w.run("del", "a") == (1, [])


@pytest.mark.parametrize("flags,events", [
    ("KE$", [("set", "a")]),
    ("KEs", [("sadd", "s")]),
    ("KEh", [("hset", "h")]),
    ("KEz", [("zadd", "z")]),
    ("KEl", [("lpush", "l")]),
])
def test_each_type_class(connect, flags, events):
    w = Watcher(connect, flags=flags)
    got = []
    for args in [("set", "a", "1"), ("sadd", "s", "m"), ("hset", "h", "f", "v"),
                 ("zadd", "z", "1", "m"), ("lpush", "l", "x")]:
        got += w.run(*args)[1]
    assert got == evs(*events)


# --- new and keymiss ---------------------------------------------------------------------------

def test_new_events(connect):
    w = Watcher(connect, flags="KEn")
    w.check([
        (("set", "a", "1"), OK, [("new", "a")]),
        (("set", "a", "2"), OK, []),
        (("lpush", "l", "x"), 1, [("new", "l")]),
        (("rpush", "l", "y"), 2, []),
        (("incr", "n"), 1, [("new", "n")]),
        (("setrange", "sr", "0", "x"), 1, [("new", "sr")]),
        (("append", "ap", "x"), 1, [("new", "ap")]),
        (("rename", "a", "b"), OK, [("new", "b")]),
        (("copy", "b", "c"), 1, [("new", "c")]),
        (("move", "c", "1"), 1, [("new", "c", 1)]),
        (("sadd", "s1", "a"), 1, [("new", "s1")]),
        (("sinterstore", "s3", "s1", "s1"), 1, [("new", "s3")]),
        (("del", "s1"), 1, []),
    ])


def test_new_comes_before_the_command_event(connect):
    w = Watcher(connect, flags="KEA" + "n")
    w.check([
        (("lpush", "l", "x"), 1, [("new", "l"), ("lpush", "l")]),
        (("hset", "h", "f", "v"), 1, [("new", "h"), ("hset", "h")]),
        (("set", "k", "v", "ex", "100"), OK, [("new", "k"), ("set", "k"), ("expire", "k")]),
    ])


def test_keymiss_events(connect):
    w = Watcher(connect, flags="KEm")
    w.cmd.call("set", "b", "2")
    w.check([
        (("get", "nokey"), None, [("keymiss", "nokey")]),
        (("get", "b"), b"2", []),
        (("exists", "nokey"), 0, [("keymiss", "nokey")]),
        (("type", "nokey"), S("none"), [("keymiss", "nokey")]),
        (("ttl", "nokey"), -2, [("keymiss", "nokey")]),
        (("strlen", "nokey"), 0, [("keymiss", "nokey")]),
        (("mget", "nokey", "b", "nokey2"), [None, b"2", None], [("keymiss", "nokey"), ("keymiss", "nokey2")]),
        (("lrange", "nokey", "0", "-1"), [], [("keymiss", "nokey")]),
        (("llen", "nokey"), 0, [("keymiss", "nokey")]),
        (("hget", "nokey", "f"), None, [("keymiss", "nokey")]),
        (("scard", "nokey"), 0, [("keymiss", "nokey")]),
        (("zscore", "nokey", "a"), None, [("keymiss", "nokey")]),
        (("dump", "nokey"), None, [("keymiss", "nokey")]),
        (("getdel", "nokey"), None, [("keymiss", "nokey")]),
        # Write commands look keys up without raising keymiss.
        (("incr", "nokey3"), 1, []),
        (("lpush", "nokey4", "x"), 1, []),
        (("del", "nokey5"), 0, []),
        (("expire", "nokey", "1"), 0, []),
        (("rpoplpush", "nosrc", "dst"), None, []),
        (("keys", "*"), ANY, []),
    ])


def test_keymiss_then_new_for_set_get(connect):
    w = Watcher(connect, flags="KEmn")
    w.check([
        (("set", "k", "1", "get"), None, [("keymiss", "k"), ("new", "k")]),
        (("getset", "k2", "1"), None, [("keymiss", "k2"), ("new", "k2")]),
    ])


# --- expired -----------------------------------------------------------------------------------

def test_expired_on_access(connect):
    w = Watcher(connect, flags="KEx")
    w.cmd.call("set", "k", "v", "px", "10")
    time.sleep(0.05)
    # Whether the server removed the key in the background already or only
    # now, the expired event is out before the reply to the command that
    # looks at the key (collect() gathers everything up to that point).
    assert w.run("get", "k") == (None, evs(("expired", "k")))
    assert w.run("get", "k") == (None, [])


def test_expired_then_keymiss_on_read(connect):
    w = Watcher(connect, flags="KExm")
    w.cmd.call("select", "5")
    w.cmd.call("set", "k", "v", "px", "10")
    time.sleep(0.05)
    # The expired event may come from the background cycle (before GET) or
    # from GET itself; either way the stream is expired then keymiss.
    reply = w.cmd.call("get", "k")
    assert reply is None
    assert w.collect() == evs(("expired", "k", 5), ("keymiss", "k", 5))


def test_expired_by_overwrite(connect):
    w = Watcher(connect, flags="KEA")
    w.check([(("set", "k", "v", "px", "10"), OK, [("set", "k"), ("expire", "k")])])
    time.sleep(0.05)
    assert w.run("set", "k", "v2") == (OK, evs(("expired", "k"), ("set", "k")))


def test_expired_in_background_without_access(connect):
    w = Watcher(connect, flags="Ex")
    w.cmd.call("select", "3")
    w.cmd.call("set", "k1", "v", "px", "50")
    w.cmd.call("set", "k2", "v", "px", "80")
    w.cmd.call("set", "keep", "v")
    got = w.arriving(2, timeout=3)
    assert sorted(got) == [("__keyevent@3__:expired", "k1"), ("__keyevent@3__:expired", "k2")]
    assert w.cmd.call("keys", "*") == [b"keep"]


def test_x_class_alone(connect):
    w = Watcher(connect, flags="Kx")
    w.check([
        (("set", "k", "v", "px", "10"), OK, []),
    ])
    got = w.arriving(1, timeout=3)
    assert got == [("__keyspace@0__:k", "expired")]


# --- transactions ------------------------------------------------------------------------------

def test_events_from_multi_exec(watch):
    watch.check([
        (("multi",), OK, []),
        (("set", "a", "1"), S("QUEUED"), []),
        (("lpush", "l", "x", "y"), S("QUEUED"), []),
        (("incr", "a"), S("QUEUED"), []),
        (("sadd", "s", "m"), S("QUEUED"), []),
        (("srem", "s", "nomember"), S("QUEUED"), []),
        (("del", "a", "l"), S("QUEUED"), []),
        (("exec",), [OK, 2, 2, 1, 0, 2],
         [("set", "a"), ("lpush", "l"), ("incrby", "a"), ("sadd", "s"), ("del", "a"), ("del", "l")]),
    ])


def test_discarded_or_aborted_transaction_raises_nothing(watch):
    watch.check([
        (("multi",), OK, []),
        (("set", "a", "1"), S("QUEUED"), []),
        (("discard",), OK, []),
        (("multi",), OK, []),
        (("set", "a", "1"), S("QUEUED"), []),
        (("nosuchcommand",), Error("ERR unknown command 'nosuchcommand', with args beginning with: "), []),
        (("exec",), Error("EXECABORT Transaction discarded because of previous errors."), []),
        (("exists", "a"), 0, []),
    ])


def test_failed_command_in_exec_raises_nothing_for_it(watch):
    watch.check([
        (("set", "s", "str"), OK, [("set", "s")]),
        (("multi",), OK, []),
        (("lpush", "s", "x"), S("QUEUED"), []),
        (("set", "t", "1"), S("QUEUED"), []),
        (("exec",), [Error("WRONGTYPE Operation against a key holding the wrong kind of value"), OK],
         [("set", "t")]),
    ])


# --- evicted ------------------------------------------------------------------------------------

def test_evicted_events(connect):
    w = Watcher(connect, flags="Ee")
    info = w.cmd.call("info", "memory").decode()
    used = int(next(line.split(":")[1] for line in info.split("\r\n") if line.startswith("used_memory:")))
    assert w.cmd.call("config", "set", "maxmemory-policy", "allkeys-lru") == OK
    assert w.cmd.call("config", "set", "maxmemory", str(used + 200000)) == OK
    for i in range(400):
        assert w.cmd.call("set", "key%d" % i, "x" * 1000) == OK
    assert w.cmd.call("config", "set", "maxmemory", "0") == OK
    events = w.collect()
    assert events, "nothing was evicted"
    assert all(ch == "__keyevent@0__:evicted" for ch, _ in events)
    evicted = [key for _, key in events]
    assert len(set(evicted)) == len(evicted)
    assert len(evicted) + w.cmd.call("dbsize") == 400
    assert w.cmd.call("exists", *evicted) == 0
