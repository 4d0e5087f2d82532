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
