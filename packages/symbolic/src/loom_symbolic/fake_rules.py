"""Output metadata of common ops on plain contiguous tensors, computed without running a meta kernel.

Many ops' meta kernels are Python references (an ``add`` ~180 µs, a ``layer_norm`` ~1 ms). For the
easy, common case - every tensor argument laid out contiguously, one floating dtype, shapes that fit -
the result is a fresh contiguous tensor whose shape and dtype follow from the arguments alone. Each rule
returns those ``(shape, dtype)`` pairs, or None whenever its case does not hold (an unusual layout, a
dtype mix, a shape that does not fit, an unknown keyword); then the meta kernel decides, and raises
where eager would. ``LoomFakeTensorMode`` compares every rule with PyTorch's path in check mode.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

aten = torch.ops.aten

#: (shape, dtype) of each contiguous output, or None: "not my case".
Outputs = list[tuple[tuple[int, ...], torch.dtype]] | None
Rule = Callable[[Sequence[Any], Mapping[str, Any]], Outputs]

_FLOATING = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})
_NUMBER = (int, float)


def _contiguous(tensor: torch.Tensor) -> bool:
    """Laid out row-major with exactly the strides ``torch.empty`` gives (size-1 dimensions included)."""
    expected = 1
    for size, stride in zip(reversed(tensor.shape), reversed(tensor.stride())):
        if stride != expected:
            return False
        expected *= size
    return True


def _floating(tensor: Any, dtype: torch.dtype | None = None) -> bool:
    """A floating tensor (of ``dtype``, when given), in any layout: matrix products allocate their
    output contiguously whatever their operands' strides (``linear`` hands ``mm`` a transposed weight)."""
    return (isinstance(tensor, torch.Tensor) and tensor.dtype in _FLOATING
            and (dtype is None or tensor.dtype == dtype))


def _plain(tensor: Any, dtype: torch.dtype | None = None) -> bool:
    """A contiguous floating tensor (of ``dtype``, when given)."""
    return _floating(tensor, dtype) and _contiguous(tensor)


def _number(value: Any) -> bool:
    return type(value) in _NUMBER  # bool and complex promote differently: not here


def _pointwise(*, numbers: tuple[int, ...] = (), keywords: Mapping[str, Callable[[Any], bool]] | None = None) -> Rule:
    """An elementwise op over tensors of one shape and dtype (the argument positions in ``numbers`` may
    be Python numbers instead): the output has that shape and dtype."""
    keywords = keywords or {}

    def rule(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Outputs:
        first = args[0]
        if not _plain(first):
            return None
        for position, value in enumerate(args[1:], start=1):
            if position in numbers and _number(value):
                continue
            if not _plain(value, first.dtype) or value.shape != first.shape:
                return None
        if any(name not in keywords or not keywords[name](value) for name, value in kwargs.items()):
            return None
        return [(tuple(first.shape), first.dtype)]

    return rule


def _addmm(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Outputs:
    bias, left, right = args[:3]
    if len(args) > 3 or any(name not in ("beta", "alpha") or not _number(v) for name, v in kwargs.items()):
        return None
    if not (_floating(left) and _floating(right, left.dtype) and _plain(bias, left.dtype)):
        return None
    if left.dim() != 2 or right.dim() != 2 or left.shape[1] != right.shape[0]:
        return None
    out = (left.shape[0], right.shape[1])
    if bias.dim() > 2 or any(b not in (1, o) for b, o in zip(reversed(bias.shape), reversed(out))):
        return None
    return [(out, left.dtype)]


def _mm(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Outputs:
    left, right = args
    if kwargs or not (_floating(left) and _floating(right, left.dtype)):
        return None
    if left.dim() != 2 or right.dim() != 2 or left.shape[1] != right.shape[0]:
        return None
    return [((left.shape[0], right.shape[1]), left.dtype)]


def _bmm(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Outputs:
    left, right = args
    if kwargs or not (_floating(left) and _floating(right, left.dtype)):
        return None
    if left.dim() != 3 or right.dim() != 3 or left.shape[0] != right.shape[0] or left.shape[2] != right.shape[1]:
        return None
    return [((left.shape[0], left.shape[1], right.shape[2]), left.dtype)]


def _layer_norm(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Outputs:
    """``native_layer_norm``: the output, and the mean and reciprocal deviation per normalised row, all
    in the input's dtype. ``LoomFakeTensorMode`` sends this op only float32/float64 inputs
    (``_DTYPES_FOR``), the dtypes for which every device keeps the statistics in the input's dtype."""
    if kwargs or len(args) != 5:
        return None
    tensor, normalized, weight, bias, eps = args
    if not _plain(tensor) or not _number(eps):
        return None
    normalized = tuple(normalized)
    axis = tensor.dim() - len(normalized)
    if not normalized or axis < 0 or tuple(tensor.shape[axis:]) != normalized:
        return None
    for affine in (weight, bias):
        if affine is not None and (not _plain(affine, tensor.dtype) or tuple(affine.shape) != normalized):
            return None
    stats = tuple(tensor.shape[:axis]) + (1,) * len(normalized)
    return [(tuple(tensor.shape), tensor.dtype), (stats, tensor.dtype), (stats, tensor.dtype)]


def _softmax(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Outputs:
    tensor, dim, half_to_float = args
    if kwargs or half_to_float is not False or not _plain(tensor) or type(dim) is not int:
        return None
    if not -max(tensor.dim(), 1) <= dim < max(tensor.dim(), 1):
        return None
    return [(tuple(tensor.shape), tensor.dtype)]


def _softmax_dim(args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """Eager's ``_softmax`` wraps ``dim`` first (an IndexError when it is out of range); PyTorch's meta does not."""
    tensor, dim = args[0], args[1]
    if isinstance(tensor, torch.Tensor) and type(dim) is int:
        low, high = -max(tensor.dim(), 1), max(tensor.dim(), 1) - 1
        if not low <= dim <= high:
            raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")


#: Argument checks eager makes that PyTorch's fake path skips: each raises as eager would, before any path runs.
CHECKS: dict[Any, Callable[[Sequence[Any], Mapping[str, Any]], None]] = {
    aten._softmax.default: _softmax_dim,
    aten._log_softmax.default: _softmax_dim,
}


def _is_gelu_approximation(value: Any) -> bool:
    return value in ("none", "tanh")


RULES: dict[Any, Rule] = {
    **{op: _pointwise(numbers=(1,), keywords={"alpha": _number}) for op in (aten.add.Tensor, aten.sub.Tensor)},
    **{op: _pointwise(numbers=(1,)) for op in (aten.mul.Tensor, aten.div.Tensor, aten.pow.Tensor_Scalar)},
    **{op: _pointwise() for op in (aten.maximum.default, aten.minimum.default, aten.neg.default,
                                   aten.exp.default, aten.log.default, aten.sqrt.default, aten.rsqrt.default,
                                   aten.tanh.default, aten.sigmoid.default, aten.relu.default,
                                   aten.silu.default, aten.sin.default, aten.cos.default, aten.erf.default,
                                   aten.reciprocal.default, aten.abs.default)},
    aten.gelu.default: _pointwise(keywords={"approximate": _is_gelu_approximation}),
    aten.addmm.default: _addmm,
    aten.mm.default: _mm,
    aten.bmm.default: _bmm,
    aten.native_layer_norm.default: _layer_norm,
    aten._softmax.default: _softmax,
    aten._log_softmax.default: _softmax,
}


# -- factories ------------------------------------------------------------------------------------
# A factory has no tensor argument to take a device from, and PyTorch's fake path for ``arange`` runs
# its Python reference and decompositions (~2-4 ms on a first call). For integer bounds and an explicit
# device, the result is a fresh 1-D int64 tensor whose length follows from the bounds alone.

#: (shape, dtype, device) of a factory's one contiguous output, or None: "not my case".
FactoryOutput = tuple[tuple[int, ...], torch.dtype, torch.device] | None

_INT64_LIMIT = 2**63
_ARANGE_KEYWORDS = frozenset({"dtype", "layout", "device", "pin_memory"})


def _arange(start: Any, end: Any, step: Any, kwargs: Mapping[str, Any]) -> FactoryOutput:
    """``arange(start, end, step)`` for Python ints, int64 (or default) dtype, on a named device."""
    if any(type(v) is not int or abs(v) >= _INT64_LIMIT for v in (start, end, step)) or step == 0:
        return None
    if not kwargs.keys() <= _ARANGE_KEYWORDS or kwargs.get("dtype") not in (None, torch.int64):
        return None
    if kwargs.get("layout") not in (None, torch.strided) or kwargs.get("pin_memory"):
        return None
    device = kwargs.get("device")
    if not isinstance(device, torch.device) or (end - start) * step < 0:
        return None  # the default device can be changed; bounds against the step's sign raise
    return (-((start - end) // step),), torch.int64, device


FACTORY_RULES: dict[Any, Callable[[Sequence[Any], Mapping[str, Any]], FactoryOutput]] = {
    aten.arange.default: lambda args, kwargs: _arange(0, args[0], 1, kwargs) if len(args) == 1 else None,
    aten.arange.start: lambda args, kwargs: _arange(args[0], args[1], 1, kwargs) if len(args) == 2 else None,
    aten.arange.start_step: (
        lambda args, kwargs: _arange(args[0], args[1], args[2], kwargs) if len(args) == 3 else None
    ),
}
