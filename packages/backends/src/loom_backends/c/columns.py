"""Column reductions: a reduction whose reads are contiguous from one row to the next, not along a row.

A sum over dim 0 of a row-major ``[N, C]`` tensor (a bias's or a layer norm weight's gradient) is ``C`` rows
of ``N`` elements each ``C`` apart. Walked row by row, the vector loop over a row gathers one float per
cache line (gcc leaves it scalar), and the kernel ran at a tenth of ATen's speed. Walked in blocks of
:data:`COLUMNS` rows with the reduction loop outside and the block's rows inside, each step of the
reduction reads a contiguous vector: the accumulators are arrays of the block's rows (what ATen's
``sum(dim=0)`` does with its vector accumulators).

Kernels of several loops (a batch norm's mean, variance and normalised output over a channels-last
``[N, H, W, C]`` tensor: each channel's elements ``C`` apart) take it too (:func:`staged_column_rows`): the
per-row values between the loops (the mean the variance's loop reads) become arrays of the block's rows.
Never with ``argmax``/``argmin`` (a scalar loop) or scratch rows.
"""

from __future__ import annotations

import re
from typing import Any

import sympy

from ..kernels import symbols
from ..kernels.symbols import RINDEX, XINDEX

COLUMNS = 32  # rows of a block: two AVX-512 vectors of float accumulators per reduction
CHUNK = 64  # elements of a column summed into a partial sum before it is added to the total


def _stride(index: sympy.Expr, symbol: sympy.Symbol) -> int | None:
    """How far ``index`` moves when ``symbol`` goes from 0 to 1 (the other index at 0); None if unknown."""
    at = {XINDEX: 0, RINDEX: 0}
    start = index.subs(at)
    step = index.subs({**at, symbol: 1})
    if not isinstance(start, sympy.Integer) or not isinstance(step, sympy.Integer):
        return None
    return int(step) - int(start)


def prefers_columns(indices: list[sympy.Expr], xnumel: Any) -> bool:
    """Whether more of a reduction's element reads are contiguous across rows (``xindex`` stride 1, another
    ``rindex`` stride) than along them (``rindex`` stride 1): then the kernel walks blocks of rows."""
    numel = symbols.static_int(xnumel)
    if numel is not None and numel < COLUMNS // 2:
        return False  # too few rows to fill a vector
    across = along = 0
    for index in indices:
        if index.free_symbols - {XINDEX, RINDEX} or RINDEX not in index.free_symbols:
            continue  # a per-row read, or one through an indirect index or a size (unknown strides)
        r_stride, x_stride = _stride(index, RINDEX), _stride(index, XINDEX)
        if r_stride == 1:
            along += 1
        elif x_stride == 1:
            across += 1
    return across > along


_DECLARATION = re.compile(r"^\s*(?:const )?\w+ (\w+) = ")
_ROW_NUMBER = re.compile(r"^\s*int64_t (\w+) = \(int64_t\)\(xindex\);$")
_COMPARISON = re.compile(r"^(\s*bool \w+ = )(\w+) (>=|<|>|<=) (-?\d+)L?;$")
# the first value of ``xindex`` a comparison's result changes at, given its constant
_EDGE = {">=": 0, "<": 0, ">": 1, "<=": 1}
_WORD = re.compile(r"\b\w+\b")


def without_unused(lines: list[str], others: list[str]) -> list[str]:
    """``lines`` without declarations of variables that neither they nor ``others`` read."""
    while True:
        counts: dict[str, int] = {}
        for word in _WORD.findall("\n".join([*lines, *others])):
            counts[word] = counts.get(word, 0) + 1
        kept = [line for line in lines if not ((m := _DECLARATION.match(line)) and counts[m.group(1)] == 1)]
        if len(kept) == len(lines):
            return lines
        lines = kept


def block_uniform(lines: list[str]) -> list[str]:
    """``lines`` with each comparison of the row number against a multiple of :data:`COLUMNS` (a ``cat``'s
    segment edges: ``tmp0 >= 384L`` of ``int64_t tmp0 = (int64_t)(xindex);``) made on ``x_block`` instead.

    Blocks start at multiples of :data:`COLUMNS` (``x_begin`` is 0 or a thread's share, a multiple of the
    grain), so such a comparison has one value over a block: on ``x_block`` it is loop-invariant, gcc
    unswitches the vector loop on it and each block reads only its own segment's source. Compared per
    element, every segment's load ran masked in every block: the block's q/k/v gradient ``cat`` with its
    bias gradient (576x256) took 166 µs against 48 µs so (ATen's ``cat`` and ``sum``: 59 µs)."""
    rows = {"xindex"} | {m.group(1) for line in lines if (m := _ROW_NUMBER.match(line))}
    out = []
    for line in lines:
        m = _COMPARISON.match(line)
        if m and m.group(2) in rows and (int(m.group(4)) + _EDGE[m.group(3)]) % COLUMNS == 0:
            line = f"{m.group(1)}x_block {m.group(3)} {m.group(4)}L;"
        out.append(block_index(line))
    return out


_QUOTIENT = re.compile(r"^(\s*int64_t \w+ = )(\(?)xindex / (\d+)(\)? % \d+)?;$")
_REMAINDER = re.compile(r"^(\s*int64_t \w+ = )xindex % (\d+);$")


def block_index(line: str) -> str:
    """``line`` with an index variable's ``xindex / d`` (``d`` a multiple of :data:`COLUMNS`, also under a
    ``% m``) made ``x_block / d``, and its ``xindex % m`` (``m`` a multiple of :data:`COLUMNS`) made
    ``x_block % m + xl``: a block of :data:`COLUMNS` rows starting at a multiple of :data:`COLUMNS` lies in
    one stretch of ``d`` (or ``m``) rows, so the quotient is one scalar per block and the remainder counts up
    with ``xl``. The per-channel values of a mean over a channels-last ``[N, H, W, C]`` tensor's ``H, W``
    (rows ``n*C + c``) are then contiguous vector loads, where ``xindex % 64`` per element made each a
    gather: the conv net's batch norm + ReLU + mean kernel took 4x inductor's time."""
    if (m := _QUOTIENT.match(line)) and int(m.group(3)) % COLUMNS == 0 and bool(m.group(2)) == bool(m.group(4)):
        return f"{m.group(1)}{m.group(2)}x_block / {m.group(3)}{m.group(4) or ''};"
    if (m := _REMAINDER.match(line)) and int(m.group(2)) % COLUMNS == 0:
        return f"{m.group(1)}x_block % {m.group(2)} + xl;"
    return line


def column_rows(header: list[str], before: list[str], pre: list[str], loop: list[str], post: list[str],
                sums: list[tuple[str, str]]) -> list[str]:  # fmt: skip
    """The body of a column reduction's rows function: blocks of :data:`COLUMNS` rows in
    ``[x_begin, x_end)``; per block the accumulators (``pre``), the reduction loop with the vector loop over
    the block's rows inside (each row's index variables and per-row values, ``header`` and ``before``,
    recomputed there: loads and arithmetic), then a vector loop writing the rows' results (``post``).

    Floating-point sums (``sums``: type and accumulator name) add :data:`CHUNK` elements into a partial
    sum (``acc3_part``) before adding that to the row's total, as the row-wise loop's vector lanes do: one
    running total over a long column lost precision against eager's cascade sum."""
    row = "int64_t xindex = x_block + xl;"
    after = without_unused(block_uniform([row, *header, *before, *post]), [])
    lines = [
        f"for (int64_t x_block = x_begin; x_block < x_end; x_block += {COLUMNS}) {{",
        f"    int64_t x_count = x_end - x_block < {COLUMNS} ? x_end - x_block : {COLUMNS};",
        *("    " + line for line in pre),
        *_column_loop([*header, *before], loop, sums),
    ]
    return [*lines, "#pragma omp simd", _VECTOR, *("        " + line for line in after), "    }", "}"]


_VECTOR = "    for (int64_t xl = 0; xl < x_count; xl++) {"


def _column_loop(header: list[str], loop: list[str], sums: list[tuple[str, str]], uniform: bool = True) -> list[str]:
    """One reduction loop of a block: the vector loop over the block's rows inside (each row's index variables
    and per-row values, ``header``, recomputed there); float sums chunked (see :func:`column_rows`).
    ``uniform``: blocks start at multiples of :data:`COLUMNS` (see :func:`block_uniform`)."""
    lines = ["int64_t xindex = x_block + xl;", *header, *loop]
    inner = without_unused(block_uniform(lines) if uniform else lines, [])
    reduction = ["#pragma omp simd", _VECTOR, *("        " + line for line in inner), "    }"]
    if not sums:
        return ["    for (int64_t rindex = 0; rindex < rnumel; rindex++) {", *reduction, "    }"]
    return [
        f"    for (int64_t r_chunk = 0; r_chunk < rnumel; r_chunk += {CHUNK}) {{",
        f"        int64_t r_end = rnumel - r_chunk < {CHUNK} ? rnumel : r_chunk + {CHUNK};",
        *(f"        {t} {name}_part[{COLUMNS}] = {{0}};" for t, name in sums),
        "        for (int64_t rindex = r_chunk; rindex < r_end; rindex++) {",
        *(line if line.startswith("#") else "    " + line for line in reduction),
        "        }",
        "#pragma omp simd",
        "    " + _VECTOR,
        *(f"            {name}[xl] += {name}_part[xl];" for _, name in sums),
        "        }",
        "    }",
    ]


_ROW_VALUE = re.compile(r"^((?:const )?\w+) (tmp\d+) = (.*)$")


def staged_column_rows(header: list[str], sections: list[tuple[str, Any]], sums: list[tuple[str, str]]) -> list[str]:
    """The body of a column reduction of several loops (``sections``: the row code before the first loop,
    then per loop its accumulators, the loop and the row code after it), blocks of :data:`COLUMNS` rows.

    Threads take multiples of half a block (:func:`column_grain`), so a block need not start at a multiple
    of :data:`COLUMNS` and row-number comparisons stay per element (no :func:`block_uniform`).

    Per block: the accumulators; each loop as in :func:`column_rows` (chunked float sums, each loop its own);
    each stretch of row code in a vector loop over the block's rows, its values stored into arrays of the
    block's rows (``tmp5[xl]``) that later loops and row code read. Each row's values are computed by the
    same expressions in the same order as in the row-wise form."""
    rows: dict[str, str] = {}  # row value -> its C type
    for kind, section in sections:
        if kind == "lines":
            for line in section:
                if m := _ROW_VALUE.match(line.strip()):
                    rows[m.group(2)] = m.group(1).removeprefix("const ")
    as_array = re.compile(r"\b(" + "|".join(map(re.escape, rows)) + r")\b(?!\[)") if rows else None

    def arrays(lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            m = _ROW_VALUE.match(line.strip())
            if m and m.group(2) in rows:
                line = f"{m.group(2)} = {m.group(3)}"
            out.append(as_array.sub(r"\1[xl]", line) if as_array else line)
        return out

    row = "int64_t xindex = x_block + xl;"
    lines = [
        f"for (int64_t x_block = x_begin; x_block < x_end; x_block += {COLUMNS}) {{",
        f"    int64_t x_count = x_end - x_block < {COLUMNS} ? x_end - x_block : {COLUMNS};",
        *(f"    {t} {name}[{COLUMNS}];" for name, t in rows.items()),
    ]
    for position, (kind, section) in enumerate(sections):
        if kind == "lines" and (position == 0 or sections[position - 1][0] == "loop"):  # row code
            code = without_unused([row, *header, *arrays(section)], [])
            lines += ["#pragma omp simd", _VECTOR, *("        " + line for line in code), "    }"] if code else []
        elif kind == "lines":  # a loop's accumulators
            lines += ["    " + line for line in section]
        else:
            _, scope = section
            body = arrays([*scope.header, *scope.lines])
            mine = [(t, name) for t, name in sums if any(f"{name}_part[xl]" in line for line in body)]
            lines += _column_loop(header, body, mine, uniform=False)
    return [*lines, "}"]


def column_body(header: list[str], sections: list[tuple[str, Any]], sums: list[tuple[str, str]]) -> list[str]:
    """A column reduction's rows function body: :func:`column_rows` for one loop, else
    :func:`staged_column_rows`."""
    if len(sections) == 4:
        (_, before), (_, pre), (_, (_, loop)), (_, post) = sections
        return column_rows(header, before, pre, [*loop.header, *loop.lines], post, sums)
    return staged_column_rows(header, sections, sums)


def column_grain(sections: list[tuple[str, Any]]) -> int:
    """Rows per thread share of a column reduction: whole blocks for one loop (:func:`block_uniform` needs
    them); half blocks (one AVX-512 vector of floats) for several, so that a batch norm over 32 channels
    still splits between 2 threads."""
    return COLUMNS if len(sections) == 4 else COLUMNS // 2
