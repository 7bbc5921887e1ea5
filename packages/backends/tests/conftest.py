"""Shared fixtures: small models built here (loom's translator is not needed to make FX graphs)."""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
import types

import pytest
import torch
from torch import nn

RULES_CALLED: set = set()


def pytest_sessionstart(session):
    """Record which lowering rules the suite exercises (``test_zz_rule_coverage.py`` checks all were)."""
    from loom_backends.kernels.lowering import LOWERINGS

    def recording(key, rule):
        @functools.wraps(rule)
        def wrapper(*args, **kwargs):
            RULES_CALLED.add(key)
            return rule(*args, **kwargs)

        return wrapper

    for key, rule in list(LOWERINGS.items()):
        LOWERINGS[key] = recording(key, rule)


@pytest.fixture
def rules_called() -> set:
    return RULES_CALLED


def pytest_configure(config):
    config.addinivalue_line("markers", "triton_only: reads Triton's generated source; not run against the C generator")
    # Triton's interpreter computes masked-off lanes too (integer division by the zeros it loads there)
    config.addinivalue_line("filterwarnings", "ignore::RuntimeWarning:triton.*")


# ``LOOM_TEST_DEVICE=cuda`` (set by ``tools/gpu_check.py``) runs the lowering tests on a GPU: every graph
# that goes through the ``check`` fixture gets its inputs moved there, layouts kept; tests that do not
# use the fixture build CPU tensors of their own and are deselected.
TEST_DEVICE = os.environ.get("LOOM_TEST_DEVICE", "cpu")


# The lowering conformance suite (these files) runs against every code generator: the ``check`` fixture
# takes a ``generator`` parameter. ``LOOM_TEST_GENERATORS=triton`` (or ``c``) narrows it; on a GPU only
# Triton applies. Tests that read Triton's own source text are marked ``triton_only``.
CONFORMANCE = {"test_pointwise.py", "test_reductions.py", "test_views.py", "test_misc.py", "test_rule_samples.py"}
GENERATORS = os.environ.get("LOOM_TEST_GENERATORS", "triton,c" if TEST_DEVICE == "cpu" else "triton").split(",")


def pytest_generate_tests(metafunc):
    if "generator" not in metafunc.fixturenames:
        return
    conformance = metafunc.definition.path.name in CONFORMANCE
    triton_only = metafunc.definition.get_closest_marker("triton_only") is not None
    generators = GENERATORS if conformance and not triton_only else ["triton"]
    metafunc.parametrize("generator", generators)


def pytest_collection_modifyitems(config, items):
    if TEST_DEVICE == "cpu":
        return
    kept = [item for item in items if "check" in getattr(item, "fixturenames", ())]
    dropped = [item for item in items if item not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def on_test_device(value):
    """``value`` with every tensor in it moved to ``TEST_DEVICE``, each with its size, strides and offset."""
    if isinstance(value, (list, tuple)):
        return type(value)(on_test_device(v) for v in value)
    if not isinstance(value, torch.Tensor) or value.device.type == TEST_DEVICE:
        return value
    storage_numel = value.untyped_storage().nbytes() // value.element_size()
    whole = value.as_strided((storage_numel,), (1,), 0).to(TEST_DEVICE)
    return whole.as_strided(value.size(), value.stride(), value.storage_offset())


# Every generated kernel goes to a throw-away cache, never the user's ~/.cache.
os.environ.setdefault("LOOM_CACHE_DIR", tempfile.mkdtemp(prefix="loom-test-cache-"))
# Tests that patch the generators (a source that does not build) or record which rules run need every graph
# lowered: the graph cache is off here, except in test_compile_cache.py, which turns it on.
os.environ.setdefault("LOOM_GRAPH_CACHE", "0")
torch.set_num_threads(1)


class MLP(nn.Module):
    def __init__(self, d_in: int = 12, hidden: int = 24, d_out: int = 6) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.fc1(x))
        x = torch.nn.functional.gelu(self.fc2(x))
        return torch.log_softmax(self.fc3(x), dim=-1)


class Block(nn.Module):
    """A pre-norm transformer block (GPT-2 style) written out by hand."""

    def __init__(self, d: int = 16, heads: int = 2, seq: int = 5) -> None:
        super().__init__()
        self.d = d
        self.heads = heads
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).tril())
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        c, h = self.d, self.heads
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q = q.view(b, t, h, c // h).transpose(1, 2)
        k = k.view(b, t, h, c // h).transpose(1, 2)
        v = v.view(b, t, h, c // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (c // h) ** 0.5)
        att = att.masked_fill(~self.mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))


def trace(fn_or_module) -> torch.fx.GraphModule:
    return torch.fx.symbolic_trace(fn_or_module)


@pytest.fixture
def models() -> types.SimpleNamespace:
    return types.SimpleNamespace(MLP=MLP, Block=Block, trace=trace)


def train_gpt2(backend_name: str, *, n_layer: int, n_embd: int, vocab_size: int, n_positions: int,
               ids_shape: tuple[int, int]) -> list:
    """One training step of a tiny GPT-2 from transformers (random weights), captured by TorchDynamo as
    loom's translator would hand it over and compiled by ``backend_name``; logits and every parameter's
    gradient checked against eager. Returns the backend's compiled artifacts."""
    import copy

    import loom_backends

    transformers = pytest.importorskip("transformers")
    torch.manual_seed(4)
    config = transformers.GPT2Config(
        n_layer=n_layer, n_head=2, n_embd=n_embd, vocab_size=vocab_size, n_positions=n_positions,
        bos_token_id=0, eos_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
    )  # fmt: skip
    config.attn_implementation = "eager"
    model = transformers.GPT2LMHeadModel(config)
    reference = copy.deepcopy(model)
    artifacts = []

    def backend(gm, example_inputs):
        artifacts.append(loom_backends.get(backend_name)(gm, example_inputs))
        return artifacts[-1]

    ids = torch.randint(0, vocab_size, ids_shape)
    torch._dynamo.reset()
    compiled = torch.compile(lambda i: model(input_ids=i).logits, backend=backend, dynamic=False)
    out, want = compiled(ids), reference(input_ids=ids).logits
    torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-4)
    out.sum().backward()
    want.sum().backward()
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        torch.testing.assert_close(p.grad, q.grad, atol=1e-5, rtol=1e-4, msg=name)
    return artifacts


@pytest.fixture
def gpt2_training():
    """:func:`train_gpt2`, for the backends' model tests."""
    return train_gpt2


# ------------------------------------------------------------------------------------------------
# Checking the Triton backend's lowering of ATen graphs against eager ATen.


@pytest.fixture(autouse=True)
def _strict_triton():
    """Lowering or codegen bugs raise in tests instead of quietly falling back to ATen."""
    from loom_backends.triton import config

    strict, limit, block = config.strict, config.persistent_reduction_limit, config.looped_rblock
    config.strict = True
    yield
    config.strict, config.persistent_reduction_limit, config.looped_rblock = strict, limit, block


def assert_same(got, want, *, exact_float=False):
    """Outputs match eager: same dtype and shape, NaN where eager has NaN, close elsewhere."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w, exact_float=exact_float)
        return
    if not isinstance(want, torch.Tensor):
        assert got == want
        return
    assert isinstance(got, torch.Tensor), type(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.is_floating_point:
        tol = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float32: 2e-5, torch.float64: 1e-9}[want.dtype]
        if exact_float:
            tol = 0.0
        torch.testing.assert_close(got, want, atol=tol, rtol=tol, equal_nan=True)
    else:
        assert torch.equal(got, want), (got, want)


def graph_compiler(generator: str = "triton"):
    """The graph compiler of a code generator: ``"triton"`` or ``"c"``."""
    if generator == "c":
        from loom_backends.c import compile_graph
    else:
        from loom_backends.triton import compile_graph
    return compile_graph


def compile_aten(fn, *inputs, generator="triton"):
    """Compile ``fn`` (calling ATen ops directly) with a code generator's graph compiler, no AOT."""
    gm = torch.fx.symbolic_trace(fn)
    compiled = graph_compiler(generator)(gm, list(inputs))
    assert compiled.fallback_reason is None, compiled.fallback_reason
    return compiled


def check_aten(fn, *inputs, externs=0, exact_float=False, generator="triton"):
    """Compile ``fn`` and compare with eager on ``inputs``; return the compiled graph.

    ``externs`` is how many extern ATen calls the graph must make (``None``: any number, each one a
    rule declining its arguments, which the result must still get right).
    """
    inputs = on_test_device(inputs)
    # factory ops in the graph (arange, ones, ...) name no device: make them land beside the inputs
    with torch.device(TEST_DEVICE):
        compiled = compile_aten(fn, *inputs, generator=generator)
        want = fn(*inputs)
        got = compiled(*inputs)
    assert_same(got, want, exact_float=exact_float)
    if externs is None:
        assert all(e.reason.startswith("unsupported here") for e in compiled.externs), compiled.externs
    else:
        assert len(compiled.externs) == externs, [(e.op, e.reason) for e in compiled.externs]
    return compiled


@pytest.fixture
def compiles_without_warnings(tmp_path):
    """Check that a generated C source compiles with ``-Wall -Wextra -Werror`` (the compiler's message on failure)."""
    from loom_backends import c_toolchain

    def check_source(c_source: str) -> None:
        source = tmp_path / "graph.c"
        source.write_text(c_source)
        result = subprocess.run(
            [*c_toolchain.compiler_command(), "-O2", "-fopenmp", "-fPIC", "-Wall", "-Wextra", "-Werror", "-c", str(source),
             "-o", str(tmp_path / "graph.o")],
            capture_output=True, text=True,
        )
        assert result.returncode == 0, result.stderr

    return check_source


@pytest.fixture
def check(generator):
    """Compile with ``generator`` (parametrized: every code generator in the conformance files) and compare."""
    return types.SimpleNamespace(
        aten=functools.partial(check_aten, generator=generator),
        compile=functools.partial(compile_aten, generator=generator),
        graph=graph_compiler(generator),
        generator=generator,
        same=assert_same,
        device=on_test_device,
    )


# ------------------------------------------------------------------------------------------------
# Dynamic shapes: graphs over symbolic sizes, as loom's translator hands them to a backend.


def symbolic_inputs(inputs, dims, ints=()):
    """FakeTensors (and SymInts) for ``inputs`` in a fresh ShapeEnv: ``dims[i]`` are the dynamic dims
    of tensor ``i``; ``ints`` the positions of int inputs that become SymInts. Like the translator,
    sizes 0 and 1 stay static (the ShapeEnv specialises them)."""
    from torch._dynamo.source import LocalSource
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env)
    out = []
    for i, x in enumerate(inputs):
        source = LocalSource(f"arg{i}")
        if isinstance(x, torch.Tensor):
            dynamic = set(dims.get(i, ()))
            context = StatelessSymbolicContext(
                dynamic_sizes=[DimDynamic.DYNAMIC if d in dynamic else DimDynamic.STATIC for d in range(x.dim())],
                constraint_sizes=[None] * x.dim(),
            )
            out.append(mode.from_tensor(x, symbolic_context=context, source=source))
        elif i in ints:
            out.append(env.create_symintnode(env.create_unspecified_symbol(x, source, DimDynamic.DYNAMIC), hint=x, source=source))
        else:
            out.append(x)
    return out


def dynamic_graph(fn_or_module, inputs, dims, ints=()):
    """``(gm, example_inputs)``: ``fn_or_module`` traced by FX, its placeholders over symbolic sizes."""
    tracer = torch.fx.Tracer()
    tracer.proxy_buffer_attributes = True  # so that a buffer can be sliced to a symbolic size
    graph = tracer.trace(fn_or_module)
    gm = torch.fx.GraphModule(tracer.root, graph)
    example = symbolic_inputs(inputs, dims, ints)
    for node, value in zip([n for n in gm.graph.nodes if n.op == "placeholder"], example):
        node.meta["val"] = value
    return gm, example


@pytest.fixture
def dynamic():
    return types.SimpleNamespace(inputs=symbolic_inputs, graph=dynamic_graph)


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    """Run with 1 and 2 OpenMP threads (C backend); the parallel threshold is lowered so small tests go
    parallel."""
    from loom_backends.c import config

    before, threshold = torch.get_num_threads(), config.c_parallel_min_elements
    torch.set_num_threads(request.param)
    config.c_parallel_min_elements = 16
    yield request.param
    torch.set_num_threads(before)
    config.c_parallel_min_elements = threshold
