"""``hints_wrapper``, ``scan``, ``associative_scan`` and ``nested_compile_region`` captured as torch.compile captures
them: one graph holding the higher-order op over the function's sub-graph, eager's values and gradients under
every backend, no recompilation on a second call, and one break naming the construct where the function cannot be
a sub-graph (the call then runs as eager runs it)."""

from __future__ import annotations

import functools
import sys
import types

import pytest
import torch
import torch.utils._pytree as pytree
from torch._higher_order_ops.associative_scan import associative_scan
from torch._higher_order_ops.hints_wrap import hints_wrapper
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop

import loom
import loom_backends

BACKENDS = [name for name in ("default", "eager", "aot_eager", "c") if name in loom_backends.names()]
HOPS = torch.ops.higher_order


def targets(report):
    return [n.target for g in report.graphs for n in g.graph_module.graph.nodes if n.op == "call_function"]


def leaves(value):
    return [t for t in torch.utils._pytree.tree_leaves(value) if isinstance(t, torch.Tensor)]


def check(fn, args, backend, op=None, grad_of=()):
    """One graph, no break (holding ``op``), eager's values (and gradients for ``grad_of``), no recompile."""
    loom.reset()
    report = loom.explain(fn, backend=backend)(*args)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    if op is not None:
        assert op in targets(report)
    loom.reset()
    compiled = loom.compile(fn, backend=backend)
    want, got = fn(*args), compiled(*args)
    assert len(leaves(got)) == len(leaves(want))
    for g, w in zip(leaves(got), leaves(want)):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5)
    if grad_of:
        grads_want = torch.autograd.grad(sum(t.sum() for t in leaves(want)), grad_of)
        grads_got = torch.autograd.grad(sum(t.sum() for t in leaves(got)), grad_of)
        for g, w in zip(grads_got, grads_want):
            torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5)
    compiled(*args)
    assert loom.stats()["graphs"] == 1 and loom.stats()["recompiles"] == 0


# -- hints_wrapper ----------------------------------------------------------------------------------------
def hinted(x, y):
    def body(x):
        return x.sin() + y, x * 2
    return hints_wrapper(body, (x,), {}, hints={"outer_body": True, "k": 2})


@pytest.mark.parametrize("backend", BACKENDS)
def test_hints_wrapper_is_one_op_over_its_body(backend):
    check(hinted, (torch.randn(4, 3), torch.randn(3)), backend, HOPS.hints_wrapper)


def test_hints_wrapper_over_a_tensor_requiring_grad_breaks_as_its_results_do_not_require_grad():
    x, y = torch.randn(3), torch.randn(3, requires_grad=True)
    report = loom.explain(hinted, backend="eager")(x, y)
    assert report.graph_break_count == 1 and "hints_wrapper" in report.breaks[0].what
    got, want = loom.compile(hinted, backend="eager")(x, y), hinted(x, y)
    assert not got[0].requires_grad and not want[0].requires_grad
    torch.testing.assert_close(got, want)


def test_hints_wrapper_raises_eagers_error_on_keyword_arguments():
    def with_kwargs(x):
        try:
            return hints_wrapper(lambda t, n=1: t * n, (x,), {"n": 2}, hints={})
        except RuntimeError as exc:
            return x - 1, str(exc)

    x = torch.randn(3)
    report = loom.explain(with_kwargs, backend="eager")(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    got, want = loom.compile(with_kwargs, backend="eager")(x), with_kwargs(x)
    assert got[1] == want[1] == "kwargs except for hints are not supported, got {'n': 2}"
    torch.testing.assert_close(got[0], want[0])


# -- scan -------------------------------------------------------------------------------------------------
def scanned(x, w):
    def comb(carry, xs):
        c, total = carry
        return (c @ w + xs, total + c.sum()), {"y": (c * xs).clone()}
    return scan(comb, (torch.zeros(3), torch.zeros(())), x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_is_one_op_with_eagers_values_and_gradients(backend):
    w = torch.randn(3, 3, requires_grad=True)
    check(scanned, (torch.randn(5, 3), w), backend, HOPS.scan, grad_of=(w,))


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_reversed_over_another_dimension(backend):
    def fn(x):
        return scan(lambda c, xs: (c + xs, (c * 2).clone()), torch.zeros(4), x, dim=1, reverse=True)

    check(fn, (torch.randn(4, 6),), backend, HOPS.scan)


def test_scan_whose_function_cannot_be_one_graph_breaks_once_and_raises_as_eager():
    def fn(x):
        def comb(c, xs):
            if xs.sum() > 0:  # a Python branch on data: no one graph
                return c + xs, (c * 2).clone()
            return c - xs, (c * 3).clone()
        return scan(comb, torch.zeros(3), x)

    x = torch.randn(4, 3)
    with pytest.raises(Exception) as eager:  # eager's scan compiles its function with torch.compile, which refuses it
        fn(x)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    with pytest.raises(type(eager.value)):
        compiled(x)
    assert loom.stats()["graph_breaks"] == 1


# -- associative_scan (generic: a vmap recursion reaching an empty batch) ----------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [4, 7])
def test_generic_associative_scan_is_one_graph(backend, n):
    def fn(x):
        return associative_scan(lambda a, b: (a[0] + b[0], a[1] * b[1]), (x, x.sigmoid()), dim=0,
                                combine_mode="generic")

    check(fn, (torch.randn(n, 2),), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_vmap_over_an_empty_dimension(backend):
    def fn(x):
        return torch.vmap(lambda t: t.sin() * 2)(x) + 1, torch.vmap(lambda t: t.sum(), in_dims=1)(x.t())

    check(fn, (torch.randn(0, 3),), backend)


# -- nested_compile_region (invoke_subgraph) ---------------------------------------------------------------
@torch.compiler.nested_compile_region
def _layer(y, w):
    return (y @ w).tanh()


_CALLS: list = []


@torch.compiler.nested_compile_region
def _logging_layer(y):
    _CALLS.append(y.shape[0])
    return y + 1


def stacked(x, w):
    return _layer(_layer(x, w), w)


def stacked_in_frame(x, w):
    @torch.compiler.nested_compile_region
    def g(y):
        return y.cos() @ w
    return g(x) + g(x + 1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [stacked, stacked_in_frame])
def test_nested_compile_region_is_invoke_subgraph_with_eagers_gradients(backend, fn):
    w = torch.randn(3, 3, requires_grad=True)
    check(fn, (torch.randn(4, 3), w), backend, HOPS.invoke_subgraph, grad_of=(w,))


class _Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, t):
        return self.lin(t).tanh()


class _Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([_Layer() for _ in range(3)])

    def forward(self, t):
        for layer in self.layers:
            t = torch.compiler.nested_compile_region(layer)(t)
        return t


@pytest.mark.parametrize("backend", BACKENDS)
def test_regions_over_alike_layers_give_eagers_gradients(backend):
    # layers tracing alike: sharing one body and identifier gave the c backend wrong gradients
    torch.manual_seed(0)
    model, x = _Stack(), torch.randn(4, 3)
    report = loom.explain(model, backend=backend)(x)
    calls = [n for n in report.graphs[0].graph_module.graph.nodes if n.target is HOPS.invoke_subgraph]
    assert len(calls) == 3 and len({n.args[1] for n in calls}) == 3
    got, want = loom.compile(model, backend=backend)(x), model(x)
    torch.testing.assert_close(got, want)
    params = list(model.parameters())
    for g, w in zip(torch.autograd.grad(got.sum(), params), torch.autograd.grad(want.sum(), params)):
        torch.testing.assert_close(g, w)


def test_a_regions_python_side_effects_happen_on_every_call():
    def fn(x):
        return _logging_layer(x) + _logging_layer(x * 2)

    x = torch.randn(3)
    report = loom.explain(fn, backend="eager")(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    _CALLS.clear()
    got = loom.compile(fn, backend="eager")(x)
    assert _CALLS == [3, 3]
    torch.testing.assert_close(got, fn(x))


def test_a_marked_function_made_in_the_frame_can_leave_it():
    def fn(x):
        @torch.compiler.nested_compile_region
        def g(y):
            return y + 3
        return g(x), g

    x = torch.randn(3)
    report = loom.explain(fn, backend="eager")(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    out, g = loom.compile(fn, backend="eager")(x)
    torch.testing.assert_close(out, x + 3)
    torch.testing.assert_close(g(x), x + 3)


def test_a_region_that_cannot_be_a_sub_graph_is_traced_as_eagers_plain_call(capsys):
    def fn(x):
        @torch.compiler.nested_compile_region
        def g(y):
            y.add_(1)  # in place: no sub-graph, but eager's call of g
            print("in g")
            return y * 2
        return g(x)

    x = torch.randn(3)
    report = loom.explain(fn, backend="eager")(x.clone())
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    assert HOPS.invoke_subgraph not in targets(report)
    a, b = x.clone(), x.clone()
    capsys.readouterr()
    torch.testing.assert_close(loom.compile(fn, backend="eager")(a), fn(b))
    torch.testing.assert_close(a, b)
    assert capsys.readouterr().out == "in g\nin g\n"


def test_a_region_returning_its_input_breaks_once_and_runs_as_eager():
    def fn(x):
        @torch.compiler.nested_compile_region
        def g(y):
            return y
        return g(x) + 1

    x = torch.randn(3)
    report = loom.explain(fn, backend="eager")(x)
    assert report.graph_break_count == 1 and "nested_compile_region" in report.breaks[0].what
    torch.testing.assert_close(loom.compile(fn, backend="eager")(x), fn(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_region_inside_a_func_transform_is_eagers_plain_call(backend):
    def fn(x):
        return torch.vmap(lambda t: _layer(t, torch.eye(3)))(x), torch.func.grad(lambda t: _layer(t, torch.eye(3)).sum())(x)

    check(fn, (torch.randn(4, 3),), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_and_regions_with_dynamic_shapes_compile_once(backend):
    def fn(x):
        carry, ys = scan(lambda c, xs: (c + xs, (c * xs).clone()), torch.zeros(x.shape[1]), x)
        return _layer(ys, torch.ones(3, 3)) + carry

    loom.reset()
    compiled = loom.compile(fn, backend=backend, dynamic=True, options={"strict": True})
    for n in (4, 5, 7):
        x = torch.randn(n, 3)
        torch.testing.assert_close(compiled(x), fn(x))
    assert loom.stats()["graphs"] == 1 and loom.stats()["recompiles"] == 0


# -- associative_scan's op, as its pointwise mode (CUDA only) calls it -----------------------------------------
_ASSOCIATIVE = sys.modules["torch._higher_order_ops.associative_scan"]


def run_flattened_associative_scan(combine_fn, leaves_xs):
    return _ASSOCIATIVE.associative_scan_op(combine_fn, leaves_xs, additional_inputs=())


# the user-facing function's own nested caller, here on CPU (its pointwise mode refuses CPU tensors)
_FRONTEND_CALL = types.FunctionType(
    run_flattened_associative_scan.__code__.replace(co_filename=_ASSOCIATIVE.__file__), globals())


def _pointwise(combine, call=_FRONTEND_CALL):
    def fn(x, y):
        leaves, spec = pytree.tree_flatten((x, y))
        flat = functools.partial(_ASSOCIATIVE.wrap_combine_fn_flat, combine_fn=combine, spec=spec, num_leaves=2)
        return call(flat, leaves)
    return fn


@pytest.mark.parametrize("backend", BACKENDS)
def test_associative_scan_op_from_its_front_end_is_one_op_with_its_structure(backend):
    x, y = torch.randn(5, 3), torch.rand(5, 3, requires_grad=True)
    fn = _pointwise(lambda a, b: (a[0] + b[0], a[1] * b[1]))
    flat = _ASSOCIATIVE.associative_scan_op(
        functools.partial(_ASSOCIATIVE.wrap_combine_fn_flat, combine_fn=lambda a, b: (a[0] + b[0], a[1] * b[1]),
                          spec=pytree.tree_flatten((x, y))[1], num_leaves=2), [x, y], ())
    report = loom.explain(fn, backend=backend)(x, y)
    assert (report.graph_count, report.graph_break_count) == (1, 0)
    assert HOPS.associative_scan in targets(report)
    got = loom.compile(fn, backend=backend)(x, y)
    assert type(got) is tuple  # torch.compile's structure: the user-facing function's xs
    for g, w in zip(got, flat):
        torch.testing.assert_close(g, w)
    torch.testing.assert_close(torch.autograd.grad(got[1].sum(), y)[0], torch.autograd.grad(flat[1].sum(), y)[0])


def test_associative_scan_op_refused_where_torch_refuses_or_called_directly():
    x, y = torch.randn(4, 3), torch.rand(4, 3)
    other_structure = _pointwise(lambda a, b: [a[0] + b[0], a[1] * b[1]])
    report = loom.explain(other_structure, backend="eager")(x, y)
    assert report.graph_break_count == 1 and "another structure" in report.breaks[0].what
    direct = _pointwise(lambda a, b: (a[0] + b[0], a[1] * b[1]), call=run_flattened_associative_scan)
    report = loom.explain(direct, backend="eager")(x, y)
    assert report.graph_break_count == 1 and "called directly" in report.breaks[0].what
    got, want = loom.compile(direct, backend="eager")(x, y), direct(x, y)
    assert type(got) is type(want) is list  # eager's direct call: the flat results
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)


# -- while_loop over nested carried values --------------------------------------------------------------------
def nested_loop(x, w):
    def cond_fn(i, state):
        return i < 4

    def body_fn(i, state):
        return i + 1, {"acc": state["acc"] @ w + 1, "pair": (state["pair"][0] * 2, state["pair"][1] + i)}
    return while_loop(cond_fn, body_fn, (torch.tensor(0), {"acc": x, "pair": (x.sum(), torch.zeros(()))}))


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_loop_carrying_nested_values_is_one_op_with_their_structure(backend):
    check(nested_loop, (torch.randn(3), torch.randn(3, 3) * 0.5), backend, HOPS.while_loop)
    got = loom.compile(nested_loop, backend=backend)(torch.ones(3), torch.eye(3))
    assert type(got) is tuple and type(got[1]) is dict and type(got[1]["pair"]) is tuple


def test_while_loop_whose_body_changes_the_structure_breaks_once_and_runs_as_eager():
    def fn(x):
        return while_loop(lambda c: c[0].sum() < 5, lambda c: ([c[0] + 1, c[1] * 2],), ((x, x),))

    x = torch.zeros(3)
    report = loom.explain(fn, backend="eager")(x)
    assert report.graph_break_count >= 1 and "another structure" in report.breaks[0].what
