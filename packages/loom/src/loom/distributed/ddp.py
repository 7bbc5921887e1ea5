"""DistributedDataParallel: which forward loom compiles, and the bucket-split backend inside DDP."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import torch

from loom_backends import ddp_split

from . import agree as _agree

#: Backends that run graphs through AOTAutograd (one autograd node per graph): these need the split
#: for DDP's all-reduce to overlap backward. ``eager`` keeps per-op autograd nodes and needs none.
#: (``default`` compiles each piece with ``c`` or ``triton``; a piece it runs as captured is split harmlessly.)
AOT_BACKENDS = frozenset({"aot_eager", "triton", "c", "default"})


def _ddp_class() -> type | None:
    # Only if the program imported DDP: nothing to look for otherwise, and no import cost for loom.
    module = sys.modules.get("torch.nn.parallel.distributed")
    return getattr(module, "DistributedDataParallel", None)


def is_ddp(module: Any) -> bool:
    """Whether ``module`` is a ``DistributedDataParallel`` instance."""
    cls = _ddp_class()
    return cls is not None and isinstance(module, cls)


def active_ddp() -> Any:
    """The DDP module whose forward is running now (DDP sets it around the wrapped module's call), or None."""
    cls = _ddp_class()
    return None if cls is None else cls._get_active_ddp_module()


def forward_to_compile(module: torch.nn.Module) -> Any:
    """The ``forward`` that ``loom.compile(module)`` asks to compile even when it is library code.

    For DDP, the wrapped module's (DDP's own forward is bookkeeping: it runs as it is, and calls the
    wrapped module, whose frames loom compiles); for anything else, the module's own.
    """
    while is_ddp(module):
        module = module.module
    if "_loom_compiler" in vars(module):
        return None  # DDP(loom.compile(m)) inside loom.compile: the inner wrapper compiles its own frames
    return type(module).forward


def check_ready(module: torch.nn.Module) -> None:
    """Refuse, with a clear error, a DDP module whose process group is gone (destroyed after DDP was built)."""
    if not is_ddp(module):
        return
    import torch.distributed as dist

    if not dist.is_initialized():
        raise RuntimeError(
            "loom.compile(DistributedDataParallel(...)): the default process group is not initialized "
            "(call torch.distributed.init_process_group() before building and compiling the DDP model)"
        )


def bucket_limits(ddp: Any) -> list[int]:
    """DDP's bucket caps in bytes, first bucket first (the last one repeats)."""
    config = getattr(ddp, "_bucket_config", None)
    cap = int(getattr(ddp, "bucket_bytes_cap", 25 * 1024 * 1024))
    if config is None:
        return [cap]
    per_bucket = list(getattr(config, "per_bucket_bytes_caps", ()) or ())
    if per_bucket:
        return [int(c) for c in per_bucket]
    first = int(getattr(config, "first_bucket_bytes_cap", cap))
    return [first, cap] if first < cap else [cap]


def managed_parameters(ddp: Any) -> set[int]:
    """The ids of the parameters DDP all-reduces (requiring grad, not in its ignore list)."""
    params = getattr(ddp, "_module_parameters", None)
    if params is None:
        params = [p for p in ddp.module.parameters() if p.requires_grad]
    return {id(p) for p in params}


def backend_for(backend: Callable[..., Any], backend_name: str) -> Callable[..., Any]:
    """The backend to compile a graph with now: inside a DDP forward with an AOT backend, the split one."""
    ddp = active_ddp()
    if ddp is None or backend_name not in AOT_BACKENDS:
        return backend
    limits = bucket_limits(ddp)
    managed = managed_parameters(ddp)

    def ddp_split_backend(gm: Any, example_inputs: list[Any]) -> Any:
        return ddp_split.split_and_compile(gm, example_inputs, backend, backend_name=backend_name,
                                           managed=managed, limits=limits)

    return ddp_split_backend


def first_call(wrapper: Any) -> None:
    """At a compiled module's call: under DDP (it is one, or runs inside one), check once that every rank
    compiles it with the same settings (:mod:`loom.distributed.agree`); elsewhere, nothing."""
    module = object.__getattribute__(wrapper, "_orig_mod")
    ddp = module if is_ddp(module) else active_ddp()
    if ddp is None:
        return  # looked at again next call: the module may be wrapped in DDP later
    check_ready(ddp)
    _agree.agree(object.__getattribute__(wrapper, "_loom_compiler").settings, getattr(ddp, "process_group", None))
    object.__setattr__(wrapper, "_loom_ranks_agreed", True)
