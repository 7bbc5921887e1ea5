"""Making functions; the call protocol itself is version-specific (see ``versions``)."""

from __future__ import annotations

from ..errors import Unsupported, UserError
from ..variables.base import Variable
from ..variables.cells import CellVariable
from ..variables.containers import DictVariable, TupleVariable
from ..variables.dict_methods import double_star_items
from ..variables.functions import UserFunctionVariable
from ..variables.iterators import iterated_items
from ..variables.methods import BoundMethodVariable
from ..variables.nested_functions import NestedFunctionVariable
from .registry import handler

MAKE_FUNCTION_DEFAULTS = 0x01
MAKE_FUNCTION_KWDEFAULTS = 0x02
MAKE_FUNCTION_ANNOTATIONS = 0x04
MAKE_FUNCTION_CLOSURE = 0x08


@handler("MAKE_FUNCTION")
def make_function(tx, ins) -> None:
    code = tx.pop().as_python_constant()
    flags = ins.arg
    closure = tx.pop() if flags & MAKE_FUNCTION_CLOSURE else None
    annotations = tx.pop() if flags & MAKE_FUNCTION_ANNOTATIONS else None
    kwdefaults = tx.pop() if flags & MAKE_FUNCTION_KWDEFAULTS else None
    defaults = tx.pop() if flags & MAKE_FUNCTION_DEFAULTS else None
    fn = new_function(tx, code)
    if defaults is not None:
        fn.defaults = defaults.unpack(tx)
    if isinstance(kwdefaults, DictVariable):
        fn.kwdefaults = dict(kwdefaults.items)
    if closure is not None:
        fn.closure = closure_cells(tx, closure)
    if annotations is not None:
        fn.set_annotations(tx, annotations)
    tx.push(fn)


def new_function(tx, code) -> NestedFunctionVariable:
    """A function of ``code`` made in the trace, without defaults or closure yet (3.13's
    SET_FUNCTION_ATTRIBUTE adds them one by one)."""
    return NestedFunctionVariable(code, tx.f_globals, code.co_qualname, [], {}, [], getattr(tx, "_globals_base", None))


def closure_cells(tx, closure: Variable) -> list:
    """The cell boxes of a closure tuple (only cells are modelled)."""
    cells = []
    for item in closure.unpack(tx):
        if not isinstance(item, CellVariable):
            raise Unsupported("a closure over something other than cells", "not modelled")
        cells.append(item.box)
    return cells


def call_with(tx, fn: Variable, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """Call ``fn`` symbolically (shared by every version's call opcodes)."""
    return fn.call(tx, args, kwargs)


def unpack_call_ex(tx, args_var: Variable, kwargs_var: Variable | None,
                   fn: Variable | None = None) -> tuple[list[Variable], dict[str, Variable]]:
    """The positional and keyword arguments of ``fn(*args, **kwargs)``."""
    # an exact tuple is passed as it is; anything else (a tuple subclass too) is iterated, its __iter__ asked
    exact = isinstance(args_var, TupleVariable) and args_var.python_type() is tuple
    args = list(args_var.items) if exact else iterated_items(tx, args_var)
    kwargs: dict[str, Variable] = {}
    if kwargs_var is not None:
        kwargs_var = double_star_items(tx, kwargs_var)
        if not isinstance(kwargs_var, DictVariable):
            raise Unsupported(f"** of {kwargs_var.describe()}", "only dicts and mappings with keys() are unpacked while tracing")
        if not all(isinstance(k, str) for k in kwargs_var.items):
            if not _python_function(fn):  # a C callee checks the keys itself (torch's parser: RuntimeError)
                raise Unsupported("** with a key that is not a string", "the callee's own check raises")
            message = "keywords must be strings"  # CPython's, for a Python function (3.11 to 3.13)
            raise UserError("keyword arguments", message, exc_type=TypeError, exc_args=(message,))
        kwargs = dict(kwargs_var.items)
    return args, kwargs


def _python_function(fn: Variable | None) -> bool:
    """Whether ``fn`` is a Python function, or a method bound to one: its call unpacks ``**`` as CPython's
    function call does."""
    if isinstance(fn, BoundMethodVariable):
        fn = fn.function
    return isinstance(fn, (NestedFunctionVariable, UserFunctionVariable))
