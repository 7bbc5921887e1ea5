"""More programs after PyTorch's split test_misc.py (parts 1 to 4) for ``capture_count.py --only misc14``: instance
``__dict__`` beside data descriptors and slots, ``OrderedDict`` subclasses with attributes in ``__dict__``,
``__new__`` that returns another class's instance, closures written across frames, ``type(seq)(...)``, set and
dict helpers, ``F._Reduction``, ``typing`` and ``abc`` values as defaults. Each is written afresh over one tensor.
"""

from __future__ import annotations

import abc
import collections
import copy
import dataclasses
import functools
import operator
import threading
import typing
import warnings

import torch
import torch.nn.functional as F


# -- __dict__ beside descriptors and slots ---------------------------------------------------------------------
class _Stored:
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.__dict__.get("_stored", 0)

    def __set__(self, obj, value):
        obj.__dict__["_stored"] = value


class _WithStored:
    prop = _Stored()

    def __init__(self):
        self.prop = 4


def c_m14_dict_write_beside_descriptor(x):
    obj = _WithStored()
    obj.__dict__["extra"] = 9
    return x + obj.prop + obj.__dict__["extra"], sorted(obj.__dict__)


class _Tagged:
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.__dict__.get("_inner", "none")

    def __set__(self, obj, value):
        obj.__dict__["_inner"] = "tag_" + value


class _HasTagged:
    desc = _Tagged()


def c_m14_descriptor_then_dict_override(x):
    obj = _HasTagged()
    obj.desc = "hi"
    first = obj.desc
    obj.__dict__["_inner"] = "direct"
    return x + len(first), obj.desc


class _Doubling:
    def __set__(self, obj, value):
        obj.__dict__["field"] += value * 2


class _HasDoubling:
    field = _Doubling()

    def __init__(self):
        self.__dict__["field"] = 1


def c_m14_set_only_descriptor(x):
    obj = _HasDoubling()
    obj.field = 10
    return x + obj.field


class _SlotsAndDict:
    __slots__ = ("__dict__", "v")

    def __init__(self, v):
        self.v = v


def c_m14_slots_with_dict_write(x):
    obj = _SlotsAndDict(3)
    obj.__dict__["more"] = 100
    return x + obj.v + obj.more


class _Ordered(collections.OrderedDict):
    pass


def c_m14_ordereddict_subclass_dict_attrs(x):
    m = _Ordered(a=x)
    m.__dict__["k"] = 1
    m.__dict__["j"] = m.__dict__["k"] + 1
    if "tracker" not in m.__dict__:
        m.__dict__["tracker"] = []
    m.__dict__["tracker"].append(2)
    return m["a"] + m.__dict__["j"] + len(m.__dict__["tracker"]), sorted(m.__dict__)


class _PropOrdered(collections.OrderedDict):
    def __init__(self):
        super().__init__()
        self.__dict__["_value"] = 0

    @property
    def value(self):
        return self.__dict__.get("_value", 0)

    @value.setter
    def value(self, v):
        self.__dict__["_value"] = v


def c_m14_ordereddict_subclass_property(x):
    m = _PropOrdered()
    m.value = 7
    return x * m.value


class _LazyDict(dict):
    pass


def c_m14_dict_subclass_lazy_cache(x):
    m = _LazyDict(a=1)
    if not hasattr(m, "_cache"):
        m.__dict__["_cache"] = {}
    m.__dict__["_cache"]["key"] = 5
    return x + m._cache["key"] + m["a"]


# -- __new__, classes and metaclasses --------------------------------------------------------------------------
class _Other(torch.nn.Module):
    def forward(self, x):
        return torch.tanh(x + 1)


class _Redirect(torch.nn.Module):
    def __new__(cls):
        return _Other()


def c_m14_new_returns_other_module(x):
    other = _Redirect()
    return other(x) + x


class _Plain:
    def __new__(cls):
        inst = object.__new__(cls)
        inst.a = 3
        return inst

    def __init__(self):
        self.a = 5


class _Diverts:
    def __new__(cls):
        inst = object.__new__(_Plain)
        inst.a = 7
        return inst

    def __init__(self):
        self.a = 11


def c_m14_new_returns_foreign_instance(x):
    obj = _Diverts()
    return torch.sin(x) * obj.a, type(obj).__name__


class _Base:
    def __init__(self, x):
        self.x = x


class _Derived(_Base):
    def __init__(self, x):
        super().__init__(x)
        self.y = x * 2


def c_m14_class_reassignment(x):
    obj = _Base(5)
    obj.__class__ = _Derived
    return x + 1, isinstance(obj, _Derived), hasattr(obj, "y")


class _AbstractReader(metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def read(self):
        pass


class _Reader(_AbstractReader):
    def read(self):
        return "ok"


class _Unrelated:
    pass


def _pick(x, kinds=(_Reader, _Unrelated)):
    if _Reader in kinds:
        return x - 1
    return x + 1


def c_m14_abcmeta_classes_as_default(x):
    return _pick(x)


def _chain(x, f1=lambda t: t + 1, f2=torch.sin, f3=operator.neg):
    return f3(f2(f1(x)))


def c_m14_function_defaults_callables(x):
    return _chain(x)


def c_m14_typing_mapping_isinstance(x):
    m = {"k": x}
    if isinstance(m, typing.Mapping):
        return x + 1
    return x - 1


def c_m14_thread_local_made_in_frame(x):
    loc = threading.local()
    loc.value = x
    return loc.value + 1


def c_m14_thread_local_passed_in(x, loc):
    loc.value = x
    loc.count = getattr(loc, "count", 0) + 1
    return loc.value + loc.count, sorted(vars(loc))


c_m14_thread_local_passed_in.extra_args = lambda: (threading.local(),)


# -- closures across frames ------------------------------------------------------------------------------------
def c_m14_closure_write_across_functions(x):
    z = 1
    k = 2

    def create():
        def inner(t):
            nonlocal k, z
            k = z

        return inner

    def update_and_run(fn, t):
        nonlocal z
        z = 3
        fn(t)
        return t.cos()

    out = update_and_run(create(), x)
    return out + k, z


def c_m14_cells_via_method_and_fn(x):
    n = 0

    def inc():
        nonlocal n
        n += 1

    class Holder:
        def run(self, fn):
            fn()
            return n

    res = Holder().run(inc)
    return x + res


def c_m14_cell_name_shadowing(x):
    v = 0

    def make():
        v = 5

        def set_v(new):
            nonlocal v
            v = new

        def get_v():
            return v

        return get_v, set_v

    get_v, set_v = make()
    set_v(42)
    return x + v, get_v()


def c_m14_not_dynamic_scope(x):
    a = 1

    def g():
        a = 2
        return lambda: a

    return x + g()() + a


# -- containers and helpers ------------------------------------------------------------------------------------
def c_m14_type_copy_of_sequence(x):
    seq = (x, x + 1)
    a, b = seq
    return type(seq)([a + 1, b + 2, a + b]), type([a])([b])


def c_m14_set_update_map_int(x):
    s = set()
    s.update(map(int, [1.0, 2.0, 1.0]))
    s.discard(7)
    return x + len(s), sorted(s)


def c_m14_frozenset_of_torch_funcs(x):
    funcs = frozenset([torch.add, torch.mul])
    if torch.add in funcs and torch.sub not in funcs:
        return torch.add(x, 1.0)
    return x


def c_m14_perm_extend_generator(x):
    t = torch.zeros(1, 1, 1, 1, 1)
    perm = [0, 3]
    perm = list(range(min(perm))) + perm
    perm.extend(i for i in range(t.dim()) if i not in perm)
    return x + len(perm), perm


def c_m14_reduction_enum(x):
    enum = F._Reduction.get_enum("sum")
    if enum == 0:
        return x
    elif enum == 1:
        return x.mean()
    return x.sum()


def c_m14_id_of_globals_as_keys(x):
    memo = {}
    memo[id(_GLOBAL_LIST)] = True
    if id(_GLOBAL_LIST) in memo and id(_GLOBAL_DICT) not in memo:
        return x + 1.0
    return x + 2.0


_GLOBAL_LIST = [1.0, 2.0]
_GLOBAL_DICT = {"a": 1, "b": {"c": [2.0]}}


def c_m14_deepcopy_nested_global(x):
    d = copy.deepcopy(_GLOBAL_DICT)
    d["b"]["c"][0] = 5.0
    return x + d["b"]["c"][0] + _GLOBAL_DICT["b"]["c"][0]


def c_m14_catch_warnings_returned(x):
    cm = warnings.catch_warnings(record=True)
    return x.sin(), type(cm).__name__


def c_m14_nested_wraps(x):
    def outer(a):
        def mul(p, q):
            return p * q

        @functools.wraps(mul)
        def wrapped(p, q):
            return mul(p, q)

        return wrapped(a, a + 1), wrapped.__name__

    return outer(x)


@dataclasses.dataclass(frozen=True)
class _FrozenPost:
    x: torch.Tensor

    def __post_init__(self):
        object.__setattr__(self, "y", self.x + 2)


def c_m14_frozen_dataclass_post_init(x):
    d = _FrozenPost(x)
    return d.x, d.y


def c_m14_shape_as_tensor(x):
    return 1 + torch._shape_as_tensor(x.view(3, 1))[0]


def c_m14_list_append_returns_none(x):
    items = []
    res = items.append(x + 1)
    return items, res


def c_m14_tensor_type_isinstance(x):
    return (isinstance(x, torch.FloatTensor), isinstance(x.long(), torch.LongTensor),
            isinstance(x.double(), torch.FloatTensor), x + 1)


def c_m14_bool_attr_shadowing(x):
    class C:
        def __init__(self):
            self.__bool__ = False

    if not C():
        return x + 1
    return x - 1


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
