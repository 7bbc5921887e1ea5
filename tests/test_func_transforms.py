"""torch.func transforms captured in one graph (issue 28): each is a ``call_transform`` node over its function's
sub-graph, gives eager's values and eager's gradients of the outer function with every backend, and leaves
no functorch level behind. What is not captured breaks once, naming the transform and the user's line."""

from __future__ import annotations

import pytest
import torch
from torch.utils._pytree import tree_leaves

import loom
import loom_backends
from loom_symbolic.func_calls import call_transform

F = torch.func
BACKENDS = [name for name in ("eager", "aot_eager", "c", "triton") if name in loom_backends.names()]
W = torch.randn(3, 3)


def one_graph(fn, *args, transform=True):
    """1 graph, 0 breaks, and (``transform``) a ``call_transform`` node in it."""
    report = loom.explain(fn, backend="eager")(*args)
    assert report.graph_count == 1 and report.break_count == 0, report
    targets = [n.target for g in report.graphs for n in g.graph_module.graph.nodes if n.op == "call_function"]
    assert (call_transform in targets) == transform
    return report


def no_functorch_left():
    assert torch._C._functorch.peek_interpreter_stack() is None
    product = torch.ones(2, 2) @ torch.ones(2, 2)
    assert type(product) is torch.Tensor and not torch._C._functorch.is_functorch_wrapped_tensor(product)


def same(got, want, tol=1e-5):
    got, want = tree_leaves(got), tree_leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, torch.Tensor):
            assert g.dtype == w.dtype and g.shape == w.shape
            torch.testing.assert_close(g, w, atol=tol, rtol=tol)
        else:
            assert g == w


def check(fn, args, backend, tol=1e-5):
    """Values equal to eager's, and gradients of the outputs' sum for every input that requires grad."""
    got, want = loom.compile(fn, backend=backend)(*args), fn(*args)
    same(got, want, tol)
    leaves = [a for a in tree_leaves(args) if isinstance(a, torch.Tensor) and a.requires_grad]
    outs = [(g, w) for g, w in zip(tree_leaves(got), tree_leaves(want)) if isinstance(w, torch.Tensor) and w.requires_grad]
    if leaves and outs:
        grads_want = torch.autograd.grad(sum(w.sum() for _, w in outs), leaves, allow_unused=True)
        grads_got = torch.autograd.grad(sum(g.sum() for g, _ in outs), leaves, allow_unused=True)
        for g, w in zip(grads_got, grads_want):
            assert (g is None) == (w is None)
            if w is not None:
                torch.testing.assert_close(g, w, atol=tol, rtol=tol)
    no_functorch_left()


def loss(params, x):
    return ((x @ params["w"] + params["b"]).tanh() ** 2).sum()


def grad_under_no_grad(x):
    with torch.no_grad():  # grad respects the inner no_grad only, as in eager
        return F.grad(lambda y: (y.sin() ** 2).sum())(x)


def vjp_twice(x, c):
    out, pullback = F.vjp(lambda y: y.sin() * W[0], x)
    (g,) = pullback(c)
    (h,) = pullback(c * 2)
    return out, g + h


def vmap_in_autocast(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):  # the function's ops take eager's dtypes
        return torch.vmap(lambda r: r @ W)(x)


GRAD_OUTSIDE = F.grad(lambda y: (y.cos() * y).sum())


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x, shift=0.0):
        return self.l2(self.l1(x).relu()) * self.scale + shift


NET = Net()


def net_state():
    return {k: v.detach().clone().requires_grad_() for k, v in NET.named_parameters()}, torch.randn(5, 3)


ENSEMBLE = [torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)) for _ in range(3)]
BASE = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).to("meta")


def ensemble(params, buffers, x):
    return torch.vmap(lambda p, b, xi: F.functional_call(BASE, (p, b), (xi,)), in_dims=(0, 0, None))(params, buffers, x)


def per_sample_grads(params, x):
    def sample_loss(p, xi):
        return F.functional_call(NET, p, (xi.unsqueeze(0),)).pow(2).sum()

    return torch.vmap(F.grad(sample_loss), in_dims=(None, 0))(params, x)


def rg(*shape):
    return torch.randn(*shape, requires_grad=True)


CASES = {
    "grad": (lambda x: F.grad(lambda y: (y.sin() ** 2).sum())(x) * 2, lambda: (rg(4),)),
    "grad_argnums": (lambda x, w: F.grad(lambda a, b: (a @ b).sin().sum(), argnums=(0, 1))(x, w),
                     lambda: (rg(2, 3), rg(3, 3))),
    "grad_has_aux": (lambda x: F.grad(lambda y: (y.sin().sum(), {"c": y.cos(), "n": (y * 2,)}), has_aux=True)(x),
                     lambda: (rg(4),)),
    "grad_and_value": (lambda x: F.grad_and_value(lambda y: (y * W[0]).exp().sum())(x), lambda: (rg(3),)),
    "grad_and_value_has_aux": (lambda x: F.grad_and_value(lambda y: (y.exp().sum(), y.sin()), has_aux=True)(x),
                               lambda: (rg(3),)),
    "grad_of_a_dict": (lambda p, x: F.grad(loss)(p, x), lambda: ({"w": rg(3, 2), "b": rg(2)}, torch.randn(4, 3))),
    "grad_of_grad": (lambda x: F.grad(lambda z: F.grad(lambda y: (y.sin() ** 3).sum())(z).sum())(x), lambda: (rg(4),)),
    "grad_under_no_grad": (grad_under_no_grad, lambda: (torch.randn(4),)),
    "grad_made_outside": (lambda x: GRAD_OUTSIDE(x) + 1, lambda: (rg(3),)),
    "vmap": (lambda x: torch.vmap(lambda r: r.sin() * 2)(x) + 1, lambda: (rg(4, 3),)),
    "vmap_in_out_dims": (lambda x, y: torch.vmap(lambda a, b: a * b.sum(), in_dims=(1, None), out_dims=1)(x, y),
                         lambda: (rg(3, 5), rg(2))),
    "vmap_nested": (lambda x: torch.vmap(torch.vmap(lambda a: a.cos() * W[0, 0]))(x), lambda: (rg(2, 3, 4),)),
    "vmap_of_grad": (lambda p, x: torch.vmap(F.grad(loss), in_dims=(None, 0))(p, x.unsqueeze(1)),
                     lambda: ({"w": rg(3, 2), "b": rg(2)}, torch.randn(5, 3))),
    "jacrev": (lambda x: F.jacrev(lambda y: y.sin() * y.sum())(x), lambda: (rg(3),)),
    "jacfwd": (lambda x: F.jacfwd(lambda y: y.sin() * y.sum())(x), lambda: (rg(3),)),
    "hessian": (lambda x: F.hessian(lambda y: (y.sin() * y.sum()).sum())(x), lambda: (rg(3),)),
    "jvp": (lambda x, t: F.jvp(lambda y: y.sin() * 2, (x,), (t,)), lambda: (rg(3), torch.randn(3))),
    "vjp": (vjp_twice, lambda: (rg(3), torch.randn(3))),
    "vmap_keyword_tensor": (lambda x, s: torch.vmap(lambda r, scale: r * scale)(x, scale=s), lambda: (rg(4, 3), rg(3))),
    "grad_closing_over_the_outer_level": (
        lambda x: F.grad(lambda a: F.grad(lambda b: (a * b).sin().sum())(a).sum())(x), lambda: (rg(3),)),
    "grad_with_a_constant_argument": (lambda x: F.grad(lambda a, n: (a ** n).sum())(x, 3), lambda: (rg(3),)),
    "vmap_in_dims_of_a_dict": (lambda d: torch.vmap(lambda p: p["a"] * p["b"], in_dims=({"a": 0, "b": None},))(d),
                               lambda: ({"a": rg(4, 3), "b": rg(3)},)),
    "vmap_chunk_size": (lambda x: torch.vmap(lambda r: r.sum(), chunk_size=2)(x), lambda: (rg(5, 3),)),
    "jacrev_has_aux": (lambda x: F.jacrev(lambda y: (y.sin(), y.cos()), argnums=0, has_aux=True)(x), lambda: (rg(3),)),
    "vmap_in_autocast": (vmap_in_autocast, lambda: (rg(4, 3),)),
    "functional_call": (lambda p, x: F.functional_call(NET, p, (x,)).relu() + 1, net_state),
    "functional_call_dicts_and_kwargs": (lambda p, x: F.functional_call(NET, (p, {"scale": torch.tensor(3.0)}), x,
                                                                        {"shift": 1.0}), net_state),
    "grad_of_functional_call": (lambda p, x: F.grad(lambda q: F.functional_call(NET, q, (x,)).pow(2).sum())(p),
                                net_state),
    "per_sample_grads": (per_sample_grads, net_state),
    "ensemble": (ensemble, lambda: (*F.stack_module_state(ENSEMBLE), torch.randn(5, 4))),  # a meta-device base
}


@pytest.mark.parametrize("name", list(CASES))
def test_transform_is_one_graph(name):
    fn, make_args = CASES[name]
    one_graph(fn, *make_args(), transform=not name.startswith("functional_call"))  # a module call, swapped tensors
    no_functorch_left()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_transform_gives_eagers_values_and_gradients(name, backend):
    fn, make_args = CASES[name]
    check(fn, make_args(), backend)


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("randomness", ["different", "same"])
def test_vmap_randomness_draws_what_eager_draws(randomness, backend):
    def noisy(x):
        return torch.vmap(lambda r: r * 0 + torch.randn(3), randomness=randomness)(x)

    x = torch.randn(4, 3)
    one_graph(noisy, x)
    torch.manual_seed(1)
    want = noisy(x)
    torch.manual_seed(1)
    got = loom.compile(noisy, backend=backend)(x)
    torch.testing.assert_close(got, want)
    assert torch.equal(got[0], got[1]) == (randomness == "same")


def test_functional_call_leaves_the_module_as_it_was():
    before = {k: v.clone() for k, v in NET.state_dict().items()}
    params, x = net_state()
    zeros = {k: torch.zeros_like(v) for k, v in params.items()}
    got = loom.compile(lambda p, x: F.functional_call(NET, p, (x,)), backend="aot_eager")(zeros, x)
    torch.testing.assert_close(got, torch.zeros(5, 2))
    assert all(torch.equal(v, before[k]) for k, v in NET.state_dict().items())
    assert all(type(p) is torch.nn.Parameter for p in NET.parameters())


def test_functional_call_recompiles_when_the_modules_tensors_change():
    net = Net()
    params = {k: v.detach().clone() for k, v in net.named_parameters()}
    compiled = loom.compile(lambda p, x: F.functional_call(net, p, (x,)), backend="eager")
    x = torch.randn(5, 3)
    torch.testing.assert_close(compiled(params, x), F.functional_call(net, params, (x,)))
    net.l1.register_buffer("unused", torch.zeros(1))  # the swap was decided on the names the module had
    torch.testing.assert_close(compiled(params, x), F.functional_call(net, params, (x,)))
    assert loom.stats()["recompiles"] == 1


def test_functional_call_of_a_forward_listing_its_parameters_breaks():
    class Listing(torch.nn.Linear):
        def forward(self, x):
            return x @ self.weight.t() + sum(p.sum() for p in self.parameters())

    module = Listing(3, 2)
    params = {k: v.detach() * 2 for k, v in module.named_parameters()}

    def fn(x):
        return F.functional_call(module, params, (x,))

    x = torch.randn(4, 3)
    report = loom.explain(fn, backend="eager")(x)
    assert report.break_count >= 1 and "functional_call" in str(report.breaks[0])
    torch.testing.assert_close(loom.compile(fn, backend="aot_eager")(x), fn(x))


def test_vmap_randomness_error_raises_eagers_error():
    def noisy(x):
        return torch.vmap(lambda r: r * torch.rand(()))(x)

    with pytest.raises(RuntimeError, match="randomness") as eager:
        noisy(torch.randn(4, 3))
    with pytest.raises(RuntimeError, match="randomness") as compiled:
        loom.compile(noisy, backend="aot_eager")(torch.randn(4, 3))
    assert str(compiled.value).splitlines()[0] == str(eager.value).splitlines()[0]
    no_functorch_left()


@pytest.mark.parametrize("fn", [
    lambda x: F.grad(lambda y: y.sin())(x),  # a non-scalar output
    lambda x: F.grad(lambda y: (y.sum(), 3), has_aux=True)(x),  # an aux that is not tensors
])
def test_a_call_eager_refuses_raises_eagers_error_and_leaves_nothing(fn):
    x = torch.randn(4)
    with pytest.raises(RuntimeError) as eager:
        fn(x)
    with pytest.raises(RuntimeError) as compiled:
        loom.compile(fn, backend="aot_eager")(x)
    assert str(compiled.value) == str(eager.value)
    no_functorch_left()


def test_a_function_that_does_not_trace_breaks_once_at_the_transform():
    def printing(y):
        print("inside")
        return y.sin().sum()

    def fn(x):
        return F.grad(printing)(x) + 1

    x = torch.randn(3)
    report = loom.explain(fn, backend="eager")(x)
    assert report.break_count >= 1 and "torch.func.grad" in str(report.breaks[0])
    assert "test_func_transforms.py" in str(report.breaks[0])
    torch.testing.assert_close(loom.compile(fn, backend="aot_eager")(x), fn(x))
    with pytest.raises(loom.Unsupported, match=r"(?s)torch\.func\.grad of .*printing.*test_func_transforms\.py:\d+"):
        loom.compile(fn, backend="eager", fullgraph=True)(x)
    no_functorch_left()


def test_a_transform_not_captured_breaks_naming_it_and_raises_under_fullgraph():
    def linearized(x):
        return F.linearize(lambda y: y.sin(), x)[0] + 1

    x = torch.randn(3)
    report = loom.explain(linearized, backend="eager")(x)
    assert report.break_count == 1 and "torch.func.linearize" in str(report.breaks[0])
    assert "this torch.func function is not captured" in str(report.breaks[0])
    torch.testing.assert_close(loom.compile(linearized, backend="aot_eager")(x), linearized(x))
    with pytest.raises(loom.Unsupported, match=r"(?s)torch\.func\.linearize.*test_func_transforms\.py:\d+"):
        loom.compile(linearized, backend="eager", fullgraph=True)(x)
    no_functorch_left()


def vmap_rows(x, w):
    return torch.vmap(lambda r: (r @ w).relu())(x)


def grad_rows(x, w):
    return F.grad(lambda a: (a @ w).sin().sum())(x)


def jacrev_rows(x, w):
    return F.jacrev(lambda a: a.sin() * w.sum())(x.sum(1))  # a Jacobian of a dynamic size


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("fn", [vmap_rows, grad_rows, jacrev_rows])
def test_a_transform_over_a_dynamic_size_compiles_once(fn, backend):
    compiled = loom.compile(fn, backend=backend, dynamic=True)
    w = torch.randn(3, 2)
    for rows in (3, 5, 7):
        x = torch.randn(rows, 3)
        torch.testing.assert_close(compiled(x, w), fn(x, w))
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


def test_a_break_inside_the_function_rebuilds_the_transform_for_the_rest():
    def printing(y):
        print("inside")
        return y.sin().sum()

    def fn(x):
        a = x.cos()
        g = F.grad(printing)
        return g(a) + a

    def made(x):
        return F.jacrev(lambda y: y.sin(), argnums=0, has_aux=False), x.cos()

    x = torch.randn(3)
    report = loom.explain(fn, backend="eager")(x)
    assert report.graph_count == 2 and report.break_count == 1
    torch.testing.assert_close(loom.compile(fn, backend="aot_eager")(x), fn(x))
    jacobian, a = loom.compile(made, backend="aot_eager")(x)  # the transformed function escapes the graph
    torch.testing.assert_close(jacobian(a), torch.diag(a.cos()))


def test_the_functions_view_of_functorch_is_not_the_traces():
    def fn(x):
        def body(r):
            return r * (2 if torch._C._functorch.maybe_current_level() is not None else 3)
        return torch.vmap(body)(x) + 1

    x = torch.randn(3, 2)
    report = loom.explain(fn, backend="eager")(x)
    assert report.break_count == 1 and "reads the transform's level" in str(report.breaks[0])
    torch.testing.assert_close(loom.compile(fn, backend="aot_eager")(x), x * 2 + 1)


SCRIPT = '''
import torch
from torch.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap

net = torch.nn.Linear(3, 2)


def step(x, w):
    params = dict(net.named_parameters())
    per_sample = vmap(grad(lambda p, r: functional_call(net, p, (r.unsqueeze(0),)).pow(2).sum()),
                      in_dims=(None, 0))(params, x)
    g, value = grad_and_value(lambda a: (a @ w).sin().sum())(x)
    jac = jacrev(lambda a: a.sin() @ w)(x[0]) + jacfwd(lambda a: a.sin() @ w)(x[0])
    h = hessian(lambda a: (a.sin() * a.sum()).sum())(x[0])
    out, tangent = jvp(lambda a: a.cos(), (x,), (torch.ones_like(x),))
    y, pullback = vjp(lambda a: a.exp() @ w, x)
    return per_sample["weight"].sum() + g.sum() + value + jac.sum() + h.sum() + tangent.sum() + pullback(y)[0].sum()


step(torch.randn(4, 3, requires_grad=True), torch.randn(3, 3, requires_grad=True)).backward()
'''


def test_loom_explain_of_a_script_using_every_transform(tmp_path, capsys):
    from loom.cli import main

    path = tmp_path / "transforms.py"
    path.write_text(SCRIPT)
    assert main(["explain", str(path)]) == 0
    assert "1 graph, 0 graph breaks" in capsys.readouterr().out
    no_functorch_left()


def test_a_transform_drawing_random_numbers_is_kept_and_not_run_twice():
    def unused_draw(x):
        torch.vmap(lambda r: r + torch.rand(()), randomness="different")(x)  # its result unused: still drawn
        return x + torch.rand(3)

    def pulled_back(x):
        out, pullback = F.vjp(lambda y: torch.vmap(lambda r: r * torch.rand(()), randomness="different")(y), x)
        return out, pullback(torch.ones_like(out))[0]

    x = torch.randn(4, 3)
    torch.manual_seed(3)
    want = unused_draw(x)
    torch.manual_seed(3)
    torch.testing.assert_close(loom.compile(unused_draw, backend="aot_eager")(x), want)
    report = loom.explain(pulled_back, backend="eager")(x)
    assert report.break_count == 1 and "draws random numbers" in str(report.breaks[0])
    torch.manual_seed(4)
    want = pulled_back(x)
    torch.manual_seed(4)
    same(loom.compile(pulled_back, backend="aot_eager")(x), want)
