"""Small builtins issue 29 found breaking graphs: ``sys.intern``, ``int.bit_length`` (of a constant and of
a symbolic size, guarded on the range of sizes with that bit length), the ``slice()`` builtin and a
namedtuple class's ``_fields``: one graph, no break, eager's answer."""

import collections
import sys
import types

import pytest
import torch
from harness import CaseRegistry, check

import loom_guards
from loom_symbolic import translate_function
from loom_symbolic.shapes import DynamicSpec

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.arange(6.0)
Pair = collections.namedtuple("Pair", "left right")


@case(X)
def intern_a_string(x):
    name = sys.intern("weight" + "_decay")
    return x + 1, name, name is sys.intern("weight_decay")


@case(X)
def bit_length_of_constants(x):
    return x * (5).bit_length() + (0).bit_length() + (-9).bit_length()


@case(X)
def slice_builtin(x):
    s = slice(1, 5, 2)
    return x[s], x[slice(3)], x[slice(2, None)], s.start, s.stop, s.step, \
        s.indices(3), s == slice(1, 5, 2)


@case(X, Pair(1, 2))
def namedtuple_fields(x, pair):
    p = Pair(x, 2)
    return p.left + len(Pair._fields), Pair._fields, p._fields, type(pair)._fields, pair._asdict()


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_small_builtins_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def _bit_length_of_a_size(x):
    n = x.shape[0]
    return x * n.bit_length()


def test_bit_length_of_a_symbolic_size_is_guarded_on_its_range():
    spec = DynamicSpec(dims={"L['x']": frozenset({0})})
    t = translate_function(_bit_length_of_a_size, torch.ones(5), dynamic=spec)
    assert t.code is not None and not t.breaks, t.dump()
    assert len(t.graphs) == 1
    t.install(_bit_length_of_a_size.__globals__, lambda graph: graph.graph_module)
    rewritten = types.FunctionType(t.code, _bit_length_of_a_size.__globals__)
    guard = loom_guards.compile(t.guards)
    for n in (4, 5, 7):  # bit length 3: the same graph
        x = torch.ones(n)
        assert guard({"x": x})
        torch.testing.assert_close(rewritten(x), _bit_length_of_a_size(x))
    for n in (3, 8):  # another bit length: the guard fails, a new graph is made
        assert not guard({"x": torch.ones(n)})
