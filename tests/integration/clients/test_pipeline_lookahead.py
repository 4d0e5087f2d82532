"""Pipelines over a big keyspace and big values: the server looks ahead in a
client's query buffer to prefetch the keys and members its commands will look
up (server/prefetch.c). Whatever the look-ahead guesses, each command must see
exactly what the commands before it left: a SELECT in the middle, a key deleted
or created by an earlier command, options that move ZADD's members, requests
cut at any byte. These hold on any Redis; the tables are made big enough for
the look-ahead to run on ours (16384 keys, 4096 members)."""
import random
import socket

KEYS = 20000
MEMBERS = 5000


def fill_keyspace(r, db=0, prefix="k"):
    r.execute_command("SELECT", db)
    pipe = r.pipeline(transaction=False)
    for i in range(KEYS):
        pipe.set("%s:%d" % (prefix, i), "v%d:%d" % (db, i))
    pipe.execute()


def test_pipeline_sees_every_earlier_command(server):
    r = server.client(decode_responses=True)
    r.select(1)
    fill_keyspace(r, 1)
    r.select(0)
    fill_keyspace(r, 0)
    # One write, many commands: SELECT moves the later ones to another db,
    # DEL/SET change what later lookups of the same key find.
    pipe = r.pipeline(transaction=False)
    pipe.get("k:1")
    pipe.execute_command("SELECT", 1)
    pipe.get("k:1")
    pipe.delete("k:2")
    pipe.get("k:2")
    pipe.set("k:2", "new")
    pipe.get("k:2")
    pipe.incr("counter")
    pipe.incr("counter")
    pipe.mset({"k:3": "m3", "k:4": "m4", "fresh:1": "f1"})
    pipe.mget("k:3", "k:4", "fresh:1", "k:5", "nope")
    pipe.execute_command("SELECT", 0)
    pipe.get("k:2")
    pipe.exists("fresh:1")
    got = pipe.execute()
    assert got == ["v0:1", True, "v1:1", 1, None, True, "new", 1, 2, True,
                   ["m3", "m4", "f1", "v1:5", None], True, "v0:2", 0]


def test_big_hash_set_and_zset_pipelines(server):
    r = server.client(decode_responses=True)
    fill_keyspace(r)
    pipe = r.pipeline(transaction=False)
    for i in range(MEMBERS):
        pipe.hset("h", "f%d" % i, i)
        pipe.sadd("s", "m%d" % i)
        pipe.zadd("z", {"m%d" % i: i})
    pipe.execute()
    rnd = random.Random(7)
    model_h = {"f%d" % i: str(i) for i in range(MEMBERS)}
    model_s = {"m%d" % i for i in range(MEMBERS)}
    model_z = {"m%d" % i: float(i) for i in range(MEMBERS)}
    pipe = r.pipeline(transaction=False)
    want = []
    for _ in range(3000):
        f = "f%d" % rnd.randrange(MEMBERS + 200)
        m = "m%d" % rnd.randrange(MEMBERS + 200)
        op = rnd.randrange(9)
        if op == 0:
            pipe.hset("h", f, "x")
            want.append(0 if f in model_h else 1)
            model_h[f] = "x"
        elif op == 1:
            pipe.hget("h", f)
            want.append(model_h.get(f))
        elif op == 2:
            pipe.hdel("h", f)
            want.append(1 if model_h.pop(f, None) is not None else 0)
        elif op == 3:
            pipe.sadd("s", m)
            want.append(0 if m in model_s else 1)
            model_s.add(m)
        elif op == 4:
            pipe.srem("s", m)
            want.append(1 if m in model_s else 0)
            model_s.discard(m)
        elif op == 5:
            pipe.sismember("s", m)
            want.append(1 if m in model_s else 0)
        elif op == 6:
            # Options before the score: the member is not where a plain ZADD has it.
            pipe.execute_command("ZADD", "z", "XX", "CH", 5, m)
            want.append(1 if m in model_z and model_z[m] != 5 else 0)
            if m in model_z:
                model_z[m] = 5.0
        elif op == 7:
            pipe.execute_command("ZADD", "z", "NX", 7, m)
            want.append(0 if m in model_z else 1)
            model_z.setdefault(m, 7.0)
        else:
            pipe.zscore("z", m)
            want.append(model_z.get(m))
    got = pipe.execute()
    assert got == want
    assert r.hlen("h") == len(model_h) and r.scard("s") == len(model_s) and r.zcard("z") == len(model_z)


def test_requests_cut_anywhere(server):
    """The same pipeline sent one byte at a time and in random pieces: the
    look-ahead only ever sees whole requests, and the replies are the same."""
    r = server.client(decode_responses=True)
    fill_keyspace(r)
    cmds = []
    for i in range(40):
        cmds.append(["SET", "k:%d" % i, "p%d" % i])
        cmds.append(["GET", "k:%d" % (i * 7)])
        cmds.append(["MGET", "k:%d" % i, "k:%d" % (i + 1)])
    payload = b"".join(b"*%d\r\n" % len(c) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a.encode()) for a in c)
                       for c in cmds)

    # A PING last: its +PONG closes the replies (no value here holds one).
    payload += b"*1\r\n$4\r\nPING\r\n"

    def run(pieces):
        s = socket.create_connection(("127.0.0.1", server.port))
        try:
            for p in pieces:
                s.sendall(p)
            s.settimeout(10)
            data = b""
            while not data.endswith(b"+PONG\r\n"):
                chunk = s.recv(65536)
                assert chunk, "connection closed"
                data += chunk
            return data
        finally:
            s.close()

    whole = run([payload])
    r.flushall()
    fill_keyspace(r)
    bytewise = run([payload[i:i + 1] for i in range(len(payload))])
    r.flushall()
    fill_keyspace(r)
    rnd = random.Random(3)
    cuts = sorted(rnd.sample(range(1, len(payload)), 60))
    pieces = [payload[a:b] for a, b in zip([0] + cuts, cuts + [len(payload)])]
    random_cuts = run(pieces)
    assert whole == bytewise == random_cuts
    assert whole.startswith(b"+OK\r\n$2\r\np0\r\n*2\r\n$2\r\np0\r\n$4\r\nv0:1\r\n+OK\r\n$4\r\nv0:7\r\n")
