"""``dir(obj)`` of a plain object, a class, an nn.Module (its Python ``__dir__``), an object whose class
writes ``__dir__``: traced through ``polyfills.introspection`` with the class names folded (a graph break
``call to dir()`` before). A tensor's ``dir()`` is a break: while tracing its attributes are a fake tensor's."""

import types

import pytest
import torch
from harness import CaseRegistry, check

from loom_symbolic import translate_function
from loom_symbolic.polyfills import introspection

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


class Base:
    b = 1


class Thing(Base):
    k = 2

    def __init__(self):
        self.i = 3

    def method(self):
        return self.i


class OwnDir:
    def __dir__(self):
        return ["zz", "aa", "mm"]


class Slotted:
    __slots__ = ("s",)


class Meta(type):
    def __dir__(cls):
        return ["from_meta"]


class WithMeta(metaclass=Meta):
    pass


THING = Thing()
THING.extra = 4
MODULE = torch.nn.Sequential(torch.nn.Linear(3, 3))


@case(X)
def dir_of_an_object_from_the_frame(x):
    names = [n for n in dir(THING) if not n.startswith("_")]
    return x + len(names), names


@case(X)
def dir_of_a_class(x):
    return x + len(dir(Thing)), dir(Base)


@case(X)
def dir_of_an_object_made_here(x):
    o = Thing()
    o.made = 1
    return x + ("made" in dir(o)), dir(o)


@case(X)
def dir_of_a_module(x):
    return MODULE(x), "forward" in dir(MODULE), [n for n in dir(MODULE) if not n.startswith("_")]


@case(X)
def dir_through_own_dunder_dir(x):
    return x + 1, dir(OwnDir()), dir(Slotted()), dir(WithMeta), dir(3)


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_dir(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


@pytest.mark.parametrize("obj", [THING, Thing, Base, OwnDir(), Slotted(), WithMeta, WithMeta(), MODULE, torch.nn.Linear,
                                 3, "s", [1], types, object(), object, int, torch.ones(1), len, Thing.method, THING.method])
def test_the_stand_in_matches_dir(obj):
    assert introspection.dir(obj) == dir(obj)


def test_bad_arguments_raise_as_dir_does():
    for args in [(1, 2)]:
        with pytest.raises(TypeError) as real:
            dir(*args)
        with pytest.raises(TypeError) as stand_in:
            introspection.dir(*args)
        assert str(real.value) == str(stand_in.value)


def dir_of_a_tensor(x):
    return x + 1, dir(x)


def test_dir_of_a_tensor_breaks_naming_it():
    translation = translate_function(dir_of_a_tensor, X)
    assert translation.breaks and "dir() of a tensor" in str(translation.breaks[0])
