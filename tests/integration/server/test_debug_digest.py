"""DEBUG DIGEST and DEBUG DIGEST-VALUE give Redis 7.0's figures: a model of
the digest (below) computed from the data the test wrote must equal what the
server answers, so datasets can be compared across our servers and Redis's
(replication tests of Redis's own suite compare them)."""
import hashlib
import struct

import pytest

ZERO = bytes(20)
TYPES = {"string": 0, "list": 1, "set": 2, "zset": 3, "hash": 4, "stream": 6}


def sha1(b):
    return hashlib.sha1(b).digest()


def xor_in(d, b):
    """XOR the SHA1 of b into d."""
    return bytes(x ^ y for x, y in zip(d, sha1(b)))


def mix_in(d, b):
    """XOR the SHA1 of b into d, then hash d."""
    return sha1(xor_in(d, b))


def value_digest(d, typ, value, volatile=False):
    d = mix_in(d, struct.pack(">I", TYPES[typ]))
    if typ == "string":
        d = mix_in(d, value)
    elif typ == "list":
        for e in value:
            d = mix_in(d, e)
    elif typ == "set":
        for e in value:
            d = xor_in(d, e)
    elif typ in ("zset", "hash"):
        for member, second in value:
            if typ == "zset":
                second = b"%.17g" % second
            d = xor_in(d, mix_in(mix_in(ZERO, member), second))
    elif typ == "stream":
        for (ms, seq), fields in value:
            d = mix_in(d, b"%d.%d" % (ms, seq))
            for f, v in fields:
                d = mix_in(mix_in(d, f), v)
    if volatile:
        d = xor_in(d, b"!!expire!!")
    return d


def dataset_digest(dbs):
    """dbs: {db: [(key, type, value, volatile)]}"""
    final = ZERO
    for db in sorted(dbs):
        if not dbs[db]:
            continue
        final = mix_in(final, struct.pack(">I", db))
        for key, typ, value, volatile in dbs[db]:
            final = xor_in(final, value_digest(mix_in(ZERO, key), typ, value, volatile))
    return final.hex()


DATA = [
    (b"str", "string", b"hello", False),
    (b"int", "string", b"12345", False),
    (b"bin\x00", "string", b"\x00\xff\r\n", True),
    (b"list", "list", [b"x", b"y", b"12", b"z" * 100], False),
    (b"set", "set", [b"m1", b"m2", b"m3"], False),
    (b"intset", "set", [b"1", b"2", b"300", b"-7"], False),
    (b"zset", "zset", [(b"a", 1.5), (b"b", 3.0), (b"c", -0.1), (b"d", 1e300)], False),
    (b"hash", "hash", [(b"f1", b"v1"), (b"f2", b"7")], True),
    (b"stream", "stream", [((1, 1), [(b"f", b"v"), (b"g", b"12")]), ((5, 0), [(b"f", b"w")])], False),
]


def load(r, data):
    for key, typ, value, volatile in data:
        if typ == "string":
            r.set(key, value)
        elif typ == "list":
            r.rpush(key, *value)
        elif typ == "set":
            r.sadd(key, *value)
        elif typ == "zset":
            r.zadd(key, dict(value))
        elif typ == "hash":
            r.hset(key, mapping=dict(value))
        elif typ == "stream":
            for (ms, seq), fields in value:
                r.xadd(key, dict(fields), id="%d-%d" % (ms, seq))
        if volatile:
            r.expire(key, 1000)


pytestmark = pytest.mark.server_args("--enable-debug-command", "yes")  # the `server` fixture's server allows DEBUG


def test_empty_dataset_and_missing_key_digest_to_zeros(server):
    r = server.client()
    assert r.execute_command("DEBUG", "DIGEST") == b"0" * 40
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "nokey") == [b"0" * 40]
    assert r.execute_command("DEBUG", "DIGEST-VALUE") == []


def test_values_digest_as_redis_does(server):
    r = server.client()
    load(r, DATA)
    keys = [k for k, *_ in DATA]
    got = r.execute_command("DEBUG", "DIGEST-VALUE", *keys)
    want = [value_digest(ZERO, typ, value, volatile).hex().encode() for _, typ, value, volatile in DATA]
    assert got == want


def test_dataset_digest_across_databases(server):
    r0, r3 = server.client(db=0), server.client(db=3)
    load(r0, DATA[:5])
    load(r3, DATA[5:])
    assert r0.execute_command("DEBUG", "DIGEST").decode() == dataset_digest({0: DATA[:5], 3: DATA[5:]})


def test_digest_does_not_depend_on_encoding(server):
    r = server.client()
    r.hset("h", mapping={"a": "1", "b": "2"})
    r.zadd("z", {"m": 1})
    r.sadd("s", 1, 2)
    small = r.execute_command("DEBUG", "DIGEST")
    r.config_set("hash-max-listpack-entries", 0)
    r.config_set("zset-max-listpack-entries", 0)
    r.config_set("set-max-intset-entries", 0)
    r.execute_command("DEBUG", "RELOAD")
    assert r.object("encoding", "h") == b"hashtable"
    assert r.execute_command("DEBUG", "DIGEST") == small
