"""``types.SimpleNamespace`` made while tracing: a Python class stands in for it (attributes in the
instance's ``__dict__``, ``repr`` and ``==`` as the C type's), rebuilt as a real ``SimpleNamespace`` with
the same attributes where it outlives the frame."""

from __future__ import annotations

import types as _types
from typing import Any

from .registry import polyfill, rebuild


@polyfill(_types.SimpleNamespace)
class SimpleNamespace:  # named as the class it stands for, which messages show
    """``types.SimpleNamespace(**kwargs)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:  # 3.13 takes one mapping or iterable of pairs; 3.11 and 3.12 none
            raise TypeError("no positional arguments expected")
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
