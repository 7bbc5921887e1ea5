"""Calls whose keyword names a graph's Python code cannot spell (``t.random_(**{"from": -10, "to": 10})``).

An FX graph's code writes a node's keyword arguments as ``name=value``, which is a syntax error when the
name is a Python keyword (``from``) or no identifier. Such a call is recorded instead as a call of a small
target that takes the keywords as one dict argument (which the code writes as a literal) and makes the
original call with them: same op, same arguments, at run time.
"""

from __future__ import annotations

import keyword
from typing import Any

from .graph_constants import spellable_constants


def _spellable(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


class KeywordCall:
    """``KeywordCall(fn)(*args, kwargs)`` is ``fn(*args, **kwargs)``: a graph target for ``fn`` whose
    keywords travel as one dict. ``fn`` is a callable, or a method name called on the first argument."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        name = fn if isinstance(fn, str) else getattr(fn, "__name__", type(fn).__name__)
        self.__name__ = self.__qualname__ = f"{name}_with_keywords"

    def __call__(self, *args: Any) -> Any:
        *positional, kwargs = args
        if isinstance(self.fn, str):
            return getattr(positional[0], self.fn)(*positional[1:], **kwargs)
        return self.fn(*positional, **kwargs)

    def __repr__(self) -> str:
        return f"KeywordCall({self.fn!r})"


def spellable(kind: str, target: Any, args: tuple, kwargs: dict) -> tuple[str, Any, tuple, dict]:
    """The node ``(kind, target, args, kwargs)`` as FX can write it: unchanged, unless a keyword is no
    Python name; then a ``call_function`` of a :class:`KeywordCall` with the keywords as a last dict. (Enum
    constants FX cannot name are their numbers: :mod:`.graph_constants`.)"""
    args, kwargs = spellable_constants(args, kwargs)
    if all(_spellable(name) for name in kwargs):
        return kind, target, args, kwargs
    return "call_function", KeywordCall(target), (*args, dict(kwargs)), {}
