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


def crash(server, *cmd):
    c = server.client()
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
