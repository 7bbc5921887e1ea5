"""``fn.__globals__`` of a real function read in the trace (``typing.get_type_hints(fn)`` reads it): the module's
globals, read by name as ``globals()`` is and guarded as global reads are, instead of a graph break
("attribute '__globals__' of function: not modelled")."""

import typing

import torch

import loom

_FACTOR = 2.0


def _hinted(a: torch.Tensor, b: int = 1) -> torch.Tensor:
    return a * b


def _hints(x):
    hints = typing.get_type_hints(_hinted)
    return _hinted(x, len(hints)), hints["b"] is int, hints["return"] is torch.Tensor


def _factor_through_globals(x):
    return x * _hinted.__globals__["_FACTOR"], "_missing" in _hinted.__globals__


def _explain(fn, *args):
    loom.reset()
    report = loom.explain(fn)(*args)
    return report.graph_count, len(report.breaks)


def test_get_type_hints_of_a_function_is_one_graph():
    x = torch.arange(3.0)
    loom.reset()
    got = loom.compile(_hints)(x)
    expected = _hints(x)
    assert torch.equal(got[0], expected[0]) and got[1:] == expected[1:] == (True, True)
    assert _explain(_hints, x) == (1, 0)


def test_globals_read_by_name_are_guarded():
    global _FACTOR
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(_factor_through_globals)
    try:
        y, missing = compiled(x)
        assert torch.equal(y, x * 2.0) and missing is False
        _FACTOR = 5.0  # the value read must not be baked in
        y, _ = compiled(x)
        assert torch.equal(y, x * 5.0)
    finally:
        _FACTOR = 2.0
    assert _explain(_factor_through_globals, x) == (1, 0)


def test_globals_of_a_function_of_another_module():
    import json

    def module_name(x):
        return x + 1, json.dumps.__globals__["__name__"]

    x = torch.ones(2)
    loom.reset()
    y, name = loom.compile(module_name)(x)
    assert name == "json" and torch.equal(y, x + 1)
    assert _explain(module_name, x) == (1, 0)
