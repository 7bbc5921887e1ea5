"""What every guard kind shares: the ``Guard`` base class, ``GuardFailure``, weak references to compared
objects, and the short texts failures are made of.

Every guard is an immutable value object: it has its source(s), a one-line ``describe()``, a cost
class used to order checks, and ``check(value)`` / ``explain(value)`` used by the pure-Python path and by
``GuardFn.why_failed``. Bad input fails at construction with a ``TypeError`` or ``ValueError``.

Failure semantics: a guard that cannot decide - its source cannot be read, or reading or comparing the
value raises an ``Exception`` (an ``__eq__`` that raises, a ``__len__`` that raises, a property that
raises) - *fails*. The exception is not propagated (``BaseException`` that is not an ``Exception``,
such as ``KeyboardInterrupt``, still is).
"""

from __future__ import annotations

import types
import weakref
from typing import Any, ClassVar

from .._keyed import Keyed
from ..sources import Source

_MAX_REPR = 80


def short_repr(value: Any) -> str:
    """A bounded ``repr`` that never raises (hostile ``__repr__`` included)."""
    try:
        text = repr(value)
    except Exception as exc:
        text = f"<{type(value).__name__} object (repr raised {type(exc).__name__})>"
    if len(text) > _MAX_REPR:
        text = text[: _MAX_REPR - 3] + "..."
    return text


def type_name(tp: type) -> str:
    module = getattr(tp, "__module__", "builtins")
    qualname = getattr(tp, "__qualname__", getattr(tp, "__name__", "?"))
    if module == "builtins":
        return qualname
    if module.startswith("torch") and qualname in ("Tensor", "Size", "dtype", "device"):
        return f"torch.{qualname}"
    if module == "torch.nn.parameter":
        return f"torch.nn.{qualname}"
    return f"{module}.{qualname}"


class GuardFailure(str):
    """Why a guard failed: reads like ``"L['x'].shape[0] == 8, got 16"``.

    A ``str`` subclass carrying the failing ``guard``, the ``expected`` condition
    (``"L['x'].shape[0] == 8"``) and what was ``seen`` (``"16"``).
    """

    guard: Guard
    expected: str
    seen: str

    def __new__(cls, guard: Guard, expected: str, seen: str) -> GuardFailure:
        self = super().__new__(cls, f"{expected}, got {seen}")
        self.guard = guard
        self.expected = expected
        self.seen = seen
        return self


def object_text(obj: Any) -> str:
    """A short, recognisable description of an object compared by identity."""
    if isinstance(obj, types.ModuleType):
        return f"<module {obj.__name__!r}>"
    if isinstance(obj, type):
        return f"<class {type_name(obj)!r}>"
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return f"<function {getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}>"
    return short_repr(obj)


class _Ref:
    """A reference to an object a guard compares against: weak when the object allows it.

    A guard must not keep a user's module or class alive (entries of ``Module.forward`` are shared by
    every instance); when the referent dies the guard can never pass again, which is right.
    """

    __slots__ = ("__weakref__", "ident", "strong", "text", "weak")

    def __init__(self, obj: Any) -> None:
        self.ident = id(obj)
        self.text = object_text(obj)
        try:
            self.weak = weakref.ref(obj)
            self.strong = None
        except TypeError:
            self.weak = None
            self.strong = obj

    def get(self) -> Any:
        """The referent, or a fresh sentinel that nothing is identical to once it died."""
        if self.weak is None:
            return self.strong
        obj = self.weak()
        return _DEAD if obj is None else obj

    @property
    def alive(self) -> bool:
        return self.weak is None or self.weak() is not None


_DEAD = object()


class Guard(Keyed):
    """Base class of every guard kind."""

    __slots__ = ("__weakref__",)
    #: short name of the kind ("type", "id", "const", ...)
    kind: ClassVar[str] = "guard"
    #: cost class: cheaper classes run first (ties: shallower sources first, then insertion order)
    cost: ClassVar[int] = 5

    # -- what it guards ---------------------------------------------------------------------------
    @property
    def sources(self) -> tuple[Source, ...]:
        """Every source this guard reads (empty for global state)."""
        return ()

    @property
    def source(self) -> Source | None:
        """The source this guard reads, for single-source guards."""
        srcs = self.sources
        return srcs[0] if len(srcs) == 1 else None

    def describe(self) -> str:
        """One line saying what the guard checks."""
        raise NotImplementedError

    def explain(self, *values: Any) -> tuple[str, str] | None:
        """``None`` when ``values`` (one per source) pass, else ``(expected, seen)`` texts.

        May raise: callers treat an exception as a failure.
        """
        raise NotImplementedError

    def check(self, *values: Any) -> bool:
        """Whether ``values`` (one per source) pass; an exception counts as a failure."""
        try:
            return self.explain(*values) is None
        except Exception:
            return False

    def implies(self) -> tuple[Guard, ...]:
        """Weaker guards this one makes redundant (dropped by ``compile``)."""
        return ()

    @property
    def alive(self) -> bool:
        """False once an object this guard compares by identity has died (it can never pass again)."""
        return True

    def __str__(self) -> str:
        return self.describe()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"


def _set(obj: Guard, **fields: Any) -> None:
    """A constructor's field writes (guards are immutable), with the cached hash unset."""
    setattr_ = object.__setattr__
    for name, value in fields.items():
        setattr_(obj, name, value)
    setattr_(obj, "_hash", None)


def _check_source(kind: str, source: object) -> Source:
    if not isinstance(source, Source):
        raise TypeError(f"{kind} needs a loom_guards Source, got {type(source).__name__} {source!r}")
    return source


class _OneSource(Guard):
    __slots__ = ("_source",)

    @property
    def sources(self) -> tuple[Source, ...]:
        return (self._source,)

    @property
    def source(self) -> Source:
        return self._source
