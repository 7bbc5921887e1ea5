"""Constructs from PyTorch's test/dynamo/ test_ctx_manager.py, test_higher_order_ops.py and test_repros.py
that loom broke on where torch.compile does not (``tools/bench/capture_count_dynamo_tests_ctx*.py``): each
compiled with the ``eager`` backend, checked against eager, and pinned at its graph and break counts.
"""

from __future__ import annotations

import pytest
import torch

import loom


def explained(fn, *args):
    """``loom.explain`` of one call with the eager backend."""
    return loom.explain(fn, backend="eager")(*args)


def same(got, want):
    if isinstance(want, torch.Tensor):
        assert got.dtype == want.dtype and got.shape == want.shape
        torch.testing.assert_close(got, want)
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            same(got[k], want[k])
    else:
        assert got == want


def compiled_matches_eager(fn, *args):
    same(loom.compile(fn, backend="eager")(*args), fn(*args))


# -- torch.cond with operands that fold to a constant ------------------------------------------------------------
def cond_without_operands(x):
    a = torch.cond(x.sum() > 0, lambda: torch.sin(x), lambda: torch.cos(x), ())
    b = torch.cond(x.sum() > 0, lambda: torch.ones(3), lambda: torch.ones(3).sin())
    return a, b


def test_cond_with_empty_operands_is_one_graph():
    for x in (torch.arange(3.0), -torch.arange(1.0, 4.0)):
        report = explained(cond_without_operands, x)
        assert (report.graph_count, report.break_count) == (1, 0), report
        compiled_matches_eager(cond_without_operands, x)


def cond_over_ints(x):
    return torch.cond(x.sum() > 0, lambda n, m: x * n + m, lambda n, m: x - n - m, [2, 3])


def cond_over_a_tensor_and_an_int(x):
    n = 2
    return torch.cond(x.sum() > 0, lambda a, k: a * k, lambda a, k: a - k, (x, n))


def cond_over_a_nested_string(x):
    return torch.cond(x.sum() > 0, lambda a, d: a + 1, lambda a, d: a - 1, (x, {"k": ["s"]}))


@pytest.mark.parametrize("fn", [cond_over_ints, cond_over_a_tensor_and_an_int, cond_over_a_nested_string])
def test_cond_over_non_tensor_operands_raises_as_eager_does(fn):
    x = torch.arange(3.0)
    with pytest.raises(RuntimeError, match="operands"):
        fn(x)
    with pytest.raises(RuntimeError, match="operands"):
        loom.compile(fn, backend="eager")(x)


# -- torch.autocast(...) used as a decorator ---------------------------------------------------------------------------
def autocast_decorator_made_inside(x):
    def lowered(fn):
        @torch.autocast(device_type="cpu", dtype=torch.bfloat16)
        def wrapped(*args, **kwargs):
            return fn(*args, **kwargs)

        return wrapped

    out = lowered(torch.mm)(x[None], x[:, None])
    return out, torch.is_autocast_enabled("cpu")


def autocast_applied_and_returned(x):
    mm = torch.autocast("cpu", dtype=torch.bfloat16)(torch.mm)
    return mm, mm(x[None], x[:, None])


def test_autocast_decorator_is_one_graph_and_casts():
    x = torch.arange(3.0)
    report = explained(autocast_decorator_made_inside, x)
    assert (report.graph_count, report.break_count) == (1, 0), report
    got = loom.compile(autocast_decorator_made_inside, backend="eager")(x)
    assert got[0].dtype == torch.bfloat16 and got[1] is False
    compiled_matches_eager(autocast_decorator_made_inside, x)


def test_autocast_decorated_function_escapes_as_a_decorated_function():
    x = torch.arange(3.0)
    report = explained(autocast_applied_and_returned, x)
    assert (report.graph_count, report.break_count) == (1, 0), report
    mm, out = loom.compile(autocast_applied_and_returned, backend="eager")(x)
    assert out.dtype == torch.bfloat16
    assert mm(x[None], x[:, None]).dtype == torch.bfloat16 and not torch.is_autocast_enabled("cpu")


def autocast_decorated_breaking(x):
    @torch.autocast("cpu", dtype=torch.bfloat16)
    def inner(t):
        print("break", file=_SINK)
        return torch.mm(t[None], t[:, None])

    return inner(x), torch.mm(x[None], x[:, None]), torch.is_autocast_enabled("cpu")


_SINK = __import__("io").StringIO()


def test_autocast_decorated_function_breaking_inside_keeps_the_region():
    x = torch.arange(3.0)
    got = loom.compile(autocast_decorated_breaking, backend="eager")(x)
    assert got[0].dtype == torch.bfloat16 and got[1].dtype == torch.float32 and got[2] is False
    compiled_matches_eager(autocast_decorated_breaking, x)


# -- cond, map and while_loop functions whose results eager refuses ---------------------------------------------------
_W = torch.ones(3)


def _cond(true_fn):
    return lambda x: torch.cond(x.sum() > 0, true_fn, lambda t: t + 1, (x,))


def _map(fn):
    from functorch.experimental.control_flow import map as cf_map

    return lambda x: cf_map(fn, torch.outer(x, x + 1))


def _while(step):
    from torch._higher_order_ops.while_loop import while_loop

    return lambda x: while_loop(lambda i, a, b: i < 3, step, (0, x, x + 1))


REFUSED = {
    "cond_none": _cond(lambda t: None),
    "cond_tensor_and_none": _cond(lambda t: (t + 1, None)),
    "cond_float": _cond(lambda t: 1.0),
    "cond_input": _cond(lambda t: t),
    "cond_view_of_input": _cond(lambda t: t.view(-1)),
    "cond_detached_input": _cond(lambda t: t.detach()),
    "cond_closure_tensor": _cond(lambda t: _W),
    "cond_one_result_twice": _cond(lambda t: (lambda y: (y, y))(t + 1)),
    "map_slice": _map(lambda r: r),
    "map_float": _map(lambda r: 1.0),
    "map_closure_tensor": _map(lambda r: _W),
    "while_carried_back": _while(lambda i, a, b: (i + 1, a, b + 1)),
    "while_swapped": _while(lambda i, a, b: (i + 1, b, a)),
    "while_closure_tensor": _while(lambda i, a, b: (i + 1, _W, b + 1)),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_higher_order_op_results_eager_refuses_raise_under_loom(name):
    fn, x = REFUSED[name], torch.arange(3.0)
    with pytest.raises(Exception) as eager:  # torch's own error, whichever it is
        fn(x)
    with pytest.raises(type(eager.value)):
        loom.compile(fn, backend="eager")(x)


ACCEPTED = {
    "cond_view_of_new_tensor": _cond(lambda t: (t + 1).view(-1)),
    "cond_list_and_dict": lambda x: torch.cond(x.sum() > 0, lambda t: [t + 1, {"k": t * 2}],
                                               lambda t: [t - 1, {"k": t * 3}], (x,)),
    "map_with_none": _map(lambda r: (r + 1, None)),
    "while_fresh": _while(lambda i, a, b: (i + 1, (a + 1).view(-1), b * 2)),
}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_higher_order_op_fresh_results_stay_one_graph(name):
    fn, x = ACCEPTED[name], torch.arange(3.0)
    report = explained(fn, x)
    assert (report.graph_count, report.break_count) == (1, 0), report
    compiled_matches_eager(fn, x)


# -- x.grad = None on a graph input --------------------------------------------------------------------------------------
def clears_grad_then_reads(x, w):
    before = w.grad
    w.grad = None
    return (w * x).sum(), before, w.grad is None


def clears_grad_then_backward(x, w):
    w.grad = None
    (w * x).sum().backward()
    return w.grad


def _leaf_with_grad():
    w = torch.ones(3, requires_grad=True)
    w.grad = torch.full((3,), 7.0)
    return w


def test_clearing_grad_of_an_input_is_one_graph_and_clears_it():
    x, w = torch.arange(3.0), _leaf_with_grad()
    report = explained(clears_grad_then_reads, x, w)
    assert (report.graph_count, report.break_count) == (1, 0), report
    want = clears_grad_then_reads(x, _leaf_with_grad())
    w = _leaf_with_grad()
    got = loom.compile(clears_grad_then_reads, backend="eager")(x, w)
    same(got, want)
    assert w.grad is None


def test_clearing_grad_before_backward_leaves_only_the_new_gradient():
    x, w = torch.arange(3.0), _leaf_with_grad()
    got = loom.compile(clears_grad_then_backward, backend="eager")(x, w)
    torch.testing.assert_close(got, x)
    torch.testing.assert_close(w.grad, x)


# -- one grad-mode manager entered twice, nested ---------------------------------------------------------------------------
def no_grad_entered_twice(x):
    cm = torch.no_grad()
    with cm:
        with cm:
            y = x * 2
        z = x * 3
    return y.requires_grad, z.requires_grad, torch.is_grad_enabled()


def enable_grad_entered_twice(x):
    cm = torch.enable_grad()
    with torch.no_grad():
        with cm:
            with cm:
                y = x * 2
            z = x * 3
        w = x * 4
    return y.requires_grad, z.requires_grad, w.requires_grad, torch.is_grad_enabled()


@pytest.mark.parametrize("fn", [no_grad_entered_twice, enable_grad_entered_twice])
def test_grad_manager_entered_twice_restores_what_its_inner_block_found(fn):
    # eager's __exit__ restores the manager's one ``prev``, which the inner __enter__ overwrote
    x = torch.arange(3.0, requires_grad=True)
    try:
        want = fn(x)
        want_after = torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    try:
        got = loom.compile(fn, backend="eager")(x)
        got_after = torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    assert got == want and got_after == want_after
