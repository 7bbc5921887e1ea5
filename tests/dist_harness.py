"""Run a test body on 2 gloo processes and bring each rank's result back to the test.

``run_ranks(worker, *args)`` spawns ``world_size`` processes (``torch.multiprocessing``, spawn), each
joining one gloo process group through a TCPStore the parent opened on ``127.0.0.1`` (port picked by the
OS, so tests never collide on a port), calls ``worker(rank, world_size, *args)`` and sends its result
(anything ``torch.save`` takes) back. The parent asserts on the results. Every run has a hard deadline:
past it the workers are killed and :class:`DistributedTimeout` is raised, so a deadlocked collective
fails the test instead of hanging CI. A worker's exception is re-raised in the parent with its
traceback; the process group is destroyed on every exit path.

``worker`` must be importable by name (a module-level function of a test module or of this one).
"""

from __future__ import annotations

import datetime
import io
import os
import queue as queue_module
import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


class DistributedTimeout(AssertionError):
    """The ranks did not all finish within the deadline (a hang, a deadlocked collective): they were killed."""


class RankFailed(AssertionError):
    """A rank raised: the message holds its traceback."""


def _dump(value: Any) -> bytes:
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


def _load(data: bytes) -> Any:
    return torch.load(io.BytesIO(data), weights_only=False)


def _entry(worker: Callable[..., Any], rank: int, world_size: int, port: int, backend: str,
           args: tuple[Any, ...], results: Any, pg_timeout: float, init: bool) -> None:
    torch.set_num_threads(1)  # 2 ranks on a small shared machine
    # As in the test suites: an internal error in loom must fail the test, not fall back silently.
    warnings.filterwarnings("error", message="loom: internal error", category=RuntimeWarning)
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
                       "RANK": str(rank), "WORLD_SIZE": str(world_size), "LOCAL_RANK": str(rank)})
    try:
        if init:
            store = dist.TCPStore("127.0.0.1", port, world_size, is_master=False,
                                  timeout=datetime.timedelta(seconds=pg_timeout))
            dist.init_process_group(backend, store=store, rank=rank, world_size=world_size,
                                    timeout=datetime.timedelta(seconds=pg_timeout))
        value = worker(rank, world_size, *args)
        results.put((rank, "ok", _dump(value)))
    except BaseException:
        results.put((rank, "error", traceback.format_exc()))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def run_ranks(worker: Callable[..., Any], *args: Any, world_size: int = 2, timeout: float = 90.0,
              backend: str = "gloo", pg_timeout: float | None = None, init: bool = True) -> list[Any]:
    """Run ``worker(rank, world_size, *args)`` on ``world_size`` processes; their results, by rank.

    ``timeout``: seconds for the whole run (start-up included) before every worker is killed and
    :class:`DistributedTimeout` raised. ``pg_timeout``: the process group's own collective timeout
    (default: ``timeout``). ``init=False``: no process group (the worker sets one up itself).
    """
    # The parent holds the store's server side: its port is the OS's pick, and it outlives the workers.
    store = dist.TCPStore("127.0.0.1", 0, None, is_master=True, wait_for_workers=False,
                          timeout=datetime.timedelta(seconds=timeout))
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_entry, daemon=True,
                    args=(worker, rank, world_size, store.port, backend, args, results,
                          pg_timeout or timeout, init))
        for rank in range(world_size)
    ]
    for proc in procs:
        proc.start()
    deadline = time.monotonic() + timeout
    got: dict[int, tuple[str, Any]] = {}
    finished = False
    try:
        while len(got) < world_size:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DistributedTimeout(
                    f"{worker.__name__}: ranks {sorted(set(range(world_size)) - set(got))} did not finish within "
                    f"{timeout:.0f} s (ranks {sorted(got)} did); all workers were killed"
                )
            try:
                rank, status, payload = results.get(timeout=min(left, 0.5))
            except queue_module.Empty:
                dead = [p for p in procs if p.exitcode is not None and procs.index(p) not in got]
                if dead and not _drain_after_exit(results, got):
                    codes = {procs.index(p): p.exitcode for p in dead}
                    raise RankFailed(f"{worker.__name__}: ranks exited without a result (exit codes {codes})") from None
                continue
            got[rank] = (status, payload)
        finished = True
    finally:
        _stop(procs, grace=5.0 if finished else 0.0)
        results.close()
        del store
    failures = {rank: payload for rank, (status, payload) in got.items() if status == "error"}
    if failures:
        text = "\n".join(f"--- rank {rank} ---\n{tb}" for rank, tb in sorted(failures.items()))
        raise RankFailed(f"{worker.__name__} failed on ranks {sorted(failures)}:\n{text}")
    return [_load(got[rank][1]) for rank in range(world_size)]


def _drain_after_exit(results: Any, got: dict[int, tuple[str, Any]]) -> bool:
    """A rank that exited may have put its result just before: read it (True if one came)."""
    try:
        rank, status, payload = results.get(timeout=1.0)
    except queue_module.Empty:
        return False
    got[rank] = (status, payload)
    return True


def _stop(procs: list[Any], grace: float) -> None:
    """Let finished workers exit (``grace`` seconds each), then kill whatever is left."""
    for proc in procs:
        proc.join(timeout=grace)
    for proc in procs:
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=5)


def mlp(width: int = 32, depth: int = 4) -> torch.nn.Module:
    """A small MLP (the same weights on every rank for one seed)."""
    layers: list[torch.nn.Module] = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers, torch.nn.Linear(width, 1))


class TinyTransformer(torch.nn.Module):
    """Embedding, two pre-norm encoder blocks (no dropout: eager and compiled draw no random numbers), a head."""

    def __init__(self, vocab: int = 64, dim: int = 32, heads: int = 4, layers: int = 2) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.blocks = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(dim, heads, dim * 2, dropout=0.0, batch_first=True, norm_first=True)
            for _ in range(layers)
        )
        self.head = torch.nn.Linear(dim, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


class TwoHeads(torch.nn.Module):
    """A model with a head the loss never uses (DDP's find_unused_parameters)."""

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.Tanh())
        self.used = torch.nn.Linear(width, 1)
        self.unused = torch.nn.Linear(width, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.used(self.body(x))


MODELS = {"mlp": mlp, "transformer": TinyTransformer, "two_heads": TwoHeads}


def batch(kind: str, rank: int, step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Rank- and step-dependent data (ranks see different batches, as in real data parallelism)."""
    g = torch.Generator().manual_seed(1000 + 17 * rank + step)
    if kind == "transformer":
        return torch.randint(0, 64, (2, 8), generator=g), torch.randint(0, 64, (2, 8), generator=g)
    return torch.randn(8, 32, generator=g), torch.randn(8, 1, generator=g)


def loss_of(kind: str, out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Cross-entropy for the transformer, MSE for the rest."""
    if kind == "transformer":
        return torch.nn.functional.cross_entropy(out.flatten(0, 1), target.flatten())
    return torch.nn.functional.mse_loss(out, target)


def train_ddp(rank: int, kind: str, compile_as: str | None, backend: str = "eager", steps: int = 3,
              accumulate: int = 1, **ddp_kwargs: Any) -> dict[str, Any]:
    """Train a fresh seeded model under DDP for ``steps`` optimizer steps; losses and final parameters.

    ``compile_as``: None (eager DDP), ``"outer"`` (``loom.compile(DDP(m))``) or ``"inner"``
    (``DDP(loom.compile(m))``). ``accumulate`` > 1 runs the first micro-batches of each step under
    ``no_sync()``.
    """
    from torch.nn.parallel import DistributedDataParallel as DDP

    import loom

    torch.manual_seed(0)
    model = MODELS[kind]()
    if compile_as == "inner":
        ddp = DDP(loom.compile(model, backend=backend), **ddp_kwargs)
        call = ddp
    else:
        ddp = DDP(model, **ddp_kwargs)
        call = loom.compile(ddp, backend=backend) if compile_as == "outer" else ddp
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for step in range(steps):
        for micro in range(accumulate):
            x, y = batch(kind, rank, step * accumulate + micro)
            if micro < accumulate - 1:
                with ddp.no_sync():
                    loss_of(kind, call(x), y).backward()
            else:
                loss = loss_of(kind, call(x), y)
                loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.detach())
    return {"losses": losses, "params": [p.detach().clone() for p in ddp.parameters()],
            "grads_none": [p.grad is None for p in ddp.parameters()]}
