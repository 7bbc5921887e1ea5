"""Classes made or changed inside the compiled frame, for ``capture_count.py --only dynamo_tests_classes4``: class
statements whose bodies read the frame's locals (constants, other classes made there, arguments, loop variables,
lists and tensors, cells bound again later), classes made by ``type(name, bases, ns)`` and by ``enum.Enum``'s
functional API, and class and instance ``__dict__`` reads mixed with attribute stores and deletions, in the
manner of PyTorch's test/dynamo/test_misc.py (``test_set_descriptor``, ``test_dict_with_descriptor``,
``test_dict_with_slots_and_dict``, ``test_dict_descriptor_interaction``, ``test_mutable_mapping_dict_*``,
``test_class_reassignment_graph_break``) and test_functions.py. Each is written afresh over one tensor.
"""

from __future__ import annotations

import dataclasses
import enum
from collections import OrderedDict


# -- class statements closing over the frame's values -------------------------------------------------------
def c_cl4_method_names_other_local_class(x):
    class Box:
        def __init__(self, t):
            self.t = t

    class Maker:
        def make(self, t):
            return Box(t * 2)

    b = Maker().make(x)
    return b.t + 1, type(b).__name__


def c_cl4_method_reads_local_constant(x):
    scale = 3

    class Scaler:
        def apply(self, t):
            return t * scale

    return Scaler().apply(x)


def c_cl4_method_reads_int_argument(x, k):
    class Shift:
        def apply(self, t):
            return t + k

    return Shift().apply(x)


c_cl4_method_reads_int_argument.extra_args = lambda: (5,)


def c_cl4_class_body_reads_local(x):
    width = 4

    class Config:
        size = width * 2
        name = f"w{width}"

    return x + Config.size, Config.name


def c_cl4_subclass_calls_local_base_by_name(x):
    class Base:
        def scale(self, t):
            return t * 2

    class Child(Base):
        def scale(self, t):
            return Base.scale(self, t) + 1

    return Child().scale(x)


def c_cl4_zero_arg_super_and_local_constant(x):
    bias = 0.5

    class Base:
        def __init__(self):
            self.w = 2

    class Child(Base):
        def __init__(self):
            super().__init__()
            self.b = bias

        def forward(self, t):
            return t * self.w + self.b

    return Child().forward(x)


def c_cl4_context_manager_returns_local_class(x):
    class Holder:
        def __init__(self, t):
            self.t = t

    class Opener:
        def __init__(self, t):
            self.t = t

        def __enter__(self):
            return Holder(self.t * 2)

        def __exit__(self, *exc):
            return None

    with Opener(x) as h:
        out = h.t + 1
    return out, type(h).__name__


def c_cl4_staticmethod_and_property_read_locals(x):
    offset = 2
    factor = 3.0

    class Ops:
        @staticmethod
        def shift(t):
            return t + offset

        @property
        def factor(self):
            return factor

    return Ops.shift(x) * Ops().factor


def c_cl4_dataclass_default_from_local(x):
    default = 7

    @dataclasses.dataclass
    class Point:
        a: int = default
        b: int = 1

    p = Point(b=2)
    return x + p.a + p.b, p.a


def c_cl4_classes_from_local_factory(x):
    def make(k):
        class Adder:
            def apply(self, t):
                return t + k

        return Adder

    a, b = make(1), make(10)
    return a().apply(x) + b().apply(x), a is b


def _make_multiplier(k):
    class Multiplier:
        def apply(self, t):
            return t * k

    return Multiplier


def c_cl4_class_from_module_factory(x):
    return _make_multiplier(3)().apply(x) + _make_multiplier(4)().apply(x)


def c_cl4_method_reads_tuple_constant(x):
    dims = (1, 2, 3)

    class Summer:
        def total(self):
            return sum(dims)

    return x + Summer().total()


def c_cl4_method_reads_local_tensor(x):
    weight = x * 2

    class Scale:
        def apply(self, t):
            return t * weight

    return Scale().apply(x)


def c_cl4_method_appends_to_local_list(x):
    log = []

    class Logger:
        def note(self, what):
            log.append(what)

    Logger().note("a")
    Logger().note("b")
    return x + len(log), log


def c_cl4_cell_rebound_after_class(x):
    k = 1

    class Reader:
        def get(self):
            return k

    k = 5
    return x + Reader().get()


def c_cl4_class_in_loop_reads_loop_variable(x):
    made = []
    for i in range(3):
        class Reader:
            def get(self):
                return i  # noqa: B023 - every class reads the one cell, as the test means

        made.append(Reader)
    return x + sum(c().get() for c in made)


def c_cl4_method_writes_nonlocal(x):
    count = 0

    class Counter:
        def bump(self):
            nonlocal count
            count += 1

    Counter().bump()
    Counter().bump()
    return x + count


def c_cl4_method_reads_local_function(x):
    def helper(t):
        return t.sin()

    class User:
        def run(self, t):
            return helper(t) + 1

    return User().run(x)


def c_cl4_class_reads_cell_bound_later(x):
    class Late:
        def get(self):
            return later

    later = 4
    return x + Late().get()


# -- classes made by calls ------------------------------------------------------------------------------------
def c_cl4_type_three_arguments(x):
    Point = type("Point", (), {"k": 3, "double": lambda self, t: t * 2})
    return Point().double(x) + Point.k, Point.__name__


def c_cl4_type_three_arguments_with_base(x):
    class Base:
        def get(self):
            return 1

    Child = type("Child", (Base,), {"extra": 2})
    c = Child()
    return x + c.get() + c.extra, isinstance(c, Base)


def c_cl4_enum_functional_names_list(x):
    Color = enum.Enum("Color", ["RED", "GREEN", "BLUE"])
    return x + Color.GREEN.value, Color.BLUE.name, len(Color)


def c_cl4_enum_functional_string(x):
    Level = enum.IntEnum("Level", "LOW MID HIGH")
    return x * Level.HIGH, [m.name for m in Level]


def c_cl4_enum_functional_ordered_dict(x):
    E = enum.Enum("E", OrderedDict(a=1, b=2))
    return x + E.a.value + E.b.value, E(2).name


def c_cl4_enum_class_statement(x):
    class Mode(enum.Enum):
        TRAIN = 1
        EVAL = 2

    return x + Mode.EVAL.value, Mode.TRAIN.name


# -- __dict__ reads with attribute stores ------------------------------------------------------------------
def _levels():
    return (type("Levels", (), {"level": 1, "other": 2}),)


def c_cl4_class_dict_then_assignment(x, cls):
    before = vars(cls)["level"]
    cls.level = before + 3
    return x * cls.level, vars(cls)["level"], cls.__dict__["other"]


c_cl4_class_dict_then_assignment.extra_args = _levels


def c_cl4_class_dict_keys_after_new_attribute(x, cls):
    before = [k for k in vars(cls) if not k.startswith("__")]
    cls.extra = 5
    after = [k for k in vars(cls) if not k.startswith("__")]
    return x + cls.extra, before, after


c_cl4_class_dict_keys_after_new_attribute.extra_args = _levels


def c_cl4_class_dict_then_delete(x, cls):
    had = "other" in cls.__dict__
    del cls.other
    return x + cls.level, had, "other" in cls.__dict__


c_cl4_class_dict_then_delete.extra_args = _levels


def c_cl4_setattr_on_class(x, cls):
    name = "level"
    seen = cls.__dict__.get(name)
    setattr(cls, name, seen * 10)
    return x + getattr(cls, name), cls.__dict__[name]


c_cl4_setattr_on_class.extra_args = _levels


class _Record:
    def __init__(self):
        self.k = 2
        self.m = 3


def c_cl4_instance_vars_then_store(x, obj):
    keys = list(vars(obj))
    obj.n = obj.k + obj.m
    return x + obj.n, keys, vars(obj)["n"], list(vars(obj))


c_cl4_instance_vars_then_store.extra_args = lambda: (_Record(),)


def c_cl4_instance_vars_then_delete(x, obj):
    y = x * obj.k
    if "k" in vars(obj):
        del obj.k
    return y, "k" in vars(obj), hasattr(obj, "k")


c_cl4_instance_vars_then_delete.extra_args = lambda: (_Record(),)


class _Field:
    def __set__(self, obj, value):
        obj.__dict__["field"] += value * 2


class _WithField:
    field = _Field()

    def __init__(self):
        self.__dict__["field"] = 0


def c_cl4_set_descriptor_writes_dict(x, foo):
    foo.field = 10
    return x + foo.field


c_cl4_set_descriptor_writes_dict.extra_args = lambda: (_WithField(),)


class _Described:
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.__dict__.get("_value", 0)

    def __set__(self, obj, value):
        obj.__dict__["_value"] = value


class _WithDescribed:
    prop = _Described()

    def __init__(self):
        self.prop = 42


def c_cl4_dict_with_descriptor(x, obj):
    obj.__dict__["extra"] = 99
    return x + obj.prop + obj.__dict__["extra"]


c_cl4_dict_with_descriptor.extra_args = lambda: (_WithDescribed(),)


class _SlottedWithDict:
    __slots__ = ("__dict__", "x")

    def __init__(self, x):
        self.x = x


def c_cl4_dict_with_slots_and_dict(x, obj):
    obj.__dict__["custom"] = 100
    return x + obj.x + obj.__dict__["custom"]


c_cl4_dict_with_slots_and_dict.extra_args = lambda: (_SlottedWithDict(7),)


class _DictDescriptor:
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.__dict__.get("_internal", "default")

    def __set__(self, obj, value):
        obj.__dict__["_internal"] = f"desc_{value}"


class _WithDictDescriptor:
    desc = _DictDescriptor()


def c_cl4_dict_descriptor_interaction(x, obj):
    obj.desc = "hello"
    obj.__dict__["_internal"] = "direct"
    return x + 1, obj.desc


c_cl4_dict_descriptor_interaction.extra_args = lambda: (_WithDictDescriptor(),)


class _CustomMapping(OrderedDict):
    pass


def c_cl4_mapping_subclass_dict_update(x, mapping):
    mapping.__dict__["custom_attr"] = 42
    return x + mapping.__dict__["custom_attr"], mapping.custom_attr


c_cl4_mapping_subclass_dict_update.extra_args = lambda: (_CustomMapping(),)


def c_cl4_mapping_subclass_dict_tracker(x, d):
    if "tracker" not in d.__dict__:
        d.__dict__["tracker"] = []
    d.__dict__["tracker"].append(1)
    return x + len(d.__dict__["tracker"])


c_cl4_mapping_subclass_dict_tracker.extra_args = lambda: (_CustomMapping(),)


class _LazyMapping(dict):
    pass


def c_cl4_mapping_subclass_lazy_cache(x, mapping):
    if not hasattr(mapping, "_cache"):
        mapping.__dict__["_cache"] = {}
    mapping.__dict__["_cache"]["key"] = "value"
    return x + 1, mapping.__dict__["_cache"]["key"]


c_cl4_mapping_subclass_lazy_cache.extra_args = lambda: (_LazyMapping(),)


class _PropertyMapping(OrderedDict):
    def __init__(self):
        super().__init__()
        self.__dict__["_value"] = 0

    @property
    def value(self):
        return self.__dict__.get("_value", 0)

    @value.setter
    def value(self, v):
        self.__dict__["_value"] = v


def c_cl4_mapping_subclass_property_setter(x, m):
    m.value = 100
    return x + m.value


c_cl4_mapping_subclass_property_setter.extra_args = lambda: (_PropertyMapping(),)


def c_cl4_mapping_subclass_dict_multiple_accesses(x, mapping):
    mapping.__dict__["a"] = 1
    mapping.__dict__["b"] = mapping.__dict__["a"] + 1
    mapping.__dict__["c"] = mapping.__dict__["b"] + 1
    return x + mapping.__dict__["a"] + mapping.__dict__["b"] + mapping.__dict__["c"]


c_cl4_mapping_subclass_dict_multiple_accesses.extra_args = lambda: (_CustomMapping(),)


class _BaseClass:
    def __init__(self, x):
        self.x = x


class _DerivedClass(_BaseClass):
    def __init__(self, x):
        super().__init__(x)
        self.y = x * 2


def c_cl4_class_reassignment(x):
    obj = _BaseClass(5)
    obj.__class__ = _DerivedClass
    return x + 1, isinstance(obj, _DerivedClass), hasattr(obj, "y")


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
