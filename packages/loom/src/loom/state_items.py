"""The pieces of global state a compile must leave as it found them, each with a reader and a writer.

:mod:`loom.global_state` snapshots every :data:`ITEMS` entry before a compile and, after it, compares and
writes back what changed. An item is registered with :func:`item`; the list is in restore order (inference
mode before grad mode, because entering inference mode also sets grad mode). Readers are cheap C calls
or attribute reads (a whole snapshot costs microseconds); writers run only for an item that changed.

Most items are the compiling thread's own (grad mode, autocast, the mode stacks). Items marked
``process_wide`` (RNG states, default dtype, warnings filters...) may also be changed by the program's other
threads while this one compiles: those are compared and restored only while no other Python thread is alive,
since writing one back could undo another thread's work (rewinding its random draws).
"""

from __future__ import annotations

import operator
import random
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.autograd.forward_ad as forward_ad
import torch.utils._python_dispatch as python_dispatch

_C = torch._C
_functorch = torch._C._functorch


class CannotRestore(RuntimeError):
    """An item changed in a way its writer cannot undo (a layer of the program's was popped)."""


@dataclass(frozen=True)
class StateItem:
    """One piece of global state: ``read()`` gives a value ``same`` can compare; ``write(value)`` puts a
    value read earlier back; ``show(value)`` prints it for the error of the check mode; ``process_wide``
    when other threads share it (see the module docstring)."""

    name: str
    read: Callable[[], Any]
    write: Callable[[Any], None]
    same: Callable[[Any, Any], bool] = operator.eq
    show: Callable[[Any], str] = repr
    process_wide: bool = False


#: Every item, in restore order.
ITEMS: list[StateItem] = []


def item(name: str, read: Callable[[], Any], write: Callable[[Any], None], *,
         same: Callable[[Any, Any], bool] = operator.eq, show: Callable[[Any], str] = repr,
         process_wide: bool = False) -> StateItem:
    """Register a piece of global state (appended: later items are restored later)."""
    entry = StateItem(name, read, write, same, show, process_wide)
    ITEMS.append(entry)
    return entry


def _same_objects(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _show_objects(values: tuple[Any, ...]) -> str:
    return "[" + ", ".join(type(v).__name__ for v in values) + "]"


# -- autograd ----------------------------------------------------------------------------------------

# Entering inference mode is an RAII guard in C++ (it also sets grad mode and the dispatch keys, and
# restores all three when destroyed): putting the program's mode back means holding one such guard for
# good. It only happens after a loom bug, which the check mode turns into an error.
_pinned_inference_guards: list[Any] = []


def _write_inference_mode(enabled: bool) -> None:
    _pinned_inference_guards.append(torch._C._InferenceMode(enabled))


item("inference mode", torch.is_inference_mode_enabled, _write_inference_mode)
item("grad mode", _C.is_grad_enabled, _C._set_grad_enabled)


def _forward_ad_level() -> int:
    return forward_ad._current_level


def _write_forward_ad_level(level: int) -> None:
    while forward_ad._current_level > level:
        forward_ad.exit_dual_level()
    if forward_ad._current_level != level:
        raise CannotRestore("a forward-AD dual level of the program's was exited")


item("forward AD level", _forward_ad_level, _write_forward_ad_level, process_wide=True)


def _saved_tensors_hooks() -> tuple[Any, ...]:
    top = _C._autograd._top_saved_tensors_default_hooks(False)
    return () if top is None else tuple(top)


def _write_saved_tensors_hooks(hooks: tuple[Any, ...]) -> None:
    for _ in range(64):  # only hooks a compile pushed above the program's; bounded, never a hang
        if _same_objects(_saved_tensors_hooks(), hooks) or not _saved_tensors_hooks():
            break
        _C._autograd._pop_saved_tensors_default_hooks()
    if not _same_objects(_saved_tensors_hooks(), hooks):
        raise CannotRestore("saved-tensor hooks of the program's were popped")


item("saved-tensor hooks (innermost)", _saved_tensors_hooks, _write_saved_tensors_hooks, same=_same_objects,
     show=_show_objects)


def _deterministic() -> tuple[bool, bool]:
    return _C._get_deterministic_algorithms(), _C._get_deterministic_algorithms_warn_only()


def _write_deterministic(value: tuple[bool, bool]) -> None:
    torch.use_deterministic_algorithms(value[0], warn_only=value[1])


item("deterministic algorithms (enabled, warn_only)", _deterministic, _write_deterministic, process_wide=True)

# -- autocast ------------------------------------------------------------------------------------------

_AUTOCAST_DEVICES: tuple[str, ...] = tuple(getattr(_C, "_autocast_supported_devices", lambda: ("cpu", "cuda"))())
_OFF = tuple(False for _ in _AUTOCAST_DEVICES)


def _autocast_enabled() -> tuple[bool, ...]:
    if not _C._is_any_autocast_enabled():  # one C call in the common case, not one per device
        return _OFF
    return tuple(torch.is_autocast_enabled(d) for d in _AUTOCAST_DEVICES)


def _autocast() -> tuple[tuple[bool, torch.dtype], ...]:
    return tuple(zip(_autocast_enabled(), (torch.get_autocast_dtype(d) for d in _AUTOCAST_DEVICES)))


def _write_autocast(value: tuple[tuple[bool, torch.dtype], ...]) -> None:
    for device, (enabled, dtype) in zip(_AUTOCAST_DEVICES, value):
        torch.set_autocast_enabled(device, enabled)
        torch.set_autocast_dtype(device, dtype)


def _show_autocast(value: tuple[tuple[bool, torch.dtype], ...]) -> str:
    on = [f"{device}:{dtype}" for device, (enabled, dtype) in zip(_AUTOCAST_DEVICES, value) if enabled]
    return "enabled on " + ", ".join(on) if on else "disabled"


def _autocast_nesting() -> int:
    _C.autocast_increment_nesting()
    return _C.autocast_decrement_nesting()  # nothing else: clearing the cache is autocast.__exit__'s job


def _write_autocast_nesting(level: int) -> None:
    while _autocast_nesting() > level:
        _C.autocast_decrement_nesting()
    while _autocast_nesting() < level:
        _C.autocast_increment_nesting()


item("autocast (enabled, dtype) per device", _autocast, _write_autocast, show=_show_autocast)
item("autocast cache enabled", torch.is_autocast_cache_enabled, torch.set_autocast_cache_enabled)
item("autocast nesting", _autocast_nesting, _write_autocast_nesting)

# -- functorch -----------------------------------------------------------------------------------------


def _functorch_depth() -> int:
    return _functorch.get_dynamic_layer_stack_depth()


def _write_functorch_depth(depth: int) -> None:
    if _functorch.get_dynamic_layer_stack_depth() < depth:
        raise CannotRestore("a torch.func transform level of the program's was popped")
    _functorch.pop_dynamic_layer_stack_and_undo_to_depth(depth)


item("functorch interpreter stack depth", _functorch_depth, _write_functorch_depth)
for _getter, _setter, _label in (
    ("get_inplace_requires_grad_allowed", "set_inplace_requires_grad_allowed", "functorch inplace_requires_grad_allowed"),
    ("get_single_level_autograd_function_allowed", "set_single_level_autograd_function_allowed",
     "functorch single_level_autograd_function_allowed"),
    ("_is_vmap_fallback_enabled", "_set_vmap_fallback_enabled", "functorch vmap fallback enabled"),
):
    if hasattr(_functorch, _getter) and hasattr(_functorch, _setter):
        item(_label, getattr(_functorch, _getter), getattr(_functorch, _setter))

# -- torch-function and dispatch modes -----------------------------------------------------------------

item("torch-function state", _C._get_torch_function_state, _C._set_torch_function_state)


def _function_modes() -> tuple[Any, ...]:
    depth = _C._len_torch_function_stack()
    return tuple(_C._get_function_stack_at(i) for i in range(depth)) if depth else ()


def _write_function_modes(modes: tuple[Any, ...]) -> None:
    while _C._len_torch_function_stack():
        _C._pop_torch_function_stack()
    for mode in modes:
        _C._push_on_torch_function_stack(mode)


item("torch-function mode stack", _function_modes, _write_function_modes, same=_same_objects, show=_show_objects)


def _dispatch_modes() -> tuple[Any, ...]:
    """The dispatch-mode stack as eager code sees it: the user modes and the infra modes (fake, proxy,
    functional) that are set."""
    depth = _C._len_torch_dispatch_stack()
    return tuple(_C._get_dispatch_stack_at(i) for i in range(depth)) if depth else ()


def _write_dispatch_modes(modes: tuple[Any, ...]) -> None:
    while _C._len_torch_dispatch_stack():
        _C._pop_torch_dispatch_stack(None)
    for mode in modes:
        if getattr(mode, "_mode_key", None) is not None:  # fake, proxy, functional: one slot each
            _C._set_dispatch_mode(mode)
        else:
            _C._push_on_torch_dispatch_stack(mode)


item("dispatch mode stack (fake mode included)", _dispatch_modes, _write_dispatch_modes, same=_same_objects,
     show=_show_objects)

_DISPATCH_FLAGS = ("_is_in_torch_dispatch_mode", "_is_in_non_infra_torch_dispatch_mode",
                   "_is_in_any_mode_without_ignore_compile_internals")
_DISPATCH_FLAGS = tuple(name for name in _DISPATCH_FLAGS if hasattr(python_dispatch, name))


def _dispatch_flags() -> tuple[bool, ...]:
    return tuple(getattr(python_dispatch, name) for name in _DISPATCH_FLAGS)


def _write_dispatch_flags(values: tuple[bool, ...]) -> None:
    for name, value in zip(_DISPATCH_FLAGS, values):
        setattr(python_dispatch, name, value)
    mirror = getattr(python_dispatch, "set_is_in_mode_without_ignore_compile_internals", None)
    if mirror is not None and "_is_in_any_mode_without_ignore_compile_internals" in _DISPATCH_FLAGS:
        mirror(python_dispatch._is_in_any_mode_without_ignore_compile_internals)


item("is_in_torch_dispatch_mode flags", _dispatch_flags, _write_dispatch_flags, process_wide=True)


def _pre_dispatch_depth() -> int:
    import torch._ops

    return torch._ops._len_torch_dispatch_stack_pre_dispatch()


def _write_pre_dispatch_depth(depth: int) -> None:
    import torch._ops

    while torch._ops._len_torch_dispatch_stack_pre_dispatch() > depth:
        torch._ops._pop_mode_from_pre_dispatch()
    if torch._ops._len_torch_dispatch_stack_pre_dispatch() != depth:
        raise CannotRestore("a pre-dispatch mode of the program's was popped")


item("pre-dispatch mode stack depth", _pre_dispatch_depth, _write_pre_dispatch_depth, process_wide=True)

# -- defaults ------------------------------------------------------------------------------------------

item("default dtype", torch.get_default_dtype, torch.set_default_dtype, process_wide=True)

_device_context = torch._GLOBAL_DEVICE_CONTEXT  # a threading.local: set_default_device's DeviceContext


def _default_device_context() -> Any:
    return _device_context.__dict__.get("device_context")  # this thread's (a missing attribute costs more)


def _write_default_device_context(context: Any) -> None:
    if context is None:
        if hasattr(_device_context, "device_context"):
            del _device_context.device_context
    else:
        _device_context.device_context = context


item("default device (torch.set_default_device)", _default_device_context, _write_default_device_context,
     same=operator.is_, show=lambda c: "none" if c is None else str(getattr(c, "device", c)))
item("number of threads", torch.get_num_threads, torch.set_num_threads, process_wide=True)

# -- random number generators --------------------------------------------------------------------------


def _same_tensor(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and bool(torch.equal(a, b))


def _show_rng(state: Any) -> str:
    return f"<state {hash(bytes(state.numpy())) & 0xFFFF:04x}>" if isinstance(state, torch.Tensor) else repr(state)


item("torch CPU random state", torch.default_generator.get_state, torch.default_generator.set_state,
     same=_same_tensor, show=_show_rng, process_wide=True)


def _cuda_rng_states() -> tuple[torch.Tensor, ...]:
    """Each CUDA device's generator state, once CUDA is initialised (never initialising it)."""
    if not torch.cuda._initialized or not torch.cuda.is_initialized():
        return ()
    return tuple(generator.get_state() for generator in torch.cuda.default_generators)


def _write_cuda_rng_states(states: tuple[torch.Tensor, ...]) -> None:
    for generator, state in zip(torch.cuda.default_generators, states):
        generator.set_state(state)


def _same_tensors(a: tuple[torch.Tensor, ...], b: tuple[torch.Tensor, ...]) -> bool:
    return len(a) == len(b) and all(_same_tensor(x, y) for x, y in zip(a, b))


item("torch CUDA random states", _cuda_rng_states, _write_cuda_rng_states, same=_same_tensors,
     show=lambda states: f"<{len(states)} device states>", process_wide=True)
item("Python random state", random.getstate, random.setstate, process_wide=True, show=lambda s: f"<state {hash(s) & 0xFFFF:04x}>")

# -- the interpreter -----------------------------------------------------------------------------------


def _show_function(fn: Any) -> str:
    return "None" if fn is None else getattr(fn, "__qualname__", None) or repr(fn)


item("sys.gettrace()", sys.gettrace, sys.settrace, same=operator.is_, show=_show_function)
item("sys.getprofile()", sys.getprofile, sys.setprofile, same=operator.is_, show=_show_function)
item("recursion limit", sys.getrecursionlimit, sys.setrecursionlimit, process_wide=True)


def _warning_filters() -> tuple[Any, tuple[Any, ...], frozenset[str]]:
    # With the modules imported so far: a filter a module adds when a compile first imports it is its own
    # (sympy's, when the first translation imports torch's symbolic_shapes), not the compile's doing.
    return warnings.filters, tuple(warnings.filters), frozenset(sys.modules)


def _write_warning_filters(value: tuple[Any, tuple[Any, ...], frozenset[str]]) -> None:
    filters, entries, _ = value
    filters[:] = entries
    warnings.filters = filters
    mutated = getattr(warnings, "_filters_mutated", None)
    if mutated is not None:
        mutated()  # drop the per-module caches of decisions taken under other filters


def _same_filters(a: tuple[Any, tuple[Any, ...], frozenset[str]], b: tuple[Any, tuple[Any, ...], frozenset[str]]) -> bool:
    """Whether the filters after a compile (``b``) are those before it (``a``), but for filters added in
    front by modules the compile imported for the first time (their warning category is defined there)."""
    if a[0] is not b[0]:
        return False
    before, after = a[1], b[1]
    if after == before:
        return True
    added = len(after) - len(before)
    if added <= 0 or after[added:] != before:
        return False
    imported = b[2] - a[2]
    return all(_category_module(entry) in imported for entry in after[:added])


def _category_module(entry: Any) -> str | None:
    category = entry[2] if isinstance(entry, tuple) and len(entry) > 2 else None
    return getattr(category, "__module__", None) if isinstance(category, type) else None


item("warnings.filters", _warning_filters, _write_warning_filters, same=_same_filters,
     show=lambda value: f"<{len(value[1])} filters>", process_wide=True)
