"""``del obj.name`` where the class has a property with a deleter, or a descriptor class of the user's with
``__delete__`` (test_descr's cases): the deleter runs in the trace (a graph break before). ``hash(obj)`` of a
class that sets ``__hash__ = None`` (defining ``__eq__`` alone does) raises CPython's TypeError, which the
program may catch (a graph break before). ``object.__delattr__(self, name)`` and ``super().__delattr__(name)``
in a class's own ``__delattr__`` delete from the instance (a graph break before). A ``functools.cached_property``
of an object made in the trace computes once and lands in the instance dict (a graph break before)."""

import functools

import torch
from harness import check


class Temp:
    def __init__(self):
        self._c = 1.0

    @property
    def f(self):
        return self._c * 9 / 5 + 32

    @f.setter
    def f(self, value):
        self._c = (value - 32) * 5 / 9

    @f.deleter
    def f(self):
        self._c = 0.0


class Forget:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, objtype=None):
        return getattr(obj, self.name, -1)

    def __set__(self, obj, value):
        setattr(obj, self.name, value)

    def __delete__(self, obj):
        delattr(obj, self.name)


class Holder:
    slot = Forget()


def property_and_descriptor_deleters(x):
    y = x + 1
    t = Temp()
    t.f = 212
    hot = t.f
    del t.f
    h = Holder()
    h.slot = 5
    before = h.slot
    del h.slot
    return y * hot + t.f + before + h.slot


def test_deleters_run_in_the_trace():
    check(property_and_descriptor_deleters, torch.arange(3.0))


class EqOnly:
    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return self.k == other.k


def hash_of_unhashable(x):
    y = x * 2
    try:
        hash(EqOnly(1))
        message = ""
    except TypeError as e:
        message = str(e)
    return y + len(message), message


def test_hash_of_unhashable_raises_type_error():
    check(hash_of_unhashable, torch.arange(3.0))


class Logged:
    def __init__(self):
        object.__setattr__(self, "log", [])

    def __setattr__(self, name, value):
        self.log.append(name)
        object.__setattr__(self, name, value * 2)

    def __delattr__(self, name):
        self.log.append("del " + name)
        object.__delattr__(self, name)


class LoggedChild(Logged):
    def __delattr__(self, name):
        self.log.append("child")
        super().__delattr__(name)


def delattr_overrides_call_object_delattr(x):
    y = x + 1
    obj = Logged()
    obj.a = 3
    obj.b = 4
    del obj.a
    child = LoggedChild()
    child.c = 1
    del child.c
    try:
        del child.c
    except AttributeError:
        child.log.append("missing")
    return y * obj.b + len(obj.log), hasattr(obj, "a"), obj.log, child.log


def test_object_delattr_called_by_an_override():
    """``object.__delattr__(self, name)`` and ``super().__delattr__(name)`` in a class's own ``__delattr__``
    (test_class): the attribute leaves the instance in the trace (a graph break before)."""
    check(delattr_overrides_call_object_delattr, torch.arange(3.0))


class Expensive:
    def __init__(self, t):
        self.t = t
        self.calls = 0

    @functools.cached_property
    def doubled(self):
        self.calls += 1
        return self.t * 2


class Guarded(Expensive):
    def __setattr__(self, name, value):  # cached_property writes the instance dict past this
        if name == "doubled":
            raise AttributeError("read-only")
        super().__setattr__(name, value)


def cached_property_of_made_objects(x):
    e = Expensive(x + 1)
    first = e.doubled
    second = e.doubled
    g = Guarded(x)
    return first + second + e.calls + g.doubled + g.doubled, g.calls, "doubled" in vars(e), e


def test_cached_property_of_a_made_object():
    """``functools.cached_property`` read on an object made in the trace: computed once, then found in the
    instance dict (test_functools; a graph break before)."""
    check(cached_property_of_made_objects, torch.arange(3.0))
