"""Edge programs after Paddle's SOT tests for ``capture_count.py --only paddle12``: errors that leave the frame
(test_exception: a missing name, a missing tensor attribute, a division by zero three calls down, an index
out of range), user iterables (test_iter), and object protocols beside them (descriptors, metaclass calls,
``__getattribute__``, ``__class_getitem__``, ordering of user objects, ``zip(strict=True)``, mapping patterns).
"""

from __future__ import annotations

import torch


# -- errors that leave the frame (test_exception) ------------------------------------------------------------
def c_p12e_missing_name_raises(x):
    x = x + 1
    return _not_defined_anywhere  # noqa: F821 - the NameError is the construct


def c_p12e_missing_tensor_attribute_raises(x):
    y = x * 2
    return y.undefined_attr


def _div3(v):
    v = v + 1
    return _div2(1 / 0) + v


def _div2(v):
    return v + 1


def c_p12e_zero_division_three_calls_down(x):
    return _div3(x) + 1


def c_p12e_tensor_index_out_of_range_raises(x):
    x = x + 1
    return x[111]


def c_p12e_matmul_shape_error_raises(x):
    return x.reshape(3, 1) @ x.reshape(3, 1)


# -- user iterables (test_iter) ---------------------------------------------------------------------------------
class _ListIterable:
    def __init__(self):
        self._items = [1, 2, 3]

    def __iter__(self):
        return iter(self._items)


class _DictIterable:
    def __init__(self):
        self._table = {0: 1, 1: 2, 2: 3}

    def __iter__(self):
        return iter(self._table)


class _RangeIterable:
    def __iter__(self):
        return iter(range(5))


def c_p12e_user_iterables_inplace(x):
    for it in (_ListIterable(), _DictIterable(), _RangeIterable()):
        for i in it:
            x += i
    return x


def c_p12e_user_iterable_unpacked_and_zipped(x):
    a, b, c = _ListIterable()
    return x + a + b + c, list(zip(_ListIterable(), _DictIterable())), sum(_RangeIterable())


# -- object protocols ------------------------------------------------------------------------------------------
class _Twice:
    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj.base * 2


class _HasDescriptor:
    twice = _Twice()

    def __init__(self, base):
        self.base = base


def c_p12e_non_data_descriptor(x):
    o = _HasDescriptor(x)
    return o.twice + 1, isinstance(_HasDescriptor.twice, _Twice)


class _CountingMeta(type):
    made = 0

    def __call__(cls, *args):
        _CountingMeta.made += 1
        return super().__call__(*args)


class _Made(metaclass=_CountingMeta):
    def __init__(self, v):
        self.v = v


def c_p12e_metaclass_call(x):
    before = _CountingMeta.made
    a = _Made(x)
    b = _Made(x + 1)
    return a.v + b.v, _CountingMeta.made - before


class _Logged:
    def __init__(self, v):
        self.v = v

    def __getattribute__(self, name):
        if name == "doubled":
            return object.__getattribute__(self, "v") * 2
        return object.__getattribute__(self, name)


def c_p12e_getattribute_override(x):
    o = _Logged(x)
    return o.doubled + o.v


class _Typed:
    def __class_getitem__(cls, item):
        return (cls.__name__, item)


def c_p12e_class_getitem(x):
    name, item = _Typed[int]
    return x + len(name), item is int


class _Ver:
    def __init__(self, major, minor):
        self.key = (major, minor)

    def __lt__(self, other):
        return self.key < other.key

    def __eq__(self, other):
        return isinstance(other, _Ver) and self.key == other.key

    __hash__ = None


def c_p12e_sorted_user_objects_and_membership(x):
    vs = [_Ver(1, 2), _Ver(0, 9), _Ver(1, 0)]
    ordered = sorted(vs)
    return x + ordered[0].key[1], [v.key for v in ordered], _Ver(1, 0) in vs, max(vs).key


def c_p12e_zip_strict_mismatch_caught(x):
    try:
        list(zip([1, 2], [3], strict=True))
    except ValueError:
        x = x + 1
    return x, list(zip([x, x], [1, 2], strict=True))[1][1]


def c_p12e_match_mapping_and_guard(x):
    out = []
    for cfg in ({"kind": "scale", "by": 2}, {"kind": "shift", "by": -1}, {"kind": "other"}):
        match cfg:
            case {"kind": "scale", "by": by} if by > 1:
                out.append(x * by)
            case {"kind": "shift", **rest}:
                out.append(x + rest["by"])
            case _:
                out.append(x)
    return out


def c_p12e_vars_and_dict_iteration(x):
    o = _HasDescriptor(x)
    o.extra = 3
    return [k for k in vars(o)], x + o.__dict__["extra"], sorted(o.__dict__)


def c_p12e_torch_size_building(x):
    s = x.reshape(1, 3).shape
    t = s + (4,)  # noqa: RUF005 - Size plus tuple is the construct
    return torch.zeros(t).sum() + x, t, s[1:] == torch.Size([3]), s.numel()


def c_p12e_isinstance_issubclass_tuples(x):
    return (isinstance(x, (int, torch.Tensor)), issubclass(torch.nn.Linear, (torch.nn.Module, int)),
            isinstance(3, (float, str)), type(x).__name__, x.__class__ is torch.Tensor, x + 1)


def c_p12e_frozenset_and_bytearray(x):
    a = frozenset({1, 2, 3})
    b = bytearray(b"ab")
    b.append(99)
    b[0] = 120
    return x + len(a | {4}), bytes(b), a.issuperset({1, 2}), sorted(a ^ {3, 5})


def c_p12e_complex_numbers(x):
    z = complex(1, 2) * (3 - 1j)
    return x + z.real + abs(3 + 4j), z.imag, z.conjugate()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
