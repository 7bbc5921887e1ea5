"""The model zoo through loom.compile: small configurations of torchvision, diffusers and timm models.

Each model (tools/bench/zoo_models.py: random weights, eval mode, small inputs, no download) is captured
in one graph with no break, gives eager's output, and an identical second call is served by the cache
without compiling again, under the ``eager`` and the ``aot_eager`` backend. ``tools/bench/model_zoo_bench.py`` puts the same models beside torch.compile.

torchvision from the registry is built against the CUDA build of torch, and timm and diffusers import it,
so this file runs where that build is installed (CPython 3.12/3.13 here, on the CPU) and skips, saying
why, where it is not (3.11's CPU wheel).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

import loom

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "bench"))
from zoo_models import MODELS, first_tensor, unavailable_reason

pytestmark = pytest.mark.skipif(unavailable_reason() is not None, reason=str(unavailable_reason()))

# name -> why it still breaks (strict: the test fails once it is fixed, so this list stays true).
STILL_BREAKS: dict[str, str] = {}


def _case(name: str):
    marks = [pytest.mark.xfail(strict=True, reason=STILL_BREAKS[name])] if name in STILL_BREAKS else []
    return pytest.param(name, id=name, marks=marks)


# aot_eager too: its graphs are traced again to ATen with the capture's fakes (one trace for a graph that
# needs no autograd), so a fake that describes a tensor wrongly shows here as a failed run or a wrong answer.
@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("name", [_case(name) for name in MODELS])
def test_zoo_model_in_one_graph_matches_eager(name, backend):
    entry = MODELS[name]
    torch.manual_seed(0)
    model = entry.build().eval()
    args, kwargs = entry.inputs()
    compiled = loom.compile(model, backend=backend)
    with torch.no_grad():
        expected = first_tensor(model(*args, **kwargs))
        torch.testing.assert_close(first_tensor(compiled(*args, **kwargs)), expected, rtol=1e-4, atol=1e-5)
        first = loom.stats()
        torch.testing.assert_close(first_tensor(compiled(*args, **kwargs)), expected, rtol=1e-4, atol=1e-5)
    second = loom.stats()
    assert (first["graphs"], first["graph_breaks"]) == (1, 0), first
    assert second["frames_compiled"] == first["frames_compiled"], "the identical second call compiled again"
    assert second["recompiles"] == 0 and second["cache_hits"] > first["cache_hits"], second
