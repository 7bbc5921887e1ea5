"""Steering what loom compiles: ``disable``, ``graph_break`` and ``allow_in_graph``."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any, TypeVar

import torch

import loom_framehook as framehook
import loom_symbolic

F = TypeVar("F", bound=Callable[..., Any])


def disable(fn: Callable[..., Any] | None = None, *, recursive: bool = True) -> Any:
    """Run ``fn`` uncompiled, even when called from compiled code; also a decorator (``@loom.disable``,
    ``@loom.disable(recursive=False)``).

    * ``recursive=True`` (default): returns a wrapper that turns the hook off for this thread while
      ``fn`` runs, so nothing ``fn`` calls is compiled either. ``fn`` itself is left as it is.
    * ``recursive=False``: marks ``fn``'s own code object (every caller's view of it, not only the
      returned value) so that its frames run uncompiled and the translator never inlines it; the
      functions it calls are still compiled. Returns ``fn`` itself. Needs a Python function or method.

    A call to a disabled function from traced code is a graph break.
    """
    if not isinstance(recursive, bool):
        raise TypeError(f"loom.disable(): recursive must be a bool, got {type(recursive).__name__}")
    if fn is None:
        return functools.partial(disable, recursive=recursive)
    if isinstance(fn, torch.nn.Module):
        raise TypeError("loom.disable() expects a function or method, got an nn.Module; disable its forward "
                        "instead: module.forward = loom.disable(module.forward)")
    if not callable(fn):
        raise TypeError(f"loom.disable() expects a function or method, got {type(fn).__name__}")
    if not recursive:
        code = _code_of(fn)
        if code is None:
            raise TypeError(
                f"loom.disable(recursive=False) needs a Python function or method (it marks its code object), "
                f"got {type(fn).__name__}"
            )
        framehook.skip(code)
        loom_symbolic.skip_code(code)
        return fn

    @functools.wraps(fn)
    def disabled(*args: Any, **kwargs: Any) -> Any:
        previous = framehook.set_callback(None)
        try:
            return fn(*args, **kwargs)
        finally:
            framehook.set_callback(previous)

    disabled._loom_disabled = True  # type: ignore[attr-defined]
    return disabled


def _code_of(fn: Any) -> types.CodeType | None:
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    code = getattr(fn, "__code__", None)
    return code if isinstance(code, types.CodeType) else None


def graph_break() -> None:
    """Force a graph break here when called from compiled code; does nothing when called natively.

    The graph captured so far ends before the call, the call runs as Python, and capture resumes after
    it (until partial graphs land, the whole function then runs uncompiled). Under ``fullgraph=True``
    it raises :class:`loom.Unsupported`. Useful to test break handling and to split huge graphs.
    """
    # Deliberately empty: the translator refuses to inline this code object (registered below), so a
    # traced call ends the graph; the call itself then runs natively and does nothing.


def allow_in_graph(fn: F) -> F:
    """Record calls to ``fn`` as one op in the graph instead of tracing into it; returns ``fn``.

    ``fn`` must work on FakeTensors (shape-only tensors) since the translator runs it to learn its
    output's metadata. A decorator too.
    """
    if not callable(fn):
        raise TypeError(f"loom.allow_in_graph() expects a callable, got {type(fn).__name__}")
    loom_symbolic.allow_in_graph(fn)
    return fn


# The recursive wrapper's code (shared by every wrapper) and graph_break's are never inlined: a call
# to either from traced code ends the graph and runs natively.
loom_symbolic.skip_code(disable(graph_break).__code__)
loom_symbolic.skip_code(graph_break.__code__)


def _call_with_hook_off(fn: Callable[..., Any], *args: Any) -> Any:
    """What graphs use to call user code that must run as in eager (a custom autograd Function's
    ``apply``: its ``forward`` is not a frame of the program to compile)."""
    previous = framehook.set_callback(None)
    try:
        return fn(*args)
    finally:
        framehook.set_callback(previous)


loom_symbolic.set_native_caller(_call_with_hook_off)
