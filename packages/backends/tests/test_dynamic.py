"""Dynamic shapes: one compiled artifact, with size arguments instead of constants, serves every size.

Graphs come over symbolic sizes as loom's translator hands them over (placeholders' FakeTensors with
SymInt sizes from a ShapeEnv, see ``conftest.symbolic_inputs``); each test compiles once and calls the
result with several sizes (2, odd ones, and ones larger than a block), comparing with eager.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import loom_backends
from loom_backends.triton import compile_graph, runtime

SIZES = (2, 5, 33, 700)  # 700: more rows than one looped-reduction block (512) holds


def compile_dynamic(dynamic, fn, inputs, dims, backend="triton", ints=()):
    gm, example = dynamic.graph(fn, inputs, dims, ints)
    return loom_backends.get(backend)(gm, example)


def check_sizes(compiled, fn, make_inputs, sizes=SIZES, atol=2e-5, rtol=2e-5):
    for n in sizes:
        inputs = make_inputs(n)
        torch.testing.assert_close(compiled(*inputs), fn(*inputs), atol=atol, rtol=rtol, msg=f"size {n}")


def graphs_compiled(compiled):
    graphs = [g.compiled for g in compiled.graphs]
    for g in graphs:
        assert g.fallback_reason is None, g.fallback_reason
    return graphs


# ----------------------------------------------------------------------------------------- pointwise
def test_pointwise_chain_with_broadcast_and_a_size_scalar(dynamic):
    def f(x, y):
        return (torch.sigmoid(x * 2 + y).relu() - x.shape[0],)

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 6), torch.randn(6)], {0: {0}})
    check_sizes(compiled, f, lambda n: [torch.randn(n, 6), torch.randn(6)])
    (graph,) = graphs_compiled(compiled)
    assert len(graph.kernels) == 1 and not graph.externs
    kernel = graph.kernels[0]
    assert "s0" in kernel.source.splitlines()[1]  # the size is a kernel argument, not a constant
    assert "s0 = arg0.shape[0]" in graph.source and "launch_grid('pointwise', 6*s0, 1)" in graph.source
    assert kernel.xnumel_expr == "6*s0" and kernel.xnumel == 24  # at the traced size


def test_two_dynamic_dims_and_a_transposed_read(dynamic):
    def f(x):
        return (x.t() * 3 + x.t().exp(),)

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 3)], {0: {0, 1}})
    check_sizes(compiled, f, lambda n: [torch.randn(n, n + 3)], sizes=(2, 9, 40))


# ---------------------------------------------------------------------------------------- reductions
def test_reductions_over_dynamic_and_static_dims(dynamic):
    def f(x):
        return x.sum(0), x.amax(0), x.mean(0), x.sum(1), x.var(1), x.mean(), torch.argmax(x, 0)

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 5)], {0: {0}})
    check_sizes(compiled, f, lambda n: [torch.randn(n, 5)], atol=1e-4, rtol=1e-4)
    (graph,) = graphs_compiled(compiled)
    kinds = {k.kind for k in graph.kernels}
    assert "reduction" in kinds  # over the dynamic dim: looped, the row length is unknown
    assert "persistent_reduction" in kinds  # over the static dim: whole rows of 5
    assert not graph.externs


def test_var_over_a_dynamic_dim_divides_by_the_size(dynamic):
    def f(x):
        var, mean = torch.var_mean(x, 0, correction=1)
        return var, mean, x.std(0)

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 3)], {0: {0}})
    check_sizes(compiled, f, lambda n: [torch.randn(n, 3)], atol=1e-4, rtol=1e-4)
    graphs_compiled(compiled)


def test_softmax_and_layer_norm_over_static_last_dim_with_dynamic_batch(dynamic):
    weight, bias = torch.randn(8), torch.randn(8)

    def f(x):
        return torch.softmax(x, -1), F.layer_norm(x, (8,), weight, bias), torch.log_softmax(x.float(), -1)

    compiled = compile_dynamic(dynamic, f, [torch.randn(3, 4, 8)], {0: {0, 1}})
    check_sizes(compiled, f, lambda n: [torch.randn(n, n + 1, 8)], sizes=(2, 7, 30), atol=1e-5, rtol=1e-5)
    (graph,) = graphs_compiled(compiled)
    assert {k.kind for k in graph.kernels} == {"persistent_reduction"}
    assert len(graph.kernels) <= 3


def test_softmax_and_layer_norm_over_a_dynamic_last_dim(dynamic):
    def f(x):
        return torch.softmax(x, -1), F.layer_norm(x, x.shape[-1:])

    compiled = compile_dynamic(dynamic, f, [torch.randn(3, 4)], {0: {0, 1}})
    shapes = {2: (2, 3), 9: (9, 27), 3: (3, 700)}  # 700: more than one RBLOCK (512) per row
    check_sizes(compiled, f, lambda n: [torch.randn(*shapes[n])], sizes=tuple(shapes), atol=1e-5, rtol=1e-4)
    (graph,) = graphs_compiled(compiled)
    assert {k.kind for k in graph.kernels} == {"reduction"}  # rows of unknown length: looped


def test_transposed_inputs_and_two_dynamic_sizes_broadcast(dynamic):
    def f(x, y):
        return (x.unsqueeze(-1) + y).amax(-1) + x.sum(0)

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 3).t(), torch.randn(5)], {0: {0, 1}, 1: {0}})
    for (n, m), k in (((2, 3), 4), ((6, 5), 700)):
        for x in (torch.randn(m, n).t(), torch.randn(n, m)):  # the compiled strides, and others (copied)
            y = torch.randn(k)
            torch.testing.assert_close(compiled(x, y), f(x, y))
    graphs_compiled(compiled)


# ------------------------------------------------------------------------------------------------ views
def test_views_with_symbolic_sizes(dynamic):
    def f(x):
        b, d = x.shape
        flat = x.view(b * d)  # a view of the input: no copy
        halves = x.reshape(b, 2, d // 2).sum(1)
        moved = x.t().reshape(-1) * 2  # a reshape of a transposed tensor copies
        rows = x[1:] - x[:-1]  # slices with symbolic lengths
        picked = x[:, 1] + x[-1].sum()
        grown = x.unsqueeze(1).expand(b, 3, d).contiguous()
        joined = torch.cat([x, x * 2], 0).flip(0)
        padded = F.pad(x, (1, 2), value=0.5)
        return flat.relu(), halves, moved, rows, picked, grown, joined, padded

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 6)], {0: {0}})
    check_sizes(compiled, f, lambda n: [torch.randn(n, 6)])
    (graph,) = graphs_compiled(compiled)
    assert not graph.externs, graph.externs


def test_chunks_of_a_dynamic_dim(dynamic):
    def f(x):
        a, b = x.chunk(2, dim=0)  # sizes (s0 + 1) // 2 and s0 - (s0 + 1) // 2
        return a.sum(0) * 2, b.exp()

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 3)], {0: {0}})
    check_sizes(compiled, f, lambda n: [torch.randn(n, 3)], sizes=(2, 5, 8, 33))
    (graph,) = graphs_compiled(compiled)
    assert not graph.externs


def test_a_view_that_cannot_be_lowered_symbolically_runs_through_aten(dynamic):
    def f(x):
        return x.diagonal().exp() * 2, x.sum(1)  # the diagonal's length is min(s0, s1)

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 3)], {0: {0, 1}})
    for n, m in ((2, 3), (5, 4), (33, 40)):
        x = torch.randn(n, m)
        torch.testing.assert_close(compiled(x), f(x))
    (graph,) = graphs_compiled(compiled)
    assert graph.kernels and [e.op for e in graph.externs] == ["aten.diagonal.default"]  # that node only


def test_slices_train_with_a_dynamic_size(dynamic):
    def f(x):
        return ((x[1:] * x[:-1]).sum(1) + x[:, 1:3].sum(1)[1:],)  # the backward writes slices back (slice_scatter)

    x = torch.randn(4, 5, requires_grad=True)
    compiled = compile_dynamic(dynamic, f, [x], {0: {0}})
    for n in (2, 7, 40):
        ours, theirs = torch.randn(n, 5, requires_grad=True), None
        theirs = ours.detach().clone().requires_grad_(True)
        (out,), (want,) = compiled(ours), f(theirs)
        torch.testing.assert_close(out, want)
        out.sum().backward()
        want.sum().backward()
        torch.testing.assert_close(ours.grad, theirs.grad)
    graphs_compiled(compiled)
    assert not compiled.externs, compiled.externs


def test_symbolic_int_inputs(dynamic):
    def f(x, n):
        return (x.view(n, -1) * n).sum(1) + torch.arange(n)

    compiled = compile_dynamic(dynamic, f, [torch.randn(12), 4], {0: {0}}, ints=(1,))
    for n, m in ((2, 3), (4, 5), (6, 50)):
        x = torch.randn(n * m)
        torch.testing.assert_close(compiled(x, n), f(x, n))
    graphs_compiled(compiled)


# ------------------------------------------------------------------------------ one artifact, any size
def test_kernel_count_does_not_grow_with_the_sizes_seen(dynamic):
    def f(x):
        return (torch.softmax(x * 2, -1).sum(0),)

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 16)], {0: {0}})
    (graph,) = graphs_compiled(compiled)
    kernels, modules = [k.name for k in compiled.kernels], len(runtime._modules)
    check_sizes(compiled, f, lambda n: [torch.randn(n, 16)], sizes=(2, 3, 4, 9, 17, 64, 100, 1025))
    assert [k.name for k in compiled.kernels] == kernels
    assert len(compiled.graphs) == 1 and len(runtime._modules) == modules


def test_source_and_cache_key_do_not_depend_on_the_traced_size(dynamic):
    def f(x):
        return (x.sum(1).relu(),)

    sources = set()
    for traced in (3, 11, 40):
        gm, example = dynamic.graph(f, [torch.randn(traced, 5)], {0: {0}})
        from torch._functorch.aot_autograd import aot_module_simplified

        def grab(graph, inputs):
            compiled = compile_graph(graph, list(inputs))
            sources.add((compiled.source, compiled.path))
            return compiled

        aot_module_simplified(gm, example, fw_compiler=grab)
    assert len(sources) == 1, [s for s, _ in sources]


def test_aten_graph_from_make_fx_compiles_to_kernels():
    from torch.fx.experimental.proxy_tensor import make_fx

    gm = make_fx(lambda x: (torch.exp(x) * 2,), tracing_mode="symbolic")(torch.randn(4, 3))
    example = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
    compiled = compile_graph(gm, example)
    assert compiled.fallback_reason is None and len(compiled.kernels) == 1
    for shape in ((2, 2), (7, 3), (5, 40)):
        x = torch.randn(*shape)
        torch.testing.assert_close(compiled(x)[0], x.exp() * 2)


def test_floats_computed_from_sizes_are_kernel_arguments(dynamic):
    def f(x):
        return (x * (x.shape[0] / 3) + x.shape[1] ** 0.5,)  # SymFloats: s0 / 3 and sqrt(s1)

    compiled = compile_dynamic(dynamic, f, [torch.randn(4, 2)], {0: {0, 1}})
    check_sizes(compiled, f, lambda n: [torch.randn(n, n + 1)], sizes=(2, 6, 31))
    (graph,) = graphs_compiled(compiled)
    assert "f0 = s0 / 3" in graph.source and not graph.externs


def test_a_size_the_inputs_do_not_give_runs_the_graph_through_aten():
    from torch._dynamo.source import LocalSource
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv

    env = ShapeEnv()
    a, b = (env.create_symintnode(env.create_unspecified_symbol(n, LocalSource(f"n{n}"), DimDynamic.DYNAMIC), hint=n)
            for n in (3, 4))  # fmt: skip
    with FakeTensorMode(shape_env=env):
        example = torch.empty(a * b)  # only the product of two symbols is known at run time
    compiled = compile_graph(torch.fx.symbolic_trace(lambda x: (x * 2,)), [example])
    assert "cannot be computed from the graph's inputs" in compiled.fallback_reason
    x = torch.randn(10)
    torch.testing.assert_close(compiled(x)[0], x * 2)


# ------------------------------------------------------------------------------------------- training
class Block(nn.Module):
    """A pre-norm transformer block whose causal mask is sliced to the sequence length."""

    def __init__(self, d: int = 16, heads: int = 2, max_seq: int = 64) -> None:
        super().__init__()
        self.d, self.heads = d, heads
        self.register_buffer("mask", torch.ones(max_seq, max_seq, dtype=torch.bool).tril())
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        c, h = self.d, self.heads
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q = q.view(b, t, h, c // h).transpose(1, 2)
        k = k.view(b, t, h, c // h).transpose(1, 2)
        v = v.view(b, t, h, c // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (c // h) ** 0.5)
        att = att.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


def train_dynamic(dynamic, backend, module, example, dims, shapes):
    """Compile once over symbolic sizes; one training step per shape matches eager (outputs, grads)."""
    gm, fakes = dynamic.graph(module, [example.clone().requires_grad_(True)], dims)
    compiled = loom_backends.get(backend)(gm, fakes)
    for shape in shapes:
        x = torch.randn(*shape)
        ours, theirs = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
        reference = copy.deepcopy(module)
        for p in gm.parameters():
            p.grad = None
        out, want = compiled(ours), reference(theirs)
        torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-4)
        grad = torch.randn_like(want)
        out.backward(grad)
        want.backward(grad)
        torch.testing.assert_close(ours.grad, theirs.grad, atol=1e-5, rtol=1e-4)
        theirs_params = dict(reference.named_parameters())
        for name, p in gm.named_parameters():
            torch.testing.assert_close(p.grad, theirs_params[name].grad, atol=1e-5, rtol=1e-4, msg=f"{name} at {shape}")  # fmt: skip
    return compiled


@pytest.mark.parametrize("backend", ["aot_eager", "triton"])
def test_mlp_trains_with_a_dynamic_batch(backend, dynamic, models):
    torch.manual_seed(0)
    compiled = train_dynamic(dynamic, backend, models.MLP(), torch.randn(4, 12), {0: {0}}, [(2, 12), (9, 12), (40, 12)])
    assert {g.kind for g in compiled.graphs} == {"forward", "backward"}
    if backend == "triton":
        graphs = graphs_compiled(compiled)
        assert {e.op for e in compiled.externs} <= {"aten.mm.default"}
        kernels = len(compiled.kernels)
        assert kernels <= 8 and all(len(g.kernels) for g in graphs)


@pytest.mark.parametrize("backend", ["aot_eager", "triton"])
def test_transformer_block_trains_with_dynamic_batch_and_sequence(backend, dynamic):
    torch.manual_seed(1)
    shapes = [(2, 3, 16), (3, 8, 16), (2, 17, 16)]
    compiled = train_dynamic(dynamic, backend, Block(), torch.randn(2, 5, 16), {0: {0, 1}}, shapes)
    assert {g.kind for g in compiled.graphs} == {"forward", "backward"}
    if backend == "triton":
        graphs_compiled(compiled)
        assert {e.op for e in compiled.externs} <= {"aten.mm.default", "aten.bmm.default"}, compiled.externs


# -------------------------------------------------------------------------------- from the translator
def test_graph_from_loom_translator():
    loom_symbolic = pytest.importorskip("loom_symbolic")
    if not loom_symbolic.versions.is_supported():
        pytest.skip(f"loom-symbolic does not translate this CPython's bytecode yet ({loom_symbolic.versions.SUPPORTED})")
    from loom_symbolic.shapes import DynamicSpec

    def f(x):
        b, d = x.shape
        return (x.view(b * d).relu() * b).sum(), torch.softmax(x, -1)

    t = loom_symbolic.translate_function(f, torch.randn(4, 3), dynamic=DynamicSpec(dims={"L['x']": frozenset({0})}))
    (g,) = t.graphs
    compiled = loom_backends.get("triton")(g.graph_module, g.example_inputs)
    check_sizes(compiled, f, lambda n: [torch.randn(n, 3)], sizes=(2, 7, 33))
    graphs_compiled(compiled)


@pytest.mark.parametrize("backend", ["c", "triton"])
def test_a_size_modulo_whose_sympy_form_goes_negative_floors(dynamic, backend):
    """``(4 - s0 % 4) % 4`` (padding to a multiple of 4) simplifies to ``(-(s0 % 4)) % 4``: printed with C's or
    Triton's truncating ``%`` it was negative, and the padded rows' sum ran over memory never written."""

    def f(x):
        pad = (4 - x.shape[0] % 4) % 4
        return F.pad(x, (0, pad)).reshape(-1, 4).sum(-1), x.new_zeros(pad + 1)

    compiled = compile_dynamic(dynamic, f, [torch.randn(6)], {0: {0}}, backend=backend)
    check_sizes(compiled, f, lambda n: [torch.randn(n)], sizes=(3, 5, 8, 33))

