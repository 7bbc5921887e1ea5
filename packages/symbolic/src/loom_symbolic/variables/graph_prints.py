"""``print(...)`` of tensors and constants recorded in the graph, in program order, instead of a graph break.

The call becomes one node of torch's print operator (``torch._higher_order_ops.print``), which every
backend keeps where it stands: FX counts it impure (never dead code) and AOTAutograd threads an effect token
through it, so it runs after the ops before it and before the ops after it, as eager's print does. If a later
op raises, the line is already out, as in eager. At run time it formats one text and hands it to the
builtin ``print``, which writes to ``sys.stdout`` as it is then: a ``redirect_stdout`` entered before the
compiled code sees it; one entered inside the traced code keeps the break, since the graph runs before the
rewritten code sets ``sys.stdout``.

The text is made of the arguments: a constant of a builtin type (text, numbers, ``None``, and tuples,
lists, dicts and sets of them, whose ``str`` runs no code of the program's) is written into the format now;
a tensor is formatted at run time by ``str(tensor)``, eager's text, and so is a symbolic size or number (and a
shape holding them) under dynamic shapes. Anything else keeps the graph break
(``deferred_prints``): a tensor that requires grad (a compiling backend runs the graph on tensors with no
``grad_fn``, which its text shows), a tensor subclass (a ``Parameter`` prints another text), an object
whose text the program writes, a ``file=``, ``flush=True``, an ``end`` not ending in a newline (the operator
always writes one), and a print inside the body of a higher-order op (its sub-graph holds no effects).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import torch
from torch._higher_order_ops.effects import with_effects
from torch._higher_order_ops.print import print as print_operator

from ..fake_mode import share_fake_rule
from .constant import ConstantVariable
from .sequences import SizeVariable
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: types whose ``str`` (and their items') is builtin code that reads nothing but the value
_TEXT_TYPES = (str, int, float, bool, complex, bytes, type(None), torch.dtype, torch.device, torch.Size)
_CONTAINERS = (tuple, list, dict, set, frozenset)


def _plain_text(value: Any, depth: int = 0) -> bool:
    """Whether ``str(value)`` runs builtin code only (exact builtin types, down through containers)."""
    if type(value) in _TEXT_TYPES:
        return True
    if type(value) in _CONTAINERS and depth < 8:
        items = [*value, *value.values()] if type(value) is dict else value
        return all(_plain_text(item, depth + 1) for item in items)
    return False


def _escaped(text: str) -> str:
    """``text`` as a literal part of a ``str.format`` format."""
    return text.replace("{", "{{").replace("}", "}}")


def _constant_text(kwargs: dict, name: str, default: str) -> str | None:
    """The text of keyword ``name`` (``sep`` or ``end``): its default when absent or None, else None when it
    is no constant text."""
    value = kwargs.get(name)
    if value is None:
        return default
    if not isinstance(value, ConstantVariable) or not isinstance(value.value, (str, type(None))):
        return None
    return default if value.value is None else value.value


def _printable_tensor(value: Any) -> bool:
    example = value.as_example()
    return type(example) is not torch.nn.Parameter and value.python_type() is torch.Tensor \
        and not example.requires_grad


def _piece(arg: Any, values: list) -> str | None:
    """The format text of one argument of the print (``{!s}`` for a value known at run time, appended to
    ``values``), or None where the node cannot print it as eager does."""
    if isinstance(arg, TensorVariable):
        if not _printable_tensor(arg):
            return None
        values.append(arg)
        return "{!s}"
    if isinstance(arg, SymbolicVariable) and isinstance(arg.example, (torch.SymInt, torch.SymFloat)):
        values.append(arg)  # a size or a number the graph computes: its text at run time is the number's
        return "{!s}"
    if isinstance(arg, SizeVariable) and not arg.is_python_constant():  # a shape with symbolic sizes
        items = [_piece(item, values) for item in arg.items]
        return None if None in items else "torch.Size([" + ", ".join(items) + "])"
    if arg.is_python_constant() and _plain_text(arg.as_python_constant()):
        try:
            return _escaped(str(arg.as_python_constant()))
        except ValueError:  # an int past sys.get_int_max_str_digits(): eager raises as it prints
            return None
    return None


def print_in_graph(tx: InstructionTranslator, args: list, kwargs: dict) -> bool:
    """Record ``print(*args, **kwargs)`` as a print node of the graph if it may be one (see the module's
    docstring); whether it was."""
    if tx.output.body_depth or set(kwargs) - {"sep", "end", "file", "flush"}:
        return False
    if "stdout" in tx.output.side_effects.attr_overlay.get(id(sys), {}):
        return False  # the trace set sys.stdout (redirect_stdout): the graph runs before that store is made
    if kwargs.get("file") is not None and not (isinstance(kwargs["file"], ConstantVariable)
                                               and kwargs["file"].value is None):
        return False
    flush = kwargs.get("flush")
    if flush is not None and not (isinstance(flush, ConstantVariable) and not flush.value):
        return False
    sep, end = _constant_text(kwargs, "sep", " "), _constant_text(kwargs, "end", "\n")
    if sep is None or end is None or not end.endswith("\n"):
        return False
    pieces, values = [], []
    for arg in args:
        piece = _piece(arg, values)
        if piece is None:
            return False
        pieces.append(piece)
    text = _escaped(sep).join(pieces) + _escaped(end[:-1])
    if not text:
        return False  # print() or print(""): torch's operator needs a format of one character at least
    # recorded as it is: the operator returns None and reads its tensors only, so there is nothing to run fake;
    # AOTAutograd runs it (inside with_effects) under loom's mode when the inputs are loom's fakes
    for op in (print_operator, with_effects):
        share_fake_rule(op, type(tx.output.fake_mode))
    node = tx.output.graph.create_node("call_function", print_operator,
                                       (text, *(value.as_graph_arg() for value in values)), {})
    node.meta["loom_location"] = tx.location()
    return True
