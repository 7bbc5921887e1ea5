"""Higher-order operations and state regions captured in one graph, as torch.compile captures them.

Each construct is compiled with every loom backend (the ``triton`` one under Triton's CPU interpreter, so
shapes stay tiny), checked against eager for values and gradients, and pinned at 1 graph and 0 breaks.
"""

from __future__ import annotations

import operator

import pytest
import torch

import loom
import loom_backends

BACKENDS = [name for name in ("eager", "aot_eager", "triton", "c") if name in loom_backends.names()]
ENTER, EXIT = torch.amp.autocast_mode._enter_autocast, torch.amp.autocast_mode._exit_autocast


def one_graph(fn, *args):
    """``loom.explain`` of one call: asserts 1 graph and 0 breaks, returns the report."""
    report = loom.explain(fn, backend="eager")(*args)
    assert report.graph_count == 1 and report.break_count == 0, report
    return report


def graph_targets(report):
    return [n.target for g in report.graphs for n in g.graph_module.graph.nodes if n.op == "call_function"]


def close(got, want, tol):
    if isinstance(want, torch.Tensor):
        assert got.dtype == want.dtype and got.shape == want.shape
        torch.testing.assert_close(got, want, atol=tol, rtol=tol)
    elif isinstance(want, (int, float)):
        assert type(got) is type(want) and got == want
    else:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            close(g, w, tol)


def check_values_and_grads(fn, args, backend, tol=1e-5, out_of=lambda r: r):
    """``fn`` compiled with ``backend`` gives eager's values and eager's gradients for every input that requires grad."""
    compiled = loom.compile(fn, backend=backend)
    want, got = fn(*args), compiled(*args)
    close(got, want, tol)
    leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    if leaves:
        grads_want = torch.autograd.grad(out_of(want).float().sum(), leaves)
        grads_got = torch.autograd.grad(out_of(got).float().sum(), leaves)
        close(grads_got, grads_want, tol)


# -- autocast regions -----------------------------------------------------------------------------------
def mixed_precision(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ w
        with torch.autocast(device_type="cpu", enabled=False):
            z = y.float() @ w  # float32 again inside the disabled region
        q = torch.mm(z, w)
    return y, z, q + 1


def shorthand(x):
    with torch.cpu.amp.autocast():
        return torch.relu(x @ x.t())


@pytest.mark.filterwarnings("ignore:`torch.cpu.amp.autocast")
def test_autocast_regions_are_one_graph_with_enter_and_exit_nodes():
    x, w = torch.randn(3, 3), torch.randn(3, 3)
    targets = graph_targets(one_graph(mixed_precision, x, w))
    assert targets.count(ENTER) == 2 and targets.count(EXIT) == 2
    assert targets.index(ENTER) < targets.index(EXIT)
    assert graph_targets(one_graph(shorthand, x)).count(ENTER) == 1


@pytest.mark.filterwarnings("ignore:`torch.cpu.amp.autocast")
@pytest.mark.parametrize("backend", BACKENDS)
def test_autocast_regions_give_eagers_dtypes_values_and_gradients(backend):
    x, w = torch.randn(3, 3, requires_grad=True), torch.randn(3, 3, requires_grad=True)
    check_values_and_grads(mixed_precision, (x, w), backend, tol=0.1, out_of=lambda r: r[2])
    check_values_and_grads(shorthand, (x,), backend, tol=0.1)
    assert not torch.is_autocast_enabled("cpu")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_callers_autocast_is_guarded(backend):
    """Compiled outside autocast, called inside it (and back): each call gives eager's dtypes and values;
    the caller's autocast state is part of the entry's global-state guard, so it recompiles once."""
    def fn(x, w):
        return (x @ w).relu() + 1

    x, w = torch.randn(4, 4), torch.randn(4, 4)
    compiled = loom.compile(fn, backend=backend)
    close(compiled(x, w), fn(x, w), 0)
    for dtype in (torch.bfloat16, torch.bfloat16):
        with torch.autocast("cpu", dtype=dtype):
            got, want = compiled(x, w), fn(x, w)
        assert got.dtype == want.dtype == dtype
        close(got, want, 1e-2)
    close(compiled(x, w), fn(x, w), 0)
    assert loom.stats()["recompiles"] == 1 and loom.stats()["graphs"] == 2


def test_a_graph_break_inside_an_autocast_region_runs_the_rest_inside_it():
    def breaks_inside(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ x
            loom.graph_break()
            z = y @ x
        return z, z.dtype

    x = torch.randn(3, 3)
    z, dtype = loom.compile(breaks_inside, backend="eager")(x)
    assert dtype == torch.bfloat16 and torch.equal(z, breaks_inside(x)[0])
    assert not torch.is_autocast_enabled("cpu")


# -- activation checkpointing ---------------------------------------------------------------------------
CHECKPOINT = torch.ops.higher_order.tag_activation_checkpoint


def block(x, w):
    return torch.sin(x @ w).cos().sin() * 2


def checkpointed(x, w):
    return torch.utils.checkpoint.checkpoint(block, x, w, use_reentrant=False) + 1


def checkpointed_reentrant(x, w):
    return torch.utils.checkpoint.checkpoint(block, x, w, use_reentrant=True).relu()


def uncheckpointed(x, w):
    return block(x, w) + 1


class Checkpointed(torch.nn.Module):
    def __init__(self, reentrant):
        super().__init__()
        self.inner = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh(), torch.nn.Linear(4, 4))
        self.reentrant = reentrant

    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(self.inner, x, use_reentrant=self.reentrant).sum(-1)


def saved_tensors(fn, *args):
    """The tensors autograd saves for the backward while ``fn`` runs forward: (count, total elements)."""
    seen = []

    def pack(tensor):
        seen.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*args)
    return len(seen), sum(t.numel() for t in seen)


def backward_grads(out, leaves):
    """Gradients by ``.backward()`` (the reentrant variant refuses ``torch.autograd.grad``)."""
    for leaf in leaves:
        leaf.grad = None
    out.sum().backward()
    grads = [leaf.grad for leaf in leaves]
    for leaf in leaves:
        leaf.grad = None
    return grads


@pytest.mark.parametrize("fn", [checkpointed, checkpointed_reentrant])
def test_checkpoint_is_one_graph_with_the_region_as_a_sub_graph(fn):
    report = one_graph(fn, torch.randn(3, 4, requires_grad=True), torch.randn(4, 5, requires_grad=True))
    gm = report.graphs[0].graph_module
    (node,) = [n for n in gm.graph.nodes if n.target is CHECKPOINT]
    body = getattr(gm, node.args[0].target)
    assert isinstance(body, torch.fx.GraphModule)
    assert torch.sin in [n.target for n in body.graph.nodes]  # the region's ops live in the body only
    assert torch.sin not in graph_targets(report)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [checkpointed, checkpointed_reentrant])
def test_checkpoint_gives_eagers_values_and_gradients(fn, backend):
    x, w = torch.randn(3, 4, requires_grad=True), torch.randn(4, 5, requires_grad=True)
    got, want = loom.compile(fn, backend=backend)(x, w), fn(x, w)
    torch.testing.assert_close(got, want)
    for g, e in zip(backward_grads(got, [x, w]), backward_grads(want, [x, w])):
        torch.testing.assert_close(g, e)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_in_a_modules_forward(backend, reentrant):
    model, x = Checkpointed(reentrant), torch.randn(2, 4, requires_grad=True)
    one_graph(model, x)
    got, want = loom.compile(model, backend=backend)(x), model(x)
    torch.testing.assert_close(got, want)
    leaves = [x, *model.parameters()]
    for g, e in zip(backward_grads(got, leaves), backward_grads(want, leaves)):
        torch.testing.assert_close(g, e)


@pytest.mark.parametrize("backend", BACKENDS)
def test_checkpoint_saves_what_eager_checkpointing_saves(backend):
    x, w = torch.randn(3, 4, requires_grad=True), torch.randn(4, 5, requires_grad=True)
    compiled = loom.compile(checkpointed, backend=backend)
    compiled(x, w)
    eager = saved_tensors(checkpointed, x, w)
    assert eager == (2, 32)  # the inputs only: the region is recomputed in the backward
    assert saved_tensors(compiled, x, w) == eager
    assert saved_tensors(uncheckpointed, x, w)[1] > eager[1]


@pytest.mark.filterwarnings("ignore:None of the inputs have requires_grad")
def test_reentrant_checkpoint_without_an_input_requiring_grad_breaks_as_eager_behaves():
    def no_grad_input(x, w):
        return torch.utils.checkpoint.checkpoint(block, x, w.detach(), use_reentrant=True)

    x = torch.randn(3, 4)
    report = loom.explain(no_grad_input)(x, torch.randn(4, 5, requires_grad=True))
    assert report.break_count == 1 and "use_reentrant=True" in str(report.breaks[0])


# -- wrap, cond, while_loop, map ------------------------------------------------------------------------
from torch._higher_order_ops import map as hop_map  # noqa: E402
from torch._higher_order_ops import while_loop  # noqa: E402
from torch._higher_order_ops.wrap import wrap  # noqa: E402


def wrapped(x, w):
    return wrap(lambda a: (a @ w).sin(), x) + 1


def conditional(x, w):
    return torch.cond(x.sum() > 0, lambda a: (a @ w).sin(), lambda a: (a @ w).cos() * 2, (x,)) + 1


def conditional_on_a_bool(x, w):
    return torch.cond(x.shape[0] > 2, lambda a: a.sin() @ w, lambda a: a.cos(), (x,))


def looped(x):
    return while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a.sin() + 1), (torch.tensor(0), x))


def looped_over_ints(x):
    """Carried ints (a constant, and one computed from a size) and a tensor: torch.compile makes each int
    an unbacked SymInt; the loop's int results are used after it."""
    i, n, a = while_loop(lambda i, n, a: i < n, lambda i, n, a: (i + 1, n, a.cos() + i), (0, x.shape[0] + 1, x))
    return a * n + i, i * 2


def mapped(xs, w):
    return hop_map(lambda row, y: (row @ y).tanh(), xs, w)


def mapped_nested(xs, w):
    out = hop_map(lambda d, y: {"s": (d["a"] @ y).tanh(), "t": (d["b"][0] * 2, d["b"][1].sum())}, xs, w)
    return out["s"].sum(0) + out["t"][0].sum() + out["t"][1].sum()


HOP_CASES = {
    "wrap": (wrapped, lambda: (torch.randn(3, 3, requires_grad=True), torch.randn(3, 3, requires_grad=True)),
             torch.ops.higher_order.wrap),
    "cond": (conditional, lambda: (torch.randn(3, 3, requires_grad=True), torch.randn(3, 3, requires_grad=True)),
             torch.ops.higher_order.cond),
    "cond_on_a_bool": (conditional_on_a_bool, lambda: (torch.randn(3, 3, requires_grad=True),
                                                       torch.randn(3, 3, requires_grad=True)), None),
    "while_loop": (looped, lambda: (torch.randn(3, 3),), torch.ops.higher_order.while_loop),
    "while_loop_ints": (looped_over_ints, lambda: (torch.randn(3, 3),), torch.ops.higher_order.while_loop),
    "map": (mapped, lambda: (torch.randn(2, 3, 3, requires_grad=True), torch.randn(3, 3, requires_grad=True)),
            torch.ops.higher_order.map_impl),
    "map_nested": (mapped_nested, lambda: ({"a": torch.randn(2, 3, 3, requires_grad=True),
                                            "b": (torch.randn(2, 4, requires_grad=True), torch.randn(2, 5))},
                                           torch.randn(3, 3, requires_grad=True)), torch.ops.higher_order.map_impl),
}


@pytest.mark.parametrize("name", list(HOP_CASES))
def test_higher_order_op_is_one_graph_holding_the_op(name):
    fn, make_args, op = HOP_CASES[name]
    targets = graph_targets(one_graph(fn, *make_args()))
    if op is not None:
        assert op in targets
    else:  # a Python bool picks the branch while tracing, as eager does
        assert torch.ops.higher_order.cond not in targets and operator.matmul in targets


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(HOP_CASES))
def test_higher_order_op_gives_eagers_values_and_gradients(name, backend):
    fn, make_args, _ = HOP_CASES[name]
    check_values_and_grads(fn, make_args(), backend, tol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cond_takes_the_branch_the_data_picks_without_recompiling(backend):
    x, w = torch.randn(3, 3), torch.randn(3, 3)
    compiled = loom.compile(conditional, backend=backend)
    for sign in (1, -1):
        torch.testing.assert_close(compiled(sign * x.abs(), w), conditional(sign * x.abs(), w))
    assert loom.stats()["graphs"] == 1 and loom.stats()["recompiles"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_cond_on_a_symbolic_size_compiles_once_for_every_size(backend):
    def on_size(x):
        return torch.cond(x.shape[0] > 4, lambda a: a.sin(), lambda a: a.cos(), (x,))

    compiled = loom.compile(on_size, backend=backend, dynamic=True)
    for rows in (3, 6, 8):
        x = torch.randn(rows, 2)
        torch.testing.assert_close(compiled(x), on_size(x))
    assert loom.stats()["graphs"] == 1 and loom.stats()["recompiles"] == 0 and loom.stats()["graph_breaks"] == 0


def test_a_branch_that_does_not_trace_runs_torch_cond_as_eager_does():
    def printing(a):
        print("side effect")
        return a.sin()

    def breaks(x):
        return torch.cond(x.sum() > 0, printing, lambda a: a.cos(), (x,))

    # eager torch.cond compiles its branches with torch.compile, which refuses the print: the call,
    # left to eager by loom's graph break, raises exactly that error
    with pytest.raises(Exception) as eager:
        breaks(torch.randn(3))
    with pytest.raises(type(eager.value)):
        loom.compile(breaks, backend="eager")(torch.randn(3))


def test_while_loop_over_ints_compiles_once_for_every_size():
    compiled = loom.compile(looped_over_ints, backend="aot_eager", dynamic=True)
    for rows in (2, 4, 5):
        x = torch.randn(rows, 3)
        got, want = compiled(x), looped_over_ints(x)
        close(got[0], want[0], 1e-5)
        assert got[1] == want[1] == 2 * (rows + 1) and type(got[1]) is int
    assert loom.stats()["graphs"] == 1 and loom.stats()["recompiles"] == 0 and loom.stats()["graph_breaks"] == 0


XS = torch.arange(12.0).reshape(3, 4)


def carrying_a_float(x):
    return while_loop(lambda i, f, a: i < 3, lambda i, f, a: (i + 1, f * 2.0, a * f), (0, 1.5, x))


def indexing_with_the_carried_int(x):
    return while_loop(lambda i, a: i < XS.shape[0], lambda i, a: (i + 1, a + XS[i]), (0, x))


def sizing_with_the_carried_int(x):
    return while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + torch.ones(i).sum()), (0, x))


def differentiating_through_carried_ints(x):
    return while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a.sin()), (0, x.exp()))


def branching_on_the_carried_int(x):
    return while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2 if i > 1 else a), (0, x))


@pytest.mark.parametrize("fn, construct", [
    (carrying_a_float, "while_loop carrying"),
    (indexing_with_the_carried_int, "getitem on an int carried by while_loop"),
    (sizing_with_the_carried_int, "ones on an int carried by while_loop"),
    (branching_on_the_carried_int, "branching on an int carried by while_loop"),
    (differentiating_through_carried_ints, "while_loop carrying ints with a tensor requiring grad"),
])
def test_while_loop_breaks_once_where_torch_compile_cannot_capture_it(fn, construct):
    """torch.compile raises on each (a float carry, or ints carried with a tensor requiring grad: eager too; an
    int as index or size, or a branch on it: the int is an unbacked SymInt). loom breaks once at the while_loop, naming it and the user's line."""
    x = torch.zeros(4, requires_grad=fn is differentiating_through_carried_ints)
    with pytest.raises(loom.Unsupported, match=rf"(?s){construct}.*test_higher_order_ops\.py:\d+"):
        loom.compile(fn, backend="eager", fullgraph=True)(x)
    loom.reset()
    try:
        want = fn(x)
    except Exception as exc:  # eager refuses it: the call, run as eager runs it, raises eager's error
        with pytest.raises(type(exc)):
            loom.compile(fn, backend="aot_eager")(x)
    else:
        close(loom.compile(fn, backend="aot_eager")(x), want, 0)


# -- shape arithmetic through small tensors ---------------------------------------------------------------
def scaled_by_first_size(x):
    return x * torch.tensor(x.shape).tolist()[0]


def sizes_and_rounding(x):
    n = torch.tensor(x.shape[1]).item()
    return x.reshape(-1) * n, torch.tensor([0.1], dtype=torch.float32).tolist()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [scaled_by_first_size, sizes_and_rounding])
def test_tolist_and_item_of_a_tensor_of_sizes_fold_without_a_break(fn, backend):
    x = torch.randn(3, 4)
    one_graph(fn, x)
    got, want = loom.compile(fn, backend=backend)(x), fn(x)
    close(got[0] if fn is sizes_and_rounding else got, want[0] if fn is sizes_and_rounding else want, 0)
    if fn is sizes_and_rounding:
        assert got[1] == want[1] == [torch.tensor(0.1).item()]  # float32's rounding, as eager


def test_a_small_tensor_written_in_place_is_read_at_run_time():
    def written(x):
        t = torch.tensor([2, 3])
        t.add_(1)
        return x * t.tolist()[0]

    x = torch.randn(3)
    report = loom.explain(written)(x)
    assert report.break_count == 1 and "tolist" in str(report.breaks[0])
    torch.testing.assert_close(loom.compile(written, backend="eager")(x), x * 3)


# -- custom ops keep working; one script using every construct --------------------------------------------
@torch.library.custom_op("loom_hop_tests::scaled_sin", mutates_args=())
def scaled_sin(x: torch.Tensor, scale: float) -> torch.Tensor:
    return x.sin() * scale


@scaled_sin.register_fake
def _(x, scale):
    return torch.empty_like(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_op_inside_a_checkpoint_and_an_autocast_region(backend):
    def fn(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = torch.utils.checkpoint.checkpoint(lambda a: scaled_sin(a, 2.0) + 1, x, use_reentrant=False)
        return y * 2

    x = torch.randn(4)
    report = loom.explain(fn, backend=backend)(x)
    # (the custom op's Python implementation runs inside the graph with the hook off: no second graph)
    assert report.graph_count == 1 and report.break_count == 0 and CHECKPOINT in graph_targets(report), report
    loom.reset()
    torch.testing.assert_close(loom.compile(fn, backend=backend)(x), fn(x))


SCRIPT = '''
import functorch
import torch
from torch._higher_order_ops import map as hop_map, while_loop
from torch._higher_order_ops.wrap import wrap
from torch.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap
from torch.utils.checkpoint import checkpoint

net = torch.nn.Linear(3, 3)


@torch.library.custom_op("loom_explain_script::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@twice.register_fake
def _(x):
    return torch.empty_like(x)



def transforms(y, w):
    params = dict(net.named_parameters())
    per_sample = vmap(grad(lambda p, r: functional_call(net, p, (r.unsqueeze(0),)).pow(2).sum()),
                      in_dims=(None, 0))(params, y)
    g, value = grad_and_value(lambda a: (a @ w).sin().sum())(y)
    jac = jacrev(lambda a: a.sin() @ w)(y[0]) + jacfwd(lambda a: a.sin() @ w)(y[0])
    h = hessian(lambda a: (a.sin() * a.sum()).sum())(y[0])
    _, tangent = jvp(lambda a: a.cos(), (y,), (torch.ones_like(y),))
    out, pullback = vjp(lambda a: a.exp() @ w, y)
    legacy = functorch.vmap(lambda r: r.tanh())(y)
    return (per_sample["weight"].sum() + g.sum() + value + jac.sum() + h.sum() + tangent.sum()
            + pullback(out)[0].sum() + legacy.sum())


def step(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = (x @ w).float()
    y = checkpoint(lambda a: a.sin() @ w, y, use_reentrant=False)
    y = checkpoint(lambda a: a.cos() * 2, y, use_reentrant=True) + twice(y.detach())
    y = wrap(lambda a: a.cos(), y)
    y = torch.cond(y.sum() > 0, lambda a: a + 1, lambda a: a - 1, (y,))
    (i, y) = while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * 0.5), (torch.tensor(0), y))
    (n, z) = while_loop(lambda n, a: n < y.shape[0], lambda n, a: (n + 1, a.sin()), (0, y.detach()))
    y = hop_map(lambda row: row.tanh(), y)
    return y * torch.tensor(y.shape).tolist()[0] * n + z + transforms(y, w)


step(torch.randn(3, 3, requires_grad=True), torch.randn(3, 3, requires_grad=True)).sum().backward()
'''


def test_loom_explain_of_a_script_using_every_construct(tmp_path, capsys):
    from loom.cli import main

    path = tmp_path / "constructs.py"
    path.write_text(SCRIPT)
    assert main(["explain", str(path)]) == 0
    assert "1 graph, 0 graph breaks" in capsys.readouterr().out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["wrap", "checkpoint"])
def test_a_region_drawing_random_numbers_is_kept_when_its_result_is_unused(op, backend):
    """Eager's call draws from the generator: dropping the unused op would shift every later draw (torch.compile
    drops it under aot_eager and inductor: a wrong answer). A checkpoint without a backward through it is recorded
    as ``wrap``: AOTAutograd's partitioner refuses random ops in a recompute region."""
    def fn(x):
        if op == "wrap":
            wrap(lambda a: a + torch.rand(3), x)
        else:
            torch.utils.checkpoint.checkpoint(lambda a: a + torch.rand(3), x, use_reentrant=False)
        return x + torch.rand(3)

    x = torch.randn(3)
    torch.manual_seed(0)
    want = fn(x)
    torch.manual_seed(0)
    torch.testing.assert_close(loom.compile(fn, backend=backend)(x), want)
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("used", [True, False])
def test_a_checkpoint_drawing_random_numbers_recomputes_the_forwards_draws(backend, used):
    """Eager's checkpoint restores the RNG state to recompute: the backward sees the forward's draws (torch.compile's
    eager backend draws anew there: wrong gradients). loom's region saves its draws for the backward."""
    def fn(x, w):
        y = torch.utils.checkpoint.checkpoint(lambda a: (a @ w) * torch.rand(3, 3), x, use_reentrant=False)
        return (y if used else x) + torch.rand(3)

    x, w = torch.randn(3, 3, requires_grad=True), torch.randn(3, 3, requires_grad=True)
    torch.manual_seed(0)
    want = fn(x, w)
    grads_want = torch.autograd.grad(want.sum(), (x, w), allow_unused=True)
    torch.manual_seed(0)
    got = loom.compile(fn, backend=backend)(x, w)
    grads_got = torch.autograd.grad(got.sum(), (x, w), allow_unused=True)
    torch.testing.assert_close(got, want)
    for g, gw in zip(grads_got, grads_want):
        assert (g is None) == (gw is None)
        if gw is not None:
            torch.testing.assert_close(g, gw)
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


def test_map_over_a_symbolic_leading_size_is_one_graph_for_every_size():
    # (the leading sizes were put in a set: a SymInt does not hash, and the frame failed to compile)
    def rows_plus_count(x):
        return hop_map(lambda r, n: torch.sin(r + n), x[:, None], x.size(0))

    compiled = loom.compile(rows_plus_count, backend="eager", dynamic=True, options={"strict": True})
    for rows in (3, 5):
        x = torch.arange(float(rows))
        torch.testing.assert_close(compiled(x), rows_plus_count(x))
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (1, 0, 0)
