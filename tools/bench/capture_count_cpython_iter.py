"""Small programs in the manner of CPython's test_itertools.py and test_iter.py as PyTorch runs them under
``test/dynamo/cpython/3_13/``, for ``capture_count.py --only cpython_iter``: every ``itertools`` function
(chains, combinatorics, ``count``/``cycle``/``repeat`` cut by ``islice``, ``accumulate``, ``groupby``,
``tee``, ``zip_longest``, ``pairwise``), the iterator protocol (user ``__iter__``/``__next__`` classes, the
``__getitem__`` sequence protocol, ``iter(callable, sentinel)``, exhaustion and ``next`` defaults), and the
builtins that consume iterators (``list``, ``sorted``, ``min``/``max``, ``sum``, ``in``, unpacking, ``zip``,
``map``, ``filter``, ``enumerate``, ``reversed``). ``capture_count_cpython_iter_more.py`` holds the
``range``, ``slice``, ``heapq``, sort and ``operator`` programs.

Each mixes the construct with tensor work: a tensor op before and after, the construct's result feeding
the output.
"""

from __future__ import annotations

import io
import itertools
import operator

import torch

_SINK = io.StringIO()


def c_ci_chain(x):
    y = x + 1
    items = list(itertools.chain([1, 2], (3,), range(4, 6)))
    return y * sum(items), items


def c_ci_chain_from_iterable(x):
    y = x * 2
    parts = [[y[0]], [y[1], y[2]], []]
    return sum(itertools.chain.from_iterable(parts)) + y


def c_ci_chain_of_tensors(x):
    a, b = x + 1, x - 1
    out = [t * 2 for t in itertools.chain([a], [b, a])]
    return torch.stack(out).sum(0)


def c_ci_combinations(x):
    y = x.sin()
    pairs = list(itertools.combinations(range(4), 2))
    return y + len(pairs), pairs


def c_ci_combinations_of_tensor_rows(x):
    rows = [x, x + 1, x * 3]
    acc = torch.zeros_like(x)
    for a, b in itertools.combinations(rows, 2):
        acc = acc + a * b
    return acc


def c_ci_combinations_with_replacement(x):
    y = x + 2
    triples = list(itertools.combinations_with_replacement("ab", 3))
    return y * len(triples), triples


def c_ci_permutations(x):
    y = x.cos()
    perms = list(itertools.permutations([1, 2, 3]))
    short = list(itertools.permutations(range(3), 2))
    return y + len(perms) + len(short), perms[-1], short[1]


def c_ci_product_repeat(x):
    y = x - 1
    grid = list(itertools.product(range(2), repeat=3))
    return y + sum(a * 4 + b * 2 + c for a, b, c in grid), grid[5]


def c_ci_product_two(x):
    y = x * 3
    prods = [a * b for a, b in itertools.product([1, 2], [3, 4, 5])]
    return y + sum(prods), prods


def c_ci_count_islice(x):
    y = x + 1
    steps = list(itertools.islice(itertools.count(3, 2), 4))
    return y * steps[-1], steps


def c_ci_count_zip(x):
    out = x * 0
    for i, v in zip(itertools.count(1), x.unbind(0)):
        out = out + i * v
    return out


def c_ci_count_float_step(x):
    y = x.exp()
    vals = list(itertools.islice(itertools.count(0.5, 0.25), 3))
    return y * vals[2], vals


def c_ci_cycle_islice(x):
    y = x + 1
    seq = list(itertools.islice(itertools.cycle("abc"), 7))
    return y * len("".join(seq)), "".join(seq)


def c_ci_cycle_tensors(x):
    ws = [x, x * 2]
    acc = x * 0
    for _, w in zip(range(5), itertools.cycle(ws)):
        acc = acc + w
    return acc


def c_ci_repeat(x):
    y = x * 2
    reps = list(itertools.repeat(y, 3))
    return torch.cat(reps), len(list(itertools.repeat("a", 0)))


def c_ci_repeat_map(x):
    y = x + 1
    powers = list(map(pow, range(4), itertools.repeat(2)))
    return y * sum(powers), powers


def c_ci_accumulate_default(x):
    y = x + 1
    running = list(itertools.accumulate([1, 2, 3, 4]))
    return y + running[-1], running


def c_ci_accumulate_func(x):
    y = x * 2
    running = list(itertools.accumulate([3, 1, 4, 1, 5], max))
    prods = list(itertools.accumulate(range(1, 5), operator.mul))
    return y + running[2] + prods[-1], running, prods


def c_ci_accumulate_initial(x):
    y = x - 1
    running = list(itertools.accumulate([1, 2, 3], initial=10))
    return y + running[-1], running


def c_ci_accumulate_tensors(x):
    parts = [x, x + 1, x * 2]
    sums = list(itertools.accumulate(parts))
    return sums[-1] + sums[0]


def c_ci_compress(x):
    y = x + 3
    kept = list(itertools.compress("abcdef", [1, 0, 1, 0, 1, 1]))
    return y * len(kept), kept


def c_ci_dropwhile(x):
    y = x * 2
    rest = list(itertools.dropwhile(lambda v: v < 5, [1, 4, 6, 4, 1]))
    return y + sum(rest), rest


def c_ci_takewhile(x):
    y = x + 1
    head = list(itertools.takewhile(lambda v: v < 5, [1, 4, 6, 4, 1]))
    return y * sum(head), head


def c_ci_filterfalse(x):
    y = x - 2
    odd = list(itertools.filterfalse(lambda v: v % 2 == 0, range(10)))
    nones = list(itertools.filterfalse(None, [0, 1, 0, 2]))
    return y + sum(odd), odd, nones


def c_ci_groupby(x):
    y = x + 1
    groups = [(k, len(list(g))) for k, g in itertools.groupby("AAAABBBCCDAABBB")]
    return y * len(groups), groups


def c_ci_groupby_key(x):
    y = x * 2
    words = ["apple", "avocado", "banana", "blueberry", "cherry"]
    firsts = {k: list(g) for k, g in itertools.groupby(words, key=lambda w: w[0])}
    return y + len(firsts["b"]), firsts


def c_ci_islice_args(x):
    y = x + 1
    a = list(itertools.islice(range(10), 2, 8, 3))
    b = list(itertools.islice(range(10), 4, None))
    c = list(itertools.islice("abc", None))
    return y * (sum(a) + sum(b)), a, b, c


def c_ci_islice_consumes(x):
    y = x + 1
    it = iter(range(10))
    first = list(itertools.islice(it, 3))
    rest = next(it)
    return y + rest, first


def c_ci_starmap(x):
    y = x * 2
    powers = list(itertools.starmap(pow, [(2, 3), (3, 2), (10, 0)]))
    return y + sum(powers), powers


def c_ci_starmap_tensors(x):
    pairs = [(x, x + 1), (x * 2, x)]
    outs = list(itertools.starmap(torch.add, pairs))
    return outs[0] * outs[1]


def c_ci_tee(x):
    y = x + 1
    a, b = itertools.tee(iter([1, 2, 3]))
    first = list(a)
    second = list(b)
    return y * sum(first + second), first


def c_ci_tee_interleaved(x):
    y = x * 3
    a, b = itertools.tee(range(5), 2)
    got = [next(a), next(a), next(b)]
    return y + sum(got) + sum(b), got


def c_ci_zip_longest(x):
    y = x + 1
    pairs = list(itertools.zip_longest("abc", range(2), fillvalue=-1))
    return y * len(pairs), pairs


def c_ci_zip_longest_tensors(x):
    rows = [x, x * 2, x * 3]
    cols = [1.0]
    acc = x * 0
    for r, c in itertools.zip_longest(rows, cols, fillvalue=0.5):
        acc = acc + r * c
    return acc


def c_ci_pairwise(x):
    y = x.tanh()
    diffs = [b - a for a, b in itertools.pairwise([1, 4, 9, 16])]
    return y + sum(diffs), diffs


def c_ci_pairwise_tensors(x):
    steps = [x, x + 1, x * 2, x * 3]
    return sum(b - a for a, b in itertools.pairwise(steps))


def c_ci_iter_list_protocol(x):
    y = x + 1
    it = iter([y, y * 2])
    a = next(it)
    b = next(it)
    end = next(it, None)
    return a + b, end is None


class _Countdown:
    """A class iterator in the manner of test_iter's ``BasicIterClass``."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


def c_ci_user_iterator_class(x):
    y = x * 2
    vals = list(_Countdown(4))
    return y + sum(vals), vals


def c_ci_user_iterator_for(x):
    acc = x + 0
    for i in _Countdown(3):
        acc = acc * 2 + i
    return acc


class _Squares:
    """The old sequence protocol: ``__getitem__`` until IndexError, in the manner of test_iter's ``SequenceClass``."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if 0 <= i < self.n:
            return i * i
        raise IndexError


def c_ci_getitem_sequence_protocol(x):
    y = x + 1
    vals = list(_Squares(4))
    return y * sum(vals), vals, 9 in _Squares(4)


def c_ci_iter_callable_sentinel(x):
    y = x + 1
    data = [3, 2, 1, 0, 5]
    vals = list(iter(data.pop, 1))
    return y * len(vals), vals, data


def c_ci_iter_of_iter_is_same(x):
    y = x * 2
    it = iter([1, 2])
    return y + next(iter(it)), iter(it) is it


def c_ci_exhausted_iterator(x):
    y = x + 1
    it = iter(range(2))
    first = list(it)
    second = list(it)
    return y * len(first), second


def c_ci_exhausted_list_iterator_stays_exhausted(x):
    items = [x]
    it = iter(items)
    first = list(it)
    items.append(x + 1)  # test_iter's sink state: the exhausted iterator has let go of the list
    return first[0] * 2, list(it)


def c_ci_exhausted_dict_iterator_after_insert(x):
    d = {"a": x}
    it = iter(d.values())
    taken = list(it)
    d["b"] = x + 1
    return taken[0] + 1, next(it, "end")


def c_ci_list_iterator_across_break(x):
    items = [x, x + 1, x + 2]
    it = iter(items)
    y = next(it) * 2
    print("break", file=_SINK)  # a graph break with the iterator in a local
    items.append(x + 3)
    return y + next(it), list(it)


class _IterReturnsList:
    """``__iter__`` returning an iterable that is no iterator, in the manner of test_iter's ``BadIterableClass``."""

    def __iter__(self):
        return [1, 2]


def c_ci_iter_returns_non_iterator(x):
    y = x + 1
    try:
        list(_IterReturnsList())
    except TypeError as exc:
        return y * 2, str(exc)
    return y, ""


def c_ci_next_of_non_iterator(x):
    y = x + 1
    try:
        next([y])
    except TypeError as exc:
        return y * 3, str(exc)
    return y, ""


def c_ci_stop_iteration_caught(x):
    y = x - 1
    it = iter([y])
    out = next(it)
    try:
        next(it)
    except StopIteration:
        out = out * 10
    return out


def c_ci_in_on_iterator(x):
    y = x + 1
    it = iter(range(10))
    found = 5 in it
    after = next(it)
    return y * after, found


def c_ci_unpack_iterator(x):
    y = x + 1
    a, b, *rest = iter(range(5))
    return y * (a + b + sum(rest)), rest


def c_ci_min_max_iterator(x):
    y = x * 2
    lo = min(iter([4, 2, 8]))
    hi = max((v for v in [4, 2, 8]), key=lambda v: -v)
    return y + lo + hi, lo, hi


def c_ci_sum_generator_start(x):
    y = x + 1
    total = sum((i * i for i in range(4)), 100)
    return y + total


def c_ci_map_two_iterables(x):
    y = x * 2
    sums = list(map(operator.add, [1, 2, 3], iter([10, 20])))
    return y + sums[-1], sums


def c_ci_filter_none(x):
    y = x + 1
    kept = list(filter(None, [0, 1, "", "a", None, 2]))
    return y * len(kept), kept


def c_ci_enumerate_start(x):
    acc = x * 0
    for i, v in enumerate(x.unbind(0), start=2):
        acc = acc + i * v
    return acc


def c_ci_reversed_list(x):
    y = x + 1
    rev = list(reversed([1, 2, 3]))
    return y * rev[0], rev


def c_ci_zip_strict_mismatch(x):
    y = x + 1
    try:
        list(zip([1, 2], [1], strict=True))
    except ValueError:
        y = y * 2
    return y


def c_ci_dict_iteration_order(x):
    y = x + 1
    d = {"b": 1, "a": 2, "c": 3}
    keys = list(iter(d))
    vals = list(d.values())
    return y * sum(vals), keys


def c_ci_str_join_iterator(x):
    y = x + 1
    s = "-".join(map(str, range(4)))
    return y * len(s), s


def c_ci_length_hint(x):
    y = x * 2
    it = iter([1, 2, 3])
    next(it)
    return y + operator.length_hint(it), operator.length_hint(iter(range(7)))


def c_ci_sorted_iterator(x):
    y = x + 1
    vals = sorted(iter([3, 1, 2]), reverse=True)
    return y * vals[0], vals


def c_ci_tuple_of_generator(x):
    y = x + 1
    t = tuple(i * 2 for i in range(3))
    return y * len(t), t


def c_ci_any_all_iterators(x):
    y = x + 1
    a = any(v > 2 for v in [1, 2, 3])
    b = all(iter([1, 0]))
    return y * (int(a) + int(b) + 1), a, b


CONSTRUCTS = [c_ci_chain, c_ci_chain_from_iterable, c_ci_chain_of_tensors, c_ci_combinations,
              c_ci_combinations_of_tensor_rows, c_ci_combinations_with_replacement, c_ci_permutations,
              c_ci_product_repeat, c_ci_product_two, c_ci_count_islice, c_ci_count_zip, c_ci_count_float_step,
              c_ci_cycle_islice, c_ci_cycle_tensors, c_ci_repeat, c_ci_repeat_map, c_ci_accumulate_default,
              c_ci_accumulate_func, c_ci_accumulate_initial, c_ci_accumulate_tensors, c_ci_compress,
              c_ci_dropwhile, c_ci_takewhile, c_ci_filterfalse, c_ci_groupby, c_ci_groupby_key, c_ci_islice_args,
              c_ci_islice_consumes, c_ci_starmap, c_ci_starmap_tensors, c_ci_tee, c_ci_tee_interleaved,
              c_ci_zip_longest, c_ci_zip_longest_tensors, c_ci_pairwise, c_ci_pairwise_tensors,
              c_ci_iter_list_protocol, c_ci_user_iterator_class, c_ci_user_iterator_for,
              c_ci_getitem_sequence_protocol, c_ci_iter_callable_sentinel, c_ci_iter_of_iter_is_same,
              c_ci_exhausted_iterator, c_ci_exhausted_list_iterator_stays_exhausted,
              c_ci_exhausted_dict_iterator_after_insert, c_ci_list_iterator_across_break,
              c_ci_iter_returns_non_iterator, c_ci_next_of_non_iterator, c_ci_stop_iteration_caught, c_ci_in_on_iterator, c_ci_unpack_iterator,
              c_ci_min_max_iterator, c_ci_sum_generator_start, c_ci_map_two_iterables, c_ci_filter_none,
              c_ci_enumerate_start, c_ci_reversed_list, c_ci_zip_strict_mismatch, c_ci_dict_iteration_order,
              c_ci_str_join_iterator, c_ci_length_hint, c_ci_sorted_iterator, c_ci_tuple_of_generator,
              c_ci_any_all_iterators]
