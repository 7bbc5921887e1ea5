"""Under dynamic shapes, ``~n`` of a symbolic size is ``-n - 1`` in the graph (a SymInt has no ``~``; it was a
graph break), and an int method the graph does not compute (``bit_count``, ``to_bytes``, ``as_integer_ratio``) is
called on the size's exact value, which a guard pins (it was a break reading the attribute)."""

from __future__ import annotations

import torch

import loom


def inverted(x):
    n = x.shape[0]
    return x + (~n) + ~(n * 2) + (n ^ 5) + (-n >> 1)


def int_methods(x):
    n = x.shape[0] * 85
    return x + n.bit_count() + sum(n.as_integer_ratio()) + len(n.to_bytes(2, "big")) + n.bit_length()


def test_invert_of_a_symbolic_size_stays_symbolic():
    compiled = loom.compile(inverted, backend="eager", dynamic=True)
    for size in (3, 4, 5):
        x = torch.arange(float(size))
        assert torch.equal(compiled(x), inverted(x))
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (1, 0, 0)


def test_int_methods_of_a_symbolic_size_specialise_without_a_break():
    compiled = loom.compile(int_methods, backend="eager", dynamic=True)
    for size in (3, 4, 3):
        x = torch.arange(float(size))
        assert torch.equal(compiled(x), int_methods(x))
    stats = loom.stats()
    assert stats["graph_breaks"] == 0 and stats["recompiles"] == 1  # one entry per size seen, no break
