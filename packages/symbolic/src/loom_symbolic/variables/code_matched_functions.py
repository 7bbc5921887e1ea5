"""Functions made by a ``def`` inside another function, guarded by their code rather than their identity.

Each call of the enclosing function makes a new function object from the same code. A frame that reads one
from a cell or a local (the caller's resume function after a break in a nested call, a helper frame run on
its own) and only inlines calls of it relies on its code, defaults, globals and ``__dict__``, not on the
object: guarding the object's identity would recompile that frame on every call of the enclosing function
(and run it uncompiled once the recompile limit is reached). torch.compile matches such functions by code
too (its ``CLOSURE_MATCH`` guard).

A closure is matched by code too: its cells' contents are guarded as they are read (through
``__closure__[i].cell_contents``), and what relies on the very cells (a write replayed on the real cell, a
cell the trace also reaches another way) pins the function first. Any use other than inlining a call
(comparing, hashing, reading an attribute, passing it on or storing it) reads
:attr:`CodeMatchedFunctionVariable.value`, which pins the variable to its object with the identity guard
every other function gets.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Item

from ..per_call_classes import made_part
from ..policy import opaque_module, trusted_module_name
from .functions import UserFunctionVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def code_matchable(value: types.FunctionType) -> bool:
    """Whether ``value`` is a user function made inside another function, with nothing in its ``__dict__``
    and defaults that are all plain constants (compared by value)."""
    if value.__dict__:
        return False
    if "<locals>" not in value.__qualname__ or opaque_module(value) is not None:
        return False
    if trusted_module_name(value.__module__ or ""):
        return False
    defaults = (*(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values())
    return all(type(d) in _PLAIN for d in defaults)


_PLAIN = (int, float, bool, str, type(None))


class CodeMatchedFunctionVariable(UserFunctionVariable):
    """A nested user function guarded by type, code, defaults and an empty ``__dict__``; pinned by identity
    on any use other than inlining a call of it."""

    def __init__(self, value: types.FunctionType, source: Any, guards: Any) -> None:
        self._function = value
        self._guards = guards
        self._pinned = False
        self.source = source

    @property
    def value(self) -> types.FunctionType:
        """The function object; reading it pins the trace to this very object."""
        self.pin()
        return self._function

    def inlined_function(self) -> types.FunctionType:
        return self._function

    def pin(self) -> None:
        if not self._pinned:
            self._pinned = True
            self._guards.add("identity", self.source, self._function)

    def cell_store(self, cell: Any) -> Any:
        store = super().cell_store(cell)

        def pinned_store(tx: InstructionTranslator, value: Any) -> None:
            self.pin()  # the write is replayed on this very cell
            store(tx, value)

        return pinned_store

    def call(self, tx: InstructionTranslator, args: list[Any], kwargs: dict[str, Any]) -> Any:
        self._boxes = tx.output.cell_boxes
        return super().call(tx, args, kwargs)

    def cell_pin(self) -> Any:
        if made_part(self._function):
            return self._same_contents
        return self.pin

    def _same_contents(self) -> None:
        """A method of a class made on a call (``per_call_classes``), whose cells the trace also reaches another
        way (the frame's own, after a break): each call brings another class and function, so rather than the
        function, the trace relies on each of its cells holding the very object the other ways read (reads
        only: a write through the function pins it, ``cell_store``)."""
        sources = self._boxes.sources
        for i, cell in enumerate(self._function.__closure__ or ()):
            mine = Attr(Item(Attr(self.source, "__closure__"), i), "cell_contents")
            for other in sources.get(id(cell), ()):
                if other != mine:
                    self._guards.add("same_object", mine, other)


def wrap_user_function(tx: InstructionTranslator | None, value: types.FunctionType, source: Any) -> UserFunctionVariable:
    """The variable of user function ``value`` read through ``source``: code-matched where
    :func:`code_matchable`, else guarded by identity."""
    guards = tx.output.guards if tx is not None and source is not None else None
    if guards is None or not code_matchable(value):
        if guards is not None:
            guards.add("identity", source, value)
        return UserFunctionVariable(value, source)
    guards.add("type", source, value)
    guards.add("identity", Attr(source, "__code__"), value.__code__)
    guards.add("identity", Attr(source, "__globals__"), value.__globals__)  # where its global stores go
    guards.add("constant", Attr(source, "__defaults__"), value.__defaults__)
    if value.__kwdefaults__ is None:
        guards.add("constant", Attr(source, "__kwdefaults__"), None)
    else:  # a dict's ConstantMatch would be identity: its keys here, its values as the call reads them
        guards.add("dict_keys", Attr(source, "__kwdefaults__"), value.__kwdefaults__)
        for key, default in value.__kwdefaults__.items():
            guards.add("constant", Item(Attr(source, "__kwdefaults__"), key), default)
    guards.add("dict_keys", Attr(source, "__dict__"), {})
    for name in ("__name__", "__qualname__"):  # what the call's binding errors name
        guards.add("constant", Attr(source, name), getattr(value, name))
    return CodeMatchedFunctionVariable(value, source, guards)
