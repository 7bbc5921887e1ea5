"""Functions made by a ``def`` inside another function, guarded by their code rather than their identity.

Each call of the enclosing function makes a new function object from the same code. A frame that reads one
from a cell or a local (the caller's resume function after a break in a nested call, a helper frame run on
its own) and only inlines calls of it relies on its code, defaults, globals and ``__dict__``, not on the
object: guarding the object's identity would recompile that frame on every call of the enclosing function
(and run it uncompiled once the recompile limit is reached). torch.compile matches such functions by code
too (its ``CLOSURE_MATCH`` guard).

Only functions without cells are matched by code: an inlined closure's cell writes and aliases are recorded
against the real cell objects. Any use other than inlining a call (comparing, hashing, reading an attribute,
passing it on or storing it) reads :attr:`CodeMatchedFunctionVariable.value`, which pins the variable to its
object with the identity guard every other function gets.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr

from ..policy import opaque_module, trusted_module_name
from .functions import UserFunctionVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def code_matchable(value: types.FunctionType) -> bool:
    """Whether ``value`` is a cell-free user function made inside another function, with nothing in its
    ``__dict__`` and defaults that are all plain constants (compared by value)."""
    if value.__closure__ is not None or value.__kwdefaults__ is not None or value.__dict__:
        return False
    if "<locals>" not in value.__qualname__ or opaque_module(value) is not None:
        return False
    if trusted_module_name(value.__module__ or ""):
        return False
    return all(type(d) in (int, float, bool, str, type(None)) for d in value.__defaults__ or ())


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
    guards.add("constant", Attr(source, "__kwdefaults__"), None)
    guards.add("dict_keys", Attr(source, "__dict__"), {})
    return CodeMatchedFunctionVariable(value, source, guards)
