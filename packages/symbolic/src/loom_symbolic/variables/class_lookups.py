"""What a trace assumed of the user classes it looked names up in, guarded.

The translator looks names up in classes' dicts to decide how Python would behave (``__bool__`` or ``__len__``
for truth, ``__eq__`` for ``==``, ``__getattr__`` for a missing attribute, ``__str__`` for ``str()``, a
property shadowing an instance attribute). Each lookup in a user class (not a builtin or trusted library
class, which are taken as fixed) is recorded while a translation runs: a name the class's dict lacks is
guarded absent, one it holds is guarded to hold the same value. A class changed after the first call
(``A.__bool__ = f``, ``del A.__eq__``) then recompiles instead of being served the old entry.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from loom_guards import Attr, Const, Item

from ..policy import trusted_module_name

_HEAPTYPE = 1 << 9

#: The guard collector of the translation running in this context, or None.
_RECORDER: contextvars.ContextVar[Any] = contextvars.ContextVar("loom_class_lookups", default=None)


@contextlib.contextmanager
def translation() -> Iterator[None]:
    """The extent of one translation: lookups record into the guards :func:`record_into` names inside it, and
    nothing is recorded once it ends."""
    token = _RECORDER.set(None)
    try:
        yield
    finally:
        _RECORDER.reset(token)


def record_into(guards: Any) -> None:
    """Record the lookups from now on as guard requests of ``guards`` (a new trace's output graph; a
    restarted trace has its own)."""
    _RECORDER.set(guards)


def user_class(klass: type) -> bool:
    """Whether ``klass`` is a class of the user's, whose dict the program may change (a heap type, not of a
    trusted library): what the trace reads of it is guarded."""
    return bool(klass.__flags__ & _HEAPTYPE) and not trusted_module_name(klass.__module__ or "") \
        and klass.__module__ != "builtins"


def lookup(cls: type, name: str, missing: Any) -> Any:
    """``name`` from ``cls``'s MRO without invoking descriptors, or ``missing``; while a translation records,
    every user class of the MRO reached is guarded: absent before the owner, the owner's value the same."""
    guards = _RECORDER.get()
    for klass in cls.__mro__:
        namespace = klass.__dict__
        found = name in namespace
        _record(guards, klass, name, found)
        if found:
            return namespace[name]
    return missing


def own(klass: type, name: str, missing: Any) -> Any:
    """``name`` from ``klass``'s own dict only, or ``missing``; recorded like :func:`lookup` for a user class."""
    namespace = klass.__dict__
    found = name in namespace
    _record(_RECORDER.get(), klass, name, found)
    return namespace[name] if found else missing


def _record(guards: Any, klass: type, name: str, found: bool) -> None:
    """Guard what one class's own dict said of ``name`` (its value, or its absence), for a user class while a
    translation records."""
    if guards is None or not user_class(klass):
        return
    if found:
        guards.add("constant", Item(Attr(Const(klass), "__dict__"), name), klass.__dict__[name])
    else:
        guards.add("absent_key", Attr(Const(klass), "__dict__"), name)
