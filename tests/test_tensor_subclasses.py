"""Tensor subclasses whose ``__torch_function__`` runs Python (test/dynamo/test_subclasses.py's simplest).

A subclass instance passed in was traced as a plain tensor: ``type(s.sin())`` folded to ``torch.Tensor``
where eager gives the subclass, a wrong answer (the ops only went through ``__torch_function__`` because the
eager backend ran the graph on the real subclass input). ``t.as_subclass(torch.Tensor)`` recorded a
``call_method`` node whose class argument FX cannot print (an internal error), and ``t.as_subclass(T)`` broke.

Now such a tensor is a graph tensor that knows its class: each op eager hands to ``T.__torch_function__`` is
handed to it in the trace (inlined; ``super().__torch_function__`` is the stand-in of
``polyfills.torch_function``), the graph only sees plain tensors, and a ``T`` leaving the graph is rebuilt
with ``as_subclass(T)``. What is not modelled breaks, naming the subclass.
"""

from __future__ import annotations

import pytest
import torch
import torch.utils.checkpoint

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


class Counting(torch.Tensor):
    """Counts the calls handed to it (a Python side effect of __torch_function__)."""

    calls = []
    scale = 3

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(getattr(func, "__name__", "?"))
        return super().__torch_function__(func, types, args, kwargs)

    def doubled(self):
        return self * 2


class Bare(torch.Tensor):
    """No __torch_function__ of its own: Tensor's rewraps every result as Bare."""


class Other(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


def explained(fn, *args, backend="eager"):
    loom.reset()
    return loom.explain(fn, backend=backend, options={"strict": True})(*args)


def _same(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, torch.Tensor):
        assert torch.allclose(a.as_subclass(torch.Tensor), b.as_subclass(torch.Tensor))
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for p, q in zip(a, b):
            _same(p, q)
    else:
        assert a == b


def _clean(report):
    assert report.graph_count == 1 and report.graph_break_count == 0, report.format()


def result_type_of_subclass_input(s):
    out = s.sin() * 2
    return out.as_subclass(torch.Tensor), type(out), isinstance(out, Passing)


def test_subclass_input_ops_go_through_its_torch_function():
    s = torch.arange(3.0).as_subclass(Passing)
    report = explained(result_type_of_subclass_input, s)
    _clean(report)
    _same(report.result, result_type_of_subclass_input(s))


def swapped_op(s):
    return s.sigmoid().as_subclass(torch.Tensor) + 1, type(s.sigmoid()).__name__


def test_torch_function_that_swaps_the_op():
    s = torch.arange(3.0).as_subclass(SigmoidIsExp)
    report = explained(swapped_op, s)
    _clean(report)
    _same(report.result, swapped_op(s))


def made_in_the_trace(x):
    s = (x + 1).as_subclass(Passing)
    out = torch.add(s, x.cos())
    return out, out, type(out).__name__, s.exp()


def test_subclass_made_in_the_trace_is_returned_as_itself():
    x = torch.arange(3.0)
    report = explained(made_in_the_trace, x)
    _clean(report)
    _same(report.result, made_in_the_trace(x))
    assert report.result[0] is report.result[1]


def calls_and_members(x):
    Counting.calls.clear()
    s = x.as_subclass(Counting)
    out = s.doubled() + s.scale
    return out.as_subclass(torch.Tensor), list(Counting.calls)


def test_side_effects_class_attributes_and_methods():
    x = torch.arange(3.0)
    expected = calls_and_members(x)
    report = explained(calls_and_members, x)
    _clean(report)
    _same(report.result, expected)
    assert Counting.calls == expected[1]


def bare_subclass(x):
    b = x.as_subclass(Bare)
    return b * 2, isinstance(b + 1, Bare)


def test_subclass_without_its_own_torch_function():
    x = torch.arange(3.0)
    report = explained(bare_subclass, x)
    _clean(report)
    _same(report.result, bare_subclass(x))


def disabled_inside(s):
    with torch._C.DisableTorchFunctionSubclass():
        y = s * 2
    return y + 1, type(y).__name__, type(s + 1).__name__


def test_dispatch_switched_off_gives_plain_tensors():
    s = torch.arange(3.0).as_subclass(Passing)
    _same(explained(disabled_inside, s).result, disabled_inside(s))


def grads_through_subclass(x):
    leaf = x.clone().requires_grad_()
    s = leaf.as_subclass(Passing)
    (s.sin() * 2).sum().backward()
    return leaf.grad + 1


def test_backward_through_a_subclass():
    x = torch.arange(3.0)
    _same(explained(grads_through_subclass, x).result, grads_through_subclass(x))


def test_subclass_input_under_aot_autograd():
    s = torch.arange(3.0).as_subclass(SigmoidIsExp)
    report = explained(swapped_op, s, backend="aot_eager")
    _same(report.result, swapped_op(s))


def attribute_reads(x):
    Counting.calls.clear()
    s = (x + 1).as_subclass(Counting)
    leaf = x.clone().requires_grad_().as_subclass(Counting)
    out = s.sum() * s.shape[0] + s.ndim
    return out, s.dtype, s.requires_grad, leaf.requires_grad, type(s.data).__name__, s.is_leaf, list(Counting.calls)


def test_tensor_attribute_reads_are_handed_over_too():
    x = torch.arange(3.0)
    expected = attribute_reads(x)
    report = explained(attribute_reads, x)
    _clean(report)
    _same(report.result, expected)


def mixed_subclasses(x):
    return x.as_subclass(Passing) + x.as_subclass(Other)


def test_what_is_not_modelled_breaks_naming_the_subclass():
    x = torch.arange(3.0)
    with pytest.raises(TypeError) as eager:  # both classes decline: eager raises
        mixed_subclasses(x)
    loom.reset()
    with pytest.raises(TypeError) as compiled:
        loom.compile(mixed_subclasses, backend="eager", options={"strict": True})(x)
    assert str(compiled.value) == str(eager.value)
    assert loom.stats()["graph_breaks"] >= 1


def test_parameters_still_traced():
    report = explained(lambda t, p: (t * p).sum() + 1, torch.arange(3.0), torch.nn.Parameter(torch.ones(3)))
    _clean(report)


def as_plain_tensor(x):
    y = (x * 2).as_subclass(torch.Tensor)
    return y.cos() + 1, type(y) is torch.Tensor


def test_as_subclass_tensor_is_an_alias_in_the_graph():
    x = torch.arange(3.0)
    report = explained(as_plain_tensor, x)
    _same(report.result, as_plain_tensor(x))
    _clean(report)


def as_plain_tensor_keeps_grad(x):
    leaf = x.clone().requires_grad_()
    y = leaf.as_subclass(torch.Tensor)
    (y.sin() * 3).sum().backward()
    return leaf.grad, y.requires_grad, y is leaf


def test_as_subclass_tensor_keeps_autograd():
    x = torch.arange(3.0)
    _same(explained(as_plain_tensor_keeps_grad, x).result, as_plain_tensor_keeps_grad(x))


def checkpointed_subclass(x):
    s = (x + 1).as_subclass(SigmoidIsExp)
    out = torch.utils.checkpoint.checkpoint(lambda t: t.sigmoid() * 2, s, use_reentrant=False)
    return out.as_subclass(torch.Tensor), type(out).__name__


def test_higher_order_op_bodies_refuse_subclasses():
    x = torch.arange(3.0)
    report = explained(checkpointed_subclass, x)
    _same(report.result, checkpointed_subclass(x))
    assert any("tensor subclass" in str(b) for b in report.breaks), report.format()


class LenIsSeven(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.__len__:
            return 7
        return super().__torch_function__(func, types, args, kwargs)


def lengths(x):
    s = (x + 1).as_subclass(LenIsSeven)
    with torch._C.DisableTorchFunctionSubclass():
        plain = len(s)
    return x * len(s), len(s.as_subclass(Passing)), plain


def test_len_is_handed_to_torch_function():
    x = torch.arange(3.0)
    report = explained(lengths, x)
    _same(report.result, lengths(x))


class NDimIsTen(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func == torch.Tensor.ndim.__get__:  # a tensor attribute's getter, read off the class
            return 10
        return super().__torch_function__(func, types, args, kwargs)


def overridden_attribute(x):
    n = (x + 1).as_subclass(NDimIsTen)
    return n.sin() * n.ndim, n.dim(), torch.Tensor.shape.__get__ == torch.Tensor.ndim.__get__


def test_torch_function_comparing_attribute_getters():
    x = torch.arange(3.0)
    report = explained(overridden_attribute, x)
    _clean(report)
    _same(report.result, overridden_attribute(x))
