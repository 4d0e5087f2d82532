"""Transaction tests: MULTI/EXEC/DISCARD/WATCH/UNWATCH replies and error
texts, EXECABORT for errors found while queueing, run-time errors failing
only their command, and everything that does (or does not) invalidate a
WATCH: writes by others or by ourselves, expiry, FLUSHDB/FLUSHALL/SWAPDB,
writes to other databases, no-op writes. Blocking commands inside MULTI
return at once. Frames and texts were checked against redis-server 7.0.15.
"""
import time

import pytest
import redis

from support import free_port


EXECABORT = b"-EXECABORT Transaction discarded because of previous errors.\r\n"
NIL_EXEC = b"*-1\r\n"


@pytest.fixture
def c(connect):
    return connect()


@pytest.fixture
def other(connect):
    return connect()


def run_watched(c):
    """MULTI, PING, EXEC on c; return the EXEC frame (nil when the WATCH fired)."""
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("ping") == b"+QUEUED\r\n"
    return c.call_frame("exec")


# --- basic replies -----------------------------------------------------------------------------

def test_queued_and_exec_replies(c):
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("set", "a", "1") == b"+QUEUED\r\n"
    assert c.call_frame("incr", "a") == b"+QUEUED\r\n"
    assert c.call_frame("get", "a") == b"+QUEUED\r\n"
    assert c.call_frame("lpush", "l", "x", "y") == b"+QUEUED\r\n"
    assert c.call_frame("exec") == b"*4\r\n+OK\r\n:2\r\n$1\r\n2\r\n:2\r\n"


def test_nothing_runs_before_exec(c, other):
    c.call("multi")
    c.call("set", "a", "1")
    assert other.call_frame("get", "a") == b"$-1\r\n"
    assert c.call_frame("exec") == b"*1\r\n+OK\r\n"
    assert other.call_frame("get", "a") == b"$1\r\n1\r\n"


def test_empty_transaction(c):
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("exec") == b"*0\r\n"


def test_discard(c, other):
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("set", "a", "1") == b"+QUEUED\r\n"
    assert c.call_frame("discard") == b"+OK\r\n"
    assert c.call_frame("get", "a") == b"$-1\r\n"
    assert c.call_frame("exec") == b"-ERR EXEC without MULTI\r\n"


@pytest.mark.parametrize("args,frame", [
    (("exec",), b"-ERR EXEC without MULTI\r\n"),
    (("discard",), b"-ERR DISCARD without MULTI\r\n"),
    (("multi", "x"), b"-ERR wrong number of arguments for 'multi' command\r\n"),
    # EXEC's own arity error is reported as an abort, even outside MULTI.
    (("exec", "x"), b"-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command\r\n"),
    (("discard", "x"), b"-ERR wrong number of arguments for 'discard' command\r\n"),
    (("watch",), b"-ERR wrong number of arguments for 'watch' command\r\n"),
    (("unwatch", "x"), b"-ERR wrong number of arguments for 'unwatch' command\r\n"),
])
def test_errors_outside_multi(c, args, frame):
    assert c.call_frame(*args) == frame


def test_nested_multi_is_an_error_but_keeps_the_transaction(c):
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("multi") == b"-ERR MULTI calls can not be nested\r\n"
    assert c.call_frame("set", "a", "1") == b"+QUEUED\r\n"
    assert c.call_frame("exec") == b"*1\r\n+OK\r\n"


def test_watch_inside_multi_is_an_error_but_keeps_the_transaction(c):
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("watch", "a") == b"-ERR WATCH inside MULTI is not allowed\r\n"
    assert c.call_frame("unwatch") == b"+QUEUED\r\n"
    assert c.call_frame("exec") == b"*1\r\n+OK\r\n"


# --- errors while queueing abort; errors while running do not ------------------------------------

@pytest.mark.parametrize("bad,err", [
    (("nosuch",), b"-ERR unknown command 'nosuch', with args beginning with: \r\n"),
    (("nosuch", "a", "b"), b"-ERR unknown command 'nosuch', with args beginning with: 'a' 'b' \r\n"),
    (("get",), b"-ERR wrong number of arguments for 'get' command\r\n"),
    (("set", "a"), b"-ERR wrong number of arguments for 'set' command\r\n"),
    (("multi", "x"), b"-ERR wrong number of arguments for 'multi' command\r\n"),
    (("discard", "x"), b"-ERR wrong number of arguments for 'discard' command\r\n"),
    (("config", "nosub"), b"-ERR unknown subcommand 'nosub'. Try CONFIG HELP.\r\n"),
])
def test_queueing_error_aborts_exec(c, bad, err):
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("set", "a", "1") == b"+QUEUED\r\n"
    assert c.call_frame(*bad) == err
    assert c.call_frame("set", "b", "1") == b"+QUEUED\r\n"
    assert c.call_frame("exec") == EXECABORT
    # Nothing ran and the transaction is over.
    assert c.call_frame("exists", "a", "b") == b":0\r\n"
    assert c.call_frame("exec") == b"-ERR EXEC without MULTI\r\n"


def test_exec_arity_error_inside_multi_aborts_at_once(c):
    c.call("multi")
    c.call("set", "a", "1")
    assert c.call_frame("exec", "x") == \
        b"-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command\r\n"
    assert c.call_frame("exec") == b"-ERR EXEC without MULTI\r\n"
    assert c.call_frame("exists", "a") == b":0\r\n"


def test_runtime_errors_fail_only_their_command(c):
    c.call("multi")
    c.call("set", "s", "x")
    c.call("lpush", "s", "a")
    c.call("incr", "s")
    c.call("get", "s")
    assert c.call_frame("exec") == (
        b"*4\r\n+OK\r\n"
        b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
        b"-ERR value is not an integer or out of range\r\n"
        b"$1\r\nx\r\n")


def test_select_inside_multi(c, other):
    c.call("multi")
    c.call("select", "2")
    c.call("set", "k", "v")
    assert c.call_frame("exec") == b"*2\r\n+OK\r\n+OK\r\n"
    assert c.call_frame("get", "k") == b"$1\r\nv\r\n"       # still in db 2 afterwards
    assert other.call_frame("get", "k") == b"$-1\r\n"


@pytest.mark.parametrize("args,frame", [
    (("blpop", "nolist", "0"), b"*-1\r\n"),
    (("brpop", "nolist", "10"), b"*-1\r\n"),
    (("brpoplpush", "nolist", "dst", "0"), b"$-1\r\n"),
    (("blmove", "nolist", "dst", "left", "left", "0"), b"$-1\r\n"),
    (("blmpop", "0", "1", "nolist", "left"), b"*-1\r\n"),
    (("bzpopmin", "nozset", "0"), b"*-1\r\n"),
    (("bzpopmax", "nozset", "0"), b"*-1\r\n"),
    (("bzmpop", "0", "1", "nozset", "min"), b"*-1\r\n"),
])
def test_blocking_commands_return_at_once_inside_multi(c, args, frame):
    c.call("multi")
    assert c.call_frame(*args) == b"+QUEUED\r\n"
    t = time.time()
    assert c.call_frame("exec") == b"*1\r\n" + frame
    assert time.time() - t < 1


def test_blocking_pop_with_data_inside_multi(c, other):
    other.call("rpush", "bl", "1")
    c.call("multi")
    c.call("blpop", "bl", "0")
    assert c.call_frame("exec") == b"*1\r\n*2\r\n$2\r\nbl\r\n$1\r\n1\r\n"


# --- WATCH -------------------------------------------------------------------------------------

def test_watch_unmodified_key_runs(c):
    c.call("set", "k", "v")
    assert c.call_frame("watch", "k") == b"+OK\r\n"
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("incr", "n") == b"+QUEUED\r\n"
    assert c.call_frame("exec") == b"*1\r\n:1\r\n"


def test_write_by_another_client_aborts(c, other):
    c.call("set", "k", "v")
    c.call("watch", "k")
    other.call("set", "k", "v2")
    c.call("multi")
    c.call("set", "k", "mine")
    assert c.call_frame("exec") == NIL_EXEC
    assert other.call_frame("get", "k") == b"$2\r\nv2\r\n"


def test_write_after_multi_by_another_client_aborts(c, other):
    c.call("watch", "k")
    c.call("multi")
    c.call("set", "k", "mine")
    other.call("set", "k", "theirs")
    assert c.call_frame("exec") == NIL_EXEC
    assert other.call_frame("get", "k") == b"$6\r\ntheirs\r\n"


def test_nil_exec_in_resp3(c, other):
    c.call("hello", "3")
    c.call("watch", "k")
    other.call("set", "k", "x")
    assert run_watched(c) == b"_\r\n"


@pytest.mark.parametrize("setup,change", [
    ([("set", "s", "v")], ("set", "s", "v")),                   # same value still counts
    ([], ("set", "s", "new")),                                  # a key created
    ([("set", "s", "v")], ("del", "s")),
    ([("set", "s", "v")], ("expire", "s", "100")),
    ([("set", "s", "v"), ("expire", "s", "100")], ("persist", "s")),
    ([("set", "r1", "x")], ("rename", "r1", "s")),              # renamed onto the watched key
    ([("set", "s", "x")], ("rename", "s", "r2")),               # renamed away
    ([("rpush", "s", "x")], ("lpop", "s")),
    ([("sadd", "s", "a")], ("sadd", "s", "b")),
    ([("hset", "s", "f", "v")], ("hdel", "s", "f")),
    ([("zadd", "s", "1", "m")], ("zincrby", "s", "1", "m")),
    ([("set", "s", "1")], ("incr", "s")),
    ([("set", "s", "x")], ("move", "s", "1")),
    ([("set", "src", "x")], ("copy", "src", "s")),
    ([("set", "s", "v")], ("flushdb",)),
    ([("set", "s", "v")], ("flushall",)),
    ([("set", "s", "v")], ("swapdb", "0", "1")),
    ([("select", "1"), ("set", "s", "x"), ("select", "0")], ("swapdb", "0", "1")),
])
def test_changes_that_abort(c, other, setup, change):
    for args in setup:
        other.call(*args)
    c.call("watch", "s")
    other.call(*change)
    assert run_watched(c) == NIL_EXEC


@pytest.mark.parametrize("setup,change", [
    ([("set", "s", "v")], ("get", "s")),
    ([("set", "s", "v")], ("exists", "s")),
    ([("set", "s", "v")], ("touch", "s")),
    ([("set", "s", "v")], ("ttl", "s")),
    ([], ("del", "s")),                                         # deleting a missing key changes nothing
    ([("sadd", "s", "a")], ("srem", "s", "zz")),                # no-op writes do not count
    ([("sadd", "s", "a")], ("sadd", "s", "a")),
    ([("set", "s", "v")], ("set", "s", "x", "nx")),
    ([("set", "s", "v")], ("set", "other", "x")),
    ([], ("flushdb",)),                                         # flushing when the key did not exist
    ([], ("flushall",)),
    ([], ("swapdb", "0", "1")),                                 # missing in both databases
    ([("select", "1")], ("set", "s", "x")),                     # same name, other database
])
def test_changes_that_do_not_abort(c, other, setup, change):
    for args in setup:
        other.call(*args)
    c.call("watch", "s")
    other.call(*change)
    assert run_watched(c) == b"*1\r\n+PONG\r\n"


def test_watch_in_another_database(c, other):
    c.call("select", "3")
    c.call("watch", "k")
    other.call("set", "k", "db0")                   # db 0: unrelated
    assert run_watched(c) == b"*1\r\n+PONG\r\n"
    c.call("watch", "k")
    other.call("select", "3")
    other.call("set", "k", "db3")
    assert run_watched(c) == NIL_EXEC


def test_own_write_between_watch_and_multi_aborts(c):
    c.call("watch", "s")
    c.call("set", "s", "own")
    assert run_watched(c) == NIL_EXEC


def test_write_by_another_transaction_aborts(c, other):
    c.call("watch", "s")
    other.call("multi")
    other.call("set", "s", "x")
    assert other.call_frame("exec") == b"*1\r\n+OK\r\n"
    assert run_watched(c) == NIL_EXEC


def test_several_watched_keys(c, other):
    assert c.call_frame("watch", "w1", "w2") == b"+OK\r\n"
    assert c.call_frame("watch", "w3") == b"+OK\r\n"
    other.call("set", "w3", "x")
    assert run_watched(c) == NIL_EXEC


def test_expiry_of_a_watched_key_aborts(c):
    c.call("set", "k", "v", "px", "50")
    c.call("watch", "k")
    time.sleep(0.1)
    assert run_watched(c) == NIL_EXEC


def test_expiry_noticed_by_access_aborts(c, other):
    c.call("set", "k", "v", "px", "50")
    c.call("watch", "k")
    time.sleep(0.1)
    assert other.call_frame("get", "k") == b"$-1\r\n"
    assert run_watched(c) == NIL_EXEC


def test_key_already_expired_when_watched_does_not_abort(c):
    c.call("set", "k", "v", "px", "10")
    time.sleep(0.05)
    c.call("watch", "k")
    assert run_watched(c) == b"*1\r\n+PONG\r\n"


def test_unwatch_forgets(c, other):
    c.call("watch", "s")
    other.call("set", "s", "z")
    assert c.call_frame("unwatch") == b"+OK\r\n"
    assert run_watched(c) == b"*1\r\n+PONG\r\n"


def test_exec_forgets_watches(c, other):
    c.call("watch", "s")
    other.call("set", "s", "z")
    assert run_watched(c) == NIL_EXEC
    other.call("set", "s", "y")
    assert run_watched(c) == b"*1\r\n+PONG\r\n"


def test_discard_forgets_watches(c, other):
    c.call("watch", "s")
    other.call("set", "s", "z")
    c.call("multi")
    assert c.call_frame("discard") == b"+OK\r\n"
    assert run_watched(c) == b"*1\r\n+PONG\r\n"


def test_aborted_exec_forgets_watches(c, other):
    c.call("watch", "s")
    other.call("set", "s", "z")
    c.call("multi")
    c.call("nosuch")
    assert c.call_frame("exec") == EXECABORT
    assert run_watched(c) == b"*1\r\n+PONG\r\n"


def test_check_and_set_pattern(connect):
    """Two clients incrementing with WATCH/GET/MULTI/SET: the second one retries."""
    a, b = connect(), connect()
    a.call("set", "counter", "10")
    a.call("watch", "counter")
    b.call("watch", "counter")
    va = int(a.call("get", "counter"))
    vb = int(b.call("get", "counter"))
    a.call("multi")
    a.call("set", "counter", str(va + 1))
    assert a.call_frame("exec") == b"*1\r\n+OK\r\n"
    b.call("multi")
    b.call("set", "counter", str(vb + 1))
    assert b.call_frame("exec") == NIL_EXEC
    b.call("watch", "counter")
    vb = int(b.call("get", "counter"))
    b.call("multi")
    b.call("set", "counter", str(vb + 1))
    assert b.call_frame("exec") == b"*1\r\n+OK\r\n"
    assert a.call_frame("get", "counter") == b"$2\r\n12\r\n"


def test_exec_refused_when_replica_went_stale_after_queueing(server, connect):
    c, other = connect(), server.client()
    assert c.call("config", "set", "replica-serve-stale-data", "no") == "OK"
    assert c.call("set", "xx", "1") == "OK"
    unused = free_port()
    for queued in (("get", "xx"), ("ping",)):
        assert c.call("multi") == "OK"
        assert c.call(*queued) == "QUEUED"
        other.replicaof("127.0.0.1", unused)
        err = c.call("exec")
        assert err.startswith("EXECABORT Transaction discarded because of: MASTERDOWN"), err
        other.replicaof("no", "one")
    # not stale at EXEC: the queued read runs
    assert c.call("multi") == "OK"
    assert c.call("get", "xx") == "QUEUED"
    assert c.call("exec") == [b"1"]


def stale_key(r, key="x", db=None):
    """A key that is logically expired but still stored (active expiry off)."""
    if db is not None:
        r.execute_command("SELECT", db)
    r.set(key, "foo", px=1)
    time.sleep(0.01)


def exec_succeeds(r):
    """MULTI/PING/EXEC on the watching connection; True if EXEC ran."""
    r.execute_command("MULTI")
    r.execute_command("PING")
    return r.execute_command("EXEC") == [b"PONG"]


@pytest.fixture
def stale(server_factory):
    r = server_factory("--enable-debug-command", "yes").client()
    # One connection throughout: WATCH state belongs to it.
    r = redis.Redis(port=r.connection_pool.connection_kwargs["port"], single_connection_client=True)
    r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", 0)
    return r


def test_watching_a_stale_key_does_not_fail_exec(stale):
    stale_key(stale)
    stale.execute_command("WATCH", "x")
    assert exec_succeeds(stale)


def test_deleting_a_watched_stale_key_does_not_fail_exec(stale):
    stale_key(stale)
    stale.execute_command("WATCH", "x")
    assert stale.exists("x") == 0  # lazy expiry removes it
    assert exec_succeeds(stale)


def test_flushdb_while_watching_a_stale_key_does_not_fail_exec(stale):
    stale_key(stale)
    stale.execute_command("WATCH", "x")
    stale.flushdb()
    assert exec_succeeds(stale)


@pytest.mark.parametrize("stale_dbs", [[1], [0], [1, 0]], ids=["stale-by-nothing", "nothing-by-stale", "stale-by-stale"])
def test_swapdb_does_not_touch_watched_stale_or_missing_keys(stale, stale_dbs):
    for db in stale_dbs:
        stale_key(stale, db=db)
    stale.execute_command("SELECT", 1)
    stale.execute_command("WATCH", "x")
    stale.swapdb(0, 1)
    assert exec_succeeds(stale)


def test_a_watched_key_that_expires_after_watch_fails_exec(stale):
    stale.set("x", 1, px=50)
    stale.execute_command("WATCH", "x")
    time.sleep(0.1)
    stale.execute_command("MULTI")
    stale.execute_command("INCR", "x")
    assert stale.execute_command("EXEC") is None
    stale.set("y", 1)
    stale.execute_command("WATCH", "y")
    stale.flushdb()
    assert not exec_succeeds(stale)
