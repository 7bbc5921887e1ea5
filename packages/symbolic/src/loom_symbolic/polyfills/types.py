"""``types.SimpleNamespace`` made while tracing: a Python class stands in for it (attributes in the
instance's ``__dict__``, ``repr`` and ``==`` as the C type's), rebuilt as a real ``SimpleNamespace`` with
the same attributes where it outlives the frame."""

from __future__ import annotations

import sys as _sys
import types as _types
from typing import Any

from .registry import polyfill, rebuild

#: 3.13's SimpleNamespace takes one positional mapping or iterable of pairs; 3.11's and 3.12's none.
_TAKES_A_MAPPING = _sys.version_info >= (3, 13)


@polyfill(_types.SimpleNamespace)
class SimpleNamespace:  # named as the class it stands for, which messages show
    """``types.SimpleNamespace(**kwargs)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:  # 3.13 takes one mapping or iterable of pairs; 3.11 and 3.12 none
            if not _TAKES_A_MAPPING:
                raise TypeError("no positional arguments expected")
            if len(args) > 1:
                raise TypeError(f"SimpleNamespace expected at most 1 positional argument, got {len(args)}")
            for name, value in dict(args[0]).items():
                if not isinstance(name, str):
                    raise TypeError(f"keywords must be strings, not '{type(name).__name__}'")
                setattr(self, name, value)
        for name, value in kwargs.items():
            setattr(self, name, value)

    def __repr__(self) -> str:
        items = ", ".join(f"{name}={value!r}" for name, value in vars(self).items())
        return f"namespace({items})"

    def __eq__(self, other: Any) -> Any:
        if not isinstance(other, _types.SimpleNamespace):
            return NotImplemented
        return vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]


@rebuild(_types.SimpleNamespace)
def namespace_to_real(stand_in: SimpleNamespace) -> _types.SimpleNamespace:
    """The real ``SimpleNamespace`` a stand-in made while tracing is (run after the graph)."""
    return _types.SimpleNamespace(**vars(stand_in))
