"""``random.Random(seed)`` made while tracing from a constant seed: a generator whose every draw the seed fixes.

Such a generator shares no state with anything outside the frame, and the program makes it afresh on every
call, so what it draws is the same on every call: the trace makes a private ``random.Random`` with the same
seed, runs each method the program calls on it (with constant arguments) and uses the answers as constants.
Where the generator leaves the trace (returned, or alive at a graph break), the rewritten code makes one in
the state the trace left it in. A generator seeded from the system (``random.Random()``, a seed of None) or
from a value known only at run time and a method with other arguments are graph breaks.

``shuffle``, ``sample`` and ``choices`` draw positions in their sequence from its length alone (and from
``counts``/``weights``, which must be constants): the private generator draws those positions over
``range(len(seq))``, making the very draws eager makes, and the trace moves (or picks) the items themselves,
whatever they are (tensors included). Their sequence must be a plain list or tuple of the trace, or a constant.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ..errors import Unsupported, UserError
from .base import Variable
from .constant import ConstantVariable
from .containers import ListVariable, SequenceVariable, plain_sequence
from .methods import MethodVariable
from .new_objects import CONSTRUCTORS
from .random_draws import DRAWING_METHODS
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

#: The methods run on the private generator: each returns a number (or None, or the state's tuple).
_MODELLED = DRAWING_METHODS | {"seed", "getstate", "setstate", "randbytes", "shuffle", "sample", "choices"}
#: The methods that draw positions in their first argument, a sequence, from its length alone.
_BY_POSITION = frozenset({"shuffle", "sample", "choices"})
#: The seeds that fix a generator's draws (None, the default, seeds from the system).
_SEED_TYPES = (int, float, str, bytes, bytearray)


class SeededRandomVariable(Variable):
    """A ``random.Random`` the program made in the trace from a constant seed (see the module docstring)."""

    mutable = True  # one object: rebuilt once where it leaves the trace, kept in a temporary

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def python_type(self) -> type:
        return random.Random

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _MODELLED:
            return MethodVariable(self, name)
        raise Unsupported(f"random.Random.{name} of a generator made in the trace", "not modelled",
                          hint="the generator is made at the break and the rest runs as ordinary Python")

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        if name in _BY_POSITION and args and isinstance(args[0], SequenceVariable):  # constant items too: moved in place
            return _by_position(tx, self.rng, name, args, kwargs)
        if name not in _MODELLED or not all(v.is_python_constant() for v in [*args, *kwargs.values()]):
            raise Unsupported(f"random.Random.{name} of a generator made in the trace",
                              "only its number-drawing and state methods, with constant arguments, are modelled")
        if name == "seed" and not _fixed_seed(args, kwargs):
            raise Unsupported("random.Random.seed of a generator made in the trace", "a seed from the system")
        try:
            result = getattr(self.rng, name)(*(a.as_python_constant() for a in args),
                                             **{k: v.as_python_constant() for k, v in kwargs.items()})
        except Exception as exc:  # randint(5, 1), a bad state: eager raises the same here
            raise UserError(f"random.Random.{name}() raised {type(exc).__name__}", str(exc), exc_type=type(exc),
                            exc_args=exc.args) from exc
        return wrap_constant_like(result)

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.call_const(_restored, 1, lambda: codegen.load_const(self.rng.getstate()))

    def describe(self) -> str:
        return "a random.Random made in the trace"


def _by_position(tx: InstructionTranslator, rng: random.Random, name: str, args: list[Variable],
                 kwargs: dict[str, Variable]) -> Variable:
    """``rng.shuffle(seq)``, ``rng.sample(seq, k)``, ``rng.choices(seq, ...)`` over a list or tuple of the trace
    (its items anything): the positions drawn over ``range(len(seq))``, the items moved or picked."""
    seq = args[0]
    kind = seq.python_type() if isinstance(seq, SequenceVariable) else None
    if kind not in ((list,) if name == "shuffle" else (list, tuple)) or not plain_sequence(seq):
        raise Unsupported(f"random.Random.{name} of {seq.describe()} (a generator made in the trace)",
                          "only a plain list or tuple (a list, for shuffle) is modelled")
    rest = [*args[1:], *kwargs.values()]
    if not all(v.is_python_constant() for v in rest):
        raise Unsupported(f"random.Random.{name} of a generator made in the trace", "its other arguments must be constants")
    items = list(seq.items)
    try:
        if name == "shuffle":
            positions = list(range(len(items)))
            rng.shuffle(positions, *(a.as_python_constant() for a in args[1:]))
        else:
            # positions in a sequence of the same kind: an IndexError on an empty one names it as eager's does
            positions = getattr(rng, name)(kind(range(len(items))), *(a.as_python_constant() for a in args[1:]),
                                           **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as exc:  # sample larger than the population, bad weights: eager raises the same here
        raise UserError(f"random.Random.{name}() raised {type(exc).__name__}", str(exc), exc_type=type(exc),
                        exc_args=exc.args) from exc
    if name != "shuffle":
        return ListVariable([items[i] for i in positions])
    seq.items[:] = [items[i] for i in positions]
    seq.mutated(tx)
    return ConstantVariable(None)


def _restored(state: tuple) -> random.Random:
    """A ``random.Random`` in ``state``: the generator the trace made, where it leaves the trace."""
    rng = random.Random()
    rng.setstate(state)
    return rng


def _fixed_seed(args: list[Variable], kwargs: dict[str, Variable]) -> bool:
    """Whether ``Random(*args, **kwargs)`` (or ``seed``) is given a seed that fixes the draws."""
    values = [*args, *kwargs.values()]
    return len(values) == 1 and not set(kwargs) - {"a", "x"} and type(values[0].as_python_constant()) in _SEED_TYPES


def make_seeded_random(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``random.Random(seed)``: what :func:`.new_objects.construct` calls for ``random.Random``."""
    if not all(v.is_python_constant() for v in [*args, *kwargs.values()]) or not _fixed_seed(args, kwargs):
        raise Unsupported("creating a random.Random object", "only a constant seed fixes what it draws")
    try:
        rng = random.Random(*(a.as_python_constant() for a in args), **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as exc:
        raise UserError(f"random.Random() raised {type(exc).__name__}", str(exc), exc_type=type(exc),
                        exc_args=exc.args) from exc
    return SeededRandomVariable(rng)


CONSTRUCTORS[random.Random] = make_seeded_random
