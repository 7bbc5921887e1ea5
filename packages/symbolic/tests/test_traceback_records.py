"""``traceback.FrameSummary``, a record of a frame's place, is traced like any class (after test_traceback's
TestFrame): making one, reading its fields and the line it was given, comparing and unpacking it were graph
breaks ("traceback does I/O or keeps process state"). The rest of ``traceback`` still runs as ordinary Python
between graphs; a summary's line read from its file goes through linecache (a break at its ``os.stat`` on a
first read)."""

import traceback

import pytest
import torch
from harness import check


def frame_summary_fields(x):
    y = x + 1
    fs = traceback.FrameSummary("file.py", 12, "fn", line="  a = 1  ")
    filename, lineno, name, line = fs
    same = fs == traceback.FrameSummary("file.py", 12, "fn", line="a = 1")
    return y + fs.lineno + len(fs.line) + len(fs), (filename, lineno, name, line, same, fs[2])


def test_frame_summary_is_traced():
    check(frame_summary_fields, torch.arange(3.0))


def frame_summary_line_from_file(x):
    y = x + 1
    fs = traceback.FrameSummary(__file__, 1, "mod")
    return y + len(fs.line), fs.line


def format_exception_only(x):
    y = x * 2
    lines = traceback.format_exception_only(KeyError, KeyError("k"))
    return y + len(lines), lines


def test_traceback_io_still_breaks_and_stays_right():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    for fn in (frame_summary_line_from_file, format_exception_only):
        expected = fn(torch.arange(3.0))
        loom.reset()
        actual = loom.compile(fn, backend="eager", options={"strict": True})(torch.arange(3.0))
        assert torch.equal(actual[0], expected[0]) and actual[1] == expected[1]
        assert loom.stats()["graph_breaks"] >= (fn is format_exception_only)
