"""Client eviction (maxmemory-clients, Redis 7.0): the directive as CONFIG
and redis.conf take it, the per-client memory CLIENT LIST shows (tot-mem,
multi-mem), and the disconnection of the biggest evictable clients once all
clients together use more than the limit, CLIENT NO-EVICT clients excepted.
All of it is Redis behaviour: these pass on the reference too.
"""
import time

import pytest

from support import wait_for


def client_info(conn, name):
    """The CLIENT LIST fields of the connection named `name`, or None."""
    for line in conn.call("client", "list").decode().splitlines():
        fields = dict(f.split("=", 1) for f in line.split(" "))
        if fields["name"] == name:
            return fields
    return None


def stat(conn, field):
    for line in conn.call("info", "stats").decode().splitlines():
        if line.startswith(field + ":"):
            return int(line.split(":", 1)[1])
    raise KeyError(field)


@pytest.fixture
def control(connect):
    """The test's own connection: CLIENT NO-EVICT on, so it is never the one to go."""
    c = connect()
    assert c.call("client", "setname", "control") == "OK"
    assert c.call("client", "no-evict", "on") == "OK"
    return c


def named(connect, name):
    c = connect(timeout=10.0)
    assert c.call("client", "setname", name) == "OK"
    return c


def fill_query_buffer(c, size):
    """Sends the start of a command whose one argument of `size` bytes never ends.
    A server may evict the client before all of it is sent (a reset)."""
    try:
        c.send_raw(b"*2\r\n$%d\r\n" % size + b"v" * size)
    except (ConnectionResetError, BrokenPipeError):
        pass


# ------------------------------------------------------------------ the directive

@pytest.mark.parametrize("value, shown", [
    ("10%", "10%"), ("100%", "100%"), ("0%", "0"), ("0", "0"), ("1mb", "1048576"), ("1k", "1000"),
    ("5gb", "5368709120"), ("9223372036854775807", "9223372036854775807"),
    # past 2^64 a byte count saturates, which as a signed value is -1: 1%
    ("99999999999999999999", "1%"),
])
def test_config_set_values(c, value, shown):
    assert c.call("config", "set", "maxmemory-clients", value) == "OK"
    assert c.call("config", "get", "maxmemory-clients") == ["maxmemory-clients", shown]


@pytest.mark.parametrize("value, why", [
    ("101%", "percentage argument must be less or equal to 100"),
    ("9223372036854775808", "percentage argument must be less or equal to 100"),
    ("-1", "argument must be a memory or percent value"),
    ("-5%", "argument must be a memory or percent value"),
    ("1.5%", "argument must be a memory or percent value"),
    ("05%", "argument must be a memory or percent value"),
    ("%", "argument must be a memory or percent value"),
    ("abc", "argument must be a memory or percent value"),
    ("10gb%", "argument must be a memory or percent value"),
])
def test_config_set_refused(c, value, why):
    assert c.call("config", "set", "maxmemory-clients", "7%") == "OK"
    err = c.call("config", "set", "maxmemory-clients", value)
    assert err == "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - " + why
    assert c.call("config", "get", "maxmemory-clients") == ["maxmemory-clients", "7%"]


def test_default_and_command_line(server_factory):
    assert server_factory().client().config_get("maxmemory-clients") == {"maxmemory-clients": "0"}
    s = server_factory("--maxmemory-clients", "5%")
    assert s.client().config_get("maxmemory-clients") == {"maxmemory-clients": "5%"}


def test_config_rewrite(server_factory):
    s = server_factory(config_text="maxmemory-clients 10%\n")
    r = s.client()
    lines = lambda: [l for l in open(s.config_path).read().splitlines() if l.startswith("maxmemory-clients")]
    for value, line in [("3mb", "maxmemory-clients 3mb"), ("1000", "maxmemory-clients 1000"),
                        ("25%", "maxmemory-clients 25%"), ("0", "maxmemory-clients 0")]:
        r.config_set("maxmemory-clients", value)
        assert r.config_rewrite()
        assert lines() == [line]


def test_config_file_percentage(server_factory):
    s = server_factory(config_text="maxmemory-clients 25%\n")
    assert s.client().config_get("maxmemory-clients") == {"maxmemory-clients": "25%"}


# ------------------------------------------------------------- what a client costs

def test_multi_mem_counts_queued_arguments(connect, control):
    c = named(connect, "tx")
    assert c.call("multi") == "OK"
    assert c.call("set", "k", "v" * 1000) == "QUEUED"
    one = client_info(control, "tx")
    # the arguments' bytes (3 + 1 + 1000) and a pointer for each of the three
    assert one["multi-mem"] == "1028" and one["multi"] == "1"
    assert c.call("set", "k", "v" * 1000) == "QUEUED"
    two = client_info(control, "tx")
    assert two["multi-mem"] == "2056"
    assert int(two["tot-mem"]) - int(one["tot-mem"]) == 1028
    assert c.call("discard") == "OK"
    assert client_info(control, "tx")["multi-mem"] == "0"


def test_tot_mem_counts_query_buffer_watches_and_subscriptions(connect, control):
    c = named(connect, "m")
    base = int(client_info(control, "m")["tot-mem"])
    assert c.call("watch", *["key%d" % i for i in range(100)]) == "OK"
    watched = int(client_info(control, "m")["tot-mem"])
    assert watched > base + 100 * 24
    assert c.call("unwatch") == "OK"
    assert int(client_info(control, "m")["tot-mem"]) == base
    fill_query_buffer(c, 300000)
    assert wait_for(lambda: int(client_info(control, "m")["qbuf"]) >= 300000)
    info = client_info(control, "m")
    assert int(info["tot-mem"]) >= 300000 + int(info["rbs"])  # the query buffer and the reply buffer

    p = named(connect, "p")
    base = int(client_info(control, "p")["tot-mem"])
    p.send("psubscribe", *["pat%d" % i for i in range(100)])
    for _ in range(100):
        p.read()
    assert int(client_info(control, "p")["tot-mem"]) >= base + 100 * 16


def test_omem_and_tot_mem_show_unread_output(connect, control):
    assert control.call("setrange", "big", 200000, "v") == 200001
    c = named(connect, "reader")
    quiet = int(client_info(control, "reader")["tot-mem"])
    for _ in range(40):  # 8 MB the client never reads: more than the socket holds
        c.send("get", "big")
    assert wait_for(lambda: int(client_info(control, "reader")["omem"]) > 1000000)
    info = client_info(control, "reader")
    assert int(info["tot-mem"]) >= quiet + int(info["omem"])


# ------------------------------------------------------------------------ eviction

def test_query_buffer_over_limit_evicts_client(connect, control):
    assert control.call("config", "set", "maxmemory-clients", "1mb") == "OK"
    c = named(connect, "big")
    fill_query_buffer(c, 2 * 1024 * 1024)
    c.wait_closed(timeout=5)
    assert client_info(control, "big") is None
    assert client_info(control, "control") is not None
    assert stat(control, "evicted_clients") == 1
    assert control.call("config", "resetstat") == "OK"
    assert stat(control, "evicted_clients") == 0


def test_client_under_limit_stays(connect, control):
    assert control.call("config", "set", "maxmemory-clients", "3mb") == "OK"
    c = named(connect, "small")
    fill_query_buffer(c, 1024 * 1024)
    assert wait_for(lambda: int(client_info(control, "small")["qbuf"]) >= 1024 * 1024)
    assert c.nothing_pending(0.3) and not c.closed
    assert stat(control, "evicted_clients") == 0


def test_no_evict_client_is_never_evicted(connect, control):
    assert control.call("config", "set", "maxmemory-clients", "1mb") == "OK"
    c = named(connect, "kept")
    assert c.call("client", "no-evict", "on") == "OK"
    fill_query_buffer(c, 2 * 1024 * 1024)
    assert wait_for(lambda: int(client_info(control, "kept")["qbuf"]) >= 2 * 1024 * 1024)
    assert int(client_info(control, "kept")["tot-mem"]) > 1024 * 1024
    assert "e" in client_info(control, "kept")["flags"]
    assert stat(control, "evicted_clients") == 0


def test_no_evict_off_makes_client_evictable_again(connect, control):
    assert control.call("config", "set", "maxmemory-clients", "1mb") == "OK"
    assert control.call("setrange", "big", 200000, "v") == 200001
    c = named(connect, "flip")
    assert c.call("client", "no-evict", "on") == "OK"
    for _ in range(40):  # 8 MB it does not read
        c.send("get", "big")
    assert wait_for(lambda: int(client_info(control, "flip")["omem"]) > 2 * 1024 * 1024)
    assert stat(control, "evicted_clients") == 0
    c.send("client", "no-evict", "off")
    c.wait_closed(timeout=5)
    assert client_info(control, "flip") is None


def test_multi_queue_over_limit_evicts_client(connect, control):
    assert control.call("config", "set", "maxmemory-clients", "1mb") == "OK"
    c = named(connect, "tx")
    assert c.call("multi") == "OK"
    with pytest.raises(ConnectionError):
        for _ in range(10):
            assert c.call("set", "k", "v" * 300000) == "QUEUED"
    assert client_info(control, "tx") is None


def test_unread_output_over_limit_evicts_client(connect, control):
    assert control.call("config", "set", "maxmemory-clients", "2mb") == "OK"
    assert control.call("setrange", "big", 200000, "v") == 200001
    c = named(connect, "reader")
    for _ in range(100):  # 20 MB never read
        try:
            c.send("get", "big")
        except OSError:
            break
    assert wait_for(lambda: client_info(control, "reader") is None)
    assert stat(control, "evicted_clients") == 1


def test_percentage_of_maxmemory(connect, control):
    assert control.call("config", "set", "maxmemory", "20mb") == "OK"
    assert control.call("config", "set", "maxmemory-clients", "10%") == "OK"  # 2 MB
    c = named(connect, "half")
    fill_query_buffer(c, 1024 * 1024)
    assert wait_for(lambda: int(client_info(control, "half")["qbuf"]) >= 1024 * 1024)
    assert c.nothing_pending(0.3) and not c.closed
    d = named(connect, "over")
    fill_query_buffer(d, 3 * 1024 * 1024)
    d.wait_closed(timeout=5)
    assert client_info(control, "over") is None
    assert client_info(control, "half") is not None


def test_percentage_without_maxmemory_evicts_nobody(connect, control):
    assert control.call("config", "set", "maxmemory-clients", "1%") == "OK"
    c = named(connect, "big")
    fill_query_buffer(c, 2 * 1024 * 1024)
    assert wait_for(lambda: int(client_info(control, "big")["qbuf"]) >= 2 * 1024 * 1024)
    assert c.nothing_pending(0.3) and not c.closed


def test_lowering_the_limit_evicts_biggest_first(connect, control):
    sizes = {"small": 100 * 1024, "medium": 600 * 1024, "large": 2 * 1024 * 1024}
    clients = {}
    for name, size in sizes.items():
        clients[name] = named(connect, name)
        fill_query_buffer(clients[name], size)
        assert wait_for(lambda: int(client_info(control, name)["qbuf"]) >= size)
    mem = {name: int(client_info(control, name)["tot-mem"]) for name in sizes}
    own = int(client_info(control, "control")["tot-mem"])
    # room for all but the large one
    limit = mem["small"] + mem["medium"] + own + 4096
    assert control.call("config", "set", "maxmemory-clients", str(limit)) == "OK"
    clients["large"].wait_closed(timeout=5)
    assert client_info(control, "medium") is not None and client_info(control, "small") is not None
    # then room for the small one alone
    limit = mem["small"] + own + 4096
    assert control.call("config", "set", "maxmemory-clients", str(limit)) == "OK"
    clients["medium"].wait_closed(timeout=5)
    assert client_info(control, "small") is not None
    assert stat(control, "evicted_clients") == 2


def test_evicts_only_until_under_limit(connect, control):
    n, size = 6, 512 * 1024
    conns = []
    for i in range(n):
        conns.append(named(connect, "c%d" % i))
        fill_query_buffer(conns[-1], size)
        assert wait_for(lambda: int(client_info(control, "c%d" % i)["qbuf"]) >= size)
    biggest = max(int(client_info(control, "c%d" % i)["tot-mem"]) for i in range(n))
    own = int(client_info(control, "control")["tot-mem"])
    assert control.call("config", "set", "maxmemory-clients", str(biggest * n // 2 + own)) == "OK"
    assert wait_for(lambda: stat(control, "evicted_clients") == n // 2)
    time.sleep(0.2)
    left = [i for i in range(n) if client_info(control, "c%d" % i) is not None]
    assert len(left) == n // 2


def test_disabling_eviction_keeps_big_clients(connect, control):
    assert control.call("config", "set", "maxmemory-clients", "1mb") == "OK"
    assert control.call("config", "set", "maxmemory-clients", "0") == "OK"
    c = named(connect, "big")
    fill_query_buffer(c, 2 * 1024 * 1024)
    assert wait_for(lambda: int(client_info(control, "big")["qbuf"]) >= 2 * 1024 * 1024)
    assert c.nothing_pending(0.3) and not c.closed
