"""How a pointwise kernel's flat loop is walked: split into rows (``xo``, ``xi``) so that its addresses' ``%``
and ``//`` become loop variables, in 16x16 tiles when it reads a transposed tensor, or vectorised across rows
when those rows are shorter than a vector."""

from __future__ import annotations

import re
from typing import Any

import sympy

from ..kernels import symbols
from ..kernels.symbols import XINDEX, FloorDiv, ModularIndexing

TILE = 16  # rows and columns of a tile (a transposed read uses each 64-byte cache line 16 times)
XO = sympy.Symbol("xo", integer=True, nonnegative=True)  # the row of a split pointwise loop
XI = sympy.Symbol("xi", integer=True, nonnegative=True)  # the element in the row
RO = sympy.Symbol("ro", integer=True, nonnegative=True)  # a split reduction row: the outer loop
RI = sympy.Symbol("ri", integer=True, nonnegative=True)  # the element in it (the vector loop)
MIN_ROW = 16  # a split row shorter than this would leave the vector loop mostly empty


def row_length(atoms: set[sympy.Expr], xnumel: Any) -> int | None:
    """The row length to split a pointwise loop by: the smallest divisor (at least :data:`MIN_ROW`, dividing
    ``xnumel``) among the ``xindex // d`` and ``xindex % m`` of its addresses; None when there are none."""
    numel = symbols.static_int(xnumel)
    if numel is None:
        return None
    candidates = []
    for atom in atoms:
        if isinstance(atom, FloorDiv):
            length = atom.args[1]
        else:
            _, divisor, modulus = atom.args
            length = divisor if divisor != 1 else modulus
        if isinstance(length, sympy.Integer) and MIN_ROW <= int(length) <= numel and numel % int(length) == 0:
            candidates.append(int(length))
    return min(candidates) if candidates else None


def transposed_row_length(indices: list[sympy.Expr], xnumel: Any) -> int | None:
    """The row length to tile a pointwise kernel's flat loop by, when one of its reads jumps by more than
    one element from one ``xindex`` to the next inside a row (a transposed read); else None.

    Static sizes only: the row length ``L`` is that of a ``ModularIndexing(xindex, 1, L)`` in the read's
    address (the innermost dim it walks), and it must divide ``xnumel``."""
    numel = symbols.static_int(xnumel)
    if numel is None:
        return None
    for index in indices:
        for atom in sorted(index.atoms(ModularIndexing), key=str):
            base, divisor, length = atom.args
            if base != XINDEX or divisor != 1 or not isinstance(length, sympy.Integer):
                continue
            length = int(length)
            if length < 2 * TILE or numel % length or numel // length < 2:
                continue
            step = [index.subs(XINDEX, k) for k in (0, 1)]
            if not all(isinstance(v, sympy.Integer) for v in step) or index.free_symbols - {XINDEX}:
                continue
            if abs(int(step[1]) - int(step[0])) > 1:
                return length
    return None


def short_row_length(indices: list[sympy.Expr], xnumel: Any) -> int | None:
    """The length ``m`` (2 to :data:`MIN_ROW` - 1) of a pointwise kernel's rows when one of its reads jumps by
    more than one element from one ``xindex`` to the next inside a row of ``xindex % m`` (a transposed read
    of rows shorter than a vector: an image batch copied to channels-last, ``[N, 3, H, W]`` to ``[N, H, W,
    3]``), ``m`` dividing ``xnumel``; else None. Such a kernel vectorises across rows (:func:`row_loops`)."""
    numel = symbols.static_int(xnumel)
    if numel is None:
        return None
    for index in indices:
        if index.free_symbols - {XINDEX}:
            continue
        for atom in sorted(index.atoms(ModularIndexing), key=str):
            base, divisor, length = atom.args
            if base != XINDEX or divisor != 1 or not isinstance(length, sympy.Integer):
                continue
            if not 2 <= int(length) < MIN_ROW or numel % int(length):
                continue
            step = [index.subs(XINDEX, k) for k in (0, 1)]
            if all(isinstance(v, sympy.Integer) for v in step) and abs(int(step[1]) - int(step[0])) > 1:
                return int(length)
    return None


def row_loops(length: int, tiled: bool) -> tuple[list[str], str]:
    """The loops opening a split pointwise kernel's body (rows of ``length`` elements: ``xo`` the row, ``xi``
    the element) and the text closing them: the vector loop over a row's elements; with ``tiled``, 16x16
    tiles (a transposed read: each cache line read used 16 times) or, for rows shorter than :data:`MIN_ROW`
    (:func:`short_row_length`), the vector loop over the rows with each row's few elements inside (gcc
    unrolls them: a vector of 16 rows reads 16 consecutive elements of each source row and interleaves
    them). Copying a ``[8, 3, 32, 32]`` batch to channels-last took 23.6 µs as rows of 3072 (an int64
    ``xi / 3`` and ``xi % 3`` per element and a gather), 7.0 µs so (1 thread)."""
    if tiled and length < MIN_ROW:
        return [
            "#pragma omp simd",
            f"    for (int64_t xo = x_begin / {length}; xo < x_end / {length}; xo++) {{",
            f"    for (int64_t xi = 0; xi < {length}; xi++) {{",
        ], "    }}"
    if tiled:
        return [
            f"    int64_t xo_end = x_end / {length};",
            f"    for (int64_t xo0 = x_begin / {length}; xo0 < xo_end; xo0 += {TILE})",
            f"    for (int64_t xi0 = 0; xi0 < {length}; xi0 += {TILE}) {{",
            f"    int64_t xo_stop = xo0 + {TILE} < xo_end ? xo0 + {TILE} : xo_end;",
            f"    int64_t xi_stop = xi0 + {TILE} < {length} ? xi0 + {TILE} : {length};",
            "    for (int64_t xo = xo0; xo < xo_stop; xo++) {",
            "#pragma omp simd",
            "    for (int64_t xi = xi0; xi < xi_stop; xi++) {",
        ], "    }}}"
    return [
        f"    for (int64_t xo = x_begin / {length}; xo < x_end / {length}; xo++) {{",
        "#pragma omp simd",
        f"    for (int64_t xi = 0; xi < {length}; xi++) {{",
    ], "    }}"


def _whole_rows(e: sympy.Expr, outer: sympy.Symbol, inner: sympy.Symbol, length: int) -> sympy.Expr | None:
    """``(length*outer + inner + length*c) // d`` as ``(outer + c) // (d / length)`` when ``length`` divides
    ``d`` (``0 <= inner < length`` cannot carry into the quotient), and the same for ``ModularIndexing``;
    None when ``e`` is not of that form. A row's ``(xi + 64*xo) // 12288`` is ``xo // 192``: no division in
    the vector loop."""
    base, divisor = e.args[0], e.args[1]
    if not isinstance(divisor, sympy.Integer) or int(divisor) % length:
        return None
    rest = sympy.expand(base - length * outer - inner)
    if rest.free_symbols & {outer, inner}:
        return None
    shift = sympy.expand(rest / length)
    if not all(isinstance(term.as_coeff_Mul()[0], sympy.Integer) for term in sympy.Add.make_args(shift)):
        return None  # a shift that is not a whole number of rows can carry
    quotient_base = outer + shift
    if isinstance(e, FloorDiv):
        return FloorDiv(quotient_base, int(divisor) // length)
    return ModularIndexing(quotient_base, int(divisor) // length, e.args[2])


def split_index(expr: sympy.Expr, index: sympy.Symbol, outer: sympy.Symbol, inner: sympy.Symbol, length: int,
                ranges: dict[sympy.Symbol, Any]) -> sympy.Expr:  # fmt: skip
    """``expr`` with ``index = outer * length + inner``, simplified under ``ranges``.

    ``(i // d) % m`` is first rewritten over its quotient (``ModularIndexing(i // d, 1, m)``) wherever the
    quotient simplifies, so that a batch norm's channel ``(xindex // 1024) % 32`` becomes ``xo % 32`` (a
    scalar of the outer loop) rather than an int64 division and a gather per element of the vector loop."""
    expr = expr.xreplace({index: length * outer + inner})

    def quotient_first(e: sympy.Expr) -> sympy.Expr:
        if not e.args:
            return e
        args = [quotient_first(a) for a in e.args]
        e = e.func(*args) if tuple(args) != e.args else e
        if isinstance(e, (FloorDiv, ModularIndexing)):
            whole = _whole_rows(e, outer, inner, length)
            if whole is not None:
                return whole
        if isinstance(e, ModularIndexing) and e.args[1] != 1:
            base, divisor, modulus = e.args
            quotient = symbols.simplify(FloorDiv(base, divisor), ranges)
            if not isinstance(quotient, FloorDiv):  # it simplified: the division is gone
                return ModularIndexing(quotient, 1, modulus)
        return e

    return symbols.simplify(quotient_first(expr), ranges)


_DECLARATION = re.compile(r"^\s*(?:const )?\w+ (\w+) = ")
_WORD = re.compile(r"\b\w+\b")


def hoist_invariant(lines: list[str], inner: set[str]) -> tuple[list[str], list[str]]:
    """``lines`` (an inner loop's body) split into the declarations that read none of the ``inner`` loop's
    variables, directly or through another declaration (computed once per outer iteration), and the rest.

    A per-channel value of a split reduction row (``buf0[64*ro + xindex] / 256.0f``) read inside the vector
    loop over ``ri`` kept gcc from vectorising that loop at all (``no vectype for stmt``)."""
    variant = set(inner)
    hoisted: list[str] = []
    kept: list[str] = []
    for line in lines:
        declared = _DECLARATION.match(line)
        if declared and not (set(_WORD.findall(line)) - {declared.group(1)}) & variant:
            hoisted.append(line)
            continue
        if declared:
            variant.add(declared.group(1))
        kept.append(line)
    return hoisted, kept
