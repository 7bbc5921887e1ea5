"""``torch.set_default_dtype(dtype)`` inside a trace: the default the program sees, tracked by the translator.

The graph runs, and a backend such as AOTAutograd traces it again, under the default dtype the frame was
entered with (the global-state guard checks it), not under the one the program set while tracing. So the
trace keeps the program's default itself (``OutputGraph.default_dtype``): every fake run happens under it,
``torch.get_default_dtype()`` answers it, and while it differs from the frame's, each recorded op is checked
(:func:`typed_kwargs`): a factory whose result takes the default
(``torch.ones(3)``, ``torch.arange(0.5, 3)``, ``torch.tensor([1.0])``) gets the dtype eager would give as an
explicit ``dtype=``; any other op whose result dtype depends on the default (``int_tensor / 2``,
``int_tensor.sqrt()``) is a graph break with a named reason. The real ``torch.set_default_dtype`` is
replayed by the rewritten code after the graph (at a break: before the instruction that breaks), so the
default eager leaves behind is the one left behind.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import torch
from torch.utils._pytree import tree_leaves

from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def _factories() -> frozenset[Any]:
    names = ("tensor", "as_tensor", "scalar_tensor", "zeros", "ones", "empty", "empty_strided", "full", "rand",
             "randn", "normal", "arange", "range", "linspace", "logspace", "eye")
    return frozenset(getattr(torch, name) for name in names if hasattr(torch, name))


#: torch functions that make a tensor, take ``dtype=``, and give it the default dtype when it is absent
#: (for floating data): pinned with an explicit ``dtype=`` while the program's default differs.
FACTORIES: frozenset[Any] = _factories()


def set_default(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``torch.set_default_dtype(d)`` with ``d`` a constant floating dtype: the trace's default becomes ``d``
    (None, so the caller breaks, for any other argument: eager raises, or the dtype is known only at run time)."""
    values = [*args, *kwargs.values()]
    if len(values) != 1 or (kwargs and "d" not in kwargs) or not values[0].is_python_constant():
        return None
    dtype = values[0].as_python_constant()
    if not isinstance(dtype, torch.dtype) or dtype not in _ALLOWED:
        return None
    tx.output.default_dtype = dtype
    return ConstantVariable(None)


#: The defaults torch accepts (it raises for the others): the floating dtypes.
_ALLOWED = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})


def get_default(tx: InstructionTranslator) -> Variable:
    """``torch.get_default_dtype()``: the program's default at this point of the trace."""
    return ConstantVariable(tx.output.default_dtype)


@contextlib.contextmanager
def real_default(dtype: torch.dtype) -> Iterator[None]:
    """The process's default dtype set to ``dtype`` for the block, and set back however it ends."""
    previous = torch.get_default_dtype()
    if previous == dtype:
        yield
        return
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)


def differs(output: Any) -> bool:
    """Whether the program's default differs from the one the graph runs (and is compiled) under."""
    return output.default_dtype != output.initial_default_dtype


def _dtypes(value: Any) -> list[Any]:
    return [leaf.dtype if isinstance(leaf, torch.Tensor) else None for leaf in tree_leaves(value)]


def typed_kwargs(output: Any, target: Any, run: Any, args: list[Any], kwargs: dict[str, Any],
                 node_kwargs: dict[str, Any], example: Any) -> dict[str, Any]:
    """The node's kwargs for an op whose fake run under the program's default gave ``example``: as they are
    when the op's result dtype does not depend on the default (it is the same under the frame's default),
    with ``dtype=`` pinned for a :data:`FACTORIES` call; otherwise :class:`Unsupported`."""
    if not differs(output):
        return node_kwargs
    name = getattr(target, "__name__", None) or str(target)
    try:
        under_frame_default = output.run_fake_again(run, args, kwargs)
    except Exception:
        under_frame_default = _FAILED
    if under_frame_default is not _FAILED and _dtypes(under_frame_default) == _dtypes(example):
        return node_kwargs
    if target in FACTORIES and node_kwargs.get("dtype") is None and isinstance(example, torch.Tensor):
        return {**node_kwargs, "dtype": example.dtype}
    raise Unsupported(f"{name}() after torch.set_default_dtype({output.default_dtype})",
                      "its result dtype depends on the default dtype, which the graph does not run under",
                      hint="pass dtype= explicitly, or set the default dtype outside the compiled function")


_FAILED = object()


def replay_default_dtype(output: Any, cg: Any) -> None:
    """Emit ``torch.set_default_dtype(<the program's default>)`` into the rewritten code ``cg`` when the trace
    changed it: after the graph, where the frame ends or breaks, the process has the default eager has there."""
    if differs(output):
        cg.call_const(torch.set_default_dtype, 1, lambda: cg.load_const(output.default_dtype))
        cg.emit("POP_TOP")
