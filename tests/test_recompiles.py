"""Recompiles: a failed guard compiles a new entry, up to the limit; then one warning and eager.

Shape changes drive these tests, so they compile with ``dynamic=False`` (by default a size that changes
becomes symbolic instead: see test_dynamic_shapes.py).
"""

import warnings

import pytest
import torch

import loom
import loom_framehook as framehook


def scale(x):
    return torch.tanh(x) * 4


def test_dtype_and_shape_changes_recompile_and_each_entry_serves_its_inputs():
    compiled = loom.compile(scale, dynamic=False, backend="eager")
    inputs = [torch.randn(4), torch.randn(4, dtype=torch.float64), torch.randn(7), torch.randn(2, 3)]
    for x in inputs:
        torch.testing.assert_close(compiled(x), torch.tanh(x) * 4)
    assert loom.stats()["recompiles"] == 3 and loom.stats()["frames_compiled"] == 4
    assert len(framehook.entries(scale.__code__)) == 4
    for x in inputs:  # all served from the cache now
        torch.testing.assert_close(compiled(x), torch.tanh(x) * 4)
    assert loom.stats()["frames_compiled"] == 4 and loom.stats()["cache_hits"] == 4


def test_the_recompile_limit_warns_once_naming_the_guard_and_then_runs_eagerly():
    compiled = loom.compile(scale, dynamic=False, options={"recompile_limit": 3}, backend="eager")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 9):
            x = torch.randn(n)
            torch.testing.assert_close(compiled(x), torch.tanh(x) * 4)
    limit_warnings = [w for w in caught if issubclass(w.category, loom.RecompileLimitWarning)]
    assert len(limit_warnings) == 1
    text = str(limit_warnings[0].message)
    assert "scale" in text and "recompile limit (3)" in text
    assert "L['x'].shape[0]" in text  # the guard that kept failing, from GuardFn.why_failed
    assert len(framehook.entries(scale.__code__)) == 3
    assert loom.stats()["frames_compiled"] == 3 and loom.stats()["recompiles"] == 2
    # the entries made before the limit still serve their inputs
    hits = loom.stats()["cache_hits"]
    compiled(torch.randn(2))
    assert loom.stats()["cache_hits"] == hits + 1


def test_the_default_limit_is_eight():
    compiled = loom.compile(scale, dynamic=False, backend="eager")
    with pytest.warns(loom.RecompileLimitWarning, match=r"recompile limit \(8\)"):
        for n in range(1, 11):
            compiled(torch.randn(n))
    assert len(framehook.entries(scale.__code__)) == 8


def test_under_fullgraph_the_limit_raises():
    compiled = loom.compile(scale, dynamic=False, fullgraph=True, options={"recompile_limit": 2}, backend="eager")
    compiled(torch.randn(1))
    compiled(torch.randn(2))
    with pytest.raises(loom.RecompileLimitError, match=r"scale .* more than 2 times.*L\['x'\]\.shape\[0\]"):
        compiled(torch.randn(3))


def test_reset_forgets_the_counts():
    compiled = loom.compile(scale, dynamic=False, options={"recompile_limit": 1}, backend="eager")
    compiled(torch.randn(1))
    with pytest.warns(loom.RecompileLimitWarning):
        compiled(torch.randn(2))
    loom.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled(torch.randn(2))
    assert loom.stats()["frames_compiled"] == 1
