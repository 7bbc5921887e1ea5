"""An attribute read in method position that the translator cannot model, on a value whose attribute
lookup runs no Python (a builtin object, an exception raised while tracing), breaks the graph at the
call: the read itself (``LOAD_METHOD``) cannot be split, so before, the whole frame ran uncompiled."""

from __future__ import annotations

import torch

import loom


def setstate_in_a_handler(x):
    y = x + 1
    try:
        raise RuntimeError("r")
    except RuntimeError as exc:
        exc.__setstate__({"note": "n"})  # not modelled: the read waits for the call, which breaks
        seen = exc.args, exc.note
    return y * 2, seen


def _run_compiled() -> dict:
    loom.reset()
    x = torch.ones(3)
    out = loom.compile(setstate_in_a_handler, backend="eager")(x)
    expected = setstate_in_a_handler(x)
    torch.testing.assert_close(out[0], expected[0])
    assert out[1] == expected[1]
    return loom.stats()


def test_the_answer_is_eager_s():
    stats = _run_compiled()
    assert stats["graph_breaks"] == 1, stats


def test_the_frame_is_split_at_the_call():
    stats = _run_compiled()
    assert stats["graphs"] >= 1 and stats["graph_breaks"] == 1, stats
