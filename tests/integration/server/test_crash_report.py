"""The crash report in the log, as Redis 7.0 writes it: a fatal signal
(DEBUG SEGFAULT, SIGABRT, SIGSEGV from outside), a failed assertion (DEBUG
ASSERT) and a panic (DEBUG PANIC) write the bug report markers, what
happened and a backtrace(3) stack trace naming the functions (debugCommand
for a DEBUG subcommand); the watchdog logs a stack trace when the event
loop stalls; crash-log-enabled no keeps fatal signals quiet."""
import os
import signal

import pytest
import redis

from support import wait_for

DEBUG = ("--enable-debug-command", "yes")

# Every test here crashes a server on purpose: the report is what it checks.
pytestmark = pytest.mark.server_crash


def crash(server, *cmd, c=None):
    c = c or server.client()
    with pytest.raises(redis.exceptions.ConnectionError):
        c.execute_command(*cmd)
    server.proc.wait(timeout=10)
    return server.log()


def has_all(log, *needles):
    missing = [n for n in needles if n not in log]
    assert not missing, f"not in the log: {missing}"


def test_debug_segfault_writes_the_report(server_factory):
    s = server_factory(*DEBUG)
    has_all(crash(s, "DEBUG", "SEGFAULT"),
            "=== REDIS BUG REPORT START: Cut & paste starting from here ===",
            "crashed by signal: 11", "Accessing address:", "------ STACK TRACE ------", "debugCommand",
            "=== REDIS BUG REPORT END. Make sure to include from START to END. ===")
    assert s.proc.returncode == -signal.SIGSEGV


def test_debug_assert_reports_the_assertion(server_factory):
    s = server_factory(*DEBUG)
    has_all(crash(s, "DEBUG", "ASSERT"), "=== ASSERTION FAILED ===", "'1 == 2' is not true",
            'client->argv[1] = "ASSERT"', "------ STACK TRACE ------", "debugCommand")


def test_debug_panic_reports_guru_meditation(server_factory):
    s = server_factory(*DEBUG)
    log = crash(s, "DEBUG", "PANIC")
    assert "Guru Meditation: DEBUG PANIC called at Unix time" in log
    assert "------ STACK TRACE ------" in log


@pytest.mark.parametrize("sig", [signal.SIGABRT, signal.SIGSEGV])
def test_signal_from_outside_writes_the_report(server_factory, sig):
    s = server_factory()
    os.kill(s.proc.pid, sig)
    s.proc.wait(timeout=10)
    log = s.log()
    assert f"crashed by signal: {int(sig)}" in log
    assert "Killed by PID:" in log
    assert "------ STACK TRACE ------" in log
    assert s.proc.returncode == -sig


def test_crash_log_disabled_writes_nothing(server_factory):
    s = server_factory(*DEBUG, "--crash-log-enabled", "no")
    log = crash(s, "DEBUG", "SEGFAULT")
    assert "crashed by signal" not in log
    assert "STACK TRACE" not in log


def test_crash_log_enabled_is_mutable(server_factory):
    s = server_factory(*DEBUG)
    c = s.client()
    c.config_set("crash-log-enabled", "no")
    c.config_set("crash-log-enabled", "yes")
    assert list(c.config_get("crash-log-enabled").values()) == ["yes"]
    log = crash(s, "DEBUG", "SEGFAULT")
    assert "crashed by signal: 11" in log


def test_watchdog_logs_a_stack_trace(server_factory):
    s = server_factory(*DEBUG)
    c = s.client()
    c.config_set("watchdog-period", 200)
    c.execute_command("DEBUG", "SLEEP", "1")
    wait_for(lambda: "debugCommand" in s.log(), timeout=5, what="the watchdog's stack trace")
    assert "--- WATCHDOG TIMER EXPIRED ---" in s.log()
    c.config_set("watchdog-period", 0)
    assert c.ping()


# After the stack trace (and the registers, for a signal) Redis 7.0 writes
# the server's state, in this order.
STATE_SECTIONS = ["------ INFO OUTPUT ------", "------ CLIENT LIST OUTPUT ------",
                  "------ CURRENT CLIENT INFO ------", "------ MODULES INFO OUTPUT ------",
                  "------ CONFIG DEBUG OUTPUT ------"]
NO_MEMTEST = ("--crash-memcheck-enabled", "no")


def assert_in_order(log, *needles):
    pos = 0
    for n in needles:
        found = log.find(n, pos)
        assert found != -1, f"{n!r} not found after position {pos}"
        pos = found + len(n)


@pytest.mark.parametrize("what", ["SEGFAULT", "ASSERT"])
def test_report_shows_info_clients_and_the_running_command(server_factory, what):
    s = server_factory(*DEBUG, *NO_MEMTEST)
    c = s.client()
    c.client_setname("crasher")
    other = s.client()
    other.client_setname("bystander")
    other.ping()
    log = crash(s, "DEBUG", what, c=c)
    assert_in_order(log, "------ STACK TRACE ------", *STATE_SECTIONS,
                    "=== REDIS BUG REPORT END. Make sure to include from START to END. ===")
    if what == "SEGFAULT":
        assert_in_order(log, "------ REGISTERS ------", "------ INFO OUTPUT ------")
    info = log[log.index("------ INFO OUTPUT ------"):log.index("------ CLIENT LIST OUTPUT ------")]
    for needle in ("# Server", "redis_version:7.0.15", f"tcp_port:{s.port}", "# Clients", "connected_clients:",
                   "# Memory", "# Stats", "# Replication", "# CPU", "# Commandstats", "cmdstat_client|setname:calls=2",
                   "# Keyspace"):
        assert needle in info, needle
    clients = log[log.index("------ CLIENT LIST OUTPUT ------"):log.index("------ CURRENT CLIENT INFO ------")]
    assert " name=crasher " in clients and " name=bystander " in clients
    current = log[log.index("------ CURRENT CLIENT INFO ------"):log.index("------ MODULES INFO OUTPUT ------")]
    assert " name=crasher " in current and "bystander" not in current
    assert f"argv[0]: '\"DEBUG\"'\nargv[1]: '\"{what}\"'\n" in current
    config = log[log.index("------ CONFIG DEBUG OUTPUT ------"):]
    for needle in ("lazyfree-lazy-user-flush no\n", "proto-max-bulk-len 512mb\n", "client-query-buffer-limit 1gb\n",
                   "repl-diskless-load disabled\n", "list-compress-depth 0\n"):
        assert needle in config, needle


def test_report_describes_the_key_named_by_the_first_argument(server_factory):
    # The running command's first argument is looked up as a key: DEBUG
    # SEGFAULT with a key named "segfault" in the db.
    s = server_factory(*DEBUG, *NO_MEMTEST)
    c = s.client()
    c.set("SEGFAULT", "a value")
    log = crash(s, "DEBUG", "SEGFAULT")
    assert_in_order(log, "------ CURRENT CLIENT INFO ------",
                    "key 'SEGFAULT' found in DB containing the following object:",
                    "Object type: 0", "Object encoding: 8", "Object refcount: 1",
                    "------ MODULES INFO OUTPUT ------")


def test_signal_from_outside_reports_state_without_a_current_client(server_factory):
    s = server_factory(*NO_MEMTEST)
    s.client().set("k", "v")
    os.kill(s.proc.pid, signal.SIGSEGV)
    s.proc.wait(timeout=10)
    log = s.log()
    assert_in_order(log, "------ STACK TRACE ------", "------ INFO OUTPUT ------", "db0:keys=1,expires=0",
                    "------ CLIENT LIST OUTPUT ------", "------ MODULES INFO OUTPUT ------",
                    "------ CONFIG DEBUG OUTPUT ------")
    assert "------ CURRENT CLIENT INFO ------" not in log
    assert s.proc.returncode == -signal.SIGSEGV


def test_panic_reports_state_too(server_factory):
    s = server_factory(*DEBUG, *NO_MEMTEST)
    log = crash(s, "DEBUG", "PANIC")
    assert_in_order(log, "Guru Meditation: DEBUG PANIC", "------ STACK TRACE ------", *STATE_SECTIONS)


def test_a_second_crash_during_the_report_ends_the_process(server_factory):
    # The handler is reset once it runs: a fault while the report is being
    # written (here a second signal, likely mid-report) kills the process
    # instead of starting another report or hanging.
    s = server_factory(*NO_MEMTEST)
    c = s.client()
    for i in range(200):
        c.client_setname(f"c{i}")
    os.kill(s.proc.pid, signal.SIGSEGV)
    os.kill(s.proc.pid, signal.SIGSEGV)
    s.proc.wait(timeout=10)
    assert s.proc.returncode == -signal.SIGSEGV
    assert s.log().count("=== REDIS BUG REPORT START") <= 1
