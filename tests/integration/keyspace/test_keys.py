"""Keyspace commands: databases, KEYS/SCAN, EXISTS/DEL/TYPE/RENAME/COPY/MOVE, OBJECT.

Replies and error texts as Redis 7.0.15 gives them (each checked on it).
"""
from resp_raw import Conn, Err

SYNTAX = Err("ERR syntax error")
NOT_INT = Err("ERR value is not an integer or out of range")
OUT_OF_RANGE = Err("ERR DB index is out of range")
SAME = Err("ERR source and destination objects are the same")
NO_SUCH_KEY = Err("ERR no such key")
WRONGTYPE = Err("WRONGTYPE Operation against a key holding the wrong kind of value")


def arity(cmd):
    return Err("ERR wrong number of arguments for '%s' command" % cmd)


# --- SELECT SWAPDB MOVE DBSIZE FLUSHDB FLUSHALL -------------------------------

def test_select(c):
    c.call("SET", "k", "db0")
    assert c.call("SELECT", "15") == "OK"
    assert c.call("GET", "k") is None
    c.call("SET", "k", "db15")
    assert c.call("SELECT", "0") == "OK"
    assert c.call("GET", "k") == "db0"
    assert c.call("SELECT", "16") == OUT_OF_RANGE
    assert c.call("SELECT", "-1") == OUT_OF_RANGE
    assert c.call("SELECT", "abc") == NOT_INT
    assert c.call("SELECT") == arity("select")
    assert c.call("GET", "k") == "db0"  # a failed SELECT keeps the current db


def test_select_is_per_connection(c, open_conn):
    other = open_conn()
    c.call("SELECT", "3")
    c.call("SET", "k", "v")
    assert other.call("GET", "k") is None
    assert other.call("SELECT", "3") == "OK"
    assert other.call("GET", "k") == "v"


def test_databases_config_limits_select(server_factory):
    s = server_factory("--databases", "4")
    conn = Conn(s)
    try:
        assert conn.call("SELECT", "3") == "OK"
        assert conn.call("SELECT", "4") == OUT_OF_RANGE
    finally:
        conn.close()


def test_swapdb(c):
    c.call("SET", "a", "in0")
    c.call("SELECT", "1")
    c.call("SET", "b", "in1")
    c.call("SELECT", "0")
    assert c.call("SWAPDB", "0", "1") == "OK"
    assert c.call("GET", "a") is None
    assert c.call("GET", "b") == "in1"
    c.call("SELECT", "1")
    assert c.call("GET", "a") == "in0"
    assert c.call("SWAPDB", "1", "1") == "OK"
    assert c.call("GET", "a") == "in0"


def test_swapdb_keeps_ttl(c):
    c.call("SET", "a", "v", "EX", "100")
    c.call("SWAPDB", "0", "2")
    c.call("SELECT", "2")
    assert 99 <= c.call("TTL", "a") <= 100


def test_swapdb_errors(c):
    assert c.call("SWAPDB", "0", "16") == OUT_OF_RANGE
    assert c.call("SWAPDB", "16", "0") == OUT_OF_RANGE
    assert c.call("SWAPDB", "0", "-1") == OUT_OF_RANGE
    assert c.call("SWAPDB", "abc", "0") == Err("ERR invalid first DB index")
    assert c.call("SWAPDB", "0", "abc") == Err("ERR invalid second DB index")
    assert c.call("SWAPDB", "0") == arity("swapdb")


def test_move(c):
    c.call("SET", "m", "v", "EX", "100")
    assert c.call("MOVE", "m", "1") == 1
    assert c.call("EXISTS", "m") == 0
    assert c.call("MOVE", "m", "1") == 0
    assert c.call("MOVE", "nokey", "1") == 0
    c.call("SELECT", "1")
    assert c.call("GET", "m") == "v"
    assert 99 <= c.call("TTL", "m") <= 100  # the TTL moves with the key


def test_move_to_existing_key_fails(c):
    c.call("SET", "m", "v")
    c.call("SELECT", "1")
    c.call("SET", "m", "x")
    c.call("SELECT", "0")
    assert c.call("MOVE", "m", "1") == 0
    assert c.call("GET", "m") == "v"


def test_move_errors(c):
    c.call("SET", "m", "v")
    assert c.call("MOVE", "m", "0") == SAME
    assert c.call("MOVE", "m", "16") == OUT_OF_RANGE
    assert c.call("MOVE", "m", "-1") == OUT_OF_RANGE
    assert c.call("MOVE", "m", "abc") == NOT_INT
    assert c.call("MOVE", "m") == arity("move")
    assert c.call("GET", "m") == "v"


def test_dbsize_flushdb_flushall(c):
    assert c.call("DBSIZE") == 0
    c.call("MSET", "a", "1", "b", "2", "c", "3")
    assert c.call("DBSIZE") == 3
    c.call("SELECT", "1")
    c.call("SET", "x", "1")
    assert c.call("DBSIZE") == 1
    c.call("SELECT", "0")
    assert c.call("FLUSHDB") == "OK"
    assert c.call("DBSIZE") == 0
    c.call("SELECT", "1")
    assert c.call("DBSIZE") == 1  # FLUSHDB empties only the selected db
    c.call("SELECT", "0")
    c.call("SET", "a", "1")
    assert c.call("FLUSHALL") == "OK"
    assert c.call("DBSIZE") == 0
    c.call("SELECT", "1")
    assert c.call("DBSIZE") == 0
    assert c.call("DBSIZE", "x") == arity("dbsize")


def test_flush_async_sync(c):
    for cmd in ("FLUSHDB", "FLUSHALL"):
        for mode in ("ASYNC", "SYNC", "async"):
            c.call("MSET", "a", "1", "b", "2")
            assert c.call(cmd, mode) == "OK"
            assert c.call("DBSIZE") == 0
        assert c.call(cmd, "foo") == SYNTAX
        assert c.call(cmd, "SYNC", "extra") == SYNTAX


def test_flushdb_many_keys(c):
    c.call("MSET", *[x for i in range(5000) for x in ("key:%d" % i, "v")])
    assert c.call("DBSIZE") == 5000
    assert c.call("FLUSHDB", "ASYNC") == "OK"
    assert c.call("DBSIZE") == 0
    assert c.call("GET", "key:1") is None


# --- KEYS ---------------------------------------------------------------------

GLOB_KEYS = ["hello", "hallo", "hxllo", "hllo", "heeeello", "hbllo", "h\\llo", "h*llo",
             "h]llo", "hillo", "h[", "x", "h!llo"]


def keys(c, pattern):
    return sorted(c.call("KEYS", pattern))


def test_keys_glob(c):
    c.call("MSET", *[x for k in GLOB_KEYS for x in (k, "1")])
    assert keys(c, "*") == sorted(GLOB_KEYS)
    assert keys(c, "h?llo") == sorted(["hello", "hallo", "hxllo", "hbllo", "h\\llo", "h*llo",
                                       "h]llo", "hillo", "h!llo"])
    assert keys(c, "h*llo") == sorted(["hello", "hallo", "hxllo", "hllo", "heeeello", "hbllo",
                                       "h\\llo", "h*llo", "h]llo", "hillo", "h!llo"])
    assert keys(c, "h[ae]llo") == ["hallo", "hello"]
    assert keys(c, "h[^e]llo") == sorted(["hallo", "hxllo", "hbllo", "h\\llo", "h*llo",
                                          "h]llo", "hillo", "h!llo"])
    assert keys(c, "h[a-b]llo") == ["hallo", "hbllo"]
    assert keys(c, "h[b-a]llo") == ["hallo", "hbllo"]  # a reversed range still matches
    assert keys(c, "h[!e]llo") == ["h!llo", "hello"]  # '!' is no negation, only '^' is
    assert keys(c, "h\\*llo") == ["h*llo"]
    assert keys(c, "h\\\\llo") == ["h\\llo"]
    assert keys(c, "h\\[") == ["h["]
    assert keys(c, "h[\\]]llo") == ["h]llo"]
    assert keys(c, "?") == ["x"]
    assert keys(c, "h[") == []  # an unterminated class matches nothing
    assert keys(c, "nomatch*") == []
    assert keys(c, "hello") == ["hello"]
    assert keys(c, "h*") == sorted(k for k in GLOB_KEYS if k.startswith("h"))
    assert c.call("KEYS") == arity("keys")


def test_keys_only_current_db(c):
    c.call("SET", "a", "1")
    c.call("SELECT", "1")
    c.call("SET", "b", "1")
    assert c.call("KEYS", "*") == ["b"]


def test_keys_binary(open_conn):
    c = open_conn(decode=False)
    c.call("MSET", b"a\x00b", b"1", b"a\xffb", b"2", b"ab", b"3")
    assert sorted(c.call("KEYS", b"a?b")) == [b"a\x00b", b"a\xffb"]


# --- SCAN ---------------------------------------------------------------------

def scan_all(c, *args, count=None):
    """Returns every key one full SCAN iteration gives (a list, may repeat)."""
    found = []
    cursor = "0"
    extra = list(args) + (["COUNT", str(count)] if count else [])
    while True:
        cursor, batch = c.call("SCAN", cursor, *extra)
        assert isinstance(batch, list)
        found.extend(batch)
        if cursor == "0":
            return found


def test_scan_basic(c):
    assert c.call("SCAN", "0") == ["0", []]
    names = ["key:%d" % i for i in range(1000)]
    c.call("MSET", *[x for k in names for x in (k, "v")])
    assert sorted(set(scan_all(c))) == sorted(names)
    assert sorted(set(scan_all(c, count=7))) == sorted(names)
    assert sorted(set(scan_all(c, count=5000))) == sorted(names)


def test_scan_small_db_one_call(c):
    # a small keyspace still scans in one pass with the default COUNT 10
    c.call("MSET", "a", "1", "b", "2", "c", "3")
    cursor, batch = c.call("SCAN", "0", "COUNT", "100")
    assert cursor == "0"
    assert sorted(batch) == ["a", "b", "c"]


def test_scan_match(c):
    names = ["user:%d" % i for i in range(200)] + ["item:%d" % i for i in range(200)]
    c.call("MSET", *[x for k in names for x in (k, "v")])
    found = set(scan_all(c, "MATCH", "user:1*", count=50))
    assert found == {k for k in names if k.startswith("user:1")}
    assert set(scan_all(c, "MATCH", "nothing*")) == set()


def test_scan_type(c):
    c.call("MSET", *[x for i in range(50) for x in ("s%d" % i, "v")])
    for i in range(30):
        c.call("RPUSH", "l%d" % i, "a")
    c.call("HSET", "h", "f", "v")
    c.call("SADD", "set", "m")
    c.call("ZADD", "z", "1", "m")
    assert set(scan_all(c, "TYPE", "string")) == {"s%d" % i for i in range(50)}
    assert set(scan_all(c, "TYPE", "list", count=20)) == {"l%d" % i for i in range(30)}
    assert set(scan_all(c, "TYPE", "LIST")) == {"l%d" % i for i in range(30)}
    assert scan_all(c, "TYPE", "hash") == ["h"]
    assert scan_all(c, "TYPE", "set") == ["set"]
    assert scan_all(c, "TYPE", "zset") == ["z"]
    assert scan_all(c, "TYPE", "foo") == []  # 7.0 accepts an unknown type and matches nothing
    assert set(scan_all(c, "MATCH", "l1*", "TYPE", "list")) == \
        {"l1"} | {"l1%d" % i for i in range(10)}


def test_scan_errors(c):
    assert c.call("SCAN", "abc") == Err("ERR invalid cursor")
    assert c.call("SCAN", "18446744073709551616") == Err("ERR invalid cursor")
    assert c.call("SCAN", "0", "COUNT", "0") == SYNTAX
    assert c.call("SCAN", "0", "COUNT", "-1") == SYNTAX
    assert c.call("SCAN", "0", "COUNT", "abc") == NOT_INT
    assert c.call("SCAN", "0", "MATCH") == SYNTAX
    assert c.call("SCAN", "0", "TYPE") == SYNTAX
    assert c.call("SCAN", "0", "FOO", "bar") == SYNTAX
    assert c.call("SCAN") == arity("scan")


def test_scan_full_iteration_guarantee_while_adding(c):
    """Every key present for the whole iteration is returned, while the table grows."""
    original = ["key:%d" % i for i in range(10000)]
    c.call("MSET", *[x for k in original for x in (k, "v")])
    found = set()
    cursor = "0"
    added = 0
    calls = 0
    while True:
        cursor, batch = c.call("SCAN", cursor, "COUNT", "100")
        found.update(batch)
        calls += 1
        # add keys between calls: the table rehashes to a bigger size mid-scan
        new = ["new:%d" % (added + i) for i in range(150)]
        added += len(new)
        c.call("MSET", *[x for k in new for x in (k, "v")])
        if cursor == "0":
            break
        assert calls < 2000
    missing = set(original) - found
    assert not missing, "%d keys never returned, e.g. %r" % (len(missing), sorted(missing)[:5])
    assert c.call("DBSIZE") == 10000 + added


def test_scan_guarantee_while_deleting(c):
    original = ["key:%d" % i for i in range(4000)]
    c.call("MSET", *[x for k in original for x in (k, "v")])
    doomed = original[::2]
    kept = set(original[1::2])
    found = set()
    cursor = "0"
    step = 0
    while True:
        cursor, batch = c.call("SCAN", cursor, "COUNT", "50")
        found.update(batch)
        chunk = doomed[step * 100:(step + 1) * 100]
        if chunk:
            c.call("DEL", *chunk)
        step += 1
        if cursor == "0":
            break
    assert kept <= found


# --- RANDOMKEY EXISTS DEL UNLINK TYPE TOUCH -----------------------------------

def test_randomkey(c):
    assert c.call("RANDOMKEY") is None
    c.call("MSET", "a", "1", "b", "2", "c", "3")
    seen = {c.call("RANDOMKEY") for _ in range(200)}
    assert seen == {"a", "b", "c"}
    assert c.call("RANDOMKEY", "x") == arity("randomkey")


def test_exists_counts_duplicates(c):
    c.call("MSET", "a", "1", "b", "2")
    assert c.call("EXISTS", "a") == 1
    assert c.call("EXISTS", "a", "a", "nokey", "b") == 3
    assert c.call("EXISTS", "nokey") == 0
    assert c.call("EXISTS") == arity("exists")


def test_del_unlink(c):
    c.call("MSET", "a", "1", "b", "2", "c", "3")
    c.call("RPUSH", "l", "x")
    assert c.call("DEL", "a", "a", "nokey") == 1
    assert c.call("UNLINK", "b", "b", "l") == 2
    assert c.call("DEL", "nokey") == 0
    assert c.call("KEYS", "*") == ["c"]
    assert c.call("DEL") == arity("del")
    assert c.call("UNLINK") == arity("unlink")


def test_unlink_big_value(c):
    c.call("RPUSH", "big", *["item%d" % i for i in range(20000)])
    assert c.call("UNLINK", "big") == 1
    assert c.call("EXISTS", "big") == 0


def test_type(c):
    c.call("SET", "s", "v")
    c.call("SET", "n", "12")
    c.call("RPUSH", "l", "a")
    c.call("SADD", "set", "a")
    c.call("ZADD", "z", "1", "a")
    c.call("HSET", "h", "f", "v")
    for key, kind in [("s", "string"), ("n", "string"), ("l", "list"), ("set", "set"),
                      ("z", "zset"), ("h", "hash"), ("nokey", "none")]:
        reply = c.call("TYPE", key)
        assert reply == kind
        assert type(reply).__name__ == "Status"  # TYPE answers with a status reply


def test_touch(c):
    c.call("MSET", "a", "1", "b", "2")
    assert c.call("TOUCH", "a", "b", "nokey") == 2
    assert c.call("TOUCH", "a", "a") == 2
    assert c.call("TOUCH") == arity("touch")


# --- RENAME RENAMENX ----------------------------------------------------------

def test_rename(c):
    c.call("SET", "a", "v")
    assert c.call("RENAME", "a", "b") == "OK"
    assert c.call("EXISTS", "a") == 0
    assert c.call("GET", "b") == "v"
    c.call("RPUSH", "l", "x")
    assert c.call("RENAME", "b", "l") == "OK"  # overwrites a key of another type
    assert c.call("TYPE", "l") == "string"
    assert c.call("GET", "l") == "v"
    assert c.call("RENAME", "l", "l") == "OK"
    assert c.call("GET", "l") == "v"


def test_rename_ttl(c):
    c.call("SET", "a", "v", "EX", "100")
    c.call("RENAME", "a", "b")
    assert 99 <= c.call("TTL", "b") <= 100
    c.call("SET", "c", "v", "EX", "100")
    c.call("SET", "d", "v")
    c.call("RENAME", "d", "c")  # the destination's TTL goes with its old value
    assert c.call("TTL", "c") == -1


def test_rename_errors(c):
    assert c.call("RENAME", "nokey", "b") == NO_SUCH_KEY
    assert c.call("RENAME", "nokey", "nokey") == NO_SUCH_KEY
    assert c.call("RENAMENX", "nokey", "b") == NO_SUCH_KEY
    assert c.call("RENAME", "a") == arity("rename")
    assert c.call("RENAMENX", "a") == arity("renamenx")


def test_renamenx(c):
    c.call("MSET", "a", "1", "b", "2")
    assert c.call("RENAMENX", "a", "b") == 0
    assert c.call("MGET", "a", "b") == ["1", "2"]
    assert c.call("RENAMENX", "a", "a") == 0
    assert c.call("RENAMENX", "a", "c") == 1
    assert c.call("MGET", "a", "c") == [None, "1"]


# --- COPY ---------------------------------------------------------------------

def test_copy(c):
    c.call("SET", "s", "v")
    assert c.call("COPY", "s", "d") == 1
    assert c.call("GET", "d") == "v"
    assert c.call("COPY", "s", "d") == 0
    c.call("SET", "s", "w")
    assert c.call("COPY", "s", "d", "REPLACE") == 1
    assert c.call("GET", "d") == "w"
    assert c.call("COPY", "nokey", "d") == 0
    assert c.call("COPY", "nokey", "d", "REPLACE") == 0
    assert c.call("GET", "d") == "w"


def test_copy_is_independent(c):
    c.call("RPUSH", "l", "a", "b", "c")
    assert c.call("COPY", "l", "l2") == 1
    c.call("RPUSH", "l2", "d")
    assert c.call("LRANGE", "l", "0", "-1") == ["a", "b", "c"]
    assert c.call("LRANGE", "l2", "0", "-1") == ["a", "b", "c", "d"]
    c.call("SET", "n", "10")
    c.call("COPY", "n", "n2")
    c.call("INCR", "n2")
    assert c.call("MGET", "n", "n2") == ["10", "11"]


def test_copy_ttl(c):
    c.call("SET", "e", "v", "EX", "100")
    c.call("COPY", "e", "e2")
    assert 99 <= c.call("TTL", "e2") <= 100
    c.call("SET", "p", "v")
    c.call("SET", "q", "old", "EX", "100")
    c.call("COPY", "p", "q", "REPLACE")
    assert c.call("TTL", "q") == -1


def test_copy_db(c):
    c.call("SET", "s", "v")
    assert c.call("COPY", "s", "d", "DB", "1") == 1
    assert c.call("COPY", "s", "d", "DB", "1") == 0
    assert c.call("COPY", "s", "s", "DB", "1") == 1  # same name, other db: allowed
    assert c.call("COPY", "s", "s", "DB", "1") == 0
    assert c.call("COPY", "s", "d", "REPLACE", "DB", "1", "REPLACE") == 1
    assert c.call("EXISTS", "d") == 0
    c.call("SELECT", "1")
    assert c.call("MGET", "d", "s") == ["v", "v"]


def test_copy_errors(c):
    c.call("SET", "s", "v")
    assert c.call("COPY", "s", "s") == SAME
    assert c.call("COPY", "s", "s", "DB", "0") == SAME
    assert c.call("COPY", "s", "d", "DB", "16") == OUT_OF_RANGE
    assert c.call("COPY", "s", "d", "DB", "-1") == OUT_OF_RANGE
    assert c.call("COPY", "s", "d", "DB", "abc") == NOT_INT
    assert c.call("COPY", "s", "d", "DB") == SYNTAX
    assert c.call("COPY", "s", "d", "FOO") == SYNTAX
    assert c.call("COPY", "s") == arity("copy")
    assert c.call("EXISTS", "d") == 0


# --- OBJECT -------------------------------------------------------------------

def test_object_refcount(c):
    c.call("SET", "s", "hello")
    assert c.call("OBJECT", "REFCOUNT", "s") == 1
    # small integers are shared objects, reported with the shared refcount
    c.call("SET", "n", "100")
    assert c.call("OBJECT", "REFCOUNT", "n") == 2147483647
    c.call("SET", "n", "9999")
    assert c.call("OBJECT", "REFCOUNT", "n") == 2147483647
    c.call("SET", "n", "10000")
    assert c.call("OBJECT", "REFCOUNT", "n") == 1
    assert c.call("OBJECT", "REFCOUNT", "nokey") is None


def test_object_idletime(c):
    c.call("SET", "s", "v")
    assert c.call("OBJECT", "IDLETIME", "s") == 0
    assert c.call("OBJECT", "IDLETIME", "nokey") is None


def test_object_freq(c):
    c.call("SET", "s", "v")
    assert c.call("OBJECT", "FREQ", "s") == Err(
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
        "Please note that when switching between policies at runtime LRU and LFU data "
        "will take some time to adjust.")
    assert c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu") == "OK"
    c.call("SET", "f", "v")
    assert c.call("OBJECT", "FREQ", "f") == 5  # new keys start with LFU_INIT_VAL
    assert c.call("OBJECT", "FREQ", "nokey") is None
    assert c.call("OBJECT", "IDLETIME", "f") == Err(
        "ERR An LFU maxmemory policy is selected, idle time not tracked. "
        "Please note that when switching between policies at runtime LRU and LFU data "
        "will take some time to adjust.")


def test_object_errors_and_help(c):
    c.call("SET", "s", "v")
    assert c.call("OBJECT") == arity("object")
    assert c.call("OBJECT", "ENCODING") == arity("object|encoding")
    assert c.call("OBJECT", "foo") == Err("ERR unknown subcommand 'foo'. Try OBJECT HELP.")
    assert c.call("OBJECT", "ENCODING", "nokey") is None
    help_lines = c.call("OBJECT", "HELP")
    assert help_lines[0] == "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    for sub in ("ENCODING <key>", "FREQ <key>", "IDLETIME <key>", "REFCOUNT <key>", "HELP"):
        assert sub in help_lines


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
