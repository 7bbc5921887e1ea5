"""``operator``'s functions in compiled code: those that change their first argument (``delitem``,
``setitem``, the in-place operators) act on the traced container, not on a folded copy of it, and
``operator.abs`` of a tensor is a graph op as ``abs`` is, and ``operator.call(f, ...)`` is the call
``f(...)``: eager's answer, in one graph."""

import operator

import torch
from harness import check

X = torch.arange(3.0)


def deletes_and_sets(x):
    d = {"a": 1}
    operator.setitem(d, "b", 2)
    operator.delitem(d, "a")
    items = [1, 2, 3]
    operator.setitem(items, slice(0, 2), [9])
    operator.__delitem__(items, 0)
    return x * operator.getitem(d, "b"), d, items


def adds_in_place(x):
    items = [1]
    same = operator.iadd(items, [2])
    return x + len(items), same is items, items


def concatenates_in_place(x):
    items = [1]
    same = operator.iconcat(items, (2, 3))
    return x + len(items), same is items, items, operator.concat([1], [2])


def deletes_from_an_argument(x, items):
    operator.delitem(items, slice(None, 2))
    return x + len(items)


def test_delitem_and_setitem_change_the_container():
    check(deletes_and_sets, X)


def test_iadd_extends_the_list_itself():
    check(adds_in_place, X)


def test_iconcat_extends_the_list_itself():
    check(concatenates_in_place, X)


def test_delitem_on_a_list_passed_in_is_seen_by_the_caller():
    check(deletes_from_an_argument, X, [1, 2, 3, 4])


def abs_of_tensors(x):
    y = operator.add(x, 1)
    return operator.abs(-y) + operator.neg(y)


def test_operator_abs_of_a_tensor_is_one_graph():
    check(abs_of_tensors, X)


def _record(log, value):
    log.append(value)
    return len(log)


def calls_through_operator_call(x):
    log = []
    n = operator.call(_record, log, "a")
    return operator.call(torch.add, x, n, alpha=2), log


def test_operator_call_runs_its_callable_traced():
    check(calls_through_operator_call, X)
