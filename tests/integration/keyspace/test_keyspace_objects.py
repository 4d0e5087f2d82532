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


# Small collections (listpack encodings) are kept in one allocation with their
# key between commands: a write unpacks the object in place and the key is
# packed again after the command. The tests below go through the write paths
# of each type, with TTLs, transactions, scripts and moves in between, and
# check contents, TTLs and that active expiry still finds the keys (plain
# Redis behaviour: they pass on Redis 7.0.15 too).

def small_collections(r, n, suffix=""):
    p = r.pipeline(transaction=False)
    for i in range(n):
        p.hset("h%d%s" % (i, suffix), mapping={"f%d" % j: "v%d" % j for j in range(6)})
        p.rpush("l%d%s" % (i, suffix), *["i%d" % j for j in range(6)])
        p.sadd("s%d%s" % (i, suffix), *["m%d" % j for j in range(6)])
        p.zadd("z%d%s" % (i, suffix), {"m%d" % j: j for j in range(6)})
        for t in "hlsz":
            p.expire("%s%d%s" % (t, i, suffix), 1000)
    p.execute()


def test_small_collections_keep_contents_and_ttls_through_writes(r):
    small_collections(r, 50)
    p = r.pipeline(transaction=False)
    for i in range(50):
        p.hset("h%d" % i, "f1", "changed")
        p.hincrby("h%d" % i, "n", i)
        p.hdel("h%d" % i, "f0")
        p.lpush("l%d" % i, "head")
        p.lset("l%d" % i, 3, "set")
        p.linsert("l%d" % i, "before", "i5", "ins")
        p.lrem("l%d" % i, 0, "i4")
        p.rpop("l%d" % i)
        p.sadd("s%d" % i, "new")
        p.srem("s%d" % i, "m0")
        p.zadd("z%d" % i, {"m1": 100, "new": 0.5})
        p.zincrby("z%d" % i, 2, "m2")
        p.zrem("z%d" % i, "m0")
        p.zremrangebyscore("z%d" % i, 4, 4)
    p.execute()
    for i in range(50):
        assert r.hgetall("h%d" % i) == {b"f1": b"changed", b"f2": b"v2", b"f3": b"v3", b"f4": b"v4",
                                         b"f5": b"v5", b"n": b"%d" % i}
        assert r.lrange("l%d" % i, 0, -1) == [b"head", b"i0", b"i1", b"set", b"i3", b"ins"]
        assert r.smembers("s%d" % i) == {b"m1", b"m2", b"m3", b"m4", b"m5", b"new"}
        # m2 reached 4 and went with m4
        assert r.zrange("z%d" % i, 0, -1, withscores=True) == [(b"new", 0.5), (b"m3", 3.0), (b"m5", 5.0),
                                                                (b"m1", 100.0)]
        for t in "hlsz":
            assert 0 < r.ttl("%s%d" % (t, i)) <= 1000
        for t in "hz":                       # 7.0 keeps small lists and sets otherwise
            assert r.object("encoding", "%s%d" % (t, i)) == b"listpack"
    p = r.pipeline(transaction=False)
    for i in range(50):
        for t in "hlsz":
            p.pexpire("%s%d" % (t, i), 20 + i)
    p.execute()
    assert wait_for(lambda: r.dbsize() == 0)


def test_small_collections_in_transactions_scripts_and_moves(r):
    small_collections(r, 10)
    with r.pipeline(transaction=True) as p:
        for i in range(10):
            p.hset("h%d" % i, "x", "1")
            p.hset("h%d" % i, "y", "2")      # the same key twice in one EXEC
            p.rpoplpush("l%d" % i, "l%d" % ((i + 1) % 10))
        p.execute()
    script = "redis.call('SADD', KEYS[1], 'a'); redis.call('SREM', KEYS[1], 'm1'); " \
             "redis.call('ZADD', KEYS[2], 7, 'a'); return redis.call('SCARD', KEYS[1])"
    for i in range(10):
        assert r.eval(script, 2, "s%d" % i, "z%d" % i) == 6
    r.rename("h0", "h0r")
    r.copy("s0", "s0c")
    r.move("z0", 1)
    r.swapdb(0, 1)
    r.swapdb(0, 1)
    assert r.hmget("h0r", "x", "y", "f5") == [b"1", b"2", b"v5"]
    assert 0 < r.ttl("h0r") <= 1000
    assert r.smembers("s0c") == {b"a", b"m0", b"m2", b"m3", b"m4", b"m5"}
    assert 0 < r.ttl("s0c") <= 1000
    r.select(1)
    assert r.zscore("z0", "a") == 7.0 and 0 < r.ttl("z0") <= 1000
    r.select(0)
    for i in range(10):
        assert r.llen("l%d" % i) == 6
    # SPOP with a count that leaves few members keeps them in a new set.
    r.sadd("many", *["e%d" % j for j in range(40)])
    popped = r.spop("many", 36)
    assert len(set(popped)) == 36 and r.scard("many") == 4
    assert set(popped) | r.smembers("many") == {b"e%d" % j for j in range(40)}
    d = r.dump("h1")
    r.restore("h1copy", 0, d)
    assert r.hgetall("h1copy") == r.hgetall("h1")


def snapshot(r):
    """Every key's contents (sets as sets: their order is the encoding's) and whether it has a TTL."""
    read = {b"hash": r.hgetall, b"list": lambda k: r.lrange(k, 0, -1), b"set": r.smembers,
            b"zset": lambda k: r.zrange(k, 0, -1, withscores=True)}
    return {k: (read[r.type(k)](k), r.ttl(k) > 0) for k in r.keys("*")}


def test_small_collections_survive_reload_and_aof(server_factory):
    s = server_factory("--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--enable-debug-command", "yes")
    r = s.client()
    small_collections(r, 20)
    for i in range(20):
        r.hset("h%d" % i, "after", "%d" % i)
        r.zadd("z%d" % i, {"after": i})
    want = snapshot(r)
    r.execute_command("DEBUG", "LOADAOF")
    assert snapshot(r) == want
    r.execute_command("DEBUG", "RELOAD")
    assert snapshot(r) == want
    r.hset("h3", "again", "1")
    assert r.hget("h3", "after") == b"3" and r.hget("h3", "again") == b"1"


@pytest.mark.ours
@pytest.mark.server_args("--enable-debug-command", "yes")
def test_small_hash_is_one_allocation_with_its_key(r):
    # 8-byte header | key | listpack: 10 small fields under "h:1" are 121
    # bytes, one 128-byte block, plus the table's slot (32 + 112 unpacked).
    if not r.info("memory")["mem_allocator"].startswith("jemalloc"):
        pytest.skip("block sizes are jemalloc's")
    fields = {"f%d" % j: "val%d" % j for j in range(10)}
    r.hset("h:1", mapping=fields)
    assert r.memory_usage("h:1") == 136
    r.hset("h:1", "f3", "VAL3")              # unpacked for the write, packed after it
    assert r.memory_usage("h:1") == 136
    assert r.hget("h:1", "f3") == b"VAL3"
    # Past OBJ_PACKED_MAX_BYTES the listpack keeps its own block.
    r.hset("big", mapping={"f%d" % j: "v" * 40 for j in range(20)})
    assert r.memory_usage("big") > 900
    r.execute_command("DEBUG", "RELOAD")
    assert r.memory_usage("h:1") == 136 and r.hgetall("h:1")[b"f3"] == b"VAL3"
    # 5000 keys written by one script are all packed after it, and so are
    # the keys written after such a burst.
    r.eval("for i = 0, 4999 do redis.call('HSET', 'x:' .. i, " +
           ", ".join("'f%d', 'val%d'" % (j, j) for j in range(10)) + ") end", 0)
    assert r.memory_usage("x:1") == 136 and r.memory_usage("x:4999") == 136
    r.hset("h:2", mapping=fields)
    assert r.memory_usage("h:2") == 136
