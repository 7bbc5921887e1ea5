"""Availability queries whose answer is fixed for the life of the process (``torch.cuda.is_available()``): folded.

Inlined, they read the environment (``torch.cuda`` asks ``os.getenv("PYTORCH_NVML_BASED_CUDA_CHECK")`` in a
build with CUDA), a graph break where a program picks its device. Whether the process has a CUDA, XPU or
other accelerator runtime, cuDNN or OpenMP cannot change once it has asked, so the trace calls the query
once, as the program would have, and the answer is a constant (torch.compile folds the same list).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from .constant import ConstantVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _queries() -> frozenset[Any]:
    found = []
    for owner, name in ((torch.cuda, "is_available"), (getattr(torch, "accelerator", None), "is_available"),
                        (getattr(torch, "xpu", None), "is_available"), (torch.backends.cudnn, "is_available"),
                        (torch.backends.openmp, "is_available")):
        fn = getattr(owner, name, None)
        if fn is not None:
            found.append(fn)
    return frozenset(found)


#: The zero-argument queries folded at trace time.
FUNCTIONS: frozenset[Any] = _queries()


def folder(fn: Any) -> Any:
    """The builtin handler of query ``fn``: its answer, called now with no arguments (a call with arguments
    is left to the break, and CPython's TypeError)."""

    def fold(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
        if args or kwargs:
            return None
        return ConstantVariable(bool(fn()))

    return fold
