"""Sibling modules a module reads only while translating, imported at their first use.

The translator's modules refer to one another in cycles (a builder wraps values into variables whose
methods wrap more values). Importing a name at module level in both directions fails, and an import
statement inside a hot function costs about 1.5 µs per run, thousands of times per translation.
A :class:`LateModule` bound to a module-level name imports its module on the first attribute read and
then puts the module itself under that name, so every later read is a plain module attribute lookup.
"""

from __future__ import annotations

import importlib
from typing import Any


class LateModule:
    """Stands for module ``name`` under ``alias`` in ``namespace`` until first used."""

    __slots__ = ("_alias", "_name", "_namespace")

    def __init__(self, name: str, namespace: dict[str, Any], alias: str) -> None:
        self._name = name
        self._namespace = namespace
        self._alias = alias

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self._name)
        self._namespace[self._alias] = module  # from now on the name is the module itself
        return getattr(module, attribute)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported at first use>"
