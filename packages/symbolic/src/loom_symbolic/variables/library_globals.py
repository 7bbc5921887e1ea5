"""Containers that are module globals of a library the translator trusts (torch, the standard library).

Code of those libraries is inlined with its globals taken as fixed, so a dict, list or set it reads from its
module (``torch.nn.modules.module._global_forward_hooks``) is wrapped without a source. When the trace then
changes one (``register_module_forward_hook`` stores into that dict), the change must reach the real object
after the graph, as a change to a container from the frame does, and later reads in the trace must see it.
The container is found among the globals of the library code being run, only when it is changed (a rare
path): reading library globals costs nothing more.

Its settings are the exception: a number, string, bool or None held by a module of a trusted library
(``torch.backends.cudnn.enabled``, ``torch.utils.checkpoint._checkpoint_debug_enabled``) is process state its
own functions change between calls, so a trace that reads one guards its value (:func:`is_library_setting`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loom_guards import Const

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_CONTAINERS = (dict, list, set)
#: The types of a library's module-level settings (exact types: an enum member or a class is not one).
_SETTING_TYPES = frozenset({bool, int, float, complex, str, bytes, type(None)})


def is_library_setting(value: Any) -> bool:
    """Whether ``value``, read from a trusted library's module, is a setting that must be guarded (a library
    function or class is taken as fixed; a flag such as ``cudnn.enabled`` is set at run time)."""
    return type(value) in _SETTING_TYPES


def library_global_source(tx: InstructionTranslator, variable: Variable) -> Any:
    """A source for ``variable`` when it stands for a container held by a global of the trusted library code
    on the translator stack (the object itself, named ``module.name``), else None."""
    known = tx.output.known_objects
    indexes = tx.output.side_effects.library_containers
    frame = tx
    while frame is not None:
        if frame.globals_are_fixed():
            namespace = frame.f_globals
            index = indexes.get(id(namespace))
            if index is None:  # once per module and trace: its container globals by identity
                index = indexes[id(namespace)] = {id(v): n for n, v in namespace.items() if isinstance(v, _CONTAINERS)}
            for value_id, name in index.items():
                entry = known.get(value_id)
                if entry is not None and entry[1] is variable and namespace.get(name) is entry[0]:
                    return Const(entry[0], f"{namespace.get('__name__', '?')}.{name}")
        frame = frame.parent
    return None
