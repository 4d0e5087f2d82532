"""Prompt expiry (our own feature): due keys are found through an ordered index
of deadlines, so `expired` events arrive within milliseconds of the TTL even
among many volatile keys, in deadline order, and every TTL mutation keeps the
index exact (checked against a model of deadlines)."""
import random
import subprocess
import threading
import time

import pytest

from support import info, wait_for

# Promptness and the index's own memory are ours; what TTLs are after each
# mutation is Redis's behaviour, checked on the reference too.
ours = pytest.mark.ours


def bulk_volatile(server, n, prefix="bg", ttl=3600):
    data = b"".join(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nx\r\n$2\r\nEX\r\n$%d\r\n%d\r\n" %
                    (len(b"%s:%d" % (prefix.encode(), i)), b"%s:%d" % (prefix.encode(), i), len(str(ttl)), ttl)
                    for i in range(n))
    subprocess.run(["redis-cli", "-p", str(server.port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)


def listen_expired(server, arrivals, stop):
    r = server.client()
    r.config_set("notify-keyspace-events", "Ex")
    p = r.pubsub()
    p.subscribe("__keyevent@0__:expired")
    ready = threading.Event()

    def run():
        ready.set()
        while not stop.is_set():
            m = p.get_message(timeout=0.05)
            if m and m["type"] == "message":
                arrivals.append((m["data"], time.time()))
        p.close()

    t = threading.Thread(target=run)
    t.start()
    ready.wait()
    time.sleep(0.1)
    return t


@ours
def test_expired_events_arrive_promptly_among_100k_volatile_keys(server):
    bulk_volatile(server, 100000)
    arrivals, stop = [], threading.Event()
    t = listen_expired(server, arrivals, stop)
    r = server.client()
    base = int(time.time() * 1000) + 300
    deadlines = {}
    with r.pipeline(transaction=False) as p:
        for i in range(200):
            k = b"soon:%d" % i
            deadlines[k] = base + i * 5
            p.set(k, "v", pxat=deadlines[k])
        p.execute()
    end = time.time() + 5
    while len(arrivals) < 200 and time.time() < end:
        time.sleep(0.02)
    stop.set()
    t.join()
    assert len(arrivals) == 200
    lags = sorted(ts * 1000 - deadlines[k] for k, ts in arrivals)
    # Redis's sampling takes seconds to find these among 100k volatile keys.
    # The bounds leave room for a loaded CI machine (a Python listener thread
    # under load: 110 ms seen as the worst of 200 on a busy 2-core machine).
    assert lags[len(lags) // 2] < 50, lags[-10:]
    assert lags[-1] < 300, lags[-10:]
    assert r.dbsize() == 100000


@ours
def test_expiry_follows_deadline_order(server):
    arrivals, stop = [], threading.Event()
    t = listen_expired(server, arrivals, stop)
    r = server.client()
    base = int(time.time() * 1000) + 300
    order = list(range(100))
    random.shuffle(order)
    with r.pipeline(transaction=False) as p:
        for i in order:  # set in random order, deadlines 3 ms apart
            p.set(b"o:%03d" % i, "v", pxat=base + i * 3)
        p.execute()
    end = time.time() + 5
    while len(arrivals) < 100 and time.time() < end:
        time.sleep(0.02)
    stop.set()
    t.join()
    assert [k for k, _ in arrivals] == [b"o:%03d" % i for i in range(100)]


@ours
def test_many_keys_due_together_do_not_stall_clients(server):
    r = server.client()
    when = int(time.time() * 1000) + 500
    data = b"".join(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nx\r\n$4\r\nPXAT\r\n$13\r\n%d\r\n" %
                    (len(b"d:%d" % i), b"d:%d" % i, when) for i in range(200000))
    subprocess.run(["redis-cli", "-p", str(server.port), "--pipe"], input=data, stdout=subprocess.DEVNULL, check=True)
    time.sleep(max(0, when / 1000 - time.time()))
    worst = 0
    t_end = time.time() + 3
    while time.time() < t_end and r.dbsize() > 0:
        t0 = time.time()
        r.get("nothing")
        worst = max(worst, time.time() - t0)
    assert r.dbsize() == 0
    # Removal runs in ~1 ms slices; generous bound for a loaded 2-core CI machine.
    assert worst < 0.1


def lateness(r):
    """INFO's expired_lateness_* fields (µs), as ints."""
    fields = info(r, "expiry_push")
    return {k[len("expired_lateness_"):]: int(v) for k, v in fields.items() if k.startswith("expired_lateness_")}


@ours
@pytest.mark.server_args("--enable-debug-command", "yes")
def test_active_expiry_reports_its_lateness_in_info(server):
    r = server.client()
    assert lateness(r) == {"count": 0, "p50_us": 0, "p99_us": 0, "p999_us": 0, "max_us": 0}
    assert "expired_lateness_count" in info(r, "default")  # the section is a default one
    # A key removed by a lookup (lazy expiry) is not active expiry's: not counted.
    r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    r.set("lazy", "v", px=1)
    time.sleep(0.01)
    assert r.get("lazy") is None
    assert int(info(r, "stats")["expired_keys"]) == 1
    assert lateness(r)["count"] == 0
    r.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")
    base = int(time.time() * 1000) + 200
    with r.pipeline(transaction=False) as p:
        for i in range(500):
            p.set(b"short:%d" % i, "v", pxat=base + i % 200)
        p.execute()
    wait_for(lambda: r.dbsize() == 0, what="the short TTLs to expire")
    late = lateness(r)
    assert late["count"] == 500 == int(info(r, "stats")["expired_keys"]) - 1
    # A key is expired once the clock is past its deadline's millisecond:
    # never less than 1 ms late. The bound on the median leaves room for a
    # loaded 2-core machine (the timer fires within a millisecond or two).
    assert 1000 <= late["p50_us"] <= late["p99_us"] <= late["p999_us"] <= late["max_us"], late
    assert late["p50_us"] < 50000, late
    r.config_resetstat()
    assert lateness(r) == {"count": 0, "p50_us": 0, "p99_us": 0, "p999_us": 0, "max_us": 0}


@ours
@pytest.mark.server_args("--expire-early-wake-us", "400000")
def test_early_wake_never_expires_a_key_before_its_deadline(server):
    r = server.client()
    assert r.config_get("expire-early-wake-us") == {"expire-early-wake-us": "400000"}
    deadline = int(time.time() * 1000) + 800
    r.set("k", "v", pxat=deadline)
    r.set("other", "v")
    # From 400 ms before the deadline the loop polls: it keeps serving and the
    # key stays (DBSIZE does not expire keys lazily) until the deadline.
    seen = 0
    while time.time() * 1000 < deadline - 50:
        assert r.dbsize() == 2 and r.get("other") == b"v"
        seen += 1
    assert seen > 0
    wait_for(lambda: r.dbsize() == 1, what="the key to expire")
    late = lateness(r)
    assert late["count"] == 1 and 1000 <= late["max_us"] < 50000, late
    r.config_set("expire-early-wake-us", "0")
    assert r.config_get("expire-early-wake-us") == {"expire-early-wake-us": "0"}


def test_ttl_mutations_keep_the_index_exact(server):
    """Random EXPIRE/PEXPIREAT/PERSIST/SET/DEL/RENAME/MOVE/GETEX against a model of
    deadlines; TTLs must match the model and the keys due must go, the rest stay."""
    r = server.client()
    rnd = random.Random(7)
    model = {}  # key -> deadline ms or None
    now = lambda: int(time.time() * 1000)
    keys = [b"m:%d" % i for i in range(60)]
    for step in range(1500):
        k = rnd.choice(keys)
        op = rnd.randrange(9)
        if op == 0:
            r.set(k, "v")
            model[k] = None
        elif op == 1 and k in model:
            d = now() + rnd.randrange(2000, 60000)
            r.pexpireat(k, d)
            model[k] = d
        elif op == 2 and k in model:
            r.persist(k)
            model[k] = None
        elif op == 3:
            r.delete(k)
            model.pop(k, None)
        elif op == 4 and k in model:
            k2 = rnd.choice(keys)
            r.rename(k, k2)
            model[k2] = model.pop(k)
        elif op == 5:
            d = now() + rnd.randrange(2000, 60000)
            r.set(k, "v", pxat=d)
            model[k] = d
        elif op == 6 and k in model:
            d = now() + rnd.randrange(2000, 60000)
            r.getex(k, pxat=d)
            model[k] = d
        elif op == 7 and k in model:
            r.set(k, "w", keepttl=True)
        elif op == 8 and k in model:
            # MOVE out and back keeps the TTL.
            assert r.move(k, 1)
            r.execute_command("select", 1)
            r.move(k, 0)
            r.execute_command("select", 0)
    for k in keys:
        if k not in model:
            assert r.exists(k) == 0
            continue
        got = r.pexpiretime(k)
        assert got == (model[k] if model[k] is not None else -1), k
    # Now make a few keys due soon; exactly those must go by themselves.
    due = [k for k in model][:10]
    for k in due:
        r.pexpire(k, 50)
    time.sleep(0.5)  # no access to the keys: only the expiry timer can remove them
    info = r.info("keyspace")["db0"]
    assert info["keys"] == len(model) - len(due)
    assert info["expires"] == sum(1 for k, d in model.items() if d is not None and k not in due)


def test_swapdb_and_flush_keep_the_index_exact(server):
    r = server.client()
    r.set("a", "v", px=200)
    r.execute_command("select", 1)
    r.set("b", "v", ex=100)
    r.execute_command("select", 0)
    r.swapdb(0, 1)
    assert r.ttl("b") > 90
    assert r.exists("a") == 0
    r.execute_command("select", 1)
    time.sleep(0.4)
    assert r.dbsize() == 0  # "a" expired in db 1 by the active timer
    r.flushall()
    r.execute_command("select", 0)
    r.set("c", "v", px=100)
    time.sleep(0.3)
    assert r.dbsize() == 0


@ours
def test_growing_index_leaves_no_pages_behind(server):
    """A growing index leaves no freed pages resident: when it was one array
    growing by a sixteenth, each move's old copy stayed resident for the
    allocator's 10 s decay (30 MB of RSS at a million keys, above Valkey's
    whole per-key figure); in chunks it never moves. 400k keys: 4.8 MB."""
    r = server.client()
    info = r.info("memory")
    if not str(info.get("mem_allocator", "")).startswith("jemalloc"):
        pytest.skip("the allocator's own figures are jemalloc's")
    bulk_volatile(server, 400000)
    info = r.info("memory")
    assert r.dbsize() == 400000
    dirty = info["allocator_resident"] - info["allocator_active"]
    assert dirty < 10 * 1024 * 1024, "%d bytes held but unused after loading" % dirty
