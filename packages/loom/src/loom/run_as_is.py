"""States of the program in which a frame runs as it is, uncompiled this time (compiled when called outside).

Each entry of :data:`CONDITIONS` is a cheap check (one or two C calls, made only on a cache miss) and why
compiling there would be wrong. :func:`reason` gives the first that holds.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.autograd.forward_ad as forward_ad
from torch.utils import _python_dispatch
from torch.utils._device import DeviceContext

from .settings import Settings

_C = torch._C
_len_dispatch_stack = _C._len_torch_dispatch_stack
_len_function_stack = _C._len_torch_function_stack
_peek_interpreter_stack = _C._functorch.peek_interpreter_stack


def forward_ad_level_active(settings: Settings) -> bool:
    """A ``torch.autograd.forward_ad.dual_level()`` is entered (dual tensors may flow in)."""
    return forward_ad._current_level >= 0


def dispatch_mode_active(settings: Settings) -> bool:
    """A TorchDispatchMode (a user's, or a tracer's fake, proxy or functional mode) is on this thread's stack."""
    return _len_dispatch_stack() > 0


def inside_dispatch_mode(settings: Settings) -> bool:
    """A TorchDispatchMode is entered: inside its ``__torch_dispatch__`` the mode is off the stack, but the
    frames that method runs (once per op, each with another ``func``) are the mode's, not the program's.
    (torch's flag is per process: a user's mode entered on another thread also makes frames run as they are;
    loom's own fake mode never does, since this is asked holding the compile lock.)"""
    return _python_dispatch._is_in_torch_dispatch_mode


def foreign_function_mode_active(settings: Settings) -> bool:
    """A TorchFunctionMode other than a default-device context (``with torch.device(...)``,
    ``torch.set_default_device``) is on this thread's stack."""
    depth = _len_function_stack()
    return bool(depth) and any(not isinstance(_C._get_function_stack_at(i), DeviceContext) for i in range(depth))


def functorch_transform_active(settings: Settings) -> bool:
    """An eager ``torch.func`` transform (vmap, grad, jvp, functionalize) is running on this thread."""
    return _peek_interpreter_stack() is not None


def checkpoint_recomputation_differs(settings: Settings) -> bool:
    """Inside a non-reentrant checkpoint (its saved-tensor hooks are in force), with an AOT backend."""
    return settings.backend_name != "eager" and _C._autograd._top_saved_tensors_default_hooks(False) is not None


def torch_function_check_skipped(settings: Settings) -> bool:
    """``torch.overrides.redispatch_function`` called this frame's function: its next torch-function check is
    skipped (a per-thread flag that the function's own ``has_torch_function`` consumes)."""
    return _C._peek_should_skip_torch_function()


#: (check, why the frame runs as it is), first match wins.
CONDITIONS: list[tuple[Callable[[Settings], bool], str]] = [
    (forward_ad_level_active, "FakeTensors carry no tangents"),
    (dispatch_mode_active, "the mode would see loom's compile-time work (FakeTensor ops, AOTAutograd's "
     "tracing); torch.compile also runs such frames as they are"),
    (inside_dispatch_mode, "the frame runs inside a TorchDispatchMode's __torch_dispatch__ (or the mode is "
     "entered on another thread): compiled, it would recompile for every op the mode sees"),
    (foreign_function_mode_active, "the mode would see loom's tracing (FakeTensor creation, fake calls); a "
     "default-device context is compiled under: it only fills in factory functions' device, in the trace too"),
    (torch_function_check_skipped, "the frame's next torch-function check is skipped, a flag the trace would "
     "consume at compile time"),
    (functorch_transform_active, "the transform's tensors are wrapped for its level, which FakeTensors cannot model"),
    (checkpoint_recomputation_differs, "backward recomputes this frame uncompiled, and an AOTAutograd graph saves "
     "its tensors in another order than that recomputation"),
]


def reason(settings: Settings) -> str | None:
    """Why a frame entered now must run as it is, or None to compile it."""
    for check, why in CONDITIONS:
        if check(settings):
            return why
    return None
