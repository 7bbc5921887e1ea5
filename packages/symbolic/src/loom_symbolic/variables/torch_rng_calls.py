"""``torch.manual_seed(n)``, ``torch.get_rng_state()``, ``torch.set_rng_state(state)``: made by the rewritten code
around the graph, where eager makes them relative to the graph's draws.

The graph draws from torch's CPU generator when it runs (``torch.rand``, dropout), so a call that reads or sets
that generator must come in eager's order with those draws. Before the graph's first draw it is made by the
rewritten code just before the graph call, among the calls :mod:`.random_draws` makes there: ``manual_seed(3)``
seeds the draws that follow, ``get_rng_state()`` hands its tensor to the graph as an input. After a draw, a call
that sets the state (``manual_seed``, or ``set_rng_state`` of a state read before the graph, as
``torch.random.fork_rng`` does on exit) is made after the graph, in program order with the other side effects;
then a later draw or a later read of the state breaks the graph there, so that the call is made at the break,
before it. A seed eager refuses, a state made otherwise, and the generator objects' own methods
(``torch.default_generator.get_state()``) are breaks. torch.compile breaks on all of these.
"""

from __future__ import annotations

from typing import Any

import torch

from loom_guards import Const

from ..errors import Unsupported
from .builtins import FOLDED_LIBRARY_FUNCTIONS, builtin
from .constant import ConstantVariable
from .random_draws import EarlierValue, RandomValue
from .registry import wrap
from .tensor import TensorVariable

#: The calls that set the CPU generator's state (made before the graph, or deferred after it).
SETTERS: tuple[Any, ...] = (torch.random.manual_seed, torch.set_rng_state)
#: The placeholder meta key marking the state ``get_rng_state()`` handed in (what ``set_rng_state`` accepts).
_STATE_KEY = "loom_rng_state"
_SEEDS = range(-0x8000_0000_0000_0000, 0x1_0000_0000_0000_0000)
_HINT = "it runs as ordinary Python between graphs"


def graph_drew(output: Any) -> bool:
    """Whether the graph recorded so far draws from torch's RNG (an op whose fake run was seeded)."""
    return any(node.meta.get("draws") for node in output.graph.nodes)


def deferred_setter(output: Any) -> bool:
    """Whether a call setting torch's RNG state waits for the end of the graph (made after it)."""
    return any(getattr(effect, "fn", None) in SETTERS for effect in output.side_effects.effects)


def changes_torch_rng(output: Any) -> bool:
    """Whether the trace set torch's RNG state, before the graph or after it: what a later draw made at trace
    time (a lazy module's initial values) would not see."""
    return deferred_setter(output) or any(fn in SETTERS for fn, _, _ in output.random_draws.calls)


def check_draw(output: Any, what: str) -> None:
    """Raise ``Unsupported`` for a draw the graph would make before a state change eager made first."""
    if deferred_setter(output):
        raise Unsupported(f"{what} drawing from torch's RNG",
                          "the program set the RNG's state after an earlier draw of the graph: that call is made "
                          "after the graph, so this draw runs after it", hint=_HINT)


def _before_the_graph(output: Any) -> bool:
    return not graph_drew(output) and not deferred_setter(output)


def seed_cpu(seed: int) -> torch.Generator:
    """``torch.default_generator.manual_seed(seed)``: the CPU generator alone (``torch.manual_seed`` seeds all)."""
    return torch.default_generator.manual_seed(seed)


def set_seed(tx: Any, seed: Any, seeding: Any, what: str) -> None:
    """``seeding(n)`` (``torch.manual_seed`` or :func:`seed_cpu`) for a constant int ``n``: before the graph, or
    after it (see the module docstring)."""
    if seed is None or not seed.is_python_constant() or type(seed.as_python_constant()) not in (int, bool):
        raise Unsupported(what, "only a constant int seed is modelled", hint=_HINT)
    value = int(seed.as_python_constant())
    if value not in _SEEDS:
        raise Unsupported(what, "the seed is out of range (eager raises)", hint=_HINT)
    output = tx.output
    if _before_the_graph(output):
        output.random_draws.calls.append((seeding, (value,), {}))
    else:
        output.side_effects.deferred_call(seeding, [ConstantVariable(value)], {}, None)


@builtin(torch.random.manual_seed)
def builtin_manual_seed(tx, args, kwargs):
    """``torch.manual_seed(n)``: see :func:`set_seed`; the default generator is handed back."""
    set_seed(tx, args[0] if args else kwargs.get("seed"), torch.random.manual_seed, "torch.manual_seed()")
    generator = torch.default_generator
    return wrap(tx, generator, Const(generator, "torch.default_generator"))


@builtin(torch.get_rng_state)
def builtin_get_rng_state(tx, args, kwargs):
    """``torch.get_rng_state()`` before the graph's first draw: the state the rewritten code reads there, a graph
    input (a later read breaks: the state then depends on the graph's draws)."""
    output = tx.output
    if not _before_the_graph(output):
        raise Unsupported("torch.get_rng_state()", "the graph draws from torch's RNG (or changes its state) before "
                          "this point: the state is known only when it runs", hint=_HINT)
    source = RandomValue(len(output.random_draws.calls), "torch.get_rng_state")
    output.random_draws.calls.append((torch.get_rng_state, (), {}))
    real = torch.get_rng_state()  # the example: every state has its size and dtype
    node = output.add_made_input(real, source)
    node.meta[_STATE_KEY] = source.index
    return TensorVariable(node, output.fake_mode.fake_input(real))


@builtin(torch.set_rng_state)
def builtin_set_rng_state(tx, args, kwargs):
    """``torch.set_rng_state(state)`` of a state ``get_rng_state()`` read before the graph: made after the graph
    (or before it, when nothing drew yet), in program order."""
    state = args[0] if args else kwargs.get("new_state")
    index = state.node.meta.get(_STATE_KEY) if isinstance(state, TensorVariable) else None
    if index is None:
        raise Unsupported("torch.set_rng_state()", "only a state torch.get_rng_state() read in this graph's frame "
                          "is modelled", hint=_HINT)
    output = tx.output
    if _before_the_graph(output):
        output.random_draws.calls.append((torch.set_rng_state, (EarlierValue(index),), {}))
    else:
        output.side_effects.deferred_call(torch.set_rng_state, [state], {}, None)
    return ConstantVariable(None)


FOLDED_LIBRARY_FUNCTIONS.update((torch.random.manual_seed, torch.get_rng_state, torch.set_rng_state))
SETTERS += (seed_cpu,)
