"""``type(name, bases, ns)`` whose bases refuse the class (a duplicate base, no consistent MRO) raises the
program's TypeError in the trace, which a handler catches with its message; it used to escape the translator
(an internal error, the frame left uncompiled). Any other failure of the call is a graph break."""

from __future__ import annotations

import torch

import loom


class _A:
    pass


class _B(_A):
    pass


class _Refusing:
    def __init_subclass__(cls, **kw):
        raise ValueError("no subclasses")


def _run(fn):
    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    loom.reset()
    return loom.explain(fn)(x)


def test_bases_refusing_the_class_raise_the_programs_type_error():
    def fn(x):
        messages = []
        for bases in ((_A, _A), (_A, _B)):
            try:
                type("X", bases, {})
            except TypeError as e:
                messages.append(str(e))
        return x + 1, messages

    report = _run(fn)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks


def test_another_failure_of_the_call_is_a_break_with_eagers_error():
    def fn(x):
        try:
            type("Y", (_Refusing,), {})
        except ValueError as e:
            return x + 1, str(e)
        return x, ""

    _run(fn)


def test_a_base_that_is_no_class_raises_the_programs_type_error():
    def fn(x):
        refused = []
        for bases in ((list, dict), (object, None), (type(len),), (1,)):
            try:
                type("C", bases, {})
                refused.append("made")
            except TypeError as e:
                refused.append(str(e))
        return x + 1, refused

    report = _run(fn)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
