"""test_descr's property, dict-constructor, dir() and super() tests over classes made outside the compiled frame,
for ``capture_count.py --only descr14``: a property's ``__get__``/``__set__``/``__delete__`` called directly and
its read-only fields, properties built with ``getter``/``setter``/``deleter`` on subclasses, ``dict()`` from every
kind of argument, ``dir()`` of classes and instances, and ``super()`` objects kept on instances.
"""

from __future__ import annotations


class _PC:
    def getx(self):
        return self.__x

    def setx(self, value):
        self.__x = value

    def delx(self):
        del self.__x

    x = property(getx, setx, delx, doc="I'm the x property.")


class _BadGetitem:
    __getitem__ = property(lambda s: 1 / 0)


class _Plus:
    foo = property(doc="hello")

    @foo.getter
    def foo(self):
        return self._foo

    @foo.setter
    def foo(self, value):
        self._foo = abs(value)

    @foo.deleter
    def foo(self):
        del self._foo


class _PlusSub(_Plus):
    @_Plus.foo.deleter
    def foo(self):
        try:
            del self._foo
        except AttributeError:
            pass


class _E:
    @property
    def foo(self):
        return self._foo

    @foo.setter
    def foo(self, value):
        raise RuntimeError

    @foo.setter
    def foo(self, value):
        self._foo = abs(value)


class _ESub(_E):
    @_E.foo.setter
    def foo(self, value):
        self._foo = max(0, value)


class _Mapping:
    dict = {1: 2, 3: 4, "a": 1j}


class _KeyedMapping(_Mapping):
    def keys(self):
        return list(self.dict.keys())

    def __getitem__(self, i):
        return self.dict[i]


class _Entry:
    def __init__(self, first, last):
        self.first, self.last = first, last

    def __iter__(self):
        return iter([self.first, self.last])


class _DirC:
    Cdata = 1

    def Cmethod(self):
        pass


class _DirA(_DirC):
    Adata = 1

    def Amethod(self):
        pass


class _SA:
    def meth(self, a):
        return f"A({a!r})"


class _SB(_SA):
    def __init__(self):
        self.__super = super()

    def meth(self, a):
        return f"B({a!r})" + self.__super.meth(a)


class _SD(_SB):
    def meth(self, a):
        return f"D({a!r})" + super().meth(a)


class _DDbase:
    def getx(self):
        return 42

    x = property(getx)


class _DDsub(_DDbase):
    def getx(self):
        return "hello"

    x = property(getx)


def _interesting(names):
    return [s for s in names if not s.startswith("_")]


def c_descr14p_property_get_set_delete_directly(x):
    a = _PC()
    before = hasattr(a, "x")
    a.x = 42
    mangled = a._PC__x
    del a.x
    after = (hasattr(a, "x"), hasattr(a, "_PC__x"))
    _PC.x.__set__(a, 100)
    got = _PC.x.__get__(a)
    _PC.x.__delete__(a)
    return x + got, before, mangled, after, hasattr(a, "x")


def c_descr14p_property_fields_read_only(x):
    raw = _PC.__dict__["x"]
    refused = []
    for attr in ("fget", "fset", "fdel"):
        try:
            setattr(raw, attr, 42)
            refused.append(False)
        except AttributeError as e:
            refused.append("readonly" in str(e))
    return (x + 1, isinstance(raw, property), raw.__doc__, raw.fget is _PC.__dict__["getx"],
            raw.fdel is _PC.__dict__["delx"], refused, "fget" in dir(raw))


def c_descr14p_getitem_property_raising_in_iteration(x):
    try:
        for i in _BadGetitem():
            str(i)
        raised = False
    except ZeroDivisionError:
        raised = True
    return x + 1, raised


def c_descr14p_property_doc_from_getter(x):
    def getter(self):
        "getter method"
        return 0

    def setter(self, value):
        "setter method"

    return x + 1, property(getter).__doc__, property(fset=setter).__doc__


def c_descr14p_property_chain_getter_setter_deleter(x):
    c = _Plus()
    before = hasattr(c, "foo")
    c.foo = -42
    got = (c._foo, c.foo)
    del c.foo
    d = _PlusSub()
    d.foo = 24
    dgot = d.foo
    del d.foo
    del d.foo
    return x + got[1], _Plus.foo.__doc__, before, got, hasattr(c, "_foo"), dgot


def c_descr14p_property_setter_replaced_in_subclass(x):
    e, f = _E(), _ESub()
    e.foo = -42
    f.foo = -10
    return x + e.foo, f.foo


def c_descr14p_dict_constructor_forms(x):
    d = dict({"one": 1, "two": 2})
    same = [d == dict(one=1, two=2), d == dict(**d), d == dict({"one": 1}, two=2), d == dict([("two", 2)], one=1),
            d == dict([("one", 100), ("two", 200)], **d), d == dict(list(d.items())), d == dict(iter(d.items()))]
    return x + len(d), same, dict(zip(range(4), range(1, 5)))


def c_descr14p_dict_constructor_bad_arguments(x):
    kinds = []
    for bad in (0, 0j, "0", [0], (0,), [("tooshort",)], [("too", "long", "by 1")]):
        try:
            dict(bad)
            kinds.append(None)
        except (TypeError, ValueError) as e:
            kinds.append(type(e).__name__)
    try:
        dict({}, {})
        two = None
    except TypeError:
        two = "TypeError"
    return x + 1, kinds, two


def c_descr14p_dict_from_mapping_protocol(x):
    try:
        dict(_Mapping())
        incomplete = None
    except TypeError:
        incomplete = "TypeError"
    d = dict(_KeyedMapping())
    return x + len(d), incomplete, d == _Mapping.dict


def c_descr14p_dict_from_iterable_pairs(x):
    d = dict([_Entry("Tim", "Warsaw"), _Entry("Barry", "Peters"), _Entry("Tim", "Peters"), _Entry("Barry", "Warsaw")])
    return x + len(d), d


def c_descr14p_dir_of_classes_and_instances(x):
    c, a = _DirC(), _DirA()
    c.cdata = 2
    a.adata = 42
    return (x + 1, _interesting(dir(_DirC)), _interesting(dir(c)), _interesting(dir(_DirA)), _interesting(dir(a)),
            dir(object()) == dir(Ellipsis))


def c_descr14p_super_object_kept_on_instance(x):
    return x + 1, _SB().meth(2), _SD().meth(4)


def c_descr14p_super_argument_checks(x):
    refused = []
    for args in ((_SD, 42), (_SD, _SA())):
        try:
            super(*args)
            refused.append(False)
        except TypeError:
            refused.append(True)
    return x + 1, refused


def c_descr14p_super_reads_base_property(x):
    dd = _DDsub()
    return x + super(_DDsub, dd).x, dd.x


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
