"""Object-model repros from the second half of PyTorch's test/dynamo/test_repros.py, for ``capture_count.py
--only dynamo_tests_repros2``: detectron2's ``Instances`` (``__getattr__``/``__setattr__`` over a field
dict), weak references, ``super`` in static methods and diamonds, modules built inside the frame whose
``__init__`` reads properties, ``__slots__`` with class methods, parametrizations, enums with ``_missing_``,
``TypedDict``s, distributions, bound methods of a parent module held by a child, and ``threading.local``.
"""

from __future__ import annotations

import enum
import itertools
import os
import threading
import typing
import weakref

import torch
from torch import nn


class _Instances:
    def __init__(self, image_size, **kwargs):
        self._image_size = image_size
        self._fields = {}
        for k, v in kwargs.items():
            self.set(k, v)

    @property
    def image_size(self):
        return self._image_size

    def __setattr__(self, name, val):
        if name.startswith("_"):
            super().__setattr__(name, val)
        else:
            self.set(name, val)

    def __getattr__(self, name):
        if name == "_fields" or name not in self._fields:
            raise AttributeError(f"no field {name!r}")
        return self._fields[name]

    def __len__(self):
        for v in self._fields.values():
            return v.__len__()
        raise NotImplementedError("empty")

    def set(self, name, value):
        if len(self._fields):
            assert len(self) == len(value), "length mismatch"
        self._fields[name] = value

    def get(self, name):
        return self._fields[name]

    @staticmethod
    def cat(lists):
        assert all(isinstance(i, _Instances) for i in lists)
        if len(lists) == 1:
            return lists[0]
        size = lists[0].image_size
        for i in lists[1:]:
            assert i.image_size == size
        ret = _Instances(size)
        for k in lists[0]._fields.keys():
            values = [i.get(k) for i in lists]
            if isinstance(values[0], torch.Tensor):
                values = torch.cat(values, dim=0)
            elif isinstance(values[0], list):
                values = list(itertools.chain(*values))
            ret.set(k, values)
        return ret


def c_r2_instances_cat(x):
    parts = [_Instances((4, 4), a=x * i, b=[i, i, i]) for i in range(3)]
    out = parts[0].cat(parts)
    out.c = out.a + 1
    return out.a, out.b, out.c, len(out), out.image_size, hasattr(out, "d")


def c_r2_weakref_made_inside(x):
    return weakref.ref(x)() * 2


_WEIGHT = torch.ones(3)
_WEAK = weakref.ref(_WEIGHT)


def c_r2_weakref_global_compare(x):
    if _WEAK is not None and _WEAK() is not _WEIGHT:
        return torch.sin(x)
    return torch.cos(x) + (_WEAK() is not None)


def c_r2_super_in_staticmethod_raises(x):
    class A:
        @staticmethod
        def foo():
            return super().__init__()

    return A().foo(), x


class _Parent:
    @staticmethod
    def greet():
        return 5


class _Child(_Parent):
    @staticmethod
    def greet(t):
        return t * super(_Child, _Child).greet()


def c_r2_super_of_staticmethod(x):
    return _Child().greet(x)


def c_r2_super_diamond(x):
    class A:
        def __init__(self):
            super().__init__()
            self.a = 5

    class Nothing:
        pass

    class B(Nothing, A):
        def __init__(self):
            super().__init__()
            self.b = 10

        def run(self, t):
            return self.a * self.b * t

    return B().run(x), [c.__name__ for c in B.__mro__]


def c_r2_module_callable(x):
    class M(nn.Module):
        def forward(self, t):
            return t.sin()

    m = M()
    return callable(m), callable(x), callable(len), m(x)


def c_r2_module_init_reads_property(x):
    class Matrix(nn.Module):
        def __init__(self, data):
            super().__init__()
            self._data = data
            self.foo = 10 * self.blocking

        @property
        def data(self):
            return self._data

        @property
        def blocking(self):
            return self.data.shape[1]

    m = Matrix(torch.outer(x, torch.ones(5)))
    return m.foo, m.data.shape, type(m).__name__


class _Slotted:
    __slots__ = ("_a",)

    def __init__(self):
        self._a = 2

    @classmethod
    def _m(cls):
        return 3

    def run(self, t):
        return torch.sin(t) * self._a * self._m()


def c_r2_slots_with_classmethod(x):
    return _Slotted().run(x)


class _Sin(nn.Module):
    def forward(self, t):
        return torch.sin(t)


_PARAMETRIZED = nn.Linear(3, 3, bias=False)
torch.nn.utils.parametrize.register_parametrization(_PARAMETRIZED, "weight", _Sin())


def c_r2_parametrized_module(x):
    return _PARAMETRIZED(x)


_CLOSED = torch.ones(3, 3)


class _PropertyClosure(nn.Module):
    @property
    def y(self):
        return torch.ones(3, 3) + _CLOSED

    def forward(self, t):
        return t @ self.y


_PROP_MOD = _PropertyClosure()


def c_r2_module_property_closure(x):
    return _PROP_MOD(x)


def c_r2_list_reverse_ladder(x):
    t = x.reshape(1, 3)
    trail = t.size(-1)
    weights = [torch.ones(s, s - 1) for s in [trail, trail - 1]]
    for w in weights:
        t = t @ w
    weights.reverse()
    for w in weights:
        t = t @ w.t()
    return t


_EMPTY: dict = {}


def c_r2_global_dict_keyerror(x):
    try:
        y = _EMPTY[0]
    except KeyError:
        y = 1
    return x + y


class _Scalar:
    def __init__(self):
        self.scalar = 10


def c_r2_dict_holding_object(x, d):
    return x * d["a"] * d["b"] * d["c"].scalar * d["t"][0].scalar


c_r2_dict_holding_object.extra_args = lambda: ({"a": 2, "b": 3, "c": _Scalar(), "t": (_Scalar(),)},)


class _ExplicitEnum(str, enum.Enum):  # noqa: UP042 (transformers spells it so)
    @classmethod
    def _missing_(cls, value):
        raise ValueError(f"{value} is not a valid {cls.__name__}: {list(cls._value2member_map_.keys())}")


class _Padding(_ExplicitEnum):
    LONGEST = "longest"
    MAX_LENGTH = "max_length"


def c_r2_str_enum_by_value(x):
    a = _Padding("longest")
    if a == _Padding.LONGEST and a == "longest":
        x = torch.sin(x)
    try:
        _Padding("nope")
    except ValueError as e:
        x = x + len(str(e))
    return x


class _WithFoo:
    foo: int = 1


def c_r2_getattr_on_type_default(x):
    m = _WithFoo()
    return x + getattr(type(m), "foo", 0) + getattr(int, "foo", 0)


def c_r2_grad_attribute_set(x, y):
    w = x.clone().requires_grad_(True)
    w._grad = y
    return w.grad.data * 2, w.grad is y


c_r2_grad_attribute_set.extra_args = lambda: (torch.ones(3),)


def c_r2_is_make_fx_tracing(x):
    torch.nn.modules.activation._is_make_fx_tracing()
    return torch.sin(x)


class _Stepper(nn.Module):
    def __init__(self):
        super().__init__()
        self.nums = torch.arange(1, 11)
        self.t = 5

    def forward(self):
        self.num = self.nums[self.t // 12]
        self.t += 1
        return self.num


def c_r2_module_counter_floordiv(x):
    m = _Stepper()
    return m() + x, m() + x, m.t


def c_r2_tensor_random_kwargs(x):
    t = torch.zeros(2, 3)
    t.random_(**{"from": -10, "to": 10})
    u = torch.zeros(3).uniform_(**{"from": -10, "to": 10})
    return t, u + x


def c_r2_data_mutated_after_use(x):
    w = x.clone().requires_grad_(True)
    out = w.sin()
    w.data.mul_(2)
    return out, w


def c_r2_map_of_two_lists(x):
    def f(a, b):
        return a[0] * b[0] + a[1] * b[1]

    xs = [x + i for i in range(3)]
    ys = [x * i for i in range(5)]
    m = map(f, xs, ys)
    return type(m).__name__, tuple(m)


def c_r2_complex_times_imaginary(x):
    c = torch.view_as_complex(torch.stack([x, x + 1], dim=-1))
    return torch.view_as_real(torch.mul(c, 2j))


def c_r2_outputs_grad_mixed(x):
    w = x.clone().requires_grad_(True)
    with torch.no_grad():
        out0 = w + 1
    out1 = w + 1
    return out0.requires_grad, out1.requires_grad, out0, out1.detach()


def c_r2_typed_dict(x):
    class Inputs(typing.TypedDict):
        type: str
        data: torch.Tensor

    obj = Inputs(type="pixel", data=x + 1)
    out = x * obj["data"]
    obj["data"] = 3
    return out * obj["data"], obj, type(obj) is dict


def c_r2_categorical_subclass(x):
    class SubCateg(torch.distributions.Categorical):
        pass

    categ = SubCateg(logits=x)
    return categ.log_prob(categ.sample()) + categ.probs + categ.logits


def c_r2_split_in_device_ctx(x):
    t = torch.zeros(12) + x.sum()
    with torch.device("cpu"):
        return t.split(4, 0)


class _Dilate(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, t):
        return self.fn() * torch.sin(t)


class _Main(nn.Module):
    def __init__(self):
        super().__init__()
        self.mod = _Dilate(self.scale)
        self.a = 4

    def scale(self):
        return self.a

    def forward(self, t):
        return self.mod(t)


_MAIN = _Main()


def c_r2_child_holds_parent_bound_method(x):
    return _MAIN(x)


def c_r2_os_fspath(x):
    return torch.sin(x), os.fspath("."), os.fspath(b"a")


_LOCAL = threading.local()
_LOCAL.x = torch.ones(1)


def c_r2_threading_local(x):
    return torch.cat([x, _LOCAL.x])


def c_r2_view_as_int(x):
    return x.view(torch.int32), (x + 1).requires_grad_().view(torch.int32)


def c_r2_leaf_made_inside(x):
    leaf = torch.ones(3, requires_grad=True)
    out = leaf * 2 + x
    return leaf.is_leaf, out.requires_grad, out.detach()


def c_r2_two_backwards(a, b):
    c = torch.ones(3, 3)
    e = torch.matmul(a, c)
    torch.abs(e - 1).mean().backward()
    torch.matmul(b, e.detach()).mean().backward()
    return a.grad, b.grad


c_r2_two_backwards.extra_args = lambda: (torch.eye(3).requires_grad_(True),)


class _Key(enum.Enum):
    A = "a"


_TINY = nn.Linear(1, 1)


def c_r2_enum_keyed_input_dict(x, d):
    return _TINY(d[_Key.A]) + x


c_r2_enum_keyed_input_dict.extra_args = lambda: ({_Key.A: torch.ones(3, 1)},)


def c_r2_tensor_as_slice_bound(x):
    y = torch.ones(8)
    idx = x.long()[1]
    return (y[idx:] + 3) * 5


def c_r2_setitem_tuple_with_tensor_slice(x):
    lengths = torch.tensor([1, 2, 3, 2])
    m = torch.ones(4, 5)
    m[(3, slice(lengths[3], None, None))] = 0
    return (m + x.sum(),)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
