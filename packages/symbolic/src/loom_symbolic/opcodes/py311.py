"""CPython 3.11's opcode handlers: what its bytecode means, over the shared handlers of this package.

The bytecode facts of CPython 3.11 (decoding, stack effects, how to emit) are in :mod:`loom_symbolic.versions.py311`;
only :mod:`.dispatch` imports this module, and only on CPython 3.11.
"""

from __future__ import annotations

from ..variables.base import NULL, NullVariable
from .calls import call_with, unpack_call_ex
from .registry import handler


@handler("PRECALL")
def precall(tx, ins) -> None:
    """Only primes CPython's call specialisation."""


@handler("KW_NAMES")
def kw_names(tx, ins) -> None:
    tx.kw_names = tx.code.co_consts[ins.arg]


@handler("CALL")
def call(tx, ins) -> None:
    # [NULL, callable, args...] or [method, self, args...] (3.11 and 3.12 alike)
    args = tx.popn(ins.arg)
    second = tx.pop()
    first = tx.pop()
    if isinstance(first, NullVariable):
        fn = second
    else:
        fn, args = first, [second, *args]
    kwargs = {}
    if tx.kw_names:
        names = tx.kw_names
        kwargs = dict(zip(names, args[len(args) - len(names):]))
        args = args[: len(args) - len(names)]
        tx.kw_names = None
    tx.push(call_with(tx, fn, args, kwargs))


@handler("CALL_FUNCTION_EX")
def call_function_ex(tx, ins) -> None:
    kwargs_var = tx.pop() if ins.arg & 0x01 else None
    args_var = tx.pop()
    fn = tx.pop()
    null = tx.pop()
    assert isinstance(null, NullVariable), "CPython pushes NULL before CALL_FUNCTION_EX's callable"
    args, kwargs = unpack_call_ex(tx, args_var, kwargs_var, fn)
    tx.push(call_with(tx, fn, args, kwargs))


@handler("LOAD_GLOBAL")
def load_global(tx, ins) -> None:
    if ins.arg & 1:
        tx.push(NULL)
    tx.push(tx.load_global(ins.argval))
