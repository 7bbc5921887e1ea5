"""``random.seed(a)`` in a compiled function (PyTorch's test_unspec seeds, then draws): made before the
graph call in its place among the draws, as the draws are, so the values drawn after it are the reseeded
RNG's, Python's RNG ends where eager leaves it, and the frame is one graph (it was a graph break). A seed
that is not a constant still breaks. ``random.getstate()``, and ``random.setstate()`` of a state it returned
in the trace, are made there too (the state is a value the rewritten code passes along). A
``random.Random(seed)`` the program makes with a constant seed draws what the seed fixes: its draws are
constants of the graph, and it leaves the frame in eager's state."""

from __future__ import annotations

import random

import torch

import loom


def draws_around_a_seed(x):
    a = random.random()
    random.seed(5)
    b = random.random()
    c = random.randint(1, 9)
    return x * a + b + c, b, c


def seed_from_the_tensor(x):
    random.seed(int(x.sum()))
    return x + random.random()


def _run(fn, seed):
    random.seed(seed)
    return fn(torch.arange(3.0)), random.getstate()


def test_seed_is_made_among_the_draws_in_one_graph():
    loom.reset()
    compiled = loom.compile(draws_around_a_seed, backend="eager", options={"strict": True})
    for seed in (0, 1):
        (out, b, c), state = _run(compiled, seed)
        (expected, eb, ec), expected_state = _run(draws_around_a_seed, seed)
        assert torch.equal(out, expected) and (b, c) == (eb, ec) and state == expected_state
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["frames_compiled"]) == (1, 0, 1), stats


def test_seed_of_a_value_known_only_at_run_time_breaks():
    loom.reset()
    compiled = loom.compile(seed_from_the_tensor, backend="eager", options={"strict": True})
    out, state = _run(compiled, 0)
    expected, expected_state = _run(seed_from_the_tensor, 0)
    assert torch.equal(out, expected) and state == expected_state
    assert loom.stats()["graph_breaks"] >= 1


# -- random.Random(seed) made in the trace ------------------------------------------------------------------------
def own_generator_draws(x):
    r = random.Random(3)
    a = r.randint(1, 9)
    state = r.getstate()
    b = r.random()
    r.setstate(state)
    return x + a + r.random(), b, r.gauss(0.0, 1.0)


def own_generator_returned(x):
    r = random.Random("seed")
    r.random()
    return x * r.uniform(1, 2), r


def generator_from_the_system(x):
    return x + random.Random().random()


def test_own_seeded_generator_draws_are_constants_of_one_graph():
    loom.reset()
    compiled = loom.compile(own_generator_draws, backend="eager", options={"strict": True})
    for _ in range(2):  # a new generator on every call, the same draws
        (out, b, g), state = _run(compiled, 0)
        (expected, eb, eg), expected_state = _run(own_generator_draws, 0)
        assert torch.equal(out, expected) and (b, g) == (eb, eg) and state == expected_state
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["frames_compiled"]) == (1, 0, 1), stats


def test_own_generator_leaves_the_frame_in_the_state_eager_leaves_it():
    loom.reset()
    (out, r), _ = _run(loom.compile(own_generator_returned, backend="eager", options={"strict": True}), 0)
    (expected, er), _ = _run(own_generator_returned, 0)
    assert torch.equal(out, expected) and type(r) is random.Random and r.getstate() == er.getstate()
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0)


def test_generator_seeded_from_the_system_breaks():
    loom.reset()
    out = loom.compile(generator_from_the_system, backend="eager", options={"strict": True})(torch.arange(3.0))
    assert out.shape == (3,) and loom.stats()["graph_breaks"] >= 1


# -- random.getstate() / random.setstate(state) -------------------------------------------------------------------
def replayed_draw(x):
    state = random.getstate()
    a = random.random()
    random.setstate(state)
    b = random.random()
    return x + a, a == b, b


def state_returned(x):
    random.random()
    return x * 2, random.getstate()


def state_across_a_break(x):
    state = random.getstate()
    a = random.random()
    y = x + a
    if y.sum() > 0:  # a data-dependent branch: a graph break, the state kept across it
        y = y * 2
    random.setstate(state)
    return y, random.random() == a


_SAVED = random.Random(11).getstate()


def state_from_elsewhere(x):
    random.setstate(_SAVED)
    return x + random.random()


def test_getstate_setstate_are_made_among_the_draws_in_one_graph():
    for fn in (replayed_draw, state_returned):
        loom.reset()
        compiled = loom.compile(fn, backend="eager", options={"strict": True})
        for seed in (0, 1):
            out, state = _run(compiled, seed)
            expected, expected_state = _run(fn, seed)
            assert repr(out) == repr(expected) and state == expected_state
        stats = loom.stats()
        assert (stats["graphs"], stats["graph_breaks"], stats["frames_compiled"]) == (1, 0, 1), (fn, stats)


def test_state_across_a_break_and_from_elsewhere_agree_with_eager():
    for fn in (state_across_a_break, state_from_elsewhere):
        loom.reset()
        out, state = _run(loom.compile(fn, backend="eager", options={"strict": True}), 3)
        expected, expected_state = _run(fn, 3)
        assert repr(out) == repr(expected) and state == expected_state
