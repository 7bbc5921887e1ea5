#!/usr/bin/env python3
"""Guard-check cost: loom_guards against torch.compile's own guards, side by side in one run.

For three functions - (a) one tensor, (b) an nn.Module forward with 10 parameters, (c) 20 mixed
arguments - torch.compile(backend="eager") compiles and runs the function once; its guard manager is
then called directly (``guard_manager.check(f_locals)``). loom's side is the set of guards loom needs
for the same function, mirroring what torch guards (the tensors, constants, types, module structure and
globals the function reads, and global state), compiled once with the C++ accelerator and once with the
pure-Python back end, and called on a dict of locals and on an object shaped like loom_framehook's frame
view.

Timing: per-thread CPU time (``time.thread_time_ns``), interleaved rounds, the fastest round per
variant (the machines are shared and noisy: quote the ratios of one run). One torch thread.

    .venv/bin/python tools/bench/guards_bench.py [--rounds 15] [--number 20000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import torch

torch.set_num_threads(1)

import torch._dynamo  # noqa: E402 - after set_num_threads
from torch._dynamo.eval_frame import _debug_get_cache_entry_list  # noqa: E402

import loom_guards as lg  # noqa: E402
from loom_guards import (  # noqa: E402
    Attr,
    Const,
    ConstantMatch,
    DictAttr,
    DictKeys,
    Global,
    GlobalState,
    Identity,
    Item,
    Length,
    Local,
    ModuleParam,
    NoAliasing,
    Submodule,
    TensorMatch,
    TypeMatch,
)

# -- the three functions ------------------------------------------------------------------------------


def fn_a(x):
    return torch.sin(x) + 1


class Stack(torch.nn.Module):
    """Five Linear layers in a ModuleList: 10 parameters."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(5)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def fn_c(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19):
    return (
        a0 * a1 + a2 * a3 + a4[0] + a5 + a6 * a7 + a8[1] + a9 + a10 * a11 + a12 + a13[0] + a14
        + a15 * a16 + a17 + a18 + a19[1]
    )


ARGS_C = [
    torch.randn(4), 3, torch.randn(4), 2.5, (1, 2), torch.randn(4), 7, torch.randn(4), (3, 4), 1.5,
    torch.randn(4), 4, torch.randn(4), (5, 6), 8, torch.randn(4), 2, 0.5, torch.randn(4), (7, 8),
]
NAMES_C = [f"a{i}" for i in range(20)]


# -- loom's guards for each -----------------------------------------------------------------------------


def loom_guards_a(x: torch.Tensor) -> list:
    return [
        GlobalState(),
        TensorMatch(Local("x"), x),
        Identity(Global("torch"), torch),
        Identity(Attr(Global("torch"), "sin"), torch.sin),
    ]


def loom_guards_b(m: Stack, x: torch.Tensor) -> list:
    self_ = Local("self")
    layers = Submodule(self_, "layers")
    linear_mod = torch.nn.modules.linear
    module_mod = torch.nn.modules.module
    guards = [
        GlobalState(),
        TensorMatch(Local("x"), x),
        TypeMatch(self_, type(m)),
        TypeMatch(layers, torch.nn.ModuleList),
        DictKeys(DictAttr(layers, "_modules"), list(m.layers._modules)),
        Identity(Attr(Attr(Const(linear_mod), "F"), "linear"), torch.nn.functional.linear),
    ]
    for hooks in ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                  "_global_backward_pre_hooks"):
        guards.append(Length(Attr(Const(module_mod), hooks), 0))
    for i, layer in enumerate(m.layers):
        child = Submodule(layers, str(i))
        guards.append(TypeMatch(child, torch.nn.Linear))
        for name, p in layer.named_parameters(recurse=False):
            guards.append(TensorMatch(ModuleParam(child, name), p))
    return guards


def loom_guards_c(args: list) -> list:
    guards: list = [GlobalState()]
    tensors = []
    for name, value in zip(NAMES_C, args):
        src = Local(name)
        if isinstance(value, torch.Tensor):
            guards.append(TensorMatch(src, value))
            tensors.append(src)
        elif isinstance(value, tuple):
            guards += [TypeMatch(src, tuple), Length(src, len(value))]
        else:
            guards.append(ConstantMatch(src, value))
    # the tuple items the function reads
    for name, idx in (("a4", 0), ("a8", 1), ("a13", 0), ("a19", 1)):
        guards.append(ConstantMatch(Item(Local(name), idx), args[NAMES_C.index(name)][idx]))
    guards.append(NoAliasing(tensors))
    return guards


class FrameView:
    """Shaped like loom_framehook's frame view (its attributes, already built)."""

    __slots__ = ("closure", "f_builtins", "f_code", "f_globals", "f_locals")

    def __init__(self, f_locals: dict, fn: Callable) -> None:
        self.f_locals = f_locals
        self.f_globals = fn.__globals__
        self.f_builtins = __builtins__.__dict__ if hasattr(__builtins__, "__dict__") else __builtins__
        self.closure = fn.__closure__
        self.f_code = fn.__code__


# -- timing -------------------------------------------------------------------------------------------


def per_call_ns(fn: Callable[[Any], Any], arg: Any, number: int) -> float:
    clock = time.thread_time_ns
    t0 = clock()
    for _ in range(number):
        fn(arg)
    return (clock() - t0) / number


def torch_guard_manager(compiled: Callable, code: Any, *call_args: Any):
    compiled(*call_args)
    entries = _debug_get_cache_entry_list(code)
    if len(entries) != 1:
        raise RuntimeError(f"expected one cache entry, got {len(entries)}")
    return entries[0].guard_manager


def build_cases() -> dict[str, dict[str, Any]]:
    torch._dynamo.reset()
    cases: dict[str, dict[str, Any]] = {}

    x = torch.randn(8)
    gm_a = torch_guard_manager(torch.compile(fn_a, backend="eager"), fn_a.__code__, x)
    cases["a: one tensor"] = {"locals": {"x": x}, "fn": fn_a, "torch": gm_a, "guards": loom_guards_a(x)}

    m = Stack()
    xb = torch.randn(2, 4)
    gm_b = torch_guard_manager(torch.compile(m, backend="eager"), Stack.forward.__code__, xb)
    cases["b: module, 10 params"] = {
        "locals": {"self": m, "x": xb},
        "fn": Stack.forward,
        "torch": gm_b,
        "guards": loom_guards_b(m, xb),
    }

    gm_c = torch_guard_manager(torch.compile(fn_c, backend="eager"), fn_c.__code__, *ARGS_C)
    cases["c: 20 mixed args"] = {
        "locals": dict(zip(NAMES_C, ARGS_C)),
        "fn": fn_c,
        "torch": gm_c,
        "guards": loom_guards_c(ARGS_C),
    }
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--number", type=int, default=20000, help="calls per round")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()

    cases = build_cases()
    results: dict[str, dict[str, float]] = {}
    for name, case in cases.items():
        f_locals = case["locals"]
        fn = case["fn"]
        view = FrameView(f_locals, fn)
        fns: dict[str, tuple[Callable, Any]] = {"torch guard_manager.check(dict)": (case["torch"].check, f_locals)}
        variants = [("pure", False)]
        if lg.accelerator_available():
            variants.insert(0, ("accel", True))
        else:
            print(f"note: accelerator unavailable ({lg.accelerator_error()})", file=sys.stderr)
        for label, accel in variants:
            check = lg.compile(case["guards"], f_globals=fn.__globals__, accelerate=accel)
            if not (check(f_locals) and check(view)):
                raise SystemExit(f"{name}: loom {label} guard does not pass: {check.why_failed(f_locals)}")
            fns[f"loom {label}(dict)"] = (check, f_locals)
            fns[f"loom {label}(frame view)"] = (check, view)
            case.setdefault("n_guards", len(check.guards))
        if not case["torch"].check(f_locals):
            raise SystemExit(f"{name}: torch's guard does not pass")
        best = {k: float("inf") for k in fns}
        for _ in range(args.rounds):  # interleaved rounds
            for k, (f, a) in fns.items():
                best[k] = min(best[k], per_call_ns(f, a, args.number))
        results[name] = best

    print(f"torch {torch.__version__}, Python {sys.version.split()[0]}, "
          f"accelerator: {'yes' if lg.accelerator_available() else 'no'}; "
          f"per-thread CPU ns per check, best of {args.rounds} interleaved rounds x {args.number} calls\n")
    for name, best in results.items():
        base = best["torch guard_manager.check(dict)"]
        print(f"{name}  ({cases[name]['n_guards']} loom guards after simplification)")
        for k, v in best.items():
            ratio = "" if k.startswith("torch") else f"   {v / base:5.2f}x torch"
            print(f"  {k:34s} {v:9.1f} ns{ratio}")
        print()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
