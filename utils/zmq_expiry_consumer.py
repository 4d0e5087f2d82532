#!/usr/bin/python3
"""zmq_expiry_consumer.py: an example consumer of the server's 0MQ expiry
push in acknowledged mode (`zmq-expiry-ack yes`), for users to copy and
adapt. It stores each expired key as one JSON line (stdout, or appended to a
file with -o) and acknowledges it only once it is stored, so that a key is
never lost if this program dies: the server sends again what was not
acknowledged, and this program skips what it has stored already.

Usage: zmq_expiry_consumer.py [-n COUNT] [-w WINDOW] [-o FILE] ENDPOINT...
Needs pyzmq (Debian: python3-zmq). The protocol is in EXPIRY_0MQ.md.
"""
import argparse
import collections
import json
import os
import struct
import sys

import zmq

TYPES = {0: "string", 1: "hash", 2: "list", 3: "set", 4: "zset"}
# Remember the newest 2**20 sequence numbers stored: more than the largest
# window, and a re-sent message is always one not yet acknowledged.
SEEN_MAX = 1 << 20


def text(b):
    """Keys and values are bytes; JSON wants text (non-UTF-8 bytes as \\xHH)."""
    return b.decode("utf-8", "backslashreplace")


def strings(buf):
    """Splits `buf` into length-prefixed strings (uint32 length, host order)."""
    out, pos = [], 0
    while pos < len(buf):
        (n,) = struct.unpack_from("=I", buf, pos)
        if pos + 4 + n > len(buf):
            raise ValueError("a length runs past the frame")
        out.append(buf[pos + 4:pos + 4 + n])
        pos += 4 + n
    return out


def decode(header, keyframe, valueframe):
    """The three frames of a message -> a dict to store."""
    db, typ = struct.unpack("=HH", header)
    (key,) = strings(keyframe)
    record = {"db": db, "type": TYPES.get(typ, "unknown(%d)" % typ), "key": text(key)}
    if typ == 0:
        (value,) = strings(valueframe)
        record["value"] = text(value)
    elif typ in (1, 4):  # hash, zset: a count, then field/value (member/score) pairs
        items = strings(valueframe[4:])
        if struct.unpack_from("=I", valueframe)[0] != len(items) or len(items) % 2:
            raise ValueError("bad item count")
        record["value"] = {text(f): text(v) for f, v in zip(items[0::2], items[1::2])}
    elif typ in (2, 3):  # list, set: a count, then the elements
        items = strings(valueframe[4:])
        if struct.unpack_from("=I", valueframe)[0] != len(items):
            raise ValueError("bad item count")
        record["value"] = [text(e) for e in items]
    else:  # a type this program does not know: keep the raw frame
        record["raw"] = valueframe.hex()
    return record


def window(arg):
    if not 1 <= int(arg) <= 1000000:
        raise ValueError(arg)
    return int(arg)


def main():
    p = argparse.ArgumentParser(description="Stores the server's expired keys, acknowledged.")
    p.add_argument("-n", type=int, default=-1, help="exit after COUNT keys stored")
    p.add_argument("-w", type=window, default=1000, metavar="WINDOW",
                   help="messages the server may send ahead of our acks, 1..1000000 (default 1000)")
    p.add_argument("-o", metavar="FILE", help="append to FILE instead of printing")
    p.add_argument("endpoints", nargs="+")
    args = p.parse_args()
    store = open(args.o, "a") if args.o else sys.stdout

    sock = zmq.Context().socket(zmq.DEALER)
    for e in args.endpoints:
        sock.connect(e)

    def send_each(msg):
        # A DEALER deals messages round-robin over its connections: one copy
        # per endpoint reaches every endpoint.
        for _ in args.endpoints:
            sock.send_string(msg)

    send_each("READY %d" % args.w)
    seen, seen_order = set(), collections.deque()
    stored, last_seq = 0, None
    while stored != args.n:
        if not sock.poll(1000):
            send_each("READY %d" % args.w)  # idle: tells a restarted server our window
            continue
        # Take everything waiting, store it, then acknowledge the batch.
        while stored != args.n and sock.poll(0):
            msg = sock.recv_multipart()
            try:
                if len(msg) != 4 or len(msg[3]) != 8:
                    raise ValueError("expected 4 frames, the last of 8 bytes")
                (seq,) = struct.unpack("=Q", msg[3])
                record = None if seq in seen else decode(*msg[:3])
            except (ValueError, struct.error) as e:
                print("malformed message (%s)" % e, file=sys.stderr)
                continue  # never acknowledged
            if record is not None:  # not a re-send of something stored already
                store.write(json.dumps(dict(record, seq=seq)) + "\n")
                seen.add(seq)
                seen_order.append(seq)
                if len(seen_order) > SEEN_MAX:
                    seen.discard(seen_order.popleft())
                stored += 1
            last_seq = seq
        if last_seq is not None:
            store.flush()  # stored first, acknowledged after
            if args.o:
                os.fsync(store.fileno())  # on disk, should the machine fail
            send_each("ACK %d" % last_seq)
            last_seq = None
    sock.close(linger=2000)  # time to deliver the last ACK


if __name__ == "__main__":
    main()
