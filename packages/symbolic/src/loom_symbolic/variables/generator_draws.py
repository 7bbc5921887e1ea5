"""``torch.Generator`` objects: their calls and draws made by the rewritten code before the graph call.

A generator other than a default one (``torch.Generator()`` made in the frame, or one handed in) shares no state
with the graph: what it draws depends on its own state and the call's arguments only. So a draw from it whose
other arguments are all constants (a factory: ``torch.rand(3, generator=g)``, ``randn``, ``randint``,
``randperm``) is made by the rewritten code just before the graph call, among the calls :mod:`.random_draws`
makes there, in program order with the generator's other calls (``manual_seed``, ``get_state``, ``set_state`` of
a state read there), and its tensor is a graph input. A generator made in the frame is made there too, and the
objects the trace hands back (the generator, its states) are those the rewritten code made. A generator handed
in is guarded by identity. The CPU default generator is the graph's own RNG: its methods are
:mod:`.torch_rng_calls`' calls (``get_state()`` is ``torch.get_rng_state()``). A draw with tensor arguments
(``x.bernoulli(0.5, generator=g)``), a draw from a default generator, the other methods (``seed``) and
``initial_seed()`` of a generator handed in (its seed may change between calls) break. torch.compile breaks on
all of these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Const

from ..errors import Unsupported, UserError
from . import registry
from . import torch_rng_calls as _rng
from .base import Variable
from .builtins import HANDLERS
from .constant import ConstantVariable
from .methods import MethodVariable
from .new_objects import CONSTRUCTORS
from .random_draws import EarlierValue, RandomValue
from .tensor import TensorVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

_HINT = "it runs as ordinary Python between graphs"
#: The methods modelled (``device`` is an attribute).
_METHODS = frozenset({"manual_seed", "get_state", "set_state", "initial_seed"})
#: The placeholder meta key of a generator state read before the graph: its index among the calls made there, and
#: the seed it holds (None if unknown).
STATE_KEY = "loom_generator_state"


def _default_generators() -> tuple[torch.Generator, ...]:
    cuda = tuple(torch.cuda.default_generators) if torch.cuda.is_available() else ()
    return (torch.default_generator, *cuda)


def _made_before(output: Any, fn: Any, args: tuple) -> int:
    """Record ``fn(*args)`` among the calls made before the graph; its index there."""
    output.random_draws.calls.append((fn, args, {}))
    return len(output.random_draws.calls) - 1


def _draw(generator: torch.Generator, fn: Any, args: tuple, kwargs: dict) -> torch.Tensor:
    """``fn(*args, **kwargs, generator=generator)``: a draw the rewritten code makes before the graph."""
    return fn(*args, **kwargs, generator=generator)


class GeneratorVariable(Variable):
    """A ``torch.Generator``: made in the frame (``made``: its index among the calls made before the graph), or
    handed in or the CPU default one (``real``, reached as ``source``)."""

    mutable = True

    def __init__(self, device: torch.device, made: int | None = None, real: Any = None, source: Any = None) -> None:
        self.device, self.made, self.real, self.source = device, made, real, source
        #: The seed ``initial_seed()`` answers, for a generator made in the frame (None: unknown).
        self.seed: int | None = None

    @property
    def wraps_real_object(self) -> bool:  # a generator handed in is that object (``is``, ``id``, dict keys)
        return self.real is not None

    @property
    def value(self) -> Any:
        """The generator handed in (None for one made in the frame)."""
        return self.real

    def python_type(self) -> type:
        return torch.Generator

    def call_argument(self) -> Any:
        """What the calls made before the graph receive for it."""
        return EarlierValue(self.made) if self.made is not None else self.real

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "device":
            return ConstantVariable(self.device)
        if name in _METHODS or callable(getattr(torch.Generator, name, None)):
            return MethodVariable(self, name)  # (one not modelled breaks at the call, which can resume)
        raise Unsupported(f"torch.Generator.{name}", "not modelled", hint=_HINT)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        output = tx.output
        what = f"torch.Generator.{name}()"
        if name not in _METHODS or kwargs:
            raise Unsupported(what, "not modelled", hint=_HINT)
        if self.real is torch.default_generator:
            return self._default_method(tx, name, args)
        if name == "manual_seed" and len(args) == 1 and args[0].is_python_constant() \
                and type(args[0].as_python_constant()) in (int, bool):
            seed = int(args[0].as_python_constant())
            try:
                torch.Generator().manual_seed(seed)  # a seed eager refuses is refused there, natively
            except RuntimeError as exc:
                raise Unsupported(what, "eager refuses the seed", hint=_HINT) from exc
            _made_before(output, torch.Generator.manual_seed, (self.call_argument(), seed))
            self.seed = torch.Generator().manual_seed(seed).initial_seed() if self.made is not None else None
            return self
        if name == "initial_seed" and not args and self.seed is not None:
            return ConstantVariable(self.seed)
        if name == "get_state" and not args:
            index = _made_before(output, torch.Generator.get_state, (self.call_argument(),))
            example = torch.Generator(device=self.device).get_state()  # every state has its size and dtype
            node = output.add_made_input(example, RandomValue(index, "Generator.get_state"))
            node.meta[STATE_KEY] = (index, self.seed)  # a state holds the seed too
            return TensorVariable(node, output.fake_mode.fake_input(example))
        if name == "set_state" and len(args) == 1 and isinstance(args[0], TensorVariable) \
                and args[0].node.meta.get(STATE_KEY) is not None:
            index, seed = args[0].node.meta[STATE_KEY]
            _made_before(output, torch.Generator.set_state, (self.call_argument(), EarlierValue(index)))
            self.seed = seed if self.made is not None else None  # the state's own seed (unknown: a break)
            return self
        raise Unsupported(what, "only manual_seed(int), get_state(), set_state() of a state read in the frame and, "
                                "on a generator made in it, initial_seed() are modelled", hint=_HINT)

    def _default_method(self, tx: InstructionTranslator, name: str, args: list[Variable]) -> Variable:
        """A method of the CPU default generator: the graph's own RNG, as :mod:`.torch_rng_calls` models it."""
        if name == "manual_seed" and len(args) == 1:
            _rng.set_seed(tx, args[0], _rng.seed_cpu, "torch.default_generator.manual_seed()")
            return self
        if name == "set_state" and len(args) == 1:
            _rng.builtin_set_rng_state(tx, args, {})
            return self
        if not args:
            fn = torch.get_rng_state if name == "get_state" else torch.random.initial_seed
            return HANDLERS[fn](tx, [], {})
        raise Unsupported(f"torch.default_generator.{name}()", "not modelled with these arguments", hint=_HINT)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.made is not None:
            codegen.load_source(RandomValue(self.made, "torch.Generator"))  # what the rewritten code made
        else:
            codegen.load_source(self.source)

    def describe(self) -> str:
        return "a torch.Generator"


def make_generator(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``torch.Generator(device)``: made by the rewritten code before the graph call."""
    if not all(v.is_python_constant() for v in [*args, *kwargs.values()]):
        raise Unsupported("creating a torch.Generator", "its device is not a constant", hint=_HINT)
    real_args = tuple(a.as_python_constant() for a in args)
    real_kwargs = {k: v.as_python_constant() for k, v in kwargs.items()}
    try:
        probe = torch.Generator(*real_args, **real_kwargs)
    except (TypeError, RuntimeError) as exc:
        raise UserError("torch.Generator()", str(exc), exc_type=type(exc)) from exc
    output = tx.output
    output.random_draws.calls.append((torch.Generator, real_args, real_kwargs))
    made = GeneratorVariable(probe.device, made=len(output.random_draws.calls) - 1)
    made.seed = probe.initial_seed()
    return made


def wrap_generator(tx: Any, value: torch.Generator, source: Any) -> Variable:
    """A generator handed in (not a default one): identity-guarded; its calls are made before the graph. The CPU
    default generator, a fixed object of torch's (read with no source), is reached as a constant."""
    if value is torch.default_generator and source is None:
        return GeneratorVariable(value.device, real=value, source=Const(value, "torch.default_generator"))
    if source is None or tx is None:
        raise Unsupported("a torch.Generator from elsewhere", "not modelled", hint=_HINT)
    tx.output.guards.add("identity", source, value)
    return GeneratorVariable(value.device, real=value, source=source)


def is_handed_in_generator(value: Any) -> bool:
    """Whether ``value`` is a generator this module models when it is read from the frame: one that is not a
    default generator, or the CPU one (whose calls :mod:`.torch_rng_calls` models)."""
    return type(value) is torch.Generator and (value is torch.default_generator
                                                or not any(value is d for d in _default_generators()))


def draw_before_the_graph(output: Any, run: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """The draw ``run(*args, **kwargs)`` with a ``generator=`` argument: None for ``generator=None`` (an ordinary
    op), else a graph input made before the graph (see the module docstring), or a break."""
    generator = kwargs["generator"]
    if generator.is_python_constant() and generator.as_python_constant() is None:
        return None
    name = getattr(run, "__name__", None) or repr(run)
    what = f"{name}() drawing from a torch.Generator object"
    if not isinstance(generator, GeneratorVariable) or generator.real is torch.default_generator:
        raise Unsupported(what, "graph code cannot hold a generator object (torch.compile breaks there too)",
                          hint=_HINT)
    others = [*args, *(v for k, v in kwargs.items() if k != "generator")]
    if not all(v.is_python_constant() for v in others) or {"out", "requires_grad"} & set(kwargs):
        raise Unsupported(what, "its other arguments are not all constants: graph code cannot hold a generator, "
                                "and the draw cannot be made before the graph", hint=_HINT)
    real_args = tuple(a.as_python_constant() for a in args)
    real_kwargs = {k: v.as_python_constant() for k, v in kwargs.items() if k != "generator"}
    try:
        with output.fake_mode:
            fake = run(*real_args, **real_kwargs)
    except Exception as exc:  # eager raises it at the draw: run natively
        raise Unsupported(what, f"it raises {type(exc).__name__}", hint=_HINT) from exc
    if not isinstance(fake, torch.Tensor):
        raise Unsupported(what, "it returns no tensor", hint=_HINT)
    index = len(output.random_draws.calls)
    output.random_draws.calls.append((_draw, (generator.call_argument(), run, real_args, real_kwargs), {}))
    example = torch.empty_strided(fake.shape, fake.stride(), dtype=fake.dtype, device=fake.device)
    node = output.add_made_input(example, RandomValue(index, f"{name}(generator=)"))
    return TensorVariable(node, output.fake_mode.fake_input(example))


CONSTRUCTORS[torch.Generator] = make_generator
# after every rule of wrap_rules (which no generator matches), before the fallback
registry.add_rule(1012, is_handed_in_generator, wrap_generator)
