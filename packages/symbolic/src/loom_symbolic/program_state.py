"""Queries of the program's own state (the dispatch-mode stack, functorch's level): answered as eager would.

Libraries ask "which dispatch mode is on?" or "am I inside a torch.func transform?" to pick a code path
(``nn.MultiheadAttention``, ``torch.utils._python_dispatch._get_current_dispatch_mode_stack``). Recorded
as graph ops, these would run inside loom's FakeTensorMode and answer with it ("an op returning
LoomFakeTensorMode"). They are folded instead: called at trace time, with loom's fake mode taken off the
stack for the call, and the answer is a constant of the trace. The facade compiles no frame while a
dispatch mode or a functorch transform is active, and every entry's global-state guard checks the
mode-stack depths and whether functorch is active, so the constant holds whenever the entry runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

from .fake_mode import LoomFakeTensorMode

_C = torch._C
_FAKE = _C._TorchDispatchModeKey.FAKE


def _queries() -> frozenset[Any]:
    found = []
    for owner, names in (
        (_C, ("_len_torch_dispatch_stack", "_get_dispatch_stack_at", "_get_dispatch_mode",
              "_len_torch_function_stack", "_is_torch_function_mode_enabled", "_are_functorch_transforms_active")),
        (_C._functorch, ("maybe_current_level", "current_level", "peek_interpreter_stack", "get_interpreter_stack",
                         "get_dynamic_layer_stack_depth")),
    ):
        found.extend(getattr(owner, name) for name in names if hasattr(owner, name))
    return frozenset(found)


#: torch builtins that read the program's mode stacks or transform level.
QUERIES: frozenset[Any] = _queries()


#: The queries whose answer differs inside a ``torch.func`` transform's function (its level is pushed).
FUNCTORCH_QUERIES: frozenset[Any] = frozenset(
    q for q in QUERIES if getattr(q, "__name__", "") == "_are_functorch_transforms_active" or q in vars(_C._functorch).values()
)


def is_query(fn: Any) -> bool:
    """Whether ``fn`` is one of :data:`QUERIES`."""
    try:
        return fn in QUERIES
    except TypeError:  # unhashable
        return False


@contextlib.contextmanager
def program_view() -> Iterator[None]:
    """The dispatch-mode stack as the program has it: loom's own fake mode, if it is set, taken off."""
    mode = _C._get_dispatch_mode(_FAKE)
    if not isinstance(mode, LoomFakeTensorMode):
        yield
        return
    _C._unset_dispatch_mode(_FAKE)
    try:
        yield
    finally:
        _C._set_dispatch_mode(mode)


def answer(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``fn(*args, **kwargs)`` as the program would see it (its exceptions propagate)."""
    with program_view():
        return fn(*args, **kwargs)
