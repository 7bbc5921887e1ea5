"""loom-symbolic's tests run where only loom-symbolic and what it depends on are installed.

A test here that compiles through the facade takes it with ``pytest.importorskip("loom")`` (it skips where
the facade is absent); a test that is about the facade's behaviour belongs in the cross-package ``tests/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).parent
ABOVE = ("loom", "loom_backends")  # the facade above loom-symbolic, and a sibling it does not depend on


def _hard_imports(path: Path) -> list[str]:
    """``import``/``from ... import`` statements of a package above, anywhere in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [f"{path.name}:{node.lineno} imports {name}" for name in names if name.split(".")[0] in ABOVE]
    return found


def test_no_test_imports_a_package_above_loom_symbolic():
    offenders = [line for path in sorted(HERE.glob("*.py")) for line in _hard_imports(path)]
    assert not offenders, "use pytest.importorskip(...) or move the test to tests/:\n" + "\n".join(offenders)


def test_the_check_sees_an_import_of_the_facade(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def test_x():\n    import loom\n    from loom_backends import registry\n")
    assert _hard_imports(probe) == ["probe.py:2 imports loom", "probe.py:3 imports loom_backends"]
