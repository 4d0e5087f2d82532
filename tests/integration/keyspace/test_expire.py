"""Expiry: EXPIRE family with NX/XX/GT/LT, TTL queries, PERSIST, lazy and active expiry.

Replies and error texts as Redis 7.0.15 gives them (each checked on it).
Timing: keys are given deadlines of 50-300 ms and the waits stay below 2 s; a
server that expires later than that fails (Redis usually needs ~100 ms).
"""
import time

import pytest

from support import wait_for
from resp_raw import Err
from support import MAX64, MIN64, NOT_INT, invalid_expire

NX_XX = Err("ERR NX and XX, GT or LT options at the same time are not compatible")
GT_LT = Err("ERR GT and LT options at the same time are not compatible")


pytestmark = pytest.mark.server_args("--enable-debug-command", "yes")  # `c` and `server`: DEBUG allowed; the `server` fixture's server allows DEBUG


# --- EXPIRE family and TTL queries --------------------------------------------

def test_expire_and_ttl(c):
    c.call("SET", "k", "v")
    assert c.call("TTL", "k") == -1
    assert c.call("PTTL", "k") == -1
    assert c.call("EXPIRE", "k", "100") == 1
    assert 99 <= c.call("TTL", "k") <= 100
    assert 99000 <= c.call("PTTL", "k") <= 100000
    assert c.call("PEXPIRE", "k", "200000") == 1
    assert 199 <= c.call("TTL", "k") <= 200
    assert c.call("TTL", "nokey") == -2
    assert c.call("PTTL", "nokey") == -2
    assert c.call("EXPIRE", "nokey", "100") == 0
    assert c.call("PEXPIRE", "nokey", "100") == 0
    assert c.call("EXISTS", "nokey") == 0


def test_ttl_rounds_to_nearest_second(c):
    c.call("SET", "k", "v", "PX", "1800")
    assert c.call("TTL", "k") == 2
    c.call("SET", "k", "v", "PX", "1200")
    assert c.call("TTL", "k") == 1


def test_expireat_pexpireat_and_expiretime(c):
    c.call("SET", "k", "v")
    assert c.call("EXPIRETIME", "k") == -1
    assert c.call("PEXPIRETIME", "k") == -1
    assert c.call("EXPIRETIME", "nokey") == -2
    assert c.call("PEXPIRETIME", "nokey") == -2
    now = int(c.call("TIME")[0])
    assert c.call("EXPIREAT", "k", str(now + 100)) == 1
    assert c.call("EXPIRETIME", "k") == now + 100
    assert c.call("PEXPIRETIME", "k") == (now + 100) * 1000
    assert 98 <= c.call("TTL", "k") <= 100
    assert c.call("PEXPIREAT", "k", str((now + 200) * 1000 + 123)) == 1
    assert c.call("PEXPIRETIME", "k") == (now + 200) * 1000 + 123
    assert c.call("EXPIRETIME", "k") == now + 200
    assert c.call("EXPIREAT", "nokey", str(now + 100)) == 0


def test_expire_other_types(c):
    c.call("RPUSH", "l", "a")
    c.call("HSET", "h", "f", "v")
    c.call("SADD", "s", "m")
    c.call("ZADD", "z", "1", "m")
    for key in ("l", "h", "s", "z"):
        assert c.call("EXPIRE", key, "100") == 1
        assert 99 <= c.call("TTL", key) <= 100
        assert c.call("PEXPIRE", key, "-1") == 1
        assert c.call("EXISTS", key) == 0


def test_expire_options(c):
    c.call("SET", "k", "v")
    assert c.call("EXPIRE", "k", "100", "XX") == 0  # XX: only when a TTL exists
    assert c.call("EXPIRE", "k", "100", "GT") == 0  # no TTL counts as infinite
    assert c.call("TTL", "k") == -1
    assert c.call("EXPIRE", "k", "100", "NX") == 1
    assert c.call("EXPIRE", "k", "200", "NX") == 0
    assert 99 <= c.call("TTL", "k") <= 100
    assert c.call("EXPIRE", "k", "50", "GT") == 0
    assert c.call("EXPIRE", "k", "200", "GT") == 1
    assert 199 <= c.call("TTL", "k") <= 200
    assert c.call("EXPIRE", "k", "300", "LT") == 0
    assert c.call("EXPIRE", "k", "50", "LT") == 1
    assert 49 <= c.call("TTL", "k") <= 50
    assert c.call("EXPIRE", "k", "70", "XX") == 1
    assert c.call("EXPIRE", "k", "80", "xx", "gt") == 1
    assert 79 <= c.call("TTL", "k") <= 80
    assert c.call("EXPIRE", "k", "100", "NX", "NX") == 0
    c.call("PERSIST", "k")
    assert c.call("EXPIRE", "k", "100", "LT") == 1  # anything is less than infinite
    assert 99 <= c.call("TTL", "k") <= 100


def test_pexpire_expireat_options(c):
    c.call("SET", "k", "v")
    now = int(c.call("TIME")[0])
    assert c.call("PEXPIRE", "k", "100000", "XX") == 0
    assert c.call("PEXPIRE", "k", "100000", "NX") == 1
    assert c.call("EXPIREAT", "k", str(now + 50), "GT") == 0
    assert c.call("EXPIREAT", "k", str(now + 50), "LT") == 1
    assert c.call("EXPIRETIME", "k") == now + 50
    assert c.call("PEXPIREAT", "k", str((now + 60) * 1000), "GT") == 1
    assert c.call("PEXPIREAT", "k", str((now + 70) * 1000), "NX") == 0
    assert c.call("EXPIRETIME", "k") == now + 60


def test_expire_option_errors(c):
    c.call("SET", "k", "v")
    for cmd in ("EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"):
        t = "9999999999"
        assert c.call(cmd, "k", t, "NX", "XX") == NX_XX, cmd
        assert c.call(cmd, "k", t, "NX", "GT") == NX_XX
        assert c.call(cmd, "k", t, "LT", "NX") == NX_XX
        assert c.call(cmd, "k", t, "GT", "LT") == GT_LT
        assert c.call(cmd, "k", t, "FOO") == Err("ERR Unsupported option FOO")
        assert c.call(cmd, "k", "abc") == NOT_INT
        assert c.call(cmd, "k", "1.5") == NOT_INT
        assert c.call(cmd, "k") == Err(
            "ERR wrong number of arguments for '%s' command" % cmd.lower())
    assert c.call("TTL", "k") == -1


def test_expire_overflow_errors(c):
    c.call("SET", "k", "v")
    for cmd, value in [("EXPIRE", MAX64), ("PEXPIRE", MAX64), ("EXPIREAT", MAX64),
                       ("EXPIRE", "9223372036854776"), ("EXPIRE", "9223372036854775"),
                       ("EXPIRE", MIN64), ("EXPIREAT", MIN64), ("EXPIRE", "-9223372036854776")]:
        assert c.call(cmd, "k", value) == invalid_expire(cmd.lower()), (cmd, value)
    assert c.call("TTL", "k") == -1
    # the largest absolute time in milliseconds is accepted
    assert c.call("PEXPIREAT", "k", MAX64) == 1
    assert c.call("PEXPIRETIME", "k") == int(MAX64)


def test_past_time_deletes_key(c):
    for cmd, value in [("EXPIRE", "0"), ("EXPIRE", "-1"), ("PEXPIRE", "0"), ("PEXPIRE", "-100"),
                       ("EXPIREAT", "1"), ("EXPIREAT", "0"), ("PEXPIREAT", "1000"),
                       ("EXPIRE", "-9223372036854775")]:
        c.call("SET", "k", "v")
        assert c.call(cmd, "k", value) == 1, (cmd, value)
        assert c.call("EXISTS", "k") == 0
        assert c.call("TTL", "k") == -2


def test_past_time_with_options(c):
    c.call("SET", "k", "v")
    assert c.call("EXPIRE", "k", "-1", "XX") == 0  # no TTL yet: XX refuses, key stays
    assert c.call("EXISTS", "k") == 1
    assert c.call("EXPIRE", "k", "-1", "GT") == 0
    assert c.call("EXISTS", "k") == 1
    assert c.call("EXPIRE", "k", "-1", "LT") == 1
    assert c.call("EXISTS", "k") == 0


def test_persist(c):
    c.call("SET", "k", "v")
    assert c.call("PERSIST", "k") == 0
    assert c.call("PERSIST", "nokey") == 0
    c.call("EXPIRE", "k", "100")
    assert c.call("PERSIST", "k") == 1
    assert c.call("TTL", "k") == -1
    assert c.call("PERSIST", "k") == 0
    assert c.call("GET", "k") == "v"


# --- what clears and what keeps a TTL -----------------------------------------

def test_set_and_getset_clear_ttl(c):
    c.call("SET", "k", "v", "EX", "100")
    c.call("SET", "k", "w")
    assert c.call("TTL", "k") == -1
    c.call("SET", "k", "v", "EX", "100")
    assert c.call("GETSET", "k", "w") == "v"
    assert c.call("TTL", "k") == -1
    c.call("SET", "k", "v", "EX", "100")
    c.call("SET", "k", "w", "KEEPTTL")
    assert 99 <= c.call("TTL", "k") <= 100


def test_rename_keeps_ttl(c):
    c.call("SET", "k", "v", "PX", "100000")
    c.call("RENAME", "k", "k2")
    assert c.call("TTL", "k") == -2
    assert 99000 <= c.call("PTTL", "k2") <= 100000


def test_writes_keep_ttl(c):
    c.call("SET", "k", "1", "EX", "100")
    c.call("INCR", "k")
    c.call("APPEND", "k", "0")
    c.call("SETRANGE", "k", "0", "3")
    c.call("RPUSH", "l", "a")
    c.call("EXPIRE", "l", "100")
    c.call("RPUSH", "l", "b")
    assert 99 <= c.call("TTL", "k") <= 100
    assert 99 <= c.call("TTL", "l") <= 100
    assert c.call("GET", "k") == "30"


def test_del_and_recreate_has_no_ttl(c):
    c.call("SET", "k", "v", "EX", "100")
    c.call("DEL", "k")
    c.call("RPUSH", "k", "a")
    assert c.call("TTL", "k") == -1


# --- lazy and active expiry ---------------------------------------------------

def test_key_expires(c):
    c.call("SET", "k", "v", "PX", "100")
    c.call("RPUSH", "l", "a")
    c.call("PEXPIRE", "l", "100")
    assert c.call("GET", "k") == "v"
    time.sleep(0.2)
    assert c.call("GET", "k") is None
    assert c.call("EXISTS", "l") == 0
    assert c.call("TTL", "k") == -2
    assert c.call("EXPIRE", "k", "100") == 0
    assert c.call("PERSIST", "k") == 0


def test_active_expiry_removes_unread_keys(c):
    c.call("SET", "keep", "v")
    for i in range(200):
        c.send("SET", "k%d" % i, "v", "PX", "100")
    for i in range(200):
        assert c.read() == "OK"
    # nobody touches the keys: the server must remove them by itself
    wait_for(lambda: c.call("DBSIZE") == 1, timeout=2.0, what="active expiry")
    assert c.call("KEYS", "*") == ["keep"]
    info = c.call("INFO", "stats")
    expired = [line for line in info.splitlines() if line.startswith("expired_keys:")]
    assert expired == ["expired_keys:200"]


def test_lazy_expiry_with_active_expiry_off(c):
    assert c.call("DEBUG", "SET-ACTIVE-EXPIRE", "0") == "OK"
    c.call("SET", "keep", "v")
    for i in range(20):
        c.call("SET", "k%d" % i, "v", "PX", "50")
    time.sleep(0.3)
    # expired keys still count in DBSIZE until something touches them...
    assert c.call("DBSIZE") == 21
    # ...but no command sees them, and a lookup deletes them
    assert c.call("KEYS", "*") == ["keep"]
    assert c.call("GET", "k0") is None
    assert c.call("EXISTS", "k1") == 0
    assert c.call("TTL", "k2") == -2
    assert c.call("DBSIZE") == 18
    assert c.call("MGET", "k3", "k4", "keep") == [None, None, "v"]
    assert c.call("DBSIZE") == 16
    # SCAN deletes the expired keys it visits
    assert c.call("SCAN", "0", "COUNT", "1000") == ["0", ["keep"]]
    assert c.call("DBSIZE") == 1


def test_active_expiry_resumes(c):
    c.call("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    for i in range(50):
        c.call("SET", "k%d" % i, "v", "PX", "50")
    time.sleep(0.2)
    assert c.call("DBSIZE") == 50
    assert c.call("DEBUG", "SET-ACTIVE-EXPIRE", "1") == "OK"
    wait_for(lambda: c.call("DBSIZE") == 0, timeout=2.0, what="active expiry")


def test_expired_key_then_set_again(c):
    c.call("SET", "k", "old", "PX", "50")
    time.sleep(0.1)
    assert c.call("SET", "k", "new", "NX") == "OK"
    assert c.call("GET", "k") == "new"
    assert c.call("TTL", "k") == -1


def test_info_keyspace_counts_expires(c):
    c.call("SET", "a", "1")
    c.call("SET", "b", "2", "EX", "100")
    c.call("SET", "c", "3", "EX", "200")
    lines = c.call("INFO", "keyspace").splitlines()
    assert lines[0] == "# Keyspace"
    db0 = [line for line in lines if line.startswith("db0:")]
    assert len(db0) == 1
    fields = dict(kv.split("=") for kv in db0[0][4:].split(","))
    assert list(fields) == ["keys", "expires", "avg_ttl"]
    assert fields["keys"] == "3"
    assert fields["expires"] == "2"
    c.call("PERSIST", "b")
    assert "db0:keys=3,expires=1," in c.call("INFO", "keyspace")
