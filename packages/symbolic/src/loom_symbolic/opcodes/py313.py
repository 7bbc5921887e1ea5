"""CPython 3.13's opcode handlers: what its bytecode means, over the shared handlers of this package.

The bytecode facts of CPython 3.13 (decoding, stack effects, how to emit) are in :mod:`loom_symbolic.versions.py313`;
only :mod:`.dispatch` imports this module, and only on CPython 3.13.
"""

from __future__ import annotations

from ..variables.base import NULL, NullVariable
from ..variables.cells import CellVariable
from ..variables.containers import DictVariable
from .build import format_constant
from .calls import call_with, closure_cells, new_function, unpack_call_ex
from .control import next_loop_item
from .names import method_attribute
from .py312 import store_fast  # 3.12's: it also restores what LOAD_FAST_AND_CLEAR saved
from .registry import handler, replace


class _Local:
    """One half of a superinstruction, in the shape a single-local handler reads (``ins.argval``)."""

    __slots__ = ("argval",)

    def __init__(self, name: str) -> None:
        self.argval = name


def _after_loop_end(instructions, ins) -> int:
    """Where an exhausted FOR_ITER continues: past the ``END_FOR; POP_TOP`` its jump names."""
    target = ins.target
    if instructions[target].opname == "END_FOR" and instructions[target + 1].opname == "POP_TOP":
        return target + 2
    return target


# -- calls ---------------------------------------------------------------------------------------
def call_stack(tx, argc: int, kwnames: tuple[str, ...]) -> None:
    args = tx.popn(argc)
    self_or_null = tx.pop()
    fn = tx.pop()
    if not isinstance(self_or_null, NullVariable):
        args = [self_or_null, *args]
    kwargs = {}
    if kwnames:
        split = len(args) - len(kwnames)
        kwargs = dict(zip(kwnames, args[split:]))
        args = args[:split]
    tx.push(call_with(tx, fn, args, kwargs))


@replace("CALL")
def call(tx, ins) -> None:
    call_stack(tx, ins.arg, ())


@handler("CALL_KW")
def call_kw(tx, ins) -> None:
    call_stack(tx, ins.arg, tx.pop().as_python_constant())


@replace("CALL_FUNCTION_EX")
def call_function_ex(tx, ins) -> None:
    kwargs_var = tx.pop() if ins.arg & 0x01 else None
    args_var = tx.pop()
    null = tx.pop()
    assert isinstance(null, NullVariable), "CPython 3.13 pushes NULL after CALL_FUNCTION_EX's callable"
    fn = tx.pop()
    args, kwargs = unpack_call_ex(tx, args_var, kwargs_var, fn)
    tx.push(call_with(tx, fn, args, kwargs))


@replace("LOAD_GLOBAL")
def load_global(tx, ins) -> None:
    tx.push(tx.load_global(ins.argval))
    if ins.arg & 1:
        tx.push(NULL)


@replace("LOAD_ATTR")
def load_attr(tx, ins) -> None:
    # The method form pushes [bound method, NULL], standing for both of CPython's layouts.
    obj = tx.pop()
    if ins.arg & 1:
        tx.push(method_attribute(tx, obj, ins.argval))
        tx.push(NULL)
    else:
        tx.push(obj.var_getattr(tx, ins.argval))


@replace("LOAD_SUPER_ATTR")
def load_super_attr(tx, ins) -> None:
    receiver = tx.pop()
    cls = tx.pop()
    global_super = tx.pop()
    proxy = global_super.call(tx, [cls, receiver] if ins.arg & 2 else [], {})
    tx.push(proxy.var_getattr(tx, ins.argval))
    if ins.arg & 1:
        tx.push(NULL)


# -- locals --------------------------------------------------------------------------------------
def load(tx, name: str) -> None:
    box = tx.cells.get(name)
    if box is not None:  # the compiler reads cells with LOAD_DEREF: this is LOAD_CLOSURE
        tx.push(CellVariable(box))
    else:
        tx.push(tx.read_local(name))


@replace("LOAD_FAST")
def load_fast(tx, ins) -> None:
    load(tx, ins.argval)


@handler("LOAD_FAST_LOAD_FAST")
def load_fast_load_fast(tx, ins) -> None:
    first, second = ins.argval
    load(tx, first)
    load(tx, second)


@handler("STORE_FAST_LOAD_FAST")
def store_fast_load_fast(tx, ins) -> None:
    stored, loaded = ins.argval
    store_fast(tx, _Local(stored))
    load(tx, loaded)


@handler("STORE_FAST_STORE_FAST")
def store_fast_store_fast(tx, ins) -> None:
    first, second = ins.argval
    store_fast(tx, _Local(first))
    store_fast(tx, _Local(second))


# -- truth, functions, strings -------------------------------------------------------------------
@handler("TO_BOOL")
def to_bool(tx, ins) -> None:
    """The jump or UNARY_NOT after it takes the value's truth (see the module docstring)."""


@replace("MAKE_FUNCTION")
def make_function(tx, ins) -> None:
    tx.push(new_function(tx, tx.pop().as_python_constant()))


@handler("SET_FUNCTION_ATTRIBUTE")
def set_function_attribute(tx, ins) -> None:
    fn = tx.pop()
    value = tx.pop()
    if ins.arg == 0x01:
        fn.defaults = value.unpack(tx)
    elif ins.arg == 0x02:
        fn.kwdefaults = dict(value.items) if isinstance(value, DictVariable) else {}
    elif ins.arg == 0x08:
        fn.closure = closure_cells(tx, value)
    elif ins.arg == 0x04:
        fn.set_annotations(tx, value)
    tx.push(fn)


@handler("CONVERT_VALUE")
def convert_value(tx, ins) -> None:
    tx.push(format_constant(tx.pop(), ins.argval, None, tx))


@handler("FORMAT_SIMPLE")
def format_simple(tx, ins) -> None:
    tx.push(format_constant(tx.pop(), None, None, tx))


@handler("FORMAT_WITH_SPEC")
def format_with_spec(tx, ins) -> None:
    spec = tx.pop()
    tx.push(format_constant(tx.pop(), None, spec, tx))


# -- loops ---------------------------------------------------------------------------------------
@replace("FOR_ITER")
def for_iter(tx, ins) -> None:
    item = next_loop_item(tx)
    if item is None:
        tx.ip = _after_loop_end(tx.instructions, ins)
    else:
        tx.push(item)


@replace("END_FOR")
def end_for(tx, ins) -> None:
    tx.pop()
