"""Objects made in the trace that refer to themselves (``d['self'] = d``, ``l.append(l)``, ``o.me = o``)
and are still live at a graph break: the code after the graph creates each one empty, then fills it, so
the cycle holds (``d['self'] is d``) and the rebuild does not recurse forever. A list from the frame
that holds itself (a resumed frame receives one after such a break) is modelled with its cycle."""

import sys

import torch
from harness import check, run_rewritten

from loom_symbolic import translate_function


class Node:
    pass


def dict_holding_itself(x):
    d = {}
    d["self"] = d
    d["x"] = x + 1
    print("break", file=sys.stdout)
    return d["self"]["x"] * 2, d["self"] is d


def list_holding_itself(x):
    items = [x * 2]
    items.append(items)
    print("break", file=sys.stdout)
    return items[1][1][0] + 1, items[1] is items, len(items)


def object_pointing_at_itself(x):
    o = Node()
    o.me = o
    o.v = x + 3
    print("break", file=sys.stdout)
    return o.me.me.v * 3, o.me is o


def two_containers_in_a_cycle(x):
    d = {"x": x + 1}
    pair = [d]
    d["pair"] = pair
    print("break", file=sys.stdout)
    return d["pair"][0]["x"], d["pair"] is pair, pair[0] is d


def _translate_and_run(fn):
    x = torch.arange(3.0)
    translation = translate_function(fn, x)
    assert len(translation.breaks) == 1 and "print" in str(translation.breaks[0]), translation.dump()
    assert len(translation.graphs) == 1, translation.dump()  # the graph before the break
    return run_rewritten(fn, translation, (x,), {}), fn(x)


def test_a_dict_holding_itself_is_rebuilt_with_its_cycle(capsys):
    (value, same), (expected, eager_same) = _translate_and_run(dict_holding_itself)
    torch.testing.assert_close(value, expected)
    assert same is eager_same is True


def test_a_list_holding_itself_is_rebuilt_with_its_cycle(capsys):
    (value, same, n), (expected, eager_same, eager_n) = _translate_and_run(list_holding_itself)
    torch.testing.assert_close(value, expected)
    assert (same, n) == (eager_same, eager_n) == (True, 2)


def test_an_object_pointing_at_itself_is_rebuilt_with_its_cycle(capsys):
    (value, same), (expected, eager_same) = _translate_and_run(object_pointing_at_itself)
    torch.testing.assert_close(value, expected)
    assert same is eager_same is True


def test_two_containers_in_a_cycle_are_rebuilt_once_each(capsys):
    (value, a, b), (expected, ea, eb) = _translate_and_run(two_containers_in_a_cycle)
    torch.testing.assert_close(value, expected)
    assert (a, b) == (ea, eb) == (True, True)


def reads_a_list_holding_itself(items):
    return items[1][0] + 1, items[1] is items


def grows_a_list_holding_itself(items):
    items.append(items[0] * 2)
    return items[1][2] + 1, len(items[1])


def test_a_list_from_the_frame_holding_itself_is_modelled_with_its_cycle():
    # The list's variable is remembered before its items are wrapped: items[1] is that same variable.
    items = [torch.ones(2)]
    items.append(items)
    translation = translate_function(reads_a_list_holding_itself, items)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    (value, same), (expected, eager_same) = run_rewritten(reads_a_list_holding_itself, translation, (items,), {}), \
        reads_a_list_holding_itself(items)
    torch.testing.assert_close(value, expected)
    assert same is eager_same is True


def test_a_list_from_the_frame_holding_itself_gets_its_final_items_back():
    def fresh():
        items = [torch.ones(2)]
        items.append(items)
        return items

    translation = translate_function(grows_a_list_holding_itself, fresh())
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    expected_items = fresh()
    expected = grows_a_list_holding_itself(expected_items)
    items = fresh()
    value, n = run_rewritten(grows_a_list_holding_itself, translation, (items,), {})
    torch.testing.assert_close(value, expected[0])
    assert n == expected[1] == 3 and items[1] is items and len(items) == len(expected_items) == 3
    torch.testing.assert_close(items[2], expected_items[2])


def _repr_of_self_holding_containers(x):
    a = [1]
    a.append(a)
    d = {"k": 1}
    d["self"] = d
    pair = ([a],)
    return x * len(a), repr(a), repr(d), str(pair), len(d)


def test_a_container_holding_itself_is_no_constant_and_its_repr_is_cpython_s():
    # asking "is it a constant" walked into the cycle forever (RecursionError: the frame ran uncompiled)
    check(_repr_of_self_holding_containers, torch.arange(3.0))
