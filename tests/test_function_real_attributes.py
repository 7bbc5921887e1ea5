"""Attributes every real function has, read inside the compiled frame (``variables/functions.py``).

Before, a name outside the handful the translator models (``__closure__``, ``__globals__``, ``__call__``...) was
answered with AttributeError: ``hasattr(helper, "__closure__")`` was False and ``except AttributeError`` ran,
both wrong answers. Now ``__closure__`` is modelled (None, or the function's cells, read under guards), the
class's other names are known to exist for ``hasattr``, and reading one that is not modelled is a graph break.
"""

import contextlib
import io

import torch

import loom


def _explain(fn, *args):
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        return loom.explain(fn)(*args)


def _helper(t):
    return t + 1


def _make_scaler():
    factor = 3

    def scale(t):
        return t * factor

    return scale


_SCALER = _make_scaler()


def _hasattr_program(x):
    names = ("__closure__", "__globals__", "__builtins__", "__call__", "__no_such__")
    return x + 1, [hasattr(_helper, n) for n in names]


def _except_program(x):
    try:
        _helper.__closure__  # the read is what is tested
        r = 1
    except AttributeError:
        r = 2
    return x + r


def _closure_program(x):
    cells = _SCALER.__closure__
    return _SCALER(x) + cells[0].cell_contents, _helper.__closure__ is None, len(cells)


def _builtins_program(x):
    return x + len(_helper.__builtins__) * 0


def _check(fn, graphs, breaks):
    x = torch.randn(3)
    want = fn(x)
    report = _explain(fn, x)
    assert (report.graph_count, report.graph_break_count) == (graphs, breaks), report.breaks
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    for _ in range(2):
        got = compiled(x)
        if isinstance(want, tuple):
            torch.testing.assert_close(got[0], want[0])
            assert got[1:] == want[1:]
        else:
            torch.testing.assert_close(got, want)
    return report


def test_hasattr_of_function_class_names_is_true_without_a_break():
    _check(_hasattr_program, 1, 0)


def test_reading_closure_never_raises_attribute_error():
    _check(_except_program, 1, 0)


def test_closure_cells_read_in_one_graph():
    _check(_closure_program, 1, 0)
    assert loom.stats()["recompiles"] == 0


def test_unmodelled_function_attribute_is_a_break_not_an_attribute_error():
    # (``__globals__`` is modelled since dynsrc14: tests/test_function_globals.py)
    report = _check(_builtins_program, 1, 1)
    assert "__builtins__" in report.breaks[0].what


def _nested_hasattr_program(x):
    def inner(t, k=1):
        return t * k

    return inner(x), [hasattr(inner, n) for n in ("__closure__", "__call__", "__globals__", "__get__", "zzz")]


def test_hasattr_of_function_made_in_frame_needs_no_read():
    _check(_nested_hasattr_program, 1, 0)


def _c_method_attributes_program(x):
    items = [1]
    append = items.append
    append(2)
    return x + 1, append.__name__, append.__qualname__, append.__self__ is items, "ab".upper.__self__, {}.get.__name__


def test_bound_c_method_name_qualname_and_self():
    _check(_c_method_attributes_program, 1, 0)
