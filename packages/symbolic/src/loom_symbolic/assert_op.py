"""``loom::assert_true``: the operator a traced ``assert tensor_cond, "message"`` becomes in a graph.

``assert cond`` without a message becomes one with ``message=None``. ``torch._assert`` cannot stand in: it evaluates ``bool(cond)`` in Python, which AOT tracing (fake
tensors) refuses as data-dependent; ``torch._assert_async`` traces, but raises a ``RuntimeError`` where
eager raises ``AssertionError(message)``. This operator traces (its fake kernel does nothing), is never
removed as dead code, and raises what eager raises when the graph runs, from the user's own line: the
raise runs in a code object named after the user's function, file and line, so the traceback ends where
eager's does.
"""

from __future__ import annotations

import functools
import types

import torch


@functools.lru_cache(maxsize=256)
def _raiser(filename: str, line: int, name: str) -> types.CodeType:
    # blank lines put the raise on the user's line number; the name is the user's function's
    code = compile("\n" * (max(line, 1) - 1) + "raise AssertionError(*arguments)", filename, "exec")
    return code.replace(co_name=name)


@torch.library.custom_op("loom::assert_true", mutates_args=())
def assert_true(condition: torch.Tensor, message: str | None, filename: str, line: int, name: str) -> None:
    """Raise ``AssertionError(message)`` (``AssertionError()`` for None: an assert without a message) at
    ``filename:line`` in ``name`` unless the one-element ``condition`` is true (as ``bool()`` reads it)."""
    if not bool(condition):
        arguments = () if message is None else (message,)
        exec(_raiser(filename, line, name), {"arguments": arguments, "AssertionError": AssertionError})


@assert_true.register_fake
def _assert_true_fake(condition: torch.Tensor, message: str | None, filename: str, line: int, name: str) -> None:
    return None


#: The overload graphs call; FX keeps it though it has no users.
ASSERT_TRUE = torch.ops.loom.assert_true.default
torch.fx.node.has_side_effect(ASSERT_TRUE)
