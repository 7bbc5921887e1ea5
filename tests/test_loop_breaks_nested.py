"""A nested comprehension with a graph break in its element compiles a bounded number of entries whatever
the number of outer passes (docs/symbolic.md, "A graph break inside a loop").

On 3.11 the inner comprehension is a function of its own that reads the outer counter from a closure cell
(``C['i']``): the dynamic policy makes an int held by a frame's closure cell a symbol once it changed
between two compiles of the code, as it does for an int argument. Before, ``C['i'] == 0, got 1`` compiled
the inner comprehension's resume function once per outer pass, up to the recompile limit. On 3.12 and
3.13 the comprehensions are inlined (PEP 709): at the end of an inner comprehension, ``STORE_FAST j``
restores the NULL that ``LOAD_FAST_AND_CLEAR j`` saved, and a resume function whose argument ``j`` the trace
had not read kept it as the stale value of the last pass, handed on in the next pass's saved slot
(``L['___stack4'] == 2``) and compiled once more per outer pass, including on a second identical call.
"""

from __future__ import annotations

import pytest
import torch
from breaks_harness import compare, show

import loom

#: The function, the resume functions of the break in the element (outer and inner position, each once
#: more when a length or the outer counter first changes), the bodies entered per pass and the code after
#: each loop: measured 11 to 17 entries (3.12 to 3.11) for 4 to 30 outer passes. Before, 20 and 10
#: recompiles from 8 outer passes on, the limit reached.
MAX_ENTRIES = 17
MAX_RECOMPILES = 7


def nested_with_break(x, n, m):
    return [[(show("e", i, j), x * i + j)[1] for j in range(m)] for i in range(n)]


def nested_without_break(x, n, m):
    return [[x * i + j for j in range(m)] for i in range(n)]


def nested_sums_with_break(x, n):
    return [sum((show("s"), x * i + j)[1] for j in range(3)) for i in range(n)]


@pytest.mark.parametrize("n", [8, 16])
@pytest.mark.parametrize("m", [3, 6])
def test_a_nested_comprehension_with_a_break_compiles_a_bounded_number_of_entries(n, m):
    stats = compare(nested_with_break, torch.randn(3), n, m)  # eager's values and prints, twice
    assert stats["frames_compiled"] <= MAX_ENTRIES, stats
    assert stats["recompiles"] <= MAX_RECOMPILES, stats


def test_entries_do_not_grow_with_the_outer_passes():
    counts = []
    for n in (6, 12):
        stats = compare(nested_with_break, torch.randn(3), n, 3)
        counts.append((stats["frames_compiled"], stats["recompiles"]))
    assert counts[0] == counts[1], counts


def test_a_second_identical_call_compiles_nothing():
    loom.reset()
    compiled = loom.compile(nested_with_break, backend="eager")
    x = torch.randn(3)
    first = compiled(x, 8, 3)
    before = loom.stats()
    second = compiled(x, 8, 3)
    after = loom.stats()
    torch.testing.assert_close(second, first)
    assert (after["frames_compiled"], after["recompiles"]) == (before["frames_compiled"], before["recompiles"])


def test_a_generator_in_a_comprehension_with_a_break_is_bounded():
    stats = compare(nested_sums_with_break, torch.randn(3), 12)
    assert stats["recompiles"] <= MAX_RECOMPILES + 2, stats


def test_a_nested_comprehension_without_a_break_is_one_graph():
    stats = compare(nested_without_break, torch.randn(3), 4, 3)
    assert (stats["graphs"], stats["graph_breaks"], stats["frames_compiled"]) == (1, 0, 1), stats


# -- an int held by a closure cell ---------------------------------------------------------------------
def _scaled_by(k):
    def scaled(x):
        return x * k + k
    return scaled


def test_an_int_in_a_closure_cell_becomes_a_symbol_after_it_changed():
    loom.reset()
    x = torch.randn(4)
    for k in range(2, 12):
        fn = _scaled_by(k)
        torch.testing.assert_close(loom.compile(fn, backend="eager")(x), fn(x), rtol=0, atol=0)
    stats = loom.stats()
    assert stats["frames_compiled"] == 2 and stats["recompiles"] == 1, stats
