"""``super().name`` where ``name`` is a plain class attribute of a base (no ``__get__``): the value
itself, guarded through ``type(obj).__mro__[i].__dict__[name]`` (issue 29, PyTorch test_misc's
``super().a * x`` in a child's method: a graph break that left the method uncompiled)."""

import pytest
import torch
from harness import CaseRegistry, check

import loom_guards

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


class Base:
    scale = 4
    names = ("a", "b")
    registry = []


class Child(Base):
    scale = 100

    def scaled(self, x):
        return x * super().scale + len(super().names), super().names[0]

    def remember(self, x):
        super().registry.append(x.shape[0])
        return x + len(super().registry)


class GrandChild(Child):
    def scaled(self, x):
        return super(Child, self).scale * x


@case(X, Child())
def super_reads_the_base_value_not_the_override(x, obj):
    return obj.scaled(x)


@case(X)
def super_on_an_object_made_while_tracing(x):
    return Child().scaled(x)


@case(X)
def super_with_explicit_arguments_skips_a_class(x):
    return GrandChild().scaled(x)


@case(X, Child())
def a_mutable_class_attribute_through_super_keeps_its_mutations(x, obj):
    return obj.remember(x)


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_super_class_attribute(fn, args, kwargs, graphs):
    Base.registry.clear()
    check(fn, *args, graphs=graphs, **kwargs)


def test_the_value_is_guarded():
    obj = Child()
    translation = check(super_reads_the_base_value_not_the_override, X, obj)
    guard = loom_guards.compile(translation.guards)
    assert guard({"x": X, "obj": obj})
    Base.scale = 5
    try:
        assert not guard({"x": X, "obj": obj})
    finally:
        Base.scale = 4
