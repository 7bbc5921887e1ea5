"""``isinstance(obj, cls)`` and ``issubclass(kind, cls)`` where ``cls`` is an ``abc.ABC`` class
(``collections.abc.Mapping``, a user's ABC): the answer also depends on the classes registered with it
(``cls.register(kind)``), which can change after the trace. ABCMeta caches its answers until any ABC
registers a class, which changes ``abc.get_cache_token()``; the trace is guarded on that token, so a
registration compiles again, as it clears eager's caches (a stale answer before: a wrong branch).
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const
from loom_guards.query_sources import Called

from .builtins import CALL_GUARDS

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_CACHE_TOKEN = Called(Attr(Const(abc, "abc"), "get_cache_token"))


def _names_an_abc(classes: Any) -> bool:
    """Whether ``classes`` (a class or a nested tuple of them, as isinstance takes) holds an ABCMeta class."""
    if type(classes) is tuple:
        return any(_names_an_abc(member) for member in classes)
    return isinstance(classes, abc.ABCMeta)


def guard_registry(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> None:
    """Guard the ABC cache token where the classes asked about include an ABC."""
    if len(args) == 2 and not kwargs and args[1].is_python_constant() and _names_an_abc(args[1].as_python_constant()):
        tx.output.guards.add("constant", _CACHE_TOKEN, abc.get_cache_token())


CALL_GUARDS[isinstance] = CALL_GUARDS[issubclass] = guard_registry
