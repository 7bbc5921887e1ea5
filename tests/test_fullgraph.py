"""fullgraph=True end to end: whole models compile; any break raises loom.Unsupported at the user's line."""

import pytest
import torch

import loom
from loom.examples.models import TinyGPT, generate


def test_a_model_that_fits_in_one_graph():
    model = TinyGPT(layers=1).eval()
    compiled = loom.compile(model, fullgraph=True, backend="eager")
    ids = torch.randint(0, 128, (1, 8))
    with torch.no_grad():
        torch.testing.assert_close(compiled(ids), model(ids))


def test_a_data_dependent_branch_raises_with_its_line():
    model = TinyGPT(layers=1).eval()
    compiled = loom.compile(generate, fullgraph=True, backend="eager")
    with pytest.raises(loom.Unsupported) as info, torch.no_grad():
        compiled(model, torch.randint(0, 128, (1, 4)), 2, 5)
    loc = info.value.location
    assert loc.filename == generate.__code__.co_filename
    assert "item()" in loc.source_line
    assert f"{loc.filename}:{loc.lineno}" in str(info.value)


def test_a_module_whose_forward_breaks():
    class Logs(torch.nn.Module):
        def forward(self, x):
            y = x.relu()
            if y.sum() > 0:  # data-dependent control flow
                return y
            return -y

    with pytest.raises(loom.Unsupported, match=r"test_fullgraph\.py:\d+"):
        loom.compile(Logs(), fullgraph=True, backend="eager")(torch.randn(4))
