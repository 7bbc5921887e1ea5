"""More container constructs for ``capture_count.py --only collections``, modelled on the kinds of code
PyTorch's test/dynamo/test_dicts.py, test_list.py and test_sets.py exercise: ChainMap, SimpleNamespace,
unbound container methods, ``dict(zip(...))``, step slices, bisect/heapq on lists, sets of tuples and
frozensets, ``set.pop``, dicts keyed by parameters, ``sorted`` with ``reverse``, ``copy.copy``.
"""

from __future__ import annotations

import bisect
import copy
import heapq
import types
from collections import ChainMap, OrderedDict, defaultdict

import torch

_LIN = torch.nn.Linear(3, 3)


def c_chainmap_lookup(x):
    base = {"a": 1, "b": 2}
    cm = ChainMap({"b": 3}, base)
    cm["c"] = 4
    return x + cm["a"] + cm["b"] + cm["c"], sorted(cm), len(cm)


def c_simple_namespace(x):
    ns = types.SimpleNamespace(scale=2, shift=1)
    ns.extra = 3
    return x * ns.scale + ns.shift + ns.extra, vars(ns)


def c_unbound_container_methods(x):
    d = {}
    dict.__setitem__(d, "k", 2)
    lst = [1, 2]
    list.append(lst, 3)
    s = set()
    set.add(s, 5)
    return x + dict.__getitem__(d, "k") + list.__getitem__(lst, -1) + len(s), d, lst


def c_dict_from_zip_and_kwargs(x):
    d = dict(zip("abc", range(3)), z=9)
    inv = {v: k for k, v in d.items()}
    return x + d["c"] + d["z"], inv


def c_list_step_slices(x):
    lst = list(range(10))
    evens = lst[::2]
    rev = lst[::-3]
    del lst[1::3]
    lst[::4] = [-1] * len(lst[::4])
    return x + sum(evens) + rev[0], lst


def c_bisect_heapq_lists(x):
    ordered = [1, 3, 5, 7]
    bisect.insort(ordered, 4)
    where = bisect.bisect_left(ordered, 5)
    heap = [5, 1, 4]
    heapq.heapify(heap)
    heapq.heappush(heap, 0)
    smallest = heapq.heappop(heap)
    return x + where + smallest, ordered, heap, heapq.nsmallest(2, [9, 3, 7])


def c_set_of_tuples_and_frozensets(x):
    seen = {(1, 2), (2, 1)}
    seen.add((1, 2))
    groups = {frozenset({1, 2}): "a", frozenset({3}): "b"}
    return x + len(seen), groups[frozenset({2, 1})], (2, 1) in seen


def c_set_pop_discard_loop(x):
    s = {1, 2, 3}
    total = 0
    while s:
        total += s.pop()
    s.discard(7)
    return x + total, s


def c_dict_keyed_by_parameters(x):
    lr = {p: 0.1 * (i + 1) for i, p in enumerate(_LIN.parameters())}
    out = x
    for p, rate in lr.items():
        out = out + p.sum() * rate
    return out, len(lr)


def c_sorted_reverse_key(x):
    words = ["bb", "a", "ccc"]
    by_len = sorted(words, key=len, reverse=True)
    nums = [3, 1, 2]
    nums.sort(reverse=True)
    return x + nums[0], by_len, sorted({"b": 1, "a": 2}.items(), key=lambda kv: kv[1])


def c_copy_copy_containers(x):
    inner = [x]
    outer = {"l": inner}
    shallow = copy.copy(outer)
    shallow["n"] = 1
    lst2 = copy.copy([1, 2])
    lst2.append(3)
    return shallow["l"][0] + len(shallow), outer, lst2


def c_dict_setdefault_nested(x):
    tree = {}
    for path in ("a/b", "a/c", "d/e"):
        head, tail = path.split("/")
        tree.setdefault(head, {}).setdefault(tail, 0)
        tree[head][tail] += 1
    return x + len(tree["a"]), tree


def c_defaultdict_lambda_factory(x):
    d = defaultdict(lambda: x * 0)
    d["a"] = d["a"] + 1
    d["b"] += 2
    return d["a"] + d["b"] + d["c"], sorted(d)


def c_ordereddict_popitem_first(x):
    od = OrderedDict.fromkeys("abc", 0)
    first = od.popitem(last=False)
    od["a"] = 5
    return x + len(od), first, list(od)


def c_list_index_with_range(x):
    lst = [1, 2, 1, 2, 1]
    return x + lst.index(1, 1) + lst.index(2, 2, 4), lst.count(1)


def c_list_of_tensors_stack_and_index(x):
    parts = [x * i for i in range(3)]
    parts.insert(1, x + 10)
    picked = parts[1:3]
    return torch.stack(picked).sum(0), len(parts)


def c_dict_items_unpack_in_call(x):
    def scaled(t, *, scale, shift):
        return t * scale + shift

    cfg = {"scale": 2}
    cfg.update(shift=1)
    return scaled(x, **cfg), cfg


def c_set_symmetric_difference_update(x):
    a = {1, 2, 3}
    a.symmetric_difference_update({3, 4})
    a ^= {1}
    return x + len(a), sorted(a), a.isdisjoint({9}), {1, 2}.issubset(range(5))


def c_list_in_operator_tensors_identity(x):
    a, b = x + 1, x + 2
    pool = [a, b]
    return a + (1 if any(t is b for t in pool) else 0), pool.index(a)


def c_dict_pop_with_tensor_default(x):
    d = {"w": x}
    w = d.pop("w", None)
    missing = d.pop("w", x * 0)
    return w + missing, d


def c_reversed_and_enumerate_start(x):
    out = x
    for i, v in enumerate(reversed([1, 2, 3]), start=1):
        out = out + i * v
    return out, list(enumerate("ab", 5))


CONSTRUCTS = [c_chainmap_lookup, c_simple_namespace, c_unbound_container_methods, c_dict_from_zip_and_kwargs,
              c_list_step_slices, c_bisect_heapq_lists, c_set_of_tuples_and_frozensets, c_set_pop_discard_loop,
              c_dict_keyed_by_parameters, c_sorted_reverse_key, c_copy_copy_containers, c_dict_setdefault_nested,
              c_defaultdict_lambda_factory, c_ordereddict_popitem_first, c_list_index_with_range,
              c_list_of_tensors_stack_and_index, c_dict_items_unpack_in_call, c_set_symmetric_difference_update,
              c_list_in_operator_tensors_identity, c_dict_pop_with_tensor_default, c_reversed_and_enumerate_start]
