"""Small programs in the manner of CPython's test_range.py, test_slice.py, test_heapq.py, test_sort.py and
test_operator.py as PyTorch runs them under ``test/dynamo/cpython/3_13/``, for ``capture_count.py --only
cpython_iter``: ``range`` attributes, slicing, ``index``/``count`` and equality; ``slice`` objects and
``slice.indices``, extended slice assignment and deletion; every ``heapq`` function; ``list.sort`` and
``sorted`` with keys, ``reverse``, stability and ``functools.cmp_to_key``; and ``operator``'s functions and
getters. Each mixes the construct with tensor work that feeds the output.
"""

from __future__ import annotations

import functools
import heapq
import operator

import torch


def c_ci_range_attrs(x):
    y = x + 1
    r = range(2, 20, 3)
    return y * len(r), (r.start, r.stop, r.step), r[-1], r[2]


def c_ci_range_slice(x):
    y = x * 2
    r = range(0, 20, 2)[1:8:2]
    return y + len(r), r, list(r)


def c_ci_range_negative_step(x):
    y = x - 1
    r = range(10, 0, -3)
    return y + sum(r), list(r), list(reversed(r))


def c_ci_range_index_count(x):
    y = x + 1
    r = range(1, 30, 4)
    return y * r.index(13), r.count(13), r.count(14), 17 in r, 18 in r


def c_ci_range_equality(x):
    y = x + 1
    same = range(0, 3, 2) == range(0, 4, 2)
    empty = range(0) == range(5, 2)
    return y * (int(same) + int(empty)), same, empty


def c_ci_range_index_missing(x):
    y = x * 2
    try:
        range(5).index(9)
    except ValueError:
        y = y + 1
    return y


def c_ci_range_of_shape(x):
    y = x + 1
    acc = y * 0
    for i in range(y.shape[0] - 1, -1, -1):
        acc = acc + y[i]
    return acc


def c_ci_range_bool_len(x):
    y = x + 1
    r = range(3, 3)
    return y * (len(range(-5, 5, 2)) + bool(r)), bool(range(1))


def c_ci_slice_object(x):
    y = x * 3
    s = slice(1, None, 2)
    return y[s] + 1, (s.start, s.stop, s.step)


def c_ci_slice_indices(x):
    y = x + 1
    idx = slice(None, None, -1).indices(5)
    idx2 = slice(-3, 100).indices(10)
    return y * idx[0], idx, idx2


def c_ci_slice_on_list(x):
    y = x + 1
    items = [y, y * 2, y * 3, y * 4]
    picked = items[slice(0, 4, 2)]
    return sum(picked), len(items[::-1])


def c_ci_slice_assign_extended(x):
    y = x + 1
    items = list(range(6))
    items[::2] = [10, 20, 30]
    items[1:3] = [7]
    return y + sum(items), items


def c_ci_slice_delete(x):
    y = x * 2
    items = list(range(8))
    del items[1::3]
    del items[:1]
    return y + len(items), items


def c_ci_slice_equality(x):
    y = x + 1
    same = slice(1, 2, None) == slice(1, 2)
    return y * int(same), same, slice(1, 2) != slice(1, 3)


def c_ci_heapify_pop(x):
    y = x + 1
    heap = [5, 1, 8, 3, 2]
    heapq.heapify(heap)
    out = [heapq.heappop(heap) for _ in range(3)]
    return y * out[0] + out[-1], out, heap


def c_ci_heappush(x):
    y = x - 1
    heap = []
    for v in [4, 7, 1, 9]:
        heapq.heappush(heap, v)
    return y + heap[0], sorted(heap), heap[0]


def c_ci_heappushpop_replace(x):
    y = x * 2
    heap = [1, 3, 5]
    a = heapq.heappushpop(heap, 0)
    b = heapq.heapreplace(heap, 9)
    return y + a + b, a, b, heap


def c_ci_nlargest_nsmallest(x):
    y = x + 1
    data = [5, 1, 9, 3, 7]
    big = heapq.nlargest(2, data)
    small = heapq.nsmallest(2, data, key=lambda v: -v)
    return y * big[0], big, small


def c_ci_heapq_merge(x):
    y = x + 1
    merged = list(heapq.merge([1, 4, 7], [2, 5], [3, 6]))
    rev = list(heapq.merge([7, 4], [5, 1], reverse=True))
    return y + merged[-1], merged, rev


def c_ci_heap_of_tuples_with_tensors(x):
    heap = [(2, "b"), (1, "a"), (3, "c")]
    heapq.heapify(heap)
    prio, name = heapq.heappop(heap)
    return x * prio + len(name), name


def c_ci_sort_key_reverse(x):
    y = x + 1
    words = ["bb", "a", "ccc", "dd"]
    words.sort(key=len, reverse=True)
    return y * len(words[0]), words


def c_ci_sort_stability(x):
    y = x * 2
    pairs = [(1, "b"), (0, "a"), (1, "a"), (0, "b")]
    by_first = sorted(pairs, key=operator.itemgetter(0))
    return y + by_first[0][0], by_first


def c_ci_sort_cmp_to_key(x):
    y = x + 1
    vals = sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a))
    return y * vals[0], vals


def c_ci_sort_mixed_types_error(x):
    y = x + 1
    try:
        sorted([1, "a"])
    except TypeError:
        y = y * 3
    return y


def c_ci_sort_tensors_by_sum(x):
    rows = [x * 3, x, x * 2]
    rows.sort(key=lambda t: t.sum().item())
    return rows[0] + rows[-1]


def c_ci_operator_arith(x):
    y = x + 1
    a = operator.add(3, 4) * operator.mul(2, 5) - operator.floordiv(9, 2)
    return operator.mul(y, a), operator.neg(a), operator.truediv(y, 2)


def c_ci_operator_itemgetter(x):
    y = x * 2
    get = operator.itemgetter(0, 2)
    first = operator.itemgetter(1)
    return get((y, 1, y + 1)), first([5, 6])


def c_ci_operator_attrgetter(x):
    y = x + 1
    dims = operator.attrgetter("shape", "dtype")(y)
    return y * len(dims[0]), dims[1] == torch.float32


def c_ci_operator_methodcaller(x):
    y = x + 1
    up = operator.methodcaller("upper")("ab")
    split = operator.methodcaller("split", ",", 1)("a,b,c")
    return y * len(split), up, split


def c_ci_operator_index_truth_contains(x):
    y = x + 1
    n = operator.index(3)
    return y * n, operator.truth([]), operator.contains([1, 2], 2), operator.not_(0)


def c_ci_operator_count_index_of(x):
    y = x + 1
    return y * operator.countOf([1, 2, 1, 1], 1), operator.indexOf("abc", "c")


def c_ci_operator_setitem_delitem(x):
    y = x + 1
    d = {"a": 1}
    operator.setitem(d, "b", 2)
    operator.delitem(d, "a")
    items = [1, 2, 3]
    operator.setitem(items, slice(0, 2), [9])
    return y * operator.getitem(d, "b"), d, items


def c_ci_operator_inplace(x):
    y = x + 1
    items = [1]
    same = operator.iadd(items, [2])
    z = operator.imul(y, 2)
    return z, same is items, items


def c_ci_operator_compare(x):
    y = x + 1
    flags = [operator.lt(1, 2), operator.ge(2, 2), operator.eq("a", "b"), operator.is_(None, None)]
    return operator.gt(y, 1), flags


def c_ci_operator_on_tensors(x):
    y = operator.add(x, 1)
    z = operator.matmul(y, y)
    return operator.pow(y, 2) + z, operator.abs(-y)


CONSTRUCTS = [c_ci_range_attrs, c_ci_range_slice, c_ci_range_negative_step, c_ci_range_index_count,
              c_ci_range_equality, c_ci_range_index_missing, c_ci_range_of_shape, c_ci_range_bool_len,
              c_ci_slice_object, c_ci_slice_indices, c_ci_slice_on_list, c_ci_slice_assign_extended,
              c_ci_slice_delete, c_ci_slice_equality, c_ci_heapify_pop, c_ci_heappush, c_ci_heappushpop_replace,
              c_ci_nlargest_nsmallest, c_ci_heapq_merge, c_ci_heap_of_tuples_with_tensors, c_ci_sort_key_reverse,
              c_ci_sort_stability, c_ci_sort_cmp_to_key, c_ci_sort_mixed_types_error, c_ci_sort_tensors_by_sum,
              c_ci_operator_arith, c_ci_operator_itemgetter, c_ci_operator_attrgetter,
              c_ci_operator_methodcaller, c_ci_operator_index_truth_contains, c_ci_operator_count_index_of,
              c_ci_operator_setitem_delitem, c_ci_operator_inplace, c_ci_operator_compare,
              c_ci_operator_on_tensors]
