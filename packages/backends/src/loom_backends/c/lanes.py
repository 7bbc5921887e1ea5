"""Floating-point sums over long rows in several independent vector accumulators.

A reduction loop ``#pragma omp simd reduction(+:acc1)`` gives gcc one vector accumulator: each vector add
waits for the one before it (3-4 cycles on this machine), so a sum of 4M floats in L3 ran at 1.35x eager's
time on one thread, where ATen's sum keeps four vector accumulators in flight. Here such a loop walks its
row in blocks of :data:`LANES` elements with one accumulator per element of a block (``acc1_lanes[64]``:
four AVX-512 registers of floats, which gcc keeps in registers), then the tail of the row in the original
loop; the lanes fold into the accumulator after the loop. The order of additions is fixed by the row's
length alone (never by threads or timing), and each lane sums a 64th of the row: as accurate as the
16-lane loop or more.

A loop takes this form when every reduction it computes is a floating-point sum and its row is at least
:data:`MIN_ROW` elements long (at run time for a symbolic length): below that, folding 64 lanes costs more
than the extra accumulators save (measured: docs/backends-c.md).
"""

from __future__ import annotations

import re
from typing import Any

from ..kernels import symbols

LANES = 64  # elements of a block: one accumulator each (4 AVX-512 vectors of floats, 8 of doubles)
FOLD = 16  # the lanes fold to this many (vector adds) before the scalar adds into the accumulator
MIN_ROW = 8192  # rows shorter than this keep the one-accumulator loop (4096: 1.09x its time, 8192: 0.67x)

_CLAUSE = re.compile(r"reduction\(([^:]+):(\w+)\)")
_FLOATING = ("float", "double")


def lane_sums(pragma: str | None, accumulators: list[Any], rnumel: Any) -> list[tuple[str, str]] | None:
    """(C type, name) of the accumulators of a loop (its ``pragma``) that can take lanes: every reduction
    clause a ``+`` on a float or double accumulator, and a row that may be :data:`MIN_ROW` long; else None."""
    if not pragma:
        return None
    length = symbols.static_int(rnumel)
    if length is not None and length < MIN_ROW:
        return None
    types = {acc.name: acc.ctype for acc in accumulators}
    clauses = _CLAUSE.findall(pragma)
    if not clauses or any(op != "+" or types.get(name) not in _FLOATING for op, name in clauses):
        return None
    return [(types[name], name) for _, name in clauses]


def lane_loop(pragma: str, inner: list[str], sums: list[tuple[str, str]], begin: str, end: str) -> list[str]:
    """The lines replacing ``pragma`` and ``for (rindex = begin; rindex < end; ...) { inner }``: blocks of
    :data:`LANES` elements into per-lane accumulators, the rest of the row in the original loop, the fold."""
    laned = list(inner)
    for _, acc in sums:
        pattern = re.compile(rf"^{acc} = {acc} \+ ")
        hits = [i for i, line in enumerate(laned) if pattern.match(line)]
        if len(hits) != 1:  # not the accumulation line the codegen writes: keep the plain loop
            return [pragma, f"for (int64_t rindex = {begin}; rindex < {end}; rindex++) {{", *("    " + x for x in inner), "}"]
        line = laned[hits[0]]
        laned[hits[0]] = f"{acc}_lanes[r_lane] = {acc}_lanes[r_lane] + " + line[len(f"{acc} = {acc} + "):]
    lanes = LANES
    fold = [f"{acc}_lanes[l] = ({acc}_lanes[l] + {acc}_lanes[l + {FOLD}]) + ({acc}_lanes[l + {2 * FOLD}] + {acc}_lanes[l + {3 * FOLD}]);"
            for _, acc in sums]  # fmt: skip
    assert lanes == 4 * FOLD
    span, start = (end, "") if begin == "0" else (f"({end} - {begin})", f"{begin} + ")
    return [
        "{",
        f"    int64_t r_split = {span} >= {MIN_ROW} ? {start}{span} / {lanes} * {lanes} : {begin};",
        *(f"    {t} {acc}_lanes[{lanes}] __attribute__((aligned(64)));" for t, acc in sums),
        "#pragma omp simd",
        f"    for (int64_t l = 0; l < {lanes}; l++) {{",
        *(f"        {acc}_lanes[l] = 0;" for _, acc in sums),
        "    }",
        f"    for (int64_t r_block = {begin}; r_block < r_split; r_block += {lanes}) {{",
        "#pragma omp simd",
        f"        for (int64_t r_lane = 0; r_lane < {lanes}; r_lane++) {{",
        *(["            int64_t rindex = r_block + r_lane;"] if any(re.search(r"\brindex\b", x) for x in laned) else []),
        *("            " + x for x in laned),
        "        }",
        "    }",
        pragma,
        f"    for (int64_t rindex = r_split; rindex < {end}; rindex++) {{",
        *("        " + x for x in inner),
        "    }",
        f"    if (r_split > {begin}) {{",
        "#pragma omp simd",
        f"        for (int64_t l = 0; l < {FOLD}; l++) {{",
        *("            " + x for x in fold),
        "        }",
        f"        for (int64_t l = 0; l < {FOLD}; l++) {{",
        *(f"            {acc} = {acc} + {acc}_lanes[l];" for _, acc in sums),
        "        }",
        "    }",
        "}",
    ]
