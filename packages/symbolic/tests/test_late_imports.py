"""LateModule, and the rule it serves: no import statements run inside the translator's functions."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import loom_symbolic
from loom_symbolic._late import LateModule

PACKAGE = Path(loom_symbolic.__file__).parent


def test_late_module_imports_on_first_read_and_replaces_itself():
    namespace: dict = {}
    sys.modules.pop("json.scanner", None)
    namespace["_scanner"] = LateModule("json.scanner", namespace, "_scanner")
    assert "json.scanner" not in sys.modules
    assert "imported at first use" in repr(namespace["_scanner"])
    make_scanner = namespace["_scanner"].make_scanner
    assert "json.scanner" in sys.modules
    assert namespace["_scanner"] is sys.modules["json.scanner"]
    assert make_scanner is sys.modules["json.scanner"].make_scanner
    assert json.loads("[1]") == [1]


def test_late_module_missing_attribute_raises_attribute_error():
    namespace: dict = {}
    namespace["_json"] = LateModule("json", namespace, "_json")
    try:
        namespace["_json"].no_such_name
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


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
