"""A descriptor class written in Python, read on the class that holds it (``Cls.name``): its
``__get__(descriptor, None, Cls)`` is inlined, as for an instance. The real read answers a new object each time
for ``functools.partialmethod`` and for a ``__get__`` making a closure; the old translation guarded that object's
identity, a guard that never held (an internal error: the frame ran uncompiled; strict, it raised)."""

import enum
import functools

import pytest
import torch
from harness import check

X = torch.arange(3.0)


class Ops:
    def _mul(self, v, k):
        return v * k

    triple = functools.partialmethod(_mul, k=3)


class Fresh:
    def __get__(self, obj, owner=None):
        def bound(v):
            return v * (2 if obj is None else 3)

        return bound


class SelfOnClass:
    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return obj.v + 1

    def describe(self):
        return "descriptor"


class Holder:
    op = Fresh()
    plus_one = SelfOnClass()

    def __init__(self, v):
        self.v = v


class Meta(type):
    @property
    def size(cls):
        return len([k for k in vars(cls) if not k.startswith("_")])


class Registry(metaclass=Meta):
    a = 1
    b = 2


def metaclass_property(x):
    return x + Registry.size, Registry.size > 1


class Level(enum.Enum):
    LOW = 1
    HIGH = 2


def enum_metaclass_methods_by_name(x):
    # EnumType's own Python methods, called by name on the class (were "it comes from the metaclass" breaks)
    return x + Level.__len__(), Level.__getitem__("HIGH").value, Level.__contains__(Level.LOW), list(Level.__iter__())


class Base:
    pass


class Derived(Base):
    pass


def type_methods_on_class(x):
    # type's C methods read on a class whose metaclass is type (were "it comes from the metaclass" breaks)
    mro = Derived.mro()
    mro.append(int)  # a new list on each call
    return (x + len(Derived.mro()), mro[1] is Base, Derived.__instancecheck__(Derived()),
            Base.__instancecheck__(Derived()), Derived.__subclasscheck__(Base), Base.__subclasscheck__(Derived))


def partialmethod_on_class(x):
    return Ops.triple(Ops(), x), Ops().triple(x + 1)


def fresh_function_on_class(x):
    return Holder.op(x), Holder(1).op(x), Holder.op is not Holder.op


def descriptor_answering_itself(x):
    return Holder(x).plus_one, Holder.plus_one.describe()


@pytest.mark.parametrize("fn", [partialmethod_on_class, fresh_function_on_class, descriptor_answering_itself,
                                metaclass_property, enum_metaclass_methods_by_name, type_methods_on_class])
def test_one_graph_as_eager(fn):
    check(fn, X)


@pytest.mark.parametrize("fn", [partialmethod_on_class, fresh_function_on_class])
def test_compiles_strict_without_internal_error(fn):
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    for a, b in zip(compiled(X), fn(X)):
        assert torch.equal(a, b) if isinstance(a, torch.Tensor) else a == b
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


def test_metaclass_property_follows_the_class():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    loom.reset()
    compiled = loom.compile(metaclass_property, backend="eager", options={"strict": True})
    assert torch.equal(compiled(X)[0], X + 2)
    Registry.c = 3  # the getter's answer changes: the class dict's guard fails, the frame is traced again
    try:
        assert torch.equal(compiled(X)[0], X + 3)
    finally:
        del Registry.c
    report = loom.explain(metaclass_property)(X)
    assert report.graph_count == 1 and report.break_count == 0


def test_annotations_of_a_class_without_its_own():
    # type's __annotations__ getter stores an empty dict in the class on the first read: the guard on the class
    # dict built before that read never held (an internal error; strict, it raised)
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    class Annotated:
        k: int = 1

    class Plain(Annotated):
        pass

    def read(x, cls):
        return x + 1, cls.__annotations__

    loom.reset()
    compiled = loom.compile(read, backend="eager", options={"strict": True})
    assert compiled(X, Plain)[1] == {} and "__annotations__" in vars(Plain)
    assert compiled(X, Annotated)[1] == {"k": int}
    assert loom.stats()["graph_breaks"] == 0


class Catalog(type):
    def __iter__(cls):
        return iter(sorted(cls.table))

    def __repr__(cls):
        return f"<catalog {cls.__name__} of {len(cls.table)}>"


class Parts(metaclass=Catalog):
    table = {"b": 2, "a": 1}

    def __iter__(self):  # the instances' iteration: not what iterating the class runs
        return iter(())


def metaclass_iteration_and_repr(x):
    # the metaclass's __iter__ and __repr__ on the class (were breaks: "cannot iterate", and __repr__ looked up
    # on the class, which found object's, called without its argument)
    names = list(Parts)
    for name in Parts:
        x = x + Parts.table[name]
    return x, names, repr(Parts), str(Parts), f"{Parts!r}"


def test_metaclass_protocols_one_graph_as_eager():
    check(metaclass_iteration_and_repr, X)
