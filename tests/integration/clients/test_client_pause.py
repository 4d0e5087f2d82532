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

from datatype_client import ReplyError, arity, blocked_clients, wait_blocked
from support import wait_for

HELD = 0.1       # a held command is not answered within this (seconds)
ANSWER = 5.0     # a command that runs is answered within this
FOREVER = "100000"  # a pause the test ends itself with CLIENT UNPAUSE


def info_field(dc, section, name):
    for line in dc("INFO", section).decode().splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1]
    raise AssertionError("INFO %s has no %s" % (section, name))


def client_line(dc, cid):
    for line in dc("CLIENT", "LIST").decode().splitlines():
        if line.startswith("id=%d " % cid):
            return line
    raise AssertionError("no client %d in CLIENT LIST" % cid)


def is_held(cl, *cmd):
    """Sends cmd; True when no reply comes within HELD seconds."""
    cl.send(*cmd)
    return not cl.pending(HELD)


# ------------------------------------------------------------------ arguments

def test_pause_argument_errors(dc):
    assert dc.err("CLIENT", "PAUSE") == arity("client|pause")
    assert dc.err("CLIENT", "UNPAUSE", "x") == arity("client|unpause")
    for bad in ("abc", "1.5", "", "99999999999999999999"):
        assert dc.err("CLIENT", "PAUSE", bad) == "ERR timeout is not an integer or out of range"
    assert dc.err("CLIENT", "PAUSE", "-1") == "ERR timeout is negative"
    assert dc.err("CLIENT", "PAUSE", "-1", "WRITE") == "ERR timeout is negative"
    # The mode is checked before the timeout.
    for args in (("100", "foo"), ("abc", "foo"), ("-5", "read")):
        assert dc.err("CLIENT", "PAUSE", *args) == "ERR CLIENT PAUSE mode must be WRITE or ALL"
    assert dc.err("CLIENT", "PaUsE", "100", "write", "x") == \
        "ERR unknown subcommand or wrong number of arguments for 'PaUsE'. Try CLIENT HELP."
    # Nothing was paused by the errors; UNPAUSE without a pause is fine.
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert dc("SET", "k", "v") == "OK"


def test_pause_zero_and_out_of_range_end_at_once(dc, dconnect):
    other = dconnect()
    assert dc("CLIENT", "PAUSE", "0") == "OK"
    other.send("PING")
    assert other.read(timeout=1.0) == "PONG"
    # now + timeout wraps past the clock's range: the pause is over at once.
    assert dc("CLIENT", "PAUSE", "9223372036854775807", "WRITE") == "OK"
    other.send("SET", "k", "v")
    assert other.read(timeout=1.0) == "OK"


# ----------------------------------------------------------------- WRITE mode

def test_write_pause_holds_writes_until_it_ends(dc, dconnect):
    writer, reader = dconnect(), dconnect()
    start = time.time()
    assert dc("CLIENT", "PAUSE", "300", "WRITE") == "OK"
    assert is_held(writer, "SET", "k", "v")
    # Reads go on, and see the dataset before the held write.
    assert reader("GET", "k") is None
    assert writer.read(timeout=ANSWER) == "OK"
    assert time.time() - start >= 0.29
    assert reader("GET", "k") == b"v"


def test_held_client_is_blocked_in_info_and_client_list(dc, dconnect):
    writer = dconnect()
    wid = writer("CLIENT", "ID")
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(writer, "INCR", "n")
    wait_blocked(dc, 1)
    assert info_field(dc, "clients", "clients_in_timeout_table") == "0"
    line = client_line(dc, wid)
    assert " flags=b " in line and " cmd=incr " in line
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert writer.read(timeout=ANSWER) == 1
    assert blocked_clients(dc) == 0
    assert " flags=N " in client_line(dc, wid)


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


def test_write_pause_holds_commands_that_may_write(dc, dconnect):
    assert dc("FUNCTION", "LOAD", LIB) == b"lib"
    other = dconnect()
    for cmd in WRITE_HELD:
        assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
        assert is_held(other, *cmd), cmd
        assert dc("CLIENT", "UNPAUSE") == "OK"
        other.read(timeout=ANSWER)
        if cmd[0] == "FUNCTION" or cmd[0] == "FLUSHALL":
            dc("FUNCTION", "LOAD", "REPLACE", LIB)
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    for cmd in WRITE_NOT_HELD:
        other.send(*cmd)
        assert other.pending(ANSWER), cmd
        other.read()
    assert dc("CLIENT", "UNPAUSE") == "OK"


def test_write_pause_and_cached_scripts(dc, dconnect):
    ro = dc("SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 3")
    rw = dc("SCRIPT", "LOAD", "#!lua\nreturn 4")
    other = dconnect()
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert other("EVALSHA", ro, "0") == 3
    assert other("EVALSHA", ro.upper(), "0") == 3
    # A read-only script that tries to write is refused, not held.
    assert other.err("EVAL", "#!lua flags=no-writes\nreturn redis.call('set', 'x', '1')", "0").startswith(
        "ERR Write commands are not allowed from read-only scripts.")
    assert is_held(other, "EVALSHA", rw, "0")
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == 4
    # A shebang error is found after the pause, when the command runs.
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(other, "EVAL", "#!lua flags=bogus\nreturn 7", "0")
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == ReplyError("ERR Unexpected flag in script shebang: bogus")


def test_pause_commands_refused_in_scripts(dc):
    for call in ("redis.call('client', 'pause', 100)", "redis.call('client', 'unpause')",
                 "redis.call('wait', 1, 0)"):
        err = dc.err("EVAL", "return " + call, "0")
        assert err.startswith("ERR This Redis command is not allowed from script script: "), err
    assert dc("SET", "k", "v") == "OK"


def test_write_pause_in_transactions(dc, dconnect):
    other = dconnect()
    dc("SET", "m", "0")
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert other("MULTI") == "OK"
    # A write is held before it is even queued.
    assert is_held(other, "SET", "m", "1")
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == "QUEUED"
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert other("GET", "m") == "QUEUED"
    # EXEC of a transaction holding a write queued before the pause is held.
    assert is_held(other, "EXEC")
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == ["OK", b"1"]
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    # Reads only, or a script declaring no-writes: EXEC runs.
    assert other("MULTI") == "OK"
    assert other("GET", "m") == "QUEUED"
    assert other("EVAL", "#!lua flags=no-writes\nreturn 1", "0") == "QUEUED"
    assert other("EXEC") == [b"1", 1]
    assert other("MULTI") == "OK"
    assert other("DISCARD") == "OK"
    assert dc("CLIENT", "UNPAUSE") == "OK"
    # PUBLISH may be propagated: EXEC of it is held.
    assert other("MULTI") == "OK"
    assert other("PUBLISH", "ch", "x") == "QUEUED"
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(other, "EXEC")
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == [0]


def test_pause_inside_transaction(dc, dconnect):
    other = dconnect()
    assert dc("MULTI") == "OK"
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "QUEUED"
    assert dc("EXEC") == ["OK"]
    assert is_held(other, "SET", "k", "v")
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert other.read(timeout=ANSWER) == "OK"


# ------------------------------------------------------------------- ALL mode

def test_all_pause_holds_every_command(dc, dconnect):
    other = dconnect()
    start = time.time()
    assert dc("CLIENT", "PAUSE", "300", "ALL") == "OK"
    # Even the pausing client, reads, INFO and CLIENT UNPAUSE wait.
    assert is_held(dc, "PING")
    other.send_raw(b"GET k\r\nCLIENT UNPAUSE\r\nINFO clients\r\n")
    assert not other.pending(HELD)
    assert dc.read(timeout=ANSWER) == "PONG"
    assert time.time() - start >= 0.29
    assert other.read(timeout=ANSWER) is None
    assert other.read(timeout=ANSWER) == "OK"
    assert other.read(timeout=ANSWER).startswith(b"# Clients\r\n")


def test_all_pause_still_refuses_bad_commands_at_once(dc, dconnect):
    other = dconnect()
    assert dc("CLIENT", "PAUSE", "300", "ALL") == "OK"
    assert other.err("FOO") == "ERR unknown command 'FOO', with args beginning with: "
    assert other.err("GET") == arity("get")
    assert other.err("SET", "a") == arity("set")
    assert is_held(other, "QUIT")
    assert other.read(timeout=ANSWER) == "OK"


def test_all_pause_holds_subscribers_but_not_monitors(dc, dconnect):
    sub, mon = dconnect(), dconnect()
    assert sub("SUBSCRIBE", "ch") == [b"subscribe", b"ch", 1]
    assert mon("MONITOR") == "OK"
    assert dc("CLIENT", "PAUSE", "300", "ALL") == "OK"
    assert is_held(sub, "PING")
    # A MONITOR connection is a replica to Redis: replicas are never paused.
    mon.send("PING")
    assert mon.read(timeout=ANSWER) == "PONG"
    assert sub.read(timeout=ANSWER) == [b"pong", b""]


def test_pipelined_pause_holds_the_rest_of_the_pipeline(dc):
    start = time.time()
    dc.send_raw(b"CLIENT PAUSE 300 ALL\r\nPING\r\n")
    assert dc.read(timeout=ANSWER) == "OK"
    assert dc.read(timeout=ANSWER) == "PONG"
    assert time.time() - start >= 0.29


# ------------------------------------------------------ renewing and ending

def test_unpause_from_another_client(dc, dconnect):
    writer, other = dconnect(), dconnect()
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(writer, "SET", "k", "v")
    assert other("CLIENT", "UNPAUSE") == "OK"
    assert writer.read(timeout=ANSWER) == "OK"
    assert dc("GET", "k") == b"v"


@pytest.mark.parametrize("first, second, probe, held_for", [
    # A shorter pause does not shorten the one in effect...
    (("800", "WRITE"), ("100", "WRITE"), ("SET", "k", "1"), 0.8),
    # ...a longer one extends it...
    (("100", "WRITE"), ("600", "WRITE"), ("SET", "k", "1"), 0.6),
    # ...and ALL wins over WRITE until the longer end: ALL for 800 ms.
    (("800", "WRITE"), ("100", "ALL"), ("PING",), 0.8),
])
def test_renewing_a_pause(dc, dconnect, first, second, probe, held_for):
    other = dconnect()
    start = time.time()
    assert dc("CLIENT", "PAUSE", *first) == "OK"
    assert dc("CLIENT", "PAUSE", *second) == "OK"
    assert is_held(other, *probe)
    assert other.read(timeout=ANSWER) in ("OK", "PONG")
    assert time.time() - start >= held_for - 0.01


def test_write_pause_does_not_lessen_an_all_pause(dc, dconnect):
    # Only a MONITOR connection can ask while everything is held: it is a
    # replica to Redis, never paused (CLIENT PAUSE is not fed to it: admin).
    mon, held, other = dconnect(), dconnect(), dconnect()
    assert mon("MONITOR") == "OK"
    assert dc("CLIENT", "PAUSE", FOREVER, "ALL") == "OK"
    assert is_held(held, "GET", "k")
    assert mon("CLIENT", "PAUSE", "100", "WRITE") == "OK"
    assert not held.pending(0.3)
    assert is_held(other, "PING")
    mon.send("CLIENT", "UNPAUSE")
    assert held.read(timeout=ANSWER) is None
    assert other.read(timeout=ANSWER) == "PONG"


def test_pause_requested_during_all_pause_runs_after_it(dc, dconnect):
    other = dconnect()
    start = time.time()
    assert dc("CLIENT", "PAUSE", "600", "ALL") == "OK"
    # Held like everything else; it starts a WRITE pause when it runs.
    assert is_held(dc, "CLIENT", "PAUSE", "300", "WRITE")
    assert dc.read(timeout=ANSWER) == "OK"
    assert time.time() - start >= 0.59
    other.send("PING")
    assert other.read(timeout=ANSWER) == "PONG"
    assert is_held(other, "SET", "k", "v")
    assert other.read(timeout=ANSWER) == "OK"


def test_held_commands_run_in_arrival_order(dc, dconnect):
    first, second, reader = dconnect(), dconnect(), dconnect()
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    first.send_raw(b"SET p 1\r\nGET p\r\nINCR p\r\nGET p\r\n")
    assert not first.pending(HELD)
    assert is_held(second, "INCR", "p")
    assert reader("GET", "p") is None
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert [first.read(timeout=ANSWER) for _ in range(4)] == ["OK", b"1", 2, b"2"]
    assert second.read(timeout=ANSWER) == 3
    assert reader("GET", "p") == b"3"


def test_held_client_disconnecting(dc, dconnect):
    quitter = dconnect()
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(quitter, "SET", "gone", "1")
    wait_blocked(dc, 1)
    quitter.close()
    wait_blocked(dc, 0)
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert dc("GET", "gone") is None
    assert dc("PING") == "PONG"


def test_held_client_killed(dc, dconnect):
    victim = dconnect()
    vid = victim("CLIENT", "ID")
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(victim, "SET", "gone", "1")
    # Killed and unpaused in one go: the held command never runs.
    dc.send_raw(b"CLIENT KILL ID %d\r\nCLIENT UNPAUSE\r\n" % vid)
    assert dc.read(timeout=ANSWER) == 1
    assert dc.read(timeout=ANSWER) == "OK"
    wait_blocked(dc, 0)
    assert dc("GET", "gone") is None


@pytest.mark.ours
def test_client_unblock_does_not_release_a_held_client(dc, dconnect):
    # Redis 7.0.15 crashes here (unknown btype); later versions answer 0.
    held = dconnect()
    hid = held("CLIENT", "ID")
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert is_held(held, "SET", "k", "v")
    assert dc("CLIENT", "UNBLOCK", hid) == 0
    assert dc("CLIENT", "UNBLOCK", hid, "ERROR") == 0
    assert not held.pending(HELD)
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert held.read(timeout=ANSWER) == "OK"
    assert not held.pending(HELD)


# ------------------------------------------------------- expiry and eviction

def test_keys_do_not_expire_during_pause(dc, dconnect):
    sub = dconnect()
    assert sub("PSUBSCRIBE", "__keyevent@0__:expired") == [b"psubscribe", b"__keyevent@0__:expired", 1]
    dc("CONFIG", "SET", "notify-keyspace-events", "Ex")
    for k in ("e1", "e2", "e3"):
        dc("SET", k, "v", "PX", "100")
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    time.sleep(0.4)
    # Reads report them gone, but they stay in the dataset.
    assert dc("GET", "e1") is None
    assert dc("EXISTS", "e1") == 0
    assert dc("TTL", "e2") == -2
    assert dc("PTTL", "e2") == -2
    assert dc("TYPE", "e3") == "none"
    assert dc("KEYS", "*") == []
    assert dc("SCAN", "0") == [b"0", []]
    assert dc("DBSIZE") == 3
    assert info_field(dc, "keyspace", "db0").startswith("keys=3,expires=3,")
    assert info_field(dc, "stats", "expired_keys") == "0"
    assert not sub.pending(HELD)
    assert dc("CLIENT", "UNPAUSE") == "OK"
    wait_for(lambda: dc("DBSIZE") == 0, what="expiry after the pause")
    got = sorted(sub.read(timeout=ANSWER)[3] for _ in range(3))
    assert got == [b"e1", b"e2", b"e3"]
    assert info_field(dc, "stats", "expired_keys") == "3"


@pytest.mark.ours
def test_randomkey_when_every_key_expired_during_pause(dc):
    # Redis 7.0.15 loops forever here: it may neither delete nor skip them
    # (7.2 returns one of them, as we do).
    dc("SET", "a", "v", "PX", "50")
    dc("SET", "b", "v", "PX", "50")
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    time.sleep(0.2)
    assert dc("RANDOMKEY") in (b"a", b"b")
    assert dc("CLIENT", "UNPAUSE") == "OK"
    wait_for(lambda: dc("RANDOMKEY") is None, what="expiry after the pause")


def test_keys_due_during_all_pause_are_gone_before_held_commands_run(dc, dconnect):
    other = dconnect()
    dc("SET", "e", "v", "PX", "100")
    assert dc("CLIENT", "PAUSE", "400", "ALL") == "OK"
    time.sleep(0.2)
    assert is_held(other, "DBSIZE")
    assert other.read(timeout=ANSWER) == 0


def test_no_eviction_during_pause(dc, dconnect):
    writer = dconnect()
    dc("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
    # Fewer than 16 keys: both servers check eviction's time limit only
    # every 16 keys, so one run evicts them all however slow the machine.
    for i in range(15):
        dc("SET", "big%d" % i, "x" * 10000)
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert dc("CONFIG", "SET", "maxmemory", "1") == "OK"
    assert dc("GET", "big1") == b"x" * 10000
    assert dc("DBSIZE") == 15
    assert info_field(dc, "stats", "evicted_keys") == "0"
    assert is_held(writer, "SET", "n", "1")
    assert dc("CLIENT", "UNPAUSE") == "OK"
    # The held write evicts everything and still does not fit.
    assert writer.read(timeout=ANSWER) == \
        ReplyError("OOM command not allowed when used memory > 'maxmemory'.")
    assert dc("DBSIZE") == 0
    assert info_field(dc, "stats", "evicted_keys") == "15"
    dc("CONFIG", "SET", "maxmemory", "0")


# ----------------------------------------------------------------------- WAIT

def test_wait_without_replicas(dc):
    assert dc("WAIT", "0", "0") == 0
    assert dc("WAIT", "0", "100") == 0
    assert dc("WAIT", "-1", "0") == 0
    assert dc.err("WAIT", "1") == arity("wait")
    assert dc.err("WAIT", "x", "0") == "ERR value is not an integer or out of range"
    assert dc.err("WAIT", "99999999999999999999", "0") == "ERR value is not an integer or out of range"
    assert dc.err("WAIT", "x", "-1") == "ERR value is not an integer or out of range"
    assert dc.err("WAIT", "1", "x") == "ERR timeout is not an integer or out of range"
    assert dc.err("WAIT", "1", "1.5") == "ERR timeout is not an integer or out of range"
    assert dc.err("WAIT", "1", "-1") == "ERR timeout is negative"
    assert dc.err("WAIT", "-5", "-1") == "ERR timeout is negative"


def test_wait_times_out_with_zero(dc, dconnect):
    other = dconnect()
    start = time.time()
    other.send("WAIT", "1", "300")
    assert not other.pending(HELD)
    assert blocked_clients(dc) == 1
    assert info_field(dc, "clients", "clients_in_timeout_table") == "1"
    assert other.read(timeout=ANSWER) == 0
    assert time.time() - start >= 0.29
    assert blocked_clients(dc) == 0
    assert info_field(dc, "clients", "clients_in_timeout_table") == "0"


def test_wait_in_transaction_does_not_block(dc):
    assert dc("MULTI") == "OK"
    assert dc("WAIT", "1", "0") == "QUEUED"
    assert dc("EXEC") == [0]


def test_wait_forever_until_unblocked_or_gone(dc, dconnect):
    waiter = dconnect()
    wid = waiter("CLIENT", "ID")
    waiter.send("WAIT", "1", "0")
    wait_blocked(dc, 1)
    assert info_field(dc, "clients", "clients_in_timeout_table") == "0"
    line = client_line(dc, wid)
    assert " flags=b " in line and " cmd=wait " in line
    assert dc("CLIENT", "UNBLOCK", wid) == 1
    assert waiter.read(timeout=ANSWER) == 0
    waiter.send("WAIT", "2", "0")
    wait_blocked(dc, 1)
    assert dc("CLIENT", "UNBLOCK", wid, "ERROR") == 1
    assert waiter.read(timeout=ANSWER) == ReplyError("UNBLOCKED client unblocked via CLIENT UNBLOCK")
    assert dc("CLIENT", "UNBLOCK", wid) == 0
    assert waiter("PING") == "PONG"
    # A waiter that goes away is forgotten.
    waiter.send("WAIT", "1", "0")
    wait_blocked(dc, 1)
    waiter.close()
    wait_blocked(dc, 0)
    assert dc("PING") == "PONG"


def test_wait_and_pause(dc, dconnect):
    other = dconnect()
    # WAIT is no write: a WRITE pause lets it run (and block on its own).
    assert dc("CLIENT", "PAUSE", FOREVER, "WRITE") == "OK"
    assert other("WAIT", "0", "0") == 0
    start = time.time()
    other.send("WAIT", "1", "200")
    assert other.read(timeout=ANSWER) == 0
    assert time.time() - start >= 0.19
    assert dc("CLIENT", "UNPAUSE") == "OK"
    assert dc("CLIENT", "PAUSE", "300", "ALL") == "OK"
    assert is_held(other, "WAIT", "0", "0")
    assert other.read(timeout=ANSWER) == 0
