"""Conformance: containers and objects from the frame changed by the traced code (replayed after the
graph), and builtins that stop, refuse or fail part-way through as Python does."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=None)
case = CASES


def t(*shape):
    return torch.randn(*shape)


X = t(4, 3)


@case(X, [1, 2])
def list_arg_mutated(x, lst):
    lst.append(3)
    lst[0] = 10
    return x * len(lst)


@case(X, {"a": 1})
def dict_arg_mutated(x, d):
    d["b"] = 2
    del d["a"]
    return x + d["b"]


class _Box:
    """A plain object for the replay-order cases below."""


def _named_box(name):
    box = _Box()
    box.name = name
    return box


_FIRST, _SECOND = _named_box("first"), _named_box("second")


@case(X, [_FIRST])
def value_read_before_its_list_slot_is_replaced(x, lst):
    kept = lst[0]
    lst[0] = _SECOND
    return x + 1, kept


@case(X, {"k": _FIRST, "n": 1})
def value_read_before_its_dict_is_cleared(x, d):
    kept = d["k"]
    d.clear()
    d["again"] = kept
    return x + 1, kept


@case(X, {"input_ids": t(3), "mask": t(3)})
def kwargs_like_dict_refilled_with_its_own_values(x, kwargs):
    kwargs["use_cache"] = True
    return x + kwargs["input_ids"]


def _parent_with_child():
    parent = _Box()
    parent.child = _Box()
    parent.child.tag = 0
    return parent


@case(X, _parent_with_child())
def attribute_of_an_object_detached_earlier(x, parent):
    child = parent.child
    parent.child = None
    child.tag = 5
    return x + 1, child
@case(X, [1, -1, 2, 3])
def all_and_any_stop_early(x, values):
    log = []

    def positive(v):
        log.append(v)
        return v > 0

    a = all(positive(v) for v in values)
    b = any(positive(v) for v in values)
    it = iter(values)
    c = any(v < 0 for v in it)
    return x + 1, a, b, c, list(it), log


@case(X, ["a", "b"])
def sum_refuses_strings(x, words):
    try:
        joined = sum(words, "")
    except TypeError:
        joined = "refused"
    return x + 1, joined, sum([(1,), (2,)], ())


@case(X, [3, 1, 2])
def reversed_refuses_iterators_and_sets(x, values):
    refused = []
    for make in (lambda: iter(values), lambda: (v for v in values), lambda: {1, 2}, lambda: map(abs, values)):
        try:
            reversed(make())
        except TypeError:
            refused.append(True)
    return x + len(refused), refused, list(reversed(values)), list(reversed({"a": 1, "b": 2}))


@case(X, [1, 2, 3, 2])
def index_within_bounds(x, values):
    t = tuple(values)
    try:
        values.index(2, 0, 1)
    except ValueError:
        x = x + 1
    return x, values.index(2, 2), values.index(2, -3, -1), t.index(2, 2), values.index(2, -100, 100)


@case(X, [("a", 1), ("b", 2, 3)], {"z": 0})
def dict_from_pairs_of_wrong_length(x, pairs, target):
    try:
        d = dict(pairs)
    except ValueError:
        d = dict(pairs[:1])
    try:
        target.update([("c", 3), "xyz"])  # "c" is stored before the error
    except ValueError:
        x = x + 1
    d.update((k, v) for k, v in [("e", 5)])
    return x, d, dict(["pq"])


@case(X, [0], {}, {0})
def extend_and_update_keep_items_before_an_error(x, items, table, members):
    def gen(*values):
        yield from values
        raise KeyError("stop")

    for grow in (lambda: items.extend(gen(1, 2)), lambda: table.update(gen(("a", 1))),
                 lambda: members.update(gen(3, 4))):
        try:
            grow()
        except KeyError:
            x = x + 1
    try:
        items += 5
    except TypeError:
        x = x * 2
    items.extend(items)
    return x, sorted(members)


@case(X, [1, 2, 3, 4])
def slice_assignment_from_iterators(x, values):
    values[1:3] = (v * 10 for v in [7, 8, 9])
    names = [1, 2]
    names[:] = map(str, names)
    return x + len(values), names


@case(X)
def unpacking_a_generator_takes_one_item_too_many(x):
    log = []

    def count(n):
        for i in range(n):
            log.append(i)
            yield i

    try:
        a, b = count(5)  # takes 0, 1, 2, then raises: 3 and 4 are never produced
    except ValueError:
        x = x + 1
    a, b = count(2)
    return x + a + b, log


@case(X, [-1, 3, -2])
def sort_with_a_builtin_key(x, values):
    words = ["ccc", "a", "bb"]
    words.sort(key=len)
    try:
        sorted([1, "a"])
    except TypeError:
        x = x + 1
    return x, sorted(values, key=abs), words, sorted(values, key=None, reverse=True)


@case(X, {"a": 1, "b": 2})
def dict_loop_reads_values_live(x, d):
    seen = []
    for k, v in d.items():
        d["b"] = 20  # not a change of size: the loop goes on and sees the new value
        seen.append(v)
    return x + len(seen), seen


@case(X, {"a": 1, "b": 2}, {1, 2})
def dict_and_set_changed_size_in_loop(x, d, s):
    try:
        for k in d:
            d[k + "x"] = 0
    except RuntimeError:
        x = x + 1
    try:
        for v in s:
            s.add(v + 10)
    except RuntimeError:
        x = x * 2
    it = iter(d)
    d.pop(next(it))
    try:
        next(it)
    except RuntimeError:
        x = x - 1
    return x, d, s


@case(X, {1, 2, 3}, {2, 9})
def set_arg_mutated(x, s, other):
    s.add(4)
    s.discard(1)
    s.update([5])
    s -= {2}
    other |= {7}
    other &= {7, 9}
    return x * len(s)


@case(X, {1, 2, 3})
def set_arg_inplace_alias(x, s):
    alias = s
    s ^= {3, 8}
    alias.difference_update([8])
    return x, alias is s, sorted(s)


@case(X)
def frozenset_algebra_and_errors(x):
    f = frozenset([1, 2])
    try:
        f.add(3)
    except AttributeError:
        x = x + 1
    s = {1}
    try:
        s |= [2]
    except TypeError:
        x = x * 2
    return x, f.union([3]), f - {1}, {3} | f


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_mutation_semantics_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


class _Holder:
    """An object whose attribute the described trace sets."""


COUNTER = 0


def _mutates_everything(x, holder, items):
    global COUNTER
    holder.scale = 2
    items.append(1)
    COUNTER = 1
    return x * 2


def test_side_effects_describe_themselves_one_line_each():
    from loom_symbolic import translate_function

    lines = translate_function(_mutates_everything, X, _Holder(), []).side_effects
    assert lines == ["_Holder object.scale = 2", "list extended by 1", "global COUNTER = 1"]
