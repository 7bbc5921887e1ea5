"""``object.__init__`` / ``object.__new__`` given arguments refuse them as CPython does (``object_init``,
``object_new``), with CPython's messages, in the trace: ``super().__init__(42)`` in a class overriding
``__init__`` used to be accepted silently (a wrong answer); ``obj.__init__(42)``, ``object.__init__(obj, 42)``,
``object.__new__(C, 42)`` were graph breaks. ``del obj.y`` of a class attribute on an instance without a
``__dict__`` raises "... attribute 'y' is read-only" (it said "has no attribute")."""

from __future__ import annotations

import torch

import loom


class _Plain:
    pass


class _OnlyInit:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


class _NewInit:
    def __new__(cls, *args, **kwargs):
        super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


class _InitTakesArg:
    def __init__(self, foo):
        self.foo = foo


class _Slotted:
    y = 0
    __slots__ = ("z",)


def _error(call):
    try:
        call()
    except (TypeError, AttributeError) as e:
        return type(e).__name__, str(e)
    return None


def _one_graph(fn):
    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
    return got


def test_super_init_with_arguments_raises():
    def fn(x):
        return x + 1, _error(lambda: _OnlyInit(42)), _error(lambda: _OnlyInit().__init__(42))

    got = _one_graph(fn)
    assert got[1] == ("TypeError", "object.__init__() takes exactly one argument (the instance to initialize)")


def test_object_init_and_new_refuse_arguments_as_cpython():
    def fn(x):
        return (x + 1, _error(lambda: _Plain().__init__(42)), _error(lambda: object.__init__(_Plain(), 42)),
                _error(lambda: object.__init__(_OnlyInit(), 42)), _error(lambda: object.__new__(_Plain, 42)),
                _error(lambda: object.__new__(_NewInit, 42)), _error(lambda: _NewInit(42)),
                type(object.__new__(_InitTakesArg, 5)).__name__, _error(lambda: object.__init__(_InitTakesArg(3), 5)),
                _Plain().__init__())

    got = _one_graph(fn)
    assert got[1] == ("TypeError", "_Plain.__init__() takes exactly one argument (the instance to initialize)")
    assert got[4] == ("TypeError", "_Plain() takes no arguments") and got[7] == "_InitTakesArg"


def test_deleting_a_class_attribute_on_a_slotted_instance_is_read_only():
    def fn(x):
        def delete(obj, name):
            delattr(obj, name)

        return x + 1, _error(lambda: delete(_Slotted(), "y")), _error(lambda: delete(_Slotted(), "z"))

    got = _one_graph(fn)
    assert got[1] == ("AttributeError", "'_Slotted' object attribute 'y' is read-only")
