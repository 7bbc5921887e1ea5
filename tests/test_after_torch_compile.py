"""loom in a process where torch.compile has already run: torch.compile's first compile wraps
``nn.Module.__init__`` (dynamo's generation tagging), and a module made inside a loom-compiled function
must still be one graph with no break, as in a process where torch.compile never ran. Run in a child
process so that the wrapping is certain and nothing leaks into other tests."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import torch, loom
    from torch._dynamo import mutation_guard

    torch.compile(lambda x: x + 1, backend="eager")(torch.ones(2))
    assert torch.nn.Module.__init__ is not mutation_guard.unpatched_nn_module_init, "dynamo did not wrap it"

    def made_inside(x):
        relu, tanh = torch.nn.ReLU(), torch.nn.Tanh()
        flat = torch.nn.Flatten(0)
        return relu(x) + tanh(x), flat.start_dim

    def escapes(x):
        norm = torch.nn.Softmax(dim=0)
        return norm, norm(x)

    x = torch.arange(3.0)
    report = loom.explain(made_inside, backend="eager")(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report
    out, features = loom.compile(made_inside, backend="eager")(x)
    assert torch.allclose(out, torch.relu(x) + torch.tanh(x)) and features == 0

    loom.reset()
    norm, y = loom.compile(escapes, backend="eager")(x)
    assert type(norm) is torch.nn.Softmax and torch.allclose(y, norm(x))
    assert loom.stats()["graph_breaks"] == 0, loom.stats()
    print("ok")
""")


def test_modules_made_inside_after_torch_compile_ran():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout + done.stderr
