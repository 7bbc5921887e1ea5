"""Issue 29's last break causes from the standard library, end to end through ``loom.compile`` with the
eager and aot_eager backends: each captured in one graph with eager's answer, or, where torch.compile
breaks too, one break naming the construct and the user's line."""

from __future__ import annotations

import io
import logging
import types
import warnings
import weakref

import pytest
import torch
from breaks_harness import compare, show

import loom

BACKENDS = ["eager", "aot_eager"]


class _Holder:
    def __init__(self, t, n):
        self.t = t
        self.n = n


_HELD = _Holder(torch.full((3,), 2.0), 3)
_REF = weakref.ref(_HELD)


class _Marked:
    marker = 1


_PROXY = types.MappingProxyType({"a": 1, "bb": 2})


def weak_references(x):
    made = _Holder(x * 2, 4)
    ref = weakref.ref(made)
    return x * _REF().n + _REF().t + ref().t * ref().n


def mappingproxy_views(x):
    keys = _Marked.__dict__.keys()
    n = sum(len(k) * v for k, v in _PROXY.items()) + len(list(_PROXY.values()))
    return x + n + ("marker" in keys) + len([k for k in keys if k == "marker"])


def iterators_passed_in(x, numbers, pairs, names):
    out = x + next(numbers)
    for v in numbers:
        out = out * v
    for a, b in pairs:
        out = out + a * b
    for name in names:
        out = out + len(name)
    return out, next(numbers, "done")


def _iterators():
    return iter([1, 2, 3]), iter(((1, 2), (3, 4))), iter({"a": 1, "bb": 2})


CAPTURED = [(weak_references, ()), (mappingproxy_views, ()), (iterators_passed_in, _iterators)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fn", "extra"), CAPTURED, ids=lambda v: getattr(v, "__name__", ""))
def test_captured_in_one_graph(fn, extra, backend):
    args = extra() if callable(extra) else extra
    stats = compare(fn, torch.arange(3.0), *args, backend=backend)
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


_LOG = logging.getLogger("loom.tests.stdlib")


def logs_between_effects(x, seen):
    _LOG.warning("first %d", x.shape[0])
    seen.append("between")
    y = x + 1
    show("printed")  # a graph break: the record before it is written before it
    _LOG.warning("second %s", "b")
    return y * 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_log_records_keep_eager_order_around_prints_and_breaks(backend, monkeypatch):
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logging.Formatter("%(funcName)s:%(lineno)d:%(message)s"))
    monkeypatch.setattr(_LOG, "handlers", [handler])
    monkeypatch.setattr(_LOG, "propagate", False)
    monkeypatch.setattr("sys.stdout", buffer)  # print and the log share one stream: their order shows
    expected_seen, seen = [], []
    expected = logs_between_effects(torch.arange(3.0), expected_seen)
    eager_text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    loom.reset()
    actual = loom.compile(logs_between_effects, backend=backend)(torch.arange(3.0), seen)
    torch.testing.assert_close(actual, expected)
    assert buffer.getvalue() == eager_text and seen == expected_seen, (buffer.getvalue(), eager_text)
    stats = loom.stats()
    assert stats["graph_breaks"] == 1, stats  # the print only


def catch_warnings_block(x):
    y = x + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("inside", stacklevel=1)
        y = y * len(caught)
    return y + 1


def warns(x):
    warnings.warn("careful", stacklevel=1)
    return x + 1


def test_a_warning_is_made_after_the_graph_without_a_break():
    shown = []
    for fn in (warns, loom.compile(warns, backend="eager")):
        loom.reset()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(torch.arange(3.0))
            fn(torch.arange(3.0))
        shown.append([(str(w.message), w.category, w.filename, w.lineno) for w in caught])
    assert loom.stats()["graph_breaks"] == 0 and loom.stats()["graphs"] == 1
    assert shown[0] == shown[1] and shown[0][0][3] == warns.__code__.co_firstlineno + 1


@pytest.mark.parametrize(("fn", "construct", "line"), [
    (catch_warnings_block, "warnings.catch_warnings(record=True) block",  # named where its list is read
     "y = y * len(caught)"),
])
def test_warnings_break_once_naming_the_construct(fn, construct, line):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = compare(fn, torch.arange(3.0), backend="eager")
        assert stats["graph_breaks"] == 1, stats
        loom.reset()
        report = str(loom.explain(fn)(torch.arange(3.0)))
    assert report.count(construct) == 1 and line in report, report


def test_a_filter_made_an_error_later_raises_as_eager_does():
    """The deferral is guarded on the filters: under "error" the warning raises where eager raises it."""
    compiled = loom.compile(warns, backend="eager")
    loom.reset()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        compiled(torch.arange(3.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="careful"):
            compiled(torch.arange(3.0))


def exec_import(x):
    scope = {}
    exec("import math", scope)
    return x * scope["math"].pi


def test_exec_breaks_once_naming_exec_and_the_line():
    """torch.compile breaks at ``exec`` too: one break, whose reason says ``exec()`` and shows the line."""
    stats = compare(exec_import, torch.arange(3.0), backend="eager")
    assert stats["graph_breaks"] == 1, stats
    loom.reset()
    report = str(loom.explain(exec_import)(torch.arange(3.0)))
    assert report.count("call to exec()") == 1 and 'exec("import math", scope)' in report, report
