"""``obj.name = value`` and ``del obj.name`` on an instance of a user class passed in follow Python's rules, as
for an object made in the frame (``variables/real_object_stores.py``): a ``__setattr__``/``__delattr__`` the class
writes in Python is inlined and what it stores through ``object``'s is replayed through ``object``'s (so the
override's own effects happen once), a property's deleter runs, ``del`` of a name only the class has raises
AttributeError in the trace, and a slot deleted in the trace reads as unset. Before: a class's ``__setattr__``
was a graph break, and ``del`` ignored the class's ``__delattr__`` and a property's deleter (wrong answers: the
trace read the object as if deleted plainly, while the replay ran the real override)."""

from __future__ import annotations

import torch

import loom


def run(fn, make_args):
    """Eager's result and arguments, loom's, and loom's (graphs, breaks)."""
    eager_args = make_args()
    expected = fn(*eager_args)
    loom.reset()
    loom_args = make_args()
    actual = loom.compile(fn, backend="eager", options={"strict": True})(*loom_args)
    stats = loom.stats()
    return expected, actual, eager_args, loom_args, (stats["graphs"], stats["graph_breaks"])


class Logged:
    def __init__(self):
        object.__setattr__(self, "log", [])
        self.a = 1

    def __setattr__(self, name, value):
        self.log.append(name)
        super().__setattr__(name, value)


def stores_through_override(x, o):
    o.b = x + 1
    o.a += 1
    return o.b * o.a, list(o.log)


def test_a_python_setattr_of_an_input_is_inlined_once():
    expected, actual, eager_args, loom_args, counts = run(stores_through_override, lambda: (torch.arange(3.0), Logged()))
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1] == ["a", "b", "a"]
    assert loom_args[1].log == eager_args[1].log == ["a", "b", "a"]  # the replay did not run the override again
    assert (loom_args[1].a, type(loom_args[1].b)) == (2, torch.Tensor)
    assert counts == (1, 0)


class WithDeleter:
    def __init__(self):
        self._v = 1

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        self._v = value * 2

    @v.deleter
    def v(self):
        self._v = None


def deletes_property(x, p):
    p.v = 3
    a = p.v
    del p.v
    return x + a, p._v


def test_a_property_deleter_runs_in_the_trace():
    expected, actual, _, loom_args, counts = run(deletes_property, lambda: (torch.arange(3.0), WithDeleter()))
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] is expected[1] is None  # was 6: the deleter never ran in the trace
    assert loom_args[1]._v is None
    assert counts == (1, 0)


class CountsDeletes:
    def __init__(self):
        self.a = 1
        self.deleted = []

    def __delattr__(self, name):
        self.deleted.append(name)
        object.__delattr__(self, name)


def deletes_through_override(x, o):
    del o.a
    return x + len(o.deleted), hasattr(o, "a")


def test_a_python_delattr_of_an_input_is_inlined_once():
    expected, actual, eager_args, loom_args, counts = run(deletes_through_override,
                                                          lambda: (torch.arange(3.0), CountsDeletes()))
    torch.testing.assert_close(actual[0], expected[0])  # was x + 0
    assert actual[1] is expected[1] is False
    assert loom_args[1].deleted == eager_args[1].deleted == ["a"]
    assert counts == (1, 0)


class Plain:
    k = 3

    def __init__(self):
        self.a = 1

    def method(self):
        return 1


def deletes_class_names(x, o):
    try:
        del o.method
    except AttributeError as e:
        first = str(e)
    del o.a
    try:
        del o.a
    except AttributeError as e:
        second = str(e)
    return x + o.k, first, second


def test_deleting_what_only_the_class_has_raises_in_the_trace():
    expected, actual, _, loom_args, counts = run(deletes_class_names, lambda: (torch.arange(3.0), Plain()))
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:] == ("'Plain' object has no attribute 'method'", "'Plain' object has no attribute 'a'")
    assert "a" not in vars(loom_args[1])
    assert counts == (1, 0)


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1


def deletes_slot(x, s):
    s.b = x
    s.a += 1
    y = x * s.a
    del s.a
    return y, s.b, hasattr(s, "a")


def test_a_slot_deleted_in_the_trace_reads_unset():
    expected, actual, _, loom_args, counts = run(deletes_slot, lambda: (torch.arange(3.0), Slotted()))
    torch.testing.assert_close(actual[0], expected[0])
    torch.testing.assert_close(actual[1], expected[1])
    assert actual[2] is expected[2] is False
    assert not hasattr(loom_args[1], "a")
    assert counts == (1, 0)


class Refuses:
    def __init__(self):
        self.a = 1

    def __delattr__(self, name):
        raise TypeError("no deleting " + name)


def delete_refused(x, o):
    try:
        del o.a
    except TypeError as e:
        return x + o.a, str(e)
    return x, ""


def test_an_override_that_refuses_is_seen():
    expected, actual, _, loom_args, counts = run(delete_refused, lambda: (torch.arange(3.0), Refuses()))
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1] == "no deleting a"
    assert loom_args[1].a == 1
    assert counts == (1, 0)
