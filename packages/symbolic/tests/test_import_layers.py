"""loom_symbolic's modules import one another without a cycle (see docs/symbolic.md, "The floors").

Every import statement counts, inside functions too, and every ``importlib.import_module`` call;
``if TYPE_CHECKING:`` imports do not run and ``loom_symbolic/__init__.py`` only re-exports, so they do not.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import loom_symbolic

PACKAGE = Path(loom_symbolic.__file__).parent
_TOOL = PACKAGE.parents[3] / "tools" / "import_layers.py"


def _tool():
    spec = importlib.util.spec_from_file_location("import_layers", _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _graph():
    return _tool().import_graph(PACKAGE, facades=["loom_symbolic"])


def test_the_cycle_finder_finds_a_cycle():
    assert _tool().cycles({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}) == [["a", "b", "c"]]


def test_no_import_cycle():
    assert _tool().cycles(_graph()) == []
