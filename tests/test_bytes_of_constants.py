"""``bytes(...)`` of constants (a list or tuple of ints, a size, a string with its encoding, a shape) is folded as
the other immutable builtins' constructors are: one graph, where it was a break; its errors are eager's."""

from __future__ import annotations

import torch

import loom


def made_bytes(x):
    a = bytes([1, 2, 3])
    b = bytes((4, 5)) + bytes(2) + bytes("hé", "utf-8") + bytes(x.shape)
    return x + a[1] + sum(b) + len(b) + int.from_bytes(bytes([1, 0]), "big"), a.hex(), bytes([65, 66]).decode()


def out_of_range(x):
    try:
        bytes([256])
    except ValueError as exc:
        return x + 1, str(exc)
    return x, ""


def test_bytes_of_constants_fold_in_one_graph():
    x = torch.arange(3.0)
    for fn in (made_bytes, out_of_range):
        report = loom.explain(fn)(x)
        assert (report.graph_count, report.graph_break_count) == (1, 0), [b.what for b in report.breaks]
        loom.reset()
        expected = fn(x)
        compiled = loom.compile(fn, backend="eager")
        assert repr(compiled(x)) == repr(expected)
        assert repr(compiled(x)) == repr(expected)
        assert loom.stats()["recompiles"] == 0
        loom.reset()
