"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/):
small valid inputs of each format, built here from the formats' definitions,
so a fuzzer starts from inputs that reach deep into the code. Run from
tests/fuzz with /usr/bin/python3 make_seeds.py [restore PORT]; the output is
committed. `restore PORT` also writes the seeds taken from a running Redis
7.0 (DUMP payloads, HyperLogLog values)."""
import os
import struct


def w(target, name, data):
    os.makedirs(os.path.join("corpus", target), exist_ok=True)
    with open(os.path.join("corpus", target, name), "wb") as f:
        f.write(data)


def resp_seeds():
    w("fuzz_resp", "set", b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n")
    w("fuzz_resp", "pipeline", b"*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\nPING\r\n")
    w("fuzz_resp", "inline_quotes", b"SET \"a b\\x41\\n\" 'c d' e\r\nGET k\n")
    w("fuzz_resp", "empty_multibulk", b"*0\r\n*-1\r\n$0\r\n\r\n")
    w("fuzz_resp", "bad_len", b"*2\r\n$-1\r\n$10000000000\r\n")
    w("fuzz_resp", "big_count", b"*1048577\r\n$3\r\nfoo\r\n")


def lp_backlen(n):
    out = [n & 127]
    n >>= 7
    while n:
        out.append((n & 127) | 128)
        n >>= 7
    return bytes(reversed(out))


def lp_entry(v):
    if isinstance(v, int):
        if 0 <= v < 128:
            e = bytes([v])
        elif -4096 <= v < 4096:
            u = v & 0x1fff
            e = bytes([0xC0 | (u >> 8), u & 0xff])
        elif -32768 <= v < 32768:
            e = b"\xf1" + struct.pack("<h", v)
        elif -(1 << 23) <= v < (1 << 23):
            e = b"\xf2" + struct.pack("<i", v)[:3]
        elif -(1 << 31) <= v < (1 << 31):
            e = b"\xf3" + struct.pack("<i", v)
        else:
            e = b"\xf4" + struct.pack("<q", v)
    elif len(v) < 64:
        e = bytes([0x80 | len(v)]) + v
    elif len(v) < 4096:
        e = bytes([0xE0 | (len(v) >> 8), len(v) & 0xff]) + v
    else:
        e = b"\xf0" + struct.pack("<I", len(v)) + v
    return e + lp_backlen(len(e))


def listpack(items):
    body = b"".join(lp_entry(i) for i in items)
    return struct.pack("<IH", 6 + len(body) + 1, min(len(items), 65535)) + body + b"\xff"


def listpack_seeds():
    w("fuzz_listpack", "empty", listpack([]))
    w("fuzz_listpack", "small", listpack([b"a", b"hello", 1, 127, 200, -5]))
    w("fuzz_listpack", "ints", listpack([1000, -30000, 100000, 1 << 30, -(1 << 40), 2**63 - 1]))
    w("fuzz_listpack", "strings", listpack([b"x" * 63, b"y" * 64, b"z" * 300, b"w" * 5000]))
    w("fuzz_listpack", "pairs", listpack([b"f1", b"v1", b"f2", 2, b"member", b"1.5"]))


def intset(enc, vals):
    fmt = {2: "<h", 4: "<i", 8: "<q"}[enc]
    return struct.pack("<II", enc, len(vals)) + b"".join(struct.pack(fmt, v) for v in sorted(vals))


def intset_seeds():
    w("fuzz_intset", "i16", intset(2, [1, 2, 3, -7, 300]))
    w("fuzz_intset", "i32", intset(4, [70000, -70000, 5]))
    w("fuzz_intset", "i64", intset(8, [1 << 40, -(1 << 50), 0]))


def lua_seeds():
    # struct: one byte giving the format's length, the format, the data.
    formats = [(b"<i4", struct.pack("<i", -5)), (b">HhBbLl", bytes(range(20))), (b"c0", b"\x05hello"),
               (b"s", b"abc\x00def"), (b"!4 i8 d f", bytes(range(32))), (b"Bc0", b"\x03xyz")]
    for n, (fmt, data) in enumerate(formats):
        w("fuzz_lua_struct", "f%d" % n, bytes([len(fmt)]) + fmt + data)
    # MessagePack
    w("fuzz_lua_cmsgpack", "array", b"\x93\x01\x02\x03")
    w("fuzz_lua_cmsgpack", "map", b"\x82\xa1a\x01\xa1b\x92\xc3\xc2")
    w("fuzz_lua_cmsgpack", "numbers", b"\xcb\x40\x09\x21\xfb\x54\x44\x2d\x18\xcd\x01\x00"
      b"\xd3\xff\xff\xff\xff\xff\xff\xff\xfe\xca\x3f\xc0\x00\x00")
    w("fuzz_lua_cmsgpack", "strings", b"\xa5hello\xd9\x05world\xda\x00\x03abc\xc0")
    w("fuzz_lua_cmsgpack", "nested", b"\x91" * 20 + b"\x80")
    w("fuzz_lua_cmsgpack", "big", b"\xdd\x00\x00\x00\x03\x01\x02\x03\xdf\x00\x00\x00\x01\x01\x02")


def crc64_jones(data, crc=0):
    """CRC-64 Jones, reflected (core/crc64.c): crc64_jones(b"123456789") == 0xe9c6d914c4b8d9ca."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x95ac9329ac4bc9b5 if crc & 1 else crc >> 1
    return crc


def crc32c(data, crc=0):
    """CRC-32C (core/crc32c.c): crc32c(b"123456789") == 0xe3069283."""
    crc ^= 0xffffffff
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82f63b78 if crc & 1 else crc >> 1
    return crc ^ 0xffffffff


def spool_record(typ, body, first_format=False):
    """A record of the push's spool (EXPIRY_0MQ.md, "The file format"): "EXS2"
    with a CRC-32C, or the first format, "EXS1" with a CRC-64, still read."""
    head = struct.pack("=IB3xI4x", 0x31535845 if first_format else 0x32535845, typ, len(body))
    if first_format:
        return head + struct.pack("=Q", crc64_jones(body, crc64_jones(head))) + body
    return head + struct.pack("=I4x", crc32c(body, crc32c(head))) + body


def spool_message(seq, key, value, first_format=False):
    frames = struct.pack("=HH", 0, 0) + struct.pack("=I", len(key)) + key + struct.pack("=I", len(value)) + value
    klen, vlen = 4 + len(key), 4 + len(value)
    return spool_record(1, struct.pack("=QqII", seq, 1796170000000, klen, vlen) + frames, first_format)


def spool_seeds():
    assert crc64_jones(b"123456789") == 0xe9c6d914c4b8d9ca
    assert crc32c(b"123456789") == 0xe3069283
    msgs = b"".join(spool_message(100 + i, b"k%d" % i, b"v%d" % i) for i in range(3))
    w("fuzz_spool", "messages", msgs)
    w("fuzz_spool", "done_marks", msgs + spool_record(2, struct.pack("=Q", 101)) + spool_record(3, struct.pack("=Q", 102)))
    w("fuzz_spool", "damaged_middle", msgs[:40] + b"\xff" * 8 + msgs[48:])
    w("fuzz_spool", "cut_off", msgs[:-5])
    w("fuzz_spool", "first_format", spool_message(99, b"old", b"v", True) + msgs)


# The cluster bus (fuzz_cluster_bus): Redis 7.0's message layout, big-endian
# (../shared/specs/cluster-bus-7.0.md; checked against the reference): a
# 2256-byte header, then the type's body. The target's first byte picks the
# link (0: unnamed inbound, 1: the known peer PEER's); it rewrites the
# signature and the length itself.
PEER = b"fuzzpeer00000000000000000000000000000000"
STRANGER = b"strange0000000000000000000000000000000000"[:40]


def bus_header(typ, sender=PEER, count=0, flags=1, epoch=5, slots=b"", exts=0, mflags=0):
    h = bytearray(2256)
    h[0:4] = b"RCmb"
    struct.pack_into(">HHHH", h, 8, 1, 30001, typ, count)
    struct.pack_into(">QQQ", h, 16, epoch, epoch, 1000)
    h[40:80] = sender
    h[80:80 + len(slots)] = slots
    h[2168:2177] = b"127.0.0.1"
    struct.pack_into(">H", h, 2214, exts)
    struct.pack_into(">HHHBB", h, 2246, 0, 40001, flags, 0, mflags)
    return bytes(h)


def gossip_entry(name, port, flags):
    g = bytearray(104)
    g[0:40] = name
    g[48:57] = b"127.0.0.1"
    struct.pack_into(">HHHH", g, 94, port, port + 10000, flags, 0)
    return bytes(g)


def cluster_bus_seeds():
    upper = b"\x00" * 1024 + b"\xff" * 1024  # the slots 8192-16383 (the peer's)
    entries = gossip_entry(STRANGER, 30002, 1) + gossip_entry(b"other000" * 5, 30003, 8 | 4)
    hostname = b"my-host\x00"
    ext = struct.pack(">HHI", 0, 0, 8 + len(hostname)) + hostname
    seeds = {
        "ping": (1, bus_header(0, count=2, slots=upper) + entries),
        "pong_hostname": (1, bus_header(1, slots=upper, exts=1) + ext),
        "meet_stranger": (0, bus_header(2, sender=STRANGER)),
        "fail": (1, bus_header(3) + STRANGER),
        "publish": (1, bus_header(4) + struct.pack(">II", 2, 5) + b"chhello"),
        "auth_request": (1, bus_header(5, flags=2, epoch=9)),
        "auth_ack": (1, bus_header(6)),
        "update": (1, bus_header(7) + struct.pack(">Q", 9) + PEER + b"\xff" * 2048),
        "mfstart": (1, bus_header(8, flags=2)),
        "module": (1, bus_header(9) + struct.pack(">QIB", 1, 3, 0) + b"abc"),
        "publishshard": (1, bus_header(10) + struct.pack(">II", 1, 1) + b"cm"),
    }
    for name, (link, msg) in seeds.items():
        w("fuzz_cluster_bus", name, bytes([link]) + msg)


if __name__ == "__main__":
    spool_seeds()
    resp_seeds()
    cluster_bus_seeds()
    listpack_seeds()
    intset_seeds()
    lua_seeds()


def restore_seeds(port=None):
    """DUMP payloads of every type and encoding from a running Redis 7.0
    (`make_seeds.py restore PORT`), less their RDB version and CRC64, behind
    the target's settings byte."""
    import redis
    r = redis.Redis(port=port)
    r.flushall()
    r.set("str", "hello")
    r.set("int", 12345)
    r.set("raw", "x" * 100)
    r.rpush("list", "a", "b", 1, 2, "c" * 70)
    r.sadd("intset", 1, 2, 3, -100000, 1 << 40)
    r.sadd("set", "a", "b", "c")
    r.sadd("bigset", *["m%d" % i for i in range(200)])
    r.hset("hash", mapping={"f": "v", "n": 7})
    r.hset("bighash", mapping={"f%d" % i: "v" * (i % 90) for i in range(200)})
    r.zadd("zset", {"a": 1, "b": 2.5, "c": -3})
    r.zadd("bigzset", {"m%d" % i: i / 3 for i in range(200)})
    r.xadd("stream", {"f": "v", "g": "w"}, id="1-1")
    r.xadd("stream", {"f": "v2"}, id="2-0")
    r.xgroup_create("stream", "grp", id="0")
    r.xreadgroup("grp", "alice", {"stream": ">"}, count=1)
    for key in r.keys("*"):
        payload = r.dump(key)
        w("fuzz_restore", key.decode(), b"\x00" + payload[:-10])


def hll_seeds(port):
    """HyperLogLog values of each encoding from a running Redis 7.0, less
    their "HYLL" magic, behind the target's hll-sparse-max-bytes byte."""
    import redis
    r = redis.Redis(port=port)
    r.pfadd("empty")
    r.pfadd("small", "a", "b", "c")
    r.pfadd("mid", *["e%d" % i for i in range(300)])
    r.pfadd("dense", *["e%d" % i for i in range(5000)])
    for key in ("empty", "small", "mid", "dense"):
        w("fuzz_hll", key, b"\x30" + r.get(key)[4:])


if __name__ == "__main__" and len(__import__("sys").argv) > 2 and __import__("sys").argv[1] == "restore":
    restore_seeds(int(__import__("sys").argv[2]))
    hll_seeds(int(__import__("sys").argv[2]))
