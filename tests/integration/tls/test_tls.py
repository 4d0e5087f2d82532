"""TLS as Redis 7.0 has it (issue 33): a TLS port beside the plain one (or
alone, port 0), redis-cli --tls and redis-py ssl=True with and without a
client certificate as tls-auth-clients says, certificates rotated by CONFIG
SET while clients stay connected, the tls-* directives' defaults and errors,
and bad input on the TLS port (plaintext, a truncated ClientHello, a
handshake that never ends, a stranger's or an expired certificate) refused with Redis's
log line while the other clients go on. Every test runs on the reference too.
The replication link over TLS is in test_tls_replication.py.
"""
import os
import socket
import ssl
import subprocess
import time

import pytest
import redis

from support import SERVER, free_port, server_binary, start_tls, tls_client, wait_for

DEFAULTS = {
    "tls-port": "0", "tls-cert-file": "", "tls-key-file": "", "tls-key-file-pass": "", "tls-client-cert-file": "",
    "tls-client-key-file": "", "tls-client-key-file-pass": "", "tls-dh-params-file": "", "tls-ca-cert-file": "",
    "tls-ca-cert-dir": "", "tls-protocols": "", "tls-ciphers": "", "tls-ciphersuites": "", "tls-auth-clients": "yes",
    "tls-prefer-server-ciphers": "no", "tls-session-caching": "yes", "tls-session-cache-size": "20480",
    "tls-session-cache-timeout": "300", "tls-replication": "no", "tls-cluster": "no",
}


def cli(server, certs, *args, cert="redis", port=None):
    cmd = ["redis-cli", "-p", str(port or server.tls_port), "--tls", "--cacert", certs.path("ca.crt")]
    if cert:
        cmd += ["--cert", certs.path(cert + ".crt"), "--key", certs.path(cert + ".key")]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=20)


def peer_cn(server, certs):
    """The CN of the certificate the TLS port shows a new connection."""
    ctx = ssl.create_default_context(cafile=certs.path("ca.crt"))
    ctx.check_hostname = False
    ctx.load_cert_chain(certs.path("redis.crt"), certs.path("redis.key"))
    with socket.create_connection((server.host, server.tls_port), timeout=5) as raw:
        with ctx.wrap_socket(raw) as s:
            subject = dict(x[0] for x in s.getpeercert()["subject"])
            return subject["commonName"]


def closed_by_server(sock, timeout=10):
    """The server closed sock (EOF or reset) within timeout; what it sent first."""
    sock.settimeout(timeout)
    got = b""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return got
            got += chunk
    except ConnectionResetError:
        return got


def test_directives_and_their_defaults(server):
    c = server.client(decode_responses=True)
    assert c.config_get("tls-*") == DEFAULTS


def test_plain_and_tls_ports_side_by_side(server_factory, tls_certs):
    s = start_tls(server_factory, tls_certs)
    t = tls_client(s, tls_certs)
    t.set("k", "over tls")
    assert s.client().get("k") == b"over tls"
    assert t.get("k") == b"over tls"
    # Both kinds of clients list the same fields, as 7.0 (which shows nothing TLS-specific).
    lines = s.client(decode_responses=True).execute_command("CLIENT", "LIST").splitlines()
    assert len(lines) == 2
    fields = [[kv.split("=")[0] for kv in line.split(" ")] for line in lines]
    assert fields[0] == fields[1]
    assert t.info("server")["tcp_port"] == s.port


def test_redis_cli_with_and_without_client_certificate(server_factory, tls_certs):
    s = start_tls(server_factory, tls_certs)
    assert cli(s, tls_certs, "ping").stdout.strip() == "PONG"
    refused = cli(s, tls_certs, "ping", cert=None)
    assert "PONG" not in refused.stdout
    wait_for(lambda: "Error accepting a client connection: error:0A0000C7:SSL routines::peer did not return a "
                     "certificate" in s.log(), what="the refusal's log line")
    # tls-auth-clients no: no certificate needed; optional: one is checked if given.
    s.client().config_set("tls-auth-clients", "no")
    assert cli(s, tls_certs, "ping", cert=None).stdout.strip() == "PONG"
    s.client().config_set("tls-auth-clients", "optional")
    assert cli(s, tls_certs, "ping", cert=None).stdout.strip() == "PONG"
    assert cli(s, tls_certs, "ping").stdout.strip() == "PONG"
    assert "PONG" not in cli(s, tls_certs, "ping", cert="other").stdout


def test_redis_py_ssl_big_values_and_pipelines(server_factory, tls_certs):
    s = start_tls(server_factory, tls_certs)
    t = tls_client(s, tls_certs)
    big = os.urandom(3 * 1024 * 1024 + 17)
    t.set("big", big)
    assert t.get("big") == big
    assert t.strlen("big") == len(big)
    p = t.pipeline(transaction=False)
    for i in range(2000):
        p.set("k%d" % i, "v" * (i % 300))
        p.get("k%d" % i)
    res = p.execute()
    assert res[1::2] == [b"v" * (i % 300) for i in range(2000)]
    # Many values in one reply: records beyond the first wait in the session.
    assert t.mget(["k%d" % i for i in range(2000)]) == [b"v" * (i % 300) for i in range(2000)]
    assert t.client_id() > 0


@pytest.mark.parametrize("cert", ["other", "expired"], ids=["stranger_ca", "expired"])
def test_client_certificate_from_a_stranger_ca_or_expired_is_refused(server_factory, tls_certs, cert):
    s = start_tls(server_factory, tls_certs)
    held = tls_client(s, tls_certs)
    held.ping()
    refused = tls_client(s, tls_certs, cert=cert)
    with pytest.raises(redis.ConnectionError):
        refused.ping()
    wait_for(lambda: "Error accepting a client connection: error:0A000086:SSL routines::certificate verify failed"
             in s.log(), what="the refusal's log line")
    assert held.ping() and tls_client(s, tls_certs).ping()


def test_plaintext_to_the_tls_port(server_factory, tls_certs):
    s = start_tls(server_factory, tls_certs)
    t = tls_client(s, tls_certs)
    t.set("k", "v")
    with socket.create_connection((s.host, s.tls_port)) as raw:
        raw.sendall(b"PING\r\n")
        assert b"PONG" not in closed_by_server(raw)
    wait_for(lambda: "Error accepting a client connection: error:0A00010B:SSL routines::wrong version number"
             in s.log(), what="the refusal's log line")
    assert t.get("k") == b"v"


def test_truncated_client_hello(server_factory, tls_certs):
    s = start_tls(server_factory, tls_certs)
    t = tls_client(s, tls_certs)
    t.ping()
    with socket.create_connection((s.host, s.tls_port)) as raw:
        # A handshake record announcing 200 bytes, of which 6 come.
        raw.sendall(b"\x16\x03\x01\x00\xc8\x01\x00\x00\xc4\x03\x03")
        raw.shutdown(socket.SHUT_WR)
        closed_by_server(raw)
    wait_for(lambda: "Error accepting a client connection: error:0A000126:SSL routines::unexpected eof while "
                     "reading" in s.log(), what="the refusal's log line")
    assert t.ping()


def test_handshake_that_never_ends_is_closed_after_the_timeout(server_factory, tls_certs):
    s = start_tls(server_factory, tls_certs, "--timeout", "1")
    stalled = []
    for _ in range(20):
        raw = socket.create_connection((s.host, s.tls_port))
        raw.sendall(b"\x16\x03\x01\x00\xc8\x01\x00")  # and then nothing
        stalled.append(raw)
    # Meanwhile the others are served at once.
    t = tls_client(s, tls_certs)
    start = time.time()
    for i in range(50):
        t.set("k%d" % i, i)
    assert time.time() - start < 1
    assert s.client().dbsize() == 50
    for raw in stalled:
        closed_by_server(raw, timeout=15)
        raw.close()


def test_tls_only_with_port_zero(tmp_path, tls_certs):
    port = free_port()
    p = subprocess.Popen([SERVER, "--port", "0", "--tls-port", str(port), "--save", "", "--dir", str(tmp_path),
                          "--logfile", str(tmp_path / "log")] + list(tls_certs.server_args()),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        c = redis.Redis(port=port, **tls_certs.client_kwargs())
        wait_for(lambda: c.ping(), retry_on=(redis.ConnectionError,), what="PONG over TLS")
        assert c.config_get("port") == {"port": "0"}
        c.close()
    finally:
        p.terminate()
        assert p.wait(timeout=10) == 0


def test_certificates_rotated_by_config_set(server_factory, tls_certs, tmp_path):
    certs = tls_certs
    cert, key = str(tmp_path / "live.crt"), str(tmp_path / "live.key")
    with open(cert, "wb") as f:
        f.write(open(certs.path("redis.crt"), "rb").read())
    with open(key, "wb") as f:
        f.write(open(certs.path("redis.key"), "rb").read())
    s = start_tls(server_factory, certs, "--tls-cert-file", cert, "--tls-key-file", key)
    before = tls_client(s, certs)
    before.set("k", "1")
    assert peer_cn(s, certs) == "Generic-cert"
    # A new pair (same CA), both directives in one CONFIG SET.
    certs._cert("rotated", "ca", "Rotated")
    s.client().config_set("tls-cert-file", certs.path("rotated.crt"), "tls-key-file", certs.path("rotated.key"))
    assert peer_cn(s, certs) == "Rotated"
    assert before.get("k") == b"1"  # the connection made before goes on
    # A certificate without its key is refused, and the last good pair stays.
    with pytest.raises(redis.ResponseError) as e:
        s.client().config_set("tls-cert-file", certs.path("redis.crt"))
    assert str(e.value) == ("CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS "
                            "configuration. Check server logs.")
    assert s.client().config_get("tls-cert-file")["tls-cert-file"] == certs.path("rotated.crt")
    assert peer_cn(s, certs) == "Rotated"
    # Files rewritten in place take effect with a CONFIG SET of the same names.
    with open(cert, "wb") as f:
        f.write(open(certs.path("rotated.crt"), "rb").read())
    with open(key, "wb") as f:
        f.write(open(certs.path("rotated.key"), "rb").read())
    s.client().config_set("tls-cert-file", cert, "tls-key-file", key)
    assert peer_cn(s, certs) == "Rotated"
    # Another CA for clients: the stranger is accepted now, the old client still served.
    s.client().config_set("tls-ca-cert-file", certs.path("other-ca.crt"))
    assert tls_client(s, certs, cert="other").ping()
    assert before.get("k") == b"1"


def test_bad_settings_are_refused_with_redis_errors(server_factory, tls_certs):
    s = start_tls(server_factory, tls_certs)
    c = s.client()
    for name, value in [("tls-protocols", "TLSv1.4"), ("tls-cert-file", "/nonexistent"),
                        ("tls-ciphers", "NOT-A-CIPHER"), ("tls-dh-params-file", "/nonexistent")]:
        with pytest.raises(redis.ResponseError) as e:
            c.config_set(name, value)
        assert str(e.value) == ("CONFIG SET failed (possibly related to argument '%s') - Unable to update TLS "
                                "configuration. Check server logs." % name)
    log = s.log()
    assert "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'." in log
    assert "Failed to load certificate: /nonexistent: error:80000002:system library::No such file or directory" in log
    assert tls_client(s, tls_certs).ping()
    c.config_set("tls-protocols", "TLSv1.3")
    assert tls_client(s, tls_certs).ping()


def test_encrypted_key_with_its_password(server_factory, tls_certs):
    s = start_tls(server_factory, tls_certs, "--tls-key-file", tls_certs.path("redis-pass.key"),
                  "--tls-key-file-pass", "secret")
    assert tls_client(s, tls_certs).ping()
    assert s.client().config_get("tls-key-file-pass") == {"tls-key-file-pass": "secret"}


def test_a_tls_port_without_certificates_does_not_start(server_factory, tls_certs, tmp_path):
    p = subprocess.run([SERVER, "--port", str(free_port()), "--tls-port", str(free_port()), "--save", "",
                        "--dir", str(tmp_path)], capture_output=True, text=True, timeout=20)
    assert p.returncode == 1
    assert "Failed to configure TLS. Check logs for more info." in p.stdout


def test_tls_port_opened_and_closed_by_config_set(server_factory, tls_certs):
    s = server_factory(*tls_certs.server_args())
    c = s.client()
    s.tls_port = free_port()
    c.config_set("tls-port", s.tls_port)
    assert tls_client(s, tls_certs).ping()
    c.config_set("tls-port", 0)
    with pytest.raises(redis.ConnectionError):
        tls_client(s, tls_certs).ping()
    # Nothing uses TLS now: the settings are taken as they are (as Redis);
    # the port opened again serves the certificate loaded last, and the
    # next change checks them all.
    c.config_set("tls-cert-file", "/nonexistent")
    c.config_set("tls-port", s.tls_port)
    assert tls_client(s, tls_certs).ping()
    with pytest.raises(redis.ResponseError):
        c.config_set("tls-protocols", "TLSv1.3")
    c.config_set("tls-cert-file", tls_certs.path("redis.crt"), "tls-protocols", "TLSv1.3")
    assert tls_client(s, tls_certs).ping()


@pytest.mark.parametrize("source_kind,target_kind", [("ours", "reference"), ("reference", "ours"), ("ours", "ours")])
def test_migrate_with_tls_cluster_speaks_tls_to_the_target(server_factory, tls_certs, source_kind, target_kind):
    """tls-cluster yes: MIGRATE's connection is TLS (Redis 7.0's), to the target's TLS port."""
    source = start_tls(server_factory, tls_certs, "--tls-cluster", "yes", binary=server_binary(source_kind))
    target = start_tls(server_factory, tls_certs, binary=server_binary(target_kind))
    c = source.client()
    c.set("k", "v" * 100000)
    c.rpush("l", *range(100))
    assert c.execute_command("MIGRATE", "127.0.0.1", target.tls_port, "", 0, 5000, "KEYS", "k", "l") == b"OK"
    t = target.client()
    assert t.get("k") == b"v" * 100000 and t.llen("l") == 100
    assert c.exists("k", "l") == 0
    # The cached connection serves the next one.
    c.set("k2", "x")
    assert c.execute_command("MIGRATE", "127.0.0.1", target.tls_port, "k2", 0, 5000) == b"OK"
    assert t.get("k2") == b"x"
    # To a plain port the handshake fails: Redis's I/O error.
    c.set("k3", "y")
    with pytest.raises(redis.ResponseError, match="IOERR"):
        c.execute_command("MIGRATE", "127.0.0.1", target.port, "k3", 0, 1000)


def test_maxclients_refuses_a_tls_connection_before_its_handshake(server_factory, tls_certs):
    """Past maxclients a plain connection gets Redis's error; a TLS one is
    dropped before its handshake (nothing can be written to it yet, as 7.0:
    the suite's unit/limits expects an I/O error over TLS)."""
    s = start_tls(server_factory, tls_certs, "--maxclients", "2")
    held = [tls_client(s, tls_certs), socket.create_connection((s.host, s.port))]
    held[0].ping()
    held[1].sendall(b"PING\r\n")
    assert held[1].recv(100) == b"+PONG\r\n"
    with pytest.raises((redis.ConnectionError, ssl.SSLError, OSError)) as e:
        tls_client(s, tls_certs).ping()
    assert "max number of clients" not in str(e.value)
    with socket.create_connection((s.host, s.port)) as raw:
        assert closed_by_server(raw) == b"-ERR max number of clients reached\r\n"
    held[1].close()
    assert int(held[0].info("stats")["rejected_connections"]) == 2
    wait_for(lambda: tls_client(s, tls_certs).ping(), retry_on=(redis.ConnectionError,),
             what="a TLS client admitted again")
