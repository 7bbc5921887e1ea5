"""``inspect.signature`` of a function made while tracing (a ``def`` or ``lambda`` in the compiled code, one
``functools.wraps`` made): computed on a real function of the same code, defaults and annotations, with no
graph break, as eager computes it (diffusers checks its attention processor's parameters this way)."""

from __future__ import annotations

import functools
import inspect

import torch

import loom


def signatures(x):
    def plain(a, b: int = 1, *args, c, d=2, **kw) -> float:
        return a

    def inner(p, q=3):
        return p

    @functools.wraps(inner)
    def wrapper(*args, **kwargs):
        return inner(*args, **kwargs)

    square = lambda v, power=2: v ** power
    keys = list(inspect.signature(plain).parameters.keys())
    return (x + len(keys), keys, str(inspect.signature(plain)), str(inspect.signature(wrapper)),
            str(inspect.signature(wrapper, follow_wrapped=False)), str(inspect.signature(square)),
            "power" in inspect.signature(square).parameters)


def test_signatures_of_made_functions_are_eager_ones_without_a_break():
    x = torch.arange(3.0)
    expected = signatures(x)
    loom.reset()
    actual = loom.compile(signatures, backend="eager")(x)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:]
    assert loom.stats()["graph_breaks"] == 0


def test_a_default_known_only_at_run_time_breaks_and_keeps_eager_text():
    def fn(x):
        def f(a, scale=x.sum()):  # noqa: B008
            return a * scale

        return x + 1, str(inspect.signature(f)).startswith("(a, scale=tensor(")

    x = torch.ones(2)
    report = loom.explain(fn, backend="eager")(x)
    assert report.breaks[0].what.startswith("inspect.signature of function"), report.breaks
    loom.reset()
    assert loom.compile(fn, backend="eager")(x)[1] is True
