"""``del Cls.attr`` inside the compiled function: a side effect replayed after the graph (a graph break
``deleting attribute ... not modelled`` before). Later reads in the trace see the deletion: a base class's
attribute, or the AttributeError; the class after the call is the one eager leaves."""

import pytest
import torch
from harness import assert_same, run_rewritten

from loom_symbolic import translate_function

X = torch.ones(3)


def _classes():
    class Base:
        y = 5

        def m(self):
            return 10

    class Cls(Base):
        y = 7
        z = 1

        def m(self):
            return 20

    class Sub(Cls):
        pass

    return Base, Cls, Sub


def base_attribute_after(x, base, cls, sub):
    del cls.y
    return x + cls.y + sub.y + sub().y


def missing_after(x, base, cls, sub):
    del cls.z
    try:
        return x + cls.z
    except AttributeError as exc:
        return x - 1, str(exc), hasattr(cls, "z"), hasattr(sub(), "z")


def method_of_the_base_after(x, base, cls, sub):
    del cls.m
    return x + sub().m() + cls().m()


def instance_attribute_still_wins(x, base, cls, sub):
    o = cls()
    o.z = 9
    del cls.z
    return x + o.z


def stored_then_deleted(x, base, cls, sub):
    cls.w = 3
    a = cls.w
    del cls.w
    return x + a + hasattr(cls, "w")


def deleted_then_stored(x, base, cls, sub):
    del cls.y
    b = cls.y
    cls.y = 11
    return x + cls.y + b


def deleted_twice(x, base, cls, sub):
    del cls.y
    try:
        del cls.y
    except AttributeError as exc:
        return x + 1, str(exc)
    return x


def seen_by_the_class_dict_and_dir(x, base, cls, sub):
    del cls.z
    return x + ("z" in cls.__dict__), "z" in dir(cls), "z" in dir(sub())


def _state(classes):
    return [sorted(k for k in vars(c) if not k.startswith("__")) for c in classes]


@pytest.mark.parametrize("fn", [base_attribute_after, missing_after, method_of_the_base_after,
                                instance_attribute_still_wins, stored_then_deleted, deleted_then_stored,
                                deleted_twice, seen_by_the_class_dict_and_dir])
def test_deleted_class_attribute(fn):
    traced_classes = _classes()
    translation = translate_function(fn, X, *traced_classes)
    assert not translation.breaks, translation.dump()
    assert len(translation.graphs) == 1, translation.dump()
    eager_classes, loom_classes = _classes(), _classes()
    expected = fn(X, *eager_classes)
    actual = run_rewritten(fn, translation, (X, *loom_classes), {})
    assert_same(actual, expected)
    assert _state(loom_classes) == _state(eager_classes)


def missing_delete(x, base, cls, sub):
    del cls.nope
    return x


def test_deleting_a_missing_attribute_raises_as_eager():
    classes = _classes()
    with pytest.raises(AttributeError) as eager:
        missing_delete(X, *classes)
    translation = translate_function(missing_delete, X, *_classes())
    with pytest.raises(AttributeError) as traced:
        run_rewritten(missing_delete, translation, (X, *_classes()), {})
    assert str(traced.value) == str(eager.value) == "type object 'Cls' has no attribute 'nope'"


def special_delete(x, base, cls, sub):
    del cls.__init_subclass__
    return x


def test_deleting_a_special_attribute_breaks_naming_it():
    translation = translate_function(special_delete, X, *_classes())
    assert translation.breaks and "deleting __init_subclass__ of class" in str(translation.breaks[0])
