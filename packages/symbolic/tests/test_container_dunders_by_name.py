"""Special methods of lists, tuples, sets, dicts and their iterators called by name (``p.__add__(q)``,
``s.__ior__(t)``, ``set.__sub__(a, b)``, ``lst.__delitem__(slice(1, 3))``, ``it.__iter__()``,
``it.__next__()``) are their operators, traced; reading them was a graph break before. ``del lst[::0]``
raises the program's ValueError (an internal error before); ``[1].__add__({})`` its TypeError."""

import torch
from harness import check


def list_and_tuple_dunders(x):
    p, q, t = list("abc"), list("bcd"), tuple("ab")
    out = [p.__add__(q), t.__add__(("z",)), t.__mul__(2), p.__rmul__(2), p.__eq__(list("abc")), p.__ne__(q),
           p.__lt__(q), q.__ge__(p), t.__le__(("a", "c")), list.__add__(p, ["e"])]
    r = p.__iadd__("de")
    p.__imul__(2)
    p.__delitem__(0)
    p.__delitem__(slice(1, 3))
    it = q.__iter__().__iter__()
    first, second = next(it), it.__next__()
    return x + len(p), out, r is p, p, first, second, list(it)


def set_and_dict_dunders(x):
    p, q, f = set("abc"), set("bef"), frozenset("ab")
    out = [p.__or__(q), p.__and__(q), p.__sub__(q), p.__xor__(q), set.__sub__(p, q), f.__or__(p), f.__lt__(p),
           frozenset.__and__(f, q), p.__eq__(set("cba"))]
    s = p.__ior__(f)
    s.__isub__({"a"})
    d = {"a": x}
    e = d.__or__({"b": 1})
    d.__ior__({"c": 2})
    keys = list(d.__iter__())
    return x + len(out), [sorted(v) if isinstance(v, (set, frozenset)) else v for v in out], sorted(s), s is p, e, d, keys


def exhausted_iterator_dunder_next(x):
    it = iter([x])
    first = it.__next__()
    try:
        it.__next__()
    except StopIteration:
        return first + 1
    return first


def delete_with_step_zero(x):
    p = list("abc")
    try:
        del p[::0]
    except ValueError as e:
        return x + 1, str(e), p
    return x, "", p


def test_list_and_tuple_dunders_are_their_operators():
    check(list_and_tuple_dunders, torch.ones(2))


def test_set_and_dict_dunders_are_their_operators():
    check(set_and_dict_dunders, torch.ones(2))


def test_iterator_next_by_name_raises_stop_iteration():
    check(exhausted_iterator_dunder_next, torch.ones(2))


def test_slice_deletion_with_step_zero_raises():
    check(delete_with_step_zero, torch.ones(2))


def concatenating_other_kinds(x):
    texts = []
    for left, right in (([1], {"a": 1}), ((1,), [1])):
        try:
            left.__add__(right)
        except TypeError as e:
            texts.append(str(e))
    return x + len(texts), texts


def test_sequence_add_of_another_kind_raises_its_type_error():
    check(concatenating_other_kinds, torch.ones(2))


def class_of_containers(x):
    import collections

    found = [[1].__class__, {"a": 1}.__class__, {1}.__class__, frozenset({2}).__class__, (1,).__class__,
             collections.OrderedDict().__class__, collections.defaultdict(int).__class__]
    return x + len(found), found


def test_class_attribute_of_containers():
    """``obj.__class__`` of a list, dict, set or frozenset made in the trace is its exact type (what
    ``functools.singledispatch`` reads; a graph break before)."""
    check(class_of_containers, torch.arange(3.0))
