"""Client-side caching (CLIENT TRACKING) as Redis 7.0.15 has it: default
mode, BCAST with prefixes, OPTIN/OPTOUT with CLIENT CACHING, NOLOOP,
REDIRECT (RESP2 through __redis__:invalidate, RESP3 pushes, a vanished
redirect client), flush invalidation, tracking-table-max-keys, CLIENT
GETREDIR/TRACKINGINFO/LIST, INFO, and the interplay with MULTI/EXEC, Lua
scripts and expiry. Exact frames are checked with raw connections; the RESP2
redirect recipe a cache built on redis-py 4 uses is checked with redis-py.
Every test passes on the reference too.
"""
import time

from resp_raw import Err, Push

INV = b">2\r\n$10\r\ninvalidate\r\n"


def inv_frame(*keys):
    body = b"*%d\r\n" % len(keys) + b"".join(b"$%d\r\n%s\r\n" % (len(k), k.encode()) for k in keys)
    return INV + body


def resp3(open_conn):
    c = open_conn(timeout=5.0)
    assert c.call("HELLO", "3")["proto"] == 3
    return c


def info_field(c, name):
    text = c.call("INFO", "all")
    for line in text.split("\r\n"):
        if line.startswith(name + ":"):
            return int(line.split(":", 1)[1])
    raise AssertionError(name + " not in INFO")


def test_default_mode_invalidates_each_read_key_once(open_conn):
    c, other = resp3(open_conn), open_conn()
    assert c.call("CLIENT", "TRACKING", "on") == "OK"
    other.call("MSET", "a", "1", "b", "1")
    assert c.call("GET", "a") == "1"
    other.call("SET", "b", "2")  # not read by c: nothing
    other.call("SET", "a", "2")
    assert c.read_frame() == inv_frame("a")
    other.call("SET", "a", "3")  # forgotten after the first invalidation
    assert c.call("PING") == "PONG"
    assert c.nothing_pending()


def test_invalidation_comes_after_the_own_reply(open_conn):
    c = resp3(open_conn)
    c.call("CLIENT", "TRACKING", "on")
    c.call("HSET", "h", "f", "1")
    c.call("HGET", "h", "f")
    assert c.call_frame("HDEL", "h", "f") == b":1\r\n"
    assert c.read_frame() == inv_frame("h")


def test_transaction_reply_is_not_interleaved(open_conn):
    c = resp3(open_conn)
    c.call("CLIENT", "TRACKING", "on")
    c.call("MSET", "a", "1", "b", "2")
    c.call("GET", "a")
    c.call("MULTI")
    c.call("INCR", "a")
    c.call("GET", "b")
    assert c.call("EXEC") == [2, "2"]
    assert c.read_frame() == inv_frame("a")
    # The transaction's reads are tracked too.
    open_conn().call("SET", "b", "x")
    assert c.read_frame() == inv_frame("b")


def test_noloop_skips_own_changes(open_conn):
    c, other = resp3(open_conn), open_conn()
    c.call("CLIENT", "TRACKING", "on", "NOLOOP")
    c.call("MGET", "mine", "theirs")
    c.call("SET", "mine", "1")
    other.call("SET", "theirs", "1")
    assert c.read_frame() == inv_frame("theirs")
    assert c.call("PING") == "PONG"


def test_resp2_redirect_through_pubsub_channel(open_conn, connect):
    sub = connect(timeout=5.0)
    redir_id = sub.call("CLIENT", "ID")
    sub.call("SUBSCRIBE", "__redis__:invalidate")
    c, other = open_conn(), open_conn()
    assert c.call("CLIENT", "TRACKING", "on", "REDIRECT", str(redir_id)) == "OK"
    assert c.call("CLIENT", "GETREDIR") == redir_id
    c.call("GET", "k")
    other.call("SET", "k", "v")
    assert sub.read_frame() == b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\nk\r\n"
    other.call("FLUSHALL")
    assert sub.read_frame() == b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n$-1\r\n"


def test_redis_py_cache_invalidated_through_redirect(server):
    """The RESP2 recipe of a local cache on redis-py 4.3 (which has no
    built-in client-side caching): a Pub/Sub connection receives the
    invalidations of the data connection."""
    data = server.client(decode_responses=True)
    ps = server.client(decode_responses=True).pubsub()
    ps.subscribe("__redis__:invalidate")
    assert ps.get_message(timeout=2)["type"] == "subscribe"
    # The Pub/Sub connection's id: from CLIENT LIST (its last command is subscribe).
    ps_id = next(cl["id"] for cl in data.client_list() if cl["cmd"] == "subscribe")
    data.execute_command("CLIENT", "TRACKING", "on", "REDIRECT", ps_id)
    data.set("user:1", "alice")
    cache = {"user:1": data.get("user:1")}
    server.client().set("user:1", "bob")
    msg = ps.get_message(timeout=2)
    assert msg["channel"] == "__redis__:invalidate" and msg["data"] == ["user:1"]
    for key in msg["data"]:
        cache.pop(key, None)
    assert cache == {}
    assert data.get("user:1") == "bob"
    info = data.client_info()
    assert "t" in info["flags"] and info["redir"] == ps_id
    ps.close()
    data.close()


def test_resp3_redirect_receives_pushes(open_conn):
    target = resp3(open_conn)
    tid = target.call("CLIENT", "ID")
    c, other = open_conn(), open_conn()
    c.call("CLIENT", "TRACKING", "on", "REDIRECT", str(tid))
    c.call("GET", "k")
    target.send("CLIENT", "REPLY", "OFF")  # no reply; invalidations still arrive
    other.call("SET", "k", "v")
    assert target.read_frame() == inv_frame("k")
    assert target.call("CLIENT", "REPLY", "ON") == "OK"


def test_broken_redirect(open_conn, connect):
    gone = connect()
    gid = gone.call("CLIENT", "ID")
    c, other = resp3(open_conn), open_conn()
    c.call("CLIENT", "TRACKING", "on", "REDIRECT", str(gid))
    c.call("GET", "k")
    gone.close()
    deadline = time.time() + 3
    while any(cl.startswith("id=%d " % gid) for cl in other.call("CLIENT", "LIST").splitlines()):
        assert time.time() < deadline
        time.sleep(0.02)
    other.call("SET", "k", "v")
    assert c.read_frame() == b">2\r\n$21\r\ntracking-redir-broken\r\n:%d\r\n" % gid
    assert c.call("CLIENT", "TRACKINGINFO") == {"flags": {"on", "broken_redirect"}, "redirect": gid, "prefixes": []}
    assert " flags=tR " in c.call("CLIENT", "INFO")
    assert c.call("CLIENT", "TRACKING", "on", "REDIRECT", str(gid)) == Err(
        "ERR The client ID you want redirect to does not exist")


def test_bcast_prefixes(open_conn):
    c, other = resp3(open_conn), open_conn()
    assert c.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a:", "PREFIX", "b:") == "OK"
    other.call("MULTI")
    for k in ("a:2", "a:1", "b:1", "c:1"):
        other.call("INCR", k)
    other.call("EXEC")
    got = sorted([c.read(), c.read()])
    assert got == [Push(["invalidate", ["a:1", "a:2"]]), Push(["invalidate", ["b:1"]])]
    # More prefixes may be added while on.
    assert c.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "c:") == "OK"
    other.call("SET", "c:9", "x")
    assert c.read_frame() == inv_frame("c:9")
    assert c.call("CLIENT", "TRACKINGINFO") == {"flags": {"on", "bcast"}, "redirect": 0,
                                                "prefixes": ["a:", "b:", "c:"]}
    assert " flags=tB " in c.call("CLIENT", "INFO")


def test_bcast_empty_prefix_noloop_and_expiry(open_conn):
    c, other = resp3(open_conn), open_conn()
    c.call("CLIENT", "TRACKING", "on", "BCAST", "NOLOOP")
    assert c.call("CLIENT", "TRACKINGINFO")["prefixes"] == [""]
    c.call("SET", "mine", "1", "PX", "1")  # own change: skipped; its expiry: not
    other.call("SET", "x", "1")
    assert c.read_frame() == inv_frame("x")
    assert c.read_frame(timeout=3) == inv_frame("mine")


def test_prefix_overlap_errors(open_conn):
    c = open_conn()
    assert c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "FOOBAR", "PREFIX", "FOO") == Err(
        "ERR Prefix 'FOOBAR' overlaps with another provided prefix 'FOO'. "
        "Prefixes for a single client must not overlap.")
    assert c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "FOO", "PREFIX", "BAR") == "OK"
    assert c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "FO") == Err(
        "ERR Prefix 'FO' overlaps with an existing prefix 'FOO'. Prefixes for a single client must not overlap.")


def test_option_errors(open_conn):
    c = open_conn()
    assert c.call("CLIENT", "TRACKING", "on", "PREFIX", "a") == Err(
        "ERR PREFIX option requires BCAST mode to be enabled")
    assert c.call("CLIENT", "TRACKING", "on", "BCAST", "OPTIN") == Err(
        "ERR OPTIN and OPTOUT are not compatible with BCAST")
    assert c.call("CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT") == Err("ERR You can't specify both OPTIN mode and OPTOUT mode")
    assert c.call("CLIENT", "TRACKING", "maybe") == Err("ERR syntax error")
    assert c.call("CLIENT", "TRACKING", "on", "REDIRECT", "x") == Err("ERR value is not an integer or out of range")
    assert c.call("CLIENT", "TRACKING", "on", "OPTIN") == "OK"
    assert c.call("CLIENT", "TRACKING", "on", "OPTOUT") == Err(
        "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
        "and then re-enabling it with a different mode.")
    assert c.call("CLIENT", "TRACKING", "on", "BCAST") == Err(
        "ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
        "and then re-enabling it with a different mode.")
    assert c.call("CLIENT", "CACHING", "no") == Err(
        "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
    assert c.call("CLIENT", "TRACKING", "off") == "OK"
    assert c.call("CLIENT", "GETREDIR") == -1


def test_optin_and_optout(open_conn):
    c, other = resp3(open_conn), open_conn()
    c.call("CLIENT", "TRACKING", "on", "OPTIN")
    c.call("GET", "skipped")
    assert c.call("CLIENT", "CACHING", "yes") == "OK"
    assert c.call("CLIENT", "TRACKINGINFO")["flags"] == {"on", "optin", "caching-yes"}
    c.call("GET", "cached")
    assert c.call("CLIENT", "TRACKINGINFO")["flags"] == {"on", "optin"}  # for one command only
    other.call("SET", "skipped", "1")
    other.call("SET", "cached", "1")
    assert c.read_frame() == inv_frame("cached")
    c.call("CLIENT", "TRACKING", "off")
    c.call("CLIENT", "TRACKING", "on", "OPTOUT")
    c.call("CLIENT", "CACHING", "no")
    c.call("GET", "skipped")
    c.call("GET", "cached")
    other.call("SET", "skipped", "2")
    other.call("SET", "cached", "2")
    assert c.read_frame() == inv_frame("cached")
    assert c.call("CLIENT", "CACHING", "yes") == Err(
        "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")


def test_flush_invalidates_with_null(open_conn):
    c, other = resp3(open_conn), open_conn()
    c.call("CLIENT", "TRACKING", "on")
    c.call("GET", "k")
    assert info_field(other, "tracking_total_keys") == 1
    other.call("FLUSHALL")
    assert c.read_frame() == INV + b"_\r\n"
    assert info_field(other, "tracking_total_keys") == 0
    c.call("MULTI")
    c.call("FLUSHDB")
    assert c.call_frame("EXEC") == b"*1\r\n+OK\r\n"
    assert c.read_frame() == INV + b"_\r\n"
    assert c.call("PING") == "PONG"


def test_table_limit_evicts_with_invalidations(open_conn):
    c, other = resp3(open_conn), open_conn()
    c.call("CLIENT", "TRACKING", "on")
    c.call("MGET", "k1", "k2", "k3")
    assert other.call("CONFIG", "SET", "tracking-table-max-keys", "1") == "OK"
    assert other.call("CONFIG", "GET", "tracking-table-max-keys") == ["tracking-table-max-keys", "1"]
    other.call("PING")  # the limit applies before the next command
    got = {c.read()[1][0], c.read()[1][0]}
    assert len(got) == 2 and got < {"k1", "k2", "k3"}
    assert info_field(other, "tracking_total_keys") == 1


def test_info_and_client_list(open_conn, connect):
    c, b, other = open_conn(), open_conn(), open_conn()
    sub = connect()
    sid = sub.call("CLIENT", "ID")
    c.call("CLIENT", "TRACKING", "on", "REDIRECT", str(sid))
    c.call("MGET", "k1", "k2")
    b.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "p:", "PREFIX", "q:")
    assert info_field(other, "tracking_clients") == 2
    assert info_field(other, "tracking_total_keys") == 2
    assert info_field(other, "tracking_total_items") == 2
    assert info_field(other, "tracking_total_prefixes") == 2
    line = c.call("CLIENT", "INFO")
    assert " flags=t " in line and " redir=%d " % sid in line
    c.call("CLIENT", "TRACKING", "off")
    assert " flags=N " in c.call("CLIENT", "INFO") and " redir=-1 " in c.call("CLIENT", "INFO")
    b.close()
    deadline = time.time() + 3
    while info_field(other, "tracking_clients") != 0:
        assert time.time() < deadline
        time.sleep(0.02)
    assert info_field(other, "tracking_total_prefixes") == 0


def test_trackinginfo_resp2(open_conn):
    c = open_conn()
    c.call("CLIENT", "TRACKING", "on", "noloop")
    assert c.call("CLIENT", "TRACKINGINFO") == ["flags", ["on", "noloop"], "redirect", 0, "prefixes", []]
    assert c.call("CLIENT", "GETREDIR") == 0


def test_scripts_track_declared_keys_once_they_read(open_conn):
    c, other = resp3(open_conn), open_conn()
    c.call("CLIENT", "TRACKING", "on")
    c.call("EVAL", "redis.call('set', 'k3', 'bar')", "2", "k1", "k2")
    other.call("MSET", "k1", "x", "k2", "x")
    assert c.call("PING") == "PONG" and c.nothing_pending()
    c.call("EVAL", "redis.call('get', 'k3')", "2", "k1", "k2")
    other.call("MSET", "k2", "y", "k1", "y")
    assert c.read_frame() == inv_frame("k2")
    assert c.read_frame() == inv_frame("k1")
    c.call("EVAL_RO", "redis.call('ping')", "1", "k1")
    other.call("SET", "k1", "z")
    assert c.call("PING") == "PONG" and c.nothing_pending()


def test_eviction_invalidation_precedes_the_reply(open_conn):
    c = resp3(open_conn)
    c.call("CLIENT", "TRACKING", "on")
    used = info_field(c, "used_memory")
    c.call("CONFIG", "SET", "maxmemory-policy", "volatile-random")
    c.call("CONFIG", "SET", "maxmemory", str(used + 100 * 1024))
    c.call("SETEX", "volatile-key", "10000", "x")
    c.call("GET", "volatile-key")
    c.call("SETBIT", "big-key", "1600000", "0")  # over maxmemory now: the next command evicts
    c.send("GETBIT", "big-key", "0")
    assert c.read_frame() == inv_frame("volatile-key")
    assert c.read() == 0
    c.call("CONFIG", "SET", "maxmemory", "0")


def test_caching_is_spent_by_a_rejected_command(open_conn):
    c, other = resp3(open_conn), open_conn()
    c.call("CLIENT", "TRACKING", "on", "OPTIN")
    c.call("CLIENT", "CACHING", "yes")
    assert c.call("NOSUCHCOMMAND") == Err("ERR unknown command 'NOSUCHCOMMAND', with args beginning with: ")
    c.call("GET", "x")
    other.call("SET", "x", "1")
    assert c.call("PING") == "PONG" and c.nothing_pending()


def test_stream_reads_are_tracked(open_conn):
    c, other = resp3(open_conn), open_conn()
    c.call("CLIENT", "TRACKING", "on")
    c.call("XREAD", "COUNT", "1", "STREAMS", "s1", "s2", "0", "0")
    other.call("XADD", "s2", "1-1", "f", "v")
    assert c.read_frame() == inv_frame("s2")


def test_reset_turns_tracking_off(open_conn):
    c, other = open_conn(), open_conn()
    c.call("CLIENT", "TRACKING", "on", "BCAST")
    assert info_field(other, "tracking_clients") == 1
    assert c.call("RESET") == "RESET"
    assert c.call("CLIENT", "TRACKINGINFO") == ["flags", ["off"], "redirect", -1, "prefixes", []]
    assert info_field(other, "tracking_clients") == 0
    assert info_field(other, "tracking_total_prefixes") == 0
