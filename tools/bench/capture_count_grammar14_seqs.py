"""Tuples, ranges, slices, int literals and generators around tensors (CPython's test_tuple, test_range,
test_slice, test_int_literal and test_generator_stop as PyTorch's Dynamo suite runs them,
``test/dynamo/cpython/3_13/``), for ``capture_count.py --only grammar14``: tuples compared member by member
(identity first), a tensor iterated into a tuple, slices and ranges from sizes, ``StopIteration`` inside a
generator, ``yield from`` an iterator's return value, slice assignment, underscores in literals and ``int()``.
"""

from __future__ import annotations

import operator

import torch


def c_grammar14_seq_tuple_lt_identity_then_next(x):
    a = (x, 1)
    b = (x, 2)
    return x + 1, a < b, sorted([b, a])[0][1]


def c_grammar14_seq_tuple_of_tensor(x):
    t = tuple(x)
    return t[0] + t[-1], len(t), type(t[0]).__name__


def c_grammar14_seq_tolist_setcomp(x):
    s = {int(v) % 2 for v in x.tolist()}
    return x + len(s), sorted(s)


def c_grammar14_seq_slice_from_shape(x):
    s = slice(x.shape[0] - 1)
    return x[s] * 2, s.indices(x.shape[0]), operator.index(x.shape[0])


def c_grammar14_seq_range_len_tensor(x):
    out = []
    for i in range(len(x)):
        out.append(x[i] * i)
    return torch.stack(out), range(len(x))[-1]


def c_grammar14_seq_gen_next_stopiteration_in_genexpr(x):
    def g():
        it = iter([])
        yield next(it)

    try:
        list(g())
    except RuntimeError as e:
        return x + 1, str(e)
    return x, None


def c_grammar14_seq_yield_from_stop(x):
    class It:
        def __iter__(self):
            return self

        def __next__(self):
            raise StopIteration(7)

    def g():
        r = yield from It()
        yield r

    return x + next(g())


def c_grammar14_seq_generator_return_value(x):
    def g():
        yield x
        return "done"

    it = g()
    v = next(it)
    try:
        next(it)
    except StopIteration as e:
        return v + 1, e.value
    return v, None


def c_grammar14_seq_tuple_repeat_concat_tensors(x):
    t = (x,) * 3 + (x + 1,)
    return sum(t), len(t), t[1] is t[0]


def c_grammar14_seq_range_contains_float_and_bool(x):
    r = range(5)
    return x + 1, 2.0 in r, 2.5 in r, True in r, r.count(True), -1 in r


def c_grammar14_seq_range_index_tensor_item(x):
    r = range(10)
    i = int(x[1].item())
    return x + r[i], r.index(i)


def c_grammar14_seq_slice_assign_list_tensors(x):
    lst = [x, x, x, x]
    lst[1:3] = [x + 1]
    lst[::2] = [x * 0, x * 0]
    del lst[slice(0, 1)]
    return sum(lst), len(lst)


def c_grammar14_seq_int_literal_underscores_and_bases(x):
    a = 1_0
    b = 0b_1_0
    c = 0o_1_0
    d = 0x_1_0
    return x + a + b + c + d, int("1_000"), int("0x_ff", 16), int("0b101", 0)


CONSTRUCTS = [c_grammar14_seq_tuple_lt_identity_then_next, c_grammar14_seq_tuple_of_tensor,
              c_grammar14_seq_tolist_setcomp, c_grammar14_seq_slice_from_shape, c_grammar14_seq_range_len_tensor,
              c_grammar14_seq_gen_next_stopiteration_in_genexpr, c_grammar14_seq_yield_from_stop,
              c_grammar14_seq_generator_return_value, c_grammar14_seq_tuple_repeat_concat_tensors,
              c_grammar14_seq_range_contains_float_and_bool, c_grammar14_seq_range_index_tensor_item,
              c_grammar14_seq_slice_assign_list_tensors, c_grammar14_seq_int_literal_underscores_and_bases]
