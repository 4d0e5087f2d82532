"""Dependencies point one way (ARCHITECTURE.md): tests/check_layers.sh fails on
an #include of a header from a room above the including file's, or, inside
server/, from a module after its own in SERVER_ORDER; utils/include_graph.py
prints the counts and finds none upward. No server."""
import os
import subprocess

from support import ROOT

SCRIPT = os.path.join(ROOT, "tests", "check_layers.sh")


def run(src):
    return subprocess.run(["sh", SCRIPT, src], capture_output=True, text=True)


def test_tree_has_no_upward_include():
    res = run(os.path.join(ROOT, "src"))
    assert res.returncode == 0, res.stdout + res.stderr


def tree(tmp_path, files):
    """A made-up src/ under tmp_path: {path: text}. Returns its directory."""
    src = str(tmp_path)
    for path, text in files.items():
        full = os.path.join(src, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return src


def reported(src):
    """check_layers.sh's lines for a tree it must refuse, sorted."""
    res = run(src)
    assert res.returncode == 1, res.stdout + res.stderr
    return sorted(res.stdout.splitlines())


def test_upward_includes_are_reported(tmp_path):
    lines = reported(tree(tmp_path, {
        "core/a.c": '#include "core/a.h"\n',
        "data/b.c": '#include "core/a.h"\n#include "server/server.h"\n',
        "server/db.c": '#include "data/b.h"\n  #  include "features/notify.h"\n',
        "server/reply.h": '#include "persist/aof.h"\n#include "repl/repl.h"\n',
        "features/e.c": '#include "server/db.h"\n#include "persist/aof.h"\n',
    }))
    assert len(lines) == 4, lines
    assert "data/b.c:2: server/server.h" in lines[0]
    assert "server/db.c:2: features/notify.h" in lines[1]
    assert "server/reply.h:1: persist/aof.h" in lines[2]
    assert "server/reply.h:2: repl/repl.h" in lines[3]


def test_the_upper_rooms_have_an_order(tmp_path):
    """persist below repl below features below commands: a lower one including a higher one is reported."""
    lines = reported(tree(tmp_path, {
        "persist/rdb.c": '#include "features/functions.h"\n#include "server/db.h"\n',
        "repl/master.c": '#include "commands/cmdargs.h"\n#include "persist/rdb.h"\n',
        "features/info.c": '#include "repl/repl.h"\n#include "acl/acl.h"\n',
        "commands/keys.c": '#include "features/info.h"\n#include "persist/rdb.h"\n',
    }))
    assert len(lines) == 2, lines
    assert "persist/rdb.c:1: features/functions.h" in lines[0]
    assert "repl/master.c:1: commands/cmdargs.h" in lines[1]


def test_server_files_are_layered(tmp_path):
    """Inside server/, a module may include those before it in SERVER_ORDER, and
    its own group's (db+expire), never one after it."""
    lines = reported(tree(tmp_path, {
        "server/reply.c": '#include "server/dispatch.h"\n#include "server/shared.h"\n',
        "server/db.c": '#include "server/expire.h"\n#include "server/blocking.h"\n',
        "server/expire.c": '#include "server/db.h"\n',
        "server/lifecycle.c": '#include "server/dispatch.h"\n#include "server/server.h"\n',
    }))
    assert len(lines) == 2, lines
    assert "server/db.c:2: server/blocking.h" in lines[0]
    assert "server/reply.c:1: server/dispatch.h" in lines[1]


def test_unknown_rooms_and_modules_are_reported(tmp_path):
    lines = reported(tree(tmp_path, {
        "sharding/bus.c": '#include "server/server.h"\n',
        "server/newthing.c": '#include "server/server.h"\n',
    }))
    assert any("unknown room: src/sharding" in line for line in lines), lines
    assert any("unknown server/ module: server/newthing.c" in line for line in lines), lines


def test_clean_tree_passes(tmp_path):
    assert run(tree(tmp_path, {
        "server/db.c": '#include "core/dict.h"\n#include "data/object.h"\n#include <stdio.h>\n',
        "repl/master.c": '#include "persist/rdb.h"\n#include "acl/acl.h"\n',
        "main.c": '#include "features/notify.h"\n',
    })).returncode == 0


def test_include_graph_finds_nothing_upward():
    res = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "utils", "include_graph.py"), "--files"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "upward includes: 0" in res.stdout
    assert "server/'s own layers (SERVER_ORDER): 0 upward includes" in res.stdout
