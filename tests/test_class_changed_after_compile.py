"""A user class changed after the first call: a special method added, replaced or deleted, or the class
renamed. The translator decided how Python behaves from the class's dict (truth from ``__bool__``/``__len__``,
``==``/``!=`` by identity, ``getattr``'s default, ``str()``, ``callable()``); every such lookup in a user class is
guarded, so the next call recompiles and answers as eager does."""

from __future__ import annotations

import pytest
import torch

import loom


def _truth(x, obj):
    return x + 1 if obj else x - 1


def _equal(x, obj):
    return x + (1 if obj == 3 else 2)


def _not_equal(x, obj):
    return x + (1 if obj != obj else 2)


def _default(x, obj):
    return x * getattr(obj, "scale", 1)


def _text(x, obj):
    return x + 1, str(obj)[:7]


def _is_callable(x, obj):
    return x + (1 if callable(obj) else 2)


def _class_name(x, obj):
    return x + len(type(obj).__name__)


CASES = {
    "__bool__ added": (_truth, "__bool__", lambda self: False),
    "__len__ added": (_truth, "__len__", lambda self: 0),
    "__eq__ added": (_equal, "__eq__", lambda self, other: True),
    "__ne__ added": (_not_equal, "__ne__", lambda self, other: True),
    "__getattr__ added": (_default, "__getattr__", lambda self, name: 5),
    "__str__ added": (_text, "__str__", lambda self: "patched"),
    "__call__ added": (_is_callable, "__call__", lambda self: None),
    "__name__ assigned": (_class_name, "__name__", "LongerName"),
}


def _same(got, expected):
    if isinstance(got, tuple):
        return torch.equal(got[0], expected[0]) and got[1:] == expected[1:]
    return torch.equal(got, expected)


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_class_changed_between_calls_is_seen(name, backend):
    program, attribute, value = CASES[name]

    class Base:
        pass

    class Plain(Base):
        pass

    obj = Plain()
    loom.reset()
    compiled = loom.compile(program, backend=backend)
    x = torch.zeros(2)
    assert _same(compiled(x, obj), program(x, obj))
    # on the base class: the lookup went through it too
    setattr(Plain if attribute == "__name__" else Base, attribute, value)
    assert _same(compiled(x, obj), program(x, obj))
    if attribute != "__name__":
        delattr(Base, attribute)
        assert _same(compiled(x, obj), program(x, obj))


def test_a_special_method_replaced_on_the_class_is_seen():
    class Sized:
        def __len__(self):
            return 1

    obj = Sized()
    loom.reset()
    compiled = loom.compile(_truth, backend="eager")
    x = torch.zeros(2)
    assert torch.equal(compiled(x, obj), x + 1)
    Sized.__len__ = lambda self: 0
    assert torch.equal(compiled(x, obj), x - 1)


def test_not_equal_asks_a_ne_of_the_class_even_without_an_eq():
    """``a != a`` with a class defining ``__ne__`` alone: Python calls it; identity does not decide."""

    class Odd:
        def __ne__(self, other):
            return True

    obj = Odd()
    loom.reset()
    compiled = loom.compile(_not_equal, backend="eager")
    x = torch.zeros(2)
    assert torch.equal(compiled(x, obj), _not_equal(x, obj))
