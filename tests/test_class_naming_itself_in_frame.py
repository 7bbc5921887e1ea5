"""A class made inside the compiled frame whose methods name the class itself (``return Vec(self.t + o.t)``).

The methods close over the function's cell for the class's own name, which is not bound yet while the class is
made; the store right after the class statement binds it. Before, that was a graph break at every such class
statement ("its body reads 'Vec', which is not bound yet"); now the class is given an empty cell that the store
fills, where that store follows the statement directly (no decorator) and the name is bound nowhere else. A body
that reads its own name while being made still raises CPython's NameError, and a decorated class still breaks.
"""

import contextlib
import io

import pytest
import torch

import loom


def _explain(fn, *args):
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        return loom.explain(fn)(*args)


def _vec_program(x):
    class Vec:
        def __init__(self, t):
            self.t = t

        def __add__(self, other):
            return Vec(self.t + (other.t if isinstance(other, Vec) else other))

        def __radd__(self, other):
            return Vec(self.t + other + 100)

        def __neg__(self):
            return Vec(-self.t)

    v = Vec(x)
    w = 1 + (-v + v + 2)
    return w.t, type(w) is Vec, Vec.__add__.__closure__[0].cell_contents is Vec


def test_methods_naming_their_class_trace_in_one_graph():
    x = torch.randn(4)
    want = _vec_program(x)
    report = _explain(_vec_program, x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    compiled = loom.compile(_vec_program, backend="eager", options={"strict": True})
    for _ in range(3):
        got = compiled(x)
        torch.testing.assert_close(got[0], want[0])
        assert got[1:] == (True, True)
    assert loom.stats()["recompiles"] == 0


def _recursive_node(x):
    class Node:
        def __init__(self, depth):
            self.child = Node(depth - 1) if depth else None

        def size(self):
            return 1 + (self.child.size() if self.child else 0)

    return x * Node(3).size()


def test_class_building_instances_of_itself_in_init():
    x = torch.randn(3)
    report = _explain(_recursive_node, x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    torch.testing.assert_close(loom.compile(_recursive_node, backend="eager")(x), x * 4)


def _body_reads_own_name(x):
    class Early:
        alias = Early  # noqa: F821 (CPython's NameError is what is tested)

    return x


def test_body_reading_its_own_name_raises_as_cpython_does():
    with pytest.raises(NameError):
        _body_reads_own_name(torch.ones(2))
    loom.reset()
    with pytest.raises(NameError):
        loom.compile(_body_reads_own_name, backend="eager")(torch.ones(2))


def _decorated(x):
    def keep(cls):
        return cls

    @keep
    class Tagged:
        def me(self):
            return Tagged

    return x + 1, Tagged().me() is Tagged


def _rebound(x):
    class Twice:
        def me(self):
            return Twice

    first = Twice
    Twice = 3  # bound again: the class's cell may not be fixed
    return x + Twice, first().me()


@pytest.mark.parametrize("fn", [_decorated, _rebound])
def test_decorated_or_rebound_class_is_made_per_call_with_eager_answer(fn):
    # its cell is bound after a decorator, or again later: the class is made on each call (opcodes/class_per_call.py)
    x = torch.randn(3)
    want = fn(x)
    report = _explain(fn, x)
    assert report.graph_break_count == 0
    loom.reset()
    got = loom.compile(fn, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1]
