"""A random factory called with ``requires_grad=True`` inside the compiled function (``torch.randn(3,
requires_grad=True)``, issue 29) is one graph: the draw stays in the graph, in order with its other draws
(eager's values and RNG state after, under ``torch.manual_seed``), and the result is eager's leaf that
requires grad, whose ``.grad`` a backward after the frame fills as eager's."""

from __future__ import annotations

import warnings

import pytest
import torch

import loom


def _between_draws(x):
    a = torch.randn(3)
    w = torch.randn(3, requires_grad=True)
    b = torch.rand(3)
    u = torch.rand(2, 3, dtype=torch.float64, requires_grad=True)
    return w, u, x * w + a + b, (u * 2).sum()


def _under_no_grad(x):
    with torch.no_grad():
        w = torch.randn_like(x, requires_grad=True)  # a leaf that requires grad whatever the grad mode
        y = x * 2
    return w, (w * y).sum(), x.sin()


def _run(fn):
    torch.manual_seed(0)
    outs = fn(torch.arange(3.0))
    sum(o.sum() for o in outs if o.requires_grad and o.grad_fn is not None).backward()
    leaves = [o for o in outs if o.is_leaf and o.requires_grad]
    facts = [(t.is_leaf, t.requires_grad, t.grad_fn is None, t.dtype) for t in leaves]
    return [o.detach() for o in outs], [t.grad for t in leaves], facts, torch.randn(2)  # the RNG goes on as eager's


def _same(actual, expected):
    (outs, grads, facts, after), (e_outs, e_grads, e_facts, e_after) = actual, expected
    for a, b in zip([*outs, *grads, after], [*e_outs, *e_grads, e_after]):
        assert torch.equal(a, b)
    assert facts == e_facts and len(outs) == len(e_outs)


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("fn", [_between_draws, _under_no_grad])
def test_one_graph_with_eager_s_draws_and_leaf(fn, backend):
    expected = _run(fn)
    loom.reset()
    compiled = loom.compile(fn, backend=backend, options={"strict": True})
    for _ in range(2):
        _same(_run(compiled), expected)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["cache_hits"]) == (1, 0, 1)


def test_the_default_backend_compiles_it_without_a_warning():
    expected = _run(_between_draws)
    loom.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a refused graph would warn and run uncompiled
        _same(_run(loom.compile(_between_draws)), expected)


def _integer(x):
    return torch.randint(0, 5, (3,), requires_grad=True) + x


def test_what_eager_refuses_raises_eager_s_error():
    with pytest.raises(RuntimeError) as eager:
        _integer(torch.ones(3))
    loom.reset()
    with pytest.raises(RuntimeError) as compiled:
        loom.compile(_integer, backend="eager")(torch.ones(3))
    assert str(compiled.value) == str(eager.value)
