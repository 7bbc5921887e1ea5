"""Index expressions: sympy integers, symbols, ``FloorDiv`` and ``ModularIndexing``, and their simplifier.

Every address a kernel touches is an expression over the kernel's flat ``xindex`` / ``rindex``: a
contiguous load of a ``[4, 8]`` tensor in a ``[4, 8]`` loop is ``8*FloorDiv(xindex, 8) +
ModularIndexing(xindex, 1, 8)``, which :func:`simplify` turns back into ``xindex``. Sizes are sympy
expressions too, so symbolic sizes (dynamic shapes) can flow through unchanged; only ranges needed for
simplification must then be unknown.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence

import sympy

Expr = sympy.Expr

XINDEX = sympy.Symbol("xindex", integer=True, nonnegative=True)
RINDEX = sympy.Symbol("rindex", integer=True, nonnegative=True)


def sym(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True, nonnegative=True)


def as_expr(value: int | Expr) -> Expr:
    if isinstance(value, sympy.Basic):
        return value
    return sympy.Integer(int(value))


def static_int(value: int | Expr) -> int | None:
    """The Python int an expression stands for, or None when it is symbolic."""
    if isinstance(value, int):
        return value
    if isinstance(value, sympy.Integer):
        return int(value)
    return None


def product(values: Iterable[int | Expr]) -> Expr:
    out: Expr = sympy.Integer(1)
    for v in values:
        out = out * as_expr(v)
    return out


def _divisible(coeff: Expr, divisor: Expr) -> bool:
    if isinstance(coeff, sympy.Integer) and isinstance(divisor, sympy.Integer):
        return int(divisor) != 0 and int(coeff) % int(divisor) == 0
    quotient = sympy.cancel(coeff / divisor)
    return quotient.is_integer is True


class FloorDiv(sympy.Function):
    """``base // divisor`` for a non-negative base and a positive divisor."""

    nargs = (2,)
    is_integer = True

    @classmethod
    def eval(cls, base: Expr, divisor: Expr) -> Expr | None:  # type: ignore[override]
        if divisor == 1:
            return base
        if base == 0:
            return sympy.Integer(0)
        if isinstance(base, sympy.Integer) and isinstance(divisor, sympy.Integer):
            return sympy.Integer(int(base) // int(divisor))
        if isinstance(base, FloorDiv):
            return FloorDiv(base.args[0], base.args[1] * divisor)
        if isinstance(base, sympy.Add):
            # floor((a + k*d) / d) == floor(a / d) + k for integers a, k
            whole, rest = [], []
            for term in base.args:
                coeff, _ = term.as_coeff_Mul()
                (whole if _divisible(term, divisor) and coeff != 0 else rest).append(term)
            if whole:
                return sum((sympy.cancel(t / divisor) for t in whole), sympy.Integer(0)) + FloorDiv(
                    sympy.Add(*rest), divisor
                )
        if _divisible(base, divisor):
            return sympy.cancel(base / divisor)
        return None

    def _eval_is_nonnegative(self) -> bool | None:
        return self.args[0].is_nonnegative  # the divisor is positive


class ModularIndexing(sympy.Function):
    """``(base // divisor) % modulus`` for a non-negative base and positive divisor and modulus."""

    nargs = (3,)
    is_integer = True

    @classmethod
    def eval(cls, base: Expr, divisor: Expr, modulus: Expr) -> Expr | None:  # type: ignore[override]
        if modulus == 1 or base == 0:
            return sympy.Integer(0)
        if all(isinstance(a, sympy.Integer) for a in (base, divisor, modulus)):
            return sympy.Integer((int(base) // int(divisor)) % int(modulus))
        if isinstance(base, FloorDiv):
            return ModularIndexing(base.args[0], base.args[1] * divisor, modulus)
        if isinstance(base, sympy.Add):
            # terms that are multiples of divisor*modulus do not change the result
            period = divisor * modulus
            kept = [t for t in base.args if not _divisible(t, period)]
            if len(kept) != len(base.args):
                return ModularIndexing(sympy.Add(*kept), divisor, modulus)
        return None

    def _eval_is_nonnegative(self) -> bool:
        return True  # floor semantics with a positive modulus


Interval = tuple[int, int]


def bounds(expr: Expr, ranges: Mapping[sympy.Symbol, int]) -> Interval | None:
    """Inclusive ``(low, high)`` of ``expr`` when every symbol ``s`` lies in ``[0, ranges[s])``."""
    if isinstance(expr, sympy.Integer):
        return int(expr), int(expr)
    if isinstance(expr, sympy.Symbol):
        size = ranges.get(expr)
        return (0, size - 1) if size is not None and size > 0 else None
    if isinstance(expr, sympy.Add):
        lo = hi = 0
        for term in expr.args:
            b = bounds(term, ranges)
            if b is None:
                return None
            lo, hi = lo + b[0], hi + b[1]
        return lo, hi
    if isinstance(expr, sympy.Mul):
        lo = hi = 1
        for factor in expr.args:
            b = bounds(factor, ranges)
            if b is None:
                return None
            corners = [lo * b[0], lo * b[1], hi * b[0], hi * b[1]]
            lo, hi = min(corners), max(corners)
        return lo, hi
    if isinstance(expr, FloorDiv):
        b, d = bounds(expr.args[0], ranges), static_int(expr.args[1])
        if b is None or d is None or d <= 0 or b[0] < 0:
            return None
        return b[0] // d, b[1] // d
    if isinstance(expr, ModularIndexing):
        m = static_int(expr.args[2])
        if m is None:
            return None
        b, d = bounds(expr.args[0], ranges), static_int(expr.args[1])
        if b is not None and d is not None and d > 0 and b[0] >= 0 and b[1] // d < m:
            return b[0] // d, b[1] // d
        return 0, m - 1
    return None


def _upper(expr: Expr, ranges: Mapping[sympy.Symbol, Expr]) -> Expr | None:
    """A symbolic exclusive upper bound of a non-negative ``expr`` (sizes are expressions), or None."""
    if isinstance(expr, sympy.Symbol):
        return ranges.get(expr)
    if isinstance(expr, FloorDiv):
        inner = _upper(expr.args[0], ranges)
        if inner is not None and _divisible(inner, expr.args[1]):
            return sympy.cancel(inner / expr.args[1])
        return None
    if isinstance(expr, ModularIndexing):
        return expr.args[2]
    return None


def _at_most(a: Expr, b: Expr) -> bool:
    """``a <= b`` for every value of the (positive) size symbols: ``b / a`` is a positive monomial."""
    if sympy.expand(a - b) == 0:
        return True
    quotient = sympy.cancel(b / a)
    coeff, rest = quotient.as_coeff_Mul()
    if not isinstance(coeff, sympy.Integer) or coeff < 1:
        return False
    return all(isinstance(f, sympy.Symbol) or (isinstance(f, sympy.Pow) and isinstance(f.args[0], sympy.Symbol)
                                                and isinstance(f.args[1], sympy.Integer) and f.args[1] > 0)
               for f in sympy.Mul.make_args(rest) if f != 1)  # fmt: skip


def _range_rewrite(expr: Expr, ranges: Mapping[sympy.Symbol, int], symbolic: Mapping[sympy.Symbol, Expr]) -> Expr:
    """Drop ``%``/``//`` that the ranges of their bases make no-ops."""

    def visit(e: Expr) -> Expr:
        if not e.args:
            return e
        args = [visit(a) for a in e.args]
        e = e.func(*args) if tuple(args) != e.args else e
        if isinstance(e, sympy.Add):
            e = _merge_terms(e)
        if isinstance(e, ModularIndexing):
            base, divisor, modulus = e.args
            b = bounds(base, ranges)
            if b is not None and b[0] >= 0:
                period = static_int(divisor * modulus)
                if period is not None and b[1] < period:
                    return FloorDiv(base, divisor)
            upper = _upper(base, symbolic) if symbolic else None
            if upper is not None and _at_most(upper, divisor * modulus):
                return FloorDiv(base, divisor)
        if isinstance(e, FloorDiv):
            b, d = bounds(e.args[0], ranges), static_int(e.args[1])
            if b is not None and d is not None and 0 <= b[0] and b[1] < d:
                return sympy.Integer(0)
            upper = _upper(e.args[0], symbolic) if symbolic else None
            if upper is not None and _at_most(upper, e.args[1]):
                return sympy.Integer(0)
        return e

    return visit(expr)


def _split_term(term: Expr) -> tuple[Expr, Expr] | None:
    """``(coefficient, atom)`` for a term that is a coefficient times one FloorDiv/ModularIndexing."""
    atoms = [f for f in sympy.Mul.make_args(term) if isinstance(f, (FloorDiv, ModularIndexing))]
    if len(atoms) != 1:
        return None
    atom = atoms[0]
    return sympy.cancel(term / atom), atom


def _merge_pair(a: tuple[Expr, Expr], b: tuple[Expr, Expr]) -> Expr | None:
    """``c*MI(x, d, m) + c*m*MI(x, d*m, n) == c*MI(x, d, m*n)`` and the FloorDiv form of it."""
    (c1, lo), (c2, hi) = a, b
    if not isinstance(lo, ModularIndexing) or lo.args[0] != hi.args[0]:
        return None
    x, d, m = lo.args
    if sympy.expand(hi.args[1] - d * m) != 0 or sympy.expand(c2 - c1 * m) != 0:
        return None
    if isinstance(hi, FloorDiv):
        return c1 * FloorDiv(x, d)
    return c1 * ModularIndexing(x, d, m * hi.args[2])


def _merge_terms(expr: Expr) -> Expr:
    """Recombine the digits of one base split by row-major unravelling: ``8*(x//8) + x%8 -> x``."""
    if not isinstance(expr, sympy.Add):
        return expr
    terms = list(expr.args)
    changed = True
    while changed:
        changed = False
        split = [_split_term(t) for t in terms]
        for i, a in enumerate(split):
            if a is None:
                continue
            for j, b in enumerate(split):
                if i == j or b is None:
                    continue
                merged = _merge_pair(a, b)
                if merged is not None:
                    terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [merged]
                    changed = True
                    break
            if changed:
                break
    return sympy.Add(*terms)


@functools.lru_cache(maxsize=8192)
def _simplify_cached(
    expr: Expr, ranges: tuple[tuple[sympy.Symbol, int], ...], symbolic: tuple[tuple[sympy.Symbol, Expr], ...] = ()
) -> Expr:
    rng, sym_rng = dict(ranges), dict(symbolic)
    current = sympy.expand(expr)
    for _ in range(8):
        nxt = _range_rewrite(_merge_terms(current), rng, sym_rng)
        nxt = sympy.expand(nxt)
        if nxt == current:
            break
        current = nxt
    return current


def simplify(expr: int | Expr, ranges: Mapping[sympy.Symbol, int | Expr] | None = None) -> Expr:
    """Canonical, simplified form of an index expression under ``symbol in [0, ranges[symbol])``."""
    expr = as_expr(expr)
    items = sorted((ranges or {}).items(), key=lambda p: p[0].name)
    static = tuple((s, int(r)) for s, r in items if static_int(r) is not None)
    # symbolic ranges (dynamic shapes) only feed rules that hold for every value of the size symbols
    symbolic = tuple((s, as_expr(r)) for s, r in items if static_int(r) is None)
    return _simplify_cached(expr, static, symbolic)


def unravel(flat: Expr, sizes: Sequence[Expr], numel_range: Mapping[sympy.Symbol, int | Expr]) -> list[Expr]:
    """Row-major coordinates of ``flat`` in a tensor of ``sizes``, simplified under ``numel_range``."""
    out: list[Expr] = []
    inner: Expr = sympy.Integer(1)
    for size in reversed(sizes):
        size = as_expr(size)
        out.append(simplify(ModularIndexing(flat, inner, size), numel_range) if size != 1 else sympy.Integer(0))
        inner = inner * size
    return out[::-1]


class _TritonPrinter:
    """Prints an index expression as Triton/Python source. ``//`` and ``%`` take a positive right operand;
    a left operand not provably non-negative is printed in a form that floors in every language."""

    floordiv = " // "

    def __init__(self, names: Mapping[Expr, str] | None = None) -> None:
        self.names = dict(names or {})

    def __call__(self, expr: Expr) -> str:
        return self.doprint(expr)

    def doprint(self, expr: Expr) -> str:
        if expr in self.names:
            return self.names[expr]
        if isinstance(expr, sympy.Integer):
            return str(int(expr))
        if isinstance(expr, sympy.Symbol):
            return expr.name
        if isinstance(expr, sympy.Add):
            terms = sorted(expr.args, key=sympy.default_sort_key)
            text = self.doprint(terms[0])
            for term in terms[1:]:
                coeff, rest = term.as_coeff_Mul()
                if coeff < 0:
                    text += " - " + self._factor(-term)
                else:
                    text += " + " + self.doprint(term)
            return text
        if isinstance(expr, sympy.Mul):
            coeff, rest = expr.as_coeff_Mul()
            if coeff == -1:
                return "-" + self._factor(rest)
            return "*".join(self._factor(f) for f in expr.args)
        if isinstance(expr, FloorDiv):
            base, divisor = expr.args
            if base.is_nonnegative is not True:
                return f"({self._factor(base)} - {self._floor_mod(self._factor(base), divisor)}){self.floordiv}{self._right(divisor)}"
            return f"{self._factor(base)}{self.floordiv}{self._right(divisor)}"
        if isinstance(expr, ModularIndexing):
            base, divisor, modulus = expr.args
            if base.is_nonnegative is not True:
                inner = self._factor(base) if divisor == 1 else f"({self.doprint(FloorDiv(base, divisor))})"
                return self._floor_mod(inner, modulus)
            inner = self._factor(base) if divisor == 1 else f"({self._factor(base)}{self.floordiv}{self._right(divisor)})"
            return f"{inner} % {self._right(modulus)}"
        if isinstance(expr, (sympy.Min, sympy.Max)):  # sizes only (host code; kernels get them as arguments)
            name = "min" if isinstance(expr, sympy.Min) else "max"
            return f"{name}({', '.join(self.doprint(a) for a in sorted(expr.args, key=sympy.default_sort_key))})"
        if isinstance(expr, sympy.Pow) and isinstance(expr.args[1], sympy.Integer) and int(expr.args[1]) > 0:
            return "*".join([self._factor(expr.args[0])] * int(expr.args[1]))
        raise NotImplementedError(f"cannot print index expression {expr!r}")

    def _floor_mod(self, operand: str, modulus: Expr) -> str:
        """``operand`` modulo a positive ``modulus`` with floor semantics whatever the operand's sign, in a
        form C's and Triton's truncating ``%`` compute right too (a size expression whose sympy form went
        negative: ``(4 - s0 % 4) % 4`` simplifies to ``(-(s0 % 4)) % 4``)."""
        m = self._right(modulus)
        return f"(({operand} % {m} + {m}) % {m})"

    def _right(self, expr: Expr) -> str:
        """The right operand of ``//`` or ``%``: anything but a name or a number in parentheses
        (``x // (16*s1)``, not ``x // 16*s1``, which Python reads as ``(x // 16)*s1``)."""
        text = self.doprint(expr)
        if expr in self.names or isinstance(expr, (sympy.Integer, sympy.Symbol)):
            return text
        return f"({text})"

    def _factor(self, expr: Expr) -> str:
        text = self.doprint(expr)
        if isinstance(expr, (sympy.Add, FloorDiv, ModularIndexing)) and expr not in self.names:
            return f"({text})"
        if isinstance(expr, sympy.Mul) and expr not in self.names and expr.as_coeff_Mul()[0] < 0:
            return f"({text})"
        return text


def texpr(expr: Expr, names: Mapping[Expr, str] | None = None) -> str:
    """Source text of an index expression; ``names`` replaces sub-expressions by variable names."""
    return _TritonPrinter(names)(as_expr(expr))


class _CPrinter(_TritonPrinter):
    """Index expressions as C over ``int64_t``: where the left operand of ``//`` is non-negative, C's
    truncating ``/`` is floor division (other operands are printed in a flooring form, as for Triton)."""

    floordiv = " / "


def cexpr(expr: Expr, names: Mapping[Expr, str] | None = None) -> str:
    """C source of an index expression (``int64_t`` arithmetic); ``names`` as for :func:`texpr`."""
    return _CPrinter(names)(as_expr(expr))
