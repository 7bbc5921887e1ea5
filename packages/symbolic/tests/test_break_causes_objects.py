"""Issue 29's last break causes among the standard library's objects, each captured in one graph with
eager's answer: a ``mappingproxy`` read from the frame (``keys()``, ``values()``, ``items()``, iteration),
``weakref.ref`` objects from the frame and made in the trace, and iterators handed in as arguments
(``list_iterator``, ``tuple_iterator``) that the trace advances."""

import copy
import dataclasses
import inspect
import sys
import types
import weakref

import pytest
import torch
from harness import CaseRegistry, check, run_rewritten

import loom_guards
from loom_symbolic import translate_function

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


class Marked:
    marker = 1

    def method(self):
        return 2


class Tables:
    proxy = types.MappingProxyType({"a": 1, "bb": 2})  # (a global one: the harness deep-copies globals)


def _processor(attn, hidden_states, encoder_hidden_states=None):
    return hidden_states


@case(X)
def mappingproxy_views(x):
    keys = Marked.__dict__.keys()
    proxy = Tables.proxy
    n = len(proxy) + proxy["bb"] + proxy.get("z", 5) + sum(proxy.values())
    for key, value in proxy.items():
        n += len(key) * value
    return x + n + ("marker" in keys) + ("absent" in keys) + len([k for k in keys if not k.startswith("__")]), \
        sorted(k for k in proxy)


@case(X)
def signature_parameters_keys(x):
    n = 0
    for name in inspect.signature(_processor).parameters.keys():  # odict_keys of a mappingproxy
        n += len(name)
    return x + n


def writes_to_a_mappingproxy(x):
    try:
        Tables.proxy["c"] = 3
    except TypeError as exc:
        return x + 1, type(exc).__name__


def test_a_mappingproxy_refuses_writes_as_eager_does():
    check(writes_to_a_mappingproxy, X)


def test_a_mappingproxy_read_from_the_frame_recompiles_when_its_keys_change():
    translation = translate_function(mappingproxy_views, X)
    guards = "\n".join(str(g) for g in translation.guards)
    assert "G['Tables'].proxy" in guards and "keys" in guards.lower(), guards


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_captured_with_eager_answer(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


class Holder:
    def __init__(self, t, n=1):
        self.t = t
        self.n = n


def through_weak_reference(x, ref):
    target = ref()
    if target is None:
        return x - 1
    return x * target.n + target.t


def test_a_weak_reference_argument_guards_its_referent():
    held = Holder(torch.full((3,), 2.0), 3)
    ref = weakref.ref(held)
    translation = check(through_weak_reference, X, ref)
    guards = "\n".join(str(g) for g in translation.guards)
    assert "L['ref']().n" in guards and "type(L['ref']())" in guards, guards
    guard = loom_guards.compile(translation.guards)
    assert guard({"x": X, "ref": ref})
    other = Holder(torch.ones(3), 4)  # another referent, another value of n: the guard fails
    assert not guard({"x": X, "ref": weakref.ref(other)})
    marked = Marked()
    assert not guard({"x": X, "ref": weakref.ref(marked)})
    dead = weakref.ref(Holder(X))
    assert not guard({"x": X, "ref": dead})
    check(through_weak_reference, X, dead)  # a dead reference is traced as None


@case(X)
def weak_reference_made_here(x):
    held = Holder(x + 1, 2)
    ref = weakref.ref(held)
    same = ref is weakref.ref(held)
    return ref().t * ref().n, same, type(ref).__name__


def weak_reference_to_an_int(x):
    try:
        weakref.ref(3)
    except TypeError:
        return x + 1


def test_weak_reference_to_an_int_raises_as_eager():
    check(weak_reference_to_an_int, X)


def test_a_weak_reference_made_here_is_rebuilt_over_its_referent():
    def made_and_returned(x, holder):
        return x + 1, weakref.ref(holder)

    holder = Holder(X)
    translation = translate_function(made_and_returned, X, holder)
    assert not translation.breaks, translation.dump()
    _, ref = run_rewritten(made_and_returned, translation, (X, holder), {})
    assert type(ref) is weakref.ref and ref() is holder


def _state(it):
    """Where an iterator is: its remaining items, read from a copy."""
    return list(copy.copy(it))


def _run_both(fn, make_args):
    eager_args, loom_args = make_args(), make_args()
    translation = translate_function(fn, *make_args())
    assert not translation.breaks, translation.dump()
    expected = fn(*eager_args)
    actual = run_rewritten(fn, translation, loom_args, {})
    return translation, expected, actual, eager_args, loom_args


def loop_over_an_iterator(x, it):
    out = x
    for v in it:
        out = out + v
    return out


def take_two(x, it):
    return x + next(it) * 10 + next(it), next(it, "end")


def appends_while_iterating(x, it, items):
    out = x
    for v in it:
        if v == 1:
            items.append(5)
        out = out + v
    return out


@pytest.mark.parametrize("make", [list, tuple])
@pytest.mark.parametrize(("fn", "skip"), [(loop_over_an_iterator, 0), (loop_over_an_iterator, 1), (take_two, 0),
                                          (take_two, 1)])
def test_an_iterator_argument_is_advanced_as_eager_advances_it(fn, skip, make):
    def args():
        it = iter(make([1, 2, 3]))
        for _ in range(skip):
            next(it)
        return X.clone(), it

    translation, expected, actual, eager_args, loom_args = _run_both(fn, args)
    assert len(translation.graphs) == 1
    torch.testing.assert_close(actual[0] if isinstance(actual, tuple) else actual,
                               expected[0] if isinstance(expected, tuple) else expected)
    assert actual[1:] == expected[1:] if isinstance(expected, tuple) else True
    assert _state(loom_args[1]) == _state(eager_args[1])
    guard = loom_guards.compile(translation.guards)
    assert guard({"x": X, "it": args()[1]})
    moved = args()[1]
    next(moved)
    assert not guard({"x": X, "it": moved})  # another position: compiled again


def test_an_iterator_run_to_its_end_stays_exhausted_after_appends():
    def args():
        items = [1, 2]
        return X.clone(), iter(items), items

    _, expected, actual, eager_args, loom_args = _run_both(appends_while_iterating, args)
    torch.testing.assert_close(actual, expected)
    assert loom_args[2] == eager_args[2] == [1, 2, 5]
    loom_args[2].append(7)
    eager_args[2].append(7)
    assert list(loom_args[1]) == list(eager_args[1]) == []  # exhausted in both: the 7 is not seen


def test_an_iterator_live_across_a_graph_break_goes_on_as_itself():
    def loop_with_break(x, it):
        out = x
        for v in it:
            out = out + v
            if v == 2:
                print("two", file=sys.stdout)
                break
        return out, next(it)

    def args():
        return X.clone(), iter([1, 2, 3, 4])

    eager_args, loom_args = args(), args()
    expected = loop_with_break(*eager_args)
    translation = translate_function(loop_with_break, *args())
    assert translation.breaks  # print(, file=sys.stdout) is a graph break here
    actual = run_rewritten(loop_with_break, translation, loom_args, {})
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1] and _state(loom_args[1]) == _state(eager_args[1])


def sum_keys_and_items(x, keys, items):
    out = x
    for k in keys:
        out = out + len(k)
    for k, v in items:
        out = out * v + len(k)
    return out


@pytest.mark.parametrize("skip", [0, 1, 3])
def test_dict_iterator_arguments_walk_the_dict_from_where_they_are(skip):
    def args():
        d = {"a": 1, "bb": 2, "ccc": 3}
        keys, items = iter(d), iter(d.items())
        for _ in range(skip):
            next(keys)
            next(items)
        return X.clone(), keys, items

    translation, expected, actual, eager_args, loom_args = _run_both(sum_keys_and_items, args)
    torch.testing.assert_close(actual, expected)
    assert _state(loom_args[1]) == _state(eager_args[1]) and _state(loom_args[2]) == _state(eager_args[2])
    guard = loom_guards.compile(translation.guards)
    assert guard(dict(zip(("x", "keys", "items"), args())))
    other = args()
    next(other[1], None)
    assert skip == 3 or not guard(dict(zip(("x", "keys", "items"), other)))


def grows_while_walked(x, keys, d):
    out = x
    for k in keys:
        d[k * 2] = 1
        out = out + 1
    return out


def test_a_dict_changed_while_its_iterator_is_walked_raises_as_eager():
    def args():
        d = {"a": 1, "b": 2}
        return X.clone(), iter(d), d

    eager_args = args()
    with pytest.raises(RuntimeError, match="changed size") as eager_error:
        grows_while_walked(*eager_args)
    translation = translate_function(grows_while_walked, *args())
    loom_args = args()
    with pytest.raises(RuntimeError, match="changed size") as loom_error:
        run_rewritten(grows_while_walked, translation, loom_args, {})
    assert str(loom_error.value) == str(eager_error.value)
    assert loom_args[2] == eager_args[2] == {"a": 1, "b": 2, "aa": 1}


@dataclasses.dataclass
class Config:
    size: int
    name: str = "base"
    inner: object = None


@case(X)
def str_of_dataclasses(x):
    made = Config(3, inner=Config(1))
    text = str(made) + repr(Config(2, "b"))
    return x + len(text), text, f"{made!r}"


def a_dataclass_holding_itself(x, loop):
    return x + 1, repr(loop)  # eager: Config(size=1, name='base', inner=...)


def test_a_repr_that_reaches_its_own_object_keeps_eager_text():
    loop = Config(1)
    loop.inner = loop
    translation = translate_function(a_dataclass_holding_itself, X, loop)
    actual = run_rewritten(a_dataclass_holding_itself, translation, (X, loop), {})
    expected = a_dataclass_holding_itself(X, loop)
    assert actual[1] == expected[1] and "inner=..." in expected[1]


def test_the_running_set_of_a_dataclass_repr_is_guarded_empty():
    translation = translate_function(str_of_dataclasses, X)
    guard = loom_guards.compile(translation.guards)
    frame = types.SimpleNamespace(f_locals={"x": X}, f_globals=globals(), closure=None)
    assert guard.why_failed(frame) is None
    running = Config.__repr__.__closure__[Config.__repr__.__code__.co_freevars.index("repr_running")].cell_contents
    running.add((1, 2))  # as while a repr of a Config runs: the compiled code is not used then
    try:
        assert guard.why_failed(frame) is not None
    finally:
        running.discard((1, 2))


@pytest.mark.parametrize("taken_before", [0, 1])
@pytest.mark.parametrize("stop_at", [2, 3])
def test_an_iterator_looped_over_itself_resumes_where_it_was(taken_before, stop_at):
    # The loop's iterator is the argument itself: the resume function rebuilds it by stepping from where
    # the loop found it, not by setting an absolute index, and moves it even when the loop then ends.
    def loop_with_break(x, it, stop):
        out = x
        for v in it:
            out = out + v
            print("item", v, file=sys.stdout)
            if v == stop:
                break
        return out, next(it, None)

    def args():
        it = iter([1, 2, 3, 4, 5])
        for _ in range(taken_before):
            next(it)
        return X.clone(), it, stop_at

    eager_args, loom_args = args(), args()
    expected = loop_with_break(*eager_args)
    translation = translate_function(loop_with_break, *args())
    actual = run_rewritten(loop_with_break, translation, loom_args, {})
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1] and _state(loom_args[1]) == _state(eager_args[1])

