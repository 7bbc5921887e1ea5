"""``torch.cond`` whose branches return tensors of different sizes (``cat([x, x])`` against ``x.sin()``): as under
torch.compile, the op's results get a fresh unbacked size where the branches' sizes differ (torch's own
``_merge_output``, ranged between the two), which only the run fixes. The results may be returned as they are; an
op on them that needs the size is data-dependent and breaks, as any such op does."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator
    from .tensor import TensorVariable

_COND = sys.modules["torch._higher_order_ops.cond"]
_WHY = "both branches of torch.cond must return tensors of the same dtype, device and number of dimensions"


def merged_sizes(tx: InstructionTranslator, true_leaves: list[TensorVariable],
                 false_leaves: list[TensorVariable]) -> list[Any]:
    """The op's result examples: each pair of branch results merged, unbacked sizes where theirs differ."""
    if len(true_leaves) != len(false_leaves) or any(
            a.example.dtype != b.example.dtype or a.example.device != b.example.device or a.example.dim() != b.example.dim()
            for a, b in zip(true_leaves, false_leaves)):
        raise Unsupported("torch.cond with branches returning different dtypes, devices or ranks", _WHY)
    output = tx.output
    output.loop_int()  # makes the ShapeEnv (and hands it to the fake mode) if the trace has none yet
    mode = output.fake_mode
    env = mode.shape_env
    with env.ignore_fresh_unbacked_symbols():
        try:
            return [_COND._merge_output(a.example, b.example, mode) for a, b in zip(true_leaves, false_leaves)]
        except Exception as exc:  # a layout the merge refuses: eager raises there too, or the run decides
            raise Unsupported("torch.cond with branches returning different sizes",
                              f"{type(exc).__name__}: {exc}") from exc
