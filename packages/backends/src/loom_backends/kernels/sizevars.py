"""Symbolic sizes (dynamic shapes): loom's names for a graph's size symbols and where the host finds them.

A graph over symbolic sizes (its placeholders' FakeTensors have ``SymInt`` sizes from PyTorch's
``ShapeEnv``, some inputs may be ``SymInt`` s) is compiled once for every size. Each ShapeEnv symbol
becomes one of loom's index symbols (``s0``, ``s1``, ... in the order the graph's inputs first show
them, so the generated source does not depend on the ShapeEnv's own numbering or on the traced sizes);
the host code computes it from the actual inputs at call time (``s0 = arg0.shape[0]``) and passes it to
the kernels that use it.

Only *decisions that hold for every size* are taken on these expressions: structural equality
(``3*s0 == 3*s0``), divisibility, and bounds the ShapeEnv knows (``s0 >= 2``: sizes 0 and 1 never reach
a dynamic graph). Nothing here evaluates a ``SymInt`` to an int, which would add a guard to the
translator's ShapeEnv; the traced sizes (hints) only feed statistics (bytes moved), never code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import sympy
import torch

from . import symbols
from .symbols import Expr, FloorDiv, ModularIndexing


class SymbolicSizeError(Exception):
    """A symbolic size the backend cannot express (the caller turns it into a whole-graph fallback)."""


def is_symbolic(value: Any) -> bool:
    """A ``SymInt``/``SymFloat``/``SymBool`` whose value is not fixed."""
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return not value.node.expr.is_number
    return False


def tensor_is_symbolic(t: torch.Tensor) -> bool:
    try:
        return any(is_symbolic(s) for s in (*t.shape, *t.stride(), t.storage_offset()))
    except Exception:  # e.g. sparse tensors without strides
        return False


def symbol_order(symbol: sympy.Symbol) -> tuple[int, int, str]:
    """Sort key putting ``s2`` before ``s10``."""
    return size_arg_order(symbol.name)


def size_arg_order(name: str) -> tuple[int, int, str]:
    """Sort key for kernel size arguments: ``s0, s1, ..., s10, ks0, ks1, ...``."""
    match = re.fullmatch(r"(k?)s(\d+)", name)
    return (len(match.group(1)), int(match.group(2)), "") if match else (2, 0, name)


class SizeVars:
    """The size symbols of one graph: loom's names, the host text computing each, hints and bounds."""

    def __init__(self) -> None:
        self.shape_env: Any = None
        self._loom: dict[sympy.Symbol, sympy.Symbol] = {}  # ShapeEnv symbol -> loom symbol
        self._torch: dict[sympy.Symbol, sympy.Symbol] = {}  # loom symbol -> ShapeEnv symbol
        self.sources: dict[sympy.Symbol, str] = {}  # loom symbol -> host expression computing it
        self.frozen = False

    # ------------------------------------------------------------------------------------ state
    @property
    def dynamic(self) -> bool:
        return bool(self._loom)

    def attach(self, value: Any) -> None:
        """Remember the ShapeEnv behind ``value`` (a FakeTensor or SymInt), if it has one."""
        if self.shape_env is not None:
            return
        if isinstance(value, torch.Tensor):
            mode = getattr(value, "fake_mode", None)
            env = getattr(mode, "shape_env", None)
            if env is None:
                for s in value.shape:
                    if isinstance(s, torch.SymInt):
                        env = s.node.shape_env
                        break
            self.shape_env = env
        elif isinstance(value, torch.SymInt):
            self.shape_env = value.node.shape_env

    @property
    def symbols(self) -> list[sympy.Symbol]:
        """Every loom size symbol, in order."""
        return sorted(self._torch, key=symbol_order)

    def bound(self) -> list[tuple[sympy.Symbol, str]]:
        """``(symbol, host text)`` for every symbol the host computes, in order."""
        return sorted(self.sources.items(), key=lambda p: symbol_order(p[0]))

    def bind(self, expr: Expr, text: str) -> None:
        """If ``expr`` is a bare symbol not yet bound, the host computes it as ``text``."""
        if isinstance(expr, sympy.Symbol) and expr in self._torch and expr not in self.sources:
            self.sources[expr] = text

    def bind_multiple(self, expr: Expr, text: str) -> None:
        """``c*s`` with ``s`` unbound: the host computes ``s`` as ``text // c``."""
        if isinstance(expr, sympy.Mul) and len(expr.args) == 2:
            coeff, rest = expr.as_coeff_Mul()
            if isinstance(rest, sympy.Symbol) and rest in self._torch and rest not in self.sources and coeff > 1:
                self.sources[rest] = f"{text} // {int(coeff)}"

    def freeze(self) -> None:
        """After the inputs: every symbol must have a host source; new symbols are refused from now on."""
        self.frozen = True
        missing = [s.name for s in self.symbols if s not in self.sources]
        if missing:
            raise SymbolicSizeError(f"size symbols {missing} cannot be computed from the graph's inputs")

    # ------------------------------------------------------------------------------ conversion
    def expr(self, value: Any) -> Expr:
        """loom's index expression for an int, a SymInt or a ShapeEnv expression."""
        if isinstance(value, bool):
            raise SymbolicSizeError("a bool where a size was expected")
        if isinstance(value, int):
            return sympy.Integer(value)
        if isinstance(value, torch.SymInt):
            return self.convert(value.node.expr)
        if isinstance(value, sympy.Basic):
            return self.convert(value)
        raise SymbolicSizeError(f"not a size: {type(value).__name__}")

    def try_expr(self, value: Any) -> Expr | None:
        try:
            return self.expr(value)
        except SymbolicSizeError:
            return None

    def value(self, value: Any) -> Any:
        """``value`` with loom expressions for SymInts (ints stay ints), for rules' arguments."""
        if isinstance(value, torch.SymInt):
            e = self.expr(value)
            return int(e) if isinstance(e, sympy.Integer) else e
        return value

    def exprs(self, values: Iterable[Any]) -> tuple[Expr, ...]:
        return tuple(self.expr(v) for v in values)

    def convert(self, e: sympy.Basic) -> Expr:
        from torch.utils._sympy import functions as F

        if isinstance(e, sympy.Integer):
            return sympy.Integer(int(e))
        if e.is_number:
            raise SymbolicSizeError(f"non-integer size {e}")
        if isinstance(e, sympy.Symbol):
            return self._symbol(e)
        args = [self.convert(a) for a in e.args] if not isinstance(e, sympy.Pow) else None
        if isinstance(e, sympy.Add):
            return sympy.Add(*args)  # type: ignore[misc]
        if isinstance(e, sympy.Mul):
            return sympy.Mul(*args)  # type: ignore[misc]
        if isinstance(e, sympy.Pow) or isinstance(e, F.PowByNatural):
            base, exp = e.args
            if isinstance(exp, sympy.Integer) and int(exp) > 0:
                return self.convert(base) ** int(exp)
            raise SymbolicSizeError(f"size expression {e}")
        if isinstance(e, (F.FloorDiv, F.CleanDiv)):
            return FloorDiv(*args)  # type: ignore[misc]
        if isinstance(e, F.ModularIndexing):
            return ModularIndexing(*args)  # type: ignore[misc]
        if isinstance(e, (F.Mod, F.PythonMod)):  # sizes are non-negative: Python's % is ModularIndexing
            return ModularIndexing(args[0], sympy.Integer(1), args[1])  # type: ignore[index]
        if isinstance(e, (F.Min, sympy.Min)):  # e.g. a clamped slice or a diagonal's length
            return sympy.Min(*args)  # type: ignore[misc]
        if isinstance(e, (F.Max, sympy.Max)):
            return sympy.Max(*args)  # type: ignore[misc]
        raise SymbolicSizeError(f"size expression {e} ({type(e).__name__})")

    def _symbol(self, s: sympy.Symbol) -> sympy.Symbol:
        mine = self._loom.get(s)
        if mine is None:
            if self.frozen:
                raise SymbolicSizeError(f"size symbol {s} is not computed from the graph's inputs")
            mine = symbols.sym(f"s{len(self._loom)}")
            self._loom[s] = mine
            self._torch[mine] = s
        return mine

    # ------------------------------------------------------------------------------- knowledge
    def to_torch(self, expr: Expr) -> sympy.Expr | None:
        """The ShapeEnv's expression for one of loom's (its symbols, ``//`` and ``%``)."""
        from torch.utils._sympy import functions as F

        def visit(e: sympy.Basic) -> sympy.Basic:
            if isinstance(e, sympy.Symbol):
                t = self._torch.get(e)
                if t is None:
                    raise SymbolicSizeError(f"{e} is not a size symbol")
                return t
            if not e.args:
                return e
            args = [visit(a) for a in e.args]
            if isinstance(e, FloorDiv):
                return F.FloorDiv(*args)
            if isinstance(e, ModularIndexing):
                return F.ModularIndexing(*args)
            if isinstance(e, sympy.Min):
                return F.Min(*args)
            if isinstance(e, sympy.Max):
                return F.Max(*args)
            return e.func(*args)

        try:
            return visit(expr)  # type: ignore[return-value]
        except (SymbolicSizeError, TypeError):
            return None

    def bounds(self, expr: Expr) -> tuple[Any, Any]:
        """``(low, high)`` of ``expr`` over every size the ShapeEnv allows (None where unknown or infinite)."""
        if isinstance(expr, sympy.Rational):
            return expr, expr
        t = self.to_torch(expr)
        if t is None or self.shape_env is None:
            return None, None
        try:
            vr = self.shape_env.bound_sympy(t)
        except Exception:
            return None, None
        low = vr.lower if isinstance(vr.lower, sympy.Rational) else None
        high = vr.upper if isinstance(vr.upper, sympy.Rational) else None
        return low, high

    def provably_nonnegative(self, expr: Expr) -> bool:
        """``expr >= 0`` for every size the ShapeEnv allows (interval bounds, after replacing each
        ``a // d`` by ``(a - d + 1) / d`` or ``a / d``, whichever bounds the term from below)."""
        expr = sympy.expand(symbols.as_expr(expr))
        for candidate in (expr, _relax_floordiv(expr)):
            if candidate is None:
                continue
            low, _ = self.bounds(candidate)
            if low is not None and low >= 0:
                return True
        return False

    def provably_le(self, a: Any, b: Any) -> bool:
        return self.provably_nonnegative(symbols.as_expr(b) - symbols.as_expr(a))

    def hint(self, expr: Any) -> int | None:
        """The value at the traced sizes (statistics only: never used to choose code)."""
        expr = symbols.as_expr(expr)
        if isinstance(expr, sympy.Integer):
            return int(expr)
        env = self.shape_env
        if env is None:
            return None
        hints = getattr(env, "backed_var_to_val", None) or env.var_to_val
        subs = {}
        for mine in expr.free_symbols:
            t = self._torch.get(mine)  # type: ignore[call-overload]
            if t is None or t not in hints:
                return None
            subs[mine] = sympy.Integer(int(hints[t]))
        try:
            return int(expr.xreplace(subs))
        except (TypeError, ValueError):
            return None


def _relax_floordiv(expr: Expr) -> Expr | None:
    """A polynomial below ``expr`` everywhere: each ``c * (a // d)`` (``d`` a positive int) becomes
    ``c * (a - d + 1) / d`` when ``c > 0`` and ``c * a / d`` when ``c < 0``; None if ``expr`` has other
    non-polynomial parts."""
    if not expr.atoms(FloorDiv):
        return None
    out: Expr = sympy.Integer(0)
    for term in sympy.Add.make_args(expr):
        coeff, rest = term.as_coeff_Mul()
        if isinstance(rest, FloorDiv) and isinstance(rest.args[1], sympy.Integer) and rest.args[1] > 0:
            a, d = rest.args
            if rest.args[0].atoms(FloorDiv, ModularIndexing):
                return None
            out += coeff * ((a - d + 1) / d if coeff > 0 else a / d)
        elif term.atoms(FloorDiv, ModularIndexing, sympy.Min, sympy.Max):
            return None
        else:
            out += term
    return sympy.expand(out)
