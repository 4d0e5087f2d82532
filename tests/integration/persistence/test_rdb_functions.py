"""FUNCTION libraries in RDB files (opcode 245, after the aux fields), as
Redis 7.0 stores them: they survive SAVE, SHUTDOWN, DEBUG RELOAD and AOF
rewrites, files move between our server and Debian's redis-server both ways,
bad library records stop start-up, and FUNCTION DUMP/RESTORE payloads use the
same records. Every test passes against the reference too."""
import os
import re
import time

import pytest
import redis

from support import REF_SERVER, payload_of, rdb_str, refuses_to_start, start_in_dir as start, wait_for

LIB = b"#!lua name=mylib\nredis.register_function('hello', function(keys, args) return 'hi ' .. args[1] end)"
# Long and repetitive, so its record is LZF-compressed; has flags and a description.
LIB2 = (b"#!lua name=lib2\n"
        + b"".join(b"-- comment line %d that repeats the same words again\n" % i for i in range(20))
        + b"redis.register_function{function_name='getk', callback=function(keys) return redis.call('get', keys[1]) end,"
          b" flags={'no-writes'}, description='reads a key'}")

needs_ref = pytest.mark.skipif(REF_SERVER is None, reason="Debian's redis-server is not installed")


def load_libs(r):
    assert r.function_load(LIB) == b"mylib"
    assert r.function_load(LIB2) == b"lib2"
    r.set("k", "v")


def libraries(r):
    """FUNCTION LIST WITHCODE as a dict name → entry, order-free."""
    out = {}
    for entry in r.function_list(withcode=True):
        d = dict(zip(entry[::2], entry[1::2]))
        d[b"functions"] = sorted(tuple(f) for f in d[b"functions"])
        out[d[b"library_name"]] = d
    return out


def check_libs(r):
    libs = libraries(r)
    assert set(libs) == {b"mylib", b"lib2"}
    assert libs[b"mylib"][b"library_code"] == LIB
    assert libs[b"lib2"][b"library_code"] == LIB2
    assert r.fcall("hello", 0, "you") == b"hi you"
    assert r.fcall_ro("getk", 1, "k") == b"v"


def rdb_string(data, pos):
    """Skips one RDB string (plain or integer-encoded, as aux fields are); returns the next offset."""
    b = data[pos]
    kind = b >> 6
    if kind == 0:
        return pos + 1 + (b & 0x3F)
    if kind == 1:
        return pos + 2 + (((b & 0x3F) << 8) | data[pos + 1])
    if kind == 3:
        return pos + 1 + {0: 1, 1: 2, 2: 4}[b & 0x3F]
    assert b == 0x80
    return pos + 5 + int.from_bytes(data[pos + 1:pos + 5], "big")


def split_rdb(data):
    """(aux field names, aof-base value, the body after the aux fields up to the checksum)."""
    assert data[:9] == b"REDIS0010"
    pos, names, aof_base = 9, [], None
    while data[pos] == 0xFA:
        key_end = rdb_string(data, pos + 1)
        name = data[pos + 2:key_end]
        names.append(name)
        pos = rdb_string(data, key_end)
        if name == b"aof-base":
            aof_base = data[key_end:pos]
    return names, aof_base, data[pos:-8]


def craft_rdb(records):
    """A file of our own making: library records, one key, EOF, zero checksum (not checked)."""
    return b"REDIS0010" + records + b"\xfe\x00\x00\x01k\x01v\xff" + b"\x00" * 8


def test_functions_survive_save_and_restart(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    load_libs(s.client())
    assert s.client().save() is True
    s.stop()
    check_libs(start(server_factory, tmp_path).client())


def test_functions_survive_shutdown_and_flush_is_saved_too(server_factory, tmp_path):
    args = ("--dir", str(tmp_path), "--save", "3600 1")
    s = server_factory(*args)
    load_libs(s.client())
    s.client().shutdown()
    s.proc.wait(10)
    s2 = server_factory(*args)
    r2 = s2.client()
    check_libs(r2)
    assert r2.flushall() is True  # FLUSHALL keeps libraries
    assert len(r2.function_list()) == 2
    assert r2.function_flush() is True
    r2.shutdown()
    s2.proc.wait(10)
    r3 = server_factory(*args).client()
    assert r3.function_list() == []
    with pytest.raises(redis.ResponseError, match="Function not found"):
        r3.fcall("hello", 0, "x")


def test_bgsave_writes_functions(server_factory, tmp_path):
    s = start(server_factory, tmp_path)
    r = s.client()
    load_libs(r)
    r.bgsave()
    wait_for(lambda: not r.info("persistence")["rdb_bgsave_in_progress"])
    assert r.info("persistence")["rdb_last_bgsave_status"] == "ok"
    s.stop()
    check_libs(start(server_factory, tmp_path).client())


@needs_ref
def test_file_layout_matches_the_reference(server_factory, tmp_path):
    """Same content, same bytes: aux fields, then each library as 245 + its code
    (LZF-compressed when long), then the keys. Only ctime/used-mem/checksum differ."""
    bodies = {}
    for name, binary in (("ours", None), ("ref", REF_SERVER)):
        d = tmp_path / name
        os.makedirs(d)
        s = start(server_factory, d, binary)
        r = s.client()
        for lib in (LIB, LIB2):  # one file each: several libraries are saved in hash order
            r.function_flush()
            r.function_load(lib)
            r.set("k", "v")
            r.save()
            names, aof_base, body = split_rdb((d / "dump.rdb").read_bytes())
            assert names == [b"redis-ver", b"redis-bits", b"ctime", b"used-mem", b"aof-base"]
            assert aof_base == b"\xc0\x00"
            assert body[0] == 245
            bodies[(name, lib)] = body
    assert bodies[("ours", LIB)] == bodies[("ref", LIB)]
    assert bodies[("ours", LIB2)] == bodies[("ref", LIB2)]
    for lib in (LIB, LIB2):
        assert bodies[("ours", lib)].endswith(b"\xfe\x00\xfb\x01\x00\x00\x01k\x01v\xff")
        assert bodies[("ours", lib)][1] == 0xC3  # LZF-compressed string


@needs_ref
@pytest.mark.parametrize("writer,reader", [("ours", "ref"), ("ref", "ours")])
def test_files_with_functions_move_between_servers(server_factory, tmp_path, writer, reader):
    binaries = {"ours": None, "ref": REF_SERVER}
    s = start(server_factory, tmp_path, binaries[writer])
    load_libs(s.client())
    s.client().save()
    s.stop()
    check_libs(start(server_factory, tmp_path, binaries[reader]).client())


def test_debug_reload(server_factory, tmp_path):
    s = server_factory("--dir", str(tmp_path), "--save", "", "--enable-debug-command", "yes")
    r = s.client()
    load_libs(r)
    assert r.execute_command("debug", "reload") == b"OK"
    check_libs(r)
    # The reload empties the libraries before loading: one deleted since the save comes back,
    # one loaded since is gone.
    r.save()
    r.function_delete("lib2")
    r.function_load(b"#!lua name=extra\nredis.register_function('x', function() return 1 end)")
    assert r.execute_command("debug", "reload", "nosave") == b"OK"
    check_libs(r)
    # NOFLUSH: the file's libraries collide with the loaded ones and the load fails.
    with pytest.raises(redis.ResponseError, match="^Error trying to load the RDB dump$"):
        r.execute_command("debug", "reload", "noflush", "nosave")
    assert re.search("Failed loading library, Library '(mylib|lib2)' already exists", s.log())
    # MERGE: the file's version of a library replaces the one in memory.
    r.function_load(LIB.replace(b"'hi '", b"'yo '"), replace=True)
    assert r.fcall("hello", 0, "x") == b"yo x"
    assert r.execute_command("debug", "reload", "noflush", "merge", "nosave") == b"OK"
    assert r.fcall("hello", 0, "x") == b"hi x"
    # ...but a function of the same name in another library still fails it.
    r.function_delete("mylib")
    r.function_load(b"#!lua name=other\nredis.register_function('hello', function() return 2 end)")
    with pytest.raises(redis.ResponseError, match="Error trying to load the RDB dump"):
        r.execute_command("debug", "reload", "noflush", "merge", "nosave")
    assert "Failed loading library, Function hello already exists" in s.log()
    assert r.fcall("hello", 0) == 2
    with pytest.raises(redis.ResponseError, match="DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options."):
        r.execute_command("debug", "reload", "foo")


# (test id, library records, the error logged, the records run into the end of the file)
BAD_RECORDS = [
    ("compile error", b"\xf5" + rdb_str(LIB.replace(b"end)", b"end(")),
     "Error compiling function: user_function:2:", False),
    ("runtime error", b"\xf5" + rdb_str(LIB.replace(b"register_function", b"register_functiox")),
     "Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable", False),
    ("no functions", b"\xf5" + rdb_str(b"#!lua name=empty\nlocal x = 1"), "No functions registered", False),
    ("bad engine", b"\xf5" + rdb_str(LIB.replace(b"#!lua", b"#!lux")), "Engine 'lux' not found", False),
    ("duplicate library", b"\xf5" + rdb_str(LIB) + b"\xf5" + rdb_str(LIB), "Library 'mylib' already exists", False),
    ("duplicate function", b"\xf5" + rdb_str(LIB) + b"\xf5" + rdb_str(LIB.replace(b"mylib", b"other")),
     "Function hello already exists", False),
    ("truncated payload", b"\xf5" + rdb_str(LIB)[:20], "Failed loading library payload", True),
    ("truncated pre-GA record", b"\xf6" + rdb_str(b"mylib") + rdb_str(b"LUA") + b"\x01" + rdb_str(b"desc"),
     "Failed loading library blob", True),
]


@pytest.mark.parametrize("records,message,truncated", [b[1:] for b in BAD_RECORDS], ids=[b[0] for b in BAD_RECORDS])
def test_bad_library_record_stops_start_up(server_factory, tmp_path, records, message, truncated):
    path = tmp_path / "dump.rdb"
    data = b"REDIS0010" + records if truncated else craft_rdb(records)
    path.write_bytes(data)
    e = refuses_to_start(lambda: start(server_factory, tmp_path), reference_status=(0, 1))  # 0 after redis-check-rdb
    assert "Failed loading library, " + message in str(e)
    assert path.read_bytes() == data


def test_pre_ga_record_becomes_a_library(server_factory, tmp_path):
    """Opcode 246 (7.0 release candidates: name, engine, description, code without
    the #! line) loads, with the #! line rebuilt and the description dropped."""
    body = b"redis.register_function('hello', function(keys, args) return 'hi ' .. args[1] end)"
    rec = b"\xf6" + rdb_str(b"mylib") + rdb_str(b"LUA") + b"\x01" + rdb_str(b"a description") + rdb_str(body)
    (tmp_path / "dump.rdb").write_bytes(craft_rdb(rec))
    r = start(server_factory, tmp_path).client()
    assert libraries(r)[b"mylib"][b"library_code"] == b"#!LUA name=mylib\n" + body
    assert r.fcall("hello", 0, "there") == b"hi there"
    assert r.get("k") == b"v"


def test_module_aux_is_refused(server_factory, tmp_path):
    (tmp_path / "dump.rdb").write_bytes(craft_rdb(b"\xf7\x81\x00\x00\x00\x00\x00\x00\x00\x01\x02"))
    refuses_to_start(lambda: start(server_factory, tmp_path))


@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_aof_rewrite_keeps_functions(server_factory, tmp_path, preamble):
    args = ("--dir", str(tmp_path), "--appendonly", "yes", "--aof-use-rdb-preamble", preamble)
    s = server_factory(*args)
    r = s.client()
    load_libs(r)

    def bases():
        return [n for n in os.listdir(tmp_path / "appendonlydir") if ".base." in n]

    first = bases()
    r.bgrewriteaof()
    deadline = time.time() + 10
    while time.time() < deadline:
        info = r.info("persistence")
        if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"] and bases() != first:
            break
        time.sleep(0.05)
    base = bases()
    assert len(base) == 1 and base != first
    data = (tmp_path / "appendonlydir" / base[0]).read_bytes()
    if preamble == "yes":
        names, aof_base, body = split_rdb(data)
        assert aof_base == b"\xc0\x01"
        assert body[0] == 245
    else:
        assert data.startswith(b"*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n")
    s.stop()
    check_libs(server_factory(*args).client())


def test_function_dump_and_restore(r):
    empty = r.function_dump()
    assert empty[:2] == b"\x0a\x00" and len(empty) == 10
    load_libs(r)
    payload = r.function_dump()
    assert payload.count(b"\xf5") >= 2
    with pytest.raises(redis.ResponseError, match="^Library (mylib|lib2) already exists$"):
        r.function_restore(payload)
    assert r.function_restore(payload, "REPLACE") is True
    check_libs(r)
    r.function_flush()
    r.function_load(b"#!lua name=other\nredis.register_function('hello', function() return 2 end)")
    for policy in ("APPEND", "REPLACE"):
        with pytest.raises(redis.ResponseError, match="^Function hello already exists$"):
            r.function_restore(payload, policy)
    assert set(libraries(r)) == {b"other"}  # a failed restore changes nothing
    assert r.function_restore(payload, "FLUSH") is True
    check_libs(r)
    assert r.function_restore(empty, "flush") is True
    assert r.function_list() == []


def test_function_restore_errors(r):
    good = payload_of(b"\xf5" + rdb_str(LIB))
    assert r.function_restore(good) is True
    r.function_flush()
    for payload, message in [
            (good[:-1] + bytes([good[-1] ^ 1]), "DUMP payload version or checksum are wrong"),
            (good[:-8] + b"\x00" * 8, "DUMP payload version or checksum are wrong"),
            (payload_of(b"\xf5" + rdb_str(LIB), 11), "DUMP payload version or checksum are wrong"),
            (b"", "DUMP payload version or checksum are wrong"),
            (payload_of(b"\x00\x01k"), "given type is not a function"),
            (payload_of(b"\xf5" + rdb_str(LIB) + b"\xf5"), "Failed loading library payload"),
            (payload_of((b"\xf5" + rdb_str(LIB)) * 2), "Library 'mylib' already exists"),
            (payload_of(b"\xf5" + rdb_str(LIB) + b"\xf5" + rdb_str(b"#!lua name=x\nfoo(")),
             "Error compiling function"),
    ]:
        with pytest.raises(redis.ResponseError, match=message):
            r.function_restore(payload)
        assert r.function_list() == []
    with pytest.raises(redis.ResponseError, match="Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."):
        r.execute_command("function", "restore", good, "foo")
    with pytest.raises(redis.ResponseError, match="unknown subcommand or wrong number of arguments for 'restore'"):
        r.execute_command("function", "restore", good, "flush", "flush")
    # A pre-GA record in a payload, and an older RDB version, are accepted.
    pre = b"\xf6" + rdb_str(b"old") + rdb_str(b"lua") + b"\x00" + rdb_str(b"redis.register_function('f', function() return 7 end)")
    assert r.function_restore(payload_of(pre, 9)) is True
    assert r.fcall("f", 0) == 7


@needs_ref
def test_function_dump_payloads_match_the_reference(server_factory, tmp_path):
    os.makedirs(tmp_path / "a")
    os.makedirs(tmp_path / "b")
    ours = start(server_factory, tmp_path / "a").client()
    ref = start(server_factory, tmp_path / "b", REF_SERVER).client()
    for lib in (LIB, LIB2):
        for r in (ours, ref):
            r.function_flush()
            r.function_load(lib)
        assert ours.function_dump() == ref.function_dump()
    ours.function_flush()
    load_libs(ours)
    ref.function_restore(ours.function_dump(), "FLUSH")
    ref.set("k", "v")
    check_libs(ref)
