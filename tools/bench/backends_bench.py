#!/usr/bin/env python3
"""Benchmark loom's ``triton`` backend against eager PyTorch and torch.compile's inductor, in one run.

    .venv/bin/python tools/bench/backends_bench.py                 # every model, every kernel pattern
    .venv/bin/python tools/bench/backends_bench.py --models mlp block --no-inductor

Graphs are captured by TorchDynamo (``torch.compile``) for both compilers, so loom and inductor see the
same FX graphs, and AOTAutograd splits each into forward and backward.

On a GPU it times, per model (forward + backward of one training step) and per kernel pattern
(pointwise chain, softmax, layer norm, row sum, var_mean; inference), eager against loom against
inductor, with ``triton.testing.do_bench`` (medians, L2 flushed between runs).

Everywhere (and only this on a CPU, where loom's kernels run under Triton's interpreter and timings
mean nothing) it reports, per model and graph:
- loom's kernel count, and the bytes its kernels read and write against the unfused ATen graph (each
  non-view, non-extern op reading its inputs and writing its output, as eager does);
- inductor's kernel count for the same graph, two ways: its Triton scheduler's fused kernels (inductor
  run with ``cpu_backend="triton"`` and stopped after fusion, since Triton cannot compile for the CPU
  here) -- the like-for-like figure -- and the C++ kernels it really generates for the CPU (its C++
  backend also fuses loops over different reduction dims, which a Triton kernel cannot).
With dynamic shapes (``torch.compile(dynamic=True)``), per model: how many compiles three input sizes
took, loom's kernels for the graphs over symbolic sizes against the static graphs', whether any graph
fell back to ATen, and the error against eager at each size (``--no-dynamic`` skips it).
Results are printed as tables and written to ``tools/bench/out/backends_bench.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tools" / "bench" / "out"
GPU = torch.cuda.is_available()
DEVICE = "cuda" if GPU else "cpu"


# ------------------------------------------------------------------------------------------- models
class MLP(nn.Module):
    def __init__(self, d_in: int, hidden: int, d_out: int) -> None:
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(d_in, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.fc1(x))
        x = nn.functional.gelu(self.fc2(x))
        return torch.log_softmax(self.fc3(x), dim=-1)


class Block(nn.Module):
    """A GPT-2 style pre-norm transformer block written out by hand."""

    def __init__(self, d: int, heads: int, seq: int) -> None:
        super().__init__()
        self.d, self.heads = d, heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).tril())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        c, h = self.d, self.heads
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, h, c // h).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // h))
        att = att.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.out(nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class ConvNet(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, channels, 3, padding=1), nn.BatchNorm2d(channels)
        self.conv2, self.bn2 = nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels)
        self.head = nn.Linear(channels, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.bn2(self.conv2(x)) + x)
        return self.head(x.mean(dim=(2, 3)))


def gpt2(layers: int, d: int, seq: int) -> nn.Module:
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(n_layer=layers, n_head=max(1, d // 64), n_embd=d, vocab_size=512, n_positions=seq,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)  # fmt: skip
    config.attn_implementation = "eager"
    model = GPT2LMHeadModel(config)

    class Wrapper(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=ids).logits

    return Wrapper()


def models(small: bool) -> dict[str, Callable[[], tuple[nn.Module, list[torch.Tensor]]]]:
    s = small

    def f32(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, device=DEVICE)

    return {
        "mlp": lambda: (MLP(12, 24, 6) if s else MLP(1024, 4096, 1024), [f32(16, 12) if s else f32(4096, 1024)]),
        "block": lambda: (Block(16, 2, 8) if s else Block(768, 12, 512), [f32(2, 8, 16) if s else f32(8, 512, 768)]),
        "convnet": lambda: (ConvNet(4) if s else ConvNet(64), [f32(2, 3, 8, 8) if s else f32(32, 3, 64, 64)]),
        "gpt2": lambda: (
            gpt2(2, 32, 16) if s else gpt2(4, 768, 512),
            [torch.randint(0, 512, (2, 16) if s else (8, 512), device=DEVICE)],
        ),
    }


def kernel_patterns(small: bool) -> dict[str, tuple[Callable[..., torch.Tensor], list[torch.Tensor]]]:
    rows, cols = (8, 64) if small else (8192, 4096)
    x, w, b = torch.randn(rows, cols, device=DEVICE), torch.randn(cols, device=DEVICE), torch.randn(cols, device=DEVICE)
    half = x.half() if GPU else x.bfloat16()
    return {
        "add_gelu": (lambda a, bias: nn.functional.gelu(a + bias), [x, b]),
        "softmax": (lambda a: torch.softmax(a, dim=-1), [x]),
        "softmax_half": (lambda a: torch.softmax(a, dim=-1), [half]),
        "layer_norm": (lambda a, weight, bias: nn.functional.layer_norm(a, (cols,), weight, bias), [x, w, b]),
        "row_sum": (lambda a: a.sum(dim=-1), [x]),
        "col_sum": (lambda a: a.sum(dim=0), [x]),
        "var_mean": (lambda a: torch.var_mean(a, dim=-1), [x]),
    }


# ------------------------------------------------------------------------------------------ helpers
def unfused_bytes(gm: torch.fx.GraphModule) -> int:
    """Bytes eager moves for a graph: every non-view, non-extern op reads its inputs, writes its outputs."""
    from loom_backends.kernels.fallbacks import fallback_reason

    def nbytes(v: Any) -> int:
        if isinstance(v, torch.Tensor):
            return v.numel() * v.element_size()
        if isinstance(v, (list, tuple)):
            return sum(nbytes(x) for x in v)
        return 0

    total = 0
    for node in gm.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        if node.target.is_view or fallback_reason(node.target) is not None:
            continue
        inputs = [a.meta.get("val") for a in node.all_input_nodes]
        total += sum(nbytes(v) for v in inputs) + nbytes(node.meta.get("val"))
    return total


def compile_with_loom(module: nn.Module, dynamic: bool = False) -> tuple[Callable[..., Any], list[Any]]:
    import loom_backends

    compiled: list[Any] = []

    def backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        fn = loom_backends.get("triton")(gm, example_inputs)
        compiled.append(fn)
        return fn

    torch._dynamo.reset()
    return torch.compile(module, backend=backend, dynamic=dynamic), compiled


@contextlib.contextmanager
def inductor_counting(stop_after_fusion: bool) -> Iterator[list[int]]:
    """Record how many kernels inductor's scheduler makes per graph (optionally stopping there)."""
    import torch._functorch.config as functorch_config
    import torch._inductor.config as inductor_config
    from torch._inductor import scheduler

    counts: list[int] = []
    original = scheduler.Scheduler.codegen

    class Stop(Exception):
        pass

    def codegen(self: Any) -> Any:
        kernels = [n for n in self.nodes if not n.is_extern() and not isinstance(n, scheduler.NopKernelSchedulerNode)]
        counts.append(len(kernels))
        if stop_after_fusion:
            raise Stop
        return original(self)

    scheduler.Scheduler.codegen = codegen
    patches = {"fx_graph_cache": False, "cpu_backend": "triton" if stop_after_fusion else "cpp"}
    try:
        with inductor_config.patch(patches), functorch_config.patch(enable_autograd_cache=False):
            yield counts
    finally:
        scheduler.Scheduler.codegen = original


def compile_with_inductor_counting(module: nn.Module, stop_after_fusion: bool) -> Callable[..., Any]:
    from torch._functorch.aot_autograd import make_boxed_func
    from torch._inductor.compile_fx import compile_fx, compile_fx_inner

    def inner(gm: torch.fx.GraphModule, example_inputs: list[Any], **kwargs: Any) -> Any:
        try:
            return compile_fx_inner(gm, example_inputs, **kwargs)
        except Exception:
            if not stop_after_fusion:
                raise
            return make_boxed_func(gm.forward)  # stopped after fusion: run this graph eagerly

    def backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        return compile_fx(gm, example_inputs, inner_compile=inner)

    torch._dynamo.reset()
    return torch.compile(module, backend=backend, dynamic=False)


def train_step(fn: Callable[..., Any], inputs: list[torch.Tensor]) -> Callable[[], None]:
    def step() -> None:
        out = fn(*inputs)
        out.float().sum().backward()

    return step


def make_inputs(inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    return [x.clone().requires_grad_(x.is_floating_point()) for x in inputs]


def bench_ms(fn: Callable[[], Any]) -> float:
    import triton.testing

    return float(triton.testing.do_bench(fn, warmup=10, rep=50))


# -------------------------------------------------------------------------------------------- runs
def run_model(name: str, factory: Callable[[], tuple[nn.Module, list[torch.Tensor]]], inductor: bool) -> dict[str, Any]:
    torch.manual_seed(0)
    module, inputs = factory()
    module = module.to(DEVICE)
    row: dict[str, Any] = {"model": name}

    fn, artifacts = compile_with_loom(copy.deepcopy(module))
    started = time.perf_counter()
    ours = make_inputs(inputs)
    out = fn(*ours)
    out.float().sum().backward()
    row["loom_compile_s"] = round(time.perf_counter() - started, 2)
    theirs = make_inputs(inputs)
    eager_copy = copy.deepcopy(module)
    reference = eager_copy(*theirs)
    reference.float().sum().backward()
    errors = [float((out.detach().float() - reference.detach().float()).abs().max())]
    errors += [float((a.grad - b.grad).abs().max()) for a, b in zip(ours, theirs) if a.grad is not None]
    compiled_params = dict(fn._orig_mod.named_parameters()) if hasattr(fn, "_orig_mod") else {}
    for name, p in eager_copy.named_parameters():
        q = compiled_params.get(name)
        if q is not None and p.grad is not None and q.grad is not None:
            errors.append(float((q.grad - p.grad).abs().max()))
    row["max_abs_err"] = max(errors)  # output, input and parameter gradients against eager
    graphs = [g for compiled in artifacts for g in compiled.graphs]
    row["graphs"] = [
        {
            "kind": g.kind,
            "loom_kernels": len(g.kernels),
            "externs": len(g.externs),
            "fused_bytes": sum(k.bytes_read + k.bytes_written for k in g.kernels),
            "unfused_bytes": unfused_bytes(g.graph_module),
            "fallback": getattr(g.compiled, "fallback_reason", None),
        }
        for g in graphs
    ]
    row["loom_kernels"] = sum(g["loom_kernels"] for g in row["graphs"])
    row["fused_bytes"] = sum(g["fused_bytes"] for g in row["graphs"])
    row["unfused_bytes"] = sum(g["unfused_bytes"] for g in row["graphs"])

    if inductor:
        for label, stop in (("inductor_triton_kernels", True), ("inductor_cpp_kernels", False)):
            if GPU and not stop:
                continue  # on a GPU inductor's real Triton kernels are counted below
            with inductor_counting(stop_after_fusion=stop and not GPU) as counts:
                train_step(compile_with_inductor_counting(copy.deepcopy(module), stop and not GPU), make_inputs(inputs))()
            row[label] = sum(counts)
            row[label + "_per_graph"] = list(counts)

    if GPU:
        eager_step = train_step(module, make_inputs(inputs))
        loom_step = train_step(fn, make_inputs(inputs))
        row["eager_ms"] = bench_ms(eager_step)
        row["loom_ms"] = bench_ms(loom_step)
        if inductor:
            torch._dynamo.reset()
            ind = torch.compile(copy.deepcopy(module), dynamic=False)
            row["inductor_ms"] = bench_ms(train_step(ind, make_inputs(inputs)))
    return row


def run_pattern(name: str, fn: Callable[..., torch.Tensor], inputs: list[torch.Tensor], inductor: bool) -> dict[str, Any]:
    compiled, artifacts = compile_with_loom(_Fn(fn))
    with torch.no_grad():
        got, want = compiled(*inputs), fn(*inputs)
    torch.testing.assert_close(got, want, atol=2e-2, rtol=2e-2)
    kernels = [k for a in artifacts for k in a.kernels]
    row: dict[str, Any] = {
        "pattern": name,
        "loom_kernels": len(kernels),
        "kernel_names": [k.name for k in kernels],
        "fused_bytes": sum(k.bytes_read + k.bytes_written for k in kernels),
    }
    if inductor and not GPU:
        with inductor_counting(stop_after_fusion=True) as counts, torch.no_grad():
            compile_with_inductor_counting(_Fn(fn), stop_after_fusion=True)(*inputs)
        row["inductor_triton_kernels"] = sum(counts)
    if GPU:
        with torch.no_grad():
            row["eager_ms"] = bench_ms(lambda: fn(*inputs))
            row["loom_ms"] = bench_ms(lambda: compiled(*inputs))
            if inductor:
                torch._dynamo.reset()
                ind = torch.compile(_Fn(fn), dynamic=False)
                row["inductor_ms"] = bench_ms(lambda: ind(*inputs))
                row["loom_vs_inductor"] = round(row["loom_ms"] / row["inductor_ms"], 3)
    return row


# Dynamic shapes: which dims of each model's input vary (a tuple: dims that keep equal sizes, like H and W,
# so that TorchDynamo's duck sizing gives them one symbol).
DYNAMIC_DIMS: dict[str, list[Any]] = {"mlp": [0], "block": [0, 1], "convnet": [0, (2, 3)], "gpt2": [0, 1]}


def dynamic_variants(name: str, inputs: list[torch.Tensor]) -> list[list[torch.Tensor]]:
    """The model's input at three other sizes: batch ``b//2 + 1``, ``b + 3``, ``b + 1`` and sequence
    (or image side) ``t//2 + 1``, ``t - 1``, ``t - 2`` (never 0 or 1, which PyTorch specialises, and
    shorter than the model's own: a sequence as long as the block's mask is another case for TorchDynamo,
    which guards on it when it slices the mask)."""
    x = inputs[0]
    variants = []
    for batch, other in ((lambda b: b // 2 + 1, lambda t: t // 2 + 1), (lambda b: b + 3, lambda t: t - 1),
                         (lambda b: b + 1, lambda t: t - 2)):  # fmt: skip
        shape = list(x.shape)
        for k, dims in enumerate(DYNAMIC_DIMS[name]):
            for d in dims if isinstance(dims, tuple) else (dims,):
                shape[d] = max(2, (batch if k == 0 else other)(shape[d]))
        if x.is_floating_point():
            variants.append([torch.randn(*shape, device=x.device, dtype=x.dtype)])
        else:
            variants.append([torch.randint(0, int(x.max()) + 1, shape, device=x.device, dtype=x.dtype)])
    return variants


def run_dynamic(name: str, factory: Callable[[], tuple[nn.Module, list[torch.Tensor]]]) -> dict[str, Any]:
    """``dynamic=True``: compiled at the first size, then a training step at each of three sizes."""
    torch.manual_seed(0)
    module, inputs = factory()
    module = module.to(DEVICE)
    fn, artifacts = compile_with_loom(copy.deepcopy(module), dynamic=True)
    reference = copy.deepcopy(module)
    errors, shapes = [], []
    started = time.perf_counter()
    for variant in dynamic_variants(name, inputs):
        ours, theirs = make_inputs(variant), make_inputs(variant)
        out, want = fn(*ours), reference(*theirs)
        out.float().sum().backward()
        want.float().sum().backward()
        errors.append(float((out.detach().float() - want.detach().float()).abs().max()))
        errors += [float((a.grad - b.grad).abs().max()) for a, b in zip(ours, theirs) if a.grad is not None]
        shapes.append("x".join(str(s) for s in variant[0].shape))
    compiled_params = dict(fn._orig_mod.named_parameters()) if hasattr(fn, "_orig_mod") else {}
    for pname, p in reference.named_parameters():  # gradients accumulated over the three steps
        q = compiled_params.get(pname)
        if q is not None and p.grad is not None and q.grad is not None:
            errors.append(float((q.grad - p.grad).abs().max()))
    graphs = [g for compiled in artifacts for g in compiled.graphs]
    row: dict[str, Any] = {
        "model": name,
        "sizes": ", ".join(shapes),
        "compiles": len(artifacts),
        "loom_kernels_dynamic": sum(len(g.kernels) for g in graphs),
        "symbolic_graphs": sum(1 for g in graphs if getattr(g.compiled, "symbolic_sizes", ())),
        "fallbacks": sum(1 for g in graphs if getattr(g.compiled, "fallback_reason", None)),
        "max_abs_err": max(errors),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if GPU:
        row["loom_dynamic_ms"] = bench_ms(train_step(fn, make_inputs(inputs)))
    return row


class _Fn(nn.Module):
    def __init__(self, fn: Callable[..., torch.Tensor]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        return self.fn(*args)


# ------------------------------------------------------------------------------------------- output
def table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    present = [c for c in columns if any(c in r for r in rows)]
    widths = [max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in present]
    lines = [" | ".join(c.ljust(w) for c, w in zip(present, widths))]
    lines.append("-|-".join("-" * w for w in widths))
    lines += [" | ".join(_fmt(r.get(c)).ljust(w) for c, w in zip(present, widths)) for r in rows]
    return "\n".join(lines)


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="*", default=["mlp", "block", "convnet", "gpt2"])
    parser.add_argument("--patterns", nargs="*", default=None, help="kernel patterns (default: all)")
    parser.add_argument("--no-inductor", action="store_true", help="skip inductor (it compiles slowly on a CPU)")
    parser.add_argument("--small", action="store_true", help="small sizes even on a GPU")
    parser.add_argument("--no-dynamic", action="store_true", help="skip the dynamic-shapes runs")
    args = parser.parse_args()
    torch.set_num_threads(1)
    small = args.small or not GPU
    inductor = not args.no_inductor
    print(f"device: {torch.cuda.get_device_name() if GPU else 'cpu (loom kernels under the Triton interpreter)'}")

    model_rows = []
    for name in args.models:
        try:
            model_rows.append(run_model(name, models(small)[name], inductor))
        except ImportError as err:  # transformers missing
            print(f"skipping {name}: {err}", file=sys.stderr)
    dynamic_rows = []
    if not args.no_dynamic:
        for name in args.models:
            try:
                dynamic_rows.append(run_dynamic(name, models(small)[name]))
            except ImportError as err:
                print(f"skipping dynamic {name}: {err}", file=sys.stderr)
    static_kernels = {r["model"]: r["loom_kernels"] for r in model_rows}
    for r in dynamic_rows:
        r["loom_kernels_static"] = static_kernels.get(r["model"])
        r["loom_ms"] = next((m.get("loom_ms") for m in model_rows if m["model"] == r["model"]), None)
    pattern_rows = []
    for name, (fn, inputs) in kernel_patterns(small).items():
        if args.patterns is None or name in args.patterns:
            pattern_rows.append(run_pattern(name, fn, inputs, inductor))

    for r in model_rows:
        r["bytes_saved"] = f"{1 - r['fused_bytes'] / r['unfused_bytes']:.0%}" if r["unfused_bytes"] else "-"
    print("\nmodels (one training step: forward + backward graphs)")
    print(table(model_rows, ["model", "loom_kernels", "inductor_triton_kernels", "inductor_cpp_kernels",
                             "fused_bytes", "unfused_bytes", "bytes_saved", "max_abs_err", "loom_compile_s",
                             "eager_ms", "loom_ms", "inductor_ms"]))  # fmt: skip
    print("\nper graph")
    per_graph = [{"model": r["model"], **g} for r in model_rows for g in r["graphs"]]
    for r in model_rows:
        for i, count in enumerate(r.get("inductor_triton_kernels_per_graph", [])):
            if i < len([g for g in per_graph if g["model"] == r["model"]]):
                [g for g in per_graph if g["model"] == r["model"]][i]["inductor_triton_kernels"] = count
    print(table(per_graph, ["model", "kind", "loom_kernels", "inductor_triton_kernels", "externs", "fused_bytes",
                            "unfused_bytes", "fallback"]))  # fmt: skip
    if dynamic_rows:
        print("\ndynamic shapes (torch.compile(dynamic=True): one compile over symbolic sizes, a training step per size)")
        print(table(dynamic_rows, ["model", "sizes", "compiles", "loom_kernels_static", "loom_kernels_dynamic",
                                   "symbolic_graphs", "fallbacks", "max_abs_err", "seconds", "loom_ms",
                                   "loom_dynamic_ms"]))  # fmt: skip
    print("\nkernel patterns (inference)")
    print(table(pattern_rows, ["pattern", "loom_kernels", "inductor_triton_kernels", "fused_bytes",
                               "eager_ms", "loom_ms", "inductor_ms", "loom_vs_inductor"]))  # fmt: skip
    if GPU and pattern_rows and inductor:
        ratios = [r["loom_vs_inductor"] for r in pattern_rows if "loom_vs_inductor" in r]
        print(f"\nloom / inductor time per kernel pattern: median {statistics.median(ratios):.2f}")
    OUT.mkdir(parents=True, exist_ok=True)
    result = {"device": DEVICE, "small": small, "models": model_rows, "dynamic": dynamic_rows, "patterns": pattern_rows}
    (OUT / "backends_bench.json").write_text(json.dumps(result, indent=2, default=str))
    print(f"\nwritten to {OUT / 'backends_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
