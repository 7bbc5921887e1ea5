"""``ops``: the operations a loop body is written in, dispatched to whichever handler is installed.

A loop body (the ``fn`` of a :class:`~loom_backends.kernels.ir.Pointwise`) is plain Python that calls
``ops.load(name, index)``, ``ops.add(a, b)``, ``ops.constant(1.0, torch.float32)`` ... Running it under
a code generator's handler emits its source; under :class:`ReadRecorder` it lists what it reads.

Operations every handler understands:

- ``load(name, index)``, ``constant(value, dtype)``, ``index_expr(expr, dtype)``, ``to_dtype(x, dtype)``
- ``where(cond, a, b)``, ``masked(mask, body, other, dtype)`` (``body`` is a thunk evaluated under ``mask``)
- ``indirect_indexing(x, size, wrap_negative=True, eager_error=IndexError)``: a loaded integer used inside an
  index (returns a sympy symbol); checked to lie in ``[0, size)`` (after adding ``size`` to a negative one,
  where ``wrap_negative``), else the call raises ``eager_error`` (``gather``'s is a ``RuntimeError``)
- every name in :data:`POINTWISE_OPS` (``ops.add(a, b)``, ``ops.exp(x)``, ...), see ``textops.py``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import sympy
import torch

_state = threading.local()


def handler() -> Any:
    try:
        return _state.handler
    except AttributeError:
        raise RuntimeError("ops used outside of a handler: loop bodies only run under codegen or analysis") from None


@contextlib.contextmanager
def use(h: Any) -> Iterator[Any]:
    previous = getattr(_state, "handler", None)
    _state.handler = h
    try:
        yield h
    finally:
        _state.handler = previous


class _Ops:
    """Module-level proxy: ``ops.add(a, b)`` calls ``handler().call("add", a, b)``."""

    def load(self, name: str, index: sympy.Expr) -> Any:
        return handler().load(name, index)

    def constant(self, value: Any, dtype: torch.dtype) -> Any:
        return handler().constant(value, dtype)

    def index_expr(self, expr: sympy.Expr, dtype: torch.dtype) -> Any:
        return handler().index_expr(expr, dtype)

    def to_dtype(self, x: Any, dtype: torch.dtype) -> Any:
        return handler().to_dtype(x, dtype)

    def where(self, cond: Any, a: Any, b: Any) -> Any:
        return handler().where(cond, a, b)

    def masked(self, mask: Any, body: Callable[[], Any], other: Any, dtype: torch.dtype) -> Any:
        return handler().masked(mask, body, other, dtype)

    def indirect_indexing(self, x: Any, size: sympy.Expr, wrap_negative: bool = True,
                          eager_error: type[Exception] = IndexError) -> sympy.Symbol:
        return handler().indirect_indexing(x, size, wrap_negative, eager_error)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("__"):
            raise AttributeError(name)

        def call(*args: Any) -> Any:
            return handler().call(name, *args)

        call.__name__ = name
        return call


ops = _Ops()


# ops that are a math library call on a CPU (tens of cycles each, where an add is one): worth storing once
# rather than recomputing in every kernel that reads them (the C generator's choice, GraphLowering)
MATH_LIBRARY_OPS = frozenset(
    "acos acosh asin asinh atan atanh atan2 cbrt cos cosh erf erfc erfinv exp exp10 exp2 expm1 hypot lgamma log "
    "log10 log1p log2 pow sigmoid sin sinh tan tanh".split()
)


class ReadRecorder:
    """A handler that runs a loop body symbolically and records its reads and operation count."""

    def __init__(self) -> None:
        self.reads: list[tuple[str, sympy.Expr]] = []
        self.opcount = 0
        self.indirect = 0
        self.math_calls = 0  # ops of MATH_LIBRARY_OPS

    def load(self, name: str, index: sympy.Expr) -> str:
        self.reads.append((name, index))
        self.opcount += 1
        return "v"

    def constant(self, value: Any, dtype: torch.dtype) -> str:
        return "c"

    def index_expr(self, expr: sympy.Expr, dtype: torch.dtype) -> str:
        self.opcount += 1
        return "i"

    def to_dtype(self, x: Any, dtype: torch.dtype) -> Any:
        return x

    def where(self, cond: Any, a: Any, b: Any) -> str:
        self.opcount += 1
        return "v"

    def masked(self, mask: Any, body: Callable[[], Any], other: Any, dtype: torch.dtype) -> str:
        body()
        self.opcount += 1
        return "v"

    def indirect_indexing(self, x: Any, size: sympy.Expr, wrap_negative: bool = True,
                          eager_error: type[Exception] = IndexError) -> sympy.Symbol:
        self.indirect += 1
        return sympy.Symbol(f"indirect{self.indirect}", integer=True, nonnegative=True)

    def call(self, name: str, *args: Any) -> str:
        self.opcount += 1
        self.math_calls += name in MATH_LIBRARY_OPS
        return "v"


def record(fn: Callable[[list[sympy.Expr]], Any], index: list[sympy.Expr]) -> ReadRecorder:
    """Run ``fn(index)`` under a :class:`ReadRecorder` and return the recorder."""
    recorder = ReadRecorder()
    with use(recorder):
        fn(index)
    return recorder
