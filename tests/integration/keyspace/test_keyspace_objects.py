"""Keys stored inside their value objects (issue 17): every way a value is
replaced, moved or copied keeps the key's content, TTL and expiry index right.

A stored value is rebuilt when it lands in the db (it takes the key in), so
these tests go through each path that stores or replaces a value and then
check the data, the TTL and that active expiry still finds the key. All of
it is plain Redis behaviour: the tests pass on Redis 7.0.15 too.
"""

import pytest

from support import wait_for


def test_replacing_a_value_keeps_ttl_and_active_expiry(r):
    r.set("s", "short", ex=100)
    r.append("s", "x" * 60)                # embstr -> raw, replaced in place of the key
    assert r.get("s") == b"short" + b"x" * 60
    assert 0 < r.ttl("s") <= 100
    r.set("s", "v2", keepttl=True)         # overwrite keeping the TTL
    assert 0 < r.ttl("s") <= 100
    r.set("n", "20000", ex=100)
    r.incr("n")                            # int in place
    r.incrbyfloat("n", "0.5")              # replaced by a new object
    assert r.get("n") == b"20001.5"
    assert 0 < r.ttl("n") <= 100
    r.setrange("s", 1, "ZZ")
    assert r.get("s") == b"vZZ"
    assert 0 < r.ttl("s") <= 100
    r.set("s", "plain")                    # SET without KEEPTTL drops it
    assert r.ttl("s") == -1
    r.pexpire("n", 30)
    r.pexpire("s", 30)
    # DBSIZE does not expire lazily: only active expiry can empty the db.
    assert wait_for(lambda: r.dbsize() == 0)


def test_many_overwritten_volatile_keys_all_expire(r):
    p = r.pipeline(transaction=False)
    for i in range(300):
        p.set("k%d" % i, "v", px=100000)
    for i in range(0, 300, 3):
        p.set("k%d" % i, "y" * (i % 90), keepttl=True)   # embstr and raw sizes
    for i in range(1, 300, 3):
        p.append("k%d" % i, "tail")
    for i in range(2, 300, 3):
        p.setbit("k%d" % i, 100, 1)
    p.execute()
    assert all(0 < t <= 100000 for t in (r.pttl("k%d" % i) for i in range(300)))
    p = r.pipeline(transaction=False)
    for i in range(300):
        p.pexpire("k%d" % i, 20 + i % 50)
    p.execute()
    assert wait_for(lambda: r.dbsize() == 0)


def fill_every_type(r, suffix=""):
    r.set("str" + suffix, "x" * 100)
    r.set("emb" + suffix, "small")
    r.set("int" + suffix, "123456")
    r.rpush("list" + suffix, "a", "b", "c")
    r.hset("hash" + suffix, mapping={"f1": "v1", "f2": "v2"})
    r.sadd("set" + suffix, "m1", "m2")
    r.zadd("zset" + suffix, {"a": 1, "b": 2})


def check_every_type(r, suffix=""):
    assert r.get("str" + suffix) == b"x" * 100
    assert r.get("emb" + suffix) == b"small"
    assert r.get("int" + suffix) == b"123456"
    assert r.lrange("list" + suffix, 0, -1) == [b"a", b"b", b"c"]
    assert r.hgetall("hash" + suffix) == {b"f1": b"v1", b"f2": b"v2"}
    assert r.smembers("set" + suffix) == {b"m1", b"m2"}
    assert r.zrange("zset" + suffix, 0, -1, withscores=True) == [(b"a", 1.0), (b"b", 2.0)]


NAMES = ["str", "emb", "int", "list", "hash", "set", "zset"]


def test_rename_move_copy_keep_values_and_ttls(r):
    fill_every_type(r)
    for name in NAMES:
        r.expire(name, 1000)
    for name in NAMES:
        assert r.rename(name, name + "_r")
    check_every_type(r, "_r")
    assert all(0 < r.ttl(n + "_r") <= 1000 for n in NAMES)
    assert r.object("encoding", "emb_r") == b"embstr"
    assert r.object("encoding", "str_r") == b"raw"
    assert r.object("encoding", "int_r") == b"int"
    for name in NAMES:
        assert r.move(name + "_r", 1)
    assert r.dbsize() == 0
    r.execute_command("SELECT", 1)
    check_every_type(r, "_r")
    assert all(0 < r.ttl(n + "_r") <= 1000 for n in NAMES)
    for name in NAMES:
        assert r.copy(name + "_r", name + "_c")
    check_every_type(r, "_c")
    # The copies are independent of the originals.
    r.append("str_c", "more")
    r.rpush("list_c", "d")
    r.hset("hash_c", "f3", "v3")
    r.sadd("set_c", "m3")
    r.zadd("zset_c", {"c": 3})
    check_every_type(r, "_r")
    # Active expiry still finds the moved keys.
    for name in NAMES:
        r.pexpire(name + "_r", 10)
    assert wait_for(lambda: r.dbsize() == len(NAMES))


def test_store_commands_replace_volatile_destinations(r):
    r.set("dst", "old", ex=100)
    r.sadd("a", "1", "2")
    r.sadd("b", "2", "3")
    assert r.sunionstore("dst", ["a", "b"]) == 3
    assert r.ttl("dst") == -1 and r.smembers("dst") == {b"1", b"2", b"3"}
    r.expire("dst", 100)
    r.rpush("l", "3", "1", "2")
    assert r.sort("l", store="dst") == 3
    assert r.ttl("dst") == -1 and r.lrange("dst", 0, -1) == [b"1", b"2", b"3"]
    r.expire("dst", 100)
    r.set("x", "ab")
    r.bitop("OR", "dst", "x", "x")
    assert r.ttl("dst") == -1 and r.get("dst") == b"ab"
    r.zadd("z", {"a": 1})
    assert r.zunionstore("dst", ["z"]) == 1
    assert r.ttl("dst") == -1 and r.zrange("dst", 0, -1) == [b"a"]
    # SPOP with a count rebuilds the set in place of the key.
    r.sadd("big", *[str(i) for i in range(50)])
    r.expire("big", 100)
    assert len(r.spop("big", 45)) == 45
    assert r.scard("big") == 5 and 0 < r.ttl("big") <= 100


def test_refcount_and_encoding_answers(r):
    r.set("n", "100")
    assert r.object("refcount", "n") == 2147483647   # a shared integer, as in Redis
    r.set("n", "100000")
    assert r.object("refcount", "n") == 1
    r.set("n", "9998")
    r.incr("n")
    assert r.object("refcount", "n") == 2147483647
    r.incr("n")
    assert r.object("refcount", "n") == 1
    r.set("e", "hello")
    assert r.object("refcount", "e") == 1 and r.object("encoding", "e") == b"embstr"
    r.rpush("l", "x")
    assert r.object("refcount", "l") == 1


def test_memory_usage_counts_key_and_value(r):
    r.set("k", "v")
    r.set("kk", "v" * 1000)
    small, big = r.memory_usage("k"), r.memory_usage("kk")
    assert 16 < small < 100
    assert big > 1000 and big < 1200
    r.hset("h", mapping={"a": "1"})
    # Block sizes are jemalloc's here; a sanitizer build's libc malloc rounds differently.
    if r.info("memory")["mem_allocator"].startswith("jemalloc"):
        assert r.memory_usage("h") >= small


@pytest.mark.ours
def test_short_string_key_is_one_32_byte_object(r):
    # Key and value share one allocation with the table's 8-byte slot: the key's
    # nul is not stored, so an 11-byte key and a 10-byte value fit in 32 bytes.
    if not r.info("memory")["mem_allocator"].startswith("jemalloc"):
        pytest.skip("block sizes are jemalloc's")
    r.set("key:1234567", "0123456789")
    assert r.memory_usage("key:1234567") == 40
    assert r.get("key:1234567") == b"0123456789"
    r.set("key:1234567", "x")              # a shorter value in place
    assert r.get("key:1234567") == b"x"
    assert r.keys("key:123456*") == [b"key:1234567"]
