"""Descriptors read on their class, after Paddle's SOT test_functools and test_bound_static_method_call for
``capture_count.py --only paddle12``: ``functools.singledispatchmethod`` and ``partialmethod`` read through the
class and through instances, a Python descriptor answering itself on the class, ``property`` objects read off
the class, and ``enum`` members' ``name``/``value`` (``types.DynamicClassAttribute``).
"""

from __future__ import annotations

import enum
import functools

import torch


class _Scaler:
    factor = 3

    @functools.singledispatchmethod
    def scale(self, v):
        return v

    @scale.register
    def _(self, v: int):
        return v * self.factor

    @scale.register
    def _(self, v: torch.Tensor):
        return v * 2

    def _mul(self, v, k):
        return v * k

    triple = functools.partialmethod(_mul, k=3)

    @property
    def doubled_factor(self):
        return self.factor * 2


def c_p12d_singledispatchmethod_on_instance(x):
    s = _Scaler()
    return s.scale(x), s.scale(3), s.scale("a"), s.scale(2.5)


def c_p12d_singledispatchmethod_read_on_class(x):
    s = _Scaler()
    return _Scaler.scale(s, x), _Scaler.scale(s, "b")


def c_p12d_singledispatchmethod_argument_object(x, s):
    return s.scale(x) + s.scale(4)


c_p12d_singledispatchmethod_argument_object.extra_args = lambda: (_Scaler(),)


def c_p12d_partialmethod_on_instance_and_class(x):
    s = _Scaler()
    return s.triple(x), _Scaler.triple(s, x + 1)


def c_p12d_property_object_read_on_class(x):
    p = _Scaler.doubled_factor
    return x + p.fget(_Scaler()), isinstance(p, property), p.fset is None


class _SelfOnClass:
    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj.v + 1

    def describe(self):
        return "descriptor"


class _Holder:
    plus_one = _SelfOnClass()

    def __init__(self, v):
        self.v = v


def c_p12d_descriptor_answers_itself_on_class(x):
    d = _Holder.plus_one
    return _Holder(x).plus_one, d.describe(), type(d).__name__


class _Fresh:
    def __get__(self, obj, owner=None):
        def bound(v):
            return v * (2 if obj is None else 3)

        return bound


class _HasFresh:
    op = _Fresh()


def c_p12d_descriptor_making_new_functions(x):
    return _HasFresh.op(x), _HasFresh().op(x), _HasFresh.op is not _HasFresh.op


class _Level(enum.Enum):
    LOW = 1
    HIGH = 2


def c_p12d_enum_name_value_and_class_members(x):
    lv = _Level.HIGH
    return x * lv.value, lv.name, _Level.LOW.name, [m.value for m in _Level]




# -- more descriptors read on the class ----------------------------------------------------------------------
class _Cached:
    @functools.cached_property
    def heavy(self):
        return 7


def c_p12d_cached_property_read_on_class(x):
    cp = _Cached.heavy
    return x + _Cached().heavy, cp.attrname, type(cp).__name__


class _TypedProperty(property):
    pass


class _WithTypedProperty:
    value = _TypedProperty(lambda self: 5)


def c_p12d_property_subclass_on_class_and_instance(x):
    return x + _WithTypedProperty().value, type(_WithTypedProperty.value).__name__


class _Named:
    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        return self.name if obj is None else obj.__dict__.get(self.name, 0) + 1


class _UsesNamed:
    field = _Named()


def c_p12d_set_name_descriptor_on_class(x):
    o = _UsesNamed()
    o.__dict__["field"] = 4
    return x + o.field, _UsesNamed.field


class _Meta(type):
    @property
    def registry_size(cls):
        return len(cls.__dict__)


class _WithMeta(metaclass=_Meta):
    a = 1


def c_p12d_metaclass_property_on_class(x):
    return x + (_WithMeta.registry_size > 0), _WithMeta.a


def c_p12d_staticmethod_of_partial_on_class(x):
    class Holder:
        add2 = staticmethod(functools.partial(torch.add, other=2))

    return Holder.add2(x), Holder().add2(x)


def c_p12d_enum_metaclass_methods_by_name(x):
    return x + _Level.__len__(), _Level.__getitem__("HIGH").value, list(_Level.__members__)


class _Base:
    pass


class _Derived(_Base):
    pass


def c_p12d_type_methods_read_on_class(x):
    return x + len(_Derived.mro()), _Derived.__instancecheck__(_Derived()), _Derived.__subclasscheck__(_Base)


def c_p12d_annotations_of_class_without_own(x):
    class Annotated:
        k: int = 1

    class Plain(Annotated):
        pass

    return x + len(Annotated.__annotations__), Plain.__annotations__, "__annotations__" in vars(Plain)


class _AnnotatedBase:
    k: int = 1


def c_p12d_annotations_of_argument_class(x, cls):
    return x + len(cls.__annotations__), cls.__annotations__


c_p12d_annotations_of_argument_class.extra_args = lambda: (type("_Fresh", (_AnnotatedBase,), {}),)


class _Catalog(type):
    def __getitem__(cls, k):
        return cls.table[k]

    def __len__(cls):
        return len(cls.table)

    def __iter__(cls):
        return iter(cls.table)

    def __contains__(cls, k):
        return k in cls.table

    def __repr__(cls):
        return f"<catalog {cls.__name__}>"


class _Parts(metaclass=_Catalog):
    table = {"a": 1, "b": 2}


def c_p12d_metaclass_container_protocols(x):
    return x + _Parts["a"], len(_Parts), list(_Parts), "b" in _Parts, [k * 2 for k in _Parts]


def c_p12d_metaclass_repr_and_str(x):
    return x + 1, repr(_Parts), str(_Parts), f"{_Parts}"


class _Single(type):
    made = {}

    def __call__(cls, *args):
        if cls not in _Single.made:
            _Single.made[cls] = super().__call__(*args)
        return _Single.made[cls]


class _Conf(metaclass=_Single):
    def __init__(self, v=3):
        self.v = v


def c_p12d_singleton_metaclass_call(x):
    return x + _Conf().v, _Conf() is _Conf()


class _Odd(type):
    def __bool__(cls):
        return False

    def __mul__(cls, n):
        return [cls] * n


class _Falsy(metaclass=_Odd):
    pass


def c_p12d_metaclass_truth_and_operator(x):
    return x + (1 if _Falsy else 2), len(_Falsy * 3)


class _Tagger:
    @functools.singledispatchmethod
    @classmethod
    def tag(cls, v):
        return "other"

    @tag.register
    @classmethod
    def _(cls, v: bool):
        return cls.__name__ + "-bool"


def c_p12d_singledispatchmethod_over_classmethods(x):
    # classmethod.__get__ called by singledispatchmethod's _method: a break (torch.compile breaks there too)
    return x + 1, _Tagger.tag(True), _Tagger.tag(1.5)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
