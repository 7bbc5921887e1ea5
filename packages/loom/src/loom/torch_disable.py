"""Frames torch.compile is told to leave alone: those run below ``torch._dynamo.disable`` /
``torch.compiler.disable`` (and the ``torch._disable_dynamo`` torch uses inside itself, as around a higher
order operator's eager call: ``wrap``, ``cond``), which loom's hook cannot see turned off.

torch's recursive disable wraps the function in ``DisableContext.__call__``'s ``_fn``, which turns
Dynamo's frame callback off while the function and everything it calls run; its ``recursive=False`` form
wraps it in ``nonrecursive_disable_wrapper``, which leaves only the function's own frame alone. A frame
below either runs as it is, uncompiled this time (compiled when called outside). The walk up the stack
stops at loom's own entry wrappers: a ``loom.compile``'d function called inside a disabled one is compiled,
as a ``torch.compile``'d one is there. Only asked on a cache miss.
"""

from __future__ import annotations

import os
import sys
import types

_LOOM_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_codes: tuple[types.CodeType | None, types.CodeType | None] | None = None


def _nested_code(fn: object, name: str) -> types.CodeType | None:
    code = getattr(fn, "__code__", None)
    consts = code.co_consts if code is not None else ()
    return next((c for c in consts if isinstance(c, types.CodeType) and c.co_name == name), None)


def _wrapper_codes() -> tuple[types.CodeType | None, types.CodeType | None] | None:
    """The code objects of torch's recursive and non-recursive disable wrappers, once ``torch._dynamo``
    is imported (no disabled function has run before that: ``torch._disable_dynamo`` imports it first)."""
    global _codes
    if _codes is None:
        eval_frame = sys.modules.get("torch._dynamo.eval_frame")
        external = sys.modules.get("torch._dynamo.external_utils")
        if eval_frame is None or external is None:
            return None
        _codes = (_nested_code(eval_frame.DisableContext.__call__, "_fn"),
                  _nested_code(getattr(external, "get_nonrecursive_disable_wrapper", None),
                               "nonrecursive_disable_wrapper"))
    return _codes


def under_torch_disable(depth: int = 2) -> bool:
    """Whether the frame the hook asks about runs below a torch disable wrapper (recursive, up to loom's
    own entry wrapper) or is the function a non-recursive one wraps. The hook's frame view has no
    ``f_back``; the frame is not linked to its caller yet, so the callback's own caller, ``depth`` frames
    up from here, is that frame's caller."""
    codes = _wrapper_codes()
    if codes is None:
        return False
    recursive, nonrecursive = codes
    caller = sys._getframe(depth)
    if caller is not None and caller.f_code is nonrecursive and nonrecursive is not None:
        return True
    while caller is not None:
        code = caller.f_code
        if code is recursive:
            return True
        if code.co_filename.startswith(_LOOM_DIR):
            return False
        caller = caller.f_back
    return False
