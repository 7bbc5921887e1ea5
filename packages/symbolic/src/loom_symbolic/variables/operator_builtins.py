"""The ``operator`` module's functions as builtin handlers: each is the operation its opcode performs
(:mod:`.operator_semantics`), so ``operator.add(a, b)`` and ``a + b`` trace the same way. The builtin
``pow`` without a modulus is ``**`` too."""

from __future__ import annotations

import operator
from typing import Any

from . import operator_semantics as ops
from .builtins import HANDLERS, Handler, builtin
from .constant import ConstantVariable
from .container_tables import user_index, writes_index
from .containers import ListVariable

_BINARY_OPERATORS = [
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
    operator.matmul, operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift,
    operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge,
    operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv, operator.imod,
    operator.ipow, operator.imatmul, operator.iand, operator.ior, operator.ixor, operator.ilshift, operator.irshift,
]


def _binary_handler(op: Any) -> Handler:
    return lambda tx, args, kwargs: ops.binary(tx, op, args[0], args[1])


for _op in _BINARY_OPERATORS:
    HANDLERS[_op] = _binary_handler(_op)
for _op in (operator.neg, operator.pos, operator.invert):
    HANDLERS[_op] = (lambda op: lambda tx, args, kwargs: ops.unary(tx, op, args[0]))(_op)
HANDLERS[operator.getitem] = lambda tx, args, kwargs: ops.getitem(tx, args[0], args[1])
HANDLERS[operator.contains] = lambda tx, args, kwargs: ops.contains(tx, args[0], args[1])
HANDLERS[operator.not_] = lambda tx, args, kwargs: ConstantVariable(not args[0].truth(tx))
HANDLERS[operator.truth] = lambda tx, args, kwargs: ConstantVariable(args[0].truth(tx))
HANDLERS[operator.is_] = lambda tx, args, kwargs: ConstantVariable(ops.is_same(tx, args[0], args[1]))
HANDLERS[operator.is_not] = lambda tx, args, kwargs: ConstantVariable(not ops.is_same(tx, args[0], args[1]))


def _of_index(fn: Any) -> Handler:
    """``fn(obj)`` for ``bin``, ``hex``, ``oct``, ``operator.index``: each calls the ``__index__`` that
    ``obj``'s class writes in Python, then formats (or returns) the int."""

    def handler(tx, args, kwargs):
        if kwargs or len(args) != 1 or not writes_index(args[0]):
            return None
        return ConstantVariable(fn(user_index(tx, args[0])))

    return handler


for _fn in (bin, hex, oct, operator.index):
    HANDLERS.setdefault(_fn, _of_index(_fn))


@builtin(operator.setitem)
def builtin_setitem(tx, args, kwargs):
    ops.setitem(tx, args[0], args[1], args[2])
    return ConstantVariable(None)


@builtin(operator.delitem)
def builtin_delitem(tx, args, kwargs):
    ops.delitem(tx, args[0], args[1])
    return ConstantVariable(None)


@builtin(operator.iconcat)
def builtin_iconcat(tx, args, kwargs):
    # a list's in-place concatenation is its +=; anything else (a tensor has no sequence concat) is left to C
    if len(args) != 2 or kwargs or not isinstance(args[0], ListVariable):
        return None
    return ops.binary(tx, operator.iadd, args[0], args[1])


# operator.call(f, *args, **kwargs) is f(*args, **kwargs), traced as that call is
HANDLERS[operator.call] = lambda tx, args, kwargs: args[0].call(tx, args[1:], kwargs) if args else None


@builtin(pow)
def builtin_pow(tx, args, kwargs):
    # pow(base, exp) is base ** exp (``__pow__``, then ``__rpow__``); a modulus is folded for constants only
    named = dict(zip(("base", "exp", "mod"), args)) | kwargs
    if set(named) - {"base", "exp", "mod"} or not {"base", "exp"} <= set(named):
        return None  # a malformed call: folding, or the break, says what CPython says
    mod = named.get("mod")
    if mod is not None and not (mod.is_python_constant() and mod.as_python_constant() is None):
        return None
    return ops.binary(tx, operator.pow, named["base"], named["exp"])


# divmod(a, b) is a binary operator without an opcode: ``__divmod__``, then the other side's ``__rdivmod__``
ops.DUNDERS.setdefault(divmod, ("__divmod__", "__rdivmod__"))


@builtin(divmod)
def builtin_divmod(tx, args, kwargs):
    """``divmod(a, b)`` with an object on a side (a class writing ``__divmod__``/``__rdivmod__`` in Python, an int
    or float subclass instance made in the trace): Python's operator dispatch. Constants fold; tensors, NumPy
    values and symbolic ints are left to the fold (which specialises) or the break."""
    if kwargs or len(args) != 2 or all(a.is_python_constant() for a in args):
        return None
    if any(ops.is_tensor(a) or getattr(a, "numpy_value", False) for a in args):
        return None
    return ops.binary(tx, divmod, args[0], args[1])
