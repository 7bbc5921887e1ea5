"""Unary, binary, comparison, identity, membership and subscript instructions."""

from __future__ import annotations

import dis
import operator

from ..variables import operator_semantics as ops
from ..variables.registry import wrap_constant_like
from ..variables.resumed_loops import refuse_per_pass_subscript
from ..variables.symbolic_scalars import SymbolicVariable
from .registry import handler

#: BINARY_OP's argument indexes CPython's table of operator symbols ("+", "+=", ...).
_SYMBOLS = {
    "+": operator.add, "&": operator.and_, "//": operator.floordiv, "<<": operator.lshift,
    "@": operator.matmul, "*": operator.mul, "%": operator.mod, "|": operator.or_, "**": operator.pow,
    ">>": operator.rshift, "-": operator.sub, "/": operator.truediv, "^": operator.xor,
    "+=": operator.iadd, "&=": operator.iand, "//=": operator.ifloordiv, "<<=": operator.ilshift,
    "@=": operator.imatmul, "*=": operator.imul, "%=": operator.imod, "|=": operator.ior,
    "**=": operator.ipow, ">>=": operator.irshift, "-=": operator.isub, "/=": operator.itruediv,
    "^=": operator.ixor,
}
BINARY_OPS = [_SYMBOLS[symbol] for _, symbol in dis._nb_ops]
COMPARE_OPS = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge,
}


@handler("BINARY_OP")
def binary_op(tx, ins) -> None:
    right = tx.pop()
    left = tx.pop()
    tx.push(ops.binary(tx, BINARY_OPS[ins.arg], left, right))


@handler("UNARY_NEGATIVE")
def unary_negative(tx, ins) -> None:
    tx.push(ops.unary(tx, operator.neg, tx.pop()))


@handler("UNARY_POSITIVE")
def unary_positive(tx, ins) -> None:
    tx.push(ops.unary(tx, operator.pos, tx.pop()))


@handler("UNARY_INVERT")
def unary_invert(tx, ins) -> None:
    tx.push(ops.unary(tx, operator.invert, tx.pop()))


@handler("UNARY_NOT")
def unary_not(tx, ins) -> None:
    tx.push(wrap_constant_like(not tx.pop().truth(tx)))


@handler("COMPARE_OP")
def compare_op(tx, ins) -> None:
    right = tx.pop()
    left = tx.pop()
    tx.push(ops.binary(tx, COMPARE_OPS[ins.argval], left, right))


@handler("IS_OP")
def is_op(tx, ins) -> None:
    right = tx.pop()
    left = tx.pop()
    same = ops.is_same(tx, left, right)
    tx.push(wrap_constant_like(same != bool(ins.arg)))


@handler("CONTAINS_OP")
def contains_op(tx, ins) -> None:
    container = tx.pop()
    item = tx.pop()
    result = ops.contains(tx, container, item)
    if ins.arg:
        result = wrap_constant_like(not result.truth(tx))
    tx.push(result)


@handler("BINARY_SUBSCR")
def binary_subscr(tx, ins) -> None:
    index = tx.pop()
    container = tx.pop()
    if type(index) is SymbolicVariable:
        refuse_per_pass_subscript(tx, container, index)
    tx.push(ops.getitem(tx, container, index))


@handler("STORE_SUBSCR")
def store_subscr(tx, ins) -> None:
    index = tx.pop()
    container = tx.pop()
    value = tx.pop()
    ops.setitem(tx, container, index, value)


@handler("DELETE_SUBSCR")
def delete_subscr(tx, ins) -> None:
    index = tx.pop()
    container = tx.pop()
    ops.delitem(tx, container, index)
