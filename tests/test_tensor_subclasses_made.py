"""Tensor subclass objects made in the frame, ``has_torch_function`` on them, tags on handed-in tensors and
``DisableTorchFunction`` blocks (test/dynamo/test_subclasses.py's ``test_make_subclass``, ``test_has_torch_function``,
``test_disable_all_torch_function``, ``test_subclass_with_disabled_torch_function``).

Before: ``torch.overrides.has_torch_function((t,))`` on a subclass tensor folded to False (the graph sees plain
tensors), so a function written with ``handle_torch_function`` skipped the subclass: a wrong answer.
``torch.Tensor._make_subclass``, a tensor subclass called on a tensor, a tag read off a handed-in tensor's
``__dict__``, ``DisableTorchFunction`` and ``as_subclass`` of a class that switches ``__torch_function__`` off
all broke the graph.
"""

from __future__ import annotations

import torch
from torch.overrides import BaseTorchFunctionMode

import loom


class Passing(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class Answering(torch.Tensor):
    """Answers ``scaled_sum`` itself, through ``handle_torch_function``."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is scaled_sum:
            return args[0].as_subclass(torch.Tensor) * 0 + 42
        return super().__torch_function__(func, types, args, kwargs)


def scaled_sum(a, b):
    if torch.overrides.has_torch_function((a, b)):
        return torch.overrides.handle_torch_function(scaled_sum, (a, b), a, b)
    return (a + b).sum()


class Tagged(torch.Tensor):
    @staticmethod
    def __new__(cls, data, tag=0):
        return torch.Tensor._make_subclass(cls, data)

    def __init__(self, data, tag=0):
        self.tag = tag


class Bare(torch.Tensor):
    pass


class Silent(torch.Tensor):
    __torch_function__ = torch._C._disabled_torch_function_impl


class ZeroAdd(BaseTorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.add:
            return torch.zeros_like(args[0])
        return super().__torch_function__(func, types, args, kwargs)


def _run(fn, *args):
    """Eager's answer, loom's, and loom's report (strict: an internal error raises)."""
    expected = fn(*args)
    loom.reset()
    got = loom.compile(fn, options={"strict": True})(*args)
    loom.reset()
    report = loom.explain(fn, options={"strict": True})(*args)
    return expected, got, report


def _same(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, torch.Tensor):
        assert torch.equal(a.as_subclass(torch.Tensor), b.as_subclass(torch.Tensor))
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for p, q in zip(a, b):
            _same(p, q)
    else:
        assert a == b


def _clean(report):
    assert report.graph_count == 1 and report.graph_break_count == 0, report.format()


def test_has_torch_function_sees_a_subclass_made_in_the_frame():
    def fn(x):
        t = x.as_subclass(Passing)
        return (x + 1, torch.overrides.has_torch_function((t,)), torch.overrides.has_torch_function_unary(t),
                torch.overrides.has_torch_function_variadic(x, t), torch.overrides.has_torch_function_unary(x))

    expected, got, report = _run(fn, torch.arange(3.0))
    assert expected[1:] == (True, True, True, False)
    _same(expected, got)
    _clean(report)


def test_handle_torch_function_reaches_the_subclass():
    def fn(x):
        return scaled_sum(x.as_subclass(Answering), x), scaled_sum(x, x)

    expected, got, report = _run(fn, torch.arange(3.0))
    assert torch.equal(expected[0], torch.full((3,), 42.0))
    _same(expected, got)
    _clean(report)


def test_has_torch_function_off_in_a_disabled_block():
    def fn(x):
        t = x.as_subclass(Passing)
        with torch._C.DisableTorchFunctionSubclass():
            inside = torch.overrides.has_torch_function_unary(t)
        return x * 2, inside

    expected, got, report = _run(fn, torch.arange(3.0))
    assert expected[1] is False
    _same(expected, got)
    _clean(report)


def test_make_subclass_aliases_and_detaches():
    def fn(x):
        base = x.clone()
        y = torch.Tensor._make_subclass(Bare, base)
        z = torch.Tensor._make_subclass(torch.Tensor, base)
        base += 1
        y += 2
        z += 3
        w = torch.Tensor._make_subclass(Passing, x.clone().requires_grad_(True) * 2)
        return base * y + z, type(y).__name__, type(z).__name__, w.requires_grad, w.is_leaf

    expected, got, report = _run(fn, torch.arange(3.0))
    _same(expected, got)
    _clean(report)


def test_make_subclass_that_requires_grad_breaks():
    def fn(x):
        y = torch.Tensor._make_subclass(Bare, x.clone(), True)
        return y.requires_grad, y * 2

    expected, got, report = _run(fn, torch.arange(3.0))
    assert expected[0] is True and got[0] is True
    assert torch.equal(expected[1], got[1]) and type(got[1]) is Bare
    assert report.graph_break_count == 1 and "_make_subclass" in report.breaks[0].what


def test_subclass_called_on_a_tensor_and_its_init():
    def fn(x):
        a = Bare(x * 2)
        t = Tagged(x.clone(), tag=3)
        return a + 1, type(a).__name__, t * t.tag, t.tag

    expected, got, report = _run(fn, torch.arange(3.0))
    _same(expected, got)
    _clean(report)


def test_subclass_called_with_floats_or_sizes():
    """``cls([1.0, 2.0])``: a new tensor of the default dtype (the program's, changed in the frame here); ``cls([2,
    3])`` would be sizes, uninitialised memory: a break."""
    def fn(x):
        torch.set_default_dtype(torch.float64)
        t = Bare([1.0, 2.0, 3.0])
        torch.set_default_dtype(torch.float32)
        return t + x, t.dtype, t._base is None, t.requires_grad

    expected, got, report = _run(fn, torch.arange(3.0))
    _same(expected, got)
    _clean(report)

    def sizes(x):
        return x.sum() + Bare([2, 3]).shape[0]

    expected, got, report = _run(sizes, torch.arange(3.0))
    _same(expected, got)
    assert report.graph_break_count == 1


def test_tag_on_a_handed_in_tensor_is_read_and_guarded():
    def fn(x, t):
        return x * t.qscale + t

    def tagged(cls, value):
        t = torch.ones(3).as_subclass(cls) if cls is not torch.Tensor else torch.ones(3)
        t.qscale = value
        return t

    for cls in (Passing, Bare, torch.Tensor):
        loom.reset()
        compiled = loom.compile(fn, options={"strict": True})
        x = torch.arange(3.0)
        for value in (3, 3, 4):
            _same(fn(x, tagged(cls, value)), compiled(x, tagged(cls, value)))
        assert loom.stats()["graphs"] == 2 and loom.stats()["graph_breaks"] == 0  # one more for qscale 4
        untagged = torch.ones(3).as_subclass(cls) if cls is not torch.Tensor else torch.ones(3)
        try:
            compiled(x, untagged)
        except AttributeError as error:
            assert "qscale" in str(error)
        else:
            raise AssertionError("no AttributeError")


def test_disable_torch_function_block_in_one_graph():
    def fn(x):
        t = x.as_subclass(Passing)
        with torch._C.DisableTorchFunction():
            flag = torch._C._is_torch_function_all_disabled()
            mode_on = torch._C._is_torch_function_mode_enabled()
            r = t + 1
        return r, type(r).__name__, flag, mode_on, torch._C._is_torch_function_all_disabled()

    expected, got, report = _run(fn, torch.arange(3.0))
    assert expected[1:] == ("Tensor", True, False, False)
    _same(expected, got)
    _clean(report)
    loom.reset()
    compiled = loom.compile(fn)
    compiled(torch.arange(3.0))
    compiled(torch.arange(3.0))
    assert loom.stats()["graphs"] == 1 and loom.stats()["recompiles"] == 0


def test_disable_torch_function_sets_the_traced_modes_aside():
    def fn(x):
        with ZeroAdd():
            with torch._C.DisableTorchFunction():
                a = torch.add(x, 1)
                depth = torch._C._len_torch_function_stack()
            b = torch.add(x, 1)
        return a, b, depth

    expected, got, report = _run(fn, torch.arange(3.0))
    assert torch.equal(expected[0], torch.arange(3.0) + 1) and not expected[1].any() and expected[2] == 1
    _same(expected, got)
    _clean(report)


def test_mode_entered_inside_disable_torch_function_waits_for_its_end():
    """A mode pushed in a ``DisableTorchFunction`` block is handed nothing there, and everything after the block
    (it broke the graph before)."""
    def entered(x):
        with torch._C.DisableTorchFunction():
            with ZeroAdd():
                a = torch.add(x, 1)
        return a

    def pushed(x):
        m = ZeroAdd()
        with torch._C.DisableTorchFunction():
            torch._C._push_on_torch_function_stack(m)
            inside = torch.add(x, 1)
        after = torch.add(x, 1)
        torch._C._pop_torch_function_stack()
        return inside, after, torch.add(x, 1)

    for fn in (entered, pushed):
        expected, got, report = _run(fn, torch.arange(3.0))
        _same(expected, got)
        _clean(report)
    assert not expected[1].any()


def test_class_with_torch_function_off_keeps_its_class():
    def fn(x):
        t = (x + 1).as_subclass(Silent)
        u = Silent(x.clone())
        return t, type(t * 1).__name__, u, torch.overrides.has_torch_function_unary(t)

    expected, got, report = _run(fn, torch.arange(3.0))
    assert type(expected[0]) is Silent and expected[1] == "Tensor" and expected[3] is False
    _same(expected, got)
    _clean(report)


class Overriding(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.made = True

    def add(self, other, alpha=1):
        return super().add(other, alpha=alpha) * 10

    def sum(self, dim=None, keepdim=False):
        return super().sum().as_subclass(Overriding) + 1

    @classmethod
    def label(cls):
        return cls.__name__


class OverridingChild(Overriding):
    def add(self, other, alpha=1):
        return super().add(other, alpha=alpha) - 1


def test_super_in_a_subclass_method_reaches_tensor_methods():
    def fn(x):
        t = x.as_subclass(Overriding)
        c = x.as_subclass(OverridingChild)
        made = Overriding(x.clone())
        return t.add(1), t.sum(), torch.add(t, 1), c.add(2, alpha=3), made.made

    expected, got, report = _run(fn, torch.arange(3.0))
    assert torch.equal(expected[3], (torch.arange(3.0) + 6) * 10 - 1)
    _same(expected, got)
    _clean(report)


def test_inherited_classmethod_binds_the_tensors_own_class():
    def fn(x):
        t = x.as_subclass(OverridingChild)
        return x + 1, t.label(), (t * 2).label()

    expected, got, report = _run(fn, torch.arange(3.0))
    assert expected[1:] == ("OverridingChild", "OverridingChild")
    _same(expected, got)
    _clean(report)


class Holder:
    """No tensor: hands every torch call to its classmethod ``__torch_function__``, which unwraps it."""

    def __init__(self, t):
        self.t = t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        def unwrap(a):
            if isinstance(a, (list, tuple)):
                return type(a)(unwrap(b) for b in a)
            return a.t if isinstance(a, Holder) else a

        return func(*unwrap(list(args)), **(kwargs or {}))


def test_object_with_torch_function_takes_the_calls():
    def fn(x, h):
        made = Holder(x * 2)
        return (torch.add(h, x, alpha=2.0), torch.cat([x, h]), torch.sub(made, 1), x * h,
                torch.overrides.has_torch_function((x, h)))

    expected, got, report = _run(fn, torch.arange(3.0), Holder(torch.ones(3)))
    assert expected[-1] is True
    _same(expected, got)
    _clean(report)


def test_object_with_torch_function_under_a_disabled_block_breaks():
    def fn(x, h):
        try:
            with torch._C.DisableTorchFunctionSubclass():
                return torch.add(x, h)
        except TypeError:
            return x - 1

    expected, got, report = _run(fn, torch.arange(3.0), Holder(torch.ones(3)))
    _same(expected, got)
    assert report.graph_break_count >= 1


class Redispatching(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return torch.overrides.redispatch_function(func, types, args, kwargs or {})


def plus(a, b):
    if torch.overrides.has_torch_function((a, b)):
        return torch.overrides.handle_torch_function(plus, (a, b), a, b)
    return a + b


def test_redispatch_function_runs_the_function_as_it_is():
    """``redispatch_function`` sets torch's skip-one-check flag and calls ``plus`` again: that call's check must
    see the flag (compiled, ``plus`` answered True and recursed until torch refused to skip twice)."""
    def fn(x):
        a = x.as_subclass(Redispatching)
        return plus(a, a * 2), plus(a, x)

    x = torch.arange(3.0)
    expected = fn(x)
    loom.reset()
    compiled = loom.compile(fn, options={"strict": True})
    for _ in range(2):
        _same(expected, compiled(x))
        assert not torch._C._peek_should_skip_torch_function()


class TypeNames(BaseTorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(sorted(t.__name__ for t in types))
        return super().__torch_function__(func, types, args, kwargs)


def test_object_with_torch_function_under_a_mode():
    def fn(x, h):
        with TypeNames() as m:
            y = torch.mul(h, x)
            z = torch.mul(x, 2)
        return y + z, m.seen

    expected, got, report = _run(fn, torch.arange(3.0), Holder(torch.ones(3)))
    assert expected[1][0] == ["Holder"]
    _same(expected, got)
    _clean(report)


def test_mode_sees_the_real_types():
    """A mode reading ``types`` saw the probe's FakeTensor for a method's ``self`` and nothing for a subclass
    tensor (a wrong answer): now each overloaded argument's own class, in eager's order."""
    def fn(x, p):
        t = x.as_subclass(Passing)
        with TypeNames() as m:
            a = t.mul(2) + 1
            b = p.exp()
            c = torch.cat([x, t])
            d = torch.mul(t, 2)
            e = x.exp()
        return a, b, c, d, e, m.seen

    expected, got, report = _run(fn, torch.arange(3.0), torch.nn.Parameter(torch.ones(3)))
    assert expected[-1] == [["Passing"], ["Passing"], ["Parameter"], ["Passing"], ["Passing"], ["Tensor"]]
    _same(expected[:-1], got[:-1])
    assert got[-1] == expected[-1]
    _clean(report)


class Calls(torch.Tensor):
    names = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.names.append(getattr(func, "__name__", "?"))
        return super().__torch_function__(func, types, args, kwargs)


def test_iteration_over_a_subclass_tensor_hands_its_calls_over():
    """Iterating a subclass tensor broke; ``list()``/``tuple()``/``[*t]`` also ask ``Tensor.__len__`` (CPython's
    length hint, after ``iter()``), which a mode or subclass is handed in eager but was not in the trace."""
    def fn(x):
        Calls.names = []
        t = x.as_subclass(Calls)
        items = list(t)
        a, b, c = t
        total = 0
        for row in t:
            total = total + row
        return items, a + c, total, [*t], tuple(t), list(Calls.names)

    expected, got, report = _run(fn, torch.arange(3.0))
    assert expected[-1][:7] == ["dim", "unbind", "__len__", "dim", "unbind", "dim", "unbind"]
    _same(expected, got)
    _clean(report)


def test_mode_is_handed_the_length_hint():
    def fn(x):
        with TypeNames() as m:
            a = list(x)
            b = tuple(x)
            c = [*x]
            d = [e * 2 for e in x]
        return a, b, c, d, len(m.seen)

    expected, got, report = _run(fn, torch.arange(3.0))
    assert expected[-1] == 3 * 3 + 2 + 3  # dim, unbind, __len__ thrice; dim, unbind, three muls
    _same(expected, got)
    _clean(report)


def test_iteration_over_a_zero_dim_subclass_tensor_raises():
    def fn(x):
        t = x.sum().as_subclass(Calls)
        try:
            list(t)
        except TypeError as e:
            return x + 1, str(e)
        return x, ""

    expected, got, report = _run(fn, torch.arange(3.0))
    assert expected[1] == "iteration over a 0-d tensor"
    _same(expected, got)


def test_is_tensor_method_or_property_folded():
    """It builds torch's table of testing overrides inside a ``warnings.catch_warnings`` block: inlined, a break."""
    def fn(x):
        check = torch.overrides.is_tensor_method_or_property
        return x * 2, check(torch.Tensor.add), check(torch.add), check(torch.Tensor.ndim.__get__)

    expected, got, report = _run(fn, torch.arange(3.0))
    assert expected[1:] == (True, False, True)
    _same(expected, got)
    _clean(report)
