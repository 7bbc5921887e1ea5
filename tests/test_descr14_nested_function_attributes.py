"""Attributes of a function made while tracing written and deleted as CPython does: ``__code__`` swapped for a
code object with as many free variables (later calls run it over the same cells; CPython's ValueError
otherwise), ``__name__ = 7`` (CPython's TypeError), ``del f.__defaults__`` / ``__kwdefaults__`` / ``__doc__``
(emptied), ``del f.attr`` of its ``__dict__``, ``del f.__name__`` (TypeError). They were graph breaks."""

from __future__ import annotations

import torch

import loom


def _three():
    return 3


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


def _error(act):
    try:
        act()
    except (TypeError, ValueError, AttributeError) as e:
        return type(e).__name__, str(e)
    return None


def test_code_swaps():
    def fn(x):
        one, two = 7, 8

        def b():
            return 12

        def c():
            return one

        def d():
            return two

        def test():
            pass

        d.__code__ = c.__code__
        test.__code__ = _three.__code__

        def swap():
            b.__code__ = c.__code__

        return x + test(), d(), c.__code__ == d.__code__, _error(swap), b()

    got = _one_graph(fn)
    assert got[1] == 8 and got[3][0] == "ValueError" and got[4] == 12


def test_name_type_checks_and_deletions():
    def fn(x):
        def b(k=1, *, m=2):
            "doc"
            return k + m

        b.__name__ = "c"
        b.tag = 5
        errors = (_error(lambda: setattr(b, "__name__", 7)), _error(lambda: setattr(b, "__qualname__", 7)),
                  _error(lambda: delattr(b, "__name__")), _error(lambda: delattr(b, "missing")))
        del b.__doc__
        del b.tag
        del b.__kwdefaults__
        del b.__defaults__
        return x + 1, b.__name__, errors, b.__doc__, b.__defaults__, b.__kwdefaults__, hasattr(b, "tag"), \
            _error(lambda: b())

    got = _one_graph(fn)
    assert got[2][0][0] == "TypeError" and got[2][3][0] == "AttributeError" and got[3:7] == (None, None, None, False)


def test_a_function_made_in_the_frame_is_unequal_to_an_older_one():
    def fn(x):
        def b():
            return 3

        d = {b: "value", _three: "global"}
        return x + len(d), d[b], d[_three], b != _three, b == _three, _three == b

    got = _one_graph(fn)
    assert got[1:] == ("value", "global", True, False, False)
