"""Container programs from ``tools/bench/capture_count_dynamo_tests_colls5.py`` (after PyTorch's test_dicts.py,
test_list.py, test_sets.py and the CPython-derived container tests), end to end through ``loom.compile``: each
behaves as in eager (the same result, and the same arguments afterwards) with the graph and break counts given."""

from __future__ import annotations

import pytest
import torch
from breaks_harness import BreakCases, compare

CASES = BreakCases()
case = CASES


# -- folded calls on containers keep the objects they hold -----------------------------------------------------
@case(torch.ones(3), graphs=1, breaks=0)
def repeated_list_of_lists_aliases_its_row(x):
    rows = [[0]] * 3
    rows[0].append(1)
    pairs = ([0],) * 2
    pairs[1].append(2)
    return x + len(rows[2]), rows, pairs


@case(torch.ones(3), graphs=1, breaks=0)
def concatenated_lists_share_their_rows(x):
    inner = [0]
    a = [inner]
    b = a + a
    b[1].append(1)
    return x + len(inner), b, b[0] is inner


@case(torch.ones(3), graphs=1, breaks=0)
def min_and_max_with_key_answer_the_very_item(x):
    short, long_ = [0], [0, 1]
    rows = [long_, short]
    min(rows, key=len).append(9)
    max(rows, key=len).append(8)
    return x + len(short) + len(long_), rows


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES)
def test_container_programs_behave_as_in_eager(fn, args, kwargs, graphs, breaks):
    stats = compare(fn, *args, **kwargs)
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
