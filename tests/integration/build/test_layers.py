"""Dependencies point one way (DESIGN.md): tests/check_layers.sh fails on an
#include of a header from a layer above the including file's. No server."""
import os
import subprocess

from support import ROOT

SCRIPT = os.path.join(ROOT, "tests", "check_layers.sh")


def run(src):
    return subprocess.run(["sh", SCRIPT, src], capture_output=True, text=True)


def test_tree_has_no_upward_include():
    res = run(os.path.join(ROOT, "src"))
    assert res.returncode == 0, res.stdout + res.stderr


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def test_upward_includes_are_reported(tmp_path):
    src = str(tmp_path)
    write(os.path.join(src, "core", "a.c"), '#include "core/a.h"\n')
    write(os.path.join(src, "data", "b.c"), '#include "core/a.h"\n#include "server/server.h"\n')
    write(os.path.join(src, "server", "c.c"), '#include "data/b.h"\n  #  include "features/notify.h"\n')
    write(os.path.join(src, "server", "d.h"), '#include "persist/aof.h"\n#include "repl/repl.h"\n')
    write(os.path.join(src, "features", "e.c"), '#include "server/db.h"\n#include "persist/aof.h"\n')
    res = run(src)
    assert res.returncode == 1
    lines = sorted(res.stdout.splitlines())
    assert len(lines) == 4, res.stdout
    assert "data/b.c:2: server/server.h" in lines[0]
    assert "server/c.c:2: features/notify.h" in lines[1]
    assert "server/d.h:1: persist/aof.h" in lines[2]
    assert "server/d.h:2: repl/repl.h" in lines[3]


def test_clean_tree_passes(tmp_path):
    src = str(tmp_path)
    write(os.path.join(src, "server", "c.c"), '#include "core/dict.h"\n#include "data/object.h"\n#include <stdio.h>\n')
    write(os.path.join(src, "main.c"), '#include "features/notify.h"\n')
    assert run(src).returncode == 0
