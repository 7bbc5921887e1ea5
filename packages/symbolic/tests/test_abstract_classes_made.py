"""Instances of ``abc`` classes made while tracing.

``object.__new__`` refuses a class with abstract methods left: the trace made the instance anyway, a wrong
answer (``A()`` returned an object where Python raises TypeError). And ``cls.__new__(cls)`` of a class whose
metaclass is ``ABCMeta`` (``UserDict.copy`` of a subclass does this through ``UserDict.__copy__``) was a graph
break: only classes made by ``type`` itself were modelled."""

import abc
import collections

import pytest
import torch
from harness import check


class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...

    @abc.abstractmethod
    def name(self): ...


class Square(Shape):
    def area(self):
        return 4

    def name(self):
        return "square"


def abstract_class_refused(x):
    try:
        Shape()
    except TypeError as e:
        return x + 1, str(e), e.args
    return x


def abstract_class_refused_by_object_new(x):
    try:
        object.__new__(Shape)
    except TypeError as e:
        return x - 1, str(e)
    return x


def abstract_class_with_own_new(x):
    class Half(abc.ABC):
        def __new__(cls, *args):
            return super().__new__(cls)

        @abc.abstractmethod
        def m(self): ...

    try:
        Half(1)
    except TypeError as e:
        return x * 2, str(e)
    return x


def concrete_subclass_made(x):
    s = Square()
    return x * s.area(), s.name(), isinstance(s, Shape)


class Table(dict, metaclass=abc.ABCMeta):  # dict.__new__ does not check abstract methods: made
    @abc.abstractmethod
    def m(self): ...


def dict_subclass_with_abstract_method_made(x):
    t = Table(a=1)
    return x + t["a"], type(t).__name__


def abc_class_new_called_directly(x):
    q = Square.__new__(Square)
    return x + q.area(), type(q).__name__


def userdict_subclass_copy(x):
    class Named(collections.UserDict):
        pass

    y = x.sin()
    d = Named(a=1)
    c = d.copy()
    c["b"] = 2
    return y + len(c), type(c).__name__, dict(d), dict(c), c.data is d.data


@pytest.mark.parametrize("fn", [abstract_class_refused, abstract_class_refused_by_object_new,
                                abstract_class_with_own_new, concrete_subclass_made,
                                dict_subclass_with_abstract_method_made, abc_class_new_called_directly,
                                userdict_subclass_copy])
def test_matches_eager_in_one_graph(fn):
    check(fn, torch.ones(3))


def test_compiled_abstract_refusal_counts():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    loom.reset()
    out = loom.compile(abstract_class_refused, backend="eager")(torch.ones(3))
    expected = abstract_class_refused(torch.ones(3))
    assert torch.equal(out[0], expected[0]) and out[1:] == expected[1:]
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)
