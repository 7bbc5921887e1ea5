"""Context managers torch made outside the trace, read from the frame: an ``autocast``, ``inference_mode``,
``DisableTorchFunctionSubclass`` or ``record_function`` object in a closure (``@torch.autocast(...)`` on a function: its wrapper runs ``with autocast_instance:``),
a global, an argument, or handed to a resume function to enter.

Each becomes the variable the trace uses for one made inside it (:class:`.autocast.AutocastVariable`,
:class:`.profiler.RecordFunctionVariable`), so entering it records the region in the graph instead of
running torch's ``__enter__`` line by line (which changes global state: a break). The settings are guarded
attribute by attribute, not by identity: a manager made afresh on each call with the same settings
(a resume function's) finds the same compiled entry.
"""

from __future__ import annotations

from typing import Any

from loom_guards import Attr

from . import registry
from .autocast import AUTOCAST_CLASSES, AutocastVariable
from .base import Variable
from .inference_mode import INFERENCE_MODE, InferenceModeVariable
from .profiler import RECORD_FUNCTION, RecordFunctionVariable
from .saved_hooks import HooksDisabledManager, HooksDisabledVariable
from .sdpa_kernel import SdpaKernelManager, SdpaKernelVariable
from .torch_function_state import DISABLE_ALL, DISABLE_SUBCLASS, DisableSubclassVariable
from .warnings_blocks import CATCH_WARNINGS, CatchWarningsVariable, options_of
from .wrap_rules import _guards, _remember

#: The attributes of an autocast object that make its settings, in ``_enter_autocast``'s order.
_AUTOCAST_SETTINGS = ("device", "fast_dtype", "_enabled", "_cache_enabled")


def _guard_attributes(tx: Any, value: Any, source: Any, names: tuple[str, ...]) -> None:
    if (guards := _guards(tx, source)) is not None:
        guards.add("type", source, value)
        for name in names:
            guards.add("constant", Attr(source, name), getattr(value, name))


def _wrap_autocast(tx: Any, value: Any, source: Any) -> Variable:
    _guard_attributes(tx, value, source, _AUTOCAST_SETTINGS)
    device, dtype, enabled, cache_enabled = (getattr(value, name) for name in _AUTOCAST_SETTINGS)
    return AutocastVariable(type(value), (device, dtype, bool(enabled), bool(cache_enabled)))


def _wrap_record_function(tx: Any, value: Any, source: Any) -> Variable:
    _guard_attributes(tx, value, source, ("name", "args"))
    return RecordFunctionVariable(value.name, value.args)


def _wrap_inference_mode(tx: Any, value: Any, source: Any) -> Variable:
    _guard_attributes(tx, value, source, ("mode",))
    return InferenceModeVariable(bool(value.mode))


for _cls in AUTOCAST_CLASSES:
    registry.add_exact_type(_cls, _wrap_autocast)
registry.add_exact_type(RECORD_FUNCTION, _wrap_record_function)
registry.add_exact_type(INFERENCE_MODE, _wrap_inference_mode)


def _wrap_disable_subclass(tx: Any, value: Any, source: Any) -> Variable:
    _guard_attributes(tx, value, source, ())
    return DisableSubclassVariable(type(value))


registry.add_exact_type(DISABLE_SUBCLASS, _wrap_disable_subclass)
registry.add_exact_type(DISABLE_ALL, _wrap_disable_subclass)


def _wrap_sdpa_kernel(tx: Any, value: Any, source: Any) -> Variable:
    _guard_attributes(tx, value, source, ("backends", "set_priority"))
    return SdpaKernelVariable(tuple(value.backends), bool(value.set_priority))


registry.add_exact_type(SdpaKernelManager, _wrap_sdpa_kernel)


def _wrap_hooks_disabled(tx: Any, value: Any, source: Any) -> Variable:
    _guard_attributes(tx, value, source, ("message",))
    return HooksDisabledVariable(value.message)


registry.add_exact_type(HooksDisabledManager, _wrap_hooks_disabled)


def _wrap_catch_warnings(tx: Any, value: Any, source: Any) -> Variable:
    """A ``warnings.catch_warnings`` object of the program's, not entered: one variable per object (entering it
    twice is eager's RuntimeError), its options guarded; the replay enters that object."""
    options = options_of(value)
    if options is None or source is None or tx is None:
        return registry.wrap_object(tx, value, source)
    if (guards := _guards(tx, source)) is not None:
        guards.add("type", source, value)
        for name in ("_entered", "_record", "_filter"):
            guards.add("constant", Attr(source, name), getattr(value, name))
        guards.add("identity", Attr(source, "_module"), value._module)
    return _remember(tx, value, source, lambda: CatchWarningsVariable(options, tx.root().break_point(), source))


registry.add_exact_type(CATCH_WARNINGS, _wrap_catch_warnings)
