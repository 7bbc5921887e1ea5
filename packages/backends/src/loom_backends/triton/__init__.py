"""The ``triton`` backend (under construction: milestone 1 ships the registry, eager and aot_eager)."""

from __future__ import annotations

from typing import Any

from ..graphs import check_backend_args


def triton_backend(gm: Any, example_inputs: list[Any]) -> Any:
    check_backend_args(gm, example_inputs)
    raise NotImplementedError("the triton backend is not built yet; use 'aot_eager'")
