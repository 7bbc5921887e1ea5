"""Descriptors, slots, properties, super(), attribute hooks and metaclasses, after the ideas of CPython's
test_descr (as PyTorch's test/dynamo/cpython/3_13 copy runs it under Dynamo), for ``capture_count.py --only
descr14``. Each program is written afresh over one tensor and mixes the Python construct with tensor ops.
"""

from __future__ import annotations


def c_descr14_dict_subclass_getitem_override(x):
    class Scaled(dict):
        def __getitem__(self, key):
            return dict.__getitem__(self, key) * 2

        def __setitem__(self, key, value):
            dict.__setitem__(self, key, value + 1)

    d = Scaled()
    d["a"] = x
    d["b"] = 3
    return d["a"] + d["b"], dict.__getitem__(d, "b"), len(d), sorted(d)


def c_descr14_list_subclass_slice_and_index(x):
    class Doubling(list):
        def __getitem__(self, i):
            if isinstance(i, slice):
                return Doubling(list.__getitem__(self, i))
            return list.__getitem__(self, i) * 2

    seq = Doubling([x, x + 1, x + 2])
    part = seq[1:]
    return type(part).__name__, part[0], seq[0] + seq[-1], len(part)


def c_descr14_metaclass_new_edits_namespace(x):
    class AddsScale(type):
        def __new__(mcls, name, bases, ns):
            ns["scale"] = len(name)
            ns["tag"] = name.lower()
            return super().__new__(mcls, name, bases, ns)

    class Layer(metaclass=AddsScale):
        def run(self, t):
            return t * self.scale

    return Layer().run(x), Layer.tag, type(Layer).__name__


def c_descr14_metaclass_prepare_ordered_names(x):
    class Recording(type):
        @classmethod
        def __prepare__(mcls, name, bases):
            return {"seen": []}

        def __new__(mcls, name, bases, ns):
            ns["names"] = [k for k in ns if not k.startswith("__") and k != "seen"]
            return super().__new__(mcls, name, bases, ns)

    class Spec(metaclass=Recording):
        b = 2
        a = 1

        def f(self):
            return 0

    return x + Spec.a + Spec.b, Spec.names


def c_descr14_diamond_mro_and_super_chain(x):
    class A:
        def step(self, t):
            return t + 1

    class B(A):
        def step(self, t):
            return super().step(t) * 2

    class C(A):
        def step(self, t):
            return super().step(t) - 3

    class D(B, C):
        def step(self, t):
            return super().step(t) + 10

    return D().step(x), [k.__name__ for k in D.__mro__], [k.__name__ for k in D.mro()]


def c_descr14_mro_conflict_raises(x):
    class A:
        pass

    class B(A):
        pass

    try:
        class C(A, B):
            pass
        made = True
    except TypeError:
        made = False
    return x * 2, made


def c_descr14_object_instance_rejects_attributes(x):
    o = object()
    try:
        o.weight = x
        stored = True
    except AttributeError:
        stored = False
    return x + 1, stored, o.__class__ is object, hasattr(o, "__dict__")


def c_descr14_slots_with_dict_entry(x):
    class Loose:
        __slots__ = ["__dict__", "a"]

    p = Loose()
    p.a = x
    p.extra = 3
    return p.a + p.extra, sorted(vars(p)), hasattr(p, "a")


def c_descr14_slots_delete_then_read(x):
    class Pair:
        __slots__ = ("a", "b")

    p = Pair()
    p.a = x
    p.b = x * 2
    del p.a
    try:
        _ = p.a
        missing = False
    except AttributeError:
        missing = True
    return p.b + 1, missing, Pair.__slots__


def c_descr14_slots_subclass_adds_dict(x):
    class Base:
        __slots__ = ("w",)

    class Child(Base):
        pass

    c = Child()
    c.w = x
    c.bias = 2
    return c.w + c.bias, hasattr(Base(), "__dict__"), "bias" in c.__dict__


def c_descr14_dynamic_method_added_to_class(x):
    class Box:
        pass

    b = Box()
    Box.scale = lambda self, t: t * 3
    first = b.scale(x)
    Box.scale = lambda self, t: t - 1
    return first, b.scale(x)


def c_descr14_dynamic_class_attribute_seen_by_instances(x):
    class Cfg:
        k = 1

    a, b = Cfg(), Cfg()
    Cfg.k = 4
    b.k = 10
    del Cfg.k
    Cfg.k = 7
    return x * a.k + b.k, Cfg.k


def c_descr14_dynamic_getattr_added_later(x):
    class Lazy:
        pass

    obj = Lazy()
    try:
        _ = obj.anything
        before = True
    except AttributeError:
        before = False
    Lazy.__getattr__ = lambda self, name: len(name)
    return x + obj.abc, before


def c_descr14_classmethod_through_instance_and_subclass(x):
    class Base:
        @classmethod
        def make(cls, t):
            return cls.__name__, t + len(cls.__name__)

    class Derived(Base):
        pass

    return Base.make(x), Derived.make(x), Derived().make(x)


def c_descr14_classmethod_and_staticmethod_objects(x):
    def raw(t):
        return t * 2

    cm = classmethod(raw)
    sm = staticmethod(raw)

    class Holder:
        s = sm

    return cm.__func__ is raw, sm.__func__ is raw, Holder.s(x), Holder().s(x + 1)


def c_descr14_staticmethod_callable_directly(x):
    class Tools:
        @staticmethod
        def add(a, b):
            return a + b

    f = Tools.__dict__["add"]
    return f(x, 1), Tools.add(x, 2), isinstance(f, staticmethod)


def c_descr14_compattr_descriptor_class(x):
    class Computed:
        def __init__(self, get, set=None):
            self.get, self.set = get, set

        def __get__(self, obj, owner=None):
            if obj is None:
                return self
            return self.get(obj)

        def __set__(self, obj, value):
            self.set(obj, value)

    class Holder:
        def __init__(self):
            self.__x = 0

        def _get(self):
            return self.__x

        def _set(self, v):
            self.__x = v * 2

        val = Computed(_get, _set)

    h = Holder()
    h.val = 5
    return x + h.val, type(Holder.val).__name__, h._Holder__x


def c_descr14_new_override_returns_cached(x):
    class Unique:
        made = {}

        def __new__(cls, key):
            if key not in cls.made:
                cls.made[key] = super().__new__(cls)
            return cls.made[key]

        def __init__(self, key):
            self.key = key

    a, b, c = Unique(1), Unique(1), Unique(2)
    return x + len(Unique.made), a is b, a is c


def c_descr14_metaclass_mro_override(x):
    class Reversed(type):
        def mro(cls):
            return [cls, *reversed(type.mro(cls)[1:-1]), object]

    class A:
        def who(self):
            return 1

    class B:
        def who(self):
            return 2

    class C(A, B, metaclass=Reversed):
        pass

    return x * C().who(), [k.__name__ for k in C.__mro__]


def c_descr14_overload_getattr_setattr_delattr(x):
    class Store:
        def __init__(self):
            object.__setattr__(self, "data", {})

        def __getattr__(self, name):
            return self.data[name]

        def __setattr__(self, name, value):
            self.data[name] = value

        def __delattr__(self, name):
            del self.data[name]

    s = Store()
    s.w = x
    s.b = 2
    del s.b
    return s.w * 2, sorted(s.data), "w" in s.__dict__


def c_descr14_bound_method_attributes(x):
    class Net:
        def fwd(self, t):
            return t + 1

    n = Net()
    m = n.fwd
    return m(x), m.__self__ is n, m.__func__ is Net.fwd, m.__name__, n.fwd == n.fwd


def c_descr14_special_lookup_skips_instance(x):
    class Sized:
        def __len__(self):
            return 3

    s = Sized()
    s.__len__ = lambda: 99
    return x * len(s), s.__len__()


def c_descr14_special_methods_defaults(x):
    class Plain:
        pass

    a, b = Plain(), Plain()
    return x + 1, a == a, a != b, bool(a), hash(a) == hash(a), a.__eq__(b) is NotImplemented


def c_descr14_contains_falls_back_to_getitem(x):
    class Seq:
        def __getitem__(self, i):
            if i >= 4:
                raise IndexError(i)
            return i * i

    s = Seq()
    return x + (9 in s), 5 in s, list(s)


def c_descr14_property_full_with_doc(x):
    class Param:
        def __init__(self):
            self._v = None

        def getv(self):
            return self._v

        def setv(self, v):
            self._v = v

        def delv(self):
            self._v = "gone"

        v = property(getv, setv, delv, "the value")

    p = Param()
    p.v = x * 2
    first = p.v + 1
    del p.v
    return first, p.v, Param.v.__doc__, Param.v.fget is Param.getv


def c_descr14_property_readonly_raises(x):
    class Fixed:
        @property
        def size(self):
            return 3

    f = Fixed()
    try:
        f.size = 4
        set_ok = True
    except AttributeError:
        set_ok = False
    try:
        del f.size
        del_ok = True
    except AttributeError:
        del_ok = False
    return x * f.size, set_ok, del_ok


def c_descr14_property_chained_in_subclass(x):
    class Base:
        @property
        def v(self):
            return self._v

        @v.setter
        def v(self, value):
            self._v = value

    class Child(Base):
        @Base.v.getter
        def v(self):
            return self._v * 10

    c = Child()
    c.v = 2
    b = Base()
    b.v = 2
    return x + c.v, b.v, Child.v.fset is Base.v.fset
CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
