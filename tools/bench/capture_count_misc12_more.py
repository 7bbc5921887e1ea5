"""More programs for ``capture_count.py --only misc12`` (after PyTorch's test_misc part 8): a frozen
``OrderedDict`` subclass read through ``dict()``, a sequence rebuilt through ``x.__class__``, ``!=`` on objects
whose class writes only ``__eq__`` (or both), a bare ``raise`` inside a helper caught by the caller, a class
with ``__getattribute__`` going through ``super()``, ``__weakref__`` of a fresh object, ``complex()`` in all
its spellings, the ``from_bytes``/``fromhex`` class methods, frozensets as dict keys, ``detach_`` on an
intermediate, an import of a ``ModuleType`` subclass instance from ``sys.modules``.
"""

from __future__ import annotations

import collections
import dataclasses
import sys
import types

import torch


class _FrozenOrdered(collections.OrderedDict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for key, value in self.items():
            setattr(self, key, value)
        self.__frozen = True

    def pop(self, *args, **kwargs):
        raise TypeError("frozen")

    def __setattr__(self, name, value):
        if hasattr(self, "__frozen") and self.__frozen:
            raise TypeError("frozen")
        super().__setattr__(name, value)


_FROZEN = _FrozenOrdered({"alpha": 1, "beta": 2})


def c_m12_frozen_ordered_dict_items(x):
    pairs = list(dict(_FROZEN).items())
    return torch.sin(x) + pairs[1][1], _FROZEN.alpha


_Pair = collections.namedtuple("_Pair", ["left", "right"])


def c_m12_rebuild_through_class(x):
    parts = (x, x + 1)
    listed = [x * 2, x * 3]
    pair = _Pair(x, x - 1)
    return parts.__class__(v + 1 for v in parts), listed.__class__(v - 1 for v in listed), pair.__class__(*[v * 2 for v in pair])


def c_m12_tensor_eq_none(x):
    return torch.tensor(x == None), x != None  # noqa: E711


@dataclasses.dataclass(frozen=True)
class _Conf:
    size: int
    name: str = "n"


def c_m12_dataclass_replace_kwargs(x):
    conf = _Conf(0)
    if dataclasses.is_dataclass(conf):
        conf = dataclasses.replace(conf, **{"size": 3})
        return x + conf.size, conf
    return x, conf


class _Box:
    pass


_BOX = _Box()
_BOX.count = 0
_BOXES = frozenset([_BOX])


def c_m12_frozenset_of_objects_mutation(x):
    first = list(_BOXES)[0]  # noqa: RUF015
    _BOX.count += 1
    seen = first.count
    _BOX.count -= 1
    return x + seen


class _EqOnly:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return self.v == other.v


class _EqAndNe(_EqOnly):
    def __ne__(self, other):
        self.asked = True
        return not self.__eq__(other)


def c_m12_ne_from_custom_eq(x):
    return x + 1, _EqOnly(1) != _EqOnly(1), _EqOnly(1) != _EqOnly(2)


def c_m12_ne_custom_ne(x):
    a = _EqAndNe(3)
    return x + 1, a != _EqAndNe(3), getattr(a, "asked", False)


def _reraise():
    try:
        raise ValueError("inner")
    except ValueError:
        raise


def c_m12_bare_reraise_caught(x):
    try:
        _reraise()
    except ValueError as e:
        return x.sin(), str(e)
    except Exception:
        return x.cos(), ""


class _Inner:
    def __init__(self, v):
        self.v = v


class _Mapped:
    attribute_map = {}

    def __init__(self):
        self.attribute_map = {"alias": "real"}
        self.inner = _Inner(5)

    def __setattr__(self, key, value):
        if key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        super().__setattr__(key, value)

    def __getattribute__(self, key):
        if key == "missing":
            raise AttributeError(key)
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)

    def __getattr__(self, key):
        if key == "missing":
            return 7
        raise AttributeError(key)


def c_m12_overridden_getattribute_made(x):
    m = _Mapped()
    m.alias = 2
    m.other = 3
    return x * m.alias * m.real * m.other * m.missing * m.inner.v


_MAPPED = _Mapped()
_MAPPED.alias = 4


def c_m12_overridden_getattribute_global(x):
    return x * _MAPPED.alias + _MAPPED.missing + _MAPPED.inner.v


class _Plain:
    pass


def c_m12_dunder_weakref_of_fresh(x):
    p = _Plain()
    if p.__weakref__:
        return torch.cos(x)
    return torch.sin(x)


def c_m12_complex_spellings(x):
    values = (complex(), complex(1), complex(2, 3), complex(imag=2), complex(real=1),  # noqa: UP018
              complex(imag=1, real=2), complex("1+2j"), complex(1, 2).conjugate())
    return x + sum(abs(v) for v in values), [v.real for v in values]


def c_m12_class_method_folds(x):
    folded = (bool.__new__(bool, 1), bool.from_bytes(b"\x00\x01", "big"), int.__new__(int, 42),
              int.from_bytes(b"\xff", byteorder="big", signed=True), float.fromhex("0x1.8p1"), float.hex(1.5))
    return x + folded[2], folded


_NESTED = {frozenset({0}): {frozenset({1, 2}): 3}}


def c_m12_frozenset_dict_keys(x):
    return x + _NESTED[frozenset({0})][frozenset({2, 1})]


def c_m12_detach_inplace_intermediate(x):
    y = x.clone().requires_grad_() * 2
    y.detach_()
    return y + 1, y.requires_grad, y.grad_fn is None


class _ConfigModule(types.ModuleType):
    level = 3


sys.modules.setdefault("loom_m12_config", _ConfigModule("loom_m12_config"))


def c_m12_import_module_subclass(x):
    import loom_m12_config

    return x + loom_m12_config.level


def c_m12_contiguous_strides_helper(x):
    from torch._prims_common import make_contiguous_strides_for

    y = x.reshape(3, 1).expand(3, 2).contiguous()
    return y.as_strided(y.shape, make_contiguous_strides_for(y.shape))


def c_m12_bool_of_all(x):
    return x + 1, bool((x >= 0).all())


def c_m12_frozenset_mutators_raise(x):
    s = frozenset((1, 2, 3))
    names = []
    for name in ("add", "pop", "discard", "clear"):
        try:
            getattr(s, name)
        except AttributeError as e:
            names.append(str(e))
    return x + len(s), names


def c_m12_frozenset_of_frozenset(x):
    inner = frozenset({x.shape[0], 7})
    outer = frozenset(inner)
    return x + len(outer), outer == inner, {outer: 1}[inner]


_HANDLERS = frozenset([abs, round])


def c_m12_frozenset_of_builtins(x):
    picked = sorted(f.__name__ for f in _HANDLERS)
    return x + (abs in _HANDLERS), picked


_ANY_BOX = _Box()
_ANY_BOX.count = 4
_BOX_SET = frozenset([_ANY_BOX, "tag"])


def c_m12_frozenset_mixed_members(x):
    total = x
    for member in _BOX_SET:
        if isinstance(member, _Box):
            total = total + member.count
    return total, "tag" in _BOX_SET


_TYPE_DICT = type.__dict__["__dict__"]


def c_m12_class_dict_through_descriptor(x):
    d = _TYPE_DICT.__get__(_Conf, type)
    return x + len([k for k in d if not k.startswith("_")]), "size" in d["__dataclass_fields__"]


def c_m12_exception_args_descriptor(x):
    getter = BaseException.__dict__["args"].__get__
    return x + getter(KeyError(3, 4))[0]


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
