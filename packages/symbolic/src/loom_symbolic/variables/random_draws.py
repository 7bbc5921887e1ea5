"""``random.random()``, ``random.randint(a, b)``, ...: values drawn from Python's RNG, replayed.

The module-level functions of :mod:`random` are methods of one hidden ``random.Random`` instance.
A call to one of them in the trace is not run: it is recorded, with its (constant) arguments, and
the rewritten code makes the same calls, in the same order, just before it calls the graph (the
values the program sees, and the RNG state it leaves, are eager's). Each value drawn is a graph
input that is never fixed to one value: a SymFloat or SymInt over a symbol of its own, so that a
Python float meets a tensor in the graph exactly as in eager (``x * r`` is Tensor-times-scalar, with
scalar type promotion) and the next call, drawing other values, reuses the graph without a guard.

Where the program needs the value itself while tracing (a branch on it, ``range(n)``, a list index)
it cannot be known: the graph breaks there (:func:`loom_symbolic.shapes.drawn_symbols_in`).
``random.seed(a)`` is made before the graph too, in its place among the draws (those after it draw
from the reseeded RNG, as in eager), and so are ``random.getstate()`` (its value the state the rewritten
code got there, a :class:`RandomStateVariable`) and ``random.setstate(state)`` of such a state. A state
from elsewhere and the functions returning containers (``shuffle``, ``sample``, ``choices``) are not
modelled: they run as ordinary Python at a break (``random.Random(seed)``: ``seeded_random.py``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from .base import RealValueVariable, Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

#: The methods of ``random.Random`` returning one number, drawn as a graph input.
DRAWING_METHODS = frozenset({
    "random", "uniform", "randint", "randrange", "choice", "getrandbits", "triangular", "gauss",
    "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate", "betavariate",
    "paretovariate", "weibullvariate", "binomialvariate",
})
#: The methods of ``random.Random`` that set its state from constant arguments and return None.
RESEEDING = frozenset({"seed"})
#: The methods that read and set its whole state (:func:`_state_call`).
STATE_METHODS = frozenset({"getstate", "setstate"})


def is_module_draw(value: Any) -> bool:
    """Whether ``value`` is a number-drawing (or reseeding) function of module :mod:`random` (a method of
    its hidden instance, ``random.random`` or ``random.seed`` as the module exports them)."""
    name = getattr(value, "__name__", None)
    return getattr(value, "__self__", None) is random._inst and (
        name in DRAWING_METHODS or name in RESEEDING or name in STATE_METHODS)


@dataclass(frozen=True)
class RandomValue:
    """The source of a graph input drawn from Python's RNG: the ``index``-th value the rewritten code
    draws before the graph call (``call`` says which call, for names and messages)."""

    index: int
    call: str

    def __str__(self) -> str:
        return f"{self.call}#{self.index}"


class RandomDraws:
    """The calls to Python's RNG a graph's frame makes before the graph, in program order: calling
    the object makes them and returns their values (the rewritten code keeps them in a local). Other
    process-wide state the program advances is moved here too (:mod:`.hook_handles`' ids,
    :mod:`.lazy_modules`' RNG)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, tuple, dict]] = []

    def __call__(self) -> list[Any]:
        made: list[Any] = []
        for fn, args, kwargs in self.calls:  # an EarlierValue argument is what an earlier call here made
            made.append(fn(*(made[a.index] if type(a) is EarlierValue else a for a in args), **kwargs))
        return made

    def __len__(self) -> int:
        return len(self.calls)

    def __repr__(self) -> str:
        return f"<random draws: {', '.join(_call_text(fn, a, k) for fn, a, k in self.calls)}>"


class RandomDrawVariable(RealValueVariable):
    """``random.random`` and the other drawing functions of the module: a call is a graph input whose
    value the rewritten code draws before the graph (see the module docstring)."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        fn = self.value
        what = f"random.{fn.__name__}()"
        if fn.__name__ in STATE_METHODS:
            return _state_call(tx, fn, args, kwargs, what)
        for arg in (*args, *kwargs.values()):
            if not arg.is_python_constant():
                raise Unsupported(f"call to {what} with {arg.describe()}",
                                  "its arguments must be known while tracing: the call is made again before the graph")
        real_args = tuple(a.as_python_constant() for a in args)
        real_kwargs = {k: v.as_python_constant() for k, v in kwargs.items()}
        if fn.__name__ == "choice" and not _numbers_of_one_type(real_args[:1]):
            raise Unsupported(f"call to {what} over {type(real_args[0]).__name__ if real_args else 'nothing'}",
                              "only a choice among numbers of one type is drawn before the graph")
        return tx.output.add_random_draw(fn, real_args, real_kwargs, what)

    def describe(self) -> str:
        return f"random.{self.value.__name__}"


@dataclass(frozen=True)
class EarlierValue:
    """An argument of a call made before the graph: what the ``index``-th call made there returned."""

    index: int


class RandomStateVariable(Variable):
    """What ``random.getstate()`` returned: the state the rewritten code got before the graph (``source``:
    its place among the values made there), known to the trace as ``value``."""

    def __init__(self, value: tuple, source: RandomValue) -> None:
        self.value = value
        self.source = source

    def python_type(self) -> type:
        return tuple

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_source(self.source)

    def describe(self) -> str:
        return "the state random.getstate() returned"


def _state_call(tx: InstructionTranslator, fn: Any, args: list[Variable], kwargs: dict[str, Variable],
                what: str) -> Variable:
    """``random.getstate()``, or ``random.setstate(state)`` of a state a ``getstate`` earlier in the trace
    returned: made before the graph in its place among the draws, the trace's copy of the RNG following."""
    output = tx.output
    draws = output.random_draws
    if fn.__name__ == "getstate" and not args and not kwargs:
        made = RandomStateVariable(output.rng_copy().getstate(), RandomValue(len(draws), what))
        draws.calls.append((fn, (), {}))
        return made
    if fn.__name__ == "setstate" and not kwargs and len(args) == 1 and isinstance(args[0], RandomStateVariable):
        output.rng_copy().setstate(args[0].value)
        draws.calls.append((fn, (EarlierValue(args[0].source.index),), {}))
        return ConstantVariable(None)
    raise Unsupported(f"call to {what} with these arguments",
                      "only a state random.getstate() returned in the trace is set before the graph")


def _numbers_of_one_type(args: tuple) -> bool:
    """Whether ``args`` is one list/tuple of ints (or of floats), not bools: what ``choice`` picks from
    is then a number of a known type."""
    if len(args) != 1 or type(args[0]) not in (list, tuple, range) or not args[0]:
        return False
    kinds = {type(item) for item in args[0]}
    return kinds in ({int}, {float})


def _call_text(fn: Any, args: tuple, kwargs: dict) -> str:
    shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    prefix = "random." if is_module_draw(fn) else ""  # (hook_handles and lazy_modules make calls here too)
    return f"{prefix}{getattr(fn, '__name__', repr(fn))}({', '.join(shown)})"
