#!/usr/bin/env python3
"""torch.func workloads (issue 28): loom and torch.compile side by side, as ratios to eager.

Per-sample gradients (``vmap(grad(loss))`` over ``functional_call`` of an MLP), a Jacobian (``jacrev``)
and a Hessian-vector product (``jvp`` of ``grad``). For each: the first call's time (the compile) and the
steady per-call time, each backend's divided by eager's. Noisy on a shared machine: compare ratios of one run.

    .venv/bin/python tools/bench/func_bench.py [--backends aot_eager,c] [--no-torch]
"""

from __future__ import annotations

import argparse
import time

import torch

F = torch.func
NET = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.Tanh(), torch.nn.Linear(64, 10))
PARAMS = {k: v.detach() for k, v in NET.named_parameters()}


def per_sample_grads(params, x, y):
    def loss(p, xi, yi):
        return torch.nn.functional.cross_entropy(F.functional_call(NET, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    return F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, x, y)


def jacobian(params, x, y):
    return F.jacrev(lambda a: F.functional_call(NET, params, (a,)).tanh())(x[0])


def hvp(params, x, y):
    def loss(p):
        return torch.nn.functional.cross_entropy(F.functional_call(NET, p, (x,)), y)

    tangent = {k: torch.ones_like(v) for k, v in params.items()}
    return F.jvp(F.grad(loss), (params,), (tangent,))[1]


WORKLOADS = [per_sample_grads, jacobian, hvp]


def _time(fn, args, repeat=20):
    start = time.perf_counter()
    fn(*args)
    first = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(repeat):
        fn(*args)
    return first, (time.perf_counter() - start) / repeat


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="aot_eager,c")
    parser.add_argument("--no-torch", action="store_true", help="skip torch.compile's columns")
    options = parser.parse_args()
    import loom

    torch.set_num_threads(1)
    args = (PARAMS, torch.randn(64, 32), torch.randint(0, 10, (64,)))
    print(f"{'workload':18} {'compiler':10} {'backend':10} {'first call / eager':>18} {'per call / eager':>16}")
    for workload in WORKLOADS:
        _, eager = _time(workload, args)
        runs = [("loom", b, loom.compile(workload, backend=b)) for b in options.backends.split(",")]
        if not options.no_torch:
            import torch._dynamo as dynamo

            dynamo.reset()
            torch_backends = {"aot_eager": "aot_eager", "c": "inductor"}
            runs += [("torch", torch_backends.get(b, b), torch.compile(workload, backend=torch_backends.get(b, b)))
                     for b in options.backends.split(",")]
        for compiler, backend, compiled in runs:
            first, steady = _time(compiled, args)
            print(f"{workload.__name__:18} {compiler:10} {backend:10} {first / eager:18.1f} {steady / eager:16.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
