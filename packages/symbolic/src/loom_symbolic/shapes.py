"""Dynamic shapes: symbolic sizes and ints from PyTorch's ShapeEnv, and the guards they imply.

A dimension marked dynamic becomes a symbol (``s0``) in the FakeTensor that stands for its tensor; an
int argument marked dynamic becomes a SymInt graph input. Shape arithmetic, ``view``/``reshape`` and
comparisons then work on symbols: every decision the trace takes on a symbol (``s0 > 1``,
``s0 == s1``) is recorded by the ShapeEnv, and :meth:`ShapeContext.guards` turns those records into
``loom_guards.Relation`` guards over the sources the symbols came from. Sizes 0 and 1 are never made
symbolic (the ShapeEnv specialises them, as PyTorch does), so a symbol's guard also says ``s >= 2``.

A value drawn from Python's RNG (``random.random()``) is a symbol too, made on demand (a ShapeEnv is
created for it in a translation with static shapes): it stands for a value the rewritten code draws
before the graph, which no guard can check, so a decision taken on it must break the graph instead
(:func:`drawn_symbols_in`, :meth:`ShapeContext.check_no_drawn_guard`).

An int a ``while_loop`` carries is an unbacked symbol (``u0``), made on demand likewise
(:meth:`ShapeContext.loop_int`): its value exists only inside the loop at run time, so numbers computed
from it are graph values (:func:`unknown_symbols`), and a decision on it, or an op that needs it concrete
(an index, a size), breaks the graph (:func:`raise_if_unknown`, :func:`raise_for_loop_ints`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import torch
from torch._guards import GuardSource, Source

from loom_guards import ConstantMatch, Relation, TensorSize

from .errors import Unsupported


@dataclass(frozen=True)
class DynamicSpec:
    """Which inputs are dynamic for one translation.

    ``all_dims``: every tensor dimension (``loom.compile(dynamic=True)``); ``dims``: source text →
    dimensions (what loom learned from earlier calls, or ``loom.mark_dynamic``); ``ints``: source
    texts of int arguments to treat as symbols; ``moving_iterators``: source texts of iterator
    arguments seen at another position on an earlier call (not modelled: ``next()`` on one breaks
    once, rather than compiling once per position); ``floats``: source texts of float arguments to
    treat as symbols (a SymFloat graph input; a decision on one pins its value); ``varying``: names of list, tuple, dict, str or set
    arguments whose length differed between entries, which a resume function hands on unread
    (``variables/passed_on.py``). The last two need no ShapeEnv (they do not make the spec true).
    """

    all_dims: bool = False
    dims: dict[str, frozenset[int]] = field(default_factory=dict)
    ints: frozenset[str] = frozenset()
    floats: frozenset[str] = frozenset()
    moving_iterators: frozenset[str] = frozenset()
    varying: frozenset[str] = frozenset()

    def tensor_dims(self, source: Any, value: torch.Tensor) -> frozenset[int]:
        """The dimensions of ``value`` (reached as ``source``) to make symbolic."""
        static = set(getattr(value, "_loom_static_dims", ()))
        if self.all_dims:
            chosen = set(range(value.dim()))
        else:
            chosen = set(self.dims.get(str(source), ()))
        return frozenset(d for d in chosen - static if 0 <= d < value.dim())

    def is_dynamic_int(self, source: Any) -> bool:
        return str(source) in self.ints

    def is_dynamic_number(self, source: Any, value: int | float) -> bool:
        """Whether int or float argument ``value`` reached as ``source`` is to be a symbol (it changed between
        compiles). A float that is not finite, or a zero (its sign, a division by it), stays a guarded constant:
        the ShapeEnv's hint could not stand for it."""
        if type(value) is int:
            return str(source) in self.ints
        return bool(self.floats) and str(source) in self.floats and math.isfinite(value) and value != 0.0

    def is_moving_iterator(self, source: Any) -> bool:
        """Whether the iterator reached as ``source`` stood at another position on an earlier call."""
        return bool(self.moving_iterators) and str(source) in self.moving_iterators

    def __bool__(self) -> bool:
        return self.all_dims or bool(self.dims) or bool(self.ints) or bool(self.floats)

    @classmethod
    def for_arguments(cls, spec: DynamicSpec | None, f_locals: Any) -> DynamicSpec:
        """``spec``, extended with the dimensions marked on tensor arguments (``loom.mark_dynamic``)."""
        spec = spec if spec is not None else NO_DYNAMIC
        marked = {
            f"L[{name!r}]": frozenset(value._loom_dynamic_dims)
            for name, value in f_locals.items()
            if isinstance(value, torch.Tensor) and getattr(value, "_loom_dynamic_dims", None)
        }
        if not marked:
            return spec
        dims = dict(spec.dims)
        for key, extra in marked.items():
            dims[key] = dims.get(key, frozenset()) | extra
        return dataclasses.replace(spec, dims=dims)


NO_DYNAMIC = DynamicSpec()


@dataclasses.dataclass(frozen=True)
class _LoomSource(Source):
    """A torch ``Source`` naming one of loom's sources, so the ShapeEnv can label its symbols."""

    ref: str

    @property
    def name(self) -> str:  # the ShapeEnv reads `.name` as a string
        return self.ref

    def guard_source(self) -> GuardSource:
        return GuardSource.LOCAL


def _symbolic_shapes() -> Any:
    """torch's ``symbolic_shapes`` module, imported when a translation first needs it: it imports sympy
    (~0.25 s), which ``import loom`` and a process whose frames the frame cache serves never need."""
    import torch.fx.experimental.symbolic_shapes as symbolic_shapes

    return symbolic_shapes


class ShapeContext:
    """The ShapeEnv of one translation and the loom source behind each of its symbols."""

    def __init__(self, spec: DynamicSpec) -> None:
        self.spec = spec
        self.shape_env = _symbolic_shapes().ShapeEnv() if spec else None
        #: symbol name → the loom source whose int value it stands for.
        self.symbol_sources: dict[str, Any] = {}
        #: the symbols of values drawn from Python's RNG (also kept on the ShapeEnv, where a symbolic
        #: value leads, as ``_loom_drawn``)
        self.drawn: set[Any] = set()
        #: symbol name → the exact value of a float argument it stands for (:meth:`symbolic_float`)
        self.float_values: dict[str, float] = {}

    def fake_tensor(self, fake_mode: Any, value: torch.Tensor, source: Any, dims: frozenset[int]) -> Any:
        """A FakeTensor for ``value`` whose ``dims`` are symbols (0- and 1-sized ones stay static)."""

        shapes = _symbolic_shapes()
        context = shapes.StatelessSymbolicContext(
            dynamic_sizes=[shapes.DimDynamic.DYNAMIC if d in dims else shapes.DimDynamic.STATIC for d in range(value.dim())],
            constraint_sizes=[None] * value.dim(),
        )
        fake = fake_mode.from_tensor(value, source=_LoomSource(str(source)), symbolic_context=context)
        for d, size in enumerate(fake.shape):
            symbol = _free_symbol(size)
            if symbol is not None and symbol not in self.symbol_sources:
                self.symbol_sources[symbol] = TensorSize(source, d)
        return fake

    def symbolic_int(self, value: int, source: Any) -> Any:
        """A SymInt standing for int argument ``value`` reached as ``source`` (the ShapeEnv is made here if the
        translation has none)."""
        if self.shape_env is None:
            self.shape_env = _symbolic_shapes().ShapeEnv()
        symint = self.shape_env.create_unspecified_symint_and_symbol(value, _LoomSource(str(source)), _symbolic_shapes().DimDynamic.DYNAMIC)
        symbol = _free_symbol(symint)
        if symbol is not None:
            self.symbol_sources.setdefault(symbol, source)
        return symint

    def symbolic_float(self, value: float, source: Any) -> Any:
        """A SymFloat standing for float argument ``value`` reached as ``source``, as torch.compile makes
        a float that changed between compiles. No Relation can say a decision on it (they are over ints),
        so any decision pins its exact value (:meth:`guards`)."""
        label = _LoomSource(str(source))
        symbol = self.shape_env.create_unspecified_symbol(value, source=label, dynamic_dim=_symbolic_shapes().DimDynamic.DYNAMIC)
        self.symbol_sources.setdefault(str(symbol), source)
        self.float_values[str(symbol)] = value
        floats = getattr(self.shape_env, "_loom_float_args", None)
        if floats is None:
            floats = self.shape_env._loom_float_args = set()
        floats.add(symbol)
        return self.shape_env.create_symfloatnode(symbol, hint=value, source=label)

    def drawn_value(self, value: int | float, source: Any) -> Any:
        """A SymInt/SymFloat over a new symbol standing for ``value``, drawn from Python's RNG (reached
        as ``source``, a :class:`~loom_symbolic.variables.random_draws.RandomValue`); the ShapeEnv is
        made here if the translation has none."""
        if self.shape_env is None:
            self.shape_env = _symbolic_shapes().ShapeEnv()
        env = self.shape_env
        label = _LoomSource(str(source))
        symbol = env.create_unspecified_symbol(value, source=label, dynamic_dim=_symbolic_shapes().DimDynamic.DYNAMIC)
        self.drawn.add(symbol)
        env._loom_drawn = self.drawn
        if type(value) is float:
            return env.create_symfloatnode(symbol, hint=value, source=label)
        return env.create_symintnode(symbol, hint=value, source=label)

    def loop_int(self) -> Any:
        """A SymInt over a fresh unbacked symbol standing for an int a ``while_loop`` carries (its value in
        some iteration, or after the loop), as torch.compile models it; the ShapeEnv is made here if the
        translation has none. Its symbol is allowed in scalar results (:func:`unknown_symbols`)."""
        if self.shape_env is None:
            self.shape_env = _symbolic_shapes().ShapeEnv()
        env = self.shape_env
        with env.ignore_fresh_unbacked_symbols():  # no op consumes it: it is a placeholder's value
            symint = env.create_unbacked_symint()
        loop_symbols = getattr(env, "_loom_loop_symbols", None)
        if loop_symbols is None:
            loop_symbols = env._loom_loop_symbols = set()
        loop_symbols.add(symint.node.expr)
        return symint

    def forget_drawn(self, value: Any) -> None:
        """Drop the hint of drawn ``value``'s symbol, which no graph input carries (AOTAutograd fixes every
        float symbol with a hint it finds no use of, and restarts); a tensor made there has none."""
        if not isinstance(value, (torch.SymInt, torch.SymFloat)):
            return
        env = self.shape_env
        hints = getattr(env, "backed_var_to_val", None) or env.var_to_val
        hints.pop(value.node.expr, None)

    def guard_count(self) -> int:
        """How many guards the ShapeEnv holds (a mark for :meth:`check_no_drawn_guard`)."""
        return len(self.shape_env.guards) if self.shape_env is not None else 0

    def check_no_drawn_guard(self, since: int, what: str) -> None:
        """Raise ``Unsupported`` if a guard recorded after mark ``since`` (by ``what``) fixes a value
        drawn from Python's RNG: no guard can check it, the graph must break there."""
        for guard in self.shape_env.guards[since:]:
            if not self.drawn.isdisjoint(guard.expr.free_symbols):
                del self.shape_env.guards[since:]
                raise Unsupported(f"{what} with a value drawn from random", _DRAWN_WHY)

    def guards(self) -> list[Any]:
        """Relations over sources for every decision the trace took on symbols."""
        from torch.utils._sympy.printers import PythonPrinter


        printer = PythonPrinter()
        relations: list[Any] = []
        env = self.shape_env
        if env is None:
            return relations
        for symbol, bounds in env.var_to_range.items():
            name = str(symbol)
            if name not in self.symbol_sources or name in self.float_values:
                continue  # a float's decisions pin it (below)
            if not getattr(bounds.lower, "is_Integer", False):
                continue  # unbounded below (an int argument)
            low = int(bounds.lower)
            relations.append(Relation(f"{name} >= {low}", {name: self.symbol_sources[name]}))
        for guard in env.guards:
            if self.drawn and not self.drawn.isdisjoint(guard.expr.free_symbols):
                # a decision on a drawn value that no check above caught: no guard could say it
                        raise Unsupported("a decision on a value drawn from random", _DRAWN_WHY)
            names = {str(s) for s in guard.expr.free_symbols}
            if not names or not names <= set(self.symbol_sources):
                continue
            if self.float_values and not names.isdisjoint(self.float_values):
                relations.extend(self._pinned(names))
                continue
            relations.extend(self._relations(printer.doprint(guard.expr), names))
        for symbol, replacement in env.replacements.items():
            name = str(symbol)
            if name not in self.symbol_sources:
                continue
            names = {str(s) for s in getattr(replacement, "free_symbols", ())} | {name}
            if names <= set(self.symbol_sources):
                if self.float_values and not names.isdisjoint(self.float_values):
                    relations.extend(self._pinned(names))
                    continue
                relations.extend(self._relations(f"{name} == {printer.doprint(replacement)}", names))
        return relations

    def _pinned(self, names: set[str]) -> list[Any]:
        """Each symbol of ``names`` equal to its value: what a decision on a float argument is guarded by
        (it implies the decision; a float equal to the one traced, sign of zero included, takes the same
        branches)."""
        pins: list[Any] = []
        hints: dict[str, Any] | None = None
        for name in sorted(names):
            if name in self.float_values:
                pins.append(ConstantMatch(self.symbol_sources[name], self.float_values[name]))
            else:
                hints = hints if hints is not None else self._hints()  # one walk of the ShapeEnv's values
                pins.extend(self._relations(f"{name} == {int(hints[name])}", {name}))
        return pins

    def _hints(self) -> dict[str, Any]:
        hints = getattr(self.shape_env, "backed_var_to_val", None) or self.shape_env.var_to_val
        return {str(symbol): value for symbol, value in hints.items()}

    def _relations(self, text: str, names: set[str]) -> list[Any]:
        """The relation ``text`` over ``names``; where a relation cannot say it (a float comparison such as
        ``torch.sym_float(s0) >= 0.0``), each symbol equal to its value, which implies it."""

        try:
            return [Relation(text, {n: self.symbol_sources[n] for n in sorted(names)})]
        except ValueError:
            values = self._hints()
            return [Relation(f"{n} == {int(values[n])}", {n: self.symbol_sources[n]}) for n in sorted(names)]

    def describe(self) -> list[str]:
        """``s0 = L['x'].size()[0]`` lines, for dumps and explain."""
        return [f"{name} = {source}" for name, source in sorted(self.symbol_sources.items())]


_DRAWN_WHY = ("its value is drawn before the graph on every call, so the trace cannot depend on it "
              "(it runs as ordinary Python between graphs)")


def drawn_symbols_in(value: Any) -> bool:
    """Whether symbolic ``value`` depends on a value drawn from Python's RNG (which the trace must
    not fix: a branch or a Python use of it breaks the graph)."""
    node = getattr(value, "node", None)
    drawn = getattr(getattr(node, "shape_env", None), "_loom_drawn", None)
    return bool(drawn) and not drawn.isdisjoint(node.expr.free_symbols)


def float_inputs_in(value: Any) -> bool:
    """Whether symbolic ``value`` depends on a value drawn from random or a float argument: a graph input
    AOTAutograd makes a tensor of, so a float computed from it leaves the graph as a tensor
    (``SymbolicVariable.reconstruct``)."""
    node = getattr(value, "node", None)
    env = getattr(node, "shape_env", None)
    floats = getattr(env, "_loom_float_args", None)
    return drawn_symbols_in(value) or (bool(floats) and not floats.isdisjoint(node.expr.free_symbols))


def raise_if_drawn(value: Any, what: str) -> None:
    """Raise ``Unsupported`` where ``what`` (``"branching on"``) would fix symbolic ``value`` and it was
    drawn from random."""
    if drawn_symbols_in(value):
        raise Unsupported(f"{what} a value drawn from random", _DRAWN_WHY)


def loop_symbols_in(value: Any) -> bool:
    """Whether symbolic ``value`` depends on an int carried by a ``while_loop`` (known only at run time,
    inside the loop): nothing may specialise it."""
    node = getattr(value, "node", None)
    loop_symbols = getattr(getattr(node, "shape_env", None), "_loom_loop_symbols", None)
    return bool(loop_symbols) and not loop_symbols.isdisjoint(node.expr.free_symbols)


def raise_for_loop_ints(values: Any, what: str) -> None:
    """Raise ``Unsupported`` if ``values`` (a structure of an op's arguments) hold an int a ``while_loop``
    carries: called where the op failed on FakeTensors (``x[i]``, ``torch.ones(i)``), which torch.compile
    cannot trace either."""
    from torch.utils._pytree import tree_leaves

    if any(loop_symbols_in(leaf) for leaf in tree_leaves(values) if isinstance(leaf, (torch.SymInt, torch.SymBool))):
        raise Unsupported(f"{what} on an int carried by while_loop", _LOOP_WHY)


def raise_if_unknown(value: Any, what: str) -> None:
    """Raise ``Unsupported`` where ``what`` (``"branching on"``) would fix symbolic ``value``, and it was
    drawn from random or is an int a ``while_loop`` carries."""
    raise_if_drawn(value, what)
    if loop_symbols_in(value):
        raise Unsupported(f"{what} an int carried by while_loop", _LOOP_WHY)


def unknown_symbols(value: Any) -> set[Any]:
    """The unbacked symbols of a fake result (a size or a number only the real data would fix), but for
    a scalar result those of ints carried by a ``while_loop`` (``i + 1`` in its body), which the graph
    computes as torch.compile's does."""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

    symbols = set(free_unbacked_symbols(value))
    if symbols and isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        symbols -= getattr(value.node.shape_env, "_loom_loop_symbols", set())
    return symbols


_LOOP_WHY = ("its value is known only inside the loop at run time (torch.compile models it the same way), so the "
             "trace cannot depend on it")


def _free_symbol(value: Any) -> str | None:
    """The single free symbol of a SymInt's expression, if it is exactly one symbol."""
    if not isinstance(value, torch.SymInt):
        return None
    expr = value.node.expr
    if getattr(expr, "is_Symbol", False):
        return str(expr)
    return None


def is_symbolic(value: Any) -> bool:
    """Whether ``value`` is a SymInt/SymFloat/SymBool whose value is not fixed."""
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return not value.node.expr.is_number
    return False
