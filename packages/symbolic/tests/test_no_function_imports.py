"""No import statements run inside the translator's functions (the hot paths)."""

from __future__ import annotations

import ast
from pathlib import Path

import loom_symbolic

PACKAGE = Path(loom_symbolic.__file__).parent


def _function_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and inner.level:
                    found.append(f"{path.relative_to(PACKAGE)}:{inner.lineno} in {node.name}()")
    return found


def test_translator_functions_run_no_import_statements():
    # An import statement in a function costs ~1.5 µs each run, thousands of runs per translation.
    # Registration functions that run once, at import time, are the exception.
    allowed = {"versions/py311.py", "versions/py312.py", "versions/py313.py"}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if str(path.relative_to(PACKAGE)) not in allowed:
            offenders += _function_level_imports(path)
    assert offenders == []
