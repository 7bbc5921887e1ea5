"""An attribute of a real object whose C getter raises something other than AttributeError (``cell_contents`` of
an empty cell: ValueError) is a graph break, the read run by Python, which raises for the program's handler; the
exception escaped the translator (an internal error, the frame left uncompiled)."""

from __future__ import annotations

import types

import torch

import loom


def test_an_empty_cells_contents_raise_the_programs_value_error():
    empty, full = types.CellType(), types.CellType(1)

    def fn(x, cell):
        try:
            value = cell.cell_contents
        except ValueError:
            value = -1
        return x + value

    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    torch.testing.assert_close(compiled(x, empty), x - 1)
    torch.testing.assert_close(compiled(x, full), x + 1)
