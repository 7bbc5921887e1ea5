"""``exp`` of a select with an infinite branch, computed as a select of two ``exp``s: no ``-inf`` reaches libmvec.

A causal-masked softmax computes ``exp(where(mask, -inf, x) - max)``. glibc's vector ``expf`` redoes every
vector holding an argument below -87.3 with the scalar ``expf``: a masked softmax ``[4, 6, 64, 64]`` took
1.3-2.2x eager's time, most of it in that fallback. A pointwise function distributes over a select exactly
(``f(c ? a : b) == c ? f(a) : f(b)``), so the kernel computes ``c ? exp(-inf - max) : exp(x - max)``: the
constant branch depends on the row only (computed once per row, before the vector loop), and the other
branch never holds the infinity. What the select's unchosen lanes compute is discarded, as before.

:class:`Selects` follows, in one kernel, the values that are such a select (``where`` with a non-finite
float literal on one side) through the arithmetic in :data:`THROUGH` applied to them and one other value;
``exp``/``exp2``/``expm1`` of one of them is built branch by branch (``CKernelCodegen.call`` asks
:meth:`Selects.distribute` first). Values nothing reads any more are dropped from the loop
(``without_dead_lines``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..kernels.kernel_walk import Var

#: libm calls whose vector versions fall back to the scalar function on an infinite argument
DISTRIBUTED = frozenset({"exp", "exp2", "expm1"})
#: elementwise arithmetic a tracked select goes through (with one other, untracked operand)
THROUGH = frozenset({"add", "sub", "mul", "truediv", "neg"})


@dataclass
class _Select:
    cond: Var
    branches: tuple[Callable[[], Var], Callable[[], Var]]  # build the value where cond holds / does not


def _non_finite(value: Var) -> bool:
    return value.is_literal and isinstance(value.value, float) and not math.isfinite(value.value)


class Selects:
    """The selects of one kernel worth distributing a math call over (see the module's docstring)."""

    def __init__(self, call: Callable[..., Var], where: Callable[[Var, Var, Var], Var]) -> None:
        self._call, self._where = call, where
        self._selects: dict[str, _Select] = {}
        self.used = False  # a call was distributed: the kernel's loops have dead values to drop

    def note_where(self, result: Var, cond: Var, a: Var, b: Var) -> Var:
        """``result = cond ? a : b``, tracked when a float branch is an infinity (or NaN) literal; returns it."""
        if result.dtype.is_floating_point and (_non_finite(a) or _non_finite(b)) and not result.is_literal:
            self._selects[result.name] = _Select(cond, (lambda: a, lambda: b))
        return result

    def note_call(self, name: str, args: tuple[Any, ...], result: Var) -> Var:
        """``result = name(*args)``, tracked when it is arithmetic on exactly one tracked select; returns it."""
        if name not in THROUGH or result.is_literal:
            return result
        tracked = [i for i, a in enumerate(args) if isinstance(a, Var) and a.name in self._selects and not a.is_literal]
        if len(tracked) != 1:
            return result
        position = tracked[0]
        select = self._selects[args[position].name]

        def branch(build: Callable[[], Var]) -> Callable[[], Var]:
            def value() -> Var:
                operands = list(args)
                operands[position] = build()
                return self._call(name, *operands)

            return value

        self._selects[result.name] = _Select(select.cond, (branch(select.branches[0]), branch(select.branches[1])))
        return result

    def distribute(self, name: str, args: tuple[Any, ...]) -> Var | None:
        """``name(select)`` as ``cond ? name(a) : name(b)``, or None when ``name(*args)`` is not such a call."""
        if name not in DISTRIBUTED or len(args) != 1 or not isinstance(args[0], Var):
            return None
        select = self._selects.get(args[0].name)
        if select is None or args[0].is_literal:
            return None
        self.used = True
        chosen, other = (self._call(name, build()) for build in select.branches)
        return self._where(select.cond, chosen, other)
