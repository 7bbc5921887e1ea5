"""``torch.use_deterministic_algorithms(mode, warn_only=...)`` inside a trace without a graph break, as under
torch.compile: the call is made by the rewritten code after the graph (the flags outlive the frame, as in
eager; the graph's own ops run under the flags the frame was entered with, which changes only which kernels
some CUDA ops pick), and the trace keeps its own record of them, so ``torch.are_deterministic_algorithms_enabled()``
(and ``_C._get_deterministic_algorithms``) read later in the frame answer what the program set. The flags the
frame starts with are guarded with the rest of the global state. A mode known only at run time is not
modelled (a graph break)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_SET = torch._C._set_deterministic_algorithms
#: The trace's record on its output graph: (mode, warn_only) once the program set them.
_RECORD = "loom_deterministic_algorithms"


def _switch(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    bound = dict(zip(("mode", "warn_only"), args)) | kwargs
    if set(bound) - {"mode", "warn_only"} or "mode" not in bound or len(args) > 2:
        return None
    values = {k: v.as_python_constant() for k, v in bound.items() if v.is_python_constant()}
    if len(values) != len(bound) or not all(type(v) is bool for v in values.values()):
        raise Unsupported("torch.use_deterministic_algorithms() with a mode known only at run time", "not modelled")
    mode, warn_only = values["mode"], values.get("warn_only", False)
    # made by the rewritten code after the graph (a backend that traces the graph again would run a node
    # at compile time and drop it), in program order with the other effects
    tx.output.side_effects.deferred_call(_SET, [ConstantVariable(mode)], {"warn_only": ConstantVariable(warn_only)},
                                         tx.root().location().lineno)
    setattr(tx.output, _RECORD, (mode, warn_only))
    return ConstantVariable(None)


def _query(index: int) -> Any:
    def answer(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
        record = getattr(tx.output, _RECORD, None)
        if record is None or args or kwargs:
            return None  # the flags the frame started with: read as before (guarded)
        return ConstantVariable(record[index])

    return answer


#: torch callables answered here before the ordinary path (None from a handler: the ordinary path).
HANDLERS: dict[Any, Any] = {
    torch.use_deterministic_algorithms: _switch,
    _SET: _switch,
    torch.are_deterministic_algorithms_enabled: _query(0),
    torch._C._get_deterministic_algorithms: _query(0),
    torch.is_deterministic_algorithms_warn_only_enabled: _query(1),
    torch._C._get_deterministic_algorithms_warn_only: _query(1),
}
