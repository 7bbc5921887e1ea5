"""Fixtures for loom's own tests: every test starts and ends with nothing compiled and no logs on."""

import pytest
import torch

import loom
import loom_framehook as framehook


@pytest.fixture(autouse=True)
def fresh_loom():
    loom.reset()
    loom.set_logs()
    torch.manual_seed(0)
    yield
    loom.set_logs()
    loom.reset()
    assert framehook.get_callback() is None, "a test left this thread's hook callback set"
