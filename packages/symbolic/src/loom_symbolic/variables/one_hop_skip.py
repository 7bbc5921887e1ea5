"""``torch._C._skip_one_hop_torch_function(func, types, args, kwargs)`` (``torch.overrides.redispatch_function``)
inside a trace: torch sets a per-thread flag, calls ``func(*args, **kwargs)``, and the next torch-function check
made (a ``has_torch_function`` query, or a torch call's own check) is skipped once, answering "no override".

The trace keeps the flag as its own state (``OutputGraph.one_hop_skip``, absent: not set), as the C flag:

- ``func`` a torch op (``Tensor.add`` handed to a ``__torch_function__``): its own check uses the flag up, so it
  is called with subclass dispatch and the modes off for that one call (a plain tensor comes back, as in eager);
- ``func`` a Python function: inlined with the flag set; a ``has_torch_function`` query uses it up and answers
  False. Any other torch call or tensor read met first would use it up in eager: not modelled, a break.
  A break inside the hop is taken where the root frame called into it: that call runs as Python, torch's own
  flag then set for real (a frame entered with it set runs as it is, below);
- a second skip while the flag is set raises eager's RuntimeError; a function that never used the flag up
  raises eager's RuntimeError when it returns; ``torch._C._peek_should_skip_torch_function()`` reads the
  trace's flag.

The flag on entry to the frame is False (a frame entered with it set runs as it is, ``loom.run_as_is``); a
trace whose answers depend on it guards it (``peek() == False``), so a compiled entry is never reused with the
flag set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Called, Const

from ..errors import Unsupported, UserError
from .constant import ConstantVariable
from .functions import UserFunctionVariable
from .mappings import DictVariable
from .methods import BoundMethodVariable
from .nested_functions import NestedFunctionVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_C = torch._C
PEEK = _C._peek_should_skip_torch_function
_ATTRIBUTE = "one_hop_skip"
_TWICE = ("you cannot skip two levels of __torch_function__, you need to run one level of __torch_function__ "
          "before being able to skip again.")
_UNUSED = "skip_one_hop_torch_function called on a function that doesn't use has_torch_function! "


def guard_entry(output: Any) -> None:
    """Guard that the flag is not set on entry (once per trace)."""
    if not getattr(output, "one_hop_guarded", False):
        output.one_hop_guarded = True
        output.guards.add("asked", Called(Const(PEEK)), None)


def is_set(output: Any) -> bool:
    return getattr(output, _ATTRIBUTE, False)


def _set(output: Any, value: bool) -> None:
    setattr(output, _ATTRIBUTE, value)


def consume_query(tx: InstructionTranslator) -> Variable | None:
    """A ``has_torch_function`` query: False where the flag is set (using it up), else None (answer as usual)."""
    guard_entry(tx.output)
    if not is_set(tx.output):
        return None
    _set(tx.output, False)
    return ConstantVariable(False)


def refuse_while_set(output: Any, what: str) -> None:
    """A torch call or tensor read other than a query, met while the flag is set: not modelled."""
    if is_set(output):
        raise Unsupported(f"{what} while torch skips its next torch-function check",
                          "only a has_torch_function query using the skip up is modelled",
                          hint="the call that skips runs as ordinary Python")


def peek(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    if args or kwargs:
        return tx.output.call_function(tx, PEEK, args, kwargs)  # eager's TypeError
    guard_entry(tx.output)
    return ConstantVariable(is_set(tx.output))


def _arguments(tx: InstructionTranslator, args: Variable, kwargs: Variable) -> tuple[list, dict]:
    positional = args.unpack(tx)
    if kwargs.is_python_constant() and kwargs.as_python_constant() is None:
        return positional, {}
    if not isinstance(kwargs, DictVariable) or not all(type(k) is str for k in kwargs.items):
        raise Unsupported("_skip_one_hop_torch_function with keywords that are not a dict of names", "not modelled")
    return positional, dict(kwargs.items)


def _python(func: Variable) -> bool:
    if isinstance(func, BoundMethodVariable):
        func = func.function
    return isinstance(func, (UserFunctionVariable, NestedFunctionVariable))


def skip_one_hop(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    if kwargs or len(args) != 4:
        raise Unsupported("_skip_one_hop_torch_function with other than four positional arguments", "not modelled")
    func, _types, call_args, call_kwargs = args
    output = tx.output
    guard_entry(output)
    if is_set(output):
        raise UserError("a second skip of a torch-function check", _TWICE, exc_type=RuntimeError, exc_args=(_TWICE,))
    positional, keywords = _arguments(tx, call_args, call_kwargs)
    if not _python(func):  # a torch op: its own check uses the flag up
        enabled, modes = output.torch_function_enabled, output.function_modes
        output.torch_function_enabled, output.function_modes = False, []
        try:
            return func.call(tx, positional, keywords)
        finally:
            output.torch_function_enabled, output.function_modes = enabled, modes
    _set(output, True)
    try:
        result = func.call(tx, positional, keywords)
    finally:
        unused = is_set(output)
        _set(output, False)
    if unused:
        raise UserError("a skipped torch-function check never made", _UNUSED, exc_type=RuntimeError,
                        exc_args=(_UNUSED,))
    return result
