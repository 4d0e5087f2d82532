#!/usr/bin/python3
"""include_graph: the room-to-room #include counts of src/, as evidence that
dependencies point one way (ARCHITECTURE.md). The order of the rooms is
tests/check_layers.sh's ORDER, that of server/'s modules its SERVER_ORDER
(one place for each); main.c counts as the room above all. Prints a matrix
(row includes column), then the upward includes (a room including one above
it; a server/ file including a module after its own: there should be none)
and exits 1 if any.

  usage: utils/include_graph.py [--files]   (--files: also each upward include's file and line)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layers_variable(name):
    """A variable of tests/check_layers.sh (NAME="..." over one or more lines), split."""
    with open(os.path.join(ROOT, "tests", "check_layers.sh")) as f:
        m = re.search(r'^%s="([^"]*)"' % name, f.read(), re.M)
    if not m:
        raise SystemExit("include_graph: no %s in tests/check_layers.sh" % name)
    return m.group(1).split()


def room_order():
    return layers_variable("ORDER") + ["main.c"]


def server_upward():
    """server/ files' includes of a server/ module after their own in SERVER_ORDER."""
    rank = {}
    for i, token in enumerate(layers_variable("SERVER_ORDER")):
        for mod in token.split("+"):
            rank[mod] = i
    found = []
    sdir = os.path.join(SRC, "server")
    for name in sorted(os.listdir(sdir)):
        if not name.endswith((".c", ".h")):
            continue
        mine = rank.get(os.path.splitext(name)[0], -1)
        with open(os.path.join(sdir, name), errors="replace") as f:
            for n, text in enumerate(f, 1):
                m = INCLUDE.match(text)
                if m and m.group(1).startswith("server/"):
                    target = os.path.splitext(m.group(1)[len("server/"):])[0]
                    if rank.get(target, len(rank)) > mine:
                        found.append(("server/" + name, n, m.group(1)))
    return found


def edges():
    """(from room, to room, file, line) for every include of another room's header."""
    for dirpath, _, files in os.walk(SRC):
        for name in sorted(files):
            if not name.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, SRC)
            room = rel.split(os.sep)[0] if os.sep in rel else rel
            with open(path, errors="replace") as f:
                for n, text in enumerate(f, 1):
                    m = INCLUDE.match(text)
                    if m and "/" in m.group(1):
                        target = m.group(1).split("/")[0]
                        if target != room:
                            yield room, target, rel, n


def main():
    order = room_order()
    rank = {r: i for i, r in enumerate(order)}
    counts, upward = {}, []
    for src, dst, rel, n in edges():
        counts[(src, dst)] = counts.get((src, dst), 0) + 1
        if rank.get(dst, len(order)) >= rank.get(src, len(order)):
            upward.append((src, dst, rel, n))
    width = max(len(r) for r in order) + 1
    print("includes of another room's headers (row includes column); rooms bottom to top")
    print(" " * width + "".join("%9s" % r[:8] for r in order))
    for src in order:
        print("%-*s" % (width, src) + "".join("%9s" % (counts.get((src, dst)) or ".") for dst in order))
    print("upward includes: %d" % len(upward))
    if "--files" in sys.argv:
        for src, dst, rel, n in upward:
            print("  %s:%d includes %s/, a room above %s/" % (rel, n, dst, src))
    inner = server_upward()
    print("server/'s own layers (SERVER_ORDER): %d upward includes" % len(inner))
    if "--files" in sys.argv:
        for name, n, target in inner:
            print("  %s:%d includes %s" % (name, n, target))
    return 1 if upward or inner else 0


if __name__ == "__main__":
    sys.exit(main())
