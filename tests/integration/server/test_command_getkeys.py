"""COMMAND GETKEYS and GETKEYSANDFLAGS find keys as Redis 7.0 does: through
the command's key specs (index or keyword, range or key count), or its own
key finder where the specs cannot tell (SORT, MIGRATE), with each key's
flags; commands whose keys are optional answer an empty list."""
import pytest
import redis

CASES = [
    (["eval", "return 1", "0"], []),
    (["eval", "return 1", "2", "a", "b", "x"], [["a", ["RW", "access", "update"]], ["b", ["RW", "access", "update"]]]),
    (["fcall", "f", "2", "a", "b"], [["a", ["RW", "access", "update"]], ["b", ["RW", "access", "update"]]]),
    (["xread", "count", "2", "streams", "s1", "s2", "0", "0"], [["s1", ["RO", "access"]], ["s2", ["RO", "access"]]]),
    (["georadius", "k", "0", "0", "1", "km", "store", "out"],
     [["k", ["RO", "access"]], ["out", ["OW", "update"]]]),
    (["migrate", "h", "1", "", "0", "5000", "keys", "k1", "k2"],
     [["k1", ["RW", "access", "delete"]], ["k2", ["RW", "access", "delete"]]]),
    (["set", "k", "v"], [["k", ["OW", "update"]]]),
    (["zunionstore", "d", "2", "a", "b", "weights", "1", "2"],
     [["d", ["OW", "update"]], ["a", ["RO", "access"]], ["b", ["RO", "access"]]]),
    (["sort", "k", "by", "x", "store", "d"], [["k", ["RO", "access"]], ["d", ["OW", "update"]]]),
    (["lmove", "a", "b", "left", "right"], [["a", ["RW", "access", "delete"]], ["b", ["RW", "insert"]]]),
]


@pytest.fixture
def rc(rd):
    """redis-py parses COMMAND replies as COMMAND INFO: read them raw."""
    rd.set_response_callback("COMMAND", lambda response, **options: response)
    return rd


@pytest.mark.parametrize("args,want", CASES, ids=[" ".join(a[:2]) for a, _ in CASES])
def test_getkeys_and_flags(rc, args, want):
    assert rc.execute_command("COMMAND", "GETKEYSANDFLAGS", *args) == want
    got = rc.execute_command("COMMAND", "GETKEYS", *args)
    assert got == [k for k, _ in want]


def test_getkeys_errors(rc):
    for args, err in ((["nosuch", "x"], "Invalid command specified"),
                      (["ping", "x"], "The command has no key arguments"),
                      (["get", "a", "b"], "Invalid number of arguments specified for command"),
                      (["zunionstore", "d", "5", "a"], "Invalid arguments specified for command")):
        for sub in ("GETKEYS", "GETKEYSANDFLAGS"):
            with pytest.raises(redis.ResponseError, match="^%s$" % err):
                rc.execute_command("COMMAND", sub, *args)


def test_command_getkeys_sort_with_several_store_keeps_the_last(r):
    r.set_response_callback("COMMAND", lambda resp, **kw: resp)
    assert r.execute_command("COMMAND", "GETKEYS", "SORT", "abc", "STORE", "invalid", "STORE", "stillbad",
                             "STORE", "def") == [b"abc", b"def"]
