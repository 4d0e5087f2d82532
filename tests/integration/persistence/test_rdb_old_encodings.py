"""RDB files with the encodings older Redis versions wrote (ziplist hashes,
sorted sets and lists, quicklists of ziplists, zipmap-free v9 files) load into
ours with the same contents Redis 7.0 loads from them."""
import shutil
import struct

import pytest

from support import enc72, payload_of, rdb_len, rdb_str

REF_SERVER = shutil.which("redis-server")
# A small list loads as one listpack on ours (Redis 7.2), a quicklist on 7.0.
SMALL_LIST = enc72(b"listpack", b"quicklist")


def ziplist(entries):
    """A ziplist blob (the pre-7.0 compact encoding) of strings and ints."""
    body = b""
    prevlen = 0
    tail = 10
    for e in entries:
        tail = 10 + len(body)
        pl = bytes([prevlen]) if prevlen < 254 else b"\xfe" + struct.pack("<I", prevlen)
        if isinstance(e, int):
            if 0 <= e <= 12:
                enc = bytes([0xF1 + e])
            elif -128 <= e <= 127:
                enc = b"\xfe" + struct.pack("<b", e)
            elif -32768 <= e <= 32767:
                enc = b"\xc0" + struct.pack("<h", e)
            elif -(1 << 31) <= e < (1 << 31):
                enc = b"\xd0" + struct.pack("<i", e)
            else:
                enc = b"\xe0" + struct.pack("<q", e)
        else:
            assert len(e) < 64
            enc = bytes([len(e)]) + e
        entry = pl + enc
        body += entry
        prevlen = len(entry)
    total = 10 + len(body) + 1
    return struct.pack("<IIH", total, tail, len(entries)) + body + b"\xff"


def zipmap(pairs, count=None, free=0):
    """A zipmap blob (hashes before Redis 2.6): count, <len>field<len><free>value..., 255."""
    def zlen(n):
        return bytes([n]) if n < 254 else b"\xfe" + struct.pack("<I", n)
    body = bytes([len(pairs) if count is None else count])
    for f, v in pairs:
        body += zlen(len(f)) + f + zlen(len(v)) + bytes([free]) + v + b"\x00" * free
    return body + b"\xff"


def linked_list(items):
    """RDB type 1 (lists before Redis 3.2): a count and the strings."""
    return rdb_len(len(items)) + b"".join(rdb_str(i) for i in items)


BIG_ZIPMAP = [(b"f%d" % i, b"v%d" % i) for i in range(300)]


def build_rdb():
    out = b"REDIS0009" + b"\xfe\x00"
    # hash as ziplist: field, value, field, value...
    out += b"\x0d" + rdb_str(b"zh") + rdb_str(ziplist([b"f1", b"v1", b"num", 300, b"neg", -7]))
    # zset as ziplist: member, score (scores as strings or ints)
    out += b"\x0c" + rdb_str(b"zz") + rdb_str(ziplist([b"a", 1, b"b", b"2.5", b"c", 100000]))
    # list as a plain ziplist (RDB type 10)
    out += b"\x0a" + rdb_str(b"zl") + rdb_str(ziplist([b"x", 5, b"y", 70000, 1 << 40]))
    # list as quicklist of ziplists (RDB type 14, Redis 3.2..6.2)
    out += b"\x0e" + rdb_str(b"ql") + rdb_len(2) + rdb_str(ziplist([b"n1", b"n2"])) + rdb_str(ziplist([3, b"n4"]))
    # old ZSET type 3 with scores as length-prefixed strings
    out += b"\x03" + rdb_str(b"oldz") + rdb_len(2) + rdb_str(b"m1") + b"\x031.5" + rdb_str(b"m2") + b"\x01" + b"7"
    # hash as zipmap (RDB type 9, before 2.6): small, one with free bytes and a long value, one past the limits
    out += b"\x09" + rdb_str(b"zm") + rdb_str(zipmap([(b"a", b"1"), (b"bb", b"22")]))
    out += b"\x09" + rdb_str(b"zmlong") + rdb_str(zipmap([(b"k", b"x" * 300)], free=3))
    out += b"\x09" + rdb_str(b"zmbig") + rdb_str(zipmap(BIG_ZIPMAP, count=254))
    # list as a linked list (RDB type 1, before 3.2)
    out += b"\x01" + rdb_str(b"ll") + linked_list([b"a", b"bb", b"300", b"c" * 100])
    out += b"\xff" + b"\x00" * 8  # EOF and a zero checksum (not checked)
    return out


EXPECTED = {
    b"zh": {b"f1": b"v1", b"num": b"300", b"neg": b"-7"},
    b"zz": [(b"a", 1.0), (b"b", 2.5), (b"c", 100000.0)],
    b"zl": [b"x", b"5", b"y", b"70000", str(1 << 40).encode()],
    b"ql": [b"n1", b"n2", b"3", b"n4"],
    b"oldz": [(b"m1", 1.5), (b"m2", 7.0)],
    b"zm": {b"a": b"1", b"bb": b"22"},
    b"zmlong": {b"k": b"x" * 300},
    b"zmbig": dict(BIG_ZIPMAP),
    b"ll": [b"a", b"bb", b"300", b"c" * 100],
}


def check(r, small_list=SMALL_LIST):
    assert r.hgetall("zh") == EXPECTED[b"zh"]
    assert r.zrange("zz", 0, -1, withscores=True) == EXPECTED[b"zz"]
    assert r.lrange("zl", 0, -1) == EXPECTED[b"zl"]
    assert r.lrange("ql", 0, -1) == EXPECTED[b"ql"]
    assert r.zrange("oldz", 0, -1, withscores=True) == EXPECTED[b"oldz"]
    assert r.object("encoding", "zh") == b"listpack"
    assert r.object("encoding", "zz") == b"listpack"
    assert r.object("encoding", "zl") == small_list
    for key in ("zm", "zmlong", "zmbig"):
        assert r.hgetall(key) == EXPECTED[key.encode()]
    assert r.hkeys("zm") == [b"a", b"bb"]  # the zipmap's order
    assert r.object("encoding", "zm") == b"listpack"
    assert r.object("encoding", "zmlong") == b"hashtable"
    assert r.object("encoding", "zmbig") == b"listpack"  # 300 pairs, within the default 512 entries
    assert r.lrange("ll", 0, -1) == EXPECTED[b"ll"]
    assert r.object("encoding", "ll") == small_list
    # The data stays writable in its new encoding.
    r.hset("zh", "new", "1")
    r.zadd("zz", {"d": 4})
    r.rpush("ql", "n5")
    assert r.hlen("zh") == 4 and r.zcard("zz") == 4 and r.llen("ql") == 5


def test_old_encodings_load(server_factory, tmp_path):
    (tmp_path / "dump.rdb").write_bytes(build_rdb())
    s = server_factory("--dir", str(tmp_path))
    check(s.client())
    # Saved again, the file is in today's encodings and loads back the same.
    r = s.client()
    r.save()
    assert server_factory("--dir", str(tmp_path)).client().hgetall("zh")[b"new"] == b"1"


@pytest.mark.skipif(REF_SERVER is None, reason="Debian's redis-server is not installed")
def test_reference_reads_the_crafted_file_the_same_way(server_factory, tmp_path):
    (tmp_path / "dump.rdb").write_bytes(build_rdb())
    s = server_factory("--dir", str(tmp_path), binary=REF_SERVER)
    check(s.client(), small_list=b"quicklist")


@pytest.mark.parametrize("limits,encodings", [
    (("--hash-max-listpack-entries", "1"), (b"hashtable", b"hashtable", b"hashtable")),
    (("--hash-max-listpack-entries", "2"), (b"listpack", b"hashtable", b"hashtable")),
    (("--hash-max-listpack-entries", "299"), (b"listpack", b"hashtable", b"hashtable")),
    (("--hash-max-listpack-entries", "300"), (b"listpack", b"hashtable", b"listpack")),
    (("--hash-max-listpack-value", "1"), (b"hashtable", b"hashtable", b"hashtable")),
    (("--hash-max-listpack-value", "2"), (b"listpack", b"hashtable", b"hashtable")),  # zmbig has "f100"
], ids=["entries-1", "entries-2", "entries-299", "entries-300", "value-1", "value-2"])
def test_zipmap_hash_honours_the_listpack_limits(server_factory, tmp_path, limits, encodings):
    """A zipmap hash loads as a listpack within hash-max-listpack-entries and
    -value, as a hash table past either (Redis 7.0; its unit
    integration/convert-zipmap-hash-on-load)."""
    (tmp_path / "dump.rdb").write_bytes(build_rdb())
    r = server_factory("--dir", str(tmp_path), *limits).client()
    assert tuple(r.object("encoding", k) for k in ("zm", "zmlong", "zmbig")) == encodings
    for key in ("zm", "zmlong", "zmbig"):
        assert r.hgetall(key) == EXPECTED[key.encode()]


@pytest.mark.parametrize("body,check", [
    (b"\x09" + rdb_str(zipmap([(b"a", b"1"), (b"bb", b"22")])),
     lambda r: r.hgetall("k") == {b"a": b"1", b"bb": b"22"} and r.object("encoding", "k") == b"listpack"),
    (b"\x09" + rdb_str(zipmap(BIG_ZIPMAP, count=254)),
     lambda r: r.hgetall("k") == dict(BIG_ZIPMAP) and r.object("encoding", "k") == b"listpack"),
    (b"\x09" + rdb_str(zipmap([(b"k", b"x" * 300)], free=3)),
     lambda r: r.hgetall("k") == {b"k": b"x" * 300} and r.object("encoding", "k") == b"hashtable"),
    (b"\x01" + linked_list([b"a", b"b", b"1"]),
     lambda r: r.lrange("k", 0, -1) == [b"a", b"b", b"1"] and r.object("encoding", "k") == SMALL_LIST),
], ids=["zipmap", "zipmap-big", "zipmap-long", "linked-list"])
@pytest.mark.parametrize("sanitize", ["yes", "no"])
def test_restore_old_encodings(r, body, check, sanitize):
    r.config_set("sanitize-dump-payload", sanitize)
    assert r.restore("k", 0, payload_of(body))
    assert check(r)


@pytest.mark.parametrize("body", [
    b"\x09" + rdb_str(zipmap([(b"a", b"1"), (b"a", b"2")])),           # duplicate field
    b"\x09" + rdb_str(zipmap([(b"a", b"1")], count=2)),                 # wrong count
    b"\x09" + rdb_str(zipmap([])),                                      # empty
    b"\x09" + rdb_str(zipmap([(b"a", b"1")])[:-1]),                     # no end marker
    b"\x09" + rdb_str(b"\x01\x05ab"),                                   # field past the end
    b"\x09" + rdb_str(b"\x01\xfe\xff\xff\xff\x7fab\xff"),              # huge big length
    b"\x01" + rdb_len(0),                                              # empty list
    b"\x01" + rdb_len(3) + rdb_str(b"a"),                              # short
], ids=["dup", "count", "empty", "noend", "past-end", "huge-len", "empty-list", "short-list"])
def test_restore_corrupt_old_encodings(r, body):
    r.config_set("sanitize-dump-payload", "yes")
    with pytest.raises(Exception, match="Bad data format"):
        r.restore("k", 0, payload_of(body))
    assert r.ping()
