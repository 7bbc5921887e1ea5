"""Every distributed scenario of the test suite, run in *one* spawn of 2 gloo ranks (start-up and the
first compile's imports are most of the cost), each scenario's outcome sent back for the tests to assert.

A scenario that raises does not stop the others: its traceback is its result, and its test fails with it.
:func:`results` runs the ranks once per pytest process and caches what they sent.
"""

from __future__ import annotations

import datetime
import functools
import traceback
from collections.abc import Callable
from typing import Any

import dist_harness as harness
import torch

#: name -> (model, how loom wraps it, DDP keyword arguments, micro-batches per step)
EAGER_SCENARIOS: dict[str, tuple[str, str, dict[str, Any], int]] = {
    "mlp outer": ("mlp", "outer", {}, 1),
    "mlp inner": ("mlp", "inner", {}, 1),
    "transformer outer": ("transformer", "outer", {}, 1),
    "find_unused_parameters": ("two_heads", "outer", {"find_unused_parameters": True}, 1),
    "no_sync accumulation": ("mlp", "outer", {}, 2),
    "static_graph": ("mlp", "outer", {"static_graph": True}, 1),
}

#: Small buckets, so that the MLP's parameters fill several (and the graph is split).
SMALL_BUCKETS = {"bucket_cap_mb": 0.004}

AOT_SCENARIOS: dict[str, tuple[str, str, str, dict[str, Any], int]] = {
    "aot_eager outer": ("mlp", "outer", "aot_eager", SMALL_BUCKETS, 1),
    "aot_eager inner": ("mlp", "inner", "aot_eager", SMALL_BUCKETS, 1),
    "aot_eager no_sync": ("mlp", "outer", "aot_eager", SMALL_BUCKETS, 2),
    "aot_eager find_unused_parameters": ("two_heads", "outer", "aot_eager",
                                         {**SMALL_BUCKETS, "find_unused_parameters": True}, 1),
    "aot_eager static_graph": ("mlp", "outer", "aot_eager", {**SMALL_BUCKETS, "static_graph": True}, 1),
    "triton outer": ("mlp", "outer", "triton", SMALL_BUCKETS, 1),
}

COLLECTIVE_BACKENDS = ("eager", "aot_eager", "triton")


def collectives(x: torch.Tensor, world_size: int) -> tuple[torch.Tensor, ...]:
    """The four collectives loom captures, with work around them."""
    import torch.distributed as dist

    y = x * 2
    dist.all_reduce(y)
    gathered = torch.empty(world_size * x.shape[0])
    dist.all_gather_into_tensor(gathered, y + 1)
    scattered = torch.empty(x.shape[0])
    dist.reduce_scatter_tensor(scattered, gathered, op=dist.ReduceOp.MAX)
    b = y.clone()
    dist.broadcast(b, src=1)
    return y.sin(), gathered, scattered, b


def async_all_reduce(x: torch.Tensor) -> torch.Tensor:
    """``async_op=True``: a work handle the graph cannot hold (a graph break, run natively)."""
    import torch.distributed as dist

    y = x + 1
    dist.all_reduce(y, async_op=True).wait()
    return y * 3


def more_collectives(x: torch.Tensor, world_size: int) -> tuple[torch.Tensor, ...]:
    """The list forms, all_to_all_single and the legacy aliases loom captures, with work around them."""
    import torch.distributed as dist

    y = x * 2
    gathered = [torch.empty(x.shape[0]) for _ in range(dist.get_world_size())]  # a constant while tracing
    dist.all_gather(gathered, y + 1)
    exchanged = torch.empty(x.shape[0])
    dist.all_to_all_single(exchanged, y)
    scattered = torch.empty(x.shape[0] // 2)
    dist.reduce_scatter(scattered, [y[:2] + 1, y[2:] * 3], op=dist.ReduceOp.MAX)
    gathered_base = torch.empty(world_size * x.shape[0])
    dist._all_gather_base(gathered_base, y)
    scattered_base = torch.empty(x.shape[0] // 2)
    dist._reduce_scatter_base(scattered_base, y)
    scalars = [torch.empty(()) for _ in range(world_size)]
    dist.all_gather(scalars, y.sum())
    swapped = [torch.empty(2), torch.empty(2)]
    dist.all_to_all(swapped, [y[:2] - 1, y[2:] + 5])
    # torch 2.13's names for all_gather_into_tensor / reduce_scatter_tensor (older torch: those).
    gathered_single = torch.empty(world_size * x.shape[0])
    getattr(dist, "all_gather_single", dist.all_gather_into_tensor)(gathered_single, y - 1)
    scattered_single = torch.empty(x.shape[0] // 2)
    getattr(dist, "reduce_scatter_single", dist.reduce_scatter_tensor)(scattered_single, y + 2)
    return (gathered[0] + 1, gathered[1], exchanged, scattered, gathered_base, scattered_base, *scalars,
            *swapped, gathered_single, scattered_single, y + dist.get_rank())


def into_user_tensors(out: torch.Tensor, x: torch.Tensor, out_splits: list[int], in_splits: list[int],
                      gathered: list[torch.Tensor], scattered: torch.Tensor) -> torch.Tensor:
    """Uneven ``all_to_all_single`` split sizes (Python ints), written into tensors and a list the caller owns."""
    import torch.distributed as dist

    dist.all_to_all_single(out, x * 2, out_splits, in_splits)
    dist.all_gather(gathered, out[:2] + 1)
    dist.reduce_scatter(scattered, gathered)
    return out.sum()


def user_tensors(rank: int) -> tuple[Any, ...]:
    """``into_user_tensors``' arguments on ``rank``: rank 0 sends 1 element to itself and 2 to rank 1, rank 1
    sends 2 and 2 (so rank 0 receives 1 + 2, rank 1 2 + 2)."""
    splits = ([1, 2], [1, 2]) if rank == 0 else ([2, 2], [2, 2])
    x = torch.arange(3.0 + rank) + 10 * rank
    return torch.full((3 + rank,), -1.0), x, *splits, [torch.empty(2), torch.empty(2)], torch.empty(2)


def async_all_to_all_single(x: torch.Tensor) -> torch.Tensor:
    """``async_op=True`` on all_to_all_single: a graph break, run natively."""
    import torch.distributed as dist

    out = torch.empty_like(x)
    dist.all_to_all_single(out, x + 1, async_op=True).wait()
    return out * 3


def all_to_all_by_elements(x: torch.Tensor) -> torch.Tensor:
    """``all_to_all_single`` of a ``(1, n)`` tensor: eager splits it by element count, which the functional
    form (split along dim 0) cannot: a graph break."""
    import torch.distributed as dist

    out = torch.empty_like(x)
    dist.all_to_all_single(out, x.reshape(1, -1) * 2)
    return out + 1


def reduce_then_scale(x: torch.Tensor, group: Any = None) -> torch.Tensor:
    """An all-reduce over ``group`` between two pieces of work."""
    import torch.distributed as dist

    y = x.cos()
    dist.all_reduce(y, group=group)
    return y * 2


def _ddp_scenarios(rank: int, out: dict[str, Any]) -> None:
    from torch.nn.parallel import DistributedDataParallel as DDP

    import loom

    for name, (kind, how, ddp_kwargs, accumulate) in EAGER_SCENARIOS.items():
        def run(kind=kind, how=how, ddp_kwargs=ddp_kwargs, accumulate=accumulate):
            loom.reset()
            reference = harness.train_ddp(rank, kind, None, accumulate=accumulate, **ddp_kwargs)
            compiled = harness.train_ddp(rank, kind, how, "eager", accumulate=accumulate, **ddp_kwargs)
            return reference, compiled, loom.stats()
        _scenario(out, f"ddp {name}", run)
    for name, (kind, how, backend, ddp_kwargs, accumulate) in AOT_SCENARIOS.items():
        def run(kind=kind, how=how, backend=backend, ddp_kwargs=ddp_kwargs, accumulate=accumulate):
            loom.reset()
            reference = harness.train_ddp(rank, kind, None, accumulate=accumulate, **ddp_kwargs)
            compiled = harness.train_ddp(rank, kind, how, backend, accumulate=accumulate, **ddp_kwargs)
            return reference, compiled, loom.stats()
        _scenario(out, f"ddp {name}", run)

    def backward_in_frame():
        # the whole step compiled, backward inside: DDP's C++ hooks on the gradient accumulators must run,
        # so the backward stays a break (torch.autograd.grad in a graph would skip them)
        def train(compiled: bool) -> tuple[list[torch.Tensor], list[str]]:
            torch.manual_seed(0)
            ddp = DDP(harness.mlp())
            optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05)

            def step(x, y):
                loss = harness.loss_of("mlp", ddp(x), y)
                loss.backward()
                return loss.detach()

            run = loom.compile(step) if compiled else step
            for i in range(2):
                run(*harness.batch("mlp", rank, i))
                optimizer.step()
                optimizer.zero_grad()
            x, y = harness.batch("mlp", rank, 2)
            reasons = [str(b.reason) for b in loom.explain(step)(x, y).breaks] if compiled else []
            return [p.detach().clone() for p in ddp.parameters()], reasons
        loom.reset()
        return train(False), train(True)
    _scenario(out, "ddp backward in frame", backward_in_frame)

    def explain_split():
        torch.manual_seed(0)
        ddp = DDP(harness.mlp(), **SMALL_BUCKETS)
        x, _ = harness.batch("mlp", rank, 0)
        report = loom.explain(ddp, backend="aot_eager")(x)
        return str(report), report.graph_count
    _scenario(out, "ddp explain split", explain_split)

    def mismatched_backends():
        loom.reset()
        torch.manual_seed(0)
        compiled = loom.compile(DDP(harness.mlp()), backend="eager" if rank == 0 else "aot_eager")
        x, _ = harness.batch("mlp", rank, 0)
        try:
            compiled(x)
        except loom.distributed.RankMismatchError as exc:
            return str(exc)
        return None
    _scenario(out, "ddp mismatched backends", mismatched_backends)


def _collective_scenarios(rank: int, world_size: int, out: dict[str, Any]) -> None:
    import torch.distributed as dist

    import loom

    x = torch.arange(4.0) + rank
    for backend in COLLECTIVE_BACKENDS:
        def run(backend=backend):
            loom.reset()
            reference = collectives(x.clone(), world_size)
            compiled = loom.compile(collectives, backend=backend)(x.clone(), world_size)
            report = loom.explain(collectives, backend=backend)(x.clone(), world_size)
            return reference, compiled, loom.stats(), report.format(verbose=True)
        _scenario(out, f"collectives {backend}", run)

    for backend in COLLECTIVE_BACKENDS:
        def run_more(backend=backend):
            loom.reset()
            reference = more_collectives(x.clone(), world_size)
            compiled = loom.compile(more_collectives, backend=backend)(x.clone(), world_size)
            stats = loom.stats()
            report = loom.explain(more_collectives, backend=backend)(x.clone(), world_size)
            return reference, compiled, stats, report.format(verbose=True)
        _scenario(out, f"more collectives {backend}", run_more)

        def run_user_tensors(backend=backend):
            loom.reset()
            reference = user_tensors(rank)
            compiled = user_tensors(rank)
            reference = (into_user_tensors(*reference), *reference)
            compiled = (loom.compile(into_user_tensors, backend=backend)(*compiled), *compiled)
            return reference, compiled, loom.stats()
        _scenario(out, f"user tensors {backend}", run_user_tensors)

    def run_async_all_to_all():
        loom.reset()
        return (async_all_to_all_single(x.clone()),
                loom.compile(async_all_to_all_single, backend="eager")(x.clone()), loom.stats())
    _scenario(out, "all_to_all_single async_op", run_async_all_to_all)

    def run_by_elements():
        loom.reset()
        row = x.reshape(1, -1)
        return (all_to_all_by_elements(row.clone()),
                loom.compile(all_to_all_by_elements, backend="eager")(row.clone()), loom.stats())
    _scenario(out, "all_to_all_single by elements", run_by_elements)

    def run_async():
        loom.reset()
        return async_all_reduce(x.clone()), loom.compile(async_all_reduce, backend="eager")(x.clone()), loom.stats()
    _scenario(out, "collectives async_op", run_async)

    def same_recompiles():
        # The same inputs on every rank (as in SPMD training): every rank compiles, and recompiles, alike.
        loom.reset()
        compiled = loom.compile(reduce_then_scale, backend="eager")
        for size in (4, 4, 6, 6, 8):
            compiled(torch.ones(size) * rank)
        return loom.stats()
    _scenario(out, "recompiles alike", same_recompiles)

    def lone_recompile():
        # Rank 0 alone calls with a new shape: it recompiles alone (loom compiles without talking to the
        # other ranks, so that costs nothing), then waits in a collective rank 1 never joins, which
        # would deadlock. The group's timeout ends it with an error on rank 0: no hang.
        loom.reset()
        group = dist.new_group(timeout=datetime.timedelta(seconds=3))
        compiled = loom.compile(reduce_then_scale, backend="eager")
        compiled(torch.ones(4), group)
        error = None
        if rank == 0:
            try:
                compiled(torch.ones(5), group)
            except Exception as exc:  # gloo's timeout
                error = f"{type(exc).__name__}: {exc}"
        dist.barrier()
        return error, loom.stats()
    _scenario(out, "lone recompile", lone_recompile)


def train_fsdp2(rank: int, compile_as: str | None, backend: str = "eager", steps: int = 3) -> dict[str, Any]:
    """An MLP sharded per layer with FSDP2 (``fully_shard`` on every Linear, then the whole model), trained.

    ``compile_as``: None (eager FSDP2), ``"layers"`` (each sharded Linear compiled) or ``"whole"``
    (the whole sharded model compiled).
    """
    from torch.distributed.fsdp import fully_shard

    import loom

    torch.manual_seed(0)
    model = harness.mlp(depth=2)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            fully_shard(layer)
    fully_shard(model)
    call: Any = model
    if compile_as == "layers":
        for index, layer in enumerate(list(model)):
            if isinstance(layer, torch.nn.Linear):
                model[index] = loom.compile(layer, backend=backend)
    elif compile_as == "whole":
        call = loom.compile(model, backend=backend)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for step in range(steps):
        x, y = harness.batch("mlp", rank, step)
        loss = harness.loss_of("mlp", call(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.detach())
    # Parameters are DTensor shards: compare each rank's local shard.
    return {"losses": losses, "params": [p.to_local().detach().clone() for p in model.parameters()]}


FSDP2_SCENARIOS = {"layers eager": ("layers", "eager"), "layers aot_eager": ("layers", "aot_eager"),
                   "whole eager": ("whole", "eager")}


def _fsdp2_scenarios(rank: int, out: dict[str, Any]) -> None:
    import loom

    for name, (how, backend) in FSDP2_SCENARIOS.items():
        def run(how=how, backend=backend):
            loom.reset()
            reference = train_fsdp2(rank, None)
            compiled = train_fsdp2(rank, how, backend)
            return reference, compiled, loom.stats()
        _scenario(out, f"fsdp2 {name}", run)

    def explain_whole():
        from torch.distributed.fsdp import fully_shard

        torch.manual_seed(0)
        model = harness.mlp(depth=2)
        for layer in model:
            if isinstance(layer, torch.nn.Linear):
                fully_shard(layer)
        fully_shard(model)
        x, _ = harness.batch("mlp", rank, 0)
        return str(loom.explain(model)(x))
    _scenario(out, "fsdp2 explain whole", explain_whole)


def _after_destroy_scenarios(rank: int, out: dict[str, Any]) -> None:
    """Last: these destroy the process group."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import loom

    torch.manual_seed(0)
    ddp = DDP(harness.mlp())
    dist.barrier()
    dist.destroy_process_group()

    def compile_ddp_without_group():
        try:
            loom.compile(ddp, backend="eager")
        except RuntimeError as exc:
            return str(exc)
        return None
    _scenario(out, "ddp without process group", compile_ddp_without_group)

    def collective_without_group():
        outcomes = []
        for fn in (reduce_then_scale, loom.compile(reduce_then_scale, backend="eager")):
            try:
                fn(torch.ones(2))
            except Exception as exc:
                outcomes.append((type(exc).__name__, str(exc)))
        return outcomes
    _scenario(out, "collective without process group", collective_without_group)


def _scenario(out: dict[str, Any], name: str, run: Callable[[], Any]) -> None:
    try:
        out[name] = ("ok", run())
    except Exception:
        out[name] = ("error", traceback.format_exc())


def all_cases_worker(rank: int, world_size: int) -> dict[str, Any]:
    """Every scenario, on one rank."""
    out: dict[str, Any] = {}
    _collective_scenarios(rank, world_size, out)
    _ddp_scenarios(rank, out)
    _fsdp2_scenarios(rank, out)
    _after_destroy_scenarios(rank, out)
    return out


@functools.cache
def results() -> tuple[dict[str, Any], ...]:
    """What each rank's scenarios produced (the ranks run once per pytest process)."""
    return tuple(harness.run_ranks(all_cases_worker, timeout=240, pg_timeout=120))


def outcome(name: str, rank: int) -> Any:
    """One scenario's result on one rank; a scenario that raised fails the calling test with its traceback."""
    status, value = results()[rank][name]
    if status != "ok":
        raise AssertionError(f"scenario {name!r} raised on rank {rank}:\n{value}")
    return value
