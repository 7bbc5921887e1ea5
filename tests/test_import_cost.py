"""What ``import loom`` imports: never ``torch._dynamo`` (0.5-0.8 s here), which a process whose frames are
all served from the frame cache never needs (torch.compile users pay it; loom's translations pay it
through FakeTensorMode), nor sympy (through torch's ``symbolic_shapes``, 0.25 s), which only a translation
or a code generator needs."""

import subprocess
import sys


def test_import_loom_does_not_import_dynamo():
    probe = "import sys, loom; print('torch._dynamo' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"


def test_import_loom_does_not_import_sympy():
    probe = "import sys, loom; print(sorted(m for m in ('sympy', 'torch.fx.experimental.symbolic_shapes') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
