"""Weak references while tracing: ``weakref.ref(obj)`` made in the trace, and a ``weakref.ref`` read
from the frame, whose call is its referent, read (and guarded) through the reference."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from loom_guards import WeakReferent

from ..errors import Unsupported, UserError
from .base import Variable
from .builtins import builtin
from .registry import wrap

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


class WeakRefVariable(Variable):
    """A ``weakref.ref``: either read from the frame (``value`` and ``source``: calling it wraps the
    referent from the source ``source()``, so its guards are checked through the reference) or made in
    the trace over a variable (``referent``), rebuilt as ``weakref.ref(referent)`` when it leaves."""

    def __init__(self, value: Any = None, source: Any = None, referent: Variable | None = None) -> None:
        self.value = value
        self.source = source
        self.referent = referent

    def python_type(self) -> type:
        return weakref.ref

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            raise UserError("calling a weak reference", "weakref.ref() takes no arguments", exc_type=TypeError)
        if self.referent is not None:
            return self.referent  # alive: the trace holds it
        return wrap(tx, self.value(), WeakReferent(self.source))

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        codegen.load_callable(weakref.ref)
        codegen.reconstruct(self.referent)
        codegen.call(1)

    def describe(self) -> str:
        return "weak reference"


def wrap_weakref(tx: InstructionTranslator | None, value: weakref.ref, source: Any) -> Variable:
    """A ``weakref.ref`` from the frame: its type guarded; its referent is read when it is called."""
    if tx is None or source is None:
        raise Unsupported("a weak reference the translator cannot reach from the frame", "its referent cannot be guarded")
    tx.output.guards.add("type", source, value)
    return WeakRefVariable(value, source)


@builtin(weakref.ref)
def builtin_weakref(tx, args, kwargs):
    """``weakref.ref(obj)`` without a callback. CPython hands out one reference per object for that
    call, so the trace does too (``weakref.ref(a) is weakref.ref(a)``)."""
    if len(args) != 1 or kwargs:
        return None  # a callback runs when the object dies: not modelled
    (referent,) = args
    cls = referent.python_type()
    if not cls.__weakrefoffset__ and not issubclass(cls, type):
        raise UserError("weakref.ref()", f"cannot create weak reference to {cls.__name__!r} object", exc_type=TypeError)
    made = getattr(referent, "_loom_weak_reference", None)
    if made is None:
        made = WeakRefVariable(referent=referent)
        referent._loom_weak_reference = made
    return made
