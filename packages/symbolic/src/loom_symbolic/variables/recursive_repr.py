"""``reprlib.recursive_repr`` and dataclasses' copy of it (the ``__repr__`` of every dataclass): a
wrapper that keys a set of running reprs by ``id(self)`` and the thread, so that a repr reaching its own
object prints ``...``. An object made while tracing has no address yet, so the wrapper is not traced as
written: the call is the wrapped repr itself, under a guard that no repr of that function is running
(the set is empty), which is the wrapper's answer whenever the compiled code is not itself called from
inside such a repr. A repr that does reach its own object recurses in the trace until the translator's
depth limit, a graph break: the program then prints its ``...``."""

from __future__ import annotations

import dataclasses
import reprlib
import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const, Item

from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _wrapper_codes() -> frozenset[types.CodeType]:
    codes = {reprlib.recursive_repr()(lambda self: "").__code__}
    private = getattr(dataclasses, "_recursive_repr", None)  # 3.11, 3.12: dataclasses' own copy
    if private is not None:
        codes.add(private(lambda self: "").__code__)
    return frozenset(codes)


#: The code of the wrapper functions these decorators make.
WRAPPER_CODES = _wrapper_codes()


def call_wrapped_repr(tx: InstructionTranslator, fn: types.FunctionType, source: Any, args: list[Variable],
                      kwargs: dict[str, Variable]) -> Variable | None:
    """``fn(self)`` for a recursive-repr wrapper ``fn``: its ``user_function(self)``, inlined, with the
    running set guarded empty (None: the wrapper traced as written)."""
    if kwargs:
        return None
    names = fn.__code__.co_freevars
    cells = dict(zip(names, fn.__closure__))
    owner = source if source is not None else Const(fn)

    def cell_source(name: str) -> Any:
        return Attr(Item(Attr(owner, "__closure__"), names.index(name)), "cell_contents")

    running = cells["repr_running"].cell_contents
    tx.output.guards.add("length", cell_source("repr_running"), running)
    if running:  # called from inside a repr: the wrapper itself runs (and breaks at id())
        return None
    user_function = wrap(tx, cells["user_function"].cell_contents, cell_source("user_function"))
    return user_function.call(tx, args, kwargs)
