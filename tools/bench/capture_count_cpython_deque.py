"""Programs after CPython's test_deque.py as PyTorch's Dynamo suite runs it (test/dynamo/cpython/3_13), for
``capture_count.py --only cpython_deque``: ``collections.deque`` with and without ``maxlen`` (trimming, the
iterator a bounded deque consumes, the read-only attribute), append/pop on both ends, rotate, extend and
extendleft (of itself too), index/insert/remove/count with their bounds and errors, comparisons, ``+``/``*``
and their in-place forms, copying, iterators that see the deque change (``RuntimeError``), comparisons that
raise or mutate, and deque subclasses. ``capture_count_cpython_deque_more.py`` holds more deque programs,
``capture_count_cpython_deque_outputs.py`` diffusers' ``BaseOutput``. Each program does tensor work before and after the construct so that the frame is compiled.
"""

from __future__ import annotations

from collections import deque


def c_cq_basics_both_ends(x):
    y = x + 1
    d = deque(range(-8, -3))
    d.__init__(range(4))
    for i in range(4, 8):
        d.append(i)
    for i in reversed(range(-3, 0)):
        d.appendleft(i)
    left = [d.popleft() for _ in range(4)]
    right = [d.pop() for _ in range(3)]
    return y * len(d) + sum(left), left, right, list(d)


def c_cq_maxlen_consumes_iterator(x):
    y = x * 2
    it = iter(range(10))
    d = deque(it, maxlen=3)
    return y + sum(d), list(it), repr(d), d == deque(range(10), 3)


def c_cq_maxlen_negative_raises(x):
    y = x - 1
    errors = []
    for bound in (-1, -2):
        try:
            deque("abc", bound)
        except ValueError as exc:
            errors.append(str(exc))
    return y * len(errors), errors


def c_cq_maxlen_trims_each_end(x):
    y = x.sin()
    d = deque(range(10), maxlen=3)
    d.append(10)
    a = list(d)
    d.appendleft(7)
    b = list(d)
    d.extend([10, 11])
    c = list(d)
    d.extendleft([8, 7])
    return y + d[0], a, b, c, list(d)


def c_cq_maxlen_zero_consumes_all(x):
    y = x.cos()
    it = iter(range(50))
    deque(it, maxlen=0)
    first = list(it)
    it = iter(range(50))
    d = deque(maxlen=0)
    d.extend(it)
    second = list(it)
    it = iter(range(50))
    d.extendleft(it)
    return y + len(d), first, second, list(it)


def c_cq_maxlen_attribute_values(x):
    y = x + 3
    bounds = [deque().maxlen, deque("abc").maxlen, deque("abc", maxlen=4).maxlen,
              deque("abc", maxlen=2).maxlen, deque("abc", maxlen=0).maxlen]
    return y * (bounds[2] or 0), bounds


def c_cq_maxlen_not_writable(x):
    y = x * 3
    d = deque("abc")
    try:
        d.maxlen = 10
    except AttributeError:
        caught = True
    else:
        caught = False
    return y + caught, d.maxlen


def c_cq_count_letters(x):
    y = x + 2
    s = list("abracadabra")
    d = deque(s)
    same = all(s.count(letter) == d.count(letter) for letter in "abcdrz")
    return y * d.count("a"), same


def c_cq_count_arity_errors(x):
    y = x - 2
    d = deque([1, 2])
    caught = 0
    for args in ((), (1, 2)):
        try:
            d.count(*args)
        except TypeError:
            caught += 1
    return y * caught


class _RaisingCompare:
    def __eq__(self, other):
        raise ArithmeticError("no comparing")

    __hash__ = None


def c_cq_count_bad_compare_raises(x):
    y = x + 4
    caught = 0
    for d, value in ((deque([1, 2, _RaisingCompare(), 3]), 2), (deque([1, 2, 3]), _RaisingCompare())):
        try:
            d.count(value)
        except ArithmeticError:
            caught += 1
    return y * caught


class _PoppingCompare:
    def __init__(self):
        self.d = None

    def __eq__(self, other):
        self.d.pop()
        return True

    __hash__ = None


def c_cq_count_mutating_compare_raises(x):
    y = x * 5
    m = _PoppingCompare()
    d = deque([1, 2, 3, m, 4, 5])
    m.d = d
    try:
        d.count(3)
    except RuntimeError as exc:
        return y + len(d), str(exc)
    return y, "no error"


def c_cq_count_after_rotations(x):
    y = x.exp()
    d = deque([None] * 16)
    for _ in range(len(d)):
        d.rotate(-1)
    d.rotate(1)
    return y + d.count(None), d.count(1)


def c_cq_equality_with_list_and_deques(x):
    y = x + 5
    d = deque("xabc")
    d.popleft()
    checks = [(d == e, d != e) for e in (d, deque("abc"), deque("ab"), deque(), list(d))]
    return y * sum(a for a, _ in checks), checks


def c_cq_ordering_matches_lists(x):
    y = x - 3
    seqs = [deque(s) for s in ("", "a", "ab", "ba", "abc", "cba")]
    agree = True
    for a in seqs:
        for b in seqs:
            agree = agree and (a < b) == (list(a) < list(b)) and (a >= b) == (list(a) >= list(b))
            agree = agree and (a <= b) == (list(a) <= list(b)) and (a > b) == (list(a) > list(b))
    return y + agree, agree


def c_cq_ordering_against_list_raises(x):
    y = x * 4
    try:
        _ = deque([1]) < [2]
    except TypeError as exc:
        return y, str(exc)
    return y + 1, "no error"


def c_cq_contains_range(x):
    y = x.tanh()
    n = 40
    d = deque(range(n))
    return y + all(i in d for i in range(n)), (n + 1) not in d, -1 in d


class _ClearingCompare:
    def __init__(self, d, result):
        self.d = d
        self.result = result

    def __eq__(self, other):
        self.d.clear()
        return self.result

    __hash__ = None


def c_cq_contains_mutating_compare_raises(x):
    y = x + 6
    d = deque(range(10))
    d[5] = _ClearingCompare(d, False)
    try:
        _ = 20 in d
    except RuntimeError as exc:
        return y + len(d), str(exc)
    return y, "no error"


def c_cq_contains_bad_compare_propagates(x):
    y = x * 6
    d = deque(range(10))
    d[5] = _RaisingCompare()
    try:
        _ = 20 in d
    except ArithmeticError as exc:
        return y + 1, str(exc)
    return y, "no error"


class _NotImplementedClearing:
    d = None

    def __eq__(self, other):
        _NotImplementedClearing.d.clear()
        return NotImplemented

    __hash__ = None


def c_cq_contains_count_stop_on_clear(x):
    y = x - 4
    outcomes = []
    for use_count in (False, True):
        d = deque([_NotImplementedClearing(), _NotImplementedClearing()])
        _NotImplementedClearing.d = d
        try:
            _ = d.count(3) if use_count else 3 in d
            outcomes.append("none")
        except RuntimeError:
            outcomes.append("runtime")
    return y * len(outcomes), outcomes


def c_cq_extend_self_and_string(x):
    y = x + 7
    d = deque("a")
    d.extend("bcd")
    first = list(d)
    d.extend(d)
    return y * len(d), first, "".join(d)


def c_cq_extend_non_iterable_raises(x):
    y = x * 7
    d = deque("a")
    try:
        d.extend(1)
    except TypeError as exc:
        return y + len(d), str(exc)
    return y, "no error"


def c_cq_add_makes_new_deques(x):
    y = x + 8
    d, e, f = deque(), deque("abc"), deque("def")
    s = e + f
    results = [list(d + d), list(s), list(e + e), list(e + d), list(d + e)]
    fresh = (e + d) is not e and (d + e) is not e
    return y * len(s), results, fresh, type(s).__name__


def c_cq_add_keeps_left_maxlen(x):
    y = x - 5
    g = deque("abcdef", maxlen=4)
    h = deque("gh")
    s = g + h
    return y + s.maxlen, list(s)


def c_cq_add_string_raises(x):
    y = x * 8
    try:
        deque("abc") + "def"
    except TypeError as exc:
        return y, str(exc)
    return y + 1, "no error"


def c_cq_iadd_string_and_self(x):
    y = x + 9
    d = deque("a")
    alias = d
    d += "bcd"
    first = list(d)
    d += d
    return y * len(d), first, list(d), alias is d


def c_cq_extendleft_self_and_range(x):
    y = x.sigmoid()
    d = deque("a")
    d.extendleft("bcd")
    first = list(d)
    d.extendleft(d)
    e = deque()
    e.extendleft(range(20))
    return y + e[0], first, list(d), list(e) == list(reversed(range(20)))


def _failing_items():
    yield 1
    raise SyntaxError("stop here")


def c_cq_extendleft_generator_raises(x):
    y = x * 9
    d = deque([0])
    try:
        d.extendleft(_failing_items())
    except SyntaxError as exc:
        return y + len(d), list(d), str(exc)
    return y, list(d), "no error"


def c_cq_getitem_both_signs(x):
    y = x + 10
    d = deque("superman")
    errors = []
    empty = deque()
    for i in (0, -1):
        try:
            empty[i]
        except IndexError as exc:
            errors.append(str(exc))
    return y * len(d), d[0], d[-1], d[3], errors


def c_cq_getitem_after_pops_matches_list(x):
    y = x - 6
    n = 12
    d = deque(range(n))
    lst = list(range(n))
    agree = True
    for i in range(n):
        d.popleft()
        lst.pop(0)
        if i % 2:
            d.append(i)
            lst.append(i)
        agree = agree and all(d[j] == lst[j] for j in range(1 - len(lst), len(lst)))
    return y + agree, list(d)


def c_cq_index_found_and_missing(x):
    y = x * 10
    d = deque(range(6))
    found = [d.index(i) for i in range(6)]
    try:
        d.index(7)
    except ValueError as exc:
        return y + sum(found), found, str(exc)
    return y, found, "no error"


def c_cq_index_start_stop_like_list(x):
    y = x + 11
    s = list("ABCABC")
    d = deque(s)
    agree = True
    for start in range(-8, 9, 3):
        for stop in range(-8, 9, 4):
            for element in "ACZ":
                try:
                    target = s.index(element, start, stop)
                except ValueError:
                    target = None
                try:
                    got = d.index(element, start, stop)
                except ValueError:
                    got = None
                agree = agree and got == target
    return y * agree, agree


def c_cq_index_bug_24913(x):
    y = x - 7
    d = deque("A" * 3)
    try:
        d.index("Hello world", 0, 4)
    except ValueError:
        return y + 1
    return y


def c_cq_index_mutating_compare_raises(x):
    y = x.abs()
    d = deque(range(8))
    d[4] = _ClearingCompare(d, False)
    try:
        d.index(8)
    except RuntimeError as exc:
        return y + len(d), str(exc)
    return y, "no error"


def c_cq_insert_like_list(x):
    y = x * 11
    agree = True
    for i in range(-12, 12, 3):
        d = deque("ABCDE")
        s = list("ABCDE")
        d.insert(i, "Z")
        s.insert(i, "Z")
        agree = agree and list(d) == s
    return y + agree, agree


def c_cq_insert_full_raises(x):
    y = x + 12
    d = deque("ABC", maxlen=3)
    try:
        d.insert(2, None)
    except IndexError as exc:
        return y, str(exc), list(d)
    return y + 1, "no error", list(d)


def c_cq_insert_below_maxlen(x):
    y = x - 8
    placed = []
    for i in range(-4, 4):
        d = deque("ABCD", maxlen=5)
        d.insert(i, "Z")
        placed.append(d[i] if i >= 0 else d[i - 1])
    return y * len(placed), placed


def c_cq_imul_unbounded(x):
    y = x * 12
    rows = []
    for n in (-2, 0, 1, 3):
        d = deque("ab")
        d *= n
        rows.append((list(d), d.maxlen))
    return y + len(rows[-1][0]), rows


def c_cq_imul_bounded(x):
    y = x + 13
    rows = []
    for n in (-1, 0, 1, 2, 4):
        d = deque("abc", 7)
        alias = d
        d *= n
        rows.append(("".join(d), d.maxlen, alias is d))
    return y * len(rows), rows


def c_cq_mul_both_sides(x):
    y = x - 9
    d = deque("abc")
    results = [list(d * -5), list(d * 0), list(d * 2), list(3 * d), (d * 1) is not d]
    bounded = deque("abc", maxlen=5)
    return y + len(d * 2), results, list(bounded * 2), list(bounded * 30)


def c_cq_setitem_each_position(x):
    y = x * 13
    n = 8
    d = deque(range(n))
    for i in range(n):
        d[i] = 10 * i
    lst = list(d)
    for i in range(1 - n, 0):
        d[i] = 7 * i
        lst[i] = 7 * i
    return y + d[0], list(d) == lst, list(d)


def c_cq_delitem_and_bounds(x):
    y = x + 14
    d = deque(range(6))
    errors = []
    for i in (-7, 6):
        try:
            del d[i]
        except IndexError as exc:
            errors.append(str(exc))
    del d[2]
    del d[-1]
    return y * len(d), list(d), errors


def c_cq_reverse_in_place(x):
    y = x - 10
    d = deque([0.5, 1.5, 2.5])
    r = d.reverse()
    first = list(d)
    d.reverse()
    return y + d[0], first, list(d), r is None


CONSTRUCTS = [c_cq_basics_both_ends, c_cq_maxlen_consumes_iterator, c_cq_maxlen_negative_raises,
              c_cq_maxlen_trims_each_end, c_cq_maxlen_zero_consumes_all, c_cq_maxlen_attribute_values,
              c_cq_maxlen_not_writable, c_cq_count_letters, c_cq_count_arity_errors, c_cq_count_bad_compare_raises,
              c_cq_count_mutating_compare_raises, c_cq_count_after_rotations, c_cq_equality_with_list_and_deques,
              c_cq_ordering_matches_lists, c_cq_ordering_against_list_raises, c_cq_contains_range,
              c_cq_contains_mutating_compare_raises, c_cq_contains_bad_compare_propagates,
              c_cq_contains_count_stop_on_clear, c_cq_extend_self_and_string, c_cq_extend_non_iterable_raises,
              c_cq_add_makes_new_deques, c_cq_add_keeps_left_maxlen, c_cq_add_string_raises,
              c_cq_iadd_string_and_self, c_cq_extendleft_self_and_range, c_cq_extendleft_generator_raises,
              c_cq_getitem_both_signs, c_cq_getitem_after_pops_matches_list, c_cq_index_found_and_missing,
              c_cq_index_start_stop_like_list, c_cq_index_bug_24913, c_cq_index_mutating_compare_raises,
              c_cq_insert_like_list, c_cq_insert_full_raises, c_cq_insert_below_maxlen, c_cq_imul_unbounded,
              c_cq_imul_bounded, c_cq_mul_both_sides, c_cq_setitem_each_position, c_cq_delitem_and_bounds,
              c_cq_reverse_in_place]
