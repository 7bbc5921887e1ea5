"""Whether loom-symbolic translates the running CPython's bytecode, and what loom says when it does not.

On a CPython that ``loom_symbolic.versions`` does not model, the translator refuses every frame and
``loom.compile`` would run everything uncompiled without a word: :func:`warn_if_unsupported` (called by
``loom.compile``, never per call) warns once per process, and ``loom.explain``'s report carries
:func:`unsupported_reason`.
"""

from __future__ import annotations

import sys
import warnings

from loom_symbolic import versions as _symbolic_versions

__all__ = ["UnsupportedPythonWarning", "unsupported_reason", "warn_if_unsupported"]


class UnsupportedPythonWarning(RuntimeWarning):
    """``loom.compile`` on a CPython whose bytecode loom-symbolic cannot translate yet: functions and
    modules run uncompiled, under ``fullgraph=True`` too (the translator refuses such frames whole,
    which is no graph break). Warned once per process; ``loom_symbolic.versions.SUPPORTED`` lists the
    versions loom compiles on."""


def _running() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def _supported() -> str:
    return ", ".join(f"{major}.{minor}" for major, minor in _symbolic_versions.SUPPORTED)


def unsupported_reason() -> str | None:
    """One line saying why nothing is compiled on this CPython, or None when loom-symbolic translates it."""
    if _symbolic_versions.is_supported():
        return None
    return (f"CPython {_running()} is not supported by loom-symbolic yet (supported: {_supported()}): "
            "nothing was compiled")


_warned = False


def warn_if_unsupported() -> None:
    """Warn (:class:`UnsupportedPythonWarning`, once per process) when this CPython cannot be translated.

    For ``loom.compile`` to call: the warning points at its caller's line.
    """
    global _warned
    if _warned or _symbolic_versions.is_supported():
        return
    _warned = True  # before warning: under `-W error` the warning raises, and only this call should
    warnings.warn(
        f"loom: CPython {_running()} is not supported by loom-symbolic yet (it translates CPython "
        f"{_supported()} bytecode): loom.compile runs functions and modules uncompiled in this process",
        UnsupportedPythonWarning,
        stacklevel=3,  # this function, loom.compile, then the line that called it
    )
