"""Fixtures for loom's own tests: every test starts and ends with nothing compiled and no logs on."""

import os

import pytest
import torch

import loom
import loom_framehook as framehook

# A compile that changes global state (grad mode, a mode stack, an RNG state...) raises in tests
# (loom.GlobalStateChanged) instead of being silently restored: see loom/global_state.py.
os.environ["LOOM_CHECK_STATE"] = "1"
# Translations kept on disk would let one test's compile serve another's: off here (tests/test_frame_cache.py
# runs the cache in processes of its own).
os.environ.setdefault("LOOM_FRAME_CACHE", "0")


@pytest.fixture(autouse=True)
def fresh_loom():
    loom.reset()
    loom.set_logs()
    torch.manual_seed(0)
    yield
    loom.set_logs()
    loom.reset()
    assert framehook.get_callback() is None, "a test left this thread's hook callback set"


@pytest.fixture(autouse=True)
def no_state_left_behind():
    """A test (and what it compiled) leaves no transform level, mode or grad-mode change behind."""
    yield
    assert torch._C._functorch.get_dynamic_layer_stack_depth() == 0, "a functorch transform level was left pushed"
    assert torch._C._len_torch_dispatch_stack() == 0, "a dispatch mode was left on the stack"
    assert torch._C._len_torch_function_stack() == 0, "a torch-function mode was left on the stack"
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled(), "grad mode was left changed"
