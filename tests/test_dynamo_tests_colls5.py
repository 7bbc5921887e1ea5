"""Container programs from ``tools/bench/capture_count_dynamo_tests_colls5.py`` (after PyTorch's test_dicts.py,
test_list.py, test_sets.py and the CPython-derived container tests), end to end through ``loom.compile``: each
behaves as in eager (the same result, and the same arguments afterwards) with the graph and break counts given."""

from __future__ import annotations

import collections
import copy

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


# -- copy.copy and copy.deepcopy of container subclasses, OrderedDict, Counter, defaultdict, frozenset ---------------
class _Doubling(dict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value * 2)


class _Tagged(set):
    pass


@case(torch.ones(3), graphs=1, breaks=0)
def copies_of_container_subclasses(x):
    d = _Doubling()
    dict.__setitem__(d, "a", [1])
    d.tag = [5]
    shallow, deep = copy.copy(d), copy.deepcopy(d)
    s = _Tagged([1, 2])
    s.tag = [3]
    od = collections.OrderedDict(b=1, a=[2])
    od.move_to_end("b")
    od_deep = copy.deepcopy(od)
    return (x + len(shallow), dict(shallow), shallow.tag is d.tag, dict(deep), deep.tag is d.tag, vars(copy.copy(s)),
            copy.deepcopy(s).tag is s.tag, list(copy.copy(od).items()), od_deep["a"] is od["a"], list(od_deep))


@case(torch.ones(3), graphs=1, breaks=0)
def deep_copies_of_counters_defaultdicts_and_frozensets(x):
    c = collections.Counter(a=[1])
    dd = collections.defaultdict(list, a=[1])
    f = frozenset([(1, 2)])
    c2, dd2, f2 = copy.deepcopy(c), copy.deepcopy(dd), copy.deepcopy(f)
    dd2["z"].append(1)
    return x + len(dd2), dict(c2), c2["a"] is c["a"], dict(dd2), dd2["a"] is dd["a"], f2 == f, f2 is f


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES)
def test_container_programs_behave_as_in_eager(fn, args, kwargs, graphs, breaks):
    stats = compare(fn, *args, **kwargs)
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
