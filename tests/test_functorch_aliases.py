"""The legacy ``functorch`` names (``functorch.vmap``, ``functorch.grad``...: thin wrappers that warn, then call
their ``torch.func`` counterparts) are captured exactly as their counterparts, as torch.compile captures them;
``torch.func.functionalize`` and ``torch.func.linearize`` break as torch.compile's do (issue 28)."""

from __future__ import annotations

import warnings

import functorch
import pytest
import torch
from test_func_transforms import BACKENDS, check, no_functorch_left

import loom

F = torch.func


def rg(*shape):
    return torch.randn(*shape, requires_grad=True)


def pullback(vjp):
    def fn(x):
        out, pull = vjp(lambda y: y.exp() * 2, x)
        return out, pull(torch.ones_like(out))[0]
    return fn


#: name → (the function through functorch's name, the same through torch.func's, its arguments).
CASES = {
    "vmap": (lambda x: functorch.vmap(lambda r: r.sin() * 2, in_dims=1, out_dims=0)(x),
             lambda x: torch.vmap(lambda r: r.sin() * 2, in_dims=1, out_dims=0)(x), lambda: (rg(3, 4),)),
    "grad": (lambda x: functorch.grad(lambda y: (y.sin() ** 2).sum())(x),
             lambda x: F.grad(lambda y: (y.sin() ** 2).sum())(x), lambda: (rg(4),)),
    "grad_and_value": (lambda x: functorch.grad_and_value(lambda y: (y * y).sum(), has_aux=False)(x),
                       lambda x: F.grad_and_value(lambda y: (y * y).sum(), has_aux=False)(x), lambda: (rg(4),)),
    "jacrev": (lambda x: functorch.jacrev(lambda y: y.sin())(x), lambda x: F.jacrev(lambda y: y.sin())(x),
               lambda: (rg(3),)),
    "jacfwd": (lambda x: functorch.jacfwd(lambda y: y.cos(), 0, False, randomness="same")(x),
               lambda x: F.jacfwd(lambda y: y.cos(), 0, False, randomness="same")(x), lambda: (rg(3),)),
    "hessian": (lambda x: functorch.hessian(lambda y: y.sin().sum())(x), lambda x: F.hessian(lambda y: y.sin().sum())(x),
                lambda: (rg(3),)),
    "jvp": (lambda x: functorch.jvp(lambda y: y.sin(), (x,), (torch.ones_like(x),)),
            lambda x: F.jvp(lambda y: y.sin(), (x,), (torch.ones_like(x),)), lambda: (rg(3),)),
    "vjp": (pullback(functorch.vjp), pullback(F.vjp), lambda: (rg(3),)),
}


def explained(fn, *args):
    report = loom.explain(fn, backend="eager")(*args)
    return report, [str(n.target) for g in report.graphs for n in g.graph_module.graph.nodes]


@pytest.mark.parametrize("name", list(CASES))
def test_a_functorch_name_is_captured_as_its_torch_func_counterpart(name):
    legacy, modern, make_args = CASES[name]
    args = make_args()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report, nodes = explained(legacy, *args)
    assert report.graph_count == 1 and report.break_count == 0, report
    assert nodes == explained(modern, *args)[1]  # the same graph, node for node
    # the wrapper's own FutureWarning, at the user's line (torch.compile issues it while tracing too)
    assert [w.filename for w in caught if issubclass(w.category, FutureWarning)
            and f"functorch.{name}" in str(w.message)] == [__file__]
    no_functorch_left()


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_a_functorch_name_gives_eagers_values_and_gradients(name, backend):
    legacy, _, make_args = CASES[name]
    check(legacy, make_args(), backend)


def mutating(y):
    z = y.clone()
    z.add_(1)
    return z * 2


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("functionalize", [F.functionalize, functorch.functionalize])
def test_functionalize_breaks_once_naming_it_and_the_line(functionalize):
    """torch.compile traces functionalize into its graph, but AOTAutograd refuses that graph (aot_eager and
    inductor raise "x must not already be a functional tensor"): loom breaks once at the call instead."""
    def fn(x):
        return functionalize(mutating, remove="mutations_and_views")(x) + 1

    x = torch.randn(3)
    report = loom.explain(fn, backend="aot_eager")(x)
    assert report.graph_count == 1 and report.break_count == 1, report
    assert "torch.func.functionalize is not captured" in str(report.breaks[0])
    with pytest.raises(loom.Unsupported, match=r"(?s)torch\.func\.functionalize.*test_functorch_aliases\.py:\d+"):
        loom.compile(fn, backend="eager", fullgraph=True)(x)
    loom.reset()
    torch.testing.assert_close(loom.compile(fn, backend="aot_eager")(x), fn(x))
    no_functorch_left()


def test_linearize_breaks_where_torch_compile_breaks():
    """torch.compile breaks at ``linearize`` and at its ``jvp_fn`` (3 graphs, 2 breaks): so does loom."""
    def fn(x):
        out, jvp_fn = F.linearize(lambda y: y.sin(), x)
        return out * 2, jvp_fn(torch.ones_like(x))

    x = torch.randn(3)
    report = loom.explain(fn, backend="aot_eager")(x)
    assert report.break_count == 2 and "torch.func.linearize" in str(report.breaks[0]), report
    got, want = loom.compile(fn, backend="aot_eager")(x), fn(x)
    torch.testing.assert_close(got, want)
    no_functorch_left()
