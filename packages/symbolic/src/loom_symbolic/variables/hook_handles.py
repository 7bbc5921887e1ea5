"""``torch.utils.hooks.RemovableHandle`` made while tracing: what ``module.register_forward_hook(hook)``
(and the pre-hook, buffer and parameter registration hooks) return.

Eager takes the handle's id from a process-wide counter (``RemovableHandle.next_id += 1``) and keys the
hook under it in the module's hook dicts. A trace cannot fix that id (the next call must get a new
one), so the rewritten code reserves the ids before the graph call, in program order, with the calls
made before the graph (``OutputGraph.random_draws``): the counter ends where eager leaves it. In the
trace an id is a :class:`HandleIdVariable`, a dict key hashed by identity (a fresh id equals no key
already in a hook dict), read back from the reserved values wherever the program keeps it; the
handle itself is a new object whose ``remove()`` and ``with`` block are inlined as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch.utils.hooks as _torch_hooks

from loom_guards import Const

from ..errors import Unsupported
from . import random_draws as _random_draws
from .base import Variable
from .builtins import call_builtin
from .containers import DictVariable, ListVariable, TupleVariable
from .new_objects import CONSTRUCTORS, NewObjectVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


def reserve_handle_id() -> int:
    """Take the next hook-handle id, as ``RemovableHandle.__init__`` does (run before the graph call)."""
    handle_id = _torch_hooks.RemovableHandle.next_id
    _torch_hooks.RemovableHandle.next_id += 1
    return handle_id


class HandleIdVariable(Variable):
    """The id of a hook handle made while tracing: an int only known when the rewritten code runs."""

    #: dict keys made of it are hashed by identity (:func:`.mappings.identity_key`)
    unique_identity = True

    def __init__(self, made: _random_draws.RandomValue) -> None:
        self.made = made

    def python_type(self) -> type:
        return int

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_source(self.made)

    def describe(self) -> str:
        return "the id of a hook handle made while tracing"


def _weak_references(tx: InstructionTranslator, extra: Variable | None) -> Variable:
    """``extra_dict_ref``: a weak reference to each extra dict (one dict, or a list of them)."""
    if extra is None or (extra.is_python_constant() and extra.as_python_constant() is None):
        return TupleVariable([])
    if isinstance(extra, DictVariable):
        return TupleVariable([call_builtin(tx, _weakref_ref(), [extra], {})])
    if isinstance(extra, ListVariable):
        return TupleVariable([call_builtin(tx, _weakref_ref(), [d], {}) for d in extra.items])
    return TupleVariable([])


def _weakref_ref() -> Any:
    import weakref

    return weakref.ref


def make_removable_handle(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``RemovableHandle(hooks_dict, extra_dict=None)``: see the module docstring."""
    extra = kwargs.get("extra_dict")
    if len(args) != 1 or set(kwargs) - {"extra_dict"}:
        raise Unsupported("creating a RemovableHandle", "only RemovableHandle(hooks_dict, extra_dict=...) is modelled")
    draws = tx.output.random_draws
    made = _random_draws.RandomValue(len(draws), "RemovableHandle id")
    draws.calls.append((reserve_handle_id, (), {}))
    cls = _torch_hooks.RemovableHandle
    handle = NewObjectVariable(cls, Const(cls, "torch.utils.hooks.RemovableHandle"))
    handle.attrs["hooks_dict_ref"] = call_builtin(tx, _weakref_ref(), [args[0]], {})
    handle.attrs["id"] = HandleIdVariable(made)
    handle.attrs["extra_dict_ref"] = _weak_references(tx, extra)
    return handle


CONSTRUCTORS[_torch_hooks.RemovableHandle] = make_removable_handle
