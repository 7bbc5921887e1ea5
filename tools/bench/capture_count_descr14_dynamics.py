"""test_descr's dynamics, errors, class/static method, computed-attribute, ``__new__`` and ``object.__new__`` /
``object.__init__`` tests, over classes made outside the compiled frame, for ``capture_count.py --only descr14``.
A program that changes a module class puts it back before returning (each program runs more than once).
"""

from __future__ import annotations


class _D:
    pass


class _E(_D):
    pass


class _C:
    pass


class _I(int):
    pass


class _DynMeta(type):
    pass


class _SomeClass(metaclass=_DynMeta):
    pass


def _foo(*a):
    return a


class _CM:
    foo = _foo
    goo = classmethod(_foo)
    soo = staticmethod(_foo)


class _CMSub(_CM):
    pass


def _f_cls(cls, arg):
    """f docstring"""
    return (cls, arg)


class _Computed:
    class computed_attribute:
        def __init__(self, get, set=None, delete=None):
            self.__get = get
            self.__set = set
            self.__delete = delete

        def __get__(self, obj, type=None):
            return self.__get(obj)

        def __set__(self, obj, value):
            return self.__set(obj, value)

        def __delete__(self, obj):
            return self.__delete(obj)

    def __init__(self):
        self.__x = 0

    def __get_x(self):
        x = self.__x
        self.__x = x + 1
        return x

    def __set_x(self, x):
        self.__x = x

    def __delete_x(self):
        del self.__x

    x = computed_attribute(__get_x, __set_x, __delete_x)


class _NewList(list):
    def __new__(cls):
        self = list.__new__(cls)
        self.foo = 1
        return self

    def __init__(self):
        self.foo = self.foo + 2


class _NewListSub(_NewList):
    pass


class _ObjA:
    pass


class _ObjInit:
    def __init__(self, foo):
        self.foo = foo


class _ObjNew:
    def __new__(cls, foo):
        return object.__new__(cls)


def c_descr14d_class_attribute_propagates(x):
    _D.foo = 1
    try:
        return x + _D.foo, _E.foo, _E().foo
    finally:
        del _D.foo


def c_descr14d_methods_added_to_a_module_class(x):
    a = _C()
    before = hasattr(a, "foobar")
    _C.foobar = 2
    _C.method = lambda self: 42
    try:
        return x + a.foobar, before, a.method()
    finally:
        del _C.foobar
        del _C.method


def c_descr14d_special_methods_added_to_a_module_class(x):
    a = _C()
    _C.__repr__ = lambda self: "C()"
    _C.__int__ = lambda self: 100
    try:
        return x + int(a), repr(a)
    finally:
        del _C.__repr__
        del _C.__int__


def c_descr14d_int_subclass_sequence_repeat(x):
    return x * _I(2), "a" * _I(2), _I(2) * "a", 2 * _I(3), _I(3) * 2, _I(3) * _I(2), [0] * _I(2)


def c_descr14d_dynamic_metaclass_class_compare(x):
    return x + 1, _SomeClass != object,  # noqa: E721 _SomeClass == _SomeClass, type(_SomeClass) is _DynMeta


def c_descr14d_bad_bases_refused(x):
    refused = []
    for bases in ((list, dict), (object, None), (type(len),)):
        try:
            type("C", bases, {})
            refused.append(False)
        except TypeError:
            refused.append(True)
    return x + 1, refused


def c_descr14d_classmethod_of_star_args(x):
    c, d = _CM(), _CMSub()
    return (x + 1, _CM.goo(1) == (_CM, 1), c.goo(1) == (_CM, 1), c.foo(1) == (c, 1), _CMSub.goo(1) == (_CMSub, 1),
            d.goo(1) == (_CMSub, 1), _CMSub.foo(d, 1) == (d, 1))


def c_descr14d_classmethod_get_and_self(x):
    ff = classmethod(_f_cls)
    return (x + 1, ff.__get__(0, int)(42), ff.__get__(0)(42), _CM.goo.__self__ is _CM, _CMSub.goo.__self__ is _CMSub,
            super(_CMSub, _CMSub).goo.__self__ is _CMSub, super(_CMSub, _CMSub()).goo() == (_CMSub,))


def c_descr14d_classmethod_of_non_callable(x):
    meth = classmethod(1).__get__(1)
    try:
        meth()
        raised = False
    except TypeError:
        raised = True
    return x + 1, raised


def c_descr14d_classmethod_object_dict(x):
    cm = classmethod(_f_cls)
    cm.x = 42
    got = cm.x
    del cm.x
    return x + got, hasattr(cm, "x"), cm.__dict__["__name__"], cm.__doc__


def c_descr14d_staticmethod_of_star_args(x):
    c = _CM()
    return x + 1, _CM.soo(1), c.soo(1), _CMSub.soo(1, 2), staticmethod(None).__dict__


def c_descr14d_function_borrowed_by_other_class(x):
    class_e = type("E", (), {"foo": _CM.foo})
    e = class_e()
    return x + 1, e.foo.__func__ is _CM.foo, repr(_CM.foo.__get__(_CM())).startswith("<bound method ")


def c_descr14d_computed_attribute_descriptor(x):
    a = _Computed()
    first, second = a.x, a.x
    a.x = 10
    third, fourth = a.x, a.x
    del a.x
    return x + fourth, (first, second, third), hasattr(a, "x")


def c_descr14d_list_subclass_new_and_init(x):
    a, b = _NewList(), _NewListSub()
    return x + a.foo, b.foo, a.__class__ is _NewList, b.__class__ is _NewListSub, list(a)


def c_descr14d_object_new_and_init_arguments(x):
    raised = []
    for call in (lambda: object.__new__(_ObjA, 5), lambda: object.__init__(_ObjA(), 5),
                 lambda: object.__new__(_ObjInit, 5), lambda: object.__init__(_ObjInit(3), 5),
                 lambda: object.__new__(_ObjNew, 5), lambda: object.__init__(_ObjNew(3), 5)):
        try:
            call()
            raised.append(False)
        except TypeError:
            raised.append(True)
    return x + 1, raised


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
