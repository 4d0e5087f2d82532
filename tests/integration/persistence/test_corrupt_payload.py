"""Corrupt DUMP payloads and RDB files (sanitize-dump-payload no|yes|clients).

Payloads from Redis 7.0's own unit integration/corrupt-dump (its fuzzer's
findings): with sanitize-dump-payload yes RESTORE refuses them with "Bad data
format" and the server goes on; without it a payload whose header and size
are right is accepted and the server stops on an assertion (a crash report,
never a crash by signal) when a bad entry is touched. Everything here passes
on Debian's redis-server 7.0.15 too.
"""
import pytest
import redis

from support import exits, refuses_to_start, start_exiting_on_panic

PAYLOADS = {
    # hash with valid zip list header, invalid entry len
    "zl_hash_bad_entry_len": bytes.fromhex(
        "0d1b1b00000016000000040000026100040262000414630004026400ff0900d910549215f55f52"),
    # valid zipped hash header, dup records
    "zl_hash_dup": bytes.fromhex(
        "0d1b1b00000016000000040000026100040262000402610004026400ff0900a1983678cc8e932e"),
    # quicklist small ziplist prev len
    "ql_small_prevlen": bytes.fromhex(
        "0e0113130000000e00000002000002610002026200ff0900c77103970775b063"),
    # hash listpack with duplicate records
    "lp_hash_dup": bytes.fromhex(
        "101717000000040082610003826200038261000382640003ff0a00c0cfa687e5a7c5be"),
    # stream with duplicate consumers
    "stream_dup_consumers": bytes.fromhex(
        "0f0000000001076d7967726f757000000002046e616d652a4caa9a7d01000000046e616d652b4caa9a7d010000000a00"
        "cced8ca762eec7c8"),
    # fuzzer findings - empty zset
    "empty_zset": bytes.fromhex(
        "05c0010900f68ab67a8587724d"),
    # hash empty zipmap
    "empty_zipmap": bytes.fromhex(
        "090200ff0900c0f1b8674c16ace3"),
    # fuzzer findings - stream with non-integer entry id
    "stream_non_int_id": bytes.fromhex(
        "0f03100000017b1334c3b20000000000000000c3404f405c185c0000002400050100010201846974656d058576616c75"
        "6506401000802001000120030005201c4009050101825f3103800d0002200d0002a0190003200b02825f33a019000420"
        "0d0004201900ff100000017b1334c3b20000000000000005c34056406118610000002400050100010201846974656d05"
        "8576616c756506401000002001060101825f350305201e400b0301010601400b030101dffb200502825f37601a200e00"
        "fc20050008c01b00fd200c02825f39201b00ff100000017b1334c3b30000000000000003c33d404a184a000000150002"
        "0100010201846974656d058576616c75650640100000200140000005600702dffd02c02309010186756e6971756507a0"
        "2d020801ff0c810000017b1334c3b4000009009dbdd5b933c4c5ff"),
    # fuzzer findings - gcc asan reports false leak on assert
    "list_bad_first_entry": bytes.fromhex(
        "120102131300000010000000030000f3fe025f3104f1ff0a00198d3d74859429bd"),
    # fuzzer findings - stream bad lp_count - unsanitized
    "stream_bad_lp_count": bytes.fromhex(
        "0f011000000173dedf7d9b00000000000000004042420000001800030100010201846974656d058576616c7565060001"
        "0201000100010101000156010201220100010101825f3103050102012c010001010102010501ff038100000173dedf7d"
        "c70001076d7967726f75708100000173dedf7d9b000100000173dedf7d9b0000000000000000f97ddfde730100000101"
        "05416c696365eb7ddfde730100000100000173dedf7d9b00000000000000000900b2a8a75f1b6172d5"),
    # fuzzer findings - lpFind invalid access
    "hash_lp_truncated_entry": bytes.fromhex(
        "1039390000001400060106010301825f33030701825f370300010001040104010901825f39030501825f350308010801"
        "0101825f31030201f001ff0a0029d7e452797a9582"),
    # fuzzer findings - zset ziplist invalid tail offset
    "zset_zl_bad_tail": bytes.fromhex(
        "0c191900000002000000060000f102f102025f3104f202f302f3ff09004d727b97cd9a70c1"),
    # fuzzer findings - stream with no records
    "stream_no_live_records": bytes.fromhex(
        "0f0110000001784d55680900000000000000004042420000001800020101010201846974656d058576616c7565060001"
        "02010001000101010001050103013e0100010101825f31030501020150010001010102010523ff0281000001784d5568"
        "590001076d7967726f757081000001784d5568470001000001784d55684700000000000000009f68554d780100000101"
        "05416c6963658568554d7801000001000001784d55684700000000000000000900f1c0727039401ea9"),
}

CORRUPT_EMPTY_KEYS_RDB = bytes.fromhex(
    "524544495330303130fa0972656469732d7665720b3235352e3235352e323535fa0a72656469732d62697473c040fa05"
    "6374696d65c27a181561fa08757365642d6d656dc280311000fa0c616f662d707265616d626c65c000fe00fb09000203"
    "73657400040468617368000a0c6c6973745f7a69706c6973740b0b0000000a0000000000ff05047a73657400110d7a73"
    "65745f6c6973747061636b07070000000000ff100c686173685f7a69706c69737407070000000000ff0e0e6c6973745f"
    "717569636b6c697374000c0c7a7365745f7a69706c6973740b0b0000000a0000000000ff0e1c6c6973745f717569636b"
    "6c6973745f656d7074795f7a69706c697374010b0b0000000a0000000000fffff0f506ddc66e6183")

CORRUPT_ZIPLIST_RDB = bytes.fromhex(
    "524544495330303037fa0972656469732d7665720b3939392e3939392e393939fa0a72656469732d62697473c040fa05"
    "6374696d65c28900cd57fa08757365642d6d656dc2e0bb0b00fe00fb360000106b65793a303030303030303030303734"
    "05787878787800106b65793a3030303030303030303132350578787878780e066d796c697374012e2e00000026000000"
    "05000005787878787807057878787878070578787878780705787878787807057878787878ff0014636f756e7465723a"
    "303030303030303030303236c00100106b65793a30303030303030303030333405787878787800106b65793a30303030"
    "30303030303130390578787878780014636f756e7465723a303030303030303030303731c00100106b65793a30303030"
    "303030303030323205787878787800106b65793a30303030303030303030353605787878787800106b65793a30303030"
    "303030303030323505787878787800106b65793a30303030303030303030313505787878787800106b65793a30303030"
    "303030303030313805787878787800106b65793a30303030303030303030363805787878787800106b65793a30303030"
    "303030303030363705787878787800106b65793a30303030303030303030343205ffffffff780d106b65793a30303030"
    "303030303030393105787878787800106b65793a30303030303030303031323605787878787800106b65793a30303030"
    "303030303030303505787878787800106b65793a30303030303030303031303005787878787800106b65793a30303030"
    "303030303031313805787878787800106b65793a30303030303030303031313205787878787800106b65793a30303030"
    "303030303031313305787878787800106b65793a30303030303030303030383505787878787800106b65793a30303030"
    "303030303030383105787878787800106b65793a30303030303030303030303105787878787800106b65793a30303030"
    "303030303030313205787878787800106b65793a30303030303030303030353805787878787800106b65793a30303030"
    "303030303030393005787878787800106b65793a30303030303030303030393905787878787800106b65793a30303030"
    "303030303030343805787878787800106b65793a30303030303030303030383705787878787800106b65793a30303030"
    "303030303030373105787878787800106b65793a30303030303030303031313105787878787800106b65793a30303030"
    "303030303030383605787878787800106b65793a30303030303030303031303605787878787800106b65793a30303030"
    "303030303030313305787878787800106b65793a30303030303030303030323905787878787800106b65793a30303030"
    "30303030303132320578787878780014636f756e7465723a303030303030303030303332c00100106b65793a30303030"
    "303030303030393205787878787800106b65793a30303030303030303030373205787878787800106b65793a30303030"
    "303030303030383905787878787800106b65793a30303030303030303030323105787878787800106b65793a30303030"
    "303030303030363905787878787800106b65793a30303030303030303030313705787878787800106b65793a30303030"
    "303030303030353905787878787800106b65793a30303030303030303031313605787878787800106b65793a30303030"
    "303030303030363305787878787800106b65793a30303030303030303030303605787878787800106b65793a30303030"
    "303030303030353505787878787800106b65793a3030303030303030303034360578787878780014636f756e7465723a"
    "303030303030303030303931c0010014636f756e7465723a303030303030303030303234c00100106b65793a30303030"
    "3030303030303332057878787878ff0000000000000000")


def test_sanitize_dump_payload_config(rd):
    assert rd.config_get("sanitize-dump-payload") == {"sanitize-dump-payload": "no"}
    for v in ("yes", "clients", "no"):
        assert rd.config_set("sanitize-dump-payload", v)
        assert rd.config_get("sanitize-dump-payload") == {"sanitize-dump-payload": v}
    with pytest.raises(redis.ResponseError, match="sanitize-dump-payload"):
        rd.config_set("sanitize-dump-payload", "maybe")


@pytest.mark.parametrize("sanitize", ["yes", "clients"])
@pytest.mark.parametrize("name", ["zl_hash_bad_entry_len", "zl_hash_dup", "ql_small_prevlen", "lp_hash_dup",
                                  "stream_dup_consumers", "empty_zset", "stream_non_int_id", "zset_zl_bad_tail",
                                  "hash_lp_truncated_entry", "stream_bad_lp_count"])
def test_deep_sanitization_refuses(server_factory, name, sanitize):
    s, r = start_exiting_on_panic(server_factory)
    r.config_set("sanitize-dump-payload", sanitize)
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
    with pytest.raises(redis.ResponseError, match="^Bad data format$"):
        r.restore("key", 0, PAYLOADS[name], replace=True)
    assert r.ping() and r.dbsize() == 0
    assert "crashed by signal" not in s.log() and "ASSERTION FAILED" not in s.log()


@pytest.mark.parametrize("name,reason", [
    ("zl_hash_bad_entry_len", "integrity check failed"),   # ziplists: always checked in full
    ("zl_hash_dup", "integrity check failed"),
    ("zset_zl_bad_tail", "Zset ziplist integrity check failed"),
    ("empty_zipmap", "Zipmap integrity check failed"),
    ("stream_dup_consumers", "Duplicate stream consumer detected"),
])
def test_shallow_sanitization_still_refuses(server_factory, name, reason):
    s, r = start_exiting_on_panic(server_factory)
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
    with pytest.raises(redis.ResponseError, match="^Bad data format$"):
        r.restore("key", 0, PAYLOADS[name])
    assert r.ping()
    assert reason in s.log()  # logged at verbose level, the server goes on


def test_duplicate_hash_fields_pass_the_shallow_check(server_factory):
    """Duplicates are a deep finding: without it the listpack is kept as it came."""
    s, r = start_exiting_on_panic(server_factory)
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
    assert r.restore("key", 0, PAYLOADS["lp_hash_dup"])
    assert r.ping()


@pytest.mark.server_crash
def test_duplicate_hash_fields_stop_the_server_on_conversion(server_factory):
    s, r = start_exiting_on_panic(server_factory, "--hash-max-listpack-entries", "1")
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
    with pytest.raises(redis.ConnectionError):
        r.restore("key", 0, PAYLOADS["lp_hash_dup"])
    assert exits(s) and s.proc.returncode == 1  # use-exit-on-panic
    assert "listpack with dup elements" in s.log() and "crashed by signal" not in s.log()


@pytest.mark.parametrize("name,cmd", [
    ("list_bad_first_entry", ("LPOP", "key")),
    ("stream_bad_lp_count", ("XREVRANGE", "key", "638932639", "738")),
    ("hash_lp_truncated_entry", ("HSETNX", "key", "513072881620", "v")),
])
@pytest.mark.server_crash
def test_unsanitized_bad_entries_stop_on_an_assertion(server_factory, name, cmd):
    s, r = start_exiting_on_panic(server_factory)
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
    try:
        r.restore("key", 0, PAYLOADS[name])
        r.execute_command(*cmd)
    except redis.ConnectionError:
        pass
    assert exits(s) and s.proc.returncode == 1
    log = s.log()
    assert "ASSERTION FAILED" in log and "crashed by signal" not in log


@pytest.mark.server_crash
def test_stream_without_live_entries_stops_on_a_panic(server_factory):
    """Its length says 2 but a walk back from its end finds no live entry:
    XREAD ... $ stops the server with Redis's panic (Guru Meditation)."""
    s, r = start_exiting_on_panic(server_factory)
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
    assert r.restore("key", 0, PAYLOADS["stream_no_live_records"])
    with pytest.raises(redis.ConnectionError):
        r.execute_command("XREAD", "STREAMS", "key", "$")
    assert exits(s) and s.proc.returncode == 1
    log = s.log()
    assert "Guru Meditation" in log and "crashed by signal" not in log


def test_corrupt_rdb_file_stops_the_start(server_factory, tmp_path):
    (tmp_path / "dump.rdb").write_bytes(CORRUPT_ZIPLIST_RDB)
    e = refuses_to_start(lambda: server_factory("--dir", str(tmp_path), "--sanitize-dump-payload", "no"))
    assert "Terminating server after rdb file reading failure." in str(e)
    assert "Hash ziplist integrity check failed" in str(e)


@pytest.mark.parametrize("sanitize", ["no", "yes"])
def test_rdb_empty_keys_are_skipped(server_factory, tmp_path, sanitize):
    (tmp_path / "dump.rdb").write_bytes(CORRUPT_EMPTY_KEYS_RDB)
    s = server_factory("--dir", str(tmp_path), "--sanitize-dump-payload", sanitize)
    assert s.client().dbsize() == 0
    log = s.log()
    for key in ("set", "list_quicklist", "list_quicklist_empty_ziplist", "list_ziplist", "hash", "hash_ziplist",
                "zset", "zset_ziplist", "zset_listpack"):
        assert "skipping empty key: %s\n" % key in log
    assert "empty keys skipped: 9" in log


def test_clients_mode_spares_users_with_skip_sanitize_payload(server_factory):
    """sanitize-dump-payload clients: a client's RESTORE gets the deep check,
    unless its ACL user has skip-sanitize-payload."""
    s, r = start_exiting_on_panic(server_factory, "--sanitize-dump-payload", "clients")
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
    with pytest.raises(redis.ResponseError, match="^Bad data format$"):
        r.restore("key", 0, PAYLOADS["lp_hash_dup"])
    r.execute_command("ACL", "SETUSER", "trusted", "on", ">pw", "~*", "+@all", "skip-sanitize-payload")
    t = s.client(username="trusted", password="pw")
    assert t.restore("key", 0, PAYLOADS["lp_hash_dup"])
    r.execute_command("ACL", "SETUSER", "trusted", "sanitize-payload")
    with pytest.raises(redis.ResponseError, match="^Bad data format$"):
        t.restore("key2", 0, PAYLOADS["lp_hash_dup"])
    assert r.ping()
