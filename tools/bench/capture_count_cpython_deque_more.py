"""More programs for ``capture_count.py --only cpython_deque`` (see ``capture_count_cpython_deque.py``): deque
rotation, length and underflow, ``remove`` with comparisons that raise or mutate, ``repr`` (of a deque holding
itself too), construction from every kind of iterable, copies, iterators and ``reversed`` that see the deque
change, deque subclasses (``__copy__``, extra ``__init__`` arguments, their own ``__iter__``), deques of tensors
and deques handed in (``capture_count_cpython_deque_outputs.py`` holds diffusers' ``BaseOutput``).
"""

from __future__ import annotations

import copy
from collections import deque


def c_cq_rotate_steps_and_default(x):
    y = x + 1
    s = tuple("abcde")
    d = deque(s)
    d.rotate(1)
    first = "".join(d)
    d = deque(s)
    d.rotate(-1)
    second = "".join(d)
    d.rotate()
    return y * len(d), first, second, tuple(d) == s


def c_cq_rotate_matches_single_steps(x):
    y = x * 2
    s = tuple("abcde")
    agree = True
    for i in range(-7, 8):
        d = deque(s)
        e = deque(d)
        d.rotate(i)
        for _ in range(abs(i)):
            e.rotate(1 if i > 0 else -1)
        agree = agree and tuple(d) == tuple(e)
        d.rotate(-i)
        agree = agree and tuple(d) == s
    return y + agree, agree


def c_cq_rotate_bad_arguments(x):
    y = x - 1
    d = deque("abc")
    caught = []
    for args in (("x",), (1, 10)):
        try:
            d.rotate(*args)
        except TypeError:
            caught.append(len(args))
    empty = deque()
    empty.rotate()
    return y * len(caught), caught, list(d), list(empty)


def c_cq_rotate_single_item_bad_argument(x):
    y = x + 2
    d = deque("a")
    try:
        d.rotate("x")
    except TypeError:
        return y, "raised"
    return y + 1, "no error"


def c_cq_len_and_underflow(x):
    y = x.sin()
    d = deque("ab")
    sizes = [len(d)]
    d.popleft()
    sizes.append(len(d))
    d.pop()
    sizes.append(len(d))
    errors = []
    for take in (d.pop, d.popleft):
        try:
            take()
        except IndexError as exc:
            errors.append(str(exc))
    d.append("c")
    d.appendleft("d")
    sizes.append(len(d))
    d.clear()
    return y + sum(sizes), sizes, errors, len(d)


def c_cq_clear_twice(x):
    y = x * 3
    d = deque(range(20))
    before = len(d)
    d.clear()
    d.clear()
    return y + before, list(d), bool(d)


def c_cq_remove_first_match(x):
    y = x + 3
    d = deque("abcdefghcij")
    d.remove("c")
    first = "".join(d)
    d.remove("c")
    try:
        d.remove("c")
    except ValueError as exc:
        return y * len(d), first, "".join(d), str(exc)
    return y, first, "".join(d), "no error"


def c_cq_remove_bad_compare_keeps_order(x):
    y = x - 2
    bad = _Raising()
    d = deque(["a", "b", bad, "c"])
    e = deque(d)
    try:
        d.remove("c")
    except ArithmeticError:
        pass
    return y + len(d), all(a is b for a, b in zip(d, e))


class _Raising:
    def __eq__(self, other):
        raise ArithmeticError("no comparing")

    __hash__ = None


class _Clearing:
    def __init__(self, d, result):
        self.d = d
        self.result = result

    def __eq__(self, other):
        self.d.clear()
        return self.result

    __hash__ = None


def c_cq_remove_mutating_compare(x):
    y = x * 4
    outcomes = []
    for match in (True, False):
        d = deque(["ab"])
        d.extend([_Clearing(d, match), "c"])
        try:
            d.remove("c")
            outcomes.append("removed")
        except IndexError as exc:
            outcomes.append(str(exc))
        outcomes.append(len(d))
    return y + len(outcomes), outcomes


def c_cq_repr_round_trip(x):
    y = x + 4
    d = deque(range(6))
    text = repr(d)
    bounded = repr(deque(range(6), maxlen=2))
    return y * len(d), text, bounded, str(deque())


def c_cq_repr_holding_itself(x):
    y = x - 3
    d = deque(range(3))
    d.append(d)
    e = deque(range(4), maxlen=2)
    e.append(e)
    text = repr(d), repr(e)
    d.pop()
    e.pop()
    return y + len(text[0]), text


def c_cq_init_bad_arguments(x):
    y = x.cos()
    caught = []
    for args in (("abc", 2, 3), (1,)):
        try:
            deque(*args)
        except TypeError:
            caught.append(len(args))
    return y + len(caught), caught


def c_cq_unhashable(x):
    y = x * 5
    try:
        hash(deque("abc"))
    except TypeError as exc:
        return y, str(exc)
    return y + 1, "hashed"


def c_cq_steady_state_queue(x):
    y = x + 5
    size = 3
    d = deque(range(size))
    out = []
    for i in range(size, 12):
        d.append(i)
        out.append(d.popleft())
    return y * len(d), out, list(d)


def c_cq_stack_left_end(x):
    y = x - 4
    d = deque()
    push, pop = d.appendleft, d.popleft
    for i in range(6):
        push(i)
    out = [pop() for _ in range(6)]
    return y + len(out), out, len(d)


def c_cq_roundtrip_constructor_copies(x):
    y = x.exp()
    d = deque(range(5))
    e = deque(d)
    d.append(9)
    return y + len(e), e is not d, list(e), list(d)


def c_cq_copy_module_shallow_and_deep(x):
    y = x * 6
    mut = [10]
    d = deque([mut], maxlen=3)
    shallow = copy.copy(d)
    deep = copy.deepcopy(d)
    mut[0] = 11
    return y + shallow[0][0], list(shallow), list(deep), shallow.maxlen, deep.maxlen


def c_cq_copy_method_keeps_items_and_maxlen(x):
    y = x + 6
    rows = []
    for maxlen in (None, 0, 2, 5):
        d = deque([x, x + 1, x + 2], maxlen)
        e = d.copy()
        rows.append((e.maxlen, len(e), all(a is b for a, b in zip(d, e))))
    return y * len(rows), rows


def c_cq_reversed_and_its_type(x):
    y = x - 5
    d = deque("abcd")
    back = list(reversed(d))
    klass = type(reversed(deque()))
    again = list(klass(deque("xyz")))
    return y + len(back), back, again, klass is type(reversed(d))


def c_cq_iterator_sees_pop(x):
    y = x.sigmoid()
    d = deque("abcdefg")
    it = iter(d)
    d.pop()
    try:
        next(it)
    except RuntimeError as exc:
        return y + 1, str(exc)
    return y, "no error"


def c_cq_iterator_on_empty_sees_append(x):
    y = x * 7
    d = deque()
    it = iter(d)
    d.append(10)
    try:
        next(it)
    except RuntimeError as exc:
        return y + 1, str(exc)
    return y, "no error"


def c_cq_loop_appending_raises(x):
    y = x + 7
    d = deque([1, 2, 3])
    seen = []
    try:
        for v in d:
            seen.append(v)
            d.append(v)
            if len(seen) > 4:  # a compiler that misses the change would loop for ever
                break
    except RuntimeError as exc:
        return y * len(seen), seen, str(exc)
    return y, seen, "no error"


def c_cq_reversed_sees_appendleft(x):
    y = x - 6
    d = deque([1, 2, 3])
    it = reversed(d)
    first = next(it)
    d.appendleft(0)
    try:
        next(it)
    except RuntimeError as exc:
        return y + first, str(exc)
    return y, "no error"


def c_cq_iterator_partly_used_then_setitem(x):
    y = x * 8
    d = deque([1, 2, 3])
    it = iter(d)
    first = next(it)
    d[2] = 30
    return y + first, list(it)


class _Sequence:
    def __init__(self, items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i]


class _CountingIter:
    def __init__(self, items):
        self.items = list(items)

    def __iter__(self):
        return self

    def __next__(self):
        if not self.items:
            raise StopIteration
        return self.items.pop(0)


def c_cq_constructor_iterable_kinds(x):
    y = x + 8
    s = ("do", 1.2, 3)
    made = [list(deque(_Sequence(s))), list(deque(_CountingIter(s))), list(deque(v for v in s)),
            list(deque(range(2, 12, 5))), list(deque(iter("")))]
    return y * len(made[0]), made


class _NextOnly:
    def __next__(self):
        return 1


def _raising_generator():
    yield 1
    raise ZeroDivisionError("from the generator")


def c_cq_constructor_bad_iterables(x):
    y = x - 7
    caught = []
    for make, kind in ((_NextOnly, TypeError), (_raising_generator, ZeroDivisionError)):
        try:
            deque(make())
        except kind as exc:
            caught.append(type(exc).__name__)
    return y + len(caught), caught


class _Deque(deque):
    pass


class _DequeWithSlots(deque):
    __slots__ = ("__dict__", "x", "y")


class _DequeWithKwargs(deque):
    def __init__(self, newarg=1):
        deque.__init__(self)
        self.newarg = newarg


def c_cq_subclass_basics(x):
    y = x * 9
    d = _Deque(range(5))
    d.__init__(range(8))
    d.append(8)
    d.appendleft(-1)
    left = [d.popleft() for _ in range(3)]
    right = [d.pop() for _ in range(2)]
    d.clear()
    return y + len(left), left, right, len(d), isinstance(d, deque)


def c_cq_subclass_copy_keeps_type(x):
    y = x + 9
    rows = []
    for cls in (_Deque, _DequeWithSlots):
        for d in (cls("abc"), cls("abcde", maxlen=4)):
            d.x = ["x"]
            e = d.__copy__()
            f = cls(d)
            rows.append((type(e) is cls, list(e), e.maxlen, type(f) is cls, list(f)))
    return y * len(rows), rows


def c_cq_subclass_with_kwargs(x):
    y = x - 8
    d = _DequeWithKwargs(newarg=5)
    d.extend("ab")
    return y + d.newarg, list(d), d.maxlen


class _EmptyIter(deque):
    def __iter__(self):
        return iter([])


def c_cq_strange_subclass_compare(x):
    y = x * 10
    d1 = _EmptyIter([1, 2, 3])
    d2 = _EmptyIter([4, 5, 6])
    same = d1 == d2
    return y + len(d1), same, list(d1)


def c_cq_subclass_mul_and_add_types(x):
    y = x + 10
    d = _Deque("ab")
    doubled = d * 2
    joined = d + deque("c")
    return y * len(doubled), type(doubled).__name__, list(doubled), type(joined).__name__, list(joined)


def c_cq_subclass_equals_plain(x):
    y = x - 9
    return y + (_Deque("ab") == deque("ab")), deque("ab") == _Deque("ab"), _Deque("ab") != deque("ba")


def c_cq_tensor_window(x):
    window = deque(maxlen=3)
    out = x * 0
    for i in range(5):
        window.append(x * i)
        out = out + sum(window) / len(window)
    return out, len(window), window.maxlen


def c_cq_tensor_items_rotated(x):
    d = deque([x, x + 1, x + 2])
    d.rotate(1)
    d[0] = d[0] * 10
    return d[0] + d[-1], list(d)


def c_cq_tensor_queue_pipeline(x):
    queue = deque([x.sin(), x.cos()])
    total = x.clone()
    while queue:
        t = queue.popleft()
        total = total + t
        if t.sum() > 0:
            queue.append(t - 10)
    return total


def c_cq_handed_in_mutated(x, d):
    y = x + d.popleft()
    d.append(y)
    d.rotate()
    return y * 2, d


c_cq_handed_in_mutated.extra_args = lambda: (deque([1.5, 2.5, 3.5], maxlen=3),)


def c_cq_handed_in_read_only(x, d):
    return x * d[0] + len(d) + d.count(2.0) + (2.0 in d), d.maxlen


c_cq_handed_in_read_only.extra_args = lambda: (deque([2.0, 2.0, 5.0]),)


def c_cq_returned_new_deque(x):
    d = deque([x + 1], maxlen=2)
    d.append(x * 3)
    d.append(x - 1)
    return d


def c_cq_handed_in_subclass(x, d):
    d.append(x.sum())
    return x + d[0], type(d).__name__, d


c_cq_handed_in_subclass.extra_args = lambda: (_Deque([4.0]),)


class _LoggedDeque(deque):
    def append(self, item):
        self.count_appends = getattr(self, "count_appends", 0) + 1
        super().append(item * 2)


def c_cq_subclass_override_via_super(x):
    d = _LoggedDeque(maxlen=3)
    d.append(x)
    d.extend([x + 1, x + 2])  # deque.extend is C: the override is not what it calls
    return sum(d), d.count_appends, len(d)


def c_cq_handed_in_subclass_attributes(x, d):
    d.appendleft(x * d.scale)
    return d[0] + d[-1], len(d), d.scale


c_cq_handed_in_subclass_attributes.extra_args = lambda: (_with_scale(_Deque([1.0, 2.0])),)


def _with_scale(d):
    d.scale = 3
    return d


def c_cq_reinit_resets_items_and_maxlen(x):
    y = x.tanh()
    d = deque("abcdef", maxlen=3)
    d.__init__("xy")
    e = deque("abc")
    e.__init__("pqrs", 2)
    return y + len(d), list(d), d.maxlen, list(e), e.maxlen


CONSTRUCTS = [c_cq_rotate_steps_and_default, c_cq_rotate_matches_single_steps, c_cq_rotate_bad_arguments,
              c_cq_rotate_single_item_bad_argument, c_cq_len_and_underflow, c_cq_clear_twice,
              c_cq_remove_first_match, c_cq_remove_bad_compare_keeps_order,
              c_cq_remove_mutating_compare, c_cq_repr_round_trip, c_cq_repr_holding_itself,
              c_cq_init_bad_arguments, c_cq_unhashable, c_cq_steady_state_queue, c_cq_stack_left_end,
              c_cq_roundtrip_constructor_copies, c_cq_copy_module_shallow_and_deep,
              c_cq_copy_method_keeps_items_and_maxlen, c_cq_reversed_and_its_type,
              c_cq_iterator_sees_pop, c_cq_iterator_on_empty_sees_append, c_cq_loop_appending_raises,
              c_cq_reversed_sees_appendleft, c_cq_iterator_partly_used_then_setitem,
              c_cq_constructor_iterable_kinds, c_cq_constructor_bad_iterables, c_cq_subclass_basics,
              c_cq_subclass_copy_keeps_type, c_cq_subclass_with_kwargs, c_cq_strange_subclass_compare,
              c_cq_subclass_mul_and_add_types, c_cq_subclass_equals_plain, c_cq_tensor_window,
              c_cq_tensor_items_rotated, c_cq_tensor_queue_pipeline, c_cq_handed_in_mutated,
              c_cq_handed_in_read_only, c_cq_returned_new_deque, c_cq_handed_in_subclass,
              c_cq_reinit_resets_items_and_maxlen, c_cq_subclass_override_via_super,
              c_cq_handed_in_subclass_attributes]
