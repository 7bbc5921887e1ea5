"""Calling a module that has forward hooks: ``Module.__call__``'s hook protocol, inlined.

Pre-hooks may replace the positional arguments (or, registered ``with_kwargs``, both arguments and
keywords), forward runs, then forward hooks may replace the result; every hook is traced like any
Python function, in ``_call_impl``'s order (process-wide hooks first). Backward hooks are not modelled.

Every hook table is guarded: an empty one by its length, one with hooks by its keys and each hook by
identity, so registering or removing a hook later recompiles. The module's own tables are read
through the module's source (modules are guarded by type: each instance has its own tables). PyTorch's own hooks (FSDP's) are not
inlined: the module runs natively, a graph break.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import torch
import torch.nn.modules.module as _torch_module_module

from loom_guards import Const, DictAttr, Item

from ..errors import Unsupported, UserError
from . import containers as _containers
from .base import Variable, is_none_constant
from .registry import wrap

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


_BACKWARD = ("_backward_hooks", "_backward_pre_hooks")
_GLOBAL_BACKWARD = ("_global_backward_hooks", "_global_backward_pre_hooks")
#: (the module's table, the process-wide one) for each kind of forward hook, with the marker tables
#: saying which hooks take keywords.
_PRE = ("_global_forward_pre_hooks", "_forward_pre_hooks")
_POST = ("_global_forward_hooks", "_forward_hooks")
_MARKERS = (("_forward_pre_hooks_with_kwargs", None), ("_forward_hooks_with_kwargs", "_global_forward_hooks_with_kwargs"),
            ("_forward_hooks_always_called", "_global_forward_hooks_always_called"))


def own_table_source(module: torch.nn.Module, source: Any, name: str) -> Any:
    """How the program reaches the module's own dict ``name`` (a hook table): through the module's
    source (the module is guarded by type, so each call's instance has its own), or as a constant
    for a module the translator cannot reach."""
    if source is not None:
        return DictAttr(source, name)
    return Const(getattr(module, name, None), f"{type(module).__name__}.{name}")


def global_table_source(name: str) -> Any:
    """The process-wide hook dict ``name`` of ``torch.nn.modules.module``, as a constant (registering a
    global hook mutates it in place)."""
    return Const(getattr(_torch_module_module, name, None), f"torch.nn.modules.module.{name}")


def _tables(module: Any, source: Any) -> dict[str, tuple[Any, Any]]:
    """Each hook table by name: (the dict, its source). The module's own are read through the module's
    source (it is guarded by type: another instance has its own tables)."""
    found = {}
    for name in (*_BACKWARD, _PRE[1], _POST[1], *(own for own, _ in _MARKERS)):
        found[name] = (getattr(module, name, None), own_table_source(module, source, name))
    for name in (*_GLOBAL_BACKWARD, _PRE[0], _POST[0], *(g for _, g in _MARKERS if g)):
        found[name] = (getattr(_torch_module_module, name, None), global_table_source(name))
    return found


def changed_in_trace(tx: InstructionTranslator, table: Any) -> Variable | None:
    """The trace's variable for a module's dict ``table`` (a hook dict, ``_buffers``...) when the program
    changed it earlier in this frame (``register_forward_hook``, ``handle.remove()``, ``register_buffer``):
    the real dict keeps its old contents until the graph has run, so the trace must read the variable's."""
    if table is None:
        return None
    entry = tx.output.known_objects.get(id(table))
    if entry is None or entry[0] is not table or not isinstance(entry[1], _containers.DictVariable):
        return None
    return entry[1] if tx.output.side_effects.is_mutated_container(entry[1]) else None


def _guard(tx: InstructionTranslator, table: Any, source: Any) -> list[tuple[Any, Variable]]:
    """Guard ``table`` (empty: its length; else its keys) and return its hooks as (key, variable): the
    trace's current ones when the program changed the table in this frame."""
    if table is None:
        return []
    if not table:
        tx.output.guards.add("length", source, table)
    else:
        tx.output.guards.add("dict_keys", source, table)
    changed = changed_in_trace(tx, table)
    if changed is not None:
        return list(changed.items.items())
    return [(key, wrap(tx, hook, Item(source, key))) for key, hook in table.items()]


def _library_hook(hook: Any) -> bool:
    """Whether ``hook`` is PyTorch's own (FSDP's, the profiler's): they do distributed or process-level
    work, so the module is called natively, as before hooks were inlined."""
    while isinstance(hook, functools.partial):
        hook = hook.func
    hook = getattr(hook, "__func__", hook)
    return (getattr(hook, "__module__", None) or "").split(".")[0] == "torch"


def call_with_hooks(tx: InstructionTranslator, module_var: Variable, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
    """``module(*args, **kwargs)`` with ``module``'s forward hooks inlined around ``forward``."""
    module = module_var.value
    tables = _tables(module, module_var.source)
    for name in (*_BACKWARD, *_GLOBAL_BACKWARD):
        table, _ = tables[name]
        changed = changed_in_trace(tx, table)  # registered (or removed) earlier in this frame: not yet real
        if changed.items if changed is not None else table:
            raise Unsupported(f"calling {type(module).__name__}", "the module has backward hooks registered",
                              hint="the module runs outside the captured graph")
    if any(_library_hook(hook) for table, _ in tables.values() if table for hook in table.values()
           if not isinstance(hook, bool)):
        raise Unsupported(f"calling {type(module).__name__}", "the module has hooks registered",
                          hint="hooks run outside the captured graph")
    with_kwargs = set()
    for own, glob in _MARKERS:
        for name in (own, glob):
            if name is not None:
                with_kwargs.update(key for key, _ in _guard(tx, *tables[name]) if "kwargs" in name)
    positional = _containers.TupleVariable(list(args))
    keywords: Any = dict(kwargs)
    for key, hook in [*_guard(tx, *tables[_PRE[0]]), *_guard(tx, *tables[_PRE[1]])]:
        if key in with_kwargs:
            result = hook.call(tx, [module_var, positional, _containers.DictVariable(keywords)], {})
            if not is_none_constant(result):
                parts = result.unpack(tx) if issubclass(result.python_type(), tuple) else None
                if parts is None or len(parts) != 2 or not isinstance(parts[1], _containers.DictVariable):
                    raise UserError("forward pre-hook", "forward pre-hook must return None or a tuple of "
                                    "(new_args, new_kwargs)", exc_type=RuntimeError)
                positional, keywords = parts[0], dict(parts[1].items)
            continue
        result = hook.call(tx, [module_var, positional], {})
        if not is_none_constant(result):
            positional = result if issubclass(result.python_type(), tuple) else _containers.TupleVariable([result])
    output = module_var.var_getattr(tx, "forward").call(tx, positional.unpack(tx), keywords)
    for key, hook in [*_guard(tx, *tables[_POST[0]]), *_guard(tx, *tables[_POST[1]])]:
        if key in with_kwargs:
            result = hook.call(tx, [module_var, positional, _containers.DictVariable(keywords), output], {})
        else:
            result = hook.call(tx, [module_var, positional, output], {})
        if not is_none_constant(result):
            output = result
    return output
