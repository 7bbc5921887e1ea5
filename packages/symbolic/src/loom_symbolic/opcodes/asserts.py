"""``assert cond, "message"`` on a tensor's value, kept in the graph instead of breaking it.

The statement compiles to a jump over ``LOAD_ASSERTION_ERROR; LOAD_CONST msg; [PRECALL;] CALL; RAISE_VARARGS``.
When the condition is a one-element tensor and the message a constant string (or absent), the check is
recorded as ``loom::assert_true(cond, msg)`` (:mod:`..assert_op`): it runs when the graph runs and raises the very
``AssertionError(msg)`` eager raises (TorchDynamo records ``torch._assert_async``, which raises a
``RuntimeError`` on CPU). An assert whose message is computed at run time still breaks the graph: the
message would have to be known while tracing.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from ..assert_op import ASSERT_TRUE
from ..variables.tensor import TensorVariable

#: What may sit between the message and the raise: the call of the exception class, per Python version.
_CALLS = ("PRECALL", "CALL")


#: ``constant_message``'s answer for an assert statement without a message (not "": ``assert c, ""`` has one).
NO_MESSAGE: Any = object()


def constant_message(tx: Any) -> Any:
    """The message of the assert statement the jump just decoded guards (``NO_MESSAGE`` for
    ``assert cond``), or None when the code there is not such a statement with a constant message."""
    instructions, at = tx.instructions, tx.ip
    if at + 1 >= len(instructions) or instructions[at].opname != "LOAD_ASSERTION_ERROR":
        return None
    if instructions[at + 1].opname == "RAISE_VARARGS":
        return NO_MESSAGE
    load = instructions[at + 1]
    if load.opname != "LOAD_CONST" or type(load.argval) is not str:
        return None
    after = at + 2
    while after < len(instructions) and instructions[after].opname in _CALLS:
        after += 1
    if after >= len(instructions) or instructions[after].opname != "RAISE_VARARGS":
        return None
    return load.argval


def _uncaught(tx: Any) -> bool:
    """Whether an exception raised at the current instruction leaves every frame being traced: no ``try``
    or ``with`` of the frame or of a caller would see it (an error raised by the graph is not routed
    through the frame's handlers, so an ``except AssertionError`` there would be skipped)."""
    frame = tx
    while frame is not None:
        if frame.current is not None and frame.decoded.handler_for(frame.current.index) is not None:
            return False
        frame = frame.parent
    return True


def record_tensor_assert(tx: Any, value: Any) -> bool:
    """Record ``loom::assert_true(value, message)`` when ``value`` (the condition a ``POP_JUMP_IF_TRUE`` popped)
    is a one-element tensor guarding an assert with a constant message; True when recorded (the jump is
    then taken: the assert's raise runs in the graph)."""
    if not isinstance(value, TensorVariable) or value.python_type() not in (torch.Tensor, torch.nn.Parameter):
        return False  # (a subclass may answer bool() itself)
    if tx.output.function_modes:
        return False  # eager hands bool() to the mode
    example = value.as_example()
    if not isinstance(example, torch.Tensor) or any(type(d) is not int for d in example.shape):
        return False  # (a symbolic size: asking whether it is one element would guard on it)
    if math.prod(example.shape) != 1:
        return False  # eager's bool() of a bigger tensor raises its own error: leave it to eager
    message = constant_message(tx)
    if message is None or not _uncaught(tx):
        return False
    where = tx.location()
    line = where.lineno or tx.code.co_firstlineno
    node = tx.output.graph.call_function(ASSERT_TRUE, (value.as_graph_arg(), None if message is NO_MESSAGE else message, where.filename, line,
                                                       tx.code.co_name))
    node.meta["loom_location"] = where
    node.meta["mutates"] = False
    node.meta["draws"] = False
    return True
