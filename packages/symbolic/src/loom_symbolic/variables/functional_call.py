"""``torch.func.functional_call(module, params_and_buffers, args, kwargs)``: the module's call traced in place,
its parameters and buffers read from the dicts instead of the module.

Eager swaps the given tensors into the module for the call and back after it. The trace swaps nothing: it
registers, for the call, which variable each ``(module object, attribute name)`` reads
(``OutputGraph.module_overrides``, consulted by :class:`.nn_module.NNModuleVariable`), so the module's ops
take the dict's tensors (graph inputs, or a transform's inputs when called inside ``torch.func.grad``) and
nothing of the real module changes. As in eager, ``tie_weights`` gives every name of a tied tensor the one
value passed, and ``strict`` requires every parameter and buffer. A forward that lists its own parameter
or buffer tables while they are swapped (``self.parameters()``) breaks the graph there: the swap is only
modelled for attribute reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..errors import Unsupported
from .base import is_none_constant
from .containers import DictVariable, TupleVariable, plain_sequence
from .higher_order import higher_order, require_constants
from .lazy_dict import LazyDictVariable
from .nn_module import NNModuleVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_WHAT = "torch.func.functional_call"
_NAMES = ("module", "parameter_and_buffer_dicts", "args", "kwargs")


def _dict_items(value: Variable) -> dict[str, Variable]:
    if type(value) in (DictVariable, LazyDictVariable) and value.cls is dict:
        return dict(value.items)
    raise Unsupported(f"{_WHAT} with {value.describe()} as its tensors", "expected a dict, or a tuple or list of dicts")


def _merged(value: Variable) -> dict[str, Variable]:
    """The name → tensor variable mapping ``parameter_and_buffer_dicts`` gives (eager merges a sequence)."""
    if not plain_sequence(value):
        return _dict_items(value)
    merged: dict[str, Variable] = {}
    for part in value.items:
        for name, item in _dict_items(part).items():
            if name in merged:
                raise Unsupported(f"{_WHAT} with {name!r} in two dicts", "eager raises on the ambiguity")
            merged[name] = item
    return merged


def _named_tensors(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untied(module: torch.nn.Module, given: dict[str, Variable], tie_weights: bool, strict: bool) -> dict[str, Variable]:
    """Every module tensor name the call replaces, with its variable (tied names share their value)."""
    named = _named_tensors(module)
    unknown = [n for n in given if n not in named]
    if unknown:
        raise Unsupported(f"{_WHAT} with {unknown[0]!r}", "it names no parameter or buffer of the module",
                          hint="eager sets it as a new attribute for the call, which is not modelled")
    result = dict(given)
    if tie_weights:
        by_tensor: dict[int, list[str]] = {}
        for name, tensor in named.items():
            by_tensor.setdefault(id(tensor), []).append(name)
        for names in by_tensor.values():
            values = {id(given[n]): given[n] for n in names if n in given}
            if len(values) > 1:
                raise Unsupported(f"{_WHAT} with different values for the tied {names}", "eager raises on it")
            if values:
                result.update({n: next(iter(values.values())) for n in names})
    if strict and set(result) != set(named):
        raise Unsupported(f"{_WHAT}(strict=True) without every parameter and buffer", "eager raises on it")
    return result


def _owner(tx: InstructionTranslator, module: NNModuleVariable, path: str) -> NNModuleVariable:
    """The submodule at ``path`` as the trace reaches it (guarded), its parameter and buffer names
    guarded too: the swap decided now holds while they stay."""
    owner = module
    for part in path.split(".") if path else ():
        owner = owner.var_getattr(tx, part)
        if not isinstance(owner, NNModuleVariable):
            raise Unsupported(f"{_WHAT} with tensors of {path!r}", "it is not a submodule the trace can reach")
    for table in ("_parameters", "_buffers"):
        owner.table(tx, table)
    return owner


@higher_order(torch.func.functional_call)
def functional_call(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``functional_call(module, dicts, args=None, kwargs=None, *, tie_weights=True, strict=False)``."""
    bound = dict(zip(_NAMES, args))
    options = require_constants({k: v for k, v in kwargs.items() if k in ("tie_weights", "strict")}, _WHAT)
    bound.update({k: v for k, v in kwargs.items() if k not in options})
    if len(args) > len(_NAMES) or set(bound) - set(_NAMES) or "parameter_and_buffer_dicts" not in bound:
        raise Unsupported(f"{_WHAT} with these arguments", "expected functional_call(module, dicts, args, kwargs)")
    module = bound["module"]
    if not isinstance(module, NNModuleVariable):
        raise Unsupported(f"{_WHAT} of {module.describe()}", "the module must be one the trace reads from the frame")
    swapped = _untied(module.value, _merged(bound["parameter_and_buffer_dicts"]),
                      options.get("tie_weights", True), options.get("strict", False))
    call_args = bound.get("args")
    if is_none_constant(call_args):
        positional = []
    elif type(call_args) is TupleVariable:
        positional = list(call_args.items)
    else:
        positional = [call_args]
    call_kwargs = bound.get("kwargs")
    keywords = {} if is_none_constant(call_kwargs) else {str(k): v for k, v in _dict_items(call_kwargs).items()}
    owners = {path: _owner(tx, module, path) for path in {name.rpartition(".")[0] for name in swapped}}
    overrides = tx.output.module_overrides
    saved = dict(overrides)
    for name, variable in swapped.items():
        owner_path, _, leaf = name.rpartition(".")
        overrides[(id(owners[owner_path].value), leaf)] = variable
    try:
        return module.call(tx, positional, keywords)
    finally:
        overrides.clear()
        overrides.update(saved)
