"""Dicts read from the frame: keys guarded at once, each value wrapped and guarded only when read."""

import types

import pytest
import torch
from harness import CaseRegistry, check

import loom_guards
from loom_symbolic import translate_function

CASES = CaseRegistry(default_graphs=None)
case = CASES

X = torch.randn(4, 3)


def _settings():
    return {"scale": 2.0, "shift": 1, "name": "a", "unused": 7, "nested": {"k": 3}}


@case(X, _settings())
def get_one_value(x, d):
    return x * d.get("scale") + d.get("missing", 0)


@case(X, _settings())
def index_test_and_truth(x, d):
    if "shift" in d and d and "nope" not in d:
        return x + d["shift"] + d["nested"]["k"]
    return x


@case(X, _settings())
def read_then_iterate_keeps_order(x, d):
    first = d["unused"]
    keys = list(d)
    values = [v for v in d.values() if isinstance(v, (int, float))]
    pairs = list(d.items())
    return x * first, keys, values, len(d), pairs[-1]


@case(X, _settings())
def read_then_mutate(x, d):
    scale = d["scale"]
    d["extra"] = scale + 1
    del d["unused"]
    return x * d["extra"], sorted(d)


@case(X, _settings())
def keys_unpacked(x, d):
    a, b, *rest = d
    return x, a, b, rest


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_lazy_dict_cases_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def _guard_for(fn, d):
    translation = translate_function(fn, X, d)
    guard = loom_guards.compile(translation.guards)
    frame = types.SimpleNamespace(f_locals={"x": X, "d": d}, f_globals=fn.__globals__, closure=fn)
    assert guard.why_failed(frame) is None
    return guard, frame


def test_values_never_read_are_not_guarded():
    d = _settings()
    guard, frame = _guard_for(get_one_value, d)
    d["unused"] = 8  # never read: no recompile
    d["name"] = "b"
    assert guard.why_failed(frame) is None
    d["scale"] = 3.0  # read: recompile
    assert "scale" in str(guard.why_failed(frame))


def test_keys_stay_guarded():
    d = _settings()
    guard, frame = _guard_for(get_one_value, d)
    d["missing"] = 5  # .get("missing", 0) took the default: a new key recompiles
    assert guard.why_failed(frame) is not None
    del d["missing"]
    del d["unused"]
    assert guard.why_failed(frame) is not None


def test_iteration_reads_every_value():
    d = _settings()
    guard, frame = _guard_for(read_then_iterate_keeps_order, d)
    d["name"] = "b"  # iterated (values()): guarded
    assert guard.why_failed(frame) is not None
