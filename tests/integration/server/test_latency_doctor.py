"""LATENCY DOCTOR and LATENCY GRAPH, as Redis 7.0 words and draws them.
Samples come from DEBUG SLEEP (a "command" event) one per second, so each
is a sample of its own."""
import re
import time

import pytest
import redis

DISABLED = ("I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. "
            "You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. "
            "If we weren't in a deep space mission I'd suggest to take a look at "
            "https://redis.io/topics/latency-monitor.\n")
NO_SPIKES = ("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the "
             "slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think "
             "things over.\n")
SPIKES = "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n"
ENABLE = ("- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log "
          "Redis feature using the command 'CONFIG SET slowlog-log-slower-than 1000'. If the Slow log is disabled "
          "Redis is not able to log slow commands execution for you.\n")
TUNE = ("- Your current Slow Log configuration only logs events that are slower than your configured latency "
        "monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than 1000'.\n")
INSPECT = ("- Check your Slow Log to understand what are the commands you are running which are too slow to "
           "execute. Please check https://redis.io/commands/slowlog for more information.\n")
LARGE = ("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. "
         "If you have very large objects that are often deleted, expired, or evicted, try to fragment those "
         "objects into multiple smaller objects.\n")


pytestmark = pytest.mark.server_args("--enable-debug-command", "yes")  # the `server` fixture's server allows DEBUG


def sleeps(r, *seconds):
    """One DEBUG SLEEP per wall-clock second, so each is its own sample."""
    for i, sec in enumerate(seconds):
        if i:
            time.sleep(1.05)
        r.execute_command("DEBUG", "SLEEP", sec)


def test_doctor_without_monitoring_and_without_spikes(rd):
    assert rd.execute_command("LATENCY", "DOCTOR") == DISABLED
    rd.config_set("latency-monitor-threshold", 1)
    assert rd.execute_command("LATENCY", "DOCTOR") == NO_SPIKES


def test_doctor_reports_spikes_and_advices(rd):
    rd.config_set("latency-monitor-threshold", 1)
    sleeps(rd, 0.05, 0.1)
    report = rd.execute_command("LATENCY", "DOCTOR")
    assert report.startswith(SPIKES)
    line = re.search(r"^1\. command: 2 latency spikes \(average (\d+)ms, mean deviation (\d+)ms, "
                     r"period (\d+\.\d\d) sec\)\. Worst all time event (\d+)ms\.$", report, re.M)
    assert line, report
    avg, dev, period, worst = int(line[1]), int(line[2]), float(line[3]), int(line[4])
    # dev is half the gap between the two sleeps: 25 ms, less when the short one ran late
    assert 75 <= avg < 100 and 20 <= dev < 40 and 0.5 <= period <= 2.0 and 100 <= worst < 130
    # slowlog-log-slower-than 10000 us is above the 1 ms threshold: tune it
    assert report.endswith("\n\nI have a few advices for you:\n\n" + TUNE + INSPECT + LARGE)
    rd.config_set("slowlog-log-slower-than", 1000)
    assert rd.execute_command("LATENCY", "DOCTOR").endswith(":\n\n" + INSPECT + LARGE)
    rd.config_set("slowlog-log-slower-than", -1)
    assert rd.execute_command("LATENCY", "DOCTOR").endswith(":\n\n" + ENABLE + INSPECT + LARGE)
    rd.config_set("latency-monitor-threshold", 0)  # samples taken before still reported
    assert rd.execute_command("LATENCY", "DOCTOR").startswith(SPIKES)


def test_graph_draws_the_samples(rd):
    with pytest.raises(redis.ResponseError, match="^No samples available for event 'command'$"):
        rd.execute_command("LATENCY", "GRAPH", "command")
    rd.config_set("latency-monitor-threshold", 1)
    sleeps(rd, 0.02, 0.2, 0.01)
    graph = rd.execute_command("LATENCY", "GRAPH", "command").split("\n")
    hist = [ms for _, ms in rd.execute_command("LATENCY", "HISTORY", "command")]
    assert re.fullmatch(r"command - high %d ms, low %d ms \(all time high %d ms\)" % (max(hist), min(hist), max(hist)),
                        graph[0])
    assert graph[1] == "-" * 80
    assert graph[2:7] == [" # ", " | ", " | ", "_|_", "   "]
    assert re.fullmatch(r"\d\d\d", graph[7]) and graph[8] == "sss" and graph[9:] == [""]
    with pytest.raises(redis.ResponseError, match="^No samples available for event 'nosuch'$"):
        rd.execute_command("LATENCY", "GRAPH", "nosuch")


def test_graph_and_doctor_arity(rd):
    with pytest.raises(redis.ResponseError, match="wrong number of arguments for 'latency\\|graph' command"):
        rd.execute_command("LATENCY", "GRAPH")
    with pytest.raises(redis.ResponseError, match="wrong number of arguments for 'latency\\|doctor' command"):
        rd.execute_command("LATENCY", "DOCTOR", "x")
