"""Behaviours Redis 7.0's own test suite (and client libraries) rely on:
HSCAN/ZSCAN pages count pairs, INCR keeps 0..9999 as shared integers,
float parsing refuses values with a NUL byte, WATCH on keys that had
already expired, RESTORE FREQ under LFU."""
import time

import pytest
import redis


@pytest.fixture
def r(server_factory):
    return server_factory("--enable-debug-command", "yes").client()


def test_hscan_and_zscan_count_a_pair_as_one(r):
    r.hset("h", mapping={"f%d" % i: i for i in range(1000)})
    r.zadd("z", {"m%d" % i: i for i in range(1000)})
    assert r.object("encoding", "h") == b"hashtable"
    assert r.object("encoding", "z") == b"skiplist"
    # One dictScan step may bring a few more than COUNT, never half of it.
    _, page = r.hscan("h", 0, count=50)
    assert 50 <= len(page) < 60
    _, page = r.zscan("z", 0, count=50)
    assert 50 <= len(page) < 60


def test_incr_results_in_the_shared_range_are_shared(r):
    r.set("foo", -1)
    r.incr("foo")
    assert r.object("refcount", "foo") == 2147483647
    r.set("foo", 9998)
    r.incr("foo")
    assert r.object("refcount", "foo") == 2147483647
    r.incr("foo")
    assert r.object("refcount", "foo") == 1
    # Out of the shared range the value is updated in place.
    r.set("foo", 20000)
    r.incr("foo")
    before = r.execute_command("DEBUG", "OBJECT", "foo").split()[1]
    r.incr("foo")
    assert r.execute_command("DEBUG", "OBJECT", "foo").split()[1] == before


def test_float_increments_refuse_values_with_a_nul_byte(r):
    r.set("foo", 1)
    r.setrange("foo", 2, 2)
    with pytest.raises(redis.ResponseError, match="^value is not a valid float$"):
        r.incrbyfloat("foo", 1)
    r.hset("h", "f", b"1\x002")
    with pytest.raises(redis.ResponseError, match="^hash value is not a float$"):
        r.hincrbyfloat("h", "f", 1)


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


def test_restore_freq_sets_the_lfu_counter_under_an_lfu_policy(r):
    r.set("foo", "bar")
    payload = r.dump("foo")
    r.delete("foo")
    r.config_set("maxmemory-policy", "allkeys-lfu")
    assert r.restore("foo", 0, payload, frequency=100) == b"OK"
    assert r.object("freq", "foo") == 100
    assert r.get("foo") == b"bar"
    r.config_set("maxmemory-policy", "noeviction")
    r.delete("foo")
    assert r.restore("foo", 0, payload, idletime=1000) == b"OK"
    assert r.object("idletime", "foo") >= 1000


def test_config_directives_the_suite_sets(r):
    r.config_set("repl-ping-replica-period", 3600)
    assert r.config_get("repl-ping-replica-period") == {"repl-ping-replica-period": "3600"}
    r.config_set("rdb-key-save-delay", 100)
    assert r.config_get("rdb-key-save-delay") == {"rdb-key-save-delay": "100"}
    r.set("k", "v")
    t = time.time()
    r.save()
    assert time.time() - t >= 0.0001


def query_buffer(r, name):
    for c in r.client_list():
        if c["name"] == name:
            return int(c["qbuf"]) + int(c["qbuf-free"]), int(c["idle"])
    return 0, 0


def test_query_buffer_shrinks_when_idle_and_after_a_big_request(server_factory):
    s = server_factory()
    r = s.client()
    idle = redis.Redis(port=r.connection_pool.connection_kwargs["port"], single_connection_client=True)
    idle.client_setname("idle_client")
    deadline = time.time() + 6
    while time.time() < deadline:
        size, secs = query_buffer(r, "idle_client")
        if secs >= 3 and size == 0:
            break
        time.sleep(0.1)
    assert query_buffer(r, "idle_client")[0] == 0

    busy = redis.Redis(port=r.connection_pool.connection_kwargs["port"], single_connection_client=True)
    busy.client_setname("busy_client")
    busy.set("x", "A" * 400000)
    big = query_buffer(r, "busy_client")[0]
    assert big > 32768
    deadline = time.time() + 2
    while time.time() < deadline:
        busy.set("x", "A" * 100)
        if query_buffer(r, "busy_client")[0] < big:
            break
        time.sleep(0.01)
    assert 0 < query_buffer(r, "busy_client")[0] < big


def test_flushall_saves_and_resets_the_write_count_when_save_points_are_set(server_factory, tmp_path):
    r = server_factory("--save", "", "--dir", str(tmp_path)).client()
    r.set("key", "value")
    r.flushall()
    assert r.info("persistence")["rdb_changes_since_last_save"] > 0
    r.config_set("save", "3600 1 300 100 60 10000")
    r.set("key", "value")
    r.flushall()
    assert r.info("persistence")["rdb_changes_since_last_save"] == 0


def test_a_new_clients_query_buffer_starts_at_16k(server_factory):
    r = server_factory().client()
    c = redis.Redis(port=r.connection_pool.connection_kwargs["port"], single_connection_client=True)
    c.client_setname("fresh")
    size = query_buffer(r, "fresh")[0]
    assert 16384 <= size < 32768


def test_command_getkeys_sort_with_several_store_keeps_the_last(r):
    r.set_response_callback("COMMAND", lambda resp, **kw: resp)
    assert r.execute_command("COMMAND", "GETKEYS", "SORT", "abc", "STORE", "invalid", "STORE", "stillbad",
                             "STORE", "def") == [b"abc", b"def"]


def test_set_pxat_is_propagated_with_the_option_uppercase(server_factory, tmp_path):
    r = server_factory("--appendonly", "yes", "--dir", str(tmp_path)).client()
    when = int(time.time() * 1000) + 100000
    r.execute_command("SET", "foo4", "bar", "pxat", when)
    r.execute_command("SET", "foo5", "bar", "exat", when // 1000)
    time.sleep(1.2)  # appendfsync everysec
    aof = b"".join(p.read_bytes() for p in (tmp_path / "appendonlydir").glob("*.incr.aof"))
    assert b"$4\r\nPXAT\r\n$13\r\n%d\r\n" % when in aof
    assert b"$4\r\nPXAT\r\n$13\r\n%d\r\n" % (when // 1000 * 1000) in aof
    assert b"pxat" not in aof
