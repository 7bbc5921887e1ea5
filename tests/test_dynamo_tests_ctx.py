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
