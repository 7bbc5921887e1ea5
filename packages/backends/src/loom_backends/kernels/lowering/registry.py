"""The lowering table and the decorator that fills it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

LOWERINGS: dict[Any, Callable[..., Any]] = {}


def register_lowering(*ops: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated rule for each op (an OpOverload, or an OpOverloadPacket for all overloads)."""

    def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
        for op in ops:
            if op in LOWERINGS:
                raise ValueError(f"two lowering rules for {op}")
            LOWERINGS[op] = fn
        return fn

    return decorator


def lookup(target: Any) -> Callable[..., Any] | None:
    rule = LOWERINGS.get(target)
    if rule is None:
        packet = getattr(target, "overloadpacket", None)
        if packet is not None:
            rule = LOWERINGS.get(packet)
    return rule
