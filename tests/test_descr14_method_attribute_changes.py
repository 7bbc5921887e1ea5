"""Setting or deleting an attribute of a bound method (``obj.f.x = 7``, ``obj.f.__name__ = "a"``, ``del
obj.f.__func__``) raises CPython's error in the trace (a method has no ``__dict__`` and read-only names); it was a
graph break."""

from __future__ import annotations

import torch

import loom


class _F:
    def a(self):
        pass


def test_method_attribute_changes_raise_in_one_graph():
    def fn(x):
        fi = _F()
        errors = []
        for act in (lambda: setattr(fi.a, "known_attr", 7), lambda: setattr(fi.a, "__name__", "a"),
                    lambda: delattr(fi.a, "__func__"), lambda: setattr(fi.a, "__self__", fi)):
            try:
                act()
                errors.append(None)
            except (AttributeError, TypeError) as e:
                errors.append((type(e).__name__, str(e)))
        return x + 1, errors

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1] == expected[1] and all(e is not None for e in got[1])
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
