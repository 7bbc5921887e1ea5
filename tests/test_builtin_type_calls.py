"""``types.MethodType(fn, obj)`` and ``type(None)()`` called in a compiled frame: modelled (were breaks), with
eager's results and errors."""

from __future__ import annotations

import types

import torch

import loom


class _Holder:
    scale = 3


def _scaled(self, t):
    return t * self.scale


def _explained(fn, *args):
    loom.reset()
    report = loom.explain(fn)(*args)
    return report.graph_count, report.graph_break_count


def test_method_type_binds_a_function_to_an_object():
    def fn(x):
        def shifted(self, t):
            return t + self.scale

        holder = _Holder()
        bound = types.MethodType(_scaled, holder)
        inner = types.MethodType(shifted, holder)
        return bound(x) + inner(x), bound.__self__ is holder, bound.__func__ is _scaled

    x = torch.arange(3.0)
    assert _explained(fn, x) == (1, 0)
    got, want = loom.compile(fn)(x), fn(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:] == (True, True)


def test_a_bound_method_made_in_the_frame_is_returned_as_one():
    holder = _Holder()

    def fn(x):
        return x + 1, types.MethodType(_scaled, holder)

    assert _explained(fn, torch.ones(2)) == (1, 0)
    _, bound = loom.compile(fn)(torch.ones(2))
    assert type(bound) is types.MethodType and bound.__self__ is holder and bound.__func__ is _scaled


def test_method_type_of_none_raises_type_error_as_eager():
    def fn(x):
        try:
            types.MethodType(_scaled, None)
        except TypeError as exc:
            return x + 1, str(exc)
        return x

    assert _explained(fn, torch.ones(2)) == (1, 0)
    assert loom.compile(fn)(torch.ones(2))[1] == fn(torch.ones(2))[1] == "instance must not be None"


def test_none_type_called_gives_none():
    def fn(x):
        return x + (type(None)() is None)

    assert _explained(fn, torch.ones(2)) == (1, 0)
    torch.testing.assert_close(loom.compile(fn)(torch.ones(2)), fn(torch.ones(2)))
