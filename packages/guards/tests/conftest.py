"""Shared fixtures: every behavioural test runs on both back ends (the C++ accelerator and pure Python)."""

from __future__ import annotations

import functools
import os
import tempfile

import pytest

# Nothing here builds into the user's cache (~/.cache/loom/guards): a test that reaches the build at
# first import uses a directory of its own, or this one (set before `import loom_guards`, whose import
# builds the accelerator when none is installed).
os.environ.setdefault("LOOM_CACHE_DIR", tempfile.mkdtemp(prefix="loom-guards-test-cache-"))

import loom_guards

BACKENDS = ["accel", "pure"]


@pytest.fixture(params=BACKENDS)
def backend(request):
    """The back end under test, as a name."""
    if request.param == "accel" and not loom_guards.accelerator_available():
        if os.environ.get("LOOM_GUARDS_ALLOW_NO_ACCEL") == "1":
            pytest.skip(f"accelerator unavailable: {loom_guards.accelerator_error()}")
        pytest.fail(f"the C++ accelerator should be built here: {loom_guards.accelerator_error()}")
    return request.param


@pytest.fixture
def build(backend):
    """``loom_guards.compile`` bound to the back end under test."""
    return functools.partial(loom_guards.compile, accelerate=(backend == "accel"))
