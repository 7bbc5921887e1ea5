"""test_descr's class-property and metaclass tests, with the classes made outside the compiled frame (as the
test's ``error_on_graph_break(False)`` blocks leave them) and the checks over one tensor, for
``capture_count.py --only descr14``: a dict subclass keeping state, a list subclass answering slices, a
metaclass that is no type subclass, a ``super(cls)`` stored on the class (``self.__super``), properties a
metaclass makes, and calling an object without ``__call__``.
"""

from __future__ import annotations


class _StateDict(dict):
    state = -1

    def __init__(self, *a, **kw):
        if a:
            self.state = a[0]
        for k, v in kw.items():
            self[v] = k

    def __getitem__(self, key):
        return self.get(key, 0)

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)

    def setstate(self, state):
        self.state = state


class _SliceList(list):
    def __getitem__(self, i):
        if isinstance(i, slice):
            return i.start, i.stop
        return list.__getitem__(self, i) + 100


class _Instance:
    pass


class _NotTypeMeta:
    @staticmethod
    def __new__(cls, name, bases, ns):
        self = object.__new__(cls)
        self.name, self.bases, self.ns = name, bases, ns
        return self

    def __call__(self):
        it = _Instance()
        for key in self.ns:
            if not key.startswith("__"):
                setattr(it, key, self.ns[key].__get__(it, self))
        return it


class _Spam(metaclass=_NotTypeMeta):
    def spam(self):
        return 42


class _AutoSuper(type):
    def __new__(mcls, name, bases, ns):
        cls = super().__new__(mcls, name, bases, ns)
        setattr(cls, f"_{name.lstrip('_')}__super", super(cls))
        return cls


class _SA(metaclass=_AutoSuper):
    def meth(self):
        return "A"


class _SB(_SA):
    def meth(self):
        return "B" + self.__super.meth()


class _SC(_SA):
    def meth(self):
        return "C" + self.__super.meth()


class _SD(_SC, _SB):
    def meth(self):
        return "D" + self.__super.meth()


class _AutoProperty(type):
    def __new__(mcls, name, bases, ns):
        hits = {}
        for key, val in list(ns.items()):
            for prefix, slot in (("_get_", 0), ("_set_", 1)):
                if key.startswith(prefix):
                    pair = list(hits.get(key[5:], (None, None)))
                    pair[slot] = val
                    hits[key[5:]] = tuple(pair)
        for key, (get, set_) in hits.items():
            ns[key] = property(get, set_)
        return super().__new__(mcls, name, bases, ns)


class _PropA(metaclass=_AutoProperty):
    def _get_x(self):
        return -self.__x

    def _set_x(self, x):
        self.__x = -x


class _Counting(type):
    counter = 0

    def __init__(cls, *args):
        _Counting.counter += 1
        super().__init__(*args)


class _Counted(metaclass=_Counting):
    pass


class _NoCall:
    pass


def c_descr14y_dict_subclass_state_and_nested(x):
    a = _StateDict()
    b = _StateDict(12)
    c = _StateDict(foo=1, bar=2)
    a.setstate(10)
    a[42] = 24
    for i in range(3):
        a[i] = _StateDict()
        for j in range(3):
            a[i][j] = i * j
    return x + a[2][2], a.state, b.state, c[1], c[2], a[42], a[99], [a[i][j] for i in range(3) for j in range(3)]


def c_descr14y_list_subclass_slice_answer(x):
    a = _SliceList()
    a.extend([0, 1, 2])
    return x + a[1], a[0], a[2], a[100:200]


def c_descr14y_metaclass_not_a_type(x):
    c = _Spam()
    return x * c.spam(), _Spam.name, _Spam.bases, "spam" in _Spam.ns, type(_Spam).__name__


def c_descr14y_autosuper_chain(x):
    return x + 1, _SD().meth(), _SB().meth(), _SC().meth()


def c_descr14y_metaclass_made_properties(x):
    a = _PropA()
    before = hasattr(a, "x")
    a.x = 12
    return x + a.x, before, a._PropA__x, type(_PropA.__dict__["x"]).__name__


def c_descr14y_type_of_instance_skips_metaclass_init(x):
    before = _Counting.counter
    a = _Counted()
    return x + 1, type(a) is _Counted, _Counting.counter - before


def c_descr14y_calling_object_without_call(x):
    c = _NoCall()
    try:
        c()
        raised = False
    except TypeError:
        raised = True
    return x + 1, raised, callable(c)


def c_descr14y_unbound_super_object_attributes(x):
    s = super(_SB)
    return x + 1, s.__thisclass__ is _SB, s.__self__ is None, s.__self_class__ is None


def c_descr14y_bound_super_object_attributes(x):
    obj = _SD()
    s = super(_SC, obj)
    return x + 1, s.meth(), s.__thisclass__ is _SC, s.__self__ is obj, s.__self_class__ is _SD


class _Stateful:
    def __init__(self):
        self.__state = 0

    def getstate(self):
        return self.__state

    def setstate(self, state):
        self.__state = state


class _DictState(dict, _Stateful):
    def __init__(self):
        dict.__init__(self)
        _Stateful.__init__(self)


class _Node:
    def __int__(self):
        return int(self.foo())

    def foo(self):
        return "23"


class _Frag(_Node, list):
    def foo(self):
        return "42"


class _DA:
    def spam(self):
        return "A"


class _DB(_DA):
    def boo(self):
        return "B"

    def spam(self):
        return "B"


class _DC(_DA):
    def boo(self):
        return "C"


class _DD(_DB, _DC):
    pass


class _DE(_DC, _DB):
    pass


class _MangledSlots:
    __slots__ = ["__a"]

    def __init__(self, value):
        self.__a = value

    def get(self):
        return self.__a


class _StringSlot:
    __slots__ = "abc"


class _MyInt(int):
    __slots__ = ()


class _Parent:
    pass


class _KidA(_Parent):
    pass


class _KidB(_Parent):
    pass


def c_descr14y_dict_and_class_multiple_inheritance(x):
    d = _DictState()
    d["hello"] = "world"
    d.setstate(10)
    return x + d.getstate(), list(d.items()), d["hello"], [k.__name__ for k in _DictState.__mro__]


def c_descr14y_int_dunder_on_list_mixin(x):
    return x + int(_Frag()), _Node().__int__(), int(_Node()), _Frag().__int__()


def c_descr14y_diamond_method_resolution(x):
    return (x + 1, _DD().spam(), _DD().boo(), _DE().spam(), _DE().boo(), _DD.__mro__ == (_DD, _DB, _DC, _DA, object),
            [k.__name__ for k in _DE.__mro__])


def c_descr14y_type_call_duplicate_base_and_bad_mro(x):
    messages = []
    for bases in ((_DA, _DA), (_DA, _DB)):
        try:
            type("X", bases, {})
        except TypeError as e:
            messages.append(str(e).split(" ")[0])
    return x + 1, messages


def c_descr14y_object_instances(x):
    a, b = object(), object()
    return x + 1, a.__class__ is object, type(a) is object, a != b, a == a, hasattr(a, "foo"), hasattr(a, "__dict__")


def c_descr14y_plain_instance_dict(x):
    o = _Parent()
    before = dict(o.__dict__)
    o.foo = 1
    return x + o.foo, before, o.__dict__


def c_descr14y_immutable_class_assignment_refused(x):
    refused = []
    for value in (1, "a", ()):
        try:
            value.__class__ = _MyInt
            refused.append(False)
        except TypeError:
            refused.append(True)
    return x + 1, refused


def c_descr14y_mangled_slot_names(x):
    m = _MangledSlots(5)
    try:
        m.__a = 6
        stored = True
    except AttributeError:
        stored = False
    return x + m.get(), stored, hasattr(m, "__a"), hasattr(m, "_MangledSlots__a"), hasattr(m, "__dict__")


def c_descr14y_single_string_slot(x):
    c = _StringSlot()
    c.abc = 5
    return x + c.abc, _StringSlot.__slots__, hasattr(c, "a")


def c_descr14y_subclasses_in_order(x):
    return x + 1, [k.__name__ for k in _Parent.__subclasses__()], _KidA.__base__ is _Parent


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
