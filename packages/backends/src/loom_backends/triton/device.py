"""Where kernels run: on a CUDA GPU when torch has one, otherwise under Triton's interpreter.

``TRITON_INTERPRET`` is read by ``triton.jit`` when a kernel is decorated, so setting it before the first
generated module is loaded is enough even if triton was imported earlier.
"""

from __future__ import annotations

import functools
import os

import torch


@functools.cache
def gpu_available() -> bool:
    return torch.cuda.is_available()


def interpreting() -> bool:
    """True when kernels run under Triton's interpreter (always the case without a GPU)."""
    if not gpu_available():
        return True
    return os.environ.get("TRITON_INTERPRET", "0").strip() == "1"


def prepare() -> None:
    """Set ``TRITON_INTERPRET=1`` when there is no GPU; call before loading any generated kernel."""
    if not gpu_available():
        os.environ["TRITON_INTERPRET"] = "1"


def kernel_device(device: torch.device) -> str | None:
    """Why tensors on ``device`` cannot run our kernels here, or None when they can."""
    if device.type == "cuda":
        return None if gpu_available() and not interpreting() else "CUDA tensors need a GPU build of triton"
    if device.type == "cpu":
        return None if interpreting() else "CPU tensors run Triton kernels only under the interpreter (no GPU)"
    return f"device type {device.type!r} is not supported by the Triton backend"
