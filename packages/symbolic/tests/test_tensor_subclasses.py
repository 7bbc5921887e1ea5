"""Tensor subclasses whose ``__torch_function__`` runs Python (test/dynamo/test_subclasses.py's simplest).

A subclass instance passed in was traced as a plain tensor: ``type(s.sin())`` folded to ``torch.Tensor``
where eager gives the subclass, a wrong answer. ``t.as_subclass(torch.Tensor)`` recorded a ``call_method``
node whose class argument FX cannot print (an internal error). Now such a tensor never enters the trace (a
break naming the subclass), ``as_subclass(T)`` breaks, and ``as_subclass(torch.Tensor)`` is an ``aten.alias``
node in the graph.
"""

from __future__ import annotations

import torch

import loom


class Passing(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class SigmoidIsExp(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func == torch.Tensor.sigmoid:
            func = torch.Tensor.exp
        return super().__torch_function__(func, types, args, kwargs)


def explained(fn, *args):
    loom.reset()
    return loom.explain(fn, backend="eager", options={"strict": True})(*args)


def _same(a, b):
    assert type(a) is type(b)
    if isinstance(a, torch.Tensor):
        assert torch.equal(a.as_subclass(torch.Tensor), b.as_subclass(torch.Tensor))
    elif isinstance(a, tuple):
        assert len(a) == len(b)
        for p, q in zip(a, b):
            _same(p, q)
    else:
        assert a == b


def result_type_of_subclass_input(s):
    out = s.sin() * 2
    return out.as_subclass(torch.Tensor), type(out), isinstance(out, Passing)


def swapped_op_on_subclass_input(s):
    return s.sigmoid().as_subclass(torch.Tensor) + 1, type(s.sigmoid()).__name__


def test_subclass_input_is_not_traced_as_a_plain_tensor():
    s = torch.arange(3.0).as_subclass(Passing)
    expected = result_type_of_subclass_input(s)
    report = explained(result_type_of_subclass_input, s)
    _same(report.result, expected)
    assert any("subclass Passing" in str(b) for b in report.breaks), report.format()


def test_swapped_op_on_subclass_input():
    s = torch.arange(3.0).as_subclass(SigmoidIsExp)
    expected = swapped_op_on_subclass_input(s)
    _same(explained(swapped_op_on_subclass_input, s).result, expected)


def test_parameters_still_traced():
    report = explained(lambda t, p: (t * p).sum() + 1, torch.arange(3.0), torch.nn.Parameter(torch.ones(3)))
    assert report.graph_count == 1 and report.graph_break_count == 0, report.format()


def as_plain_tensor(x):
    y = (x * 2).as_subclass(torch.Tensor)
    return y.cos() + 1, type(y) is torch.Tensor


def test_as_subclass_tensor_is_an_alias_in_the_graph():
    x = torch.arange(3.0)
    report = explained(as_plain_tensor, x)
    _same(report.result, as_plain_tensor(x))
    assert report.graph_count == 1 and report.graph_break_count == 0, report.format()


def as_plain_tensor_keeps_grad(x):
    leaf = x.clone().requires_grad_()
    y = leaf.as_subclass(torch.Tensor)
    (y.sin() * 3).sum().backward()
    return leaf.grad, y.requires_grad, y is leaf


def test_as_subclass_tensor_keeps_autograd():
    x = torch.arange(3.0)
    _same(explained(as_plain_tensor_keeps_grad, x).result, as_plain_tensor_keeps_grad(x))


def as_user_subclass(x):
    s = (x + 1).as_subclass(Passing)
    out = s.exp()
    return out.as_subclass(torch.Tensor) - 1, type(out).__name__


def test_as_subclass_to_a_python_subclass_breaks():
    x = torch.arange(3.0)
    report = explained(as_user_subclass, x)
    _same(report.result, as_user_subclass(x))
    assert any("as_subclass(Passing)" in str(b) for b in report.breaks), report.format()
