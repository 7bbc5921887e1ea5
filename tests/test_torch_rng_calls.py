"""``torch.manual_seed``, ``torch.get_rng_state``/``set_rng_state`` (``torch.random.fork_rng``), ``torch.initial_seed``
and ``torch.autograd._is_checkpoint_valid`` in a compiled frame: eager's draws and eager's RNG state afterwards,
with the calls made around the graph instead of breaking it."""

from __future__ import annotations

import pytest
import torch

import loom


def _state_restored(x):
    state = torch.get_rng_state()
    before = torch.rand(4)
    torch.set_rng_state(state)
    after = torch.rand(4)
    return x + 1, before, after


def _fork_rng(x):
    with torch.random.fork_rng(devices=[]):  # (all devices: a CUDA build reads the environment, a break)
        torch.manual_seed(3)
        a = torch.randn(3)
    return x + a


def _fork_rng_then_draw(x):
    with torch.random.fork_rng(devices=[]):  # (all devices: a CUDA build reads the environment, a break)
        torch.manual_seed(3)
        a = torch.randn(3)
    return x + a, torch.randn(3)


def _seed_first(x):
    torch.manual_seed(0)
    return torch.nn.functional.dropout(x, 0.5), torch.rand(2)


def _reseed_after_draws(x):
    a = torch.rand(3)
    torch.manual_seed(5)
    return x + a


def _state_read(x):
    s = torch.get_rng_state()
    return x + torch.rand(3), s


CASES = [(_state_restored, 1), (_fork_rng, 0), (_fork_rng_then_draw, 1), (_seed_first, 0),
         (_reseed_after_draws, 0), (_state_read, 0)]


def _outcome(fn, compiled):
    torch.manual_seed(1234)
    results = [compiled(torch.arange(3.0)) for _ in range(3)]
    return results, torch.get_rng_state()


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("fn,breaks", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_eager_s_draws_and_state(backend, fn, breaks):
    expected, expected_state = _outcome(fn, fn)
    loom.reset()
    got, got_state = _outcome(fn, loom.compile(fn, backend=backend, options={"strict": True}))
    for g, e in zip(got, expected):
        for a, b in zip(g, e):
            assert torch.equal(a, b)
    assert torch.equal(got_state, expected_state)
    report = loom.explain(fn)(torch.arange(3.0))
    assert report.graph_break_count == breaks
    assert all("drawing from torch's RNG" in b.what for b in report.breaks)


def test_state_read_after_a_draw_breaks():
    def f(x):
        a = torch.rand(2)
        return x.sum() + a, torch.get_rng_state()

    report = loom.explain(f)(torch.arange(3.0))
    assert [b.what for b in report.breaks] == ["torch.get_rng_state()"]


def test_a_state_made_otherwise_is_not_set_in_the_trace():
    def f(x, s):
        torch.set_rng_state(s)
        return x + torch.rand(3)

    report = loom.explain(f)(torch.arange(3.0), torch.get_rng_state())
    assert [b.what for b in report.breaks] == ["torch.set_rng_state()"]


def test_initial_seed_is_guarded():
    def f(x):
        return x + 1, torch.initial_seed()

    loom.reset()
    compiled = loom.compile(f, backend="eager", options={"strict": True})
    for seed in (3, 3, 4):
        torch.manual_seed(seed)
        assert compiled(torch.arange(3.0))[1] == seed
    assert loom.stats()["graphs"] == 2 and loom.stats()["graph_breaks"] == 0


def test_checkpoint_validity_is_asked_at_each_call():
    def f(x):
        return x * 2 if torch.autograd._is_checkpoint_valid() else x * 3

    loom.reset()
    compiled = loom.compile(f, backend="eager", options={"strict": True})
    seen = []
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: seen.append((compiled(g), f(g))))
    torch.autograd.grad(y.sum(), [x])  # hooks run with the checkpoint invalid
    assert torch.equal(compiled(torch.ones(2)), torch.ones(2) * 2)
    torch.testing.assert_close(seen[0][0], seen[0][1])
    torch.testing.assert_close(seen[0][0], torch.ones(2) * 3)
    assert loom.stats()["graph_breaks"] == 0


def test_dynamo_s_manual_seed_wrapper_is_traced():
    import torch._dynamo  # importing it wraps torch.manual_seed in torch._disable_dynamo

    assert torch.manual_seed is not torch.random.manual_seed

    def f(x):
        torch.manual_seed(1337)
        return torch.nn.Dropout(0.1)(x)

    assert loom.explain(f)(torch.ones(8)).graph_break_count == 0
    loom.reset()
    got, expected = loom.compile(f, backend="eager")(torch.ones(8)), f(torch.ones(8))
    assert torch.equal(got, expected)
