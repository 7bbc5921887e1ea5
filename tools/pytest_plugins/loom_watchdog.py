"""A pytest plugin that turns a hung test into a failed one, with every thread's stack on stderr.

``tools/dev.py test`` loads it into every suite (``-p loom_watchdog``). A test whose setup, call and
teardown together take more than ``LOOM_TEST_TIMEOUT`` seconds (default 600; 0 turns the watchdog off)
makes the process dump the Python stack of each of its threads and exit with status 1. Under
pytest-xdist the controller then reports that test as failed ("worker crashed while running ...")
and starts a fresh worker for the rest, so one hang costs minutes, not the whole CI budget, and its
stacks name the place. The dump comes from CPython's ``faulthandler`` watchdog thread, which needs
no GIL: it also fires when the hung code holds it.
"""

from __future__ import annotations

import faulthandler
import os
from collections.abc import Iterator

import pytest

DEFAULT_SECONDS = 600.0

# A copy of the process's stderr taken when the plugin is imported, before pytest's capture points
# fd 2 at a temporary file: a dump written there would vanish with the process.
_STDERR = os.dup(2)


def timeout_seconds() -> float:
    """The per-test limit: ``$LOOM_TEST_TIMEOUT`` (seconds), else :data:`DEFAULT_SECONDS`."""
    raw = os.environ.get("LOOM_TEST_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        raise pytest.UsageError(f"LOOM_TEST_TIMEOUT must be a number of seconds, got {raw!r}") from None
    if seconds < 0:
        raise pytest.UsageError(f"LOOM_TEST_TIMEOUT must be 0 (off) or more, got {raw!r}")
    return seconds


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Arm the watchdog around one test's setup, call and teardown."""
    seconds = timeout_seconds()
    if seconds:
        faulthandler.dump_traceback_later(seconds, exit=True, file=_STDERR)
    try:
        yield
    finally:
        if seconds:
            faulthandler.cancel_dump_traceback_later()
