"""``torch.Generator`` objects in a compiled frame (made in it, or handed in): their calls and draws with constant
arguments are made by the rewritten code before the graph call, so the values and the generators' states are
eager's, with no graph break."""

from __future__ import annotations

import pytest
import torch

import loom


def _made_and_seeded(x):
    g = torch.Generator().manual_seed(5)
    a = torch.randn(3, generator=g)
    b = torch.randint(0, 9, (3,), generator=g)
    return x + a + b, torch.randperm(4, generator=g), g.initial_seed()


def _state_round_trip(x, g):
    s = g.get_state()
    a = torch.rand(3, generator=g)
    g.set_state(s)
    return x + a, torch.rand(3, generator=g), torch.rand(2)


def _mixed_with_global_draws(x, g):
    a = torch.rand(2)
    return x.sum() + a + torch.rand(2, generator=g), torch.rand(2)


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("fn", [_made_and_seeded, _state_round_trip, _mixed_with_global_draws])
def test_draws_and_states_are_eager_s(backend, fn):
    def run(callable_):
        torch.manual_seed(0)
        g = torch.Generator().manual_seed(3)
        args = (torch.arange(3.0), g)[: fn.__code__.co_argcount]
        results = [callable_(*args) for _ in range(3)]  # the handed-in generator goes on from call to call
        return results, g.get_state(), torch.get_rng_state()

    expected, expected_g, expected_rng = run(fn)
    loom.reset()
    got, got_g, got_rng = run(loom.compile(fn, backend=backend, options={"strict": True}))
    for g_result, e_result in zip(got, expected):
        for a, b in zip(g_result, e_result):
            assert torch.equal(a, b) if isinstance(b, torch.Tensor) else a == b
    assert torch.equal(got_g, expected_g) and torch.equal(got_rng, expected_rng)
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


def test_a_generator_made_in_the_frame_is_handed_back_in_its_state():
    def f(x):
        g = torch.Generator().manual_seed(2)
        return x + torch.rand(2, generator=g), g

    loom.reset()
    compiled = loom.compile(f, backend="eager", options={"strict": True})
    (got, g1), (_, g2) = compiled(torch.ones(2)), compiled(torch.ones(2))
    expected, eager_g = f(torch.ones(2))
    assert torch.equal(got, expected) and torch.equal(g1.get_state(), eager_g.get_state())
    assert g1 is not g2  # a new generator on every call, as in eager


def test_draws_that_need_graph_values_break():
    def f(x):
        g = torch.Generator().manual_seed(1)
        return x.clone().uniform_(generator=g), torch.rand(2, generator=torch.default_generator)

    report = loom.explain(f)(torch.ones(2))
    assert [b.what for b in report.breaks] == ["uniform_() drawing from a torch.Generator object",
                                               "rand() drawing from a torch.Generator object"]
    loom.reset()
    torch.manual_seed(0)
    got = loom.compile(f, backend="eager")(torch.ones(2))
    torch.manual_seed(0)
    expected = f(torch.ones(2))
    assert all(torch.equal(a, b) for a, b in zip(got, expected))


def test_a_method_not_modelled_breaks_at_its_call():
    def f(x):
        g = torch.Generator()
        s = g.seed()
        return x + 1, s > 0, torch.rand(2, generator=g).shape

    report = loom.explain(f)(torch.ones(3))
    assert [b.what for b in report.breaks] == ["torch.Generator.seed()"]
    assert report.graph_count == 1  # (the part before the break makes no graph)


def test_the_default_generator_s_methods_are_the_global_rng_s_calls():
    def f(x):
        state = torch.default_generator.get_state()
        a = torch.rand(3)
        torch.default_generator.set_state(state)
        g = torch.default_generator.manual_seed(4)
        return x + a, g is torch.default_generator, torch.manual_seed(5) is g

    loom.reset()
    torch.manual_seed(0)
    got = loom.compile(f, backend="eager", options={"strict": True})(torch.ones(3))
    got_state = torch.get_rng_state()
    torch.manual_seed(0)
    expected = f(torch.ones(3))
    assert torch.equal(got[0], expected[0]) and got[1:] == expected[1:] == (True, True)
    assert torch.equal(got_state, torch.get_rng_state())
    assert loom.explain(f)(torch.ones(3)).graph_break_count == 0
