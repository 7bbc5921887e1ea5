"""Full reductions (every element to one value: ``x.sum()``, ``loss.mean()``, ``(a * b).sum()``) split across
threads.

A reduction kernel goes parallel over its rows; a full reduction has one row, so it ran on one thread. When
the row is at least ``config.c_parallel_min_elements`` long (the threshold of every parallel loop), the
kernel gets a second form: each thread reduces a contiguous chunk of the row (``loom_thread_range``, whole
vectors) into its own partial accumulators with the same ``omp simd`` loop as the serial form (so a float
sum keeps its vector lanes' partial sums), then one thread combines the partials in thread order and runs
the row's code after the loop (a mean's division, the NaN flag of a max, the stores). The result depends
only on the number of threads, never on their scheduling.

A kernel of several reduction loops (a variance's two passes, a softmax over every element) runs all of them
in one parallel region (:func:`staged_source`): each thread reduces its chunk in the first loop, the threads
meet at a barrier, and *every* thread combines all the partials in thread order (so each holds the same
row values: the mean a variance's second pass reads) before its chunk of the next loop; thread 0 alone
stores the row's results. Kernels with column blocks, split rows or scratch rows keep the serial form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..kernels import symbols
from .columns import without_unused
from .lanes import lane_loop, lane_sums

GRAIN = 64  # each thread's chunk of the row: whole vectors


@dataclass
class Accumulator:
    """One reduction's accumulator in the generated loop, and how two partial results of it combine."""

    kind: str  # sum, prod, max, min, argmax, argmin
    name: str  # the C variable (``acc3``)
    ctype: str
    init: str  # its identity (also the partial of a thread given no elements)
    op: str  # sum/prod: the C operator (``+``, ``*``, ``|``, ``&`` for bools); else unused
    nan: str | None = None  # a floating max/min: the NaN flag reduced beside it
    floating: bool = False

    def parts(self) -> list[tuple[str, str, str]]:
        """(C type, variable, identity) of each value a thread hands back."""
        out = [(self.ctype, self.name, self.init)]
        if self.nan is not None:
            out.append(("int", self.nan, "0"))
        if self.kind in ("argmax", "argmin"):
            out.append(("int64_t", f"{self.name}_index", "0"))
        return out

    def combine(self, t: str = "t") -> list[str]:
        """Lines folding thread ``t``'s partial (``acc3_parts[t]``) into the accumulator."""
        acc, part = self.name, f"{self.name}_parts[{t}]"
        if self.kind in ("sum", "prod"):
            return [f"{acc} = {acc} {self.op} {part};"]
        if self.kind in ("max", "min"):
            lines = [f"{acc} = {part} {'>' if self.kind == 'max' else '<'} {acc} ? {part} : {acc};"]
            return lines + ([f"{self.nan} = {self.nan} | {self.nan}_parts[{t}];"] if self.nan else [])
        better = ">" if self.kind == "argmax" else "<"
        # as the serial loop: the first extreme wins ties (partials come in row order), a NaN beats any number
        test = f"{acc} == {acc} && ({part} {better} {acc} || {part} != {part})" if self.floating else f"{part} {better} {acc}"
        return [f"if ({test}) {{ {acc} = {part}; {acc}_index = {acc}_index_parts[{t}]; }}"]


def applies(sections: list[tuple[str, Any]], accumulators: list[Accumulator], xnumel: Any, rnumel: Any,
            threshold: int) -> bool:  # fmt: skip
    """Whether a reduction kernel (its sections as the codegen built them) is a full reduction worth splitting:
    one row, one reduction loop, and a row that may reach the parallel threshold."""
    if symbols.static_int(xnumel) != 1 or not accumulators:
        return False
    if [kind for kind, _ in sections] != ["lines", "lines", "loop", "lines"]:
        return False
    length = symbols.static_int(rnumel)
    return length is None or length >= threshold


def _unused_params(names: list[str], body: list[str]) -> list[str]:
    text = "\n".join(body)
    return [f"(void){n};" for n in names if not re.search(rf"\b{n}\b", text)]


def full_reduction_source(name: str, comment: str, params: list[str], header: list[str],
                          sections: list[tuple[str, Any]], accumulators: list[Accumulator],
                          rows_call: str) -> list[str]:  # fmt: skip
    """The chunk function and the kernel's entry point (``name(..., nthreads)``): the split form when more
    than one thread is asked for and the row is long enough, else ``rows_call`` (the serial rows)."""
    (_, before), (_, pre), (_, (pragma, loop)), (_, post) = sections
    names = [p.rsplit(" ", 1)[-1] for p in params]
    parts = [p for acc in accumulators for p in acc.parts()]
    inner = [*loop.header, *loop.lines]
    handed = [f"*{var}_out = {var};" for _, var, _ in parts]
    chunk_body = [*without_unused(["const int64_t xindex = 0;", *header, *before], [*pre, *inner, *handed]), *pre]
    sums = lane_sums(pragma, accumulators, None)
    if sums:  # several vector accumulators (c/lanes.py)
        chunk_body += [*lane_loop(pragma, inner, sums, "r_begin", "r_end"), *handed]
    else:
        chunk_body += [*([pragma] if pragma else []), "for (int64_t rindex = r_begin; rindex < r_end; rindex++) {"]
        chunk_body += [*("    " + line for line in inner), "}", *handed]
    chunk_params = [*params, "int64_t r_begin", "int64_t r_end", *(f"{t} *restrict {var}_out" for t, var, _ in parts)]
    chunk = f"{name}_chunk"
    out = [
        f"/* {comment}: the chunk [r_begin, r_end) of the row, one thread's partial of a full reduction */",
        f"LOOM_NOIPA static void {chunk}({', '.join(chunk_params)})",
        "{",
        *("    " + line for line in _unused_params(names, chunk_body)),
        *(line if line.startswith("#") else "    " + line for line in chunk_body),
        "}",
        "",
    ]
    combine = [line for acc in accumulators for line in acc.combine()]
    after = without_unused(["const int64_t xindex = 0;", *header, *before], [*pre, *combine, *post])
    call_args = [*names, "r_begin", "r_end", *(f"&{var}_parts[t]" for _, var, _ in parts)]
    out += [
        f"static void {name}({', '.join([*params, 'int nthreads'])})",
        "{",
        "    if (nthreads > 1 && rnumel >= LOOM_PARALLEL_MIN_ELEMENTS) {",
        "        /* a full reduction: each thread reduces a contiguous chunk into its own partial, then the",
        "           partials are combined in thread order (the same result for the same thread count) */",
        *(f"        {t} {var}_parts[nthreads];" for t, var, _ in parts),
        "        for (int t = 0; t < nthreads; t++) {",
        *(f"            {var}_parts[t] = {init};" for _, var, init in parts),
        "        }",
        "#pragma omp parallel num_threads(nthreads)",
        "        {",
        "            int64_t r_begin, r_end;",
        f"            loom_thread_range(rnumel, {GRAIN}, &r_begin, &r_end);",
        "            int t = omp_get_thread_num();",
        f"            {chunk}({', '.join(call_args)});",
        "        }",
        *("        " + line for line in [*after, *pre]),
        "        for (int t = 0; t < nthreads; t++) {",
        *("            " + line for line in combine),
        "        }",
        *("        " + line for line in post),
        "    } else {",
        f"        {rows_call};",
        "    }",
        "}",
    ]
    return out


_DECLARED = re.compile(r"^\w+ (acc\d+) = ")
_STORE = re.compile(r"^\w+\[[^;]*\] = [^;]*;$")


def staged_applies(sections: list[tuple[str, Any]], accumulators: list[Accumulator], xnumel: Any, rnumel: Any,
                   threshold: int) -> bool:  # fmt: skip
    """Whether a reduction kernel is a full reduction of several loops whose row may reach the threshold."""
    kinds = [kind for kind, _ in sections]
    stages = (len(kinds) - 1) // 3
    if symbols.static_int(xnumel) != 1 or not accumulators or stages < 2:
        return False
    if kinds != ["lines", *["lines", "loop", "lines"] * stages]:
        return False
    length = symbols.static_int(rnumel)
    return length is None or length >= threshold


def staged_source(name: str, params: list[str], header: list[str], sections: list[tuple[str, Any]],
                  accumulators: list[Accumulator], rows_call: str, threshold: int) -> list[str]:  # fmt: skip
    """The entry point of a full reduction of several loops: one parallel region running every loop over each
    thread's chunk of the row, the partials combined by every thread after a barrier; else ``rows_call``."""
    by_name = {acc.name: acc for acc in accumulators}
    shared: list[str] = []
    body: list[str] = []
    for i in range(1, len(sections), 3):
        pre, (pragma, loop), post = sections[i][1], sections[i + 1][1], sections[i + 2][1]
        accs = [by_name[m.group(1)] for line in pre if (m := _DECLARED.match(line)) and m.group(1) in by_name]
        parts = [p for acc in accs for p in acc.parts()]
        shared += [f"{t} {var}_parts[nthreads];" for t, var, _ in parts]
        inner = [*loop.header, *loop.lines]
        sums = lane_sums(pragma, accs, None)
        if sums:  # several vector accumulators (c/lanes.py)
            body += [*pre, *lane_loop(pragma, inner, sums, "r_begin", "r_end")]
        else:
            body += [*pre, *([pragma] if pragma else []), "for (int64_t rindex = r_begin; rindex < r_end; rindex++) {"]
            body += [*("    " + line for line in inner), "}"]
        body += [f"{var}_parts[t] = {var};" for _, var, _ in parts]
        body += ["#pragma omp barrier", *(f"{var} = {init};" for _, var, init in parts)]
        body += ["for (int u = 0; u < nthreads; u++) {", *("    " + line for acc in accs for line in acc.combine("u")), "}"]
        body += [f"if (t == 0) {line}" if _STORE.match(line) else line for line in post]
    region = [
        "int64_t r_begin, r_end;",
        f"loom_thread_range(rnumel, {GRAIN}, &r_begin, &r_end);",
        "int t = omp_get_thread_num();",
        *without_unused(["const int64_t xindex = 0;", *header, *sections[0][1]], body),
        *body,
    ]
    return [
        f"static void {name}({', '.join([*params, 'int nthreads'])})",
        "{",
        f"    if (nthreads > 1 && rnumel >= {threshold}) {{",
        "        /* a full reduction of several loops: each loop over each thread's chunk, then every thread",
        "           combines the partials in thread order (the same row values in all, for the next loop) */",
        *("        " + line for line in shared),
        "#pragma omp parallel num_threads(nthreads)",
        "        {",
        *(line if line.startswith("#") else "            " + line for line in region),
        "        }",
        "    } else {",
        f"        {rows_call};",
        "    }",
        "}",
    ]
