"""A higher-order op's function may write in place the tensors it made itself, and may open grad-mode and
autocast blocks: ``cond``'s branches, ``map``'s, ``while_loop``'s and ``wrap``'s functions and checkpointed
functions are then one sub-graph, as under torch.compile, with eager's values and gradients. Writing the
caller's tensors (inputs, views of them, tensors the function closes over) is still refused as eager refuses it.
"""

from __future__ import annotations

import pytest
import torch
import torch.utils._pytree as pytree
from torch._higher_order_ops.map import map as hop_map
from torch._higher_order_ops.while_loop import while_loop
from torch._higher_order_ops.wrap import wrap
from torch.utils.checkpoint import checkpoint

import loom
import loom_backends

BACKENDS = [name for name in ("eager", "aot_eager", "c") if name in loom_backends.names()]
HOPS = torch.ops.higher_order


def targets(report):
    return [n.target for g in report.graphs for n in g.graph_module.graph.nodes if n.op == "call_function"]


def leaves(value):
    return [t for t in pytree.tree_leaves(value) if isinstance(t, torch.Tensor)]


def check(fn, make_args, backend, op, grads=False):
    """One graph holding ``op``, no break, eager's values (and the inputs' gradients after a backward run
    outside the compiled function), no recompile on a second call."""
    loom.reset()
    report = loom.explain(fn, backend=backend)(*make_args())
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    assert op in targets(report)
    loom.reset()
    compiled = loom.compile(fn, backend=backend)
    args_want, args_got = make_args(), make_args()
    want, got = fn(*args_want), compiled(*args_got)
    assert len(leaves(got)) == len(leaves(want))
    for g, w in zip(leaves(got), leaves(want)):
        torch.testing.assert_close(g, w)
    if grads:
        sum(t.sum() for t in leaves(want)).backward()
        sum(t.sum() for t in leaves(got)).backward()
        for g, w in zip(args_got, args_want):
            torch.testing.assert_close(g.grad, w.grad)
    compiled(*make_args())
    assert loom.stats()["graphs"] == 1 and loom.stats()["recompiles"] == 0


def plain():
    return (torch.tensor([0.5, 1.0, 2.0]),)


def leaf():
    return (torch.tensor([0.5, 1.0, 2.0], requires_grad=True),)


# -- writes to the function's own tensors ---------------------------------------------------------------------------
def cond_accumulates_leaves(x):
    def total(tree):
        acc = 0
        for v in pytree.tree_leaves(tree):
            acc += v  # the first sum makes acc: the later ones write it in place
        return acc

    def biggest(tree):
        return torch.stack(pytree.tree_leaves(tree)).amax(0)
    return torch.cond(x.sum() > 1, total, biggest, ((x, [x * 2]),))


def map_writes_its_copy(x):
    def body(row):
        u = row * 1
        u[0] = 5.0
        u.mul_(2)
        return u
    return hop_map(body, x.reshape(3, 1).expand(3, 2) + 0)


def loop_writes_a_temporary(x):
    def body(i, t):
        u = t.clone()
        u.add_(i)
        return i + 1, u
    return while_loop(lambda i, t: i < 3, body, (torch.tensor(0), x))


def ckpt_writes_a_view_of_its_own(x):
    def fn(t):
        u = t * 3
        u[1:].mul_(t[1:])
        return u.sin()
    return checkpoint(fn, x, use_reentrant=False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cond_branch_accumulating_in_place_is_one_graph(backend):
    check(cond_accumulates_leaves, plain, backend, HOPS.cond)


@pytest.mark.parametrize("backend", BACKENDS)
def test_map_body_writing_its_own_copy_is_one_graph(backend):
    check(map_writes_its_copy, plain, backend, HOPS.map_impl)


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_loop_body_writing_a_temporary_is_one_graph(backend):
    check(loop_writes_a_temporary, plain, backend, HOPS.while_loop)


@pytest.mark.parametrize("backend", BACKENDS)
def test_checkpointed_function_writing_its_own_tensor_keeps_eagers_gradients(backend):
    check(ckpt_writes_a_view_of_its_own, leaf, backend, HOPS.tag_activation_checkpoint, grads=True)


# -- autocast blocks inside ----------------------------------------------------------------------------------------
def cond_autocast_branch(x):
    def true_fn(t):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            u = t.t().mm(t)
        return u.float().sum(0)

    def false_fn(t):
        return t.sum(0)
    t = x.reshape(1, 3)
    return torch.cond(t.sum() > 0, true_fn, false_fn, (t,))


def ckpt_autocast_block(x):
    def fn(t):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            u = t.t().mm(t)
        return u.float() * t
    return checkpoint(fn, x.reshape(1, 3), use_reentrant=False)


def wrap_autocast_disabled(x):
    def body(t):
        with torch.autocast("cpu", enabled=False):
            return t.t().mm(t)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return wrap(body, x.reshape(1, 3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_cond_branch_with_an_autocast_block_is_one_graph(backend):
    check(cond_autocast_branch, plain, backend, HOPS.cond)


@pytest.mark.parametrize("backend", BACKENDS)
def test_checkpointed_function_with_an_autocast_block_keeps_eagers_gradients(backend):
    check(ckpt_autocast_block, leaf, backend, HOPS.tag_activation_checkpoint, grads=True)


def test_wrap_body_disabling_autocast_is_a_sub_graph():
    check(wrap_autocast_disabled, plain, "eager", HOPS.wrap)


# -- writes to the caller's tensors stay refused --------------------------------------------------------------------
_HELD = torch.ones(3)


def ckpt_writes_its_input_view(x):
    def fn(t):
        t[0:2].mul_(3)
        return t.sin()
    return checkpoint(fn, x * 1, use_reentrant=False)


def ckpt_writes_a_closed_over_tensor(x):
    def fn(t):
        _HELD.add_(1)
        return t * 2
    return checkpoint(fn, x, use_reentrant=False)


@pytest.mark.parametrize("fn", [ckpt_writes_its_input_view, ckpt_writes_a_closed_over_tensor])
def test_writing_the_callers_tensors_is_still_one_break(fn):
    _HELD.fill_(1)
    report = loom.explain(fn, backend="eager")(torch.arange(3.0))
    assert report.graph_break_count == 1 and "in place" in report.breaks[0].why
    _HELD.fill_(1)
    want, held = fn(torch.arange(3.0)), _HELD.clone()
    _HELD.fill_(1)
    loom.reset()
    got = loom.compile(fn, backend="eager")(torch.arange(3.0))
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(_HELD, held)
