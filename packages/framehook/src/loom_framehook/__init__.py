"""loom_framehook: a safe, fast PEP 523 frame-evaluation hook with a per-code-object cache.

Set a callback for the current thread; it is called with a read-only :class:`FrameView` at the first
entry of every frame whose code is neither marked :data:`SKIP` nor served from its cache, and decides
how the frame runs::

    import loom_framehook as fh

    def cb(frame):
        print("entering", frame.f_code.co_name, frame.f_locals)
        return None            # run normally; or fh.SKIP, fh.SKIP_RECURSIVE, fh.RUN_ONLY, a code
                               # object, fh.Entry(code, guard)

    with fh.callback(cb):
        main()

No dependencies. CPython 3.11, 3.12 and 3.13. See the package README for the full semantics.
"""

from __future__ import annotations

from collections.abc import Callable
from types import CodeType

from ._framehook import (
    COMPAT_FAMILY,
    RUN_ONLY,
    SKIP,
    SKIP_RECURSIVE,
    Entry,
    FrameView,
    callback,
    check_replacement,
    clear,
    entries,
    get_callback,
    is_installed,
    is_skipped,
    reset_stats,
    run_only,
    set_callback,
    set_trace_callbacks,
    skip,
    stats,
    strategy,
)

__version__ = "0.1.0"

#: A guard: called with the frame view; the entry runs when it returns a true value.
Guard = Callable[[FrameView], object]
#: What a callback may return.
CallbackResult = None | type(SKIP) | CodeType | Entry  # SKIP, SKIP_RECURSIVE and RUN_ONLY share a type
#: A callback: called with the frame view at a frame's first entry.
Callback = Callable[[FrameView], CallbackResult]

__all__ = [
    "COMPAT_FAMILY",
    "RUN_ONLY",
    "SKIP",
    "SKIP_RECURSIVE",
    "Callback",
    "CallbackResult",
    "Entry",
    "FrameView",
    "Guard",
    "callback",
    "check_replacement",
    "clear",
    "entries",
    "get_callback",
    "is_installed",
    "is_skipped",
    "reset_stats",
    "run_only",
    "set_callback",
    "set_trace_callbacks",
    "skip",
    "stats",
    "strategy",
]
