"""Further programs after PyTorch's split test_misc.py (parts 1 to 4) for ``capture_count.py --only misc14``: user
``__getattribute__``/``__getattr__`` on objects and modules, ``MutableMapping`` mixed into a module, ``__new__``
chains through ``super()``, namedtuples with extra attributes, structseqs built by hand, range iterators, truth of
objects by ``__bool__``/``__len__``, ``typing`` callables, ``torch.jit.annotate``, legacy tensor types.
"""

from __future__ import annotations

import collections
import dataclasses
import typing

import torch


# -- attribute protocols -----------------------------------------------------------------------------------------
class _DictConfig(dict):
    def __getattr__(self, name):
        return self[name]


def c_m14_dict_subclass_getattr_item(x):
    cfg = _DictConfig(offset=5)
    return x + cfg.offset


class _Routed:
    def __init__(self):
        self.table = {"a": 2.0}
        self.number = 3

    def __getattribute__(self, name):
        table = super().__getattribute__("table")
        if name in table:
            return table[name]
        return super().__getattribute__(name)

    def run(self, x):
        return self.number * x + self.a * x


def c_m14_user_getattribute_routes(x):
    return _Routed().run(x)


class _QueueMod(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.extra = {"queue": [torch.ones(3), torch.full((3,), 2.0)]}

    def __getattr__(self, name):
        extra = self.__dict__.get("extra")
        if extra is not None and name in extra:
            return extra[name]
        return super().__getattr__(name)

    def forward(self, x):
        return x + self.queue[-1]


def c_m14_module_getattr_custom_table(x):
    return _QueueMod()(x)


class _SpecialMod(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 3.0

    def __getattribute__(self, name):
        if name == "alias_scale":
            return super().__getattribute__("scale")
        return super().__getattribute__(name)

    def forward(self, x):
        return x * self.alias_scale


def c_m14_module_getattribute_alias(x):
    return _SpecialMod()(x)


class _Weird(collections.abc.MutableMapping, torch.nn.Module):
    def __init__(self, **kwargs):
        super().__init__()
        self._items = kwargs

    def __getitem__(self, k):
        return self._items[k]

    def __setitem__(self, k, v):
        self._items[k] = v

    def __delitem__(self, k):
        del self._items[k]

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        yield from self._items

    def __hash__(self):
        return id(self)


def c_m14_mutable_mapping_module_copy(x):
    d = _Weird(a=1, b=2)
    e = _Weird(**d)
    return x + len(e), sorted(e.keys())


# -- __new__ chains --------------------------------------------------------------------------------------------------
class _Vehicle:
    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __init__(self, wheels):
        self.wheels = wheels


class _Car(_Vehicle):
    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __init__(self, wheels, doors):
        super().__init__(wheels)
        self.doors = doors


def c_m14_new_chain_through_super(x):
    car = _Car(4, 2)
    return x * car.wheels + car.doors


class _B1:
    def __new__(cls):
        return super().__new__(cls)

    def __init__(self):
        super().__init__()
        self.b1 = 3 if hasattr(self, "b2") else -100


class _B2:
    def __new__(cls):
        return super().__new__(cls)

    def __init__(self):
        super().__init__()
        self.b2 = 5


class _Both(_B1, _B2):
    def __new__(cls):
        return super().__new__(cls)

    def __init__(self):
        super().__init__()
        self.d = 7


def c_m14_new_multiple_inheritance_mro(x):
    o = _Both()
    return o.b1 * o.b2 * o.d * x


class _Holder:
    pass


class _WithClassVar:
    shared = _Holder()

    @classmethod
    def read(cls):
        return cls.shared.__class__.__name__

    def run(self, x):
        return x + len(self.read())


def c_m14_classmethod_reads_class_object(x):
    return _WithClassVar().run(x)


# -- namedtuples and structseqs ------------------------------------------------------------------------------------
class _NT(typing.NamedTuple):
    a: torch.Tensor
    b: torch.Tensor


class _NTSub(_NT):
    pass


def c_m14_namedtuple_subclass_extra_attr(x):
    t = _NTSub(a=x, b=x + 1)
    t.c = x * 3
    return t.a + t.b + t.c, hasattr(t, "c")


class _Pair(typing.NamedTuple):
    a: int
    b: int


def c_m14_namedtuple_equals_tuple(x):
    return x.sin(), _Pair(1, 2) == (1, 2), _Pair(1, 2) != (2, 1)


def c_m14_namedtuple_fields_and_hasattr(x):
    p = _NT(x, x * 2)
    n = len(p._fields)
    b = p.b + 1 if hasattr(p, "b") else p.b
    return p[0] + b + n


def c_m14_structseq_by_hand(x):
    m = torch.return_types.max((x, x.long()))
    q = tuple(torch.return_types.qr((2 * x, x - 1)))
    return m.values, m.indices, q


# -- iterators and ranges --------------------------------------------------------------------------------------------
def c_m14_range_dunder_iter(x):
    it = range(3).__iter__()
    next(it)
    return x + next(it)


def c_m14_list_and_tuple_mul_counts(x):
    n = 2
    mask = n * [None] * n
    nums = n * (2, 3) * n
    part = n * [1, 2, 3][1:] * n
    return x + len(mask) + nums[4] + part[-1]


def c_m14_tuple_mul_with_shape(x):
    y = 2 * (x.shape[0], 3) * 2
    return x + y[4]


# -- truth of objects ------------------------------------------------------------------------------------------------
class _LenOnly:
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)


class _BoolBeatsLen(_LenOnly):
    def __bool__(self):
        return False


def c_m14_truth_by_len_and_bool(x):
    out = x
    for obj in (_LenOnly([1]), _LenOnly([]), _BoolBeatsLen([1, 2])):
        out = out + 1 if not obj else out - 1
    return out


def c_m14_module_truth(x):
    if torch.nn.ModuleList():
        return x + 1
    if torch.nn.Sequential(torch.nn.Identity()):
        return x + 2
    return x - 1


# -- typing ------------------------------------------------------------------------------------------------------------
_T = typing.TypeVar("_T")


def c_m14_typevar_callable_annotations(x):
    def summed(y: torch.Tensor) -> torch.Tensor:
        return torch.sum(y)

    def apply(c: typing.Callable[[_T], _T], y: _T) -> _T:
        return c(y)

    return apply(summed, x)


def c_m14_jit_annotate_empty_dicts(x):
    a = torch.jit.annotate(typing.Dict[str, typing.Optional[torch.Tensor]], {})  # noqa: UP006, UP045
    b = torch.jit.annotate(dict[str, typing.Union[torch.Tensor, None]], {})  # noqa: UP007
    return a, b, x + 1


def c_m14_union_annotations_nested(x):
    def inner(y: torch.Tensor | None, z: None | list[int] = None):  # noqa: RUF036
        return y

    return inner(x + 1)


# -- tensor helpers ----------------------------------------------------------------------------------------------------
def c_m14_is_tensor_like_both(x):
    a = torch.overrides.is_tensor_like(x)
    b = torch.overrides.is_tensor_like(4)
    return (x * 2,) if a and not b else (x,)


def c_m14_zeros_like_by_layout(x):
    m = x.view(1, 3)
    return torch.zeros([m.size()[0], m.size()[1]], dtype=m.dtype, layout=m.layout, device=m.device)


def c_m14_index_by_data(x):
    idx = torch.ones(3, dtype=torch.int)
    return x[idx.data]


def c_m14_slice_of_list_plus(x):
    layers = list(range(10))
    part = layers[slice(3, 8, 2)] + [100]
    return x + sum(part), part


def c_m14_repr_user_class_len(x):
    class Config:
        def __repr__(self):
            return "Config()"

    return x * len(repr(Config()))


def c_m14_nan_float_arithmetic(x):
    n = float("nan")
    return x * 2 + n, n != n


def c_m14_dataclass_fields_defaults(x):
    @dataclasses.dataclass
    class Data:
        a: torch.Tensor
        b: torch.Tensor = None
        c: torch.Tensor = None

    obj = Data(x, c=x + 1)
    fields = dataclasses.fields(obj)
    total = getattr(obj, fields[0].name)
    for f in fields[1:]:
        v = getattr(obj, f.name)
        if v is not None:
            total = total + v
    return total, all(f.default is None for f in fields[1:]), hasattr(obj, "z")


def c_m14_user_binop_missing_sub(x):
    class Box:
        def __init__(self, v):
            self.v = v

        def __add__(self, other):
            return Box(self.v + other.v)

    a, b = Box(x), Box(x + 1)
    try:
        a - b
    except TypeError:
        return (a + b).v
    return x


def c_m14_legacy_long_tensor_of_items(x):
    y = [x.long()[0], x.long()[2]]
    return torch.LongTensor([1, 2, 3]) + x.long(), torch.stack(y)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
