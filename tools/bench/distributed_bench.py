#!/usr/bin/env python3
"""DDP training step of a small transformer on 2 processes: eager DDP, loom DDP, torch.compile DDP.

    .venv/bin/python tools/bench/distributed_bench.py                      # gloo on CPUs (~2-3 minutes)
    .venv/bin/python tools/bench/distributed_bench.py --steps 5 --quick    # a smaller model, fewer steps
    python tools/bench/distributed_bench.py --backend nccl                 # one GPU per rank

One run spawns the ranks once (``torch.multiprocessing``, ``127.0.0.1``, a free port) and times the three
variants one after the other on the same seeds and batches. Each variant: build the model, wrap it
(``DDP(model)``; ``loom.compile(DDP(model), backend=...)``; ``torch.compile(DDP(model), backend=...)``),
warm up (the compiles), then time ``--steps`` full steps (forward, backward, optimizer step); the median
step is reported. Both compilers use an AOTAutograd backend by default (``aot_eager``), so both split
their graph at DDP's bucket boundaries: the comparison is of what the compilers add, not of generated
code (``--loom-backend triton --torch-backend inductor`` for that, on GPUs).

*Exposed all-reduce* is the time ``loss.backward()`` keeps running after the last parameter's gradient
was computed: DDP's reducer waits there for the buckets' all-reduces still in flight. The better the
overlap of communication with backward, the smaller it is. Measured with a post-accumulate-grad hook on
every parameter (its last firing) against the moment ``backward()`` returns; the max over ranks of the
median over steps. On GPUs both ends are synchronised.
"""

from __future__ import annotations

import argparse
import datetime
import os
import socket
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ("eager DDP", "loom DDP", "torch.compile DDP")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_model(dim: int, layers: int, vocab: int) -> Any:
    import torch

    class SmallTransformer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = torch.nn.Embedding(vocab, dim)
            self.blocks = torch.nn.ModuleList(
                torch.nn.TransformerEncoderLayer(dim, 4, dim * 4, dropout=0.0, batch_first=True, norm_first=True)
                for _ in range(layers)
            )
            self.head = torch.nn.Linear(dim, vocab)

        def forward(self, tokens: Any) -> Any:
            x = self.embed(tokens)
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    return SmallTransformer()


def run_variant(name: str, rank: int, args: argparse.Namespace, device: Any) -> dict[str, float]:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.manual_seed(0)
    model = make_model(args.dim, args.layers, args.vocab).to(device)
    ddp = DDP(model, device_ids=[device.index] if device.type == "cuda" else None, bucket_cap_mb=args.bucket_mb)
    if name == "loom DDP":
        import loom

        step_model = loom.compile(ddp, backend=args.loom_backend)
    elif name == "torch.compile DDP":
        step_model = torch.compile(ddp, backend=args.torch_backend)
    else:
        step_model = ddp
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
    last_grad = [0.0]

    def stamp(param: Any) -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        last_grad[0] = time.perf_counter()

    handles = [p.register_post_accumulate_grad_hook(stamp) for p in ddp.parameters()]
    g = torch.Generator().manual_seed(rank)
    batches = [(torch.randint(0, args.vocab, (args.batch, args.seq), generator=g).to(device),
                torch.randint(0, args.vocab, (args.batch, args.seq), generator=g).to(device)) for _ in range(4)]
    steps, exposed = [], []
    compile_started = time.perf_counter()
    for i in range(args.warmup + args.steps):
        if i == args.warmup:
            dist.barrier()
        tokens, target = batches[i % len(batches)]
        started = time.perf_counter()
        loss = torch.nn.functional.cross_entropy(step_model(tokens).flatten(0, 1), target.flatten())
        loss.backward()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        backward_done = time.perf_counter()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        if i == args.warmup - 1:
            warm_seconds = time.perf_counter() - compile_started
        if i >= args.warmup:
            steps.append(time.perf_counter() - started)
            exposed.append(backward_done - last_grad[0])
    for handle in handles:
        handle.remove()
    return {"step_ms": statistics.median(steps) * 1e3, "exposed_ms": statistics.median(exposed) * 1e3,
            "warmup_s": warm_seconds}


def worker(rank: int, world_size: int, port: int, args: argparse.Namespace, results: Any) -> None:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(args.threads)
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
    device = torch.device("cuda", rank) if args.backend == "nccl" else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    dist.init_process_group(args.backend, rank=rank, world_size=world_size,
                            timeout=datetime.timedelta(seconds=600))
    try:
        out = {}
        for name in VARIANTS:
            out[name] = run_variant(name, rank, args, device)
            dist.barrier()
        results.put((rank, out))
    finally:
        dist.destroy_process_group()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="gloo", choices=["gloo", "nccl"], help="process group backend")
    parser.add_argument("--loom-backend", default="aot_eager")
    parser.add_argument("--torch-backend", default="aot_eager")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=512)
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--bucket-mb", type=float, default=1.0, help="DDP bucket_cap_mb (several buckets)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    parser.add_argument("--quick", action="store_true", help="dim 64, 2 layers")
    args = parser.parse_args()
    if args.quick:
        args.dim, args.layers = 64, 2
    sys.path[:0] = [str(p) for p in sorted((ROOT / "packages").glob("*/src"))]
    os.environ["PYTHONPATH"] = os.pathsep.join(sys.path)

    import torch.multiprocessing as mp

    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=worker, args=(rank, 2, port, args, results)) for rank in range(2)]
    for proc in procs:
        proc.start()
    by_rank = dict(results.get(timeout=1800) for _ in procs)
    for proc in procs:
        proc.join(timeout=60)
    print(f"DDP training step, small transformer (dim {args.dim}, {args.layers} layers, batch {args.batch}x{args.seq}),"
          f" 2 ranks, {args.backend}, bucket_cap_mb={args.bucket_mb}; loom backend {args.loom_backend!r}, "
          f"torch.compile backend {args.torch_backend!r}; median of {args.steps} steps, max over ranks")
    print(f"{'variant':<20} {'step ms':>9} {'vs torch.compile':>17} {'exposed all-reduce ms':>22} {'warm-up s':>10}")
    reference = max(by_rank[r]["torch.compile DDP"]["step_ms"] for r in by_rank)
    for name in VARIANTS:
        step = max(by_rank[r][name]["step_ms"] for r in by_rank)
        exposed = max(by_rank[r][name]["exposed_ms"] for r in by_rank)
        warm = max(by_rank[r][name]["warmup_s"] for r in by_rank)
        print(f"{name:<20} {step:>9.2f} {step / reference:>16.2f}x {exposed:>22.2f} {warm:>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
