"""Every lowering rule was exercised by this suite (runs last; meaningful only for a full run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loom_backends.kernels.lowering import LOWERINGS


def test_every_lowering_rule_is_exercised(request, rules_called):
    session = request.session
    files = {Path(str(item.fspath)).name for item in session.items}
    here = {p.name for p in Path(__file__).parent.glob("test_*.py")}
    if files != here or session.config.getoption("keyword") or hasattr(session.config, "workerinput"):
        pytest.skip("only a full, single-process run of the package's tests exercises every rule")
    missing = sorted(str(op) for op in LOWERINGS if op not in rules_called)
    assert missing == [], f"lowering rules no test exercises: {missing}"
