"""``torch.cuda.is_available()`` and the other availability queries of the process are folded, not inlined (issue 29,
after Paddle's SOT test_builtin_dispatch's native capability queries). In a torch built with CUDA, inlining reached
``os.getenv("PYTORCH_NVML_BASED_CUDA_CHECK")``, a graph break where programs pick their device."""

import torch
import torch._dynamo  # imported with the real torch.cuda: loom's fake mode uses it
from harness import check


def picks_its_device(x):
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    return x.to(dev).cpu() + torch.backends.cudnn.is_available() + torch.backends.openmp.is_available() * 2


def test_availability_queries_fold(monkeypatch):
    # the path a CUDA build takes (compiled in, no device here): it reads the environment on the way
    monkeypatch.setattr(torch.cuda, "_is_compiled", lambda: True)
    monkeypatch.setattr(torch._C, "_cuda_getDeviceCount", lambda: 0, raising=False)
    assert torch.cuda.is_available() is False
    check(picks_its_device, torch.ones(3))
