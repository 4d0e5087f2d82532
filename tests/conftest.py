"""Fixtures shared by the integration tests (tests/integration/<area>/), one
per kind: servers, redis-py clients, raw RESP connections, DataClients, 0MQ
consumers (tests/README.md lists them).

Every test gets a fresh server on a free port, started from a temporary
directory and stopped when the test ends. REDIS_SERVER chooses the binary
(default: our src/redis-server); REFERENCE=1 says it is Debian's redis-server,
and tests marked `ours` (our own features: 0MQ push, expiry promptness) are
skipped then.
"""
import os
import signal

import pytest

from datatype_client import DataClient
from resp_raw import Conn, RawClient
from support import REFERENCE, Consumers, Server, TlsCerts


def pytest_configure(config):
    config.addinivalue_line("markers", "ours: tests of our own features, skipped against the reference")
    config.addinivalue_line("markers", "server_exits: the test makes a server exit with an error status on purpose")
    config.addinivalue_line("markers", "server_crash: the test makes a server crash on purpose (its report is checked)")
    config.addinivalue_line("markers", "server_args(*args): extra arguments for the `server` fixture's server")


def pytest_collection_modifyitems(config, items):
    if not REFERENCE:
        return
    skip = pytest.mark.skip(reason="our own feature; not in the reference server")
    for item in items:
        # The marker itself: a parametrize id named "ours" is in keywords too.
        if item.get_closest_marker("ours"):
            item.add_marker(skip)


# No test runs longer than this (seconds; TEST_TIMEOUT overrides): a hang
# fails the test that hangs instead of stopping the whole run.
TEST_TIMEOUT = int(os.environ.get("TEST_TIMEOUT", "300"))


@pytest.fixture(autouse=True)
def _per_test_timeout():
    def expired(signum, frame):
        raise TimeoutError("the test ran longer than %d s (TEST_TIMEOUT)" % TEST_TIMEOUT)
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TEST_TIMEOUT)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def server_factory(request):
    """Starts servers with extra arguments (binary: another server, e.g.
    support.REF_SERVER; env: variables added to its environment; bind=None:
    no --bind, the server's default `* -::*`); all are
    stopped at the end, and the test fails if one of them ended badly (a
    crash, a sanitizer's report, an exit the test did not ask for; the
    markers server_exits and server_crash say the test means it)."""
    started = []
    exits = request.node.get_closest_marker("server_exits") is not None
    crashes = request.node.get_closest_marker("server_crash") is not None

    def start(*args, config_text=None, binary=None, env=None, bind="127.0.0.1", pick_port=None):
        s = Server(args, config_text=config_text, binary=binary, env=env, bind=bind, pick_port=pick_port)
        s.exit_expected, s.crash_expected = exits, crashes
        started.append(s)
        return s

    yield start
    failure = None
    for s in started:
        try:
            problem = s.stop()
            if problem:
                raise AssertionError("port %d: %s" % (s.port, problem))
        except Exception as e:  # stop the others too, then report it
            failure = failure or e
    if failure is not None:
        raise failure


@pytest.fixture
def server(request, server_factory):
    """The test's server. @pytest.mark.server_args(*args) on the test or its
    module starts it with those extra arguments (e.g. DEBUG enabled)."""
    marker = request.node.get_closest_marker("server_args")
    return server_factory(*(marker.args if marker else ()))


@pytest.fixture
def r(server):
    c = server.client()
    yield c
    c.close()


@pytest.fixture
def rd(server):
    """A client that decodes replies to str."""
    c = server.client(decode_responses=True)
    yield c
    c.close()


# --- raw RESP connections (tests/resp_raw.py) --------------------------------

def _connector(default_server, make=RawClient):
    opened = []

    def open_client(target=None, **kw):
        c = make(target or default_server, **kw)
        opened.append(c)
        return c

    return open_client, opened


@pytest.fixture
def connect(server):
    """connect(**kw) opens a RawClient to the test's server; all are closed at the end."""
    open_client, opened = _connector(server)
    yield open_client
    for c in opened:
        c.close()


@pytest.fixture(scope="module")
def module_server():
    """One server shared by a whole test module, for many small stateless tests."""
    s = Server()
    yield s
    s.stop()


@pytest.fixture
def shared_connect(module_server):
    """Like `connect`, but to the module's shared server, emptied (FLUSHALL) first.
    Settings are not reset: tests using it set every setting they depend on."""
    open_client, opened = _connector(module_server)
    assert open_client().call("flushall") == "OK"
    yield open_client
    for c in opened:
        c.close()


@pytest.fixture
def open_conn(server):
    """open_conn(target=None, **kw) opens a decoding RawClient (resp_raw.Conn)
    to the test's server (or target); all are closed at the end."""
    open_client, opened = _connector(server, Conn)
    yield open_client
    for c in opened:
        c.close()


@pytest.fixture
def c(open_conn):
    """One decoding connection to the test's server."""
    return open_conn(timeout=10.0)


@pytest.fixture
def slowlog_conn(connect):
    """A raw connection with slowlog-log-slower-than 0 and an empty log."""
    conn = connect()
    assert conn.call("config", "set", "slowlog-log-slower-than", "0") == "OK"
    assert conn.call("slowlog", "reset") == "OK"
    return conn


# --- the data-type tests' client (tests/datatype_client.py) -------------------

@pytest.fixture
def dconnect(server):
    """Opens more DataClients to the test's server; all are closed at the end."""
    opened = []

    def open_client():
        cl = DataClient(server, timeout=10.0)
        opened.append(cl)
        return cl

    yield open_client
    for cl in opened:
        cl.close()


@pytest.fixture
def dc(dconnect):
    """A DataClient on the test's fresh server."""
    return dconnect()


# --- 0MQ consumers (support.Consumers; pyzmq) ----------------------------------

@pytest.fixture
def zctx():
    """zctx.consumer(*endpoints, rcvhwm=None, ack=False) connects a PULL (ack:
    DEALER) consumer on one 0MQ context; all are closed at the end."""
    pytest.importorskip("zmq", reason="pyzmq (python3-zmq) is not installed")
    consumers = Consumers()
    yield consumers
    consumers.close()



# --- TLS ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def tls_certs(tmp_path_factory):
    """Test certificates (support.TlsCerts), made once per module with openssl."""
    return TlsCerts(tmp_path_factory.mktemp("tls"))
