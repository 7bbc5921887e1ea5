"""``sys.exc_info()`` read outside every handler of the compiled frame answers the exception its caller
handles: ``None`` is answered while tracing under a guard, so a call from inside an ``except`` block
compiles again (and there the read stays a graph break) rather than reuse the ``None``."""

from __future__ import annotations

import sys

import torch

import loom


def reads_handled(x):
    return x + 1, sys.exc_info()[0], sys.exception()


def test_answer_follows_the_callers_handler():
    loom.reset()
    compiled = loom.compile(reads_handled, backend="eager")
    x = torch.ones(3)
    plain = compiled(x)
    assert plain[1:] == (None, None)
    assert loom.stats()["graph_breaks"] == 0
    try:
        raise KeyError("k")
    except KeyError as exc:
        inside = compiled(x)
        assert inside[1] is KeyError and inside[2] is exc
    again = compiled(x)
    assert again[1:] == (None, None)
    torch.testing.assert_close(again[0], x + 1)
