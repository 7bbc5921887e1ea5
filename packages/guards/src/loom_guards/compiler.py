"""``compile(guards) -> GuardFn``: simplify a guard list, order it, and build one fast check.

Two interchangeable back ends build the check from the same plan:

* the C++ accelerator (``loom_guards._accel``), which reads sources with the CPython C API and tensor
  metadata and torch's thread-local state straight from torch's C++ objects;
* a pure-Python fallback: generated straight-line Python, one local variable per source.

``compile(..., accelerate=False)`` or the environment variable ``LOOM_GUARDS_PURE=1`` selects the
fallback; ``accelerate=None`` (the default) uses the accelerator when it is available.
"""

from __future__ import annotations

import abc
import os
import types
from collections.abc import Iterable, Mapping
from typing import Any

from . import _loader
from ._lower import build_program
from ._plan import Plan, _alive, simplify
from ._pure import generate
from .kinds import Guard, GuardFailure

__all__ = ["GuardFn", "accelerator_available", "accelerator_error", "compile", "simplify"]


# -- the accelerator ----------------------------------------------------------------------------------

_accel: Any = None
_accel_error: str | None = None


def _load_accel() -> None:
    """Find the accelerator: installed, else built for this torch and cached (``_loader.load``), and
    make its program class a :class:`GuardFn` where it is loaded."""
    global _accel, _accel_error
    _accel, _accel_error = _loader.load()
    if _accel is not None:
        GuardFn.register(_accel.GuardProgram)


def accelerator_available() -> bool:
    """Whether the C++ accelerator is built and matches the running torch."""
    return _accel is not None


def accelerator_error() -> str | None:
    """Why the accelerator is not available (None when it is), e.g. ``"no C++ compiler: 'g++' was not
    found"``: the reason the :class:`AcceleratorWarning` gave at import, for reports such as
    ``loom.explain``."""
    return _accel_error


def _want_accel(accelerate: bool | None) -> bool:
    if accelerate is None:
        if os.environ.get("LOOM_GUARDS_PURE", "") not in ("", "0"):
            return False
        return _accel is not None
    if accelerate and _accel is None:
        raise RuntimeError(f"accelerate=True but {_accel_error}")
    return bool(accelerate)


# -- the public callable ------------------------------------------------------------------------------


class GuardFn(abc.ABC):
    """A compiled guard check: ``fn(frame_view_or_locals) -> bool``.

    ``guards`` holds the (simplified) guards in check order; ``describe()`` lists them;
    ``why_failed(frame)`` names the first failing one with the value seen, or returns None.
    Both back ends (accelerated and pure Python) are GuardFns.
    """

    __slots__ = ()

    @abc.abstractmethod
    def __call__(self, frame: Any) -> bool: ...

    @property
    @abc.abstractmethod
    def guards(self) -> tuple[Guard, ...]: ...

    @property
    @abc.abstractmethod
    def accelerated(self) -> bool: ...

    @abc.abstractmethod
    def describe(self) -> str: ...

    @abc.abstractmethod
    def why_failed(self, frame: Any) -> GuardFailure | None: ...

    @abc.abstractmethod
    def explain(self, frame: Any) -> GuardFailure | None:
        """Same as ``why_failed``."""


class PyGuardFn(GuardFn):
    """The pure-Python back end: a generated function over the plan."""

    __slots__ = ("_check", "_plan", "source_code")

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self._check, self.source_code = generate(plan)

    def __call__(self, frame: Any) -> bool:
        return self._check(frame)

    @property
    def guards(self) -> tuple[Guard, ...]:
        return self._plan.guards

    @property
    def accelerated(self) -> bool:
        return False

    @property
    def alive(self) -> bool:
        """False once a guard compares against an object that died: it can never pass again."""
        return _alive(self._plan.guards)

    def describe(self) -> str:
        return self._plan.describe(f"GuardFn (pure Python, {len(self._plan.guards)} guards):")

    def why_failed(self, frame: Any) -> GuardFailure | None:
        return self._plan.why_failed(frame)

    explain = why_failed

    def __repr__(self) -> str:
        return f"<GuardFn pure Python, {len(self._plan.guards)} guards>"


_load_accel()  # after GuardFn: loading registers the accelerator's program class with it


def compile(
    guards: Iterable[Guard],
    *,
    f_globals: Mapping[str, Any] | None = None,
    f_builtins: Any = None,
    closure: Any = None,
    accelerate: bool | None = None,
) -> GuardFn:
    """Build one fast check from ``guards``.

    The returned :class:`GuardFn` takes the frame view ``loom_framehook`` passes (``f_locals``,
    ``f_globals``, ``f_builtins``, ``closure``, ``f_code``) or any mapping of locals. ``f_globals``,
    ``f_builtins`` (a dict or a module) and ``closure`` (a function, or a mapping of free-variable names
    to cells or values) are used when the argument does not carry them. Builtins default to the
    ``builtins`` module.

    Duplicates are merged, implied guards dropped and contradictions rejected (``ValueError``); checks
    run cheapest and most selective first, each source read once. ``accelerate``: ``None`` uses the C++
    accelerator when available (and ``LOOM_GUARDS_PURE`` is unset), ``True`` requires it, ``False`` uses
    the pure-Python back end.
    """
    if f_globals is not None and not isinstance(f_globals, Mapping):
        raise TypeError(f"f_globals must be a mapping, got {type(f_globals).__name__}")
    if f_builtins is not None and not isinstance(f_builtins, (Mapping, types.ModuleType)):
        raise TypeError(f"f_builtins must be a mapping or a module, got {type(f_builtins).__name__}")
    if closure is not None and not isinstance(closure, (Mapping, types.FunctionType)):
        raise TypeError(f"closure must be a function or a mapping of names, got {type(closure).__name__}")
    plan = Plan(simplify(guards), f_globals, f_builtins, closure)
    if _want_accel(accelerate):
        return build_program(_accel, plan)
    return PyGuardFn(plan)
