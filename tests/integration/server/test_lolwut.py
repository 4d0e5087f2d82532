"""LOLWUT as Redis 7.0 answers it. The pictures are random, so the tests
check what is fixed: the version line, each picture's size for given
arguments (and how arguments are clamped), its characters (Braille for
VERSION 5, four ANSI grays for VERSION 6), the captions and the errors."""
import re

import pytest
import redis

VERSION_LINE = "Redis ver. 7.0.15\n"
SCHOTTER = "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n"
SKYLINE = ("Dedicated to the 8 bit game developers of past and present.\n"
           "Original 8 bit image from Plaguemon by hikikomori. Redis ver. 7.0.15\n")
PIXEL = re.compile(r"\x1b\[0;(97;107|37;47|90;100|30;40)m \x1b\[0m")


def lolwut(rd, *args):
    return rd.execute_command("LOLWUT", *args)


def test_without_a_known_version_only_the_version_line(rd):
    assert lolwut(rd) == VERSION_LINE
    assert lolwut(rd, 1, 2, 3) == VERSION_LINE  # arguments without VERSION are ignored
    for v in (0, -1, 4, 7, 9, 59, 5000000000):
        assert lolwut(rd, "VERSION", v) == VERSION_LINE
    assert lolwut(rd, "version") == VERSION_LINE  # VERSION without a value is no option


@pytest.mark.parametrize("args,rows,cols", [
    ((), 49, 66),               # defaults: 66 columns, 8 squares per row, 12 per column
    ((66, 8, 12), 49, 66),
    ((66, 2, 1), 17, 66),
    ((66, 1, 2), 65, 66),
    ((10, 2, 2), 5, 10),
    ((40, 3, 2), 14, 40),
    ((1, 1, 1), 1, 1),
    ((-5, -5, -5), 1, 1),       # clamped to 1
    ((66, 0, 0), 33, 66),
    ((66, 500, 500), 33, 66),   # squares clamped to 200
    ((2000, 1, 1), 500, 1000),  # columns clamped to 1000
])
def test_version_5_schotter_sizes(rd, args, rows, cols):
    out = lolwut(rd, "VERSION", 5, *args)
    assert out.endswith(SCHOTTER)
    picture = out[:-len(SCHOTTER)].split("\n")
    assert picture[-1] == ""
    lines = picture[:-1]
    assert len(lines) == rows
    for line in lines:
        assert len(line) == cols
        assert all(0x2800 <= ord(ch) <= 0x28FF for ch in line)


def test_version_5_draws_and_changes(rd):
    a = lolwut(rd, "VERSION", 5)
    assert any(ch != "\u2800" for ch in a[:-len(SCHOTTER)] if ch != "\n")
    assert any(lolwut(rd, "VERSION", 5) != a for _ in range(5))  # random below the second row


@pytest.mark.parametrize("args,rows,cols", [
    ((), 20, 80),
    ((10, 3), 3, 10),
    ((0, 0), 1, 1),
    ((2000, 2), 2, 1000),
    ((3, 2000), 1000, 3),
])
def test_version_6_skyline_sizes(rd, args, rows, cols):
    out = lolwut(rd, "VERSION", 6, *args)
    assert out.endswith(SKYLINE)
    lines = out[:-len(SKYLINE)].split("\n")
    assert lines[-1] == ""
    lines = lines[:-1]
    assert len(lines) == rows
    for line in lines:
        assert PIXEL.sub("", line) == ""
        assert len(PIXEL.findall(line)) == cols


def test_version_is_read_as_redis_reads_it(rd):
    # a 64-bit value taken as a 32-bit major version: 2^32 + 5 is 5
    assert lolwut(rd, "VERSION", 4294967301, 3, 1, 1).endswith(SCHOTTER)
    assert lolwut(rd, "version", 6, 2, 1).endswith(SKYLINE)


def test_errors(rd):
    for args in (("VERSION", "x"), ("VERSION", 5, "a"), ("VERSION", 5, 1, 1, "b"), ("VERSION", 6, 1, "b"),
                 ("VERSION", "99999999999999999999")):
        with pytest.raises(redis.ResponseError, match="^value is not an integer or out of range$"):
            lolwut(rd, *args)


def test_resp3_verbatim_reply(server):
    import socket
    with socket.create_connection((server.host, server.port)) as s:
        s.sendall(b"HELLO 3\r\nLOLWUT\r\n")
        data = b""
        while not data.endswith(b"=22\r\ntxt:Redis ver. 7.0.15\n\r\n"):
            chunk = s.recv(65536)
            assert chunk, data
            data += chunk
