"""CLIENT PAUSE / CLIENT UNPAUSE and WAIT, checked against Redis 7.0.15.

A pause holds commands unanswered (WRITE: those that may write or be
propagated; ALL: every command of a normal client) and runs them, in the
order they arrived, when it ends; meanwhile neither expiry nor eviction
removes keys. WAIT has no replicas to wait for: it answers 0, at once or when
its timeout ends. Timings are generous: the machine running the tests is
shared, so only "held for at least the pause" and "answered within seconds"
are asserted.
"""
import time

import pytest

from datatype_client import ReplyError, arity, blocked_clients, wait_blocked, wait_for  # noqa: F401
from datatype_client import c, connect  # noqa: F401

HELD = 0.1       # a held command is not answered within this (seconds)
ANSWER = 5.0     # a command that runs is answered within this
FOREVER = "100000"  # a pause the test ends itself with CLIENT UNPAUSE


def info_field(c, section, name):
    for line in c("INFO", section).decode().splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1]
    raise AssertionError("INFO %s has no %s" % (section, name))


def client_line(c, cid):
    for line in c("CLIENT", "LIST").decode().splitlines():
        if line.startswith("id=%d " % cid):
            return line
    raise AssertionError("no client %d in CLIENT LIST" % cid)


def is_held(cl, *cmd):
    """Sends cmd; True when no reply comes within HELD seconds."""
    cl.send(*cmd)
    return not cl.pending(HELD)


# ------------------------------------------------------------------ arguments

def test_pause_argument_errors(c):
    assert c.err("CLIENT", "PAUSE") == arity("client|pause")
    assert c.err("CLIENT", "UNPAUSE", "x") == arity("client|unpause")
    for bad in ("abc", "1.5", "", "99999999999999999999"):
        assert c.err("CLIENT", "PAUSE", bad) == "ERR timeout is not an integer or out of range"
    assert c.err("CLIENT", "PAUSE", "-1") == "ERR timeout is negative"
    assert c.err("CLIENT", "PAUSE", "-1", "WRITE") == "ERR timeout is negative"
    # The mode is checked before the timeout.
    for args in (("100", "foo"), ("abc", "foo"), ("-5", "read")):
        assert c.err("CLIENT", "PAUSE", *args) == "ERR CLIENT PAUSE mode must be WRITE or ALL"
    assert c.err("CLIENT", "PaUsE", "100", "write", "x") == \
        "ERR unknown subcommand or wrong number of arguments for 'PaUsE'. Try CLIENT HELP."
    # Nothing was paused by the errors; UNPAUSE without a pause is fine.
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert c("SET", "k", "v") == "OK"


def test_pause_zero_and_out_of_range_end_at_once(c, connect):
    other = connect()
    assert c("CLIENT", "PAUSE", "0") == "OK"
    other.send("PING")
    assert other.read(timeout=1.0) == "PONG"
    # now + timeout wraps past the clock's range: the pause is over at once.
    assert c("CLIENT", "PAUSE", "9223372036854775807", "WRITE") == "OK"
    other.send("SET", "k", "v")
    assert other.read(timeout=1.0) == "OK"


# ----------------------------------------------------------------- WRITE mode

def test_write_pause_holds_writes_until_it_ends(c, connect):
    writer, reader = connect(), connect()
    start = time.time()
    assert c("CLIENT", "PAUSE", "300", "WRITE") == "OK"
    assert is_held(writer, "SET", "k", "v")
    # Reads go on, and see the dataset before the held write.
    assert reader("GET", "k") is None
    assert writer.read(timeout=ANSWER) == "OK"
    assert time.time() - start >= 0.29
    assert reader("GET", "k") == b"v"


def test_held_client_is_blocked_in_info_and_client_list(c, connect):
    writer = connect()
    wid = writer("CLIENT", "ID")
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(writer, "INCR", "n")
    wait_blocked(c, 1)
    assert info_field(c, "clients", "clients_in_timeout_table") == "0"
    line = client_line(c, wid)
    assert " flags=b " in line and " cmd=incr " in line
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert writer.read(timeout=ANSWER) == 1
    assert blocked_clients(c) == 0
    assert " flags=N " in client_line(c, wid)


WRITE_HELD = [
    ("SET", "k", "v"),
    ("DEL", "nokey"),
    ("EXPIRE", "k", "100"),
    ("FLUSHALL",),
    ("PUBLISH", "ch", "msg"),
    ("EVAL", "return 1", "0"),
    ("EVAL", "#!lua\nreturn 1", "0"),
    ("EVALSHA", "a" * 40, "0"),
    ("FCALL", "rw", "0"),
    ("FCALL", "nosuchfunction", "0"),
    ("FUNCTION", "FLUSH"),
]

WRITE_NOT_HELD = [
    ("GET", "k"),
    ("PING",),
    ("SELECT", "1"),
    ("DBSIZE",),
    ("EVAL", "#!lua flags=no-writes\nreturn 1", "0"),
    ("EVAL", "#!lua flags=no-writes,allow-oom\nreturn 1", "0"),
    ("EVAL_RO", "return 1", "0"),
    ("FCALL", "ro", "0"),
    ("FCALL_RO", "ro", "0"),
    ("SCRIPT", "LOAD", "return 1"),
    ("SCRIPT", "FLUSH"),
    ("WAIT", "0", "0"),
    ("CONFIG", "SET", "maxmemory", "0"),
    ("CLIENT", "PAUSE", "10", "WRITE"),
]

LIB = ("#!lua name=lib\n"
       "redis.register_function{function_name='ro', callback=function(k, a) return 1 end, flags={'no-writes'}}\n"
       "redis.register_function('rw', function(k, a) return 2 end)")


def test_write_pause_holds_commands_that_may_write(c, connect):
    assert c("FUNCTION", "LOAD", LIB) == b"lib"
    other = connect()
    for cmd in WRITE_HELD:
        assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
        assert is_held(other, *cmd), cmd
        assert c("CLIENT", "UNPAUSE") == "OK"
        other.read(timeout=ANSWER)
        if cmd[0] == "FUNCTION" or cmd[0] == "FLUSHALL":
            c("FUNCTION", "LOAD", "REPLACE", LIB)
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    for cmd in WRITE_NOT_HELD:
        other.send(*cmd)
        assert other.pending(ANSWER), cmd
        other.read()
    assert c("CLIENT", "UNPAUSE") == "OK"


def test_write_pause_and_cached_scripts(c, connect):
    ro = c("SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 3")
    rw = c("SCRIPT", "LOAD", "#!lua\nreturn 4")
    other = connect()
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert other("EVALSHA", ro, "0") == 3
    assert other("EVALSHA", ro.upper(), "0") == 3
    # A read-only script that tries to write is refused, not held.
    assert other.err("EVAL", "#!lua flags=no-writes\nreturn redis.call('set', 'x', '1')", "0").startswith(
        "ERR Write commands are not allowed from read-only scripts.")
    assert is_held(other, "EVALSHA", rw, "0")
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == 4
    # A shebang error is found after the pause, when the command runs.
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(other, "EVAL", "#!lua flags=bogus\nreturn 7", "0")
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == ReplyError("ERR Unexpected flag in script shebang: bogus")


def test_pause_commands_refused_in_scripts(c):
    for call in ("redis.call('client', 'pause', 100)", "redis.call('client', 'unpause')",
                 "redis.call('wait', 1, 0)"):
        err = c.err("EVAL", "return " + call, "0")
        assert err.startswith("ERR This Redis command is not allowed from script script: "), err
    assert c("SET", "k", "v") == "OK"


def test_write_pause_in_transactions(c, connect):
    other = connect()
    c("SET", "m", "0")
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert other("MULTI") == "OK"
    # A write is held before it is even queued.
    assert is_held(other, "SET", "m", "1")
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == "QUEUED"
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert other("GET", "m") == "QUEUED"
    # EXEC of a transaction holding a write queued before the pause is held.
    assert is_held(other, "EXEC")
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == ["OK", b"1"]
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    # Reads only, or a script declaring no-writes: EXEC runs.
    assert other("MULTI") == "OK"
    assert other("GET", "m") == "QUEUED"
    assert other("EVAL", "#!lua flags=no-writes\nreturn 1", "0") == "QUEUED"
    assert other("EXEC") == [b"1", 1]
    assert other("MULTI") == "OK"
    assert other("DISCARD") == "OK"
    assert c("CLIENT", "UNPAUSE") == "OK"
    # PUBLISH may be propagated: EXEC of it is held.
    assert other("MULTI") == "OK"
    assert other("PUBLISH", "ch", "x") == "QUEUED"
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(other, "EXEC")
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == [0]


def test_pause_inside_transaction(c, connect):
    other = connect()
    assert c("MULTI") == "OK"
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "QUEUED"
    assert c("EXEC") == ["OK"]
    assert is_held(other, "SET", "k", "v")
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == "OK"


# ------------------------------------------------------------------- ALL mode

def test_all_pause_holds_every_command(c, connect):
    other = connect()
    start = time.time()
    assert c("CLIENT", "PAUSE", "300", "ALL") == "OK"
    # Even the pausing client, reads, INFO and CLIENT UNPAUSE wait.
    assert is_held(c, "PING")
    other.send_raw(b"GET k\r\nCLIENT UNPAUSE\r\nINFO clients\r\n")
    assert not other.pending(HELD)
    assert c.read(timeout=ANSWER) == "PONG"
    assert time.time() - start >= 0.29
    assert other.read(timeout=ANSWER) is None
    assert other.read(timeout=ANSWER) == "OK"
    assert other.read(timeout=ANSWER).startswith(b"# Clients\r\n")


def test_all_pause_still_refuses_bad_commands_at_once(c, connect):
    other = connect()
    assert c("CLIENT", "PAUSE", "300", "ALL") == "OK"
    assert other.err("FOO") == "ERR unknown command 'FOO', with args beginning with: "
    assert other.err("GET") == arity("get")
    assert other.err("SET", "a") == arity("set")
    assert is_held(other, "QUIT")
    assert other.read(timeout=ANSWER) == "OK"


def test_all_pause_holds_subscribers_but_not_monitors(c, connect):
    sub, mon = connect(), connect()
    assert sub("SUBSCRIBE", "ch") == [b"subscribe", b"ch", 1]
    assert mon("MONITOR") == "OK"
    assert c("CLIENT", "PAUSE", "300", "ALL") == "OK"
    assert is_held(sub, "PING")
    # A MONITOR connection is a replica to Redis: replicas are never paused.
    mon.send("PING")
    assert mon.read(timeout=ANSWER) == "PONG"
    assert sub.read(timeout=ANSWER) == [b"pong", b""]


def test_pipelined_pause_holds_the_rest_of_the_pipeline(c):
    start = time.time()
    c.send_raw(b"CLIENT PAUSE 300 ALL\r\nPING\r\n")
    assert c.read(timeout=ANSWER) == "OK"
    assert c.read(timeout=ANSWER) == "PONG"
    assert time.time() - start >= 0.29


# ------------------------------------------------------ renewing and ending

def test_unpause_from_another_client(c, connect):
    writer, other = connect(), connect()
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(writer, "SET", "k", "v")
    assert other("CLIENT", "UNPAUSE") == "OK"
    assert writer.read(timeout=ANSWER) == "OK"
    assert c("GET", "k") == b"v"


@pytest.mark.parametrize("first, second, probe, held_for", [
    # A shorter pause does not shorten the one in effect...
    (("800", "WRITE"), ("100", "WRITE"), ("SET", "k", "1"), 0.8),
    # ...a longer one extends it...
    (("100", "WRITE"), ("600", "WRITE"), ("SET", "k", "1"), 0.6),
    # ...and ALL wins over WRITE until the longer end: ALL for 800 ms.
    (("800", "WRITE"), ("100", "ALL"), ("PING",), 0.8),
])
def test_renewing_a_pause(c, connect, first, second, probe, held_for):
    other = connect()
    start = time.time()
    assert c("CLIENT", "PAUSE", *first) == "OK"
    assert c("CLIENT", "PAUSE", *second) == "OK"
    assert is_held(other, *probe)
    assert other.read(timeout=ANSWER) in ("OK", "PONG")
    assert time.time() - start >= held_for - 0.01


def test_write_pause_does_not_lessen_an_all_pause(c, connect):
    # Only a MONITOR connection can ask while everything is held: it is a
    # replica to Redis, never paused (CLIENT PAUSE is not fed to it: admin).
    mon, held, other = connect(), connect(), connect()
    assert mon("MONITOR") == "OK"
    assert c("CLIENT", "PAUSE", FOREVER, "ALL") == "OK"
    assert is_held(held, "GET", "k")
    assert mon("CLIENT", "PAUSE", "100", "WRITE") == "OK"
    assert not held.pending(0.3)
    assert is_held(other, "PING")
    mon.send("CLIENT", "UNPAUSE")
    assert held.read(timeout=ANSWER) is None
    assert other.read(timeout=ANSWER) == "PONG"


def test_pause_requested_during_all_pause_runs_after_it(c, connect):
    other = connect()
    start = time.time()
    assert c("CLIENT", "PAUSE", "600", "ALL") == "OK"
    # Held like everything else; it starts a WRITE pause when it runs.
    assert is_held(c, "CLIENT", "PAUSE", "300", "WRITE")
    assert c.read(timeout=ANSWER) == "OK"
    assert time.time() - start >= 0.59
    other.send("PING")
    assert other.read(timeout=ANSWER) == "PONG"
    assert is_held(other, "SET", "k", "v")
    assert other.read(timeout=ANSWER) == "OK"


def test_held_commands_run_in_arrival_order(c, connect):
    first, second, reader = connect(), connect(), connect()
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    first.send_raw(b"SET p 1\r\nGET p\r\nINCR p\r\nGET p\r\n")
    assert not first.pending(HELD)
    assert is_held(second, "INCR", "p")
    assert reader("GET", "p") is None
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert [first.read(timeout=ANSWER) for _ in range(4)] == ["OK", b"1", 2, b"2"]
    assert second.read(timeout=ANSWER) == 3
    assert reader("GET", "p") == b"3"


def test_held_client_disconnecting(c, connect):
    quitter = connect()
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(quitter, "SET", "gone", "1")
    wait_blocked(c, 1)
    quitter.close()
    wait_blocked(c, 0)
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert c("GET", "gone") is None
    assert c("PING") == "PONG"


def test_held_client_killed(c, connect):
    victim = connect()
    vid = victim("CLIENT", "ID")
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(victim, "SET", "gone", "1")
    # Killed and unpaused in one go: the held command never runs.
    c.send_raw(b"CLIENT KILL ID %d\r\nCLIENT UNPAUSE\r\n" % vid)
    assert c.read(timeout=ANSWER) == 1
    assert c.read(timeout=ANSWER) == "OK"
    wait_blocked(c, 0)
    assert c("GET", "gone") is None


@pytest.mark.ours
def test_client_unblock_does_not_release_a_held_client(c, connect):
    # Redis 7.0.15 crashes here (unknown btype); later versions answer 0.
    held = connect()
    hid = held("CLIENT", "ID")
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(held, "SET", "k", "v")
    assert c("CLIENT", "UNBLOCK", hid) == 0
    assert c("CLIENT", "UNBLOCK", hid, "ERROR") == 0
    assert not held.pending(HELD)
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert held.read(timeout=ANSWER) == "OK"
    assert not held.pending(HELD)


# ------------------------------------------------------- expiry and eviction

def test_keys_do_not_expire_during_pause(c, connect):
    sub = connect()
    assert sub("PSUBSCRIBE", "__keyevent@0__:expired") == [b"psubscribe", b"__keyevent@0__:expired", 1]
    c("CONFIG", "SET", "notify-keyspace-events", "Ex")
    for k in ("e1", "e2", "e3"):
        c("SET", k, "v", "PX", "100")
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    time.sleep(0.4)
    # Reads report them gone, but they stay in the dataset.
    assert c("GET", "e1") is None
    assert c("EXISTS", "e1") == 0
    assert c("TTL", "e2") == -2
    assert c("PTTL", "e2") == -2
    assert c("TYPE", "e3") == "none"
    assert c("KEYS", "*") == []
    assert c("SCAN", "0") == [b"0", []]
    assert c("DBSIZE") == 3
    assert info_field(c, "keyspace", "db0").startswith("keys=3,expires=3,")
    assert info_field(c, "stats", "expired_keys") == "0"
    assert not sub.pending(HELD)
    assert c("CLIENT", "UNPAUSE") == "OK"
    wait_for(lambda: c("DBSIZE") == 0, what="expiry after the pause")
    got = sorted(sub.read(timeout=ANSWER)[3] for _ in range(3))
    assert got == [b"e1", b"e2", b"e3"]
    assert info_field(c, "stats", "expired_keys") == "3"


@pytest.mark.ours
def test_randomkey_when_every_key_expired_during_pause(c):
    # Redis 7.0.15 loops forever here: it may neither delete nor skip them
    # (7.2 returns one of them, as we do).
    c("SET", "a", "v", "PX", "50")
    c("SET", "b", "v", "PX", "50")
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    time.sleep(0.2)
    assert c("RANDOMKEY") in (b"a", b"b")
    assert c("CLIENT", "UNPAUSE") == "OK"
    wait_for(lambda: c("RANDOMKEY") is None, what="expiry after the pause")


def test_keys_due_during_all_pause_are_gone_before_held_commands_run(c, connect):
    other = connect()
    c("SET", "e", "v", "PX", "100")
    assert c("CLIENT", "PAUSE", "400", "ALL") == "OK"
    time.sleep(0.2)
    assert is_held(other, "DBSIZE")
    assert other.read(timeout=ANSWER) == 0


def test_no_eviction_during_pause(c, connect):
    writer = connect()
    c("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
    # Fewer than 16 keys: both servers check eviction's time limit only
    # every 16 keys, so one run evicts them all however slow the machine.
    for i in range(15):
        c("SET", "big%d" % i, "x" * 10000)
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert c("CONFIG", "SET", "maxmemory", "1") == "OK"
    assert c("GET", "big1") == b"x" * 10000
    assert c("DBSIZE") == 15
    assert info_field(c, "stats", "evicted_keys") == "0"
    assert is_held(writer, "SET", "n", "1")
    assert c("CLIENT", "UNPAUSE") == "OK"
    # The held write evicts everything and still does not fit.
    assert writer.read(timeout=ANSWER) == \
        ReplyError("OOM command not allowed when used memory > 'maxmemory'.")
    assert c("DBSIZE") == 0
    assert info_field(c, "stats", "evicted_keys") == "15"
    c("CONFIG", "SET", "maxmemory", "0")


# ----------------------------------------------------------------------- WAIT

def test_wait_without_replicas(c):
    assert c("WAIT", "0", "0") == 0
    assert c("WAIT", "0", "100") == 0
    assert c("WAIT", "-1", "0") == 0
    assert c.err("WAIT", "1") == arity("wait")
    assert c.err("WAIT", "x", "0") == "ERR value is not an integer or out of range"
    assert c.err("WAIT", "99999999999999999999", "0") == "ERR value is not an integer or out of range"
    assert c.err("WAIT", "x", "-1") == "ERR value is not an integer or out of range"
    assert c.err("WAIT", "1", "x") == "ERR timeout is not an integer or out of range"
    assert c.err("WAIT", "1", "1.5") == "ERR timeout is not an integer or out of range"
    assert c.err("WAIT", "1", "-1") == "ERR timeout is negative"
    assert c.err("WAIT", "-5", "-1") == "ERR timeout is negative"


def test_wait_times_out_with_zero(c, connect):
    other = connect()
    start = time.time()
    other.send("WAIT", "1", "300")
    assert not other.pending(HELD)
    assert blocked_clients(c) == 1
    assert info_field(c, "clients", "clients_in_timeout_table") == "1"
    assert other.read(timeout=ANSWER) == 0
    assert time.time() - start >= 0.29
    assert blocked_clients(c) == 0
    assert info_field(c, "clients", "clients_in_timeout_table") == "0"


def test_wait_in_transaction_does_not_block(c):
    assert c("MULTI") == "OK"
    assert c("WAIT", "1", "0") == "QUEUED"
    assert c("EXEC") == [0]


def test_wait_forever_until_unblocked_or_gone(c, connect):
    waiter = connect()
    wid = waiter("CLIENT", "ID")
    waiter.send("WAIT", "1", "0")
    wait_blocked(c, 1)
    assert info_field(c, "clients", "clients_in_timeout_table") == "0"
    line = client_line(c, wid)
    assert " flags=b " in line and " cmd=wait " in line
    assert c("CLIENT", "UNBLOCK", wid) == 1
    assert waiter.read(timeout=ANSWER) == 0
    waiter.send("WAIT", "2", "0")
    wait_blocked(c, 1)
    assert c("CLIENT", "UNBLOCK", wid, "ERROR") == 1
    assert waiter.read(timeout=ANSWER) == ReplyError("UNBLOCKED client unblocked via CLIENT UNBLOCK")
    assert c("CLIENT", "UNBLOCK", wid) == 0
    assert waiter("PING") == "PONG"
    # A waiter that goes away is forgotten.
    waiter.send("WAIT", "1", "0")
    wait_blocked(c, 1)
    waiter.close()
    wait_blocked(c, 0)
    assert c("PING") == "PONG"


def test_wait_and_pause(c, connect):
    other = connect()
    # WAIT is no write: a WRITE pause lets it run (and block on its own).
    assert c("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert other("WAIT", "0", "0") == 0
    start = time.time()
    other.send("WAIT", "1", "200")
    assert other.read(timeout=ANSWER) == 0
    assert time.time() - start >= 0.19
    assert c("CLIENT", "UNPAUSE") == "OK"
    assert c("CLIENT", "PAUSE", "300", "ALL") == "OK"
    assert is_held(other, "WAIT", "0", "0")
    assert other.read(timeout=ANSWER) == 0
