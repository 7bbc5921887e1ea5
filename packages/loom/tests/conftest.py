"""Fixtures for loom's own tests: every test starts and ends with nothing compiled and no logs on."""

import os

import pytest
import torch

import loom
import loom_framehook as framehook

# A compile that changes global state (grad mode, a mode stack, an RNG state...) raises in tests
# (loom.GlobalStateChanged) instead of being silently restored: see loom/global_state.py.
os.environ["LOOM_CHECK_STATE"] = "1"


@pytest.fixture(autouse=True)
def fresh_loom():
    loom.reset()
    loom.set_logs()
    torch.manual_seed(0)
    yield
    loom.set_logs()
    loom.reset()
    assert framehook.get_callback() is None, "a test left this thread's hook callback set"
