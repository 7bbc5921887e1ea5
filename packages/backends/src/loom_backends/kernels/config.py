"""Knobs of loom's kernel compilers (lowering, scheduling, Triton and C code generation), read from the
environment once and changeable at run time (tests do)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def _default_cache_dir() -> Path:
    root = os.environ.get("LOOM_CACHE_DIR")
    if root:
        return Path(root) / "triton"
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "loom" / "triton"


@dataclass
class Config:
    # Raise on a lowering or code generation error instead of falling back to ATen (tests set this).
    strict: bool = field(default_factory=lambda: _env_flag("LOOM_TRITON_STRICT"))
    # Where generated modules are written, named by the hash of their source.
    cache_dir: Path = field(default_factory=_default_cache_dir)
    # A reduction whose row has at most this many elements keeps the whole row in one block
    # ("persistent"); longer rows loop over the row in RBLOCK-sized steps.
    persistent_reduction_limit: int = 1024
    # Block sizes on a GPU.
    pointwise_block: int = 1024
    looped_rblock: int = 512
    # Under the interpreter each program instance costs milliseconds: use one big block instead.
    interpreter_block_elements: int = 1 << 16
    # A value used by several consumers is recomputed in each unless it reads more than this many
    # tensors or runs more than this many operations; then it is stored once and read back.
    realize_reads_threshold: int = 4
    realize_opcount_threshold: int = 30
    # A value whose recomputation would read more than this many tensors is stored instead.
    realize_acc_reads_threshold: int = 8
    # A lazy value this many operations long is stored, whatever its users (bounds kernel size and the
    # cost of re-analysing ever longer chains).
    realize_max_inlined_ops: int = 256
    # Fuse independent nodes that share no input into one kernel only if they share a read.
    fuse_unrelated: bool = False
    # C kernels: a loop goes parallel (OpenMP, torch.get_num_threads() threads) only over at least this
    # many elements of work; below it, starting the threads costs more than they save (docs/backends-c.md).
    c_parallel_min_elements: int = 65536
    # ... and a full reduction of several loops (a variance) splits its row across threads from this length:
    # its loops meet at a barrier each (measured, 2 threads against 1: 1.27x the time at 65536 elements,
    # 0.99x at 131072, 0.58x at 196608)
    c_parallel_min_staged_elements: int = 196608
    # C backend: a graph whose kernels would each do at most this many elements of work and fuse a single
    # ATen op runs through ATen instead: a lone small op is faster there (docs/backends-c.md, the numbers).
    c_min_elements_for_lone_op: int = 0
    # C backend: a compiled graph keeps up to this many bytes of its kernels' buffers from one call to the
    # next (kernels/reuse.py) instead of freeing and allocating them again: glibc hands large blocks
    # freshly mapped pages after it trims its heap, a page fault per 4 KiB (docs/backends-c.md). 0: off.
    c_keep_buffer_bytes: int = 64 << 20
    # C backend: graphs with 2-D convolutions run them, and the kernels around them, in channels-last layout
    # (c/channels_last.py; measured in docs/backends-c.md). False: every buffer keeps eager's layout.
    c_channels_last: bool = True


config = Config()
