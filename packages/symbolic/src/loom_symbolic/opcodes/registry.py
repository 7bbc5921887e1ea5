"""The opcode dispatch table: one small handler per opcode, registered by name.

Handlers are plain functions ``handler(tx, ins)`` that read and write the translator's stack. Each
family lives in its own module (``names``, ``stack``, ``operators``, ``build``, ``calls``,
``control``, ``exceptions``, ``matching``) and registers itself here with :func:`handler`; what one
CPython version changes is in ``py311``, ``py312`` and ``py313`` (module-level handlers, registered over
the shared ones with :func:`replace`). :mod:`.dispatch` imports the families and the running version's
module once. To find the handler of ``BINARY_SUBSCR``, grep for ``"BINARY_SUBSCR"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Handler = Callable[[Any, Any], None]
#: opname → handler. Filled by the handler modules when :mod:`.dispatch` imports them.
HANDLERS: dict[str, Handler] = {}


def handler(*opnames: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of each of ``opnames``."""

    def register(fn: Handler) -> Handler:
        for name in opnames:
            if name in HANDLERS:
                raise RuntimeError(f"two handlers for {name}")
            HANDLERS[name] = fn
        return fn

    return register


def replace(*opnames: str) -> Callable[[Handler], Handler]:
    """Register the decorated function instead of the shared handler of each of ``opnames`` (for a
    version module whose CPython gives the opcode another meaning)."""

    def register(fn: Handler) -> Handler:
        for name in opnames:
            if name not in HANDLERS:
                raise RuntimeError(f"no shared handler for {name} to replace")
            HANDLERS[name] = fn
        return fn

    return register
