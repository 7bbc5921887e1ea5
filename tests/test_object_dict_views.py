"""An object's ``__dict__`` and its attributes agree in the trace (``loom_symbolic/object_dicts.py``).

The trace's attribute stores reach the real object only when replayed after the graph; a ``__dict__`` the trace
reads (``vars(obj)``, the same dict handed in as an argument, or held across a graph break) shows them, and a
change made through the dict itself is seen by the object's attribute reads. Before, a dict handed in or held
across a break read stale contents (a wrong answer), and a store after ``vars(obj)`` or a write through
``obj.__dict__`` was a graph break.
"""

import contextlib
import io
import types

import torch
from breaks_harness import show

import loom


class _Record:
    kind = 7

    def __init__(self):
        self.k = 2
        self.m = 3


class _WithProperty:
    def __init__(self):
        self._v = 1

    @property
    def prop(self):
        return self.__dict__.get("_v", 0) * 10


def _run(fn, make, *, graphs=1, breaks=0):
    """Eager's answer and the object's ``__dict__`` after it, against the compiled function's, and the counts."""
    with contextlib.redirect_stdout(io.StringIO()):
        eager_args, compiled_args = make(), make()
        expected = fn(torch.ones(2), *eager_args)
        loom.reset()
        got = loom.compile(fn, backend="eager", options={"strict": True})(torch.ones(2), *compiled_args)
        loom.reset()
        report = loom.explain(fn)(torch.ones(2), *make())
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:], (fn.__name__, got, expected)
    assert vars(compiled_args[0]) == vars(eager_args[0]), (fn.__name__, vars(compiled_args[0]), vars(eager_args[0]))
    assert list(vars(compiled_args[0])) == list(vars(eager_args[0]))
    assert (report.graph_count, report.graph_break_count) == (graphs, breaks), (fn.__name__, report.breaks)
    return report


def store_after_vars(x, obj):
    keys = list(vars(obj))
    obj.n = obj.k + obj.m
    return x + obj.n, keys, vars(obj)["n"], list(vars(obj))


def delete_after_vars(x, obj):
    d = vars(obj)
    del obj.k
    obj.k = 9
    return x + obj.k, list(d), "k" in vars(obj)


def dict_handed_in(x, obj, d):
    obj.w = 1
    return x + 1, dict(d)


def dict_written_then_attribute_read(x, obj):
    obj.__dict__["n"] = 5
    return x + obj.n, list(obj.__dict__)


def dict_entry_deleted_falls_back_to_class(x, obj):
    obj.__dict__["kind"] = 1
    first = obj.kind
    del obj.__dict__["kind"]
    return x + first + obj.kind, hasattr(obj, "kind")


def dict_written_then_attribute_deleted(x, obj):
    d = obj.__dict__
    d["c"] = 1
    del obj.c
    return x + obj.kind, "c" in d


def dict_held_across_a_break(x, obj):
    d = obj.__dict__
    d["w"] = 1
    show("break")
    obj.w += 1
    return x + obj.w, dict(d)


def test_stores_and_deletions_are_shown_in_the_dict_read_before():
    _run(store_after_vars, lambda: (_Record(),))
    _run(delete_after_vars, lambda: (_Record(),))


def test_a_dict_handed_in_shows_the_stores_on_its_object():
    def make():
        obj = _Record()
        return obj, obj.__dict__

    _run(dict_handed_in, make)


def test_writes_through_the_dict_are_seen_by_attribute_reads():
    _run(dict_written_then_attribute_read, lambda: (_Record(),))
    _run(dict_entry_deleted_falls_back_to_class, lambda: (_Record(),))
    _run(dict_written_then_attribute_deleted, lambda: (_Record(),))
    _run(dict_held_across_a_break, lambda: (_Record(),), breaks=1)


def dict_entry_shadowing_property(x, obj):
    obj.__dict__["prop"] = 99
    return x + obj.prop, obj.__dict__["prop"]


def test_a_property_wins_over_a_dict_entry_of_its_name():
    _run(dict_entry_shadowing_property, lambda: (_WithProperty(),))


class _Module(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 2

    def forward(self, x):
        return x * self.k


def module_dict_written(x, m, d):
    d["k"] = 9
    return (m(x),)


def namespace_dict_written(x, ns, d):
    d["k"] = 9
    return (x + ns.k,)


def test_kinds_whose_attributes_are_not_read_from_the_dict_break_on_a_written_dict():
    def module():
        m = _Module()
        return m, m.__dict__

    def namespace():
        ns = types.SimpleNamespace(k=1)
        return ns, ns.__dict__

    report = _run(module_dict_written, module, breaks=1)
    assert "whose __dict__ the trace changed" in report.breaks[0].what, report.breaks
    report = _run(namespace_dict_written, namespace, breaks=1)
    assert "whose __dict__ the trace changed" in report.breaks[0].what, report.breaks
