"""Pub/sub integration tests: SUBSCRIBE/PSUBSCRIBE and their UNSUBSCRIBE
counterparts, PUBLISH, PUBSUB introspection, glob patterns, subscribed-mode
command restrictions (RESP2 and RESP3) and the pubsub output buffer limit.

Every expected frame and error text was taken from redis-server 7.0.15; raw
sockets are used so the exact framing is checked, not just the values.
"""
import time

import pytest

from resp_raw import Error, Push, Status
from support import wait_for

SUBSCRIBED_ONLY = ("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
                   "RESET are allowed in this context")


def bulk(s):
    if isinstance(s, str):
        s = s.encode()
    return b"$%d\r\n%s\r\n" % (len(s), s)


def confirmation(kind, channel, count):
    return b"*3\r\n" + bulk(kind) + bulk(channel) + b":%d\r\n" % count


def message(channel, payload):
    return b"*3\r\n" + bulk("message") + bulk(channel) + bulk(payload)


def pmessage(pattern, channel, payload):
    return b"*4\r\n" + bulk("pmessage") + bulk(pattern) + bulk(channel) + bulk(payload)


# --- subscribing and publishing -------------------------------------------------------------

def test_subscribe_confirms_each_channel_with_running_count(connect):
    sub = connect()
    sub.send("subscribe", "a", "b", "c")
    assert sub.read_frame() == confirmation("subscribe", "a", 1)
    assert sub.read_frame() == confirmation("subscribe", "b", 2)
    assert sub.read_frame() == confirmation("subscribe", "c", 3)
    assert sub.nothing_pending()


def test_subscribing_twice_to_a_channel_counts_it_once(connect):
    sub = connect()
    sub.send("subscribe", "a", "a")
    assert sub.read_frame() == confirmation("subscribe", "a", 1)
    assert sub.read_frame() == confirmation("subscribe", "a", 1)
    pub = connect()
    assert pub.call("pubsub", "numsub", "a") == [b"a", 1]
    assert pub.call("publish", "a", "x") == 1
    assert sub.read_frame() == message("a", "x")
    assert sub.nothing_pending()


def test_publish_returns_number_of_receivers(connect):
    pub = connect()
    assert pub.call("publish", "ch", "nobody") == 0
    s1, s2 = connect(), connect()
    s1.call("subscribe", "ch")
    s2.call("subscribe", "ch")
    assert pub.call("publish", "ch", "hello") == 2
    assert s1.read_frame() == message("ch", "hello")
    assert s2.read_frame() == message("ch", "hello")
    assert pub.call("publish", "other", "x") == 0
    assert s1.nothing_pending(0.05) and s2.nothing_pending(0.05)


def test_publish_counts_channel_and_every_matching_pattern(connect):
    sub = connect()
    sub.call("subscribe", "news.it")
    sub.send("psubscribe", "news.*", "*.it", "sport.*")
    for _ in range(3):
        sub.read()
    pub = connect()
    assert pub.call("publish", "news.it", "m") == 3
    # The channel message comes first, then one pmessage per matching pattern.
    assert sub.read_frame() == message("news.it", "m")
    pm = {sub.read_frame(), sub.read_frame()}
    assert pm == {pmessage("news.*", "news.it", "m"), pmessage("*.it", "news.it", "m")}
    assert sub.nothing_pending()


def test_message_and_pmessage_frames_are_exact(connect):
    sub = connect()
    assert sub.call_frame("psubscribe", "h*") == confirmation("psubscribe", "h*", 1)
    pub = connect()
    assert pub.call_frame("publish", "hello", "world") == b":1\r\n"
    assert sub.read_frame() == b"*4\r\n$8\r\npmessage\r\n$2\r\nh*\r\n$5\r\nhello\r\n$5\r\nworld\r\n"
    assert sub.call_frame("subscribe", "x") == confirmation("subscribe", "x", 2)
    assert pub.call_frame("publish", "x", "") == b":1\r\n"
    assert sub.read_frame() == b"*3\r\n$7\r\nmessage\r\n$1\r\nx\r\n$0\r\n\r\n"


def test_binary_channels_and_payloads(connect):
    sub = connect()
    chan = b"b\x00\r\nx"
    assert sub.call_frame("subscribe", chan) == confirmation("subscribe", chan, 1)
    pub = connect()
    assert pub.call("publish", chan, b"m\x00\r\n\xff") == 1
    assert sub.read_frame() == message(chan, b"m\x00\r\n\xff")
    assert pub.call("pubsub", "channels") == [chan]


def test_psubscribe_counts_patterns_and_channels_together(connect):
    sub = connect()
    sub.send("subscribe", "a", "b")
    sub.read(), sub.read()
    assert sub.call_frame("psubscribe", "p*") == confirmation("psubscribe", "p*", 3)
    assert sub.call_frame("psubscribe", "p*") == confirmation("psubscribe", "p*", 3)
    assert sub.call_frame("unsubscribe", "a") == confirmation("unsubscribe", "a", 2)
    assert sub.call_frame("punsubscribe", "p*") == confirmation("punsubscribe", "p*", 1)


# --- unsubscribing --------------------------------------------------------------------------

def test_unsubscribe_named_channels_including_unknown(connect):
    sub = connect()
    sub.send("subscribe", "a", "b")
    sub.read(), sub.read()
    sub.send("unsubscribe", "a", "zz")
    assert sub.read_frame() == confirmation("unsubscribe", "a", 1)
    assert sub.read_frame() == confirmation("unsubscribe", "zz", 1)
    pub = connect()
    assert pub.call("publish", "a", "x") == 0
    assert pub.call("publish", "b", "x") == 1


def test_unsubscribe_all_then_back_to_normal_mode(connect):
    sub = connect()
    sub.send("subscribe", "a", "b", "c")
    for _ in range(3):
        sub.read()
    sub.send("unsubscribe")
    replies = [sub.read() for _ in range(3)]
    # The order of channels is the server's internal order; the counts go down 2, 1, 0.
    assert [r[0] for r in replies] == [b"unsubscribe"] * 3
    assert sorted(r[1] for r in replies) == [b"a", b"b", b"c"]
    assert [r[2] for r in replies] == [2, 1, 0]
    assert sub.nothing_pending()
    # Normal mode again: PING answers +PONG and any command runs.
    assert sub.call_frame("ping") == b"+PONG\r\n"
    assert sub.call_frame("set", "k", "v") == b"+OK\r\n"
    assert sub.call_frame("get", "k") == b"$1\r\nv\r\n"


def test_unsubscribe_without_subscriptions_replies_nil_channel(connect):
    c = connect()
    assert c.call_frame("unsubscribe") == b"*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n"
    assert c.call_frame("punsubscribe") == b"*3\r\n$12\r\npunsubscribe\r\n$-1\r\n:0\r\n"
    assert c.call_frame("unsubscribe", "zz") == confirmation("unsubscribe", "zz", 0)
    assert c.call_frame("punsubscribe", "z*") == confirmation("punsubscribe", "z*", 0)
    # Those did not enter subscribed mode.
    assert c.call_frame("ping") == b"+PONG\r\n"


def test_punsubscribe_all_patterns(connect):
    sub = connect()
    sub.send("psubscribe", "a*", "b*")
    sub.read(), sub.read()
    sub.send("punsubscribe")
    replies = [sub.read() for _ in range(2)]
    assert sorted(r[1] for r in replies) == [b"a*", b"b*"]
    assert [r[0] for r in replies] == [b"punsubscribe"] * 2
    assert [r[2] for r in replies] == [1, 0]
    assert sub.call_frame("ping") == b"+PONG\r\n"


def test_still_subscribed_while_patterns_remain(connect):
    sub = connect()
    sub.call("subscribe", "a")
    sub.call("psubscribe", "p*")
    assert sub.call_frame("unsubscribe") == confirmation("unsubscribe", "a", 1)
    assert sub.call("get", "x") == Error(SUBSCRIBED_ONLY % "get")
    assert sub.call_frame("punsubscribe") == confirmation("punsubscribe", "p*", 0)
    assert sub.call_frame("get", "x") == b"$-1\r\n"


def test_disconnect_drops_subscriptions(connect):
    sub = connect()
    sub.call("subscribe", "a")
    sub.call("psubscribe", "p*")
    pub = connect()
    assert pub.call("pubsub", "numsub", "a") == [b"a", 1]
    assert pub.call("pubsub", "numpat") == 1
    sub.close()
    wait_for(lambda: pub.call("pubsub", "numpat") == 0, timeout=2)
    assert pub.call("pubsub", "numsub", "a") == [b"a", 0]
    assert pub.call("pubsub", "numpat") == 0
    assert pub.call("publish", "a", "x") == 0


# --- subscribed mode (RESP2) ----------------------------------------------------------------

@pytest.mark.parametrize("args,name", [
    (("get", "x"), "get"),
    (("GET", "x"), "get"),
    (("set", "k", "v"), "set"),
    (("multi",), "multi"),
    (("publish", "a", "b"), "publish"),
    (("pubsub", "numpat"), "pubsub|numpat"),
    (("Config", "get", "x"), "config|get"),
])
def test_commands_refused_while_subscribed(connect, args, name):
    sub = connect()
    sub.call("subscribe", "a")
    assert sub.call(*args) == Error(SUBSCRIBED_ONLY % name)
    # The connection stays subscribed.
    pub = connect()
    assert pub.call("publish", "a", "still") == 1
    assert sub.read_frame() == message("a", "still")


def test_refused_in_pattern_only_subscribed_mode_too(connect):
    sub = connect()
    sub.call("psubscribe", "x*")
    assert sub.call_frame("get", "x") == (b"-" + (SUBSCRIBED_ONLY % "get").encode() + b"\r\n")


def test_unknown_command_and_arity_errors_come_first_while_subscribed(connect):
    sub = connect()
    sub.call("subscribe", "a")
    assert sub.call("foo") == Error("ERR unknown command 'foo', with args beginning with: ")
    assert sub.call("get") == Error("ERR wrong number of arguments for 'get' command")
    assert sub.call("ping", "a", "b") == Error("ERR wrong number of arguments for 'ping' command")


def test_ping_while_subscribed(connect):
    sub = connect()
    sub.call("subscribe", "a")
    assert sub.call_frame("ping") == b"*2\r\n$4\r\npong\r\n$0\r\n\r\n"
    assert sub.call_frame("ping", "hi") == b"*2\r\n$4\r\npong\r\n$2\r\nhi\r\n"
    sub.send_raw(b"PING\r\n")
    assert sub.read_frame() == b"*2\r\n$4\r\npong\r\n$0\r\n\r\n"


def test_quit_while_subscribed(connect):
    sub = connect()
    sub.call("subscribe", "a")
    assert sub.call_frame("quit") == b"+OK\r\n"
    assert sub.wait_closed() == b""
    pub = connect()
    wait_for(lambda: pub.call("pubsub", "numsub", "a") == [b"a", 0], timeout=2)
    assert pub.call("pubsub", "numsub", "a") == [b"a", 0]


def test_reset_leaves_subscribed_mode(connect):
    sub = connect()
    sub.call("subscribe", "a")
    sub.call("psubscribe", "p*")
    assert sub.call_frame("reset") == b"+RESET\r\n"
    assert sub.call_frame("get", "x") == b"$-1\r\n"
    pub = connect()
    assert pub.call("pubsub", "numsub", "a") == [b"a", 0]
    assert pub.call("pubsub", "numpat") == 0
    assert pub.call("publish", "a", "x") == 0


def test_subscribe_inside_multi(connect):
    c = connect()
    assert c.call_frame("multi") == b"+OK\r\n"
    assert c.call_frame("subscribe", "a") == b"+QUEUED\r\n"
    assert c.call_frame("exec") == b"*1\r\n" + confirmation("subscribe", "a", 1)
    assert c.call("get", "a") == Error(SUBSCRIBED_ONLY % "get")
    pub = connect()
    assert pub.call("publish", "a", "x") == 1
    assert c.read_frame() == message("a", "x")


# --- RESP3 ----------------------------------------------------------------------------------

def test_resp3_subscriptions_use_push_frames_and_allow_commands(connect):
    sub = connect()
    assert isinstance(sub.call("hello", "3"), dict)
    assert sub.call_frame("subscribe", "a") == b">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
    # In RESP3 every command is allowed while subscribed, and PING is a normal PONG.
    assert sub.call_frame("get", "x") == b"_\r\n"
    assert sub.call_frame("ping") == b"+PONG\r\n"
    pub = connect()
    assert pub.call("publish", "a", "m") == 1
    assert sub.read_frame() == b">3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nm\r\n"
    assert sub.call_frame("psubscribe", "a*") == b">3\r\n$10\r\npsubscribe\r\n$2\r\na*\r\n:2\r\n"
    assert pub.call("publish", "ab", "n") == 1
    assert sub.read() == Push([b"pmessage", b"a*", b"ab", b"n"])
    assert sub.call_frame("unsubscribe", "a") == b">3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:1\r\n"
    assert sub.call_frame("punsubscribe", "zz") == b">3\r\n$12\r\npunsubscribe\r\n$2\r\nzz\r\n:1\r\n"


@pytest.mark.parametrize("resp", [2, 3])
def test_pushes_reach_a_client_with_client_reply_off(connect, resp):
    """Confirmations and messages are pushes, not replies: CLIENT REPLY OFF
    does not silence them (7.0); the commands' own replies stay silent."""
    sub, pub = connect(), connect()
    if resp == 3:
        assert isinstance(sub.call("hello", "3"), dict)
    head = b">" if resp == 3 else b"*"
    sub.send("client", "reply", "off")
    sub.send("subscribe", "channel")
    assert sub.read_frame() == head + b"3\r\n$9\r\nsubscribe\r\n$7\r\nchannel\r\n:1\r\n"
    sub.send("psubscribe", "ch*")
    assert sub.read_frame() == head + b"3\r\n$10\r\npsubscribe\r\n$3\r\nch*\r\n:2\r\n"
    assert pub.call("publish", "channel", "hello") == 2
    assert sub.read_frame() == head + b"3\r\n$7\r\nmessage\r\n$7\r\nchannel\r\n$5\r\nhello\r\n"
    assert sub.read_frame() == head + b"4\r\n$8\r\npmessage\r\n$3\r\nch*\r\n$7\r\nchannel\r\n$5\r\nhello\r\n"
    sub.send("unsubscribe", "channel")
    assert sub.read_frame() == head + b"3\r\n$11\r\nunsubscribe\r\n$7\r\nchannel\r\n:1\r\n"
    if resp == 3:
        sub.send("ping")  # a command's reply: still off
    sub.send("punsubscribe", "ch*")
    assert sub.read_frame() == head + b"3\r\n$12\r\npunsubscribe\r\n$3\r\nch*\r\n:0\r\n"
    assert sub.nothing_pending()


# --- PUBSUB introspection -------------------------------------------------------------------

def test_pubsub_channels_numsub_numpat(connect):
    s1, s2, q = connect(), connect(), connect()
    s1.send("subscribe", "news.it", "news.fr", "sport")
    for _ in range(3):
        s1.read()
    s2.send("subscribe", "news.it")
    s2.read()
    s2.send("psubscribe", "news.*", "x*")
    s2.read(), s2.read()
    s1.call("psubscribe", "news.*")  # the same pattern on another client: still one pattern

    assert sorted(q.call("pubsub", "channels")) == [b"news.fr", b"news.it", b"sport"]
    assert sorted(q.call("pubsub", "channels", "news.*")) == [b"news.fr", b"news.it"]
    assert q.call("pubsub", "channels", "[s]*") == [b"sport"]
    assert q.call("pubsub", "channels", "nomatch*") == []
    assert q.call("pubsub", "numsub", "news.it", "sport", "nothing", "news.it") == \
        [b"news.it", 2, b"sport", 1, b"nothing", 0, b"news.it", 2]
    assert q.call("pubsub", "numsub") == []
    assert q.call("pubsub", "numpat") == 2


def test_pubsub_channels_ignores_pattern_subscriptions(connect):
    s, q = connect(), connect()
    s.call("psubscribe", "a*")
    assert q.call_frame("pubsub", "channels") == b"*0\r\n"
    assert q.call_frame("pubsub", "numpat") == b":1\r\n"


def test_pubsub_errors(connect):
    c = connect()
    assert c.call("pubsub") == Error("ERR wrong number of arguments for 'pubsub' command")
    assert c.call("pubsub", "foo") == Error("ERR unknown subcommand 'foo'. Try PUBSUB HELP.")
    assert c.call("pubsub", "numpat", "x") == Error("ERR wrong number of arguments for 'pubsub|numpat' command")
    assert c.call("pubsub", "channels", "a", "b") == Error(
        "ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB HELP.")
    assert c.call("subscribe") == Error("ERR wrong number of arguments for 'subscribe' command")
    assert c.call("psubscribe") == Error("ERR wrong number of arguments for 'psubscribe' command")
    assert c.call("publish", "a") == Error("ERR wrong number of arguments for 'publish' command")


def test_pubsub_help(connect):
    c = connect()
    assert c.call("pubsub", "help") == [
        "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        "HELP",
        "    Prints this help.",
    ]


# --- glob patterns --------------------------------------------------------------------------

GLOB_CASES = [
    # (pattern, channel, matches)
    ("h?llo", "hello", True),
    ("h?llo", "hllo", False),
    ("h?llo", "heello", False),
    ("h*llo", "hllo", True),
    ("h*llo", "heeello", True),
    ("h[ae]llo", "hallo", True),
    ("h[ae]llo", "hillo", False),
    ("h[a-b]llo", "hbllo", True),
    ("h[a-b]llo", "hcllo", False),
    ("h[b-a]z", "haz", True),       # a reversed range is still a range
    ("h[b-a]z", "hcz", False),
    ("h[^e]llo", "hallo", True),
    ("h[^e]llo", "hello", False),
    ("[^a-c]", "z", True),
    ("[^a-c]", "b", False),
    ("x\\*y", "x*y", True),          # \* is a literal star
    ("x\\*y", "xay", False),
    ("a\\?", "a?", True),
    ("a\\?", "ab", False),
    ("h[\\]]", "h]", True),          # escaped ] inside a class
    ("h[ae]*o", "haeo", True),
    ("*", "", False),               # Redis quirk: the glob never matches an empty channel
    ("*.it", "news.it", True),
    ("news.*", "news", False),
    ("news*", "news", True),         # a trailing star matches nothing
    ("ab[", "ab[", False),           # an unterminated class never matches
]


@pytest.mark.parametrize("pattern,channel,matches", GLOB_CASES)
def test_pattern_matching(shared_connect, pattern, channel, matches):
    sub = shared_connect()
    sub.call("psubscribe", pattern)
    pub = shared_connect()
    assert pub.call("publish", channel, "m") == (1 if matches else 0)
    if matches:
        assert sub.read_frame() == pmessage(pattern, channel, "m")
    assert sub.nothing_pending(0.03)


def test_pubsub_channels_pattern_uses_the_same_glob(connect):
    s, q = connect(), connect()
    s.send("subscribe", "hello", "hallo", "hxllo", "x*y")
    for _ in range(4):
        s.read()
    assert sorted(q.call("pubsub", "channels", "h[^e]llo")) == [b"hallo", b"hxllo"]
    assert q.call("pubsub", "channels", "x\\*y") == [b"x*y"]
    assert sorted(q.call("pubsub", "channels", "h?llo")) == [b"hallo", b"hello", b"hxllo"]


# --- output buffer limit --------------------------------------------------------------------

def test_slow_subscriber_is_disconnected_others_keep_receiving(connect):
    admin = connect()
    assert admin.call("config", "set", "client-output-buffer-limit", "pubsub 256kb 0 0") == Status("OK")
    assert admin.call("config", "get", "client-output-buffer-limit") == [
        b"client-output-buffer-limit",
        b"normal 0 0 0 slave 268435456 67108864 60 pubsub 262144 0 0"]
    slow = connect(rcvbuf=4096)          # never reads: its output buffer grows on the server
    slow.call("subscribe", "ch")
    fast = connect()
    fast.call("subscribe", "ch")

    payload = b"x" * 8000
    frame = message("ch", payload)
    received = bytearray()
    counts = []
    pub = connect()
    # About 12 MB in total: more than the kernel buffers can hide, so the slow
    # client's output buffer passes 256 KB and the server drops it.
    for _ in range(1500):
        pub.send("publish", "ch", payload)
        counts.append(pub.read())
        while not fast.nothing_pending(0):
            received += fast.buf
            fast.buf.clear()
    assert counts[0] == 2
    assert counts[-1] == 1
    drop = counts.index(1)
    assert all(c == 2 for c in counts[:drop]) and all(c == 1 for c in counts[drop:])

    assert pub.call("pubsub", "numsub", "ch") == [b"ch", 1]
    # The fast subscriber got every message, in order, uncorrupted.
    deadline = time.time() + 10
    while len(received) < 1500 * len(frame) and time.time() < deadline:
        if not fast.nothing_pending(0.2):
            received += fast.buf
            fast.buf.clear()
    assert bytes(received) == frame * 1500
    # The slow one is closed once it drains what the kernel already holds.
    slow.wait_closed(timeout=10)


# --- sharded pub/sub (SSUBSCRIBE / SUNSUBSCRIBE / SPUBLISH) --------------------
# Without cluster every shard channel lives on this server: a namespace of its
# own, with its own subscription count and "smessage" messages.

def test_shard_subscribe_counts_only_shard_channels(connect):
    sub = connect()
    assert sub.call_frame("subscribe", "x") == confirmation("subscribe", "x", 1)
    sub.send("ssubscribe", "ch", "ch2", "ch")
    assert [sub.read_frame() for _ in range(3)] == [
        confirmation("ssubscribe", "ch", 1), confirmation("ssubscribe", "ch2", 2),
        confirmation("ssubscribe", "ch", 2)]
    pub = connect()
    assert pub.call("spublish", "ch", "hello") == 1
    assert pub.call("publish", "ch", "hi") == 0  # plain channels are another namespace
    assert sub.read_frame() == b"*3\r\n" + bulk("smessage") + bulk("ch") + bulk("hello")
    assert sub.nothing_pending()
    assert sorted(pub.call("pubsub", "shardchannels")) == [b"ch", b"ch2"]
    assert pub.call("pubsub", "shardchannels", "ch?") == [b"ch2"]
    assert pub.call("pubsub", "shardnumsub", "ch", "nosuch") == [b"ch", 1, b"nosuch", 0]
    assert pub.call("pubsub", "channels") == [b"x"]
    clients = pub.call("client", "list").decode()
    assert " sub=1 psub=0 ssub=2 " in clients
    assert "pubsubshard_channels:2" in pub.call("info", "stats").decode()


def test_shard_unsubscribe_and_subscribed_mode(connect):
    sub = connect()
    sub.send("subscribe", "x")
    sub.send("ssubscribe", "ch", "ch2")
    assert [sub.read_frame() for _ in range(3)][-1] == confirmation("ssubscribe", "ch2", 2)
    sub.send("sunsubscribe", "ch")
    assert sub.read_frame() == confirmation("sunsubscribe", "ch", 1)
    sub.send("sunsubscribe")
    assert sub.read_frame() == confirmation("sunsubscribe", "ch2", 0)
    sub.send("sunsubscribe")
    assert sub.read_frame() == b"*3\r\n" + bulk("sunsubscribe") + b"$-1\r\n:0\r\n"
    assert sub.call_frame("ping") == b"*2\r\n$4\r\npong\r\n$0\r\n\r\n"  # still subscribed to x
    assert sub.call_frame("unsubscribe") == confirmation("unsubscribe", "x", 0)
    assert sub.call("ping") == Status("PONG")


def test_shard_only_subscriber_is_in_subscribed_mode(connect):
    sub = connect()
    assert sub.call_frame("ssubscribe", "s") == confirmation("ssubscribe", "s", 1)
    assert sub.call("get", "k") == Error(SUBSCRIBED_ONLY % "get")
    assert sub.call_frame("sunsubscribe", "nosuch") == confirmation("sunsubscribe", "nosuch", 1)
    assert sub.call("reset") == Status("RESET")
    assert connect().call("pubsub", "shardnumsub", "s") == [b"s", 0]


def test_shard_commands_resp3_multi_and_scripts(connect):
    c = connect()
    c.call("hello", "3")
    assert c.call_frame("ssubscribe", "z") == b">3\r\n" + bulk("ssubscribe") + bulk("z") + b":1\r\n"
    c.send("spublish", "z", "m")
    assert c.read_frame() == b">3\r\n" + bulk("smessage") + bulk("z") + bulk("m")
    assert c.read() == 1
    d = connect()
    assert d.call("sunsubscribe") == [b"sunsubscribe", None, 0]
    assert d.call("multi") == Status("OK")
    assert d.call("ssubscribe", "q") == Status("QUEUED")
    assert d.call("exec") == [Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")]
    assert d.call("eval", "return redis.call('spublish', 'z', 'from lua')", "0") == 1
    assert c.read_frame() == b">3\r\n" + bulk("smessage") + bulk("z") + bulk("from lua")


def test_soft_limit_closes_an_idle_subscriber_once_its_time_is_up(connect):
    """Over the soft limit and then no more traffic: the client is still
    closed when the soft limit's seconds have passed (7.0 checks it from cron)."""
    admin = connect()
    assert admin.call("config", "set", "client-output-buffer-limit", "pubsub 0 100000 1") == Status("OK")
    slow = connect(rcvbuf=4096)  # never reads
    slow.call("client", "setname", "slow")
    slow.call("subscribe", "foo")
    pub = connect()

    def omem():
        line = [l for l in pub.call("client", "list").decode().splitlines() if "name=slow" in l]
        return int(line[0].split(" omem=")[1].split(" ")[0]) if line else None
    while (omem() or 0) <= 100000:
        pub.call("publish", "foo", "x" * 1000)
    # traffic stops here; within the soft limit's second (plus cron) it goes
    wait_for(lambda: omem() is None, timeout=4)
    assert omem() is None
