"""The sequences and sets of ``capture_count_cpython_coll.py``'s area, after CPython's test_set, test_list,
list_tests, seq_tests and test_tuple as PyTorch's Dynamo suite runs them: list slicing and slice assignment,
in-place repetition, sort with key and reverse, index/count/remove with their errors, tuple hashing and
comparison, set algebra against other iterables, frozenset hashing and set subclasses."""

from __future__ import annotations


def c_cc_list_slice_assign(x):
    y = x + 1
    a = [0, 1, 2, 3, 4]
    a[1:3] = ["a", "b", "c"]
    a[::2] = [9, 9, 9]
    del a[-1:]
    return y * len(a), a


def c_cc_list_extended_slice_wrong_size_raises(x):
    y = x * 2
    a = [0, 1, 2, 3]
    try:
        a[::2] = [1, 2, 3]
        r = 0
    except ValueError:
        r = 1
    return y + r, a


def c_cc_list_negative_and_step_slices(x):
    y = x - 1
    a = list(range(10))
    return y + a[-1], a[::-1], a[1:8:3], a[-3:], a[100:], a[:-100]


def c_cc_list_inplace_repeat(x):
    y = x * 3
    a = [1, 2]
    alias = a
    a *= 3
    b = [0] * 0
    return y + len(alias), alias, b, [[]] * 2


def c_cc_list_inplace_add_iterable(x):
    y = x + 1
    a = [1]
    a += (2, 3)
    a += range(2)
    a += "ab"
    return y * len(a), a


def c_cc_list_sort_key_reverse(x):
    y = x.sin()
    words = ["bb", "a", "ccc", "dd"]
    words.sort(key=len, reverse=True)
    s = sorted([3, 1, 2], reverse=True)
    return y + len(words[0]), words, s


def c_cc_list_sort_is_stable(x):
    y = x + 1
    data = [(1, "b"), (0, "a"), (1, "a"), (0, "b")]
    data.sort(key=lambda t: t[0])
    return y * data[0][0], data


def c_cc_list_index_count_remove(x):
    y = x * 2
    a = [1, 2, 3, 2, 1]
    i = a.index(2)
    j = a.index(2, 2)
    c = a.count(1)
    a.remove(2)
    try:
        a.index(99)
        missing = False
    except ValueError:
        missing = True
    return y + i + j + c, a, missing


def c_cc_list_remove_missing_raises(x):
    y = x - 2
    a = [1]
    try:
        a.remove(5)
        r = 0
    except ValueError:
        r = 1
    return y + r


def c_cc_list_insert_clamps(x):
    y = x + 2
    a = [1, 2]
    a.insert(100, "end")
    a.insert(-100, "start")
    a.insert(1, "one")
    return y * len(a), a


def c_cc_list_pop_index_and_empty(x):
    y = x * 2
    a = [1, 2, 3]
    p = a.pop(0)
    q = a.pop(-1)
    a.pop()
    try:
        a.pop()
        r = 0
    except IndexError:
        r = 1
    return y + p + q + r


def c_cc_list_reverse_and_reversed(x):
    y = x + 1
    a = [1, 2, 3]
    r = list(reversed(a))
    a.reverse()
    return y * a[0], a, r


def c_cc_list_comparisons(x):
    y = x - 1
    checks = [[1, 2] < [1, 3], [1, 2] < [1, 2, 0], [2] > [1, 9], [1, 2] == [1, 2], [] < [0], [1] <= [1]]
    return y + sum(checks), checks


def c_cc_list_contains_and_identity(x):
    y = x * 2
    a = [1, "a", None, (1, 2)]
    return y + (None in a) + ((1, 2) in a), "b" in a


def c_cc_list_clear_copy(x):
    y = x + 1
    a = [[1], 2]
    b = a.copy()
    b[0].append(3)
    a.clear()
    return y * len(b), a, b


def c_cc_list_index_out_of_range(x):
    y = x * 2
    a = [1, 2]
    try:
        a[5]
        r = 0
    except IndexError:
        r = 1
    return y + r


def c_cc_list_of_tensors_extend_sum(x):
    y = x + 1
    a = [y]
    a.extend([y * 2, y * 3])
    a[1:2] = [y * 4]
    return sum(a) * len(a)


def c_cc_list_del_slice_step(x):
    y = x - 1
    a = list(range(8))
    del a[::3]
    del a[0]
    return y + len(a), a


def c_cc_list_constructor_from_iterables(x):
    y = x * 2
    a = list("abc") + list((1, 2)) + list({5: 0}) + list(range(2))
    return y + len(a), a


def c_cc_list_enumerate_zip(x):
    y = x + 1
    out = []
    for i, (a, b) in enumerate(zip([1, 2, 3], "xyz")):
        out.append((i, a, b))
    return y * len(out), out


def c_cc_list_mul_negative(x):
    y = x * 3
    return y + len([1, 2] * -1), [1] * 3, 2 * [0]


def c_cc_tuple_hash_and_dict_key(x):
    y = x + 1
    t = (1, (2, 3))
    d = {t: "v"}
    return y * (hash(t) == hash((1, (2, 3)))), d[(1, (2, 3))]


def c_cc_tuple_comparisons(x):
    y = x * 2
    checks = [(1, 2) < (1, 3), (1,) < (1, 0), (2, 0) > (1, 9), () == (), (1, 2) != (2, 1)]
    return y + sum(checks), checks


def c_cc_tuple_index_count(x):
    y = x - 1
    t = (1, 2, 1, 3)
    try:
        t.index(7)
        r = 0
    except ValueError:
        r = 1
    return y + t.index(3) + t.count(1) + r


def c_cc_tuple_concat_repeat_slice(x):
    y = x + 2
    t = (1, 2)
    t += (3,)
    u = t * 2
    return y * len(u), u[1:4], u[::-2], t[-1]


def c_cc_tuple_of_tensors_unpack_star(x):
    y = x * 2
    t = (y, y + 1, y + 2, y + 3)
    a, *mid, b = t
    return a + b + sum(mid), len(mid)


def c_cc_tuple_constructor_from_generator(x):
    y = x + 1
    t = tuple(i * i for i in range(4))
    return y * t[-1], t, tuple("ab")


def c_cc_tuple_subclass(x):
    y = x - 1
    t = _Pair((2, 3))
    return y * t.total(), len(t), tuple(t), isinstance(t, tuple)


class _Pair(tuple):
    def total(self):
        return sum(self)


def c_cc_set_algebra_with_iterables(x):
    y = x + 1
    s = {1, 2, 3}
    u = s.union([4], (5,))
    i = s.intersection(range(2, 10), "x23" and {2, 3})
    d = s.difference([1], {2})
    sd = s.symmetric_difference([3, 4])
    return y * len(u), sorted(u), sorted(i), sorted(d), sorted(sd)


def c_cc_set_operator_needs_set(x):
    y = x * 2
    s = {1, 2}
    try:
        s | [3]
        r = 0
    except TypeError:
        r = 1
    return y + r


def c_cc_set_remove_discard_pop_errors(x):
    y = x - 1
    s = {1}
    s.discard(9)
    errs = 0
    try:
        s.remove(9)
    except KeyError:
        errs += 1
    s.pop()
    try:
        s.pop()
    except KeyError:
        errs += 1
    return y + errs, len(s)


def c_cc_set_comparisons(x):
    y = x + 1
    a, b = {1, 2}, {1, 2, 3}
    checks = [a < b, a <= a, b > a, a >= b, a == frozenset({1, 2}), a != b, a.issubset([1, 2, 5])]
    return y * sum(checks), checks


def c_cc_frozenset_hash_equal_contents(x):
    y = x * 2
    a = frozenset([1, 2, 3])
    b = frozenset((3, 2, 1))
    d = {a: "x"}
    return y + (hash(a) == hash(b)), d[b], frozenset() == set()


def c_cc_frozenset_ops_return_frozenset(x):
    y = x + 1
    f = frozenset({1, 2})
    r = [type(f | {3}).__name__, type(f.union([5])).__name__, type({3} | f).__name__, type(f.copy()).__name__]
    return y * len(f | {3}), r


def c_cc_set_of_frozensets(x):
    y = x - 1
    s = {frozenset({1}), frozenset({1}), frozenset({2, 3})}
    return y + len(s), frozenset({3, 2}) in s


def c_cc_set_contains_unhashable_raises(x):
    y = x * 2
    s = {1, 2}
    try:
        r = 2 if [1] in s else 0
    except TypeError:
        r = 1
    return y + r


def c_cc_set_update_in_place_alias(x):
    y = x + 1
    s = {1}
    alias = s
    s |= {2}
    s -= {1}
    s ^= {3, 2}
    s &= {3, 4}
    return y * len(alias), sorted(alias), alias is s


def c_cc_set_iteration_mutation_raises(x):
    y = x - 1
    s = {1, 2, 3}
    try:
        for v in s:
            s.add(v + 10)
        r = 0
    except RuntimeError:
        r = 1
    return y + r


def c_cc_set_comprehension_and_len(x):
    y = x + 1
    s = {i % 4 for i in range(20)}
    return y * len(s), sorted(s)


def c_cc_set_subclass_method(x):
    y = x * 2
    s = _Bag([1, 2, 2])
    s.add(5)
    return y + s.biggest(), sorted(s), isinstance(s, set)


class _Bag(set):
    def biggest(self):
        return max(self)


def c_cc_set_isdisjoint_iterables(x):
    y = x + 1
    s = {1, 2}
    return y + s.isdisjoint([3, 4]) + s.isdisjoint(iter([2])), s.isdisjoint("ab")


def c_cc_set_copy_clear_independent(x):
    y = x - 1
    s = {1, 2}
    c = s.copy()
    s.clear()
    return y * len(c), len(s), sorted(c)


def c_cc_set_from_tensor_count(x):
    y = x + 1
    s = {1, 2, 3}
    n = len(s - {2})
    return y * n


def c_cc_sorted_mixed_iterables(x):
    y = x * 2
    return y + len(sorted({3, 1, 2})), sorted((3, 1)), sorted("cab"), sorted({2: 0, 1: 0})


def c_cc_min_max_builtin_over_collections(x):
    y = x + 1
    return y * max([1, 5, 2]) + min((4, 2)), max({1, 9}), min("zb"), max({}, default=-1)


CONSTRUCTS = [c_cc_list_slice_assign, c_cc_list_extended_slice_wrong_size_raises, c_cc_list_negative_and_step_slices,
              c_cc_list_inplace_repeat, c_cc_list_inplace_add_iterable, c_cc_list_sort_key_reverse,
              c_cc_list_sort_is_stable, c_cc_list_index_count_remove, c_cc_list_remove_missing_raises,
              c_cc_list_insert_clamps, c_cc_list_pop_index_and_empty, c_cc_list_reverse_and_reversed,
              c_cc_list_comparisons, c_cc_list_contains_and_identity, c_cc_list_clear_copy,
              c_cc_list_index_out_of_range, c_cc_list_of_tensors_extend_sum, c_cc_list_del_slice_step,
              c_cc_list_constructor_from_iterables, c_cc_list_enumerate_zip, c_cc_list_mul_negative,
              c_cc_tuple_hash_and_dict_key, c_cc_tuple_comparisons, c_cc_tuple_index_count,
              c_cc_tuple_concat_repeat_slice, c_cc_tuple_of_tensors_unpack_star,
              c_cc_tuple_constructor_from_generator, c_cc_tuple_subclass, c_cc_set_algebra_with_iterables,
              c_cc_set_operator_needs_set, c_cc_set_remove_discard_pop_errors, c_cc_set_comparisons,
              c_cc_frozenset_hash_equal_contents, c_cc_frozenset_ops_return_frozenset, c_cc_set_of_frozensets,
              c_cc_set_contains_unhashable_raises, c_cc_set_update_in_place_alias,
              c_cc_set_iteration_mutation_raises, c_cc_set_comprehension_and_len, c_cc_set_subclass_method,
              c_cc_set_isdisjoint_iterables, c_cc_set_copy_clear_independent, c_cc_set_from_tensor_count,
              c_cc_sorted_mixed_iterables, c_cc_min_max_builtin_over_collections]
