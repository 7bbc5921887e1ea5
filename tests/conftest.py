"""Shared fixtures for loom's cross-package tests."""

import os
import warnings

import pytest
import torch

import loom

# A compile that changes global state (grad mode, a mode stack, an RNG state...) raises in tests
# (loom.GlobalStateChanged) instead of being silently restored: see loom/global_state.py.
os.environ["LOOM_CHECK_STATE"] = "1"
# Translations kept on disk would let one test's compile serve another's (tests that read logs, count
# backend calls or patch the generator): off here; test_frame_cache.py turns it on in its own processes.
os.environ.setdefault("LOOM_FRAME_CACHE", "0")


@pytest.fixture(autouse=True)
def fresh_loom():
    """Every test starts with no compiled entries and zeroed counters, on one torch thread."""
    loom.reset()
    torch.manual_seed(0)
    yield
    loom.reset()


@pytest.fixture(autouse=True)
def internal_errors_fail():
    """An internal error (a bug in loom) falls back to eager for users; here it fails the test."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="loom: internal error", category=RuntimeWarning)
        yield


import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))  # the shared harness modules beside the tests
