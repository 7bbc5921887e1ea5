"""Stack shuffling and no-ops."""

from __future__ import annotations

from ..variables.base import NULL
from .registry import handler


@handler("NOP", "RESUME", "CACHE", "EXTENDED_ARG")
def nop(tx, ins) -> None:
    """Instructions with no symbolic effect."""


@handler("POP_TOP")
def pop_top(tx, ins) -> None:
    tx.pop()


@handler("PUSH_NULL")
def push_null(tx, ins) -> None:
    tx.push(NULL)


@handler("COPY")
def copy(tx, ins) -> None:
    tx.push(tx.peek(ins.arg))


@handler("SWAP")
def swap(tx, ins) -> None:
    stack = tx.stack
    stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]
