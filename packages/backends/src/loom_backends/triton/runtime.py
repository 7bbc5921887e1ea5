"""Loading generated modules (cached on disk by the hash of their source) and what they call at run time."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType

from ..kernels.config import config
from ..kernels.tensors import reinterpret, restride  # noqa: F401  (generated modules import them from here)
from .device import interpreting

_modules: dict[str, ModuleType] = {}
_lock = threading.Lock()


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def module_path(source: str) -> Path:
    digest = source_hash(source)
    return Path(config.cache_dir) / digest[:2] / f"loom_{digest[:40]}.py"


def load_module(source: str) -> ModuleType:
    """Write ``source`` under the cache directory (once) and import it (once per process)."""
    digest = source_hash(source)
    with _lock:
        module = _modules.get(digest)
        if module is not None:
            return module
        path = module_path(source)
        if not path.exists() or path.read_text() != source:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(source)
            os.replace(tmp, path)
        name = f"loom_generated_{digest[:24]}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # triton.jit reads the source through the module
        spec.loader.exec_module(module)
        _modules[digest] = module
        return module


def next_power_of_2(n: int) -> int:
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def launch_config(kind: str, xnumel: int, rnumel: int) -> dict[str, int]:
    """Block sizes (and warps on a GPU) for a kernel of ``kind`` over ``xnumel`` x ``rnumel``."""
    if interpreting():
        # one program instance costs milliseconds in the interpreter: few, large blocks
        budget = config.interpreter_block_elements
        if kind == "pointwise":
            return {"XBLOCK": min(next_power_of_2(xnumel), budget)}
        rblock = next_power_of_2(rnumel) if kind == "persistent_reduction" else min(config.looped_rblock, next_power_of_2(rnumel))
        return {"XBLOCK": max(1, min(next_power_of_2(xnumel), budget // rblock)), "RBLOCK": rblock}
    if kind == "pointwise":  # pragma: no cover - GPU
        xblock = min(config.pointwise_block, max(128, next_power_of_2(xnumel)))
        return {"XBLOCK": xblock, "num_warps": 4 if xblock <= 1024 else 8}
    if kind == "persistent_reduction":  # pragma: no cover - GPU
        rblock = next_power_of_2(rnumel)
        xblock = max(1, min(next_power_of_2(xnumel), 4096 // rblock, 64))
        warps = 8 if rblock * xblock >= 4096 else (4 if rblock * xblock >= 1024 else 2)
        return {"XBLOCK": xblock, "RBLOCK": rblock, "num_warps": warps}
    rblock = min(config.looped_rblock, next_power_of_2(rnumel))  # pragma: no cover - GPU
    return {"XBLOCK": 1 if xnumel < 1024 else 4, "RBLOCK": rblock, "num_warps": 8}


def grid(xnumel: int, xblock: int) -> tuple[int]:
    return ((xnumel + xblock - 1) // xblock,)


def launch_grid(kind: str, xnumel: int, rnumel: int) -> tuple[tuple[int], dict[str, int]]:
    """``(grid, block sizes)`` for a kernel over symbolic sizes, from the sizes of this call."""
    cfg = launch_config(kind, xnumel, rnumel)
    return grid(xnumel, cfg["XBLOCK"]), cfg


# ------------------------------------------------------------------------------ called by the wrapper
