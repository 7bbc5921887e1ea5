"""Jumps, loops, returns, ``with`` blocks and raising."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import Unsupported
from ..variables import yield_from_delegates as delegates
from ..variables.attributes import _MISSING, class_attribute
from ..variables.base import Variable
from ..variables.constant import ConstantVariable
from ..variables.ctx import ENTERED_BY_TYPE
from ..variables.exception_values import ExceptionVariable, SymbolicException, raised
from ..variables.generators import GeneratorVariable
from ..variables.iterators import IteratorVariable, iterate, not_modelled_because
from .asserts import record_tensor_assert
from .registry import handler


@dataclass
class WithBlock:
    """An active ``with`` block: the context manager and where its cleanup handler starts."""

    context: Variable
    handler_index: int | None


@handler("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_ABSOLUTE", "JUMP")
def jump(tx, ins) -> None:
    tx.jump(ins)


def _is_none(tx, value) -> bool:
    if isinstance(value, ConstantVariable):
        return value.value is None
    try:
        return value.python_type() is type(None)
    except Unsupported:
        raise Unsupported(f"'is None' on {value.describe()}", "its type is not known while tracing") from None


def _conditional(opnames: tuple[str, ...], test) -> None:
    @handler(*opnames)
    def pop_jump(tx, ins) -> None:
        if test(tx, tx.pop()):
            tx.jump(ins)

    pop_jump.__name__ = opnames[0].lower()


_conditional(("POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_IF_TRUE"),
             lambda tx, v: record_tensor_assert(tx, v) or v.truth(tx))
_conditional(("POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_IF_FALSE"),
             lambda tx, v: not v.truth(tx))
_conditional(("POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_IF_NONE"), _is_none)
_conditional(("POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE", "POP_JUMP_IF_NOT_NONE"),
             lambda tx, v: not _is_none(tx, v))


@handler("JUMP_IF_TRUE_OR_POP")
def jump_if_true_or_pop(tx, ins) -> None:
    if tx.peek().truth(tx):
        tx.jump(ins)
    else:
        tx.pop()


@handler("JUMP_IF_FALSE_OR_POP")
def jump_if_false_or_pop(tx, ins) -> None:
    if not tx.peek().truth(tx):
        tx.jump(ins)
    else:
        tx.pop()


@handler("GET_ITER")
def get_iter(tx, ins) -> None:
    tx.push(iterate(tx, tx.pop()))


def next_loop_item(tx) -> Any:
    """FOR_ITER's step: the next item of the iterator on top of the stack, or None once it is done
    (then the iterator is popped; where the loop goes on differs by version)."""
    iterator = tx.peek()
    if not isinstance(iterator, IteratorVariable):
        raise Unsupported(f"a for loop over {iterator.describe()}", not_modelled_because(iterator))
    item = iterator.next_item(tx)
    if item is None:
        tx.pop()
    return item


@handler("FOR_ITER")
def for_iter(tx, ins) -> None:
    item = next_loop_item(tx)
    if item is None:
        tx.jump(ins)
    else:
        tx.push(item)


@handler("RETURN_VALUE")
def return_value(tx, ins) -> None:
    tx.return_value = tx.pop()


@handler("BEFORE_WITH")
def before_with(tx, ins) -> None:
    manager = tx.pop()
    _check_manager_protocol(tx, manager)
    enter = getattr(manager, "enter", None)
    by_type = ENTERED_BY_TYPE.get(manager.python_type()) if manager.is_python_constant() else None
    if by_type is not None:
        enter = lambda tx: by_type(tx, manager)  # noqa: E731
    if enter is None:
        raise Unsupported(f"a with block over {manager.describe()}", "the translator cannot model this context manager")
    exit_callable, entered = enter(tx)
    handler_range = tx.decoded.handler_for(tx.ip)
    tx.block_stack.append(WithBlock(manager, handler_range.target if handler_range else None))
    tx.push(exit_callable)
    tx.push(entered)


def _check_manager_protocol(tx, manager: Variable) -> None:
    """CPython's TypeError for a manager whose class lacks ``__enter__`` or ``__exit__`` (looked up on the
    type, ``__enter__`` first), for the classes whose name the message gives as ``__name__``."""
    try:
        cls = manager.python_type()
    except (Unsupported, NotImplementedError):  # a value whose type is not known: its own enter() decides
        return
    if not isinstance(cls, type) or not (cls.__flags__ & _HEAPTYPE or cls.__module__ == "builtins"):
        return
    missing = next((name for name in ("__enter__", "__exit__") if class_attribute(cls, name) is _MISSING), None)
    if missing is not None:
        message = f"{cls.__name__!r} object does not support the context manager protocol"
        if missing == "__exit__":
            message += " (missed __exit__ method)"
        raise SymbolicException(raised(tx, ExceptionVariable(TypeError, [ConstantVariable(message)])))


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, named by its __name__


@handler("RETURN_GENERATOR")
def return_generator(tx, ins) -> None:
    """The generator object already exists (the caller made it); the POP_TOP that follows pops this."""
    tx.push(ConstantVariable(None))


@handler("YIELD_VALUE")
def yield_value(tx, ins) -> None:
    tx.yielded = tx.pop()
    tx.suspended = True


@handler("GET_YIELD_FROM_ITER")
def get_yield_from_iter(tx, ins) -> None:
    tx.push(iterate(tx, tx.pop()))


def send_to_receiver(tx, ins, *, pop_receiver_when_done: bool) -> None:
    """SEND: the next item of the ``yield from`` receiver below the sent value, or, once it is done,
    its return value and a jump (3.11 pops the receiver then; 3.12's END_SEND does it). A value other
    than None (the caller's ``send``) goes on to the receiver's ``send`` (PEP 380: ``yield_from_delegates``)."""
    sent = tx.pop()
    receiver = tx.peek()
    if not isinstance(receiver, IteratorVariable):
        raise Unsupported(f"yield from {receiver.describe()}", "not an iterator the translator models")
    if sent.is_python_constant() and sent.as_python_constant() is None:
        item = receiver.next_item(tx)
    elif isinstance(receiver, GeneratorVariable):
        item = receiver.sent_item(tx, sent)
    else:  # CPython calls receiver.send(value)
        item = delegates.send_into(tx, receiver, sent)
        if isinstance(item, delegates.EndedDelegate):  # it stopped: its value ends the yield from
            receiver, item = item, None
    if item is None:
        if pop_receiver_when_done:
            tx.pop()
        # the value of its ``return`` only when this resume ran it (an exhausted one's StopIteration has none)
        tx.push(receiver.returned if getattr(receiver, "returned_now", False) else ConstantVariable(None))
        tx.jump(ins)
    else:
        tx.push(item)


@handler("SEND")
def send(tx, ins) -> None:
    send_to_receiver(tx, ins, pop_receiver_when_done=True)
