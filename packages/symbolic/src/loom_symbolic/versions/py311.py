"""CPython 3.11: the PRECALL/CALL protocol, KW_NAMES, LOAD_GLOBAL's NULL bit, and how to emit them."""

from __future__ import annotations

from bytecode import Instr


def register(handler) -> None:
    """Register this version's handlers in the dispatch table."""
    from ..opcodes.calls import call_with, unpack_call_ex
    from ..variables.base import NULL, NullVariable

    @handler("PRECALL")
    def precall(tx, ins) -> None:
        """Only primes CPython's call specialisation."""

    @handler("KW_NAMES")
    def kw_names(tx, ins) -> None:
        tx.kw_names = tx.code.co_consts[ins.arg]

    @handler("CALL")
    def call(tx, ins) -> None:
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
        assert isinstance(null, NullVariable), "3.11 always pushes NULL before CALL_FUNCTION_EX's callable"
        args, kwargs = unpack_call_ex(tx, args_var, kwargs_var)
        tx.push(call_with(tx, fn, args, kwargs))

    @handler("LOAD_GLOBAL")
    def load_global(tx, ins) -> None:
        if ins.arg & 1:
            tx.push(NULL)
        tx.push(tx.load_global(ins.argval))


# -- emitting ------------------------------------------------------------------------------------------
def call(argc: int) -> list[Instr]:
    """Call the callable below ``argc`` arguments (with a NULL or self below it)."""
    return [Instr("PRECALL", argc), Instr("CALL", argc)]


def load_global_callable(name: str) -> list[Instr]:
    """Push NULL and the global ``name``, ready for :func:`call`."""
    return [Instr("LOAD_GLOBAL", (True, name))]


def push_null_then(instrs: list[Instr]) -> list[Instr]:
    """Push NULL, then whatever ``instrs`` push (a callable)."""
    return [Instr("PUSH_NULL"), *instrs]


def make_function(flags: int) -> list[Instr]:
    """MAKE_FUNCTION with the code object on top of the stack."""
    return [Instr("MAKE_FUNCTION", flags)]
