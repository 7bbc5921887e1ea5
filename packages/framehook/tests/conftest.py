"""Shared fixtures for loom-framehook's tests (this package only: no torch, no other loom package)."""

from __future__ import annotations

import pytest

import loom_framehook as fh


@pytest.fixture(autouse=True)
def clean_hook():
    """Every test starts and ends with no callback on this thread, empty caches and zeroed counters."""
    fh.set_callback(None)
    fh.clear()
    fh.reset_stats()
    yield
    fh.set_callback(None)
    fh.clear()
    fh.reset_stats()
    assert fh._framehook._current_eval_name() == "default", "a test left an eval function installed"
