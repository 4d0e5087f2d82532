"""The DEBUG subcommands Redis's own test suite drives the server with answer
as Redis 7.0 does: same replies, same error texts."""
import time

import redis
import pytest

from support import info



pytestmark = pytest.mark.server_args("--enable-debug-command", "yes")  # the `server` fixture's server allows DEBUG


def test_protocol_replies_every_type_in_resp2(r):
    d = lambda t: r.execute_command("DEBUG", "PROTOCOL", t)
    assert d("string") == b"Hello World"
    assert d("integer") == 12345
    assert d("double") == b"3.141"
    assert d("bignum") == b"1234567999999999999999999999999999999"
    assert d("null") is None
    assert d("array") == [0, 1, 2]
    assert d("set") == [0, 1, 2]
    assert d("map") == [0, 0, 1, 1, 2, 0]
    assert d("attrib") == b"Some real reply following the attribute"
    assert d("verbatim") == b"This is a verbatim\nstring"
    assert d("true") == 1 and d("false") == 0
    with pytest.raises(redis.ResponseError, match="^RESP2 is not supported by this command$"):
        d("push")
    with pytest.raises(redis.ResponseError, match=r"^Wrong protocol type name\. Please use one of the following: "
                       r"string\|integer\|double\|bignum\|null\|array\|set\|map\|attrib\|push\|verbatim\|true\|false$"):
        d("nope")


def test_protocol_replies_every_type_in_resp3(server_factory):
    import socket
    s = server_factory("--enable-debug-command", "yes")
    sock = socket.create_connection(("127.0.0.1", s.port))
    f = sock.makefile("rb")

    def send(*args):
        sock.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))

    send(b"HELLO", b"3")
    # The HELLO map: read until its last pair (modules, an empty array).
    while f.readline() != b"*0\r\n":
        pass
    want = {
        b"double": b",3.141\r\n",
        b"bignum": b"(1234567999999999999999999999999999999\r\n",
        b"null": b"_\r\n",
        b"set": b"~3\r\n:0\r\n:1\r\n:2\r\n",
        b"map": b"%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n",
        b"attrib": b"|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n"
                   b"$39\r\nSome real reply following the attribute\r\n",
        b"push": b">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n$40\r\nSome real reply following the push reply\r\n",
        b"verbatim": b"=29\r\ntxt:This is a verbatim\nstring\r\n",
        b"true": b"#t\r\n",
        b"false": b"#f\r\n",
    }
    for t, expected in want.items():
        send(b"DEBUG", b"PROTOCOL", t)
        got = b""
        while len(got) < len(expected):
            got += f.read1(len(expected) - len(got))
        assert got == expected, t
    sock.close()


def test_populate_creates_keys_and_keeps_existing_ones(r):
    r.set("key:1", "mine")
    assert r.execute_command("DEBUG", "POPULATE", 3) == b"OK"
    assert r.mget("key:0", "key:1", "key:2") == [b"value:0", b"mine", b"value:2"]
    assert r.execute_command("DEBUG", "POPULATE", 2, "p", 12) == b"OK"
    assert r.get("p:1") == b"value:1\x00\x00\x00\x00\x00"
    assert r.execute_command("DEBUG", "POPULATE", 1, "q", 3) == b"OK"
    assert r.get("q:0") == b"val"
    for bad in (["x"], ["-1"], ["1", "p", "-5"]):
        with pytest.raises(redis.ResponseError, match="^value is out of range, must be positive$"):
            r.execute_command("DEBUG", "POPULATE", *bad)


def test_sdslen_listpack_quicklist_htstats(r):
    r.set("foo", "bar")
    r.set("i", 123)
    r.rpush("l", "a", "b" * 9000)  # a quicklist on 7.0 and 7.2 alike (over 8 KB)
    r.hset("h", "f", "v")
    r.sadd("s", "a", "b", "c" * 65)  # a hashtable on 7.0 and 7.2 alike (a member over 64 bytes)
    assert r.execute_command("DEBUG", "SDSLEN", "foo").startswith(b"key_sds_len:3, key_sds_avail:")
    with pytest.raises(redis.ResponseError, match=r"^Not an sds encoded string\.$"):
        r.execute_command("DEBUG", "SDSLEN", "i")
    for sub in ("SDSLEN", "LISTPACK", "QUICKLIST", "HTSTATS-KEY", "OBJECT"):
        with pytest.raises(redis.ResponseError, match="^no such key$"):
            r.execute_command("DEBUG", sub, "nokey")
    assert r.execute_command("DEBUG", "LISTPACK", "h") == b"Listpack structure printed on stdout"
    with pytest.raises(redis.ResponseError, match=r"^Not a listpack encoded object\.$"):
        r.execute_command("DEBUG", "LISTPACK", "l")
    assert r.execute_command("DEBUG", "QUICKLIST", "l") == b"Quicklist structure printed on stdout"
    assert r.execute_command("DEBUG", "QUICKLIST", "l", "1") == b"Quicklist structure printed on stdout"
    with pytest.raises(redis.ResponseError, match=r"^Not a quicklist encoded object\.$"):
        r.execute_command("DEBUG", "QUICKLIST", "h")
    stats = r.execute_command("DEBUG", "HTSTATS", 0)
    assert stats.startswith(b"[Dictionary HT]\nHash table 0 stats (main hash table):\n table size: 8\n")
    assert b"[Expires HT]\n" in stats
    assert b"number of elements: 3" in r.execute_command("DEBUG", "HTSTATS-KEY", "s")
    with pytest.raises(redis.ResponseError, match="^The value stored at the specified key is not represented using an hash table$"):
        r.execute_command("DEBUG", "HTSTATS-KEY", "h")
    with pytest.raises(redis.ResponseError, match="^Out of range database$"):
        r.execute_command("DEBUG", "HTSTATS", 99)
    with pytest.raises(redis.ResponseError, match="^value is not an integer or out of range$"):
        r.execute_command("DEBUG", "HTSTATS", "x")


def test_switches_answer_ok(r):
    for args in (["LOG", "hello"], ["SET-SKIP-CHECKSUM-VALIDATION", 1], ["SET-SKIP-CHECKSUM-VALIDATION", 0],
                 ["SET-DISABLE-DENY-SCRIPTS", 1], ["SET-DISABLE-DENY-SCRIPTS", 0], ["PAUSE-CRON", 1],
                 ["PAUSE-CRON", 0], ["REPLYBUFFER", "peak-reset-time", 100], ["REPLYBUFFER", "peak-reset-time", "never"],
                 ["REPLYBUFFER", "resizing", 0], ["REPLYBUFFER", "resizing", 1], ["CHANGE-REPL-ID"],
                 ["SLEEP", 0], ["SLEEP", "x"]):
        assert r.execute_command("DEBUG", *args) == b"OK", args
    # MALLCTL reaches jemalloc only (sanitizer builds use libc's malloc)
    if r.info("memory")["mem_allocator"].startswith("jemalloc"):
        assert r.execute_command("DEBUG", "MALLCTL-STR", "thread.tcache.flush", "VOID") == b"OK"
        assert r.execute_command("DEBUG", "MALLCTL", "arenas.page") >= 4096


def test_disable_deny_scripts_lets_scripts_run_noscript_commands(r):
    with pytest.raises(redis.ResponseError, match="not allowed from script"):
        r.eval("return redis.call('multi')", 0)
    r.execute_command("DEBUG", "SET-DISABLE-DENY-SCRIPTS", 1)
    try:
        r.eval("return redis.pcall('select', 0)", 0)
    finally:
        r.execute_command("DEBUG", "SET-DISABLE-DENY-SCRIPTS", 0)


def test_skip_checksum_validation_lets_restore_take_a_bad_checksum(r):
    r.set("k", "v")
    payload = bytearray(r.dump("k"))
    payload[-1] ^= 0xFF
    with pytest.raises(redis.ResponseError, match="^DUMP payload version or checksum are wrong$"):
        r.restore("k2", 0, bytes(payload))
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", 1)
    assert r.restore("k2", 0, bytes(payload)) == b"OK"
    assert r.get("k2") == b"v"


def test_unknown_or_misused_subcommands(r):
    for args in (["xyz"], ["DIGEST", "x"], ["REPLYBUFFER", "x"], ["JMAP"]):
        with pytest.raises(redis.ResponseError,
                           match=r"^unknown subcommand or wrong number of arguments for '%s'\. Try DEBUG HELP\.$" % args[0]):
            r.execute_command("DEBUG", *args)


def test_error_replies_with_the_message_verbatim(server_factory):
    import socket
    s = server_factory("--enable-debug-command", "yes")
    r = s.client()
    r.config_resetstat()
    # Raw bytes: redis-py would split the reply into an error code and a message.
    sock = socket.create_connection(("127.0.0.1", s.port))
    f = sock.makefile("rb")

    def debug_error(*args):
        args = (b"DEBUG", b"ERROR") + args
        sock.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
        return f.readline()

    assert debug_error(b"MYERR foo") == b"-MYERR foo\r\n"
    assert debug_error(b"no code here") == b"-no code here\r\n"  # no ERR put in front
    assert debug_error(b"") == b"-\r\n"
    assert debug_error(b"a\r\nb\nc") == b"-a  b c\r\n"  # kept to one line
    # As a client library sees it.
    with pytest.raises(redis.ResponseError, match="^MYERR foo$"):
        r.execute_command("DEBUG", "ERROR", "MYERR foo")
    for bad in ((), (b"a", b"b")):
        assert debug_error(*bad) == (b"-ERR unknown subcommand or wrong number of arguments for 'ERROR'. "
                                     b"Try DEBUG HELP.\r\n")
    # Written as given, not as an error of the server's: errorstats count only the two ERRs.
    assert info(r, "errorstats") == {"errorstat_ERR": "count=2"}
    assert info(r, "stats")["total_error_replies"] == "2"
    assert b"ERROR <string>" in r.execute_command("DEBUG", "HELP")


def test_loadaof_reloads_the_append_only_file(server_factory):
    r = server_factory("--enable-debug-command", "yes", "--appendonly", "yes").client()
    r.set("a", 1)
    r.rpush("l", "x", "y")
    before = r.execute_command("DEBUG", "DIGEST")
    assert r.execute_command("DEBUG", "LOADAOF") == b"OK"
    assert r.execute_command("DEBUG", "DIGEST") == before
    assert r.lrange("l", 0, -1) == [b"x", b"y"]


def test_loadaof_after_a_rewrite_with_appendonly_off(r):
    r.set("a", 1)
    r.zadd("z", {"m": 1.5})
    before = r.execute_command("DEBUG", "DIGEST")
    r.config_set("aof-use-rdb-preamble", "no")
    r.bgrewriteaof()
    for _ in range(100):
        if r.info("persistence")["aof_rewrite_in_progress"] == 0 and \
                r.info("persistence")["aof_rewrite_scheduled"] == 0:
            break
        time.sleep(0.05)
    time.sleep(0.2)
    r.set("b", 2)  # not in the rewrite
    assert r.execute_command("DEBUG", "LOADAOF") == b"OK"
    assert r.execute_command("DEBUG", "DIGEST") == before


def test_debug_config_rewrite_force_all(server_factory):
    s = server_factory("--enable-debug-command", "yes", config_text="maxmemory-clients 5%\n")
    r = s.client(decode_responses=True)
    assert r.execute_command("DEBUG", "CONFIG-REWRITE-FORCE-ALL") == "OK"
    text = open(s.config_path).read()
    lines = text.splitlines()
    # defaults are written too
    assert "maxmemory-policy noeviction" in lines and "hz 10" in lines and "maxmemory-clients 5%" in lines
    before = r.config_get("*")
    s2 = server_factory(config_text=text)
    after = s2.client(decode_responses=True).config_get("*")
    for name in ("port", "dir", "logfile"):
        before.pop(name), after.pop(name)
    assert after == before
