"""Programs after CPython's test_class and test_descr as PyTorch's Dynamo suite runs them
(``test/dynamo/cpython/3_13/``), for ``capture_count.py``: operator dunders and their reflected and in-place forms,
rich comparisons, container and truth protocols, ``__getattr__``/``__setattr__``/``__delattr__``, descriptors,
properties, ``super()`` and the MRO, class creation hooks (``__init_subclass__``, ``__class_getitem__``,
metaclasses, ``type()``), ``__slots__``. Each mixes the construct with tensor work so that the frame is compiled.
Function attributes, functools and grammar are in ``capture_count_cpython_lang_funcs.py``; pattern matching,
numbers, math, complex, bool and enum in ``capture_count_cpython_lang_more.py``.
"""

from __future__ import annotations

# ---- test_class: operator dunders ---------------------------------------------------------------------------

class _Num:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return _Num(self.v + (other.v if isinstance(other, _Num) else other))

    def __radd__(self, other):
        return _Num(other + self.v + 100)

    def __mul__(self, other):
        return _Num(self.v * other)

    def __neg__(self):
        return _Num(-self.v)

    def __abs__(self):
        return _Num(abs(self.v))


def c_cl_binary_dunders(x):
    y = x * 2
    a = _Num(3) + _Num(4)
    b = 5 + _Num(1)
    c = -(_Num(2) * 3)
    return y + a.v + b.v + abs(c).v


class _Acc:
    def __init__(self):
        self.items = []

    def __iadd__(self, other):
        self.items.append(other)
        return self


def c_cl_inplace_dunder(x):
    y = x + 1
    acc = _Acc()
    acc += 2
    acc += 3
    return y * sum(acc.items) + len(acc.items)


class _Ordered:
    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return isinstance(other, _Ordered) and self.k == other.k

    def __lt__(self, other):
        return self.k < other.k

    def __hash__(self):
        return hash(self.k)


def c_cl_rich_compare_reflected(x):
    y = x.sin()
    a, b = _Ordered(1), _Ordered(2)
    flags = [a < b, b > a, a == _Ordered(1), a != b, a == 1]
    return y + sum(flags)


def c_cl_sorted_by_lt(x):
    y = x * 3
    items = sorted([_Ordered(3), _Ordered(1), _Ordered(2)])
    return y + items[0].k * 10 + items[-1].k


class _Container:
    def __init__(self, data):
        self.data = list(data)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i]

    def __contains__(self, v):
        return v in self.data


def c_cl_container_protocol(x):
    y = x + 2
    c = _Container([4, 5, 6])
    return y + len(c) + c[1] + (5 in c) + (9 in c) + sum(v for v in c)


class _OnlyGetitem:
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return i * 2


def c_cl_old_style_iteration(x):
    y = x - 1
    return y + sum(_OnlyGetitem()) + list(_OnlyGetitem())[-1]


class _Truthy:
    def __init__(self, n):
        self.n = n

    def __bool__(self):
        return self.n > 2


class _Sized:
    def __len__(self):
        return 0


def c_cl_bool_and_len_truth(x):
    y = x * 2
    out = y + (1 if _Truthy(3) else 0) + (1 if _Truthy(1) else 0)
    return out + (0 if _Sized() else 7) + bool(_Sized())


class _Callable:
    def __init__(self, k):
        self.k = k

    def __call__(self, t, extra=0):
        return t * self.k + extra


def c_cl_call_dunder(x):
    y = x + 1
    f = _Callable(3)
    return f(y, extra=1) + callable(f) + callable(3)


class _Dyn:
    def __init__(self):
        self.real = 1

    def __getattr__(self, name):
        if name.startswith("x_"):
            return len(name)
        raise AttributeError(name)


def c_cl_getattr_fallback(x):
    y = x.cos()
    d = _Dyn()
    return y + d.real + d.x_abc + hasattr(d, "x_q") + hasattr(d, "other")


class _Logged:
    def __init__(self):
        object.__setattr__(self, "log", [])

    def __setattr__(self, name, value):
        self.log.append(name)
        object.__setattr__(self, name, value * 2)

    def __delattr__(self, name):
        self.log.append("del " + name)
        object.__delattr__(self, name)


def c_cl_setattr_delattr(x):
    y = x + 1
    obj = _Logged()
    obj.a = 3
    obj.b = 4
    del obj.a
    return y * obj.b + len(obj.log), hasattr(obj, "a")


class _Idx:
    def __index__(self):
        return 2


def c_cl_index_dunder(x):
    y = x * 2
    seq = [10, 20, 30, 40]
    return y + seq[_Idx()] + [0, 1, 2, 3][_Idx():][0] + bin(_Idx()).count("1")


class _NoAdd:
    pass


def c_cl_missing_dunder_typeerror(x):
    y = x + 1
    try:
        _NoAdd() + 1
    except TypeError:
        y = y * 5
    return y


class _RetNotImpl:
    def __eq__(self, other):
        return NotImplemented


def c_cl_notimplemented_eq_fallback(x):
    y = x - 2
    a = _RetNotImpl()
    return y + (a == a) + (a == _RetNotImpl()) + (a != 3)


class _Ctx:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("in")
        return 4

    def __exit__(self, *exc):
        self.log.append("out")
        return True


def c_cl_with_suppressing_exit(x):
    log = []
    y = x * 2
    with _Ctx(log) as k:
        y = y + k
        raise ValueError("swallowed")
    return y + len(log)


# ---- test_descr: descriptors, super, class hooks -------------------------------------------------------------

class _Typed:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.name, 0)

    def __set__(self, obj, value):
        setattr(obj, self.name, int(value) + 1)


class _Holder:
    size = _Typed()


def c_cl_data_descriptor(x):
    y = x + 1
    h = _Holder()
    h.size = 4
    return y * h.size + isinstance(_Holder.size, _Typed)


class _Lazy:
    def __init__(self, fn):
        self.fn = fn

    def __get__(self, obj, objtype=None):
        value = self.fn(obj)
        obj.__dict__[self.fn.__name__] = value
        return value


class _UsesLazy:
    calls = 0

    @_Lazy
    def big(self):
        type(self).calls += 1
        return 7


def c_cl_nondata_descriptor_shadowed(x):
    y = x * 2
    _UsesLazy.calls = 0
    u = _UsesLazy()
    return y + u.big + u.big + _UsesLazy.calls


class _Temp:
    def __init__(self):
        self._c = 0.0

    @property
    def f(self):
        return self._c * 9 / 5 + 32

    @f.setter
    def f(self, value):
        self._c = (value - 32) * 5 / 9

    @f.deleter
    def f(self):
        self._c = 0.0


def c_cl_property_setter_deleter(x):
    y = x + 1
    t = _Temp()
    t.f = 212
    hot = t.f
    del t.f
    return y * hot + t.f


class _Shape:
    count = 0

    def __init__(self, n):
        self.n = n

    @classmethod
    def square(cls):
        cls.count += 1
        return cls(4)

    @staticmethod
    def sides(n):
        return n * 2


class _Tri(_Shape):
    pass


def c_cl_classmethod_staticmethod(x):
    y = x * 3
    _Shape.count = _Tri.count = 0  # cls.count += 1 through _Tri leaves the count on _Tri
    s = _Tri.square()
    return y + s.n + _Shape.sides(3) + s.sides(1) + type(s).__name__.count("T") + _Tri.count


class _A:
    def who(self):
        return ["A"]


class _B(_A):
    def who(self):
        return ["B", *super().who()]


class _C(_A):
    def who(self):
        return ["C", *super().who()]


class _D(_B, _C):
    def who(self):
        return ["D", *super().who()]


def c_cl_diamond_super_mro(x):
    y = x + 1
    names = _D().who()
    mro = [k.__name__ for k in _D.__mro__]
    return y + len(names) + names.index("C") + len(mro), "".join(names)


class _Base2:
    def __init__(self, v):
        self.v = v


class _Child2(_Base2):
    def __init__(self, v):
        super(_Child2, self).__init__(v * 2)  # noqa: UP008 (the two-argument form is the construct)
        self.w = v


def c_cl_super_two_arg_init(x):
    y = x - 1
    c = _Child2(3)
    return y + c.v + c.w + isinstance(c, _Base2) + issubclass(_Child2, _Base2)


class _Registry:
    seen = []

    def __init_subclass__(cls, tag="", **kw):
        super().__init_subclass__(**kw)
        cls.tag = tag


class _Plugin(_Registry, tag="plug"):
    pass


def c_cl_init_subclass_kwargs(x):
    y = x * 2
    return y + len(_Plugin.tag) + len(_Registry.__subclasses__())


class _Boxed:
    def __class_getitem__(cls, item):
        return (cls.__name__, item)


def c_cl_class_getitem(x):
    y = x + 1
    name, item = _Boxed[int]
    return y + len(name) + (item is int)


def c_cl_type_three_arg(x):
    y = x * 2
    Klass = type("Klass", (object,), {"k": 3, "get": lambda self: self.k * 2})
    obj = Klass()
    return y + obj.get() + Klass.k + len(Klass.__name__)


class _WithSlots:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1


def c_cl_slots_unset_attribute(x):
    y = x + 3
    s = _WithSlots()
    try:
        missing = s.b
    except AttributeError:
        missing = -1
    s.b = 5
    return y + s.a + s.b + missing


class _Meta(type):
    def __call__(cls, *args):
        inst = super().__call__(*args)
        inst.made_by_meta = True
        return inst


class _Made(metaclass=_Meta):
    def __init__(self, v):
        self.v = v


def c_cl_metaclass_call(x):
    y = x * 2
    m = _Made(3)
    return y + m.v + m.made_by_meta + isinstance(_Made, _Meta)


def c_cl_instance_dict_and_vars(x):
    y = x + 1
    obj = _Base2(2)
    obj.extra = 5
    d = vars(obj)
    return y + sum(d.values()) + len(obj.__dict__) + ("extra" in dir(obj))


def c_cl_getattr_builtin_default(x):
    y = x * 2
    obj = _Base2(4)
    setattr(obj, "z", 3)  # noqa: B010 (the builtins are the construct)
    return y + getattr(obj, "v") + getattr(obj, "missing", 10) + getattr(obj, "z")  # noqa: B009


class _Eq:
    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return self.k == other.k


def c_cl_eq_without_hash_unhashable(x):
    y = x + 1
    try:
        hash(_Eq(1))
        hashable = 1
    except TypeError:
        hashable = 0
    return y + hashable + (_Eq.__hash__ is None)


CONSTRUCTS = [c_cl_binary_dunders, c_cl_inplace_dunder, c_cl_rich_compare_reflected, c_cl_sorted_by_lt,
              c_cl_container_protocol, c_cl_old_style_iteration, c_cl_bool_and_len_truth, c_cl_call_dunder,
              c_cl_getattr_fallback, c_cl_setattr_delattr, c_cl_index_dunder, c_cl_missing_dunder_typeerror,
              c_cl_notimplemented_eq_fallback, c_cl_with_suppressing_exit, c_cl_data_descriptor,
              c_cl_nondata_descriptor_shadowed, c_cl_property_setter_deleter, c_cl_classmethod_staticmethod,
              c_cl_diamond_super_mro, c_cl_super_two_arg_init, c_cl_init_subclass_kwargs, c_cl_class_getitem,
              c_cl_type_three_arg, c_cl_slots_unset_attribute, c_cl_metaclass_call, c_cl_instance_dict_and_vars,
              c_cl_getattr_builtin_default, c_cl_eq_without_hash_unhashable]
