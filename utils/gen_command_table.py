#!/usr/bin/python3
"""Generates src/commands/commands.def from a running Redis 7.0 reference server.

The command table is declarative data: name, arity, flags, key positions and
group drive our behaviour; the descriptive parts (ACL categories, tips, key
specs, COMMAND DOCS) are kept as ready RESP2 fragments so COMMAND INFO and
COMMAND DOCS answer as Redis 7.0 does (redis-cli builds its hints from them).

A command whose proc (fooBarCommand for "foo|bar") no source file under src/
defines is written with NOPROC: it is treated as unknown. Regenerate after
implementing one.

usage: utils/gen_command_table.py PORT > src/commands/commands.def
"""
import glob
import os
import re
import socket
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def implemented_procs():
    """Names of the command procs defined in src/ (void fooCommand(client *c) {)."""
    found = set()
    for path in glob.glob(os.path.join(SRC, "**", "*.c"), recursive=True):
        with open(path, encoding="utf-8", errors="replace") as f:
            found.update(re.findall(r"^void (\w+Command)\(client \*c\) \{", f.read(), re.M))
    return found


class Node:
    """A parsed RESP2 value that remembers its exact bytes."""

    def __init__(self, value, raw):
        self.value, self.raw = value, raw

    def __getitem__(self, i):
        return self.value[i]

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return iter(self.value)


def parse(buf, pos=0):
    end = buf.index(b"\r\n", pos)
    kind, line = buf[pos:pos + 1], buf[pos + 1:end]
    nxt = end + 2
    if kind in (b"+", b"-"):
        return Node(line, buf[pos:nxt]), nxt
    if kind == b":":
        return Node(int(line), buf[pos:nxt]), nxt
    if kind == b"$":
        n = int(line)
        if n < 0:
            return Node(None, buf[pos:nxt]), nxt
        return Node(buf[nxt:nxt + n], buf[pos:nxt + n + 2]), nxt + n + 2
    if kind == b"*":
        n = int(line)
        items = []
        for _ in range(max(n, 0)):
            item, nxt = parse(buf, nxt)
            items.append(item)
        return Node(items, buf[pos:nxt]), nxt
    raise ValueError(kind)


def query(port, *args):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
    buf = b""
    while True:
        buf += s.recv(1 << 20)
        try:
            node, _ = parse(buf)
            s.close()
            return node
        except (ValueError, IndexError):
            continue


def resp(nodes):
    return b"*%d\r\n" % len(nodes) + b"".join(n.raw for n in nodes)


def c_literal(b):
    out = []
    for ch in b:
        if ch == 0x22:
            out.append('\\"')
        elif ch == 0x5C:
            out.append("\\\\")
        elif ch == 0x0D:
            out.append("\\r")
        elif ch == 0x0A:
            out.append("\\n")
        elif 32 <= ch < 127:
            out.append(chr(ch))
        else:
            out.append("\\%03o" % ch)
    return '"' + "".join(out) + '"'


# Commands Redis runs with another command's proc: the alias's row names it.
PROC_ALIASES = {"psync": "sync", "slaveof": "replicaof"}


def proc_name(name):
    name = PROC_ALIASES.get(name, name)
    parts = name.replace("|", "-").replace("_", "-").split("-")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:]) + "Command"


def pairs(flat):
    return {flat[i].value.decode(): flat[i + 1] for i in range(0, len(flat), 2)}


def main():
    port = int(sys.argv[1])
    infos = query(port, b"COMMAND").value
    docs = pairs(query(port, b"COMMAND", b"DOCS").value)
    rows = []
    procs = implemented_procs()

    def emit(info, docmap, parent):
        name = info[0].value.decode()
        arity, first, last, step = info[1].value, info[3].value, info[4].value, info[5].value
        flags = [f.value for f in info[2]]
        extra = [info[6], info[7], info[8]]  # acl categories, tips, key specs
        d = pairs(docmap) if docmap else {}
        group = d["group"].value.decode() if "group" in d else "generic"
        subdocs = pairs(d["subcommands"]) if "subcommands" in d else {}
        docs_nosub = []
        for i in range(0, len(docmap or []), 2):
            if docmap[i].value != b"subcommands":
                docs_nosub += [docmap[i], docmap[i + 1]]
        fl = " ".join(f.decode() for f in flags)
        nsub = len(info[9]) if len(info) > 9 else 0
        rows.append('CMD(%s, %s, %d, "%s", %d, %d, %d, "%s", %d,\n    %s,\n    %s)' % (
            c_literal(name.encode()), proc_name(name) if proc_name(name) in procs else "NOPROC",
            arity, fl, first, last, step, group, nsub,
            c_literal(resp(extra)), c_literal(resp(docs_nosub))))
        for sub in sorted(info[9], key=lambda s: s[0].value):
            emit(sub, subdocs.get(sub[0].value.decode()), name)

    for info in sorted(infos, key=lambda i: i[0].value):
        emit(info, docs.get(info[0].value.decode()), None)
    print("/* commands.def: the command table, generated by utils/gen_command_table.py from Redis 7.0's own")
    print(" * COMMAND / COMMAND DOCS output so arities, flags, key positions and docs match the reference.")
    print(" * CMD(name, proc, arity, flags, firstkey, lastkey, keystep, group, subcommand count,")
    print(" *     RESP fragment [acl categories, tips, key specs], RESP fragment of the docs map).")
    print(" * Subcommands follow their container as \"container|sub\". A command no module implements has")
    print(" * NOPROC and is treated as unknown; every other proc must be defined (commands/table.c links")
    print(" * them by name, so a misspelt one fails the build). */")
    for row in rows:
        print(row)


main()
