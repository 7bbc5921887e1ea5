"""A kernel's entry point over its rows function: serial, or the rows shared among OpenMP threads."""

from __future__ import annotations


def rows_entry_source(name: str, params: list[str], rows: str, row_args: list[str], grain: int, work: str,
                      serial: str) -> list[str]:  # fmt: skip
    """``name(..., nthreads)``: ``serial`` (the rows ``[0, xnumel)``), or — with more than one thread and
    ``work`` at least the parallel threshold — an ``omp parallel`` region whose threads each run a static
    share of the rows (multiples of ``grain``). The serial path never enters OpenMP (an ``if(0)`` region
    still costs microseconds)."""
    return [
        f"static void {name}({', '.join([*params, 'int nthreads'])})",
        "{",
        f"    if (nthreads > 1 && {work} >= LOOM_PARALLEL_MIN_ELEMENTS) {{",
        "#pragma omp parallel num_threads(nthreads)",
        "        {",
        "            int64_t x_begin, x_end;",
        f"            loom_thread_range(xnumel, {grain}, &x_begin, &x_end);",
        f"            {rows}({', '.join([*row_args, 'x_begin', 'x_end'])});",
        "        }",
        "    } else {",
        f"        {serial};",
        "    }",
        "}",
    ]
