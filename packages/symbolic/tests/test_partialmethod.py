"""``functools.partialmethod`` read from an instance (test_functools): its ``__get__`` asks the function's own
``__get__`` (a bound method), wraps it in a partial and sets ``__self__`` on that partial. Each step broke the
graph before (and the break could not be placed: the whole frame ran uncompiled); now the function's
``__get__`` binds as the function type does, and a partial made in the trace keeps the attributes set on it,
also when it leaves the graph."""

import functools

import torch
from harness import check, run_rewritten

from loom_symbolic import translate_function


class Cell:
    def set_state(self, state, scale=1):
        self.state = state * scale
        return self

    set_three = functools.partialmethod(set_state, 3)
    set_scaled = functools.partialmethod(set_state, scale=10)


def partialmethod_calls(x):
    made = Cell()
    return x * made.set_three().state + made.set_scaled(2).state, made.state


def test_partialmethod_of_a_made_object():
    check(partialmethod_calls, torch.arange(3.0))


def helper(a, b):
    return a * b


def function_get_and_partial_attributes(x):
    bound = helper.__get__(x)
    unbound = helper.__get__(None, object)
    p = functools.partial(helper, 2)
    p.tag = "t"
    return bound(3) + unbound(x, 2) + p(x), p.tag, hasattr(p, "tag"), hasattr(p, "other"), p


def test_function_get_and_partial_attributes():
    x = torch.arange(3.0)
    translation = translate_function(function_get_and_partial_attributes, x)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    out, tag, has, has_other, p = run_rewritten(function_get_and_partial_attributes, translation, (x,), {})
    expected = function_get_and_partial_attributes(x)
    assert torch.equal(out, expected[0]) and (tag, has, has_other) == expected[1:4]
    assert p.tag == "t" and p.func is helper and p.args == (2,) and torch.equal(p(x), expected[4](x))
