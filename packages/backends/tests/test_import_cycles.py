"""loom-backends has no import cycle: every import between its modules, read from the source with ``ast``
(imports inside functions too, which only hide a cycle; ``if TYPE_CHECKING:`` blocks excepted), forms a
directed acyclic graph."""

from __future__ import annotations

import ast
from pathlib import Path

import loom_backends

ROOT = Path(loom_backends.__file__).parent
PACKAGE = "loom_backends"


def module_name(path: Path) -> str:
    parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in ROOT.rglob("*.py")}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST):
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of the package that ``name`` imports: ``from . import x`` names the submodule ``x``
    when there is one, else the package itself."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [
                f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin
                for alias in node.names
            ]
        found |= {t for t in targets if t in known and t != name}
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_no_import_cycle_in_loom_backends():
    known = modules()
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    assert "loom_backends.kernels.lowering" in graph["loom_backends.kernels.graph"]  # the parser sees imports
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_checker_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
