"""Whether a class body may run once, while tracing, for every call of the compiled entry.

:mod:`.class_definitions` makes a class by running its body natively, once, when the trace reaches the class
statement. Eager runs the body on every call: a body that does something outside the class (``REGISTRY.append``,
``next(counter)``), or reads a value that may differ on the next call (a global bound again, a module's
attribute), would run once, or be read once, compiled. So the body's bytecode is read first, straight line only,
each value it pushes followed as the stack does:

* a name it reads is one it stored earlier, a cell given to the class (:mod:`.class_closures`: fixed), or a
  global or builtin read as the trace reads one (:meth:`~..translator.InstructionTranslator.load_global`:
  guarded by value or identity); an attribute of such a value is read the trace's way too (guarded);
* what it calls is a builtin that only wraps or builds (``property``, ``staticmethod``, ``classmethod``,
  ``int``...), or ``dataclasses.field``, ``enum.auto``, ``abc.abstractmethod``, ``functools.cached_property``,
  or a grad-mode decorator (``@torch.no_grad()``: made, then applied to a method) (anything else could act, or
  return something new each call: a tensor);
* an operator (``int | None``, ``Optional[int]``, ``4 * 2``) is applied only to constants and classes.

Anything else (a loop, an import, a store outside the body's namespace, an unknown instruction) is one graph
break at the class statement, naming it: torch.compile breaks at every class statement.
"""

from __future__ import annotations

import abc
import dataclasses
import dis
import enum
import functools
import types
from typing import Any

import torch

from ..errors import Unsupported
from ..policy import trusted_module_name
from ..variables.base import Variable

#: Callables whose result is a decorator that only wraps what it is applied to, so the body may call it too:
#: ``@torch.no_grad()`` on a method (making one sets no grad mode; ``set_grad_enabled(False)``'s would).
DECORATOR_MAKERS = frozenset({torch.no_grad, torch.enable_grad, torch.inference_mode})
#: Callables a class body may call: each wraps or builds a value from its arguments, acting on nothing else.
PURE_CALLS = frozenset({
    property, staticmethod, classmethod, int, float, complex, str, bytes, bool, tuple, frozenset, range, slice,
    dataclasses.field, enum.auto, abc.abstractmethod, functools.cached_property, functools.partialmethod,
    *DECORATOR_MAKERS,
})
_DECORATOR = object()  # what a DECORATOR_MAKERS call pushed

_NULL = object()  # the NULL some call sequences push
#: A value the body made (a function, a container, a pure call's result, a loop's item over those): inert.
_OTHER = object()


class _Local:
    """A name of the class's namespace, read back."""

    def __init__(self, name: str) -> None:
        self.name = name


#: Instructions that act on nothing outside the body (their stack effect is ``dis``'s): locals of an inlined
#: comprehension, loops over what the body made, building its containers and strings.
_QUIET = frozenset({
    "RESUME", "NOP", "CACHE", "KW_NAMES", "EXTENDED_ARG", "MAKE_CELL", "COPY_FREE_VARS", "POP_TOP",
    "LOAD_CLOSURE", "LIST_TO_TUPLE", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE", "LIST_APPEND",
    "SET_ADD", "MAP_ADD", "SET_FUNCTION_ATTRIBUTE", "BUILD_STRING", "LOAD_FAST", "LOAD_FAST_CHECK", "STORE_FAST",
    "DELETE_FAST", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST",
    "FOR_ITER", "END_FOR", "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT",
    "PUSH_EXC_INFO", "POP_EXCEPT", "RETURN_CONST", "RETURN_VALUE", "RERAISE", "LOAD_LOCALS",
})
#: Instructions that run the top value's own code (``__iter__``, ``__format__``, ``__bool__``...): quiet where
#: that value is inert (see :func:`_inert`).
_ON_TOP = frozenset({
    "GET_ITER", "FORMAT_VALUE", "FORMAT_SIMPLE", "CONVERT_VALUE", "TO_BOOL", "UNARY_NEGATIVE", "UNARY_NOT",
    "UNARY_INVERT", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE", "FORMAT_WITH_SPEC",
})
_STOPS = frozenset({"RETURN_VALUE", "RETURN_CONST", "RERAISE", "RAISE_VARARGS"})
_ALWAYS_JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT"})
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def check_body(tx, code: types.CodeType, what: str) -> None:
    """Raise Unsupported at ``what`` unless class body ``code`` may run once for the compiled entry (see the
    module's docstring); the globals and attributes it reads are guarded as the trace's own reads are.
    Every path is followed once (handlers too), with the values on the stack as far as they matter."""
    instructions = list(dis.get_instructions(code))
    at = {ins.offset: index for index, ins in enumerate(instructions)}
    pending: list[tuple[int, list[Any]]] = [(0, [])]
    for entry in dis.Bytecode(code).exception_entries:
        pending.append((at[entry.target], [_OTHER] * (entry.depth + entry.lasti + 1)))
    seen: set[int] = set()
    stored: set[str] = set()
    while pending:
        index, stack = pending.pop()
        while index not in seen and index < len(instructions):
            seen.add(index)
            ins = instructions[index]
            before = len(stack)
            _step(tx, ins, stack, stored, what)
            if ins.opcode in _JUMPS:
                depth = before + dis.stack_effect(ins.opcode, ins.arg, jump=True)
                pending.append((at[ins.argval], _resized(stack, before, depth)))
                if ins.opname in _ALWAYS_JUMPS:
                    break
            if ins.opname in _STOPS:
                break
            index += 1


def _resized(stack: list[Any], before: int, depth: int) -> list[Any]:
    """The stack a jump lands with: the one before the instruction, less or more values (made by it)."""
    base = stack[:before] if len(stack) >= before else list(stack)
    return base[:depth] if depth <= len(base) else base + [_OTHER] * (depth - len(base))


def _step(tx, ins: dis.Instruction, stack: list[Any], stored: set[str], what: str) -> None:
    """One instruction on the abstract stack; Unsupported where it could act outside the body."""
    op = ins.opname
    if op in _ON_TOP:
        if not stack or not _inert(stack[-1]) or (op == "FORMAT_WITH_SPEC" and not _inert(stack[-2])):
            raise Unsupported(what, f"its body runs {op} on a value whose own code could act")
        op = "QUIET"
    if op in _QUIET or op == "QUIET":
        effect = dis.stack_effect(ins.opcode, ins.arg if ins.opcode >= dis.HAVE_ARGUMENT else None, jump=False)
        if effect < 0:
            _pop(stack, -effect, what)
        else:
            stack.extend([_OTHER] * effect)
    elif op == "SETUP_ANNOTATIONS":
        stored.add("__annotations__")
    elif op == "PRECALL":
        pass  # (3.11) the CALL that follows takes the arguments, as the model of CALL below does
    elif op == "LOAD_CONST":
        stack.append(_Const(ins.argval))
    elif op == "LOAD_NAME":
        stack.append(_read_name(tx, ins.argval, stored))
    elif op == "LOAD_GLOBAL":
        stack.append(_global(tx, ins.argval))
        if "NULL" in ins.argrepr:
            stack.append(_NULL)
    elif op in ("LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"):
        _pop(stack, op == "LOAD_FROM_DICT_OR_DEREF", what)  # (3.12: the namespace LOAD_LOCALS pushed)
        stack.append(_Local(ins.argval) if ins.argval in stored else _OTHER)  # a cell given to the class: fixed
    elif op == "PUSH_NULL":
        stack.append(_NULL)
    elif op in ("STORE_NAME", "DELETE_NAME"):
        for value in _pop(stack, op == "STORE_NAME", what):
            if _named_by_user_code(value):  # type() calls it when it makes the class: once, compiled
                raise Unsupported(what, f"its body binds {ins.argval} to an object whose __set_name__ acts when "
                                        "the class is made, which would run once for the compiled entry")
        stored.add(ins.argval)
    elif op in ("LOAD_ATTR", "LOAD_METHOD"):
        stack.append(_attribute(tx, _pop(stack, 1, what)[0], ins.argval))
        if op == "LOAD_METHOD" or "NULL|self" in ins.argrepr:
            stack.append(_OTHER)  # the receiver, or NULL: the callable is the one below
    elif op == "MAKE_FUNCTION":  # the code, and one value per flag (3.13's has none: SET_FUNCTION_ATTRIBUTE)
        code = _pop(stack, 1 + bin((ins.arg or 0) & 0x0F).count("1"), what)[-1]
        stack.append(_Made(code.value) if isinstance(code, _Const) and isinstance(code.value, types.CodeType)
                     else _OTHER)
    elif op in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_SLICE"):
        _pop(stack, ins.arg, what)
        stack.append(_OTHER)
    elif op in ("BUILD_MAP", "BUILD_CONST_KEY_MAP"):
        _pop(stack, 2 * ins.arg if op == "BUILD_MAP" else ins.arg + 1, what)
        stack.append(_OTHER)
    elif op == "CALL_INTRINSIC_1" and ins.argrepr in ("INTRINSIC_LIST_TO_TUPLE", "INTRINSIC_UNARY_POSITIVE"):
        if not _inert(_pop(stack, 1, what)[0]):
            raise Unsupported(what, f"its body runs {ins.argrepr} on a value whose own code could act")
        stack.append(_OTHER)
    elif op in ("BINARY_OP", "BINARY_SUBSCR", "COMPARE_OP", "CONTAINS_OP", "IS_OP"):
        operands = _pop(stack, 2, what)
        if not all(_inert(operand) for operand in operands):
            raise Unsupported(what, f"its body applies {ins.argrepr or op} to a value whose operator could act")
        stack.append(_OTHER)
    elif op == "STORE_SUBSCR":  # an annotation: __annotations__[name] = value
        _, container, _ = _pop(stack, 3, what)
        if not (isinstance(container, _Local) and container.name == "__annotations__"):
            raise Unsupported(what, "its body stores an item of a container outside the class")
    elif op in ("COPY", "SWAP"):
        _pop(stack, 0, what, depth=ins.arg)
        if op == "COPY":
            stack.append(stack[-ins.arg])
        else:
            stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]
    elif op in ("CALL", "CALL_KW"):
        args = _pop(stack, ins.arg + 2 + (op == "CALL_KW"), what)
        deeper, shallower = args[0], args[1]
        callee = shallower if deeper is _NULL else deeper  # the layouts of 3.11-3.13 alike
        if isinstance(callee, _Made) and callee.code.co_name in _COMPREHENSIONS:
            check_body(tx, callee.code, what)  # (3.11) a comprehension, called on the iterator: its own code
        elif callee is not _DECORATOR and not _pure_callable(callee):
            raise Unsupported(what, f"its body calls {_describe(callee)}, which would run once for the compiled "
                                    "entry where eager runs it on every call")
        stack.append(_DECORATOR if _pure_callable(callee, DECORATOR_MAKERS) else _OTHER)
    else:
        raise Unsupported(what, f"its body runs {op}, which the translator does not run ahead of the call")


class _Made:
    """A function the body made, by its code (a comprehension of 3.11 is one, called at once)."""

    def __init__(self, code: types.CodeType) -> None:
        self.code = code


_COMPREHENSIONS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})


class _Const:
    def __init__(self, value: Any) -> None:
        self.value = value


def _pop(stack: list[Any], count: int, what: str, depth: int = 0) -> list[Any]:
    if len(stack) < max(count, depth):
        raise Unsupported(what, "its body's bytecode is not the straight line the translator follows")
    if not count:
        return []
    popped = stack[-count:]
    del stack[-count:]
    return popped


def _read_name(tx, name: str, stored: set[str]) -> Any:
    if name in stored:
        return _Local(name)
    if name == "__name__":  # the module's name, as the body's first instruction reads it
        return _Const(tx.f_globals.get("__name__"))
    return _global(tx, name)


def _global(tx, name: str) -> Variable:
    return tx.load_global(name)  # guarded as the trace's own read: a global bound again recompiles


def _attribute(tx, owner: Any, name: str) -> Any:
    if isinstance(owner, Variable):
        return owner.var_getattr(tx, name)  # guarded as the trace's own read
    if isinstance(owner, _Const):
        return _Const(getattr(owner.value, name, None))
    return _OTHER


def _inert(operand: Any) -> bool:
    """Whether an operator on ``operand`` runs no code of the user's: a constant, a class (``int | None``,
    ``Optional[int]``), or a value the body made from those."""
    if isinstance(operand, _Const):
        return True
    if isinstance(operand, Variable) and operand.is_python_constant():
        value = operand.as_python_constant()
        return isinstance(value, (int, float, complex, str, bytes, bool, type(None), tuple, type)) or (
            type(value).__module__ == "typing")
    return operand is _OTHER or isinstance(operand, _Made)


def _named_by_user_code(value: Any) -> bool:
    """Whether ``value``'s class has a ``__set_name__`` outside torch and the standard library (a descriptor that
    registers itself somewhere); an unknown class counts as one."""
    if not isinstance(value, Variable) or (value.is_python_constant() and isinstance(value.as_python_constant(), type)):
        return False  # made in the body (a function, a pure call's result), or a class: its metaclass's hook if any
    try:
        hook = getattr(value.python_type(), "__set_name__", None)
    except Unsupported:
        return True
    return hook is not None and not trusted_module_name(getattr(hook, "__module__", None) or "")


def _pure_callable(callee: Any, among: frozenset = PURE_CALLS) -> bool:
    if not isinstance(callee, Variable) or not callee.is_python_constant():
        return False
    try:
        return callee.as_python_constant() in among
    except TypeError:  # unhashable
        return False


def _describe(callee: Any) -> str:
    if isinstance(callee, Variable):
        return callee.describe()
    if isinstance(callee, _Local):
        return f"{callee.name}, defined in the body"
    return "a value made in the body"
