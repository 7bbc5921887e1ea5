"""A class statement whose bases Python refuses (``class B(bool)``, an instance lay-out conflict, no consistent
MRO) raises the program's TypeError in the trace, caught by its handler in one graph; it was an internal error
(the frame ran uncompiled with a warning)."""

from __future__ import annotations

import warnings

import torch

import loom


def refused_bases(x):
    messages = []
    try:
        class B(bool):
            pass
    except TypeError as exc:
        messages.append(str(exc))
    try:
        class C(int, str):
            pass
    except TypeError as exc:
        messages.append(str(exc))

    class A:
        pass

    class D(A):
        pass

    try:
        class E(A, D):
            pass
    except TypeError as exc:
        messages.append(str(exc))
    return x + len(messages), messages


def test_refused_bases_raise_the_programs_type_error():
    x = torch.arange(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # an internal error warns and runs uncompiled
        report = loom.explain(refused_bases)(x)
        assert (report.graph_count, report.graph_break_count) == (1, 0), [b.what for b in report.breaks]
        loom.reset()
        expected = refused_bases(x)
        got = loom.compile(refused_bases, backend="eager")(x)
    assert repr(got) == repr(expected) and len(expected[1]) == 3
