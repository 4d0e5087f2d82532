"""ACL integration tests: users, passwords, command/key/channel rules,
selectors, the ACL command family, AUTH/HELLO with users, ACL LOG,
aclfile and `user` lines, and clients disconnected when their user goes.

Every expected reply and error text was taken from redis-server 7.0.15;
the tests pass against it too (REDIS_SERVER=... REFERENCE=1).
"""
import hashlib
import os

import pytest

from support import refuses_to_start
import redis


def err(fn, *args):
    # NOAUTH and WRONGPASS come as AuthenticationError, the others as ResponseError.
    with pytest.raises((redis.ResponseError, redis.AuthenticationError)) as e:
        fn(*args)
    return str(e.value)


def login(server, user, password="x"):
    c = server.client(decode_responses=True, single_connection_client=True)
    c.execute_command("AUTH", user, password)
    return c


def cmd(c, *args):
    reply = c.execute_command(*args)
    # redis-py turns some +OK replies into True: give back what the server sent.
    return "OK" if reply is True and args[0].upper() in ("AUTH", "SET") else reply


def getuser(c, name):
    reply = cmd(c, "ACL", "GETUSER", name)
    return dict(zip(reply[::2], reply[1::2])) if isinstance(reply, list) else reply


# --- users and passwords ----------------------------------------------------------------------

def test_default_user_and_whoami(rd):
    assert cmd(rd, "ACL", "WHOAMI") == "default"
    assert cmd(rd, "ACL", "LIST") == ["user default on nopass ~* &* +@all"]
    assert cmd(rd, "ACL", "USERS") == ["default"]


def test_new_user_starts_disabled_and_without_permissions(server, rd):
    assert cmd(rd, "ACL", "SETUSER", "u", ">p1") == "OK"
    assert "invalid username-password pair or user is disabled" in err(cmd, rd, "AUTH", "u", "p1")
    cmd(rd, "ACL", "SETUSER", "u", "on")
    c = login(server, "u", "p1")
    assert err(cmd, c, "GET", "k") == "this user has no permissions to run the 'get' command"
    assert cmd(rd, "ACL", "GETUSER", "nobody") is None


def test_passwords_are_hashed_added_and_removed(server, rd):
    cmd(rd, "ACL", "SETUSER", "u", "on", ">a", ">b", "+@all", "~*")
    hashes = getuser(rd, "u")["passwords"]
    assert hashes == [hashlib.sha256(b"a").hexdigest(), hashlib.sha256(b"b").hexdigest()]
    login(server, "u", "a")
    cmd(rd, "ACL", "SETUSER", "u", "<a")
    assert "invalid username-password pair" in err(login, server, "u", "a")
    login(server, "u", "b")
    cmd(rd, "ACL", "SETUSER", "u", "!" + hashlib.sha256(b"b").hexdigest(), "#" + hashlib.sha256(b"c").hexdigest())
    login(server, "u", "c")
    assert err(cmd, rd, "ACL", "SETUSER", "u", "#abc") == (
        "Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only "
        "lowercase hexadecimal characters")
    assert err(cmd, rd, "ACL", "SETUSER", "u", "<nope") == (
        "Error in ACL SETUSER modifier '<nope': The password you are trying to remove from the user does not exist")
    cmd(rd, "ACL", "SETUSER", "u", "nopass")
    login(server, "u", "anything")
    cmd(rd, "ACL", "SETUSER", "u", "resetpass")
    assert "invalid username-password pair" in err(login, server, "u", "anything")


def test_requirepass_is_the_default_users_password(server, rd):
    assert cmd(rd, "CONFIG", "SET", "requirepass", "secret") == "OK"
    assert cmd(rd, "ACL", "LIST") == [
        "user default on #%s ~* &* +@all" % hashlib.sha256(b"secret").hexdigest()]
    fresh = server.client(decode_responses=True)
    assert "Authentication required" in err(cmd, fresh, "GET", "k")
    assert cmd(fresh, "AUTH", "secret") == "OK"
    assert cmd(fresh, "AUTH", "default", "secret") == "OK"
    cmd(fresh, "CONFIG", "SET", "requirepass", "")
    assert cmd(fresh, "ACL", "LIST") == ["user default on nopass ~* &* +@all"]
    assert err(cmd, fresh, "AUTH", "x") == (
        "AUTH <password> called without any password configured for the default user. Are you sure your "
        "configuration is correct?")


def test_hello_auth_with_user(server, rd):
    cmd(rd, "ACL", "SETUSER", "u", "on", ">pw", "+@all", "~*")
    c = server.client(decode_responses=True)
    reply = cmd(c, "HELLO", "2", "AUTH", "u", "pw")
    assert reply[reply.index("proto") + 1] == 2
    assert cmd(c, "ACL", "WHOAMI") == "u"
    assert "invalid username-password pair" in err(cmd, c, "HELLO", "2", "AUTH", "u", "bad")
    assert "user=u " in cmd(c, "CLIENT", "INFO")


def test_usernames_cannot_have_spaces_and_default_cannot_go(rd):
    assert err(cmd, rd, "ACL", "SETUSER", "a b") == "Usernames can't contain spaces or null characters"
    assert err(cmd, rd, "ACL", "DELUSER", "default") == "The 'default' user cannot be removed"
    cmd(rd, "ACL", "SETUSER", "a")
    assert cmd(rd, "ACL", "DELUSER", "a", "b") == 1


# --- command rules ----------------------------------------------------------------------------

def test_command_and_category_rules(server, rd):
    cmd(rd, "ACL", "SETUSER", "u", "on", "nopass", "~*", "-@all", "+@set", "+acl")
    c = login(server, "u")
    assert cmd(c, "SADD", "s", "a") == 1
    assert err(cmd, c, "SET", "k", "v") == "this user has no permissions to run the 'set' command"
    cmd(rd, "ACL", "SETUSER", "u", "+@all", "-client|kill", "-select", "+select|0")
    # Single commands come in the order of the command table's hash: random, as in Redis.
    described = getuser(rd, "u")["commands"]
    assert described.startswith("+@all ") and "-select +select|0" in described and "-client|kill" in described
    assert isinstance(cmd(c, "CLIENT", "ID"), int)
    assert err(cmd, c, "CLIENT", "KILL", "TYPE", "master") == (
        "this user has no permissions to run the 'client|kill' command")
    assert cmd(c, "SELECT", "0") is True
    assert err(cmd, c, "SELECT", "1") == "this user has no permissions to run the 'select' command"


def test_command_rule_errors(rd):
    base = "Error in ACL SETUSER modifier '%s': %s"
    assert err(cmd, rd, "ACL", "SETUSER", "u", "+nosuch") == base % ("+nosuch", "Unknown command or category name in ACL")
    assert err(cmd, rd, "ACL", "SETUSER", "u", "+@nosuch") == base % ("+@nosuch", "Unknown command or category name in ACL")
    assert err(cmd, rd, "ACL", "SETUSER", "u", "+config|get|x") == base % (
        "+config|get|x", "Allowing first-arg of a subcommand is not supported")
    assert err(cmd, rd, "ACL", "SETUSER", "u", "bogus") == base % ("bogus", "Syntax error")
    # A failed SETUSER changes nothing: the user was not even created.
    assert cmd(rd, "ACL", "GETUSER", "u") is None


def test_rules_are_described_from_the_bitmap(rd):
    for rules, described in [(["+@all", "+client|id"], "+@all"), (["-@all", "+get", "-get"], "-@all"),
                             (["-@all", "+memory|doctor", "+memory"], "-@all +memory"),
                             (["+@all", "-@string", "+get"], "+@all -@string +get"),
                             (["-@all", "+@read", "+@read"], "-@all +@read"),
                             (["+@all", "-client", "+client|id"], "+@all -client +client|id")]:
        cmd(rd, "ACL", "SETUSER", "u", "reset", *rules)
        assert getuser(rd, "u")["commands"] == described


def test_acl_cat(rd):
    assert cmd(rd, "ACL", "CAT") == [
        "keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog", "geo",
        "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection", "transaction",
        "scripting"]
    assert "function|list" in cmd(rd, "ACL", "CAT", "scripting")
    assert "set" not in cmd(rd, "ACL", "CAT", "keyspace")
    assert err(cmd, rd, "ACL", "CAT", "nope") == "Unknown category 'nope'"


# --- keys, channels, selectors ----------------------------------------------------------------

def test_key_patterns_with_read_and_write_permissions(server, rd):
    cmd(rd, "ACL", "SETUSER", "u", "on", "nopass", "+@all", "%R~r*", "%W~w*", "~rw*")
    c = login(server, "u")
    noperm = "this user has no permissions to access one of the keys used as arguments"
    assert cmd(c, "GET", "rkey") is None
    assert err(cmd, c, "SET", "rkey", "v") == noperm
    assert cmd(c, "LPUSH", "wlist", "1") == 1
    assert err(cmd, c, "GET", "wkey") == noperm
    assert err(cmd, c, "SET", "wkey", "v", "GET") == noperm
    assert cmd(c, "SET", "rwkey", "v", "GET") is None
    assert err(cmd, c, "GET", "other") == noperm
    assert getuser(rd, "u")["keys"] == "%R~r* %W~w* ~rw*"
    cmd(rd, "ACL", "SETUSER", "v", "%R~foo", "%W~foo")
    assert getuser(rd, "v")["keys"] == "~foo"


def test_dryrun(rd):
    cmd(rd, "ACL", "SETUSER", "u", "+@all", "%R~read*", "%W~write*", "resetchannels", "&chan")
    assert cmd(rd, "ACL", "DRYRUN", "u", "GET", "read") == "OK"
    assert cmd(rd, "ACL", "DRYRUN", "u", "SORT", "read", "STORE", "read") == (
        "This user has no permissions to access the 'read' key")
    assert cmd(rd, "ACL", "DRYRUN", "u", "EVAL", "", "1", "read") == (
        "This user has no permissions to access the 'read' key")
    assert cmd(rd, "ACL", "DRYRUN", "u", "PUBLISH", "other", "m") == (
        "This user has no permissions to access the 'other' channel")
    cmd(rd, "ACL", "SETUSER", "u", "-get")
    assert cmd(rd, "ACL", "DRYRUN", "u", "GET", "read") == "This user has no permissions to run the 'get' command"
    assert err(cmd, rd, "ACL", "DRYRUN", "nobody", "GET", "x") == "User 'nobody' not found"
    assert err(cmd, rd, "ACL", "DRYRUN", "u", "nocmd", "x") == "Command 'nocmd' not found"
    assert err(cmd, rd, "ACL", "DRYRUN", "u", "SET", "x") == "wrong number of arguments for 'set' command"


def test_selectors(server, rd):
    cmd(rd, "ACL", "SETUSER", "s", "on", "nopass", "-@all", "(+@write ~write::*)", "(+@read", "~read::*)")
    c = login(server, "s")
    assert cmd(c, "SET", "write::a", "1") == "OK"
    assert cmd(c, "GET", "read::a") is None
    assert "keys" in err(cmd, c, "GET", "write::a")
    user = getuser(rd, "s")
    assert [dict(zip(s[::2], s[1::2])) for s in user["selectors"]] == [
        {"commands": "-@all +@write", "keys": "~write::*", "channels": ""},
        {"commands": "-@all +@read", "keys": "~read::*", "channels": ""}]
    assert cmd(rd, "ACL", "LIST")[1] == (
        "user s on nopass resetchannels -@all (~write::* resetchannels -@all +@write) "
        "(~read::* resetchannels -@all +@read)")
    assert err(cmd, rd, "ACL", "SETUSER", "s", "(") == "Unmatched parenthesis in acl selector starting at '('."
    cmd(rd, "ACL", "SETUSER", "s", "clearselectors")
    assert getuser(rd, "s")["selectors"] == []


def test_channel_permissions(server, rd):
    cmd(rd, "ACL", "SETUSER", "p", "on", "nopass", "+@all", "~*", "resetchannels", "&news.*")
    c = login(server, "p")
    assert cmd(c, "PUBLISH", "news.x", "m") == 0
    assert err(cmd, c, "PUBLISH", "sport", "m") == (
        "this user has no permissions to access one of the channels used as arguments")
    # Channel patterns must be allowed literally.
    assert "channels" in err(cmd, c, "PSUBSCRIBE", "news.x*")


def test_subscriber_killed_when_channel_permission_revoked(server, rd):
    cmd(rd, "ACL", "SETUSER", "p", "on", "nopass", "+@all", "resetchannels", "&a", "&b")
    sub = login(server, "p")
    cmd(sub, "CLIENT", "SETNAME", "deathrow")
    assert cmd(sub, "SUBSCRIBE", "a") == ["subscribe", "a", 1]
    cmd(rd, "ACL", "SETUSER", "p", "resetchannels", "&a", "&c")
    assert "deathrow" in cmd(rd, "CLIENT", "LIST")
    cmd(rd, "ACL", "SETUSER", "p", "resetchannels", "&b")
    assert "deathrow" not in cmd(rd, "CLIENT", "LIST")


def test_sort_by_and_get_need_full_read_access(server, rd):
    cmd(rd, "RPUSH", "l", "1")
    cmd(rd, "ACL", "SETUSER", "s", "on", "nopass", "+sort", "~l")
    c = login(server, "s")
    assert err(cmd, c, "SORT", "l", "BY", "w*") == "BY option of SORT denied due to insufficient ACL permissions."
    assert err(cmd, c, "SORT", "l", "GET", "w*") == "GET option of SORT denied due to insufficient ACL permissions."
    cmd(rd, "ACL", "SETUSER", "s", "%R~*")
    assert cmd(c, "SORT", "l", "BY", "w*") == ["1"]


# --- MULTI, scripts, the log, disconnections --------------------------------------------------

def test_multi_and_scripts_are_checked_per_command(server, rd):
    cmd(rd, "ACL", "SETUSER", "m", "on", "nopass", "~*", "+multi", "+exec", "+incr", "+eval")
    c = login(server, "m")
    assert cmd(c, "MULTI") in ("OK", True)
    assert cmd(c, "INCR", "n") == "QUEUED"
    cmd(rd, "ACL", "SETUSER", "m", "-incr")
    res = cmd(c, "EXEC")
    assert str(res[0]) == (
        "ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is "
        "no longer allowed for the following reason: no permission to execute the command or subcommand")
    e = err(cmd, c, "EVAL", "return redis.call('incr','n')", "0")
    assert e.startswith("The user executing the script can't run this command or subcommand script:")
    log = cmd(rd, "ACL", "LOG")
    entries = [dict(zip(x[::2], x[1::2])) for x in log]
    assert [(x["context"], x["reason"], x["object"], x["username"]) for x in entries[:2]] == [
        ("lua", "command", "incr", "m"), ("multi", "command", "incr", "m")]
    assert list(entries[0]) == ["count", "reason", "context", "object", "username", "age-seconds", "client-info"]


def test_acl_log_auth_grouping_count_and_reset(server, rd):
    for _ in range(3):
        err(cmd, server.client(), "AUTH", "who", "bad")
    entries = cmd(rd, "ACL", "LOG")
    assert len(entries) == 1
    e = dict(zip(entries[0][::2], entries[0][1::2]))
    assert (e["count"], e["reason"], e["object"], e["username"]) == (3, "auth", "AUTH", "who")
    assert cmd(rd, "ACL", "LOG", "0") == []
    assert cmd(rd, "ACL", "LOG", "RESET") == "OK"
    assert cmd(rd, "ACL", "LOG") == []
    assert err(cmd, rd, "ACL", "LOG", "1", "2") == (
        "unknown subcommand or wrong number of arguments for 'LOG'. Try ACL HELP.")


def test_deleting_a_user_disconnects_its_clients(server, rd):
    cmd(rd, "ACL", "SETUSER", "d", "on", "nopass", "+@all")
    c = login(server, "d")
    other = login(server, "d")
    assert cmd(c, "ACL", "DELUSER", "d") == 1  # its own reply still arrives
    with pytest.raises(redis.ConnectionError):
        c.connection.send_command("PING")
        c.connection.read_response()
    with pytest.raises(redis.ConnectionError):
        other.connection.send_command("PING")
        other.connection.read_response()
    assert cmd(rd, "PING") is True


def test_client_kill_user(server, rd):
    cmd(rd, "ACL", "SETUSER", "k", "on", "nopass", "+@all")
    clients = [login(server, "k"), login(server, "k")]
    assert err(cmd, rd, "CLIENT", "KILL", "USER", "nobody") == "No such user 'nobody'"
    assert cmd(rd, "CLIENT", "KILL", "USER", "k") == 2
    assert "user=k" not in cmd(rd, "CLIENT", "LIST")
    for c in clients:
        c.close()


def test_genpass(rd):
    assert len(cmd(rd, "ACL", "GENPASS")) == 64
    assert len(cmd(rd, "ACL", "GENPASS", "5")) == 2
    # Random lowercase hex, new every call: 20 passwords of 256 bits, all different, every digit used.
    passwords = [cmd(rd, "ACL", "GENPASS") for _ in range(20)]
    assert len(set(passwords)) == 20
    assert set("".join(p.decode() if isinstance(p, bytes) else p for p in passwords)) == set("0123456789abcdef")
    assert len(cmd(rd, "ACL", "GENPASS", "4096")) == 1024
    assert err(cmd, rd, "ACL", "GENPASS", "5000") == (
        "ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")


# --- configuration: aclfile and user lines ----------------------------------------------------

def test_aclfile_load_and_save(server_factory, tmp_path):
    path = tmp_path / "users.acl"
    path.write_text("user alice on >alice ~* &* +@all\nuser default on nopass ~* &* +@all\n")
    s = server_factory("--aclfile", str(path))
    c = s.client(decode_responses=True)
    assert cmd(c, "ACL", "USERS") == ["alice", "default"]
    cmd(c, "ACL", "SETUSER", "bob", "on", "nopass", "+get")
    assert cmd(c, "ACL", "SAVE") == "OK"
    assert "user bob on nopass resetchannels -@all +get\n" in path.read_text()
    path.write_text(path.read_text() + "user bob on nopass\n")
    assert "Duplicate user 'bob' found" in err(cmd, c, "ACL", "LOAD")
    assert cmd(c, "ACL", "USERS") == ["alice", "bob", "default"]
    path.write_text("user carol on nopass +@all\n")
    assert cmd(c, "ACL", "LOAD") == "OK"
    assert cmd(c, "ACL", "USERS") == ["carol", "default"]


def test_user_lines_in_config_and_rewrite(server_factory):
    s = server_factory(config_text="user default on nopass ~* +@all -flushdb\nuser eve on >pw ~e* +get\n")
    c = s.client(decode_responses=True)
    assert err(cmd, c, "FLUSHDB") == "this user has no permissions to run the 'flushdb' command"
    # Users from the config start from `reset`; acl-pubsub-default gives no channels.
    assert "channels" in err(cmd, c, "PUBLISH", "ch", "m")
    assert cmd(c, "CONFIG", "GET", "user") == []
    cmd(c, "ACL", "SETUSER", "eve", "+set")
    assert cmd(c, "CONFIG", "REWRITE") == "OK"
    with open(os.path.join(s.dir, "redis.conf")) as f:
        text = f.read()
    assert "user default on nopass sanitize-payload ~* resetchannels +@all -flushdb" in text
    eve = [line for line in text.splitlines() if line.startswith("user eve ")]
    assert len(eve) == 1
    prefix = "user eve on #%s ~e* resetchannels -@all " % hashlib.sha256(b"pw").hexdigest()
    assert eve[0].startswith(prefix) and set(eve[0][len(prefix):].split()) == {"+get", "+set"}


def test_duplicate_user_lines_stop_startup(server_factory):
    e = refuses_to_start(lambda: server_factory("--user", "foo", "--user", "foo"))
    assert "Duplicate user" in str(e)
