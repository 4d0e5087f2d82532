"""MIGRATE between two servers: single key and KEYS forms, COPY and REPLACE,
TTLs carried over, +NOKEY, option and number errors, the target's errors
passed on, AUTH/AUTH2, an unreachable target, a cached connection the target
closed, and the source side's `del` events and DEL in the AOF.
Replies were checked against redis-server 7.0.15.
"""
import os
import time

import pytest
import redis

ERR = redis.exceptions.ResponseError


@pytest.fixture
def pair(server_factory):
    src, dst = server_factory(), server_factory()
    a, b = src.client(), dst.client()
    yield a, b, dst.port
    a.close()
    b.close()


def migrate(r, *args):
    return r.execute_command("MIGRATE", *args)


def test_moves_one_key_with_its_ttl(pair):
    a, b, port = pair
    a.rpush("l", "x", "y")
    a.pexpire("l", 100000)
    assert migrate(a, "127.0.0.1", port, "l", 3, 1000) == b"OK"
    assert a.exists("l") == 0
    b.execute_command("SELECT", 3)
    assert b.lrange("l", 0, -1) == [b"x", b"y"]
    assert 90000 < b.pttl("l") <= 100000


def test_copy_keeps_the_source_and_replace_overwrites(pair):
    a, b, port = pair
    a.set("k", "v1")
    assert migrate(a, "127.0.0.1", port, "k", 0, 1000, "COPY") == b"OK"
    assert a.get("k") == b"v1" and b.get("k") == b"v1"
    a.set("k", "v2")
    with pytest.raises(ERR, match="^Target instance replied with error: BUSYKEY Target key name already exists.$"):
        migrate(a, "127.0.0.1", port, "k", 0, 1000, "COPY")
    assert a.get("k") == b"v2"
    assert migrate(a, "127.0.0.1", port, "k", 0, 1000, "REPLACE") == b"OK"
    assert a.exists("k") == 0 and b.get("k") == b"v2"


def test_keys_form_skips_missing_keys(pair):
    a, b, port = pair
    a.set("a", "1")
    a.sadd("s", "m")
    assert migrate(a, "127.0.0.1", port, "", 0, 1000, "KEYS", "a", "nokey", "s") == b"OK"
    assert a.exists("a", "s") == 0
    assert b.get("a") == b"1" and b.smembers("s") == {b"m"}
    assert migrate(a, "127.0.0.1", port, "", 0, 1000, "KEYS", "nokey") == b"NOKEY"
    assert migrate(a, "127.0.0.1", port, "nokey", 0, 1000) == b"NOKEY"


@pytest.mark.parametrize("args,err", [
    (("k", 0, 1000, "foo"), "syntax error"),
    (("k", 0, 1000, "auth"), "syntax error"),
    (("k", 0, 1000, "auth2", "u"), "syntax error"),
    (("k", 0, 1000, "keys", "a"), "When using MIGRATE KEYS option, the key argument must be set to the empty string"),
    (("k", 0, "x"), "value is not an integer or out of range"),
    (("k", "x", 1000), "value is not an integer or out of range"),
])
def test_argument_errors(pair, args, err):
    a, _, port = pair
    with pytest.raises(ERR, match="^%s$" % err):
        migrate(a, "127.0.0.1", port, *args)


def test_target_errors_are_passed_on(pair):
    a, b, port = pair
    a.set("k", "v")
    with pytest.raises(ERR, match="^Target instance replied with error: ERR DB index is out of range$"):
        migrate(a, "127.0.0.1", port, "k", 99, 1000)
    with pytest.raises(ERR, match="^Target instance replied with error: ERR AUTH <password> called without any "
                                  "password configured for the default user"):
        migrate(a, "127.0.0.1", port, "k", 0, 1000, "AUTH", "pw")
    with pytest.raises(ERR, match="^Target instance replied with error: WRONGPASS"):
        migrate(a, "127.0.0.1", port, "k", 0, 1000, "REPLACE", "AUTH2", "u", "pw")
    # The target ran the RESTOREs after the failed AUTH (it needs none); the source keeps its key.
    assert a.get("k") == b"v" and b.get("k") == b"v"


def test_auth_to_a_protected_target(pair):
    a, b, port = pair
    b.config_set("requirepass", "secret")
    a.set("k", "v")
    with pytest.raises(ERR, match="^Target instance replied with error: NOAUTH"):
        migrate(a, "127.0.0.1", port, "k", 0, 1000)
    assert migrate(a, "127.0.0.1", port, "k", 0, 1000, "AUTH", "secret") == b"OK"
    a.set("k2", "v")
    assert migrate(a, "127.0.0.1", port, "k2", 0, 1000, "AUTH2", "default", "secret") == b"OK"
    b.execute_command("AUTH", "secret")
    assert b.mget("k", "k2") == [b"v", b"v"]


def test_unreachable_target(pair):
    a, _, _ = pair
    a.set("k", "v")
    with pytest.raises(ERR, match="^IOERR error or timeout (connecting to the client|writing to target instance)$"):
        migrate(a, "127.0.0.1", 1, "k", 0, 200)
    with pytest.raises(ERR, match="^IOERR error or timeout connecting to the client$"):
        migrate(a, "nosuchhost.invalid", 6379, "k", 0, 200)
    assert a.get("k") == b"v"


def test_dead_cached_connection_is_reopened(pair):
    a, b, port = pair
    a.set("k1", "v")
    assert migrate(a, "127.0.0.1", port, "k1", 0, 1000) == b"OK"
    for cl in b.client_list():
        if cl["cmd"] == "restore":
            b.client_kill_filter(_id=cl["id"])
    time.sleep(0.1)
    a.set("k2", "v")
    assert migrate(a, "127.0.0.1", port, "k2", 0, 1000) == b"OK"
    assert b.mget("k1", "k2") == [b"v", b"v"]


def test_source_raises_del_events(pair):
    a, b, port = pair
    a.config_set("notify-keyspace-events", "KEA")
    a.mset({"c": "1", "d": "1"})
    p = a.pubsub()
    p.psubscribe("__key*__:*")
    assert p.get_message(timeout=1)["type"] == "psubscribe"
    assert migrate(a, "127.0.0.1", port, "", 0, 1000, "COPY", "KEYS", "c") == b"OK"
    assert migrate(a, "127.0.0.1", port, "", 0, 1000, "REPLACE", "KEYS", "c", "d") == b"OK"
    got = []
    while True:
        m = p.get_message(timeout=0.3)
        if not m:
            break
        got.append((m["channel"], m["data"]))
    assert got == [(b"__keyspace@0__:c", b"del"), (b"__keyevent@0__:del", b"c"),
                   (b"__keyspace@0__:d", b"del"), (b"__keyevent@0__:del", b"d")]
    p.close()


def test_propagated_as_del_of_the_moved_keys(server_factory):
    src, dst = server_factory("--appendonly", "yes"), server_factory()
    a = src.client()
    a.mset({"a": "1", "b": "2", "c": "3"})
    assert migrate(a, "127.0.0.1", dst.port, "", 0, 1000, "KEYS", "a", "nokey", "b") == b"OK"
    assert migrate(a, "127.0.0.1", dst.port, "c", 0, 1000, "COPY") == b"OK"
    time.sleep(1.2)                                       # appendfsync everysec
    aofdir = os.path.join(src.dir, "appendonlydir")
    data = b"".join(open(os.path.join(aofdir, f), "rb").read() for f in os.listdir(aofdir) if f.endswith(".aof"))
    assert data.endswith(b"*3\r\n$3\r\nDEL\r\n$1\r\na\r\n$1\r\nb\r\n")


def test_migrate_cached_sockets(server_factory):
    a, b = server_factory(), server_factory()
    ra = a.client()
    assert ra.info("stats")["migrate_cached_sockets"] == 0
    ra.set("key", "v")
    assert ra.migrate("127.0.0.1", b.port, "key", 9, 1000) == b"OK"
    assert ra.info("stats")["migrate_cached_sockets"] == 1
    assert b.client().execute_command("SELECT", 9) and b.client(db=9).get("key") == b"v"
