"""list-compress-depth (Redis 7.0): quicklist nodes beyond the depth from
each end are kept LZF-compressed. What a client sees must not change: the
elements under every list command, DEBUG OBJECT's ql_* fields, and the list
through DUMP/RESTORE and a reload; what changes is the memory the list takes.
All of it holds on the reference too.
"""
import random

import pytest


pytestmark = pytest.mark.server_args("--enable-debug-command", "yes")  # the `server` fixture's server allows DEBUG


def debug_fields(r, key):
    return r.debug_object(key)


def big(i, width=200):
    """A compressible element: a long run of zeros with the number at the end."""
    return ("value-%0*d" % (width, i)).encode()


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_debug_object_fields(r, depth):
    r.config_set("list-compress-depth", depth)
    r.rpush("l", *[big(i) for i in range(300)])
    f = debug_fields(r, "l")
    assert f["encoding"] == "quicklist"
    assert f["ql_nodes"] == "8" and f["ql_avg_node"] == "37.50" and f["ql_listpack_max"] == "-2"
    assert f["ql_compressed"] == str(int(depth > 0))
    # the raw size of all nodes, compressed or not
    assert f["ql_uncompressed_size"] == "63056"
    assert f["serializedlength"] == 1750


def test_compression_shrinks_memory(r):
    elements = [big(i) for i in range(300)]
    for depth in (0, 1, 2):
        r.config_set("list-compress-depth", depth)
        r.rpush("l%d" % depth, *elements)
    plain, one, two = (r.memory_usage("l%d" % d) for d in (0, 1, 2))
    # 8 nodes: 6 compressed at depth 1, 4 at depth 2, each to a fraction of its size
    assert one < plain / 3
    assert one < two < plain * 2 / 3
    for d in (0, 1, 2):
        assert r.lrange("l%d" % d, 0, -1) == elements


def test_setting_applies_to_new_lists(r):
    r.rpush("before", *[big(i) for i in range(300)])
    r.config_set("list-compress-depth", 1)
    r.rpush("before", big(300))
    r.rpush("after", *[big(i) for i in range(301)])
    assert debug_fields(r, "before")["ql_compressed"] == "0"
    assert debug_fields(r, "after")["ql_compressed"] == "1"
    assert r.memory_usage("after") < r.memory_usage("before") / 3


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("fill", [-2, 4])
def test_random_operations_keep_elements(r, depth, fill):
    r.config_set("list-compress-depth", depth)
    r.config_set("list-max-listpack-size", fill)
    rnd = random.Random(depth * 100 + fill)
    model = []

    def element():
        n = rnd.randrange(1000)
        kind = rnd.randrange(4)
        if kind == 0:
            return str(n).encode()  # an integer
        if kind == 1:
            return big(n, rnd.randrange(10, 300))
        if kind == 2:
            return b"x" * rnd.randrange(1, 2000)
        return bytes(rnd.randrange(97, 123) for _ in range(rnd.randrange(1, 40)))

    r.rpush("l", *[big(i) for i in range(200)])
    model += [big(i) for i in range(200)]
    for step in range(600):
        op = rnd.randrange(10)
        if op == 0:
            e = element()
            r.lpush("l", e)
            model.insert(0, e)
        elif op == 1:
            e = element()
            r.rpush("l", e)
            model.append(e)
        elif op == 2 and model:
            pivot = rnd.choice(model)
            e = element()
            where = rnd.choice(["BEFORE", "AFTER"])
            assert r.linsert("l", where, pivot, e) == len(model) + 1
            i = model.index(pivot)
            model.insert(i if where == "BEFORE" else i + 1, e)
        elif op == 3 and model:
            i = rnd.randrange(len(model))
            e = element()
            r.lset("l", i, e)
            model[i] = e
        elif op == 4 and model:
            e = rnd.choice(model)
            count = rnd.choice([0, 1, -1, 2])
            removed = r.lrem("l", count, e)
            if count == 0:
                want = model.count(e)
                model = [x for x in model if x != e]
            elif count > 0:
                want = 0
                while want < count and e in model:
                    model.remove(e)
                    want += 1
            else:
                want = 0
                while want < -count and e in model:
                    del model[len(model) - 1 - model[::-1].index(e)]
                    want += 1
            assert removed == want
        elif op == 5 and len(model) > 20:
            start, end = rnd.randrange(0, 5), -rnd.randrange(1, 5)
            r.ltrim("l", start, end)
            model = model[start:len(model) + end + 1]
        elif op == 6 and model:
            i = rnd.randrange(len(model))
            assert r.lindex("l", i) == model[i]
            assert r.lindex("l", i - len(model)) == model[i]
        elif op == 7 and model:
            a = rnd.randrange(len(model))
            b = rnd.randrange(a, len(model))
            assert r.lrange("l", a, b) == model[a:b + 1]
        elif op == 8 and model:
            if rnd.randrange(2):
                assert r.lpop("l") == model.pop(0)
            else:
                assert r.rpop("l") == model.pop()
        elif op == 9 and model:
            assert r.lpos("l", model[-1]) == model.index(model[-1])
        if step % 50 == 0:
            assert r.lrange("l", 0, -1) == model
    assert r.llen("l") == len(model)
    assert r.lrange("l", 0, -1) == model
    f = debug_fields(r, "l")
    assert f["ql_compressed"] == "1"
    assert int(f["ql_uncompressed_size"]) >= sum(len(x) for x in model) // 2
    # through a dump, a restore and a reload
    payload = r.dump("l")
    r.restore("copy", 0, payload)
    assert r.lrange("copy", 0, -1) == model
    r.execute_command("DEBUG", "RELOAD")
    assert r.lrange("l", 0, -1) == model
    assert r.lrange("copy", 0, -1) == model
    assert debug_fields(r, "l")["ql_compressed"] == "1"


def test_plain_nodes_compress_too(r):
    r.config_set("list-compress-depth", 1)
    r.execute_command("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100")
    elements = [big(i, 1000) for i in range(10)]
    r.rpush("l", *elements)
    f = debug_fields(r, "l")
    assert f["ql_nodes"] == "10" and f["ql_compressed"] == "1"
    # 8 of 10 nodes of ~1 KB each compressed to a few dozen bytes
    assert r.memory_usage("l") < 4000
    assert r.lrange("l", 0, -1) == elements
    r.lset("l", 5, b"y" * 500)
    elements[5] = b"y" * 500
    r.linsert("l", "AFTER", elements[3], b"z" * 300)
    elements.insert(4, b"z" * 300)
    assert r.lrange("l", 0, -1) == elements
    r.execute_command("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0")
