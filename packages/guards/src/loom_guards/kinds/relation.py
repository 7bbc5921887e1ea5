"""``Relation(expr, symbols)``: an int relation over sources, e.g. sizes under dynamic shapes."""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping
from typing import Any

from ..sources import Source
from .base import Guard, _check_source, _set, short_repr

_REL_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow)
_REL_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class Relation(Guard):
    """A relation over ints read from sources, e.g. sizes under dynamic shapes: ``s0 > 1``, ``s0 == s1``.

    ``expr`` is a Python expression over the names of ``symbols`` (each a source whose value must be an
    int, typically a :class:`~loom_guards.TensorSize`) using int literals, ``+ - * // % **``, unary ``-``,
    comparisons, ``and`` / ``or`` / ``not``, and ``min`` / ``max`` / ``abs``. It is parsed and checked at
    construction. A symbol whose value is not an int fails the guard.
    """

    __slots__ = ("evaluate", "expr", "names", "symbols")
    kind = "relation"
    cost = 8

    def __init__(self, expr: str, symbols: Mapping[str, Source]) -> None:
        if not isinstance(expr, str):
            raise TypeError(f"Relation expr must be a str, got {type(expr).__name__}")
        if not isinstance(symbols, Mapping) or not symbols:
            raise TypeError("Relation needs a non-empty mapping of symbol names to sources")
        for name, src in symbols.items():
            if not isinstance(name, str) or not name.isidentifier() or name in ("min", "max", "abs"):
                raise ValueError(f"Relation symbol names must be identifiers, got {name!r}")
            _check_source("Relation", src)
        try:
            tree = ast.parse(expr, mode="eval")
        except SyntaxError as exc:
            raise ValueError(f"Relation expr {expr!r} is not a Python expression: {exc.msg}") from None
        used = _validate_relation(tree.body, set(symbols))
        names = tuple(n for n in symbols if n in used)
        if not names:
            raise ValueError(f"Relation expr {expr!r} uses none of its symbols")
        _set(
            self,
            expr=ast.unparse(tree),
            symbols={n: symbols[n] for n in names},
            names=names,
            evaluate=_evaluator(tree, names),
        )

    @property
    def sources(self) -> tuple[Source, ...]:
        return tuple(self.symbols[n] for n in self.names)

    def _key(self) -> tuple:
        return (self.expr, tuple((n, self.symbols[n]) for n in self.names))

    def describe(self) -> str:
        where = ", ".join(f"{n} = {self.symbols[n]}" for n in self.names)
        return f"{self.expr} (where {where})"

    def explain(self, *values: Any) -> tuple[str, str] | None:
        if self.evaluate(*values):
            return None
        seen = ", ".join(f"{n}={short_repr(v)}" for n, v in zip(self.names, values))
        return (self.expr, seen)


def _evaluator(tree: ast.Expression, names: tuple[str, ...]) -> Any:
    """``evaluate(*values)``: whether the relation holds for ``values`` (one per name, in order; a value
    that is no int fails it), as one compiled function (a guard check runs it on every frame entry: no
    environment dict, no ``eval`` per call). The symbols become its parameters ``_0, _1, ...``, so no name
    of the program's can meet ``type``, ``int`` or ``bool``."""
    params = {name: f"_{i}" for i, name in enumerate(names)}

    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.copy_location(ast.Name(params.get(node.id, node.id), node.ctx), node)

    body = ast.unparse(_Rename().visit(copy.deepcopy(tree.body)))
    args = ", ".join(params.values())
    ints = " and ".join(f"type({p}) is int" for p in params.values())
    source = f"lambda {args}: {ints} and bool({body})"
    scope = {"__builtins__": {}, "min": min, "max": max, "abs": abs, "type": type, "int": int, "bool": bool}
    return eval(compile(source, f"<relation {ast.unparse(tree)}>", "eval"), scope)


def _validate_relation(node: ast.AST, allowed: set[str]) -> set[str]:
    used: set[str] = set()

    def visit(n: ast.AST) -> None:
        if isinstance(n, ast.Name):
            if n.id not in allowed:
                raise ValueError(f"Relation uses unknown name {n.id!r}")
            used.add(n.id)
        elif isinstance(n, ast.Constant):
            if type(n.value) not in (int, bool):
                raise ValueError(f"Relation constants must be ints, got {n.value!r}")
        elif isinstance(n, ast.BinOp):
            if not isinstance(n.op, _REL_BINOPS):
                raise ValueError(f"Relation operator {type(n.op).__name__} is not allowed")
            visit(n.left)
            visit(n.right)
        elif isinstance(n, ast.UnaryOp):
            if not isinstance(n.op, (ast.USub, ast.UAdd, ast.Not)):
                raise ValueError(f"Relation operator {type(n.op).__name__} is not allowed")
            visit(n.operand)
        elif isinstance(n, ast.BoolOp):
            for v in n.values:
                visit(v)
        elif isinstance(n, ast.Compare):
            if not all(isinstance(op, _REL_CMPOPS) for op in n.ops):
                raise ValueError("Relation comparisons must be == != < <= > >=")
            visit(n.left)
            for c in n.comparators:
                visit(c)
        elif isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in ("min", "max", "abs")) or n.keywords:
                raise ValueError("Relation calls are limited to min(), max() and abs()")
            for a in n.args:
                visit(a)
        else:
            raise ValueError(f"Relation expression element {type(n).__name__} is not allowed")

    visit(node)
    return used
