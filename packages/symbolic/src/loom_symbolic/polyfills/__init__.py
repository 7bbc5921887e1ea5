"""Python reimplementations of C builtins, traced in place of the originals (Dynamo calls them polyfills).

The translator cannot look inside a C function such as ``itertools.chain`` or ``functools.reduce``;
rather than a translator class per builtin, each one gets a small Python version here, one module per
standard-library module, tested against the real one on the same inputs (``tests/test_polyfills.py``).
When traced code calls an original, the translator inlines its replacement: the loop bodies, keys and
callbacks it runs become part of the graph like any Python code. Natively nothing changes: the
originals are never patched.

Adding one is a function decorated with ``@polyfill(original)`` in the module of its family; an
attribute of the original that is itself a callable (``chain.from_iterable``) is polyfilled by
``@polyfill(original, "attribute")``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: id(original) -> (original, replacement); the original is kept so its id stays unique.
_REPLACEMENTS: dict[int, tuple[Any, Callable[..., Any]]] = {}
#: (id(original), attribute) -> replacement of ``original.attribute`` (originals are long-lived types
#: and builtins, so their ids stay theirs)
_ATTRIBUTES: dict[tuple[int, str], Callable[..., Any]] = {}
#: id(original) -> (original, replacement) for builtins the translator models itself in the common
#: cases (``min`` of constants is folded): the replacement serves the calls it cannot model.
_FALLBACKS: dict[int, tuple[Any, Callable[..., Any]]] = {}


def polyfill(original: Any, attribute: str | None = None, *,
             fallback: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as what the translator traces in place of ``original`` (or of
    ``original.attribute``; with ``fallback=True``, only where its own model of the builtin does not
    apply)."""

    def register(replacement: Callable[..., Any]) -> Callable[..., Any]:
        if fallback:
            _FALLBACKS[id(original)] = (original, replacement)
        elif attribute is None:
            _REPLACEMENTS[id(original)] = (original, replacement)
        else:
            _ATTRIBUTES[(id(original), attribute)] = replacement
        replacement.__loom_polyfill_of__ = original  # for messages and tests
        return replacement

    return register


def replacement_for(value: Any) -> Callable[..., Any] | None:
    """The Python function traced in place of ``value``, if it has one."""
    found = _REPLACEMENTS.get(id(value))
    return found[1] if found is not None and found[0] is value else None


def attribute_replacement(value: Any, name: str) -> Callable[..., Any] | None:
    """The Python function traced in place of ``value.name`` (``itertools.chain.from_iterable``,
    ``dict.fromkeys``)."""
    return _ATTRIBUTES.get((id(value), name))


def fallback_for(value: Any) -> Callable[..., Any] | None:
    """The Python function traced for a call of builtin ``value`` that the translator does not model."""
    found = _FALLBACKS.get(id(value))
    return found[1] if found is not None and found[0] is value else None


def originals() -> list[Any]:
    """Every builtin that has a replacement (fallbacks included)."""
    return [original for original, _ in (*_REPLACEMENTS.values(), *_FALLBACKS.values())]


from . import builtins, copy, functools, itertools, operator  # noqa: E402  (register their polyfills)

__all__ = ["attribute_replacement", "builtins", "copy", "fallback_for", "functools", "itertools", "operator",
           "originals", "polyfill", "replacement_for"]
