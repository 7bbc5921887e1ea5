"""loom_guards' modules import one another without a cycle (every import statement counts, inside
functions too; ``if TYPE_CHECKING:`` imports and the ``__init__`` facade do not)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import loom_guards

PACKAGE = Path(loom_guards.__file__).parent
_TOOL = PACKAGE.parents[3] / "tools" / "import_layers.py"


def test_no_import_cycle():
    spec = importlib.util.spec_from_file_location("import_layers", _TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.cycles(tool.import_graph(PACKAGE, facades=["loom_guards"])) == []
