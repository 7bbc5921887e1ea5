"""Iterators handed to the frame, modelled on PyTorch's test/dynamo/cpython/3_13/test_iter.py (iterators taken
part way, ``map``/``filter``/``zip`` over iterators, ``reversed``, the ``__length_hint__`` protocol) and the
iterator parts of test/dynamo/test_functions.py, for ``capture_count.py --only dynamo_tests_iters6``: iterators
of every builtin kind passed in as arguments, kept on objects or in globals, taken part way in the frame and
again by the next call (``calls = 2`` hands the same iterator to both, so the second call sees where the first
left it). Its part ``_funcs`` covers the operator and functools modules (test_operator.py, test_functools.py).
Each program is written afresh over one tensor.
"""

from __future__ import annotations

import itertools
import types

import torch


# -- one next() on iterators of each kind, passed in ------------------------------------------------------
def c_it6_next_dict_values(x, it):
    return x + next(it)


c_it6_next_dict_values.extra_args = lambda: (iter({"a": 1.0, "b": 2.0, "c": 3.0}.values()),)


def c_it6_next_map(x, it):
    return x * next(it)


c_it6_next_map.extra_args = lambda: (map(lambda v: v * 2.0, [1, 2, 3]),)


def c_it6_next_map_builtin(x, it):
    return x - next(it)


c_it6_next_map_builtin.extra_args = lambda: (map(abs, [-4, 5]),)


def c_it6_next_filter(x, it):
    return x + next(it)


c_it6_next_filter.extra_args = lambda: (filter(lambda v: v % 2 == 1, [2, 4, 5, 7]),)


def c_it6_next_filter_none(x, it):
    return x + next(it)


c_it6_next_filter_none.extra_args = lambda: (filter(None, [0, 0, 3, 4]),)


def c_it6_next_zip(x, it):
    a, b = next(it)
    return x * a + b


c_it6_next_zip.extra_args = lambda: (zip([1, 2, 3], (10, 20, 30)),)


def c_it6_next_enumerate(x, it):
    i, v = next(it)
    return x + i * v


c_it6_next_enumerate.extra_args = lambda: (enumerate([5.0, 6.0, 7.0], 3),)


def c_it6_next_reversed_list(x, it):
    return x + next(it)


c_it6_next_reversed_list.extra_args = lambda: (reversed([1.0, 2.0, 3.0]),)


def c_it6_next_chain(x, it):
    return x + next(it) + next(it)


c_it6_next_chain.extra_args = lambda: (itertools.chain([1], (2, 3)),)


def c_it6_next_islice(x, it):
    return x + next(it)


c_it6_next_islice.extra_args = lambda: (itertools.islice([4, 5, 6, 7], 1, None, 2),)


def c_it6_next_count(x, it):
    return x + next(it) + next(it)


c_it6_next_count.extra_args = lambda: (itertools.count(5, 2),)


def c_it6_next_cycle(x, it):
    return x + next(it) + next(it) + next(it)


c_it6_next_cycle.extra_args = lambda: (itertools.cycle([1, 2]),)


# -- taken part way: the next call goes on from there --------------------------------------------------------
def c_it6_resume_dict_values(x, it):
    return x + next(it)


c_it6_resume_dict_values.extra_args = c_it6_next_dict_values.extra_args
c_it6_resume_dict_values.calls = 2


def c_it6_resume_map(x, it):
    return x + next(it)


c_it6_resume_map.extra_args = lambda: (map(lambda v: v + 0.5, [1, 2, 3]),)
c_it6_resume_map.calls = 2


def c_it6_resume_filter(x, it):
    return x + next(it)


c_it6_resume_filter.extra_args = lambda: (filter(lambda v: v > 1, [0, 2, 1, 3]),)
c_it6_resume_filter.calls = 2


def c_it6_resume_zip(x, it):
    a, b = next(it)
    return x + a - b


c_it6_resume_zip.extra_args = lambda: (zip(iter([1, 2, 3]), range(7, 10)),)
c_it6_resume_zip.calls = 2


def c_it6_resume_enumerate(x, it):
    i, v = next(it)
    return x * i + v


c_it6_resume_enumerate.extra_args = lambda: (enumerate((4.0, 5.0, 6.0)),)
c_it6_resume_enumerate.calls = 2


def c_it6_resume_reversed_list(x, it):
    return x + next(it)


c_it6_resume_reversed_list.extra_args = lambda: (reversed([1.0, 2.0, 3.0]),)
c_it6_resume_reversed_list.calls = 2


def c_it6_resume_map_over_iterator(x, it):
    return x + next(it)


c_it6_resume_map_over_iterator.extra_args = lambda: (map(float, iter((3, 4, 5))),)
c_it6_resume_map_over_iterator.calls = 2


def c_it6_resume_enumerate_over_map(x, it):
    i, v = next(it)
    return x + i + v


c_it6_resume_enumerate_over_map.extra_args = lambda: (enumerate(map(lambda v: v * 3, [1, 2, 3]), 1),)
c_it6_resume_enumerate_over_map.calls = 2


# -- loops and consumers over iterators passed in -------------------------------------------------------------
def c_it6_for_over_map(x, it):
    for v in it:
        x = x + v
    return x


c_it6_for_over_map.extra_args = lambda: (map(lambda v: v * v, [1, 2, 3]),)


def c_it6_sum_filter(x, it):
    return x + sum(it)


c_it6_sum_filter.extra_args = lambda: (filter(lambda v: v < 3, [1, 5, 2, 6]),)


def c_it6_list_of_zip(x, it):
    pairs = list(it)
    return x + len(pairs) + pairs[-1][1]


c_it6_list_of_zip.extra_args = lambda: (zip("abc", [1.0, 2.0, 3.0]),)


def c_it6_for_break_enumerate(x, it):
    for i, v in it:
        if i == 1:
            break
        x = x + v
    return x, next(it)


c_it6_for_break_enumerate.extra_args = lambda: (enumerate([2.0, 3.0, 4.0, 5.0]),)


def c_it6_dict_values_to_tensor(x, it):
    return x + torch.tensor(list(it))


c_it6_dict_values_to_tensor.extra_args = lambda: (iter({1: 1.0, 2: 2.0, 3: 3.0}.values()),)


def c_it6_max_reversed(x, it):
    return x + max(it)


c_it6_max_reversed.extra_args = lambda: (reversed([3, 9, 4]),)


def c_it6_map_of_tensors(x, it):
    return next(it) + next(it)


c_it6_map_of_tensors.extra_args = lambda: (map(lambda t: t * 2, [torch.ones(3), torch.full((3,), 4.0)]),)


def c_it6_any_over_map(x, it):
    hit = any(it)
    return x + hit + len(list(it))


c_it6_any_over_map.extra_args = lambda: (map(lambda v: v > 1, [0, 2, 3, 4]),)


def c_it6_length_hint_reversed(x, it):
    import operator
    return x + operator.length_hint(it)


c_it6_length_hint_reversed.extra_args = lambda: (reversed([1, 2, 3, 4]),)


def c_it6_next_default_exhausted_map(x, it):
    first = next(it, -1.0)
    return x + first + next(it, -1.0)


c_it6_next_default_exhausted_map.extra_args = lambda: (map(float, [7]),)


# -- iterators kept on objects and in globals ------------------------------------------------------------
def c_it6_attr_map_iterator(x, holder):
    return x + next(holder.it)


c_it6_attr_map_iterator.extra_args = lambda: (types.SimpleNamespace(it=map(lambda v: v / 2, [2, 4, 6])),)
c_it6_attr_map_iterator.calls = 2


def c_it6_attr_zip_iterator(x, holder):
    a, b = next(holder.it)
    return x + a * b


c_it6_attr_zip_iterator.extra_args = lambda: (types.SimpleNamespace(it=zip([1, 2], [3, 4])),)
c_it6_attr_zip_iterator.calls = 2


_GLOBAL_IT = [None]


def _global_values():
    _GLOBAL_IT[0] = iter({"p": 1.5, "q": 2.5}.values())
    return ()


def c_it6_global_dict_values(x):
    return x + next(_GLOBAL_IT[0])


c_it6_global_dict_values.extra_args = _global_values
c_it6_global_dict_values.calls = 2


def _global_reversed():
    global _REV
    _REV = reversed([10.0, 20.0, 30.0])
    return ()


_REV = None


def c_it6_global_reversed(x):
    return x + next(_REV)


c_it6_global_reversed.extra_args = _global_reversed
c_it6_global_reversed.calls = 2


# -- made in the frame (test_iter.py's protocol corners) ---------------------------------------------------------
def c_it6_iter_of_map_is_itself(x):
    m = map(lambda v: v + 1, [1, 2])
    return x + (iter(m) is m) + next(m)


def c_it6_zip_shared_iterator_pairs(x):
    it = iter([1, 2, 3, 4, 5])
    pairs = list(zip(it, it))
    return x + len(pairs) + pairs[1][0] + next(it, 0)


def c_it6_reversed_then_list(x):
    r = reversed([1.0, 2.0, 3.0])
    next(r)
    return x + sum(list(r))


def c_it6_enumerate_start_negative(x):
    out = x
    for i, v in enumerate([1.0, 2.0], -3):
        out = out + i * v
    return out


def c_it6_filter_map_chain(x):
    vals = filter(lambda v: v != 4, map(lambda v: v * 2, range(4)))
    return x + sum(vals)


def c_it6_dict_values_iter_in_frame(x):
    d = {"a": 1.0, "b": 2.0}
    it = iter(d.values())
    first = next(it)
    return x * first + next(it)


def c_it6_islice_of_list_iterator(x):
    it = iter([1, 2, 3, 4, 5])
    head = list(itertools.islice(it, 2))
    return x + sum(head) * 10 + next(it)


def c_it6_map_two_iterables_uneven(x):
    return x + sum(map(lambda a, b: a * b, [1, 2, 3], (4, 5)))


def c_it6_iter_sentinel_callable(x):
    state = [0]

    def step():
        state[0] += 1
        return state[0]

    return x + sum(iter(step, 4))


CONSTRUCTS = [
    c_it6_next_dict_values, c_it6_next_map, c_it6_next_map_builtin, c_it6_next_filter, c_it6_next_filter_none,
    c_it6_next_zip, c_it6_next_enumerate, c_it6_next_reversed_list, c_it6_next_chain,
    c_it6_next_islice, c_it6_next_count, c_it6_next_cycle,
    c_it6_resume_dict_values, c_it6_resume_map, c_it6_resume_filter, c_it6_resume_zip, c_it6_resume_enumerate,
    c_it6_resume_reversed_list,
    c_it6_resume_map_over_iterator, c_it6_resume_enumerate_over_map,
    c_it6_for_over_map, c_it6_sum_filter, c_it6_list_of_zip, c_it6_for_break_enumerate, c_it6_dict_values_to_tensor,
    c_it6_max_reversed, c_it6_map_of_tensors, c_it6_any_over_map, c_it6_length_hint_reversed,
    c_it6_next_default_exhausted_map,
    c_it6_attr_map_iterator, c_it6_attr_zip_iterator, c_it6_global_dict_values, c_it6_global_reversed,
    c_it6_iter_of_map_is_itself, c_it6_zip_shared_iterator_pairs, c_it6_reversed_then_list,
    c_it6_enumerate_start_negative, c_it6_filter_map_chain, c_it6_dict_values_iter_in_frame,
    c_it6_islice_of_list_iterator, c_it6_map_two_iterables_uneven, c_it6_iter_sentinel_callable,
]
