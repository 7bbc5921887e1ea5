"""test_descr / test_class / test_funcattrs ideas over classes and functions made at module level (as the
compiled frame meets them when the test's classes come from outside it), for ``capture_count.py --only
descr14``. Each program is written afresh over one tensor.
"""

from __future__ import annotations

import types


class _Plain:
    pass


class _Net:
    def fwd(self, t):
        return t + 1

    @classmethod
    def build(cls):
        return cls()

    @staticmethod
    def helper(t):
        return t * 2


class _Meta(type):
    def __call__(cls, *args):
        inst = super().__call__(*args)
        inst.made_by_meta = True
        return inst

    def describe(cls):
        return cls.__name__.upper()

    @property
    def size(cls):
        return len(cls.__name__)


class _WithMeta(metaclass=_Meta):
    def __init__(self, k):
        self.k = k


class _Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a = a


class _SlotDict:
    __slots__ = ("__dict__", "a")


class _Loud:
    def __getattribute__(self, name):
        if name == "secret":
            return 42
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        return name * 2


class _Proxy:
    def __init__(self, target):
        object.__setattr__(self, "_target", target)

    def __getattr__(self, name):
        return getattr(self._target, name)


class _Base:
    def __init_subclass__(cls, scale=1, **kw):
        super().__init_subclass__(**kw)
        cls.scale = scale


class _Named:
    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        return self if obj is None else obj.__dict__.get(self.name, 0)


class _UsesNamed:
    width = _Named()


class _IntSub(int):
    def __add__(self, other):
        return _IntSub(int(self) + int(other) + 1)


class _StrSub(str):
    def shout(self):
        return self.upper() + "!"


class _FloatSub(float):
    pass


class _WithSetOnly:
    class _Sink:
        def __set__(self, obj, value):
            obj.__dict__["stored"] = value * 2

    attr = _Sink()


class _ClassGetter:
    def __class_getitem__(cls, item):
        return (cls.__name__, item)


def _with_defaults(a, b=2, *, c=3):
    return a + b + c


def _closure_maker(k):
    def inner(t):
        return t * k
    return inner


def c_descr14m_hash_of_plain_instance(x):
    a = _Plain()
    return x + 1, hash(a) == hash(a), hash(a) == id(a) >> 4 or True


def c_descr14m_plain_object_as_dict_key(x):
    a, b = _Plain(), _Plain()
    d = {a: x, b: x * 2}
    return d[a] + d[b], len(d)


def c_descr14m_bound_method_equality(x):
    n = _Net()
    return x + 1, n.fwd == n.fwd, n.fwd != _Net().fwd, n.fwd.__func__ is _Net.fwd


def c_descr14m_bound_method_hash_key(x):
    n = _Net()
    table = {n.fwd: 1}
    return x + table[n.fwd]


def c_descr14m_classmethod_object_call(x):
    def scaled(cls, t):
        return t * len(cls.__name__)

    cm = classmethod(scaled)
    bound = cm.__get__(None, _Plain)
    return bound(x), cm.__func__ is scaled


def c_descr14m_staticmethod_object_call(x):
    def twice(t):
        return t * 2

    sm = staticmethod(twice)
    return sm(x), sm.__func__ is twice, sm.__get__(None, _Plain)(x + 1)


def c_descr14m_staticmethod_from_class_dict(x):
    f = _Net.__dict__["helper"]
    return f(x), isinstance(f, staticmethod), f.__func__(x + 1)


def c_descr14m_classmethod_from_class_dict(x):
    f = _Net.__dict__["build"]
    made = f.__get__(None, _Net)()
    return x + 1, type(made).__name__, isinstance(f, classmethod)


def c_descr14m_metaclass_call_and_methods(x):
    w = _WithMeta(3)
    return x * w.k, w.made_by_meta, _WithMeta.describe(), _WithMeta.size


def c_descr14m_slots_instance_dict_absent(x):
    s = _Slotted(x)
    try:
        s.c = 1
        stored = True
    except AttributeError:
        stored = False
    return s.a + 1, stored, hasattr(s, "__dict__"), hasattr(s, "b")


def c_descr14m_slots_with_dict_vars(x):
    s = _SlotDict()
    s.a = x
    s.k = 2
    return s.a + s.k, sorted(vars(s)), sorted(s.__dict__)


def c_descr14m_getattribute_intercepts(x):
    o = _Loud()
    return x + o.secret, o.missing, type(o).__name__


def c_descr14m_proxy_forwards_reads(x):
    p = _Proxy(_Net())
    return p.fwd(x), p.helper(x)


def c_descr14m_init_subclass_keyword(x):
    class Scaled(_Base, scale=3):
        pass

    return x * Scaled.scale


def c_descr14m_set_name_and_get(x):
    u = _UsesNamed()
    u.__dict__["width"] = 4
    return x * u.width, _UsesNamed.width.name, _UsesNamed().width


def c_descr14m_int_subclass_operator(x):
    a = _IntSub(2)
    b = a + 3
    return x * b, type(b).__name__, isinstance(b, int), int(b)


def c_descr14m_str_subclass_method_and_key(x):
    s = _StrSub("ab")
    d = {s: 1, "cd": 2}
    return x + d["ab"], s.shout(), type(s + "c").__name__, s == "ab"


def c_descr14m_float_subclass_arith(x):
    f = _FloatSub(1.5)
    return x * f, type(f * 2).__name__, f.is_integer(), isinstance(f, float)


def c_descr14m_set_only_descriptor(x):
    o = _WithSetOnly()
    o.attr = 3
    return x + o.stored, o.attr


def c_descr14m_class_getitem_on_module_class(x):
    name, item = _ClassGetter[int]
    return x + 1, name, item is int


def c_descr14m_function_defaults_read_and_write(x):
    d = _with_defaults.__defaults__
    kw = _with_defaults.__kwdefaults__
    return _with_defaults(x), d, kw, _with_defaults.__name__, _with_defaults.__qualname__


def c_descr14m_function_code_attributes(x):
    code = _with_defaults.__code__
    return x + code.co_argcount, code.co_kwonlyargcount, code.co_name, code.co_varnames[:3]


def c_descr14m_closure_cell_contents(x):
    f = _closure_maker(3)
    cells = f.__closure__
    return f(x), len(cells), cells[0].cell_contents, type(cells[0]).__name__


def c_descr14m_local_function_defaults_rebound(x):
    def f(a, b):
        return a + b

    f.__defaults__ = (1, 2)
    first = f()
    f.__defaults__ = (x,)
    return first, f(5)


def c_descr14m_local_function_kwdefaults_rebound(x):
    def f(a, *, k=1):
        return a * k

    f.__kwdefaults__ = {"k": 4}
    return f(x), f.__kwdefaults__


def c_descr14m_local_function_name_and_dict(x):
    def f(t):
        return t + 1

    f.__name__ = "renamed"
    f.__qualname__ = "Q.renamed"
    f.tag = 7
    return f(x) * f.tag, f.__name__, f.__qualname__, f.__dict__


def c_descr14m_local_function_doc_write(x):
    def f(t):
        return t - 1

    before = f.__doc__
    f.__doc__ = "docs"
    return f(x), before, f.__doc__


def c_descr14m_method_type_binding(x):
    def scaled(self, t):
        return t * self.k

    w = _WithMeta(2)
    m = types.MethodType(scaled, w)
    return m(x), m.__self__ is w, m.__func__ is scaled


def c_descr14m_function_get_binds(x):
    def fwd(self, t):
        return t + self.k

    w = _WithMeta(5)
    bound = fwd.__get__(w, _WithMeta)
    return bound(x), bound.__self__ is w


def c_descr14m_builtin_method_self_and_qualname(x):
    items = [x]
    app = items.append
    return x + 1, app.__self__ is items, app.__qualname__, len.__qualname__, dict.fromkeys.__qualname__


def c_descr14m_instance_class_assignment(x):
    class A:
        def f(self):
            return 1

    class B:
        def f(self):
            return 2

    o = A()
    first = o.f()
    o.__class__ = B
    return x * first + o.f(), type(o).__name__


def c_descr14m_instance_dict_assignment(x):
    o = _Plain()
    o.__dict__ = {"w": x}
    return o.w + 1, vars(o) is o.__dict__


def c_descr14m_object_new_without_init(x):
    o = object.__new__(_WithMeta)
    o.k = 4
    return x * o.k, hasattr(o, "made_by_meta")


def c_descr14m_type_attribute_error_message(x):
    try:
        _ = _Plain.nothing
    except AttributeError as e:
        msg = str(e)
    return x + 1, msg


def c_descr14m_instance_attribute_error_message(x):
    try:
        _ = _Plain().nothing
    except AttributeError as e:
        msg = str(e)
    return x + 1, msg


def c_descr14m_init_returning_value_raises(x):
    class Bad:
        def __init__(self):
            return 1

    try:
        Bad()
        ok = True
    except TypeError:
        ok = False
    return x + 1, ok


def c_descr14m_object_takes_no_arguments(x):
    try:
        _Plain(1)
        ok = True
    except TypeError as e:
        ok = str(e)
    return x + 1, ok


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
