#!/usr/bin/env python3
"""A package's import graph, its import cycles, and the imports that go up a floor.

Every import statement counts, the ones inside functions too, and so does every
``importlib.import_module`` call with a literal name (or ``f"{__name__}.{...}"``: all of the package's
own submodules), and every lazy binding (``LateModule("name", ...)``). Imports under ``if TYPE_CHECKING:`` do not run, so they do not count, and neither do the
package ``__init__`` modules named as facades (they only re-export).

    python tools/import_layers.py packages/symbolic/src/loom_symbolic [--facade loom_symbolic ...]
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path


def module_names(root: Path) -> dict[str, Path]:
    """Dotted name → file, for every module under package directory ``root``."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below ``node`` except the bodies of ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _runtime_nodes(other)
            continue
        yield child
        yield from _runtime_nodes(child)


#: Calls that import the module their first argument names: ``LateModule`` (a lazy binding) counts too.
_IMPORTING_CALLS = ("import_module", "LateModule")


def _imported(node: ast.AST, package: str, modules: dict[str, Path]) -> list[str]:
    """The dotted names ``node`` imports (modules of the tree, or names inside them)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = package
        if node.level:
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = f"{base}.{node.module}" if node.module else base
        else:
            target = node.module or ""
        return [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names]
    if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in _IMPORTING_CALLS:
        if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            return [node.args[0].value]
        if node.args and isinstance(node.args[0], ast.JoinedStr):  # f"{__name__}.{...}": a submodule of this package
            return [name for name in modules if name.rpartition(".")[0] == package]
    return []


def import_graph(root: Path, facades: Iterable[str] = ()) -> dict[str, set[str]]:
    """Module → the modules of the same tree it imports (facades left out on both ends)."""
    modules = module_names(root)
    skip = set(facades)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        if name in skip:
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = graph.setdefault(name, set())
        for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
            for target in _imported(node, package, modules):
                while target and target not in modules:  # a name inside a module: the module
                    target = target.rpartition(".")[0]
                if target and target != name and target not in skip:
                    edges.add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, ())))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def upward_imports(graph: dict[str, set[str]], floor_of: dict[str, int]) -> list[str]:
    """``a -> b`` for each import of a module ``b`` on a floor above ``a``'s (or with no floor)."""
    bad = []
    for name, targets in sorted(graph.items()):
        for target in sorted(targets):
            if name not in floor_of or target not in floor_of:
                bad.append(f"{name} -> {target} (no floor declared)")
            elif floor_of[target] > floor_of[name]:
                bad.append(f"{name} (F{floor_of[name]}) -> {target} (F{floor_of[target]})")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="the package directory")
    parser.add_argument("--facade", action="append", default=[], help="a package __init__ that only re-exports")
    args = parser.parse_args(argv)
    graph = import_graph(args.root, args.facade)
    found = cycles(graph)
    for component in found:
        print(f"cycle of {len(component)}: {' '.join(component)}")
    print(f"{len(graph)} modules, {sum(map(len, graph.values()))} imports, {len(found)} cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
