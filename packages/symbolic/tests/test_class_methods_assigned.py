"""``Cls.method = function`` in a traced frame (PyTorch test_decorators patches a method on the class between
calls): the store is replayed after the graph, and reads later in the trace see the new function, plain on the
class and bound as a method on its instances and its subclasses' instances. A property, classmethod or other
descriptor assigned or replaced this way stays a graph break."""

import torch
from harness import assert_same, run_rewritten

from loom_symbolic import translate_function

X = torch.arange(3.0)


def make_classes():
    class Stepper:
        k = 3

        def step(self, t):
            return t + self.k

    class Child(Stepper):
        k = 5

    return Stepper, Child


def patches_a_method(x, obj, child):
    before = obj.step(x)
    type(obj).step = lambda self, t: t * self.k
    return before, obj.step(x), child.step(x), type(obj).step(obj, x), type(obj).step.__name__


def patches_with_a_function_from_outside(x, obj):
    type(obj).step = _halving
    return obj.step(x) + type(obj).step(obj, x)


def _halving(self, t):
    return t / 2 + self.k


def replaces_with_a_property(x, obj):
    type(obj).step = _PROPERTY
    return x + 1


_PROPERTY = property(lambda self: self.k)


def _run_both(fn, count):
    eager_classes, classes = make_classes(), make_classes()
    expected = fn(X, *[cls() for cls in eager_classes][:count])
    translation = translate_function(fn, X, *[cls() for cls in classes][:count])  # changes no class
    args = (X, *[cls() for cls in classes][:count])
    actual = run_rewritten(fn, translation, args, {})
    return translation, actual, expected, args


def test_a_patched_method_binds_in_the_trace():
    translation, actual, expected, (_, obj, _) = _run_both(patches_a_method, 2)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    assert_same(actual, expected)
    assert type(obj).step(obj, X).tolist() == [0.0, 3.0, 6.0]  # the store was replayed on the real class


def test_a_module_function_assigned_on_the_class():
    translation, actual, expected, _ = _run_both(patches_with_a_function_from_outside, 1)
    assert not translation.breaks, translation.dump()
    assert_same(actual, expected)


def test_a_property_assigned_on_the_class_breaks():
    translation = translate_function(replaces_with_a_property, X, make_classes()[0]())
    assert [b.reason.what for b in translation.breaks] == ["assigning attribute 'step' of class make_classes.<locals>.Stepper"]
    assert "descriptor" in translation.breaks[0].reason.why
