"""Builders of text operations that the C and Triton generators share (``c/textops.py``, ``triton/textops.py``).

A text op takes the operands (values that print as their variable names and carry a ``dtype``) and returns
``(source, dtype)``: the expression in the target language and the dtype of its result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

BOOL = torch.bool
TextOp = Callable[..., tuple[str, torch.dtype]]


def is_float(dtype: torch.dtype) -> bool:
    """Whether ``dtype`` is a floating-point type."""
    return dtype.is_floating_point


def is_bool(dtype: torch.dtype) -> bool:
    """Whether ``dtype`` is ``torch.bool``."""
    return dtype == torch.bool


def same(template: str) -> TextOp:
    """An op spelled ``template.format(*operands)`` whose result has the dtype of its first operand."""

    def op(*args: Any) -> tuple[str, torch.dtype]:
        return template.format(*args), args[0].dtype

    return op


def to_bool(template: str) -> TextOp:
    """An op spelled ``template.format(*operands)`` with a bool result (a comparison, a test)."""

    def op(*args: Any) -> tuple[str, torch.dtype]:
        return template.format(*args), BOOL

    return op


def logical(operator: str) -> TextOp:
    """``logical_and``/``or``/``xor``: bools combine as they are, other operands are tested against 0."""

    def truth(x: Any) -> str:
        return str(x) if is_bool(x.dtype) else f"({x} != 0)"

    def op(a: Any, b: Any) -> tuple[str, torch.dtype]:
        return f"{truth(a)} {operator} {truth(b)}", BOOL

    return op


def by_kind(
    float_t: str | TextOp,
    int_t: str,
    bool_t: str | None = None,
    fields: Callable[[torch.dtype], dict[str, str]] | None = None,
) -> TextOp:
    """Different spellings for float, integer and bool operands (result: the first operand's dtype).

    ``float_t`` may be an op of its own; ``fields(dtype)`` gives the named fields the templates may use
    besides the operands (the C generator's ``{t}`` and ``{s}`` helper suffixes)."""

    def op(*args: Any) -> tuple[str, torch.dtype]:
        dtype = args[0].dtype
        if is_float(dtype):
            if callable(float_t):
                return float_t(*args)
            template = float_t
        elif is_bool(dtype) and bool_t is not None:
            template = bool_t
        else:
            template = int_t
        return template.format(*args, **(fields(dtype) if fields is not None else {})), dtype

    return op


# The comparisons are spelled alike in C and in Triton's Python.
COMPARISONS: dict[str, TextOp] = {
    "eq": to_bool("{0} == {1}"),
    "ne": to_bool("{0} != {1}"),
    "lt": to_bool("{0} < {1}"),
    "le": to_bool("{0} <= {1}"),
    "gt": to_bool("{0} > {1}"),
    "ge": to_bool("{0} >= {1}"),
}
