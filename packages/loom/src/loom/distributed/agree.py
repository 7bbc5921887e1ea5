"""Ranks must compile a DDP model the same way: checked once, at its first compiled call, through the store.

Ranks that compile with different settings would train with different numerics (or, with settings that
change which collectives a graph holds, deadlock). The check is not a collective: each rank writes its
settings under a key of the default process group's store and waits, bounded, for the others' keys, so a
rank that never reaches the check makes the others fail with a clear error instead of hanging.
"""

from __future__ import annotations

import datetime
import itertools
from typing import Any

#: Seconds a rank waits for the others to reach their first compiled DDP call.
TIMEOUT_S = 120.0

_sequence = itertools.count()


class RankMismatchError(ValueError):
    """Ranks compiled the same DDP model with different loom settings (``backend=``, ``fullgraph=``...)."""


def _describe(settings: Any) -> str:
    return f"backend={settings.backend_name!r}, fullgraph={settings.fullgraph}, dynamic={settings.dynamic}"


def agree(settings: Any, process_group: Any = None, timeout_s: float | None = None) -> None:
    """Raise :class:`RankMismatchError` unless every rank of ``process_group`` compiles with ``settings``."""
    import torch.distributed as dist

    if not dist.is_initialized():
        return
    group = process_group if process_group is not None else dist.group.WORLD
    ranks = dist.get_process_group_ranks(group)
    if len(ranks) < 2:
        return
    store = dist.distributed_c10d._get_default_store()
    mine = dist.get_rank()
    key = f"loom/ddp-settings/{group.group_name}/{next(_sequence)}"
    described = _describe(settings)
    store.set(f"{key}/{mine}", described)
    wait = datetime.timedelta(seconds=timeout_s if timeout_s is not None else TIMEOUT_S)
    keys = [f"{key}/{rank}" for rank in ranks]
    try:
        store.wait(keys, wait)
    except Exception as exc:  # the store raises a DistStoreError (or RuntimeError) on timeout
        missing = [rank for rank, k in zip(ranks, keys) if not store.check([k])]
        raise RuntimeError(
            f"loom: rank {mine} waited {wait.total_seconds():.0f} s for ranks {missing} to make their first "
            "call of the compiled DDP model; every rank must compile and call it the same way"
        ) from exc
    seen = {rank: store.get(k).decode() for rank, k in zip(ranks, keys)}
    if len(set(seen.values())) > 1:
        listing = "; ".join(f"rank {rank}: {value}" for rank, value in sorted(seen.items()))
        raise RankMismatchError(
            f"loom: ranks compiled the same DDP model with different settings ({listing}); "
            "pass the same backend=, fullgraph= and dynamic= to loom.compile on every rank"
        )
