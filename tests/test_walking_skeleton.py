"""The walking skeleton: hook → translator → FX graph → guards → eager backend → rewritten bytecode."""

import torch

import loom
import loom_framehook as framehook


def sin_plus_one(x):
    return torch.sin(x) + 1


def test_first_call_compiles_through_every_layer():
    f = loom.compile(sin_plus_one, backend="eager")
    x = torch.randn(8)
    assert torch.equal(f(x), torch.sin(x) + 1)
    stats = loom.stats()
    assert stats["frames_compiled"] == 1
    assert stats["graphs"] == 1
    (entry,) = framehook.entries(sin_plus_one.__code__)
    assert entry.code is not sin_plus_one.__code__
    assert any(name.startswith("__loom_graph_") for name in entry.code.co_names)


def test_second_call_is_served_from_the_cache_without_the_callback():
    f = loom.compile(sin_plus_one, backend="eager")
    f(torch.randn(8))
    calls_before = framehook.stats()["callback_calls"]
    x = torch.randn(8)
    assert torch.equal(f(x), torch.sin(x) + 1)
    assert framehook.stats()["callback_calls"] == calls_before
    assert loom.stats()["cache_hits"] == 1
    assert loom.stats()["frames_compiled"] == 1


def test_a_dtype_change_fails_the_guard_and_compiles_again():
    f = loom.compile(sin_plus_one, backend="eager")
    f(torch.randn(8))
    x = torch.randn(8, dtype=torch.float64)
    result = f(x)
    assert result.dtype == torch.float64
    assert torch.equal(result, torch.sin(x) + 1)
    assert loom.stats()["recompiles"] == 1
    assert loom.stats()["frames_compiled"] == 2
    assert len(framehook.entries(sin_plus_one.__code__)) == 2
    # Both entries now serve their own dtype without compiling again.
    f(torch.randn(8))
    f(torch.randn(8, dtype=torch.float64))
    assert loom.stats()["frames_compiled"] == 2


def test_the_hook_is_off_outside_compiled_calls():
    f = loom.compile(sin_plus_one, backend="eager")
    f(torch.randn(8))
    assert framehook.get_callback() is None
    assert not framehook.is_installed()
