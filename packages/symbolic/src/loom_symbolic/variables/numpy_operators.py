"""Python operators on NumPy arrays and scalars made while tracing (``a + b``, ``-a``, ``x += a``).

Fills :data:`.operators.NUMPY_OPERATORS`, which the operators consult for an operand that is a NumPy value.
"""

from __future__ import annotations

import operator
import warnings
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from . import numpy_calls as calls
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .numpy import _OPERANDS, NdarrayVariable, NumpyConstantVariable, _np, record, tensor_numpy
from .registry import wrap_constant_like
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def binary(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable:
    """``op(left, right)`` where one side is a traced NumPy array or scalar."""
    if isinstance(left, TensorVariable) or isinstance(right, TensorVariable):
        return _with_tensor(tx, op, left, right)
    if not isinstance(left, NdarrayVariable) and not isinstance(right, NdarrayVariable):
        if left.is_python_constant() and right.is_python_constant():
            return _operators.fold(_operators.INPLACE.get(op, op), left, right)  # NumPy scalars are immutable
        raise Unsupported(f"operator {op.__name__} on {left.describe()} and {right.describe()}", "not modelled")
    if op in _COMPARISONS and all(side.specialises or side.is_python_constant() for side in (left, right)):
        # a NumPy scalar argument compared with a number: a branch's test, almost always; specialised on
        # its value (a guard) as torch.compile does, rather than a 0-d bool array no branch can read
        return _operators.fold(op, *(wrap_constant_like(side.as_python_constant()) for side in (left, right)))
    for side in (left, right):
        if not isinstance(side, _OPERANDS) and not side.is_python_constant():
            raise Unsupported(f"operator {op.__name__} on {left.describe()} and {right.describe()}", "not modelled")
    plain = _operators.INPLACE.get(op)
    if plain is not None and not (isinstance(left, NdarrayVariable) and not left.scalar):
        op, plain = plain, None  # a NumPy scalar (or a constant) on the left: x += a is x = x + a
    name = op.__name__.rstrip("_")
    result = record(tx, calls.operator_call(op.__name__), f"operator {name}", [left, right], {},
                    in_place=left if plain is not None else None)
    if plain is None and isinstance(result, NdarrayVariable) and result.scalar \
            and all(side.specialises or side.is_python_constant() for side in (left, right)):
        _derive_specialisable(op, result, left, right)
    return result


def _derive_specialisable(op: Any, result: NdarrayVariable, left: Variable, right: Variable) -> None:
    """``a - 4`` of a NumPy scalar argument ``a`` stays in the graph, and is specialised like ``a`` where it
    is read as a Python value (``min(a - 4, b)``): its value is real NumPy's on ``a``'s value, guarded by ``a``'s."""
    values = [side.argument[0] if side.specialises else side.as_python_constant() for side in (left, right)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow or a division by zero: left to the graph
        try:
            value = op(*values)
        except Exception:
            return
    if type(value) is not result.python_type():
        return
    result.specialises = True
    result.argument = (value, lambda: [side.as_python_constant() for side in (left, right) if side.specialises])


_COMPARISONS = frozenset({operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne})


#: Result dtypes for which a NumPy scalar cast to the common dtype computes what torch does with it as
#: a Python number (reduced-precision kernels compute with the number in float32, not rounded first).
_SCALAR_CAST_DTYPES = frozenset({torch.float32, torch.float64, torch.int64, torch.int32, torch.bool})


#: Operators ``tensor OP array`` computes in NumPy: ``Tensor.__op__`` refuses an ndarray, so the array's
#: reflected method runs the ufunc on ``tensor.__array__()`` and ``Tensor.__array_wrap__`` makes the
#: result a tensor. (Comparisons and the array on the left take other, irregular paths: not modelled.)
_THROUGH_NUMPY = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
    operator.matmul, operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift,
})


def _tensor_then_array(tx: InstructionTranslator, op: Any, tensor: TensorVariable, array: NdarrayVariable) -> Variable:
    """``tensor OP array`` (and ``tensor OP= array``, which rebinds: ``Tensor.__iop__`` refuses the array
    too): NumPy's answer, dtype included, as a new tensor; a bool result becomes uint8 as
    ``__array_wrap__`` makes it."""
    as_array = tensor_numpy(tx, tensor, [], {})  # eager's __array__: refuses what .numpy() refuses
    result = binary(tx, _operators.INPLACE.get(op, op), as_array, array)
    if not isinstance(result, NdarrayVariable):
        raise Unsupported(f"operator {op.__name__} on a tensor and a NumPy array", "NumPy's result is not an array")
    wrapped = tx.output.call_method(tx, "detach", [result.tensor], {})
    if wrapped.example.dtype == torch.bool:
        wrapped = tx.output.call_method(tx, "to", [wrapped, ConstantVariable(torch.uint8)], {})
    return wrapped


def _with_tensor(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable:
    """A tensor and a NumPy scalar: torch takes the scalar as a Python number. A tensor then an array:
    NumPy computes (:func:`_tensor_then_array`). Other mixes of arrays and tensors are not modelled."""
    tensor, other = (left, right) if isinstance(left, TensorVariable) else (right, left)
    if isinstance(other, NdarrayVariable) and not other.scalar and other is right \
            and _operators.INPLACE.get(op, op) in _THROUGH_NUMPY:
        return _tensor_then_array(tx, op, tensor, other)
    if isinstance(other, NumpyConstantVariable) and isinstance(other.value, _np().generic):
        number = ConstantVariable(other.value.item())
        return _operators.binary(tx, op, *((tensor, number) if other is right else (number, tensor)))
    if not isinstance(other, NdarrayVariable) or not other.scalar or isinstance(other, TensorVariable):
        raise Unsupported(f"operator {op.__name__} on {left.describe()} and {right.describe()}",
                          "mixing a NumPy array with a tensor hands the work to the tensor: not modelled",
                          hint="convert one side with torch.from_numpy or .numpy()")
    example = tensor.example
    stand_tensor = torch.ones([1] * example.dim(), dtype=example.dtype)  # dtypes do not depend on sizes
    number = other.stand_in("ones").item()
    try:
        common = torch.result_type(stand_tensor, number)
        expected = op(*((stand_tensor, number) if other is right else (number, stand_tensor)))
    except Exception as exc:
        raise Unsupported(f"operator {op.__name__} on a tensor and a NumPy scalar", f"torch raises {exc}") from exc
    if not isinstance(expected, torch.Tensor) or expected.dtype not in _SCALAR_CAST_DTYPES:
        raise Unsupported(f"operator {op.__name__} on a {example.dtype} tensor and a NumPy scalar",
                          "torch computes with the scalar as a Python number: not modelled for this dtype")
    cast = tx.output.call_method(tx, "to", [other.tensor, ConstantVariable(common)], {})
    result = _operators.binary(tx, op, *((tensor, cast) if other is right else (cast, tensor)))
    if isinstance(result, TensorVariable) and result is not tensor and result.example.dtype != expected.dtype:
        raise Unsupported(f"operator {op.__name__} on a tensor and a NumPy scalar",
                          f"it gives {result.example.dtype} where eager gives {expected.dtype}")
    return result


def unary(tx: InstructionTranslator, op: Any, value: Variable) -> Variable:
    """``-a``, ``+a``, ``~a``, ``abs(a)`` on a traced NumPy array or scalar."""
    if value.is_python_constant():
        return _operators.fold(op, value)
    name = op.__name__.strip("_")
    return record(tx, calls.operator_call(name), f"operator {name}", [value], {})


_operators.NUMPY_OPERATORS.update(binary=binary, unary=unary)
