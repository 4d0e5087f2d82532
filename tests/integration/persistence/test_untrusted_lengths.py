"""Untrusted sizes in RESTORE payloads kept without the deep check.

With sanitize-dump-payload no (the default) Redis checks a listpack's header
and size only. Counting the entries of one whose header does not give the
count (65535: "unknown") walks them; Redis checks every step of that walk and
stops on an assertion at a bad entry. Reading past the listpack instead is a
wild read (a crash by signal, or a count made of foreign memory).
"""
import struct

import pytest
import redis

from support import exits, rdb_len, rdb_str, start_exiting_on_panic, wait_for

RDB_TYPE_LIST_QUICKLIST_2 = 18
QUICKLIST_NODE_CONTAINER_PACKED = 2


def listpack(entries, count):
    body = b"".join(entries) + b"\xff"
    return struct.pack("<IH", 6 + len(body), count) + body


def quicklist_payload(lp):
    body = bytes([RDB_TYPE_LIST_QUICKLIST_2]) + rdb_len(1) + rdb_len(QUICKLIST_NODE_CONTAINER_PACKED) + rdb_str(lp)
    return body + b"\x0a\x00" + b"\x00" * 8  # RDB version 10, checksum skipped


GOOD_INT = b"\x01\x01"  # 7-bit integer 1, backlen 1
# A 32-bit string whose length runs 2 GB past the listpack (its backlen is never reached).
STR32_PAST_THE_END = b"\xf0" + struct.pack("<I", 0x7FFFFFF0) + b"abc"


def start_unchecked(server_factory):
    s, r = start_exiting_on_panic(server_factory)
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
    return s, r


@pytest.mark.server_crash
def test_uncounted_listpack_with_a_length_past_its_end_stops_on_an_assertion(server_factory):
    s, r = start_unchecked(server_factory)
    payload = quicklist_payload(listpack([GOOD_INT, STR32_PAST_THE_END], 0xFFFF))
    try:
        r.restore("key", 0, payload)
        r.execute_command("LLEN", "key")
    except redis.ConnectionError:
        pass
    assert exits(s), "the server went on with an entry 2 GB long"
    log = s.log()
    assert "ASSERTION FAILED" in log and "crashed by signal" not in log


def test_uncounted_listpack_with_a_length_past_its_end_is_refused_with_sanitizing(server_factory):
    s, r = start_unchecked(server_factory)
    r.config_set("sanitize-dump-payload", "yes")
    payload = quicklist_payload(listpack([GOOD_INT, STR32_PAST_THE_END], 0xFFFF))
    with pytest.raises(redis.ResponseError, match="^Bad data format$"):
        r.restore("key", 0, payload)
    assert r.ping() and r.dbsize() == 0


def test_uncounted_sound_listpack_is_counted(server_factory):
    s, r = start_unchecked(server_factory)
    payload = quicklist_payload(listpack([GOOD_INT, GOOD_INT, b"\x02\x01"], 0xFFFF))
    assert r.restore("key", 0, payload)
    assert r.llen("key") == 3 and r.lrange("key", 0, -1) == [b"1", b"1", b"2"]


# A listpack whose header and size are right but whose second entry (a 6-bit
# string said to be 63 bytes long) runs into the terminator: it passes the
# shallow check only, and its header count (2) is never walked.
BAD_SECOND_ENTRY = listpack([GOOD_INT, b"\xbf" + b"x" * 3], 2)


def quicklist_of(nodes):
    body = bytes([RDB_TYPE_LIST_QUICKLIST_2]) + rdb_len(len(nodes))
    for lp in nodes:
        body += rdb_len(QUICKLIST_NODE_CONTAINER_PACKED) + rdb_str(lp)
    return body + b"\x0a\x00" + b"\x00" * 8


def test_unchecked_values_freed_by_the_lazyfree_thread(server_factory):
    """An unchecked list of 70 nodes is large enough for UNLINK to leave it to
    the lazyfree thread, which frees it while the main thread keeps RESTOREing
    (marking) other unchecked values: the list of unchecked values is shared by
    both threads. None of it may stop the server, and no fresh value may be
    taken for an unchecked one afterwards."""
    s, r = start_unchecked(server_factory)
    big = quicklist_of([BAD_SECOND_ENTRY] * 60 + [listpack([GOOD_INT], 1)] * 10)
    small = quicklist_of([BAD_SECOND_ENTRY])
    rounds = 300
    p = r.pipeline(transaction=False)
    for i in range(rounds):
        p.restore("big", 0, big)
        p.restore("small:%d" % i, 0, small)
        p.unlink("big")
    p.execute()
    p = r.pipeline(transaction=False)
    for i in range(rounds):
        p.unlink("small:%d" % i)
    p.execute()
    for i in range(rounds):
        r.rpush("fresh:%d" % i, "a", "b")
    assert [r.llen("fresh:%d" % i) for i in range(rounds)] == [2] * rounds
    wait_for(lambda: not int(r.info("memory")["lazyfree_pending_objects"]))
    assert int(r.info("memory")["lazyfreed_objects"]) >= rounds


@pytest.mark.server_crash
def test_unchecked_value_answers_what_does_not_read_its_entries(server_factory):
    """Redis keeps such a value and stops only when a command reads a bad
    entry: TYPE, EXISTS, TTL, EXPIRE, PERSIST, TOUCH, LLEN, OBJECT, MEMORY
    USAGE, DUMP, RENAME and MOVE answer as for any value. The mark follows the value
    through RENAME and MOVE: reading it there still stops the server."""
    s, r = start_unchecked(server_factory)
    payload = quicklist_of([BAD_SECOND_ENTRY])
    assert r.restore("k", 0, payload)
    assert r.type("k") == b"list"
    assert r.exists("k", "nokey") == 1
    assert r.ttl("k") == -1
    assert r.expire("k", 100) and 0 < r.ttl("k") <= 100
    assert r.persist("k") and r.ttl("k") == -1
    assert r.touch("k") == 1
    assert r.llen("k") == 2  # the count its listpack's header gives
    assert r.object("encoding", "k") in (b"quicklist", "quicklist")
    assert r.memory_usage("k") > 0
    assert r.dump("k")[:-10] == payload[:-10]  # the payload as it came (but its checksum)
    with pytest.raises(redis.ResponseError, match="^BUSYKEY"):
        r.restore("k", 0, payload)
    assert r.rename("k", "k2") and r.type("k2") == b"list"
    assert r.move("k2", 1)
    r.select(1)
    assert r.type("k2") == b"list"
    with pytest.raises(redis.ConnectionError):
        r.lrange("k2", 0, -1)
    assert exits(s)
    log = s.log()
    assert "ASSERTION FAILED" in log and "crashed by signal" not in log


@pytest.mark.server_crash
def test_copy_of_an_unchecked_value_is_unchecked_too(server_factory):
    """COPY copies the payload byte for byte, bad entries included: reading
    the copy stops the server once the original is gone as well."""
    s, r = start_unchecked(server_factory)
    assert r.restore("k", 0, quicklist_of([BAD_SECOND_ENTRY]))
    assert r.copy("k", "k3") and r.llen("k3") == 2
    assert r.delete("k") == 1
    assert r.rpush("fresh", "a") == 1 and r.lrange("fresh", 0, -1) == [b"a"]
    with pytest.raises(redis.ConnectionError):
        r.lrange("k3", 0, -1)
    assert exits(s)
    log = s.log()
    assert "ASSERTION FAILED" in log and "crashed by signal" not in log
