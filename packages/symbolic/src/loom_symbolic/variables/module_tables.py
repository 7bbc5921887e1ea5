"""``module.name = value`` filed where ``nn.Module.__setattr__`` files it: ``_parameters``, ``_buffers`` or ``_modules``.

``Module.__setattr__`` decides by the value and by the tables that already hold ``name``: a parameter goes to
``_parameters`` (leaving ``_buffers``, ``_modules`` and the instance dict), None or a parameter over a parameter's
name stays there (anything else raises TypeError), a module goes to ``_modules``, None over a submodule keeps the
key with None, a tensor (or None) over a buffer's name stays a buffer, and anything else goes to the instance dict.
The trace makes the same decision on its own view of the tables (:func:`.module_hooks.changed_in_trace`: what the
frame registered or deleted so far) and makes the change on the trace's variable of that table, so that the
module's attribute reads, ``parameters()``, ``buffers()``, ``children()`` and ``name in m._modules`` later in the
frame see it, and the real table gets it after the graph.

Each fact the decision read is guarded: a table's key (present or absent, or the keys the frame started from
where the frame changed the table), the name's absence from the instance dict, an empty process-wide
registration hook dict, the members of ``_non_persistent_buffers_set``. Where the decision is not exact (the name is
in the instance dict or was stored there earlier in the frame, a registration hook is installed, the value is
a tensor that may carry ``nn.Buffer``'s flag, the class has its own ``__getattr__``), :func:`file_in_tables`
declines: the store is replayed through ``Module.__setattr__`` after the graph, and reading the tables it
would change breaks (``NNModuleVariable.check_table_current``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
import torch.nn.modules.module as _torch_module_module

from loom_guards import Attr, DictAttr

from ..errors import Unsupported, UserError
from .attributes import _MISSING, class_attribute
from .base import is_none_constant
from .constant import ConstantVariable
from .module_hooks import changed_in_trace, global_table_source
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _kind(value: Variable) -> type | None:
    try:
        return value.python_type()
    except Unsupported:
        return None


def in_table(tx: InstructionTranslator, module_var: Any, table: str, name: str) -> bool:
    """Whether the trace's view of ``module_var``'s ``table`` holds ``name``, guarded: the key itself, or the keys
    the frame started from where the program changed the table earlier in this frame."""
    real = module_var.value.__dict__[table]
    changed = changed_in_trace(tx, real)
    if changed is not None:
        tx.output.guards.add("dict_keys", DictAttr(module_var.source, table), real)
        return name in changed.items
    tx.output.guards.add("present_key" if name in real else "absent_key", DictAttr(module_var.source, table), name)
    return name in real


def _hooks_empty(tx: InstructionTranslator, name: str) -> bool:
    """Whether the process-wide registration hook dict ``name`` is empty (guarded so): a hook may replace the
    value ``Module.__setattr__`` files."""
    hooks = getattr(_torch_module_module, name, None)
    if hooks is None:
        return True
    if hooks or changed_in_trace(tx, hooks) is not None:
        return False
    tx.output.guards.add("length", global_table_source(name), hooks)
    return True


def _not_in_instance_dict(tx: InstructionTranslator, module_var: Any, name: str) -> bool:
    """Whether ``name`` is in neither the instance dict nor the attributes stored earlier in this frame (guarded):
    ``Module.__setattr__`` deletes it there before filing a parameter or a submodule."""
    module = module_var.value
    if name in module.__dict__ or tx.output.side_effects.attr_overlay.get(id(module), {}).get(name) is not None:
        return False
    tx.output.guards.add("absent_key", Attr(module_var.source, "__dict__"), name)
    return True


def _not_non_persistent(tx: InstructionTranslator, module_var: Any, name: str) -> bool:
    """Whether ``name`` is not in ``_non_persistent_buffers_set`` (guarded: the set's members): ``Module.__setattr__``
    discards the name there when it files a parameter or a submodule, and the trace keeps no variable of that set."""
    names = module_var.value.__dict__.get("_non_persistent_buffers_set")
    if names is None:
        return True
    if type(names) is not set or name in names or tx.output.known_objects.get(id(names)) is not None:
        return False
    source = DictAttr(module_var.source, "_non_persistent_buffers_set")
    tx.output.guards.add("set_members" if names else "length", source, names)
    return True


def buffer_flag_absent(tx: InstructionTranslator, value: Variable) -> bool:
    """Whether the tensor ``value`` is known not to pass ``isinstance(value, nn.Buffer)`` (a tensor carrying
    ``_is_buffer``, as ``nn.Buffer(t)`` makes): one the graph computed, or a graph input without that attribute
    (guarded absent from its ``__dict__``)."""
    if not isinstance(value, TensorVariable) or issubclass(value.cls, torch.nn.Buffer):
        return False
    if value.source is None:
        return value.real is None
    real = value.real
    if real is None or "_is_buffer" in getattr(real, "__dict__", {}):
        return False
    tx.output.guards.add("absent_key", Attr(value.source, "__dict__"), "_is_buffer")
    return True


def _a_leaf(value: Variable) -> bool:
    """Whether the parameter ``value`` certainly has no ``grad_fn`` (``register_parameter`` refuses one that
    has): one that requires grad (no in-place op could give it one), or one the graph made without one."""
    example = getattr(value, "example", None)
    if example is None or example.grad_fn is not None:
        return False
    return bool(example.requires_grad) or value.source is None


def _table(tx: InstructionTranslator, module_var: Any, table: str, method: str, name: str, *rest: Variable) -> None:
    module_var.var_getattr(tx, table).call_builtin_method(tx, method, [ConstantVariable(name), *rest], {})


def _remove_from(tx: InstructionTranslator, module_var: Any, name: str, tables: tuple[str, ...]) -> None:
    for table in tables:
        if in_table(tx, module_var, table, name):
            _table(tx, module_var, table, "__delitem__", name)


def _type_error(module_var: Any, name: str, what: str) -> UserError:
    return UserError(f"assigning {name!r} on {type(module_var.value).__name__}",
                     f"TypeError: cannot assign this value as {what} {name!r}", exc_type=TypeError)


def file_in_tables(tx: InstructionTranslator, module_var: Any, name: str, value: Variable) -> bool:
    """``module.name = value`` as ``nn.Module.__setattr__`` makes it, where it files ``value`` in one of the
    module's tables (or raises TypeError); False where the store goes to the instance dict or the model is not
    exact, for the caller to store it as an attribute."""
    module = module_var.value
    state = module.__dict__
    if module_var.source is None or any(not isinstance(state.get(t), dict) for t in ("_parameters", "_buffers", "_modules")):
        return False
    if tx.output.side_effects.dict_exposed(module):
        return False  # the trace holds the instance dict itself: a store there breaks (side_effects)
    kind = _kind(value)
    if kind is None:
        return False
    if issubclass(kind, torch.nn.Parameter):
        if ("." in name or not name or class_attribute(type(module), name) is not _MISSING
                or class_attribute(type(module), "__getattr__") is not torch.nn.Module.__getattr__
                or not _a_leaf(value) or not _not_in_instance_dict(tx, module_var, name)
                or not _not_non_persistent(tx, module_var, name)
                or not _hooks_empty(tx, "_global_parameter_registration_hooks")):
            return False
        _remove_from(tx, module_var, name, ("_buffers", "_modules"))
        _table(tx, module_var, "_parameters", "__setitem__", name, value)
        return True
    if in_table(tx, module_var, "_parameters", name):
        if not is_none_constant(value):
            raise _type_error(module_var, name, "parameter")
        _table(tx, module_var, "_parameters", "__setitem__", name, value)
        return True
    if issubclass(kind, torch.nn.Module):
        if (not _not_in_instance_dict(tx, module_var, name) or not _not_non_persistent(tx, module_var, name)
                or not _hooks_empty(tx, "_global_module_registration_hooks")):
            return False
        _remove_from(tx, module_var, name, ("_buffers",))
        _table(tx, module_var, "_modules", "__setitem__", name, value)
        return True
    if in_table(tx, module_var, "_modules", name):
        if not is_none_constant(value):
            raise _type_error(module_var, name, "child module")
        if not _hooks_empty(tx, "_global_module_registration_hooks"):
            return False
        _table(tx, module_var, "_modules", "__setitem__", name, value)
        return True
    return _file_buffer(tx, module_var, name, value)


#: Constants that are neither tensors nor define ``__torch_function__``: a buffer's name refuses them.
_PLAIN_CONSTANTS = (bool, int, float, complex, str, bytes)


def _file_buffer(tx: InstructionTranslator, module_var: Any, name: str, value: Variable) -> bool:
    """A tensor or None over a buffer's name: ``register_buffer(name, value, persistent)`` with the persistence
    the name already has, which leaves ``_non_persistent_buffers_set`` as it is."""
    if isinstance(value, ConstantVariable) and type(value.value) in _PLAIN_CONSTANTS:
        if in_table(tx, module_var, "_buffers", name):  # no __torch_function__: eager refuses it there
            raise _type_error(module_var, name, "buffer")
        return False
    if not (is_none_constant(value) or buffer_flag_absent(tx, value)):
        return False  # (a tensor flagged as nn.Buffer registers a buffer under any name, with its own persistence)
    if not in_table(tx, module_var, "_buffers", name):
        return False
    if class_attribute(type(module_var.value), "register_buffer") is not torch.nn.Module.register_buffer:
        return False  # the class's own register_buffer runs (with or without ``persistent``)
    if not _not_in_instance_dict(tx, module_var, "register_buffer"):
        return False
    if not _hooks_empty(tx, "_global_buffer_registration_hooks"):  # called for None too
        return False
    _table(tx, module_var, "_buffers", "__setitem__", name, value)
    return True
