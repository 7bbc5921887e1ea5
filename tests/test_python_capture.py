"""Ordinary Python captured like torch.compile does: calls through lru_cache, iter(callable,
sentinel), class-attribute assignment. Each compared with eager, including the state left behind."""

from __future__ import annotations

import functools

import pytest
import torch
from breaks_harness import compare

import loom


@functools.lru_cache(maxsize=8)
def doubled(n):
    return n * 2


@functools.cache
def incremented(n):
    return n + 1


class Scaler:
    @functools.lru_cache(maxsize=4)  # noqa: B019  (the pattern under test)
    def factor(self):
        return 3


def lru_cached_calls(x):
    return x + doubled(3) + incremented(4) + Scaler().factor()


def lru_cached_tensor_function(x):
    @functools.lru_cache
    def scale(k):
        return k * 10

    return x * scale(2)


def iter_with_sentinel(x):
    values = iter([1, 2, 3, 0, 5])
    out = x
    for v in iter(lambda: next(values), 0):
        out = out + v
    return out


def iter_with_sentinel_never_met(x):
    values = iter([1, 2])
    return x + sum(iter(lambda: next(values), -1))


def iter_sentinel_not_callable(x):
    return list(iter(3, 0))


CASES = [lru_cached_calls, iter_with_sentinel, iter_with_sentinel_never_met]


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_captured_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


def test_iter_sentinel_errors_are_eagers():
    compare(iter_sentinel_not_callable, torch.ones(2))


def test_lru_cache_made_in_the_frame_breaks_cleanly():
    # (creating the C wrapper is not modelled: a graph break at the decorator, eager's answer)
    compare(lru_cached_tensor_function, torch.arange(3.0))


# -- class attributes ---------------------------------------------------------------------------------
class Registry:
    count = 0
    scale = 2


class SubRegistry(Registry):
    pass


def bump_and_read(x):
    Registry.count += 1
    item = SubRegistry()
    return x + Registry.count + item.count + SubRegistry.count + type(item).count


def shadowed_on_instance(x):
    item = Registry()
    item.count = 10
    Registry.count = 5
    return x + item.count + Registry().count


def set_on_subclass(x):
    SubRegistry.scale = 7
    return x * Registry.scale + SubRegistry.scale


EXISTING = SubRegistry()


def read_through_existing_instance(x):
    Registry.count += 2
    return x + EXISTING.count


def reset():
    Registry.count = 0
    Registry.scale = 2
    if "scale" in SubRegistry.__dict__:
        del SubRegistry.scale


def state():
    return Registry.count, Registry.scale, SubRegistry.scale, dict(vars(SubRegistry)).get("scale")


@pytest.mark.parametrize("fn", [bump_and_read, shadowed_on_instance, set_on_subclass, read_through_existing_instance])
def test_class_attribute_assignment_is_replayed_and_read_back(fn):
    x = torch.arange(3.0)
    reset()
    expected, expected_state = fn(x), state()
    again, again_state = fn(x), state()
    reset()
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    torch.testing.assert_close(compiled(x), expected)
    assert state() == expected_state
    torch.testing.assert_close(compiled(x), again)  # the class changed: guards see it
    assert state() == again_state
    reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report
    reset()


# -- modules with forward hooks -------------------------------------------------------------------------
def _hooked_model():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    model[0].register_forward_pre_hook(lambda m, args: (args[0] + 1,))
    model[0].register_forward_hook(lambda m, args, out: out * 2)
    model[2].register_forward_hook(lambda m, args, out: None)  # returns None: the output stays
    model[2].register_forward_pre_hook(lambda m, args, kwargs: ((args[0] - 1,), kwargs), with_kwargs=True)
    model[2].register_forward_hook(lambda m, args, kwargs, out: out + args[0].sum(), with_kwargs=True)
    return model


def test_forward_hooks_are_inlined():
    model = _hooked_model()
    x = torch.randn(5, 3)
    expected = model(x)
    loom.reset()
    compiled = loom.compile(model, backend="eager")
    torch.testing.assert_close(compiled(x), expected)
    report = loom.explain(model)(x)
    assert report.graph_count == 1 and report.break_count == 0, report


def test_hooks_registered_or_removed_later_recompile():
    model = torch.nn.Linear(3, 3)
    x = torch.randn(2, 3)
    loom.reset()
    compiled = loom.compile(model, backend="eager")
    torch.testing.assert_close(compiled(x), model(x))
    handle = model.register_forward_hook(lambda m, args, out: out * 3)
    torch.testing.assert_close(compiled(x), model(x))
    handle.remove()
    torch.testing.assert_close(compiled(x), model(x))
    handle = torch.nn.modules.module.register_module_forward_hook(lambda m, args, out: out - 1)
    try:
        torch.testing.assert_close(compiled(x), model(x))
    finally:
        handle.remove()


def test_backward_hooks_still_run_the_module_outside_the_graph():
    model = torch.nn.Linear(3, 3)
    seen = []
    model.register_full_backward_hook(lambda m, gin, gout: seen.append(len(gout)))
    x = torch.randn(2, 3, requires_grad=True)
    loom.reset()
    loom.compile(lambda t: model(t).sum(), backend="eager")(x).backward()
    assert seen == [1]


# -- sizes as dict keys -----------------------------------------------------------------------------------
def memo_by_size(x):
    memo = {}
    n = x.shape[0]
    memo[n] = x * 2
    memo[n + 1] = x
    seen = {n: "first"}
    return memo[n] + memo[x.shape[0] + 1], n in memo, seen.get(n), len(memo)


def test_symbolic_sizes_as_dict_keys_specialise():
    loom.reset()
    compiled = loom.compile(memo_by_size, dynamic=True, backend="eager")
    for size in (3, 5, 3):
        x = torch.arange(float(size))
        actual, expected = compiled(x), memo_by_size(x)
        torch.testing.assert_close(actual[0], expected[0])
        assert actual[1:] == expected[1:]
    assert loom.stats()["graph_breaks"] == 0


# -- uncaught raise ---------------------------------------------------------------------------------------
class CodedError(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


LOG = []


def raise_user_error_after_effects(x):
    LOG.append("before")
    y = x * 2
    raise CodedError("bad", y.shape[0])


def raise_builtin_error_in_helper(x):
    def check(v):
        if v.shape[0] == 3:
            raise ValueError("nope", v.shape[0])
        return v

    return check(x + 1)


# breaks: at the raise; raised in an inlined helper, at the call and then at the raise in the
# helper's own frame (which runs, and is compiled, natively so that the traceback is eager's)
@pytest.mark.parametrize("fn, breaks", [(raise_user_error_after_effects, 1), (raise_builtin_error_in_helper, 2)])
def test_uncaught_raise_propagates_as_in_eager(fn, breaks):
    x = torch.arange(3.0)
    LOG.clear()
    with pytest.raises(Exception) as eager:
        fn(x)
    eager_log = list(LOG)
    LOG.clear()
    loom.reset()
    with pytest.raises(Exception) as compiled:
        loom.compile(fn, backend="eager")(x)
    assert type(compiled.value) is type(eager.value) and compiled.value.args == eager.value.args
    assert vars(compiled.value) == vars(eager.value) and LOG == eager_log
    assert loom.stats()["graph_breaks"] <= breaks


# -- generators' send and close ----------------------------------------------------------------------------
def _accumulator():
    total = 0
    while True:
        received = yield total
        total += received


def _guarded():
    try:
        yield 1
        yield 2
    finally:
        LOG.append("closed")


def generator_send(x):
    acc = _accumulator()
    next(acc)
    acc.send(2)
    last = acc.send(3)
    acc.close()
    return x + last, list(acc)


def generator_send_to_fresh_raises(x):
    return _accumulator().send(1)


def generator_close_in_try_block(x):
    LOG.clear()
    g = _guarded()
    first = next(g)
    g.close()
    return x + first, list(LOG)


def test_generator_send_and_close_captured():
    stats = compare(generator_send, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


@pytest.mark.parametrize("fn", [generator_send_to_fresh_raises, generator_close_in_try_block])
def test_generator_edge_cases_are_eagers(fn):
    LOG.clear()
    compare(fn, torch.arange(3.0))
    LOG.clear()
