"""The first call of a lazy module (``nn.LazyLinear``, ``nn.LazyConv2d``): its parameters are made while tracing.

Eager's first call runs the module's ``_infer_parameters`` pre-hook: it sizes the parameters from the
inputs' shapes, draws their initial values from torch's RNG, removes the hook and turns the module into its
``cls_to_become`` (``Linear``). The translator does the same, natively, when the trace reaches that call,
with tensors of the inputs' shapes, dtypes and devices (zeros: only shapes are read), as torch.compile
does; the rest of the call is traced over the module it has become. The trace runs at the frame's entry,
so the initial values are drawn where eager draws them unless the graph drew from torch's RNG earlier
(``randn``, dropout): that breaks, naming the module, as do inputs of symbolic size or non-constant ones,
and parameters off the CPU. A compile leaves torch's RNG as it found it, so the state the drawing left is
put back and the rewritten code moves the generator there before its first graph call (:class:`AdvanceOnce`):
the generator ends where eager's does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from torch.nn.modules.lazy import LazyModuleMixin

from loom_guards import TypeOf

from ..errors import Unsupported
from .mappings import DictVariable
from .tensor import TensorVariable
from .torch_rng_calls import changes_torch_rng

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def is_uninitialized(module: Any) -> bool:
    """Whether ``module`` is a lazy module not called yet: its ``_infer_parameters`` pre-hook is still
    registered (a module of the user's may make its parameters there, having none uninitialized before)."""
    return isinstance(module, LazyModuleMixin) and "_initialize_hook" in module.__dict__


def _stand_in(tx: InstructionTranslator, what: str, value: Variable) -> Any:
    """A real value with what ``initialize_parameters`` reads of ``value``: a tensor's shape, dtype, device;
    lists, tuples, named tuples and dicts of those (a layer summing a list of inputs) item by item."""
    if isinstance(value, TensorVariable):
        example = value.example
        if any(not isinstance(d, int) for d in example.shape):
            raise Unsupported(what, "an input has a symbolic size (the parameters' sizes would be fixed by it)")
        return torch.zeros(tuple(example.shape), dtype=example.dtype, device=example.device)
    if value.is_python_constant():
        return value.as_python_constant()
    cls = value.python_type()
    if isinstance(value, DictVariable) and cls is dict and all(isinstance(k, (str, int)) for k in value.items):
        return {key: _stand_in(tx, what, item) for key, item in value.items.items()}
    if cls in (list, tuple) or (issubclass(cls, tuple) and hasattr(cls, "_fields")):
        items = [_stand_in(tx, what, item) for item in value.unpack(tx)]
        return cls(items) if cls in (list, tuple) else cls(*items)
    raise Unsupported(what, f"an input is {value.describe()}, not a tensor, a constant or a container of them")


class AdvanceOnce:
    """Sets torch's CPU RNG to the state the parameters' drawing left, on the first call only: the call the
    trace was made for (later calls of the entry made no draws of that kind)."""

    def __init__(self, state: torch.Tensor) -> None:
        self.state: torch.Tensor | None = state

    def __call__(self) -> None:
        if self.state is not None:
            torch.set_rng_state(self.state)
            self.state = None

    def __repr__(self) -> str:
        return "<advance torch's RNG past a lazy module's initial values, once>"


def _class_read_before(tx: InstructionTranslator, source: Any) -> bool:
    """Whether the trace relied on the module's class already (``type(m).method``): the first call turns the
    module into its ``cls_to_become``, so such a guard could never hold on the frame it was built from."""
    target = TypeOf(source)
    for request in tx.output.guards.requests:
        reached = request.source
        while reached is not None:
            if reached == target:
                return True
            reached = reached.base
    return False


def materialize(tx: InstructionTranslator, module: Any, args: list[Variable], kwargs: dict[str, Variable],
                source: Any = None) -> None:
    """Run ``module``'s parameter inference for a call with ``args``/``kwargs`` (see the module docstring)."""
    what = f"the first call of lazy module {type(module).__name__}"
    if source is not None and getattr(module, "cls_to_become", None) is not None and _class_read_before(tx, source):
        raise Unsupported(what, "the program read the module's class before this call, which changes its class",
                          hint="the call runs as ordinary Python")
    if any(node.meta.get("draws") for node in tx.output.graph.nodes):
        raise Unsupported(what, "its initial values come from torch's RNG, which the graph drew from earlier",
                          hint="call the module once before compiling")
    if changes_torch_rng(tx.output):
        raise Unsupported(what, "its initial values come from torch's RNG, whose state the program set earlier",
                          hint="call the module once before compiling")
    real_args = tuple(_stand_in(tx, what, a) for a in args)
    real_kwargs = {k: _stand_in(tx, what, v) for k, v in kwargs.items()}
    devices = {t.device.type for t in (*module.parameters(), *module.buffers(), *real_args, *real_kwargs.values())
               if isinstance(t, torch.Tensor)}
    if devices - {"cpu"}:
        raise Unsupported(what, "its parameters or inputs are not on the CPU (only the CPU generator is followed)")
    draws = tx.output.random_draws.calls
    # a lazy module made earlier in this trace drew first: this one draws from where that one left off
    pending = next((fn for fn, _, _ in reversed(draws) if isinstance(fn, AdvanceOnce)), None)
    entry = torch.get_rng_state()
    if pending is not None:
        torch.set_rng_state(pending.state)
    try:
        module._infer_parameters(module, real_args, real_kwargs)
        after = torch.get_rng_state()
    finally:
        torch.set_rng_state(entry)
    if pending is not None:
        pending.state = after
    elif not torch.equal(after, entry):
        draws.append((AdvanceOnce(after), (), {}))


def pending_advance(output: Any) -> AdvanceOnce | None:
    """The RNG advance a trace's lazy modules asked for (None if none drew): kept when the trace is abandoned
    for a graph break, since the modules it materialized stay materialized and will not draw again."""
    return next((fn for fn, _, _ in output.random_draws.calls if isinstance(fn, AdvanceOnce)), None)


def carry_advance(output: Any, advance: AdvanceOnce | None) -> None:
    """Make ``advance`` (an abandoned trace's) the first of the draws of the trace that replaces it: its graph
    drew nothing before the modules did (``materialize`` refuses otherwise), so moving the generator at the
    frame's entry is moving it where eager's drawing did. A module the new trace materializes draws on from it."""
    if advance is not None and advance.state is not None:
        output.random_draws.calls.insert(0, (advance, (), {}))

