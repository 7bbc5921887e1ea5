"""A tape-based autograd written in Python and simple tensor subclasses, modelled on PyTorch's
test/dynamo/test_python_autograd.py and test_subclasses.py, for ``capture_count.py --only dynamo_tests_autograd``:
value classes with operator dunders and a staticmethod maker, a global name counter, a global tape of
NamedTuple entries holding closures, backward passes over ``reversed`` tapes gathering gradients in dicts
(``in``, ``get``, ``setdefault``, ``defaultdict``), ``all()`` over generators, in-place accumulation through
attributes, micrograd-style topological sorts; and ``torch.Tensor`` subclasses with ``__torch_function__``,
``as_subclass`` and ``isinstance`` checks. Checkpointing lives in ``capture_count_dynamo_tests_autograd_more.py``.
Each program is written afresh over one tensor and resets the global tape it uses.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from collections.abc import Callable
from typing import NamedTuple

import torch

_counter = 0


def _next_name() -> str:
    global _counter
    name = f"t{_counter}"
    _counter += 1
    return name


class Val:
    """A tensor with a name; its ops record themselves on ``_TAPE``."""

    def __init__(self, value, name=None):
        self.value = value
        self.name = name or _next_name()

    @staticmethod
    def leaf(value, name=None):
        return Val(value, name)

    @classmethod
    def of(cls, value):
        return cls(value)

    @property
    def shape(self):
        return self.value.shape

    def __mul__(self, other):
        return _mul(self, other)

    def __add__(self, other):
        return _add(self, other)

    def __radd__(self, other):
        return self if other == 0 else _add(self, other)

    def __neg__(self):
        return _mul(self, Val(torch.full((), -1.0)))

    def __sub__(self, other):
        return _add(self, -other)

    def sum(self, name=None):
        return _sum(self, name)

    def expand(self, *sizes):
        return _expand(self, sizes)

    def sin(self):
        return _unary(self, torch.sin, torch.cos)

    def exp(self):
        return _unary(self, torch.exp, torch.exp)


class Entry(NamedTuple):
    inputs: list
    outputs: list
    propagate: Callable


_TAPE: list = []


def _reset():
    global _counter
    _TAPE.clear()
    _counter = 0


def _record(inputs, outputs, propagate):
    _TAPE.append(Entry(inputs=inputs, outputs=outputs, propagate=propagate))


def _mul(a, b):
    if isinstance(b, float) and b == 1.0:
        return a
    out = Val(a.value * b.value)

    def propagate(grads):
        (g,) = grads
        return [g * b, g * a]

    _record([a.name, b.name], [out.name], propagate)
    return out


def _add(a, b):
    out = Val(a.value + b.value)

    def propagate(grads):
        (g,) = grads
        return [g * 1.0, g * 1.0]

    _record([a.name, b.name], [out.name], propagate)
    return out


def _sum(a, name):
    out = Val(torch.sum(a.value), name=name)

    def propagate(grads):
        (g,) = grads
        return [g.expand(*a.value.size())]

    _record([a.name], [out.name], propagate)
    return out


def _expand(a, sizes):
    assert a.value.dim() == 0
    out = Val(a.value.expand(sizes))

    def propagate(grads):
        (g,) = grads
        return [g.sum()]

    _record([a.name], [out.name], propagate)
    return out


def _unary(a, fn, derivative):
    out = Val(fn(a.value))

    def propagate(grads):
        (g,) = grads
        return [g * Val(derivative(a.value))]

    _record([a.name], [out.name], propagate)
    return out


def backward(loss, wanted):
    """Gradients of ``loss`` for each of ``wanted``, by walking the tape backwards."""
    d = {loss.name: Val(torch.ones(()))}

    def gather(names):
        return [d[n] if n in d else None for n in names]

    for entry in reversed(_TAPE):
        outs = gather(entry.outputs)
        if all(g is None for g in outs):
            continue
        for name, g in zip(entry.inputs, entry.propagate(outs)):
            if name not in d:
                d[name] = g
            else:
                d[name].value += g.value
    return gather(w.name for w in wanted)


def _simple(a, b):
    return (a + b) * b


# -- forward and backward over the tape -----------------------------------------------------------------------------
def c_dg_tape_forward(x):
    _reset()
    a, b = Val.leaf(x.sin(), "a"), Val.leaf(x + 1, "b")
    loss = _simple(a, b).sum()
    return loss.value * 2


def c_dg_tape_forward_reset_inside(x):
    _reset()
    a, b = Val.leaf(x, "a"), Val.leaf(x.cos(), "b")
    loss = _simple(a, b).sum()
    _reset()
    return loss.value + 1, len(_TAPE)


def c_dg_tape_backward(x):
    _reset()
    a, b = Val.leaf(x * 2, "a"), Val.leaf(x + 1, "b")
    ga, gb = backward(_simple(a, b).sum(), [a, b])
    return ga.value + 1, gb.value


def c_dg_tape_backward_reset_twice(x):
    _reset()
    a, b = Val.leaf(x + 0.5, "a"), Val.leaf(x * x, "b")
    grads = backward(_simple(a, b).sum(), [a, b])
    _reset()
    return [g.value.exp() for g in grads]


def c_dg_tape_unused_input_none(x):
    _reset()
    a, b, c = Val.leaf(x, "a"), Val.leaf(x + 2, "b"), Val.leaf(x - 1, "c")
    ga, gb, gc = backward((a * b).sum(), [a, b, c])
    return ga.value, gb.value, gc is None


def c_dg_tape_length(x):
    _reset()
    a = Val.leaf(x.tanh())
    out = (a * a + a).sum()
    return out.value / len(_TAPE), len(_TAPE), [e.outputs[0] for e in _TAPE]


def c_dg_tape_fresh_names(x):
    _reset()
    a = Val(x + 1)
    b = Val(x * 3)
    c = a * b
    return c.value.sum(), a.name + b.name + c.name


def c_dg_tape_peephole_float_one(x):
    _reset()
    a = Val.leaf(x.relu())
    same = a * 1.0
    return same.value + 1, same is a, len(_TAPE)


def c_dg_tape_sin_exp_chain(x):
    _reset()
    a = Val.leaf(x / 3)
    loss = (a.sin() * a.exp()).sum()
    (g,) = backward(loss, [a])
    return loss.value, g.value


def c_dg_tape_sub_neg(x):
    _reset()
    a, b = Val.leaf(x * 2), Val.leaf(x + 4)
    loss = (a - b).sum()
    ga, gb = backward(loss, [a, b])
    return ga.value, gb.value, loss.value


def c_dg_tape_builtin_sum_radd(x):
    _reset()
    vals = [Val.leaf(x * k) for k in (1.0, 2.0, 3.0)]
    total = sum(vals)
    return total.value.cos(), total.name


def c_dg_tape_loop_of_ops(x):
    _reset()
    a = Val.leaf(x + 1)
    h = a
    for _ in range(3):
        h = h * a + a
    (g,) = backward((h * Val(torch.ones(3))).sum(), [a])
    return g.value / 10


def c_dg_tape_reduce_mul(x):
    _reset()
    leaves = [Val.leaf(x + k) for k in range(3)]
    prod = functools.reduce(lambda p, q: p * q, leaves)
    grads = backward(prod.sum(), leaves)
    return torch.stack([g.value for g in grads])


def c_dg_tape_class_maker(x):
    _reset()
    a = Val.of(x.sigmoid())
    return (a * a).value + 1, type(a).__name__, a.shape


def c_dg_tape_entry_fields(x):
    _reset()
    a, b = Val.leaf(x, "a"), Val.leaf(x.exp(), "b")
    a * b
    entry = _TAPE[-1]
    return b.value + 1, entry.inputs, entry._fields, entry._asdict()["outputs"]


def c_dg_tape_entry_replace(x):
    _reset()
    a = Val.leaf(x + 1, "a")
    (a * a).sum()
    first = _TAPE[0]._replace(inputs=["z"])
    return x.cos(), first.inputs, _TAPE[0].inputs


def c_dg_tape_propagate_called_directly(x):
    _reset()
    a, b = Val.leaf(x * 5), Val.leaf(x - 2)
    a * b
    da, db = _TAPE[-1].propagate([Val(torch.ones(3))])
    return da.value + db.value


def c_dg_tape_grad_by_name(x):
    _reset()
    a, b = Val.leaf(x + 1, "a"), Val.leaf(x * 2, "b")
    grads = backward(_simple(a, b).sum(), [a, b])
    by_name = {v.name: g.value for v, g in zip([a, b], grads)}
    return by_name["a"] * 2, sorted(by_name)


def c_dg_tape_accumulates_in_place(x):
    _reset()
    a = Val.leaf(x.clone())
    loss = (a * a + a * a).sum()
    (g,) = backward(loss, [a])
    return g.value, a.value


def c_dg_tape_expand_scalar(x):
    _reset()
    s = Val.leaf(x.sum())
    wide = s.expand(3)
    (g,) = backward((wide * Val(x + 1)).sum(), [s])
    return wide.value, g.value


# -- variations: dataclass entries, defaultdicts, micrograd -------------------------------------------------------
@dataclasses.dataclass
class Step:
    inputs: tuple
    output: str
    rule: Callable
    note: str | None = None


def c_dg_dataclass_tape(x):
    steps = []
    vals = {"x": x + 1}

    def emit(name, value, inputs, rule):
        vals[name] = value
        steps.append(Step(tuple(inputs), name, rule))

    emit("y", vals["x"].sin(), ["x"], lambda g: [g * vals["x"].cos()])
    emit("z", vals["y"] * 3, ["y"], lambda g: [g * 3])
    grads = {"z": torch.ones(3)}
    for step in reversed(steps):
        for name, g in zip(step.inputs, step.rule(grads[step.output])):
            grads[name] = grads.get(name, 0) + g
    return grads["x"], steps[0].note is None


def c_dg_defaultdict_grads(x):
    _reset()
    a, b = Val.leaf(x + 2, "a"), Val.leaf(x * 3, "b")
    loss = _simple(a, b).sum()
    acc = collections.defaultdict(lambda: torch.zeros(3))
    seed = {loss.name: Val(torch.ones(()))}
    for entry in reversed(_TAPE):
        outs = [seed.get(n) for n in entry.outputs]
        if outs[0] is None:
            continue
        for name, g in zip(entry.inputs, entry.propagate(outs)):
            seed.setdefault(name, g)
            acc[name] = acc[name] + g.value
    return acc["a"], acc["b"], len(acc)


class Scalar:
    """micrograd-style: each value knows its parents and how to push its gradient to them."""

    __slots__ = ("data", "grad", "parents", "push")

    def __init__(self, data, parents=()):
        self.data = data
        self.grad = torch.zeros_like(data)
        self.parents = parents
        self.push = lambda: None

    def __add__(self, other):
        out = Scalar(self.data + other.data, (self, other))

        def push():
            self.grad = self.grad + out.grad
            other.grad = other.grad + out.grad

        out.push = push
        return out

    def __mul__(self, other):
        out = Scalar(self.data * other.data, (self, other))

        def push():
            self.grad = self.grad + other.data * out.grad
            other.grad = other.grad + self.data * out.grad

        out.push = push
        return out

    def backward(self):
        order, seen = [], set()

        def visit(v):
            if v not in seen:
                seen.add(v)
                for p in v.parents:
                    visit(p)
                order.append(v)

        visit(self)
        self.grad = torch.ones_like(self.data)
        for v in reversed(order):
            v.push()


def c_dg_micrograd_backward(x):
    a, b = Scalar(x + 1), Scalar(x * 2)
    out = a * b + a
    out.backward()
    return a.grad, b.grad, out.data


def c_dg_micrograd_shared_node(x):
    a = Scalar(x.sin())
    c = a * a
    d = c + c
    d.backward()
    return a.grad * 1, len(d.parents)


def c_dg_grads_as_namedtuple(x):
    Grads = collections.namedtuple("Grads", ["da", "db"])
    _reset()
    a, b = Val.leaf(x, "a"), Val.leaf(x + 1, "b")
    g = Grads(*[v.value for v in backward((a * b).sum(), [a, b])])
    return g.da + g.db, g._fields


def c_dg_tape_against_torch_autograd(x):
    _reset()
    leaf = x.clone().requires_grad_()
    a, b = Val.leaf(leaf, "a"), Val.leaf(leaf * 2, "b")
    loss = _simple(a, b).sum()
    (ours,) = backward(loss, [a])
    (theirs,) = torch.autograd.grad(loss.value, leaf)
    return ours.value.detach(), theirs


def c_dg_tape_enumerate_reversed(x):
    _reset()
    a = Val.leaf(x + 3)
    (a * a * a).sum()
    order = [(i, e.outputs[0]) for i, e in enumerate(reversed(_TAPE))]
    return x * len(order), order


def c_dg_tape_partial_propagate(x):
    _reset()

    def scale(k, grads):
        return [grads[0] * Val(torch.full((), k))]

    a = Val.leaf(x * 2, "a")
    out = Val(a.value * 4.0, "o")
    _record(["a"], ["o"], functools.partial(scale, 4.0))
    (g,) = backward(out, [a])
    return g.value + out.value


def c_dg_tape_any_none(x):
    _reset()
    a, b = Val.leaf(x, "a"), Val.leaf(x + 1, "b")
    grads = backward((a * a).sum(), [a, b])
    missing = any(g is None for g in grads)
    present = [g.value for g in grads if g is not None]
    return present[0] + 1, missing


def c_dg_tape_max_and_min_names(x):
    _reset()
    vals = [Val(x * k) for k in range(1, 4)]
    names = [v.name for v in vals]
    return x + 1, max(names), min(names), "t1" in names


# -- tensor subclasses with __torch_function__ ----------------------------------------------------------------------
class PassThrough(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class SigmoidIsExp(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func == torch.Tensor.sigmoid:
            func = torch.Tensor.exp
        return super().__torch_function__(func, types, args, kwargs)


class Tagged(torch.Tensor):
    tag = 7

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)

    def doubled(self):
        return self * 2


def c_dg_subclass_as_subclass_ops(x):
    s = (x + 1).as_subclass(PassThrough)
    out = s.sin() * 2
    return out.as_subclass(torch.Tensor) + 1


def c_dg_subclass_isinstance(x):
    s = x.cos().as_subclass(PassThrough)
    y = s + 1
    return y.as_subclass(torch.Tensor), isinstance(y, PassThrough), isinstance(y, torch.Tensor)


def c_dg_subclass_type_is(x):
    s = x.as_subclass(PassThrough)
    return (x * 2).relu(), type(s) is PassThrough, type(s).__name__


def c_dg_subclass_returned(x):
    s = (x * 3).as_subclass(PassThrough)
    return s.exp()


def c_dg_subclass_func_swap(x):
    s = (x - 1).as_subclass(SigmoidIsExp)
    return s.sigmoid().as_subclass(torch.Tensor) + x


def c_dg_subclass_class_attribute(x):
    s = x.as_subclass(Tagged)
    return x.sin() * s.tag


def c_dg_subclass_python_method(x):
    s = (x + 2).as_subclass(Tagged)
    return s.doubled().as_subclass(torch.Tensor).cos()


def c_dg_subclass_torch_function_call(x):
    s = x.as_subclass(PassThrough)
    out = torch.add(s, x.sin())
    return out.as_subclass(torch.Tensor), type(out).__name__


def c_dg_subclass_disable_torch_function(x):
    s = x.as_subclass(PassThrough)
    with torch._C.DisableTorchFunctionSubclass():
        y = s * 2
    return y + 1, type(y).__name__


def c_dg_subclass_back_to_tensor(x):
    s = (x * 2).as_subclass(PassThrough)
    plain = s.as_subclass(torch.Tensor)
    return plain.tanh(), type(plain) is torch.Tensor


def c_dg_subclass_issubclass(x):
    return x + 1, issubclass(PassThrough, torch.Tensor), issubclass(torch.Tensor, PassThrough)


def c_dg_subclass_shape_and_dtype(x):
    s = x.reshape(3, 1).as_subclass(PassThrough)
    return x.sum() * s.shape[0], s.dtype == torch.float32, s.dim()


def c_dg_subclass_mixed_binary(x):
    s = (x / 2).as_subclass(PassThrough)
    out = x.exp() + s
    return type(out).__name__, out.as_subclass(torch.Tensor)


def c_dg_subclass_grad_flows(x):
    leaf = x.clone().requires_grad_()
    s = leaf.as_subclass(PassThrough)
    (s.sin() * 2).sum().backward()
    return leaf.grad + 1


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
